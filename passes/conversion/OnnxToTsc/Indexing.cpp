//===- Indexing.cpp - ONNX gathers, scatters, padding and tiling ---===//
//
// Gathers, scatters, Pad and ReverseSequence become their tsc ops; what is
// a fixed rearrangement of the data (Flatten, Tile, DepthToSpace,
// SpaceToDepth, CenterCropPad) or a computed constant or mask (EyeLike,
// OneHot) is built from existing ops, which fold or fuse with their
// neighbours.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/Foreign/IndexMath.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// The product of `x`'s dims [begin, end) as an index size.
OpFoldResult dimProduct(ForeignNode &node, Value x, int64_t begin,
                        int64_t end) {
  OpFoldResult product = node.getRewriter().getIndexAttr(1);
  for (int64_t d = begin; d < end; ++d)
    product = node.multiply(product, node.dimSize(x, d));
  return product;
}

/// The integers of constant input `i`, from a constant or from a shape
/// computation that folded to constants.
FailureOr<SmallVector<int64_t>> constantList(ForeignNode &node, unsigned i) {
  if (failed(node.input(i)))
    return failure();
  if (std::optional<SmallVector<OpFoldResult>> elements =
          getShapeElements(node.getOp().getInputs()[i])) {
    SmallVector<int64_t> values;
    for (OpFoldResult e : *elements) {
      std::optional<int64_t> c = constantOf(e);
      if (!c)
        break;
      values.push_back(*c);
    }
    if (values.size() == elements->size())
      return values;
  }
  return node.constantInts(i);
}

//===----------------------------------------------------------------------===//
// Flatten, Tile, DepthToSpace, SpaceToDepth: reshapes and transposes
//===----------------------------------------------------------------------===//

FailureOr<Values> convertFlatten(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  int64_t axis = node.getInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return node.fail("axis " + Twine(node.getInt("axis", 1)) +
                     " is out of range for rank " + Twine(rank));
  return Values{node.reshape(
      *x, {dimProduct(node, *x, 0, axis), dimProduct(node, *x, axis, rank)})};
}

/// Tile: each dim d repeated repeats[d] times (buildTile). Repeats are
/// constants or shape arithmetic over the symbols (DeBERTa tiles by a count
/// derived from the sequence length).
FailureOr<Values> convertTile(ForeignNode &node) {
  auto x = node.input(0);
  FailureOr<SmallVector<OpFoldResult>> repeats =
      node.sizeElements(1, 0, kDefaultValueMax);
  if (failed(x) || failed(repeats))
    return failure();
  return results(buildTile(node, *x, *repeats));
}

/// What DepthToSpace and SpaceToDepth read: the rank-4 input, the block
/// size and whether `mode` is CRD.
struct BlockArgs {
  TypedValue<RankedTensorType> x;
  int64_t block;
  bool crd;
};

FailureOr<BlockArgs> blockArgs(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (x->getType().getRank() != 4)
    return node.fail("input must have rank 4 (N, C, H, W)");
  int64_t block = node.getInt("blocksize", 0);
  if (block < 1)
    return node.fail("blocksize must be positive");
  StringRef mode = node.getString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return node.fail("unknown mode '" + mode + "'");
  return BlockArgs{*x, block, mode == "CRD"};
}

