//===- Quantization.cpp - ONNX QuantizeLinear, DequantizeLinear, ... ------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

/// y_scale = (max(x, 0) - min(x, 0)) / 255, y_zero_point =
/// saturate(round(-min(x, 0) / y_scale)), y = saturate(round(x / y_scale) +
/// y_zero_point), all uint8 and per tensor.
FailureOr<SmallVector<Value>>
fromonnx::buildDynamicQuantize(ForeignNode &node,
                               TypedValue<RankedTensorType> x) {
  RewriterBase &rw = node.getRewriter();
  RankedTensorType type = x.getType();
  Type f = type.getElementType();
  auto all = rw.getDenseI64ArrayAttr(
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
  ReduceMinOp::Properties minProps;
  minProps.dims = all;
  ReduceMaxOp::Properties maxProps;
  maxProps.dims = all;
  FailureOr<Value> lo = node.create<ReduceMinOp>({x}, minProps);
  FailureOr<Value> hi = node.create<ReduceMaxOp>({x}, maxProps);
  if (failed(lo) || failed(hi))
    return failure();
  Value zero = node.scalar(f, 0.0);
  FailureOr<Value> lo0 = node.create<MinOp>({*lo, zero});
  FailureOr<Value> hi0 = node.create<MaxOp>({*hi, zero});
  if (failed(lo0) || failed(hi0))
    return failure();
  FailureOr<Value> span = node.create<SubOp>({*hi0, *lo0});
  if (failed(span))
    return failure();
  FailureOr<Value> scale = node.create<DivOp>({*span, node.scalar(f, 255.0)});
  if (failed(scale))
    return failure();
  Type u8 = rw.getIntegerType(8, /*isSigned=*/false);
  Value negLo = NegOp::create(rw, node.getLoc(), *lo0);
  auto zp =
      QuantizeOp::create(rw, node.getLoc(), RankedTensorType::get({}, u8),
                         negLo, *scale, Value(), IntegerAttr(), IntegerAttr());
  auto y = QuantizeOp::create(rw, node.getLoc(), type.clone(u8), x, *scale, zp,
                              IntegerAttr(), IntegerAttr());
  return SmallVector<Value>{y, *scale, zp};
}

FailureOr<Value> fromonnx::buildRequantize(ForeignNode &node, Value acc,
                                           Value multiplier,
                                           unsigned zeroPointInput,
                                           Type element) {
  RewriterBase &rw = node.getRewriter();
  Type f64 = rw.getF64Type();
  FailureOr<Value> y = node.create<MulOp>(
      {castTo(node, acc, f64), castTo(node, multiplier, f64)});
  if (failed(y))
    return failure();
  if (node.hasInput(zeroPointInput)) {
    auto zeroPoint = node.input(zeroPointInput);
    if (failed(zeroPoint))
      return failure();
    element = zeroPoint->getType().getElementType();
    y = node.create<AddOp>({*y, castTo(node, *zeroPoint, f64)});
    if (failed(y))
      return failure();
  }
  auto integer = dyn_cast<IntegerType>(element);
  if (!integer)
    return node.fail("the quantized type must be an integer type");
  unsigned bits = integer.getWidth();
  double lo = integer.isUnsigned() ? 0.0 : -std::ldexp(1.0, bits - 1);
  double hi = integer.isUnsigned() ? std::ldexp(1.0, bits) - 1
                                   : std::ldexp(1.0, bits - 1) - 1;
  Value rounded = RoundOp::create(rw, node.getLoc(), y->getType(), *y);
  FailureOr<Value> low = node.create<MaxOp>({rounded, node.scalar(f64, lo)});
  FailureOr<Value> clipped =
      failed(low) ? low : node.create<MinOp>({*low, node.scalar(f64, hi)});
  if (failed(clipped))
    return failure();
  return castTo(node, *clipped, element);
}

namespace {

using Values = SmallVector<Value>;

/// The quantization parameters of a QuantizeLinear/DequantizeLinear node in
/// tsc's terms: a 0-d scale for per tensor, `axis` for per channel, `axis`
/// and `group_size` for per block.
struct QuantParams {
  Value scale;
  Value zeroPoint;
  IntegerAttr axis;
  IntegerAttr groupSize;
};

FailureOr<QuantParams> quantParams(ForeignNode &node, RankedTensorType data) {
  auto scale = node.input(1);
  if (failed(scale))
    return failure();
  RewriterBase &rw = node.getRewriter();
  QuantParams params;
  params.scale = *scale;
  if (node.hasInput(2)) {
    auto zp = node.input(2);
    if (failed(zp))
      return failure();
    params.zeroPoint = *zp;
  }
  int64_t block = node.getInt("block_size", 0);
  auto scaleType = scale->getType();
  if (block > 0) {
    FailureOr<int64_t> axis = node.axis(node.getInt("axis", 1), data.getRank());
    if (failed(axis))
      return failure();
    params.axis = rw.getI64IntegerAttr(*axis);
    params.groupSize = rw.getI64IntegerAttr(block);
    return params;
  }
  if (scaleType.getRank() == 0 ||
      (scaleType.getRank() == 1 && scaleType.getDimSize(0) == 1)) {
    // One scale is per tensor: make it and the zero point 0-d.
    params.scale = node.reshape(params.scale, {});
    if (params.zeroPoint)
      params.zeroPoint = node.reshape(params.zeroPoint, {});
    return params;
  }
  FailureOr<int64_t> axis = node.axis(node.getInt("axis", 1), data.getRank());
  if (failed(axis))
    return failure();
  params.axis = rw.getI64IntegerAttr(*axis);
  return params;
}

/// Element types QuantizeLinear produces (tsc.quantize's result types).
bool isQuantizedElementType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return llvm::is_contained({2u, 4u, 8u, 16u}, integer.getWidth());
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType, Float4E2M1FNType>(type);
}

/// Runs the verifier on a freshly built op: quantization parameter shapes are
/// checked there, once.
template <typename OpTy>
FailureOr<Values> checked(ForeignNode &node, OpTy op) {
  if (failed(node.verifyCreated(op)))
    return failure();
  return Values{op.getResult()};
}

FailureOr<Values> convertQuantize(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<QuantParams> params = quantParams(node, x->getType());
  if (failed(params))
    return failure();
  RewriterBase &rw = node.getRewriter();
  // precision (opset 25) asks for x / scale in another float type.
  if (int64_t precision = node.getInt("precision", 0);
      precision && onnxElementType(node.getContext(), precision) !=
                       x->getType().getElementType())
    return node.fail("precision " + Twine(precision) +
                     " other than the input's type is not supported");
  Type element;
  if (params->zeroPoint) {
    element = cast<RankedTensorType>(params->zeroPoint.getType()).getElementType();
  } else {
    // Without a zero point the result is output_dtype's, uint8 by default.
    int64_t dtype = node.getInt("output_dtype", 0);
    element = onnxElementType(node.getContext(), dtype ? dtype : 2);
    if (!element || !isQuantizedElementType(element))
      return node.fail("output_dtype " + Twine(dtype) + " is not supported");
  }
  auto op = QuantizeOp::create(rw, node.getLoc(), x->getType().clone(element),
                               *x, params->scale, params->zeroPoint,
                               params->axis, params->groupSize);
  // saturate (default 1, since opset 19) concerns the 8-bit float results.
  if (isa<FloatType>(element) && node.getInt("saturate", 1))
    op.setSaturate(true);
  return checked(node, op);
}

/// DequantizeLinear of int32 data (quantized biases, as ONNX Runtime's
/// quantizer writes them): (x - zero point) * scale in float, as ONNX
/// Runtime's kernel computes it (the int32 difference converted to float),
/// since tsc.dequantize takes the narrow quantized types only.
FailureOr<Values> dequantizeInt32(ForeignNode &node, Value x,
                                  const QuantParams &params, Type element) {
  if (params.groupSize)
    return node.fail("block-wise dequantization of int32 data is not "
                     "supported");
  auto type = cast<RankedTensorType>(x.getType());
  Value scale = params.scale, zeroPoint = params.zeroPoint;
  if (params.axis) {
    // Per channel: [C] broadcast along `axis`.
    int64_t axis = params.axis.getInt();
    RewriterBase &rw = node.getRewriter();
    SmallVector<OpFoldResult> shape(type.getRank(), rw.getIndexAttr(1));
    shape[axis] = node.dimSize(scale, 0);
    scale = node.reshape(scale, shape);
    if (zeroPoint)
      zeroPoint = node.reshape(zeroPoint, shape);
  }
  Value centred = x;
  if (zeroPoint) {
    FailureOr<Value> diff = node.create<SubOp>({x, zeroPoint});
    if (failed(diff))
      return failure();
    centred = *diff;
  }
  FailureOr<Value> y =
      node.create<MulOp>({castTo(node, centred, element), scale});
  if (failed(y))
    return failure();
  return Values{*y};
}

FailureOr<Values> convertDequantize(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<QuantParams> params = quantParams(node, x->getType());
  if (failed(params))
    return failure();
  Type element = cast<RankedTensorType>(params->scale.getType()).getElementType();
  if (x->getType().getElementType().isInteger(32))
    return dequantizeInt32(node, *x, *params, element);
  auto op = DequantizeOp::create(node.getRewriter(), node.getLoc(),
                                 x->getType().clone(element), *x,
                                 params->scale, params->zeroPoint,
                                 params->axis, params->groupSize);
  return checked(node, op);
}

FailureOr<Values> convertDynamicQuantize(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return buildDynamicQuantize(node, *x);
}

} // namespace

void fromonnx::populateQuantizationConverters(ForeignConverters &c) {
  c.add("QuantizeLinear", 10, convertQuantize);
  c.add("DequantizeLinear", 10, convertDequantize);
  c.add("DynamicQuantizeLinear", 11, convertDynamicQuantize);
}
