// RUN: tsc-opt %s --split-input-file --tsc-fuse-attention | FileCheck %s

// BERT: Q·Kᵀ / sqrt(d) + padding mask, softmax, ·V.
// CHECK-LABEL: func.func @fuses_scaled_masked_attention
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x4x?x8xf32>, %[[K:.+]]: tensor<?x4x?x8xf32>, %[[V:.+]]: tensor<?x4x?x8xf32>, %[[M:.+]]: tensor<?x1x1x?xf32>)
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale = 0.35355339664408242
// CHECK-NOT:     tsc.softmax
// CHECK:         return %[[O]]
func.func @fuses_scaled_masked_attention(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x?x8xf32>, %v: tensor<?x4x?x8xf32>, %mask: tensor<?x1x1x?xf32>) -> tensor<?x4x?x8xf32> {
  %sqrt_d = tsc.constant dense<2.82842708> : tensor<f32>
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<?x4x?x8xf32>) -> tensor<?x4x8x?xf32>
  %s = tsc.matmul %q, %kt : (tensor<?x4x?x8xf32>, tensor<?x4x8x?xf32>) -> tensor<?x4x?x?xf32>
  %d = tsc.div %s, %sqrt_d : (tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
  %m = tsc.add %d, %mask : (tensor<?x4x?x?xf32>, tensor<?x1x1x?xf32>) -> tensor<?x4x?x?xf32>
  %p = tsc.softmax %m axis = 3 : tensor<?x4x?x?xf32>
  %o = tsc.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}

// -----

// GPT-2: Kᵀ straight from the [B, S, H, D] head split, a boolean causal
// `where` with finfo.min and an additive padding mask, combined into one.
// CHECK-LABEL: func.func @fuses_causal_where_and_padding
// CHECK-SAME:    (%[[Q:.+]]: tensor<2x4x6x8xf32>, %[[KS:.+]]: tensor<2x6x4x8xf32>, %[[V:.+]]: tensor<2x4x6x8xf32>, %[[C:.+]]: tensor<1x1x6x6xi1>, %[[P:.+]]: tensor<2x1x1x6xf32>)
// CHECK-DAG:     %[[K:.+]] = tsc.transpose %[[KS]] perm = [0, 2, 1, 3]
// CHECK-DAG:     %[[MIN:.+]] = tsc.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK:         %[[MASK:.+]] = tsc.where %[[C]], %[[P]], %[[MIN]] : {{.*}} -> tensor<2x1x6x6xf32>
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[MASK]] scale = 0.35355339664408242
// CHECK:         return %[[O]]
func.func @fuses_causal_where_and_padding(%q: tensor<2x4x6x8xf32>, %ks: tensor<2x6x4x8xf32>, %v: tensor<2x4x6x8xf32>, %causal: tensor<1x1x6x6xi1>, %pad: tensor<2x1x1x6xf32>) -> tensor<2x4x6x8xf32> {
  %sqrt_d = tsc.constant dense<2.82842708> : tensor<f32>
  %min = tsc.constant dense<-3.40282347E+38> : tensor<f32>
  %kt = tsc.transpose %ks perm = [0, 2, 3, 1] : (tensor<2x6x4x8xf32>) -> tensor<2x4x8x6xf32>
  %s = tsc.matmul %q, %kt : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %d = tsc.div %s, %sqrt_d : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xf32>
  %w = tsc.where %causal, %d, %min : (tensor<1x1x6x6xi1>, tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6x6xf32>
  %m = tsc.add %w, %pad : (tensor<2x4x6x6xf32>, tensor<2x1x1x6xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %m axis = 3 : tensor<2x4x6x6xf32>
  %o = tsc.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// Llama: K/V heads repeated for grouped-query attention are taken
// unrepeated; a multiplicative scale on the scores.
// CHECK-LABEL: func.func @fuses_grouped_query_attention
// CHECK-SAME:    (%[[Q:.+]]: tensor<1x4x5x8xf32>, %[[K:.+]]: tensor<1x2x5x8xf32>, %[[V:.+]]: tensor<1x2x5x8xf32>, %[[M:.+]]: tensor<1x1x5x5xf32>)
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale = 2.500000e-01 : (tensor<1x4x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x1x5x5xf32>) -> tensor<1x4x5x8xf32>
// CHECK-NOT:     tsc.expand
// CHECK:         return %[[O]]
func.func @fuses_grouped_query_attention(%q: tensor<1x4x5x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %mask: tensor<1x1x5x5xf32>) -> tensor<1x4x5x8xf32> {
  %quarter = tsc.constant dense<0.25> : tensor<f32>
  %k1 = tsc.unsqueeze %k dims = [2] : (tensor<1x2x5x8xf32>) -> tensor<1x2x1x5x8xf32>
  %k2 = tsc.expand %k1 : tensor<1x2x1x5x8xf32> -> tensor<1x2x2x5x8xf32>
  %kr = tsc.reshape %k2 : tensor<1x2x2x5x8xf32> -> tensor<1x4x5x8xf32>
  %v1 = tsc.unsqueeze %v dims = [2] : (tensor<1x2x5x8xf32>) -> tensor<1x2x1x5x8xf32>
  %v2 = tsc.expand %v1 : tensor<1x2x1x5x8xf32> -> tensor<1x2x2x5x8xf32>
  %vr = tsc.reshape %v2 : tensor<1x2x2x5x8xf32> -> tensor<1x4x5x8xf32>
  %kt = tsc.transpose %kr perm = [0, 1, 3, 2] : (tensor<1x4x5x8xf32>) -> tensor<1x4x8x5xf32>
  %s = tsc.matmul %q, %kt : (tensor<1x4x5x8xf32>, tensor<1x4x8x5xf32>) -> tensor<1x4x5x5xf32>
  %d = tsc.mul %s, %quarter : (tensor<1x4x5x5xf32>, tensor<f32>) -> tensor<1x4x5x5xf32>
  %m = tsc.add %d, %mask : (tensor<1x4x5x5xf32>, tensor<1x1x5x5xf32>) -> tensor<1x4x5x5xf32>
  %p = tsc.softmax %m axis = 3 : tensor<1x4x5x5xf32>
  %o = tsc.matmul %p, %vr : (tensor<1x4x5x5xf32>, tensor<1x4x5x8xf32>) -> tensor<1x4x5x8xf32>
  return %o : tensor<1x4x5x8xf32>
}

// -----

// Near-misses: a softmax over the query axis, and scores used elsewhere too.
// CHECK-LABEL: func.func @leaves_near_misses
// CHECK-NOT:     tsc.attention
// CHECK:         return
func.func @leaves_near_misses(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>) {
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = tsc.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = tsc.softmax %s axis = 2 : tensor<1x2x4x4xf32>
  %o = tsc.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %s2 = tsc.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p2 = tsc.softmax %s2 axis = 3 : tensor<1x2x4x4xf32>
  %o2 = tsc.matmul %p2, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %o, %o2, %s2 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>
}
