// RUN: tsc-opt %s --split-input-file --verify-diagnostics

// Verifier errors of quantize, dequantize and quantized_matmul.

func.func @quantize_per_tensor_scale_not_0d(%x: tensor<4x8xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'tsc.quantize' op per-tensor quantization needs a 0-d scale, got 'tensor<1xf32>'}}
  %q = tsc.quantize %x, %s : (tensor<4x8xf32>, tensor<1xf32>) -> tensor<4x8xi8>
  return
}

// -----

func.func @quantize_per_channel_scale_wrong_size(%x: tensor<4x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.quantize' op per-channel quantization along axis 1 needs a 1-D scale of 8 elements, got 'tensor<4xf32>'}}
  %q = tsc.quantize %x, %s axis = 1 : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xi8>
  return
}

// -----

func.func @quantize_per_channel_scale_rank_2(%x: tensor<4x8xf32>, %s: tensor<1x8xf32>) {
  // expected-error @+1 {{'tsc.quantize' op per-channel quantization along axis 1 needs a 1-D scale of 8 elements, got 'tensor<1x8xf32>'}}
  %q = tsc.quantize %x, %s axis = 1 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xi8>
  return
}

// -----

func.func @quantize_per_group_scale_wrong_shape(%x: tensor<100x8xf32>, %s: tensor<3x8xf32>) {
  // expected-error @+1 {{'tsc.quantize' op per-group quantization needs a scale of shape [4, 8] (ceil(dim / group_size) along axis 0), got 'tensor<3x8xf32>'}}
  %q = tsc.quantize %x, %s axis = 0 group_size = 32 : (tensor<100x8xf32>, tensor<3x8xf32>) -> tensor<100x8xi4>
  return
}

// -----

func.func @quantize_group_size_without_axis(%x: tensor<64x8xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tsc.quantize' op group_size needs an axis}}
  %q = tsc.quantize %x, %s group_size = 32 : (tensor<64x8xf32>, tensor<f32>) -> tensor<64x8xi4>
  return
}

// -----

func.func @quantize_group_size_zero(%x: tensor<64x8xf32>, %s: tensor<2x8xf32>) {
  // expected-error @+1 {{'tsc.quantize' op group_size must be positive, got 0}}
  %q = tsc.quantize %x, %s axis = 0 group_size = 0 : (tensor<64x8xf32>, tensor<2x8xf32>) -> tensor<64x8xi4>
  return
}

// -----

func.func @quantize_axis_out_of_range(%x: tensor<64x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{axis 2 is out of range [0, 2)}}
  %q = tsc.quantize %x, %s axis = 2 : (tensor<64x8xf32>, tensor<8xf32>) -> tensor<64x8xi8>
  return
}

// -----

