//===- Convolution.cpp - ONNX convolutions, pooling, resizing and sampling
//---===//
//
// Convolutions become GEMMs where they can: an ungrouped float Conv is
// tsc.im2col + tsc.linear (the planner gives linear to the GEMM library,
// OpenBLAS/oneDNN on the host and cuBLASLt on the GPU, and a ViT patch
// embedding or a Whisper/wav2vec feature convolution has C * k in the
// hundreds to thousands: the GEMM's K); a ConvTranspose is the GEMM
// Wᵀ · x followed by tsc.col2im, which sums the overlapping blocks. Grouped
// (depthwise) and integer convolutions stay tsc.conv, whose direct loops
// beat a GEMM with a K of a few taps.
//
//===----------------------------------------------------------------------===//

#include "dialects/tsc/IR/TscConvolutionOps.h"
#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/Foreign/IndexMath.h"
#include "passes/conversion/OnnxToTsc/Compose.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

//===----------------------------------------------------------------------===//
// Windows: kernel, strides, dilations, pads and auto_pad
//===----------------------------------------------------------------------===//

struct WindowAttrs {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

/// An attribute list of `size` entries, `fill` each when absent.
FailureOr<SmallVector<int64_t>> intList(ForeignNode &node, StringRef name,
                                        int64_t size, int64_t fill) {
  std::optional<SmallVector<int64_t>> values = node.getInts(name);
  if (!values || values->empty())
    return SmallVector<int64_t>(size, fill);
  if (static_cast<int64_t>(values->size()) != size)
    return node.fail(name + " has " + Twine(values->size()) +
                     " entries, expected " + Twine(size));
  return *values;
}

/// The node's window over the spatial dims of `input` for `kernel`, with
/// auto_pad resolved into pads (SAME: output ceil(in / stride), the odd pad
/// at the end for SAME_UPPER, at the begin for SAME_LOWER).
FailureOr<WindowAttrs> readWindow(ForeignNode &node, RankedTensorType input,
                                  ArrayRef<int64_t> kernel) {
  int64_t spatial = static_cast<int64_t>(kernel.size());
  WindowAttrs w;
  w.kernel.assign(kernel.begin(), kernel.end());
  FailureOr<SmallVector<int64_t>> strides =
      intList(node, "strides", spatial, 1);
  FailureOr<SmallVector<int64_t>> dilations =
      intList(node, "dilations", spatial, 1);
  FailureOr<SmallVector<int64_t>> pads = intList(node, "pads", 2 * spatial, 0);
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  w.strides = *strides;
  w.dilations = *dilations;
  w.pads = *pads;
  StringRef autoPad = node.getString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    w.pads.assign(2 * spatial, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t in = input.getDimSize(2 + i), s = w.strides[i];
      int64_t span = w.dilations[i] * (w.kernel[i] - 1) + 1;
      int64_t total;
      if (!ShapedType::isDynamic(in))
        total = std::max<int64_t>(0, ((in + s - 1) / s - 1) * s + span - in);
      else if (s == 1)
        total = span - 1;
      else
        return node.fail("auto_pad " + autoPad + " with stride " + Twine(s) +
                         " on a spatial dim of run-time size is not "
                         "supported");
      int64_t small = total / 2;
      bool upper = autoPad == "SAME_UPPER";
      w.pads[i] = upper ? small : total - small;
      w.pads[spatial + i] = upper ? total - small : small;
    }
  } else if (autoPad != "NOTSET") {
    return node.fail("auto_pad '" + autoPad + "' is not supported");
  }
  return w;
}

/// Input `i` as an image `[N, C, spatial...]`.
FailureOr<TypedValue<RankedTensorType>> imageInput(ForeignNode &node,
                                                   unsigned i) {
  auto x = node.input(i);
  if (failed(x))
    return failure();
  if (x->getType().getRank() < 3)
    return node.fail("input #" + Twine(i) +
                     " must be [N, C, spatial...], got rank " +
                     Twine(x->getType().getRank()));
  return x;
}

/// A weight `[F, C, k...]` of the image's rank whose kernel dims are static.
FailureOr<TypedValue<RankedTensorType>>
weightInput(ForeignNode &node, unsigned i, RankedTensorType image) {
  auto w = node.input(i);
  if (failed(w))
    return failure();
  RankedTensorType type = w->getType();
  if (type.getRank() != image.getRank())
    return node.fail("the weight's rank " + Twine(type.getRank()) +
                     " differs from the input's " + Twine(image.getRank()));
  if (!type.hasStaticShape())
    return node.fail("the weight's shape must be static");
  if (auto kernel = node.getInts("kernel_shape"))
    if (!kernel->empty() &&
        ArrayRef<int64_t>(*kernel) != type.getShape().drop_front(2))
      return node.fail("kernel_shape differs from the weight's shape");
  return w;
}

DenseI64ArrayAttr i64s(ForeignNode &node, ArrayRef<int64_t> values) {
  return node.getRewriter().getDenseI64ArrayAttr(values);
}

//===----------------------------------------------------------------------===//
// Conv, ConvInteger
//===----------------------------------------------------------------------===//

/// `[N, C, k...]`-shaped bias `[F]` as `[F, 1...]` for adding to an image.
FailureOr<Value> addChannelBias(ForeignNode &node, Value y, Value bias) {
  if (!bias)
    return y;
  int64_t rank = cast<RankedTensorType>(y.getType()).getRank();
  SmallVector<OpFoldResult> sizes{node.dimSize(bias, 0)};
  sizes.append(rank - 2, node.getRewriter().getIndexAttr(1));
  return node.create<AddOp>({y, node.reshape(bias, sizes)});
}

