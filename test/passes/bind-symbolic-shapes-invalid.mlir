// RUN: tsc-opt %s --split-input-file --tsc-bind-symbolic-shapes=require-all --verify-diagnostics

// With require-all, every dynamic dim must be expressible in the symbols.

// expected-error @+1 {{argument #0 ('tensor<?x768xf32>') has dynamic dims but no tsc.bind_shape}}
func.func @unbound_dynamic_argument(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  return %x : tensor<?x768xf32>
}

// -----

func.func @foreign_with_dynamic_result(%x: tensor<4xf32>) -> tensor<?xi64> {
  // expected-error @+1 {{cannot express the shape of result #0 ('tensor<?xi64>') in the function's symbols: tsc has no shape rule for this op and these operands}}
  %y = tsc.foreign "onnx" "NonZero" version 13 (%x) {} : (tensor<4xf32>) -> tensor<?xi64>
  return %y : tensor<?xi64>
}

// -----

func.func @broadcast_of_two_symbols(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %s = tsc.symbol "a" [1, 8]
  %t = tsc.symbol "b" [1, 8]
  tsc.bind_shape %a[%s], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  tsc.bind_shape %b[%t], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  // expected-error @+1 {{cannot express the shape of result #0 ('tensor<?xf32>') in the function's symbols: dim 0 depends on run-time values, not only on the symbols}}
  %c = tsc.add %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %c : tensor<?xf32>
}

// -----

func.func @reshape_of_unknown_index(%x: tensor<?xf32>, %n: index) -> tensor<?x2xf32> {
  %s = tsc.symbol "s" [1, 8]
  tsc.bind_shape %x[%s], affine_map<()[s0] -> (s0 * 2)> : tensor<?xf32>
  // expected-error @+1 {{cannot express the shape of result #0 ('tensor<?x2xf32>') in the function's symbols: dim 0 depends on run-time values, not only on the symbols}}
  %y = tsc.reshape %x [%n] : tensor<?xf32> -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

func.func @unknown_operand_shape_propagates(%x: tensor<4xf32>) -> tensor<?xi64> {
  // expected-error @+1 {{cannot express the shape of result #0 ('tensor<?xi64>') in the function's symbols: tsc has no shape rule for this op and these operands}}
  %y = tsc.foreign "onnx" "NonZero" version 13 (%x) {} : (tensor<4xf32>) -> tensor<?xi64>
  // expected-error @+1 {{cannot express the shape of result #0 ('tensor<?xi64>') in the function's symbols: operand #0 has no known shape}}
  %z = tsc.neg %y : tensor<?xi64>
  return %z : tensor<?xi64>
}

// -----

// Batch dims of two different symbols broadcast to a size only known at run
// time, as for elementwise ops.
func.func @matmul_batch_of_two_symbols(%a: tensor<?x2x3xf32>, %b: tensor<?x3x4xf32>) -> tensor<?x2x4xf32> {
  %s = tsc.symbol "a" [1, 8]
  %t = tsc.symbol "b" [1, 8]
  tsc.bind_shape %a[%s], affine_map<()[s0] -> (s0, 2, 3)> : tensor<?x2x3xf32>
  tsc.bind_shape %b[%t], affine_map<()[s0] -> (s0, 3, 4)> : tensor<?x3x4xf32>
  // expected-error @+1 {{cannot express the shape of result #0 ('tensor<?x2x4xf32>') in the function's symbols: dim 0 depends on run-time values, not only on the symbols}}
  %c = tsc.matmul %a, %b : (tensor<?x2x3xf32>, tensor<?x3x4xf32>) -> tensor<?x2x4xf32>
  return %c : tensor<?x2x4xf32>
}

// -----

// A range that runs from `seq` down to 0 with a positive step is empty; its
// length is max(0, -seq), which no affine expression states.
func.func @range_length_can_be_negative() -> tensor<?xi64> {
  %s = tsc.symbol "seq" [1, 512]
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{cannot express the shape of result #0 ('tensor<?xi64>') in the function's symbols: dim 0 = -s0 can be negative}}
  %p = tsc.range %s, %c0, %c1 : index -> tensor<?xi64>
  return %p : tensor<?xi64>
}

// -----

// A range from 0 to `seq` - 4 can be negative for seq < 4.
func.func @range_length_negative_for_small_symbols() -> tensor<?xi64> {
  %s = tsc.symbol "seq" [1, 512]
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %end = arith.subi %s, %c4 : index
  // expected-error @+1 {{cannot express the shape of result #0 ('tensor<?xi64>') in the function's symbols: dim 0 = s0 - 4 can be negative}}
  %p = tsc.range %c0, %end, %c1 : index -> tensor<?xi64>
  return %p : tensor<?xi64>
}
