//===- Contrib.cpp - ONNX Runtime's contrib ops: norms and activations ----===//
//
// The `com.microsoft` ops that ONNX Runtime's transformer optimizer writes
// into the models it fuses (SkipLayerNormalization, FastGelu, ...) and
// SimplifiedLayerNormalization, which ONNX Runtime registers in the standard
// domain. Each becomes the tsc ops of what it computes; fusion then makes the
// same kernels as for the unfused graph (the residual add inside the norm's
// kernel, the bias inside the GELU's). Semantics as ONNX Runtime's CPU
// kernels, which the onnx-contrib suite checks them against.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// The sum of the inputs that are given (at least the first).
FailureOr<Value> sumOf(ForeignNode &node, ArrayRef<unsigned> inputs) {
  FailureOr<TypedValue<RankedTensorType>> first = node.input(inputs.front());
  if (failed(first))
    return failure();
  Value sum = *first;
  for (unsigned i : inputs.drop_front()) {
    if (!node.hasInput(i))
      continue;
    auto next = node.input(i);
    if (failed(next))
      return failure();
    FailureOr<Value> added = node.create<AddOp>({sum, *next});
    if (failed(added))
      return failure();
    sum = *added;
  }
  return sum;
}

/// A norm's 1-D parameter over the last dim of `x` (`name` for messages).
LogicalResult checkLastDimParam(ForeignNode &node, Value param, StringRef name,
                                Value x) {
  auto type = cast<RankedTensorType>(param.getType());
  auto xType = cast<RankedTensorType>(x.getType());
  if (xType.getRank() == 0)
    return node.fail("the input must have at least one dim");
  int64_t hidden = xType.getShape().back();
  if (type.getRank() != 1 || type.getElementType() != xType.getElementType() ||
      (!ShapedType::isDynamic(hidden) && !type.isDynamicDim(0) &&
       type.getDimSize(0) != hidden))
    return node.fail(name + " must be 1-D with the input's last dim (" +
                     Twine(hidden) + ") and element type");
  return success();
}

/// The optional 1-D norm parameter `i`, or null when it is not given.
FailureOr<Value> optionalParam(ForeignNode &node, unsigned i, StringRef name,
                               Value x) {
  if (!node.hasInput(i))
    return Value();
  auto param = node.input(i);
  if (failed(param) || failed(checkLastDimParam(node, *param, name, x)))
    return failure();
  return Value(*param);
}

/// Skip(Simplified)LayerNormalization: a norm of input + skip (+ bias) over
/// the last dim. Outputs: the normalized value, the statistics ONNX Runtime
/// saves for training (mean for LayerNorm, 1/sqrt(var + epsilon)), and the
/// sum itself, which the next layer's residual connection reads.
template <bool simplified>
FailureOr<Values> convertSkipNorm(ForeignNode &node) {
  // Inputs: input, skip, gamma, then beta and bias (LayerNorm) or bias
  // (the simplified one).
  unsigned biasInput = simplified ? 3 : 4;
  FailureOr<Value> sum = sumOf(node, {0, 1, biasInput});
  if (failed(sum))
    return failure();
  auto gamma = node.input(2);
  if (failed(gamma) || failed(checkLastDimParam(node, *gamma, "gamma", *sum)))
    return failure();
  FailureOr<Value> beta = simplified ? FailureOr<Value>(Value())
                                     : optionalParam(node, 3, "beta", *sum);
  if (failed(beta) ||
      (node.hasInput(biasInput) &&
       failed(checkLastDimParam(node, *node.input(biasInput), "bias", *sum))))
    return failure();
  // ONNX Runtime's default epsilon for both.
  double epsilon = node.getFloat("epsilon", 1e-12f);
  auto type = cast<RankedTensorType>(sum->getType());
  int64_t axis = type.getRank() - 1;
  FailureOr<NormStatistics> stats =
      buildNorm(node, *sum, *gamma, *beta, axis, epsilon, simplified,
                /*statistics=*/node.isOutputUsed(1) || node.isOutputUsed(2));
  if (failed(stats))
    return failure();
  return Values{stats->result, stats->mean, stats->invStdDev, *sum};
}

/// SimplifiedLayerNormalization (ONNX Runtime's RMS norm in the standard
/// domain): the scale may have another float type than the input, and the
/// result has the scale's type.
FailureOr<Values> convertSimplifiedLayerNorm(ForeignNode &node) {
  auto x = node.input(0);
  auto scale = node.input(1);
  if (failed(x) || failed(scale))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", -1), x->getType().getRank());
  if (failed(axis))
    return failure();
  Type outElement = scale->getType().getElementType();
  Type element = x->getType().getElementType();
  Value gamma = castTo(node, *scale, element);
  FailureOr<NormStatistics> stats = buildNorm(
      node, *x, gamma, Value(), *axis, node.getFloat("epsilon", 1e-5f),
      /*rms=*/true, /*statistics=*/node.isOutputUsed(1));
  if (failed(stats))
    return failure();
  return Values{castTo(node, stats->result, outElement), stats->invStdDev};
}

/// Gelu (erf), BiasGelu (A + B, erf) and FastGelu (X + optional bias, the
/// tanh approximation).
template <bool tanh> FailureOr<Values> convertGelu(ForeignNode &node) {
  FailureOr<Value> x = sumOf(node, {0, 1});
  if (failed(x))
    return failure();
  return results(buildGelu(node, *x, tanh ? "tanh" : "none"));
}

/// QuickGelu: x · sigmoid(alpha · x), alpha 1.702 by default.
FailureOr<Values> convertQuickGelu(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  double alpha = node.getFloat("alpha", 1.702f);
  if (alpha == 1.0)
    return Values{SiluOp::create(node.getRewriter(), node.getLoc(), *x)};
  FailureOr<Value> scaled = node.create<MulOp>(
      {*x, node.scalar(x->getType().getElementType(), alpha)});
  if (failed(scaled))
    return failure();
  Value gate = SigmoidOp::create(node.getRewriter(), node.getLoc(), *scaled);
  return results(node.create<MulOp>({*x, gate}));
}

/// BiasAdd: X + bias + skip.
FailureOr<Values> convertBiasAdd(ForeignNode &node) {
  return results(sumOf(node, {0, 1, 2}));
}

} // namespace

void fromonnx::populateContribConverters(ForeignConverters &c) {
  c.add("com.microsoft::SkipLayerNormalization", 1, convertSkipNorm<false>);
  c.add("com.microsoft::SkipSimplifiedLayerNormalization", 1,
        convertSkipNorm<true>);
  c.add("SimplifiedLayerNormalization", 1, convertSimplifiedLayerNorm);
  c.add("com.microsoft::Gelu", 1, convertGelu<false>);
  c.add("com.microsoft::BiasGelu", 1, convertGelu<false>);
  c.add("com.microsoft::FastGelu", 1, convertGelu<true>);
  c.add("com.microsoft::QuickGelu", 1, convertQuickGelu);
  c.add("com.microsoft::BiasAdd", 1, convertBiasAdd);
}
