//===- Sampling.cpp - ONNX Resize, Upsample, GridSample, AffineGrid, RoiAlign
//---===//
//
// The sampling ops of the convolution family, and DeformConv and MaxUnpool.
// Resize takes its scales or sizes as constants, or at run time when the
// model declares the result's shape: the scales then reach the kernel as a
// tensor, as ONNX Runtime reads them.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

//===----------------------------------------------------------------------===//
// Resize, Upsample
//===----------------------------------------------------------------------===//

/// Whether input `i` is given with at least one element (opset 11's Resize
/// passes an empty tensor for "absent").
bool hasNonEmptyInput(ForeignNode &node, unsigned i) {
  if (!node.hasInput(i))
    return false;
  auto type = dyn_cast<RankedTensorType>(node.getOp().getInputs()[i].getType());
  return !type || type.getNumElements() != 0;
}

/// The values of the constant float input `i` in f64; nullopt when it is
/// not a constant (a run-time value).
std::optional<SmallVector<double>> constantFloats(ForeignNode &node,
                                                  unsigned i) {
  DenseFPElementsAttr attr;
  if (i >= node.getOp().getInputs().size() ||
      !matchPattern(node.getOp().getInputs()[i], m_Constant(&attr)))
    return std::nullopt;
  SmallVector<double> values;
  for (APFloat v : attr.getValues<APFloat>()) {
    bool lost;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    values.push_back(v.convertToDouble());
  }
  return values;
}

/// A 1-D constant of `element` (f32 or f64).
Value floatVector(ForeignNode &node, Type element, ArrayRef<double> values) {
  SmallVector<Attribute> attrs;
  for (double v : values)
    attrs.push_back(node.getRewriter().getFloatAttr(element, v));
  auto type =
      RankedTensorType::get({static_cast<int64_t>(values.size())}, element);
  return ConstantOp::create(node.getRewriter(), node.getLoc(),
                            DenseElementsAttr::get(type, attrs));
}

/// A full-rank 1-D vector from per-axis pieces: entry `d` is element
/// `position[d]` of `perAxis` where `d` is resized, `fill` otherwise.
FailureOr<Value> spreadOverDims(ForeignNode &node, Value perAxis,
                                ArrayRef<int64_t> axes, int64_t rank,
                                double fill, int64_t offset = 0) {
  auto type = cast<RankedTensorType>(perAxis.getType());
  if (axes.size() == static_cast<size_t>(rank) && offset == 0 &&
      type.getDimSize(0) == rank && llvm::is_sorted(axes))
    return perAxis;
  RewriterBase &rw = node.getRewriter();
  SmallVector<Value> pieces;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t *at = llvm::find(axes, d);
    if (at == axes.end()) {
      pieces.push_back(floatVector(node, type.getElementType(), {fill}));
      continue;
    }
    int64_t i = offset + (at - axes.begin());
    if (type.getDimSize(0) == 1) {
      pieces.push_back(perAxis);
      continue;
    }
    FailureOr<Value> piece =
        buildSlice(node, cast<TypedValue<RankedTensorType>>(perAxis),
                   {rw.getIndexAttr(i)}, {rw.getIndexAttr(i + 1)}, {0}, {1});
    if (failed(piece))
      return failure();
    pieces.push_back(*piece);
  }
  ConcatOp::Properties props;
  props.axis = rw.getI64IntegerAttr(0);
  return node.create<ConcatOp>(pieces, props);
}

/// What a Resize or Upsample node asks for, before its sizes are known.
struct ResizeRequest {
  ResizeOp::Properties props;
  SmallVector<int64_t> axes;
  StringRef keepAspect = "stretch";
};

