// RUN: tsc-opt %s --split-input-file --verify-diagnostics

// Verifier errors of tsc.symbol, tsc.bind_shape, tsc.foreign and tsc.constant.

func.func @symbol_min_greater_than_max() {
  // expected-error @+1 {{'tsc.symbol' op range [8, 4] of symbol 'seq' must satisfy 0 <= min <= max}}
  %s = tsc.symbol "seq" [8, 4]
  return
}

// -----

func.func @symbol_negative_min() {
  // expected-error @+1 {{'tsc.symbol' op range [-1, 4] of symbol 'seq' must satisfy 0 <= min <= max}}
  %s = tsc.symbol "seq" [-1, 4]
  return
}

// -----

// Symbols bound from data may be negative; min <= max still holds.
func.func @data_symbol_min_greater_than_max(%axes: tensor<1xi64>) {
  // expected-error @+1 {{'tsc.symbol' op range [2, -3] of symbol 'axes[0]' must satisfy min <= max}}
  %a = tsc.symbol "axes[0]" [2, -3] from %axes[0] : tensor<1xi64>
  return
}

// -----

func.func @data_symbol_element_out_of_range(%axes: tensor<2xi64>) {
  // expected-error @+1 {{'tsc.symbol' op symbol 'axes[2]' reads element 2 of 'tensor<2xi64>'; it needs a static numeric tensor holding it}}
  %a = tsc.symbol "axes[2]" [-3, 2] from %axes[2] : tensor<2xi64>
  return
}

// -----

// A computed value must have a static shape holding the element too.
func.func @data_symbol_of_dynamic_computed_value(%x: tensor<?xi64>) {
  %y = tsc.add %x, %x : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  // expected-error @+1 {{'tsc.symbol' op symbol 'y[0]' reads element 0 of 'tensor<?xi64>'; it needs a static numeric tensor holding it}}
  %a = tsc.symbol "y[0]" [0, 4] from %y[0] : tensor<?xi64>
  return
}

// -----

func.func @data_symbol_element_past_computed_value(%x: tensor<2xi64>) {
  %y = tsc.add %x, %x : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  // expected-error @+1 {{'tsc.symbol' op symbol 'y[2]' reads element 2 of 'tensor<2xi64>'; it needs a static numeric tensor holding it}}
  %a = tsc.symbol "y[2]" [0, 4] from %y[2] : tensor<2xi64>
  return
}

// -----

func.func @data_symbol_both_defined_and_read(%x: tensor<2xi64>) {
  %c = arith.constant 1 : index
  %y = tsc.add %x, %x : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  // expected-error @+1 {{'tsc.symbol' op symbol 'y[0]' is both defined and read from an input}}
  %a = tsc.symbol "y[0]" [0, 4] = %c from %y[0] : tensor<2xi64>
  return
}

// -----

func.func @symbol_empty_name() {
  // expected-error @+1 {{'tsc.symbol' op symbol name must not be empty}}
  %s = tsc.symbol "" [1, 4]
  return
}

// -----

func.func @symbol_declared_twice() {
  // expected-error @+1 {{'tsc.symbol' op symbol 'seq' is declared more than once}}
  %a = tsc.symbol "seq" [1, 4]
  %b = tsc.symbol "seq" [1, 8]
  return
}

// -----

func.func @bind_shape_operand_not_a_symbol(%x: tensor<?xf32>, %n: index) {
  // expected-error @+1 {{'tsc.bind_shape' op symbol operand #0 is not defined by tsc.symbol}}
  tsc.bind_shape %x[%n], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  return
}

// -----

func.func @bind_shape_symbol_listed_twice(%x: tensor<?x?xf32>) {
  %s = tsc.symbol "seq" [1, 4]
  // expected-error @+1 {{'tsc.bind_shape' op symbol 'seq' is listed twice}}
  tsc.bind_shape %x[%s, %s], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xf32>
  return
}

