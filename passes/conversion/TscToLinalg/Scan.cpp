//===- Scan.cpp - tsc scans and top-k to loops over slices ----------------===//
//
// A cumulative scan and a top-k selection are sequential along their axis,
// so they do not fit a linalg.generic: each becomes an scf.forall over the
// slices along the axis (every other position of the tensor), whose body
// walks its slice with scf.for. The forall is the parallel loop on the host
// (OpenMP) and on the CUDA target (a thread per slice); the axis stays a
// loop inside one thread.
//
// The tensors are seen as 1-D arrays: slice `o` of a row-major tensor with
// `n` elements along the axis and `stride` elements per step along it (the
// product of the later dims) starts at (o / stride) · n · stride + o % stride.
// That holds for an axis known only at run time as well (tsc.cumsum's
// runtime_axis): n and stride are then selected from the dims at run time.
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

/// The slices of a tensor along an axis: how many (`outer`), their length
/// `n` and the `stride` between their elements, as index values.
struct Slices {
  Value outer, n, stride;

  /// The offset of slice `o`'s first element in a tensor with `length`
  /// elements along the axis (the input's n, or top-k's k).
  Value start(OpBuilder &b, Location loc, Value o, Value length) const {
    Value block =
        arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, o, stride),
                              arith::MulIOp::create(b, loc, length, stride));
    return arith::AddIOp::create(b, loc, block,
                                 arith::RemUIOp::create(b, loc, o, stride));
  }
};

/// The slices of `tensor` along `axis` (an index value, constant when the
/// axis is static: the selects then fold).
Slices getSlices(OpBuilder &b, Location loc, Value tensor, Value axis) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value one = index(1);
  Slices s{one, index(0), one};
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value size = tensor::DimOp::create(b, loc, tensor, d);
    Value isAxis =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, axis, index(d));
    Value afterAxis = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            axis, index(d));
    s.n = arith::SelectOp::create(b, loc, isAxis, size, s.n);
    s.outer = arith::MulIOp::create(
        b, loc, s.outer, arith::SelectOp::create(b, loc, isAxis, one, size));
    s.stride = arith::MulIOp::create(
        b, loc, s.stride,
        arith::SelectOp::create(b, loc, afterAxis, size, one));
  }
  return s;
}

/// `tensor` as a 1-D tensor (row-major order).
Value flatten(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getRank() == 1)
    return tensor;
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::CollapseShapeOp::create(b, loc, tensor,
                                         ArrayRef<ReassociationIndices>{all});
}

/// A 1-D `flat` tensor back in the shape of `type` with `sizes`.
Value unflatten(OpBuilder &b, Location loc, Value flat, RankedTensorType type,
                ArrayRef<OpFoldResult> sizes) {
  if (type.getRank() == 1)
    return flat.getType() == type
               ? flat
               : tensor::CastOp::create(b, loc, type, flat).getResult();
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::ExpandShapeOp::create(
      b, loc, type, flat, ArrayRef<ReassociationIndices>{all}, sizes);
}

/// A 1-D tensor.empty with `type`'s element count and element type `element`.
Value emptyFlat(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                Type element) {
  OpFoldResult total = b.getIndexAttr(1);
  for (OpFoldResult size : sizes) {
    std::optional<int64_t> a = getConstantIntValue(total);
    std::optional<int64_t> c = getConstantIntValue(size);
    if (a && c)
      total = b.getIndexAttr(*a * *c);
    else
      total = arith::MulIOp::create(
                  b, loc, getValueOrCreateConstantIndexOp(b, loc, total),
                  getValueOrCreateConstantIndexOp(b, loc, size))
                  .getResult();
  }
  return createEmptyOfSizes(
      b, loc,
      RankedTensorType::get(
          {getConstantIntValue(total).value_or(ShapedType::kDynamic)}, element),
      {total});
}

/// Where one slice lies in the flattened input and outputs: the offset of
/// its first element in each, its length in each (the input's `n`, or
/// top-k's k), and the stride between its elements.
struct Placement {
  Value inputStart, n, stride;
  SmallVector<Value> starts, lengths;
};

