//===- Indexing.cpp - tsc gathers, scatters, padding and tiling to linalg
//---===//
//
// Gathers, pad and reverse_sequence compute a source address per result
// element: a parallel linalg.generic reading `linalg.index` and extracting
// from the input, every index kept inside the input.
//
// Scatters write a copy of their data (a linalg.copy into the result's
// tensor.empty, so that bufferization builds it in the result's buffer) and
// then update it in place. Updates that may land on one element must be
// applied in order for a deterministic result; they can only collide within
// one "column" of the result: the dims the indices address (the axis of
// scatter_elements and tensor_scatter, the first k dims of scatter_nd), at
// fixed positions of the other ("lane") dims. So the updates run as an
// scf.forall over the lanes, each taking its column of the result as a
// slice, applying its updates in order in an scf.for nest, and inserting the
// column back: parallel on the host and on the GPU's threads, and in place
// (the slice of the forall's shared output bufferizes to a view of it).
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

namespace {

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

/// An index element read from an integer tensor, as an `index`; unsigned
/// types convert as unsigned.
Value toIndex(OpBuilder &b, Location loc, Value element) {
  Value raw = toSignless(b, loc, element);
  if (raw.getType().isIndex())
    return raw;
  if (element.getType().isUnsignedInteger())
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), raw);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
}

/// `index` counted from the end of a dim of `extent` elements when negative.
Value wrapNegative(OpBuilder &b, Location loc, Value index, Value extent) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, zero);
  return arith::SelectOp::create(
      b, loc, negative, arith::AddIOp::create(b, loc, index, extent), index);
}

/// `index` clamped to [0, extent - 1].
Value clampIndex(OpBuilder &b, Location loc, Value index, Value extent) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, extent, one);
  return arith::MaxSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, index, last), zero);
}

/// A gather's index element as a position within a dim of `extent`:
/// negative counts from the end, what is still outside is clamped.
Value gatherIndex(OpBuilder &b, Location loc, Value element, Value extent) {
  return clampIndex(
      b, loc, wrapNegative(b, loc, toIndex(b, loc, element), extent), extent);
}

/// Whether 0 <= index < extent.
Value isInside(OpBuilder &b, Location loc, Value index, Value extent) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value low =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero);
  Value high =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, extent);
  return arith::AndIOp::create(b, loc, low, high);
}

/// `a mod n` in [0, n) for n > 0, whatever the sign of `a`.
Value positiveMod(OpBuilder &b, Location loc, Value a, Value n) {
  Value rem = arith::RemSIOp::create(b, loc, a, n);
  return arith::RemSIOp::create(b, loc, arith::AddIOp::create(b, loc, rem, n),
                                n);
}

/// Sizes of `tensor` as index values.
SmallVector<Value> dimValues(OpBuilder &b, Location loc, Value tensor) {
  return getValueOrCreateConstantIndexOp(b, loc,
                                         tensor::getMixedSizes(b, loc, tensor));
}

/// The loop indices [from, to) of the enclosing linalg.generic.
SmallVector<Value> loopIndices(OpBuilder &b, Location loc, int64_t from,
                               int64_t to) {
  SmallVector<Value> indices;
  for (int64_t d = from; d < to; ++d)
    indices.push_back(linalg::IndexOp::create(b, loc, d));
  return indices;
}

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

