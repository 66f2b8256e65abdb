// RUN: tsc-opt %s --split-input-file --tsc-quantize-dynamic-int8="remarks=1" --verify-diagnostics | FileCheck %s

// A linear of PyTorch's [N, K] layout: the weight quantized per output
// channel (per row here), max|W| -> 127. Row 0 has max 1.27 (scale 0.01):
// 0.5 -> 50, -1.27 -> -127, 0.333 -> 33; row 1 has max 2.54 (scale 0.02):
// 2.54 -> 127, 1.0 -> 50, -0.25 -> -12 (-12.5 rounds half to even). The
// activation is quantized per row at run time; bias and residual stay on
// the linear.
// CHECK-LABEL: func.func @linear_nk
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf32>, %[[R:.+]]: tensor<?x2xf32>)
// CHECK-DAG:     %[[WQ:.+]] = tsc.constant dense<{{\[\[}}50, -127, 33, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [127, 50, -12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<2x16xi8>
// CHECK-DAG:     %[[WS:.+]] = tsc.constant dense<[0.00999999977, 2.000000e-02]> : tensor<2xf32>
// CHECK:         %[[WD:.+]] = tsc.dequantize %[[WQ]], %[[WS]] axis = 0 : (tensor<2x16xi8>, tensor<2xf32>) -> tensor<2x16xf32>
// CHECK:         %[[ABS:.+]] = tsc.abs %[[X]]
// CHECK:         %[[MAX:.+]] = tsc.reduce_max %[[ABS]] dims = [1] keepdim : (tensor<?x16xf32>) -> tensor<?x1xf32>
// CHECK-DAG:     %[[C127:.+]] = tsc.constant dense<1.270000e+02> : tensor<f32>
// CHECK:         %[[DIV:.+]] = tsc.div %[[MAX]], %[[C127]]
// CHECK-DAG:     %[[TINY:.+]] = tsc.constant dense<1.17549435E-38> : tensor<f32>
// CHECK:         %[[S:.+]] = tsc.max %[[DIV]], %[[TINY]]
// CHECK:         %[[Q:.+]] = tsc.quantize %[[X]], %[[S]] axis = 1 group_size = 16 : (tensor<?x16xf32>, tensor<?x1xf32>) -> tensor<?x16xi8>
// CHECK:         %[[XD:.+]] = tsc.dequantize %[[Q]], %[[S]] axis = 1 group_size = 16 : (tensor<?x16xi8>, tensor<?x1xf32>) -> tensor<?x16xf32>
// CHECK:         %[[Y:.+]] = tsc.linear %[[XD]], %[[WD]], %{{.+}} residual %[[R]] : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
// CHECK:         return %[[Y]]
func.func @linear_nk(%x: tensor<?x16xf32>, %r: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %w = tsc.constant dense<[[0.5, -1.27, 0.333, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                           [2.54, 1.0, -0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x16xf32>
  %b = tsc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = tsc.linear %x, %w, %b residual %r : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// ONNX's MatMul by an initializer [K, N] becomes a linear with weight_kn,
// its weight quantized per column (axis 1): column 0 has max 4 (scale
// 4/127): 4 -> 127, -2 -> -64 (-63.5, half to even), 1 -> 32 (31.75),
// 3 -> 95 (95.25); column 1 is all zeros (scale 1, codes 0).
// CHECK-LABEL: func.func @matmul_kn
// CHECK-DAG:     tsc.constant dense<{{\[\[}}127, 0], [-64, 0], [32, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [95, 0]]> : tensor<16x2xi8>
// CHECK-DAG:     %[[WS:.+]] = tsc.constant dense<[0.0314960629, 1.000000e+00]> : tensor<2xf32>
// CHECK:         %[[WD:.+]] = tsc.dequantize %{{.+}}, %[[WS]] axis = 1 : (tensor<16x2xi8>, tensor<2xf32>) -> tensor<16x2xf32>
// CHECK:         %[[Q:.+]] = tsc.quantize %{{.+}}, %{{.+}} axis = 2 group_size = 16 : (tensor<?x?x16xf32>, tensor<?x?x1xf32>) -> tensor<?x?x16xi8>
// CHECK:         %[[XD:.+]] = tsc.dequantize %[[Q]]
// CHECK:         tsc.linear %[[XD]], %[[WD]] {weight_kn} : (tensor<?x?x16xf32>, tensor<16x2xf32>) -> tensor<?x?x2xf32>
// CHECK-NOT:     tsc.matmul
func.func @matmul_kn(%x: tensor<?x?x16xf32>) -> tensor<?x?x2xf32> {
  %w = tsc.constant dense<[[4.0, 0.0], [-2.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0],
                           [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [3.0, 0.0]]> : tensor<16x2xf32>
  %y = tsc.matmul %x, %w : (tensor<?x?x16xf32>, tensor<16x2xf32>) -> tensor<?x?x2xf32>
  return %y : tensor<?x?x2xf32>
}

// -----

// Near-misses that stay float: attention's products (both operands
// computed), a linear by a weight that is an argument, a batched constant
// weight, an f16 GEMM, a K below min-input-features; the softmax and the
// norm between them are not GEMMs and are left alone.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT:     tsc.quantize
// CHECK-NOT:     tsc.dequantize
// CHECK:         tsc.matmul
// CHECK:         tsc.softmax
// CHECK:         tsc.matmul
// CHECK:         tsc.layer_norm
// CHECK:         tsc.linear
// CHECK:         tsc.matmul
// CHECK:         tsc.linear
// CHECK:         tsc.linear
// CHECK-NOT:     tsc.quantize
func.func @near_misses(%q: tensor<2x4x16xf32>, %k: tensor<2x16x4xf32>, %v: tensor<2x4x16xf32>,
                       %w: tensor<8x16xf32>, %h: tensor<4x16xf16>, %s: tensor<4x8xf32>)
    -> (tensor<2x4x16xf32>, tensor<2x4x8xf32>, tensor<2x4x16xf32>, tensor<4x8xf16>, tensor<4x8xf32>) {
  // expected-remark @+1 {{kept float: the weight is computed at run time}}
  %scores = tsc.matmul %q, %k : (tensor<2x4x16xf32>, tensor<2x16x4xf32>) -> tensor<2x4x4xf32>
  %p = tsc.softmax %scores axis = 2 : tensor<2x4x4xf32>
  // expected-remark @+1 {{kept float: the weight is computed at run time}}
  %o = tsc.matmul %p, %v : (tensor<2x4x4xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %gamma = tsc.constant dense<1.0> : tensor<16xf32>
  %n = tsc.layer_norm %o scale %gamma axis = 2 epsilon = 1.0e-5 : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  // expected-remark @+1 {{kept float: the weight is computed at run time}}
  %y = tsc.linear %n, %w : (tensor<2x4x16xf32>, tensor<8x16xf32>) -> tensor<2x4x8xf32>
  %wb = tsc.constant dense<1.0> : tensor<2x16x16xf32>
  // expected-remark @+1 {{kept float: not a matrix weight (batched product)}}
  %z = tsc.matmul %n, %wb : (tensor<2x4x16xf32>, tensor<2x16x16xf32>) -> tensor<2x4x16xf32>
  %wh = tsc.constant dense<1.0> : tensor<8x16xf16>
  // expected-remark @+1 {{kept float: not an f32 product}}
  %yh = tsc.linear %h, %wh : (tensor<4x16xf16>, tensor<8x16xf16>) -> tensor<4x8xf16>
  %ws = tsc.constant dense<1.0> : tensor<8x8xf32>
  // expected-remark @+1 {{kept float: K = 8 is below min-input-features}}
  %ys = tsc.linear %s, %ws : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %o, %y, %z, %yh, %ys : tensor<2x4x16xf32>, tensor<2x4x8xf32>, tensor<2x4x16xf32>, tensor<4x8xf16>, tensor<4x8xf32>
}
