//===- Reduction.cpp - ONNX reductions, scans, top-k, softmax, layer norms ===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/Foreign/IndexMath.h"
#include "passes/conversion/OnnxToTsc/Compose.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// What every Reduce* node reduces: its input and the normalized dims, empty
/// when nothing is reduced (noop_with_empty_axes=1 without axes, or a 0-d
/// input).
struct ReduceOperands {
  TypedValue<RankedTensorType> x;
  SmallVector<int64_t> dims;
  bool keepdim;
  /// The axes are a graph input, read when the model runs (`dims` is empty).
  bool runtimeAxes = false;
};

/// The axes come from an attribute (up to opset 17 for all but ReduceSum)
/// or from the optional second input (ReduceSum 13, the others from 18).
FailureOr<ReduceOperands> reduceOperands(ForeignNode &node, bool axesAsInput) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  SmallVector<int64_t> axes;
  bool keepdims = node.getInt("keepdims", 1) != 0;
  // Axes a graph input gives: read at run time, unless there are none.
  bool runtime = axesAsInput && node.isRuntimeInts(1);
  if (runtime && rank > 0 &&
      cast<RankedTensorType>(node.getOp().getInputs()[1].getType())
              .getNumElements() > 0)
    return ReduceOperands{*x, {}, keepdims, /*runtimeAxes=*/true};
  if (axesAsInput && !runtime) {
    if (node.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> values = node.constantInts(1);
      if (failed(values))
        return failure();
      axes = *values;
    }
  } else if (std::optional<SmallVector<int64_t>> values =
                 node.getInts("axes")) {
    axes = *values;
  }
  bool keepdim = node.getInt("keepdims", 1) != 0;
  if (rank == 0 || (axes.empty() && node.getInt("noop_with_empty_axes", 0)))
    return ReduceOperands{*x, {}, keepdim};
  if (axes.empty())
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  FailureOr<SmallVector<int64_t>> dims = node.axes(axes, rank);
  if (failed(dims))
    return failure();
  return ReduceOperands{*x, *dims, keepdim};
}

/// `x` reduced (`kind` as tsc.reduce_window names it) over the axes that
/// input #1 gives at run time. Each dim's window and result size are symbols
/// defined from the axes' values: the dim's size and 1 where an axis names
/// it, 1 and the size elsewhere. Without `keepdim`, the result is a view
/// with the kept dims, whose sizes are symbols too (-1 for repeated axes,
/// which the run rejects).
MaybeValue reduceAtRuntime(ForeignNode &node, MaybeValue x, StringRef kind,
                           bool keepdim) {
  if (failed(x))
    return failure();
  RewriterBase &rw = node.getRewriter();
  Location loc = node.getLoc();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  if (!type.hasStaticShape())
    return node.fail("axes given at run time need an input of static shape; "
                     "this one is " +
                     llvm::formatv("{0}", type).str());
  FailureOr<SmallVector<Value>> axes = node.runtimeInts(1, -rank, rank - 1);
  if (failed(axes))
    return failure();
  int64_t count = axes->size();
  if (!keepdim && count > rank)
    return node.fail(Twine(count) + " axes for a rank-" + Twine(rank) +
                     " input");
  IndexMath im{rw, loc};
  auto c = [&](int64_t v) { return im.c(v); };
  auto pick = [&](Value condition, Value yes, Value no) {
    return im.select(condition, yes, no);
  };
  auto equal = [&](Value a, Value b) { return im.eq(a, b); };
  // reduced[d] is 1 where some axis names dim d, else 0.
  SmallVector<Value> reduced(rank);
  Value distinct;
  node.markAxes(*axes, reduced, distinct);
  SmallVector<Value> window, sizes;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = type.getDimSize(d);
    if (n == 1) {
      window.push_back(c(1));
      sizes.push_back(c(1));
      shape.push_back(1);
      continue;
    }
    int64_t lo = std::min<int64_t>(n, 1), hi = std::max<int64_t>(n, 1);
    Value is = equal(reduced[d], c(1));
    window.push_back(node.defineSymbol("window of dim " + Twine(d),
                                       pick(is, c(n), c(1)), lo, hi));
    sizes.push_back(node.defineSymbol("reduced size of dim " + Twine(d),
                                      pick(is, c(1), c(n)), lo, hi));
    shape.push_back(ShapedType::kDynamic);
  }
  Value result = ReduceWindowOp::create(
      rw, loc, RankedTensorType::get(shape, type.getElementType()), *x, window,
      sizes, rw.getStringAttr(kind));
  if (keepdim)
    return result;
  // Result dim m is the m-th dim no axis names.
  SmallVector<OpFoldResult> keptSizes = node.keptDims(
      type.getShape(), reduced, distinct, rank - count, "repeated axes");
  return node.reshape(result, keptSizes);
}

