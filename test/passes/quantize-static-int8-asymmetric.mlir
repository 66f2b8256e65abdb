// RUN: tsc-opt %s --split-input-file --tsc-quantize-static-int8="input-ranges=6.35,3.0,0 input-minima=-0.17,0.5,0 remarks=1" --verify-diagnostics | FileCheck %s

// With input-minima the activations are asymmetric: [lo, hi] = [min(min,
// 0), max(max, 0)] onto the whole s8 range by s = (hi - lo) / 255 and the
// zero point z = round(-128 - lo / s), a 0-d i8 constant on both the
// quantize and the dequantize (the host plan's int8 step, kind 7 with a
// zero point). The first GEMM's input is a GELU's kind, [-0.17, 6.35]:
// s = 6.52 / 255 = 0.0255686..., z = round(-128 + 6.649) = -121. The
// second's calibrated minimum 0.5 widens to 0 (zero stays exact): s = 3 /
// 255, z = -128. The third has no range ([0, 0]) and stays float.
// CHECK-LABEL: func.func @asymmetric
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf32>, %[[G:.+]]: tensor<?x16xf32>, %[[U:.+]]: tensor<?x16xf32>)
// CHECK:         %[[S0:.+]] = tsc.constant dense<0.0255686268> : tensor<f32>
// CHECK:         %[[Z0:.+]] = tsc.constant dense<-121> : tensor<i8>
// CHECK:         %[[Q0:.+]] = tsc.quantize %[[X]], %[[S0]], %[[Z0]] : (tensor<?x16xf32>, tensor<f32>, tensor<i8>) -> tensor<?x16xi8>
// CHECK:         %[[D0:.+]] = tsc.dequantize %[[Q0]], %[[S0]], %[[Z0]] : (tensor<?x16xi8>, tensor<f32>, tensor<i8>) -> tensor<?x16xf32>
// CHECK:         %[[Y:.+]] = tsc.linear %[[D0]], %{{.+}} : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
// CHECK:         %[[S1:.+]] = tsc.constant dense<0.0117647061> : tensor<f32>
// CHECK:         %[[Z1:.+]] = tsc.constant dense<-128> : tensor<i8>
// CHECK:         %[[Q1:.+]] = tsc.quantize %[[G]], %[[S1]], %[[Z1]]
// CHECK:         %[[D1:.+]] = tsc.dequantize %[[Q1]], %[[S1]], %[[Z1]]
// CHECK:         %[[Z:.+]] = tsc.linear %[[D1]], %{{.+}}
// CHECK-NOT:     tsc.quantize
// CHECK:         %[[V:.+]] = tsc.linear %[[U]], %{{.+}} : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
// CHECK:         return %[[Y]], %[[Z]], %[[V]]
func.func @asymmetric(%x: tensor<?x16xf32>, %g: tensor<?x16xf32>, %u: tensor<?x16xf32>)
    -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %w = tsc.constant dense<0.5> : tensor<2x16xf32>
  %y = tsc.linear %x, %w : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
  %z = tsc.linear %g, %w : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
  // expected-remark @+1 {{kept float: no calibrated range for its input}}
  %v = tsc.linear %u, %w : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
  return %y, %z, %v : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>
}
