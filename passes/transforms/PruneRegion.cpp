//===- PruneRegion.cpp - following pruned groups from GEMM to GEMM --------===//

#include "passes/transforms/PruneRegion.h"
#include "dialects/tsc/IR/ConstantData.h"
#include "dialects/tsc/IR/TscTraits.h"
#include "passes/transforms/PruneRecord.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "llvm/ADT/SetVector.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::prune;

int64_t Gemm::getN() const {
  return cast<RankedTensorType>(weight->getResult(0).getType())
      .getDimSize(kn ? 1 : 0);
}

int64_t Gemm::getK() const {
  return cast<RankedTensorType>(weight->getResult(0).getType())
      .getDimSize(kn ? 0 : 1);
}

std::optional<Gemm> prune::matchGemm(Operation *op) {
  auto isWeight = [](ConstantOp c) {
    auto type = cast<RankedTensorType>(c.getType());
    return type.getRank() == 2 && type.hasStaticShape() &&
           type.getElementType().isF32();
  };
  if (auto matmul = dyn_cast_or_null<MatmulOp>(op)) {
    auto weight = matmul.getRhs().getDefiningOp<ConstantOp>();
    if (!weight || !isWeight(weight) ||
        matmul.getLhs().getType().getRank() < 2 ||
        matmul.getLhs().getDefiningOp<ConstantOp>())
      return std::nullopt;
    return Gemm{op, matmul.getLhs(), weight, true, nullptr};
  }
  if (auto linear = dyn_cast_or_null<LinearOp>(op)) {
    auto weight = linear.getWeight().getDefiningOp<ConstantOp>();
    ConstantOp bias;
    if (linear.getBias() &&
        !(bias = linear.getBias().getDefiningOp<ConstantOp>()))
      return std::nullopt;
    if (!weight || !isWeight(weight) || linear.getResidual())
      return std::nullopt;
    return Gemm{op, linear.getInput(), weight, linear.getWeightKn(), bias};
  }
  return std::nullopt;
}

SmallVector<int64_t> prune::expandGroups(ArrayRef<int64_t> kept, int64_t unit) {
  SmallVector<int64_t> indices;
  indices.reserve(kept.size() * unit);
  for (int64_t g : kept)
    for (int64_t i = 0; i < unit; ++i)
      indices.push_back(g * unit + i);
  return indices;
}

ConstantOp prune::gatherConstant(OpBuilder &builder, ConstantOp constant,
                                 int64_t axis, ArrayRef<int64_t> indices) {
  auto type = cast<RankedTensorType>(constant.getType());
  std::optional<std::vector<char>> bytes =
      getConstantBytes(constant.getValue());
  assert(bytes && "the region checked the constant's data");
  int64_t element = type.getElementTypeBitWidth() / 8;
  int64_t outer = 1, inner = element;
  for (int64_t d = 0; d < axis; ++d)
    outer *= type.getDimSize(d);
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  int64_t size = type.getDimSize(axis);
  std::vector<char> out;
  out.reserve(outer * indices.size() * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : indices) {
      const char *from = bytes->data() + (o * size + i) * inner;
      out.insert(out.end(), from, from + inner);
    }
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = static_cast<int64_t>(indices.size());
  auto newType = type.clone(shape);
  return ConstantOp::create(
      builder, constant.getLoc(), newType,
      makePrunedWeight(newType, out, constant.getValue()));
}

ElementsAttr prune::makePrunedWeight(RankedTensorType type,
                                     ArrayRef<char> bytes, Attribute original) {
  StringRef name = getWeightName(original);
  if (name.empty())
    return cast<ElementsAttr>(getConstantFromBytes(type, bytes, "pruned"));
  // A weight stays a named blob, whatever its size: the report and the
  // printed IR name it after the model's weight.
  return DenseResourceElementsAttr::get(
      type, (name + ".pruned").str(),
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, 64));
}

