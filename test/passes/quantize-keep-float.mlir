// RUN: tsc-opt %s --split-input-file --tsc-quantize-dynamic-int8="keep-float=/layer.1/*,exact/MatMul" | FileCheck %s
// RUN: tsc-opt %s --split-input-file --tsc-quantize-dynamic-int8 | FileCheck %s --check-prefix=ALL

// keep-float names GEMMs by their location's name (the ONNX node's): a
// glob matches a whole layer, a plain name one node; a near-miss name
// (another layer, a longer name) is quantized. Without the option every
// GEMM is quantized (ALL). (tools/quantize-phase.mlir: tsc --keep-float
// and tsc-opt --tsc-pipeline="keep-float=...").
// CHECK-LABEL: func.func @keeps_named_gemms
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf32>)
// CHECK:         %[[Q0:.+]] = tsc.linear %{{.+}}, %{{.+}} : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
// CHECK:         %[[F1:.+]] = tsc.linear %[[Q0]], %{{.+}} : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
// CHECK:         %[[F2:.+]] = tsc.linear %[[F1]], %{{.+}} : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
// CHECK:         %[[Q3:.+]] = tsc.linear %{{.+}}, %{{.+}} : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
// CHECK:         return %[[Q3]]
// ALL-LABEL:   func.func @keeps_named_gemms
// ALL-COUNT-4:   tsc.quantize
// ALL-NOT:       tsc.quantize
func.func @keeps_named_gemms(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %w = tsc.constant dense<0.5> : tensor<16x16xf32>
  %a = tsc.linear %x, %w : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32> loc("/layer.0/dense/MatMul")
  %b = tsc.linear %a, %w : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32> loc("/layer.1/dense/MatMul")
  %c = tsc.linear %b, %w : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32> loc("exact/MatMul")
  %d = tsc.linear %c, %w : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32> loc("exact/MatMul_1")
  return %d : tensor<?x16xf32>
}

// -----

// A fused location is named by its first name.
// CHECK-LABEL: func.func @fused_location_first_name
// CHECK-NOT:     tsc.quantize
// CHECK:         tsc.linear
// ALL-LABEL:   func.func @fused_location_first_name
// ALL:           tsc.quantize
func.func @fused_location_first_name(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %w = tsc.constant dense<0.5> : tensor<16x16xf32>
  %y = tsc.linear %x, %w : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32> loc(fused["exact/MatMul", "other"])
  return %y : tensor<?x16xf32>
}
