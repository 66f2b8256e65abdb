//===- FuseNorms.cpp - decomposed LayerNorm and RMSNorm into one op --------===//

#include "passes/Passes.h"
#include "passes/transforms/MatchUtils.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_FUSENORMSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// A normalization core: x scaled by 1/sqrt(mean(sq) + eps) over the trailing
/// dims from `axis`, where `centered` is what is scaled (x - mean(x) for
/// LayerNorm, x itself for RMSNorm).
struct NormCore {
  Value x;
  int64_t axis;
  double epsilon;
  Operation *root; // the op producing the normalized value
};

/// `mean` = reduce_mean(`of`) over the trailing dims with keepdim; returns
/// the first reduced dim.
std::optional<int64_t> trailingMean(Value mean, Value of) {
  auto op = mean.getDefiningOp<ReduceMeanOp>();
  if (!op || op.getInput() != of || !op.getKeepdim())
    return std::nullopt;
  ArrayRef<int64_t> dims = op.getDims();
  int64_t rank = op.getInput().getType().getRank();
  if (dims.empty() || dims.back() != rank - 1 ||
      static_cast<int64_t>(dims.size()) != rank - dims.front())
    return std::nullopt;
  return dims.front();
}

/// `sq` is v * v or v ^ 2.
bool isSquareOf(Value sq, Value v) {
  if (auto mul = sq.getDefiningOp<MulOp>())
    return mul.getLhs() == v && mul.getRhs() == v;
  if (auto pow = sq.getDefiningOp<PowOp>())
    return pow.getLhs() == v && isSplat(pow.getRhs(), 2.0, 0.0);
  return false;
}

/// Matches `centered / sqrt(mean(centered^2) + eps)` and
/// `centered * rsqrt(mean(centered^2) + eps)`, in either operand order for
/// the product; returns the mean's axis and epsilon.
std::optional<std::pair<int64_t, double>> matchScaling(Operation *op,
                                                       Value centered) {
  Value rootOfVariance;
  if (auto div = dyn_cast<DivOp>(op)) {
    auto sqrt = div.getRhs().getDefiningOp<SqrtOp>();
    if (div.getLhs() != centered || !sqrt)
      return std::nullopt;
    rootOfVariance = sqrt.getInput();
  } else if (auto mul = dyn_cast<MulOp>(op)) {
    auto operands = commuted(mul, [&](Value v) { return v.getDefiningOp<RsqrtOp>() != nullptr; });
    if (!operands || operands->second != centered)
      return std::nullopt;
    rootOfVariance = operands->first.getDefiningOp<RsqrtOp>().getInput();
  } else {
    return std::nullopt;
  }
  auto add = rootOfVariance.getDefiningOp<AddOp>();
  auto parts = commuted(add, [](Value v) { return splatValue(v).has_value(); });
  if (!parts)
    return std::nullopt;
  Value variance = parts->second;
  auto mean = variance.getDefiningOp<ReduceMeanOp>();
  if (!mean || !isSquareOf(mean.getInput(), centered))
    return std::nullopt;
  std::optional<int64_t> axis = trailingMean(variance, mean.getInput());
  if (!axis)
    return std::nullopt;
  return std::make_pair(*axis, *splatValue(parts->first));
}

/// Whether `param` fits a norm of `x` over dims [axis, rank): exactly the
/// normalized shape and element type.
bool isNormParam(Value param, Value x, int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  auto paramType = dyn_cast<RankedTensorType>(param.getType());
  return paramType && paramType.hasStaticShape() &&
         paramType.getElementType() == type.getElementType() &&
         paramType.getShape() == type.getShape().drop_front(axis);
}

