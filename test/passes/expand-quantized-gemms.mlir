// RUN: tsc-opt %s --split-input-file --tsc-expand-quantized-gemms | FileCheck %s

// Dynamic int8 (per-row scale) of a [K, N] weight with bias, tanh GELU and
// residual: the s8 product by the weight stored [N, K] (transposed here at
// compile time: the columns of the original become rows), then the scales,
// bias, GELU and residual as ops, in the step's order.
// CHECK-LABEL: func.func @per_row_kn
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>, %[[R:.+]]: tensor<?x4xf32>)
// CHECK:         %[[S:.+]] = tsc.max
// CHECK:         %[[Q:.+]] = tsc.quantize %[[X]], %[[S]] axis = 1 group_size = 4
// CHECK-DAG:     %[[WS:.+]] = tsc.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01, 1.000000e+00]> : tensor<4xf32>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-DAG:     %[[NK:.+]] = tsc.constant dense<{{\[\[}}1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15], [4, 8, 12, 16]]> : tensor<4x4xi8>
// CHECK:         %[[T:.+]] = tsc.transpose %[[NK]] perm = [1, 0]
// CHECK:         %[[ACC:.+]] = tsc.matmul %[[Q]], %[[T]] : (tensor<?x4xi8>, tensor<4x4xi8>) -> tensor<?x4xi32>
// CHECK:         %[[F:.+]] = tsc.cast %[[ACC]] : tensor<?x4xi32> to tensor<?x4xf32>
// CHECK:         %[[M1:.+]] = tsc.mul %[[F]], %[[WS]]
// CHECK:         %[[M2:.+]] = tsc.mul %[[M1]], %[[S]]
// CHECK:         %[[A:.+]] = tsc.add %[[M2]], %[[B]]
// CHECK:         %[[G:.+]] = tsc.gelu %[[A]] approximate = tanh
// CHECK:         %[[Y:.+]] = tsc.add %[[G]], %[[R]]
// CHECK:         return %[[Y]]
// CHECK-NOT:     tsc.dequantize
// CHECK-NOT:     tsc.linear
func.func @per_row_kn(%x: tensor<?x4xf32>, %r: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s127 = tsc.constant dense<1.270000e+02> : tensor<f32>
  %tiny = tsc.constant dense<1.17549435E-38> : tensor<f32>
  %a = tsc.abs %x : tensor<?x4xf32>
  %m = tsc.reduce_max %a dims = [1] keepdim : (tensor<?x4xf32>) -> tensor<?x1xf32>
  %d = tsc.div %m, %s127 : (tensor<?x1xf32>, tensor<f32>) -> tensor<?x1xf32>
  %s = tsc.max %d, %tiny : (tensor<?x1xf32>, tensor<f32>) -> tensor<?x1xf32>
  %q = tsc.quantize %x, %s axis = 1 group_size = 4 : (tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x4xi8>
  %xd = tsc.dequantize %q, %s axis = 1 group_size = 4 : (tensor<?x4xi8>, tensor<?x1xf32>) -> tensor<?x4xf32>
  %wq = tsc.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]> : tensor<4x4xi8>
  %ws = tsc.constant dense<[0.5, 0.25, 0.125, 1.0]> : tensor<4xf32>
  %wd = tsc.dequantize %wq, %ws axis = 1 : (tensor<4x4xi8>, tensor<4xf32>) -> tensor<4x4xf32>
  %b = tsc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = tsc.linear %xd, %wd, %b residual %r activation = gelu_tanh {weight_kn} : (tensor<?x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// Static int8 with a zero point (-3) of a PyTorch-layout [N, K] weight, used
// as it is: the s32 product minus z times each row's sum (row 0: 1 - 2 + 3 +
// 4 = 6, row 1: -10 + 0 + 5 + 1 = -4; times -3: [-18, 12]), subtracted in
// s32, then the weight's scales and the activation's constant one; the
// exact GELU. N = 2 is padded to 4 (cuBLASLt's s8 multiple) with zero rows,
// the product's first 2 columns read.
// CHECK-LABEL: func.func @per_tensor_zero_point
// CHECK-DAG:     %[[SX:.+]] = tsc.constant dense<5.000000e-02> : tensor<f32>
// CHECK:         %[[Q:.+]] = tsc.quantize %{{.+}}, %[[SX]], %{{.+}} : (tensor<?x4xf32>, tensor<f32>, tensor<i8>) -> tensor<?x4xi8>
// CHECK:         %[[W:.+]] = tsc.constant dense<{{\[\[}}1, -2, 3, 4], [-10, 0, 5, 1], [0, 0, 0, 0], [0, 0, 0, 0]]> : tensor<4x4xi8>
// CHECK:         %[[T:.+]] = tsc.transpose %[[W]] perm = [1, 0] : (tensor<4x4xi8>) -> tensor<4x4xi8>
// CHECK:         %[[ACC:.+]] = tsc.matmul %[[Q]], %[[T]]
// CHECK:         %[[S:.+]]:2 = tsc.split %[[ACC]] axis = 1 sizes = [2, 2]
// CHECK:         %[[TERM:.+]] = tsc.constant dense<[-18, 12]> : tensor<2xi32>
// CHECK:         %[[SUB:.+]] = tsc.sub %[[S]]#0, %[[TERM]] : (tensor<?x2xi32>, tensor<2xi32>) -> tensor<?x2xi32>
// CHECK:         %[[F:.+]] = tsc.cast %[[SUB]]
// CHECK:         %[[M1:.+]] = tsc.mul %[[F]], %{{.+}} : (tensor<?x2xf32>, tensor<2xf32>)
// CHECK:         %[[M2:.+]] = tsc.mul %[[M1]], %[[SX]] : (tensor<?x2xf32>, tensor<f32>)
// CHECK:         tsc.gelu %[[M2]] : tensor<?x2xf32>
func.func @per_tensor_zero_point(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %sx = tsc.constant dense<0.05> : tensor<f32>
  %zx = tsc.constant dense<-3> : tensor<i8>
  %q = tsc.quantize %x, %sx, %zx : (tensor<?x4xf32>, tensor<f32>, tensor<i8>) -> tensor<?x4xi8>
  %xd = tsc.dequantize %q, %sx, %zx : (tensor<?x4xi8>, tensor<f32>, tensor<i8>) -> tensor<?x4xf32>
  %wq = tsc.constant dense<[[1, -2, 3, 4], [-10, 0, 5, 1]]> : tensor<2x4xi8>
  %ws = tsc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %wd = tsc.dequantize %wq, %ws axis = 0 : (tensor<2x4xi8>, tensor<2xf32>) -> tensor<2x4xf32>
  %y = tsc.linear %xd, %wd activation = gelu : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// u8 codes with a zero point computed at run time (ONNX Runtime's
// quantize_dynamic form after tsc-quantize-qdq; %s and %z stand for
// DynamicQuantizeLinear's): the activation re-quantized to s8 by z - 128
// (the same codes less 128), the s8 product, and the run's zero point's
// term: (z - 128) times the weight's column sums (row 0: 1 - 2 + 3 + 4 = 6,
// row 1: -4), taken out in s32; the old u8 codes are gone.
// CHECK-LABEL: func.func @range_codes
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>, %[[S:.+]]: tensor<f32>, %[[Z:.+]]: tensor<ui8>)
// CHECK:         %[[ZW:.+]] = tsc.cast %[[Z]] : tensor<ui8> to tensor<i32>
// CHECK:         %[[C128:.+]] = tsc.constant dense<128> : tensor<i32>
// CHECK:         %[[Z32:.+]] = tsc.sub %[[ZW]], %[[C128]]
// CHECK:         %[[Z8:.+]] = tsc.cast %[[Z32]] : tensor<i32> to tensor<i8>
// CHECK:         %[[Q:.+]] = tsc.quantize %[[X]], %[[S]], %[[Z8]] : (tensor<?x4xf32>, tensor<f32>, tensor<i8>) -> tensor<?x4xi8>
// CHECK:         %[[ACC:.+]] = tsc.matmul %[[Q]], %{{.+}}
// CHECK:         %[[SUMS:.+]] = tsc.constant dense<[6, -4]> : tensor<2xi32>
// CHECK:         %[[TERM:.+]] = tsc.mul %[[SUMS]], %[[Z32]] : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
// CHECK:         tsc.sub %{{.+}}, %[[TERM]]
// CHECK-NOT:     xui8>
// CHECK:         return
func.func @range_codes(%x: tensor<?x4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<?x2xf32> {
  %q = tsc.quantize %x, %s, %z : (tensor<?x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4xui8>
  %xd = tsc.dequantize %q, %s, %z : (tensor<?x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x4xf32>
  %wq = tsc.constant dense<[[1, -2, 3, 4], [-10, 0, 5, 1]]> : tensor<2x4xi8>
  %ws = tsc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %wd = tsc.dequantize %wq, %ws axis = 0 : (tensor<2x4xi8>, tensor<2xf32>) -> tensor<2x4xf32>
  %y = tsc.linear %xd, %wd : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// Near-misses, left as they are: a weight-only GEMM (the activation float),
// an activation quantized per group along K (its scales do not factor out of
// the sum), a weight with zero points, and a weight quantized per input
// channel.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT:     tsc.matmul
// CHECK-NOT:     tsc.transpose
// CHECK-COUNT-4: tsc.linear
func.func @near_misses(%x: tensor<?x4xf32>, %s: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %wq = tsc.constant dense<[[1, -2, 3, 4], [-10, 0, 5, 1]]> : tensor<2x4xi8>
  %ws = tsc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %wd = tsc.dequantize %wq, %ws axis = 0 : (tensor<2x4xi8>, tensor<2xf32>) -> tensor<2x4xf32>
  %y0 = tsc.linear %x, %wd : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x2xf32>
  %q = tsc.quantize %x, %s axis = 1 group_size = 2 : (tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x4xi8>
  %xd = tsc.dequantize %q, %s axis = 1 group_size = 2 : (tensor<?x4xi8>, tensor<?x2xf32>) -> tensor<?x4xf32>
  %y1 = tsc.linear %xd, %wd : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x2xf32>
  %sx = tsc.constant dense<0.05> : tensor<f32>
  %q2 = tsc.quantize %x, %sx : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xi8>
  %xd2 = tsc.dequantize %q2, %sx : (tensor<?x4xi8>, tensor<f32>) -> tensor<?x4xf32>
  %zw = tsc.constant dense<[1, -1]> : tensor<2xi8>
  %wdz = tsc.dequantize %wq, %ws, %zw axis = 0 : (tensor<2x4xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x4xf32>
  %y2 = tsc.linear %xd2, %wdz : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x2xf32>
  %wk = tsc.constant dense<[0.5, 0.25, 1.0, 2.0]> : tensor<4xf32>
  %wdk = tsc.dequantize %wq, %wk axis = 1 : (tensor<2x4xi8>, tensor<4xf32>) -> tensor<2x4xf32>
  %y3 = tsc.linear %xd2, %wdk : (tensor<?x4xf32>, tensor<2x4xf32>) -> tensor<?x2xf32>
  return %y0, %y1, %y2, %y3 : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// fp8 (tsc-quantize-fp8's form) of a [K, N] weight: the f8 product by the
// weight stored [N, K] (N = 32: no padding) into f32 (no conversion of the
// sum), then the weight's and the activation's scales and the bias.
// CHECK-LABEL: func.func @fp8_kn
// CHECK:         %[[Q:.+]] = tsc.quantize %{{.+}}, %[[S:.+]] axis = 1 group_size = 16 saturate : (tensor<?x16xf32>, tensor<?x1xf32>) -> tensor<?x16xf8E4M3FN>
// CHECK:         %[[T:.+]] = tsc.transpose %{{.+}} perm = [1, 0] : (tensor<32x16xf8E4M3FN>) -> tensor<16x32xf8E4M3FN>
// CHECK:         %[[ACC:.+]] = tsc.matmul %[[Q]], %[[T]] : (tensor<?x16xf8E4M3FN>, tensor<16x32xf8E4M3FN>) -> tensor<?x32xf32>
// CHECK-NOT:     tsc.cast
// CHECK-NOT:     tsc.split
// CHECK:         %[[M1:.+]] = tsc.mul %[[ACC]], %{{.+}} : (tensor<?x32xf32>, tensor<32xf32>)
// CHECK:         %[[M2:.+]] = tsc.mul %[[M1]], %[[S]]
// CHECK:         tsc.add %[[M2]], %{{.+}} : (tensor<?x32xf32>, tensor<32xf32>)
// CHECK-NOT:     tsc.dequantize
// CHECK-NOT:     tsc.linear
func.func @fp8_kn(%x: tensor<?x16xf32>, %s: tensor<?x1xf32>) -> tensor<?x32xf32> {
  %q = tsc.quantize %x, %s axis = 1 group_size = 16 saturate : (tensor<?x16xf32>, tensor<?x1xf32>) -> tensor<?x16xf8E4M3FN>
  %xd = tsc.dequantize %q, %s axis = 1 group_size = 16 : (tensor<?x16xf8E4M3FN>, tensor<?x1xf32>) -> tensor<?x16xf32>
  %wq = tsc.constant dense<1.0> : tensor<16x32xf8E4M3FN>
  %ws = tsc.constant dense<0.5> : tensor<32xf32>
  %wd = tsc.dequantize %wq, %ws axis = 1 : (tensor<16x32xf8E4M3FN>, tensor<32xf32>) -> tensor<16x32xf32>
  %b = tsc.constant dense<1.0> : tensor<32xf32>
  %y = tsc.linear %xd, %wd, %b {weight_kn} : (tensor<?x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// An fp8 activation with a zero point is not the form: it stays.
// CHECK-LABEL: func.func @fp8_zero_point
// CHECK:         tsc.linear
// CHECK-NOT:     tsc.matmul
func.func @fp8_zero_point(%x: tensor<?x16xf32>) -> tensor<?x2xf32> {
  %s = tsc.constant dense<0.5> : tensor<f32>
  %z = tsc.constant dense<1.0> : tensor<f8E4M3FN>
  %q = tsc.quantize %x, %s, %z saturate : (tensor<?x16xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<?x16xf8E4M3FN>
  %xd = tsc.dequantize %q, %s, %z : (tensor<?x16xf8E4M3FN>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<?x16xf32>
  %wq = tsc.constant dense<1.0> : tensor<2x16xf8E4M3FN>
  %ws = tsc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %wd = tsc.dequantize %wq, %ws axis = 0 : (tensor<2x16xf8E4M3FN>, tensor<2xf32>) -> tensor<2x16xf32>
  %y = tsc.linear %xd, %wd : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// N = 2 is not a multiple of 16 (fp8; 4 for s8) but K = 16 is: the weight
// gets 14 zero rows, the product is [?, 16], and the epilogue reads its
// first 2 columns.
// CHECK-LABEL: func.func @fp8_padded
// CHECK:         %[[W:.+]] = tsc.constant dense<{{.+}}> : tensor<16x16xf8E4M3FN>
// CHECK:         %[[T:.+]] = tsc.transpose %[[W]] perm = [1, 0] : (tensor<16x16xf8E4M3FN>) -> tensor<16x16xf8E4M3FN>
// CHECK:         %[[ACC:.+]] = tsc.matmul %{{.+}}, %[[T]] : (tensor<?x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>) -> tensor<?x16xf32>
// CHECK:         %[[S:.+]]:2 = tsc.split %[[ACC]] axis = 1 sizes = [2, 14] : tensor<?x16xf32> -> tensor<?x2xf32>, tensor<?x14xf32>
// CHECK:         tsc.mul %[[S]]#0, %{{.+}} : (tensor<?x2xf32>, tensor<2xf32>)
// CHECK-NOT:     tsc.constant {{.+}} : tensor<2x16xf8E4M3FN>
func.func @fp8_padded(%x: tensor<?x16xf32>, %s: tensor<?x1xf32>) -> tensor<?x2xf32> {
  %q = tsc.quantize %x, %s axis = 1 group_size = 16 saturate : (tensor<?x16xf32>, tensor<?x1xf32>) -> tensor<?x16xf8E4M3FN>
  %xd = tsc.dequantize %q, %s axis = 1 group_size = 16 : (tensor<?x16xf8E4M3FN>, tensor<?x1xf32>) -> tensor<?x16xf32>
  %wq = tsc.constant dense<1.0> : tensor<2x16xf8E4M3FN>
  %ws = tsc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %wd = tsc.dequantize %wq, %ws axis = 0 : (tensor<2x16xf8E4M3FN>, tensor<2xf32>) -> tensor<2x16xf32>
  %y = tsc.linear %xd, %wd : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
