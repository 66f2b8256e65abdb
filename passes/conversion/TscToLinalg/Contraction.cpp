//===- Contraction.cpp - tsc matmul and linear to linalg -----------------===//
//
// Contractions are linalg.generic ops with the contracted dim as a
// reduction iterator, accumulating into a zero-filled (or bias-filled)
// tensor; broadcast batch dims are expressed in the indexing maps, so no
// operand is materialized at a larger shape.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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

/// act(acc) (+ residual) element by element, in the accumulator's type:
/// the epilogue of a linear whose activation sits between its bias and its
/// residual.
Value applyActivation(OpBuilder &b, Location loc, Value acc,
                      GemmActivation activation, Value residual) {
  auto accType = cast<RankedTensorType>(acc.getType());
  Type accElement = accType.getElementType();
  bool tanh = activation == GemmActivation::gelu_tanh;
  SmallVector<Value> operands = {acc};
  Type residualElement;
  if (residual) {
    operands.push_back(residual);
    residualElement =
        cast<RankedTensorType>(residual.getType()).getElementType();
  }
  // Same shapes throughout: nothing broadcasts, so this cannot fail.
  return *buildElementwise(
      b, loc, accType, operands,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value y = buildGelu(nb, l, args[0], tanh);
        if (residual)
          y = arith::AddFOp::create(
              nb, l, y,
              convertScalar(nb, l, args[1], residualElement, accElement));
        return y;
      });
}

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
    sizes.back() = tensor::getMixedSize(rewriter, loc, weight,
                                        op.getOutputFeaturesDim());

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

    // The residual and the bias start the accumulation, as a GEMM with C
    // seeded from them and beta = 1 does. With an activation, which comes
    // between them, the bias alone does, and the residual is added after it.
    Value init;
    GemmActivation activation = op.getActivation();
    Value residual = op.getResidual();
    Value lateResidual;
    if (activation != GemmActivation::none)
      std::swap(residual, lateResidual);
    if (bias || residual) {
      Value empty = createEmptyOfSizes(rewriter, loc, accType, sizes);
      AffineMap rank = AffineMap::getMultiDimIdentityMap(outer + 1, context);
      SmallVector<IteratorType> parallel(outer + 1, IteratorType::parallel);
      SmallVector<Value> seeds;
      SmallVector<AffineMap> seedMaps;
      if (residual) {
        seeds.push_back(residual);
        seedMaps.push_back(rank);
      }
      if (bias) {
        seeds.push_back(bias);
        seedMaps.push_back(
            AffineMap::get(outer + 1, 0, getAffineDimExpr(outer, context)));
      }
      init = buildGeneric(
          rewriter, loc, seeds, seedMaps, empty, rank, parallel,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value sum = convertScalar(b, l, args[0], element, acc);
            if (seeds.size() == 2)
              sum = arith::AddFOp::create(
                  b, l, sum, convertScalar(b, l, args[1], element, acc));
            return sum;
          });
    } else {
      init = createFilled(rewriter, loc, accType, sizes,
                          scalarConstant(rewriter, loc, acc, 0));
    }
    SmallVector<AffineExpr> weightExprs = {n, k};
    if (op.getWeightKn())
      std::swap(weightExprs[0], weightExprs[1]);
    SmallVector<AffineMap> maps = {
        AffineMap::get(loops, 0, inputExprs, context),
        AffineMap::get(loops, 0, weightExprs, context)};
    Value result =
        buildGeneric(rewriter, loc, {input, weight}, maps, init, outMap,
                     parallelThenReduction(outer + 1),
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       return multiplyAdd(
                           b, l, toAccumulator(b, l, args[0], element, acc),
                           toAccumulator(b, l, args[1], element, acc), args[2]);
                     });
    if (activation != GemmActivation::none)
      result = applyActivation(rewriter, loc, result, activation, lateResidual);
    rewriter.replaceOp(op,
                       finishContraction(rewriter, loc, result, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

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
  patterns.add<MatmulPattern, LinearPattern>(patterns.getContext());
}
