//===- ContribQLinear.cpp - ONNX Runtime's QLinearAdd, Mul, Softmax -------===//
//
// The elementwise and softmax ops of ONNX Runtime's QOperator models
// (`quantize_static(..., quant_format=QuantFormat.QOperator)`): each takes
// quantized tensors with their scales and zero points and returns one
// quantized by its own. They compute as ONNX Runtime's reference kernels
// define them: the operands dequantized to f32 ((q - z)·s), the float op,
// and the result quantized (round half to even, saturated to the output's
// type):
//
//   QLinearAdd     C = quantize(dequantize(A) + dequantize(B), C_scale, C_zp)
//   QLinearMul     C = quantize(dequantize(A) · dequantize(B) / C_scale
//                               + C_zp, 1)
//   QLinearSoftmax Y = quantize(softmax(dequantize(X), axis) ·
//                               floor(1 / y_scale), 1, y_zp)
//
// (Softmax's floor is ONNX Runtime's kernel's; see convertSoftmax.) ONNX
// Runtime's vectorized kernels use fixed-point scale ratios (Add, Mul) and
// a table of exponentials (Softmax), which can land one code away from the
// reference where a value lies near a rounding tie. Per-tensor scales
// and zero points only, as ONNX Runtime's kernels take them.
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

/// Input `i` as a 0-d value when it is a scalar (0-d or one element), or a
/// failure naming it.
FailureOr<Value> scalarInput(ForeignNode &node, unsigned i, StringRef what) {
  auto v = node.input(i);
  if (failed(v))
    return failure();
  RankedTensorType type = v->getType();
  if (!type.hasStaticShape() || type.getNumElements() != 1)
    return node.fail(what + " must be one value (per-tensor quantization)");
  return type.getRank() == 0 ? Value(*v) : node.reshape(*v, {});
}

/// Input `data` (8-bit integer codes) dequantized to f32 by inputs
/// `scale` and (optional) `zeroPoint`.
FailureOr<Value> dequantized(ForeignNode &node, unsigned data, unsigned scale,
                             unsigned zeroPoint) {
  auto x = node.input(data);
  FailureOr<Value> s = scalarInput(node, scale, "each scale");
  if (failed(x) || failed(s))
    return failure();
  auto element = dyn_cast<IntegerType>(x->getType().getElementType());
  if (!element || element.getWidth() != 8)
    return node.fail("the quantized inputs must be uint8 or int8");
  if (!cast<RankedTensorType>(s->getType()).getElementType().isF32())
    return node.fail("the scales must be float");
  Value z;
  if (node.hasInput(zeroPoint)) {
    FailureOr<Value> zp = scalarInput(node, zeroPoint, "each zero point");
    if (failed(zp))
      return failure();
    z = *zp;
  }
  auto op =
      DequantizeOp::create(node.getRewriter(), node.getLoc(),
                           x->getType().clone(node.getRewriter().getF32Type()),
                           *x, *s, z, IntegerAttr(), IntegerAttr());
  if (failed(node.verifyCreated(op)))
    return failure();
  return op.getResult();
}

/// Input `i`, the output's zero point, as a 0-d value of `element` (null
/// when the node has none).
FailureOr<Value> outputZeroPoint(ForeignNode &node, unsigned i, Type element) {
  if (!node.hasInput(i))
    return Value();
  FailureOr<Value> zp = scalarInput(node, i, "each zero point");
  if (failed(zp))
    return failure();
  if (cast<RankedTensorType>(zp->getType()).getElementType() != element)
    return node.fail("the output zero point's type differs from the "
                     "quantized inputs'");
  return zp;
}

/// `y` (f32) quantized by `s` (0-d f32) and `z` (null: none) to `element`.
FailureOr<Values> quantizeTo(ForeignNode &node, Value y, Value s, Value z,
                             Type element) {
  auto op =
      QuantizeOp::create(node.getRewriter(), node.getLoc(),
                         cast<RankedTensorType>(y.getType()).clone(element), y,
                         s, z, IntegerAttr(), IntegerAttr());
  if (failed(node.verifyCreated(op)))
    return failure();
  return Values{op.getResult()};
}

/// `y` (f32) quantized by `scale` (0-d f32) and input `zeroPoint`
/// (optional) to `element`, the type of the op's first quantized input.
FailureOr<Values> quantized(ForeignNode &node, Value y, FailureOr<Value> scale,
                            unsigned zeroPoint, Type element) {
  FailureOr<Value> z = outputZeroPoint(node, zeroPoint, element);
  if (failed(scale) || failed(z))
    return failure();
  return quantizeTo(node, y, *scale, *z, element);
}

