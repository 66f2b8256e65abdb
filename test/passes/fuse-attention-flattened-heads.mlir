// RUN: tsc-opt %s --split-input-file --tsc-bind-symbolic-shapes --tsc-fuse-attention | FileCheck %s

// Attention computed over flattened heads [B*H, S, .] (the graph phase
// binds each value; the binding pass stands in for it here).

// BLOOM: baddbmm(alibi, Q, Kᵀ) over [B*H, S, S], the bias added after the
// scale, reshaped to [B, H, S, S] for the padding mask and the softmax,
// then the probabilities reshaped back and multiplied by V over
// [B*H, S, D]. One tsc.attention of the 4-D Q, K, V, the ALiBi bias (lifted
// to [B, H, 1, S]) and the mask added into one additive mask.
// CHECK-LABEL: func.func @fuses_alibi_baddbmm
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<?x4x?x8xf32>, %[[K:[^:]+]]: tensor<?x4x?x8xf32>, %[[V:[^:]+]]: tensor<?x4x?x8xf32>, %[[ALIBI:[^:]+]]: tensor<?x4x?xf32>, %[[M:[^:]+]]: tensor<?x1x?x?xf32>)
// CHECK:         %[[BIAS:.+]] = tsc.reshape %[[ALIBI]]{{.*}} : tensor<?x4x?xf32> -> tensor<?x4x1x?xf32>
// CHECK:         %[[MASK:.+]] = tsc.add %[[M]], %[[BIAS]]
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[MASK]] scale = 0.35355338
// CHECK-NOT:     tsc.softmax
// CHECK-NOT:     tsc.matmul
// CHECK:         return %[[O]]
func.func @fuses_alibi_baddbmm(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x?x8xf32>, %v: tensor<?x4x?x8xf32>, %alibi: tensor<?x4x?xf32>, %mask: tensor<?x1x?x?xf32>) -> tensor<?x4x?x8xf32> {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %q[%b, %s], affine_map<()[s0, s1] -> (s0, 4, s1, 8)> : tensor<?x4x?x8xf32>
  tsc.bind_shape %k[%b, %s], affine_map<()[s0, s1] -> (s0, 4, s1, 8)> : tensor<?x4x?x8xf32>
  tsc.bind_shape %v[%b, %s], affine_map<()[s0, s1] -> (s0, 4, s1, 8)> : tensor<?x4x?x8xf32>
  tsc.bind_shape %alibi[%b, %s], affine_map<()[s0, s1] -> (s0, 4, s1)> : tensor<?x4x?xf32>
  tsc.bind_shape %mask[%b, %s], affine_map<()[s0, s1] -> (s0, 1, s1, s1)> : tensor<?x1x?x?xf32>
  %c4 = arith.constant 4 : index
  %n = arith.muli %b, %c4 : index
  %scale = tsc.constant dense<0.353553385> : tensor<f32>
  %a3 = tsc.reshape %alibi[%n, %s] : tensor<?x4x?xf32> -> tensor<?x1x?xf32>
  %q3 = tsc.reshape %q[%n, %s] : tensor<?x4x?x8xf32> -> tensor<?x?x8xf32>
  %k3 = tsc.reshape %k[%n, %s] : tensor<?x4x?x8xf32> -> tensor<?x?x8xf32>
  %kt3 = tsc.transpose %k3 perm = [0, 2, 1] : (tensor<?x?x8xf32>) -> tensor<?x8x?xf32>
  %v3 = tsc.reshape %v[%n, %s] : tensor<?x4x?x8xf32> -> tensor<?x?x8xf32>
  %qk = tsc.matmul %q3, %kt3 : (tensor<?x?x8xf32>, tensor<?x8x?xf32>) -> tensor<?x?x?xf32>
  %scaled = tsc.mul %qk, %scale : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?x?xf32>
  %biased = tsc.add %scaled, %a3 : (tensor<?x?x?xf32>, tensor<?x1x?xf32>) -> tensor<?x?x?xf32>
  %s4 = tsc.reshape %biased[%b, %s, %s] : tensor<?x?x?xf32> -> tensor<?x4x?x?xf32>
  %m = tsc.add %s4, %mask : (tensor<?x4x?x?xf32>, tensor<?x1x?x?xf32>) -> tensor<?x4x?x?xf32>
  %p = tsc.softmax %m axis = 3 : tensor<?x4x?x?xf32>
  %p3 = tsc.reshape %p[%n, %s, %s] : tensor<?x4x?x?xf32> -> tensor<?x?x?xf32>
  %o3 = tsc.matmul %p3, %v3 : (tensor<?x?x?xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %o = tsc.reshape %o3[%b, %s] : tensor<?x?x8xf32> -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}

// -----

// Static shapes; a bias that broadcasts along B*H ([1, S, S]) is lifted to
// [1, 1, S, S], and a bias of rank 2 stays as it is.
// CHECK-LABEL: func.func @fuses_flattened_with_broadcast_biases
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<2x4x6x8xf32>, %[[K:[^:]+]]: tensor<2x4x6x8xf32>, %[[V:[^:]+]]: tensor<2x4x6x8xf32>, %[[B1:[^:]+]]: tensor<1x6x6xf32>, %[[B2:[^:]+]]: tensor<6x6xf32>)
// CHECK-DAG:     %[[L1:.+]] = tsc.reshape %[[B1]] : tensor<1x6x6xf32> -> tensor<1x1x6x6xf32>
// CHECK:         %[[MASK:.+]] = tsc.add
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[MASK]] scale = 1.000000e+00
// CHECK-NOT:     tsc.softmax
// CHECK:         return %[[O]]
func.func @fuses_flattened_with_broadcast_biases(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>, %b1: tensor<1x6x6xf32>, %b2: tensor<6x6xf32>) -> tensor<2x4x6x8xf32> {
  %q3 = tsc.reshape %q : tensor<2x4x6x8xf32> -> tensor<8x6x8xf32>
  %k3 = tsc.reshape %k : tensor<2x4x6x8xf32> -> tensor<8x6x8xf32>
  %kt3 = tsc.transpose %k3 perm = [0, 2, 1] : (tensor<8x6x8xf32>) -> tensor<8x8x6xf32>
  %v3 = tsc.reshape %v : tensor<2x4x6x8xf32> -> tensor<8x6x8xf32>
  %qk = tsc.matmul %q3, %kt3 : (tensor<8x6x8xf32>, tensor<8x8x6xf32>) -> tensor<8x6x6xf32>
  %x = tsc.add %qk, %b1 : (tensor<8x6x6xf32>, tensor<1x6x6xf32>) -> tensor<8x6x6xf32>
  %y = tsc.add %x, %b2 : (tensor<8x6x6xf32>, tensor<6x6xf32>) -> tensor<8x6x6xf32>
  %s4 = tsc.reshape %y : tensor<8x6x6xf32> -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %s4 axis = 3 : tensor<2x4x6x6xf32>
  %p3 = tsc.reshape %p : tensor<2x4x6x6xf32> -> tensor<8x6x6xf32>
  %o3 = tsc.matmul %p3, %v3 : (tensor<8x6x6xf32>, tensor<8x6x8xf32>) -> tensor<8x6x8xf32>
  %o = tsc.reshape %o3 : tensor<8x6x8xf32> -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// The 3-D scores are also returned: lifting them would compute the product
// twice, so nothing is lifted and nothing fuses.
// CHECK-LABEL: func.func @leaves_shared_flattened_scores
// CHECK-NOT:     tsc.attention
// CHECK:         tsc.matmul {{.*}} -> tensor<8x6x6xf32>
// CHECK:         tsc.softmax
// CHECK:         return
func.func @leaves_shared_flattened_scores(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>) -> (tensor<2x4x6x8xf32>, tensor<8x6x6xf32>) {
  %q3 = tsc.reshape %q : tensor<2x4x6x8xf32> -> tensor<8x6x8xf32>
  %k3 = tsc.reshape %k : tensor<2x4x6x8xf32> -> tensor<8x6x8xf32>
  %kt3 = tsc.transpose %k3 perm = [0, 2, 1] : (tensor<8x6x8xf32>) -> tensor<8x8x6xf32>
  %qk = tsc.matmul %q3, %kt3 : (tensor<8x6x8xf32>, tensor<8x8x6xf32>) -> tensor<8x6x6xf32>
  %s4 = tsc.reshape %qk : tensor<8x6x6xf32> -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %s4 axis = 3 : tensor<2x4x6x6xf32>
  %o = tsc.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o, %qk : tensor<2x4x6x8xf32>, tensor<8x6x6xf32>
}

// -----

// A reshape to rank 4 that does not split dim 0 ([8, 6, 6] -> [2, 4, 3, 12]
// keeps no trailing dim) is no head split: the product stays 3-D.
// CHECK-LABEL: func.func @leaves_reshape_that_is_no_head_split
// CHECK-NOT:     tsc.attention
// CHECK:         tsc.matmul {{.*}} -> tensor<8x6x6xf32>
// CHECK-NEXT:    tsc.reshape {{.*}} -> tensor<2x4x3x12xf32>
func.func @leaves_reshape_that_is_no_head_split(%q: tensor<8x6x8xf32>, %kt: tensor<8x8x6xf32>) -> tensor<2x4x3x12xf32> {
  %qk = tsc.matmul %q, %kt : (tensor<8x6x8xf32>, tensor<8x8x6xf32>) -> tensor<8x6x6xf32>
  %s4 = tsc.reshape %qk : tensor<8x6x6xf32> -> tensor<2x4x3x12xf32>
  return %s4 : tensor<2x4x3x12xf32>
}

// -----

// A matmul whose operand broadcasts along the batch ([1, 8, 6] against
// [8, 6, 8]) is not rebuilt over heads: the reshape stays on its result.
// CHECK-LABEL: func.func @leaves_product_over_other_batch
// CHECK:         tsc.matmul {{.*}} -> tensor<8x6x6xf32>
// CHECK:         tsc.reshape {{.*}} -> tensor<2x4x6x6xf32>
func.func @leaves_product_over_other_batch(%q: tensor<8x6x8xf32>, %kt: tensor<1x8x6xf32>) -> tensor<2x4x6x6xf32> {
  %qk = tsc.matmul %q, %kt : (tensor<8x6x8xf32>, tensor<1x8x6xf32>) -> tensor<8x6x6xf32>
  %s4 = tsc.reshape %qk : tensor<8x6x6xf32> -> tensor<2x4x6x6xf32>
  return %s4 : tensor<2x4x6x6xf32>
}