template <typename OpTy> constexpr StringLiteral windowKind() {
  if constexpr (std::is_same_v<OpTy, ReduceSumOp>)
    return "sum";
  else if constexpr (std::is_same_v<OpTy, ReduceMeanOp>)
    return "mean";
  else if constexpr (std::is_same_v<OpTy, ReduceMaxOp>)
    return "max";
  else if constexpr (std::is_same_v<OpTy, ReduceMinOp>)
    return "min";
  else
    return "prod";
}

template <typename OpTy, bool axesAsInput>
FailureOr<Values> convertReduce(ForeignNode &node) {
  FailureOr<ReduceOperands> operands = reduceOperands(node, axesAsInput);
  if (failed(operands))
    return failure();
  auto [x, dims, keepdim, runtimeAxes] = *operands;
  if (runtimeAxes)
    return results(reduceAtRuntime(node, x, windowKind<OpTy>(), keepdim));
  if (dims.empty())
    return Values{x};
  return results(reduce<OpTy>(node, x, dims, keepdim));
}

/// The reductions ONNX defines as a sum of a function of the elements, and
/// what follows it: L1 = sum|x|, L2 = sqrt(sum x²), LogSum = log(sum x),
/// LogSumExp = log(sum e^x), SumSquare = sum x².
enum class SumOf { L1, L2, LogSum, LogSumExp, SumSquare };

/// `kind` of `x` over `dims`, or, with no dims, its elementwise part alone,
/// as the reference evaluates a reduction over an empty axis list
/// (np.sum(np.abs(x), axis=())).
MaybeValue buildSumOf(ForeignNode &node, SumOf kind, Value x,
                      ArrayRef<int64_t> dims, bool keepdim, bool runtimeAxes) {
  if (runtimeAxes) {
    auto sum = [&](MaybeValue v) {
      return reduceAtRuntime(node, v, "sum", keepdim);
    };
    switch (kind) {
    case SumOf::L1:
      return sum(unary<AbsOp>(node, x));
    case SumOf::SumSquare:
      return sum(binary<MulOp>(node, x, x));
    case SumOf::L2:
      return unary<SqrtOp>(node, sum(binary<MulOp>(node, x, x)));
    case SumOf::LogSum:
      return unary<LogOp>(node, sum(x));
    case SumOf::LogSumExp:
      return reduceAtRuntime(node, x, "logsumexp", keepdim);
    }
  }
  bool reduces = !dims.empty();
  auto sum = [&](MaybeValue v, bool keep) {
    return reduces ? reduce<ReduceSumOp>(node, v, dims, keep) : v;
  };
  switch (kind) {
  case SumOf::L1:
    return sum(unary<AbsOp>(node, x), keepdim);
  case SumOf::SumSquare:
    return sum(binary<MulOp>(node, x, x), keepdim);
  case SumOf::L2:
    return reduces
               ? unary<SqrtOp>(node, sum(binary<MulOp>(node, x, x), keepdim))
               : unary<AbsOp>(node, x);
  case SumOf::LogSum:
    return unary<LogOp>(node, sum(x, keepdim));
  case SumOf::LogSumExp: {
    if (!reduces)
      return x;
    // log(sum e^(x - m)) + m with m the maximum, so that e^x cannot
    // overflow; an infinite m (all -inf, or +inf present) is replaced by 0,
    // which gives the reference's -inf and +inf instead of NaN.
    Type element = elementTypeOf(x);
    MaybeValue max = reduce<ReduceMaxOp>(node, x, dims, true);
    MaybeValue finite = binary<LessOp>(node, unary<AbsOp>(node, max),
                                       node.scalar(element, INFINITY));
    MaybeValue shift = select(node, finite, max, node.scalar(element, 0));
    MaybeValue exp = unary<ExpOp>(node, binary<SubOp>(node, x, shift));
    MaybeValue lse =
        binary<AddOp>(node, unary<LogOp>(node, sum(exp, true)), shift);
    if (keepdim || failed(lse))
      return lse;
    SqueezeOp::Properties squeeze;
    squeeze.dims = node.getRewriter().getDenseI64ArrayAttr(dims);
    return node.create<SqueezeOp>({*lse}, squeeze);
  }
  }
  llvm_unreachable("unknown reduction");
}

