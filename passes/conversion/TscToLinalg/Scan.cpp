//===- Scan.cpp - tsc scans and top-k to loops over slices ----------------===//
//
// A cumulative scan and a top-k selection are sequential along their axis,
// so they do not fit a linalg.generic: each becomes an scf.forall over the
// slices along the axis (one per position of the other dims), whose body
// walks its slice with scf.for. The forall is the parallel loop on the host
// (OpenMP) and on the CUDA target (a thread per slice); the axis stays a
// loop inside one thread. Each iteration writes its slice of the result
// (size 1 in every dim but the axis) in place, so the result is written
// once, straight into the buffer the plan gives it.
//
// tsc.cumsum's axis may be known only at run time: the slices are then
// described by selects over the dims (which dim is the axis, its length),
// read inside the loop, and the loop runs over every element, an upper
// bound of the number of slices.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

namespace {

/// The axis a scan or selection runs along: a constant, or an index value
/// read at run time. Choices between the axis and the other dims fold to
/// one side for a constant axis and become selects otherwise.
struct Axis {
  std::optional<int64_t> constant;
  Value value;

  /// `ifAxis` for dim `d` if it is the axis, else `otherwise`.
  OpFoldResult pick(OpBuilder &b, Location loc, int64_t d, OpFoldResult ifAxis,
                    OpFoldResult otherwise) const {
    if (constant)
      return d == *constant ? ifAxis : otherwise;
    Value isAxis =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, value,
                              arith::ConstantIndexOp::create(b, loc, d));
    return arith::SelectOp::create(
               b, loc, isAxis, getValueOrCreateConstantIndexOp(b, loc, ifAxis),
               getValueOrCreateConstantIndexOp(b, loc, otherwise))
        .getResult();
  }
};

/// The slice of `tensor` that iteration `o` of the loop over slices
/// handles: its offsets (0 along the axis) and its length `n` along the
/// axis; `inside` is false for the iterations past the last slice, which
/// a run-time axis makes (their slice is empty).
struct Slice {
  SmallVector<OpFoldResult> offsets;
  OpFoldResult n;
  Value inside;

  /// The slice's sizes with `length` along the axis (1 elsewhere).
  SmallVector<OpFoldResult> sizes(OpBuilder &b, Location loc, const Axis &axis,
                                  OpFoldResult length) const {
    SmallVector<OpFoldResult> result;
    for (int64_t d = 0, e = offsets.size(); d < e; ++d)
      result.push_back(axis.pick(b, loc, d, length, b.getIndexAttr(1)));
    return result;
  }

  /// The indices of element `j` of the slice in the slice (`inSlice`) or
  /// in the whole tensor.
  SmallVector<Value> at(OpBuilder &b, Location loc, const Axis &axis, Value j,
                        bool inSlice) const {
    SmallVector<Value> indices;
    for (int64_t d = 0, e = offsets.size(); d < e; ++d) {
      Value step = getValueOrCreateConstantIndexOp(
          b, loc, axis.pick(b, loc, d, j, b.getIndexAttr(0)));
      indices.push_back(
          inSlice
              ? step
              : arith::AddIOp::create(
                    b, loc, getValueOrCreateConstantIndexOp(b, loc, offsets[d]),
                    step)
                    .getResult());
    }
    return indices;
  }
};

/// The slice of `sizes` handled by iteration `o`: `o` delinearized over the
/// dims other than the axis, innermost last.
Slice locateSlice(OpBuilder &b, Location loc, const Axis &axis,
                  ArrayRef<OpFoldResult> sizes, Value o) {
  int64_t rank = sizes.size();
  Slice slice;
  slice.offsets.resize(rank);
  Value rest = o;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  // With a constant axis, what is left at the outermost other dim is its
  // index (o is below the number of slices).
  int64_t outermost = axis.constant && *axis.constant == 0 ? 1 : 0;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (axis.constant && d == *axis.constant) {
      slice.offsets[d] = b.getIndexAttr(0);
      continue;
    }
    if (axis.constant && d == outermost) {
      slice.offsets[d] = rest;
      continue;
    }
    Value size = getValueOrCreateConstantIndexOp(b, loc, sizes[d]);
    Value index = arith::RemUIOp::create(b, loc, rest, size);
    Value next = arith::DivUIOp::create(b, loc, rest, size);
    slice.offsets[d] = axis.pick(b, loc, d, zero, index);
    rest = getValueOrCreateConstantIndexOp(b, loc,
                                           axis.pick(b, loc, d, rest, next));
  }
  OpFoldResult n = b.getIndexAttr(0);
  for (int64_t d = 0; d < rank; ++d)
    n = axis.pick(b, loc, d, sizes[d], n);
  slice.n = n;
  if (!axis.constant) {
    // Past the last slice `rest` is not 0; such an iteration handles an
    // empty slice at the origin.
    slice.inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rest, zero);
    Value inside = slice.inside;
    for (OpFoldResult &offset : slice.offsets)
      offset = arith::SelectOp::create(
                   b, loc, inside,
                   getValueOrCreateConstantIndexOp(b, loc, offset), zero)
                   .getResult();
    slice.n =
        arith::SelectOp::create(
            b, loc, inside, getValueOrCreateConstantIndexOp(b, loc, n), zero)
            .getResult();
  }
  return slice;
}

