//===- Reduction.cpp - tsc reductions, softmax and norms to linalg --------===//
//
// Each statistic is a linalg.generic with reduction iterators over the
// reduced dims, accumulating into a linalg.fill-ed tensor; the normalize
// step is a parallel generic reading the statistics through a map that drops
// the reduced dims. Float statistics are kept in at least f32, as ONNX
// Runtime keeps them.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

namespace {

using utils::IteratorType;

/// The map from a loop nest over all `rank` dims to the dims not in
/// `reduced`.
AffineMap getReducedMap(MLIRContext *context, int64_t rank,
                        ArrayRef<int64_t> reduced) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(reduced, d))
      exprs.push_back(getAffineDimExpr(d, context));
  return AffineMap::get(rank, 0, exprs, context);
}

/// Reduces `input` over `dims` into a fresh tensor of `accType` elements
/// filled with `identity`. `extras` (already reduced over `dims`, e.g. a row
/// maximum) are read alongside; `combine` gets the input element, the extra
/// elements and the accumulator and returns the new accumulator.
Value reduceDims(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims,
    ValueRange extras, Type accType, Value identity,
    function_ref<Value(OpBuilder &, Location, ValueRange)> combine) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  MLIRContext *context = b.getContext();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> keptSizes;
  SmallVector<IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(dims, d);
    iterators.push_back(reduced ? IteratorType::reduction
                                : IteratorType::parallel);
    if (!reduced) {
      shape.push_back(type.getDimSize(d));
      keptSizes.push_back(sizes[d]);
    }
  }
  auto accTensor = RankedTensorType::get(shape, accType);
  Value init = createFilled(b, loc, accTensor, keptSizes, identity);
  AffineMap reducedMap = getReducedMap(context, rank, dims);
  SmallVector<Value> inputs = {input};
  llvm::append_range(inputs, extras);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, context)};
  maps.append(extras.size(), reducedMap);
  return buildGeneric(b, loc, inputs, maps, init, reducedMap, iterators,
                      combine);
}

/// A parallel generic over the shape of `domain` producing `resultType`,
/// reading each input through its map.
Value mapOver(OpBuilder &b, Location loc, Value domain,
              RankedTensorType resultType, ValueRange inputs,
              ArrayRef<AffineMap> maps,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  Value init = createEmptyOfSizes(b, loc, resultType,
                                  tensor::getMixedSizes(b, loc, domain));
  int64_t rank = resultType.getRank();
  SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  return buildGeneric(b, loc, inputs, maps, init,
                      AffineMap::getMultiDimIdentityMap(rank, b.getContext()),
                      iterators, body);
}

/// `v` extended (or kept) to float type `to`.
Value extendTo(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  return arith::ExtFOp::create(b, loc, to, v);
}

/// `v` (of the accumulator type) converted to the result element `to`.
Value narrowTo(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  return arith::TruncFOp::create(b, loc, to, v);
}

/// The element count of `dims` of `tensor` as a float of `type`.
Value countAsFloat(OpBuilder &b, Location loc, Value tensor,
                   ArrayRef<int64_t> dims, Type type) {
  Value count = getElementCount(b, loc, tensor, dims);
  Value wide = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return arith::SIToFPOp::create(b, loc, type, wide);
}

/// +inf or -inf of float type `type`.
Value floatInfinity(OpBuilder &b, Location loc, Type type, bool negative) {
  auto floatType = cast<FloatType>(type);
  return arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(floatType,
                     APFloat::getInf(floatType.getFloatSemantics(), negative)));
}

//===----------------------------------------------------------------------===//
// reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Mean, Max, Min, Prod };

/// The identity of the reduction: 0 for sums, 1 for products, the lowest
/// (highest) value of the type for max (min), so that an empty reduction
/// gives it, as ONNX says.
Value reductionIdentity(OpBuilder &b, Location loc, ReduceKind kind, Type acc,
                        bool isUnsigned) {
  if (kind == ReduceKind::Sum || kind == ReduceKind::Mean)
    return scalarConstant(b, loc, acc, 0);
  if (kind == ReduceKind::Prod)
    return scalarConstant(b, loc, acc, 1);
  bool max = kind == ReduceKind::Max;
  if (isa<FloatType>(acc))
    return floatInfinity(b, loc, acc, /*negative=*/max);
  unsigned width = acc.getIntOrFloatBitWidth();
  APInt value =
      isUnsigned ? (max ? APInt::getMinValue(width) : APInt::getMaxValue(width))
                 : (max ? APInt::getSignedMinValue(width)
                        : APInt::getSignedMaxValue(width));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(acc, value));
}

