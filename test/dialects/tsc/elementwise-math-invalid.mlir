// RUN: tsc-opt %s --split-input-file --verify-diagnostics

// Verifier and result-inference errors of the ElementwiseMath ops: element
// type constraints (bitwise ops and shifts take integers, rounding and
// classification floats), i1 classification results, and the shared rules of
// broadcasting binary ops.

func.func @bitwise_and_of_floats(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.bitwise_and' op operand #0 must be ranked tensor of signless integer or unsigned integer values, but got 'tensor<4xf32>'}}
  %y = tsc.bitwise_and %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @floor_of_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tsc.floor' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %y = tsc.floor %x : tensor<4xi32>
  return
}

// -----

func.func @is_nan_of_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tsc.is_nan' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %y = tsc.is_nan %x : (tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @is_inf_float_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.is_inf' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %y = tsc.is_inf %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @is_nan_other_shape(%x: tensor<4xf32>) {
  // expected-error @+2 {{'tsc.is_nan' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<3xi1>'}}
  // expected-error @+1 {{'tsc.is_nan' op failed to infer returned types}}
  %y = tsc.is_nan %x : (tensor<4xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @mod_mixed_element_types(%x: tensor<4xi32>, %y: tensor<4xi64>) {
  // expected-error @+2 {{operands have different element types 'i32' and 'i64'}}
  // expected-error @+1 {{'tsc.mod' op failed to infer returned types}}
  %z = tsc.mod %x, %y : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi32>
  return
}

// -----

func.func @shift_left_not_broadcasting(%x: tensor<4xi32>, %y: tensor<3xi32>) {
  // expected-error @+2 {{operand shapes do not broadcast: dim 0 is 4 in one operand and 3 in another}}
  // expected-error @+1 {{'tsc.shift_left' op failed to infer returned types}}
  %z = tsc.shift_left %x, %y : (tensor<4xi32>, tensor<3xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @bitcast_of_other_width(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.bitcast' op reinterprets 'f32' as 'f64'; both element types must have the same width}}
  %y = tsc.bitcast %x : tensor<4xf32> to tensor<4xf64>
  return
}

// -----

func.func @bitcast_of_other_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.bitcast' op changes the shape from 'tensor<4xf32>' to 'tensor<2x2xi32>'; bitcast keeps the shape}}
  %y = tsc.bitcast %x : tensor<4xf32> to tensor<2x2xi32>
  return
}
