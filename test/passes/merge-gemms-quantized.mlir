// RUN: tsc-opt %s --split-input-file --tsc-merge-gemms --canonicalize | FileCheck %s

// Int8 Q, K and V projections of one quantized input ([N, K] weights, per
// output channel scales, as the quantize passes write them): one GEMM by
// the codes and the scales concatenated along N, so the plan makes one
// int8 GEMM step that quantizes its input once.
// CHECK-LABEL: func.func @merges_int8_per_channel
// CHECK-DAG:     %[[Q:.+]] = tsc.constant dense<{{\[}}[1, 2], [3, 4], [-5, 6], [7, -8], [9, 10]]> : tensor<5x2xi8>
// CHECK-DAG:     %[[S:.+]] = tsc.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01, 5.000000e-01]> : tensor<5xf32>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<[1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 3.000000e+00]> : tensor<5xf32>
// CHECK:         %[[W:.+]] = tsc.dequantize %[[Q]], %[[S]] axis = 0 : (tensor<5x2xi8>, tensor<5xf32>) -> tensor<5x2xf32>
// CHECK:         %[[P:.+]] = tsc.linear %{{.+}}, %[[W]], %[[B]] : (tensor<?x2xf32>, tensor<5x2xf32>, tensor<5xf32>) -> tensor<?x5xf32>
// CHECK:         %[[R:.+]]:3 = tsc.split %[[P]] axis = 1 sizes = [2, 2, 1]
// CHECK-NOT:     tsc.linear
// CHECK-NOT:     tsc.dequantize
// CHECK:         return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @merges_int8_per_channel(%x: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x1xf32>) {
  %s = tsc.constant dense<0.05> : tensor<f32>
  %xq = tsc.quantize %x, %s : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xi8>
  %xd = tsc.dequantize %xq, %s : (tensor<?x2xi8>, tensor<f32>) -> tensor<?x2xf32>
  %q1 = tsc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %q2 = tsc.constant dense<[[-5, 6], [7, -8]]> : tensor<2x2xi8>
  %q3 = tsc.constant dense<[[9, 10]]> : tensor<1x2xi8>
  %s1 = tsc.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %s2 = tsc.constant dense<[0.3, 0.4]> : tensor<2xf32>
  %s3 = tsc.constant dense<[0.5]> : tensor<1xf32>
  %b1 = tsc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b3 = tsc.constant dense<[3.0]> : tensor<1xf32>
  %w1 = tsc.dequantize %q1, %s1 axis = 0 : (tensor<2x2xi8>, tensor<2xf32>) -> tensor<2x2xf32>
  %w2 = tsc.dequantize %q2, %s2 axis = 0 : (tensor<2x2xi8>, tensor<2xf32>) -> tensor<2x2xf32>
  %w3 = tsc.dequantize %q3, %s3 axis = 0 : (tensor<1x2xi8>, tensor<1xf32>) -> tensor<1x2xf32>
  %a = tsc.linear %xd, %w1, %b1 : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %b = tsc.linear %xd, %w2 : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %c = tsc.linear %xd, %w3, %b3 : (tensor<?x2xf32>, tensor<1x2xf32>, tensor<1xf32>) -> tensor<?x1xf32>
  return %a, %b, %c : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x1xf32>
}

// -----

