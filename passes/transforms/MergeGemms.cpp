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

/// A linear op of `input` by a constant weight, without a residual.
struct Gemm {
  LinearOp op;
  ConstantOp weight;
};

struct MergeGemmsPass : public tsc::impl::MergeGemmsPassBase<MergeGemmsPass> {
  void runOnOperation() override {
    // Group by the input, the weight layout, K and the element type.
    using Key = std::tuple<Value, unsigned, int64_t, Type>;
    llvm::MapVector<Key, SmallVector<Gemm>> groups;
    getOperation().walk([&](LinearOp op) {
      auto weight = op.getWeight().getDefiningOp<ConstantOp>();
      auto type = cast<RankedTensorType>(op.getWeight().getType());
      if (!weight || op.getResidual() || !type.hasStaticShape() ||
          (op.getBias() && !op.getBias().getDefiningOp<ConstantOp>()))
        return;
      Key key{op.getInput(), op.getWeightKn() ? 1u : 0u,
              type.getDimSize(op.getInputFeaturesDim()),
              type.getElementType()};
      groups[key].push_back({op, weight});
    });
    for (auto &[key, gemms] : groups)
      if (gemms.size() > 1)
        merge(gemms);
  }

  /// x·W1ᵀ + b1, x·W2ᵀ + b2, ... -> split(x·[W1 W2 ...]ᵀ + [b1 b2 ...]).
  void merge(MutableArrayRef<Gemm> gemms) {
    // The merged product goes where the first of them is; the weights and
    // biases, being constants, and the shared input dominate it.
    Operation *first = gemms.front().op;
    for (const Gemm &g : gemms)
      if (g.op->isBeforeInBlock(first))
        first = g.op;
    for (Gemm &g : gemms) {
      Value bias = g.op.getBias();
      if (g.op->getBlock() != first->getBlock() ||
          !g.weight->isBeforeInBlock(first) ||
          (bias && !bias.getDefiningOp()->isBeforeInBlock(first)))
        return;
    }
    OpBuilder builder(first);
    Location loc = first->getLoc();
    LinearOp sample = gemms.front().op;
    int64_t nDim = sample.getOutputFeaturesDim();
    auto weightType = cast<RankedTensorType>(sample.getWeight().getType());
    Type element = weightType.getElementType();
    bool anyBias = llvm::any_of(gemms, [](Gemm &g) {
      return static_cast<bool>(g.op.getBias());
    });
    SmallVector<Value> weights, biases;
    SmallVector<int64_t> sizes;
    int64_t total = 0;
    for (Gemm &g : gemms) {
      weights.push_back(g.weight.getResult());
      int64_t n = cast<RankedTensorType>(g.weight.getType()).getDimSize(nDim);
      sizes.push_back(n);
      total += n;
      if (!anyBias)
        continue;
      Value bias = g.op.getBias();
      if (!bias) {
        auto type = RankedTensorType::get({n}, element);
        bias = ConstantOp::create(
            builder, loc,
            DenseElementsAttr::get(type, builder.getFloatAttr(element, 0.0)));
      }
      biases.push_back(bias);
    }
    SmallVector<int64_t> weightShape(weightType.getShape());
    weightShape[nDim] = total;
    Value weight = builder.createOrFold<ConcatOp>(
        loc, weightType.clone(weightShape), weights,
        builder.getI64IntegerAttr(nDim));
    Value bias;
    if (anyBias)
      bias = builder.createOrFold<ConcatOp>(
          loc, RankedTensorType::get({total}, element), biases,
          builder.getI64IntegerAttr(0));
    SmallVector<int64_t> shape(sample.getType().getShape());
    shape.back() = total;
    auto product = LinearOp::create(builder, loc, sample.getType().clone(shape),
                                    sample.getInput(), weight, bias,
                                    /*residual=*/Value(), sample.getWeightKn());
    SmallVector<Type> pieces;
    for (Gemm &g : gemms)
      pieces.push_back(g.op.getType());
    auto split = SplitOp::create(
        builder, loc, pieces, product,
        builder.getI64IntegerAttr(static_cast<int64_t>(shape.size()) - 1),
        builder.getDenseI64ArrayAttr(sizes));
    for (auto [g, piece] : llvm::zip_equal(gemms, split.getResults())) {
      LinearOp op = g.op;
      op.getResult().replaceAllUsesWith(piece);
      op->erase();
    }
  }
};

} // namespace
