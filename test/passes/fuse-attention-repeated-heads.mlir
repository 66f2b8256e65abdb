// RUN: tsc-opt %s --split-input-file --tsc-bind-symbolic-shapes --tsc-fuse-attention | FileCheck %s

// Grouped-query K/V heads repeated in the [B, S, H, D] layout (the graph
// phase binds each value; the binding pass stands in for it here).

// Falcon: the fused projection [B, S, Hkv, n + 2, D] gives Q (n heads per
// group), K and V (one each, repeated n times by an expand), and the rotary
// embedding rotates the repeated K. The attention reads K and V over their
// Hkv = 2 heads, and the rotation is computed over those.
// CHECK-LABEL: func.func @unrepeats_rotated_key_and_value
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x?x2x4x8xf32>, %[[COS:[^:]+]]: tensor<1x?x1x8xf32>, %[[SIN:[^:]+]]: tensor<1x?x1x8xf32>)
// CHECK-DAG:     %[[K5:.+]] = tsc.slice %[[X]] [0, 0, 0, 2, 0]
// CHECK-DAG:     %[[V5:.+]] = tsc.slice %[[X]] [0, 0, 0, 3, 0]
// CHECK:         %[[K:.+]] = tsc.reshape %[[K5]]{{.*}} : tensor<?x?x2x1x8xf32> -> tensor<?x?x2x8xf32>
// CHECK:         %[[KC:.+]] = tsc.mul %[[K]], %[[COS]] : (tensor<?x?x2x8xf32>, tensor<1x?x1x8xf32>) -> tensor<?x?x2x8xf32>
// CHECK:         tsc.neg %{{.+}} : tensor<?x?x2x4xf32>
// CHECK:         %[[KR:.+]] = tsc.add %[[KC]], %{{.+}} : (tensor<?x?x2x8xf32>, tensor<?x?x2x8xf32>) -> tensor<?x?x2x8xf32>
// CHECK:         %[[V:.+]] = tsc.reshape %[[V5]]{{.*}} : tensor<?x?x2x1x8xf32> -> tensor<?x?x2x8xf32>
// CHECK:         %[[O:.+]] = tsc.attention %{{.+}}, %[[KR]], %[[V]] bshd : (tensor<?x?x4x8xf32>, tensor<?x?x2x8xf32>, tensor<?x?x2x8xf32>) -> tensor<?x?x4x8xf32>
// CHECK-NOT:     tsc.expand
// CHECK:         return %[[O]]
func.func @unrepeats_rotated_key_and_value(%x: tensor<?x?x2x4x8xf32>, %cos: tensor<1x?x1x8xf32>, %sin: tensor<1x?x1x8xf32>) -> tensor<?x?x4x8xf32> {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 2, 4, 8)> : tensor<?x?x2x4x8xf32>
  tsc.bind_shape %cos[%s], affine_map<()[s0] -> (1, s0, 1, 8)> : tensor<1x?x1x8xf32>
  tsc.bind_shape %sin[%s], affine_map<()[s0] -> (1, s0, 1, 8)> : tensor<1x?x1x8xf32>
  %q5 = tsc.slice %x [0, 0, 0, 0, 0] [%b, %s, 2, 2, 8] [1, 1, 1, 1, 1] : tensor<?x?x2x4x8xf32> to tensor<?x?x2x2x8xf32>
  %k5 = tsc.slice %x [0, 0, 0, 2, 0] [%b, %s, 2, 1, 8] [1, 1, 1, 1, 1] : tensor<?x?x2x4x8xf32> to tensor<?x?x2x1x8xf32>
  %v5 = tsc.slice %x [0, 0, 0, 3, 0] [%b, %s, 2, 1, 8] [1, 1, 1, 1, 1] : tensor<?x?x2x4x8xf32> to tensor<?x?x2x1x8xf32>
  %ke = tsc.expand %k5[%b, %s] : tensor<?x?x2x1x8xf32> -> tensor<?x?x2x2x8xf32>
  %ve = tsc.expand %v5[%b, %s] : tensor<?x?x2x1x8xf32> -> tensor<?x?x2x2x8xf32>
  %q = tsc.reshape %q5[%b, %s] : tensor<?x?x2x2x8xf32> -> tensor<?x?x4x8xf32>
  %k = tsc.reshape %ke[%b, %s] : tensor<?x?x2x2x8xf32> -> tensor<?x?x4x8xf32>
  %v = tsc.reshape %ve[%b, %s] : tensor<?x?x2x2x8xf32> -> tensor<?x?x4x8xf32>
  %kc = tsc.mul %k, %cos : (tensor<?x?x4x8xf32>, tensor<1x?x1x8xf32>) -> tensor<?x?x4x8xf32>
  %k1 = tsc.slice %k [0, 0, 0, 0] [%b, %s, 4, 4] [1, 1, 1, 1] : tensor<?x?x4x8xf32> to tensor<?x?x4x4xf32>
  %k2 = tsc.slice %k [0, 0, 0, 4] [%b, %s, 4, 4] [1, 1, 1, 1] : tensor<?x?x4x8xf32> to tensor<?x?x4x4xf32>
  %n2 = tsc.neg %k2 : tensor<?x?x4x4xf32>
  %rot = tsc.concat %n2, %k1 axis = 3 : (tensor<?x?x4x4xf32>, tensor<?x?x4x4xf32>) -> tensor<?x?x4x8xf32>
  %ks = tsc.mul %rot, %sin : (tensor<?x?x4x8xf32>, tensor<1x?x1x8xf32>) -> tensor<?x?x4x8xf32>
  %kr = tsc.add %kc, %ks : (tensor<?x?x4x8xf32>, tensor<?x?x4x8xf32>) -> tensor<?x?x4x8xf32>
  %o = tsc.attention %q, %kr, %v bshd : (tensor<?x?x4x8xf32>, tensor<?x?x4x8xf32>, tensor<?x?x4x8xf32>) -> tensor<?x?x4x8xf32>
  return %o : tensor<?x?x4x8xf32>
}

