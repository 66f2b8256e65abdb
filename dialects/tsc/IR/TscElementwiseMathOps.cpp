//===- TscElementwiseMathOps.cpp - ElementwiseMath folders, verifiers ---===//
//
// Modulo folds on small constants: exporters compute head-count remainders
// from static shapes (ONNX Attention's function body), and the ops that read
// them wait for constants.
//
//===----------------------------------------------------------------------===//

#include "dialects/tsc/IR/TscOpUtils.h"
#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;

/// The remainder of `lhs` by `rhs` truncated toward zero (tsc.fmod) or,
/// when `floored`, moved by one divisor where its sign differs from the
/// divisor's (tsc.mod, numpy's divmod), with a float zero of the divisor's
/// sign; an integer divisor of 0 gives 0, as the lowering computes.
static OpFoldResult foldRemainder(Attribute lhs, Attribute rhs,
                                  RankedTensorType type, bool floored) {
  bool isUnsigned = type.getElementType().isUnsignedInteger();
  return util::foldArithmetic(
      lhs, rhs, type,
      [&](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        APFloat r = a;
        r.mod(b);
        if (!floored)
          return r;
        if (r.isZero())
          return APFloat::copySign(r, b);
        if (!r.isNaN() && r.isNegative() != b.isNegative())
          r.add(b, APFloat::rmNearestTiesToEven);
        return r;
      },
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        if (b.isZero())
          return APInt::getZero(a.getBitWidth());
        if (isUnsigned)
          return a.urem(b);
        APInt r = a.srem(b);
        if (floored && !r.isZero() && r.isNegative() != b.isNegative())
          r += b;
        return r;
      });
}

OpFoldResult FmodOp::fold(FoldAdaptor adaptor) {
  return foldRemainder(adaptor.getLhs(), adaptor.getRhs(), getType(),
                       /*floored=*/false);
}

OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  return foldRemainder(adaptor.getLhs(), adaptor.getRhs(), getType(),
                       /*floored=*/true);
}

/// The width of `type` as ONNX stores it: a bool takes a byte.
static unsigned storedBitWidth(Type type) {
  return type.isInteger(1) ? 8 : type.getIntOrFloatBitWidth();
}

LogicalResult BitcastOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getShape() != out.getShape())
    return emitOpError("changes the shape from ")
           << in << " to " << out << "; bitcast keeps the shape";
  if (!in.getElementType().isIntOrFloat() ||
      !out.getElementType().isIntOrFloat() ||
      storedBitWidth(in.getElementType()) !=
          storedBitWidth(out.getElementType()))
    return emitOpError("reinterprets ")
           << in.getElementType() << " as " << out.getElementType()
           << "; both element types must have the same width";
  return success();
}