/// Extends a normalized value through `* scale` and `+ bias` when each is
/// its only user; returns (scale, bias, last op).
std::tuple<Value, Value, Operation *> affineTail(Value normalized, Value x,
                                                 int64_t axis, bool withBias) {
  Value scale, bias;
  Operation *last = normalized.getDefiningOp();
  if (!hasUsesIgnoringBindings(normalized, 1))
    return {scale, bias, last};
  Operation *user = *llvm::find_if(normalized.getUsers(), [](Operation *u) {
    return !isa<BindShapeOp>(u);
  });
  auto mul = dyn_cast<MulOp>(user);
  auto s = commuted(mul, [&](Value v) { return v != normalized && isNormParam(v, x, axis); });
  if (!s || s->second != normalized || mul.getType() != x.getType())
    return {scale, bias, last};
  scale = s->first;
  last = mul;
  if (!withBias || !hasUsesIgnoringBindings(mul.getResult(), 1))
    return {scale, bias, last};
  user = *llvm::find_if(mul->getUsers(), [](Operation *u) { return !isa<BindShapeOp>(u); });
  auto add = dyn_cast<AddOp>(user);
  auto b = commuted(add, [&](Value v) { return v != mul.getResult() && isNormParam(v, x, axis); });
  if (b && b->second == mul.getResult() && add.getType() == x.getType()) {
    bias = b->first;
    last = add;
  }
  return {scale, bias, last};
}

/// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) [* scale [+ bias]].
struct FuseLayerNorm : RewritePattern {
  FuseLayerNorm(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rw) const override {
    if (!isa<DivOp, MulOp>(op))
      return failure();
    // The centered value is the division's lhs, or the product's non-rsqrt
    // operand.
    for (Value centered : op->getOperands()) {
      auto sub = centered.getDefiningOp<SubOp>();
      if (!sub)
        continue;
      Value x = sub.getLhs();
      std::optional<int64_t> meanAxis = trailingMean(sub.getRhs(), x);
      std::optional<std::pair<int64_t, double>> scaling = matchScaling(op, centered);
      if (!meanAxis || !scaling || scaling->first != *meanAxis ||
          op->getResult(0).getType() != x.getType())
        continue;
      auto [scale, bias, last] =
          affineTail(op->getResult(0), x, *meanAxis, /*withBias=*/true);
      rw.setInsertionPoint(last);
      auto norm = LayerNormOp::create(
          rw, last->getLoc(), x.getType(), x, scale, bias,
          rw.getI64IntegerAttr(*meanAxis), rw.getF64FloatAttr(scaling->second));
      rw.replaceOp(last, norm.getResult());
      return success();
    }
    return failure();
  }
};

/// x / sqrt(mean(x^2) + eps) or x * rsqrt(mean(x^2) + eps), [* scale].
struct FuseRmsNorm : RewritePattern {
  FuseRmsNorm(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rw) const override {
    if (!isa<DivOp, MulOp>(op))
      return failure();
    for (Value x : op->getOperands()) {
      std::optional<std::pair<int64_t, double>> scaling = matchScaling(op, x);
      if (!scaling || op->getResult(0).getType() != x.getType() ||
          x.getDefiningOp<SubOp>() /* a LayerNorm's centered value */)
        continue;
      auto [scale, bias, last] =
          affineTail(op->getResult(0), x, scaling->first, /*withBias=*/false);
      rw.setInsertionPoint(last);
      auto norm = RmsNormOp::create(rw, last->getLoc(), x.getType(), x, scale,
                                    rw.getI64IntegerAttr(scaling->first),
                                    rw.getF64FloatAttr(scaling->second));
      rw.replaceOp(last, norm.getResult());
      return success();
    }
    return failure();
  }
};

/// `x ^ 2` -> `x * x`: the same correctly rounded square, where a kernel
/// would otherwise expand pow into exp and log (25 of them, which QDQ pairs
/// kept from fusing into LayerNorms, were 28 % of ONNX Runtime's QDQ
/// BERT-base on the host). isSquareOf takes either form, so norms still fuse.
struct SquareAsProduct : OpRewritePattern<PowOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getLhs();
    if (!isa<FloatType>(getElementTypeOrSelf(x)) ||
        x.getType() != op.getType() || !isSplat(op.getRhs(), 2.0, 0.0))
      return failure();
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getType(), x, x);
    return success();
  }
};

struct FuseNormsPass : public tsc::impl::FuseNormsPassBase<FuseNormsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseLayerNorm, FuseRmsNorm, SquareAsProduct>(&getContext());
    // Dead intermediates and their bindings go with the canonicalizations.
    BindShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
