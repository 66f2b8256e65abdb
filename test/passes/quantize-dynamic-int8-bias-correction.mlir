// RUN: tsc-opt %s --tsc-quantize-dynamic-int8="min-input-features=2" | FileCheck %s

// Dynamic int8 with `tsc --calibration`: a GEMM op carrying `tsc.input_mean`
// gets the bias correction of static int8
// (quantize-static-int8-bias-correction.mlir works the same weight, means
// and bias by hand: [0.5, -1.0] becomes [0.5031496, -0.9921260]); its
// activation stays quantized per row at run time. The attribute is gone.
// CHECK-LABEL: func.func @corrected
// CHECK:         %[[B:.+]] = tsc.constant dense<[0.50314{{[0-9]*}}, -0.99212{{[0-9]*}}]> : tensor<2xf32>
// CHECK:         tsc.reduce_max
// CHECK:         tsc.linear %{{.+}}, %{{.+}}, %[[B]] : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK-NOT:     tsc.input_mean
func.func @corrected(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %w = tsc.constant dense<[[1.0, 0.3], [0.5, -0.25]]> : tensor<2x2xf32>
  %b0 = tsc.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %y = tsc.linear %x, %w, %b0 {tsc.input_mean = array<f32: 2.0, 4.0>}
      : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