FailureOr<Values> convertConv(ForeignNode &node) {
  auto x = imageInput(node, 0);
  if (failed(x))
    return failure();
  auto w = weightInput(node, 1, x->getType());
  if (failed(w))
    return failure();
  FailureOr<Value> bias = node.optionalInput(2);
  if (failed(bias))
    return failure();
  FailureOr<WindowAttrs> win =
      readWindow(node, x->getType(), w->getType().getShape().drop_front(2));
  if (failed(win))
    return failure();
  return results(buildConvolution(node, *x, *w, *bias, win->strides, win->pads,
                                  win->dilations, node.getInt("group", 1)));
}

/// `q - zero_point` in i32; a 1-D zero point (one per output channel of a
/// weight) is reshaped to `[F, 1...]`.
FailureOr<Value> subtractZeroPoint(ForeignNode &node, Value q,
                                   unsigned zpIndex) {
  Type i32 = node.getRewriter().getI32Type();
  Value wide = castTo(node, q, i32);
  if (!node.hasInput(zpIndex))
    return wide;
  auto zp = node.input(zpIndex);
  if (failed(zp))
    return failure();
  Value zero = castTo(node, *zp, i32);
  int64_t rank = cast<RankedTensorType>(q.getType()).getRank();
  if (zp->getType().getRank() == 1 && zp->getType().getDimSize(0) != 1) {
    SmallVector<OpFoldResult> sizes{node.dimSize(zero, 0)};
    sizes.append(rank - 1, node.getRewriter().getIndexAttr(1));
    zero = node.reshape(zero, sizes);
  }
  return node.create<SubOp>({wide, zero});
}

/// CausalConvWithState (27): a depthwise 1-D convolution over past_state
/// (zeros without it, [B, C, k - 1]) ++ input ([B, C, L]) with no padding,
/// so output t sees inputs t - k + 1 .. t; optional bias and SiLU; the
/// present state is the last k - 1 positions of that concatenation.
FailureOr<Values> convertCausalConvWithState(ForeignNode &node) {
  auto x = node.input(0);
  auto w = node.input(1);
  if (failed(x) || failed(w))
    return failure();
  RankedTensorType xt = x->getType(), wt = w->getType();
  if (xt.getRank() != 3 || wt.getRank() != 3 || wt.getDimSize(1) != 1)
    return node.fail("input must be [batch, channels, length] and weight "
                     "[channels, 1, k]");
  int64_t channels = xt.getDimSize(1), k = wt.getDimSize(2);
  if (ShapedType::isDynamic(channels) || ShapedType::isDynamic(k) ||
      wt.getDimSize(0) != channels || k < 1)
    return node.fail("the channels and the kernel size must be static, the "
                     "weight with one kernel per channel");
  StringRef activation = node.getString("activation", "none");
  if (activation != "none" && activation != "silu" && activation != "swish")
    return node.fail("activation '" + activation +
                     "' is not one of 'silu', 'swish', 'none'");
  RewriterBase &rw = node.getRewriter();
  FailureOr<Value> bias = node.optionalInput(2);
  if (failed(bias))
    return failure();
  FailureOr<Value> pastInput = node.optionalInput(3);
  if (failed(pastInput))
    return failure();
  Value past = *pastInput;
  if (!past) {
    past = buildFilled(
        node,
        {node.dimSize(*x, 0), rw.getIndexAttr(channels),
         rw.getIndexAttr(k - 1)},
        DenseElementsAttr::get(RankedTensorType::get({}, xt.getElementType()),
                               rw.getZeroAttr(xt.getElementType())));
  }
  ConcatOp::Properties time;
  time.axis = rw.getI64IntegerAttr(2);
  FailureOr<Value> padded = node.create<ConcatOp>({past, *x}, time);
  if (failed(padded))
    return failure();
  WindowAttrs win{{k}, {1}, {1}, {0, 0}};
  FailureOr<Value> y = buildConvolution(node, *padded, *w, *bias, win.strides,
                                        win.pads, win.dilations, channels);
  if (failed(y))
    return failure();
  if (activation != "none")
    y = SiluOp::create(rw, node.getLoc(), y->getType(), *y).getResult();
  // The last k - 1 positions: from the input's length on.
  OpFoldResult length = node.dimSize(*x, 2);
  auto paddedValue = cast<TypedValue<RankedTensorType>>(*padded);
  FailureOr<Value> present;
  if (isa<Attribute>(length)) {
    present = buildSlice(node, paddedValue, {length},
                         {node.dimSize(*padded, 2)}, {2}, {1});
  } else {
    Location loc = node.getLoc();
    Value total =
        arith::AddIOp::create(rw, loc, node.toIndex(length),
                              arith::ConstantIndexOp::create(rw, loc, k - 1));
    FailureOr<Value> positions =
        buildRange(node, rw.getI64Type(), {length, total, rw.getIndexAttr(1)});
    if (failed(positions))
      return failure();
    // Positions from the length on are never negative: a plain gather.
    GatherOp::Properties along;
    along.axis = rw.getI64IntegerAttr(2);
    present = node.create<GatherOp>({paddedValue, *positions}, along);
    if (failed(present))
      return failure();
    present =
        node.reshape(*present, {node.dimSize(*x, 0), rw.getIndexAttr(channels),
                                rw.getIndexAttr(k - 1)});
  }
  if (failed(present))
    return failure();
  return Values{*y, *present};
}

