// RUN: tsc-opt %s --split-input-file --tsc-quantize-weight-only="bits=4 group-size=8 remarks=1" --verify-diagnostics | FileCheck %s --check-prefix=INT4
// RUN: tsc-opt %s --split-input-file --tsc-quantize-weight-only="bits=8 remarks=1" --verify-diagnostics | FileCheck %s --check-prefix=INT8
// RUN: not tsc-opt %s --split-input-file --tsc-quantize-weight-only="bits=3" 2>&1 | FileCheck %s --check-prefix=BITS
// BITS: tsc-quantize-weight-only: bits must be 8 or 4, not 3

// A linear of PyTorch's [N, K] layout. i4, groups of 8 along K (axis 1,
// the scale [N, K/8]): row 0's first group has max 0.875 (scale 0.125):
// 0.875 -> 7, -0.4375 -> -4 (-3.5, half to even), 0.125 -> 1; its second
// max 1.75 (scale 0.25): 1.75 -> 7, 0.25 -> 1. Row 1's first group is all
// zeros (scale 1, codes 0); its second has max 3.5 (scale 0.5): -3.5 -> -7,
// 0.5 -> 1. The codes are packed two a byte, the first in the low bits:
// (7, -4) -> 0xC7, (1, 0) -> 0x01, (7, 1) -> 0x17, (-7, 1) -> 0x19 (the
// blob starts with its alignment, 64). The activation stays f32; bias and
// residual stay on the linear.
// i8 per output channel (axis 0, scale [N]): row 0 max 1.75 -> 127, so
// 0.875 -> 64 (63.5), -0.4375 -> -32 (-31.75), 0.125 -> 9 (9.07), 0.25 ->
// 18 (18.14); row 1 max 3.5: -3.5 -> -127, 0.5 -> 18 (18.14).
// INT4-LABEL: func.func @linear_nk
// INT4-SAME:    (%[[X:.+]]: tensor<?x16xf32>, %[[R:.+]]: tensor<?x2xf32>)
// INT4-DAG:     %[[WQ:.+]] = tsc.constant dense_resource<[[BLOB:.+]]> : tensor<2x16xi4>
// INT4-DAG:     %[[WS:.+]] = tsc.constant dense<{{\[\[}}1.250000e-01, 2.500000e-01], [1.000000e+00, 5.000000e-01]]> : tensor<2x2xf32>
// INT4:         %[[WD:.+]] = tsc.dequantize %[[WQ]], %[[WS]] axis = 1 group_size = 8 : (tensor<2x16xi4>, tensor<2x2xf32>) -> tensor<2x16xf32>
// INT4-NOT:     tsc.quantize
// INT4:         %[[Y:.+]] = tsc.linear %[[X]], %[[WD]], %{{.+}} residual %[[R]] : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
// INT4:         return %[[Y]]
// INT4:         [[BLOB]]: "0x40000000C7010000170000000000000019000000"
// INT8-LABEL: func.func @linear_nk
// INT8-DAG:     %[[WQ:.+]] = tsc.constant dense<{{\[\[}}64, -32, 9, 0, 0, 0, 0, 0, 127, 18, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, -127, 18, 0, 0, 0, 0, 0, 0]]> : tensor<2x16xi8>
// INT8-DAG:     %[[WS:.+]] = tsc.constant dense<[0.0137795275, 0.027559055]> : tensor<2xf32>
// INT8:         %[[WD:.+]] = tsc.dequantize %[[WQ]], %[[WS]] axis = 0 : (tensor<2x16xi8>, tensor<2xf32>) -> tensor<2x16xf32>
// INT8:         tsc.linear %{{.+}}, %[[WD]], %{{.+}} residual
func.func @linear_nk(%x: tensor<?x16xf32>, %r: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %w = tsc.constant dense<[[0.875, -0.4375, 0.125, 0.0, 0.0, 0.0, 0.0, 0.0, 1.75, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                           [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x16xf32>
  %b = tsc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = tsc.linear %x, %w, %b residual %r : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// ONNX's MatMul by an initializer [K, N] becomes a linear with weight_kn:
// groups along K are axis 0 (the scale [K/8, N]); per channel, axis 1.
// INT4-LABEL: func.func @matmul_kn
// INT4:         %[[WD:.+]] = tsc.dequantize %{{.+}}, %{{.+}} axis = 0 group_size = 8 : (tensor<16x2xi4>, tensor<2x2xf32>) -> tensor<16x2xf32>
// INT4:         tsc.linear %{{.+}}, %[[WD]] {weight_kn} : (tensor<?x?x16xf32>, tensor<16x2xf32>) -> tensor<?x?x2xf32>
// INT4-NOT:     tsc.matmul
// INT8-LABEL: func.func @matmul_kn
// INT8:         %[[WD:.+]] = tsc.dequantize %{{.+}}, %{{.+}} axis = 1 : (tensor<16x2xi8>, tensor<2xf32>) -> tensor<16x2xf32>
// INT8:         tsc.linear %{{.+}}, %[[WD]] {weight_kn}
func.func @matmul_kn(%x: tensor<?x?x16xf32>) -> tensor<?x?x2xf32> {
  %w = tsc.constant dense<1.0> : tensor<16x2xf32>
  %y = tsc.matmul %x, %w : (tensor<?x?x16xf32>, tensor<16x2xf32>) -> tensor<?x?x2xf32>
  return %y : tensor<?x?x2xf32>
}

// -----

// A K below min-input-features (16) stays float, and so does a product of
// two activations.
// INT4-LABEL: func.func @kept
// INT4-NOT:     tsc.dequantize
// INT8-LABEL: func.func @kept
// INT8-NOT:     tsc.dequantize
func.func @kept(%x: tensor<?x8xf32>, %a: tensor<4x16x16xf32>, %c: tensor<4x16x16xf32>) -> (tensor<?x2xf32>, tensor<4x16x16xf32>) {
  %w = tsc.constant dense<1.0> : tensor<8x2xf32>
  // expected-remark @below {{kept float: K = 8 is below min-input-features}}
  %y = tsc.matmul %x, %w : (tensor<?x8xf32>, tensor<8x2xf32>) -> tensor<?x2xf32>
  // expected-remark @below {{kept float: the weight is computed at run time}}
  %z = tsc.matmul %a, %c : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  return %y, %z : tensor<?x2xf32>, tensor<4x16x16xf32>
}