/// acc (+ | max | min | *) x, on signless or float scalars.
Value combineReduction(OpBuilder &b, Location loc, ReduceKind kind, Value x,
                       Value acc, bool isUnsigned) {
  bool flt = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    return flt ? Value(arith::AddFOp::create(b, loc, acc, x))
               : Value(arith::AddIOp::create(b, loc, acc, x));
  case ReduceKind::Prod:
    return flt ? Value(arith::MulFOp::create(b, loc, acc, x))
               : Value(arith::MulIOp::create(b, loc, acc, x));
  case ReduceKind::Max:
    if (flt)
      return arith::MaximumFOp::create(b, loc, acc, x);
    return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, acc, x))
                      : Value(arith::MaxSIOp::create(b, loc, acc, x));
  case ReduceKind::Min:
    if (flt)
      return arith::MinimumFOp::create(b, loc, acc, x);
    return isUnsigned ? Value(arith::MinUIOp::create(b, loc, acc, x))
                      : Value(arith::MinSIOp::create(b, loc, acc, x));
  }
  llvm_unreachable("unknown reduction");
}

/// A reduction's accumulator `acc` (of type `accType`) as the result
/// element: divided by `count` (an index) for a mean, narrowed to `element`.
Value finishReduction(OpBuilder &b, Location l, Value acc, Value count,
                      Type accType, Type element, bool isUnsigned) {
  Value v = toSignless(b, l, acc);
  bool flt = isa<FloatType>(element);
  if (count && flt) {
    Value wide = arith::IndexCastOp::create(b, l, b.getI64Type(), count);
    v = arith::DivFOp::create(b, l, v,
                              arith::SIToFPOp::create(b, l, accType, wide));
  } else if (count) {
    Value n = arith::IndexCastOp::create(b, l, v.getType(), count);
    v = isUnsigned ? Value(arith::DivUIOp::create(b, l, v, n))
                   : Value(arith::DivSIOp::create(b, l, v, n));
  }
  if (flt)
    v = narrowTo(b, l, v, element);
  return fromSignless(b, l, v, element);
}

template <typename OpTy, ReduceKind kind>
struct ReducePattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = inputType.getElementType();
    bool isUnsigned = element.isUnsignedInteger() || element.isInteger(1);
    bool flt = isa<FloatType>(element);
    bool mean = kind == ReduceKind::Mean;
    // Sums and products of narrow floats accumulate in f32; max/min are
    // exact anyway.
    Type acc = (kind == ReduceKind::Sum || kind == ReduceKind::Prod || mean)
                   ? getAccumulatorType(element)
                   : element;
    ArrayRef<int64_t> dims = op.getDims();
    Value identity =
        fromSignless(rewriter, loc,
                     reductionIdentity(rewriter, loc, kind,
                                       getSignlessType(acc), isUnsigned),
                     acc);
    Value reduced =
        reduceDims(rewriter, loc, input, dims, {}, acc, identity,
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     Value x = toSignless(b, l, args[0]);
                     if (flt)
                       x = extendTo(b, l, x, acc);
                     Value sum = combineReduction(
                         b, l, kind, x, toSignless(b, l, args[1]), isUnsigned);
                     return fromSignless(b, l, sum, acc);
                   });

    // The result without the kept unit dims, as static as the op's declared
    // result type.
    SmallVector<int64_t> collapsedShape;
    SmallVector<bool> isUnit;
    for (int64_t d = 0, r = 0; d < inputType.getRank(); ++d) {
      bool dropped = llvm::is_contained(dims, d);
      if (op.getKeepdim())
        isUnit.push_back(dropped);
      if (!dropped)
        collapsedShape.push_back(resultType.getDimSize(r));
      if (!dropped || op.getKeepdim())
        ++r;
    }
    auto collapsedType = RankedTensorType::get(collapsedShape, element);
    Value result;
    if (!mean && acc == element) {
      result = reduced;
      if (reduced.getType() != collapsedType)
        result = tensor::CastOp::create(rewriter, loc, collapsedType, reduced);
    } else {
      Value count;
      if (mean)
        count = getElementCount(rewriter, loc, input, dims);
      SmallVector<AffineMap> identityMap = {AffineMap::getMultiDimIdentityMap(
          collapsedShape.size(), rewriter.getContext())};
      result =
          mapOver(rewriter, loc, reduced, collapsedType, reduced, identityMap,
                  [&](OpBuilder &b, Location l, ValueRange args) {
                    return finishReduction(b, l, args[0], count, acc, element,
                                           isUnsigned);
                  });
    }
    if (op.getKeepdim())
      result = insertUnitDims(rewriter, loc, result, resultType, isUnit);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// reduce_window: reductions over dims chosen at run time
