//===- Shape.cpp - ONNX shape ops: reshape, slice, gather, expand, ... ----===//

#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;

namespace {

using Values = SmallVector<Value>;

std::optional<int64_t> constantOf(OpFoldResult ofr) {
  if (auto attr = dyn_cast<Attribute>(ofr))
    return cast<IntegerAttr>(attr).getInt();
  return std::nullopt;
}

/// Sizes as OpFoldResults of index type (constants stay attributes).
OpFoldResult asIndex(OnnxNode &node, OpFoldResult element) {
  if (std::optional<int64_t> c = constantOf(element))
    return node.getRewriter().getIndexAttr(*c);
  return node.toIndex(element);
}

/// Whether two sizes are the same value: identical, or the same dim of the
/// same tensor.
bool sameSize(OpFoldResult a, OpFoldResult b) {
  // Shape elements reach here through index <-> i64 casts.
  auto strip = [](OpFoldResult v) -> OpFoldResult {
    auto value = dyn_cast_if_present<Value>(v);
    while (value)
      if (auto cast = value.getDefiningOp<arith::IndexCastOp>())
        value = cast.getIn();
      else
        break;
    return value ? OpFoldResult(value) : v;
  };
  a = strip(a);
  b = strip(b);
  if (a == b)
    return true;
  auto da = dyn_cast_if_present<Value>(a);
  auto db = dyn_cast_if_present<Value>(b);
  auto dimA = da ? da.getDefiningOp<DimOp>() : DimOp();
  auto dimB = db ? db.getDefiningOp<DimOp>() : DimOp();
  return dimA && dimB && dimA.getInput() == dimB.getInput() &&
         dimA.getDim() == dimB.getDim();
}

/// The -1 entry of a Reshape: the input's element count over the product of
/// the other entries, with equal factors cancelled first, so that [b, s, -1]
/// of a [b, s, 4, 16] input is 64 and not (b * s * 64) / (b * s).
FailureOr<OpFoldResult> inferredSize(OnnxNode &node,
                                     ArrayRef<OpFoldResult> inputSizes,
                                     ArrayRef<OpFoldResult> sizes,
                                     size_t inferred) {
  int64_t numerator = 1, denominator = 1;
  SmallVector<OpFoldResult> numeratorValues, denominatorValues;
  for (OpFoldResult size : inputSizes) {
    if (std::optional<int64_t> c = constantOf(size))
      numerator *= *c;
    else
      numeratorValues.push_back(size);
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    OpFoldResult size = sizes[i];
    if (i == inferred)
      continue;
    if (std::optional<int64_t> c = constantOf(size)) {
      denominator *= *c;
      continue;
    }
    auto *match = llvm::find_if(numeratorValues, [&](OpFoldResult v) {
      return sameSize(v, size);
    });
    if (match != numeratorValues.end())
      numeratorValues.erase(match);
    else
      denominatorValues.push_back(size);
  }
  RewriterBase &rw = node.getRewriter();
  if (denominator == 0)
    return node.fail("cannot infer the -1 dim next to a zero-size dim");
  OpFoldResult product = rw.getIndexAttr(1);
  for (OpFoldResult v : numeratorValues)
    product = node.multiply(product, v);
  if (denominatorValues.empty() && numerator % denominator == 0)
    return node.multiply(product, rw.getIndexAttr(numerator / denominator));
  if (numeratorValues.empty() && denominatorValues.empty())
    return node.fail("cannot infer the -1 dim: " + Twine(numerator) +
                     " elements do not divide by " + Twine(denominator));
  // What does not cancel is divided at run time.
  OpFoldResult divisor = rw.getIndexAttr(denominator);
  for (OpFoldResult v : denominatorValues)
    divisor = node.multiply(divisor, v);
  OpFoldResult total = node.multiply(product, rw.getIndexAttr(numerator));
  return OpFoldResult(rw.createOrFold<arith::DivUIOp>(
      node.getLoc(), node.toIndex(total), node.toIndex(divisor)));
}

FailureOr<Values> convertReshape(OnnxNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<SmallVector<OpFoldResult>> shape = node.shapeElements(1);
  if (failed(shape))
    return failure();
  bool allowZero = node.getInt("allowzero", 0);
  RankedTensorType type = x->getType();
  SmallVector<OpFoldResult> sizes;
  std::optional<size_t> inferred;
  for (auto [i, element] : llvm::enumerate(*shape)) {
    std::optional<int64_t> c = constantOf(element);
    if (c == -1) {
      if (inferred)
        return node.fail("shape has more than one -1");
      inferred = i;
      sizes.push_back(node.getRewriter().getIndexAttr(1));
    } else if (c == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= type.getRank())
        return node.fail("shape copies dim " + Twine(i) +
                         " (0) of a rank-" + Twine(type.getRank()) + " input");
      sizes.push_back(node.dimSize(*x, i));
    } else if (c && *c < -1) {
      return node.fail("shape has the negative size " + Twine(*c));
    } else {
      sizes.push_back(asIndex(node, element));
    }
  }
  if (inferred) {
    FailureOr<OpFoldResult> size = inferredSize(node, node.sizes(*x), sizes,
                                                *inferred);
    if (failed(size))
      return failure();
    sizes[*inferred] = *size;
  }
  SmallVector<int64_t> target = OnnxNode::staticShape(sizes);
  if (type.hasStaticShape() && !ShapedType::isDynamicShape(target) &&
      RankedTensorType::get(target, type.getElementType()).getNumElements() !=
          type.getNumElements())
    return node.fail("cannot reshape " + Twine(type.getNumElements()) +
                     " elements into the requested shape");
  return Values{node.reshape(*x, sizes)};
}

