// RUN: tsc-opt %s --split-input-file --tsc-infer-symbol-ranges | FileCheck %s

// A buffer sliced to `seq` rows from row 0: seq <= 64.
// CHECK-LABEL: func.func @slice_bounds_symbol
// CHECK:         tsc.symbol "seq" [1, 64]
func.func @slice_bounds_symbol(%table: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %seq = tsc.symbol "seq" [1, 4096]
  %rows = tsc.slice %table[0, 0] [%seq, 32] [1, 1] : tensor<64x32xf32> to tensor<?x32xf32>
  return %rows : tensor<?x32xf32>
}

// -----

// From row 4 on, at most 60 rows remain.
// CHECK-LABEL: func.func @slice_offset
// CHECK:         tsc.symbol "seq" [1, 60]
func.func @slice_offset(%table: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %seq = tsc.symbol "seq" [1, 4096]
  %rows = tsc.slice %table[4, 0] [%seq, 32] [1, 1] : tensor<64x32xf32> to tensor<?x32xf32>
  return %rows : tensor<?x32xf32>
}

// -----

// Positions 0 .. seq-1 into a 512-row table (through a cast, as exporters
// emit it): seq <= 512. A bound above the current maximum changes nothing.
// CHECK-LABEL: func.func @gather_at_range
// CHECK:         tsc.symbol "seq" [1, 512]
// CHECK:         tsc.symbol "small" [1, 8]
func.func @gather_at_range(%table: tensor<512x32xf32>) -> tensor<1x?x32xf32> {
  %seq = tsc.symbol "seq" [1, 4096]
  %small = tsc.symbol "small" [1, 8]
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %limit = arith.index_cast %seq : index to i64
  %pos = tsc.range %c0, %limit, %c1 : i64 -> tensor<?xi64>
  %ids = tsc.unsqueeze %pos dims = [0] : (tensor<?xi64>) -> tensor<1x?xi64>
  %rows = tsc.gather %table[%ids] axis = 0 : (tensor<512x32xf32>, tensor<1x?xi64>) -> tensor<1x?x32xf32>
  %other = tsc.slice %table[0, 0] [%small, 32] [1, 1] : tensor<512x32xf32> to tensor<?x32xf32>
  return %rows : tensor<1x?x32xf32>
}

// -----

// Near-misses: a strided slice and a range with step 2 say nothing.
// CHECK-LABEL: func.func @no_bound
// CHECK:         tsc.symbol "seq" [1, 4096]
func.func @no_bound(%table: tensor<64x32xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %seq = tsc.symbol "seq" [1, 4096]
  %rows = tsc.slice %table[0, 0] [%seq, 32] [2, 1] : tensor<64x32xf32> to tensor<?x32xf32>
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %limit = arith.index_cast %seq : index to i64
  %pos = tsc.range %c0, %limit, %c2 : i64 -> tensor<?xi64>
  %g = tsc.gather %table[%pos] axis = 0 : (tensor<64x32xf32>, tensor<?xi64>) -> tensor<?x32xf32>
  return %rows, %g : tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// Positions read through any op that rearranges all of them (here a
// transpose: Tsc_RearrangesElements) still reach row seq-1: seq <= 512.
// CHECK-LABEL: func.func @gather_at_transposed_range
// CHECK:         tsc.symbol "seq" [1, 512]
func.func @gather_at_transposed_range(%table: tensor<512x32xf32>) -> tensor<?x1x32xf32> {
  %seq = tsc.symbol "seq" [1, 4096]
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %limit = arith.index_cast %seq : index to i64
  %pos = tsc.range %c0, %limit, %c1 : i64 -> tensor<?xi64>
  %row = tsc.unsqueeze %pos dims = [0] : (tensor<?xi64>) -> tensor<1x?xi64>
  %col = tsc.transpose %row perm = [1, 0] : (tensor<1x?xi64>) -> tensor<?x1xi64>
  %g = tsc.gather %table[%col] axis = 0 : (tensor<512x32xf32>, tensor<?x1xi64>) -> tensor<?x1x32xf32>
  return %g : tensor<?x1x32xf32>
}

// -----

// Near-miss: a slice of the positions may drop the last ones, so the gather
// need not reach row seq-1 and bounds nothing.
// CHECK-LABEL: func.func @no_bound_from_sliced_range
// CHECK:         tsc.symbol "seq" [1, 4096]
func.func @no_bound_from_sliced_range(%table: tensor<512x32xf32>) -> tensor<?x32xf32> {
  %seq = tsc.symbol "seq" [1, 4096]
  %half = tsc.symbol "half" [1, 2048]
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %limit = arith.index_cast %seq : index to i64
  %pos = tsc.range %c0, %limit, %c1 : i64 -> tensor<?xi64>
  %some = tsc.slice %pos[0] [%half] [1] : tensor<?xi64> to tensor<?xi64>
  %g = tsc.gather %table[%some] axis = 0 : (tensor<512x32xf32>, tensor<?xi64>) -> tensor<?x32xf32>
  return %g : tensor<?x32xf32>
}
