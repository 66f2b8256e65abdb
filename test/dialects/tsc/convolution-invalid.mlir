// RUN: tsc-opt %s --split-input-file --verify-diagnostics

// Verifier and result-inference errors of the convolution family.

func.func @conv_channels_mismatch(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{input channels 6 differ from weight channels 2 x group 2}}
  // expected-error @+1 {{'tsc.conv' op failed to infer returned types}}
  %y = tsc.conv %x, %w strides = [1, 1] pads = [0, 0, 0, 0] dilations = [1, 1] group = 2
      : (tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_pads_length(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error @+2 {{pads has 1 entries, expected 2}}
  // expected-error @+1 {{'tsc.conv' op failed to infer returned types}}
  %y = tsc.conv %x, %w strides = [1] pads = [0] dilations = [1]
      : (tensor<1x2x8xf32>, tensor<4x2x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

func.func @conv_wrong_result(%x: tensor<1x2x8xf32>, %w: tensor<4x2x3xf32>) {
  // expected-error @+2 {{'tsc.conv' op inferred type(s) 'tensor<1x4x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8xf32>'}}
  // expected-error @+1 {{'tsc.conv' op failed to infer returned types}}
  %y = tsc.conv %x, %w strides = [1] pads = [0, 0] dilations = [1]
      : (tensor<1x2x8xf32>, tensor<4x2x3xf32>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @pool_window_too_large(%x: tensor<1x2x3xf32>) {
  // expected-error @+2 {{spatial dim 0 of size 3 with its pads is smaller than the dilated kernel}}
  // expected-error @+1 {{'tsc.max_pool' op failed to infer returned types}}
  %y = tsc.max_pool %x kernel_shape = [3] strides = [1] pads = [0, 0] dilations = [2]
      : (tensor<1x2x3xf32>) -> tensor<1x2x1xf32>
  return
}

// -----

func.func @avg_pool_integer(%x: tensor<1x2x4xi32>) {
  // expected-error @+1 {{'tsc.avg_pool' op averages float tensors only}}
  %y = tsc.avg_pool %x kernel_shape = [2] strides = [1] pads = [0, 0] dilations = [1]
      : (tensor<1x2x4xi32>) -> tensor<1x2x3xi32>
  return
}

// -----

func.func @col2im_output_padding(%x: tensor<1x8x3xf32>) {
  // expected-error @+2 {{output_padding 2 must be in [0, max(stride, dilation))}}
  // expected-error @+1 {{'tsc.col2im' op failed to infer returned types}}
  %y = tsc.col2im %x block_shape = [4] strides = [2] pads = [0, 0] dilations = [1] output_padding = [2]
      : (tensor<1x8x3xf32>) -> tensor<1x2x10xf32>
  return
}

// -----

func.func @resize_scales_length(%x: tensor<1x3x8x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'tsc.resize' op scales must be tensor<4xf32> or tensor<4xf64>, got 'tensor<2xf32>'}}
  %y = tsc.resize %x, %s mode = nearest coordinate_transformation = asymmetric
      : (tensor<1x3x8x8xf32>, tensor<2xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @resize_dynamic_from_static(%x: tensor<1x3x8x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.resize' op result dim 2 is dynamic but the input's is not}}
  %y = tsc.resize %x, %s mode = nearest coordinate_transformation = asymmetric
      : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<1x3x?x16xf32>
  return
}

// -----

func.func @crop_without_roi(%x: tensor<1x3x8x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.resize' op tf_crop_and_resize needs a roi}}
  %y = tsc.resize %x, %s mode = linear coordinate_transformation = tf_crop_and_resize
      : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @grid_sample_grid_last_dim(%x: tensor<1x3x8x8xf32>, %g: tensor<1x4x4x3xf32>) {
  // expected-error @+2 {{grid must be [N, out..., 2] of the input's element type, got 'tensor<1x4x4x3xf32>'}}
  // expected-error @+1 {{'tsc.grid_sample' op failed to infer returned types}}
  %y = tsc.grid_sample %x, %g mode = linear padding_mode = zeros
      : (tensor<1x3x8x8xf32>, tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @unpool_indices_shape(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x3xi64>) {
  // expected-error @+1 {{'tsc.max_unpool' op indices shape differs from the input's}}
  %y = tsc.max_unpool %x, %i : (tensor<1x1x2x2xf32>, tensor<1x1x2x3xi64>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @deform_offset_planes(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>, %o: tensor<1x4x2x2xf32>) {
  // expected-error @+2 {{offset must be [1, 8, 2, 2], got 'tensor<1x4x2x2xf32>'}}
  // expected-error @+1 {{'tsc.deform_conv' op failed to infer returned types}}
  %y = tsc.deform_conv %x, %w, %o strides = [1, 1] pads = [0, 0, 0, 0] dilations = [1, 1] offset_group = 1
      : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x1x2x2xf32>
  return
}