FailureOr<Values> convertDepthToSpace(ForeignNode &node) {
  FailureOr<BlockArgs> args = blockArgs(node);
  if (failed(args))
    return failure();
  auto [x, b, crd] = *args;
  int64_t c = x.getType().getDimSize(1);
  if (ShapedType::isDynamic(c) || c % (b * b))
    return node.fail("channels (" + Twine(ShapedType::isDynamic(c) ? -1 : c) +
                     ") must be static and a multiple of blocksize^2");
  RewriterBase &rw = node.getRewriter();
  OpFoldResult n = node.dimSize(x, 0), h = node.dimSize(x, 2),
               w = node.dimSize(x, 3), bs = rw.getIndexAttr(b),
               depth = rw.getIndexAttr(c / (b * b));
  // DCR: channel index (i * b + j) * depth + k; CRD: (k * b + i) * b + j,
  // for block row i, block column j and output channel k.
  SmallVector<OpFoldResult> split =
      crd ? SmallVector<OpFoldResult>{n, depth, bs, bs, h, w}
          : SmallVector<OpFoldResult>{n, bs, bs, depth, h, w};
  SmallVector<int64_t> perm = crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
                                  : SmallVector<int64_t>{0, 3, 4, 1, 5, 2};
  FailureOr<Value> moved = node.transpose(node.reshape(x, split), perm);
  if (failed(moved))
    return failure();
  return Values{node.reshape(
      *moved, {n, depth, node.multiply(h, bs), node.multiply(w, bs)})};
}

FailureOr<Values> convertSpaceToDepth(ForeignNode &node) {
  FailureOr<BlockArgs> args = blockArgs(node);
  if (failed(args))
    return failure();
  auto [x, b, crd] = *args;
  RankedTensorType type = x.getType();
  for (int64_t d : {2, 3})
    if (type.isDynamicDim(d) || type.getDimSize(d) % b)
      return node.fail("dim " + Twine(d) +
                       " must be static and a multiple of blocksize");
  RewriterBase &rw = node.getRewriter();
  OpFoldResult n = node.dimSize(x, 0), c = node.dimSize(x, 1),
               bs = rw.getIndexAttr(b),
               h = rw.getIndexAttr(type.getDimSize(2) / b),
               w = rw.getIndexAttr(type.getDimSize(3) / b);
  SmallVector<int64_t> perm = crd ? SmallVector<int64_t>{0, 1, 3, 5, 2, 4}
                                  : SmallVector<int64_t>{0, 3, 5, 1, 2, 4};
  FailureOr<Value> moved =
      node.transpose(node.reshape(x, {n, c, h, bs, w, bs}), perm);
  if (failed(moved))
    return failure();
  OpFoldResult channels = node.multiply(c, rw.getIndexAttr(b * b));
  return Values{node.reshape(*moved, {n, channels, h, w})};
}

//===----------------------------------------------------------------------===//
// EyeLike, OneHot: constants and masks
//===----------------------------------------------------------------------===//

/// `value` (0 or 1) as a scalar attribute of `element` (float, integer or
/// bool).
TypedAttr scalarAttr(Type element, double value) {
  if (auto flt = dyn_cast<FloatType>(element))
    return FloatAttr::get(flt, value);
  return IntegerAttr::get(element, APInt(element.getIntOrFloatBitWidth(),
                                         static_cast<uint64_t>(value),
                                         /*isSigned=*/false));
}

FailureOr<Values> convertEyeLike(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  if (type.getRank() != 2)
    return node.fail("input must have rank 2");
  Type element = type.getElementType();
  if (node.hasAttr("dtype")) {
    int64_t dtype = node.getInt("dtype", 1);
    element = onnxElementType(node.getContext(), dtype);
    if (!element)
      return node.fail("dtype " + Twine(dtype) + " is not supported");
  }
  int64_t k = node.getInt("k", 0);
  auto resultType = type.clone(element);
  if (type.hasStaticShape()) {
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    TypedAttr zero = scalarAttr(element, 0), one = scalarAttr(element, 1);
    SmallVector<Attribute> values;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        values.push_back(j - i == k ? one : zero);
    return Values{
        ConstantOp::create(node.getRewriter(), node.getLoc(),
                           DenseElementsAttr::get(resultType, values))};
  }
  // Run-time sizes: row i + k == column j.
  RewriterBase &rw = node.getRewriter();
  Type i64 = rw.getI64Type();
  auto positions = [&](int64_t d, int64_t unitDim) -> FailureOr<Value> {
    FailureOr<Value> range = buildRange(
        node, i64,
        {rw.getIndexAttr(0), node.dimSize(*x, d), rw.getIndexAttr(1)});
    if (failed(range))
      return failure();
    UnsqueezeOp::Properties properties;
    properties.dims = rw.getDenseI64ArrayAttr({unitDim});
    return node.create<UnsqueezeOp>({*range}, properties);
  };
  FailureOr<Value> rows = positions(0, 1), cols = positions(1, 0);
  if (failed(rows) || failed(cols))
    return failure();
  FailureOr<Value> shifted = node.create<AddOp>({*rows, node.scalar(i64, k)});
  if (failed(shifted))
    return failure();
  FailureOr<Value> diagonal = node.create<EqualOp>({*shifted, *cols});
  if (failed(diagonal))
    return failure();
  return Values{castTo(node, *diagonal, element)};
}

