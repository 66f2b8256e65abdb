// RUN: tsc-opt %s --tsc-quantize-dynamic-int8="keep-float=/layer.1/* kept-precision=bf16" | FileCheck %s
// RUN: tsc-opt %s --tsc-quantize-dynamic-int8="keep-float=/layer.1/* kept-precision=bf16 remarks=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tsc-opt %s --tsc-quantize-static-int8="input-ranges=1.27,1.27,1.27 keep-float=/layer.1/* kept-precision=bf16" | FileCheck %s --check-prefix=STATIC
// RUN: tsc-opt %s --tsc-quantize-dynamic-int8="keep-float=/layer.1/*" | FileCheck %s --check-prefix=F32
// RUN: not tsc-opt %s --tsc-quantize-dynamic-int8="keep-float=/layer.1/* kept-precision=fp8" 2>&1 | FileCheck %s --check-prefix=INVALID

// kept-precision=bf16: the GEMM keep-float names computes on operands
// rounded to bf16, kept f32: its input through a cast pair (no saturation:
// what overflows bf16 becomes infinite, as the GEMM's conversion makes
// it), its weight rounded at compile time (1 + 2^-10 is not a bf16 value:
// 1), the result f32. The GEMMs around it are int8;
// a near-miss name (/layer.10/...) too. Default f32: the GEMM as it was.
// CHECK-LABEL: func.func @kept_in_bf16
// CHECK:         %[[A:.+]] = tsc.linear
// CHECK:         %[[W:.+]] = tsc.constant dense<1.000000e+00> : tensor<16x16xf32>
// CHECK:         %[[N:.+]] = tsc.cast %[[A]] : tensor<?x16xf32> to tensor<?x16xbf16>
// CHECK:         %[[R:.+]] = tsc.cast %[[N]] : tensor<?x16xbf16> to tensor<?x16xf32>
// CHECK:         %[[B:.+]] = tsc.linear %[[R]], %[[W]], %{{.+}} : (tensor<?x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
// CHECK:         tsc.quantize %[[B]]
// CHECK:         tsc.linear
// REMARK:      remark: loc("/layer.1/dense/MatMul"): kept in bf16: named by keep-float (/layer.1/dense/MatMul)
// REMARK-NOT:  remark:
// STATIC-LABEL: func.func @kept_in_bf16
// STATIC:        tsc.quantize
// STATIC:        tsc.cast {{.+}} to tensor<?x16xbf16>
// STATIC:        tsc.quantize
// F32-LABEL:   func.func @kept_in_bf16
// F32-NOT:       tsc.cast
// F32:           tsc.linear %{{.+}}, %{{.+}}, %{{.+}} : (tensor<?x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
// INVALID: kept-precision: 'fp8': expected f32 or bf16
func.func @kept_in_bf16(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %w = tsc.constant dense<0.5> : tensor<16x16xf32>
  %w1 = tsc.constant dense<1.0009765625> : tensor<16x16xf32>
  %b1 = tsc.constant dense<0.25> : tensor<16xf32>
  %a = tsc.linear %x, %w : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32> loc("/layer.0/dense/MatMul")
  %b = tsc.linear %a, %w1, %b1 : (tensor<?x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<?x16xf32> loc("/layer.1/dense/MatMul")
  %c = tsc.linear %b, %w : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32> loc("/layer.10/dense/MatMul")
  return %c : tensor<?x16xf32>
}