/// The f32 elements of `constant`: a view of its blob where it is one and
/// float-aligned (no copy of a large weight), else a copy kept in `storage`.
static std::optional<ArrayRef<float>> floatsOf(ConstantOp constant,
                                               std::vector<char> &storage) {
  auto type = cast<RankedTensorType>(constant.getType());
  if (!type.getElementType().isF32())
    return std::nullopt;
  if (auto blob = dyn_cast<DenseResourceElementsAttr>(constant.getValue()))
    if (AsmResourceBlob *data = blob.getRawHandle().getBlob();
        data &&
        data->getData().size() ==
            static_cast<size_t>(type.getNumElements()) * sizeof(float) &&
        reinterpret_cast<uintptr_t>(data->getData().data()) % alignof(float) ==
            0)
      return ArrayRef<float>(
          reinterpret_cast<const float *>(data->getData().data()),
          type.getNumElements());
  std::optional<std::vector<char>> bytes =
      getConstantBytes(constant.getValue());
  if (!bytes)
    return std::nullopt;
  storage = std::move(*bytes);
  return ArrayRef<float>(reinterpret_cast<const float *>(storage.data()),
                         storage.size() / sizeof(float));
}

std::optional<std::vector<float>> prune::readFloats(ConstantOp constant) {
  std::vector<char> storage;
  std::optional<ArrayRef<float>> data = floatsOf(constant, storage);
  if (!data)
    return std::nullopt;
  return std::vector<float>(data->begin(), data->end());
}

SmallVector<int64_t> prune::pickSmallest(ArrayRef<double> importance,
                                         int64_t count) {
  SmallVector<int64_t> order(importance.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](int64_t a, int64_t b) {
    return importance[a] < importance[b] ||
           (importance[a] == importance[b] && a < b);
  });
  order.resize(std::min<int64_t>(count, order.size()));
  llvm::sort(order);
  return order;
}

LogicalResult prune::checkRatio(Operation *op, double ratio) {
  if (ratio >= 0 && ratio < 1)
    return success();
  return op->emitError() << "pruning ratio " << ratio << " is outside [0, 1)";
}

namespace {

/// Whether a constant's data is there (a blob may be elided or freed).
bool hasData(ConstantOp constant) {
  if (auto resource =
          dyn_cast<DenseResourceElementsAttr>(constant.getValue())) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    return blob && !blob->getData().empty();
  }
  return true;
}

/// Whether two dims are the same: equal sizes, or both dynamic.
bool sameDim(int64_t a, int64_t b) { return a == b; }

/// For a reshape from `in` to `out` that splits dim j into two (or merges
/// dims j and j+1 into one), j; nullopt for any other reshape.
std::optional<int64_t> findSplit(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  if (out.size() != in.size() + 1)
    return std::nullopt;
  for (size_t j = 0; j < in.size(); ++j) {
    if (ShapedType::isDynamic(in[j]) || ShapedType::isDynamic(out[j]) ||
        ShapedType::isDynamic(out[j + 1]) || out[j] * out[j + 1] != in[j])
      continue;
    bool same = true;
    for (size_t d = 0; d < j; ++d)
      same &= sameDim(in[d], out[d]);
    for (size_t d = j + 1; d < in.size(); ++d)
      same &= sameDim(in[d], out[d + 1]);
    if (same)
      return j;
  }
  return std::nullopt;
}

/// The static dims of a shape binding's map set to `type`'s.
AffineMap withStaticDims(AffineMap map, RankedTensorType type) {
  SmallVector<AffineExpr> results(map.getResults());
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d))
      results[d] = getAffineConstantExpr(type.getDimSize(d), map.getContext());
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

} // namespace

