//===- Utils.cpp - shared helpers of the tsc-to-linalg patterns -----------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
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
  // `from` and `to` carry the signedness; the values and ops are signless.
  if (from == to)
    return v;
  if (isMinifloat(from) || isMinifloat(to))
    return convertMinifloat(b, loc, v, from, to, MinifloatCast());
  Type signlessFrom = getSignlessType(from), signlessTo = getSignlessType(to);
  auto fromInt = dyn_cast<IntegerType>(from);
  auto toInt = dyn_cast<IntegerType>(to);
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, signlessFrom, 0);
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  bool fromUnsigned = fromInt && (fromInt.isUnsigned() || fromInt.getWidth() == 1);
  if (fromInt && toInt) {
    if (toInt.getWidth() < fromInt.getWidth())
      return arith::TruncIOp::create(b, loc, signlessTo, v);
    if (toInt.getWidth() == fromInt.getWidth())
      return v;
    if (fromUnsigned)
      return arith::ExtUIOp::create(b, loc, signlessTo, v);
    return arith::ExtSIOp::create(b, loc, signlessTo, v);
  }
  if (fromInt) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, to, v);
    return arith::SIToFPOp::create(b, loc, to, v);
  }
  if (toInt) {
    // To the sub-byte integers as ml_dtypes (ONNX's reference) converts:
    // toward zero to a 32-bit integer, whose low bits are the result (9.0
    // as ui4 is 9, -9.0 is 7). fptosi straight to i4 would be poison.
    if (toInt.getWidth() < 8) {
      Value wide = arith::FPToSIOp::create(b, loc, b.getI32Type(), v);
      return arith::TruncIOp::create(b, loc, signlessTo, wide);
    }
    if (toInt.isUnsigned())
      return arith::FPToUIOp::create(b, loc, signlessTo, v);
    return arith::FPToSIOp::create(b, loc, signlessTo, v);
  }
  if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  // Between float types of one width (f16 and bf16): exactly to f32, then
  // rounded once.
  if (to.getIntOrFloatBitWidth() == from.getIntOrFloatBitWidth())
    v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Value tolinalg::buildGeneric(
    OpBuilder &b, Location loc, ValueRange inputs,
    ArrayRef<AffineMap> inputMaps, Value init, AffineMap initMap,
    ArrayRef<utils::IteratorType> iterators,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(initMap);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args));
      });
  return generic.getResult(0);
}

Value tolinalg::createEmptyOfSizes(OpBuilder &b, Location loc,
                                   RankedTensorType type,
                                   ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
  return createEmpty(b, loc, type, dynamic);
}

Value tolinalg::createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                             ArrayRef<OpFoldResult> sizes, Value value) {
  Value empty = createEmptyOfSizes(b, loc, type, sizes);
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty})
      .getResult(0);
}

Value tolinalg::buildIndexed(
    OpBuilder &b, Location loc, RankedTensorType type,
    ArrayRef<OpFoldResult> sizes, ValueRange inputs, ArrayRef<AffineMap> maps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = type.getRank();
  return buildGeneric(
      b, loc, inputs, maps, createEmptyOfSizes(b, loc, type, sizes),
      AffineMap::getMultiDimIdentityMap(rank, b.getContext()),
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      body);
}

Type tolinalg::getAccumulatorType(Type element) {
  auto floatType = dyn_cast<FloatType>(element);
  if (floatType && floatType.getWidth() < 32)
    return Float32Type::get(element.getContext());
  return element;
}

Value tolinalg::convertElements(OpBuilder &b, Location loc, Value tensor,
                                Type element) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Type from = type.getElementType();
  if (from == element)
    return tensor;
  // To bool only compares with zero, which needs a signless constant.
  if (element.isInteger(1))
    from = getSignlessType(from);
  // A single operand always supplies its own dynamic dims.
  return *buildElementwise(
      b, loc, type.clone(element), tensor,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value converted = convertScalar(nested, nestedLoc,
                                        toSignless(nested, nestedLoc, args[0]),
                                        from, getSignlessType(element));
        return fromSignless(nested, nestedLoc, converted, element);
      });
}

Value tolinalg::getElementCount(OpBuilder &b, Location loc, Value tensor,
                                ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t known = 1;
  Value count;
  for (int64_t d : dims) {
    if (!type.isDynamicDim(d)) {
      known *= type.getDimSize(d);
      continue;
    }
    Value size = tensor::DimOp::create(b, loc, tensor, d);
    count = count ? arith::MulIOp::create(b, loc, count, size) : size;
  }
  Value constant = arith::ConstantIndexOp::create(b, loc, known);
  if (!count)
    return constant;
  return known == 1 ? count : arith::MulIOp::create(b, loc, count, constant);
}

Type tolinalg::getSignlessType(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || integer.isSignless())
    return type;
  return IntegerType::get(type.getContext(), integer.getWidth());
}

Value tolinalg::toSignless(OpBuilder &b, Location loc, Value v) {
  Type signless = getSignlessType(v.getType());
  if (signless == v.getType())
    return v;
  return UnrealizedConversionCastOp::create(b, loc, signless, v).getResult(0);
}

Value tolinalg::fromSignless(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, type, v).getResult(0);
}

Value tolinalg::typedConstant(OpBuilder &b, Location loc, Type type,
                              double value) {
  if (type.isIndex())
    return arith::ConstantIndexOp::create(b, loc, static_cast<int64_t>(value));
  return fromSignless(
      b, loc, scalarConstant(b, loc, getSignlessType(type), value), type);
}

SmallVector<ReassociationIndices>
tolinalg::getUnitDimReassociation(ArrayRef<bool> isUnit) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (auto [d, unit] : llvm::enumerate(isUnit)) {
    if (unit && groups.empty()) {
      pending.push_back(d);
    } else if (unit) {
      groups.back().push_back(d);
    } else {
      pending.push_back(d);
      groups.push_back(std::exchange(pending, {}));
    }
  }
  // Only unit dims: a rank-0 tensor, whose reassociation is empty.
  return groups;
}

Value tolinalg::insertUnitDims(OpBuilder &b, Location loc, Value value,
                               RankedTensorType resultType,
                               ArrayRef<bool> isUnit) {
  SmallVector<OpFoldResult> sourceSizes = tensor::getMixedSizes(b, loc, value);
  SmallVector<OpFoldResult> outputShape;
  size_t next = 0;
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    if (isUnit[d]) {
      outputShape.push_back(b.getIndexAttr(1));
    } else if (!resultType.isDynamicDim(d)) {
      outputShape.push_back(b.getIndexAttr(resultType.getDimSize(d)));
      ++next;
    } else {
      outputShape.push_back(sourceSizes[next++]);
    }
  }
  return tensor::ExpandShapeOp::create(
      b, loc, resultType, value, getUnitDimReassociation(isUnit), outputShape);
}
