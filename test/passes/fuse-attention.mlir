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

// -----

// BERT's head split and merge: Q, K and V transposed [0, 2, 1, 3] from the
// [B, S, H, D] projections and the result transposed back. The attention
// takes the projections in the bshd layout; no transpose is left.
// CHECK-LABEL: func.func @absorbs_head_transposes
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x?x4x8xf32>, %[[K:.+]]: tensor<?x?x4x8xf32>, %[[V:.+]]: tensor<?x?x4x8xf32>, %[[M:.+]]: tensor<?x1x1x?xf32>)
// CHECK-NOT:     tsc.transpose
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] bshd scale = 0.35355339664408242 : (tensor<?x?x4x8xf32>, tensor<?x?x4x8xf32>, tensor<?x?x4x8xf32>, tensor<?x1x1x?xf32>) -> tensor<?x?x4x8xf32>
// CHECK-NOT:     tsc.transpose
// CHECK:         return %[[O]]
func.func @absorbs_head_transposes(%qs: tensor<?x?x4x8xf32>, %ks: tensor<?x?x4x8xf32>, %vs: tensor<?x?x4x8xf32>, %mask: tensor<?x1x1x?xf32>) -> tensor<?x?x4x8xf32> {
  %sqrt_d = tsc.constant dense<2.82842708> : tensor<f32>
  %q = tsc.transpose %qs perm = [0, 2, 1, 3] : (tensor<?x?x4x8xf32>) -> tensor<?x4x?x8xf32>
  %kt = tsc.transpose %ks perm = [0, 2, 3, 1] : (tensor<?x?x4x8xf32>) -> tensor<?x4x8x?xf32>
  %v = tsc.transpose %vs perm = [0, 2, 1, 3] : (tensor<?x?x4x8xf32>) -> tensor<?x4x?x8xf32>
  %s = tsc.matmul %q, %kt : (tensor<?x4x?x8xf32>, tensor<?x4x8x?xf32>) -> tensor<?x4x?x?xf32>
  %d = tsc.div %s, %sqrt_d : (tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
  %m = tsc.add %d, %mask : (tensor<?x4x?x?xf32>, tensor<?x1x1x?xf32>) -> tensor<?x4x?x?xf32>
  %p = tsc.softmax %m axis = 3 : tensor<?x4x?x?xf32>
  %o = tsc.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  %r = tsc.transpose %o perm = [0, 2, 1, 3] : (tensor<?x4x?x8xf32>) -> tensor<?x?x4x8xf32>
  return %r : tensor<?x?x4x8xf32>
}

// -----

// Llama's rotary embedding between the head split and the attention:
// x·cos + concat(-x[..., 4:], x[..., :4])·sin with cos and sin [1, 1, S, D].
// The transposes sink through the muls, slices, neg, concat and add (cos and
// sin are reshaped to [1, S, 1, D], which moves no data) and are absorbed;
// the result keeps a transpose back for its user that is not a transpose.
// CHECK-LABEL: func.func @sinks_transposes_through_rotary
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x?x4x8xf32>, %[[K:.+]]: tensor<?x?x2x8xf32>, %[[V:.+]]: tensor<?x?x2x8xf32>, %[[COS:.+]]: tensor<1x1x?x8xf32>, %[[SIN:.+]]: tensor<1x1x?x8xf32>)
// CHECK-DAG:     %[[COS2:.+]] = tsc.reshape %[[COS]][%{{.+}}] : tensor<1x1x?x8xf32> -> tensor<1x?x1x8xf32>
// CHECK-DAG:     %[[SIN2:.+]] = tsc.reshape %[[SIN]][%{{.+}}] : tensor<1x1x?x8xf32> -> tensor<1x?x1x8xf32>
// CHECK-DAG:     %[[QC:.+]] = tsc.mul %[[Q]], %[[COS2]] : (tensor<?x?x4x8xf32>, tensor<1x?x1x8xf32>) -> tensor<?x?x4x8xf32>
// CHECK-DAG:     %[[HI:.+]] = tsc.slice %[[Q]] [0, 0, 0, 4] [%{{.+}}, %{{.+}}, 4, 4] [1, 1, 1, 1] : tensor<?x?x4x8xf32> to tensor<?x?x4x4xf32>
// CHECK-DAG:     %[[NEG:.+]] = tsc.neg %[[HI]] : tensor<?x?x4x4xf32>
// CHECK-DAG:     %[[LO:.+]] = tsc.slice %[[Q]] [0, 0, 0, 0] [%{{.+}}, %{{.+}}, 4, 4] [1, 1, 1, 1] : tensor<?x?x4x8xf32> to tensor<?x?x4x4xf32>
// CHECK-DAG:     %[[ROT:.+]] = tsc.concat %[[NEG]], %[[LO]] axis = 3 : (tensor<?x?x4x4xf32>, tensor<?x?x4x4xf32>) -> tensor<?x?x4x8xf32>
// CHECK-DAG:     %[[QS:.+]] = tsc.mul %[[ROT]], %[[SIN2]]
// CHECK-DAG:     %[[QR:.+]] = tsc.add %[[QC]], %[[QS]] : (tensor<?x?x4x8xf32>, tensor<?x?x4x8xf32>) -> tensor<?x?x4x8xf32>
// CHECK-DAG:     %[[KR:.+]] = tsc.add %{{.+}}, %{{.+}} : (tensor<?x?x2x8xf32>, tensor<?x?x2x8xf32>) -> tensor<?x?x2x8xf32>
// CHECK:         %[[O:.+]] = tsc.attention %[[QR]], %[[KR]], %[[V]] causal bshd scale = 0.35355339664408242
// CHECK:         %[[BACK:.+]] = tsc.transpose %[[O]] perm = [0, 2, 1, 3] : (tensor<?x?x4x8xf32>) -> tensor<?x4x?x8xf32>
// CHECK:         return %[[BACK]]
func.func @sinks_transposes_through_rotary(%qs: tensor<?x?x4x8xf32>, %ks: tensor<?x?x2x8xf32>, %vs: tensor<?x?x2x8xf32>,
                                           %cos: tensor<1x1x?x8xf32>, %sin: tensor<1x1x?x8xf32>) -> tensor<?x4x?x8xf32> {
  %b = tsc.dim %qs, 0 : tensor<?x?x4x8xf32>
  %s = tsc.dim %qs, 1 : tensor<?x?x4x8xf32>
  %q = tsc.transpose %qs perm = [0, 2, 1, 3] : (tensor<?x?x4x8xf32>) -> tensor<?x4x?x8xf32>
  %k = tsc.transpose %ks perm = [0, 2, 1, 3] : (tensor<?x?x2x8xf32>) -> tensor<?x2x?x8xf32>
  %v = tsc.transpose %vs perm = [0, 2, 1, 3] : (tensor<?x?x2x8xf32>) -> tensor<?x2x?x8xf32>
  %qc = tsc.mul %q, %cos : (tensor<?x4x?x8xf32>, tensor<1x1x?x8xf32>) -> tensor<?x4x?x8xf32>
  %qhi = tsc.slice %q [0, 0, 0, 4] [%b, 4, %s, 4] [1, 1, 1, 1] : tensor<?x4x?x8xf32> to tensor<?x4x?x4xf32>
  %qneg = tsc.neg %qhi : tensor<?x4x?x4xf32>
  %qlo = tsc.slice %q [0, 0, 0, 0] [%b, 4, %s, 4] [1, 1, 1, 1] : tensor<?x4x?x8xf32> to tensor<?x4x?x4xf32>
  %qrot = tsc.concat %qneg, %qlo axis = 3 : (tensor<?x4x?x4xf32>, tensor<?x4x?x4xf32>) -> tensor<?x4x?x8xf32>
  %qsin = tsc.mul %qrot, %sin : (tensor<?x4x?x8xf32>, tensor<1x1x?x8xf32>) -> tensor<?x4x?x8xf32>
  %qr = tsc.add %qc, %qsin : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  %kc = tsc.mul %k, %cos : (tensor<?x2x?x8xf32>, tensor<1x1x?x8xf32>) -> tensor<?x2x?x8xf32>
  %khi = tsc.slice %k [0, 0, 0, 4] [%b, 2, %s, 4] [1, 1, 1, 1] : tensor<?x2x?x8xf32> to tensor<?x2x?x4xf32>
  %kneg = tsc.neg %khi : tensor<?x2x?x4xf32>
  %klo = tsc.slice %k [0, 0, 0, 0] [%b, 2, %s, 4] [1, 1, 1, 1] : tensor<?x2x?x8xf32> to tensor<?x2x?x4xf32>
  %krot = tsc.concat %kneg, %klo axis = 3 : (tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32>) -> tensor<?x2x?x8xf32>
  %ksin = tsc.mul %krot, %sin : (tensor<?x2x?x8xf32>, tensor<1x1x?x8xf32>) -> tensor<?x2x?x8xf32>
  %kr = tsc.add %kc, %ksin : (tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32>
  %o = tsc.attention %qr, %kr, %v causal scale = 0.35355339664408242 : (tensor<?x4x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>) -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}

// -----

// Near miss: only the query is transposed. The layout stays [B, H, S, D].
// CHECK-LABEL: func.func @keeps_layout_when_only_query_is_transposed
// CHECK:         %[[Q:.+]] = tsc.transpose %{{.+}} perm = [0, 2, 1, 3]
// CHECK:         tsc.attention %[[Q]], %{{.+}}, %{{.+}} scale
// CHECK-NOT:     bshd
func.func @keeps_layout_when_only_query_is_transposed(%qs: tensor<2x6x4x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32> {
  %q = tsc.transpose %qs perm = [0, 2, 1, 3] : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %o = tsc.attention %q, %k, %v scale = 0.5 : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// Near miss: transposes by another permutation are not a head split.
// CHECK-LABEL: func.func @keeps_other_permutations
// CHECK-COUNT-3: tsc.transpose %{{.+}} perm = [0, 1, 3, 2]
// CHECK:         tsc.attention
// CHECK-NOT:     bshd
func.func @keeps_other_permutations(%qs: tensor<2x4x8x6xf32>, %ks: tensor<2x4x8x6xf32>, %vs: tensor<2x4x8x6xf32>) -> tensor<2x4x6x8xf32> {
  %q = tsc.transpose %qs perm = [0, 1, 3, 2] : (tensor<2x4x8x6xf32>) -> tensor<2x4x6x8xf32>
  %k = tsc.transpose %ks perm = [0, 1, 3, 2] : (tensor<2x4x8x6xf32>) -> tensor<2x4x6x8xf32>
  %v = tsc.transpose %vs perm = [0, 1, 3, 2] : (tensor<2x4x8x6xf32>) -> tensor<2x4x6x8xf32>
  %o = tsc.attention %q, %k, %v : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// A transposed query that something else also reads: the attention still
// reads the untransposed tensor (the transpose stays for the other user, no
// work is duplicated), but the transpose is not sunk through the mul, since
// the return would keep it alive next to a second, sunk one.
// CHECK-LABEL: func.func @shared_transposes
// CHECK-SAME:    (%[[QS:.+]]: tensor<2x6x4x8xf32>, %[[KS:.+]]: tensor<2x6x4x8xf32>, %[[VS:.+]]: tensor<2x6x4x8xf32>, %[[C:.+]]: tensor<1x1x6x8xf32>)
// CHECK:         %[[Q:.+]] = tsc.transpose %[[QS]] perm = [0, 2, 1, 3]
// CHECK:         %[[QC:.+]] = tsc.mul %[[Q]], %[[C]] : (tensor<2x4x6x8xf32>, tensor<1x1x6x8xf32>)
// CHECK:         %[[O:.+]] = tsc.attention %[[QS]], %[[KS]], %[[VS]] bshd
// CHECK:         return %[[O]], %[[Q]], %[[QC]]
func.func @shared_transposes(%qs: tensor<2x6x4x8xf32>, %ks: tensor<2x6x4x8xf32>, %vs: tensor<2x6x4x8xf32>, %c: tensor<1x1x6x8xf32>)
    -> (tensor<2x6x4x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) {
  %q = tsc.transpose %qs perm = [0, 2, 1, 3] : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %k = tsc.transpose %ks perm = [0, 2, 1, 3] : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %v = tsc.transpose %vs perm = [0, 2, 1, 3] : (tensor<2x6x4x8xf32>) -> tensor<2x4x6x8xf32>
  %qc = tsc.mul %q, %c : (tensor<2x4x6x8xf32>, tensor<1x1x6x8xf32>) -> tensor<2x4x6x8xf32>
  %o = tsc.attention %q, %k, %v : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  %r = tsc.transpose %o perm = [0, 2, 1, 3] : (tensor<2x4x6x8xf32>) -> tensor<2x6x4x8xf32>
  return %r, %q, %qc : tensor<2x6x4x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>
}

// -----

// PyTorch's dynamo exporter: Kᵀ as a 3-D transpose of K flattened to
// [B*H, S, D], and Q and Kᵀ each scaled by sqrt(scale) before the product.
// CHECK-LABEL: func.func @fuses_dynamo_flattened_key_transpose
// CHECK-SAME:    (%[[Q:.+]]: tensor<2x4x6x16xf32>, %[[K:.+]]: tensor<2x4x6x16xf32>, %[[V:.+]]: tensor<2x4x6x16xf32>, %[[M:.+]]: tensor<2x1x6x6xf32>)
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale = 2.500000e-01
// CHECK-NOT:     tsc.softmax
// CHECK:         return %[[O]]
func.func @fuses_dynamo_flattened_key_transpose(%q: tensor<2x4x6x16xf32>, %k: tensor<2x4x6x16xf32>, %v: tensor<2x4x6x16xf32>, %mask: tensor<2x1x6x6xf32>) -> tensor<2x4x6x16xf32> {
  %root = tsc.constant dense<0.5> : tensor<f32>
  %k3 = tsc.reshape %k : tensor<2x4x6x16xf32> -> tensor<8x6x16xf32>
  %kt3 = tsc.transpose %k3 perm = [0, 2, 1] : (tensor<8x6x16xf32>) -> tensor<8x16x6xf32>
  %kt = tsc.reshape %kt3 : tensor<8x16x6xf32> -> tensor<2x4x16x6xf32>
  %qs = tsc.mul %q, %root : (tensor<2x4x6x16xf32>, tensor<f32>) -> tensor<2x4x6x16xf32>
  %kts = tsc.mul %kt, %root : (tensor<2x4x16x6xf32>, tensor<f32>) -> tensor<2x4x16x6xf32>
  %s = tsc.matmul %qs, %kts : (tensor<2x4x6x16xf32>, tensor<2x4x16x6xf32>) -> tensor<2x4x6x6xf32>
  %m = tsc.add %s, %mask : (tensor<2x4x6x6xf32>, tensor<2x1x6x6xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %m axis = 3 : tensor<2x4x6x6xf32>
  %o = tsc.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x16xf32>) -> tensor<2x4x6x16xf32>
  return %o : tensor<2x4x6x16xf32>
}

// -----

// A flattened transpose whose leading dims regroup ([2, 4] -> [8] -> [4, 2])
// is Kᵀ of the regrouped key: the transpose is lifted over the heads, and
// the attention reads the key reshaped to [4, 2, S, D].
// CHECK-LABEL: func.func @fuses_regrouped_flattened_transpose
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<4x2x6x16xf32>, %[[K:[^:]+]]: tensor<2x4x6x16xf32>, %[[V:[^:]+]]: tensor<4x2x6x16xf32>)
// CHECK:         %[[KR:.+]] = tsc.reshape %[[K]] : tensor<2x4x6x16xf32> -> tensor<4x2x6x16xf32>
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[KR]], %[[V]] scale = 1.000000e+00
// CHECK-NOT:     tsc.softmax
// CHECK:         return %[[O]]
func.func @fuses_regrouped_flattened_transpose(%q: tensor<4x2x6x16xf32>, %k: tensor<2x4x6x16xf32>, %v: tensor<4x2x6x16xf32>) -> tensor<4x2x6x16xf32> {
  %k3 = tsc.reshape %k : tensor<2x4x6x16xf32> -> tensor<8x6x16xf32>
  %kt3 = tsc.transpose %k3 perm = [0, 2, 1] : (tensor<8x6x16xf32>) -> tensor<8x16x6xf32>
  %kt = tsc.reshape %kt3 : tensor<8x16x6xf32> -> tensor<4x2x16x6xf32>
  %s = tsc.matmul %q, %kt : (tensor<4x2x6x16xf32>, tensor<4x2x16x6xf32>) -> tensor<4x2x6x6xf32>
  %p = tsc.softmax %s axis = 3 : tensor<4x2x6x6xf32>
  %o = tsc.matmul %p, %v : (tensor<4x2x6x6xf32>, tensor<4x2x6x16xf32>) -> tensor<4x2x6x16xf32>
  return %o : tensor<4x2x6x16xf32>
}
