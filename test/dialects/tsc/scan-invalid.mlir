// RUN: tsc-opt %s --split-input-file --verify-diagnostics

// Verifier and result-inference errors of the scan family.

func.func @arg_max_axis_out_of_range(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{reduction dim 2 is out of range [0, 2)}}
  // expected-error @+1 {{'tsc.arg_max' op failed to infer returned types}}
  %i = tsc.arg_max %x axis = 2 : (tensor<4x5xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @arg_min_result_not_i64(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'tsc.arg_min' op result #0 must be ranked tensor of 64-bit signless integer values}}
  %i = tsc.arg_min %x axis = 1 : (tensor<4x5xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @scan_without_axis(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'tsc.cumsum' op needs exactly one of `axis` and `runtime_axis`}}
  %s = tsc.cumsum %x : tensor<4x5xf32>
  return
}

// -----

func.func @scan_with_both_axes(%x: tensor<4x5xf32>, %a: tensor<i64>) {
  // expected-error @+1 {{'tsc.cumsum' op needs exactly one of `axis` and `runtime_axis`}}
  %s = tsc.cumsum %x axis = 0 runtime_axis %a : tensor<4x5xf32>, tensor<i64>
  return
}

// -----

func.func @scan_axis_out_of_range(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'tsc.cumprod' op axis 2 is out of range [0, 2)}}
  %s = tsc.cumprod %x axis = 2 : tensor<4x5xf32>
  return
}

// -----

func.func @scan_of_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'tsc.cumsum' op scans a tensor of rank at least 1}}
  %s = tsc.cumsum %x axis = 0 : tensor<f32>
  return
}

// -----

func.func @top_k_too_many(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{k = 6 is out of range [0, 5] for axis 1}}
  // expected-error @+1 {{'tsc.top_k' op failed to infer returned types}}
  %v, %i = tsc.top_k %x k = 6 axis = 1 : (tensor<4x5xf32>) -> (tensor<4x6xf32>, tensor<4x6xi64>)
  return
}

// -----

func.func @top_k_wrong_result_shape(%x: tensor<4x5xf32>) {
  // expected-error @+2 {{'tsc.top_k' op failed to infer returned types}}
  // expected-error @+1 {{'tsc.top_k' op inferred type(s) 'tensor<4x2xf32>', 'tensor<4x2xi64>' are incompatible with return type(s) of operation 'tensor<4x3xf32>', 'tensor<4x3xi64>'}}
  %v, %i = tsc.top_k %x k = 2 axis = 1 : (tensor<4x5xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>)
  return
}
