//===- Builders.cpp - shape ops both importers' converters build ---------===//
//
// The semantics ONNX and TorchScript share (reshape with an inferred dim,
// clamped slices, numpy broadcast, filled tensors, gathers with negative
// indices), written once; converters only read their framework's operands.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::foreign;

std::optional<int64_t> foreign::constantOf(OpFoldResult ofr) {
  if (auto attr = dyn_cast<Attribute>(ofr))
    return cast<IntegerAttr>(attr).getInt();
  return std::nullopt;
}

/// Sizes as OpFoldResults of index type (constants stay attributes).
OpFoldResult foreign::asIndex(ForeignNode &node, OpFoldResult element) {
  if (std::optional<int64_t> c = constantOf(element))
    return node.getRewriter().getIndexAttr(*c);
  return node.toIndex(element);
}

namespace {

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
FailureOr<OpFoldResult> inferredSize(ForeignNode &node,
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

} // namespace

FailureOr<Value> foreign::buildReshape(ForeignNode &node,
                                      TypedValue<RankedTensorType> x,
                                      ArrayRef<OpFoldResult> shape,
                                      bool zeroCopiesDim) {
  RankedTensorType type = x.getType();
  SmallVector<OpFoldResult> sizes;
  std::optional<size_t> inferred;
  for (auto [i, element] : llvm::enumerate(shape)) {
    std::optional<int64_t> c = constantOf(element);
    if (c == -1) {
      if (inferred)
        return node.fail("shape has more than one -1");
      inferred = i;
      sizes.push_back(node.getRewriter().getIndexAttr(1));
    } else if (c == 0 && zeroCopiesDim) {
      if (static_cast<int64_t>(i) >= type.getRank())
        return node.fail("shape copies dim " + Twine(i) +
                         " (0) of a rank-" + Twine(type.getRank()) + " input");
      sizes.push_back(node.dimSize(x, i));
    } else if (c && *c < -1) {
      return node.fail("shape has the negative size " + Twine(*c));
    } else {
      sizes.push_back(asIndex(node, element));
    }
  }
  if (inferred) {
    FailureOr<OpFoldResult> size = inferredSize(node, node.sizes(x), sizes,
                                                *inferred);
    if (failed(size))
      return failure();
    sizes[*inferred] = *size;
  }
  SmallVector<int64_t> target = ForeignNode::staticShape(sizes);
  if (type.hasStaticShape() && !ShapedType::isDynamicShape(target) &&
      RankedTensorType::get(target, type.getElementType()).getNumElements() !=
          type.getNumElements())
    return node.fail("cannot reshape " + Twine(type.getNumElements()) +
                     " elements into the requested shape");
  return node.reshape(x, sizes);
}

FailureOr<Value> foreign::buildTile(ForeignNode &node,
                                    TypedValue<RankedTensorType> x,
                                    ArrayRef<OpFoldResult> repeats) {
  int64_t rank = x.getType().getRank();
  if (static_cast<int64_t>(repeats.size()) != rank)
    return node.fail("repeats has " + Twine(repeats.size()) +
                     " entries for a rank-" + Twine(rank) + " input");
  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> interleaved, expanded, merged;
  bool identity = true;
  for (int64_t d = 0; d < rank; ++d) {
    OpFoldResult r = asIndex(node, repeats[d]);
    std::optional<int64_t> constant = constantOf(r);
    if (constant && *constant < 0)
      return node.fail("repeats has the negative entry " + Twine(*constant));
    identity &= constant == 1;
    OpFoldResult size = node.dimSize(x, d);
    interleaved.append({rw.getIndexAttr(1), size});
    expanded.append({r, size});
    merged.push_back(node.multiply(r, size));
  }
  if (identity)
    return Value(x);
  Value view = node.reshape(x, interleaved);
  FailureOr<Value> broadcast =
      buildExpand(node, cast<TypedValue<RankedTensorType>>(view), expanded);
  if (failed(broadcast))
    return failure();
  return node.reshape(*broadcast, merged);
}

FailureOr<Value> foreign::buildGather(ForeignNode &node,
                                     TypedValue<RankedTensorType> data,
                                     TypedValue<RankedTensorType> indices,
                                     int64_t axis) {
  if (!isa<IntegerType>(indices.getType().getElementType())) {
    std::string type;
    llvm::raw_string_ostream(type) << indices.getType().getElementType();
    return node.fail("indices must be integers, not " + type);
  }
  RewriterBase &rw = node.getRewriter();
  Value index = indices;
  int64_t extent = data.getType().getDimSize(axis);
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
  } else {
    // Run-time indices may be negative (ONNX counts them from the end);
    // the wrap folds away where they cannot be (WhereOp::fold).
    Type element = indices.getType().getElementType();
    Value zero = node.scalar(element, 0);
    Value size = buildShapeTensor(rw, node.getLoc(),
                                  {node.dimSize(data, axis)},
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
  properties.axis = rw.getI64IntegerAttr(axis);
  return node.create<GatherOp>({data, index}, properties);
}

FailureOr<Value> foreign::buildSlice(ForeignNode &node,
                                    TypedValue<RankedTensorType> x,
                                    ArrayRef<OpFoldResult> starts,
                                    ArrayRef<OpFoldResult> ends,
                                    ArrayRef<int64_t> axes,
                                    ArrayRef<int64_t> steps) {
  RankedTensorType type = x.getType();
  int64_t rank = type.getRank();
  if (starts.size() != axes.size() || ends.size() != axes.size() ||
      steps.size() != axes.size())
    return node.fail("starts, ends, axes and steps differ in length");

  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> offsets(rank, rw.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = node.sizes(x);
  SmallVector<OpFoldResult> strides(rank, rw.getIndexAttr(1));
  for (auto [i, rawAxis] : llvm::enumerate(axes)) {
    FailureOr<int64_t> axis = node.axis(rawAxis, rank);
    if (failed(axis))
      return failure();
    int64_t step = steps[i];
    if (step == 0)
      return node.fail("step of axis " + Twine(*axis) + " is zero");
    int64_t dim = type.getDimSize(*axis);
    std::optional<int64_t> start = constantOf(starts[i]);
    std::optional<int64_t> end = constantOf(ends[i]);
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
      endIndex = node.dimSize(x, *axis);
    else if (end && *end < 0)
      endIndex = rw.createOrFold<arith::AddIOp>(
          node.getLoc(), node.toIndex(node.dimSize(x, *axis)),
          arith::ConstantIndexOp::create(rw, node.getLoc(), *end));
    else
      endIndex = asIndex(node, ends[i]);
    sizes[*axis] = rw.createOrFold<arith::SubIOp>(
        node.getLoc(), node.toIndex(endIndex),
        arith::ConstantIndexOp::create(rw, node.getLoc(), *start));
  }
  return buildSliceOp(node, x, offsets, sizes, strides);
}

Value foreign::buildSliceOp(ForeignNode &node, TypedValue<RankedTensorType> x,
                            ArrayRef<OpFoldResult> offsets,
                            ArrayRef<OpFoldResult> sizes,
                            ArrayRef<OpFoldResult> strides) {
  RewriterBase &rw = node.getRewriter();
  auto resultType = x.getType().clone(ForeignNode::staticShape(sizes));
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
  return SliceOp::create(rw, node.getLoc(), resultType, x, dynOffsets, dynSizes,
                         dynStrides, staticOffsets, staticSizes, staticStrides);
}

FailureOr<SmallVector<Value>>
foreign::buildSplit(ForeignNode &node, TypedValue<RankedTensorType> x, int64_t axis,
                    ArrayRef<int64_t> sizes) {
  RankedTensorType type = x.getType();
  SmallVector<Type> types;
  int64_t total = 0;
  for (int64_t size : sizes) {
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = size;
    total += size;
    types.push_back(type.clone(shape));
  }
  if (!type.isDynamicDim(axis) && total != type.getDimSize(axis))
    return node.fail("split sizes add up to " + Twine(total) + ", not " +
                     Twine(type.getDimSize(axis)));
  RewriterBase &rw = node.getRewriter();
  auto split = SplitOp::create(rw, node.getLoc(), types, x,
                               rw.getI64IntegerAttr(axis),
                               rw.getDenseI64ArrayAttr(sizes));
  return SmallVector<Value>(split.getResults());
}

FailureOr<Value> foreign::buildExpand(ForeignNode &node,
                                     TypedValue<RankedTensorType> x,
                                     ArrayRef<OpFoldResult> shape) {
  RankedTensorType type = x.getType();
  int64_t rank = std::max<int64_t>(type.getRank(), shape.size());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t xd = d - (rank - type.getRank());
    int64_t sd = d - (rank - static_cast<int64_t>(shape.size()));
    std::optional<OpFoldResult> requested;
    if (sd >= 0)
      requested = asIndex(node, shape[sd]);
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
      sizes.push_back(node.dimSize(x, xd));
    } else {
      sizes.push_back(*requested);
    }
  }
  auto resultType = type.clone(ForeignNode::staticShape(sizes));
  return Value(ExpandOp::create(node.getRewriter(), node.getLoc(), resultType,
                                x, node.dynamicSizes(sizes)));
}

Value foreign::buildFilled(ForeignNode &node, ArrayRef<OpFoldResult> shape,
                           DenseElementsAttr value) {
  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> sizes;
  for (OpFoldResult e : shape)
    sizes.push_back(asIndex(node, e));
  auto type = RankedTensorType::get(ForeignNode::staticShape(sizes),
                                    value.getElementType());
  if (type.hasStaticShape())
    return ConstantOp::create(rw, node.getLoc(), value.resizeSplat(type));
  Value scalar = ConstantOp::create(
      rw, node.getLoc(),
      value.resizeSplat(RankedTensorType::get({}, value.getElementType())));
  return ExpandOp::create(rw, node.getLoc(), type, scalar,
                          node.dynamicSizes(sizes));
}


FailureOr<Value> foreign::buildRange(ForeignNode &node, Type element,
                                    ArrayRef<OpFoldResult> bounds) {
  RewriterBase &rw = node.getRewriter();
  // arith computes on signless integers: a range of unsigned (or signed)
  // ones is built in i64 and cast.
  if (auto integer = dyn_cast<IntegerType>(element);
      integer && !integer.isSignless()) {
    FailureOr<Value> range = buildRange(node, rw.getI64Type(), bounds);
    if (failed(range))
      return failure();
    return castTo(node, *range, element);
  }
  SmallVector<Value> operands;
  SmallVector<std::optional<double>> constants;
  for (OpFoldResult bound : bounds) {
    if (isa<IntegerType>(element)) {
      std::optional<int64_t> c = constantOf(bound);
      constants.push_back(c ? std::optional<double>(*c) : std::nullopt);
      Value v = c ? Value(arith::ConstantIntOp::create(rw, node.getLoc(),
                                                       element, *c))
                  : cast<Value>(bound);
      if (v.getType().isIndex())
        v = rw.createOrFold<arith::IndexCastOp>(node.getLoc(), element, v);
      else if (v.getType().getIntOrFloatBitWidth() <
               element.getIntOrFloatBitWidth())
        v = rw.createOrFold<arith::ExtSIOp>(node.getLoc(), element, v);
      else if (v.getType() != element)
        v = rw.createOrFold<arith::TruncIOp>(node.getLoc(), element, v);
      operands.push_back(v);
    } else {
      double c = cast<FloatAttr>(cast<Attribute>(bound)).getValueAsDouble();
      constants.push_back(c);
      operands.push_back(arith::ConstantOp::create(
          rw, node.getLoc(), cast<TypedAttr>(rw.getFloatAttr(element, c))));
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
  return Value(RangeOp::create(rw, node.getLoc(),
                               RankedTensorType::get({length}, element),
                               operands[0], operands[1], operands[2]));
}

Value foreign::castTo(ForeignNode &node, Value x, Type element) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getElementType() == element)
    return x;
  return CastOp::create(node.getRewriter(), node.getLoc(), type.clone(element),
                        x);
}

FailureOr<Value> foreign::buildGelu(ForeignNode &node, Value x,
                                   StringRef approximate) {
  std::optional<GeluApproximation> kind =
      symbolizeGeluApproximation(approximate);
  if (!kind)
    return node.fail("unknown approximate='" + approximate + "'");
  return Value(GeluOp::create(node.getRewriter(), node.getLoc(), x, *kind));
}

Value foreign::buildNumel(ForeignNode &node, Value x) {
  OpFoldResult total = node.getRewriter().getIndexAttr(1);
  for (OpFoldResult size : node.sizes(x))
    total = node.multiply(total, size);
  return buildShapeTensor(node.getRewriter(), node.getLoc(), {total},
                          /*scalar=*/true);
}

FailureOr<NormStatistics> foreign::buildNorm(ForeignNode &node, Value x,
                                             Value scale, Value bias,
                                             int64_t axis, double epsilon,
                                             bool rms, bool statistics) {
  RewriterBase &rw = node.getRewriter();
  Location loc = node.getLoc();
  auto type = cast<RankedTensorType>(x.getType());
  NormStatistics out;
  if (rms) {
    if (bias)
      return node.fail("an RMS norm takes no bias");
    out.result =
        RmsNormOp::create(rw, loc, type, x, scale, rw.getI64IntegerAttr(axis),
                          rw.getF64FloatAttr(epsilon));
  } else {
    out.result = LayerNormOp::create(rw, loc, type, x, scale, bias,
                                     rw.getI64IntegerAttr(axis),
                                     rw.getF64FloatAttr(epsilon));
  }
  if (!statistics)
    return out;
  ReduceMeanOp::Properties over;
  over.dims = rw.getDenseI64ArrayAttr(
      llvm::to_vector(llvm::seq<int64_t>(axis, type.getRank())));
  over.keepdim = rw.getUnitAttr();
  Value centered = x;
  if (!rms) {
    FailureOr<Value> mean = node.create<ReduceMeanOp>({x}, over);
    if (failed(mean))
      return failure();
    out.mean = *mean;
    FailureOr<Value> diff = node.create<SubOp>({x, *mean});
    if (failed(diff))
      return failure();
    centered = *diff;
  }
  FailureOr<Value> squared = node.create<MulOp>({centered, centered});
  if (failed(squared))
    return failure();
  FailureOr<Value> variance = node.create<ReduceMeanOp>({*squared}, over);
  if (failed(variance))
    return failure();
  FailureOr<Value> shifted = node.create<AddOp>(
      {*variance, node.scalar(type.getElementType(), epsilon)});
  if (failed(shifted))
    return failure();
  out.invStdDev = RsqrtOp::create(rw, loc, *shifted);
  return out;
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// An ungrouped convolution as im2col and a GEMM: the windows
/// `[N, out..., C * K]` times the weight `[F, C * K]`ᵀ plus bias, then the
/// channels moved back in front of the spatial dims.
static FailureOr<Value> convAsGemm(ForeignNode &node, Value x,
                                   TypedValue<RankedTensorType> w, Value bias,
                                   ArrayRef<int64_t> strides,
                                   ArrayRef<int64_t> pads,
                                   ArrayRef<int64_t> dilations) {
  RewriterBase &rw = node.getRewriter();
  ArrayRef<int64_t> kernel = w.getType().getShape().drop_front(2);
  int64_t spatial = static_cast<int64_t>(kernel.size());
  Im2colOp::Properties props;
  props.kernel_shape = rw.getDenseI64ArrayAttr(kernel);
  props.strides = rw.getDenseI64ArrayAttr(strides);
  props.pads = rw.getDenseI64ArrayAttr(pads);
  props.dilations = rw.getDenseI64ArrayAttr(dilations);
  FailureOr<Value> patches = node.create<Im2colOp>({x}, props);
  if (failed(patches))
    return failure();
  RankedTensorType wType = w.getType();
  // C · K, also for a weight of no filters (F = 0).
  int64_t depth = 1;
  for (int64_t d : wType.getShape().drop_front())
    depth *= d;
  SmallVector<OpFoldResult> rows = node.sizes(*patches);
  rows.resize(1 + spatial);
  rows.push_back(rw.getIndexAttr(depth));
  Value weight = node.reshape(
      w, {rw.getIndexAttr(wType.getDimSize(0)), rw.getIndexAttr(depth)});
  LinearOp::Properties linear;
  linear.operandSegmentSizes = {1, 1, bias ? 1 : 0, 0};
  SmallVector<Value> operands{node.reshape(*patches, rows), weight};
  if (bias)
    operands.push_back(bias);
  FailureOr<Value> y = node.create<LinearOp>(operands, linear);
  if (failed(y))
    return failure();
  SmallVector<int64_t> perm{0, 1 + spatial};
  for (int64_t i = 1; i <= spatial; ++i)
    perm.push_back(i);
  return node.transpose(*y, perm);
}

FailureOr<Value>
foreign::buildConvolution(ForeignNode &node, Value x,
                          TypedValue<RankedTensorType> w, Value bias,
                          ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                          ArrayRef<int64_t> dilations, int64_t group) {
  if (group == 1 &&
      isa<FloatType>(cast<RankedTensorType>(x.getType()).getElementType()))
    return convAsGemm(node, x, w, bias, strides, pads, dilations);
  RewriterBase &rw = node.getRewriter();
  ConvOp::Properties props;
  props.strides = rw.getDenseI64ArrayAttr(strides);
  props.pads = rw.getDenseI64ArrayAttr(pads);
  props.dilations = rw.getDenseI64ArrayAttr(dilations);
  props.group = rw.getI64IntegerAttr(group);
  SmallVector<Value> operands{x, w};
  if (bias)
    operands.push_back(bias);
  return node.create<ConvOp>(operands, props);
}