FailureOr<Values> convertTranspose(OnnxNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  SmallVector<int64_t> perm = node.getInts("perm").value_or(
      llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank))));
  FailureOr<Value> out = node.transpose(*x, perm);
  if (failed(out))
    return failure();
  return Values{*out};
}

/// Whether `indices` cannot be negative: positions from a Range that starts
/// at a non-negative constant and counts up (possibly cast and reshaped).
bool provablyNonNegative(Value indices) {
  Operation *op = indices.getDefiningOp();
  while (isa_and_nonnull<CastOp, UnsqueezeOp, SqueezeOp, ReshapeOp, ExpandOp>(op))
    op = op->getOperand(0).getDefiningOp();
  auto range = dyn_cast_or_null<RangeOp>(op);
  if (!range)
    return false;
  IntegerAttr start, delta;
  return matchPattern(range.getStart(), m_Constant(&start)) &&
         matchPattern(range.getDelta(), m_Constant(&delta)) &&
         start.getInt() >= 0 && delta.getInt() > 0;
}

FailureOr<Values> convertGather(OnnxNode &node) {
  auto data = node.input(0);
  auto indices = node.input(1);
  if (failed(data) || failed(indices))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", 0), data->getType().getRank());
  if (failed(axis))
    return failure();
  RewriterBase &rw = node.getRewriter();
  Value index = *indices;
  int64_t extent = data->getType().getDimSize(*axis);
  DenseIntElementsAttr constant;
  if (matchPattern(index, m_Constant(&constant))) {
    // Wrap negative constant indices now; out-of-range ones are errors.
    if (llvm::any_of(constant.getValues<APInt>(),
                     [](const APInt &v) { return v.isNegative(); })) {
      if (ShapedType::isDynamic(extent))
        return node.fail("negative indices into a dynamic dim");
      SmallVector<APInt> wrapped;
      for (const APInt &v : constant.getValues<APInt>())
        wrapped.push_back(v.isNegative() ? v + extent : v);
      index = ConstantOp::create(
          rw, node.getLoc(),
          DenseIntElementsAttr::get(constant.getType(), wrapped));
    }
  } else if (!provablyNonNegative(index)) {
    // Run-time indices may be negative (ONNX counts them from the end).
    Type element = indices->getType().getElementType();
    Value zero = node.scalar(element, 0);
    Value size = buildShapeTensor(rw, node.getLoc(),
                                  {node.dimSize(*data, *axis)},
                                  /*scalar=*/true, element);
    FailureOr<Value> negative = node.create<LessOp>({index, zero});
    FailureOr<Value> shifted = node.create<AddOp>({index, size});
    if (failed(negative) || failed(shifted))
      return failure();
    FailureOr<Value> wrapped = node.create<WhereOp>({*negative, *shifted, index});
    if (failed(wrapped))
      return failure();
    index = *wrapped;
  }
  GatherOp::Properties properties;
  properties.axis = rw.getI64IntegerAttr(*axis);
  return results(node.create<GatherOp>({*data, index}, properties));
}

