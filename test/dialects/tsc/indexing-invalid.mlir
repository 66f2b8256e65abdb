// RUN: tsc-opt %s --split-input-file --verify-diagnostics

// Verifier and result-inference errors of the indexing ops.

func.func @gather_elements_rank(%d: tensor<3x3xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{indices have rank 1, data has rank 2}}
  // expected-error @+1 {{'tsc.gather_elements' op failed to infer returned types}}
  %y = tsc.gather_elements %d[%i] axis = 0 : (tensor<3x3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_elements_axis(%d: tensor<3x3xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+2 {{axis 2 is out of range [0, 2)}}
  // expected-error @+1 {{'tsc.gather_elements' op failed to infer returned types}}
  %y = tsc.gather_elements %d[%i] axis = 2 : (tensor<3x3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_nd_dynamic_tuple(%d: tensor<3x3xf32>, %i: tensor<2x?xi64>) {
  // expected-error @+2 {{the index tuples' length ? must be static and in [1, 2]}}
  // expected-error @+1 {{'tsc.gather_nd' op failed to infer returned types}}
  %y = tsc.gather_nd %d[%i] batch_dims = 0 : (tensor<3x3xf32>, tensor<2x?xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_nd_batch_mismatch(%d: tensor<2x3x4xf32>, %i: tensor<3x1xi64>) {
  // expected-error @+2 {{batch dim 0 is 2 in data and 3 in indices}}
  // expected-error @+1 {{'tsc.gather_nd' op failed to infer returned types}}
  %y = tsc.gather_nd %d[%i] batch_dims = 1 : (tensor<2x3x4xf32>, tensor<3x1xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_nd_batch_dims(%d: tensor<2x3xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+2 {{batch_dims 2 must be below both ranks (2 and 2)}}
  // expected-error @+1 {{'tsc.gather_nd' op failed to infer returned types}}
  %y = tsc.gather_nd %d[%i] batch_dims = 2 : (tensor<2x3xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @scatter_elements_updates_shape(%d: tensor<1x5xf32>, %i: tensor<1x2xi64>, %u: tensor<1x3xf32>) {
  // expected-error @+1 {{'tsc.scatter_elements' op updates have shape [1, 3], expected [1, 2]}}
  %y = tsc.scatter_elements %d[%i], %u axis = 1 : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x3xf32>) -> tensor<1x5xf32>
  return
}

// -----

func.func @scatter_elements_element_type(%d: tensor<1x5xf32>, %i: tensor<1x2xi64>, %u: tensor<1x2xf16>) {
  // expected-error @+1 {{'tsc.scatter_elements' op updates have element type 'f16', data has 'f32'}}
  %y = tsc.scatter_elements %d[%i], %u axis = 1 : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf16>) -> tensor<1x5xf32>
  return
}

// -----

func.func @scatter_elements_indices_too_wide(%d: tensor<1x5xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) {
  // expected-error @+1 {{'tsc.scatter_elements' op indices dim 0 (2) exceeds data's (1)}}
  %y = tsc.scatter_elements %d[%i], %u axis = 1 : (tensor<1x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<1x5xf32>
  return
}

// -----

func.func @scatter_nd_updates_shape(%d: tensor<4x4x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{'tsc.scatter_nd' op updates have shape [2, 4], expected [2, 4, 4]}}
  %y = tsc.scatter_nd %d[%i], %u : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x4x4xf32>
  return
}

// -----

func.func @scatter_nd_long_tuple(%d: tensor<4x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'tsc.scatter_nd' op the index tuples' length 3 must be static and in [1, 2]}}
  %y = tsc.scatter_nd %d[%i], %u : (tensor<4x4xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @tensor_scatter_batch_axis(%c: tensor<2x4x5xf32>, %u: tensor<2x4x5xf32>) {
  // expected-error @+1 {{'tsc.tensor_scatter' op axis 0 is out of range [1, 3)}}
  %y = tsc.tensor_scatter %c, %u axis = 0 : (tensor<2x4x5xf32>, tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @tensor_scatter_too_long(%c: tensor<2x4x5xf32>, %u: tensor<2x6x5xf32>) {
  // expected-error @+1 {{'tsc.tensor_scatter' op update has 6 positions along axis 1, the cache 4}}
  %y = tsc.tensor_scatter %c, %u axis = 1 : (tensor<2x4x5xf32>, tensor<2x6x5xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @tensor_scatter_other_dims(%c: tensor<2x4x5xf32>, %u: tensor<2x1x3xf32>) {
  // expected-error @+1 {{'tsc.tensor_scatter' op update have shape [2, 1, 3], expected [2, 1, 5]}}
  %y = tsc.tensor_scatter %c, %u axis = 1 : (tensor<2x4x5xf32>, tensor<2x1x3xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @tensor_scatter_write_indices(%c: tensor<2x4x5xf32>, %w: tensor<3xi64>, %u: tensor<2x1x5xf32>) {
  // expected-error @+1 {{'tsc.tensor_scatter' op write_indices have 3 entries for a batch of 2}}
  %y = tsc.tensor_scatter %c[%w], %u axis = 1 : (tensor<2x4x5xf32>, tensor<3xi64>, tensor<2x1x5xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<4xf32>) {
  // expected-error @+2 {{border widths must not be negative}}
  // expected-error @+1 {{'tsc.pad' op failed to infer returned types}}
  %y = tsc.pad %x low = [-1] high = [0] : (tensor<4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @pad_rank(%x: tensor<4x4xf32>) {
  // expected-error @+2 {{low and high need 2 entries, got 1 and 1}}
  // expected-error @+1 {{'tsc.pad' op failed to infer returned types}}
  %y = tsc.pad %x low = [1] high = [1] : (tensor<4x4xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @pad_value_type(%x: tensor<4xf32>, %v: tensor<f16>) {
  // expected-error @+2 {{value must be a 0-d tensor of 'f32'}}
  // expected-error @+1 {{'tsc.pad' op failed to infer returned types}}
  %y = tsc.pad %x, %v low = [1] high = [1] : (tensor<4xf32>, tensor<f16>) -> tensor<6xf32>
  return
}

// -----

func.func @pad_result_shape(%x: tensor<4xf32>) {
  // expected-error @+2 {{'tsc.pad' op inferred type(s) 'tensor<6xf32>' are incompatible with return type(s) of operation 'tensor<7xf32>'}}
  // expected-error @+1 {{'tsc.pad' op failed to infer returned types}}
  %y = tsc.pad %x low = [1] high = [1] : (tensor<4xf32>) -> tensor<7xf32>
  return
}

// -----

func.func @reverse_sequence_same_axes(%x: tensor<4x4xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{'tsc.reverse_sequence' op batch_axis and time_axis are both 0}}
  %y = tsc.reverse_sequence %x, %l batch_axis = 0 time_axis = 0 : (tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x4xf32>
  return
}

// -----

func.func @reverse_sequence_lengths(%x: tensor<4x3xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{'tsc.reverse_sequence' op lengths have 4 entries for a batch of 3}}
  %y = tsc.reverse_sequence %x, %l batch_axis = 1 time_axis = 0 : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return
}