// Per group along K with zero points ([K, N] weights, weight-only int8):
// codes, scales and zero points concatenate along N.
// CHECK-LABEL: func.func @merges_int8_per_group
// CHECK-DAG:     %[[Q:.+]] = tsc.constant dense<{{\[}}[1, 2, 5], [3, 4, 6]]> : tensor<2x3xi8>
// CHECK-DAG:     %[[S:.+]] = tsc.constant dense<{{\[}}[1.000000e-01, 2.000000e-01, 3.000000e-01]]> : tensor<1x3xf32>
// CHECK-DAG:     %[[Z:.+]] = tsc.constant dense<{{\[}}[0, 1, 2]]> : tensor<1x3xi8>
// CHECK:         %[[W:.+]] = tsc.dequantize %[[Q]], %[[S]], %[[Z]] axis = 0 group_size = 2 : (tensor<2x3xi8>, tensor<1x3xf32>, tensor<1x3xi8>) -> tensor<2x3xf32>
// CHECK:         tsc.linear %{{.+}}, %[[W]] {weight_kn} : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NOT:     tsc.linear
func.func @merges_int8_per_group(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x1xf32>) {
  %q1 = tsc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %q2 = tsc.constant dense<[[5], [6]]> : tensor<2x1xi8>
  %s1 = tsc.constant dense<[[0.1, 0.2]]> : tensor<1x2xf32>
  %s2 = tsc.constant dense<[[0.3]]> : tensor<1x1xf32>
  %z1 = tsc.constant dense<[[0, 1]]> : tensor<1x2xi8>
  %z2 = tsc.constant dense<[[2]]> : tensor<1x1xi8>
  %w1 = tsc.dequantize %q1, %s1, %z1 axis = 0 group_size = 2 : (tensor<2x2xi8>, tensor<1x2xf32>, tensor<1x2xi8>) -> tensor<2x2xf32>
  %w2 = tsc.dequantize %q2, %s2, %z2 axis = 0 group_size = 2 : (tensor<2x1xi8>, tensor<1x1xf32>, tensor<1x1xi8>) -> tensor<2x1xf32>
  %a = tsc.linear %x, %w1 {weight_kn} : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = tsc.linear %x, %w2 {weight_kn} : (tensor<4x2xf32>, tensor<2x1xf32>) -> tensor<4x1xf32>
  return %a, %b : tensor<4x2xf32>, tensor<4x1xf32>
}

// -----

// Near misses stay separate: per-tensor weight scales (one scale cannot
// hold both), a GEMM kept float beside an int8 one, a zero point on one
// weight only, int4 codes (not whole bytes: they do not fold into one
// constant), and a scale that is not a constant.
// CHECK-LABEL: func.func @keeps_apart
// CHECK-COUNT-10: tsc.linear
// CHECK-NOT:     tsc.linear
func.func @keeps_apart(%x: tensor<4x2xf32>, %sx: tensor<2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %q = tsc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %q4 = tsc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi4>
  %st1 = tsc.constant dense<0.1> : tensor<f32>
  %st2 = tsc.constant dense<0.2> : tensor<f32>
  %sc = tsc.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %z = tsc.constant dense<[1, 2]> : tensor<2xi8>
  %z4 = tsc.constant dense<[1, 2]> : tensor<2xi4>
  %f = tsc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wt1 = tsc.dequantize %q, %st1 : (tensor<2x2xi8>, tensor<f32>) -> tensor<2x2xf32>
  %wt2 = tsc.dequantize %q, %st2 : (tensor<2x2xi8>, tensor<f32>) -> tensor<2x2xf32>
  %a = tsc.linear %x, %wt1 : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = tsc.linear %x, %wt2 : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %y = tsc.neg %x : tensor<4x2xf32>
  %wc = tsc.dequantize %q, %sc axis = 0 : (tensor<2x2xi8>, tensor<2xf32>) -> tensor<2x2xf32>
  %c = tsc.linear %y, %wc : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %d = tsc.linear %y, %f : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %u = tsc.abs %x : tensor<4x2xf32>
  %wz = tsc.dequantize %q, %sc, %z axis = 0 : (tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2xf32>
  %e = tsc.linear %u, %wc : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %g = tsc.linear %u, %wz : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %v = tsc.exp %x : tensor<4x2xf32>
  %w4 = tsc.dequantize %q4, %sc, %z4 axis = 0 : (tensor<2x2xi4>, tensor<2xf32>, tensor<2xi4>) -> tensor<2x2xf32>
  %h = tsc.linear %v, %w4 : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %i = tsc.linear %v, %w4 : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %t = tsc.tanh %x : tensor<4x2xf32>
  %wr = tsc.dequantize %q, %sx axis = 0 : (tensor<2x2xi8>, tensor<2xf32>) -> tensor<2x2xf32>
  %j = tsc.linear %t, %wr : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %k = tsc.linear %t, %wr : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %a, %b, %c, %d, %e, %g, %h, %i, %j, %k : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