PruneRegion::PruneRegion(ArrayRef<Gemm> producerList, int64_t groups)
    : groups(groups), producers(producerList) {
  // The region: every op reachable from the producers' results, up to the
  // consumers, in block order (operands before users).
  Block *block = producers.front().op->getBlock();
  llvm::SetVector<Operation *> reached;
  SmallVector<Value> work;
  for (const Gemm &p : producers) {
    if (p.op->getBlock() != block) {
      refusal = "the projections are in different blocks";
      return;
    }
    int64_t n = p.getN();
    auto type = cast<RankedTensorType>(p.op->getResult(0).getType());
    if (n % groups != 0 || type.isDynamicDim(type.getRank() - 1)) {
      refusal = "a projection's width is not a multiple of the groups";
      return;
    }
    values[p.op->getResult(0)] = {type.getRank() - 1, n / groups};
    weights.push_back(
        {&p.op->getOpOperand(1), {p.kn ? 1 : 0, n / groups}, "producer"});
    if (p.bias)
      weights.push_back({&p.op->getOpOperand(2), {0, n / groups}, "bias"});
    work.push_back(p.op->getResult(0));
  }
  llvm::DenseSet<Operation *> producerOps;
  for (const Gemm &p : producers)
    producerOps.insert(p.op);
  while (!work.empty()) {
    Value value = work.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (isa<BindShapeOp>(user) || producerOps.contains(user) ||
          !reached.insert(user))
        continue;
      std::optional<Gemm> gemm = matchGemm(user);
      if (gemm && gemm->input == value)
        continue;
      for (Value result : user->getResults())
        work.push_back(result);
    }
  }
  SmallVector<Operation *> ordered(reached.begin(), reached.end());
  for (Operation *op : ordered)
    if (op->getBlock() != block) {
      (void)refuse(op, "is in another block");
      return;
    }
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    if (failed(propagate(op)))
      return;
  if (consumers.empty())
    refusal = "no output projection reads the groups";
  for (const ShrunkWeight &w : weights)
    if (refusal.empty() && !hasData(w.use->get().getDefiningOp<ConstantOp>()))
      (void)refuse(w.use->getOwner(), "reads a weight without data (weights "
                                      "elided when the IR was printed?)");
}

LogicalResult PruneRegion::refuse(Operation *op, const Twine &why) {
  std::string loc;
  llvm::raw_string_ostream os(loc);
  op->getLoc().print(os);
  refusal =
      ("'" + op->getName().getStringRef() + "' at " + loc + " " + why).str();
  return failure();
}

Operation *PruneRegion::getFirstOp() const {
  Operation *first = producers.front().op;
  for (const Gemm &p : producers)
    if (p.op->isBeforeInBlock(first))
      first = p.op;
  return first;
}

