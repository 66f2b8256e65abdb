//===- Contraction.cpp - tsc matmul, linear and attention to linalg -------===//
//
// Contractions are linalg.generic ops with the contracted dim as a
// reduction iterator, accumulating into a zero-filled (or bias-filled)
// tensor; broadcast batch dims and grouped-query heads are expressed in the
// indexing maps, so no operand is materialized at a larger shape.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

namespace {

using utils::IteratorType;

/// Loop iterators: `parallel` parallel loops then one reduction.
SmallVector<IteratorType> parallelThenReduction(int64_t parallel) {
  SmallVector<IteratorType> iterators(parallel, IteratorType::parallel);
  iterators.push_back(IteratorType::reduction);
  return iterators;
}

/// `v` (an operand element) in the accumulator type `acc`: floats extend,
/// integers extend by the signedness of their tensor's element type `from`.
Value toAccumulator(OpBuilder &b, Location loc, Value v, Type from, Type acc) {
  return convertScalar(b, loc, toSignless(b, loc, v), from,
                       getSignlessType(acc));
}

/// acc + x * y on float or signless integer scalars. Float sums may be
/// reassociated and contracted to FMAs: that is what lets LLVM vectorize a
/// reduction loop, and every fp32 GEMM library sums in its own order too.
Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y, Value acc) {
  if (isa<FloatType>(acc.getType())) {
    auto flags = arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, y, flags),
                                 flags);
  }
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, x, y));
}

/// The size of a result dim that reads operand dims `candidates` (operand,
/// dim) under numpy broadcasting: the first that is not a static 1, or 1.
OpFoldResult broadcastSize(OpBuilder &b, Location loc,
                           ArrayRef<std::pair<Value, int64_t>> candidates) {
  for (auto [operand, dim] : candidates) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (type.getDimSize(dim) != 1)
      return tensor::getMixedSize(b, loc, operand, dim);
  }
  return b.getIndexAttr(1);
}

/// The accumulator of a contraction producing `resultType`, converted to the
/// result's element type once the contraction is done.
Type contractionAccumulator(RankedTensorType resultType) {
  Type element = resultType.getElementType();
  return isa<FloatType>(element) ? getAccumulatorType(element)
                                 : getSignlessType(element);
}

