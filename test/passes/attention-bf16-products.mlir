// RUN: tsc-opt %s --tsc-attention-bf16-products | FileCheck %s
// The pipeline adds the pass after the fuse phase only when asked
// (attention-products=bf16; tsc resolves --attention-products=auto).
// RUN: tsc-opt %s --tsc-pipeline="attention-products=bf16" | FileCheck %s --check-prefix=PIPELINE
// RUN: tsc-opt %s --tsc-pipeline | FileCheck %s --check-prefix=DEFAULT

// f32 attention is marked, whatever its layout and mask; bf16 attention
// (already bf16 products where the host has them) is not.
// CHECK-LABEL: func.func @marks_f32
// CHECK:         tsc.attention %arg0, %arg1, %arg2 mask %arg3 bf16_products :
// CHECK:         tsc.attention %arg0, %arg1, %arg2 causal bshd bf16_products :
// CHECK-LABEL: func.func @leaves_bf16
// CHECK-NOT:     bf16_products
// CHECK:         return
// PIPELINE-LABEL: func.func @marks_f32
// PIPELINE-COUNT-2: bf16_products
// PIPELINE-LABEL: func.func @leaves_bf16
// PIPELINE-NOT:   bf16_products
// DEFAULT-NOT:    bf16_products
func.func @marks_f32(%q: tensor<2x4x16x32xf32>, %k: tensor<2x4x16x32xf32>, %v: tensor<2x4x16x32xf32>, %m: tensor<2x1x1x16xf32>) -> (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>) {
  %o = tsc.attention %q, %k, %v mask %m : (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x1x1x16xf32>) -> tensor<2x4x16x32xf32>
  %p = tsc.attention %q, %k, %v causal bshd : (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>) -> tensor<2x4x16x32xf32>
  return %o, %p : tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>
}

func.func @leaves_bf16(%q: tensor<2x4x16x32xbf16>) -> tensor<2x4x16x32xbf16> {
  %o = tsc.attention %q, %q, %q : (tensor<2x4x16x32xbf16>, tensor<2x4x16x32xbf16>, tensor<2x4x16x32xbf16>) -> tensor<2x4x16x32xbf16>
  return %o : tensor<2x4x16x32xbf16>
}