/// An scf.forall over `count` slices of a tensor with `sizes` along the
/// axis `axisInLoop` gives (built at the top of the loop's body), with one
/// shared output per entry of `outs`, each with `lengthOf(slice)` elements
/// along the axis per slice. `body` gets the axis, the slice and each
/// output's piece of it, and returns their new values, which are inserted
/// back.
SmallVector<Value> buildSliceLoop(
    OpBuilder &b, Location loc,
    function_ref<Axis(OpBuilder &, Location)> axisInLoop,
    ArrayRef<OpFoldResult> sizes, OpFoldResult count, ValueRange outs,
    function_ref<OpFoldResult(const Slice &)> lengthOf,
    function_ref<SmallVector<Value>(OpBuilder &, Location, const Axis &,
                                    const Slice &, ValueRange)>
        body) {
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{count},
                                      outs, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Axis axis = axisInLoop(b, loc);
  Slice slice = locateSlice(b, loc, axis, sizes, forall.getInductionVars()[0]);
  SmallVector<OpFoldResult> one(sizes.size(), b.getIndexAttr(1));
  SmallVector<SmallVector<OpFoldResult>> pieceSizes;
  SmallVector<Value> pieces;
  for (Value shared : forall.getRegionIterArgs()) {
    pieceSizes.push_back(slice.sizes(b, loc, axis, lengthOf(slice)));
    pieces.push_back(tensor::ExtractSliceOp::create(
        b, loc, shared, slice.offsets, pieceSizes.back(), one));
  }
  SmallVector<Value> written = body(b, loc, axis, slice, pieces);
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  for (auto [piece, shared, pieceSize] :
       llvm::zip_equal(written, forall.getRegionIterArgs(), pieceSizes))
    tensor::ParallelInsertSliceOp::create(b, loc, piece, shared, slice.offsets,
                                          pieceSize, one);
  return SmallVector<Value>(forall.getResults());
}

/// The number of slices along a constant `axis`: the product of the other
/// dims. With a run-time axis, the element count (at least the number of
/// slices, whichever dim is the axis).
OpFoldResult countSlices(OpBuilder &b, Location loc,
                         ArrayRef<OpFoldResult> sizes,
                         std::optional<int64_t> axis) {
  OpFoldResult count = b.getIndexAttr(1);
  for (auto [d, size] : llvm::enumerate(sizes)) {
    if (axis && static_cast<int64_t>(d) == *axis)
      continue;
    std::optional<int64_t> a = getConstantIntValue(count);
    std::optional<int64_t> c = getConstantIntValue(size);
    count =
        a && c ? OpFoldResult(b.getIndexAttr(*a * *c))
               : OpFoldResult(
                     arith::MulIOp::create(
                         b, loc, getValueOrCreateConstantIndexOp(b, loc, count),
                         getValueOrCreateConstantIndexOp(b, loc, size))
                         .getResult());
  }
  return count;
}

//===----------------------------------------------------------------------===//
// cumsum, cumprod
//===----------------------------------------------------------------------===//

/// A scan's run-time axis, read and made non-negative, as an index.
Value readRuntimeAxis(OpBuilder &b, Location loc, Value runtimeAxis,
                      int64_t rank) {
  Value value = tensor::ExtractOp::create(b, loc, runtimeAxis, ValueRange{});
  Value wide = arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, wide, zero);
  return arith::SelectOp::create(
      b, loc, negative,
      arith::AddIOp::create(b, loc, wide,
                            arith::ConstantIndexOp::create(b, loc, rank)),
      wide);
}

/// acc (+ or *) x on signless or float scalars.
Value accumulate(OpBuilder &b, Location loc, bool product, Value acc, Value x) {
  if (isa<FloatType>(x.getType()))
    return product ? Value(arith::MulFOp::create(b, loc, acc, x))
                   : Value(arith::AddFOp::create(b, loc, acc, x));
  return product ? Value(arith::MulIOp::create(b, loc, acc, x))
                 : Value(arith::AddIOp::create(b, loc, acc, x));
}

