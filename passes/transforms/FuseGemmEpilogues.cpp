//===- FuseGemmEpilogues.cpp - bias, GELU and residual into the GEMM ------===//

#include "passes/Passes.h"
#include "passes/transforms/MatchUtils.h"
#include "passes/transforms/QuantizeGemm.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_FUSEGEMMEPILOGUESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// x · W by a constant [K, N] weight -> linear with `weight_kn`; x · Wᵀ by
/// the transpose of a constant [N, K] weight (`x @ self.weight.T`, Falcon's
/// FalconLinear) -> linear of W as stored, with no transpose left to run:
/// the form that carries a GEMM's epilogue.
struct MatmulByWeight : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op, PatternRewriter &rw) const override {
    Value weight = op.getRhs();
    bool weightKn = true;
    if (auto transpose = weight.getDefiningOp<TransposeOp>();
        transpose && transpose.getPerm() == ArrayRef<int64_t>{1, 0}) {
      weight = transpose.getInput();
      weightKn = false;
    }
    auto weightType = cast<RankedTensorType>(weight.getType());
    if (!weight.getDefiningOp<ConstantOp>() || weightType.getRank() != 2 ||
        op.getLhs().getType().getRank() < 2 ||
        !isa<FloatType>(weightType.getElementType()))
      return rw.notifyMatchFailure(op, "not a product by a constant matrix");
    rw.replaceOpWithNewOp<LinearOp>(op, op.getType(), op.getLhs(), weight,
                                    /*bias=*/Value(), /*residual=*/Value(),
                                    weightKn);
    return success();
  }
};

/// The linear op an add or an activation may absorb: its only use is that
/// op, and it has neither a residual nor an activation (which come last in
/// the epilogue).
LinearOp absorbable(Value v) {
  auto linear = v.getDefiningOp<LinearOp>();
  if (!linear || !hasUsesIgnoringBindings(v, 1) || linear.getResidual() ||
      linear.getActivation() != GemmActivation::none)
    return {};
  return linear;
}

/// linear(x, W) + b with b of [N] (or [1, ..., 1, N]) -> linear(x, W, b);
/// linear(x, W, a) + b -> linear(x, W, a + b) (a bias that static int8's
/// bias correction gave a GEMM the model adds its own bias to).
struct FoldBias : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op, PatternRewriter &rw) const override {
    auto parts = commuted(op, [&](Value v) { return bool(absorbable(v)); });
    if (!parts)
      return rw.notifyMatchFailure(op, "no linear to absorb an add");
    auto linear = parts->first.getDefiningOp<LinearOp>();
    Value bias = parts->second;
    auto biasType = cast<RankedTensorType>(bias.getType());
    int64_t n = linear.getType().getShape().back();
    if (ShapedType::isDynamic(n) || !biasType.hasStaticShape() ||
        biasType.getNumElements() != n || biasType.getShape().back() != n ||
        biasType.getRank() > linear.getType().getRank() ||
        biasType.getElementType() != linear.getType().getElementType() ||
        op.getType() != linear.getType())
      return rw.notifyMatchFailure(op, "the other operand is not a bias of N");
    if (biasType.getRank() != 1)
      bias = ReshapeOp::create(rw, op.getLoc(), biasType.clone({n}), bias,
                               ValueRange());
    if (Value first = linear.getBias())
      bias = addBiases(rw, op.getLoc(), first, bias);
    rw.replaceOpWithNewOp<LinearOp>(op, op.getType(), linear.getInput(),
                                    linear.getWeight(), bias, Value(),
                                    linear.getWeightKn());
    return success();
  }
};