// -----

func.func @bind_shape_map_symbol_count(%x: tensor<?xf32>) {
  %s = tsc.symbol "seq" [1, 4]
  // expected-error @+1 {{'tsc.bind_shape' op shape map must have no dims and one symbol per symbol operand (1), got ()[s0, s1] -> (s0 + s1)}}
  tsc.bind_shape %x[%s], affine_map<()[s0, s1] -> (s0 + s1)> : tensor<?xf32>
  return
}

// -----

func.func @bind_shape_map_with_dims(%x: tensor<?xf32>) {
  %s = tsc.symbol "seq" [1, 4]
  // expected-error @+1 {{'tsc.bind_shape' op shape map must have no dims and one symbol per symbol operand (1), got (d0)[s0] -> (s0)}}
  tsc.bind_shape %x[%s], affine_map<(d0)[s0] -> (s0)> : tensor<?xf32>
  return
}

// -----

func.func @bind_shape_wrong_result_count(%x: tensor<?x4xf32>) {
  %s = tsc.symbol "seq" [1, 4]
  // expected-error @+1 {{'tsc.bind_shape' op shape map has 1 results for a tensor of rank 2}}
  tsc.bind_shape %x[%s], affine_map<()[s0] -> (s0)> : tensor<?x4xf32>
  return
}

// -----

func.func @bind_shape_static_dim_wrong_constant(%x: tensor<?x4xf32>) {
  %s = tsc.symbol "seq" [1, 4]
  // expected-error @+1 {{'tsc.bind_shape' op static dim 1 of size 4 is bound to 8}}
  tsc.bind_shape %x[%s], affine_map<()[s0] -> (s0, 8)> : tensor<?x4xf32>
  return
}

// -----

func.func @bind_shape_static_dim_bound_to_symbol(%x: tensor<?x4xf32>) {
  %s = tsc.symbol "seq" [4, 4]
  // expected-error @+1 {{'tsc.bind_shape' op static dim 1 of size 4 is bound to s0}}
  tsc.bind_shape %x[%s], affine_map<()[s0] -> (s0, s0)> : tensor<?x4xf32>
  return
}

// -----

func.func @bind_shape_always_negative(%x: tensor<?xf32>) {
  %s = tsc.symbol "seq" [1, 4]
  // expected-error @+1 {{'tsc.bind_shape' op dim 0 is bound to s0 - 5, which is negative for every value of its symbols}}
  tsc.bind_shape %x[%s], affine_map<()[s0] -> (s0 - 5)> : tensor<?xf32>
  return
}

// -----

func.func @bind_shape_disagreeing_bindings(%x: tensor<?xf32>) {
  %a = tsc.symbol "a" [1, 4]
  %b = tsc.symbol "b" [1, 4]
  // expected-error @+1 {{'tsc.bind_shape' op binds the shape differently from another tsc.bind_shape of the same value}}
  tsc.bind_shape %x[%a], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  // expected-note @+1 {{the other binding}}
  tsc.bind_shape %x[%b], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  return
}

// -----

func.func @yield_outside_foreign(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.yield' op expects parent op 'tsc.foreign'}}
  tsc.yield %x : tensor<4xf32>
}

// -----

func.func @foreign_empty_domain(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.foreign' op needs a non-empty domain and op type}}
  %y = tsc.foreign "" "Relu" version 14 (%x) {} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @foreign_empty_op_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.foreign' op needs a non-empty domain and op type}}
  %y = tsc.foreign "onnx" "" version 14 (%x) {} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @foreign_negative_version(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tsc.foreign' op version must be non-negative}}
  %y = tsc.foreign "onnx" "Relu" version -1 (%x) {} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{'tsc.constant' op failed to verify that all of {value, result} have same type}}
  %c = "tsc.constant"() {value = dense<1> : tensor<2xi64>} : () -> tensor<3xi64>
  return
}