template <typename OpTy, bool product>
struct ScanPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    Type element = type.getElementType();
    Type acc = getAccumulatorType(element);
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, input);
    Value out = createEmptyOfSizes(rewriter, loc,
                                   cast<RankedTensorType>(op.getType()), sizes);
    Value identity = toSignless(
        rewriter, loc, typedConstant(rewriter, loc, acc, product ? 1 : 0));
    // No slices to write (and none that a slice op could address).
    if (llvm::is_contained(type.getShape(), 0)) {
      rewriter.replaceOp(op, out);
      return success();
    }

    // A run-time axis is read inside the loop: on the CUDA target a launch
    // cannot depend on tensor data.
    std::optional<int64_t> constantAxis;
    if (std::optional<uint64_t> axis = op.getAxis())
      constantAxis = static_cast<int64_t>(*axis);
    Value runtimeAxis = op.getRuntimeAxis();
    auto axisInLoop = [&](OpBuilder &b, Location l) {
      if (constantAxis)
        return Axis{constantAxis, Value()};
      return Axis{std::nullopt, readRuntimeAxis(b, l, runtimeAxis, rank)};
    };

    SmallVector<Value> scanned = buildSliceLoop(
        rewriter, loc, axisInLoop, sizes,
        countSlices(rewriter, loc, sizes, constantAxis), out,
        [](const Slice &slice) { return slice.n; },
        [&](OpBuilder &b, Location l, const Axis &axis, const Slice &slice,
            ValueRange pieces) {
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value n = getValueOrCreateConstantIndexOp(b, l, slice.n);
          Value last = arith::SubIOp::create(b, l, n, one);
          auto loop = scf::ForOp::create(
              b, l, zero, n, one, ValueRange{identity, pieces[0]},
              [&](OpBuilder &nb, Location nl, Value k, ValueRange state) {
                Value j =
                    reverse ? arith::SubIOp::create(nb, nl, last, k).getResult()
                            : k;
                Value x = tensor::ExtractOp::create(
                    nb, nl, input, slice.at(nb, nl, axis, j, false));
                x = toSignless(nb, nl, convertScalar(nb, nl, x, element, acc));
                Value running = state[0];
                Value next = accumulate(nb, nl, product, running, x);
                Value y = fromSignless(nb, nl, exclusive ? running : next, acc);
                Value written = tensor::InsertOp::create(
                    nb, nl, convertScalar(nb, nl, y, acc, element), state[1],
                    slice.at(nb, nl, axis, j, true));
                scf::YieldOp::create(nb, nl, ValueRange{next, written});
              });
          return SmallVector<Value>{loop.getResult(1)};
        });
    rewriter.replaceOp(op, scanned.front());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// top_k
//===----------------------------------------------------------------------===//

/// Whether (x, i) comes before (y, j) in top-k's order: greater values
/// first (smaller with `smallest`), NaN before every number (after, with
/// `smallest`), equal values by position.
Value precedes(OpBuilder &b, Location loc, Value x, Value i, Value y, Value j,
               bool smallest, bool isUnsigned) {
  Value before, equal;
  if (isa<FloatType>(x.getType())) {
    using P = arith::CmpFPredicate;
    Value xNan = arith::CmpFOp::create(b, loc, P::UNO, x, x);
    Value yNan = arith::CmpFOp::create(b, loc, P::UNO, y, y);
    Value xNumber = arith::CmpFOp::create(b, loc, P::ORD, x, x);
    Value yNumber = arith::CmpFOp::create(b, loc, P::ORD, y, y);
    before = arith::OrIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, smallest ? P::OLT : P::OGT, x, y),
        smallest ? arith::AndIOp::create(b, loc, xNumber, yNan)
                 : arith::AndIOp::create(b, loc, xNan, yNumber));
    equal = arith::OrIOp::create(b, loc,
                                 arith::CmpFOp::create(b, loc, P::OEQ, x, y),
                                 arith::AndIOp::create(b, loc, xNan, yNan));
  } else {
    using P = arith::CmpIPredicate;
    P predicate = smallest ? (isUnsigned ? P::ult : P::slt)
                           : (isUnsigned ? P::ugt : P::sgt);
    before = arith::CmpIOp::create(b, loc, predicate, x, y);
    equal = arith::CmpIOp::create(b, loc, P::eq, x, y);
  }
  Value earlier =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, j);
  return arith::OrIOp::create(b, loc, before,
                              arith::AndIOp::create(b, loc, equal, earlier));
}