template <SumOf kind, bool axesAsInput>
FailureOr<Values> convertSumOf(ForeignNode &node) {
  FailureOr<ReduceOperands> operands = reduceOperands(node, axesAsInput);
  if (failed(operands))
    return failure();
  auto [x, dims, keepdim, runtimeAxes] = *operands;
  Type element = x.getType().getElementType();
  // Integer inputs (allowed before opset 28) go through f64 where a log or
  // a square root follows, and back, truncating as the reference's astype.
  bool viaFloat =
      !isa<FloatType>(element) &&
      (kind == SumOf::L2 || kind == SumOf::LogSum || kind == SumOf::LogSumExp);
  Value input = x;
  if (viaFloat)
    input = castTo(node, x, Float64Type::get(node.getContext()));
  MaybeValue y = buildSumOf(node, kind, input, dims, keepdim, runtimeAxes);
  if (failed(y))
    return failure();
  return Values{castTo(node, *y, element)};
}

//===----------------------------------------------------------------------===//
// Index reductions and selection
//===----------------------------------------------------------------------===//

/// ArgMax/ArgMin: axis (default 0), keepdims, select_last_index (opset 12).
template <typename OpTy> FailureOr<Values> convertArgReduce(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", 0), x->getType().getRank());
  if (failed(axis))
    return failure();
  RewriterBase &rw = node.getRewriter();
  typename OpTy::Properties properties;
  properties.axis = rw.getI64IntegerAttr(*axis);
  if (node.getInt("keepdims", 1))
    properties.keepdim = rw.getUnitAttr();
  if (node.getInt("select_last_index", 0))
    properties.select_last_index = rw.getUnitAttr();
  return results(node.create<OpTy>({*x}, properties));
}

/// 1 at the first maximum of each slice of `x` along `axis`, 0 elsewhere:
/// the arg max compared with the positions along the axis.
MaybeValue buildHardmax(ForeignNode &node, Value x, int64_t axis) {
  RewriterBase &rw = node.getRewriter();
  auto type = cast<RankedTensorType>(x.getType());
  ArgMaxOp::Properties properties;
  properties.axis = rw.getI64IntegerAttr(axis);
  properties.keepdim = rw.getUnitAttr();
  MaybeValue index = node.create<ArgMaxOp>({x}, properties);
  OpFoldResult size = node.dimSize(x, axis);
  FailureOr<Value> positions = buildRange(
      node, rw.getI64Type(), {rw.getIndexAttr(0), size, rw.getIndexAttr(1)});
  if (failed(positions))
    return failure();
  SmallVector<OpFoldResult> along(type.getRank(), rw.getIndexAttr(1));
  along[axis] = size;
  MaybeValue hot =
      binary<EqualOp>(node, node.reshape(*positions, along), index);
  if (failed(hot))
    return failure();
  return castTo(node, *hot, type.getElementType());
}