/// An scf.forall over `count` slices of a flattened tensor with one 1-D
/// shared output per entry of `outs`. `place` says where slice `o` lies;
/// `body` gets that and the slice's piece of each output (1-D, contiguous)
/// and returns their new values, which are inserted back.
SmallVector<Value>
buildSliceLoop(OpBuilder &b, Location loc, Value count, ValueRange outs,
               function_ref<Placement(OpBuilder &, Location, Value)> place,
               function_ref<SmallVector<Value>(OpBuilder &, Location,
                                               const Placement &, ValueRange)>
                   body) {
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{count},
                                      outs, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Placement at = place(b, loc, forall.getInductionVars()[0]);
  SmallVector<Value> pieces;
  for (auto [shared, start, length] :
       llvm::zip_equal(forall.getRegionIterArgs(), at.starts, at.lengths))
    pieces.push_back(tensor::ExtractSliceOp::create(
        b, loc, shared, ArrayRef<OpFoldResult>{start},
        ArrayRef<OpFoldResult>{length}, ArrayRef<OpFoldResult>{at.stride}));
  SmallVector<Value> written = body(b, loc, at, pieces);
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  for (auto [piece, shared, start, length] : llvm::zip_equal(
           written, forall.getRegionIterArgs(), at.starts, at.lengths))
    tensor::ParallelInsertSliceOp::create(
        b, loc, piece, shared, ArrayRef<OpFoldResult>{start},
        ArrayRef<OpFoldResult>{length}, ArrayRef<OpFoldResult>{at.stride});
  return SmallVector<Value>(forall.getResults());
}

/// The placement of slice `o` of `slices` whose outputs have `lengths`
/// elements along the axis.
Placement placeSlice(OpBuilder &b, Location loc, const Slices &slices, Value o,
                     ArrayRef<Value> lengths) {
  Placement at{slices.start(b, loc, o, slices.n),
               slices.n,
               slices.stride,
               {},
               llvm::to_vector(lengths)};
  for (Value length : lengths)
    at.starts.push_back(slices.start(b, loc, o, length));
  return at;
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

template <typename OpTy, bool product>
struct ScanPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type element = type.getElementType();
    Type acc = getAccumulatorType(element);
    bool flt = isa<FloatType>(element);
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, input);
    Value flat = flatten(rewriter, loc, input);
    Value out = emptyFlat(rewriter, loc, sizes, element);
    Value identity = toSignless(
        rewriter, loc, typedConstant(rewriter, loc, acc, product ? 1 : 0));

    // A static axis gives the slices before the loop, from the dims alone.
    // A run-time axis is read inside it (on the CUDA target the launch
    // cannot depend on tensor data): the loop then runs over every element,
    // an upper bound of the slices, and the iterations past the last slice
    // place an empty one.
    int64_t rank = type.getRank();
    Value count;
    std::optional<Slices> staticSlices;
    if (std::optional<uint64_t> axis = op.getAxis()) {
      staticSlices = getSlices(rewriter, loc, input,
                               arith::ConstantIndexOp::create(
                                   rewriter, loc, static_cast<int64_t>(*axis)));
      count = staticSlices->outer;
    } else {
      count = tensor::DimOp::create(rewriter, loc, out, 0);
    }
    auto place = [&](OpBuilder &b, Location l, Value o) {
      if (staticSlices)
        return placeSlice(b, l, *staticSlices, o, {staticSlices->n});
      Value axis = readRuntimeAxis(b, l, op.getRuntimeAxis(), rank);
      Slices slices = getSlices(b, l, input, axis);
      Value zero = arith::ConstantIndexOp::create(b, l, 0);
      Value inside = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, o,
                                           slices.outer);
      slices.n = arith::SelectOp::create(b, l, inside, slices.n, zero);
      Placement at = placeSlice(b, l, slices, o, {slices.n});
      at.inputStart =
          arith::SelectOp::create(b, l, inside, at.inputStart, zero);
      at.starts[0] = at.inputStart;
      return at;
    };

    SmallVector<Value> scanned = buildSliceLoop(
        rewriter, loc, count, out, place,
        [&](OpBuilder &b, Location l, const Placement &at, ValueRange pieces) {
          Value start = at.inputStart;
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value last = arith::SubIOp::create(b, l, at.n, one);
          auto loop = scf::ForOp::create(
              b, l, zero, at.n, one, ValueRange{identity, pieces[0]},
              [&](OpBuilder &nb, Location nl, Value k, ValueRange state) {
                Value j =
                    reverse ? arith::SubIOp::create(nb, nl, last, k).getResult()
                            : k;
                Value position = arith::AddIOp::create(
                    nb, nl, start, arith::MulIOp::create(nb, nl, j, at.stride));
                Value x = tensor::ExtractOp::create(nb, nl, flat, position);
                x = toSignless(nb, nl, convertScalar(nb, nl, x, element, acc));
                Value running = state[0];
                Value next =
                    product ? (flt ? Value(arith::MulFOp::create(nb, nl,
                                                                 running, x))
                                   : Value(arith::MulIOp::create(nb, nl,
                                                                 running, x)))
                            : (flt ? Value(arith::AddFOp::create(nb, nl,
                                                                 running, x))
                                   : Value(arith::AddIOp::create(nb, nl,
                                                                 running, x)));
                Value y = fromSignless(nb, nl, exclusive ? running : next, acc);
                y = convertScalar(nb, nl, y, acc, element);
                Value written =
                    tensor::InsertOp::create(nb, nl, y, state[1], j);
                scf::YieldOp::create(nb, nl, ValueRange{next, written});
              });
          return SmallVector<Value>{loop.getResult(1)};
        });
    rewriter.replaceOp(op,
                       unflatten(rewriter, loc, scanned.front(),
                                 cast<RankedTensorType>(op.getType()), sizes));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// top_k
