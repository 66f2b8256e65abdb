//===- TscConvolutionOps.cpp - verifiers and inference of the Convolution ops ---===//

#include "dialects/tsc/IR/TscConvolutionOps.h"
#include "dialects/tsc/IR/TscOpUtils.h"
#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::util;

std::optional<int64_t> tsc::getWindowCount(int64_t in, int64_t kernel,
                                           int64_t stride, int64_t dilation,
                                           int64_t padBegin, int64_t padEnd,
                                           bool ceilMode) {
  if (ShapedType::isDynamic(in))
    return ShapedType::kDynamic;
  int64_t span = in + padBegin + padEnd - dilation * (kernel - 1) - 1;
  if (span < 0)
    return std::nullopt;
  int64_t count = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  // ONNX (and PyTorch) drop a ceil-mode window starting past the input and
  // its begin padding: it would hold padding only.
  if (ceilMode && (count - 1) * stride >= in + padBegin)
    --count;
  return count;
}

namespace {

/// Window attributes of an op over `spatial` dims.
struct Window {
  ArrayRef<int64_t> kernel, strides, pads, dilations;
};

/// Checks the window attributes' lengths and ranges.
LogicalResult verifyWindow(std::optional<Location> loc, int64_t spatial,
                           const Window &w) {
  if (spatial < 1)
    return emitOptionalError(loc, "expected at least one spatial dim");
  auto check = [&](StringRef name, ArrayRef<int64_t> values, int64_t size,
                   int64_t min) -> LogicalResult {
    if (static_cast<int64_t>(values.size()) != size)
      return emitOptionalError(loc, name, " has ", values.size(),
                               " entries, expected ", size);
    for (int64_t v : values)
      if (v < min)
        return emitOptionalError(loc, name, " entries must be >= ", min,
                                 ", got ", v);
    return success();
  };
  return success(succeeded(check("kernel_shape", w.kernel, spatial, 1)) &&
                 succeeded(check("strides", w.strides, spatial, 1)) &&
                 succeeded(check("pads", w.pads, 2 * spatial, 0)) &&
                 succeeded(check("dilations", w.dilations, spatial, 1)));
}

/// `[N, channels, windows...]` over the spatial dims of `input`.
FailureOr<SmallVector<int64_t>> windowShape(std::optional<Location> loc,
                                            ArrayRef<int64_t> input,
                                            int64_t channels, const Window &w,
                                            bool ceilMode) {
  int64_t spatial = static_cast<int64_t>(input.size()) - 2;
  if (failed(verifyWindow(loc, spatial, w)))
    return failure();
  SmallVector<int64_t> shape{input[0], channels};
  for (int64_t i = 0; i < spatial; ++i) {
    std::optional<int64_t> count =
        getWindowCount(input[2 + i], w.kernel[i], w.strides[i], w.dilations[i],
                       w.pads[i], w.pads[spatial + i], ceilMode);
    if (!count)
      return emitOptionalError(loc, "spatial dim ", i, " of size ",
                               input[2 + i],
                               " with its pads is smaller than "
                               "the dilated kernel");
    shape.push_back(*count);
  }
  return shape;
}

/// Checks that `type` is an image: rank at least 3.
LogicalResult verifyImage(std::optional<Location> loc, StringRef what,
                          RankedTensorType type) {
  if (type.getRank() < 3)
    return emitOptionalError(loc, what, " must be [N, C, spatial...], got ",
                             type);
  return success();
}

/// The conv-like shape of `input` with `weight [F, C / group, k...]`.
FailureOr<SmallVector<int64_t>>
convShape(std::optional<Location> loc, RankedTensorType input,
          RankedTensorType weight, Value bias, ArrayRef<int64_t> strides,
          ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations, int64_t group) {
  if (failed(verifyImage(loc, "input", input)))
    return failure();
  if (weight.getRank() != input.getRank())
    return emitOptionalError(loc, "weight rank ", weight.getRank(),
                             " differs from the input's ", input.getRank());
  if (weight.getElementType() != input.getElementType())
    return emitOptionalError(loc, "weight element type ",
                             weight.getElementType(), " differs from input's ",
                             input.getElementType());
  ArrayRef<int64_t> kernel = weight.getShape().drop_front(2);
  if (llvm::any_of(kernel, ShapedType::isDynamic))
    return emitOptionalError(loc, "the kernel dims must be static");
  int64_t filters = weight.getDimSize(0), channels = input.getDimSize(1);
  if (group < 1 || ShapedType::isDynamic(filters) || filters % group != 0)
    return emitOptionalError(loc, "filters (", dimToString(filters),
                             ") must be a static multiple of group (", group,
                             ")");
  if (!dimsCompatible(channels, weight.getDimSize(1) * group))
    return emitOptionalError(loc, "input channels ", channels,
                             " differ from weight channels ",
                             weight.getDimSize(1), " x group ", group);
  if (bias) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != filters ||
        biasType.getElementType() != input.getElementType())
      return emitOptionalError(loc, "bias must be [", filters, "] of ",
                               input.getElementType(), ", got ", biasType);
  }
  return windowShape(loc, input.getShape(), filters,
                     {kernel, strides, pads, dilations}, false);
}

} // namespace

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  FailureOr<SmallVector<int64_t>> shape = convShape(
      loc, input, cast<RankedTensorType>(adaptor.getWeight().getType()),
      adaptor.getBias(), adaptor.getStrides(), adaptor.getPads(),
      adaptor.getDilations(), adaptor.getGroup());
  if (failed(shape))
    return failure();
  results.push_back(input.clone(*shape));
  return success();
}