/// Hardmax: from opset 13 along `axis` (default -1); before, of the input
/// seen as a matrix [prod(dims before axis), prod(the rest)] (default
/// axis 1), as Softmax was.
FailureOr<Values> convertHardmax(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  bool coerced = node.getVersion() < 13;
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", coerced ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  if (!coerced || *axis == rank - 1)
    return results(buildHardmax(node, *x, *axis));
  SmallVector<OpFoldResult> sizes = node.sizes(*x);
  OpFoldResult rows = node.getRewriter().getIndexAttr(1);
  OpFoldResult columns = rows;
  for (int64_t d = 0; d < rank; ++d) {
    OpFoldResult &factor = d < *axis ? rows : columns;
    factor = node.multiply(factor, sizes[d]);
  }
  MaybeValue hard = buildHardmax(node, node.reshape(*x, {rows, columns}), 1);
  if (failed(hard))
    return failure();
  return Values{node.reshape(*hard, sizes)};
}

/// CumSum (11) and CumProd (26): the axis input is a 0-d integer; a
/// constant one becomes the op's attribute, any other its run-time axis.
template <typename OpTy> FailureOr<Values> convertScan(ForeignNode &node) {
  auto x = node.input(0);
  auto axis = node.input(1);
  if (failed(x) || failed(axis))
    return failure();
  int64_t rank = x->getType().getRank();
  if (rank == 0)
    return node.fail("the input must have rank at least 1");
  if (axis->getType().getNumElements() != 1 ||
      !isa<IntegerType>(axis->getType().getElementType()))
    return node.fail("the axis must be one integer");
  RewriterBase &rw = node.getRewriter();
  typename OpTy::Properties properties;
  if (node.getInt("exclusive", 0))
    properties.exclusive = rw.getUnitAttr();
  if (node.getInt("reverse", 0))
    properties.reverse = rw.getUnitAttr();
  Value runtimeAxis;
  DenseIntElementsAttr constant;
  if (matchPattern(*axis, m_Constant(&constant))) {
    FailureOr<int64_t> normalized =
        node.axis((*constant.getValues<APInt>().begin()).getSExtValue(), rank);
    if (failed(normalized))
      return failure();
    properties.axis = rw.getI64IntegerAttr(*normalized);
  } else {
    runtimeAxis = node.reshape(*axis, {});
  }
  auto op =
      OpTy::create(rw, node.getLoc(), x->getType(), *x, runtimeAxis,
                   properties.axis, properties.exclusive, properties.reverse);
  if (failed(node.verifyCreated(op)))
    return failure();
  return Values{op.getResult()};
}

/// TopK: k is an attribute up to opset 9, then a constant 1-element input;
/// largest and sorted from opset 11 (the result is always sorted, which
/// sorted=0 allows).
FailureOr<Values> convertTopK(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t k;
  // k given at run time: the whole axis sorted, then its first k, with k a
  // symbol read from the input (at most the axis's size).
  Value runtimeK;
  if (node.getVersion() >= 10 && node.isRuntimeInts(1)) {
    FailureOr<int64_t> axis =
        node.axis(node.getInt("axis", -1), x->getType().getRank());
    if (failed(axis))
      return failure();
    k = x->getType().getDimSize(*axis);
    if (ShapedType::isDynamic(k))
      return node.fail("k given at run time needs a static axis");
    FailureOr<SmallVector<Value>> values = node.runtimeInts(1, 0, k);
    if (failed(values))
      return failure();
    if (values->size() != 1)
      return node.fail("k must have one element");
    runtimeK = values->front();
  } else if (node.getVersion() < 10) {
    if (!node.hasAttr("k"))
      return node.fail("the attribute k is required before opset 10");
    k = node.getInt("k", 0);
  } else {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(1);
    if (failed(values))
      return failure();
    if (values->size() != 1)
      return node.fail("k must have one element");
    k = values->front();
  }
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", -1), x->getType().getRank());
  if (failed(axis))
    return failure();
  int64_t size = x->getType().getDimSize(*axis);
  if (k < 0)
    return node.fail("k = " + Twine(k) + " is negative");
  if (!ShapedType::isDynamic(size) && k > size)
    return node.fail("k = " + Twine(k) + " is not within the axis's " +
                     Twine(size) + " elements");
  RewriterBase &rw = node.getRewriter();
  TopKOp::Properties properties;
  properties.k = rw.getI64IntegerAttr(k);
  properties.axis = rw.getI64IntegerAttr(*axis);
  if (!node.getInt("largest", 1))
    properties.smallest = rw.getUnitAttr();
  SmallVector<Type> types;
  if (failed(TopKOp::inferReturnTypes(
          node.getContext(), node.getLoc(),
          TopKOp::Adaptor(ValueRange{*x}, DictionaryAttr(), properties, {}),
          types)))
    return node.fail("cannot infer the result types");
  OperationState state(node.getLoc(), TopKOp::getOperationName());
  state.addOperands(*x);
  state.addTypes(types);
  state.useProperties(properties);
  Operation *op = rw.create(state);
  if (!runtimeK)
    return Values{op->getResult(0), op->getResult(1)};
  Values out;
  for (Value sorted : op->getResults()) {
    auto type = cast<RankedTensorType>(sorted.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), rw.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = node.sizes(sorted);
    SmallVector<OpFoldResult> strides(type.getRank(), rw.getIndexAttr(1));
    sizes[*axis] = runtimeK;
    out.push_back(buildSliceOp(node, cast<TypedValue<RankedTensorType>>(sorted),
                               offsets, sizes, strides));
  }
  return out;
}