/// OneHot as `where(wrapped(indices) == position, on, off)`, the positions
/// 0 .. depth-1 along the new axis. Out-of-range indices match nothing.
FailureOr<Values> convertOneHot(ForeignNode &node) {
  auto indices = node.input(0);
  auto values = node.input(2);
  if (failed(indices) || failed(values))
    return failure();
  int64_t rank = indices->getType().getRank();
  int64_t axis = node.getInt("axis", -1);
  if (axis < 0)
    axis += rank + 1;
  if (axis < 0 || axis > rank)
    return node.fail("axis " + Twine(node.getInt("axis", -1)) +
                     " is out of range for rank-" + Twine(rank) + " indices");
  // A depth the model takes at run time is a symbol read from it.
  Value runtimeDepth;
  int64_t depth = ShapedType::kDynamic;
  if (node.isRuntimeInts(1, /*floats=*/true)) {
    FailureOr<SmallVector<Value>> read =
        node.runtimeInts(1, 1, kDefaultValueMax, /*floats=*/true);
    if (failed(read))
      return failure();
    if (read->size() != 1)
      return node.fail("depth must have one element");
    runtimeDepth = read->front();
  } else {
    FailureOr<double> depthValue = node.constantScalar(1);
    if (failed(depthValue))
      return failure();
    depth = static_cast<int64_t>(*depthValue);
    if (depth < 1)
      return node.fail("depth must be positive, got " + Twine(depth));
  }
  if (values->getType().getNumElements() != 2)
    return node.fail("values must hold [off_value, on_value]");

  RewriterBase &rw = node.getRewriter();
  Type i64 = rw.getI64Type();
  Value index = castTo(node, *indices, i64);
  // Since opset 11, negative indices count from the end.
  if (node.getVersion() >= 11) {
    FailureOr<Value> negative =
        node.create<LessOp>({index, node.scalar(i64, 0)});
    Value depthTensor =
        runtimeDepth ? buildShapeTensor(rw, node.getLoc(), {runtimeDepth},
                                        /*scalar=*/true, i64)
                     : node.scalar(i64, depth);
    FailureOr<Value> shifted = node.create<AddOp>({index, depthTensor});
    if (failed(negative) || failed(shifted))
      return failure();
    FailureOr<Value> wrapped =
        node.create<WhereOp>({*negative, *shifted, index});
    if (failed(wrapped))
      return failure();
    index = *wrapped;
  }
  UnsqueezeOp::Properties unsqueeze;
  unsqueeze.dims = rw.getDenseI64ArrayAttr({axis});
  FailureOr<Value> column = node.create<UnsqueezeOp>({index}, unsqueeze);
  if (failed(column))
    return failure();
  SmallVector<int64_t> positionShape(rank + 1, 1);
  positionShape[axis] = depth;
  Value positions;
  if (runtimeDepth) {
    FailureOr<Value> range = buildRange(
        node, i64, {rw.getIndexAttr(0), runtimeDepth, rw.getIndexAttr(1)});
    if (failed(range))
      return failure();
    SmallVector<OpFoldResult> sizes(rank + 1, rw.getIndexAttr(1));
    sizes[axis] = runtimeDepth;
    positions = node.reshape(*range, sizes);
  } else {
    SmallVector<APInt> positionValues;
    for (int64_t p = 0; p < depth; ++p)
      positionValues.push_back(APInt(64, p));
    positions = ConstantOp::create(
        rw, node.getLoc(),
        DenseIntElementsAttr::get(RankedTensorType::get(positionShape, i64),
                                  positionValues));
  }
  FailureOr<Value> hot = node.create<EqualOp>({*column, positions});
  if (failed(hot))
    return failure();
  // off_value and on_value as 0-d tensors: constants when `values` is one.
  Value flat = node.reshape(*values, {rw.getIndexAttr(2)});
  DenseElementsAttr constant;
  auto pick = [&](int64_t i) -> FailureOr<Value> {
    if (matchPattern(*values, m_Constant(&constant)))
      return Value(ConstantOp::create(
          rw, node.getLoc(),
          DenseElementsAttr::get(
              RankedTensorType::get({}, constant.getElementType()),
              constant.getValues<Attribute>()[i])));
    Value at =
        ConstantOp::create(rw, node.getLoc(),
                           DenseIntElementsAttr::get(
                               RankedTensorType::get({}, i64), {APInt(64, i)}));
    GatherOp::Properties properties;
    properties.axis = rw.getI64IntegerAttr(0);
    return node.create<GatherOp>({flat, at}, properties);
  };
  FailureOr<Value> off = pick(0), on = pick(1);
  if (failed(off) || failed(on))
    return failure();
  return results(node.create<WhereOp>({*hot, *on, *off}));
}

