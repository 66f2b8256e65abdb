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
