// RUN: tsc-opt %s --split-input-file --tsc-quantize-static-int8="input-ranges=16,16,3,16,16,3 input-minima=-8,-8,-1,-8,-8,-1 smoothing-alpha=0.5 min-input-features=2" | FileCheck %s
// RUN: tsc-opt %s --split-input-file --tsc-quantize-static-int8="input-ranges=16,16,3,16,16,3 input-minima=-8,-8,-1,-8,-8,-1 min-input-features=2" | FileCheck %s --check-prefix=OFF

// Smoothing (SmoothQuant): the GEMMs reading %x share one set of factors
// f_k = max|x_k|^0.5 / max|W_k|^0.5, the weight side over both weights.
// By hand: x's channel extremes are [-8, 16] and [-0.5, 1], so max|x| =
// [16, 1]; W_k's largest |value| is 1.0 and 2.0 in %w1 ([N, K]: its
// columns) and 4.0 and 1.0 in %w2 ([K, N]: its rows), so [4, 2]. f = [4/2,
// 1/sqrt(2)], multipliers m = 1/f = [0.5, 1.41421354]. The smoothed range
// is [min(-8 * 0.5, -0.5 * 1.414), max(16 * 0.5, 1 * 1.414)] = [-4, 8]:
// scale 12/255 = 0.0470588, zero point round(-128 + 4/0.0470588) = -43.
// %w1 / m per column: [[2, 0.353553], [0.5, -1.414214]], per output row
// s8: [[127, round(22.45) = 22], [round(44.9) = 45, -127]]. %w2 / m per
// row: [[8, 1], [0.707107, 0.707107]], per output column s8: [[127, 127],
// [round(11.2) = 11, round(89.8) = 90]].
// Near misses: %x2 has no extremes (quantized by its range, unsmoothed);
// %x3 is read by one GEMM with extremes and one without: neither is
// smoothed (one activation, one set of factors). The attributes are gone.
// CHECK-LABEL: func.func @smoothed
// CHECK-SAME:    (%[[X:.+]]: tensor<?x2xf32>, %[[X2:.+]]: tensor<?x2xf32>, %[[X3:.+]]: tensor<?x2xf32>)
// CHECK:         %[[M:.+]] = tsc.constant dense<[5.000000e-01, 1.41421354]> : tensor<2xf32>
// CHECK:         %[[XS:.+]] = tsc.mul %[[X]], %[[M]] : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK:         %[[W1:.+]] = tsc.constant dense<{{\[}}[127, 22], [45, -127]]> : tensor<2x2xi8>
// CHECK:         %[[S1:.+]] = tsc.constant dense<0.0470588244> : tensor<f32>
// CHECK:         %[[Z1:.+]] = tsc.constant dense<-43> : tensor<i8>
// CHECK:         %[[Q1:.+]] = tsc.quantize %[[XS]], %[[S1]], %[[Z1]]
// CHECK:         tsc.linear %{{.+}}, %{{.+}} : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
// CHECK:         tsc.constant dense<{{\[}}[127, 127], [11, 90]]> : tensor<2x2xi8>
// CHECK:         tsc.quantize %[[XS]], %{{.+}}, %{{.+}} :
// CHECK:         tsc.linear %{{.+}}, %{{.+}} {weight_kn}
// CHECK:         tsc.quantize %[[X2]], %{{.+}}, %{{.+}} :
// CHECK:         tsc.constant dense<0.0941176488> : tensor<f32>
// CHECK:         tsc.quantize %[[X3]], %{{.+}}, %{{.+}} :
// CHECK:         tsc.constant dense<0.0941176488> : tensor<f32>
// CHECK:         tsc.quantize %[[X3]], %{{.+}}, %{{.+}} :
// CHECK-NOT:     tsc.mul
// CHECK-NOT:     tsc.input_channel
// Without smoothing-alpha: no mul, the attributes removed all the same.
// OFF-LABEL:     func.func @smoothed
// OFF-NOT:       tsc.mul
// OFF-NOT:       tsc.input_channel
func.func @smoothed(%x: tensor<?x2xf32>, %x2: tensor<?x2xf32>, %x3: tensor<?x2xf32>)
    -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %w1 = tsc.constant dense<[[1.0, 0.5], [0.25, -2.0]]> : tensor<2x2xf32>
  %w2 = tsc.constant dense<[[4.0, 0.5], [1.0, 1.0]]> : tensor<2x2xf32>
  %y1 = tsc.linear %x, %w1 {tsc.input_channel_min = array<f32: -8.0, -0.5>, tsc.input_channel_max = array<f32: 16.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %y2 = tsc.matmul %x, %w2 {tsc.input_channel_min = array<f32: -8.0, -0.5>, tsc.input_channel_max = array<f32: 16.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %y3 = tsc.linear %x2, %w1 : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %y4 = tsc.linear %x3, %w1 {tsc.input_channel_min = array<f32: -8.0, -0.5>, tsc.input_channel_max = array<f32: 16.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %y5 = tsc.linear %x3, %w1 : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %y6 = tsc.linear %x2, %w2 : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  return %y1, %y2, %y3, %y4, %y5, %y6 : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// Extremes of another length, or not finite, or min > max, a weight that
// is computed (the GEMM stays float), extremes of 0 only (no range to
// smooth), channels within 3x of each other (|extremes| 2 and 1:
// kMinOutlierRatio): not smoothed.
// CHECK-LABEL: func.func @malformed
// CHECK-NOT:     tsc.mul
// CHECK-NOT:     tsc.input_channel
// CHECK:         return
func.func @malformed(%x: tensor<?x2xf32>, %y: tensor<?x2xf32>, %z: tensor<?x2xf32>, %v: tensor<2x2xf32>, %u: tensor<?x2xf32>, %t: tensor<?x2xf32>)
    -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %w = tsc.constant dense<[[1.0, 0.5], [0.25, -2.0]]> : tensor<2x2xf32>
  %a = tsc.linear %x, %w {tsc.input_channel_min = array<f32: -8.0, -0.5, 0.0>, tsc.input_channel_max = array<f32: 16.0, 1.0, 0.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %b = tsc.linear %y, %w {tsc.input_channel_min = array<f32: -8.0, 0xFFC00000>, tsc.input_channel_max = array<f32: 16.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %c = tsc.linear %z, %w {tsc.input_channel_min = array<f32: -8.0, 2.0>, tsc.input_channel_max = array<f32: 16.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %d = tsc.linear %z, %v {tsc.input_channel_min = array<f32: -8.0, -0.5>, tsc.input_channel_max = array<f32: 16.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %e = tsc.linear %u, %w {tsc.input_channel_min = array<f32: 0.0, 0.0>, tsc.input_channel_max = array<f32: 0.0, 0.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %f = tsc.linear %t, %w {tsc.input_channel_min = array<f32: -2.0, -0.5>, tsc.input_channel_max = array<f32: 1.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  return %a, %b, %c, %d, %e, %f : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}