LogicalResult PruneRegion::propagate(Operation *op) {
  // The region operands' states, aligned to the first result's rank.
  auto stateOf = [&](Value v) -> std::optional<GroupAxis> {
    auto it = values.find(v);
    if (it == values.end())
      return std::nullopt;
    return it->second;
  };
  auto setResult = [&](Value result, GroupAxis state) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || state.axis < 0 || state.axis >= type.getRank() ||
        type.getDimSize(state.axis) != groups * state.unit)
      return refuse(op, "does not keep the groups along one axis");
    values[result] = state;
    return success();
  };
  if (isa<func::ReturnOp>(op))
    return refuse(op, "returns a value that carries the groups");

  if (std::optional<Gemm> gemm = matchGemm(op)) {
    // Reached through its input: a consumer, whose K rows shrink.
    std::optional<GroupAxis> in = stateOf(gemm->input);
    auto type = cast<RankedTensorType>(gemm->input.getType());
    if (!in || in->axis != type.getRank() - 1)
      return refuse(op, "reads the groups other than along K");
    consumers.push_back(*gemm);
    weights.push_back(
        {&op->getOpOperand(1), {gemm->kn ? 0 : 1, in->unit}, "consumer"});
    return success();
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    GroupAxis in = *stateOf(reshape.getInput());
    ArrayRef<int64_t> from = reshape.getInput().getType().getShape();
    ArrayRef<int64_t> to = reshape.getType().getShape();
    if (std::optional<int64_t> j = findSplit(from, to)) {
      if (in.axis < *j)
        return setResult(reshape, in);
      if (in.axis > *j)
        return setResult(reshape, {in.axis + 1, in.unit});
      if (in.unit % to[*j + 1] != 0)
        return refuse(op, "splits the groups");
      return setResult(reshape, {*j, in.unit / to[*j + 1]});
    }
    if (std::optional<int64_t> j = findSplit(to, from)) {
      if (in.axis < *j)
        return setResult(reshape, in);
      if (in.axis > *j + 1)
        return setResult(reshape, {in.axis - 1, in.unit});
      if (in.axis == *j)
        return setResult(reshape, {*j, in.unit * from[*j + 1]});
      return refuse(op, "merges the groups into an outer dim");
    }
    // Otherwise (exporters that flatten [B, S] around 2-D GEMMs split or
    // merge several dims at once): when the dims after the groups' axis are
    // static, the output axis b whose suffix holds as many elements as the
    // input's suffix from the groups' axis carries them.
    int64_t inner = 1;
    for (int64_t d = in.axis + 1; d < static_cast<int64_t>(from.size()); ++d)
      inner =
          ShapedType::isDynamic(from[d]) || inner < 0 ? -1 : inner * from[d];
    if (inner > 0) {
      int64_t target = groups * in.unit * inner, suffix = 1;
      for (int64_t b = static_cast<int64_t>(to.size()) - 1;
           b >= 0 && !ShapedType::isDynamic(to[b]) && suffix < target; --b) {
        if (suffix * to[b] == target) {
          if ((in.unit * inner) % suffix != 0)
            return refuse(op, "splits the groups");
          return setResult(reshape, {b, in.unit * inner / suffix});
        }
        suffix *= to[b];
      }
    }
    if (from.size() == to.size() &&
        llvm::all_of(llvm::zip_equal(from, to), [](auto pair) {
          return sameDim(std::get<0>(pair), std::get<1>(pair));
        }))
      return setResult(reshape, in);
    return refuse(op, "reshapes in a way the pass does not follow");
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    GroupAxis in = *stateOf(transpose.getInput());
    ArrayRef<int64_t> perm = transpose.getPerm();
    auto it = llvm::find(perm, in.axis);
    return setResult(transpose, {it - perm.begin(), in.unit});
  }
  if (auto unsqueeze = dyn_cast<UnsqueezeOp>(op)) {
    GroupAxis in = *stateOf(unsqueeze.getInput());
    int64_t rank = unsqueeze.getType().getRank(), source = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (llvm::is_contained(unsqueeze.getDims(), d))
        continue;
      if (source++ == in.axis)
        return setResult(unsqueeze, {d, in.unit});
    }
    return refuse(op, "has unexpected dims");
  }
  if (auto squeeze = dyn_cast<SqueezeOp>(op)) {
    GroupAxis in = *stateOf(squeeze.getInput());
    if (llvm::is_contained(squeeze.getDims(), in.axis))
      return refuse(op, "squeezes the groups' axis");
    int64_t below = llvm::count_if(squeeze.getDims(),
                                   [&](int64_t d) { return d < in.axis; });
    return setResult(squeeze, {in.axis - below, in.unit});
  }
  if (auto expand = dyn_cast<ExpandOp>(op)) {
    GroupAxis in = *stateOf(expand.getInput());
    int64_t shift =
        expand.getType().getRank() - expand.getInput().getType().getRank();
    return setResult(expand, {in.axis + shift, in.unit});
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    GroupAxis in = *stateOf(slice.getInput());
    int64_t a = in.axis;
    if (slice.getStaticOffsets()[a] != 0 || slice.getStaticStrides()[a] != 1 ||
        slice.getStaticSizes()[a] != groups * in.unit)
      return refuse(op, "takes part of the groups");
    return setResult(slice, in);
  }
  if (isa<SoftmaxOp, LogSoftmaxOp>(op)) {
    GroupAxis in = *stateOf(op->getOperand(0));
    if (op->getAttrOfType<IntegerAttr>("axis").getInt() == in.axis)
      return refuse(op, "normalizes along the groups' axis");
    return setResult(op->getResult(0), in);
  }
  if (isa<ConcatOp, SplitOp>(op)) {
    int64_t axis = op->getAttrOfType<IntegerAttr>("axis").getInt();
    std::optional<GroupAxis> state;
    for (Value operand : op->getOperands()) {
      std::optional<GroupAxis> s = stateOf(operand);
      if (!s || (state && (s->axis != state->axis || s->unit != state->unit)))
        return refuse(op, "joins values that do not all carry the groups");
      state = s;
    }
    if (state->axis == axis)
      return refuse(op, "joins or splits along the groups' axis");
    for (Value result : op->getResults())
      if (failed(setResult(result, *state)))
        return failure();
    return success();
  }
  // Broadcasting ops: elementwise ones and products of stacked matrices.
  bool elementwise = op->hasTrait<OpTrait::tsc::Elementwise>();
  auto matmul = dyn_cast<MatmulOp>(op);
  if (!elementwise && !matmul)
    return refuse(op, "is not an op the pass follows");
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || op->getNumResults() != 1)
    return refuse(op, "has an unexpected result");
  int64_t rank = resultType.getRank();
  std::optional<GroupAxis> state;
  for (Value operand : op->getOperands()) {
    std::optional<GroupAxis> s = stateOf(operand);
    if (!s)
      continue;
    int64_t shift = rank - cast<RankedTensorType>(operand.getType()).getRank();
    GroupAxis aligned{s->axis + shift, s->unit};
    if (state && (state->axis != aligned.axis || state->unit != aligned.unit))
      return refuse(op, "combines values with the groups on different axes");
    state = aligned;
  }
  if (matmul && state->axis >= rank - 2)
    return refuse(op, "contracts or indexes the groups' axis");
  for (OpOperand &use : op->getOpOperands()) {
    if (stateOf(use.get()))
      continue;
    auto type = dyn_cast<RankedTensorType>(use.get().getType());
    if (!type)
      continue;
    int64_t d = state->axis - (rank - type.getRank());
    if (d < 0 || type.getDimSize(d) == 1)
      continue;
    auto constant = use.get().getDefiningOp<ConstantOp>();
    if (!constant || type.getDimSize(d) != groups * state->unit)
      return refuse(op, "reads a value along the groups' axis that does not "
                        "come from the projections");
    weights.push_back({&use, {d, state->unit}, "bias"});
  }
  return setResult(op->getResult(0), *state);
}