//===----------------------------------------------------------------------===//
// Gathers and scatters
//===----------------------------------------------------------------------===//

FailureOr<Values> convertGatherElements(ForeignNode &node) {
  auto data = node.input(0);
  auto indices = node.input(1);
  if (failed(data) || failed(indices))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", 0), data->getType().getRank());
  if (failed(axis))
    return failure();
  GatherElementsOp::Properties properties;
  properties.axis = node.getRewriter().getI64IntegerAttr(*axis);
  return results(node.create<GatherElementsOp>({*data, *indices}, properties));
}

FailureOr<Values> convertGatherND(ForeignNode &node) {
  auto data = node.input(0);
  auto indices = node.input(1);
  if (failed(data) || failed(indices))
    return failure();
  GatherNdOp::Properties properties;
  properties.batch_dims =
      node.getRewriter().getI64IntegerAttr(node.getInt("batch_dims", 0));
  return results(node.create<GatherNdOp>({*data, *indices}, properties));
}

/// The `reduction` attribute of ScatterElements/ScatterND.
FailureOr<ScatterReductionAttr> scatterReduction(ForeignNode &node) {
  StringRef name = node.getString("reduction", "none");
  std::optional<ScatterReduction> reduction = symbolizeScatterReduction(name);
  if (!reduction)
    return node.fail("unknown reduction '" + name + "'");
  return ScatterReductionAttr::get(node.getContext(), *reduction);
}

/// Creates scatter op `OpTy` and verifies it (shape mismatches between data,
/// indices and updates are the model's errors, reported at the node).
template <typename OpTy>
FailureOr<Values> createScatter(ForeignNode &node, ValueRange operands,
                                typename OpTy::Properties properties) {
  FailureOr<Value> scatter = node.create<OpTy>(operands, properties);
  if (failed(scatter) || failed(node.verifyCreated(scatter->getDefiningOp())))
    return failure();
  return Values{*scatter};
}

FailureOr<Values> convertScatterElements(ForeignNode &node) {
  auto data = node.input(0);
  auto indices = node.input(1);
  auto updates = node.input(2);
  if (failed(data) || failed(indices) || failed(updates))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", 0), data->getType().getRank());
  FailureOr<ScatterReductionAttr> reduction = scatterReduction(node);
  if (failed(axis) || failed(reduction))
    return failure();
  ScatterElementsOp::Properties properties;
  properties.axis = node.getRewriter().getI64IntegerAttr(*axis);
  properties.reduction = *reduction;
  return createScatter<ScatterElementsOp>(node, {*data, *indices, *updates},
                                          properties);
}

