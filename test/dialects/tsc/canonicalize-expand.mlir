// RUN: tsc-opt %s --split-input-file --canonicalize | FileCheck %s

// Expands that write nothing new: to the shape their input is bound to, or
// read by a broadcasting op whose other operand has the expanded shape.

// transformers' mask functions expand a mask already at [B, 1, S, S].
// CHECK-LABEL: func.func @fold_expand_to_bound_shape
// CHECK-SAME:    (%[[X:.+]]: tensor<?x1x?x?xi1>)
// CHECK-NOT:     tsc.expand
// CHECK:         return %[[X]]
func.func @fold_expand_to_bound_shape(%x: tensor<?x1x?x?xi1>) -> tensor<?x1x?x?xi1> {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, 1, s1, s1)> : tensor<?x1x?x?xi1>
  %y = tsc.expand %x[%b, %s, %s] : tensor<?x1x?x?xi1> -> tensor<?x1x?x?xi1>
  return %y : tensor<?x1x?x?xi1>
}

// -----

// A dim bound to another symbol may be 1 and grow: the expand stays.
// CHECK-LABEL: func.func @keep_expand_of_other_symbol
// CHECK:         tsc.expand
func.func @keep_expand_of_other_symbol(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%b], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %y = tsc.expand %x[%s] : tensor<?x8xf32> -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// T5's bucketing: min(x, full_like(x, 7)) reads the scalar directly.
// CHECK-LABEL: func.func @read_expand_through_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?xi64>)
// CHECK:         %[[C:.+]] = tsc.constant dense<7> : tensor<i64>
// CHECK-NOT:     tsc.expand
// CHECK:         %[[M:.+]] = tsc.min %[[X]], %[[C]] : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi64>
// CHECK:         return %[[M]]
func.func @read_expand_through_broadcast(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%s], affine_map<()[s0] -> (s0, s0)> : tensor<?x?xi64>
  %c = tsc.constant dense<7> : tensor<i64>
  %e = tsc.expand %c[%s, %s] : tensor<i64> -> tensor<?x?xi64>
  %m = tsc.min %x, %e : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  return %m : tensor<?x?xi64>
}

// -----

// The other operand is smaller than the expanded shape: the expand is what
// makes the result [S, S], and stays.
// CHECK-LABEL: func.func @keep_expand_that_sets_the_shape
// CHECK:         %[[E:.+]] = tsc.expand
// CHECK:         tsc.min %{{.+}}, %[[E]]
func.func @keep_expand_that_sets_the_shape(%x: tensor<?xi64>) -> tensor<?x?xi64> {
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%s], affine_map<()[s0] -> (s0)> : tensor<?xi64>
  %c = tsc.constant dense<7> : tensor<i64>
  %e = tsc.expand %c[%s, %s] : tensor<i64> -> tensor<?x?xi64>
  %m = tsc.min %x, %e : (tensor<?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  return %m : tensor<?x?xi64>
}
