// RUN: tsc-opt %s --split-input-file | tsc-opt --split-input-file | FileCheck %s

// Round trip of the convolution family: window attributes print in ONNX's
// order, defaults (group 1, nearest_mode, cubic_coeff_a) are elided.

// CHECK-LABEL: func.func @conv_grouped_dynamic
// CHECK-SAME:    (%[[X:.+]]: tensor<?x8x?xf32>, %[[W:.+]]: tensor<8x2x3xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK:         %[[Y:.+]] = tsc.conv %[[X]], %[[W]], %[[B]] strides = [2] pads = [1, 1] dilations = [1] group = 4 : (tensor<?x8x?xf32>, tensor<8x2x3xf32>, tensor<8xf32>) -> tensor<?x8x?xf32>
// CHECK:         %[[Z:.+]] = tsc.conv %[[X]], %[[W]] strides = [1] pads = [0, 0] dilations = [2] group = 4 : (tensor<?x8x?xf32>, tensor<8x2x3xf32>) -> tensor<?x8x?xf32>
// CHECK:         return %[[Y]], %[[Z]]
func.func @conv_grouped_dynamic(%x: tensor<?x8x?xf32>, %w: tensor<8x2x3xf32>, %b: tensor<8xf32>)
    -> (tensor<?x8x?xf32>, tensor<?x8x?xf32>) {
  %y = tsc.conv %x, %w, %b strides = [2] pads = [1, 1] dilations = [1] group = 4
      : (tensor<?x8x?xf32>, tensor<8x2x3xf32>, tensor<8xf32>) -> tensor<?x8x?xf32>
  %z = tsc.conv %x, %w strides = [1] pads = [0, 0] dilations = [2] group = 4
      : (tensor<?x8x?xf32>, tensor<8x2x3xf32>) -> tensor<?x8x?xf32>
  return %y, %z : tensor<?x8x?xf32>, tensor<?x8x?xf32>
}

// -----

// A result type may refine the inferred one (a static batch).
// CHECK-LABEL: func.func @conv_integer_refined
// CHECK:         tsc.conv %{{.+}}, %{{.+}} strides = [1, 1] pads = [1, 1, 1, 1] dilations = [1, 1] : (tensor<?x1x3x3xi32>, tensor<2x1x2x2xi32>) -> tensor<1x2x4x4xi32>
func.func @conv_integer_refined(%x: tensor<?x1x3x3xi32>, %w: tensor<2x1x2x2xi32>) -> tensor<1x2x4x4xi32> {
  %y = tsc.conv %x, %w strides = [1, 1] pads = [1, 1, 1, 1] dilations = [1, 1]
      : (tensor<?x1x3x3xi32>, tensor<2x1x2x2xi32>) -> tensor<1x2x4x4xi32>
  return %y : tensor<1x2x4x4xi32>
}

// -----

// CHECK-LABEL: func.func @im2col_col2im
// CHECK:         %[[P:.+]] = tsc.im2col %{{.+}} kernel_shape = [16, 16] strides = [16, 16] pads = [0, 0, 0, 0] dilations = [1, 1] : (tensor<?x3x224x224xf32>) -> tensor<?x14x14x3x16x16xf32>
// CHECK:         %[[I:.+]] = tsc.col2im %{{.+}} block_shape = [4] strides = [2] pads = [1, 1] dilations = [1] output_padding = [1] : (tensor<1x256x?xf32>) -> tensor<1x64x?xf32>
func.func @im2col_col2im(%x: tensor<?x3x224x224xf32>, %c: tensor<1x256x?xf32>)
    -> (tensor<?x14x14x3x16x16xf32>, tensor<1x64x?xf32>) {
  %p = tsc.im2col %x kernel_shape = [16, 16] strides = [16, 16] pads = [0, 0, 0, 0] dilations = [1, 1]
      : (tensor<?x3x224x224xf32>) -> tensor<?x14x14x3x16x16xf32>
  %i = tsc.col2im %c block_shape = [4] strides = [2] pads = [1, 1] dilations = [1] output_padding = [1]
      : (tensor<1x256x?xf32>) -> tensor<1x64x?xf32>
  return %p, %i : tensor<?x14x14x3x16x16xf32>, tensor<1x64x?xf32>
}

// -----