FailureOr<Values> convertScatterND(ForeignNode &node) {
  auto data = node.input(0);
  auto indices = node.input(1);
  auto updates = node.input(2);
  FailureOr<ScatterReductionAttr> reduction = scatterReduction(node);
  if (failed(data) || failed(indices) || failed(updates) || failed(reduction))
    return failure();
  ScatterNdOp::Properties properties;
  properties.reduction = *reduction;
  return createScatter<ScatterNdOp>(node, {*data, *indices, *updates},
                                    properties);
}

FailureOr<Values> convertTensorScatter(ForeignNode &node) {
  auto cache = node.input(0);
  auto update = node.input(1);
  if (failed(cache) || failed(update))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", -2), cache->getType().getRank());
  if (failed(axis))
    return failure();
  StringRef mode = node.getString("mode", "linear");
  if (mode != "linear" && mode != "circular")
    return node.fail("unknown mode '" + mode + "'");
  SmallVector<Value> operands = {*cache};
  if (node.hasInput(2)) {
    auto indices = node.input(2);
    if (failed(indices))
      return failure();
    operands.push_back(*indices);
  }
  operands.push_back(*update);
  TensorScatterOp::Properties properties;
  properties.axis = node.getRewriter().getI64IntegerAttr(*axis);
  if (mode == "circular")
    properties.circular = node.getRewriter().getUnitAttr();
  return createScatter<TensorScatterOp>(node, operands, properties);
}

//===----------------------------------------------------------------------===//
// Pad, CenterCropPad, ReverseSequence
//===----------------------------------------------------------------------===//

/// `x` cropped by `low`/`high` (non-negative counts of elements removed at
/// each end of each dim).
FailureOr<Value> crop(ForeignNode &node, TypedValue<RankedTensorType> x,
                      ArrayRef<int64_t> low, ArrayRef<int64_t> high) {
  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> starts, ends;
  SmallVector<int64_t> axes, steps;
  for (auto [d, lo, hi] : llvm::enumerate(low, high)) {
    if (!lo && !hi)
      continue;
    axes.push_back(d);
    steps.push_back(1);
    starts.push_back(rw.getI64IntegerAttr(lo));
    // An end of -hi counts from the end; no end at all for hi == 0.
    ends.push_back(rw.getI64IntegerAttr(hi ? -hi : (int64_t(1) << 62)));
  }
  if (axes.empty())
    return Value(x);
  return buildSlice(node, x, starts, ends, axes, steps);
}

/// `x` with borders `low`/`high` (negative ones crop first, in constant
/// mode) filled as `mode` says with `value` (null: zero).
FailureOr<Value> pad(ForeignNode &node, TypedValue<RankedTensorType> x,
                     ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                     PadMode mode, Value value) {
  SmallVector<int64_t> cropLow, cropHigh, padLow, padHigh;
  for (auto [lo, hi] : llvm::zip_equal(low, high)) {
    cropLow.push_back(std::max<int64_t>(-lo, 0));
    cropHigh.push_back(std::max<int64_t>(-hi, 0));
    padLow.push_back(std::max<int64_t>(lo, 0));
    padHigh.push_back(std::max<int64_t>(hi, 0));
  }
  bool crops = llvm::any_of(cropLow, [](int64_t c) { return c; }) ||
               llvm::any_of(cropHigh, [](int64_t c) { return c; });
  // Whether the border is taken from the cropped or the whole input is
  // not agreed on between implementations outside constant mode.
  if (crops && mode != PadMode::constant)
    return node.fail("negative pads are not supported in '" +
                     stringifyPadMode(mode) + "' mode");
  FailureOr<Value> cropped = crop(node, x, cropLow, cropHigh);
  if (failed(cropped))
    return failure();
  if (llvm::all_of(padLow, [](int64_t p) { return !p; }) &&
      llvm::all_of(padHigh, [](int64_t p) { return !p; }))
    return *cropped;
  RewriterBase &rw = node.getRewriter();
  PadOp::Properties properties;
  properties.low = rw.getDenseI64ArrayAttr(padLow);
  properties.high = rw.getDenseI64ArrayAttr(padHigh);
  properties.mode = PadModeAttr::get(node.getContext(), mode);
  SmallVector<Value> operands = {*cropped};
  if (value)
    operands.push_back(value);
  return node.create<PadOp>(operands, properties);
}

