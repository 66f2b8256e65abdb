//===- Quantization.cpp - tsc quantize, dequantize, quantized_matmul ------===//
//
// Affine (de)quantization as parallel generics; the scale and zero point
// are read through a map that gives the granularity: no dims (per tensor),
// the axis dim (per channel) or the axis dim divided by the group size (per
// group). The weight-only quantized matmul dequantizes its weight and
// contracts it like tsc.matmul; linalg fusion may merge the two.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

namespace {

/// The map from a loop nest over a tensor of `rank` dims to its quantization
/// parameters, as tsc.quantize's description sets their shapes.
AffineMap getParamMap(MLIRContext *context, int64_t rank,
                      std::optional<uint64_t> axis,
                      std::optional<uint64_t> group) {
  if (!axis)
    return AffineMap::get(rank, 0, {}, context);
  AffineExpr along = getAffineDimExpr(*axis, context);
  if (!group)
    return AffineMap::get(rank, 0, along, context);
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(d == static_cast<int64_t>(*axis)
                        ? along.floorDiv(static_cast<int64_t>(*group))
                        : getAffineDimExpr(d, context));
  return AffineMap::get(rank, 0, exprs, context);
}

/// A parallel generic over `input` producing `resultType`, reading the
/// scale and the optional zero point through the parameter map.
Value mapWithParams(
    OpBuilder &b, Location loc, Value input, Value scale, Value zeroPoint,
    std::optional<uint64_t> axis, std::optional<uint64_t> group,
    RankedTensorType resultType,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  MLIRContext *context = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  AffineMap params = getParamMap(context, rank, axis, group);
  SmallVector<Value> inputs = {input, scale};
  SmallVector<AffineMap> maps = {identity, params};
  if (zeroPoint) {
    inputs.push_back(zeroPoint);
    maps.push_back(params);
  }
  Value init = createEmptyOfSizes(b, loc, resultType,
                                  tensor::getMixedSizes(b, loc, input));
  return buildGeneric(
      b, loc, inputs, maps, init, identity,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      body);
}

/// An integer element `v` of type `from`, widened to i32 by its signedness.
Value widen(OpBuilder &b, Location loc, Value v, Type from) {
  return convertScalar(b, loc, toSignless(b, loc, v), from, b.getI32Type());
}

/// `(q - zero_point) * scale` elementwise into `resultType`, computed in
/// f32 (or the scale's wider type), subtracting in i32 as ONNX Runtime does.
Value dequantize(OpBuilder &b, Location loc, Value input, Value scale,
                 Value zeroPoint, std::optional<uint64_t> axis,
                 std::optional<uint64_t> group, RankedTensorType resultType) {
  Type quantized = cast<RankedTensorType>(input.getType()).getElementType();
  Type element = resultType.getElementType();
  Type scaleElement = cast<RankedTensorType>(scale.getType()).getElementType();
  Type f = getAccumulatorType(element);
  return mapWithParams(
      b, loc, input, scale, zeroPoint, axis, group, resultType,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value x;
        if (isa<FloatType>(quantized)) {
          // 8- and 4-bit floats: exactly to f, the zero point subtracted
          // there.
          x = convertScalar(nb, l, args[0], quantized, f);
          if (zeroPoint)
            x = arith::SubFOp::create(
                nb, l, x, convertScalar(nb, l, args[2], quantized, f));
        } else {
          Value q = widen(nb, l, args[0], quantized);
          if (zeroPoint)
            q = arith::SubIOp::create(nb, l, q,
                                      widen(nb, l, args[2], quantized));
          x = arith::SIToFPOp::create(nb, l, f, q);
        }
        Value s = convertScalar(nb, l, args[1], scaleElement, f);
        return convertScalar(nb, l, arith::MulFOp::create(nb, l, x, s), f,
                             element);
      });
}

