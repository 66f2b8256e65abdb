//===- TscConvolutionOps.td - Convolution op family -*- tablegen -*-===//
//
// Convolutions, pooling, resizing and sampling; included by TscOps.td after the core ops,
// whose base classes these use.
//
// Layouts are ONNX's: images are `[N, C, spatial...]` (NCW, NCHW, NCDHW) with
// one to three spatial dims, convolution weights `[F, C / group, kernel...]`.
// Window attributes have one entry per spatial dim (`kernel_shape`,
// `strides`, `dilations`), `pads` two: the begin pads of every spatial dim,
// then the end pads (ONNX's order). Padding is explicit: converters resolve
// `auto_pad` into `pads`.
//
//===----------------------------------------------------------------------===//

#ifndef TSCCONVOLUTIONOPS_TD
#define TSCCONVOLUTIONOPS_TD

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tsc_InterpolationMode : I32EnumAttr<"InterpolationMode",
    "how tsc.resize and tsc.grid_sample weigh the input around a point", [
      I32EnumAttrCase<"nearest", 0>,
      I32EnumAttrCase<"linear", 1>,
      I32EnumAttrCase<"cubic", 2>
    ]> {
  let cppNamespace = "::mlir::tsc";
}

def Tsc_CoordinateTransform : I32EnumAttr<"CoordinateTransform",
    "how tsc.resize maps a result coordinate to an input coordinate", [
      I32EnumAttrCase<"half_pixel", 0>,
      I32EnumAttrCase<"half_pixel_symmetric", 1>,
      I32EnumAttrCase<"pytorch_half_pixel", 2>,
      I32EnumAttrCase<"align_corners", 3>,
      I32EnumAttrCase<"asymmetric", 4>,
      I32EnumAttrCase<"tf_crop_and_resize", 5>
    ]> {
  let cppNamespace = "::mlir::tsc";
}

def Tsc_NearestRounding : I32EnumAttr<"NearestRounding",
    "how tsc.resize rounds a coordinate to the nearest input element", [
      I32EnumAttrCase<"round_prefer_floor", 0>,
      I32EnumAttrCase<"round_prefer_ceil", 1>,
      I32EnumAttrCase<"floor", 2>,
      I32EnumAttrCase<"ceil", 3>
    ]> {
  let cppNamespace = "::mlir::tsc";
}

