//===- Utils.cpp - shared helpers of the tsc-to-linalg patterns -----------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tsc;

Value tolinalg::createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                            ValueRange dynamicDims) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType(), dynamicDims);
}

FailureOr<SmallVector<Value>>
tolinalg::getBroadcastDims(OpBuilder &b, Location loc,
                           RankedTensorType resultType, ValueRange operands) {
  SmallVector<Value> dims;
  int64_t rank = resultType.getRank();
  for (int64_t i = 0; i < rank; ++i) {
    if (!resultType.isDynamicDim(i))
      continue;
    Value found;
    for (Value operand : operands) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t j = i - (rank - type.getRank());
      if (j >= 0 && type.isDynamicDim(j)) {
        found = tensor::DimOp::create(b, loc, operand, j);
        break;
      }
    }
    if (!found)
      return failure();
    dims.push_back(found);
  }
  return dims;
}

AffineMap tolinalg::getBroadcastMap(MLIRContext *context,
                                    RankedTensorType operandType,
                                    RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  int64_t offset = rank - operandType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t j = 0; j < operandType.getRank(); ++j) {
    bool broadcast =
        operandType.getDimSize(j) == 1 && resultType.getDimSize(j + offset) != 1;
    exprs.push_back(broadcast ? getAffineConstantExpr(0, context)
                              : getAffineDimExpr(j + offset, context));
  }
  return AffineMap::get(rank, 0, exprs, context);
}

FailureOr<Value> tolinalg::buildElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange operands,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  FailureOr<SmallVector<Value>> dims =
      getBroadcastDims(b, loc, resultType, operands);
  if (failed(dims))
    return failure();
  Value init = createEmpty(b, loc, resultType, *dims);
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value operand : operands)
    maps.push_back(getBroadcastMap(
        context, cast<RankedTensorType>(operand.getType()), resultType));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(),
                                                   context));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, operands, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result =
            body(nested, nestedLoc, args.take_front(operands.size()));
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value tolinalg::scalarConstant(OpBuilder &b, Location loc, Type type,
                               double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value tolinalg::convertScalar(OpBuilder &b, Location loc, Value v, Type from,
                              Type to) {
  if (from == to)
    return v;
  auto fromInt = dyn_cast<IntegerType>(from);
  auto toInt = dyn_cast<IntegerType>(to);
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0);
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  bool fromUnsigned = fromInt && (fromInt.isUnsigned() || fromInt.getWidth() == 1);
  if (fromInt && toInt) {
    if (toInt.getWidth() < fromInt.getWidth())
      return arith::TruncIOp::create(b, loc, to, v);
    if (toInt.getWidth() == fromInt.getWidth())
      return v;
    if (fromUnsigned)
      return arith::ExtUIOp::create(b, loc, to, v);
    return arith::ExtSIOp::create(b, loc, to, v);
  }
  if (fromInt) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, to, v);
    return arith::SIToFPOp::create(b, loc, to, v);
  }
  if (toInt) {
    if (toInt.isUnsigned())
      return arith::FPToUIOp::create(b, loc, to, v);
    return arith::FPToSIOp::create(b, loc, to, v);
  }
  if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}
