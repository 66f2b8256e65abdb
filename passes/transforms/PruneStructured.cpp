//===- PruneStructured.cpp - attention heads and FFN neurons removed ------===//
//
// Both passes find their regions (PruneRegion.h), rank the groups by
// importance (activation-aware where calibration left input norms on the
// consumers, from the weights otherwise) per layer or over all layers,
// shrink the regions and record what they removed in the module's
// `tsc.prune` attribute. tsc-drop-input-norms removes the calibration's
// norms after them.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/PruneRecord.h"
#include "passes/transforms/PruneRegion.h"

#include "dialects/tsc/IR/TscTraits.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <numeric>

namespace mlir::tsc {
#define GEN_PASS_DEF_PRUNEHEADSPASS
#define GEN_PASS_DEF_PRUNEFFNPASS
#define GEN_PASS_DEF_DROPINPUTNORMSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::prune;

namespace {

/// Where a weight made by the pass comes from: elements from `offset` on
/// along `axis` of the model's weight `name`.
struct Origin {
  std::string name;
  int64_t offset;
};

/// A region found, with what the record needs beyond it.
struct Candidate {
  /// The layer's number in the records (refused layers count too).
  std::string layer;
  std::unique_ptr<PruneRegion> region;
  /// Query heads per group (heads only; 1 for FFNs).
  int64_t headsPerGroup = 1;
};

/// What the structured passes share: ranking, shrinking, recording.
class StructuredPruner {
public:
  StructuredPruner(ModuleOp module, StringRef kind, StringRef unit, bool exact)
      : module(module), kind(kind), unit(unit), exact(exact) {}

  llvm::DenseMap<Operation *, Origin> origins;

  /// Records a region that cannot be pruned (not in exact mode, which
  /// records only what it removes).
  void refuse(StringRef layer, StringRef reason) {
    if (exact)
      return;
    Builder b(module.getContext());
    appendPruneRecord(module,
                      b.getDictionaryAttr({
                          b.getNamedAttr("kind", b.getStringAttr(kind)),
                          b.getNamedAttr("layer", b.getStringAttr(layer)),
                          b.getNamedAttr("status", b.getStringAttr("refused")),
                          b.getNamedAttr("reason", b.getStringAttr(reason)),
                      }));
  }

  /// Removes the fraction `ratio` of the groups of `candidates` (all
  /// shrinkable), per region or ranked over all of them. A region is
  /// ranked by activation importance when its consumers carry input norms;
  /// a global ranking only when every region's do (the two scores have
  /// different scales).
  void prune(MutableArrayRef<Candidate> candidates, double ratio, bool global) {
    std::vector<SmallVector<int64_t>> removed(candidates.size());
    std::vector<std::optional<std::vector<double>>> activations;
    for (Candidate &c : candidates)
      activations.push_back(c.region->getActivationImportance());
    bool allActivations =
        llvm::all_of(activations, [](const auto &a) { return a.has_value(); });
    std::vector<std::vector<double>> scores;
    std::vector<StringRef> importance;
    for (auto [c, a] : llvm::zip_equal(candidates, activations)) {
      bool useActivations = a && (!global || allActivations);
      scores.push_back(useActivations ? *a : c.region->getImportance());
      importance.push_back(useActivations ? "activations" : "weights");
    }
    if (!global) {
      for (auto [i, c] : llvm::enumerate(candidates)) {
        int64_t groups = c.region->getNumGroups();
        auto count = static_cast<int64_t>(std::floor(ratio * groups));
        removed[i] = pickSmallest(scores[i], std::min(count, groups - 1));
      }
    } else {
      // One ranking over all layers; each keeps at least one group.
      SmallVector<std::tuple<double, size_t, int64_t>> all;
      int64_t total = 0;
      for (auto [i, s] : llvm::enumerate(scores)) {
        total += static_cast<int64_t>(s.size());
        for (auto [g, score] : llvm::enumerate(s))
          all.push_back({score, i, static_cast<int64_t>(g)});
      }
      // By score, ties by layer and group (the order `all` was built in).
      llvm::sort(all);
      auto count = static_cast<int64_t>(std::floor(ratio * total));
      for (auto &[score, i, g] : all) {
        if (count == 0)
          break;
        if (static_cast<int64_t>(removed[i].size()) + 1 >=
            candidates[i].region->getNumGroups())
          continue;
        removed[i].push_back(g);
        --count;
      }
      for (SmallVector<int64_t> &r : removed)
        llvm::sort(r);
    }
    for (auto [i, c] : llvm::enumerate(candidates))
      record(c.layer, c, removed[i], importance[i]);
    for (auto [i, c] : llvm::enumerate(candidates))
      if (!removed[i].empty())
        c.region->shrink(removed[i]);
  }