/// Creates the tsc.resize of `x` to `resultType`.
FailureOr<Value> createResize(ForeignNode &node, Value x, Value scales,
                              Value roi, RankedTensorType resultType,
                              ResizeOp::Properties props) {
  OperationState state(node.getLoc(), ResizeOp::getOperationName());
  state.addOperands({x, scales});
  if (roi)
    state.addOperands(roi);
  state.addTypes(resultType);
  state.useProperties(props);
  Operation *op = node.getRewriter().create(state);
  if (failed(node.verifyCreated(op)))
    return failure();
  return op->getResult(0);
}

/// The node's result type where the model declares it with static resized
/// dims: what a resize by run-time scales or sizes produces.
FailureOr<RankedTensorType> declaredResult(ForeignNode &node, unsigned input,
                                           RankedTensorType x,
                                           ArrayRef<int64_t> axes) {
  auto type = dyn_cast<RankedTensorType>(node.getOp().getResult(0).getType());
  if (!type || type.getRank() != x.getRank() ||
      llvm::any_of(axes, [&](int64_t d) { return type.isDynamicDim(d); }))
    return node.fail("input #" + Twine(input) +
                     " must be a constant, or the model must declare the "
                     "result's resized dims statically");
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t d = 0; d < x.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      shape[d] = x.getDimSize(d);
  return x.clone(shape);
}