LogicalResult Im2colOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(verifyImage(loc, "input", input)))
    return failure();
  ArrayRef<int64_t> kernel = adaptor.getKernelShape();
  FailureOr<SmallVector<int64_t>> windows = windowShape(
      loc, input.getShape(), input.getDimSize(1),
      {kernel, adaptor.getStrides(), adaptor.getPads(), adaptor.getDilations()},
      false);
  if (failed(windows))
    return failure();
  // [N, out..., C, k...]
  SmallVector<int64_t> shape{(*windows)[0]};
  shape.append(windows->begin() + 2, windows->end());
  shape.push_back(input.getDimSize(1));
  shape.append(kernel.begin(), kernel.end());
  results.push_back(input.clone(shape));
  return success();
}

LogicalResult Col2imOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(verifyImage(loc, "input", input)))
    return failure();
  int64_t spatial = input.getRank() - 2;
  ArrayRef<int64_t> block = adaptor.getBlockShape();
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations(),
                    extra = adaptor.getOutputPadding();
  if (failed(verifyWindow(loc, spatial, {block, strides, pads, dilations})))
    return failure();
  if (static_cast<int64_t>(extra.size()) != spatial)
    return emitOptionalError(loc, "output_padding has ", extra.size(),
                             " entries, expected ", spatial);
  int64_t blockSize = 1;
  for (int64_t k : block)
    blockSize *= k;
  int64_t rows = input.getDimSize(1);
  if (!ShapedType::isDynamic(rows) && rows % blockSize != 0)
    return emitOptionalError(loc, "input dim 1 (", rows,
                             ") is not a multiple of the block size ",
                             blockSize);
  SmallVector<int64_t> shape{input.getDimSize(0), ShapedType::isDynamic(rows)
                                                      ? ShapedType::kDynamic
                                                      : rows / blockSize};
  for (int64_t i = 0; i < spatial; ++i) {
    if (extra[i] < 0 || extra[i] >= std::max(strides[i], dilations[i]))
      return emitOptionalError(loc, "output_padding ", extra[i],
                               " must be in [0, max(stride, dilation))");
    int64_t blocks = input.getDimSize(2 + i);
    if (ShapedType::isDynamic(blocks)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t size = strides[i] * (blocks - 1) + dilations[i] * (block[i] - 1) +
                   1 + extra[i] - pads[i] - pads[spatial + i];
    if (blocks < 1 || size < 1)
      return emitOptionalError(loc, "spatial dim ", i,
                               " of the image would be empty");
    shape.push_back(size);
  }
  results.push_back(input.clone(shape));
  return success();
}