/// QLinearAdd: A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp (the zero
/// points optional), A and B broadcast as Add does.
FailureOr<Values> convertAdd(ForeignNode &node) {
  auto a = node.input(0);
  if (failed(a))
    return failure();
  FailureOr<Value> x = dequantized(node, 0, 1, 2);
  FailureOr<Value> y = dequantized(node, 3, 4, 5);
  if (failed(x) || failed(y))
    return failure();
  FailureOr<Value> result = node.create<AddOp>({*x, *y});
  if (failed(result))
    return failure();
  return quantized(node, *result, scalarInput(node, 6, "each scale"), 7,
                   a->getType().getElementType());
}

/// QLinearMul as ONNX Runtime's kernel computes it: v = (A_scale·(A -
/// A_zp))·(B_scale·(B - B_zp)) / C_scale in f32, then round(v + C_zp),
/// saturated: the zero point added before rounding, which rounds apart from
/// round(v) + C_zp where v + C_zp is not exact in f32.
FailureOr<Values> convertMul(ForeignNode &node) {
  auto a = node.input(0);
  if (failed(a))
    return failure();
  FailureOr<Value> x = dequantized(node, 0, 1, 2);
  FailureOr<Value> y = dequantized(node, 3, 4, 5);
  FailureOr<Value> sc = scalarInput(node, 6, "each scale");
  if (failed(x) || failed(y) || failed(sc))
    return failure();
  FailureOr<Value> product = node.create<MulOp>({*x, *y});
  if (failed(product))
    return failure();
  FailureOr<Value> value = node.create<DivOp>({*product, *sc});
  if (failed(value))
    return failure();
  Type element = a->getType().getElementType();
  Type f32 = node.getRewriter().getF32Type();
  FailureOr<Value> zp = outputZeroPoint(node, 7, element);
  if (failed(zp))
    return failure();
  if (*zp) {
    value = node.create<AddOp>({*value, castTo(node, *zp, f32)});
    if (failed(value))
      return failure();
  }
  return quantizeTo(node, *value, node.scalar(f32, 1.0), Value(), element);
}

/// QLinearSoftmax: X, X_scale, x_zp, y_scale, y_zp; `axis` (default -1) and
/// `opset`, the original Softmax's: before 13 the softmax is over the dims
/// from `axis` on as one, which is a softmax over one axis only when `axis`
/// is the last. ONNX Runtime's kernel (the op's only definition) scales the
/// probabilities by floor(1 / y_scale), not 1 / y_scale, before rounding:
/// with the [0, 1] range its quantizer gives softmax outputs, y_scale =
/// 1/255 in f32 and floor(1 / y_scale) = 254. The same here, so that the
/// codes are the model's as ONNX Runtime runs it.
FailureOr<Values> convertSoftmax(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  FailureOr<int64_t> axis = node.axis(node.getInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  if (node.getInt("opset", 13) < 13 && *axis != rank - 1)
    return node.fail("a softmax of opset < 13 over the dims from axis " +
                     Twine(*axis) + " of " + Twine(rank) +
                     " on (not the last alone) is not supported");
  FailureOr<Value> values = dequantized(node, 0, 1, 2);
  if (failed(values))
    return failure();
  RewriterBase &rw = node.getRewriter();
  Value probabilities = SoftmaxOp::create(rw, node.getLoc(), *values,
                                          static_cast<uint64_t>(*axis));
  FailureOr<Value> ys = scalarInput(node, 3, "each scale");
  if (failed(ys))
    return failure();
  Type f32 = rw.getF32Type();
  FailureOr<Value> inverse = node.create<DivOp>({node.scalar(f32, 1.0), *ys});
  if (failed(inverse))
    return failure();
  Value multiplier = FloorOp::create(rw, node.getLoc(), *inverse);
  FailureOr<Value> scaled = node.create<MulOp>({probabilities, multiplier});
  if (failed(scaled))
    return failure();
  return quantized(node, *scaled, node.scalar(f32, 1.0), 4,
                   x->getType().getElementType());
}

} // namespace

void fromonnx::populateContribQLinearConverters(ForeignConverters &c) {
  c.add("com.microsoft::QLinearAdd", 1, convertAdd);
  c.add("com.microsoft::QLinearMul", 1, convertMul);
  c.add("com.microsoft::QLinearSoftmax", 1, convertSoftmax);
}
