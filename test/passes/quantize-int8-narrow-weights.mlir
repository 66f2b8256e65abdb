// RUN: tsc-opt %s --tsc-quantize-dynamic-int8="narrow-weights=1" | FileCheck %s --check-prefixes=CHECK,DYNAMIC
// RUN: tsc-opt %s --tsc-quantize-static-int8="input-ranges=2.0 narrow-weights=1" | FileCheck %s --check-prefixes=CHECK,STATIC
// RUN: tsc-opt %s --tsc-quantize-dynamic-int8 | FileCheck %s --check-prefix=FULL

// narrow-weights (tsc --narrow-int8-weights): each output channel's
// max|W| maps onto 64, not 127, so that every code is in [-64, 64] (a CPU
// without VNNI multiplies such weights with its u8 x s8 kernels exactly:
// 2 x 255 x 64 <= 32,767). Row 0 (max 1.27, scale 1.27/64): 0.5 -> 25
// (25.2), -1.27 -> -64, 0.333 -> 17 (16.8); row 1 (max 2.54): 2.54 -> 64,
// 1.0 -> 25, -0.25 -> -6 (-6.3).
// The activations keep their full range: per row by 127 (dynamic), by the
// calibrated range 2.0 / 127 (static).
// CHECK-LABEL: func.func @linear_nk
// CHECK-DAG:     %[[WQ:.+]] = tsc.constant dense<{{\[\[}}25, -64, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [64, 25, -6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<2x16xi8>
// CHECK-DAG:     %[[WS:.+]] = tsc.constant dense<[0.0198437497, 3.968750e-02]> : tensor<2xf32>
// CHECK-DAG:     %[[WD:.+]] = tsc.dequantize %[[WQ]], %[[WS]] axis = 0 : (tensor<2x16xi8>, tensor<2xf32>) -> tensor<2x16xf32>
// DYNAMIC-DAG:   tsc.constant dense<1.270000e+02> : tensor<f32>
// STATIC-DAG:    tsc.constant dense<0.0157480314> : tensor<f32>
// CHECK:         tsc.linear %{{.+}}, %[[WD]], %{{.+}} : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// Without it, the full range (127 -> max|W|).
// FULL:          tsc.constant dense<{{\[\[}}50, -127, 33, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [127, 50, -12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<2x16xi8>
func.func @linear_nk(%x: tensor<?x16xf32>) -> tensor<?x2xf32> {
  %w = tsc.constant dense<[[0.5, -1.27, 0.333, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                           [2.54, 1.0, -0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x16xf32>
  %b = tsc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = tsc.linear %x, %w, %b : (tensor<?x16xf32>, tensor<2x16xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
