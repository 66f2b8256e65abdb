// RUN: tsc-opt %s --split-input-file --canonicalize | FileCheck %s

// Transposes that undo each other across an elementwise op or a reshape
// (dialects/tsc/IR/TscLayoutCanonicalize.cpp).

// Whisper: a 1-D convolution's [B, C, T] output, transposed to [B, T, C]
// for a GELU and back.
// CHECK-LABEL: func.func @cancels_transposes_around_unary
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16x32xf32>)
// CHECK-NOT:     tsc.transpose
// CHECK:         %[[G:.+]] = tsc.gelu %[[X]] : tensor<?x16x32xf32>
// CHECK-NOT:     tsc.transpose
// CHECK:         return %[[G]]
func.func @cancels_transposes_around_unary(%x: tensor<?x16x32xf32>) -> tensor<?x16x32xf32> {
  %t = tsc.transpose %x perm = [0, 2, 1] : (tensor<?x16x32xf32>) -> tensor<?x32x16xf32>
  %g = tsc.gelu %t : tensor<?x32x16xf32>
  %r = tsc.transpose %g perm = [0, 2, 1] : (tensor<?x32x16xf32>) -> tensor<?x16x32xf32>
  return %r : tensor<?x16x32xf32>
}

// -----

// A unary op whose result is also used in the transposed layout stays,
// and so do transposes that do not undo each other.
// CHECK-LABEL: func.func @keeps_transposes_around_shared_or_other_unary
// CHECK-COUNT-4: tsc.transpose
// CHECK:         return
func.func @keeps_transposes_around_shared_or_other_unary(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x4x3xf32>, tensor<3x2x4xf32>) {
  %t = tsc.transpose %x perm = [0, 2, 1] : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %g = tsc.gelu %t : tensor<2x4x3xf32>
  %r = tsc.transpose %g perm = [0, 2, 1] : (tensor<2x4x3xf32>) -> tensor<2x3x4xf32>
  %t2 = tsc.transpose %x perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %n = tsc.neg %t2 : tensor<4x2x3xf32>
  %r2 = tsc.transpose %n perm = [2, 1, 0] : (tensor<4x2x3xf32>) -> tensor<3x2x4xf32>
  return %r, %g, %r2 : tensor<2x3x4xf32>, tensor<2x4x3xf32>, tensor<3x2x4xf32>
}

// -----

// ViT's patch embedding: [B, H, W, C] to [B, C, H, W], flattened to
// [B, C, H*W], to [B, H*W, C] tokens: only a reshape of the input.
// CHECK-LABEL: func.func @folds_transposes_around_flatten
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4x4x32xf32>, %[[B:.+]]: index)
// CHECK-NOT:     tsc.transpose
// CHECK:         %[[R:.+]] = tsc.reshape %[[X]][%[[B]]] : tensor<?x4x4x32xf32> -> tensor<?x16x32xf32>
// CHECK-NOT:     tsc.transpose
// CHECK:         return %[[R]]
func.func @folds_transposes_around_flatten(%x: tensor<?x4x4x32xf32>, %b: index) -> tensor<?x16x32xf32> {
  %nchw = tsc.transpose %x perm = [0, 3, 1, 2] : (tensor<?x4x4x32xf32>) -> tensor<?x32x4x4xf32>
  %flat = tsc.reshape %nchw [%b] : tensor<?x32x4x4xf32> -> tensor<?x32x16xf32>
  %tokens = tsc.transpose %flat perm = [0, 2, 1] : (tensor<?x32x16xf32>) -> tensor<?x16x32xf32>
  return %tokens : tensor<?x16x32xf32>
}

// -----