FailureOr<Values> convertConcat(OnnxNode &node) {
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < node.getNumInputs(); ++i) {
    auto input = node.input(i);
    if (failed(input))
      return failure();
    inputs.push_back(*input);
  }
  if (inputs.empty())
    return node.fail("Concat needs at least one input");
  FailureOr<int64_t> axis = node.axis(
      node.getInt("axis", 0),
      cast<RankedTensorType>(inputs.front().getType()).getRank());
  if (failed(axis))
    return failure();
  ConcatOp::Properties properties;
  properties.axis = node.getRewriter().getI64IntegerAttr(*axis);
  return results(node.create<ConcatOp>(inputs, properties));
}

/// ONNX Slice: per listed axis, start/end clamped to the dim (negative
/// values count from the end) and a nonzero constant step.
FailureOr<Values> convertSlice(OnnxNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<SmallVector<OpFoldResult>> starts = node.shapeElements(1);
  FailureOr<SmallVector<OpFoldResult>> ends = node.shapeElements(2);
  if (failed(starts) || failed(ends))
    return failure();
  RankedTensorType type = x->getType();
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  if (node.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(3);
    if (failed(values))
      return failure();
    axes = *values;
  }
  SmallVector<int64_t> steps(axes.size(), 1);
  if (node.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(4);
    if (failed(values))
      return failure();
    steps = *values;
  }
  if (starts->size() != axes.size() || ends->size() != axes.size() ||
      steps.size() != axes.size())
    return node.fail("starts, ends, axes and steps differ in length");

  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> offsets(rank, rw.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = node.sizes(*x);
  SmallVector<OpFoldResult> strides(rank, rw.getIndexAttr(1));
  for (auto [i, rawAxis] : llvm::enumerate(axes)) {
    FailureOr<int64_t> axis = node.axis(rawAxis, rank);
    if (failed(axis))
      return failure();
    int64_t step = steps[i];
    if (step == 0)
      return node.fail("step of axis " + Twine(*axis) + " is zero");
    int64_t dim = type.getDimSize(*axis);
    std::optional<int64_t> start = constantOf((*starts)[i]);
    std::optional<int64_t> end = constantOf((*ends)[i]);
    strides[*axis] = rw.getIndexAttr(step);
    if (!ShapedType::isDynamic(dim) && start && end) {
      // Everything known: clamp as ONNX specifies.
      auto clampTo = [&](int64_t v, int64_t lo, int64_t hi) {
        v = v < 0 ? v + dim : v;
        return std::min(std::max(v, lo), hi);
      };
      int64_t s = step > 0 ? clampTo(*start, 0, dim) : clampTo(*start, 0, dim - 1);
      int64_t e = step > 0 ? clampTo(*end, 0, dim) : clampTo(*end, -1, dim - 1);
      int64_t count = step > 0 ? llvm::divideCeil(std::max<int64_t>(e - s, 0), step)
                               : llvm::divideCeil(std::max<int64_t>(s - e, 0), -step);
      offsets[*axis] = rw.getIndexAttr(count ? s : 0);
      sizes[*axis] = rw.getIndexAttr(count);
      continue;
    }
    // The forms exporters emit with run-time sizes: a forward slice from a
    // non-negative start to a run-time end, or to "the end" (a huge or
    // negative constant end).
    if (step != 1 || !start || *start < 0)
      return node.fail("slice of axis " + Twine(*axis) +
                       " with run-time bounds needs step 1 and a constant "
                       "non-negative start");
    offsets[*axis] = rw.getIndexAttr(*start);
    OpFoldResult endIndex;
    if (end && *end >= (int64_t(1) << 31))
      endIndex = node.dimSize(*x, *axis);
    else if (end && *end < 0)
      endIndex = rw.createOrFold<arith::AddIOp>(
          node.getLoc(), node.toIndex(node.dimSize(*x, *axis)),
          arith::ConstantIndexOp::create(rw, node.getLoc(), *end));
    else
      endIndex = asIndex(node, (*ends)[i]);
    sizes[*axis] = rw.createOrFold<arith::SubIOp>(
        node.getLoc(), node.toIndex(endIndex),
        arith::ConstantIndexOp::create(rw, node.getLoc(), *start));
  }
  SmallVector<int64_t> shape = OnnxNode::staticShape(sizes);
  auto resultType = type.clone(shape);
  SmallVector<Value> dynOffsets, dynSizes, dynStrides;
  SmallVector<int64_t> staticOffsets, staticSizes, staticStrides;
  auto split = [&](ArrayRef<OpFoldResult> list, SmallVector<Value> &dyn,
                   SmallVector<int64_t> &stat) {
    for (OpFoldResult v : list) {
      if (std::optional<int64_t> c = constantOf(v)) {
        stat.push_back(*c);
      } else {
        stat.push_back(ShapedType::kDynamic);
        dyn.push_back(node.toIndex(v));
      }
    }
  };
  split(offsets, dynOffsets, staticOffsets);
  split(sizes, dynSizes, staticSizes);
  split(strides, dynStrides, staticStrides);
  return Values{SliceOp::create(rw, node.getLoc(), resultType, *x, dynOffsets,
                                dynSizes, dynStrides, staticOffsets,
                                staticSizes, staticStrides)};
}

FailureOr<Values> convertSplit(OnnxNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  FailureOr<int64_t> axis = node.axis(node.getInt("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  int64_t outputs = node.getOp().getNumResults();
  SmallVector<int64_t> sizes;
  if (node.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(1);
    if (failed(values))
      return failure();
    sizes = *values;
  } else if (std::optional<SmallVector<int64_t>> attr = node.getInts("split")) {
    sizes = *attr;
  } else {
    int64_t dim = type.getDimSize(*axis);
    if (ShapedType::isDynamic(dim))
      return node.fail("equal split of a dynamic dim");
    int64_t parts = node.getInt("num_outputs", outputs);
    int64_t chunk = llvm::divideCeil(dim, parts);
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::min(chunk, dim - i * chunk));
  }
  if (static_cast<int64_t>(sizes.size()) != outputs)
    return node.fail("split sizes do not match the " + Twine(outputs) +
                     " outputs");
  SmallVector<Type> types;
  int64_t total = 0;
  for (int64_t size : sizes) {
    SmallVector<int64_t> shape(type.getShape());
    shape[*axis] = size;
    total += size;
    types.push_back(type.clone(shape));
  }
  if (!type.isDynamicDim(*axis) && total != type.getDimSize(*axis))
    return node.fail("split sizes add up to " + Twine(total) + ", not " +
                     Twine(type.getDimSize(*axis)));
  RewriterBase &rw = node.getRewriter();
  auto split = SplitOp::create(rw, node.getLoc(), types, *x,
                               rw.getI64IntegerAttr(*axis),
                               rw.getDenseI64ArrayAttr(sizes));
  return Values(split.getResults());
}

FailureOr<Values> convertSqueeze(OnnxNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  SmallVector<int64_t> dims;
  if (node.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> axes = node.constantInts(1);
    if (failed(axes))
      return failure();
    FailureOr<SmallVector<int64_t>> normalized = node.axes(*axes, type.getRank());
    if (failed(normalized))
      return failure();
    dims = *normalized;
  } else {
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.getDimSize(d) == 1)
        dims.push_back(d);
  }
  SqueezeOp::Properties properties;
  properties.dims = node.getRewriter().getDenseI64ArrayAttr(dims);
  return results(node.create<SqueezeOp>({*x}, properties));
}

FailureOr<Values> convertUnsqueeze(OnnxNode &node) {
  auto x = node.input(0);
  FailureOr<SmallVector<int64_t>> axes = node.constantInts(1);
  if (failed(x) || failed(axes))
    return failure();
  FailureOr<SmallVector<int64_t>> dims =
      node.axes(*axes, x->getType().getRank() + axes->size());
  if (failed(dims))
    return failure();
  UnsqueezeOp::Properties properties;
  properties.dims = node.getRewriter().getDenseI64ArrayAttr(*dims);
  return results(node.create<UnsqueezeOp>({*x}, properties));
}

/// numpy broadcast of `x` with the requested shape.
FailureOr<Values> convertExpand(OnnxNode &node) {
  auto x = node.input(0);
  FailureOr<SmallVector<OpFoldResult>> shape = node.shapeElements(1);
  if (failed(x) || failed(shape))
    return failure();
  RankedTensorType type = x->getType();
  int64_t rank = std::max<int64_t>(type.getRank(), shape->size());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t xd = d - (rank - type.getRank());
    int64_t sd = d - (rank - static_cast<int64_t>(shape->size()));
    std::optional<OpFoldResult> requested;
    if (sd >= 0)
      requested = asIndex(node, (*shape)[sd]);
    if (xd < 0) {
      sizes.push_back(*requested);
      continue;
    }
    int64_t dim = type.getDimSize(xd);
    std::optional<int64_t> r = requested ? constantOf(*requested) : std::nullopt;
    if (!requested || r == 1 || (dim != 1 && !ShapedType::isDynamic(dim))) {
      if (r && *r != 1 && !ShapedType::isDynamic(dim) && dim != 1 && *r != dim)
        return node.fail("cannot expand dim " + Twine(xd) + " of size " +
                         Twine(dim) + " to " + Twine(*r));
      sizes.push_back(node.dimSize(*x, xd));
    } else {
      sizes.push_back(*requested);
    }
  }
  auto resultType = type.clone(OnnxNode::staticShape(sizes));
  return Values{ExpandOp::create(node.getRewriter(), node.getLoc(), resultType,
                                 *x, node.dynamicSizes(sizes))};
}