def Tsc_SamplePadding : I32EnumAttr<"SamplePadding",
    "what tsc.grid_sample reads outside the input", [
      I32EnumAttrCase<"zeros", 0>,
      I32EnumAttrCase<"border", 1>,
      I32EnumAttrCase<"reflection", 2>
    ]> {
  let cppNamespace = "::mlir::tsc";
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// An op over windows of an image, its result inferred from the window
/// (inference checks the window attributes).
class Tsc_WindowOp<string mnemonic, list<Trait> traits = []>
    : Tsc_InferredOp<mnemonic, !listconcat(traits, [Tsc_ShapeRule])>;

def Tsc_ConvOp : Tsc_WindowOp<"conv", [Tsc_AlwaysHalf]> {
  let summary = "N-d convolution (cross-correlation) with groups";
  let description = [{
    `input [N, C, in...]` and `weight [F, C / group, k...]` give
    `[N, F, out...]` with `out = floor((in + pad_begin + pad_end -
    dilation * (k - 1) - 1) / stride) + 1`: result channel `f` of group
    `g = f / (F / group)` sums `input[n, g * C / group + c, o * stride +
    k * dilation - pad_begin] * weight[f, c, k]` over `c` and the window,
    reading zeros in the padding, plus `bias[f]`. Float operands accumulate
    in at least f32; `i32` operands (ONNX ConvInteger, zero points already
    subtracted) in `i32`.

    Converters send ungrouped float convolutions through `tsc.im2col` and
    `tsc.linear` (a GEMM); this op is the direct form, for groups (depthwise
    convolutions) and integers.

    ```mlir
    %y = tsc.conv %x, %w, %b strides = [1] pads = [1, 1] dilations = [1]
        group = 768 : (tensor<?x768x?xf32>, tensor<768x1x3xf32>,
        tensor<768xf32>) -> tensor<?x768x?xf32>
    ```
  }];
  let arguments = (ins Tsc_NumericTensor:$input, Tsc_NumericTensor:$weight,
                       Optional<Tsc_NumericTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Tsc_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `strides` `=` $strides `pads` `=` $pads
    `dilations` `=` $dilations (`group` `=` $group^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tsc_Im2colOp : Tsc_WindowOp<"im2col", [Tsc_FollowsPrecision]> {
  let summary = "the windows of a convolution as rows: [N, out..., C, k...]";
  let description = [{
    Unfolds `input [N, C, in...]` into `[N, out..., C, k...]`: element
    `[n, o..., c, k...]` is `input[n, c, o * stride + k * dilation -
    pad_begin]`, zero in the padding, with `out` as for `tsc.conv`. Reshaped
    to `[N * prod(out), C * prod(k)]` the windows are the rows of a GEMM
    with the weight `[F, C * prod(k)]`: a convolution as one library call.

    ```mlir
    %p = tsc.im2col %x kernel_shape = [16, 16] strides = [16, 16]
        pads = [0, 0, 0, 0] dilations = [1, 1]
        : (tensor<?x3x224x224xf32>) -> tensor<?x14x14x3x16x16xf32>
    ```
  }];
  let arguments = (ins Tsc_NumericTensor:$input,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations);
  let results = (outs Tsc_NumericTensor:$result);
  let assemblyFormat = [{
    $input `kernel_shape` `=` $kernel_shape `strides` `=` $strides
    `pads` `=` $pads `dilations` `=` $dilations attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tsc_Col2imOp : Tsc_WindowOp<"col2im", [Tsc_HalfCompute]> {
  let summary = "sums blocks back into an image: the inverse layout of im2col";
  let description = [{
    `input [N, C * prod(k), blocks...]` holds for each block position `b`
    (one dim per spatial dim) a `C x k...` block; each is added into the
    result `[N, C, image...]` at `b * stride + k * dilation - pad_begin`
    (what lands in the padding is dropped). The image has `image =
    stride * (blocks - 1) + dilation * (k - 1) + 1 + output_padding -
    pad_begin - pad_end` elements along each dim, `output_padding` (less
    than the stride) adding rows no block reaches. A transposed convolution
    is a GEMM whose result this op folds; ONNX Col2Im is this op after a
    reshape of its `L` dim into the blocks.

    ```mlir
    %y = tsc.col2im %cols block_shape = [4] strides = [2] pads = [1, 1]
        dilations = [1] output_padding = [0]
        : (tensor<1x256x?xf32>) -> tensor<1x64x?xf32>
    ```
  }];
  let arguments = (ins Tsc_NumericTensor:$input,
                       DenseI64ArrayAttr:$block_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$output_padding);
  let results = (outs Tsc_NumericTensor:$result);
  let assemblyFormat = [{
    $input `block_shape` `=` $block_shape `strides` `=` $strides
    `pads` `=` $pads `dilations` `=` $dilations
    `output_padding` `=` $output_padding attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tsc_DeformConvOp : Tsc_WindowOp<"deform_conv", [AttrSizedOperandSegments]> {
  let summary = "2-d deformable convolution: each tap sampled at an offset";
  let description = [{
    As `tsc.conv` in 2-d, except that tap `k` of the window at `o` reads
    the input bilinearly (zero outside) at `o * stride + k * dilation -
    pad_begin + offset[n, 2 * (g * K + k) + {0, 1}, o]` (y then x) for the
    channels of offset group `g` (`offset [N, offset_group * 2 * K, out...]`,
    `K` the taps of a window), scaled by `mask[n, g * K + k, o]` when
    given. No precision trait: sampling positions stay in f32.

    ```mlir
    %y = tsc.deform_conv %x, %w, %off mask %m strides = [1, 1]
        pads = [0, 0, 0, 0] dilations = [1, 1] offset_group = 1
        : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x8x2x2xf32>,
           tensor<1x4x2x2xf32>) -> tensor<1x1x2x2xf32>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input, Tsc_FloatTensor:$weight,
                       Tsc_FloatTensor:$offset,
                       Optional<Tsc_FloatTensor>:$bias,
                       Optional<Tsc_FloatTensor>:$mask,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group,
                       DefaultValuedAttr<I64Attr, "1">:$offset_group);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight `,` $offset (`bias` $bias^)? (`mask` $mask^)?
    `strides` `=` $strides `pads` `=` $pads `dilations` `=` $dilations
    (`group` `=` $group^)? `offset_group` `=` $offset_group attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Max, average and Lp pooling over windows of the spatial dims.
class Tsc_PoolOp<string mnemonic, string what, list<Trait> traits,
                 dag extraArgs = (ins), string extraFormat = "">
    : Tsc_WindowOp<mnemonic, traits> {
  let summary = what # " pooling over windows of the spatial dims";
  let description = "Reduces each window of `input [N, C, in...]` to its " #
      what # ", giving `[N, C, out...]` with `out` as for `tsc.conv`, or "
      "with `ceil_mode` rounded up (a window that would start in the end "
      "padding is dropped).\n\n" # extraDescription #
      "\n\n```mlir\n%y = tsc." # mnemonic # " %x kernel_shape = [3, 3] "
      "strides = [2, 2] pads = [1, 1, 1, 1] dilations = [1, 1]" #
      exampleAttrs # "\n    : (tensor<?x64x112x112xf32>) -> "
      "tensor<?x64x56x56xf32>\n```";
  string extraDescription = "";
  string exampleAttrs = "";
  let arguments = !con((ins Tsc_NumericTensor:$input,
                            DenseI64ArrayAttr:$kernel_shape,
                            DenseI64ArrayAttr:$strides,
                            DenseI64ArrayAttr:$pads,
                            DenseI64ArrayAttr:$dilations,
                            UnitAttr:$ceil_mode), extraArgs);
  let results = (outs Tsc_NumericTensor:$result);
  let assemblyFormat = "$input `kernel_shape` `=` $kernel_shape "
      "`strides` `=` $strides `pads` `=` $pads `dilations` `=` $dilations "
      "(`ceil_mode` $ceil_mode^)? " # extraFormat #
      " attr-dict `:` functional-type(operands, results)";
}

def Tsc_MaxPoolOp : Tsc_PoolOp<"max_pool", "maximum", [Tsc_FollowsPrecision]> {
  let extraDescription = "Padding never wins: it reads as the lowest value.";
}

def Tsc_AvgPoolOp : Tsc_PoolOp<"avg_pool", "average", [Tsc_FollowsPrecision],
    (ins UnitAttr:$count_include_pad),
    "(`count_include_pad` $count_include_pad^)?"> {
  let hasVerifier = 1;
  let extraDescription = "The divisor is the number of window elements "
      "inside the input, or with `count_include_pad` inside the input and "
      "its pads (never the part of a ceil-mode window past the end pad).";
  let exampleAttrs = " count_include_pad";
}

def Tsc_LpPoolOp : Tsc_PoolOp<"lp_pool", "Lp norm", [Tsc_KeepsF32ForRange],
    (ins I64Attr:$p), "`p` `=` $p"> {
  let hasVerifier = 1;
  let extraDescription = "`(sum |x|^p)^(1/p)` over each window; padding "
      "adds nothing.";
  let exampleAttrs = " p = 2";
}

def Tsc_MaxPoolWithIndicesOp
    : Tsc_Op<"max_pool_with_indices", [Pure, Tsc_FollowsPrecision,
                                       Tsc_ShapeRule]> {
  let summary = "max pooling that also returns where each maximum was";
  let description = [{
    `values` as `tsc.max_pool`; `indices` (i64) give the first maximum's
    position in the input flattened row-major, or with `column_major` with
    the spatial dims flattened column-major (`n * C * H * W + c * H * W +
    w * H + h` in 2-d), ONNX MaxPool's `storage_order = 1`.

    ```mlir
    %v, %i = tsc.max_pool_with_indices %x kernel_shape = [2, 2]
        strides = [2, 2] pads = [0, 0, 0, 0] dilations = [1, 1]
        : (tensor<1x3x4x4xf32>) -> (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>)
    ```
  }];
  let arguments = (ins Tsc_NumericTensor:$input,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, UnitAttr:$ceil_mode,
                       UnitAttr:$column_major);
  let results = (outs Tsc_NumericTensor:$values,
                      RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = [{
    $input `kernel_shape` `=` $kernel_shape `strides` `=` $strides
    `pads` `=` $pads `dilations` `=` $dilations (`ceil_mode` $ceil_mode^)?
    (`column_major` $column_major^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tsc_MaxUnpoolOp : Tsc_Op<"max_unpool", [Pure, Tsc_FollowsPrecision]> {
  let summary = "scatters pooled values back to the positions of their maxima";
  let description = [{
    A zero result of its own shape in which each `input` element is
    written at its `indices` element, a position in the result flattened
    row-major (what `tsc.max_pool_with_indices` returns, counted in the
    result). `indices` has `input`'s shape.

    ```mlir
    %y = tsc.max_unpool %v, %i : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
        -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Tsc_NumericTensor:$input,
                       RankedTensorOf<[I64]>:$indices);
  let results = (outs Tsc_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Resizing and sampling
//===----------------------------------------------------------------------===//

def Tsc_ResizeOp : Tsc_Op<"resize", [Pure, Tsc_FollowsPrecision, Tsc_ShapeRule]> {
  let summary = "resizes a tensor by interpolation (ONNX Resize)";
  let description = [{
    Each result dim `d` maps coordinate `o` to the input coordinate `x`
    by `coordinate_transformation` with `scales[d]` (f32 or f64, one per
    dim, the result over the input size unless the source said otherwise;
    coordinates are computed in f64, as ONNX's reference does) and, for
    `tf_crop_and_resize`, `roi` (`[start..., end...]` as fractions of the
    input); the element is interpolated there from the input along each
    resized dim in turn: the `nearest` element rounded by `nearest_mode`,
    `linear` from 2 neighbours, `cubic` from 4 with coefficient
    `cubic_coeff_a` (`exclude_outside` renormalizing the weights of the
    neighbours inside). `antialias` widens linear and cubic filters by
    `1 / scale` when downsampling. A coordinate outside the input under
    `tf_crop_and_resize` gives `extrapolation_value`. The result's shape
    is its type's; a dynamic dim must be an unresized dynamic input dim.
    `scales` and `roi` may be run-time values.

    ```mlir
    %y = tsc.resize %x, %scales mode = linear
        coordinate_transformation = half_pixel
        : (tensor<1x3x224x224xf32>, tensor<4xf32>) -> tensor<1x3x448x448xf32>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input, Tsc_FloatTensor:$scales,
                       Optional<Tsc_FloatTensor>:$roi,
                       Tsc_InterpolationMode:$mode,
                       Tsc_CoordinateTransform:$coordinate_transformation,
                       DefaultValuedAttr<Tsc_NearestRounding,
                           "::mlir::tsc::NearestRounding::round_prefer_floor">:
                           $nearest_mode,
                       DefaultValuedAttr<F64Attr, "-0.75">:$cubic_coeff_a,
                       UnitAttr:$exclude_outside, UnitAttr:$antialias,
                       DefaultValuedAttr<F64Attr, "0.0">:$extrapolation_value);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scales (`roi` $roi^)? `mode` `=` $mode
    `coordinate_transformation` `=` $coordinate_transformation
    (`nearest_mode` `=` $nearest_mode^)? (`cubic_coeff_a` `=` $cubic_coeff_a^)?
    (`exclude_outside` $exclude_outside^)? (`antialias` $antialias^)?
    (`extrapolation_value` `=` $extrapolation_value^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tsc_GridSampleOp : Tsc_InferredOp<"grid_sample", [Tsc_ShapeRule]> {
  let summary = "samples an image at the points of a grid (ONNX GridSample)";
  let description = [{
    `input [N, C, in...]` (2 or 3 spatial dims) and `grid [N, out..., r]`
    (r the spatial rank, coordinates in `[-1, 1]` in x, y, z order, i.e.
    the last spatial dim first) give `[N, C, out...]`: each point
    interpolated (`nearest` rounding half to even, `linear`, or `cubic`
    with a = -0.75) from the input, reading `zeros`, the `border` element
    or the `reflection` about the edges outside it. With `align_corners`
    -1 and 1 are the centres of the corner elements, else their outer
    edges. No precision trait: coordinates stay in f32.

    ```mlir
    %y = tsc.grid_sample %x, %grid mode = linear padding_mode = zeros
        : (tensor<1x3x64x64xf32>, tensor<1x32x32x2xf32>) -> tensor<1x3x32x32xf32>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input, Tsc_FloatTensor:$grid,
                       Tsc_InterpolationMode:$mode,
                       Tsc_SamplePadding:$padding_mode,
                       UnitAttr:$align_corners);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $grid `mode` `=` $mode `padding_mode` `=` $padding_mode
    (`align_corners` $align_corners^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tsc_RoiAlignOp : Tsc_InferredOp<"roi_align", [Tsc_ShapeRule]> {
  let summary = "pools regions of interest to a fixed size (ONNX RoiAlign)";
  let description = [{
    For each of `rois [R, 4]` (x1, y1, x2, y2 in input coordinates times
    `spatial_scale`, shifted by half a pixel with `half_pixel`) on image
    `batch_indices[r]` of `input [N, C, H, W]`, the result
    `[R, C, output_height, output_width]` holds per bin the average (or with
    `max` the maximum, of each sample's largest weighted corner, as ONNX
    Runtime computes it) of `sampling_ratio x sampling_ratio` bilinear
    samples; a `sampling_ratio` of 0 takes `ceil(bin size)` samples along
    each dim, per region at run time. No precision trait: coordinates stay
    in f32 (the kernel computes them in f64).

    ```mlir
    %y = tsc.roi_align %x, %rois, %idx output_height = 7 output_width = 7
        sampling_ratio = 2 spatial_scale = 0.0625 half_pixel
        : (tensor<1x256x50x50xf32>, tensor<?x4xf32>, tensor<?xi64>)
        -> tensor<?x256x7x7xf32>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input, Tsc_FloatTensor:$rois,
                       Tsc_IntTensor:$batch_indices, I64Attr:$output_height,
                       I64Attr:$output_width, I64Attr:$sampling_ratio,
                       F64Attr:$spatial_scale, UnitAttr:$half_pixel,
                       UnitAttr:$max);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $rois `,` $batch_indices `output_height` `=` $output_height
    `output_width` `=` $output_width `sampling_ratio` `=` $sampling_ratio
    `spatial_scale` `=` $spatial_scale (`half_pixel` $half_pixel^)?
    (`max` $max^)? attr-dict `:` functional-type(operands, results)
  }];
}

#endif // TSCCONVOLUTIONOPS_TD