//===----------------------------------------------------------------------===//

/// result[j] = kind over k < window of input[j + k]: a generic over the
/// result's dims (parallel) and the window's (reduction). linalg takes each
/// loop's extent from an operand indexed by that loop alone, so the window's
/// extents come from a slice of the input of the window's sizes, which the
/// body never reads (its loads are dead once lowered to loops).
struct ReduceWindowPattern : OpRewritePattern<ReduceWindowOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceWindowOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = inputType.getElementType();
    int64_t rank = inputType.getRank();
    MLIRContext *ctx = rw.getContext();
    bool lse = op.getKind() == "logsumexp";
    ReduceKind kind = llvm::StringSwitch<ReduceKind>(op.getKind())
                          .Case("sum", ReduceKind::Sum)
                          .Case("mean", ReduceKind::Mean)
                          .Case("prod", ReduceKind::Prod)
                          .Case("min", ReduceKind::Min)
                          .Default(ReduceKind::Max);
    bool isUnsigned = element.isUnsignedInteger() || element.isInteger(1);
    bool flt = isa<FloatType>(element);

    // An input with a static 0 dim: every window is empty (or there are no
    // windows), so the result is the reduction's identity; a mean is 0 / 0.
    if (llvm::is_contained(inputType.getShape(), 0)) {
      Value fill;
      if (lse)
        fill = floatInfinity(rw, loc, element, /*negative=*/true);
      else if (kind == ReduceKind::Mean && flt)
        fill = arith::ConstantOp::create(
            rw, loc,
            rw.getFloatAttr(
                element,
                APFloat::getNaN(cast<FloatType>(element).getFloatSemantics())));
      else
        fill = fromSignless(rw, loc,
                            reductionIdentity(rw, loc, kind,
                                              getSignlessType(element),
                                              isUnsigned),
                            element);
      rw.replaceOp(op, createFilled(rw, loc, resultType,
                                    getAsOpFoldResult(op.getSizes()), fill));
      return success();
    }

    SmallVector<AffineExpr> shifted, window, kept;
    for (int64_t d = 0; d < rank; ++d) {
      shifted.push_back(getAffineDimExpr(d, ctx) +
                        getAffineDimExpr(rank + d, ctx));
      window.push_back(getAffineDimExpr(rank + d, ctx));
      kept.push_back(getAffineDimExpr(d, ctx));
    }
    auto map = [&](ArrayRef<AffineExpr> exprs) {
      return AffineMap::get(2 * rank, 0, exprs, ctx);
    };
    SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
    iterators.append(rank, IteratorType::reduction);
    SmallVector<OpFoldResult> zeros(rank, rw.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(rank, rw.getIndexAttr(1));
    Value carrier = tensor::ExtractSliceOp::create(
        rw, loc, input, zeros, getAsOpFoldResult(op.getWindow()), ones);
    SmallVector<OpFoldResult> sizes = getAsOpFoldResult(op.getSizes());

    // One pass: `combine(x, extras..., acc)` over each window into a tensor
    // of `accType` filled with `identity`; `extras` have the result's shape.
    auto pass =
        [&](Type accType, Value identity, ValueRange extras,
            function_ref<Value(OpBuilder &, Location, ValueRange)> combine) {
          SmallVector<Value> inputs = {input, carrier};
          llvm::append_range(inputs, extras);
          SmallVector<AffineMap> maps = {map(shifted), map(window)};
          maps.append(extras.size(), map(kept));
          Value init = createFilled(
              rw, loc, RankedTensorType::get(resultType.getShape(), accType),
              sizes, identity);
          return buildGeneric(rw, loc, inputs, maps, init, map(kept), iterators,
                              [&](OpBuilder &b, Location l, ValueRange args) {
                                SmallVector<Value> operands = {args[0]};
                                llvm::append_range(operands,
                                                   args.drop_front(2));
                                return combine(b, l, operands);
                              });
        };
    auto identityOf = [&](ReduceKind k, Type acc) {
      return fromSignless(
          rw, loc,
          reductionIdentity(rw, loc, k, getSignlessType(acc), isUnsigned), acc);
    };
    SmallVector<AffineMap> keptMaps(
        2, AffineMap::getMultiDimIdentityMap(rank, ctx));

    if (lse) {
      // log(sum e^(x - m)) + m with m each window's maximum (0 where it is
      // infinite, which gives the reference's -inf and +inf).
      Type acc = getAccumulatorType(element);
      Value max = pass(
          element, identityOf(ReduceKind::Max, element), {},
          [&](OpBuilder &b, Location l, ValueRange args) {
            return Value(arith::MaximumFOp::create(b, l, args.back(), args[0]));
          });
      auto shiftOf = [&](OpBuilder &b, Location l, Value m) -> Value {
        m = extendTo(b, l, m, acc);
        Value finite = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                             math::AbsFOp::create(b, l, m),
                                             floatInfinity(b, l, acc, false));
        return arith::SelectOp::create(b, l, finite, m,
                                       scalarConstant(b, l, acc, 0));
      };
      Value sum = pass(
          acc, scalarConstant(rw, loc, acc, 0), max,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value x = extendTo(b, l, args[0], acc);
            Value e = math::ExpOp::create(
                b, l, arith::SubFOp::create(b, l, x, shiftOf(b, l, args[1])));
            return Value(arith::AddFOp::create(b, l, args[2], e));
          });
      rw.replaceOp(op, mapOver(rw, loc, sum, resultType, {sum, max}, keptMaps,
                               [&](OpBuilder &b, Location l, ValueRange args) {
                                 Value y = arith::AddFOp::create(
                                     b, l, math::LogOp::create(b, l, args[0]),
                                     shiftOf(b, l, args[1]));
                                 return narrowTo(b, l, y, element);
                               }));
      return success();
    }

    bool mean = kind == ReduceKind::Mean;
    Type acc = (kind == ReduceKind::Sum || kind == ReduceKind::Prod || mean)
                   ? getAccumulatorType(element)
                   : element;
    Value reduced = pass(acc, identityOf(kind, acc), {},
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Value x = toSignless(b, l, args[0]);
                           if (flt)
                             x = extendTo(b, l, x, acc);
                           Value y = combineReduction(b, l, kind, x,
                                                      toSignless(b, l, args[1]),
                                                      isUnsigned);
                           return fromSignless(b, l, y, acc);
                         });
    if (!mean && acc == element) {
      rw.replaceOp(op, reduced);
      return success();
    }
    Value count = arith::ConstantIndexOp::create(rw, loc, 1);
    for (Value w : op.getWindow())
      count = arith::MulIOp::create(rw, loc, count, w);
    rw.replaceOp(op, mapOver(rw, loc, reduced, resultType, reduced,
                             AffineMap::getMultiDimIdentityMap(rank, ctx),
                             [&](OpBuilder &b, Location l, ValueRange args) {
                               return finishReduction(b, l, args[0],
                                                      mean ? count : Value(),
                                                      acc, element, isUnsigned);
                             }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// arg_max, arg_min
//===----------------------------------------------------------------------===//

/// Whether `x` (at position `i`) replaces the best so far (`best` at
/// `bestIndex`): it is greater (max) or less (min), NaN counting as the
/// best of all values as numpy's argmax and argmin have it, or equal and
/// first (last with `last`) in the axis. The rule does not depend on the
/// order the loop visits the axis in.
Value replacesBest(OpBuilder &b, Location loc, ReduceKind kind, Value x,
                   Value i, Value best, Value bestIndex, bool isUnsigned,
                   bool last) {
  Value better, equal;
  bool max = kind == ReduceKind::Max;
  if (isa<FloatType>(x.getType())) {
    using P = arith::CmpFPredicate;
    Value xNan = arith::CmpFOp::create(b, loc, P::UNO, x, x);
    Value bestNan = arith::CmpFOp::create(b, loc, P::UNO, best, best);
    Value bestNumber = arith::CmpFOp::create(b, loc, P::ORD, best, best);
    better = arith::OrIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, max ? P::OGT : P::OLT, x, best),
        arith::AndIOp::create(b, loc, xNan, bestNumber));
    equal = arith::OrIOp::create(b, loc,
                                 arith::CmpFOp::create(b, loc, P::OEQ, x, best),
                                 arith::AndIOp::create(b, loc, xNan, bestNan));
  } else {
    using P = arith::CmpIPredicate;
    P predicate =
        max ? (isUnsigned ? P::ugt : P::sgt) : (isUnsigned ? P::ult : P::slt);
    better = arith::CmpIOp::create(b, loc, predicate, x, best);
    equal = arith::CmpIOp::create(b, loc, P::eq, x, best);
  }
  Value inOrder = arith::CmpIOp::create(
      b, loc, last ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, i,
      bestIndex);
  return arith::OrIOp::create(b, loc, better,
                              arith::AndIOp::create(b, loc, equal, inOrder));
}

