// RUN: tsc-opt %s --split-input-file --verify-diagnostics

// Verifier and result-inference errors of the elementwise ops, contractions,
// reductions, softmax and norms. Ops with inferred results report the
// inference error and then "failed to infer returned types".

func.func @clip_min_greater_than_max(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.clip' op min 6.000000e+00 is greater than max 0.000000e+00}}
  %y = tsc.clip %x min = 6.0 max = 0.0 : tensor<4xf32>
  return
}

// -----

func.func @cast_changes_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.cast' op changes the shape from 'tensor<4xf32>' to 'tensor<2x2xi32>'; cast converts element types only}}
  %y = tsc.cast %x : tensor<4xf32> to tensor<2x2xi32>
  return
}

// -----

func.func @cast_static_to_dynamic(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.cast' op changes the shape from 'tensor<4xf32>' to 'tensor<?xi32>'; cast converts element types only}}
  %y = tsc.cast %x : tensor<4xf32> to tensor<?xi32>
  return
}

// -----

func.func @cast_round_mode_not_e8m0(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.cast' op round_mode applies to casts to f8E8M0FNU, not to 'f8E4M3FN'}}
  %y = tsc.cast %x saturate round_mode = up : tensor<4xf32> to tensor<4xf8E4M3FN>
  return
}

// -----

func.func @cast_saturate_int_to_f16(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tsc.cast' op saturate applies to float-to-float casts and casts to 8-bit floats, not 'i32' to 'f16'}}
  %y = tsc.cast %x saturate : tensor<4xi32> to tensor<4xf16>
  return
}

// -----