/// The i32 convolution of ConvInteger and QLinearConv: (x - x_zp) *
/// (w - w_zp) (+ the i32 bias input `biasIndex` when given), from the
/// operand positions of `x`, its zero point, `w` and its zero point.
/// Padding reads zero after the zero point is subtracted, as the padded
/// input holds the zero point.
FailureOr<Value> integerConv(ForeignNode &node, unsigned xIndex,
                             unsigned xZeroPoint, unsigned wIndex,
                             unsigned wZeroPoint,
                             std::optional<unsigned> biasIndex) {
  auto x = imageInput(node, xIndex);
  if (failed(x))
    return failure();
  auto w = weightInput(node, wIndex, x->getType());
  if (failed(w))
    return failure();
  if (node.hasInput(xZeroPoint)) {
    auto zp = node.input(xZeroPoint);
    if (failed(zp))
      return failure();
    if (zp->getType().getNumElements() != 1)
      return node.fail("x_zero_point must be a scalar (per-tensor)");
  }
  FailureOr<Value> bias =
      biasIndex ? node.optionalInput(*biasIndex) : FailureOr<Value>(Value());
  if (failed(bias))
    return failure();
  FailureOr<WindowAttrs> win =
      readWindow(node, x->getType(), w->getType().getShape().drop_front(2));
  if (failed(win))
    return failure();
  FailureOr<Value> xs = subtractZeroPoint(node, *x, xZeroPoint);
  FailureOr<Value> ws = subtractZeroPoint(node, *w, wZeroPoint);
  if (failed(xs) || failed(ws))
    return failure();
  return buildConvolution(node, *xs, cast<TypedValue<RankedTensorType>>(*ws),
                          *bias, win->strides, win->pads, win->dilations,
                          node.getInt("group", 1));
}

FailureOr<Values> convertConvInteger(ForeignNode &node) {
  return results(integerConv(node, 0, 2, 1, 3, std::nullopt));
}

/// QLinearConv: the i32 convolution with its i32 bias, requantized with
/// x_scale w_scale / y_scale (w_scale per tensor or per output channel)
/// and y_zp.
FailureOr<Values> convertQLinearConv(ForeignNode &node) {
  FailureOr<Value> acc = integerConv(node, 0, 2, 3, 5, 8);
  auto xScale = node.input(1);
  auto wScale = node.input(4);
  auto yScale = node.input(6);
  if (failed(acc) || failed(xScale) || failed(wScale) || failed(yScale))
    return failure();
  // A per-channel w_scale scales dim 1 of the [N, F, spatial...] result.
  Value channelScale = *wScale;
  int64_t rank = cast<RankedTensorType>(acc->getType()).getRank();
  if (wScale->getType().getRank() == 1 &&
      wScale->getType().getDimSize(0) != 1) {
    SmallVector<OpFoldResult> sizes{node.dimSize(channelScale, 0)};
    sizes.append(rank - 2, node.getRewriter().getIndexAttr(1));
    channelScale = node.reshape(channelScale, sizes);
  }
  FailureOr<Value> scales = node.create<MulOp>({*xScale, channelScale});
  FailureOr<Value> multiplier =
      failed(scales) ? scales : node.create<DivOp>({*scales, *yScale});
  if (failed(multiplier))
    return failure();
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return results(buildRequantize(node, *acc, *multiplier, 7,
                                 x->getType().getElementType()));
}

//===----------------------------------------------------------------------===//
// ConvTranspose, Col2Im
//===----------------------------------------------------------------------===//

/// Col2im of `cols [N, C * K, blocks...]` into an image of `image` sizes
/// along the spatial dims: the end pad grows (crops) or output_padding adds
/// rows so that the image has exactly that size.
FailureOr<Value> foldBlocks(ForeignNode &node, Value cols,
                            ArrayRef<int64_t> block, ArrayRef<int64_t> strides,
                            ArrayRef<int64_t> dilations,
                            SmallVector<int64_t> pads,
                            ArrayRef<int64_t> image) {
  auto type = cast<RankedTensorType>(cols.getType());
  int64_t spatial = static_cast<int64_t>(block.size());
  SmallVector<int64_t> extra(spatial, 0);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t blocks = type.getDimSize(2 + i);
    if (ShapedType::isDynamic(image[i]))
      continue;
    if (ShapedType::isDynamic(blocks))
      return node.fail("an output size given for a spatial dim of run-time "
                       "size is not supported");
    int64_t full = strides[i] * (blocks - 1) + dilations[i] * (block[i] - 1) +
                   1 - pads[i] - pads[spatial + i];
    if (image[i] <= full) {
      pads[spatial + i] += full - image[i];
    } else if (image[i] - full < std::max(strides[i], dilations[i])) {
      extra[i] = image[i] - full;
    } else {
      return node.fail("output size " + Twine(image[i]) + " of spatial dim " +
                       Twine(i) + " exceeds what the blocks cover (" +
                       Twine(full) + ") by a stride or more");
    }
    if (pads[spatial + i] < 0)
      return node.fail("negative pads are not supported");
  }
  Col2imOp::Properties props;
  props.block_shape = i64s(node, block);
  props.strides = i64s(node, strides);
  props.pads = i64s(node, pads);
  props.dilations = i64s(node, dilations);
  props.output_padding = i64s(node, extra);
  return node.create<Col2imOp>({cols}, props);
}

