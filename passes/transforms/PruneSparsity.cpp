//===- PruneSparsity.cpp - zeroed weights: magnitude, 2:4, detection ------===//
//
// Unstructured and semi-structured pruning keep the shapes: the weights of
// constant-weight GEMMs get zeros, which the host's dense kernels run as
// they are. Each pass records per weight how many elements are zero.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/PruneRecord.h"
#include "passes/transforms/PruneRegion.h"

#include "dialects/tsc/IR/ConstantData.h"

#include "llvm/ADT/MapVector.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mlir::tsc {
#define GEN_PASS_DEF_PRUNEMAGNITUDEPASS
#define GEN_PASS_DEF_PRUNESEMISTRUCTUREDPASS
#define GEN_PASS_DEF_DETECTPRUNEDPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::prune;

namespace {

/// A weight matrix of constant-weight GEMMs, read once however many GEMMs
/// share it.
struct Weight {
  ConstantOp constant;
  /// Stored [K, N] (else [N, K]).
  bool kn;
  std::vector<float> data;

  int64_t rows() const {
    return cast<RankedTensorType>(constant->getResult(0).getType())
        .getDimSize(0);
  }
  int64_t cols() const {
    return cast<RankedTensorType>(constant->getResult(0).getType())
        .getDimSize(1);
  }
  int64_t getK() const { return kn ? rows() : cols(); }
  StringRef getName() { return getWeightName(constant.getValue()); }

  /// Calls `fn` with the flat indices of each run of `n` consecutive
  /// elements along K.
  void forEachRunAlongK(int64_t n, function_ref<void(ArrayRef<int64_t>)> fn) {
    SmallVector<int64_t> run(n);
    for (int64_t r = 0; r < (kn ? rows() / n : rows()); ++r)
      for (int64_t c = 0; c < (kn ? cols() : cols() / n); ++c) {
        for (int64_t i = 0; i < n; ++i)
          run[i] = kn ? (r * n + i) * cols() + c : r * cols() + c * n + i;
        fn(run);
      }
  }
};

/// The weights of the module's constant-weight GEMMs, in order.
SmallVector<Weight> collectWeights(ModuleOp module) {
  llvm::MapVector<Operation *, bool> found;
  module.walk([&](Operation *op) {
    if (std::optional<Gemm> gemm = matchGemm(op))
      found.insert({gemm->weight, gemm->kn});
  });
  SmallVector<Weight> weights;
  for (auto [op, kn] : found) {
    auto constant = cast<ConstantOp>(op);
    if (std::optional<std::vector<float>> data = readFloats(constant))
      weights.push_back({constant, kn, std::move(*data)});
  }
  return weights;
}

/// Replaces every use of `w`'s constant by one holding `w.data`.
void replaceWeight(Weight &w) {
  auto type = cast<RankedTensorType>(w.constant->getResult(0).getType());
  OpBuilder builder(w.constant);
  ArrayRef<char> bytes(reinterpret_cast<const char *>(w.data.data()),
                       w.data.size() * sizeof(float));
  auto replacement =
      ConstantOp::create(builder, w.constant.getLoc(), type,
                         makePrunedWeight(type, bytes, w.constant.getValue()));
  w.constant->replaceAllUsesWith(replacement);
  w.constant->erase();
  w.constant = replacement;
}

int64_t countZeros(ArrayRef<float> data) { return llvm::count(data, 0.0f); }

/// The record of one weight a sparsity pass changed.
DictionaryAttr weightRecord(Builder &b, StringRef kind, Weight &w,
                            StringRef status, StringRef note) {
  StringRef name = w.getName();
  auto count = static_cast<int64_t>(w.data.size());
  int64_t zeros = countZeros(w.data);
  return b.getDictionaryAttr({
      b.getNamedAttr("k_axis", b.getI64IntegerAttr(w.kn ? 0 : 1)),
      b.getNamedAttr("kind", b.getStringAttr(kind)),
      b.getNamedAttr("layer", b.getStringAttr(name)),
      b.getNamedAttr("status", b.getStringAttr(status)),
      b.getNamedAttr("name", b.getStringAttr(name)),
      b.getNamedAttr("count", b.getI64IntegerAttr(count)),
      b.getNamedAttr("zeros", b.getI64IntegerAttr(zeros)),
      b.getNamedAttr("params_before", b.getI64IntegerAttr(count)),
      b.getNamedAttr("params_after", b.getI64IntegerAttr(count - zeros)),
      b.getNamedAttr("flops_before", b.getI64IntegerAttr(2 * count)),
      b.getNamedAttr("flops_after", b.getI64IntegerAttr(2 * count)),
      b.getNamedAttr("note", b.getStringAttr(note)),
  });
}

constexpr StringLiteral kDenseNote =
    "runs dense on the host: parameters after counts the nonzeros, the "
    "FLOPs do not change";

struct PruneMagnitudePass
    : public tsc::impl::PruneMagnitudePassBase<PruneMagnitudePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkRatio(module, ratio)))
      return signalPassFailure();
    SmallVector<Weight> weights = collectWeights(module);
    // (|w|, weight, index) of every element, the smallest `count` zeroed:
    // one threshold over all weights, ties broken by position.
    int64_t total = 0;
    for (const Weight &w : weights)
      total += static_cast<int64_t>(w.data.size());
    auto count = static_cast<int64_t>(std::floor(ratio * total));
    std::vector<std::pair<float, int64_t>> all;
    all.reserve(total);
    int64_t flat = 0;
    for (const Weight &w : weights)
      for (float v : w.data)
        all.push_back({std::fabs(v), flat++});
    if (count > 0) {
      std::nth_element(all.begin(), all.begin() + (count - 1), all.end());
      all.resize(count);
    } else {
      all.clear();
    }
    std::vector<int64_t> zeroed;
    zeroed.reserve(all.size());
    for (auto &[magnitude, index] : all)
      zeroed.push_back(index);
    llvm::sort(zeroed);
    Builder b(module.getContext());
    int64_t start = 0;
    auto next = zeroed.begin();
    for (Weight &w : weights) {
      auto size = static_cast<int64_t>(w.data.size());
      for (; next != zeroed.end() && *next < start + size; ++next)
        w.data[*next - start] = 0.0f;
      start += size;
      appendPruneRecord(module,
                        weightRecord(b, "magnitude", w, "pruned", kDenseNote));
      replaceWeight(w);
    }
  }
};