  /// Removes the groups of `candidates` whose consumer weights are all zero
  /// (exact; at least one group stays), recording only the regions where
  /// some are.
  void pruneDead(MutableArrayRef<Candidate> candidates) {
    for (Candidate &c : candidates) {
      SmallVector<int64_t> dead = c.region->getDeadGroups();
      if (dead.empty())
        continue;
      if (static_cast<int64_t>(dead.size()) == c.region->getNumGroups())
        dead.erase(dead.begin());
      record(c.layer, c, dead, "zero consumers");
      c.region->shrink(dead);
    }
  }

private:
  /// Appends the record of `c` with `removed` groups (before shrinking),
  /// chosen by `importance` ("weights" or "activations").
  void record(StringRef layer, const Candidate &c, ArrayRef<int64_t> removed,
              StringRef importance) {
    Builder b(module.getContext());
    const PruneRegion &region = *c.region;
    int64_t groups = region.getNumGroups();
    auto kept = groups - static_cast<int64_t>(removed.size());
    SmallVector<Attribute> weights;
    for (const ShrunkWeight &w : region.getWeights()) {
      Operation *constant = w.use->get().getDefiningOp();
      auto it = origins.find(constant);
      std::string name =
          it != origins.end()
              ? it->second.name
              : getWeightName(cast<ConstantOp>(constant).getValue()).str();
      int64_t offset = it != origins.end() ? it->second.offset : 0;
      weights.push_back(b.getDictionaryAttr({
          b.getNamedAttr("name", b.getStringAttr(name)),
          b.getNamedAttr("role", b.getStringAttr(w.role)),
          b.getNamedAttr("axis", b.getI64IntegerAttr(w.groups.axis)),
          b.getNamedAttr("unit", b.getI64IntegerAttr(w.groups.unit)),
          b.getNamedAttr("offset", b.getI64IntegerAttr(offset)),
      }));
    }
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("kind", b.getStringAttr(kind)),
        b.getNamedAttr("layer", b.getStringAttr(layer)),
        b.getNamedAttr("status",
                       b.getStringAttr(removed.empty() ? "kept" : "pruned")),
        b.getNamedAttr("unit", b.getStringAttr(unit)),
        b.getNamedAttr("groups", b.getI64IntegerAttr(groups)),
        b.getNamedAttr("removed", b.getDenseI64ArrayAttr(removed)),
        b.getNamedAttr("heads_per_group", b.getI64IntegerAttr(c.headsPerGroup)),
        b.getNamedAttr("importance", b.getStringAttr(importance)),
        b.getNamedAttr("weights", b.getArrayAttr(weights)),
        b.getNamedAttr("params_before",
                       b.getI64IntegerAttr(region.countParameters(groups))),
        b.getNamedAttr("params_after",
                       b.getI64IntegerAttr(region.countParameters(kept))),
        b.getNamedAttr("flops_before",
                       b.getI64IntegerAttr(region.countFlopsPerToken(groups))),
        b.getNamedAttr("flops_after",
                       b.getI64IntegerAttr(region.countFlopsPerToken(kept))),
    };
    appendPruneRecord(module, b.getDictionaryAttr(fields));
  }

