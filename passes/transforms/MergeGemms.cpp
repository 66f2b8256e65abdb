//===- MergeGemms.cpp - GEMMs sharing an input into one wider GEMM --------===//

#include "passes/Passes.h"
#include "passes/transforms/MatchUtils.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_MERGEGEMMSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// A matmul of `input` by a constant [K, N] weight.
struct Gemm {
  MatmulOp op;
  ConstantOp weight;
};

struct MergeGemmsPass : public tsc::impl::MergeGemmsPassBase<MergeGemmsPass> {
  void runOnOperation() override {
    // Group matmuls by their input and the weights' K and element type.
    llvm::MapVector<std::pair<Value, Type>, SmallVector<Gemm>> groups;
    getOperation().walk([&](MatmulOp op) {
      auto weight = op.getRhs().getDefiningOp<ConstantOp>();
      auto type = cast<RankedTensorType>(op.getRhs().getType());
      if (!weight || type.getRank() != 2 || !type.hasStaticShape() ||
          op.getLhs().getType().getRank() < 2)
        return;
      auto key = std::make_pair(
          op.getLhs(), Type(RankedTensorType::get({type.getDimSize(0)},
                                                  type.getElementType())));
      groups[key].push_back({op, weight});
    });
    for (auto &[key, gemms] : groups)
      if (gemms.size() > 1)
        merge(gemms);
  }

  /// x·W1, x·W2, ... -> split(x·[W1 W2 ...]).
  void merge(MutableArrayRef<Gemm> gemms) {
    // The merged product goes where the first of them is; the weights, being
    // constants, and the shared input dominate it.
    Operation *first = gemms.front().op;
    for (const Gemm &g : gemms)
      if (g.op->isBeforeInBlock(first))
        first = g.op;
    for (const Gemm &g : gemms)
      if (g.op->getBlock() != first->getBlock() ||
          !g.weight->isBeforeInBlock(first))
        return;
    OpBuilder builder(first);
    Location loc = first->getLoc();
    SmallVector<Value> weights;
    SmallVector<int64_t> sizes;
    int64_t total = 0;
    for (Gemm &g : gemms) {
      weights.push_back(g.weight.getResult());
      sizes.push_back(cast<RankedTensorType>(g.weight.getType()).getDimSize(1));
      total += sizes.back();
    }
    auto weightType = cast<RankedTensorType>(weights.front().getType());
    auto concatType = RankedTensorType::get({weightType.getDimSize(0), total},
                                            weightType.getElementType());
    Value merged = builder.createOrFold<ConcatOp>(
        loc, concatType, weights, builder.getI64IntegerAttr(1));
    MatmulOp sample = gemms.front().op;
    SmallVector<int64_t> shape(sample.getType().getShape());
    shape.back() = total;
    auto product = MatmulOp::create(
        builder, loc, sample.getType().clone(shape), sample.getLhs(), merged);
    SmallVector<Type> pieces;
    for (Gemm &g : gemms)
      pieces.push_back(g.op.getType());
    auto split = SplitOp::create(
        builder, loc, pieces, product,
        builder.getI64IntegerAttr(static_cast<int64_t>(shape.size()) - 1),
        builder.getDenseI64ArrayAttr(sizes));
    for (auto [g, piece] : llvm::zip_equal(gemms, split.getResults())) {
      MatmulOp op = g.op;
      op.getResult().replaceAllUsesWith(piece);
      op->erase();
    }
  }
};

} // namespace
