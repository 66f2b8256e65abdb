// RUN: tsc-opt %s --split-input-file --tsc-merge-gemms --canonicalize | FileCheck %s

// Q, K and V projections of one input ([K, N] weights, as ONNX stores
// them): one GEMM by the weights concatenated along N at compile time, the
// biases concatenated too (zeros for the one without), split into the three
// results.
// CHECK-LABEL: func.func @merges_qkv
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-DAG:     %[[W:.+]] = tsc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 5.000000e+00, 6.000000e+00, 9.000000e+00], [3.000000e+00, 4.000000e+00, 7.000000e+00, 8.000000e+00, 1.000000e+01], [1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01, 2.000000e+01]]> : tensor<4x5xf32>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<[1.000000e-01, 2.000000e-01, 0.000000e+00, 0.000000e+00, 3.000000e-01]> : tensor<5xf32>
// CHECK:         %[[P:.+]] = tsc.linear %[[X]], %[[W]], %[[B]] {weight_kn} : (tensor<?x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<?x5xf32>
// CHECK:         %[[S:.+]]:3 = tsc.split %[[P]] axis = 1 sizes = [2, 2, 1]
// CHECK-NOT:     tsc.linear
// CHECK:         return %[[S]]#0, %[[S]]#1, %[[S]]#2
func.func @merges_qkv(%x: tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x1xf32>) {
  %wq = tsc.constant dense<[[1.0, 2.0], [3.0, 4.0], [11.0, 12.0], [16.0, 17.0]]> : tensor<4x2xf32>
  %wk = tsc.constant dense<[[5.0, 6.0], [7.0, 8.0], [13.0, 14.0], [18.0, 19.0]]> : tensor<4x2xf32>
  %wv = tsc.constant dense<[[9.0], [10.0], [15.0], [20.0]]> : tensor<4x1xf32>
  %bq = tsc.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %bv = tsc.constant dense<[0.3]> : tensor<1xf32>
  %q = tsc.linear %x, %wq, %bq {weight_kn} : (tensor<?x4xf32>, tensor<4x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %k = tsc.linear %x, %wk {weight_kn} : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
  %v = tsc.linear %x, %wv, %bv {weight_kn} : (tensor<?x4xf32>, tensor<4x1xf32>, tensor<1xf32>) -> tensor<?x1xf32>
  return %q, %k, %v : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x1xf32>
}

// -----

// PyTorch's [N, K] layout concatenates along dim 0.
// CHECK-LABEL: func.func @merges_nk_layout
// CHECK:         %[[W:.+]] = tsc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK:         %[[P:.+]] = tsc.linear %{{.+}}, %[[W]] : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
// CHECK:         tsc.split %[[P]] axis = 1 sizes = [1, 2]
func.func @merges_nk_layout(%x: tensor<3x2xf32>) -> (tensor<3x1xf32>, tensor<3x2xf32>) {
  %wa = tsc.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %wb = tsc.constant dense<[[3.0, 4.0], [5.0, 6.0]]> : tensor<2x2xf32>
  %a = tsc.linear %x, %wa : (tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<3x1xf32>
  %b = tsc.linear %x, %wb : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %a, %b : tensor<3x1xf32>, tensor<3x2xf32>
}

// -----

// Weight blobs concatenate too (row-major, along N); a result this small
// becomes a literal, a large one a new blob.
// CHECK-LABEL: func.func @merges_blob_weights
// CHECK:         %[[W:.+]] = tsc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 5.000000e+00, 6.000000e+00], [3.000000e+00, 4.000000e+00, 7.000000e+00, 8.000000e+00]]> : tensor<2x4xf32>
// CHECK:         tsc.linear %{{.+}}, %[[W]] {weight_kn} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
func.func @merges_blob_weights(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %wa = tsc.constant dense_resource<wa> : tensor<2x2xf32>
  %wb = tsc.constant dense_resource<wb> : tensor<2x2xf32>
  %a = tsc.linear %x, %wa {weight_kn} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %b = tsc.linear %x, %wb {weight_kn} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %a, %b : tensor<3x2xf32>, tensor<3x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      wa: "0x040000000000803F000000400000404000008040",
      wb: "0x040000000000A0400000C0400000E04000000041"
    }
  }
#-}

// -----

// Near-misses: different inputs, a run-time weight, different K, a
// residual (that GEMM's output is not a piece of a wider one), different
// weight layouts.
// CHECK-LABEL: func.func @leaves_near_misses
// CHECK-COUNT-6: tsc.linear
// CHECK-NOT:     tsc.split
func.func @leaves_near_misses(%x: tensor<3x2xf32>, %y: tensor<3x2xf32>, %w: tensor<2x2xf32>, %z: tensor<3x4xf32>, %r: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %c = tsc.constant dense<1.0> : tensor<2x2xf32>
  %c4 = tsc.constant dense<2.0> : tensor<4x2xf32>
  %c3 = tsc.constant dense<3.0> : tensor<2x2xf32>
  %a = tsc.linear %x, %c {weight_kn} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %b = tsc.linear %y, %c {weight_kn} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %d = tsc.linear %y, %w {weight_kn} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %e = tsc.linear %z, %c4 {weight_kn} : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %f = tsc.linear %x, %c3 residual %r {weight_kn} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %g = tsc.linear %x, %c3 : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %a, %b, %d, %e, %f, %g : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Pieces of a projection each reshaped into heads of one size: the
// projection is reshaped once and split along the heads axis, so the pieces
// are strided slices of a view (no copy of a reshaped slice).
// CHECK-LABEL: func.func @splits_heads_after_reshape
// CHECK-SAME:    (%[[P:.+]]: tensor<?x?x64xf32>, %[[B:.+]]: index, %[[S:.+]]: index)
// CHECK:         %[[R:.+]] = tsc.reshape %[[P]][%[[B]], %[[S]]] : tensor<?x?x64xf32> -> tensor<?x?x8x8xf32>
// CHECK:         %[[H:.+]]:3 = tsc.split %[[R]] axis = 2 sizes = [4, 2, 2] : tensor<?x?x8x8xf32> -> tensor<?x?x4x8xf32>, tensor<?x?x2x8xf32>, tensor<?x?x2x8xf32>
// CHECK:         return %[[H]]#0, %[[H]]#1, %[[H]]#2
func.func @splits_heads_after_reshape(%p: tensor<?x?x64xf32>, %b: index, %s: index) -> (tensor<?x?x4x8xf32>, tensor<?x?x2x8xf32>, tensor<?x?x2x8xf32>) {
  %q, %k, %v = tsc.split %p axis = 2 sizes = [32, 16, 16] : tensor<?x?x64xf32> -> tensor<?x?x32xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>
  %qh = tsc.reshape %q[%b, %s] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %kh = tsc.reshape %k[%b, %s] : tensor<?x?x16xf32> -> tensor<?x?x2x8xf32>
  %vh = tsc.reshape %v[%b, %s] : tensor<?x?x16xf32> -> tensor<?x?x2x8xf32>
  return %qh, %kh, %vh : tensor<?x?x4x8xf32>, tensor<?x?x2x8xf32>, tensor<?x?x2x8xf32>
}

// -----

// Near-misses: a piece used elsewhere too, head sizes that differ.
// CHECK-LABEL: func.func @keeps_split_first
// CHECK:         tsc.split %{{.+}} axis = 2 sizes = [32, 32]
// CHECK:         tsc.split %{{.+}} axis = 2 sizes = [32, 32]
// CHECK-NOT:     tsc.split
func.func @keeps_split_first(%p: tensor<?x?x64xf32>, %b: index, %s: index) -> (tensor<?x?x4x8xf32>, tensor<?x?x32xf32>, tensor<?x?x4x8xf32>, tensor<?x?x2x16xf32>) {
  %q, %k = tsc.split %p axis = 2 sizes = [32, 32] : tensor<?x?x64xf32> -> tensor<?x?x32xf32>, tensor<?x?x32xf32>
  %qh = tsc.reshape %q[%b, %s] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %x, %y = tsc.split %p axis = 2 sizes = [32, 32] : tensor<?x?x64xf32> -> tensor<?x?x32xf32>, tensor<?x?x32xf32>
  %xh = tsc.reshape %x[%b, %s] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %yh = tsc.reshape %y[%b, %s] : tensor<?x?x32xf32> -> tensor<?x?x2x16xf32>
  return %qh, %k, %xh, %yh : tensor<?x?x4x8xf32>, tensor<?x?x32xf32>, tensor<?x?x4x8xf32>, tensor<?x?x2x16xf32>
}

// -----

// BLOOM's fused projection laid out [B, S, H, 3, D], Q, K and V taken by
// gathers along the 3: pieces of one split of the [B, S, H, 3 * D] view
// (strided slices a kernel reads without a copy); each gather makes its
// split, which the pipeline's CSE merges.
// CHECK-LABEL: func.func @gathers_pieces_as_split
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<2x6x4x3x8xf32>)
// CHECK:         %[[W0:.+]] = tsc.reshape %[[X]] : tensor<2x6x4x3x8xf32> -> tensor<2x6x4x24xf32>
// CHECK:         %[[P0:.+]]:3 = tsc.split %[[W0]] axis = 3 sizes = [8, 8, 8]
// CHECK:         %[[W2:.+]] = tsc.reshape %[[X]] : tensor<2x6x4x3x8xf32> -> tensor<2x6x4x24xf32>
// CHECK:         %[[P2:.+]]:3 = tsc.split %[[W2]] axis = 3 sizes = [8, 8, 8]
// CHECK-NOT:     tsc.gather
// CHECK:         return %[[P0]]#0, %[[P2]]#2
func.func @gathers_pieces_as_split(%x: tensor<2x6x4x3x8xf32>) -> (tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>) {
  %i0 = tsc.constant dense<0> : tensor<i64>
  %i2 = tsc.constant dense<2> : tensor<i64>
  %q = tsc.gather %x[%i0] axis = 3 : (tensor<2x6x4x3x8xf32>, tensor<i64>) -> tensor<2x6x4x8xf32>
  %v = tsc.gather %x[%i2] axis = 3 : (tensor<2x6x4x3x8xf32>, tensor<i64>) -> tensor<2x6x4x8xf32>
  return %q, %v : tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>
}

// -----

// Gathers that are no piece: along another axis, by a run-time index, or by
// a 1-D index of two elements.
// CHECK-LABEL: func.func @keeps_other_gathers
// CHECK-COUNT-3: tsc.gather
// CHECK-NOT:     tsc.split
// CHECK-NOT:     tsc.slice
func.func @keeps_other_gathers(%x: tensor<2x6x4x3x8xf32>, %i: tensor<i64>) -> (tensor<2x6x3x8xf32>, tensor<2x6x4x8xf32>, tensor<2x6x4x2x8xf32>) {
  %i0 = tsc.constant dense<0> : tensor<i64>
  %i02 = tsc.constant dense<[0, 2]> : tensor<2xi64>
  %a = tsc.gather %x[%i0] axis = 2 : (tensor<2x6x4x3x8xf32>, tensor<i64>) -> tensor<2x6x3x8xf32>
  %b = tsc.gather %x[%i] axis = 3 : (tensor<2x6x4x3x8xf32>, tensor<i64>) -> tensor<2x6x4x8xf32>
  %c = tsc.gather %x[%i02] axis = 3 : (tensor<2x6x4x3x8xf32>, tensor<2xi64>) -> tensor<2x6x4x2x8xf32>
  return %a, %b, %c : tensor<2x6x3x8xf32>, tensor<2x6x4x8xf32>, tensor<2x6x4x2x8xf32>
}

// -----

// Falcon's TorchScript export takes K from its fused projection
// [B, S, Hkv, n + 2, D] by a gather of the 1-D index [n]: the slice of size
// 1 there, which a kernel reads in place.
// CHECK-LABEL: func.func @gathers_one_as_slice
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x?x2x4x8xf32>)
// CHECK:         %[[K:.+]] = tsc.slice %[[X]] [0, 0, 0, 2, 0] [%{{.+}}, %{{.+}}, 2, 1, 8] [1, 1, 1, 1, 1] : tensor<?x?x2x4x8xf32> to tensor<?x?x2x1x8xf32>
// CHECK-NOT:     tsc.gather
// CHECK:         return %[[K]]
func.func @gathers_one_as_slice(%x: tensor<?x?x2x4x8xf32>) -> tensor<?x?x2x1x8xf32> {
  %i = tsc.constant dense<[2]> : tensor<1xi64>
  %k = tsc.gather %x[%i] axis = 3 : (tensor<?x?x2x4x8xf32>, tensor<1xi64>) -> tensor<?x?x2x1x8xf32>
  return %k : tensor<?x?x2x1x8xf32>
}