FailureOr<Values> convertConvTranspose(ForeignNode &node) {
  auto x = imageInput(node, 0);
  if (failed(x))
    return failure();
  auto w = weightInput(node, 1, x->getType());
  if (failed(w))
    return failure();
  RankedTensorType xType = x->getType(), wType = w->getType();
  if (!isa<FloatType>(xType.getElementType()))
    return node.fail("ConvTranspose takes float tensors");
  int64_t rank = xType.getRank(), spatial = rank - 2;
  int64_t group = node.getInt("group", 1);
  int64_t channels = wType.getDimSize(0);
  ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
  if (group < 1 || channels % group != 0 ||
      !(xType.isDynamicDim(1) || xType.getDimSize(1) == channels))
    return node.fail("input channels must equal the weight's dim 0 (" +
                     Twine(channels) + "), a multiple of group " +
                     Twine(group));
  FailureOr<SmallVector<int64_t>> strides =
      intList(node, "strides", spatial, 1);
  FailureOr<SmallVector<int64_t>> dilations =
      intList(node, "dilations", spatial, 1);
  FailureOr<SmallVector<int64_t>> outputPadding =
      intList(node, "output_padding", spatial, 0);
  FailureOr<SmallVector<int64_t>> pads = intList(node, "pads", 2 * spatial, 0);
  if (failed(strides) || failed(dilations) || failed(outputPadding) ||
      failed(pads))
    return failure();
  // The image size: output_shape, or for SAME in * stride, or what the
  // blocks cover plus output_padding (kDynamic where the input dim is).
  SmallVector<int64_t> image(spatial, ShapedType::kDynamic);
  std::optional<SmallVector<int64_t>> outputShape =
      node.getInts("output_shape");
  if (outputShape && static_cast<int64_t>(outputShape->size()) == rank)
    outputShape->erase(outputShape->begin(), outputShape->begin() + 2);
  if (outputShape && !outputShape->empty() &&
      static_cast<int64_t>(outputShape->size()) != spatial)
    return node.fail("output_shape has " + Twine(outputShape->size()) +
                     " entries, expected " + Twine(spatial));
  StringRef autoPad = node.getString("auto_pad", "NOTSET");
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (autoPad != "NOTSET" && autoPad != "VALID" && !same)
    return node.fail("auto_pad '" + autoPad + "' is not supported");
  if (autoPad == "VALID" || same)
    pads->assign(2 * spatial, 0);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t in = xType.getDimSize(2 + i);
    // The full output extent, with the attributes' products checked: a
    // hostile stride or dilation must not overflow.
    int64_t full = ShapedType::kDynamic;
    std::optional<int64_t> upsampled;
    if (!ShapedType::isDynamic(in)) {
      std::optional<int64_t> extent = llvm::checkedMul((*strides)[i], in - 1);
      std::optional<int64_t> reach =
          llvm::checkedMul((*dilations)[i], kernel[i] - 1);
      if (extent && reach)
        extent = llvm::checkedAdd(*extent, *reach);
      if (extent)
        extent = llvm::checkedAdd(*extent, (*outputPadding)[i]);
      if (extent)
        extent = llvm::checkedAdd(*extent, int64_t(1));
      upsampled = llvm::checkedMul(in, (*strides)[i]);
      if (!extent || !reach || !upsampled)
        return node.fail("strides, dilations and output_padding give an "
                         "output size that overflows");
      full = *extent;
    }
    if (outputShape && !outputShape->empty())
      image[i] = (*outputShape)[i];
    else if (same && upsampled)
      image[i] = *upsampled;
    else if (same)
      return node.fail("auto_pad " + autoPad +
                       " on a spatial dim of run-time size is not supported");
    if (same && !ShapedType::isDynamic(in)) {
      // The padding ONNX's total_padding rule gives, split like auto_pad.
      int64_t total = std::max<int64_t>(0, full - image[i]);
      int64_t small = total / 2;
      (*pads)[i] = autoPad == "SAME_UPPER" ? small : total - small;
      (*pads)[spatial + i] = total - (*pads)[i];
    }
    if (ShapedType::isDynamic(image[i]) && !ShapedType::isDynamic(in))
      image[i] = full - (*pads)[i] - (*pads)[spatial + i];
  }

  // The GEMM: per group, x [N * L, C / group] times w [C / group, F / group
  // * K], giving each input position's block of every output channel.
  RewriterBase &rw = node.getRewriter();
  int64_t blockSize = wType.getNumElements() / channels; // F / group * K
  int64_t inGroup = channels / group;
  SmallVector<OpFoldResult> xSizes = node.sizes(*x);
  OpFoldResult n = xSizes[0];
  OpFoldResult positions = rw.getIndexAttr(1);
  for (int64_t i = 0; i < spatial; ++i)
    positions = node.multiply(positions, xSizes[2 + i]);
  // [N, C, L] -> [N, G, C / G, L] -> [G, N, L, C / G] -> [G, N * L, C / G]
  Value flat = node.reshape(
      *x, {n, rw.getIndexAttr(group), rw.getIndexAttr(inGroup), positions});
  FailureOr<Value> rows = node.transpose(flat, {1, 0, 3, 2});
  if (failed(rows))
    return failure();
  Value lhs =
      node.reshape(*rows, {rw.getIndexAttr(group), node.multiply(n, positions),
                           rw.getIndexAttr(inGroup)});
  FailureOr<Value> cols;
  if (group == 1) {
    LinearOp::Properties linear;
    linear.operandSegmentSizes = {1, 1, 0, 0};
    linear.weight_kn = rw.getUnitAttr();
    Value weight = node.reshape(
        *w, {rw.getIndexAttr(channels), rw.getIndexAttr(blockSize)});
    cols = node.create<LinearOp>({lhs, weight}, linear);
  } else {
    Value weight =
        node.reshape(*w, {rw.getIndexAttr(group), rw.getIndexAttr(inGroup),
                          rw.getIndexAttr(blockSize)});
    cols = node.create<MatmulOp>({lhs, weight});
  }
  if (failed(cols))
    return failure();
  // [G, N * L, F / G * K] -> [G, N, L, F / G * K] -> [N, G, F / G * K, L]
  // -> [N, F * K, in...]
  Value split = node.reshape(*cols, {rw.getIndexAttr(group), n, positions,
                                     rw.getIndexAttr(blockSize)});
  FailureOr<Value> blocks = node.transpose(split, {1, 0, 3, 2});
  if (failed(blocks))
    return failure();
  SmallVector<OpFoldResult> blockSizes{n, rw.getIndexAttr(group * blockSize)};
  blockSizes.append(xSizes.begin() + 2, xSizes.end());
  FailureOr<Value> y = foldBlocks(node, node.reshape(*blocks, blockSizes),
                                  kernel, *strides, *dilations, *pads, image);
  if (failed(y))
    return failure();
  FailureOr<Value> bias = node.optionalInput(2);
  if (failed(bias))
    return failure();
  return results(addChannelBias(node, *y, *bias));
}