// Not folded: the outer transpose leaves the input's dims out of order
// (tokens come out [B, C-major]), the reshape mixes dims of different
// runs (32x4x4 -> 8x64), or two dynamic dims whose sizes the reshape may
// trade.
// CHECK-LABEL: func.func @keeps_transposes_around_other_reshapes
// CHECK-COUNT-6: tsc.transpose
// CHECK:         return
func.func @keeps_transposes_around_other_reshapes(%x: tensor<2x4x4x32xf32>, %y: tensor<?x?x4x8xf32>, %b: index, %s: index) -> (tensor<2x16x32xf32>, tensor<2x64x8xf32>, tensor<?x?x32xf32>) {
  %t = tsc.transpose %x perm = [0, 3, 2, 1] : (tensor<2x4x4x32xf32>) -> tensor<2x32x4x4xf32>
  %f = tsc.reshape %t : tensor<2x32x4x4xf32> -> tensor<2x32x16xf32>
  %r = tsc.transpose %f perm = [0, 2, 1] : (tensor<2x32x16xf32>) -> tensor<2x16x32xf32>
  %t2 = tsc.transpose %x perm = [0, 3, 1, 2] : (tensor<2x4x4x32xf32>) -> tensor<2x32x4x4xf32>
  %f2 = tsc.reshape %t2 : tensor<2x32x4x4xf32> -> tensor<2x8x64xf32>
  %r2 = tsc.transpose %f2 perm = [0, 2, 1] : (tensor<2x8x64xf32>) -> tensor<2x64x8xf32>
  %t3 = tsc.transpose %y perm = [1, 0, 2, 3] : (tensor<?x?x4x8xf32>) -> tensor<?x?x4x8xf32>
  %f3 = tsc.reshape %t3 [%s, %b] : tensor<?x?x4x8xf32> -> tensor<?x?x32xf32>
  %r3 = tsc.transpose %f3 perm = [1, 0, 2] : (tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  return %r, %r2, %r3 : tensor<2x16x32xf32>, tensor<2x64x8xf32>, tensor<?x?x32xf32>
}

// -----

// A reshape reads a transpose that moves only a dim of size 1 (a single
// K/V head) in the same row-major order as its input.
// CHECK-LABEL: func.func @reshape_skips_unit_dim_transpose
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x1x8xf32>, %[[B:.+]]: index, %[[S:.+]]: index)
// CHECK-NOT:     tsc.transpose
// CHECK:         %[[R:.+]] = tsc.reshape %[[X]][%[[B]], %[[S]]] : tensor<?x?x1x8xf32> -> tensor<?x?x8xf32>
// CHECK:         return %[[R]]
func.func @reshape_skips_unit_dim_transpose(%x: tensor<?x?x1x8xf32>, %b: index, %s: index) -> tensor<?x?x8xf32> {
  %t = tsc.transpose %x perm = [0, 2, 1, 3] : (tensor<?x?x1x8xf32>) -> tensor<?x1x?x8xf32>
  %r = tsc.reshape %t [%b, %s] : tensor<?x1x?x8xf32> -> tensor<?x?x8xf32>
  return %r : tensor<?x?x8xf32>
}

// -----

// With two heads the transpose reorders elements: it stays.
// CHECK-LABEL: func.func @reshape_keeps_head_transpose
// CHECK:         %[[T:.+]] = tsc.transpose
// CHECK:         tsc.reshape %[[T]]
func.func @reshape_keeps_head_transpose(%x: tensor<?x?x2x8xf32>, %b: index, %s: index) -> tensor<?x?x16xf32> {
  %t = tsc.transpose %x perm = [0, 2, 1, 3] : (tensor<?x?x2x8xf32>) -> tensor<?x2x?x8xf32>
  %r = tsc.reshape %t [%b, %s] : tensor<?x2x?x8xf32> -> tensor<?x?x16xf32>
  return %r : tensor<?x?x16xf32>
}

// -----

// Falcon (dynamo): K's shared head picked out of the fused QKV projection
// as qkv[..., -2:-1, :] through a transpose of that dim to the front, a
// gather_nd of index -2 and a transpose back: a slice.
// CHECK-LABEL: func.func @folds_transposed_gather_nd_to_slice
// CHECK-SAME:    (%[[X:.+]]: tensor<?x6x2x4x8xf32>)
// CHECK-NOT:     tsc.transpose
// CHECK-NOT:     tsc.gather_nd
// CHECK:         %[[B:.+]] = tsc.dim %[[X]], 0
// CHECK:         %[[S:.+]] = tsc.slice %[[X]] [0, 0, 0, 2, 0] [%[[B]], 6, 2, 1, 8] [1, 1, 1, 1, 1] : tensor<?x6x2x4x8xf32> to tensor<?x6x2x1x8xf32>
// CHECK:         return %[[S]]
func.func @folds_transposed_gather_nd_to_slice(%x: tensor<?x6x2x4x8xf32>) -> tensor<?x6x2x1x8xf32> {
  %i = tsc.constant dense<-2> : tensor<1x1xi64>
  %t = tsc.transpose %x perm = [3, 0, 1, 2, 4] : (tensor<?x6x2x4x8xf32>) -> tensor<4x?x6x2x8xf32>
  %g = tsc.gather_nd %t[%i] batch_dims = 0 : (tensor<4x?x6x2x8xf32>, tensor<1x1xi64>) -> tensor<1x?x6x2x8xf32>
  %r = tsc.transpose %g perm = [1, 2, 3, 0, 4] : (tensor<1x?x6x2x8xf32>) -> tensor<?x6x2x1x8xf32>
  return %r : tensor<?x6x2x1x8xf32>
}