struct GatherElementsPattern : OpRewritePattern<GatherElementsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherElementsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = op.getData(), indices = op.getIndices();
    auto axis = static_cast<int64_t>(op.getAxis());
    int64_t rank = op.getType().getRank();
    Value extent = tensor::DimOp::create(rewriter, loc, data, axis);
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())};
    Value result = buildIndexed(
        rewriter, loc, op.getType(),
        tensor::getMixedSizes(rewriter, loc, indices), indices, maps,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          SmallVector<Value> at = loopIndices(b, l, 0, rank);
          at[axis] = gatherIndex(b, l, args[0], extent);
          return tensor::ExtractOp::create(b, l, data, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GatherNdPattern : OpRewritePattern<GatherNdOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherNdOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = op.getData(), indices = op.getIndices();
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto batch = static_cast<int64_t>(op.getBatchDims());
    int64_t q = indicesType.getRank();
    int64_t k = indicesType.getShape().back();
    int64_t rank = op.getType().getRank();
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, indices);
    sizes.pop_back();
    SmallVector<OpFoldResult> dataSizes =
        tensor::getMixedSizes(rewriter, loc, data);
    sizes.append(dataSizes.begin() + batch + k, dataSizes.end());
    SmallVector<Value> extents = dimValues(rewriter, loc, data);
    Value result = buildIndexed(
        rewriter, loc, op.getType(), sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          // Result dims: the index tuples' dims (the batch dims first),
          // then the rest of the selected slice.
          SmallVector<Value> tuple = loopIndices(b, l, 0, q - 1);
          SmallVector<Value> at(tuple.begin(), tuple.begin() + batch);
          tuple.push_back(Value());
          for (int64_t m = 0; m < k; ++m) {
            tuple.back() = arith::ConstantIndexOp::create(b, l, m);
            Value element = tensor::ExtractOp::create(b, l, indices, tuple);
            at.push_back(gatherIndex(b, l, element, extents[batch + m]));
          }
          llvm::append_range(at, loopIndices(b, l, q - 1, rank));
          return tensor::ExtractOp::create(b, l, data, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scatters
//===----------------------------------------------------------------------===//

/// `old` combined with `update` by `reduction`: arithmetic in the element
/// type (bool adds as or, multiplies as and); max and min propagate NaN.
Value combine(OpBuilder &b, Location loc, ScatterReduction reduction, Value old,
              Value update) {
  if (reduction == ScatterReduction::none)
    return update;
  Type type = old.getType();
  if (isa<FloatType>(type)) {
    switch (reduction) {
    case ScatterReduction::add:
      return arith::AddFOp::create(b, loc, old, update);
    case ScatterReduction::mul:
      return arith::MulFOp::create(b, loc, old, update);
    case ScatterReduction::max:
      return arith::MaximumFOp::create(b, loc, old, update);
    default:
      return arith::MinimumFOp::create(b, loc, old, update);
    }
  }
  Value x = toSignless(b, loc, old), y = toSignless(b, loc, update);
  bool isBool = type.isInteger(1), isUnsigned = type.isUnsignedInteger();
  Value result;
  switch (reduction) {
  case ScatterReduction::add:
    result = isBool ? Value(arith::OrIOp::create(b, loc, x, y))
                    : Value(arith::AddIOp::create(b, loc, x, y));
    break;
  case ScatterReduction::mul:
    result = isBool ? Value(arith::AndIOp::create(b, loc, x, y))
                    : Value(arith::MulIOp::create(b, loc, x, y));
    break;
  case ScatterReduction::max:
    result = isBool || isUnsigned ? Value(arith::MaxUIOp::create(b, loc, x, y))
                                  : Value(arith::MaxSIOp::create(b, loc, x, y));
    break;
  default:
    result = isBool || isUnsigned ? Value(arith::MinUIOp::create(b, loc, x, y))
                                  : Value(arith::MinSIOp::create(b, loc, x, y));
    break;
  }
  return fromSignless(b, loc, result, type);
}

/// Where one update lands in its column (one index per column dim, not yet
/// checked against the column) and the value it brings.
struct ColumnUpdate {
  SmallVector<Value> at;
  Value value;
};

/// Computes update `ivs` (a position in the update loops) of lane `lane`.
using ColumnUpdateFn = function_ref<ColumnUpdate(
    OpBuilder &, Location, ValueRange lane, ValueRange ivs)>;

/// `column` with the updates of one lane applied in order: a loop nest over
/// `loopSizes`; an update outside the column is skipped.
Value applyColumnUpdates(OpBuilder &b, Location loc, Value column,
                         ValueRange lane, ArrayRef<Value> loopSizes,
                         ScatterReduction reduction, ColumnUpdateFn update) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lbs(loopSizes.size(), zero), steps(loopSizes.size(), one);
  SmallVector<Value> extents = dimValues(b, loc, column);
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, loopSizes, steps, ValueRange{column},
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange current) -> scf::ValueVector {
        ColumnUpdate u = update(nb, l, lane, ivs);
        Value inside = arith::ConstantIntOp::create(nb, l, nb.getI1Type(), 1);
        for (auto [index, extent] : llvm::zip_equal(u.at, extents))
          inside = arith::AndIOp::create(nb, l, inside,
                                         isInside(nb, l, index, extent));
        Value col = current.front();
        auto guarded = scf::IfOp::create(
            nb, l, inside,
            [&](OpBuilder &tb, Location tl) {
              Value old = tensor::ExtractOp::create(tb, tl, col, u.at);
              Value value = combine(tb, tl, reduction, old, u.value);
              Value written =
                  tensor::InsertOp::create(tb, tl, value, col, u.at);
              scf::YieldOp::create(tb, tl, written);
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, col);
            });
        return {guarded.getResult(0)};
      });
  return nest.results.front();
}

