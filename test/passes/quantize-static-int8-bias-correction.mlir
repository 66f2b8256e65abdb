// RUN: tsc-opt %s --split-input-file --tsc-quantize-static-int8="input-ranges=2.54,2.54,2.54,2.54,2.54 min-input-features=2" | FileCheck %s

// Bias correction: a GEMM op carrying `tsc.input_mean` (each input
// channel's mean over the calibration samples, which the driver attaches)
// gets its bias corrected by sum_k mean[k] * (W[k, n] - dequantized W[k, n]).
// By hand, for W = [[1.0, 0.3], [0.5, -0.25]] as [N, K] and means [2, 4]:
// channel 0 has the scale 1/127, 1.0 -> 127 (exact) and 0.3 -> 38
// (0.2992126), an error of 0.0007874 times 4 = 0.0031496; channel 1 the
// scale 0.5/127, 0.5 -> 127 (exact) and -0.25 -> -63.5 -> -64 (half to
// even; -0.2519685), an error of 0.0019685 times 4 = 0.0078740. So a bias
// [0.5, -1.0] becomes [0.5031496, -0.9921260]; the same weight as [K, N]
// of a matmul without a bias gets [0.0031496, 0.0078740]; a computed bias
// an add of the correction. The attribute is gone after the pass.
// CHECK-LABEL: func.func @corrected
// CHECK-SAME:    (%[[X:.+]]: tensor<?x2xf32>, %[[B:.+]]: tensor<2xf32>)
// CHECK:         %[[B0ORIG:.+]] = tsc.constant dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK:         %[[B0:.+]] = tsc.constant dense<[0.50314{{[0-9]*}}, -0.99212{{[0-9]*}}]> : tensor<2xf32>
// CHECK:         tsc.linear %{{.+}}, %{{.+}}, %[[B0]] : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK:         %[[B1:.+]] = tsc.constant dense<[0.00314{{[0-9]*}}, 0.00787{{[0-9]*}}]> : tensor<2xf32>
// CHECK:         tsc.linear %{{.+}}, %{{.+}}, %[[B1]] {weight_kn} : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK:         %[[C:.+]] = tsc.constant dense<[0.00314{{[0-9]*}}, 0.00787{{[0-9]*}}]> : tensor<2xf32>
// CHECK:         %[[B2:.+]] = tsc.add %[[B]], %[[C]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK:         tsc.linear %{{.+}}, %{{.+}}, %[[B2]] : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK:         tsc.linear %{{.+}}, %{{.+}}, %[[B0ORIG]] : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK:         tsc.linear %{{.+}}, %{{.+}}, %[[B0ORIG]] : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK-NOT:     tsc.input_mean
func.func @corrected(%x: tensor<?x2xf32>, %b: tensor<2xf32>)
    -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %w = tsc.constant dense<[[1.0, 0.3], [0.5, -0.25]]> : tensor<2x2xf32>
  %wkn = tsc.constant dense<[[1.0, 0.5], [0.3, -0.25]]> : tensor<2x2xf32>
  %b0 = tsc.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %y = tsc.linear %x, %w, %b0 {tsc.input_mean = array<f32: 2.0, 4.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %z = tsc.matmul %x, %wkn {tsc.input_mean = array<f32: 2.0, 4.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %t = tsc.linear %x, %w, %b {tsc.input_mean = array<f32: 2.0, 4.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  // Near misses: three means for two input channels, an infinite mean:
  // no correction.
  %u = tsc.linear %x, %w, %b0 {tsc.input_mean = array<f32: 2.0, 4.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %v = tsc.linear %x, %w, %b0 {tsc.input_mean = array<f32: 2.0, 0x7F800000>}
      : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %y, %z, %t, %u, %v : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}