// -----

// Not a slice of x's layout when the outer transpose leaves dims moved,
// nor with two indices per tuple.
// CHECK-LABEL: func.func @keeps_other_gather_nd_transposes
// CHECK-COUNT-2: tsc.gather_nd
func.func @keeps_other_gather_nd_transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x1x3xf32>, tensor<3x1xf32>) {
  %i = tsc.constant dense<1> : tensor<1x1xi64>
  %t = tsc.transpose %x perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %g = tsc.gather_nd %t[%i] batch_dims = 0 : (tensor<4x2x3xf32>, tensor<1x1xi64>) -> tensor<1x2x3xf32>
  %r = tsc.transpose %g perm = [1, 0, 2] : (tensor<1x2x3xf32>) -> tensor<2x1x3xf32>
  %j = tsc.constant dense<[[1, 0]]> : tensor<1x2xi64>
  %g2 = tsc.gather_nd %t[%j] batch_dims = 0 : (tensor<4x2x3xf32>, tensor<1x2xi64>) -> tensor<1x3xf32>
  %r2 = tsc.transpose %g2 perm = [1, 0] : (tensor<1x3xf32>) -> tensor<3x1xf32>
  return %r, %r2 : tensor<2x1x3xf32>, tensor<3x1xf32>
}

// -----

// T5's relative position bias: the [S, S, H] lookup transposed to [H, S, S]
// is a lookup along dim 1 of the table transposed at compile time.
// CHECK-LABEL: func.func @gathers_from_transposed_constant
// CHECK-SAME:    (%[[I:.+]]: tensor<?x?xi64>)
// CHECK:         %[[T:.+]] = tsc.constant dense<{{\[}}[0.000000e+00, 2.000000e+00, 4.000000e+00], [1.000000e+00, 3.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>
// CHECK-NOT:     tsc.transpose
// CHECK:         %[[G:.+]] = tsc.gather %[[T]][%[[I]]] axis = 1 : (tensor<2x3xf32>, tensor<?x?xi64>) -> tensor<2x?x?xf32>
// CHECK:         return %[[G]]
func.func @gathers_from_transposed_constant(%i: tensor<?x?xi64>) -> tensor<2x?x?xf32> {
  %table = tsc.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]> : tensor<3x2xf32>
  %g = tsc.gather %table[%i] axis = 0 : (tensor<3x2xf32>, tensor<?x?xi64>) -> tensor<?x?x2xf32>
  %t = tsc.transpose %g perm = [2, 0, 1] : (tensor<?x?x2xf32>) -> tensor<2x?x?xf32>
  return %t : tensor<2x?x?xf32>
}

// -----

// A transpose that swaps the indices' dims is not a lookup of another
// layout, and one of a run-time table would move the table: both stay.
// CHECK-LABEL: func.func @keeps_other_gather_transposes
// CHECK-COUNT-2: tsc.transpose
func.func @keeps_other_gather_transposes(%i: tensor<?x?xi64>, %x: tensor<3x2xf32>) -> (tensor<?x?x2xf32>, tensor<2x?x?xf32>) {
  %table = tsc.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]> : tensor<3x2xf32>
  %g = tsc.gather %table[%i] axis = 0 : (tensor<3x2xf32>, tensor<?x?xi64>) -> tensor<?x?x2xf32>
  %t = tsc.transpose %g perm = [1, 0, 2] : (tensor<?x?x2xf32>) -> tensor<?x?x2xf32>
  %h = tsc.gather %x[%i] axis = 0 : (tensor<3x2xf32>, tensor<?x?xi64>) -> tensor<?x?x2xf32>
  %u = tsc.transpose %h perm = [2, 0, 1] : (tensor<?x?x2xf32>) -> tensor<2x?x?xf32>
  return %t, %u : tensor<?x?x2xf32>, tensor<2x?x?xf32>
}

// -----