//===----------------------------------------------------------------------===//

/// Whether (a, i) comes before (b, j) in top-k's order: greater values
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
    auto axis = static_cast<int64_t>(op.getAxis());
    Type element = type.getElementType();
    bool isUnsigned = element.isUnsignedInteger();
    bool smallest = op.getSmallest();
    auto k = static_cast<int64_t>(op.getK());
    Type i64 = rewriter.getI64Type();

    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> resultSizes = sizes;
    resultSizes[axis] = rewriter.getIndexAttr(k);
    Slices slices =
        getSlices(rewriter, loc, input,
                  arith::ConstantIndexOp::create(rewriter, loc, axis));
    Value kValue = arith::ConstantIndexOp::create(rewriter, loc, k);
    Value flat = flatten(rewriter, loc, input);
    SmallVector<Value> outs = {emptyFlat(rewriter, loc, resultSizes, element),
                               emptyFlat(rewriter, loc, resultSizes, i64)};

    SmallVector<Value> selected = buildSliceLoop(
        rewriter, loc, slices.outer, outs,
        [&](OpBuilder &b, Location l, Value o) {
          return placeSlice(b, l, slices, o, {kValue, kValue});
        },
        [&](OpBuilder &b, Location l, const Placement &at, ValueRange pieces) {
          Value start = at.inputStart;
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          auto read = [&](OpBuilder &nb, Location nl, Value j) {
            Value position = arith::AddIOp::create(
                nb, nl, start, arith::MulIOp::create(nb, nl, j, slices.stride));
            return toSignless(
                nb, nl, tensor::ExtractOp::create(nb, nl, flat, position));
          };
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
                Value anyPrevious = arith::CmpIOp::create(
                    nb, nl, arith::CmpIPredicate::ne, previousIndex, none);
                auto scan = scf::ForOp::create(
                    nb, nl, zero, slices.n, one, ValueRange{first, none},
                    [&](OpBuilder &sb, Location sl, Value j, ValueRange best) {
                      Value x = read(sb, sl, j);
                      Value eligible = arith::OrIOp::create(
                          sb, sl,
                          arith::XOrIOp::create(
                              sb, sl, anyPrevious,
                              arith::ConstantIntOp::create(sb, sl, 1, 1)),
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
                Value values = tensor::InsertOp::create(
                    nb, nl, fromSignless(nb, nl, value, element), state[0], t);
                Value indices = tensor::InsertOp::create(
                    nb, nl, arith::IndexCastOp::create(nb, nl, i64, index),
                    state[1], t);
                scf::YieldOp::create(nb, nl,
                                     ValueRange{values, indices, value, index});
              });
          return SmallVector<Value>{picks.getResult(0), picks.getResult(1)};
        });
    rewriter.replaceOp(
        op, {unflatten(rewriter, loc, selected[0],
                       cast<RankedTensorType>(op.getValues().getType()),
                       resultSizes),
             unflatten(rewriter, loc, selected[1],
                       cast<RankedTensorType>(op.getIndices().getType()),
                       resultSizes)});
    return success();
  }
};

} // namespace

void mlir::tsc::populateTscScanToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ScanPattern<CumSumOp, false>, ScanPattern<CumProdOp, true>,
               TopKPattern>(patterns.getContext());
}