func.func @add_shapes_do_not_broadcast(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes do not broadcast: dim 1 is 3 in one operand and 4 in another}}
  // expected-error @+1 {{'tsc.add' op failed to infer returned types}}
  %z = tsc.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @mul_different_element_types(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+2 {{operands have different element types 'f32' and 'f16'}}
  // expected-error @+1 {{'tsc.mul' op failed to infer returned types}}
  %z = tsc.mul %x, %y : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @add_wrong_result_shape(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+2 {{'tsc.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  // expected-error @+1 {{'tsc.add' op failed to infer returned types}}
  %z = tsc.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @add_result_less_static_than_inferred(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+2 {{'tsc.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<?x3xf32>'}}
  // expected-error @+1 {{'tsc.add' op failed to infer returned types}}
  %z = tsc.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @less_result_not_i1(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+2 {{'tsc.less' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'tsc.less' op failed to infer returned types}}
  %z = tsc.less %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_condition_does_not_broadcast(%c: tensor<3xi1>, %x: tensor<2x4xf32>, %y: tensor<f32>) {
  // expected-error @+2 {{operand shapes do not broadcast: dim 1 is 3 in one operand and 4 in another}}
  // expected-error @+1 {{'tsc.where' op failed to infer returned types}}
  %z = tsc.where %c, %x, %y : (tensor<3xi1>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @where_value_types_differ(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+2 {{operands have different element types 'f32' and 'i32'}}
  // expected-error @+1 {{'tsc.where' op failed to infer returned types}}
  %z = tsc.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_contraction_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{contraction dims differ: 3 vs 4}}
  // expected-error @+1 {{'tsc.matmul' op failed to infer returned types}}
  %c = tsc.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_vector_contraction_mismatch(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{contraction dims differ: 3 vs 4}}
  // expected-error @+1 {{'tsc.matmul' op failed to infer returned types}}
  %c = tsc.matmul %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @matmul_rank_zero(%a: tensor<f32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{matmul operands must have rank >= 1}}
  // expected-error @+1 {{'tsc.matmul' op failed to infer returned types}}
  %c = tsc.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @matmul_element_types_differ(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+2 {{operands have different element types 'f32' and 'f16'}}
  // expected-error @+1 {{'tsc.matmul' op failed to infer returned types}}
  %c = tsc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x2x3xf32>, %b: tensor<5x3x4xf32>) {
  // expected-error @+2 {{operand shapes do not broadcast: dim 0 is 2 in one operand and 5 in another}}
  // expected-error @+1 {{'tsc.matmul' op failed to infer returned types}}
  %c = tsc.matmul %a, %b : (tensor<2x2x3xf32>, tensor<5x3x4xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @matmul_int8_result_not_i32(%a: tensor<2x3xi8>, %b: tensor<3x4xi8>) {
  // expected-error @+2 {{'tsc.matmul' op inferred type(s) 'tensor<2x4xi32>' are incompatible with return type(s) of operation 'tensor<2x4xi8>'}}
  // expected-error @+1 {{'tsc.matmul' op failed to infer returned types}}
  %c = tsc.matmul %a, %b : (tensor<2x3xi8>, tensor<3x4xi8>) -> tensor<2x4xi8>
  return
}

// -----

func.func @linear_weight_not_rank_2(%x: tensor<?x768xf32>, %w: tensor<768xf32>) {
  // expected-error @+2 {{expects an input of rank >= 1 and a weight of rank 2 [N, K]}}
  // expected-error @+1 {{'tsc.linear' op failed to infer returned types}}
  %y = tsc.linear %x, %w : (tensor<?x768xf32>, tensor<768xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @linear_features_mismatch(%x: tensor<?x768xf32>, %w: tensor<3072x512xf32>) {
  // expected-error @+2 {{input features 768 do not match weight [N, K] with K = 512}}
  // expected-error @+1 {{'tsc.linear' op failed to infer returned types}}
  %y = tsc.linear %x, %w : (tensor<?x768xf32>, tensor<3072x512xf32>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @linear_weight_element_type(%x: tensor<?x768xf32>, %w: tensor<3072x768xf16>) {
  // expected-error @+2 {{weight element type 'f16' differs from input's 'f32'}}
  // expected-error @+1 {{'tsc.linear' op failed to infer returned types}}
  %y = tsc.linear %x, %w : (tensor<?x768xf32>, tensor<3072x768xf16>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @linear_unknown_activation(%x: tensor<?x768xf32>, %w: tensor<3072x768xf32>) {
  // expected-error @+1 {{invalid properties {activation = 7 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>} for op tsc.linear: Invalid attribute `activation` in property conversion: 7 : i32}}
  %y = "tsc.linear"(%x, %w) <{activation = 7 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<?x768xf32>, tensor<3072x768xf32>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @linear_activation_keyword(%x: tensor<?x768xf32>, %w: tensor<3072x768xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'activation' [none, gelu, gelu_tanh]}}
  %y = tsc.linear %x, %w activation = swish : (tensor<?x768xf32>, tensor<3072x768xf32>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @linear_bias_wrong_size(%x: tensor<?x768xf32>, %w: tensor<3072x768xf32>, %b: tensor<768xf32>) {
  // expected-error @+2 {{bias must be a 1-D tensor of 3072 'f32', got 'tensor<768xf32>'}}
  // expected-error @+1 {{'tsc.linear' op failed to infer returned types}}
  %y = tsc.linear %x, %w, %b : (tensor<?x768xf32>, tensor<3072x768xf32>, tensor<768xf32>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @linear_bias_rank_2(%x: tensor<?x768xf32>, %w: tensor<3072x768xf32>, %b: tensor<1x3072xf32>) {
  // expected-error @+2 {{bias must be a 1-D tensor of 3072 'f32', got 'tensor<1x3072xf32>'}}
  // expected-error @+1 {{'tsc.linear' op failed to infer returned types}}
  %y = tsc.linear %x, %w, %b : (tensor<?x768xf32>, tensor<3072x768xf32>, tensor<1x3072xf32>) -> tensor<?x3072xf32>
  return
}

// -----

func.func @reduce_dim_out_of_range(%x: tensor<?x768xf32>) {
  // expected-error @+2 {{reduction dim 2 is out of range [0, 2)}}
  // expected-error @+1 {{'tsc.reduce_sum' op failed to infer returned types}}
  %y = tsc.reduce_sum %x dims = [2] : (tensor<?x768xf32>) -> tensor<?x768xf32>
  return
}

// -----

func.func @reduce_dims_not_increasing(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{reduction dim must be strictly increasing, got [2, 1]}}
  // expected-error @+1 {{'tsc.reduce_mean' op failed to infer returned types}}
  %y = tsc.reduce_mean %x dims = [2, 1] : (tensor<2x3x4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_dims_repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{reduction dim must be strictly increasing, got [1, 1]}}
  // expected-error @+1 {{'tsc.reduce_max' op failed to infer returned types}}
  %y = tsc.reduce_max %x dims = [1, 1] : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_no_dims(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction needs at least one dim}}
  // expected-error @+1 {{'tsc.reduce_min' op failed to infer returned types}}
  %y = tsc.reduce_min %x dims = [] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_keepdim_result_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'tsc.reduce_sum' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'tsc.reduce_sum' op failed to infer returned types}}
  %y = tsc.reduce_sum %x dims = [1] keepdim : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @softmax_axis_out_of_range(%x: tensor<?x12xf32>) {
  // expected-error @+1 {{axis 2 is out of range [0, 2)}}
  %y = tsc.softmax %x axis = 2 : tensor<?x12xf32>
  return
}

// -----

func.func @log_softmax_negative_axis(%x: tensor<?x12xf32>) {
  // expected-error @+1 {{axis -1 is out of range [0, 2)}}
  %y = tsc.log_softmax %x axis = -1 : tensor<?x12xf32>
  return
}

// -----

func.func @layer_norm_scale_wrong_shape(%x: tensor<?x?x768xf32>, %g: tensor<512xf32>) {
  // expected-error @+1 {{'tsc.layer_norm' op scale must have the normalized shape [768] and element type 'f32', got 'tensor<512xf32>'}}
  %y = tsc.layer_norm %x scale %g axis = 2 epsilon = 1.0e-5 : (tensor<?x?x768xf32>, tensor<512xf32>) -> tensor<?x?x768xf32>
  return
}

// -----

func.func @layer_norm_bias_wrong_rank(%x: tensor<?x4x768xf32>, %b: tensor<768xf32>) {
  // expected-error @+1 {{'tsc.layer_norm' op bias must have the normalized shape [4, 768] and element type 'f32', got 'tensor<768xf32>'}}
  %y = tsc.layer_norm %x bias %b axis = 1 epsilon = 1.0e-5 : (tensor<?x4x768xf32>, tensor<768xf32>) -> tensor<?x4x768xf32>
  return
}

// -----

func.func @layer_norm_scale_element_type(%x: tensor<?x768xf32>, %g: tensor<768xf16>) {
  // expected-error @+1 {{'tsc.layer_norm' op scale must have the normalized shape [768] and element type 'f32', got 'tensor<768xf16>'}}
  %y = tsc.layer_norm %x scale %g axis = 1 epsilon = 1.0e-5 : (tensor<?x768xf32>, tensor<768xf16>) -> tensor<?x768xf32>
  return
}

// -----

func.func @layer_norm_axis_out_of_range(%x: tensor<?x768xf32>) {
  // expected-error @+1 {{axis 2 is out of range [0, 2)}}
  %y = tsc.layer_norm %x axis = 2 epsilon = 1.0e-5 : (tensor<?x768xf32>) -> tensor<?x768xf32>
  return
}

// -----

func.func @rms_norm_scale_wrong_shape(%x: tensor<?x4096xf32>, %g: tensor<4095xf32>) {
  // expected-error @+1 {{'tsc.rms_norm' op scale must have the normalized shape [4096] and element type 'f32', got 'tensor<4095xf32>'}}
  %y = tsc.rms_norm %x scale %g axis = 1 epsilon = 1.0e-6 : (tensor<?x4096xf32>, tensor<4095xf32>) -> tensor<?x4096xf32>
  return
}

// -----

func.func @rms_norm_axis_out_of_range(%x: tensor<?x4096xf32>) {
  // expected-error @+1 {{axis 5 is out of range [0, 2)}}
  %y = tsc.rms_norm %x axis = 5 epsilon = 1.0e-6 : (tensor<?x4096xf32>) -> tensor<?x4096xf32>
  return
}

// -----

// Dynamic dims print as `?` in the message.
func.func @layer_norm_bias_dynamic_shape(%x: tensor<?x?x768xf32>, %b: tensor<768xf32>) {
  // expected-error @+1 {{'tsc.layer_norm' op bias must have the normalized shape [?, 768] and element type 'f32', got 'tensor<768xf32>'}}
  %y = tsc.layer_norm %x bias %b axis = 1 epsilon = 1.0e-5 : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  return
}
