// RUN: tsc-opt %s --split-input-file --verify-diagnostics

// Verifier and result-inference errors of slice, split, gather, squeeze,
// unsqueeze, range, trilu, dim and shape_of.

func.func @slice_zero_stride(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tsc.slice' op stride of dim 0 is zero}}
  %y = tsc.slice %x [0] [4] [0] : tensor<8xf32> to tensor<4xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tsc.slice' op dim 0 reads elements 4 to 8, outside [0, 8)}}
  %y = tsc.slice %x [4] [5] [1] : tensor<8xf32> to tensor<5xf32>
  return
}

// -----

func.func @slice_negative_stride_past_start(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tsc.slice' op dim 0 reads elements 2 to -1, outside [0, 8)}}
  %y = tsc.slice %x [2] [4] [-1] : tensor<8xf32> to tensor<4xf32>
  return
}

// -----

func.func @slice_offset_at_end(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tsc.slice' op dim 0 reads elements 8 to 8, outside [0, 8)}}
  %y = tsc.slice %x [8] [1] [1] : tensor<8xf32> to tensor<1xf32>
  return
}

// -----

func.func @slice_wrong_result_size(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tsc.slice' op result dim 0 is 3 but the slice takes 4}}
  %y = tsc.slice %x [0] [4] [2] : tensor<8xf32> to tensor<3xf32>
  return
}

// -----

func.func @slice_negative_size(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tsc.slice' op size of dim 0 is negative}}
  %y = tsc.slice %x [0] [-1] [1] : tensor<8xf32> to tensor<?xf32>
  return
}

// -----

func.func @slice_negative_offset(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tsc.slice' op offset of dim 0 is negative}}
  %y = tsc.slice %x [-1] [1] [1] : tensor<8xf32> to tensor<1xf32>
  return
}

// -----

func.func @slice_wrong_entry_count(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{expected 2 offset values, got 1}}
  %y = tsc.slice %x [0] [4] [1] : tensor<8x4xf32> to tensor<4x4xf32>
  return
}

// -----

func.func @slice_rank_change(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'tsc.slice' op result must have the input's rank and element type}}
  %y = tsc.slice %x [0, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<16xf32>
  return
}

// -----

func.func @split_sizes_do_not_add_up(%x: tensor<?x2304xf32>) {
  // expected-error @+1 {{'tsc.split' op sizes add up to 1536 but the axis has 2304}}
  %a, %b = tsc.split %x axis = 1 sizes = [768, 768] : tensor<?x2304xf32> -> tensor<?x768xf32>, tensor<?x768xf32>
  return
}

// -----

func.func @split_size_count(%x: tensor<?x2304xf32>) {
  // expected-error @+1 {{'tsc.split' op has 2 results but 1 sizes}}
  %a, %b = tsc.split %x axis = 1 sizes = [2304] : tensor<?x2304xf32> -> tensor<?x2304xf32>, tensor<?x2304xf32>
  return
}

// -----

func.func @split_negative_size(%x: tensor<?x?xf32>) {
  // expected-error @+1 {{'tsc.split' op size 0 is negative}}
  %a, %b = tsc.split %x axis = 1 sizes = [-1, 4] : tensor<?x?xf32> -> tensor<?x?xf32>, tensor<?x4xf32>
  return
}

// -----

func.func @split_wrong_result_type(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{'tsc.split' op result #1 should be 'tensor<?x4xf32>', got 'tensor<?x5xf32>'}}
  %a, %b = tsc.split %x axis = 1 sizes = [4, 4] : tensor<?x8xf32> -> tensor<?x4xf32>, tensor<?x5xf32>
  return
}

// -----

func.func @split_axis_out_of_range(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{axis 2 is out of range [0, 2)}}
  %a = tsc.split %x axis = 2 sizes = [8] : tensor<?x8xf32> -> tensor<?x8xf32>
  return
}

// -----

func.func @gather_axis_out_of_range(%t: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{axis 2 is out of range [0, 2)}}
  // expected-error @+1 {{'tsc.gather' op failed to infer returned types}}
  %y = tsc.gather %t[%i] axis = 2 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<10x4xf32>
  return
}