/// One linalg.generic reducing the axis into two results, the best value
/// (from the identity of max or min) and its i64 position (from 0, which
/// the tie rule keeps right when every value equals the identity).
template <typename OpTy, ReduceKind kind>
struct ArgReducePattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = inputType.getRank();
    auto axis = static_cast<int64_t>(op.getAxis());
    Type element = inputType.getElementType();
    bool isUnsigned = element.isUnsignedInteger();
    bool last = op.getSelectLastIndex();
    MLIRContext *context = rewriter.getContext();

    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> keptSizes;
    SmallVector<int64_t> keptShape;
    SmallVector<IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      iterators.push_back(d == axis ? IteratorType::reduction
                                    : IteratorType::parallel);
      if (d != axis) {
        keptSizes.push_back(sizes[d]);
        keptShape.push_back(inputType.getDimSize(d));
      }
    }
    Type i64 = rewriter.getI64Type();
    Value identity =
        fromSignless(rewriter, loc,
                     reductionIdentity(rewriter, loc, kind,
                                       getSignlessType(element), isUnsigned),
                     element);
    Value bestInit =
        createFilled(rewriter, loc, RankedTensorType::get(keptShape, element),
                     keptSizes, identity);
    Value indexInit =
        createFilled(rewriter, loc, RankedTensorType::get(keptShape, i64),
                     keptSizes, scalarConstant(rewriter, loc, i64, 0));
    AffineMap reducedMap = getReducedMap(context, rank, axis);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{bestInit.getType(), indexInit.getType()},
        ValueRange{input}, ValueRange{bestInit, indexInit},
        {AffineMap::getMultiDimIdentityMap(rank, context), reducedMap,
         reducedMap},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = toSignless(b, l, args[0]);
          Value best = toSignless(b, l, args[1]);
          Value i = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value replace =
              replacesBest(b, l, kind, x, i, best, args[2], isUnsigned, last);
          linalg::YieldOp::create(
              b, l,
              ValueRange{
                  arith::SelectOp::create(b, l, replace, args[0], args[1]),
                  arith::SelectOp::create(b, l, replace, i, args[2])});
        });
    // The positions as static as the op's declared result type.
    SmallVector<int64_t> collapsedShape(resultType.getShape());
    if (op.getKeepdim())
      collapsedShape.erase(collapsedShape.begin() + axis);
    auto collapsedType = RankedTensorType::get(collapsedShape, i64);
    Value result = generic.getResult(1);
    if (result.getType() != collapsedType)
      result = tensor::CastOp::create(rewriter, loc, collapsedType, result);
    if (op.getKeepdim()) {
      SmallVector<bool> isUnit(rank, false);
      isUnit[axis] = true;
      result = insertUnitDims(rewriter, loc, result, resultType, isUnit);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

template <typename OpTy, bool log>
struct SoftmaxPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildSoftmax(rewriter, op.getLoc(), op.getInput(),
                                        static_cast<int64_t>(op.getAxis()),
                                        op.getType().getElementType(), log));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// layer_norm, rms_norm