struct PruneSemiStructuredPass
    : public tsc::impl::PruneSemiStructuredPassBase<PruneSemiStructuredPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(module.getContext());
    for (Weight &w : collectWeights(module)) {
      if (w.getK() % 4 != 0) {
        appendPruneRecord(module,
                          weightRecord(b, "2:4", w, "refused",
                                       "K is not a multiple of 4: left dense"));
        continue;
      }
      // Keep the two largest |w| of each run of four (ties: the first).
      w.forEachRunAlongK(4, [&](ArrayRef<int64_t> run) {
        SmallVector<int64_t> order(run);
        llvm::sort(order, [&](int64_t x, int64_t y) {
          float a = std::fabs(w.data[x]), b = std::fabs(w.data[y]);
          return a > b || (a == b && x < y);
        });
        w.data[order[2]] = 0.0f;
        w.data[order[3]] = 0.0f;
      });
      appendPruneRecord(module,
                        weightRecord(b, "2:4", w, "pruned",
                                     "2:4 along K; runs dense on the host (no "
                                     "sparse CPU kernel)"));
      replaceWeight(w);
    }
  }
};

struct DetectPrunedPass
    : public tsc::impl::DetectPrunedPassBase<DetectPrunedPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(module.getContext());
    for (Weight &w : collectWeights(module)) {
      int64_t zeros = countZeros(w.data);
      if (zeros == 0)
        continue;
      // Output channels (N) and input channels (K) that are all zero.
      int64_t rows = w.rows(), cols = w.cols();
      std::vector<bool> rowLive(rows, false), colLive(cols, false);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          if (w.data[r * cols + c] != 0.0f)
            rowLive[r] = colLive[c] = true;
      int64_t deadRows = llvm::count(rowLive, false);
      int64_t deadCols = llvm::count(colLive, false);
      int64_t deadN = w.kn ? deadCols : deadRows;
      int64_t deadK = w.kn ? deadRows : deadCols;
      bool twoFour = w.getK() % 4 == 0;
      if (twoFour)
        w.forEachRunAlongK(4, [&](ArrayRef<int64_t> run) {
          twoFour &= llvm::count_if(run, [&](int64_t i) {
                       return w.data[i] == 0.0f;
                     }) >= 2;
        });
      std::string summary;
      llvm::raw_string_ostream os(summary);
      os << w.getName() << ": " << zeros << " of " << w.data.size()
         << " weights zero, " << deadN << " output and " << deadK
         << " input channels all zero"
         << (twoFour ? ", 2:4 pattern along K" : "");
      appendPruneRecord(
          module,
          b.getDictionaryAttr({
              b.getNamedAttr("kind", b.getStringAttr("detected")),
              b.getNamedAttr("layer", b.getStringAttr(w.getName())),
              b.getNamedAttr("status", b.getStringAttr("found")),
              b.getNamedAttr("summary", b.getStringAttr(summary)),
              b.getNamedAttr("zeros", b.getI64IntegerAttr(zeros)),
              b.getNamedAttr("count", b.getI64IntegerAttr(w.data.size())),
              b.getNamedAttr("zero_output_channels",
                             b.getI64IntegerAttr(deadN)),
              b.getNamedAttr("zero_input_channels", b.getI64IntegerAttr(deadK)),
              b.getNamedAttr("two_four", b.getBoolAttr(twoFour)),
          }));
    }
  }
};

} // namespace