func.func @quantize_zero_point_type(%x: tensor<4x8xf32>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+1 {{'tsc.quantize' op zero point must have the scale's shape and the quantized element type 'i8', got 'tensor<ui8>'}}
  %q = tsc.quantize %x, %s, %z : (tensor<4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x8xi8>
  return
}

// -----

func.func @quantize_zero_point_shape(%x: tensor<4x8xf32>, %s: tensor<8xf32>, %z: tensor<4xi8>) {
  // expected-error @+1 {{'tsc.quantize' op zero point must have the scale's shape and the quantized element type 'i8', got 'tensor<4xi8>'}}
  %q = tsc.quantize %x, %s, %z axis = 1 : (tensor<4x8xf32>, tensor<8xf32>, tensor<4xi8>) -> tensor<4x8xi8>
  return
}

// -----

func.func @quantize_result_shape(%x: tensor<4x8xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tsc.quantize' op result shape differs from input shape}}
  %q = tsc.quantize %x, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<8x4xi8>
  return
}

// -----

func.func @quantize_scale_element_type(%x: tensor<4x8xf32>, %s: tensor<f16>) {
  // expected-error @+1 {{'tsc.quantize' op scale element type must match the input's}}
  %q = tsc.quantize %x, %s : (tensor<4x8xf32>, tensor<f16>) -> tensor<4x8xi8>
  return
}

// -----

func.func @dequantize_result_shape(%q: tensor<4x8xi8>, %s: tensor<f32>) {
  // expected-error @+1 {{'tsc.dequantize' op result shape differs from input shape}}
  %x = tsc.dequantize %q, %s : (tensor<4x8xi8>, tensor<f32>) -> tensor<4x?xf32>
  return
}

// -----

func.func @dequantize_scale_element_type(%q: tensor<4x8xi8>, %s: tensor<f16>) {
  // expected-error @+1 {{'tsc.dequantize' op scale element type must match the result's}}
  %x = tsc.dequantize %q, %s : (tensor<4x8xi8>, tensor<f16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @dequantize_per_channel_scale(%q: tensor<4x8xi8>, %s: tensor<8xf32>) {
  // expected-error @+1 {{'tsc.dequantize' op per-channel quantization along axis 0 needs a 1-D scale of 4 elements, got 'tensor<8xf32>'}}
  %x = tsc.dequantize %q, %s axis = 0 : (tensor<4x8xi8>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @dequantize_zero_point_type(%q: tensor<4x8xi8>, %s: tensor<f32>, %z: tensor<i4>) {
  // expected-error @+1 {{'tsc.dequantize' op zero point must have the scale's shape and the quantized element type 'i8', got 'tensor<i4>'}}
  %x = tsc.dequantize %q, %s, %z : (tensor<4x8xi8>, tensor<f32>, tensor<i4>) -> tensor<4x8xf32>
  return
}

// -----

func.func @quantized_matmul_contraction(%x: tensor<?x512xf32>, %w: tensor<768x3072xi8>, %s: tensor<f32>) {
  // expected-error @+2 {{contraction dims differ: 512 vs 768}}
  // expected-error @+1 {{'tsc.quantized_matmul' op failed to infer returned types}}
  %y = tsc.quantized_matmul %x, %w, %s : (tensor<?x512xf32>, tensor<768x3072xi8>, tensor<f32>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @quantized_matmul_rhs_rank(%x: tensor<?x768xf32>, %w: tensor<2x768x3072xi8>, %s: tensor<f32>) {
  // expected-error @+2 {{expects lhs of rank >= 1 and a quantized rhs of rank 2 [K, N]}}
  // expected-error @+1 {{'tsc.quantized_matmul' op failed to infer returned types}}
  %y = tsc.quantized_matmul %x, %w, %s : (tensor<?x768xf32>, tensor<2x768x3072xi8>, tensor<f32>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @quantized_matmul_scale_element_type(%x: tensor<?x768xf32>, %w: tensor<768x3072xi8>, %s: tensor<f16>) {
  // expected-error @+1 {{'tsc.quantized_matmul' op scale element type must match lhs's}}
  %y = tsc.quantized_matmul %x, %w, %s : (tensor<?x768xf32>, tensor<768x3072xi8>, tensor<f16>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @quantized_matmul_per_channel_scale(%x: tensor<?x768xf32>, %w: tensor<768x3072xi8>, %s: tensor<768xf32>) {
  // expected-error @+1 {{'tsc.quantized_matmul' op per-channel quantization along axis 1 needs a 1-D scale of 3072 elements, got 'tensor<768xf32>'}}
  %y = tsc.quantized_matmul %x, %w, %s axis = 1 : (tensor<?x768xf32>, tensor<768x3072xi8>, tensor<768xf32>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @quantized_matmul_per_group_scale(%x: tensor<?x4096xf16>, %w: tensor<4096x64xi4>, %s: tensor<16x64xf16>) {
  // expected-error @+1 {{'tsc.quantized_matmul' op per-group quantization needs a scale of shape [32, 64] (ceil(dim / group_size) along axis 0), got 'tensor<16x64xf16>'}}
  %y = tsc.quantized_matmul %x, %w, %s axis = 0 group_size = 128 : (tensor<?x4096xf16>, tensor<4096x64xi4>, tensor<16x64xf16>) -> tensor<?x64xf16>
  return
}

// -----

func.func @quantized_matmul_zero_point_type(%x: tensor<?x768xf32>, %w: tensor<768x3072xi8>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+1 {{'tsc.quantized_matmul' op zero point must have the scale's shape and the quantized element type 'i8', got 'tensor<ui8>'}}
  %y = tsc.quantized_matmul %x, %w, %s, %z : (tensor<?x768xf32>, tensor<768x3072xi8>, tensor<f32>, tensor<ui8>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @quantized_matmul_wrong_result(%x: tensor<?x768xf32>, %w: tensor<768x3072xi8>, %s: tensor<f32>) {
  // expected-error @+2 {{'tsc.quantized_matmul' op inferred type(s) 'tensor<?x3072xf32>' are incompatible with return type(s) of operation 'tensor<?x768xf32>'}}
  // expected-error @+1 {{'tsc.quantized_matmul' op failed to infer returned types}}
  %y = tsc.quantized_matmul %x, %w, %s : (tensor<?x768xf32>, tensor<768x3072xi8>, tensor<f32>) -> tensor<?x768xf32>
  return
}

// -----

func.func @quantized_matmul_per_channel_along_k(%x: tensor<?x768xf32>, %w: tensor<768x3072xi8>, %s: tensor<768xf32>) {
  // expected-error @+1 {{'tsc.quantized_matmul' op quantizes the weight per tensor, per output channel (axis = 1) or per group along K (axis = 0 with group_size)}}
  %y = tsc.quantized_matmul %x, %w, %s axis = 0 : (tensor<?x768xf32>, tensor<768x3072xi8>, tensor<768xf32>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @quantized_matmul_groups_along_n(%x: tensor<?x768xf32>, %w: tensor<768x3072xi4>, %s: tensor<768x96xf32>) {
  // expected-error @+1 {{'tsc.quantized_matmul' op quantizes the weight per tensor, per output channel (axis = 1) or per group along K (axis = 0 with group_size)}}
  %y = tsc.quantized_matmul %x, %w, %s axis = 1 group_size = 32 : (tensor<?x768xf32>, tensor<768x3072xi4>, tensor<768x96xf32>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @quantize_saturate_integer(%x: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tsc.quantize' op saturate applies to float results, not 'i8'}}
  %q = tsc.quantize %x, %s saturate : (tensor<4xf32>, tensor<f32>) -> tensor<4xi8>
  return
}
