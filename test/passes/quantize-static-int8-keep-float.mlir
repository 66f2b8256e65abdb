// RUN: tsc-opt %s --tsc-quantize-static-int8="input-ranges=1.27,1.27,1.27 keep-float=/layer.1/*" | FileCheck %s
// RUN: tsc-opt %s --tsc-quantize-static-int8="input-ranges=1.27,1.27,1.27 keep-float=/layer.1/* remarks=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tsc-opt %s --tsc-quantize-static-int8="input-ranges=1.27,1.27,1.27" | FileCheck %s --check-prefix=ALL

// keep-float as in tsc-quantize-dynamic-int8 (quantize-keep-float.mlir):
// the GEMM it names stays float although it has a calibrated range, and
// the ranges still count every GEMM op, so the third GEMM takes the third
// range (1.27 / 127 = 0.01). A near-miss name (/layer.10/..., which the
// glob /layer.1/* does not match) is quantized. `tsc --max-error` with
// static-int8 keeps GEMMs float this way. Without the option all three
// are quantized (ALL).
// CHECK-LABEL: func.func @keeps_named_gemm
// CHECK:         tsc.quantize
// CHECK:         %[[A:.+]] = tsc.linear
// CHECK-NOT:     tsc.quantize
// CHECK:         %[[B:.+]] = tsc.linear %[[A]], %{{.+}} : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
// CHECK:         %[[S:.+]] = tsc.constant dense<0.00999999977> : tensor<f32>
// CHECK:         tsc.quantize %[[B]], %[[S]]
// CHECK:         tsc.linear
// REMARK:      remark: loc("/layer.1/dense/MatMul"): kept float: named by keep-float (/layer.1/dense/MatMul)
// REMARK-NOT:  remark:
// ALL-LABEL:   func.func @keeps_named_gemm
// ALL-COUNT-3:   tsc.quantize
// ALL-NOT:       tsc.quantize
func.func @keeps_named_gemm(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %w = tsc.constant dense<0.5> : tensor<16x16xf32>
  %a = tsc.linear %x, %w : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32> loc("/layer.0/dense/MatMul")
  %b = tsc.linear %a, %w : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32> loc("/layer.1/dense/MatMul")
  %c = tsc.linear %b, %w : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32> loc("/layer.10/dense/MatMul")
  return %c : tensor<?x16xf32>
}