/// Selection: the t-th result is the best element that comes after the
/// (t-1)-th in the order (value, then position), found by one pass over the
/// slice. k passes and no scratch memory: cheap for the small k of models,
/// and a thread's state is a few scalars on the GPU.
struct TopKPattern : OpRewritePattern<TopKOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TopKOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Axis axis{static_cast<int64_t>(op.getAxis()), Value()};
    Type element = type.getElementType();
    bool isUnsigned = element.isUnsignedInteger();
    bool smallest = op.getSmallest();
    auto k = static_cast<int64_t>(op.getK());
    Type i64 = rewriter.getI64Type();

    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> resultSizes = sizes;
    resultSizes[*axis.constant] = rewriter.getIndexAttr(k);
    SmallVector<Value> outs = {
        createEmptyOfSizes(rewriter, loc, op.getValues().getType(),
                           resultSizes),
        createEmptyOfSizes(rewriter, loc, op.getIndices().getType(),
                           resultSizes)};
    // No slices to write (and none that a slice op could address).
    if (llvm::is_contained(op.getValues().getType().getShape(), 0)) {
      rewriter.replaceOp(op, outs);
      return success();
    }

    SmallVector<Value> selected = buildSliceLoop(
        rewriter, loc, [&](OpBuilder &, Location) { return axis; }, sizes,
        countSlices(rewriter, loc, sizes, axis.constant), outs,
        [&](const Slice &) { return OpFoldResult(rewriter.getIndexAttr(k)); },
        [&](OpBuilder &b, Location l, const Axis &, const Slice &slice,
            ValueRange pieces) {
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value n = getValueOrCreateConstantIndexOp(b, l, slice.n);
          Value kValue = arith::ConstantIndexOp::create(b, l, k);
          // The previous pick starts as "none": every element comes after
          // it; so does the best of a pass until it finds one. Their values
          // are not read then.
          Value none = arith::ConstantIndexOp::create(b, l, -1);
          Value first = toSignless(b, l, typedConstant(b, l, element, 0));
          auto picks = scf::ForOp::create(
              b, l, zero, kValue, one,
              ValueRange{pieces[0], pieces[1], first, none},
              [&](OpBuilder &nb, Location nl, Value t, ValueRange state) {
                Value previous = state[2], previousIndex = state[3];
                Value noPrevious = arith::CmpIOp::create(
                    nb, nl, arith::CmpIPredicate::eq, previousIndex, none);
                auto scan = scf::ForOp::create(
                    nb, nl, zero, n, one, ValueRange{first, none},
                    [&](OpBuilder &sb, Location sl, Value j, ValueRange best) {
                      Value x = toSignless(
                          sb, sl,
                          tensor::ExtractOp::create(
                              sb, sl, input, slice.at(sb, sl, axis, j, false)));
                      Value eligible = arith::OrIOp::create(
                          sb, sl, noPrevious,
                          precedes(sb, sl, previous, previousIndex, x, j,
                                   smallest, isUnsigned));
                      Value noBest = arith::CmpIOp::create(
                          sb, sl, arith::CmpIPredicate::eq, best[1], none);
                      Value better = arith::OrIOp::create(
                          sb, sl, noBest,
                          precedes(sb, sl, x, j, best[0], best[1], smallest,
                                   isUnsigned));
                      Value take =
                          arith::AndIOp::create(sb, sl, eligible, better);
                      scf::YieldOp::create(
                          sb, sl,
                          ValueRange{
                              arith::SelectOp::create(sb, sl, take, x, best[0]),
                              arith::SelectOp::create(sb, sl, take, j,
                                                      best[1])});
                    });
                Value value = scan.getResult(0), index = scan.getResult(1);
                SmallVector<Value> at = slice.at(nb, nl, axis, t, true);
                Value values = tensor::InsertOp::create(
                    nb, nl, fromSignless(nb, nl, value, element), state[0], at);
                Value indices = tensor::InsertOp::create(
                    nb, nl, arith::IndexCastOp::create(nb, nl, i64, index),
                    state[1], at);
                scf::YieldOp::create(nb, nl,
                                     ValueRange{values, indices, value, index});
              });
          return SmallVector<Value>{picks.getResult(0), picks.getResult(1)};
        });
    rewriter.replaceOp(op, selected);
    return success();
  }
};

} // namespace

void mlir::tsc::populateTscScanToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ScanPattern<CumSumOp, false>, ScanPattern<CumProdOp, true>,
               TopKPattern>(patterns.getContext());
}