/// linear(x, W, b) + r with r of the result's type -> linear(x, W, b) with
/// residual r: the GEMM accumulates onto r.
struct FoldResidual : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op, PatternRewriter &rw) const override {
    auto parts = commuted(op, [&](Value v) {
      return absorbable(v) && v.getType() == op.getType();
    });
    if (!parts || parts->second.getType() != op.getType())
      return rw.notifyMatchFailure(op, "not linear + a tensor of its type");
    auto linear = parts->first.getDefiningOp<LinearOp>();
    rw.replaceOpWithNewOp<LinearOp>(op, op.getType(), linear.getInput(),
                                    linear.getWeight(), linear.getBias(),
                                    parts->second, linear.getWeightKn());
    return success();
  }
};

/// Whether `gelu` (of `gate`) is multiplied by another linear of the same
/// input: the gate and up projections of a gated MLP (GeGLU).
static bool isGateOfGatedMlp(GeluOp gelu, LinearOp gate) {
  for (Operation *user : gelu->getUsers()) {
    auto mul = dyn_cast<MulOp>(user);
    if (!mul)
      continue;
    Value other = mul.getLhs() == gelu.getResult() ? mul.getRhs() : mul.getLhs();
    if (auto reshape = other.getDefiningOp<ReshapeOp>())
      other = reshape.getInput();
    auto up = other.getDefiningOp<LinearOp>();
    if (up && up != gate && up.getInput() == gate.getInput())
      return true;
  }
  return false;
}

/// gelu(linear(x, W, b)) -> linear(x, W, b) with the GELU as its
/// activation, also through a reshape between them (GPT-2's Conv1D runs
/// on [B·S, K] rows: gelu(reshape(linear)) -> reshape(linear with GELU)).
/// An exact GELU folds only when `erfGelu`: a GEMM library whose epilogue
/// is the tanh approximation must not stand in for it.
struct FoldGelu : OpRewritePattern<GeluOp> {
  FoldGelu(MLIRContext *context, bool erfGelu)
      : OpRewritePattern(context), erfGelu(erfGelu) {}
  LogicalResult matchAndRewrite(GeluOp op, PatternRewriter &rw) const override {
    Value input = op.getInput();
    auto reshape = input.getDefiningOp<ReshapeOp>();
    if (reshape && hasUsesIgnoringBindings(input, 1))
      input = reshape.getInput();
    else
      reshape = {};
    LinearOp linear = absorbable(input);
    if (!linear)
      return rw.notifyMatchFailure(op, "not the only use of a plain linear");
    // A gated MLP, gelu(gate(x)) * up(x): MergeGemms makes gate and up one
    // GEMM (linears of one activation only), and the GELU fuses with the
    // product into one kernel; folding it here would cost a GEMM call.
    if (isGateOfGatedMlp(op, linear))
      return rw.notifyMatchFailure(op, "the gate of a gated MLP");
    bool tanh = op.getApproximate() == GeluApproximation::tanh;
    if (!tanh && !erfGelu)
      return rw.notifyMatchFailure(op, "no erf GELU epilogue for the target");
    auto fused = LinearOp::create(
        rw, linear.getLoc(), linear.getType(), linear.getInput(),
        linear.getWeight(), linear.getBias(), /*residual=*/Value(),
        linear.getWeightKn(),
        tanh ? GemmActivation::gelu_tanh : GemmActivation::gelu);
    if (reshape)
      rw.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), fused,
                                       reshape.getShape());
    else
      rw.replaceOp(op, fused);
    return success();
  }
  bool erfGelu;
};

struct FuseGemmEpiloguesPass
    : public tsc::impl::FuseGemmEpiloguesPassBase<FuseGemmEpiloguesPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MatmulByWeight>(&getContext());
    // Bias before the activation and the residual: an add of [N] is a bias
    // even when N-shaped residuals would also type-check (a 1-D linear), and
    // a GELU folds after the bias it follows (absorbable refuses a bias
    // after an activation).
    patterns.add<FoldBias>(&getContext(), /*benefit=*/3);
    patterns.add<FoldGelu>(&getContext(), erfGelu.getValue());
    patterns.add<FoldResidual>(&getContext(), /*benefit=*/1);
    BindShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