/// The pad value of Pad-11 and later: input #2 as a 0-d tensor of the
/// data's element type, or null when absent.
FailureOr<Value> padValue(ForeignNode &node, Type element) {
  if (!node.hasInput(2))
    return Value();
  auto value = node.input(2);
  if (failed(value))
    return failure();
  if (value->getType().getNumElements() != 1)
    return node.fail("constant_value must be a scalar");
  if (value->getType().getElementType() != element)
    return node.fail("constant_value has another element type than data");
  return node.reshape(*value, {});
}

/// Pad-11 and later with pads or axes that the model gives at run time.
FailureOr<Value> padAtRuntime(ForeignNode &node, TypedValue<RankedTensorType> x,
                              PadMode mode, Value value) {
  RankedTensorType type = x.getType();
  int64_t rank = type.getRank();
  if (!type.hasStaticShape())
    return node.fail("pads given at run time need a data input of static "
                     "shape");
  IndexMath im{node.getRewriter(), node.getLoc()};
  // Outside constant mode a negative pad would crop, and implementations
  // disagree on the border of a cropped input: the run refuses one.
  int64_t least = 0;
  if (mode == PadMode::constant)
    for (int64_t n : type.getShape())
      least = std::min(least, -n);
  SmallVector<Value> pads;
  if (node.isRuntimeInts(1)) {
    FailureOr<SmallVector<Value>> read =
        node.runtimeInts(1, least, runtimePadBound(type));
    if (failed(read))
      return failure();
    pads = *read;
  } else {
    FailureOr<SmallVector<int64_t>> list = constantList(node, 1);
    if (failed(list))
      return failure();
    for (int64_t p : *list)
      pads.push_back(im.c(p));
  }
  int64_t n = pads.size() / 2;
  SmallVector<Value> low(rank), high(rank);
  Value valid;
  if (node.getVersion() >= 18 && node.hasInput(3) && node.isRuntimeInts(3)) {
    FailureOr<SmallVector<Value>> axes = node.runtimeInts(3, -rank, rank - 1);
    if (failed(axes))
      return failure();
    if (pads.size() != 2 * axes->size())
      return node.fail("pads has " + Twine(pads.size()) + " entries for " +
                       Twine(axes->size()) + " axes");
    // Dim d's pads are those of the axis naming it, 0 if none does.
    SmallVector<Value> flags(rank);
    node.markAxes(*axes, flags, valid);
    for (int64_t d = 0; d < rank; ++d) {
      low[d] = high[d] = im.c(0);
      for (auto [i, axis] : llvm::enumerate(*axes)) {
        Value names = im.eq(im.normalizeAxis(axis, rank), im.c(d));
        low[d] = im.add(low[d], im.select(names, pads[i], im.c(0)));
        high[d] = im.add(high[d], im.select(names, pads[n + i], im.c(0)));
      }
    }
    return buildPadAtRuntime(node, x, low, high, mode, value, valid,
                             "pads that do not fit the data, or an axis "
                             "listed twice");
  }
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (node.getVersion() >= 18 && node.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> list = constantList(node, 3);
    if (failed(list))
      return failure();
    FailureOr<SmallVector<int64_t>> sorted = node.axes(*list, rank);
    if (failed(sorted))
      return failure();
    axes.clear();
    for (int64_t a : *list)
      axes.push_back(*node.axis(a, rank));
  }
  if (static_cast<int64_t>(pads.size()) !=
      2 * static_cast<int64_t>(axes.size()))
    return node.fail("pads has " + Twine(pads.size()) + " entries for " +
                     Twine(axes.size()) + " axes");
  for (auto [i, axis] : llvm::enumerate(axes)) {
    low[axis] = pads[i];
    high[axis] = pads[n + i];
  }
  return buildPadAtRuntime(node, x, low, high, mode, value, Value(),
                           "pads that crop more than the data holds");
}