template <typename OpTy>
FailureOr<Values> convertSoftmax(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", -1), x->getType().getRank());
  if (failed(axis))
    return failure();
  return Values{OpTy::create(node.getRewriter(), node.getLoc(), *x,
                             static_cast<uint64_t>(*axis))};
}

/// Checks that a norm's scale or bias has exactly the normalized shape, which
/// is what tsc's norms take (ONNX also allows broadcastable shapes).
LogicalResult checkNormParam(ForeignNode &node, Value param, StringRef name,
                             RankedTensorType input, int64_t axis) {
  auto type = cast<RankedTensorType>(param.getType());
  ArrayRef<int64_t> normalized = input.getShape().drop_front(axis);
  if (type.getElementType() != input.getElementType())
    return node.fail(name + " has element type different from the input's");
  if (type.getShape() != normalized && !(
          type.getRank() == static_cast<int64_t>(normalized.size()) &&
          llvm::all_of(llvm::zip_equal(type.getShape(), normalized), [](auto p) {
            return ShapedType::isDynamic(std::get<1>(p)) ||
                   std::get<0>(p) == std::get<1>(p);
          })))
    return node.fail(name + " must have the normalized shape of the input "
                     "(broadcast scales are not supported)");
  return success();
}

/// The input, scale and normalized axis every norm node starts with.
struct NormOperands {
  TypedValue<RankedTensorType> x;
  Value scale;
  int64_t axis;
};

FailureOr<NormOperands> normOperands(ForeignNode &node) {
  auto x = node.input(0);
  auto scale = node.input(1);
  if (failed(x) || failed(scale))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", -1), x->getType().getRank());
  if (failed(axis) ||
      failed(checkNormParam(node, *scale, "scale", x->getType(), *axis)))
    return failure();
  return NormOperands{*x, *scale, *axis};
}

FailureOr<Values> convertLayerNorm(ForeignNode &node) {
  FailureOr<NormOperands> operands = normOperands(node);
  if (failed(operands))
    return failure();
  auto [x, scale, axis] = *operands;
  RankedTensorType type = x.getType();
  Value bias;
  if (node.hasInput(2)) {
    auto b = node.input(2);
    if (failed(b) || failed(checkNormParam(node, *b, "bias", type, axis)))
      return failure();
    bias = *b;
  }
  RewriterBase &rw = node.getRewriter();
  float epsilon = node.getFloat("epsilon", 1e-5f);
  Value y = LayerNormOp::create(rw, node.getLoc(), type, x, scale, bias,
                                rw.getI64IntegerAttr(axis),
                                rw.getF64FloatAttr(epsilon));
  if (!node.isOutputUsed(1) && !node.isOutputUsed(2))
    return Values{y};
  // The statistics outputs, as training graphs export them: mean and
  // 1/sqrt(var + epsilon) over the normalized dims, kept as size-1 dims.
  ReduceMeanOp::Properties stats;
  stats.dims = rw.getDenseI64ArrayAttr(
      llvm::to_vector(llvm::seq<int64_t>(axis, type.getRank())));
  stats.keepdim = rw.getUnitAttr();
  FailureOr<Value> mean = node.create<ReduceMeanOp>({x}, stats);
  if (failed(mean))
    return failure();
  FailureOr<Value> centered = node.create<SubOp>({x, *mean});
  if (failed(centered))
    return failure();
  FailureOr<Value> squared = node.create<MulOp>({*centered, *centered});
  if (failed(squared))
    return failure();
  FailureOr<Value> variance = node.create<ReduceMeanOp>({*squared}, stats);
  if (failed(variance))
    return failure();
  FailureOr<Value> shifted = node.create<AddOp>(
      {*variance, node.scalar(type.getElementType(), epsilon)});
  if (failed(shifted))
    return failure();
  Value invStdDev = RsqrtOp::create(rw, node.getLoc(), *shifted);
  return Values{y, *mean, invStdDev};
}