/// Converts an accumulated tensor to `resultType` when they differ.
Value finishContraction(OpBuilder &b, Location loc, Value acc,
                        RankedTensorType resultType) {
  Type element = resultType.getElementType();
  auto accType = cast<RankedTensorType>(acc.getType());
  if (accType.getElementType() == element)
    return acc;
  if (isa<FloatType>(element))
    return convertElements(b, loc, acc, element);
  // Same width, other signedness: only the view changes.
  return *buildElementwise(b, loc, resultType, acc,
                           [&](OpBuilder &nb, Location l, ValueRange args) {
                             return fromSignless(nb, l, args[0], element);
                           });
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

struct MatmulPattern : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildMatmul(rewriter, op.getLoc(), op.getLhs(),
                                       op.getRhs(), op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

struct LinearPattern : OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value input = op.getInput(), weight = op.getWeight(), bias = op.getBias();
    RankedTensorType resultType = op.getType();
    int64_t outer = op.getInput().getType().getRank() - 1;
    Type element = resultType.getElementType();
    Type acc = contractionAccumulator(resultType);
    auto accType = resultType.clone(acc);
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, input);
    sizes.back() = tensor::getMixedSize(rewriter, loc, weight, 0);

    // Loops (outer..., n, k).
    int64_t loops = outer + 2;
    AffineExpr n = getAffineDimExpr(outer, context);
    AffineExpr k = getAffineDimExpr(outer + 1, context);
    SmallVector<AffineExpr> inputExprs, outExprs;
    for (int64_t d = 0; d < outer; ++d) {
      inputExprs.push_back(getAffineDimExpr(d, context));
      outExprs.push_back(getAffineDimExpr(d, context));
    }
    inputExprs.push_back(k);
    outExprs.push_back(n);
    AffineMap outMap = AffineMap::get(loops, 0, outExprs, context);

    // The bias starts the accumulation, as a Gemm with C does.
    Value init;
    if (bias) {
      Value empty = createEmptyOfSizes(rewriter, loc, accType, sizes);
      AffineMap rank = AffineMap::getMultiDimIdentityMap(outer + 1, context);
      SmallVector<IteratorType> parallel(outer + 1, IteratorType::parallel);
      init = buildGeneric(
          rewriter, loc, bias,
          AffineMap::get(outer + 1, 0, getAffineDimExpr(outer, context)), empty,
          rank, parallel, [&](OpBuilder &b, Location l, ValueRange args) {
            return convertScalar(b, l, args[0], element, acc);
          });
    } else {
      init = createFilled(rewriter, loc, accType, sizes,
                          scalarConstant(rewriter, loc, acc, 0));
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(loops, 0, inputExprs, context),
        AffineMap::get(loops, 0, {n, k}, context)};
    Value result =
        buildGeneric(rewriter, loc, {input, weight}, maps, init, outMap,
                     parallelThenReduction(outer + 1),
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       return multiplyAdd(
                           b, l, toAccumulator(b, l, args[0], element, acc),
                           toAccumulator(b, l, args[1], element, acc), args[2]);
                     });
    rewriter.replaceOp(op,
                       finishContraction(rewriter, loc, result, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

/// `kv` ([B, Hkv, S, D]) with each head repeated to `heads` heads (`heads`
/// a run-time multiple of Hkv): head h reads head h / (heads / Hkv). Only
/// for head counts unknown at compile time, where no affine map can say it.
Value repeatHeads(OpBuilder &b, Location loc, Value kv, OpFoldResult heads,
                  int64_t staticHeads) {
  auto type = cast<RankedTensorType>(kv.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[1] = staticHeads;
  auto resultType = type.clone(shape);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, kv);
  Value kvHeads = getValueOrCreateConstantIndexOp(b, loc, sizes[1]);
  sizes[1] = heads;
  Value group = arith::DivUIOp::create(
      b, loc, getValueOrCreateConstantIndexOp(b, loc, heads), kvHeads);
  Value init = createEmptyOfSizes(b, loc, resultType, sizes);
  SmallVector<IteratorType> parallel(4, IteratorType::parallel);
  return buildGeneric(b, loc, {}, {}, init,
                      AffineMap::getMultiDimIdentityMap(4, b.getContext()),
                      parallel, [&](OpBuilder &nb, Location l, ValueRange) {
                        SmallVector<Value> indices;
                        for (int64_t d = 0; d < 4; ++d)
                          indices.push_back(linalg::IndexOp::create(nb, l, d));
                        indices[1] =
                            arith::DivUIOp::create(nb, l, indices[1], group);
                        return tensor::ExtractOp::create(nb, l, kv, indices);
                      });
}

/// The more static of two sizes of the same dim.
int64_t refine(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) ? b : a;
}

struct AttentionPattern : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value query = op.getQuery(), key = op.getKey(), value = op.getValue();
    auto qType = cast<RankedTensorType>(query.getType());
    auto kType = cast<RankedTensorType>(key.getType());
    RankedTensorType resultType = op.getType();
    Type f = getAccumulatorType(resultType.getElementType());
    Type element = qType.getElementType();

    // Which K/V head query head h reads: h / (H / Hkv).
    int64_t heads = refine(qType.getDimSize(1), resultType.getDimSize(1));
    int64_t kvHeads =
        refine(kType.getDimSize(1), op.getValue().getType().getDimSize(1));
    AffineExpr h = getAffineDimExpr(1, context);
    AffineExpr kvHead;
    if (kvHeads == 1 && heads != 1)
      kvHead = getAffineConstantExpr(0, context);
    else if (!ShapedType::isDynamic(heads) && !ShapedType::isDynamic(kvHeads))
      kvHead = h.floorDiv(heads / kvHeads);
    if (!kvHead) {
      OpFoldResult qHeads = tensor::getMixedSize(rewriter, loc, query, 1);
      key = repeatHeads(rewriter, loc, key, qHeads, heads);
      value = repeatHeads(rewriter, loc, value, qHeads, heads);
      kvHead = h;
    }

    // scores[b, h, i, j] = sum_d Q[b, h, i, d] K[b, h', j, d], in f32.
    SmallVector<int64_t> scoresShape = {
        refine(qType.getDimSize(0), resultType.getDimSize(0)), heads,
        refine(qType.getDimSize(2), resultType.getDimSize(2)),
        kType.getDimSize(2)};
    auto scoresType = RankedTensorType::get(scoresShape, f);
    SmallVector<OpFoldResult> scoresSizes = {
        tensor::getMixedSize(rewriter, loc, query, 0),
        tensor::getMixedSize(rewriter, loc, query, 1),
        tensor::getMixedSize(rewriter, loc, query, 2),
        tensor::getMixedSize(rewriter, loc, key, 2)};
    Value zero = scalarConstant(rewriter, loc, f, 0);
    AffineExpr d0 = getAffineDimExpr(0, context),
               d2 = getAffineDimExpr(2, context),
               d3 = getAffineDimExpr(3, context),
               d4 = getAffineDimExpr(4, context);
    auto map5 = [&](ArrayRef<AffineExpr> exprs) {
      return AffineMap::get(5, 0, exprs, context);
    };
    Value scores = buildGeneric(
        rewriter, loc, {query, key},
        {map5({d0, h, d2, d4}), map5({d0, kvHead, d3, d4})},
        createFilled(rewriter, loc, scoresType, scoresSizes, zero),
        map5({d0, h, d2, d3}), parallelThenReduction(4),
        [&](OpBuilder &b, Location l, ValueRange args) {
          return multiplyAdd(b, l, toAccumulator(b, l, args[0], element, f),
                             toAccumulator(b, l, args[1], element, f), args[2]);
        });

    // Scale, mask and the causal triangle, then softmax over keys.
    Value scale;
    if (std::optional<APFloat> attr = op.getScale()) {
      scale = scalarConstant(rewriter, loc, f,
                             static_cast<float>(attr->convertToDouble()));
    } else if (!qType.isDynamicDim(3)) {
      scale = scalarConstant(
          rewriter, loc, f,
          1.0f / std::sqrt(static_cast<float>(qType.getDimSize(3))));
    } else {
      Value d = tensor::DimOp::create(rewriter, loc, query, 3);
      Value wide =
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), d);
      Value root = math::SqrtOp::create(
          rewriter, loc, arith::SIToFPOp::create(rewriter, loc, f, wide));
      scale = arith::DivFOp::create(
          rewriter, loc, scalarConstant(rewriter, loc, f, 1.0), root);
    }
    Value mask = op.getMask();
    Value causalOffset;
    if (op.getCausal()) {
      // Aligned at the end: query i sees keys j <= i + (Skv - Sq).
      Value skv =
          getValueOrCreateConstantIndexOp(rewriter, loc, scoresSizes[3]);
      Value sq = getValueOrCreateConstantIndexOp(rewriter, loc, scoresSizes[2]);
      causalOffset = arith::SubIOp::create(rewriter, loc, skv, sq);
    }
    AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, context);
    SmallVector<Value> inputs = {scores};
    SmallVector<AffineMap> maps = {id4};
    if (mask) {
      inputs.push_back(mask);
      maps.push_back(getBroadcastMap(
          context, cast<RankedTensorType>(mask.getType()), scoresType));
    }
    Value negInf = arith::ConstantOp::create(
        rewriter, loc,
        rewriter.getFloatAttr(
            f, APFloat::getInf(cast<FloatType>(f).getFloatSemantics(),
                               /*Negative=*/true)));
    Value masked = buildGeneric(
        rewriter, loc, inputs, maps,
        createEmptyOfSizes(rewriter, loc, scoresType, scoresSizes), id4,
        SmallVector<IteratorType>(4, IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value s = arith::MulFOp::create(b, l, args[0], scale);
          if (mask && args[1].getType().isInteger(1))
            s = arith::SelectOp::create(b, l, args[1], s, negInf);
          else if (mask)
            s = arith::AddFOp::create(
                b, l, s, convertScalar(b, l, args[1], args[1].getType(), f));
          if (causalOffset) {
            Value i = linalg::IndexOp::create(b, l, 2);
            Value j = linalg::IndexOp::create(b, l, 3);
            Value last = arith::AddIOp::create(b, l, i, causalOffset);
            Value future =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, j, last);
            s = arith::SelectOp::create(b, l, future, negInf, s);
          }
          return s;
        });
    Value probs = buildSoftmax(rewriter, loc, masked, 3, f, /*log=*/false);

    // out[b, h, i, e] = sum_j P[b, h, i, j] V[b, h', j, e], with the key
    // loop (d3) outside the head-dim loop (d4): the inner loop then runs
    // along rows of V and of the output, and vectorizes without a reduction.
    auto accType = resultType.clone(f);
    SmallVector<OpFoldResult> outSizes = {
        scoresSizes[0], scoresSizes[1], scoresSizes[2],
        tensor::getMixedSize(rewriter, loc, value, 3)};
    SmallVector<IteratorType> keysThenHeadDim(5, IteratorType::parallel);
    keysThenHeadDim[3] = IteratorType::reduction;
    Value out = buildGeneric(
        rewriter, loc, {probs, value},
        {map5({d0, h, d2, d3}), map5({d0, kvHead, d3, d4})},
        createFilled(rewriter, loc, accType, outSizes, zero),
        map5({d0, h, d2, d4}), keysThenHeadDim,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return multiplyAdd(b, l, args[0],
                             toAccumulator(b, l, args[1], element, f), args[2]);
        });
    rewriter.replaceOp(op, finishContraction(rewriter, loc, out, resultType));
    return success();
  }
};

} // namespace