/// Col2Im whose image_shape or block_shape the model takes at run time:
/// each input element's place in the image [N, C * prod(image)] is computed
/// elementwise from symbols read from those inputs, and one scatter-add sums
/// the elements there (those landing in the padding skipped). The channel
/// count C = dim 1 / prod(block_shape) is a symbol too; a run whose shapes
/// do not fit the input (C not whole, another block count than L) fails
/// naming it.
MaybeValue col2imAtRuntime(ForeignNode &node, TypedValue<RankedTensorType> x,
                           int64_t spatial, ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> dilations,
                           ArrayRef<int64_t> pads) {
  RankedTensorType type = x.getType();
  if (type.isDynamicDim(1) || type.isDynamicDim(2))
    return node.fail("with a run-time image_shape or block_shape, dims 1 and "
                     "2 of the input must be static");
  int64_t rows = type.getDimSize(1), blocks = type.getDimSize(2);
  // Blocks cover at most stride * L + dilation * (rows - 1) + 1 pixels
  // along a dim: the image symbols' range, which the planner sizes for.
  int64_t most = 1;
  for (int64_t i = 0; i < spatial; ++i)
    most = std::max(most, strides[i] * blocks + dilations[i] * (rows - 1) + 1);
  FailureOr<SmallVector<OpFoldResult>> image = node.sizeElements(1, 1, most);
  FailureOr<SmallVector<OpFoldResult>> block = node.sizeElements(2, 1, rows);
  if (failed(image) || failed(block))
    return failure();
  // One size per spatial dim in each (a fuzzer's finding: fewer were read
  // past their end).
  if (int64_t(image->size()) != spatial || int64_t(block->size()) != spatial)
    return node.fail("image_shape and block_shape need " + Twine(spatial) +
                     " elements each (the input's spatial "
                     "dims), got " +
                     Twine(image->size()) + " and " + Twine(block->size()));
  RewriterBase &rw = node.getRewriter();
  Location loc = node.getLoc();
  IndexMath im{rw, loc};
  Type i64 = rw.getI64Type();
  SmallVector<Value> img, blk, counts;
  // Conditions as index selects: the ops symbol definitions may use.
  Value no = im.eq(im.c(0), im.c(1)), valid = im.eq(im.c(0), im.c(0));
  Value perBlock = im.c(1), blockCount = im.c(1);
  for (int64_t i = 0; i < spatial; ++i) {
    img.push_back(node.toIndex((*image)[i]));
    blk.push_back(node.toIndex((*block)[i]));
    Value reach =
        im.add(im.mul(im.c(dilations[i]), im.sub(blk[i], im.c(1))), im.c(1));
    Value span =
        im.sub(im.add(img[i], im.c(pads[i] + pads[spatial + i])), reach);
    counts.push_back(im.add(im.div(span, im.c(strides[i])), im.c(1)));
    valid = im.select(im.lt(span, im.c(0)), no, valid);
    perBlock = im.mul(perBlock, blk[i]);
    blockCount = im.mul(blockCount, counts[i]);
  }
  Value channels = im.div(im.c(rows), perBlock);
  valid = im.select(im.eq(im.mul(channels, perBlock), im.c(rows)), valid, no);
  valid = im.select(im.eq(blockCount, im.c(blocks)), valid, no);
  channels = node.defineSymbol("channels", im.select(valid, channels, im.c(-1)),
                               1, rows);
  Value total = channels;
  int64_t mostTotal = rows;
  for (int64_t i = 0; i < spatial; ++i) {
    total = im.mul(total, img[i]);
    mostTotal *= most;
  }
  total = node.defineSymbol("image elements", total, 1, mostTotal);

  // Per element [rows, blocks] of the input: its channel, its offset in the
  // block and the block's position, digit by digit (row-major).
  auto scalar = [&](Value v) -> Value {
    return buildShapeTensor(rw, loc, {v}, /*scalar=*/true, i64);
  };
  auto column = [&](int64_t n, ArrayRef<OpFoldResult> shape) -> MaybeValue {
    FailureOr<Value> range = buildRange(
        node, i64,
        {rw.getIndexAttr(0), rw.getIndexAttr(n), rw.getIndexAttr(1)});
    if (failed(range))
      return failure();
    return node.reshape(*range, shape);
  };
  MaybeValue row = column(rows, {rw.getIndexAttr(rows), rw.getIndexAttr(1)});
  MaybeValue position =
      column(blocks, {rw.getIndexAttr(1), rw.getIndexAttr(blocks)});
  MaybeValue flat = binary<DivOp>(node, row, scalar(perBlock));
  MaybeValue offset = binary<ModOp>(node, row, scalar(perBlock));
  SmallVector<MaybeValue> offsets(spatial, failure()),
      positions(spatial, failure());
  for (int64_t i = spatial - 1; i >= 0; --i) {
    offsets[i] = binary<ModOp>(node, offset, scalar(blk[i]));
    offset = binary<DivOp>(node, offset, scalar(blk[i]));
    positions[i] = binary<ModOp>(node, position, scalar(counts[i]));
    position = binary<DivOp>(node, position, scalar(counts[i]));
  }
  MaybeValue inside = failure();
  auto constant = [&](int64_t v) { return node.scalar(i64, v); };
  for (int64_t i = 0; i < spatial; ++i) {
    MaybeValue at = binary<SubOp>(
        node,
        binary<AddOp>(node,
                      binary<MulOp>(node, positions[i], constant(strides[i])),
                      binary<MulOp>(node, offsets[i], constant(dilations[i]))),
        constant(pads[i]));
    Value size = scalar(img[i]);
    MaybeValue within =
        binary<AndOp>(node, binary<GreaterEqualOp>(node, at, constant(0)),
                      binary<LessOp>(node, at, size));
    inside = i == 0 ? within : binary<AndOp>(node, inside, within);
    flat = binary<AddOp>(node, binary<MulOp>(node, flat, size), at);
  }
  // Out of range (the padding): skipped by the scatter.
  MaybeValue index = select(node, inside, flat, scalar(total));
  if (failed(index))
    return failure();
  OpFoldResult batch = node.dimSize(x, 0);
  OpFoldResult elements = rw.getIndexAttr(rows * blocks);
  FailureOr<Value> indices =
      buildExpand(node,
                  cast<TypedValue<RankedTensorType>>(
                      node.reshape(*index, {rw.getIndexAttr(1), elements})),
                  {batch, elements});
  if (failed(indices))
    return failure();
  Value updates = node.reshape(x, {batch, elements});
  Value zeros = buildFilled(
      node, {batch, total},
      DenseElementsAttr::get(RankedTensorType::get({}, type.getElementType()),
                             rw.getZeroAttr(type.getElementType())));
  ScatterElementsOp::Properties properties;
  properties.axis = rw.getI64IntegerAttr(1);
  properties.reduction =
      ScatterReductionAttr::get(node.getContext(), ScatterReduction::add);
  FailureOr<Value> sum =
      node.create<ScatterElementsOp>({zeros, *indices, updates}, properties);
  if (failed(sum))
    return failure();
  SmallVector<OpFoldResult> shape{batch, channels};
  shape.append(image->begin(), image->end());
  return node.reshape(*sum, shape);
}