std::vector<double> PruneRegion::getGroupNorms(const ShrunkWeight &w) const {
  auto constant = w.use->get().getDefiningOp<ConstantOp>();
  std::vector<char> storage;
  std::optional<ArrayRef<float>> data = floatsOf(constant, storage);
  auto type = cast<RankedTensorType>(constant.getType());
  int64_t cols = type.getDimSize(1);
  std::vector<double> sum(groups, 0.0);
  if (data)
    for (int64_t i = 0; i < type.getDimSize(0); ++i)
      for (int64_t j = 0; j < cols; ++j) {
        double v = (*data)[i * cols + j];
        int64_t g = (w.groups.axis == 0 ? i : j) / w.groups.unit;
        sum[g] += v * v;
      }
  for (double &s : sum)
    s = std::sqrt(s);
  return sum;
}

SmallVector<int64_t> PruneRegion::getDeadGroups() const {
  std::vector<bool> dead(groups, true);
  int64_t alive = 0;
  bool anyConsumer = false;
  // Most models have no dead group: each consumer's scan stops as soon as
  // every group has a nonzero (a row of a group already alive is skipped).
  for (const ShrunkWeight &w : weights) {
    if (w.role != "consumer")
      continue;
    anyConsumer = true;
    std::vector<char> storage;
    std::optional<ArrayRef<float>> data =
        floatsOf(w.use->get().getDefiningOp<ConstantOp>(), storage);
    if (!data)
      return {};
    auto type = cast<RankedTensorType>(w.use->get().getType());
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    for (int64_t i = 0; i < rows && alive < groups; ++i) {
      ArrayRef<float> row = data->slice(i * cols, cols);
      if (w.groups.axis == 0) {
        int64_t g = i / w.groups.unit;
        if (dead[g] && llvm::any_of(row, [](float v) { return v != 0.0f; }))
          dead[g] = false, ++alive;
        continue;
      }
      for (int64_t j = 0; j < cols; ++j) {
        int64_t g = j / w.groups.unit;
        if (dead[g] && row[j] != 0.0f)
          dead[g] = false, ++alive;
      }
    }
  }
  SmallVector<int64_t> out;
  for (int64_t g = 0; anyConsumer && g < groups; ++g)
    if (dead[g])
      out.push_back(g);
  return out;
}