FailureOr<Values> convertRmsNorm(ForeignNode &node) {
  FailureOr<NormOperands> operands = normOperands(node);
  if (failed(operands))
    return failure();
  auto [x, scale, axis] = *operands;
  RewriterBase &rw = node.getRewriter();
  return Values{RmsNormOp::create(
      rw, node.getLoc(), x.getType(), x, scale, rw.getI64IntegerAttr(axis),
      rw.getF64FloatAttr(node.getFloat("epsilon", 1e-5f)))};
}

} // namespace

void fromonnx::populateReductionConverters(ForeignConverters &c) {
  c.add("ReduceSum", 1, convertReduce<ReduceSumOp, false>);
  c.add("ReduceSum", 13, convertReduce<ReduceSumOp, true>);
  c.add("ReduceMean", 1, convertReduce<ReduceMeanOp, false>);
  c.add("ReduceMean", 18, convertReduce<ReduceMeanOp, true>);
  c.add("ReduceMax", 1, convertReduce<ReduceMaxOp, false>);
  c.add("ReduceMax", 18, convertReduce<ReduceMaxOp, true>);
  c.add("ReduceMin", 1, convertReduce<ReduceMinOp, false>);
  c.add("ReduceMin", 18, convertReduce<ReduceMinOp, true>);
  c.add("ReduceProd", 1, convertReduce<ReduceProdOp, false>);
  c.add("ReduceProd", 18, convertReduce<ReduceProdOp, true>);
  c.add("ReduceL1", 1, convertSumOf<SumOf::L1, false>);
  c.add("ReduceL1", 18, convertSumOf<SumOf::L1, true>);
  c.add("ReduceL2", 1, convertSumOf<SumOf::L2, false>);
  c.add("ReduceL2", 18, convertSumOf<SumOf::L2, true>);
  c.add("ReduceLogSum", 1, convertSumOf<SumOf::LogSum, false>);
  c.add("ReduceLogSum", 18, convertSumOf<SumOf::LogSum, true>);
  c.add("ReduceLogSumExp", 1, convertSumOf<SumOf::LogSumExp, false>);
  c.add("ReduceLogSumExp", 18, convertSumOf<SumOf::LogSumExp, true>);
  c.add("ReduceSumSquare", 1, convertSumOf<SumOf::SumSquare, false>);
  c.add("ReduceSumSquare", 18, convertSumOf<SumOf::SumSquare, true>);
  c.add("ArgMax", 1, convertArgReduce<ArgMaxOp>);
  c.add("ArgMin", 1, convertArgReduce<ArgMinOp>);
  c.add("Hardmax", 1, convertHardmax);
  c.add("CumSum", 11, convertScan<CumSumOp>);
  c.add("CumProd", 26, convertScan<CumProdOp>);
  c.add("TopK", 1, convertTopK);
  c.add("Softmax", 13, convertSoftmax<SoftmaxOp>);
  c.add("LogSoftmax", 13, convertSoftmax<LogSoftmaxOp>);
  c.add("LayerNormalization", 17, convertLayerNorm);
  c.add("RMSNormalization", 23, convertRmsNorm);
}