/// Scatters into `dest`, a fresh copy of the data: for every lane (a
/// position in `laneSizes`, one size per dim of `dest` outside
/// `columnDims`), the column of `dest` at the lane (its `columnDims` whole)
/// gets `update` over `loopSizes` (see applyColumnUpdates). Lanes run in
/// parallel (scf.forall), each on its own column.
Value buildColumnScatter(OpBuilder &b, Location loc, Value dest,
                         ArrayRef<int64_t> columnDims,
                         ArrayRef<OpFoldResult> laneSizes,
                         ArrayRef<Value> loopSizes, ScatterReduction reduction,
                         ColumnUpdateFn update) {
  auto type = cast<RankedTensorType>(dest.getType());
  int64_t rank = type.getRank();
  if (laneSizes.empty())
    return applyColumnUpdates(b, loc, dest, {}, loopSizes, reduction, update);
  auto forall =
      scf::ForallOp::create(b, loc, laneSizes, ValueRange{dest}, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> lane = forall.getInductionVars();
  Value shared = forall.getRegionIterArgs().front();
  SmallVector<OpFoldResult> offsets, sizes, strides(rank, b.getIndexAttr(1));
  SmallVector<int64_t> columnShape;
  for (int64_t d = 0, l = 0; d < rank; ++d) {
    if (llvm::is_contained(columnDims, d)) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(tensor::getMixedSize(b, loc, shared, d));
      columnShape.push_back(type.getDimSize(d));
    } else {
      offsets.push_back(lane[l++]);
      sizes.push_back(b.getIndexAttr(1));
    }
  }
  auto columnType = type.clone(columnShape);
  Value column = tensor::ExtractSliceOp::create(b, loc, columnType, shared,
                                                offsets, sizes, strides);
  Value updated =
      applyColumnUpdates(b, loc, column, lane, loopSizes, reduction, update);
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, updated, shared, offsets, sizes,
                                        strides);
  return forall.getResult(0);
}

/// A copy of `data` in a new tensor (the scatter's result buffer).
Value copyOf(OpBuilder &b, Location loc, Value data) {
  auto type = cast<RankedTensorType>(data.getType());
  Value init =
      createEmptyOfSizes(b, loc, type, tensor::getMixedSizes(b, loc, data));
  return linalg::CopyOp::create(b, loc, data, init).getResult(0);
}

/// The sizes of the dims of `tensor` not in `skip`.
SmallVector<OpFoldResult> sizesWithout(OpBuilder &b, Location loc, Value tensor,
                                       ArrayRef<int64_t> skip) {
  SmallVector<OpFoldResult> sizes;
  for (auto [d, size] : llvm::enumerate(tensor::getMixedSizes(b, loc, tensor)))
    if (!llvm::is_contained(skip, static_cast<int64_t>(d)))
      sizes.push_back(size);
  return sizes;
}

/// `lane` (positions in all dims but `axis`) with `at` inserted at `axis`.
SmallVector<Value> withAxis(ValueRange lane, int64_t axis, Value at) {
  SmallVector<Value> indices(lane);
  indices.insert(indices.begin() + axis, at);
  return indices;
}