/// Resize (and Upsample) from the request: scales or sizes, constant or
/// run-time, over `req.axes`; roi for tf_crop_and_resize.
FailureOr<Value> convertResizeRequest(ForeignNode &node,
                                      TypedValue<RankedTensorType> x,
                                      ResizeRequest &req, int scalesInput,
                                      int sizesInput, int roiInput) {
  RankedTensorType type = x.getType();
  int64_t rank = type.getRank();
  ArrayRef<int64_t> axes = req.axes;
  Type f64 = node.getRewriter().getF64Type();
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<double> full(rank, 1.0);
  Value scales;
  RankedTensorType resultType;
  auto inputDim = [&](int64_t d) -> FailureOr<double> {
    if (type.isDynamicDim(d))
      return node.fail("resizing dim " + Twine(d) +
                       " of run-time size is not supported");
    return static_cast<double>(type.getDimSize(d));
  };
  bool bySizes = sizesInput >= 0 && hasNonEmptyInput(node, sizesInput);
  if (!bySizes && (scalesInput < 0 || !hasNonEmptyInput(node, scalesInput)))
    return node.fail("one of scales and sizes must be given");
  unsigned given = bySizes ? sizesInput : scalesInput;
  FailureOr<TypedValue<RankedTensorType>> givenValue = node.input(given);
  if (failed(givenValue))
    return failure();
  if (givenValue->getType().getRank() != 1)
    return node.fail("input #" + Twine(given) + " must be a 1-D tensor");
  int64_t entries = givenValue->getType().getDimSize(0);
  if (entries != static_cast<int64_t>(axes.size()))
    return node.fail("input #" + Twine(given) + " has " + Twine(entries) +
                     " entries for " + Twine(axes.size()) + " resized dims");
  if (bySizes) {
    FailureOr<SmallVector<int64_t>> sizes =
        succeeded(node.input(given)) &&
                matchPattern(node.getOp().getInputs()[given], m_Constant())
            ? node.constantInts(given)
            : FailureOr<SmallVector<int64_t>>(failure());
    if (succeeded(sizes)) {
      // ONNX's reference: scale = size / in (f64); with a keep-aspect
      // policy one scale for all resized dims and size = round-half-up.
      SmallVector<double> perAxis;
      for (auto [i, d] : llvm::enumerate(axes)) {
        FailureOr<double> in = inputDim(d);
        if (failed(in))
          return failure();
        perAxis.push_back(static_cast<double>((*sizes)[i]) / *in);
      }
      double common = req.keepAspect == "not_larger"
                          ? *llvm::min_element(perAxis)
                          : *llvm::max_element(perAxis);
      for (auto [i, d] : llvm::enumerate(axes)) {
        if (req.keepAspect == "stretch") {
          full[d] = perAxis[i];
          shape[d] = (*sizes)[i];
        } else {
          full[d] = common;
          shape[d] = static_cast<int64_t>(common * type.getDimSize(d) + 0.5);
        }
      }
      scales = floatVector(node, f64, full);
      resultType = type.clone(shape);
    } else {
      FailureOr<RankedTensorType> declared =
          declaredResult(node, given, type, axes);
      if (failed(declared))
        return failure();
      resultType = *declared;
      // Run-time sizes: the scales as the reference computes them, in f64.
      SmallVector<double> in;
      for (int64_t d : axes) {
        FailureOr<double> size = inputDim(d);
        if (failed(size))
          return failure();
        in.push_back(*size);
      }
      FailureOr<Value> perAxis = node.create<DivOp>(
          {castTo(node, *node.input(given), f64), floatVector(node, f64, in)});
      if (failed(perAxis))
        return failure();
      if (req.keepAspect != "stretch") {
        // One scale for all resized dims: the smallest or the largest.
        auto reduce = [&](auto props) {
          props.dims = node.getRewriter().getDenseI64ArrayAttr({0});
          props.keepdim = node.getRewriter().getUnitAttr();
          using OpTy = std::conditional_t<
              std::is_same_v<decltype(props), ReduceMinOp::Properties>,
              ReduceMinOp, ReduceMaxOp>;
          return node.create<OpTy>({*perAxis}, props);
        };
        perAxis = req.keepAspect == "not_larger"
                      ? reduce(ReduceMinOp::Properties())
                      : reduce(ReduceMaxOp::Properties());
        if (failed(perAxis))
          return failure();
      }
      FailureOr<Value> spread = spreadOverDims(node, *perAxis, axes, rank, 1.0);
      if (failed(spread))
        return failure();
      scales = *spread;
    }
  } else if (std::optional<SmallVector<double>> values =
                 constantFloats(node, given)) {
    for (auto [i, d] : llvm::enumerate(axes)) {
      full[d] = (*values)[i];
      if (full[d] <= 0)
        return node.fail("scales must be positive");
      if (type.isDynamicDim(d)) {
        if (full[d] != 1.0)
          return node.fail("resizing dim " + Twine(d) +
                           " of run-time size is not supported");
        continue;
      }
      // The reference truncates scale * in, both in f64.
      shape[d] = static_cast<int64_t>(full[d] * type.getDimSize(d));
      if (shape[d] < 1)
        return node.fail("dim " + Twine(d) + " would be resized to nothing");
    }
    scales = floatVector(node, f64, full);
    resultType = type.clone(shape);
  } else {
    FailureOr<RankedTensorType> declared =
        declaredResult(node, given, type, axes);
    if (failed(declared))
      return failure();
    resultType = *declared;
    auto given32 = node.input(given);
    if (failed(given32))
      return failure();
    FailureOr<Value> spread = spreadOverDims(node, *given32, axes, rank, 1.0);
    if (failed(spread))
      return failure();
    scales = *spread;
  }

  Value roi;
  if (req.props.coordinate_transformation.getValue() ==
      CoordinateTransform::tf_crop_and_resize) {
    if (roiInput < 0 || !hasNonEmptyInput(node, roiInput))
      return node.fail("tf_crop_and_resize needs a roi");
    auto roiValue = node.input(roiInput);
    if (failed(roiValue))
      return failure();
    if (roiValue->getType().getNumElements() !=
        static_cast<int64_t>(2 * axes.size()))
      return node.fail("roi must have 2 entries per resized dim");
    FailureOr<Value> starts = spreadOverDims(node, *roiValue, axes, rank, 0.0);
    FailureOr<Value> ends =
        spreadOverDims(node, *roiValue, axes, rank, 1.0, axes.size());
    if (failed(starts) || failed(ends))
      return failure();
    ConcatOp::Properties props;
    props.axis = node.getRewriter().getI64IntegerAttr(0);
    FailureOr<Value> both = node.create<ConcatOp>({*starts, *ends}, props);
    if (failed(both))
      return failure();
    roi = *both;
  }
  return createResize(node, x, scales, roi, resultType, req.props);
}

