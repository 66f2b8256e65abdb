// RUN: tsc-opt %s --split-input-file --tsc-quantize-dynamic-int8="smoothing-alpha=0.5 min-input-features=2 keep-float=kept" | FileCheck %s
// RUN: tsc-opt %s --split-input-file --tsc-quantize-dynamic-int8="min-input-features=2 keep-float=kept" | FileCheck %s --check-prefix=OFF

// Smoothing with dynamic (per-row) activation scales: the factors are
// static int8's (quantize-static-int8-smoothing.mlir works the same numbers
// by hand): x's channel extremes [-8, 16] and [-0.5, 1] and the weights'
// largest |W_k| [4, 2] over both readers give m = [0.5, 1.41421354] and the
// same s8 weights. The row scale is measured on the smoothed input: abs,
// reduce_max and quantize all read x · m. %kept (keep-float) reads %x2
// unsmoothed and takes no part in the factors: %x2's other reader, %w1
// alone (|W_k| [1, 2]), gets m = 1 / (max|x_k|^0.5 / max|W_k|^0.5) =
// [1 / (4 / 1), 1 / (1 / 1.414)] = [0.25, 1.41421354].
// CHECK-LABEL: func.func @smoothed
// CHECK-SAME:    (%[[X:.+]]: tensor<?x2xf32>, %[[X2:.+]]: tensor<?x2xf32>)
// CHECK-DAG:     %[[M:.+]] = tsc.constant dense<[5.000000e-01, 1.41421354]> : tensor<2xf32>
// CHECK-DAG:     %[[XS:.+]] = tsc.mul %[[X]], %[[M]] : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK-DAG:     %[[M2:.+]] = tsc.constant dense<[2.500000e-01, 1.41421354]> : tensor<2xf32>
// CHECK-DAG:     %[[XS2:.+]] = tsc.mul %[[X2]], %[[M2]] : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK:         tsc.constant dense<{{\[}}[127, 22], [45, -127]]> : tensor<2x2xi8>
// CHECK:         %[[ABS:.+]] = tsc.abs %[[XS]]
// CHECK:         tsc.reduce_max %[[ABS]] dims = [1] keepdim
// CHECK:         tsc.quantize %[[XS]], %{{.+}} axis = 1 group_size = 2
// CHECK:         tsc.linear %{{.+}}, %{{.+}} : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
// CHECK:         tsc.constant dense<{{\[}}[127, 127], [11, 90]]> : tensor<2x2xi8>
// CHECK:         tsc.quantize %[[XS]], %{{.+}} axis = 1 group_size = 2
// CHECK:         tsc.linear %{{.+}}, %{{.+}} {weight_kn}
// CHECK:         tsc.linear %[[X2]], %{{.+}} : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
// CHECK:         %[[ABS2:.+]] = tsc.abs %[[XS2]]
// CHECK:         tsc.quantize %[[XS2]], %{{.+}} axis = 1 group_size = 2
// CHECK-NOT:     tsc.input_channel
// Without smoothing-alpha: no mul, the attributes removed all the same.
// OFF-LABEL:     func.func @smoothed
// OFF-NOT:       tsc.mul
// OFF-NOT:       tsc.input_channel
func.func @smoothed(%x: tensor<?x2xf32>, %x2: tensor<?x2xf32>)
    -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %w1 = tsc.constant dense<[[1.0, 0.5], [0.25, -2.0]]> : tensor<2x2xf32>
  %w2 = tsc.constant dense<[[4.0, 0.5], [1.0, 1.0]]> : tensor<2x2xf32>
  %y1 = tsc.linear %x, %w1 {tsc.input_channel_min = array<f32: -8.0, -0.5>, tsc.input_channel_max = array<f32: 16.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %y2 = tsc.matmul %x, %w2 {tsc.input_channel_min = array<f32: -8.0, -0.5>, tsc.input_channel_max = array<f32: 16.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %y3 = tsc.linear %x2, %w2 {tsc.input_channel_min = array<f32: -8.0, -0.5>, tsc.input_channel_max = array<f32: 16.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32> loc("kept")
  %y4 = tsc.linear %x2, %w1 {tsc.input_channel_min = array<f32: -8.0, -0.5>, tsc.input_channel_max = array<f32: 16.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  return %y1, %y2, %y3, %y4 : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// Channels within 3x of each other (|extremes| 2 and 1: kMinOutlierRatio)
// and a GEMM without extremes: not smoothed, its rows quantized as x's.
// CHECK-LABEL: func.func @not_smoothed
// CHECK-NOT:     tsc.mul
// CHECK-NOT:     tsc.input_channel
// CHECK:         return
func.func @not_smoothed(%x: tensor<?x2xf32>, %y: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %w = tsc.constant dense<[[1.0, 0.5], [0.25, -2.0]]> : tensor<2x2xf32>
  %a = tsc.linear %x, %w {tsc.input_channel_min = array<f32: -2.0, -1.0>, tsc.input_channel_max = array<f32: 2.0, 1.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %b = tsc.linear %y, %w : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  return %a, %b : tensor<?x2xf32>, tensor<?x2xf32>
}