LogicalResult DeformConvOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  if (input.getRank() != 4)
    return emitOptionalError(loc, "deform_conv takes a 2-d image [N, C, H, W]");
  FailureOr<SmallVector<int64_t>> shape =
      convShape(loc, input, weight, adaptor.getBias(), adaptor.getStrides(),
                adaptor.getPads(), adaptor.getDilations(), adaptor.getGroup());
  if (failed(shape))
    return failure();
  int64_t groups = adaptor.getOffsetGroup();
  int64_t taps = weight.getDimSize(2) * weight.getDimSize(3);
  auto checkPlanes = [&](Value v, StringRef name,
                         int64_t perTap) -> LogicalResult {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> expected{(*shape)[0], groups * perTap * taps,
                                  (*shape)[2], (*shape)[3]};
    if (type.getRank() != 4 ||
        !llvm::all_of(llvm::zip(type.getShape(), expected), [](auto pair) {
          return dimsCompatible(std::get<0>(pair), std::get<1>(pair));
        }))
      return emitOptionalError(loc, name, " must be ", shapeToString(expected),
                               ", got ", type);
    return success();
  };
  int64_t channels = input.getDimSize(1);
  if (groups < 1 ||
      (!ShapedType::isDynamic(channels) && channels % groups != 0))
    return emitOptionalError(loc, "offset_group ", groups,
                             " must divide the input channels");
  if (failed(checkPlanes(adaptor.getOffset(), "offset", 2)) ||
      (adaptor.getMask() && failed(checkPlanes(adaptor.getMask(), "mask", 1))))
    return failure();
  results.push_back(input.clone(*shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

namespace {

template <typename Adaptor>
LogicalResult inferPool(std::optional<Location> loc, Adaptor adaptor,
                        SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(verifyImage(loc, "input", input)))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      windowShape(loc, input.getShape(), input.getDimSize(1),
                  {adaptor.getKernelShape(), adaptor.getStrides(),
                   adaptor.getPads(), adaptor.getDilations()},
                  adaptor.getCeilMode());
  if (failed(shape))
    return failure();
  results.push_back(input.clone(*shape));
  return success();
}

} // namespace

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return inferPool(loc, adaptor, results);
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return inferPool(loc, adaptor, results);
}

LogicalResult AvgPoolOp::verify() {
  if (!isa<FloatType>(getInput().getType().getElementType()))
    return emitOpError("averages float tensors only");
  return success();
}

LogicalResult LpPoolOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return inferPool(loc, adaptor, results);
}

LogicalResult LpPoolOp::verify() {
  if (!isa<FloatType>(getInput().getType().getElementType()))
    return emitOpError("takes float tensors only");
  if (static_cast<int64_t>(getP()) < 1)
    return emitOpError("p must be >= 1, got ") << getP();
  return success();
}

LogicalResult MaxPoolWithIndicesOp::verify() {
  SmallVector<Type> inferred;
  if (failed(inferPool(getLoc(), *this, inferred)))
    return failure();
  if (!areRefinements(inferred, getValues().getType()))
    return emitOpError("values type ")
           << getValues().getType() << " is not the pooled shape "
           << inferred[0];
  if (getIndices().getType().getShape() != getValues().getType().getShape())
    return emitOpError("indices and values shapes differ");
  return success();
}

LogicalResult MaxUnpoolOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (getIndices().getType().getShape() != input.getShape())
    return emitOpError("indices shape differs from the input's");
  if (result.getRank() != input.getRank() ||
      result.getElementType() != input.getElementType())
    return emitOpError("result must have the input's rank and element type");
  if (!result.hasStaticShape())
    return emitOpError("result shape must be static");
  return success();
}