// CHECK-LABEL: func.func @pools
// CHECK:         tsc.max_pool %{{.+}} kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] dilations = [1, 1] : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
// CHECK:         tsc.avg_pool %{{.+}} kernel_shape = [3, 3] strides = [2, 2] pads = [0, 0, 0, 0] dilations = [1, 1] ceil_mode count_include_pad : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
// CHECK:         tsc.lp_pool %{{.+}} kernel_shape = [2] strides = [1] pads = [0, 0] dilations = [1] p = 3 : (tensor<1x2x5xf32>) -> tensor<1x2x4xf32>
// CHECK:         tsc.max_pool_with_indices %{{.+}} kernel_shape = [2, 2] strides = [2, 2] pads = [0, 0, 0, 0] dilations = [1, 1] column_major : (tensor<1x3x4x4xui8>) -> (tensor<1x3x2x2xui8>, tensor<1x3x2x2xi64>)
// CHECK:         tsc.max_unpool %{{.+}}, %{{.+}} : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>) -> tensor<1x3x4x4xf32>
func.func @pools(%x: tensor<1x64x112x112xf32>, %l: tensor<1x2x5xf32>, %u: tensor<1x3x4x4xui8>,
                 %v: tensor<1x3x2x2xf32>, %i: tensor<1x3x2x2xi64>) {
  %a = tsc.max_pool %x kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] dilations = [1, 1]
      : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  %b = tsc.avg_pool %x kernel_shape = [3, 3] strides = [2, 2] pads = [0, 0, 0, 0] dilations = [1, 1]
      ceil_mode count_include_pad : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  %c = tsc.lp_pool %l kernel_shape = [2] strides = [1] pads = [0, 0] dilations = [1] p = 3
      : (tensor<1x2x5xf32>) -> tensor<1x2x4xf32>
  %d, %e = tsc.max_pool_with_indices %u kernel_shape = [2, 2] strides = [2, 2] pads = [0, 0, 0, 0]
      dilations = [1, 1] column_major : (tensor<1x3x4x4xui8>) -> (tensor<1x3x2x2xui8>, tensor<1x3x2x2xi64>)
  %f = tsc.max_unpool %v, %i : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>) -> tensor<1x3x4x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @sampling
// CHECK:         tsc.resize %{{.+}}, %{{.+}} mode = linear coordinate_transformation = half_pixel antialias : (tensor<1x3x8x8xf32>, tensor<4xf64>) -> tensor<1x3x4x4xf32>
// CHECK:         tsc.resize %{{.+}}, %{{.+}} roi %{{.+}} mode = cubic coordinate_transformation = tf_crop_and_resize nearest_mode = floor cubic_coeff_a = -5.000000e-01 exclude_outside extrapolation_value = 1.000000e+01 : (tensor<1x3x8x8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<1x3x4x4xf32>
// CHECK:         tsc.grid_sample %{{.+}}, %{{.+}} mode = cubic padding_mode = reflection align_corners : (tensor<1x3x8x8xf32>, tensor<1x5x6x2xf32>) -> tensor<1x3x5x6xf32>
// CHECK:         tsc.roi_align %{{.+}}, %{{.+}}, %{{.+}} output_height = 5 output_width = 5 sampling_ratio = 0 spatial_scale = 6.250000e-02 half_pixel max : (tensor<1x3x8x8xf32>, tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x3x5x5xf32>
// CHECK:         tsc.deform_conv %{{.+}}, %{{.+}}, %{{.+}} bias %{{.+}} mask %{{.+}} strides = [1, 1] pads = [0, 0, 0, 0] dilations = [1, 1] offset_group = 1 : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x8x2x2xf32>, tensor<1xf32>, tensor<1x4x2x2xf32>) -> tensor<1x1x2x2xf32>
func.func @sampling(%x: tensor<1x3x8x8xf32>, %s: tensor<4xf64>, %s32: tensor<4xf32>, %roi: tensor<8xf32>,
                    %g: tensor<1x5x6x2xf32>, %r: tensor<?x4xf32>, %ri: tensor<?xi64>,
                    %dx: tensor<1x1x3x3xf32>, %dw: tensor<1x1x2x2xf32>, %off: tensor<1x8x2x2xf32>,
                    %db: tensor<1xf32>, %dm: tensor<1x4x2x2xf32>) {
  %a = tsc.resize %x, %s mode = linear coordinate_transformation = half_pixel antialias
      : (tensor<1x3x8x8xf32>, tensor<4xf64>) -> tensor<1x3x4x4xf32>
  %b = tsc.resize %x, %s32 roi %roi mode = cubic coordinate_transformation = tf_crop_and_resize
      nearest_mode = floor cubic_coeff_a = -0.5 exclude_outside extrapolation_value = 10.0
      : (tensor<1x3x8x8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<1x3x4x4xf32>
  %c = tsc.grid_sample %x, %g mode = cubic padding_mode = reflection align_corners
      : (tensor<1x3x8x8xf32>, tensor<1x5x6x2xf32>) -> tensor<1x3x5x6xf32>
  %d = tsc.roi_align %x, %r, %ri output_height = 5 output_width = 5 sampling_ratio = 0
      spatial_scale = 0.0625 half_pixel max
      : (tensor<1x3x8x8xf32>, tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x3x5x5xf32>
  %e = tsc.deform_conv %dx, %dw, %off bias %db mask %dm strides = [1, 1] pads = [0, 0, 0, 0]
      dilations = [1, 1] offset_group = 1
      : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x8x2x2xf32>, tensor<1xf32>, tensor<1x4x2x2xf32>)
      -> tensor<1x1x2x2xf32>
  return
}