FailureOr<Values> convertPad(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  int64_t rank = type.getRank();
  StringRef modeName = node.getString("mode", "constant");
  std::optional<PadMode> mode = symbolizePadMode(modeName);
  if (!mode || (*mode == PadMode::wrap && node.getVersion() < 19))
    return node.fail("unknown mode '" + modeName + "'");
  SmallVector<int64_t> pads;
  Value value;
  if (node.getVersion() < 11) {
    // Pad-1 and Pad-2: pads and the value are attributes.
    std::optional<SmallVector<int64_t>> attr =
        node.getInts(node.getVersion() < 2 ? "paddings" : "pads");
    if (!attr)
      return node.fail("pads are missing");
    pads = *attr;
    float fill = node.getFloat("value", 0.0f);
    if (fill != 0.0f)
      value = node.scalar(type.getElementType(), fill);
  } else if (node.isRuntimeInts(1) ||
             (node.getVersion() >= 18 && node.hasInput(3) &&
              node.isRuntimeInts(3))) {
    FailureOr<Value> given = padValue(node, type.getElementType());
    if (failed(given))
      return failure();
    return results(padAtRuntime(node, *x, *mode, *given));
  } else {
    FailureOr<SmallVector<int64_t>> list = constantList(node, 1);
    FailureOr<Value> given = padValue(node, type.getElementType());
    if (failed(list) || failed(given))
      return failure();
    pads = *list;
    value = *given;
  }
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (node.getVersion() >= 18 && node.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> list = constantList(node, 3);
    if (failed(list))
      return failure();
    axes.clear();
    for (int64_t a : *list) {
      FailureOr<int64_t> axis = node.axis(a, rank);
      if (failed(axis))
        return failure();
      if (llvm::is_contained(axes, *axis))
        return node.fail("axis " + Twine(a) + " is listed twice");
      axes.push_back(*axis);
    }
  }
  int64_t n = axes.size();
  if (static_cast<int64_t>(pads.size()) != 2 * n)
    return node.fail("pads has " + Twine(pads.size()) + " entries for " +
                     Twine(n) + " axes");
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    low[axis] = pads[i];
    high[axis] = pads[n + i];
  }
  return results(pad(node, *x, low, high, *mode, value));
}

/// CenterCropPad to a target shape the model gives at run time: the same
/// windows as below, from the target's symbols.
FailureOr<Value> centerCropPadAtRuntime(ForeignNode &node,
                                        TypedValue<RankedTensorType> x) {
  RankedTensorType type = x.getType();
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes = node.getInts("axes").value_or(
      llvm::to_vector(llvm::seq<int64_t>(0, rank)));
  if (!type.hasStaticShape())
    return node.fail("a target shape given at run time needs a data input "
                     "of static shape");
  // The target is at most the input padded by the run-time pad bound.
  int64_t most = 0;
  for (int64_t n : type.getShape())
    most = std::max(most, n + 2 * runtimePadBound(type));
  FailureOr<SmallVector<Value>> shape = node.runtimeInts(1, 0, most);
  if (failed(shape))
    return failure();
  if (axes.size() != shape->size())
    return node.fail("shape has " + Twine(shape->size()) + " entries for " +
                     Twine(axes.size()) + " axes");
  IndexMath im{node.getRewriter(), node.getLoc()};
  SmallVector<Value> low(rank), high(rank);
  for (auto [a, target] : llvm::zip_equal(axes, *shape)) {
    FailureOr<int64_t> axis = node.axis(a, rank);
    if (failed(axis))
      return failure();
    if (low[*axis])
      return node.fail("axis " + Twine(a) + " is listed twice");
    Value size = im.c(type.getDimSize(*axis));
    // A crop starts at floor((size - target) / 2); a pad puts the smaller
    // half first.
    Value extra = im.sub(target, size);
    low[*axis] =
        im.select(im.lt(target, size),
                  im.sub(im.c(0), im.div(im.sub(size, target), im.c(2))),
                  im.div(extra, im.c(2)));
    high[*axis] = im.sub(extra, low[*axis]);
  }
  return buildPadAtRuntime(node, x, low, high, PadMode::constant, Value(),
                           Value(), "a negative target size");
}