// -----

func.func @gather_wrong_result(%t: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'tsc.gather' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error @+1 {{'tsc.gather' op failed to infer returned types}}
  %y = tsc.gather %t[%i] axis = 0 : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @squeeze_non_unit_dim(%x: tensor<?x2x768xf32>) {
  // expected-error @+2 {{squeezed dim 1 must have static size 1, got 2}}
  // expected-error @+1 {{'tsc.squeeze' op failed to infer returned types}}
  %y = tsc.squeeze %x dims = [1] : (tensor<?x2x768xf32>) -> tensor<?x768xf32>
  return
}

// -----

func.func @squeeze_dynamic_dim(%x: tensor<?x768xf32>) {
  // expected-error @+2 {{squeezed dim 0 must have static size 1, got ?}}
  // expected-error @+1 {{'tsc.squeeze' op failed to infer returned types}}
  %y = tsc.squeeze %x dims = [0] : (tensor<?x768xf32>) -> tensor<768xf32>
  return
}

// -----

func.func @squeeze_dim_out_of_range(%x: tensor<1x768xf32>) {
  // expected-error @+2 {{squeezed dim 2 is out of range [0, 2)}}
  // expected-error @+1 {{'tsc.squeeze' op failed to infer returned types}}
  %y = tsc.squeeze %x dims = [2] : (tensor<1x768xf32>) -> tensor<1x768xf32>
  return
}

// -----

func.func @unsqueeze_dims_not_increasing(%x: tensor<4xf32>) {
  // expected-error @+2 {{inserted dim must be strictly increasing, got [1, 0]}}
  // expected-error @+1 {{'tsc.unsqueeze' op failed to infer returned types}}
  %y = tsc.unsqueeze %x dims = [1, 0] : (tensor<4xf32>) -> tensor<1x1x4xf32>
  return
}

// -----

func.func @unsqueeze_dim_out_of_range(%x: tensor<4xf32>) {
  // expected-error @+2 {{inserted dim 2 is out of range [0, 2)}}
  // expected-error @+1 {{'tsc.unsqueeze' op failed to infer returned types}}
  %y = tsc.unsqueeze %x dims = [2] : (tensor<4xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @range_float_operands_int_result(%a: f32) {
  // expected-error @+1 {{'tsc.range' op result element type 'i32' does not fit operands of type 'f32'}}
  %y = tsc.range %a, %a, %a : f32 -> tensor<?xi32>
  return
}

// -----

func.func @range_index_operands_float_result(%a: index) {
  // expected-error @+1 {{'tsc.range' op result element type 'f32' does not fit operands of type 'index'}}
  %y = tsc.range %a, %a, %a : index -> tensor<?xf32>
  return
}

// -----

func.func @range_int_width_mismatch(%a: i32) {
  // expected-error @+1 {{'tsc.range' op result element type 'i64' does not fit operands of type 'i32'}}
  %y = tsc.range %a, %a, %a : i32 -> tensor<?xi64>
  return
}

// -----

func.func @trilu_rank_1(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.trilu' op needs a tensor of rank >= 2}}
  %y = tsc.trilu %x diagonal = 0 : tensor<4xf32>
  return
}

// -----

func.func @dim_out_of_range(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'tsc.dim' op dim 2 is out of range [0, 2)}}
  %d = tsc.dim %x, 2 : tensor<?x4xf32>
  return
}

// -----

func.func @shape_of_wrong_length(%x: tensor<?x4xf32>) {
  // expected-error @+2 {{'tsc.shape_of' op inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<3xi64>'}}
  // expected-error @+1 {{'tsc.shape_of' op failed to infer returned types}}
  %s = tsc.shape_of %x : (tensor<?x4xf32>) -> tensor<3xi64>
  return
}
