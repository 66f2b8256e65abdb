// RUN: tsc-opt %s --split-input-file --tsc-quantize-qdq="remarks=1" --verify-diagnostics | FileCheck %s

// ONNX Runtime's QDQ form: u8 activation with zero point 100 (scale 0.5),
// s8 weight per output channel (axis 1 of a [K, N] weight) with zero points
// 0. The activation becomes s8 with zero point 100 - 128 = -28 (q - 128 is
// the s8 code, exactly, saturation included); the bias stays the model's
// (none): the int8 GEMM step takes the zero point's share out of the
// product. The old pair and the weight's zero point are gone.
// CHECK-LABEL: func.func @u8_per_channel
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf32>)
// CHECK:         %[[WQ:.+]] = tsc.constant dense<{{\[\[}}1, -2], [3, -6]{{.*}}> : tensor<16x2xi8>
// CHECK-NOT:     tsc.add
// CHECK:         %[[S:.+]] = tsc.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         %[[Z:.+]] = tsc.constant dense<-28> : tensor<i8>
// CHECK:         %[[Q:.+]] = tsc.quantize %[[X]], %[[S]], %[[Z]] : (tensor<?x16xf32>, tensor<f32>, tensor<i8>) -> tensor<?x16xi8>
// CHECK:         %[[XD:.+]] = tsc.dequantize %[[Q]], %[[S]], %[[Z]] : (tensor<?x16xi8>, tensor<f32>, tensor<i8>) -> tensor<?x16xf32>
// CHECK:         %[[WS:.+]] = tsc.constant dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32>
// CHECK:         %[[WD:.+]] = tsc.dequantize %[[WQ]], %[[WS]] axis = 1 : (tensor<16x2xi8>, tensor<2xf32>) -> tensor<16x2xf32>
// CHECK:         %[[Y:.+]] = tsc.linear %[[XD]], %[[WD]] {weight_kn}
// CHECK-NOT:     ui8
// CHECK:         return %[[Y]]
func.func @u8_per_channel(%x: tensor<?x16xf32>) -> tensor<?x2xf32> {
  %s = tsc.constant dense<0.5> : tensor<f32>
  %z = tsc.constant dense<100> : tensor<ui8>
  %q = tsc.quantize %x, %s, %z : (tensor<?x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x16xui8>
  %xd = tsc.dequantize %q, %s, %z : (tensor<?x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x16xf32>
  %wq = tsc.constant dense<[[1, -2], [3, -6], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0],
                            [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]]> : tensor<16x2xi8>
  %ws = tsc.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %wz = tsc.constant dense<0> : tensor<2xi8>
  %wd = tsc.dequantize %wq, %ws, %wz axis = 1 : (tensor<16x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<16x2xf32>
  %y = tsc.matmul %xd, %wd : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// s8 activation with zero point 0 (symmetric) and a per-tensor weight scale
// on a linear with a bias: no zero point, the scale repeated
// per output channel (axis 0 of an [N, K] weight); Q, K and V-like GEMMs
// reading one pair share one new pair.
// CHECK-LABEL: func.func @s8_per_tensor_shared
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf32>, %[[BIAS:.+]]: tensor<2xf32>)
// CHECK-NOT:     tsc.add
// CHECK:         %[[Q:.+]] = tsc.quantize %[[X]], %{{.+}} : (tensor<?x16xf32>, tensor<f32>) -> tensor<?x16xi8>
// CHECK:         %[[XD:.+]] = tsc.dequantize %[[Q]]
// CHECK:         %[[WS:.+]] = tsc.constant dense<2.500000e-01> : tensor<2xf32>
// CHECK:         %[[WD:.+]] = tsc.dequantize %{{.+}}, %[[WS]] axis = 0
// CHECK:         %[[Y:.+]] = tsc.linear %[[XD]], %[[WD]], %[[BIAS]] :
// CHECK-NOT:     tsc.quantize
// CHECK:         %[[Z:.+]] = tsc.linear %[[XD]], %{{.+}}, %[[BIAS]] :
// CHECK:         return %[[Y]], %[[Z]]
func.func @s8_per_tensor_shared(%x: tensor<?x16xf32>, %b: tensor<2xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %s = tsc.constant dense<0.5> : tensor<f32>
  %z = tsc.constant dense<0> : tensor<i8>
  %q = tsc.quantize %x, %s, %z : (tensor<?x16xf32>, tensor<f32>, tensor<i8>) -> tensor<?x16xi8>
  %xd = tsc.dequantize %q, %s, %z : (tensor<?x16xi8>, tensor<f32>, tensor<i8>) -> tensor<?x16xf32>
  %wq = tsc.constant dense<3> : tensor<2x16xi8>
  %ws = tsc.constant dense<0.25> : tensor<f32>
  %wd = tsc.dequantize %wq, %ws : (tensor<2x16xi8>, tensor<f32>) -> tensor<2x16xf32>
  %y = tsc.linear %xd, %wd, %b : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %z2 = tsc.linear %xd, %wd, %b : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %y, %z2 : tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// Near misses stay the model's float math: a computed (non-constant)
// weight, a pair whose scales or zero points differ, a weight with a nonzero
// zero point, and a QDQ pair around an Add (not a GEMM: untouched).
// CHECK-LABEL: func.func @near_misses
// CHECK:         %[[AQ:.+]] = tsc.quantize %{{.+}} -> tensor<?x16xui8>
// CHECK:         %[[AD:.+]] = tsc.dequantize %[[AQ]], %{{.+}}, %{{.+}} : (tensor<?x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x16xf32>
// CHECK-COUNT-4: tsc.matmul
// CHECK:         tsc.add %[[AD]], %{{.+}}
// CHECK-NOT:     tsc.linear
func.func @near_misses(%x: tensor<?x16xf32>, %w: tensor<16x2xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x16xf32>) {
  %s = tsc.constant dense<0.5> : tensor<f32>
  %s2 = tsc.constant dense<0.25> : tensor<f32>
  %z = tsc.constant dense<100> : tensor<ui8>
  %z2 = tsc.constant dense<101> : tensor<ui8>
  %q = tsc.quantize %x, %s, %z : (tensor<?x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x16xui8>
  %xd = tsc.dequantize %q, %s, %z : (tensor<?x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x16xf32>
  %wq = tsc.constant dense<1> : tensor<16x2xi8>
  %ws = tsc.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %wd = tsc.dequantize %wq, %ws axis = 1 : (tensor<16x2xi8>, tensor<2xf32>) -> tensor<16x2xf32>
  // expected-remark @+1 {{kept float: its weight is not a dequantized constant}}
  %a = tsc.matmul %xd, %w : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32>
  %xd2 = tsc.dequantize %q, %s2, %z : (tensor<?x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x16xf32>
  // expected-remark @+1 {{kept float: the quantize and dequantize scales or zero points differ}}
  %b = tsc.matmul %xd2, %wd : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32>
  %xd3 = tsc.dequantize %q, %s, %z2 : (tensor<?x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x16xf32>
  // expected-remark @+1 {{kept float: the quantize and dequantize scales or zero points differ}}
  %c = tsc.matmul %xd3, %wd : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32>
  %wz = tsc.constant dense<[0, 3]> : tensor<2xi8>
  %wd4 = tsc.dequantize %wq, %ws, %wz axis = 1 : (tensor<16x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<16x2xf32>
  // expected-remark @+1 {{kept float: its weight has a nonzero zero point}}
  %d = tsc.matmul %xd, %wd4 : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32>
  %e = tsc.add %xd, %x : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  return %a, %b, %c, %d, %e : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x16xf32>
}

// -----

// fp8 QDQ (opset 19's f8E4M3FN pairs, zero points +0, saturating): the
// activation keeps its scale and saturate flag, without the zero point; the
// weight's per-tensor scale is repeated per output channel.
// CHECK-LABEL: func.func @fp8_per_tensor
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf32>)
// CHECK:         %[[WQ:.+]] = tsc.constant dense<{{.+}}> : tensor<16x2xf8E4M3FN>
// CHECK:         %[[S:.+]] = tsc.constant dense<2.000000e-02> : tensor<f32>
// CHECK:         %[[Q:.+]] = tsc.quantize %[[X]], %[[S]] saturate : (tensor<?x16xf32>, tensor<f32>) -> tensor<?x16xf8E4M3FN>
// CHECK:         %[[XD:.+]] = tsc.dequantize %[[Q]], %[[S]] : (tensor<?x16xf8E4M3FN>, tensor<f32>) -> tensor<?x16xf32>
// CHECK:         %[[WS:.+]] = tsc.constant dense<1.250000e-01> : tensor<2xf32>
// CHECK:         %[[WD:.+]] = tsc.dequantize %[[WQ]], %[[WS]] axis = 1 : (tensor<16x2xf8E4M3FN>, tensor<2xf32>) -> tensor<16x2xf32>
// CHECK:         %[[Y:.+]] = tsc.linear %[[XD]], %[[WD]] {weight_kn}
// CHECK:         return %[[Y]]
func.func @fp8_per_tensor(%x: tensor<?x16xf32>) -> tensor<?x2xf32> {
  %s = tsc.constant dense<0.02> : tensor<f32>
  %z = tsc.constant dense<0.0> : tensor<f8E4M3FN>
  %q = tsc.quantize %x, %s, %z saturate : (tensor<?x16xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<?x16xf8E4M3FN>
  %xd = tsc.dequantize %q, %s, %z : (tensor<?x16xf8E4M3FN>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<?x16xf32>
  %wq = tsc.constant dense<1.0> : tensor<16x2xf8E4M3FN>
  %ws = tsc.constant dense<0.125> : tensor<f32>
  %wd = tsc.dequantize %wq, %ws : (tensor<16x2xf8E4M3FN>, tensor<f32>) -> tensor<16x2xf32>
  %y = tsc.matmul %xd, %wd : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// Near misses of fp8 QDQ: a nonzero f8 zero point, and an fp8 activation
// by an s8 weight, stay float with the reason.
func.func @fp8_near_misses(%x: tensor<?x16xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %s = tsc.constant dense<0.02> : tensor<f32>
  %z = tsc.constant dense<1.0> : tensor<f8E4M3FN>
  %q = tsc.quantize %x, %s, %z saturate : (tensor<?x16xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<?x16xf8E4M3FN>
  %xd = tsc.dequantize %q, %s, %z : (tensor<?x16xf8E4M3FN>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<?x16xf32>
  %wq = tsc.constant dense<1.0> : tensor<16x2xf8E4M3FN>
  %ws = tsc.constant dense<0.125> : tensor<f32>
  %wd = tsc.dequantize %wq, %ws : (tensor<16x2xf8E4M3FN>, tensor<f32>) -> tensor<16x2xf32>
  // expected-remark @below {{kept float: the fp8 activation's zero point is not 0}}
  %y = tsc.matmul %xd, %wd : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32>
  %q0 = tsc.quantize %x, %s saturate : (tensor<?x16xf32>, tensor<f32>) -> tensor<?x16xf8E4M3FN>
  %xd0 = tsc.dequantize %q0, %s : (tensor<?x16xf8E4M3FN>, tensor<f32>) -> tensor<?x16xf32>
  %w8 = tsc.constant dense<1> : tensor<16x2xi8>
  %wd8 = tsc.dequantize %w8, %ws : (tensor<16x2xi8>, tensor<f32>) -> tensor<16x2xf32>
  // expected-remark @below {{kept float: the activation's and the weight's codes are not both integers or both f8E4M3FN}}
  %z2 = tsc.matmul %xd0, %wd8 : (tensor<?x16xf32>, tensor<16x2xf32>) -> tensor<?x2xf32>
  return %y, %z2 : tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// A gather of a dequantized constant table (ONNX Runtime quantizes
// embeddings too) gathers the codes and dequantizes the rows it took: per
// tensor, and per channel along a kept dim (axis 1 of the table is axis 2
// of a gather by 2-D indices). Per channel along the gathered dim (a table
// too large to fold, 65537 x 4), and a table computed at run time, stay as
// they are.
// CHECK-LABEL: func.func @gathers_codes
// CHECK-SAME:    (%[[IDS:.+]]: tensor<2x3xi64>, %[[X:.+]]: tensor<5x4xf32>)
// CHECK:         %[[T:.+]] = tsc.constant dense<{{.+}}> : tensor<5x4xui8>
// CHECK:         %[[G1:.+]] = tsc.gather %[[T]][%[[IDS]]] axis = 0 : (tensor<5x4xui8>, tensor<2x3xi64>) -> tensor<2x3x4xui8>
// CHECK:         %[[E1:.+]] = tsc.dequantize %[[G1]], %{{.+}}, %{{.+}} : (tensor<2x3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3x4xf32>
// CHECK:         %[[C:.+]] = tsc.constant dense<{{.+}}> : tensor<5x4xi8>
// CHECK:         %[[G2:.+]] = tsc.gather %[[C]][%[[IDS]]] axis = 0 : (tensor<5x4xi8>, tensor<2x3xi64>) -> tensor<2x3x4xi8>
// CHECK:         %[[E2:.+]] = tsc.dequantize %[[G2]], %{{.+}} axis = 2 : (tensor<2x3x4xi8>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK:         %[[R:.+]] = tsc.constant dense<3> : tensor<65537x4xi8>
// CHECK:         %[[D3:.+]] = tsc.dequantize %[[R]], %{{.+}} axis = 0 : (tensor<65537x4xi8>, tensor<65537xf32>) -> tensor<65537x4xf32>
// CHECK:         %[[E3:.+]] = tsc.gather %[[D3]][%[[IDS]]] axis = 0
// CHECK:         %[[Q4:.+]] = tsc.quantize %[[X]]
// CHECK:         %[[D4:.+]] = tsc.dequantize %[[Q4]]
// CHECK:         %[[E4:.+]] = tsc.gather %[[D4]][%[[IDS]]] axis = 0
// CHECK:         return %[[E1]], %[[E2]], %[[E3]], %[[E4]]
func.func @gathers_codes(%ids: tensor<2x3xi64>, %x: tensor<5x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %t = tsc.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16], [17, 18, 19, 20]]> : tensor<5x4xui8>
  %s = tsc.constant dense<0.5> : tensor<f32>
  %z = tsc.constant dense<3> : tensor<ui8>
  %d1 = tsc.dequantize %t, %s, %z : (tensor<5x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<5x4xf32>
  %e1 = tsc.gather %d1[%ids] axis = 0 : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %c = tsc.constant dense<[[1, -2, 3, -4], [5, -6, 7, -8], [9, -10, 11, -12], [13, -14, 15, -16], [17, -18, 19, -20]]> : tensor<5x4xi8>
  %cs = tsc.constant dense<[0.5, 0.25, 0.125, 2.0]> : tensor<4xf32>
  %d2 = tsc.dequantize %c, %cs axis = 1 : (tensor<5x4xi8>, tensor<4xf32>) -> tensor<5x4xf32>
  %e2 = tsc.gather %d2[%ids] axis = 0 : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %r = tsc.constant dense<3> : tensor<65537x4xi8>
  %rs = tsc.constant dense<0.5> : tensor<65537xf32>
  %d3 = tsc.dequantize %r, %rs axis = 0 : (tensor<65537x4xi8>, tensor<65537xf32>) -> tensor<65537x4xf32>
  %e3 = tsc.gather %d3[%ids] axis = 0 : (tensor<65537x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %q4 = tsc.quantize %x, %s, %z : (tensor<5x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<5x4xui8>
  %d4 = tsc.dequantize %q4, %s, %z : (tensor<5x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<5x4xf32>
  %e4 = tsc.gather %d4[%ids] axis = 0 : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %e1, %e2, %e3, %e4 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// Small constants dequantized for no GEMM (ONNX Runtime's quantized norm
// weights and biases) fold into the f32 values their kernels would
// compute, f32(i32(q) - i32(z)) * s: s8 per tensor (-7 - (-1) = -6 times
// 0.5; 127 - (-1) = 128), u8 per channel (axis 1: channels 0.5 and 0.25,
// zero points 10 and 20), i16 (-32768 times 0.5). A weight a matmul reads
// stays its dequantization.
// CHECK-LABEL: func.func @folds_constant_dequantizations
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<[-3.000000e+00, 6.400000e+01]> : tensor<2xf32>
// CHECK-DAG:     %[[G:.+]] = tsc.constant dense<{{\[\[}}-5.000000e+00, 5.000000e+00], [5.000000e+00, -5.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[H:.+]] = tsc.constant dense<-1.638400e+04> : tensor<1xf32>
// CHECK-DAG:     %[[W:.+]] = tsc.dequantize %{{.+}}, %{{.+}} : (tensor<2x2xi8>, tensor<f32>) -> tensor<2x2xf32>
// CHECK:         tsc.matmul %{{.+}}, %[[W]]
// CHECK-NOT:     tsc.dequantize
// CHECK:         return %[[B]], %[[G]], %[[H]]
func.func @folds_constant_dequantizations(%x: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>, tensor<1xf32>, tensor<3x2xf32>) {
  %bq = tsc.constant dense<[-7, 127]> : tensor<2xi8>
  %bs = tsc.constant dense<0.5> : tensor<f32>
  %bz = tsc.constant dense<-1> : tensor<i8>
  %b = tsc.dequantize %bq, %bs, %bz : (tensor<2xi8>, tensor<f32>, tensor<i8>) -> tensor<2xf32>
  %gq = tsc.constant dense<[[0, 40], [20, 0]]> : tensor<2x2xui8>
  %gs = tsc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %gz = tsc.constant dense<[10, 20]> : tensor<2xui8>
  %g = tsc.dequantize %gq, %gs, %gz axis = 1 : (tensor<2x2xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<2x2xf32>
  %hq = tsc.constant dense<-32768> : tensor<1xi16>
  %h = tsc.dequantize %hq, %bs : (tensor<1xi16>, tensor<f32>) -> tensor<1xf32>
  %wq = tsc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %ws = tsc.constant dense<0.5> : tensor<f32>
  %w = tsc.dequantize %wq, %ws : (tensor<2x2xi8>, tensor<f32>) -> tensor<2x2xf32>
  // expected-remark @+1 {{kept float: its input is not dequantize(quantize(x))}}
  %y = tsc.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %b, %g, %h, %y : tensor<2xf32>, tensor<2x2xf32>, tensor<1xf32>, tensor<3x2xf32>
}