// transformers' vmap-built padding mask, as the dynamo exporter writes
// mask[batch_idx, kv_idx]: a GatherND over a grid of two aranges, one
// counting batch along dim 0, one seq along dim 3, reads the mask in order:
// a reshape.
// CHECK-LABEL: func.func @gather_nd_of_counting_grid
// CHECK-SAME:    (%[[M:.+]]: tensor<?x?xi1>)
// CHECK-NOT:     tsc.gather_nd
// CHECK:         %[[R:.+]] = tsc.reshape %[[M]][%{{.+}}, %{{.+}}] : tensor<?x?xi1> -> tensor<?x1x1x?xi1>
// CHECK:         return %[[R]]
func.func @gather_nd_of_counting_grid(%m: tensor<?x?xi1>) -> tensor<?x1x1x?xi1> {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %m[%b, %s], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xi1>
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %nb = arith.index_cast %b : index to i64
  %ns = arith.index_cast %s : index to i64
  %rb = tsc.range %c0, %nb, %c1 : i64 -> tensor<?xi64>
  %rs = tsc.range %c0, %ns, %c1 : i64 -> tensor<?xi64>
  %ib = tsc.unsqueeze %rb dims = [1, 2, 3] : (tensor<?xi64>) -> tensor<?x1x1x1xi64>
  %is = tsc.unsqueeze %rs dims = [0, 1, 2] : (tensor<?xi64>) -> tensor<1x1x1x?xi64>
  %eb = tsc.expand %ib[%b, %s] : tensor<?x1x1x1xi64> -> tensor<?x1x1x?xi64>
  %es = tsc.expand %is[%b, %s] : tensor<1x1x1x?xi64> -> tensor<?x1x1x?xi64>
  %ub = tsc.unsqueeze %eb dims = [4] : (tensor<?x1x1x?xi64>) -> tensor<?x1x1x?x1xi64>
  %us = tsc.unsqueeze %es dims = [4] : (tensor<?x1x1x?xi64>) -> tensor<?x1x1x?x1xi64>
  %idx = tsc.concat %ub, %us axis = 4 : (tensor<?x1x1x?x1xi64>, tensor<?x1x1x?x1xi64>) -> tensor<?x1x1x?x2xi64>
  tsc.bind_shape %idx[%b, %s], affine_map<()[s0, s1] -> (s0, 1, 1, s1, 2)> : tensor<?x1x1x?x2xi64>
  %g = tsc.gather_nd %m[%idx] batch_dims = 0 : (tensor<?x?xi1>, tensor<?x1x1x?x2xi64>) -> tensor<?x1x1x?xi1>
  tsc.bind_shape %g[%b, %s], affine_map<()[s0, s1] -> (s0, 1, 1, s1)> : tensor<?x1x1x?xi1>
  return %g : tensor<?x1x1x?xi1>
}

// -----