struct ScatterElementsPattern : OpRewritePattern<ScatterElementsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterElementsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto axis = static_cast<int64_t>(op.getAxis());
    Value indices = op.getIndices(), updates = op.getUpdates();
    Value dest = copyOf(rewriter, loc, op.getData());
    Value extent = tensor::DimOp::create(rewriter, loc, dest, axis);
    Value count = tensor::DimOp::create(rewriter, loc, updates, axis);
    Value result = buildColumnScatter(
        rewriter, loc, dest, {axis},
        sizesWithout(rewriter, loc, updates, {axis}), {count},
        op.getReduction(),
        [&](OpBuilder &b, Location l, ValueRange lane, ValueRange ivs) {
          SmallVector<Value> at = withAxis(lane, axis, ivs[0]);
          Value index =
              toIndex(b, l, tensor::ExtractOp::create(b, l, indices, at));
          return ColumnUpdate{{wrapNegative(b, l, index, extent)},
                              tensor::ExtractOp::create(b, l, updates, at)};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScatterNdPattern : OpRewritePattern<ScatterNdOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterNdOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value indices = op.getIndices(), updates = op.getUpdates();
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t k = indicesType.getShape().back();
    Value dest = copyOf(rewriter, loc, op.getData());
    SmallVector<Value> extents = dimValues(rewriter, loc, dest);
    SmallVector<Value> tuples = dimValues(rewriter, loc, indices);
    tuples.pop_back();
    SmallVector<int64_t> columnDims = llvm::to_vector(llvm::seq<int64_t>(0, k));
    Value result = buildColumnScatter(
        rewriter, loc, dest, columnDims,
        sizesWithout(rewriter, loc, dest, columnDims), tuples,
        op.getReduction(),
        [&](OpBuilder &b, Location l, ValueRange lane, ValueRange ivs) {
          ColumnUpdate u;
          SmallVector<Value> at(ivs);
          at.push_back(Value());
          for (int64_t m = 0; m < k; ++m) {
            at.back() = arith::ConstantIndexOp::create(b, l, m);
            Value index =
                toIndex(b, l, tensor::ExtractOp::create(b, l, indices, at));
            u.at.push_back(wrapNegative(b, l, index, extents[m]));
          }
          SmallVector<Value> from(ivs);
          llvm::append_range(from, lane);
          u.value = tensor::ExtractOp::create(b, l, updates, from);
          return u;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct TensorScatterPattern : OpRewritePattern<TensorScatterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TensorScatterOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto axis = static_cast<int64_t>(op.getAxis());
    Value update = op.getUpdate(), writeIndices = op.getWriteIndices();
    bool circular = op.getCircular();
    Value dest = copyOf(rewriter, loc, op.getCache());
    Value extent = tensor::DimOp::create(rewriter, loc, dest, axis);
    Value count = tensor::DimOp::create(rewriter, loc, update, axis);
    Value result = buildColumnScatter(
        rewriter, loc, dest, {axis},
        sizesWithout(rewriter, loc, update, {axis}), {count},
        ScatterReduction::none,
        [&](OpBuilder &b, Location l, ValueRange lane, ValueRange ivs) {
          // Lane dim 0 is the batch dim (axis is never 0).
          Value position = ivs[0];
          if (writeIndices) {
            Value start = toIndex(
                b, l, tensor::ExtractOp::create(b, l, writeIndices, lane[0]));
            position = arith::AddIOp::create(b, l, start, position);
          }
          if (circular)
            position = positiveMod(b, l, position, extent);
          return ColumnUpdate{{position},
                              tensor::ExtractOp::create(
                                  b, l, update, withAxis(lane, axis, ivs[0]))};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// pad, reverse_sequence
//===----------------------------------------------------------------------===//

/// Input position `i` (result position minus the low border) of a dim of
/// `n` > 0 elements mapped into [0, n) by `mode` (constant: clamped, the
/// caller selects the pad value outside).
Value padSource(OpBuilder &b, Location loc, PadMode mode, Value i, Value n) {
  switch (mode) {
  case PadMode::constant:
  case PadMode::edge:
    return clampIndex(b, loc, i, n);
  case PadMode::wrap:
    return positiveMod(b, loc, i, n);
  case PadMode::reflect: {
    // Period 2(n - 1); a dim of one element repeats it.
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value nm1 = arith::SubIOp::create(b, loc, n, one);
    Value period = arith::MaxSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, nm1, nm1), one);
    Value m = positiveMod(b, loc, i, period);
    Value mirrored = arith::SubIOp::create(b, loc, period, m);
    Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, m, n);
    return arith::SelectOp::create(b, loc, low, m, mirrored);
  }
  }
  llvm_unreachable("unknown pad mode");
}

struct PadPattern : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    RankedTensorType inType = op.getInput().getType();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    PadMode mode = op.getMode();
    ArrayRef<int64_t> low = op.getLow(), high = op.getHigh();
    int64_t rank = type.getRank();
    SmallVector<Value> extents = dimValues(rewriter, loc, input);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(type.isDynamicDim(d)
                          ? OpFoldResult(arith::AddIOp::create(
                                rewriter, loc, extents[d],
                                arith::ConstantIndexOp::create(
                                    rewriter, loc, low[d] + high[d])))
                          : rewriter.getIndexAttr(type.getDimSize(d)));
    // The fill value: the operand's element, or zero.
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    if (Value value = op.getValue()) {
      inputs.push_back(value);
      maps.push_back(AffineMap::get(rank, 0, {}, rewriter.getContext()));
    }
    // An input with no elements has nothing to read.
    bool mayBeEmpty = llvm::any_of(inType.getShape(), [](int64_t d) {
      return ShapedType::isDynamic(d) || d == 0;
    });
    Value result = buildIndexed(
        rewriter, loc, type, sizes, inputs, maps,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value fill =
              inputs.empty() ? typedConstant(b, l, element, 0) : args.front();
          Value inside = arith::ConstantIntOp::create(b, l, b.getI1Type(), 1);
          Value nonEmpty = inside;
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = arith::SubIOp::create(
                b, l, linalg::IndexOp::create(b, l, d),
                arith::ConstantIndexOp::create(b, l, low[d]));
            if (mode == PadMode::constant)
              inside = arith::AndIOp::create(b, l, inside,
                                             isInside(b, l, i, extents[d]));
            if (mayBeEmpty)
              nonEmpty = arith::AndIOp::create(
                  b, l, nonEmpty,
                  arith::CmpIOp::create(
                      b, l, arith::CmpIPredicate::sgt, extents[d],
                      arith::ConstantIndexOp::create(b, l, 0)));
            at.push_back(padSource(b, l, mode, i, extents[d]));
          }
          if (!mayBeEmpty) {
            Value read = tensor::ExtractOp::create(b, l, input, at);
            return mode == PadMode::constant ? Value(arith::SelectOp::create(
                                                   b, l, inside, read, fill))
                                             : read;
          }
          Value use = arith::AndIOp::create(b, l, inside, nonEmpty);
          auto guarded = scf::IfOp::create(
              b, l, use,
              [&](OpBuilder &tb, Location tl) {
                scf::YieldOp::create(
                    tb, tl,
                    ValueRange{tensor::ExtractOp::create(tb, tl, input, at)});
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, fill);
              });
          return guarded.getResult(0);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ReverseSequencePattern : OpRewritePattern<ReverseSequenceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReverseSequenceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto batch = static_cast<int64_t>(op.getBatchAxis());
    auto time = static_cast<int64_t>(op.getTimeAxis());
    int64_t rank = op.getType().getRank();
    MLIRContext *context = rewriter.getContext();
    Value steps = tensor::DimOp::create(rewriter, loc, input, time);
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, getAffineDimExpr(batch, context))};
    Value result = buildIndexed(
        rewriter, loc, op.getType(),
        tensor::getMixedSizes(rewriter, loc, input), op.getLengths(), maps,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          // Step t of the first `length` reads length - 1 - t.
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value length = arith::MaxSIOp::create(
              b, l, arith::MinSIOp::create(b, l, toIndex(b, l, args[0]), steps),
              zero);
          SmallVector<Value> at = loopIndices(b, l, 0, rank);
          Value t = at[time];
          Value reversed = arith::SubIOp::create(
              b, l, arith::SubIOp::create(b, l, length, one), t);
          Value within =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, t, length);
          at[time] = arith::SelectOp::create(b, l, within, reversed, t);
          return tensor::ExtractOp::create(b, l, input, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tsc::populateTscIndexingToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<GatherElementsPattern, GatherNdPattern, ScatterElementsPattern,
               ScatterNdPattern, TensorScatterPattern, PadPattern,
               ReverseSequencePattern>(patterns.getContext());
}