//===----------------------------------------------------------------------===//
// Resizing and sampling
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  int64_t rank = input.getRank();
  if (result.getRank() != rank ||
      result.getElementType() != input.getElementType())
    return emitOpError("result must have the input's rank and element type");
  auto checkVector = [&](Value v, StringRef name,
                         int64_t size) -> LogicalResult {
    auto type = cast<RankedTensorType>(v.getType());
    Type element = type.getElementType();
    if (type.getRank() != 1 || type.getDimSize(0) != size ||
        !(element.isF32() || element.isF64()))
      return emitOpError() << name << " must be tensor<" << size
                           << "xf32> or tensor<" << size << "xf64>, got "
                           << type;
    return success();
  };
  if (failed(checkVector(getScales(), "scales", rank)) ||
      (getRoi() && failed(checkVector(getRoi(), "roi", 2 * rank))))
    return failure();
  for (int64_t d = 0; d < rank; ++d)
    if (result.isDynamicDim(d) && !input.isDynamicDim(d))
      return emitOpError("result dim ")
             << d << " is dynamic but the input's is not";
  if (getCoordinateTransformation() ==
          CoordinateTransform::tf_crop_and_resize &&
      !getRoi())
    return emitOpError("tf_crop_and_resize needs a roi");
  return success();
}

LogicalResult GridSampleOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto grid = cast<RankedTensorType>(adaptor.getGrid().getType());
  int64_t spatial = input.getRank() - 2;
  if (spatial != 2 && spatial != 3)
    return emitOptionalError(loc, "grid_sample takes 2 or 3 spatial dims, got ",
                             input);
  if (grid.getRank() != input.getRank() ||
      grid.getDimSize(spatial + 1) != spatial ||
      !dimsCompatible(grid.getDimSize(0), input.getDimSize(0)) ||
      grid.getElementType() != input.getElementType())
    return emitOptionalError(loc, "grid must be [N, out..., ", spatial,
                             "] of the input's element type, got ", grid);
  SmallVector<int64_t> shape{input.getDimSize(0), input.getDimSize(1)};
  for (int64_t i = 1; i <= spatial; ++i)
    shape.push_back(grid.getDimSize(i));
  results.push_back(input.clone(shape));
  return success();
}

LogicalResult RoiAlignOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto rois = cast<RankedTensorType>(adaptor.getRois().getType());
  auto indices = cast<RankedTensorType>(adaptor.getBatchIndices().getType());
  if (input.getRank() != 4)
    return emitOptionalError(loc, "roi_align takes [N, C, H, W], got ", input);
  if (rois.getRank() != 2 || !dimsCompatible(rois.getDimSize(1), 4) ||
      rois.getElementType() != input.getElementType())
    return emitOptionalError(loc,
                             "rois must be [R, 4] of the input's "
                             "element type, got ",
                             rois);
  if (indices.getRank() != 1 ||
      !dimsCompatible(indices.getDimSize(0), rois.getDimSize(0)))
    return emitOptionalError(loc, "batch_indices must be [R], got ", indices);
  if (static_cast<int64_t>(adaptor.getOutputHeight()) < 1 ||
      static_cast<int64_t>(adaptor.getOutputWidth()) < 1 ||
      static_cast<int64_t>(adaptor.getSamplingRatio()) < 0)
    return emitOptionalError(loc, "output sizes must be >= 1 and "
                                  "sampling_ratio >= 0");
  int64_t r = ShapedType::isDynamic(rois.getDimSize(0)) ? indices.getDimSize(0)
                                                        : rois.getDimSize(0);
  results.push_back(input.clone(
      {r, input.getDimSize(1), static_cast<int64_t>(adaptor.getOutputHeight()),
       static_cast<int64_t>(adaptor.getOutputWidth())}));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape rules (ShapeDerivationOpInterface)
//===----------------------------------------------------------------------===//

/// The window count along spatial dim `i` as an affine expression of the
/// input dim `in`; null in ceil mode (a max of two expressions).
static AffineExpr windowExpr(AffineExpr in, ArrayRef<int64_t> kernel,
                             ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                             ArrayRef<int64_t> dilations, int64_t i,
                             bool ceilMode) {
  if (!in || ceilMode)
    return {};
  int64_t spatial = static_cast<int64_t>(kernel.size());
  int64_t span = dilations[i] * (kernel[i] - 1) + 1;
  return (in + (pads[i] + pads[spatial + i] - span)).floorDiv(strides[i]) + 1;
}