FailureOr<Values> convertCol2Im(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  if (type.getRank() != 3)
    return node.fail("input must be [N, C * prod(block_shape), L]");
  // The spatial rank: the length of image_shape (static in either form).
  auto imageShape = node.input(1);
  if (failed(imageShape))
    return failure();
  if (imageShape->getType().getRank() != 1 ||
      imageShape->getType().isDynamicDim(0))
    return node.fail("image_shape must be a 1-D tensor of static length");
  int64_t spatial = imageShape->getType().getDimSize(0);
  FailureOr<SmallVector<int64_t>> strides =
      intList(node, "strides", spatial, 1);
  FailureOr<SmallVector<int64_t>> dilations =
      intList(node, "dilations", spatial, 1);
  FailureOr<SmallVector<int64_t>> pads = intList(node, "pads", 2 * spatial, 0);
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  if (node.isRuntimeInts(1) || node.isRuntimeInts(2))
    return results(
        col2imAtRuntime(node, *x, spatial, *strides, *dilations, *pads));
  FailureOr<SmallVector<int64_t>> image = node.constantInts(1);
  if (failed(image))
    return failure();
  FailureOr<SmallVector<int64_t>> block = node.constantInts(2);
  if (failed(block))
    return failure();
  if (static_cast<int64_t>(block->size()) != spatial)
    return node.fail("image_shape and block_shape must have one length");
  // L is the product of the block counts along each dim.
  SmallVector<OpFoldResult> sizes{node.dimSize(*x, 0), node.dimSize(*x, 1)};
  int64_t count = 1;
  for (int64_t i = 0; i < spatial; ++i) {
    std::optional<int64_t> blocks =
        getWindowCount((*image)[i], (*block)[i], (*strides)[i], (*dilations)[i],
                       (*pads)[i], (*pads)[spatial + i], false);
    if (!blocks || *blocks < 1)
      return node.fail("the image with its pads is smaller than a block");
    count *= *blocks;
    sizes.push_back(node.getRewriter().getIndexAttr(*blocks));
  }
  if (!type.isDynamicDim(2) && type.getDimSize(2) != count)
    return node.fail("input dim 2 is " + Twine(type.getDimSize(2)) +
                     ", the blocks of the image are " + Twine(count));
  return results(foldBlocks(node, node.reshape(*x, sizes), *block, *strides,
                            *dilations, *pads, *image));
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The window of a pooling node: kernel_shape is required.
FailureOr<WindowAttrs> poolWindow(ForeignNode &node, RankedTensorType input) {
  std::optional<SmallVector<int64_t>> kernel = node.getInts("kernel_shape");
  if (!kernel || static_cast<int64_t>(kernel->size()) != input.getRank() - 2)
    return node.fail("kernel_shape must have one entry per spatial dim");
  return readWindow(node, input, *kernel);
}

template <typename Props>
void setPoolProperties(ForeignNode &node, Props &props,
                       const WindowAttrs &win) {
  props.kernel_shape = i64s(node, win.kernel);
  props.strides = i64s(node, win.strides);
  props.pads = i64s(node, win.pads);
  props.dilations = i64s(node, win.dilations);
  if (node.getInt("ceil_mode", 0))
    props.ceil_mode = node.getRewriter().getUnitAttr();
}

/// A pooling op of the node's input and window, `extra` setting its own
/// attributes.
template <typename OpTy>
FailureOr<Values>
convertPool(ForeignNode &node,
            function_ref<void(typename OpTy::Properties &)> extra = {}) {
  auto x = imageInput(node, 0);
  if (failed(x))
    return failure();
  FailureOr<WindowAttrs> win = poolWindow(node, x->getType());
  if (failed(win))
    return failure();
  typename OpTy::Properties props;
  setPoolProperties(node, props, *win);
  if (extra)
    extra(props);
  return results(node.create<OpTy>({*x}, props));
}

FailureOr<Values> convertMaxPool(ForeignNode &node) {
  if (!node.isOutputUsed(1))
    return convertPool<MaxPoolOp>(node);
  auto x = imageInput(node, 0);
  if (failed(x))
    return failure();
  FailureOr<WindowAttrs> win = poolWindow(node, x->getType());
  if (failed(win))
    return failure();
  MaxPoolOp::Properties shapeProps;
  setPoolProperties(node, shapeProps, *win);
  SmallVector<Type> types;
  MaxPoolOp::Adaptor adaptor(ValueRange{*x}, DictionaryAttr(), shapeProps, {});
  if (failed(MaxPoolOp::inferReturnTypes(node.getContext(), node.getLoc(),
                                         adaptor, types)))
    return node.fail("the pooling window does not fit the input");
  auto values = cast<RankedTensorType>(types[0]);
  MaxPoolWithIndicesOp::Properties props;
  setPoolProperties(node, props, *win);
  if (node.getInt("storage_order", 0))
    props.column_major = node.getRewriter().getUnitAttr();
  OperationState state(node.getLoc(), MaxPoolWithIndicesOp::getOperationName());
  state.addOperands(*x);
  state.addTypes({values, values.clone(node.getRewriter().getI64Type())});
  state.useProperties(props);
  Operation *op = node.getRewriter().create(state);
  if (failed(node.verifyCreated(op)))
    return failure();
  return Values{op->getResult(0), op->getResult(1)};
}

FailureOr<Values> convertAveragePool(ForeignNode &node) {
  return convertPool<AvgPoolOp>(node, [&](AvgPoolOp::Properties &props) {
    if (node.getInt("count_include_pad", 0))
      props.count_include_pad = node.getRewriter().getUnitAttr();
  });
}

FailureOr<Values> convertLpPool(ForeignNode &node) {
  return convertPool<LpPoolOp>(node, [&](LpPoolOp::Properties &props) {
    props.p = node.getRewriter().getI64IntegerAttr(node.getInt("p", 2));
  });
}

/// GlobalAveragePool and GlobalMaxPool: a reduction over the spatial dims.
template <typename ReduceTy>
FailureOr<Values> convertGlobalPool(ForeignNode &node) {
  auto x = imageInput(node, 0);
  if (failed(x))
    return failure();
  typename ReduceTy::Properties props;
  props.dims = i64s(
      node, llvm::to_vector(llvm::seq<int64_t>(2, x->getType().getRank())));
  props.keepdim = node.getRewriter().getUnitAttr();
  return results(node.create<ReduceTy>({*x}, props));
}

//===----------------------------------------------------------------------===//
// DeformConv, MaxUnpool
//===----------------------------------------------------------------------===//

FailureOr<Values> convertDeformConv(ForeignNode &node) {
  auto x = imageInput(node, 0);
  if (failed(x))
    return failure();
  if (x->getType().getRank() != 4)
    return node.fail("DeformConv of " + Twine(x->getType().getRank() - 2) +
                     "-d images is not supported (2-d only)");
  auto w = weightInput(node, 1, x->getType());
  auto offset = node.input(2);
  if (failed(w) || failed(offset))
    return failure();
  SmallVector<Value> operands{*x, *w, *offset};
  bool hasBias = node.hasInput(3), hasMask = node.hasInput(4);
  for (unsigned i : {3u, 4u}) {
    if (!node.hasInput(i))
      continue;
    auto v = node.input(i);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  FailureOr<SmallVector<int64_t>> strides = intList(node, "strides", 2, 1);
  FailureOr<SmallVector<int64_t>> dilations = intList(node, "dilations", 2, 1);
  FailureOr<SmallVector<int64_t>> pads = intList(node, "pads", 4, 0);
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  DeformConvOp::Properties props;
  props.operandSegmentSizes = {1, 1, 1, hasBias ? 1 : 0, hasMask ? 1 : 0};
  props.strides = i64s(node, *strides);
  props.dilations = i64s(node, *dilations);
  props.pads = i64s(node, *pads);
  RewriterBase &rw = node.getRewriter();
  props.group = rw.getI64IntegerAttr(node.getInt("group", 1));
  props.offset_group = rw.getI64IntegerAttr(node.getInt("offset_group", 1));
  return results(node.create<DeformConvOp>(operands, props));
}

/// MaxUnpool: the values scattered into the image MaxPool saw (size
/// `(in - 1) * stride - pads + kernel`), which output_shape may extend with
/// zeros at the end of each spatial dim (ONNX's reference).
FailureOr<Values> convertMaxUnpool(ForeignNode &node) {
  auto x = imageInput(node, 0);
  auto indices = node.input(1);
  if (failed(x) || failed(indices))
    return failure();
  RankedTensorType type = x->getType();
  int64_t spatial = type.getRank() - 2;
  std::optional<SmallVector<int64_t>> kernel = node.getInts("kernel_shape");
  if (!kernel || static_cast<int64_t>(kernel->size()) != spatial)
    return node.fail("kernel_shape must have one entry per spatial dim");
  FailureOr<SmallVector<int64_t>> strides =
      intList(node, "strides", spatial, 1);
  FailureOr<SmallVector<int64_t>> pads = intList(node, "pads", 2 * spatial, 0);
  if (failed(strides) || failed(pads))
    return failure();
  if (!type.hasStaticShape())
    return node.fail("MaxUnpool of a tensor of run-time shape is not "
                     "supported");
  SmallVector<int64_t> unpooled{type.getDimSize(0), type.getDimSize(1)};
  for (int64_t i = 0; i < spatial; ++i)
    unpooled.push_back((type.getDimSize(2 + i) - 1) * (*strides)[i] -
                       (*pads)[i] - (*pads)[spatial + i] + (*kernel)[i]);
  SmallVector<int64_t> shape = unpooled;
  if (node.hasInput(2)) {
    if (matchPattern(node.getOp().getInputs()[2], m_Constant())) {
      FailureOr<SmallVector<int64_t>> given = node.constantInts(2);
      if (failed(given))
        return failure();
      shape = *given;
    } else {
      auto declared =
          dyn_cast<RankedTensorType>(node.getOp().getResult(0).getType());
      if (!declared || !declared.hasStaticShape())
        return node.fail("input #2 must be a constant, or the model must "
                         "declare the result's shape statically");
      shape.assign(declared.getShape().begin(), declared.getShape().end());
    }
    if (shape.size() != unpooled.size() || shape[0] != unpooled[0] ||
        shape[1] != unpooled[1])
      return node.fail("output_shape must keep N and C of the input");
  }
  OperationState state(node.getLoc(), MaxUnpoolOp::getOperationName());
  state.addOperands({*x, *indices});
  state.addTypes(type.clone(unpooled));
  Operation *op = node.getRewriter().create(state);
  if (failed(node.verifyCreated(op)))
    return failure();
  Value y = op->getResult(0);
  // Zeros after the unpooled image where output_shape is larger.
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t extra = shape[2 + i] - unpooled[2 + i];
    if (extra < 0)
      return node.fail("output_shape is smaller than the unpooled image");
    if (extra == 0)
      continue;
    auto current = cast<RankedTensorType>(y.getType());
    SmallVector<int64_t> zerosShape(current.getShape());
    zerosShape[2 + i] = extra;
    auto zerosType = current.clone(zerosShape);
    Value zeros = ConstantOp::create(
        node.getRewriter(), node.getLoc(),
        DenseElementsAttr::get(zerosType, node.getRewriter().getZeroAttr(
                                              current.getElementType())));
    ConcatOp::Properties props;
    props.axis = node.getRewriter().getI64IntegerAttr(2 + i);
    FailureOr<Value> joined = node.create<ConcatOp>({y, zeros}, props);
    if (failed(joined))
      return failure();
    y = *joined;
  }
  return Values{y};
}

} // namespace

void fromonnx::populateConvolutionConverters(ForeignConverters &c) {
  c.add("Conv", 1, convertConv);
  c.add("ConvInteger", 10, convertConvInteger);
  c.add("QLinearConv", 10, convertQLinearConv);
  c.add("CausalConvWithState", 27, convertCausalConvWithState);
  c.add("ConvTranspose", 1, convertConvTranspose);
  c.add("Col2Im", 18, convertCol2Im);
  c.add("MaxPool", 1, convertMaxPool);
  c.add("AveragePool", 1, convertAveragePool);
  c.add("LpPool", 2, convertLpPool);
  c.add("GlobalAveragePool", 1, convertGlobalPool<ReduceMeanOp>);
  c.add("GlobalMaxPool", 1, convertGlobalPool<ReduceMaxOp>);
  c.add("DeformConv", 19, convertDeformConv);
  c.add("MaxUnpool", 9, convertMaxUnpool);
  populateSamplingConverters(c);
}