  ModuleOp module;
  StringRef kind, unit;
  bool exact;
};

/// Fails for `exact` with a ratio: exact removes only dead groups.
LogicalResult checkExact(ModuleOp module, bool exact, double ratio) {
  if (exact && ratio != 0.0)
    return module.emitError() << "exact removes the groups whose consumer "
                                 "weights are all zero; it takes no ratio";
  return success();
}

/// The value `gemm` computes with its bias add, if an add of a constant
/// is its only user (besides shape bindings).
Value withBiasAdd(const Gemm &gemm, ConstantOp *bias = nullptr) {
  Value value = gemm.op->getResult(0);
  SmallVector<Operation *> users;
  for (Operation *user : value.getUsers())
    if (!isa<BindShapeOp>(user))
      users.push_back(user);
  if (users.size() != 1 || !isa<AddOp>(users[0]))
    return value;
  Value other = users[0]->getOperand(0) == value ? users[0]->getOperand(1)
                                                 : users[0]->getOperand(0);
  auto constant = other.getDefiningOp<ConstantOp>();
  auto type = cast<RankedTensorType>(other.getType());
  if (!constant || type.getRank() != 1 || type.getDimSize(0) != gemm.getN())
    return value;
  if (bias)
    *bias = constant;
  return users[0]->getResult(0);
}

/// A projection split into pieces along N (a merged QKV GEMM) becomes one
/// GEMM per piece, so that each piece's heads can go; the fuse phase merges
/// them again. `origins` learns where each new weight comes from.
void unmergeSplitProjections(func::FuncOp func,
                             llvm::DenseMap<Operation *, Origin> &origins) {
  SmallVector<Gemm> merged;
  func.walk([&](Operation *op) {
    if (std::optional<Gemm> gemm = matchGemm(op); gemm && !gemm->bias)
      merged.push_back(*gemm);
  });
  for (Gemm &gemm : merged) {
    ConstantOp bias;
    Value value = withBiasAdd(gemm, &bias);
    SplitOp split;
    for (Operation *user : value.getUsers())
      if (auto s = dyn_cast<SplitOp>(user))
        split = s;
    auto type = cast<RankedTensorType>(value.getType());
    if (!split || static_cast<int64_t>(split.getAxis()) != type.getRank() - 1 ||
        llvm::any_of(value.getUsers(), [&](Operation *u) {
          return u != split && !isa<BindShapeOp>(u);
        }))
      continue;
    OpBuilder builder(split);
    std::string weightName = getWeightName(gemm.weight.getValue()).str();
    std::string biasName =
        bias ? getWeightName(bias.getValue()).str() : std::string();
    int64_t offset = 0;
    for (auto [piece, size] :
         llvm::zip_equal(split.getResults(), split.getSizes())) {
      SmallVector<int64_t> columns(size);
      std::iota(columns.begin(), columns.end(), offset);
      ConstantOp w =
          gatherConstant(builder, gemm.weight, gemm.kn ? 1 : 0, columns);
      origins[w] = {weightName, offset};
      auto pieceType = cast<RankedTensorType>(piece.getType());
      Value product;
      if (isa<MatmulOp>(gemm.op))
        product = MatmulOp::create(builder, gemm.op->getLoc(), pieceType,
                                   gemm.input, w);
      else
        product = LinearOp::create(builder, gemm.op->getLoc(), pieceType,
                                   gemm.input, w, Value(), Value(), gemm.kn,
                                   cast<LinearOp>(gemm.op).getActivation());
      if (bias) {
        ConstantOp b = gatherConstant(builder, bias, 0, columns);
        origins[b] = {biasName, offset};
        product =
            AddOp::create(builder, gemm.op->getLoc(), pieceType, product, b);
      }
      piece.replaceAllUsesWith(product);
      offset += size;
    }
    split->erase();
    for (Operation *user : llvm::make_early_inc_range(value.getUsers()))
      user->erase();
    if (value != gemm.op->getResult(0)) {
      Operation *add = value.getDefiningOp();
      for (Operation *user :
           llvm::make_early_inc_range(gemm.op->getResult(0).getUsers()))
        if (user != add)
          user->erase();
      add->erase();
    }
    for (Operation *user :
         llvm::make_early_inc_range(gemm.op->getResult(0).getUsers()))
      user->erase();
    gemm.op->erase();
  }
}

/// The number of heads `gemm`'s result (after its bias add) is reshaped
/// into (`[..., H·D] -> [..., H, D]`), if it is.
std::optional<int64_t> headsOf(const Gemm &gemm) {
  Value value = withBiasAdd(gemm);
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  for (Operation *user : value.getUsers()) {
    auto reshape = dyn_cast<ReshapeOp>(user);
    if (!reshape)
      continue;
    RankedTensorType to = reshape.getType();
    if (to.getRank() == rank + 1 && !to.isDynamicDim(rank - 1) &&
        !to.isDynamicDim(rank) && !type.isDynamicDim(rank - 1) &&
        to.getDimSize(rank - 1) * to.getDimSize(rank) ==
            type.getDimSize(rank - 1) &&
        to.getDimSize(rank - 1) > 1)
      return to.getDimSize(rank - 1);
  }
  return std::nullopt;
}

struct PruneHeadsPass : public tsc::impl::PruneHeadsPassBase<PruneHeadsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkRatio(module, ratio)) ||
        failed(checkExact(module, exact, ratio)))
      return signalPassFailure();
    StructuredPruner pruner(module, "heads", "K/V head groups", exact);
    std::vector<Candidate> candidates;
    int64_t layer = 0;
    for (auto func : module.getOps<func::FuncOp>()) {
      // Exact mode changes nothing where nothing is dead: merged QKV GEMMs
      // stay merged (and unrecognised).
      if (!exact)
        unmergeSplitProjections(func, pruner.origins);
      // Projections of one input reshaped into heads: Q, K and V.
      llvm::MapVector<Value, SmallVector<std::pair<Gemm, int64_t>>> byInput;
      func.walk([&](Operation *op) {
        std::optional<Gemm> gemm = matchGemm(op);
        if (!gemm)
          return;
        if (std::optional<int64_t> heads = headsOf(*gemm))
          byInput[gemm->input].push_back({*gemm, *heads});
      });
      for (auto &[input, projections] : byInput) {
        std::string name = std::to_string(layer++);
        if (projections.size() < 3) {
          pruner.refuse(name, "fewer than three projections of one input are "
                              "reshaped into heads (not Q, K and V)");
          continue;
        }
        int64_t groups = projections.front().second, heads = groups;
        for (auto &[gemm, h] : projections) {
          groups = std::min(groups, h);
          heads = std::max(heads, h);
        }
        if (llvm::any_of(projections,
                         [&](auto &p) { return p.second % groups != 0; })) {
          pruner.refuse(name, "the projections' head counts are not "
                              "multiples of the K/V heads");
          continue;
        }
        SmallVector<Gemm> producers;
        for (auto &[gemm, h] : projections)
          producers.push_back(gemm);
        auto region = std::make_unique<PruneRegion>(producers, groups);
        if (!region->getRefusal().empty()) {
          pruner.refuse(name, region->getRefusal());
          continue;
        }
        candidates.push_back({name, std::move(region), heads / groups});
      }
    }
    if (exact)
      pruner.pruneDead(candidates);
    else
      pruner.prune(candidates, ratio, globalRanking);
  }
};