/// ONNX QuantizeLinear into an 8- or 4-bit float: `x / scale + zero_point`
/// rounded to the input's type (halves compute in f32 and round there, as
/// the reference's numpy does), then converted, saturating as the op says.
Value quantizeToFloat(OpBuilder &b, QuantizeOp op) {
  Type quantized = op.getType().getElementType();
  Type element = op.getInput().getType().getElementType();
  Type f = getAccumulatorType(element);
  MinifloatCast how;
  how.saturate = op.getSaturate();
  Value zeroPoint = op.getZeroPoint();
  return mapWithParams(
      b, op.getLoc(), op.getInput(), op.getScale(), zeroPoint, op.getAxis(),
      op.getGroupSize(), op.getType(),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value x = convertScalar(nb, l, args[0], element, f);
        Value s = convertScalar(nb, l, args[1], element, f);
        Value r = arith::DivFOp::create(nb, l, x, s);
        if (zeroPoint)
          r = arith::AddFOp::create(
              nb, l, r, convertScalar(nb, l, args[2], quantized, f));
        r = convertScalar(nb, l, r, f, element);
        return convertMinifloat(nb, l, r, element, quantized, how);
      });
}

struct QuantizePattern : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    Type quantized = resultType.getElementType();
    Type element = op.getInput().getType().getElementType();
    Type f = getAccumulatorType(element);
    if (isa<FloatType>(quantized)) {
      rewriter.replaceOp(op, quantizeToFloat(rewriter, op));
      return success();
    }
    auto integer = cast<IntegerType>(quantized);
    unsigned width = integer.getWidth();
    bool isUnsigned = integer.isUnsigned();
    // Saturation bounds, exact in any float type with a 24-bit mantissa.
    double lo =
        isUnsigned ? 0.0 : -static_cast<double>(int64_t(1) << (width - 1));
    double hi = isUnsigned
                    ? static_cast<double>((int64_t(1) << width) - 1)
                    : static_cast<double>((int64_t(1) << (width - 1)) - 1);
    Value zeroPoint = op.getZeroPoint();
    Value result = mapWithParams(
        rewriter, op.getLoc(), op.getInput(), op.getScale(), zeroPoint,
        op.getAxis(), op.getGroupSize(), resultType,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = convertScalar(b, l, args[0], element, f);
          Value s = convertScalar(b, l, args[1], element, f);
          // ONNX QuantizeLinear: round half to even, then add the zero
          // point, then saturate.
          Value r = math::RoundEvenOp::create(
              b, l, arith::DivFOp::create(b, l, x, s));
          if (zeroPoint)
            r = arith::AddFOp::create(
                b, l, r,
                arith::SIToFPOp::create(b, l, f,
                                        widen(b, l, args[2], quantized)));
          r = arith::MaxNumFOp::create(b, l, r, scalarConstant(b, l, f, lo));
          r = arith::MinNumFOp::create(b, l, r, scalarConstant(b, l, f, hi));
          Value wide = arith::FPToSIOp::create(b, l, b.getI32Type(), r);
          Value narrow =
              arith::TruncIOp::create(b, l, getSignlessType(quantized), wide);
          return fromSignless(b, l, narrow, quantized);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct DequantizePattern : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, dequantize(rewriter, op.getLoc(), op.getInput(),
                                      op.getScale(), op.getZeroPoint(),
                                      op.getAxis(), op.getGroupSize(),
                                      op.getType()));
    return success();
  }
};

struct QuantizedMatmulPattern : OpRewritePattern<QuantizedMatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizedMatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType rhsType = op.getRhs().getType();
    // The weight in the accumulator type, so f16 models keep f32 weights.
    Type f = getAccumulatorType(op.getType().getElementType());
    Value weight = dequantize(rewriter, loc, op.getRhs(), op.getRhsScale(),
                              op.getRhsZeroPoint(), op.getAxis(),
                              op.getGroupSize(), rhsType.clone(f));
    rewriter.replaceOp(
        op, buildMatmul(rewriter, loc, op.getLhs(), weight, op.getType()));
    return success();
  }
};

} // namespace

void mlir::tsc::populateTscQuantizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<QuantizePattern, DequantizePattern, QuantizedMatmulPattern>(
      patterns.getContext());
}