// -----

// Only K is a repetition (V holds all its heads): both must drop it, so the
// attention keeps reading the repeated K.
// CHECK-LABEL: func.func @keeps_repeat_when_value_has_all_heads
// CHECK:         tsc.expand
// CHECK:         tsc.attention {{.*}} : (tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>) -> tensor<2x6x4x8xf32>
func.func @keeps_repeat_when_value_has_all_heads(%q: tensor<2x6x4x8xf32>, %k5: tensor<2x6x2x1x8xf32>, %v: tensor<2x6x4x8xf32>) -> tensor<2x6x4x8xf32> {
  %ke = tsc.expand %k5 : tensor<2x6x2x1x8xf32> -> tensor<2x6x2x2x8xf32>
  %k = tsc.reshape %ke : tensor<2x6x2x2x8xf32> -> tensor<2x6x4x8xf32>
  %o = tsc.attention %q, %k, %v bshd : (tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>) -> tensor<2x6x4x8xf32>
  return %o : tensor<2x6x4x8xf32>
}

// -----

// A factor that differs per head ([1, 1, 4, 8]) does not commute with the
// repetition: nothing changes.
// CHECK-LABEL: func.func @keeps_repeat_under_per_head_factor
// CHECK-COUNT-2: tsc.expand
// CHECK:         tsc.attention {{.*}} : (tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>) -> tensor<2x6x4x8xf32>
func.func @keeps_repeat_under_per_head_factor(%q: tensor<2x6x4x8xf32>, %k5: tensor<2x6x2x1x8xf32>, %v5: tensor<2x6x2x1x8xf32>, %w: tensor<1x1x4x8xf32>) -> tensor<2x6x4x8xf32> {
  %ke = tsc.expand %k5 : tensor<2x6x2x1x8xf32> -> tensor<2x6x2x2x8xf32>
  %k = tsc.reshape %ke : tensor<2x6x2x2x8xf32> -> tensor<2x6x4x8xf32>
  %kw = tsc.mul %k, %w : (tensor<2x6x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<2x6x4x8xf32>
  %ve = tsc.expand %v5 : tensor<2x6x2x1x8xf32> -> tensor<2x6x2x2x8xf32>
  %v = tsc.reshape %ve : tensor<2x6x2x2x8xf32> -> tensor<2x6x4x8xf32>
  %o = tsc.attention %q, %kw, %v bshd : (tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>) -> tensor<2x6x4x8xf32>
  return %o : tensor<2x6x4x8xf32>
}

// -----

// A slice that takes some of the heads ([0, 2) of 4) reads across groups:
// nothing changes.
// CHECK-LABEL: func.func @keeps_repeat_under_head_slice
// CHECK-COUNT-2: tsc.expand
// CHECK:         tsc.attention {{.*}} : (tensor<2x6x2x8xf32>, tensor<2x6x2x8xf32>, tensor<2x6x2x8xf32>) -> tensor<2x6x2x8xf32>
func.func @keeps_repeat_under_head_slice(%q: tensor<2x6x2x8xf32>, %k5: tensor<2x6x2x1x8xf32>, %v5: tensor<2x6x2x1x8xf32>) -> tensor<2x6x2x8xf32> {
  %ke = tsc.expand %k5 : tensor<2x6x2x1x8xf32> -> tensor<2x6x2x2x8xf32>
  %k = tsc.reshape %ke : tensor<2x6x2x2x8xf32> -> tensor<2x6x4x8xf32>
  %ks = tsc.slice %k [0, 0, 0, 0] [2, 6, 2, 8] [1, 1, 1, 1] : tensor<2x6x4x8xf32> to tensor<2x6x2x8xf32>
  %ve = tsc.expand %v5 : tensor<2x6x2x1x8xf32> -> tensor<2x6x2x2x8xf32>
  %v = tsc.reshape %ve : tensor<2x6x2x2x8xf32> -> tensor<2x6x4x8xf32>
  %vs = tsc.slice %v [0, 0, 0, 0] [2, 6, 2, 8] [1, 1, 1, 1] : tensor<2x6x4x8xf32> to tensor<2x6x2x8xf32>
  %o = tsc.attention %q, %ks, %vs bshd : (tensor<2x6x2x8xf32>, tensor<2x6x2x8xf32>, tensor<2x6x2x8xf32>) -> tensor<2x6x2x8xf32>
  return %o : tensor<2x6x2x8xf32>
}

// -----

// scaled_dot_product_attention as TorchScript records it for Llama: Q, K
// and V head-transposed to [B, H, S, D], K and V repeated by repeat_kv
// (unsqueeze, expand, reshape). The attention reads the Hkv = 2 heads
// unrepeated, then absorbs the head transposes (bshd).
// CHECK-LABEL: func.func @unrepeats_sdpa_operands
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<?x?x4x8xf32>, %[[K:[^:]+]]: tensor<?x?x2x8xf32>, %[[V:[^:]+]]: tensor<?x?x2x8xf32>)
// CHECK-NOT:     tsc.expand
// CHECK-NOT:     tsc.transpose
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] bshd : (tensor<?x?x4x8xf32>, tensor<?x?x2x8xf32>, tensor<?x?x2x8xf32>) -> tensor<?x?x4x8xf32>
// CHECK:         return %[[O]]
func.func @unrepeats_sdpa_operands(%q: tensor<?x?x4x8xf32>, %k: tensor<?x?x2x8xf32>, %v: tensor<?x?x2x8xf32>) -> tensor<?x?x4x8xf32> {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %q[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 4, 8)> : tensor<?x?x4x8xf32>
  tsc.bind_shape %k[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 2, 8)> : tensor<?x?x2x8xf32>
  tsc.bind_shape %v[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 2, 8)> : tensor<?x?x2x8xf32>
  %qt = tsc.transpose %q perm = [0, 2, 1, 3] : (tensor<?x?x4x8xf32>) -> tensor<?x4x?x8xf32>
  %kt = tsc.transpose %k perm = [0, 2, 1, 3] : (tensor<?x?x2x8xf32>) -> tensor<?x2x?x8xf32>
  %vt = tsc.transpose %v perm = [0, 2, 1, 3] : (tensor<?x?x2x8xf32>) -> tensor<?x2x?x8xf32>
  %ku = tsc.unsqueeze %kt dims = [2] : (tensor<?x2x?x8xf32>) -> tensor<?x2x1x?x8xf32>
  %vu = tsc.unsqueeze %vt dims = [2] : (tensor<?x2x?x8xf32>) -> tensor<?x2x1x?x8xf32>
  %ke = tsc.expand %ku[%b, %s] : tensor<?x2x1x?x8xf32> -> tensor<?x2x2x?x8xf32>
  %ve = tsc.expand %vu[%b, %s] : tensor<?x2x1x?x8xf32> -> tensor<?x2x2x?x8xf32>
  %kr = tsc.reshape %ke[%b, %s] : tensor<?x2x2x?x8xf32> -> tensor<?x4x?x8xf32>
  %vr = tsc.reshape %ve[%b, %s] : tensor<?x2x2x?x8xf32> -> tensor<?x4x?x8xf32>
  %o = tsc.attention %qt, %kr, %vr : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  %ot = tsc.transpose %o perm = [0, 2, 1, 3] : (tensor<?x4x?x8xf32>) -> tensor<?x?x4x8xf32>
  return %ot : tensor<?x?x4x8xf32>
}