/// Dim `dim` of `[N, channels, windows...]` over `input [N, C, in...]`.
static AffineExpr windowedDim(Value input, AffineExpr channels,
                              ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                              ArrayRef<int64_t> dilations, bool ceilMode,
                              int64_t dim, DimReader &reader) {
  if (dim == 0)
    return reader.dim(input, 0);
  if (dim == 1)
    return channels;
  return windowExpr(reader.dim(input, dim), kernel, strides, pads, dilations,
                    dim - 2, ceilMode);
}

/// A convolution's output channels are the weight's static F.
template <typename ConvT>
static AffineExpr convDim(ConvT conv, int64_t dim, DimReader &reader) {
  ArrayRef<int64_t> kernel =
      conv.getWeight().getType().getShape().drop_front(2);
  return windowedDim(conv.getInput(), AffineExpr(), kernel, conv.getStrides(),
                     conv.getPads(), conv.getDilations(), false, dim, reader);
}

template <typename PoolT>
static AffineExpr poolDim(PoolT pool, int64_t dim, DimReader &reader) {
  return windowedDim(pool.getInput(), reader.dim(pool.getInput(), 1),
                     pool.getKernelShape(), pool.getStrides(), pool.getPads(),
                     pool.getDilations(), pool.getCeilMode(), dim, reader);
}

AffineExpr ConvOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  return convDim(*this, dim, reader);
}

AffineExpr DeformConvOp::deriveResultDim(unsigned, int64_t dim,
                                         DimReader &reader) {
  return convDim(*this, dim, reader);
}

AffineExpr MaxPoolOp::deriveResultDim(unsigned, int64_t dim,
                                      DimReader &reader) {
  return poolDim(*this, dim, reader);
}

AffineExpr AvgPoolOp::deriveResultDim(unsigned, int64_t dim,
                                      DimReader &reader) {
  return poolDim(*this, dim, reader);
}

AffineExpr LpPoolOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  return poolDim(*this, dim, reader);
}

AffineExpr MaxPoolWithIndicesOp::deriveResultDim(unsigned, int64_t dim,
                                                 DimReader &reader) {
  return poolDim(*this, dim, reader);
}

AffineExpr Im2colOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  // [N, windows..., C, k...].
  ArrayRef<int64_t> kernel = getKernelShape();
  auto spatial = static_cast<int64_t>(kernel.size());
  if (dim == 0)
    return reader.dim(getInput(), 0);
  if (dim <= spatial)
    return windowExpr(reader.dim(getInput(), dim + 1), kernel, getStrides(),
                      getPads(), getDilations(), dim - 1, false);
  if (dim == spatial + 1)
    return reader.dim(getInput(), 1);
  return reader.constant(kernel[dim - spatial - 2]);
}

AffineExpr Col2imOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  ArrayRef<int64_t> block = getBlockShape(), strides = getStrides(),
                    pads = getPads(), dilations = getDilations(),
                    extra = getOutputPadding();
  auto spatial = static_cast<int64_t>(block.size());
  if (dim == 0)
    return reader.dim(getInput(), 0);
  if (dim == 1) {
    int64_t size = 1;
    for (int64_t k : block)
      size *= k;
    AffineExpr columns = reader.dim(getInput(), 1);
    return columns ? columns.floorDiv(size) : AffineExpr();
  }
  int64_t i = dim - 2;
  AffineExpr blocks = reader.dim(getInput(), dim);
  if (!blocks)
    return {};
  return (blocks - 1) * strides[i] + (dilations[i] * (block[i] - 1) + 1 +
                                      extra[i] - pads[i] - pads[spatial + i]);
}

AffineExpr ResizeOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  // A dynamic dim is one the scales keep.
  return reader.dim(getInput(), dim);
}

AffineExpr GridSampleOp::deriveResultDim(unsigned, int64_t dim,
                                         DimReader &reader) {
  // [N, C, grid's spatial dims...].
  if (dim < 2)
    return reader.dim(getInput(), dim);
  return reader.dim(getGrid(), dim - 1);
}

AffineExpr RoiAlignOp::deriveResultDim(unsigned, int64_t dim,
                                       DimReader &reader) {
  if (dim == 0)
    return reader.dim(getRois(), 0);
  if (dim == 1)
    return reader.dim(getInput(), 1);
  return reader.constant(dim == 2 ? getOutputHeight() : getOutputWidth());
}