/// Whether `op` is a nonlinearity of an FFN: an elementwise function of one
/// operand other than a negation or a type conversion (GELU, SiLU, ReLU,
/// or the erf, tanh or sigmoid of a decomposed activation). The dialect's
/// traits say which ops are elementwise; what is linear among them is
/// short enough to name.
bool isActivation(Operation *op) {
  return op->hasTrait<OpTrait::tsc::Elementwise>() &&
         op->getNumOperands() == 1 && !isa<NegOp, CastOp>(op);
}

/// The GEMMs whose outputs `down`'s input is computed from by elementwise
/// ops (constants aside), if they are at least one of them nonlinear.
SmallVector<Gemm> findFfnProducers(const Gemm &down) {
  SmallVector<Value> work{down.input};
  llvm::DenseSet<Value> seen;
  llvm::SetVector<Operation *> producerOps;
  SmallVector<Gemm> producers;
  bool nonlinear = false;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    Operation *def = value.getDefiningOp();
    if (!def)
      return {};
    if (std::optional<Gemm> gemm = matchGemm(def)) {
      if (producerOps.insert(def))
        producers.push_back(*gemm);
      continue;
    }
    // Exporters that flatten [B, S] around 2-D GEMMs reshape between them,
    // keeping the neurons as the last dim.
    if (auto reshape = dyn_cast<ReshapeOp>(def)) {
      RankedTensorType from = reshape.getInput().getType();
      RankedTensorType to = reshape.getType();
      if (from.isDynamicDim(from.getRank() - 1) ||
          from.getShape().back() != to.getShape().back())
        return {};
      work.push_back(reshape.getInput());
      continue;
    }
    if (!def->hasTrait<OpTrait::tsc::Elementwise>() ||
        def->getNumResults() != 1)
      return {};
    nonlinear |= isActivation(def);
    for (Value operand : def->getOperands())
      if (!operand.getDefiningOp<ConstantOp>())
        work.push_back(operand);
  }
  if (!nonlinear)
    return {};
  return producers;
}

struct PruneFfnPass : public tsc::impl::PruneFfnPassBase<PruneFfnPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkRatio(module, ratio)) ||
        failed(checkExact(module, exact, ratio)))
      return signalPassFailure();
    StructuredPruner pruner(module, "ffn", "neurons", exact);
    std::vector<Candidate> candidates;
    llvm::DenseSet<Operation *> taken;
    int64_t layer = 0;
    module.walk([&](Operation *op) {
      std::optional<Gemm> down = matchGemm(op);
      if (!down)
        return;
      SmallVector<Gemm> producers = findFfnProducers(*down);
      if (producers.empty() || taken.contains(producers.front().op))
        return;
      for (const Gemm &p : producers)
        taken.insert(p.op);
      std::string name = std::to_string(layer++);
      int64_t n = producers.front().getN();
      if (llvm::any_of(producers,
                       [&](const Gemm &p) { return p.getN() != n; })) {
        pruner.refuse(name, "the up and gate projections differ in width");
        return;
      }
      auto region = std::make_unique<PruneRegion>(producers, n);
      if (!region->getRefusal().empty()) {
        pruner.refuse(name, region->getRefusal());
        return;
      }
      candidates.push_back({name, std::move(region), 1});
    });
    if (exact)
      pruner.pruneDead(candidates);
    else
      pruner.prune(candidates, ratio, globalRanking);
  }
};

struct DropInputNormsPass
    : public tsc::impl::DropInputNormsPassBase<DropInputNormsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk(
        [](Operation *op) { op->removeAttr(kInputNormsAttr); });
  }
};

} // namespace