//===----------------------------------------------------------------------===//

/// The map from a loop nest over `rank` dims to the normalized dims
/// [axis, rank), for scale and bias.
AffineMap getTrailingMap(MLIRContext *context, int64_t rank, int64_t axis) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = axis; d < rank; ++d)
    exprs.push_back(getAffineDimExpr(d, context));
  return AffineMap::get(rank, 0, exprs, context);
}

/// A parallel generic over a statistics tensor (one element per row).
Value mapStats(OpBuilder &b, Location loc, ValueRange stats,
               function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto type = cast<RankedTensorType>(stats.front().getType());
  SmallVector<AffineMap> maps(
      stats.size(),
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext()));
  return mapOver(b, loc, stats.front(), type, stats, maps, body);
}

/// Row statistics and the normalize step shared by layer_norm and rms_norm:
/// `y = (x - mean) * rstd * scale + bias`, where rms_norm has no mean.
Value buildNorm(OpBuilder &b, Location loc, Value input, Value scale,
                Value bias, int64_t axis, double epsilon, bool centered,
                RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  Type acc = getAccumulatorType(element);
  MLIRContext *context = b.getContext();
  auto dims = llvm::to_vector(llvm::seq<int64_t>(axis, rank));
  Value zero = scalarConstant(b, loc, acc, 0);
  Value n = countAsFloat(b, loc, input, dims, acc);
  // ONNX stores epsilon as a float attribute; keep its f32 value.
  Value eps = scalarConstant(b, loc, acc, static_cast<float>(epsilon));
  // The row sums in any order: LLVM vectorizes a reduction only when it may
  // reassociate it (in order it adds one element at a time).
  auto reassoc = arith::FastMathFlags::reassoc;

  Value mean;
  if (centered) {
    Value sum = reduceDims(b, loc, input, dims, {}, acc, zero,
                           [&](OpBuilder &nb, Location l, ValueRange args) {
                             Value x = extendTo(nb, l, args[0], acc);
                             return arith::AddFOp::create(nb, l, args[1], x,
                                                          reassoc);
                           });
    mean =
        mapStats(b, loc, sum, [&](OpBuilder &nb, Location l, ValueRange args) {
          return arith::DivFOp::create(nb, l, args[0], n);
        });
  }
  // Two passes (mean, then squared deviations) rather than E[x²] - E[x]²,
  // which cancels catastrophically for rows with a large mean.
  Value squares =
      reduceDims(b, loc, input, dims, mean ? ValueRange{mean} : ValueRange{},
                 acc, zero, [&](OpBuilder &nb, Location l, ValueRange args) {
                   Value x = extendTo(nb, l, args[0], acc);
                   if (centered)
                     x = arith::SubFOp::create(nb, l, x, args[1]);
                   Value square = arith::MulFOp::create(nb, l, x, x);
                   return arith::AddFOp::create(nb, l, args.back(), square,
                                                reassoc);
                 });
  Value rstd = mapStats(
      b, loc, squares, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value variance = arith::DivFOp::create(nb, l, args[0], n);
        Value shifted = arith::AddFOp::create(nb, l, variance, eps);
        Value one = scalarConstant(nb, l, acc, 1.0);
        return arith::DivFOp::create(nb, l, one,
                                     math::SqrtOp::create(nb, l, shifted));
      });

  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  AffineMap rowMap = getReducedMap(context, rank, dims);
  AffineMap trailing = getTrailingMap(context, rank, axis);
  SmallVector<Value> inputs = {input, rstd};
  SmallVector<AffineMap> maps = {identity, rowMap};
  if (mean) {
    inputs.push_back(mean);
    maps.push_back(rowMap);
  }
  if (scale) {
    inputs.push_back(scale);
    maps.push_back(trailing);
  }
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(trailing);
  }
  return mapOver(b, loc, input, resultType, inputs, maps,
                 [&](OpBuilder &nb, Location l, ValueRange args) {
                   unsigned next = 2;
                   Value y = extendTo(nb, l, args[0], acc);
                   if (mean)
                     y = arith::SubFOp::create(nb, l, y, args[next++]);
                   y = arith::MulFOp::create(nb, l, y, args[1]);
                   if (scale)
                     y = arith::MulFOp::create(
                         nb, l, y, extendTo(nb, l, args[next++], acc));
                   if (bias)
                     y = arith::AddFOp::create(
                         nb, l, y, extendTo(nb, l, args[next++], acc));
                   return narrowTo(nb, l, y, resultType.getElementType());
                 });
}

