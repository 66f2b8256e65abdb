// RUN: tsc-opt %s --split-input-file --tsc-quantize-static-int8="input-ranges=6.35,0,2.54 remarks=1" --verify-diagnostics | FileCheck %s

// Every case has three GEMM ops, which take the three ranges in walk order.
// The first linear: its weight quantized per output channel as the dynamic
// pass does; its activation per tensor by the constant scale of its
// calibrated range, 6.35 / 127 = 0.05, with no run-time scale ops (abs,
// reduce_max). The second has no calibrated range (0) and stays float.
// The third is a product of two activations: float whatever its range.
// CHECK-LABEL: func.func @quantized_and_kept
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf32>, %[[R:.+]]: tensor<?x2xf32>
// CHECK-DAG:     %[[WQ:.+]] = tsc.constant dense<{{\[\[}}50, -127, 33, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [127, 50, -12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<2x16xi8>
// CHECK-DAG:     %[[WS:.+]] = tsc.constant dense<[0.00999999977, 2.000000e-02]> : tensor<2xf32>
// CHECK:         %[[WD:.+]] = tsc.dequantize %[[WQ]], %[[WS]] axis = 0 : (tensor<2x16xi8>, tensor<2xf32>) -> tensor<2x16xf32>
// CHECK:         %[[S:.+]] = tsc.constant dense<5.000000e-02> : tensor<f32>
// CHECK-NOT:     tsc.abs
// CHECK-NOT:     tsc.reduce_max
// CHECK:         %[[Q:.+]] = tsc.quantize %[[X]], %[[S]] : (tensor<?x16xf32>, tensor<f32>) -> tensor<?x16xi8>
// CHECK:         %[[XD:.+]] = tsc.dequantize %[[Q]], %[[S]] : (tensor<?x16xi8>, tensor<f32>) -> tensor<?x16xf32>
// CHECK:         %[[Y:.+]] = tsc.linear %[[XD]], %[[WD]], %{{.+}} residual %[[R]] : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
// CHECK:         %[[Z:.+]] = tsc.linear %[[X]], %{{.+}} : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
// CHECK:         %[[P:.+]] = tsc.matmul %[[Z]], %{{.+}} : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
// CHECK-NOT:     tsc.quantize
// CHECK:         return %[[Y]], %[[P]]
func.func @quantized_and_kept(%x: tensor<?x16xf32>, %r: tensor<?x2xf32>, %a: tensor<16x16xf32>)
    -> (tensor<?x2xf32>, tensor<?x16xf32>) {
  %w = tsc.constant dense<[[0.5, -1.27, 0.333, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                           [2.54, 1.0, -0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x16xf32>
  %b = tsc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = tsc.linear %x, %w, %b residual %r : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  %w1 = tsc.constant dense<0.5> : tensor<16x16xf32>
  // expected-remark @+1 {{kept float: no calibrated range for its input}}
  %z = tsc.linear %x, %w1 : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  // expected-remark @+1 {{kept float: the weight is computed at run time}}
  %p = tsc.matmul %z, %a : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  return %y, %p : tensor<?x2xf32>, tensor<?x16xf32>
}

// -----

// Calibrated ranges do not make other GEMMs quantizable: a batched
// constant weight, an f16 product and a K below min-input-features stay
// float as in the dynamic pass.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT:     tsc.quantize
// CHECK-NOT:     tsc.dequantize
func.func @near_misses(%n: tensor<2x4x16xf32>, %h: tensor<4x16xf16>, %s: tensor<4x8xf32>)
    -> (tensor<2x4x16xf32>, tensor<4x8xf16>, tensor<4x8xf32>) {
  %wb = tsc.constant dense<1.0> : tensor<2x16x16xf32>
  // expected-remark @+1 {{kept float: not a matrix weight (batched product)}}
  %z = tsc.matmul %n, %wb : (tensor<2x4x16xf32>, tensor<2x16x16xf32>) -> tensor<2x4x16xf32>
  %wh = tsc.constant dense<1.0> : tensor<8x16xf16>
  // expected-remark @+1 {{kept float: not an f32 product}}
  %yh = tsc.linear %h, %wh : (tensor<4x16xf16>, tensor<8x16xf16>) -> tensor<4x8xf16>
  %ws = tsc.constant dense<1.0> : tensor<8x8xf32>
  // expected-remark @+1 {{kept float: K = 8 is below min-input-features}}
  %ys = tsc.linear %s, %ws : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %z, %yh, %ys : tensor<2x4x16xf32>, tensor<4x8xf16>, tensor<4x8xf32>
}