FailureOr<Values> convertResize(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RewriterBase &rw = node.getRewriter();
  int64_t rank = x->getType().getRank();
  ResizeRequest req;
  std::optional<InterpolationMode> mode =
      symbolizeInterpolationMode(node.getString("mode", "nearest"));
  std::optional<CoordinateTransform> transform = symbolizeCoordinateTransform(
      node.getString("coordinate_transformation_mode", "half_pixel"));
  std::optional<NearestRounding> rounding = symbolizeNearestRounding(
      node.getString("nearest_mode", "round_prefer_floor"));
  if (!mode || !transform || !rounding)
    return node.fail("mode, coordinate_transformation_mode or nearest_mode "
                     "has a value that is not supported");
  req.props.mode = InterpolationModeAttr::get(node.getContext(), *mode);
  req.props.coordinate_transformation =
      CoordinateTransformAttr::get(node.getContext(), *transform);
  req.props.nearest_mode =
      NearestRoundingAttr::get(node.getContext(), *rounding);
  req.props.cubic_coeff_a =
      rw.getF64FloatAttr(node.getFloat("cubic_coeff_a", -0.75f));
  req.props.extrapolation_value =
      rw.getF64FloatAttr(node.getFloat("extrapolation_value", 0.0f));
  if (node.getInt("exclude_outside", 0))
    req.props.exclude_outside = rw.getUnitAttr();
  if (node.getInt("antialias", 0) && *mode != InterpolationMode::nearest)
    req.props.antialias = rw.getUnitAttr();
  req.keepAspect = node.getString("keep_aspect_ratio_policy", "stretch");
  if (req.keepAspect != "stretch" && req.keepAspect != "not_larger" &&
      req.keepAspect != "not_smaller")
    return node.fail("keep_aspect_ratio_policy '" + req.keepAspect +
                     "' is not supported");
  req.axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (std::optional<SmallVector<int64_t>> axes = node.getInts("axes")) {
    req.axes.clear();
    for (int64_t a : *axes) {
      FailureOr<int64_t> axis = node.axis(a, rank);
      if (failed(axis))
        return failure();
      if (llvm::is_contained(req.axes, *axis))
        return node.fail("axes lists dim " + Twine(*axis) + " twice");
      req.axes.push_back(*axis);
    }
  }
  return results(convertResizeRequest(node, *x, req, 2, 3, 1));
}

/// Upsample (opset 9) and Resize-10: scales as the second input, nearest or
/// linear on asymmetric coordinates. Nearest truncates the coordinate when
/// upsampling and rounds it up when downsampling (ONNX Runtime's rule).
FailureOr<Values> convertUpsample(ForeignNode &node) {
  // Both take (X, scales) at least; a node without its scales is refused
  // here, before anything reads them (a fuzzer's finding).
  auto x = node.input(0);
  if (failed(x) || failed(node.input(1)))
    return failure();
  RewriterBase &rw = node.getRewriter();
  ResizeRequest req;
  StringRef modeName = node.getString("mode", "nearest");
  if (modeName == "bilinear")
    modeName = "linear";
  std::optional<InterpolationMode> mode = symbolizeInterpolationMode(modeName);
  if (!mode || *mode == InterpolationMode::cubic)
    return node.fail("mode '" + modeName + "' is not supported");
  req.props.mode = InterpolationModeAttr::get(node.getContext(), *mode);
  req.props.coordinate_transformation = CoordinateTransformAttr::get(
      node.getContext(), CoordinateTransform::asymmetric);
  NearestRounding rounding = NearestRounding::floor;
  if (std::optional<SmallVector<double>> scales = constantFloats(node, 1)) {
    bool up = llvm::any_of(*scales, [](double s) { return s > 1; });
    bool down = llvm::any_of(*scales, [](double s) { return s < 1; });
    if (up && down && *mode == InterpolationMode::nearest)
      return node.fail("nearest resizing that enlarges some dims and shrinks "
                       "others is not supported");
    if (down)
      rounding = NearestRounding::ceil;
  }
  req.props.nearest_mode = NearestRoundingAttr::get(
      node.getContext(), *mode == InterpolationMode::nearest
                             ? rounding
                             : NearestRounding::round_prefer_floor);
  req.props.cubic_coeff_a = rw.getF64FloatAttr(-0.75);
  req.props.extrapolation_value = rw.getF64FloatAttr(0.0);
  req.axes = llvm::to_vector(llvm::seq<int64_t>(0, x->getType().getRank()));
  return results(convertResizeRequest(node, *x, req, 1, -1, -1));
}