struct LayerNormPattern : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildNorm(rewriter, op.getLoc(), op.getInput(),
                                     op.getScale(), op.getBias(),
                                     static_cast<int64_t>(op.getAxis()),
                                     op.getEpsilon().convertToDouble(),
                                     /*centered=*/true, op.getType()));
    return success();
  }
};

struct RmsNormPattern : OpRewritePattern<RmsNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RmsNormOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildNorm(rewriter, op.getLoc(), op.getInput(),
                                     op.getScale(), Value(),
                                     static_cast<int64_t>(op.getAxis()),
                                     op.getEpsilon().convertToDouble(),
                                     /*centered=*/false, op.getType()));
    return success();
  }
};

} // namespace

Value tolinalg::buildSoftmax(OpBuilder &b, Location loc, Value input,
                             int64_t axis, Type resultElement, bool log) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  Type acc = getAccumulatorType(type.getElementType());
  MLIRContext *context = b.getContext();
  Value max =
      reduceDims(b, loc, input, axis, {}, acc, floatInfinity(b, loc, acc, true),
                 [&](OpBuilder &nb, Location l, ValueRange args) {
                   return arith::MaximumFOp::create(
                       nb, l, args[1], extendTo(nb, l, args[0], acc));
                 });
  Value sum =
      reduceDims(b, loc, input, axis, max, acc, scalarConstant(b, loc, acc, 0),
                 [&](OpBuilder &nb, Location l, ValueRange args) {
                   Value shifted = arith::SubFOp::create(
                       nb, l, extendTo(nb, l, args[0], acc), args[1]);
                   return arith::AddFOp::create(
                       nb, l, args[2], math::ExpOp::create(nb, l, shifted),
                       arith::FastMathFlags::reassoc);
                 });
  AffineMap rowMap = getReducedMap(context, rank, axis);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, context), rowMap, rowMap};
  return mapOver(
      b, loc, input, type.clone(resultElement), {input, max, sum}, maps,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value shifted = arith::SubFOp::create(
            nb, l, extendTo(nb, l, args[0], acc), args[1]);
        Value y =
            log ? Value(arith::SubFOp::create(
                      nb, l, shifted, math::LogOp::create(nb, l, args[2])))
                : Value(arith::DivFOp::create(
                      nb, l, math::ExpOp::create(nb, l, shifted), args[2]));
        return narrowTo(nb, l, y, resultElement);
      });
}

void mlir::tsc::populateTscReductionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<ReducePattern<ReduceSumOp, ReduceKind::Sum>,
           ReducePattern<ReduceMeanOp, ReduceKind::Mean>,
           ReducePattern<ReduceMaxOp, ReduceKind::Max>,
           ReducePattern<ReduceMinOp, ReduceKind::Min>,
           ReducePattern<ReduceProdOp, ReduceKind::Prod>, ReduceWindowPattern,
           ArgReducePattern<ArgMaxOp, ReduceKind::Max>,
           ArgReducePattern<ArgMinOp, ReduceKind::Min>,
           SoftmaxPattern<SoftmaxOp, false>, SoftmaxPattern<LogSoftmaxOp, true>,
           LayerNormPattern, RmsNormPattern>(patterns.getContext());
}