// -----

// V repeated but K not: nothing to unrepeat (both must drop it).
// CHECK-LABEL: func.func @keeps_sdpa_with_one_repeated_operand
// CHECK:         tsc.expand
// CHECK:         tsc.attention %{{.+}}, %{{.+}}, %{{.+}} : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>)
func.func @keeps_sdpa_with_one_repeated_operand(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x?x8xf32>, %v: tensor<?x2x?x8xf32>) -> tensor<?x4x?x8xf32> {
  %b = tsc.symbol "batch" [1, 4]
  %s = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %q[%b, %s], affine_map<()[s0, s1] -> (s0, 4, s1, 8)> : tensor<?x4x?x8xf32>
  tsc.bind_shape %k[%b, %s], affine_map<()[s0, s1] -> (s0, 4, s1, 8)> : tensor<?x4x?x8xf32>
  tsc.bind_shape %v[%b, %s], affine_map<()[s0, s1] -> (s0, 2, s1, 8)> : tensor<?x2x?x8xf32>
  %vu = tsc.unsqueeze %v dims = [2] : (tensor<?x2x?x8xf32>) -> tensor<?x2x1x?x8xf32>
  %ve = tsc.expand %vu[%b, %s] : tensor<?x2x1x?x8xf32> -> tensor<?x2x2x?x8xf32>
  %vr = tsc.reshape %ve[%b, %s] : tensor<?x2x2x?x8xf32> -> tensor<?x4x?x8xf32>
  %o = tsc.attention %q, %k, %vr : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}