Value tolinalg::buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                            RankedTensorType resultType) {
  MLIRContext *context = b.getContext();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t lhsRank = lhsType.getRank(), rhsRank = rhsType.getRank();
  bool hasM = lhsRank >= 2, hasN = rhsRank >= 2;
  int64_t rank = resultType.getRank();
  int64_t batch = rank - hasM - hasN;
  // Loops (batch..., [m], [n], k).
  int64_t loops = rank + 1;
  AffineExpr k = getAffineDimExpr(rank, context);
  SmallVector<OpFoldResult> sizes;

  // Right-aligned batch dims, broadcast where an operand has a static 1.
  auto batchExprs = [&](RankedTensorType type, int64_t operandBatch) {
    SmallVector<AffineExpr> exprs;
    for (int64_t j = 0; j < operandBatch; ++j) {
      int64_t d = batch - operandBatch + j;
      bool broadcast = type.getDimSize(j) == 1 && resultType.getDimSize(d) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, context)
                                : getAffineDimExpr(d, context));
    }
    return exprs;
  };
  int64_t lhsBatch = hasM ? lhsRank - 2 : 0, rhsBatch = hasN ? rhsRank - 2 : 0;
  for (int64_t d = 0; d < batch; ++d) {
    SmallVector<std::pair<Value, int64_t>> candidates;
    if (int64_t j = d - (batch - lhsBatch); j >= 0)
      candidates.push_back({lhs, j});
    if (int64_t j = d - (batch - rhsBatch); j >= 0)
      candidates.push_back({rhs, j});
    sizes.push_back(broadcastSize(b, loc, candidates));
  }
  SmallVector<AffineExpr> lhsExprs = batchExprs(lhsType, lhsBatch);
  SmallVector<AffineExpr> rhsExprs = batchExprs(rhsType, rhsBatch);
  if (hasM) {
    lhsExprs.push_back(getAffineDimExpr(batch, context));
    sizes.push_back(tensor::getMixedSize(b, loc, lhs, lhsRank - 2));
  }
  lhsExprs.push_back(k);
  rhsExprs.push_back(k);
  if (hasN) {
    rhsExprs.push_back(getAffineDimExpr(batch + hasM, context));
    sizes.push_back(tensor::getMixedSize(b, loc, rhs, rhsRank - 1));
  }

  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, context));
  Type acc = contractionAccumulator(resultType);
  Type lhsElement = lhsType.getElementType();
  Type rhsElement = rhsType.getElementType();
  Value init = createFilled(b, loc, resultType.clone(acc), sizes,
                            scalarConstant(b, loc, acc, 0));
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, lhsExprs, context),
                                 AffineMap::get(loops, 0, rhsExprs, context)};
  Value result = buildGeneric(
      b, loc, {lhs, rhs}, maps, init,
      AffineMap::get(loops, 0, outExprs, context), parallelThenReduction(rank),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        return multiplyAdd(
            nb, l, toAccumulator(nb, l, args[0], lhsElement, acc),
            toAccumulator(nb, l, args[1], rhsElement, acc), args[2]);
      });
  return finishContraction(b, loc, result, resultType);
}

void mlir::tsc::populateTscContractionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MatmulPattern, LinearPattern, AttentionPattern>(
      patterns.getContext());
}
