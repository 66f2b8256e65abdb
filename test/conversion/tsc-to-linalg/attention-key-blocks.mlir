// RUN: tsc-opt %s --tsc-convert-to-linalg="max-key-value-block-bytes=32768" | FileCheck %s
// RUN: tsc-opt %s --tsc-convert-to-linalg | FileCheck %s --check-prefix=HOST

// The CUDA target keeps attention's K and V blocks in a block's shared
// memory (32 KiB): with head dim 128, 32 keys per block (Kᵀ [128 x 32] and
// V [32 x 128], 16 KiB each) instead of the host's 64.
// CHECK-LABEL: func.func @attention_head_dim_128
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C32]]
// CHECK:           } -> tensor<128x32xf32>
// CHECK:           } -> tensor<32x128xf32>
// CHECK:           linalg.generic {{.+}} outs(%{{.+}} : tensor<32x32xf32>)

// HOST-LABEL: func.func @attention_head_dim_128
// HOST-DAG:     %[[C64:.+]] = arith.constant 64 : index
// HOST:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C64]]
// HOST:           } -> tensor<128x64xf32>
// HOST:           } -> tensor<64x128xf32>
func.func @attention_head_dim_128(%q: tensor<?x4x?x128xf32>, %k: tensor<?x4x?x128xf32>, %v: tensor<?x4x?x128xf32>) -> tensor<?x4x?x128xf32> {
  %0 = tsc.attention %q, %k, %v {scale = 0.088388347648 : f64} : (tensor<?x4x?x128xf32>, tensor<?x4x?x128xf32>, tensor<?x4x?x128xf32>) -> tensor<?x4x?x128xf32>
  return %0 : tensor<?x4x?x128xf32>
}

// Half tiles get half the budget (Q, S, P and O join K and V in shared
// memory for the tensor-core products): head dim 128 in f16 also takes 32
// keys per block (8 KiB each for Kᵀ and V), 64 keys at head dim 64.
// CHECK-LABEL: func.func @attention_f16_head_dims
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : index
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C32]]
// CHECK:           } -> tensor<128x32xf16>
// CHECK:           } -> tensor<32x128xf16>
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C64]]
// CHECK:           } -> tensor<64x64xf16>
// CHECK:           } -> tensor<64x64xf16>
func.func @attention_f16_head_dims(%q: tensor<?x4x?x128xf16>, %k: tensor<?x4x?x128xf16>, %v: tensor<?x4x?x128xf16>, %q2: tensor<?x4x?x64xf16>) -> (tensor<?x4x?x128xf16>, tensor<?x4x?x64xf16>) {
  %0 = tsc.attention %q, %k, %v : (tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>, tensor<?x4x?x128xf16>) -> tensor<?x4x?x128xf16>
  %1 = tsc.attention %q2, %q2, %q2 : (tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>) -> tensor<?x4x?x64xf16>
  return %0, %1 : tensor<?x4x?x128xf16>, tensor<?x4x?x64xf16>
}