/// CenterCropPad: each listed dim cropped around its center or padded with
/// zeros on both sides (the odd element on the high side) to its target.
FailureOr<Values> convertCenterCropPad(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (node.isRuntimeInts(1))
    return results(centerCropPadAtRuntime(node, *x));
  FailureOr<SmallVector<int64_t>> shape = constantList(node, 1);
  if (failed(shape))
    return failure();
  RankedTensorType type = x->getType();
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes = node.getInts("axes").value_or(
      llvm::to_vector(llvm::seq<int64_t>(0, rank)));
  if (axes.size() != shape->size())
    return node.fail("shape has " + Twine(shape->size()) + " entries for " +
                     Twine(axes.size()) + " axes");
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (auto [a, target] : llvm::zip_equal(axes, *shape)) {
    FailureOr<int64_t> axis = node.axis(a, rank);
    if (failed(axis))
      return failure();
    int64_t size = type.getDimSize(*axis);
    if (ShapedType::isDynamic(size))
      return node.fail("dim " + Twine(*axis) + " must be static");
    if (target < 0)
      return node.fail("target size " + Twine(target) + " is negative");
    // Crop: the window starts at floor((size - target) / 2). Pad: the
    // smaller half goes first.
    int64_t extra = target - size;
    int64_t half = size > target ? -((size - target) / 2) : extra / 2;
    low[*axis] = half;
    high[*axis] = extra - half;
  }
  return results(pad(node, *x, low, high, PadMode::constant, Value()));
}

FailureOr<Values> convertReverseSequence(ForeignNode &node) {
  auto x = node.input(0);
  auto lengths = node.input(1);
  if (failed(x) || failed(lengths))
    return failure();
  int64_t rank = x->getType().getRank();
  FailureOr<int64_t> batch = node.axis(node.getInt("batch_axis", 1), rank);
  FailureOr<int64_t> time = node.axis(node.getInt("time_axis", 0), rank);
  if (failed(batch) || failed(time))
    return failure();
  if (lengths->getType().getRank() != 1)
    return node.fail("sequence_lens must be 1-D");
  ReverseSequenceOp::Properties properties;
  properties.batch_axis = node.getRewriter().getI64IntegerAttr(*batch);
  properties.time_axis = node.getRewriter().getI64IntegerAttr(*time);
  FailureOr<Value> reversed =
      node.create<ReverseSequenceOp>({*x, *lengths}, properties);
  if (failed(reversed) || failed(node.verifyCreated(reversed->getDefiningOp())))
    return failure();
  return Values{*reversed};
}

} // namespace

void fromonnx::populateIndexingConverters(ForeignConverters &c) {
  c.add("Flatten", 1, convertFlatten);
  c.add("Tile", 6, convertTile);
  c.add("DepthToSpace", 1, convertDepthToSpace);
  c.add("SpaceToDepth", 1, convertSpaceToDepth);
  c.add("EyeLike", 9, convertEyeLike);
  c.add("OneHot", 9, convertOneHot);
  c.add("GatherElements", 11, convertGatherElements);
  c.add("GatherND", 11, convertGatherND);
  c.add("Scatter", 9, convertScatterElements);
  c.add("ScatterElements", 11, convertScatterElements);
  c.add("ScatterND", 11, convertScatterND);
  c.add("TensorScatter", 24, convertTensorScatter);
  c.add("Pad", 1, convertPad);
  c.add("CenterCropPad", 18, convertCenterCropPad);
  c.add("ReverseSequence", 10, convertReverseSequence);
}