//===----------------------------------------------------------------------===//
// GridSample, AffineGrid, RoiAlign
//===----------------------------------------------------------------------===//

FailureOr<Values> convertGridSample(ForeignNode &node) {
  auto x = node.input(0);
  auto grid = node.input(1);
  if (failed(x) || failed(grid))
    return failure();
  // Opset 16 spells the modes bilinear and bicubic.
  StringRef modeName =
      node.getString("mode", node.getVersion() < 20 ? "bilinear" : "linear");
  if (modeName == "bilinear")
    modeName = "linear";
  else if (modeName == "bicubic")
    modeName = "cubic";
  std::optional<InterpolationMode> mode = symbolizeInterpolationMode(modeName);
  std::optional<SamplePadding> padding =
      symbolizeSamplePadding(node.getString("padding_mode", "zeros"));
  if (!mode || !padding)
    return node.fail("mode '" + modeName + "' or padding_mode '" +
                     node.getString("padding_mode", "zeros") +
                     "' is not supported");
  GridSampleOp::Properties props;
  props.mode = InterpolationModeAttr::get(node.getContext(), *mode);
  props.padding_mode = SamplePaddingAttr::get(node.getContext(), *padding);
  if (node.getInt("align_corners", 0))
    props.align_corners = node.getRewriter().getUnitAttr();
  return results(node.create<GridSampleOp>({*x, *grid}, props));
}