std::vector<double> PruneRegion::getImportance() const {
  std::vector<double> score(groups, 1.0);
  for (const ShrunkWeight &w : weights) {
    if (w.role == "bias")
      continue;
    std::vector<double> norms = getGroupNorms(w);
    for (int64_t g = 0; g < groups; ++g)
      score[g] *= norms[g];
  }
  return score;
}

std::optional<std::vector<double>>
PruneRegion::getActivationImportance() const {
  std::vector<double> score(groups, 1.0);
  for (const ShrunkWeight &w : weights) {
    if (w.role != "consumer")
      continue;
    auto norms =
        w.use->getOwner()->getAttrOfType<DenseF64ArrayAttr>(kInputNormsAttr);
    auto type = cast<RankedTensorType>(w.use->get().getType());
    if (!norms || norms.size() != type.getDimSize(w.groups.axis))
      return std::nullopt;
    std::vector<double> input(groups, 0.0);
    for (auto [k, norm] : llvm::enumerate(norms.asArrayRef()))
      input[static_cast<int64_t>(k) / w.groups.unit] += norm * norm;
    std::vector<double> weight = getGroupNorms(w);
    for (int64_t g = 0; g < groups; ++g)
      score[g] *= std::sqrt(input[g]) * weight[g];
  }
  return score;
}

void PruneRegion::shrink(ArrayRef<int64_t> removed) {
  SmallVector<int64_t> kept;
  for (int64_t g = 0; g < groups; ++g)
    if (!llvm::is_contained(removed, g))
      kept.push_back(g);
  auto keptCount = static_cast<int64_t>(kept.size());
  for (const ShrunkWeight &w : weights) {
    auto constant = w.use->get().getDefiningOp<ConstantOp>();
    OpBuilder builder(constant);
    builder.setInsertionPointAfter(constant);
    SmallVector<int64_t> indices = expandGroups(kept, w.groups.unit);
    ConstantOp smaller =
        gatherConstant(builder, constant, w.groups.axis, indices);
    w.use->set(smaller);
    Operation *gemm = w.use->getOwner();
    auto norms = gemm->getAttrOfType<DenseF64ArrayAttr>(kInputNormsAttr);
    if (!norms || w.role != "consumer")
      continue;
    if (norms.size() != groups * w.groups.unit) {
      gemm->removeAttr(kInputNormsAttr);
      continue;
    }
    SmallVector<double> keptNorms;
    for (int64_t k : indices)
      keptNorms.push_back(norms[k]);
    gemm->setAttr(kInputNormsAttr,
                  DenseF64ArrayAttr::get(gemm->getContext(), keptNorms));
  }
  for (auto &[value, state] : values) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[state.axis] = keptCount * state.unit;
    auto newType = type.clone(shape);
    value.setType(newType);
    if (auto slice = value.getDefiningOp<SliceOp>()) {
      SmallVector<int64_t> sizes(slice.getStaticSizes());
      sizes[state.axis] = shape[state.axis];
      slice.setStaticSizes(sizes);
    }
    for (Operation *user : value.getUsers())
      if (auto bind = dyn_cast<BindShapeOp>(user))
        bind.setShape(withStaticDims(bind.getShape(), newType));
  }
  groups = keptCount;
}

int64_t PruneRegion::countParameters(int64_t kept) const {
  int64_t total = 0;
  for (const ShrunkWeight &w : weights) {
    auto type = cast<RankedTensorType>(w.use->get().getType());
    total += type.getNumElements() / groups * kept;
  }
  return total;
}

int64_t PruneRegion::countFlopsPerToken(int64_t kept) const {
  int64_t total = 0;
  for (const ShrunkWeight &w : weights)
    if (w.role != "bias")
      total += 2 *
               cast<RankedTensorType>(w.use->get().getType()).getNumElements() /
               groups * kept;
  return total;
}
