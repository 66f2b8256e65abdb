// RUN: tsc-opt %s --tsc-quantize-weight-only="bits=4 min-input-features=2" | FileCheck %s
// RUN: tsc-opt %s --tsc-quantize-weight-only="bits=4 group-size=1 min-input-features=2" | FileCheck %s --check-prefix=GROUP

// Bias correction of weight-only codes (`tsc --quantize=weight-int4
// --calibration DIR`): a GEMM op with `tsc.input_mean` gets
// sum_k mean[k] * (W[k, n] - dequantized W[k, n]) added to its bias. By hand,
// for W = [[0.7, 0.25]] ([N, K]), 4-bit codes per channel: the scale is
// 0.7 / 7 = 0.1, 0.7 -> 7 (0.7 again in f32) and 0.25 -> 2.5 - ε -> 2
// (0.2), an error of 0.05 (0.049999997 in f32) times the mean 2 = 0.099999994:
// the bias 1.0 becomes 1.1;
// the matmul's [K, N] copy without a bias gets 0.099999994 as its bias. With a
// group of one weight every weight is its own scale and exact: no
// correction (1.0 and 0.0). The attribute is gone after the pass.
// CHECK-LABEL: func.func @corrected
// CHECK:         %[[B0:.+]] = tsc.constant dense<{{1\.10*e\+00|1\.0999[0-9]*|1\.1000[0-9]*}}> : tensor<1xf32>
// CHECK-NEXT:    tsc.linear %{{.+}}, %{{.+}}, %[[B0]] : (tensor<?x2xf32>, tensor<1x2xf32>, tensor<1xf32>) -> tensor<?x1xf32>
// CHECK:         %[[B1:.+]] = tsc.constant dense<0.0999{{[0-9]*}}> : tensor<1xf32>
// CHECK-NEXT:    tsc.linear %{{.+}}, %{{.+}}, %[[B1]] {weight_kn} : (tensor<?x2xf32>, tensor<2x1xf32>, tensor<1xf32>) -> tensor<?x1xf32>
// CHECK-NOT:     tsc.input_mean
// GROUP-LABEL: func.func @corrected
// GROUP:         tsc.dequantize
// GROUP-NEXT:    %[[B0:.+]] = tsc.constant dense<1.000000e+00> : tensor<1xf32>
// GROUP-NEXT:    tsc.linear %{{.+}}, %{{.+}}, %[[B0]] : (tensor<?x2xf32>, tensor<1x2xf32>, tensor<1xf32>) -> tensor<?x1xf32>
// GROUP:         %[[B1:.+]] = tsc.constant dense<0.000000e+00> : tensor<1xf32>
// GROUP-NEXT:    tsc.linear %{{.+}}, %{{.+}}, %[[B1]] {weight_kn} : (tensor<?x2xf32>, tensor<2x1xf32>, tensor<1xf32>) -> tensor<?x1xf32>
// GROUP-NOT:     tsc.input_mean
func.func @corrected(%x: tensor<?x2xf32>) -> (tensor<?x1xf32>, tensor<?x1xf32>) {
  %w = tsc.constant dense<[[0.7, 0.25]]> : tensor<1x2xf32>
  %wkn = tsc.constant dense<[[0.7], [0.25]]> : tensor<2x1xf32>
  %b = tsc.constant dense<1.0> : tensor<1xf32>
  %y = tsc.linear %x, %w, %b {tsc.input_mean = array<f32: 1.0, 2.0>}
      : (tensor<?x2xf32>, tensor<1x2xf32>, tensor<1xf32>) -> tensor<?x1xf32>
  %z = tsc.matmul %x, %wkn {tsc.input_mean = array<f32: 1.0, 2.0>}
      : (tensor<?x2xf32>, tensor<2x1xf32>) -> tensor<?x1xf32>
  return %y, %z : tensor<?x1xf32>, tensor<?x1xf32>
}