/// AffineGrid: the normalized coordinates of every output point, (x, y[,
/// z], 1) per row, times thetaᵀ: one small matmul.
FailureOr<Values> convertAffineGrid(ForeignNode &node) {
  auto theta = node.input(0);
  if (failed(theta))
    return failure();
  RankedTensorType type = theta->getType();
  // The rank first: dims are read only from a rank-3 theta (a fuzzer's
  // finding: a rank-1 theta was read at dim 1).
  int64_t dims = type.getRank() == 3 ? type.getDimSize(1) : 0;
  if (type.getRank() != 3 || (dims != 2 && dims != 3) ||
      type.getDimSize(2) != dims + 1 || !isa<FloatType>(type.getElementType()))
    return node.fail("theta must be [N, 2, 3] or [N, 3, 4] floats");
  SmallVector<int64_t> spatial;
  if (!node.hasInput(1))
    return node.fail("the size input is missing");
  if (matchPattern(node.getOp().getInputs()[1], m_Constant())) {
    FailureOr<SmallVector<int64_t>> size = node.constantInts(1);
    if (failed(size))
      return failure();
    if (static_cast<int64_t>(size->size()) != dims + 2)
      return node.fail("size must have " + Twine(dims + 2) + " entries");
    spatial.assign(size->begin() + 2, size->end());
  } else {
    auto declared =
        dyn_cast<RankedTensorType>(node.getOp().getResult(0).getType());
    if (!declared || declared.getRank() != dims + 2 ||
        llvm::any_of(declared.getShape().slice(1, dims), ShapedType::isDynamic))
      return node.fail("input #1 must be a constant, or the model must "
                       "declare the result's spatial dims statically");
    spatial.assign(declared.getShape().begin() + 1,
                   declared.getShape().begin() + 1 + dims);
  }
  bool alignCorners = node.getInt("align_corners", 0);
  auto coordinates = [&](int64_t size) {
    SmallVector<double> values;
    for (int64_t i = 0; i < size; ++i)
      values.push_back(alignCorners
                           ? (size == 1 ? -1.0 : -1.0 + 2.0 * i / (size - 1))
                           : -1.0 + (2.0 * i + 1.0) / size);
    return values;
  };
  // Rows in the order of the output points; columns x (the last spatial
  // dim), y, [z], 1.
  int64_t points = 1;
  for (int64_t size : spatial)
    points *= size;
  SmallVector<SmallVector<double>> axes;
  for (int64_t size : spatial)
    axes.push_back(coordinates(size));
  SmallVector<Attribute> base;
  Type element = type.getElementType();
  RewriterBase &rw = node.getRewriter();
  for (int64_t p = 0; p < points; ++p) {
    SmallVector<int64_t> at(dims);
    for (int64_t i = dims - 1, rest = p; i >= 0; --i) {
      at[i] = rest % spatial[i];
      rest /= spatial[i];
    }
    for (int64_t i = dims - 1; i >= 0; --i)
      base.push_back(rw.getFloatAttr(element, axes[i][at[i]]));
    base.push_back(rw.getFloatAttr(element, 1.0));
  }
  Value grid = ConstantOp::create(
      rw, node.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get({points, dims + 1}, element),
                             base));
  FailureOr<Value> thetaT = node.transpose(*theta, {0, 2, 1});
  if (failed(thetaT))
    return failure();
  FailureOr<Value> points3 = node.create<MatmulOp>({grid, *thetaT});
  if (failed(points3))
    return failure();
  SmallVector<OpFoldResult> shape{node.dimSize(*theta, 0)};
  for (int64_t size : spatial)
    shape.push_back(rw.getIndexAttr(size));
  shape.push_back(rw.getIndexAttr(dims));
  return Values{node.reshape(*points3, shape)};
}

FailureOr<Values> convertRoiAlign(ForeignNode &node) {
  auto x = node.input(0);
  auto rois = node.input(1);
  auto indices = node.input(2);
  if (failed(x) || failed(rois) || failed(indices))
    return failure();
  RewriterBase &rw = node.getRewriter();
  // Opset 10 has no coordinate_transformation_mode: it behaves as
  // output_half_pixel; from 16 the default is half_pixel.
  StringRef transform = node.getString(
      "coordinate_transformation_mode",
      node.getVersion() < 16 ? "output_half_pixel" : "half_pixel");
  StringRef mode = node.getString("mode", "avg");
  if ((transform != "half_pixel" && transform != "output_half_pixel") ||
      (mode != "avg" && mode != "max"))
    return node.fail("coordinate_transformation_mode '" + transform +
                     "' or mode '" + mode + "' is not supported");
  RoiAlignOp::Properties props;
  props.output_height = rw.getI64IntegerAttr(node.getInt("output_height", 1));
  props.output_width = rw.getI64IntegerAttr(node.getInt("output_width", 1));
  props.sampling_ratio = rw.getI64IntegerAttr(node.getInt("sampling_ratio", 0));
  props.spatial_scale =
      rw.getF64FloatAttr(node.getFloat("spatial_scale", 1.0f));
  if (transform == "half_pixel")
    props.half_pixel = rw.getUnitAttr();
  if (mode == "max")
    props.max = rw.getUnitAttr();
  return results(node.create<RoiAlignOp>({*x, *rois, *indices}, props));
}

} // namespace

void fromonnx::populateSamplingConverters(ForeignConverters &c) {
  c.add("Upsample", 9, convertUpsample);
  c.add("Resize", 10, convertUpsample);
  c.add("Resize", 11, convertResize);
  c.add("GridSample", 16, convertGridSample);
  c.add("AffineGrid", 20, convertAffineGrid);
  c.add("RoiAlign", 10, convertRoiAlign);
}