// Near misses: the grid's components in the other order (m[kv_idx,
// batch_idx] over a [S, B] grid: a transpose, not a reshape), and a range
// starting at 1: the gathers stay.
// CHECK-LABEL: func.func @gather_nd_of_other_grids
// CHECK-COUNT-2: tsc.gather_nd
func.func @gather_nd_of_other_grids(%m: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %m[%b, %s], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xf32>
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %nb = arith.index_cast %b : index to i64
  %ns = arith.index_cast %s : index to i64
  %ns1 = arith.addi %ns, %c1 : i64
  %rb = tsc.range %c0, %nb, %c1 : i64 -> tensor<?xi64>
  %rs = tsc.range %c0, %ns, %c1 : i64 -> tensor<?xi64>
  %rs1 = tsc.range %c1, %ns1, %c1 : i64 -> tensor<?xi64>
  // [S, B] grid: batch counts along dim 1, seq along dim 0.
  %bcol = tsc.unsqueeze %rb dims = [0, 2] : (tensor<?xi64>) -> tensor<1x?x1xi64>
  %srow = tsc.unsqueeze %rs dims = [1, 2] : (tensor<?xi64>) -> tensor<?x1x1xi64>
  %eb = tsc.expand %bcol[%s, %b] : tensor<1x?x1xi64> -> tensor<?x?x1xi64>
  %es = tsc.expand %srow[%s, %b] : tensor<?x1x1xi64> -> tensor<?x?x1xi64>
  %swapped = tsc.concat %eb, %es axis = 2 : (tensor<?x?x1xi64>, tensor<?x?x1xi64>) -> tensor<?x?x2xi64>
  tsc.bind_shape %swapped[%s, %b], affine_map<()[s0, s1] -> (s0, s1, 2)> : tensor<?x?x2xi64>
  %g1 = tsc.gather_nd %m[%swapped] batch_dims = 0 : (tensor<?x?xf32>, tensor<?x?x2xi64>) -> tensor<?x?xf32>
  tsc.bind_shape %g1[%s, %b], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xf32>
  // [B, S] grid, seq counting from 1.
  %brow = tsc.unsqueeze %rb dims = [1, 2] : (tensor<?xi64>) -> tensor<?x1x1xi64>
  %scol = tsc.unsqueeze %rs1 dims = [0, 2] : (tensor<?xi64>) -> tensor<1x?x1xi64>
  %eb2 = tsc.expand %brow[%b, %s] : tensor<?x1x1xi64> -> tensor<?x?x1xi64>
  %es2 = tsc.expand %scol[%b, %s] : tensor<1x?x1xi64> -> tensor<?x?x1xi64>
  %shifted = tsc.concat %eb2, %es2 axis = 2 : (tensor<?x?x1xi64>, tensor<?x?x1xi64>) -> tensor<?x?x2xi64>
  tsc.bind_shape %shifted[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 2)> : tensor<?x?x2xi64>
  %g2 = tsc.gather_nd %m[%shifted] batch_dims = 0 : (tensor<?x?xf32>, tensor<?x?x2xi64>) -> tensor<?x?xf32>
  tsc.bind_shape %g2[%b, %s], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xf32>
  return %g1, %g2 : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// The same mask as TorchScript traces it: the grid's broadcasts written as
// additions of integer zeros (x + y * 0), the index dim appended by a
// reshape.
// CHECK-LABEL: func.func @gather_nd_of_traced_counting_grid
// CHECK-SAME:    (%[[M:.+]]: tensor<?x?xi1>)
// CHECK-NOT:     tsc.gather_nd
// CHECK:         %[[R:.+]] = tsc.reshape %[[M]][%{{.+}}, %{{.+}}] : tensor<?x?xi1> -> tensor<?x1x1x?xi1>
// CHECK:         return %[[R]]
func.func @gather_nd_of_traced_counting_grid(%m: tensor<?x?xi1>) -> tensor<?x1x1x?xi1> {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %m[%b, %s], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xi1>
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %zero = tsc.constant dense<0> : tensor<i64>
  %nb = arith.index_cast %b : index to i64
  %ns = arith.index_cast %s : index to i64
  %rb = tsc.range %c0, %nb, %c1 : i64 -> tensor<?xi64>
  %rs = tsc.range %c0, %ns, %c1 : i64 -> tensor<?xi64>
  %ib = tsc.unsqueeze %rb dims = [1, 2, 3] : (tensor<?xi64>) -> tensor<?x1x1x1xi64>
  %is = tsc.unsqueeze %rs dims = [0, 1, 2] : (tensor<?xi64>) -> tensor<1x1x1x?xi64>
  %zb = tsc.mul %ib, %zero : (tensor<?x1x1x1xi64>, tensor<i64>) -> tensor<?x1x1x1xi64>
  %zs = tsc.mul %is, %zero : (tensor<1x1x1x?xi64>, tensor<i64>) -> tensor<1x1x1x?xi64>
  %z = tsc.add %zb, %zs : (tensor<?x1x1x1xi64>, tensor<1x1x1x?xi64>) -> tensor<?x1x1x?xi64>
  tsc.bind_shape %z[%b, %s], affine_map<()[s0, s1] -> (s0, 1, 1, s1)> : tensor<?x1x1x?xi64>
  %eb = tsc.add %ib, %z : (tensor<?x1x1x1xi64>, tensor<?x1x1x?xi64>) -> tensor<?x1x1x?xi64>
  %es = tsc.add %is, %z : (tensor<1x1x1x?xi64>, tensor<?x1x1x?xi64>) -> tensor<?x1x1x?xi64>
  tsc.bind_shape %eb[%b, %s], affine_map<()[s0, s1] -> (s0, 1, 1, s1)> : tensor<?x1x1x?xi64>
  tsc.bind_shape %es[%b, %s], affine_map<()[s0, s1] -> (s0, 1, 1, s1)> : tensor<?x1x1x?xi64>
  %ub = tsc.reshape %eb[%b, %s] : tensor<?x1x1x?xi64> -> tensor<?x1x1x?x1xi64>
  %us = tsc.reshape %es[%b, %s] : tensor<?x1x1x?xi64> -> tensor<?x1x1x?x1xi64>
  %idx = tsc.concat %ub, %us axis = 4 : (tensor<?x1x1x?x1xi64>, tensor<?x1x1x?x1xi64>) -> tensor<?x1x1x?x2xi64>
  %g = tsc.gather_nd %m[%idx] batch_dims = 0 : (tensor<?x?xi1>, tensor<?x1x1x?x2xi64>) -> tensor<?x1x1x?xi1>
  tsc.bind_shape %g[%b, %s], affine_map<()[s0, s1] -> (s0, 1, 1, s1)> : tensor<?x1x1x?xi1>
  return %g : tensor<?x1x1x?xi1>
}
