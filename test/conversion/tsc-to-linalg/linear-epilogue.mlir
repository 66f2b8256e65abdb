// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg | FileCheck %s

// A linear with a [K, N] weight, a bias and a residual: the accumulator
// starts at residual + bias, then the product accumulates onto it with the
// weight read as (k, n).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @linear_kn_bias_residual
// CHECK-SAME:    (%[[XV:.+]]: tensor<?x4xf32>, %[[WV:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>, %[[R:.+]]: tensor<?x3xf32>)
// CHECK:         %[[SEED:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[R]], %[[B]] : tensor<?x3xf32>, tensor<3xf32>)
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[XV]], %[[WV]] : tensor<?x4xf32>, tensor<4x3xf32>) outs(%[[SEED]] : tensor<?x3xf32>)
func.func @linear_kn_bias_residual(%x: tensor<?x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>, %r: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = tsc.linear %x, %w, %b residual %r {weight_kn} : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// With an activation the bias alone seeds the accumulator; the GELU (erf
// here) and then the residual follow the contraction, so that every path
// computes act(x·W + b) + r as the GEMM library does.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @linear_gelu_before_residual
// CHECK-SAME:    (%[[XV:.+]]: tensor<?x4xf32>, %[[WV:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>, %[[R:.+]]: tensor<?x3xf32>)
// CHECK:         %[[SEED:.+]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[B]] : tensor<3xf32>)
// CHECK:         %[[ACC:.+]] = linalg.generic {{.+}} ins(%[[XV]], %[[WV]] : tensor<?x4xf32>, tensor<4x3xf32>) outs(%[[SEED]] : tensor<?x3xf32>)
// CHECK:         %[[Y:.+]] = linalg.generic {{.+}} ins(%[[ACC]], %[[R]] : tensor<?x3xf32>, tensor<?x3xf32>)
// CHECK:           math.erf
// CHECK-NOT:       math.tanh
// CHECK:           arith.addf
// CHECK:         return %[[Y]]
func.func @linear_gelu_before_residual(%x: tensor<?x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>, %r: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = tsc.linear %x, %w, %b residual %r activation = gelu {weight_kn} : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// The tanh approximation, on bf16 storage: the GELU runs on the f32
// accumulator before the one rounding to bf16.
// CHECK-LABEL: func.func @linear_gelu_tanh_bf16
// CHECK:         %[[ACC:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction"]{{.+}} outs(%{{.+}} : tensor<2x3xf32>)
// CHECK:         linalg.generic {{.+}} ins(%[[ACC]] : tensor<2x3xf32>)
// CHECK:           math.tanh
// CHECK-NOT:       math.erf
// CHECK:         arith.truncf
func.func @linear_gelu_tanh_bf16(%x: tensor<2x4xbf16>, %w: tensor<3x4xbf16>) -> tensor<2x3xbf16> {
  %y = tsc.linear %x, %w activation = gelu_tanh : (tensor<2x4xbf16>, tensor<3x4xbf16>) -> tensor<2x3xbf16>
  return %y : tensor<2x3xbf16>
}
