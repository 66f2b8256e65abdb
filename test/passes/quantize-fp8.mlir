// RUN: tsc-opt %s --split-input-file --tsc-quantize-fp8="remarks=1" --verify-diagnostics | FileCheck %s

// A linear of PyTorch's [N, K] layout: the weight in f8E4M3FN per output
// channel, max|W| -> 448. Row 0 has max 448 (scale 1): 448, 224 and -1 are
// codes exactly, 0.3 rounds to 0.3125 (5/16: the quanta below 0.5 are
// 1/32), 0.001 to 0.001953125 (the smallest subnormal, 2^-9: 0.512 of
// it rounds up), zeros stay zeros; row 1 has max 3
// (scale 3/448): 1 -> 149.33 rounds to 144 (quanta of 16 from 128),
// 2 -> 298.67 to 288 (quanta of 32), 3 -> 448. The activation is
// quantized per row at run time, saturating.
// CHECK-LABEL: func.func @linear_nk
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf32>)
// CHECK-DAG:     %[[WQ:.+]] = tsc.constant dense<{{\[\[}}4.480000e+02, 2.240000e+02, -1.000000e+00, 3.125000e-01, 1.953130e-03, 0.000000e+00, {{.*}}], [1.440000e+02, 2.880000e+02, 4.480000e+02, 0.000000e+00, {{.*}}]]> : tensor<2x16xf8E4M3FN>
// CHECK-DAG:     %[[WS:.+]] = tsc.constant dense<[1.000000e+00, 0.00669642864]> : tensor<2xf32>
// CHECK:         %[[WD:.+]] = tsc.dequantize %[[WQ]], %[[WS]] axis = 0 : (tensor<2x16xf8E4M3FN>, tensor<2xf32>) -> tensor<2x16xf32>
// CHECK:         %[[ABS:.+]] = tsc.abs %[[X]]
// CHECK:         %[[MAX:.+]] = tsc.reduce_max %[[ABS]] dims = [1] keepdim : (tensor<?x16xf32>) -> tensor<?x1xf32>
// CHECK-DAG:     %[[C448:.+]] = tsc.constant dense<4.480000e+02> : tensor<f32>
// CHECK:         %[[DIV:.+]] = tsc.div %[[MAX]], %[[C448]]
// CHECK:         %[[S:.+]] = tsc.max %[[DIV]]
// CHECK:         %[[Q:.+]] = tsc.quantize %[[X]], %[[S]] axis = 1 group_size = 16 saturate : (tensor<?x16xf32>, tensor<?x1xf32>) -> tensor<?x16xf8E4M3FN>
// CHECK:         %[[XD:.+]] = tsc.dequantize %[[Q]], %[[S]] axis = 1 group_size = 16 : (tensor<?x16xf8E4M3FN>, tensor<?x1xf32>) -> tensor<?x16xf32>
// CHECK:         %[[Y:.+]] = tsc.linear %[[XD]], %[[WD]], %{{.+}} : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK:         return %[[Y]]
func.func @linear_nk(%x: tensor<?x16xf32>) -> tensor<?x2xf32> {
  %w = tsc.constant dense<[[448.0, 224.0, -1.0, 0.3, 0.001, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                           [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x16xf32>
  %b = tsc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = tsc.linear %x, %w, %b : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// Near misses stay float, with the reason: a product of two activations, a
// short K, an f16 GEMM; a GEMM keep-float names too (next case).
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     tsc.quantize
// CHECK:         return
func.func @kept(%x: tensor<?x16xf32>, %y: tensor<16x4xf32>, %s: tensor<?x8xf32>, %h: tensor<?x16xf16>) -> (tensor<?x4xf32>, tensor<?x2xf32>, tensor<?x2xf16>) {
  // expected-remark @below {{kept float: the weight is computed at run time (a product of activations)}}
  %a = tsc.matmul %x, %y : (tensor<?x16xf32>, tensor<16x4xf32>) -> tensor<?x4xf32>
  %w = tsc.constant dense<0.5> : tensor<8x2xf32>
  // expected-remark @below {{kept float: K = 8 is below min-input-features}}
  %b = tsc.matmul %s, %w : (tensor<?x8xf32>, tensor<8x2xf32>) -> tensor<?x2xf32>
  %wh = tsc.constant dense<0.5> : tensor<16x2xf16>
  // expected-remark @below {{kept float: not an f32 product}}
  %c = tsc.matmul %h, %wh : (tensor<?x16xf16>, tensor<16x2xf16>) -> tensor<?x2xf16>
  return %a, %b, %c : tensor<?x4xf32>, tensor<?x2xf32>, tensor<?x2xf16>
}

// -----

// RUN: tsc-opt %s --split-input-file --tsc-quantize-fp8="keep-float=/kept/*" | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @keep_float
// KEEP:         tsc.quantize {{.+}} -> tensor<?x16xf8E4M3FN>
// KEEP:         tsc.linear
// KEEP:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32>
func.func @keep_float(%x: tensor<?x16xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %w = tsc.constant dense<0.5> : tensor<16x2xf32>
  %a = tsc.matmul %x, %w : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32> loc("/quantized/MatMul")
  %b = tsc.matmul %x, %w : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32> loc("/kept/MatMul")
  return %a, %b : tensor<?x2xf32>, tensor<?x2xf32>
}
