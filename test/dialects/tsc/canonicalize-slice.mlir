// RUN: tsc-opt %s --split-input-file --canonicalize | FileCheck %s

// A slice of the whole input folds to it, with dynamic sizes too when each
// is the input's dim: a traced x[:, :, :, :] of a value bound to the symbols.

// CHECK-LABEL: func.func @fold_whole_slice_of_bound_value
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x2x8xf32>)
// CHECK-NOT:     tsc.slice
// CHECK:         return %[[X]]
func.func @fold_whole_slice_of_bound_value(%x: tensor<?x?x2x8xf32>) -> tensor<?x?x2x8xf32> {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 2, 8)> : tensor<?x?x2x8xf32>
  %y = tsc.slice %x [0, 0, 0, 0] [%b, %s, 2, 8] [1, 1, 1, 1] : tensor<?x?x2x8xf32> to tensor<?x?x2x8xf32>
  return %y : tensor<?x?x2x8xf32>
}

// -----

// A size that is another symbol (batch may be smaller than seq) keeps it.
// CHECK-LABEL: func.func @keep_slice_by_other_symbol
// CHECK:         tsc.slice
func.func @keep_slice_by_other_symbol(%x: tensor<?x?x2x8xf32>) -> tensor<?x?x2x8xf32> {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 2, 8)> : tensor<?x?x2x8xf32>
  %y = tsc.slice %x [0, 0, 0, 0] [%b, %b, 2, 8] [1, 1, 1, 1] : tensor<?x?x2x8xf32> to tensor<?x?x2x8xf32>
  return %y : tensor<?x?x2x8xf32>
}

// -----

// An offset or a stride other than 0 and 1 keeps it, as does a size smaller
// than a static dim.
// CHECK-LABEL: func.func @keep_partial_slices
// CHECK-COUNT-3: tsc.slice
func.func @keep_partial_slices(%x: tensor<?x8xf32>, %n: index) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x8xf32>) {
  %b = tsc.symbol "batch" [1, 4]
  tsc.bind_shape %x[%b], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %y = tsc.slice %x [0, 4] [%b, 4] [1, 1] : tensor<?x8xf32> to tensor<?x4xf32>
  %z = tsc.slice %x [0, 0] [%b, 4] [1, 2] : tensor<?x8xf32> to tensor<?x4xf32>
  %w = tsc.slice %x [0, 0] [%n, 8] [1, 1] : tensor<?x8xf32> to tensor<?x8xf32>
  return %y, %z, %w : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x8xf32>
}