FailureOr<Values> convertShape(OnnxNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  int64_t start = node.getInt("start", 0), end = node.getInt("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  SmallVector<OpFoldResult> dims;
  for (int64_t d = start; d < end; ++d)
    dims.push_back(node.dimSize(*x, d));
  return Values{buildShapeTensor(node.getRewriter(), node.getLoc(), dims)};
}

FailureOr<Values> convertSize(OnnxNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  OpFoldResult total = node.getRewriter().getIndexAttr(1);
  for (OpFoldResult size : node.sizes(*x))
    total = node.multiply(total, size);
  return Values{buildShapeTensor(node.getRewriter(), node.getLoc(), {total},
                                 /*scalar=*/true)};
}

FailureOr<Values> convertConstantOfShape(OnnxNode &node) {
  FailureOr<SmallVector<OpFoldResult>> shape = node.shapeElements(0);
  if (failed(shape))
    return failure();
  RewriterBase &rw = node.getRewriter();
  auto value = node.getOp().getSourceAttributes().getAs<DenseElementsAttr>("value");
  if (!value)
    value = DenseElementsAttr::get(RankedTensorType::get({1}, rw.getF32Type()),
                                   rw.getF32FloatAttr(0.0f));
  if (value.getNumElements() != 1)
    return node.fail("value must have one element");
  SmallVector<OpFoldResult> sizes;
  for (OpFoldResult e : *shape)
    sizes.push_back(asIndex(node, e));
  auto type = RankedTensorType::get(OnnxNode::staticShape(sizes),
                                    value.getElementType());
  if (type.hasStaticShape())
    return Values{ConstantOp::create(rw, node.getLoc(),
                                     value.resizeSplat(type))};
  Value scalar = ConstantOp::create(
      rw, node.getLoc(),
      value.resizeSplat(RankedTensorType::get({}, value.getElementType())));
  return Values{ExpandOp::create(rw, node.getLoc(), type, scalar,
                                 node.dynamicSizes(sizes))};
}

FailureOr<Values> convertRange(OnnxNode &node) {
  auto start = node.input(0);
  if (failed(start))
    return failure();
  RewriterBase &rw = node.getRewriter();
  Type element = start->getType().getElementType();
  SmallVector<Value> operands;
  SmallVector<std::optional<double>> constants;
  for (unsigned i = 0; i < 3; ++i) {
    if (isa<IntegerType>(element)) {
      FailureOr<SmallVector<OpFoldResult>> e = node.shapeElements(i);
      if (failed(e) || e->size() != 1)
        return node.fail("start, limit and delta must be scalars");
      std::optional<int64_t> c = constantOf((*e)[0]);
      constants.push_back(c ? std::optional<double>(*c) : std::nullopt);
      Value v = c ? Value(arith::ConstantIntOp::create(rw, node.getLoc(),
                                                       element, *c))
                  : cast<Value>((*e)[0]);
      if (v.getType() != element)
        v = rw.createOrFold<arith::IndexCastOp>(node.getLoc(), element, v);
      operands.push_back(v);
    } else {
      FailureOr<double> c = node.constantScalar(i);
      if (failed(c))
        return failure();
      constants.push_back(*c);
      operands.push_back(arith::ConstantOp::create(
          rw, node.getLoc(), cast<TypedAttr>(rw.getFloatAttr(element, *c))));
    }
  }
  int64_t length = ShapedType::kDynamic;
  if (constants[0] && constants[1] && constants[2]) {
    if (*constants[2] == 0)
      return node.fail("delta is zero");
    length = std::max<int64_t>(
        0, static_cast<int64_t>(
               std::ceil((*constants[1] - *constants[0]) / *constants[2])));
  }
  return Values{RangeOp::create(rw, node.getLoc(),
                                RankedTensorType::get({length}, element),
                                operands[0], operands[1], operands[2])};
}

FailureOr<Values> convertTrilu(OnnxNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t k = 0;
  if (node.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(1);
    if (failed(values) || values->size() != 1)
      return node.fail("k must be a constant scalar");
    k = values->front();
  }
  if (x->getType().getRank() < 2)
    return node.fail("Trilu needs rank >= 2");
  RewriterBase &rw = node.getRewriter();
  return Values{TriluOp::create(
      rw, node.getLoc(), *x,
      node.getInt("upper", 1) ? rw.getUnitAttr() : UnitAttr(),
      rw.getI64IntegerAttr(k))};
}

} // namespace

void fromonnx::populateShapeConverters(OnnxConverters &c) {
  c.add("Reshape", 5, convertReshape);
  c.add("Transpose", 1, convertTranspose);
  c.add("Gather", 11, convertGather);
  c.add("Concat", 11, convertConcat);
  c.add("Slice", 10, convertSlice);
  c.add("Split", 11, convertSplit);
  c.add("Squeeze", 13, convertSqueeze);
  c.add("Unsqueeze", 13, convertUnsqueeze);
  c.add("Expand", 8, convertExpand);
  c.add("Shape", 1, convertShape);
  c.add("Size", 1, convertSize);
  c.add("ConstantOfShape", 9, convertConstantOfShape);
  c.add("Range", 11, convertRange);
  c.add("Trilu", 14, convertTrilu);
}
