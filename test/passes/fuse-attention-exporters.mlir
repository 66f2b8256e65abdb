// RUN: tsc-opt %s --split-input-file --tsc-fuse-attention | FileCheck %s

// Attention as PyTorch's exporters write scaled_dot_product_attention for
// Hugging Face models (test/models/run_corpus.py): the NaN guard on the
// probabilities, and grouped-query heads repeated inside the dynamo
// exporter's flattened Kᵀ.

// TorchScript exporter: an additive mask of 0 and -inf, the probabilities
// guarded by where(is_nan(p), 0, p). A fully masked row is 0 both ways.
// CHECK-LABEL: func.func @fuses_nan_guarded_softmax
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x4x?x8xf32>, %[[K:.+]]: tensor<?x4x?x8xf32>, %[[V:.+]]: tensor<?x4x?x8xf32>, %[[M:.+]]: tensor<?x1x?x?xf32>)
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale = 0.353553{{[0-9]+}}
// CHECK-NOT:     tsc.softmax
// CHECK-NOT:     tsc.is_nan
// CHECK:         return %[[O]]
func.func @fuses_nan_guarded_softmax(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x?x8xf32>, %v: tensor<?x4x?x8xf32>, %mask: tensor<?x1x?x?xf32>) -> tensor<?x4x?x8xf32> {
  %root = tsc.constant dense<0.594603539> : tensor<f32>
  %zero = tsc.constant dense<0.0> : tensor<1xf32>
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<?x4x?x8xf32>) -> tensor<?x4x8x?xf32>
  %qs = tsc.mul %q, %root : (tensor<?x4x?x8xf32>, tensor<f32>) -> tensor<?x4x?x8xf32>
  %kts = tsc.mul %kt, %root : (tensor<?x4x8x?xf32>, tensor<f32>) -> tensor<?x4x8x?xf32>
  %s = tsc.matmul %qs, %kts : (tensor<?x4x?x8xf32>, tensor<?x4x8x?xf32>) -> tensor<?x4x?x?xf32>
  %m = tsc.add %s, %mask : (tensor<?x4x?x?xf32>, tensor<?x1x?x?xf32>) -> tensor<?x4x?x?xf32>
  %p = tsc.softmax %m axis = 3 : tensor<?x4x?x?xf32>
  %nan = tsc.is_nan %p : (tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xi1>
  %g = tsc.where %nan, %zero, %p : (tensor<?x4x?x?xi1>, tensor<1xf32>, tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  %o = tsc.matmul %g, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}

// -----

// A guard that replaces NaN by anything but 0 is not what tsc.attention
// gives a fully masked row.
// CHECK-LABEL: func.func @leaves_guard_with_nonzero_fill
// CHECK-NOT:     tsc.attention
// CHECK:         tsc.softmax
// CHECK:         tsc.is_nan
func.func @leaves_guard_with_nonzero_fill(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32> {
  %fill = tsc.constant dense<0.5> : tensor<f32>
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %s = tsc.matmul %q, %kt : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %s axis = 3 : tensor<2x4x6x6xf32>
  %nan = tsc.is_nan %p : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xi1>
  %g = tsc.where %nan, %fill, %p : (tensor<2x4x6x6xi1>, tensor<f32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %o = tsc.matmul %g, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// The guard tests the probabilities it replaces, and nothing else reads
// them: a NaN test of another tensor, or probabilities also returned, stay.
// CHECK-LABEL: func.func @leaves_guard_of_other_values
// CHECK-NOT:     tsc.attention
// CHECK:         return
func.func @leaves_guard_of_other_values(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>, %other: tensor<2x4x6x6xf32>) -> (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x6xf32>) {
  %zero = tsc.constant dense<0.0> : tensor<f32>
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %s = tsc.matmul %q, %kt : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %s axis = 3 : tensor<2x4x6x6xf32>
  %nan = tsc.is_nan %other : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xi1>
  %g = tsc.where %nan, %zero, %p : (tensor<2x4x6x6xi1>, tensor<f32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %o = tsc.matmul %g, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  %kt2 = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %s2 = tsc.matmul %q, %kt2 : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %p2 = tsc.softmax %s2 axis = 3 : tensor<2x4x6x6xf32>
  %nan2 = tsc.is_nan %p2 : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xi1>
  %g2 = tsc.where %nan2, %zero, %p2 : (tensor<2x4x6x6xi1>, tensor<f32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %o2 = tsc.matmul %g2, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o, %o2, %p2 : tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x6xf32>
}

// -----

// Dynamo exporter with grouped-query attention: repeat_kv's reshape folded
// into the flattening of K, so Kᵀ reads [B, Hkv, n, S, D] as [B*H, S, D].
// K and V are both taken unrepeated.
// CHECK-LABEL: func.func @fuses_dynamo_grouped_query_flattened_key
// CHECK-SAME:    (%[[Q:.+]]: tensor<2x4x6x8xf32>, %[[K:.+]]: tensor<2x2x6x8xf32>, %[[V:.+]]: tensor<2x2x6x8xf32>, %[[M:.+]]: tensor<2x1x6x6xf32>)
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale = 0.353553{{[0-9]+}} : (tensor<2x4x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x1x6x6xf32>) -> tensor<2x4x6x8xf32>
// CHECK-NOT:     tsc.expand
// CHECK:         return %[[O]]
func.func @fuses_dynamo_grouped_query_flattened_key(%q: tensor<2x4x6x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x8xf32>, %mask: tensor<2x1x6x6xf32>) -> tensor<2x4x6x8xf32> {
  %root = tsc.constant dense<0.594603539> : tensor<f32>
  %k1 = tsc.unsqueeze %k dims = [2] : (tensor<2x2x6x8xf32>) -> tensor<2x2x1x6x8xf32>
  %k2 = tsc.expand %k1 : tensor<2x2x1x6x8xf32> -> tensor<2x2x2x6x8xf32>
  %k3 = tsc.reshape %k2 : tensor<2x2x2x6x8xf32> -> tensor<8x6x8xf32>
  %kt3 = tsc.transpose %k3 perm = [0, 2, 1] : (tensor<8x6x8xf32>) -> tensor<8x8x6xf32>
  %kt = tsc.reshape %kt3 : tensor<8x8x6xf32> -> tensor<2x4x8x6xf32>
  %v1 = tsc.unsqueeze %v dims = [2] : (tensor<2x2x6x8xf32>) -> tensor<2x2x1x6x8xf32>
  %v2 = tsc.expand %v1 : tensor<2x2x1x6x8xf32> -> tensor<2x2x2x6x8xf32>
  %vr = tsc.reshape %v2 : tensor<2x2x2x6x8xf32> -> tensor<2x4x6x8xf32>
  %qs = tsc.mul %q, %root : (tensor<2x4x6x8xf32>, tensor<f32>) -> tensor<2x4x6x8xf32>
  %kts = tsc.mul %kt, %root : (tensor<2x4x8x6xf32>, tensor<f32>) -> tensor<2x4x8x6xf32>
  %s = tsc.matmul %qs, %kts : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %m = tsc.add %s, %mask : (tensor<2x4x6x6xf32>, tensor<2x1x6x6xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %m axis = 3 : tensor<2x4x6x6xf32>
  %o = tsc.matmul %p, %vr : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// A repeated key inside the flattening, with V holding all its heads (not
// a repetition): the flattened transpose is lifted over the heads, so the
// attention reads the repeated key, reshaped back to [B, H, S, D].
// CHECK-LABEL: func.func @fuses_flattened_repeat_with_full_value
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<2x4x6x8xf32>, %[[K:[^:]+]]: tensor<2x2x6x8xf32>, %[[V:[^:]+]]: tensor<2x4x6x8xf32>)
// CHECK:         %[[E:.+]] = tsc.expand
// CHECK:         %[[KR:.+]] = tsc.reshape %[[E]] : tensor<2x2x2x6x8xf32> -> tensor<2x4x6x8xf32>
// CHECK:         tsc.attention %[[Q]], %[[KR]], %[[V]] scale = 1.000000e+00
// CHECK-NOT:     tsc.softmax
func.func @fuses_flattened_repeat_with_full_value(%q: tensor<2x4x6x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32> {
  %k1 = tsc.unsqueeze %k dims = [2] : (tensor<2x2x6x8xf32>) -> tensor<2x2x1x6x8xf32>
  %k2 = tsc.expand %k1 : tensor<2x2x1x6x8xf32> -> tensor<2x2x2x6x8xf32>
  %k3 = tsc.reshape %k2 : tensor<2x2x2x6x8xf32> -> tensor<8x6x8xf32>
  %kt3 = tsc.transpose %k3 perm = [0, 2, 1] : (tensor<8x6x8xf32>) -> tensor<8x8x6xf32>
  %kt = tsc.reshape %kt3 : tensor<8x8x6xf32> -> tensor<2x4x8x6xf32>
  %s = tsc.matmul %q, %kt : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %s axis = 3 : tensor<2x4x6x6xf32>
  %o = tsc.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// MPNet: a relative position bias and then the padding mask added to the
// scores; the two become one additive mask.
// CHECK-LABEL: func.func @fuses_bias_and_mask
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x4x?x8xf32>, %[[K:.+]]: tensor<?x4x?x8xf32>, %[[V:.+]]: tensor<?x4x?x8xf32>, %[[BIAS:.+]]: tensor<?x4x?x?xf32>, %[[M:.+]]: tensor<?x1x1x?xf32>)
// CHECK:         %[[MASK:.+]] = tsc.add %[[M]], %[[BIAS]] : (tensor<?x1x1x?xf32>, tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[MASK]] scale = 0.35355339664408242
// CHECK-NOT:     tsc.softmax
// CHECK:         return %[[O]]
func.func @fuses_bias_and_mask(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x?x8xf32>, %v: tensor<?x4x?x8xf32>, %bias: tensor<?x4x?x?xf32>, %mask: tensor<?x1x1x?xf32>) -> tensor<?x4x?x8xf32> {
  %sqrt_d = tsc.constant dense<2.82842708> : tensor<f32>
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<?x4x?x8xf32>) -> tensor<?x4x8x?xf32>
  %s = tsc.matmul %q, %kt : (tensor<?x4x?x8xf32>, tensor<?x4x8x?xf32>) -> tensor<?x4x?x?xf32>
  %d = tsc.div %s, %sqrt_d : (tensor<?x4x?x?xf32>, tensor<f32>) -> tensor<?x4x?x?xf32>
  %b = tsc.add %d, %bias : (tensor<?x4x?x?xf32>, tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  %m = tsc.add %b, %mask : (tensor<?x4x?x?xf32>, tensor<?x1x1x?xf32>) -> tensor<?x4x?x?xf32>
  %p = tsc.softmax %m axis = 3 : tensor<?x4x?x?xf32>
  %o = tsc.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}

// -----

// A third additive term is more than the pattern reads: nothing fuses.
// CHECK-LABEL: func.func @leaves_three_additive_terms
// CHECK-NOT:     tsc.attention
// CHECK:         tsc.softmax
func.func @leaves_three_additive_terms(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>, %a: tensor<2x4x6x6xf32>, %b: tensor<2x4x6x6xf32>, %c: tensor<2x4x6x6xf32>) -> tensor<2x4x6x8xf32> {
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %s = tsc.matmul %q, %kt : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %s1 = tsc.add %s, %a : (tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %s2 = tsc.add %s1, %b : (tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %s3 = tsc.add %s2, %c : (tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %s3 axis = 3 : tensor<2x4x6x6xf32>
  %o = tsc.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// GPT-NeoX (dynamo): one fused QKV projection transposed to heads, then
// split into Q, K and V; the transpose moves below the split and the
// attention absorbs the parts' transposes.
// CHECK-LABEL: func.func @absorbs_transpose_before_split
// CHECK-SAME:    (%[[X:.+]]: tensor<2x6x4x24xf32>)
// CHECK:         %[[P:.+]]:3 = tsc.split %[[X]] axis = 3 sizes = [8, 8, 8] : tensor<2x6x4x24xf32> -> tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>
// CHECK:         %[[O:.+]] = tsc.attention %[[P]]#0, %[[P]]#1, %[[P]]#2 bshd
// CHECK-NOT:     tsc.transpose
// CHECK:         return %[[O]]
func.func @absorbs_transpose_before_split(%x: tensor<2x6x4x24xf32>) -> tensor<2x6x4x8xf32> {
  %t = tsc.transpose %x perm = [0, 2, 1, 3] : (tensor<2x6x4x24xf32>) -> tensor<2x4x6x24xf32>
  %qkv:3 = tsc.split %t axis = 3 sizes = [8, 8, 8] : tensor<2x4x6x24xf32> -> tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>
  %o = tsc.attention %qkv#0, %qkv#1, %qkv#2 : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  %r = tsc.transpose %o perm = [0, 2, 1, 3] : (tensor<2x4x6x8xf32>) -> tensor<2x6x4x8xf32>
  return %r : tensor<2x6x4x8xf32>
}

// -----

// A transpose that something besides the split reads stays where it is.
// CHECK-LABEL: func.func @keeps_shared_transpose_before_split
// CHECK:         %[[T:.+]] = tsc.transpose
// CHECK:         tsc.split %[[T]]
func.func @keeps_shared_transpose_before_split(%x: tensor<2x6x4x24xf32>) -> (tensor<2x4x6x8xf32>, tensor<2x4x6x24xf32>) {
  %t = tsc.transpose %x perm = [0, 2, 1, 3] : (tensor<2x6x4x24xf32>) -> tensor<2x4x6x24xf32>
  %qkv:3 = tsc.split %t axis = 3 sizes = [8, 8, 8] : tensor<2x4x6x24xf32> -> tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>
  %o = tsc.attention %qkv#0, %qkv#1, %qkv#2 : (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o, %t : tensor<2x4x6x8xf32>, tensor<2x4x6x24xf32>
}

// -----

// Falcon (TorchScript): Q and Kᵀ each scaled by sqrt(rsqrt(d)), computed
// from the constant d; the scales multiply to 1/sqrt(d) = 1/8.
// CHECK-LABEL: func.func @fuses_scale_computed_from_constant
// CHECK-SAME:    (%[[Q:.+]]: tensor<2x4x6x8xf32>, %[[K:.+]]: tensor<2x4x6x8xf32>, %[[V:.+]]: tensor<2x4x6x8xf32>)
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] scale = 0.12500000000000{{[0-9]*}}
// CHECK:         return %[[O]]
func.func @fuses_scale_computed_from_constant(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32> {
  %d = tsc.constant dense<64.0> : tensor<1xf32>
  %r = tsc.rsqrt %d : tensor<1xf32>
  %root = tsc.sqrt %r : tensor<1xf32>
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %qs = tsc.mul %q, %root : (tensor<2x4x6x8xf32>, tensor<1xf32>) -> tensor<2x4x6x8xf32>
  %kts = tsc.mul %kt, %root : (tensor<2x4x8x6xf32>, tensor<1xf32>) -> tensor<2x4x8x6xf32>
  %s = tsc.matmul %qs, %kts : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %s axis = 3 : tensor<2x4x6x6xf32>
  %o = tsc.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// A scale computed from a run-time value is not a constant: the scores'
// scaling stays outside and nothing fuses.
// CHECK-LABEL: func.func @leaves_runtime_scale
// CHECK-NOT:     tsc.attention
// CHECK:         tsc.softmax
func.func @leaves_runtime_scale(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>, %d: tensor<1xf32>) -> tensor<2x4x6x8xf32> {
  %root = tsc.rsqrt %d : tensor<1xf32>
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %s = tsc.matmul %q, %kt : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %ss = tsc.mul %s, %root : (tensor<2x4x6x6xf32>, tensor<1xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %ss axis = 3 : tensor<2x4x6x6xf32>
  %o = tsc.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// DeBERTa-v2: the key divided by a constant before the product, a bias added
// to Q·Kᵀ, and the mask written where(not(keep), finfo.min, scores).
// CHECK-LABEL: func.func @fuses_divided_key_and_negated_mask
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<2x4x6x8xf32>, %[[K:[^:]+]]: tensor<2x4x6x8xf32>, %[[V:[^:]+]]: tensor<2x4x6x8xf32>, %[[BIAS:[^:]+]]: tensor<2x4x6x6xf32>, %[[KEEP:[^:]+]]: tensor<2x1x6x6xi1>)
// CHECK:         %[[MASK:.+]] = tsc.where %[[KEEP]], %[[BIAS]], %{{.+}}
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[MASK]] scale = 2.500000e-01
// CHECK-NOT:     tsc.softmax
// CHECK:         return %[[O]]
func.func @fuses_divided_key_and_negated_mask(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>, %bias: tensor<2x4x6x6xf32>, %keep: tensor<2x1x6x6xi1>) -> tensor<2x4x6x8xf32> {
  %four = tsc.constant dense<4.0> : tensor<f32>
  %min = tsc.constant dense<-3.40282347E+38> : tensor<f32>
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %ktd = tsc.div %kt, %four : (tensor<2x4x8x6xf32>, tensor<f32>) -> tensor<2x4x8x6xf32>
  %s = tsc.matmul %q, %ktd : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %b = tsc.add %s, %bias : (tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %masked = tsc.not %keep : tensor<2x1x6x6xi1>
  %m = tsc.where %masked, %min, %b : (tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %m axis = 3 : tensor<2x4x6x6xf32>
  %o = tsc.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// where(not(c), 0, scores) fills with 0, not -inf: no mask, nothing fuses.
// CHECK-LABEL: func.func @leaves_negated_where_with_zero_fill
// CHECK-NOT:     tsc.attention
// CHECK:         tsc.softmax
func.func @leaves_negated_where_with_zero_fill(%q: tensor<2x4x6x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>, %c: tensor<2x1x6x6xi1>) -> tensor<2x4x6x8xf32> {
  %zero = tsc.constant dense<0.0> : tensor<f32>
  %kt = tsc.transpose %k perm = [0, 1, 3, 2] : (tensor<2x4x6x8xf32>) -> tensor<2x4x8x6xf32>
  %s = tsc.matmul %q, %kt : (tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x6x6xf32>
  %n = tsc.not %c : tensor<2x1x6x6xi1>
  %m = tsc.where %n, %zero, %s : (tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %p = tsc.softmax %m axis = 3 : tensor<2x4x6x6xf32>
  %o = tsc.matmul %p, %v : (tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %o : tensor<2x4x6x8xf32>
}

// -----

// A slice of a head transpose with a dynamic size (an index operand) sinks
// with the transpose; only its tensor moves, its offsets, sizes and strides
// trade dims 1 and 2 (the ONNX fuzzer's finding: the size operand was
// treated as a tensor to transpose, a crash).
// CHECK-LABEL: func.func @slice_dynamic_size
// CHECK-SAME:    (%[[X:.+]]: tensor<2x?x4x8xf32>, %[[N:.+]]: index)
// CHECK:         %[[S:.+]] = tsc.slice %[[X]] [0, 2, 0, 0] [2, %[[N]], 4, 8] [1, 1, 1, 1] : tensor<2x?x4x8xf32> to tensor<2x?x4x8xf32>
// CHECK:         %[[T:.+]] = tsc.transpose %[[S]] perm = [0, 2, 1, 3]
// CHECK:         return %[[T]]
func.func @slice_dynamic_size(%x: tensor<2x?x4x8xf32>, %n: index) -> tensor<2x4x?x8xf32> {
  %t = tsc.transpose %x perm = [0, 2, 1, 3] : (tensor<2x?x4x8xf32>) -> tensor<2x4x?x8xf32>
  %s = tsc.slice %t [0, 0, 2, 0] [2, 4, %n, 8] [1, 1, 1, 1] : tensor<2x4x?x8xf32> to tensor<2x4x?x8xf32>
  return %s : tensor<2x4x?x8xf32>
}

// -----

// A mask that changes no score goes: the dynamo exporter writes ViT's
// absent mask as where(expand(true), 0, finfo.min); an all-true boolean
// mask likewise. A mask of finfo.min everywhere stays.
// CHECK-LABEL: func.func @drops_neutral_masks
// CHECK:         tsc.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} scale
// CHECK:         tsc.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} :
// CHECK:         tsc.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask
func.func @drops_neutral_masks(%q: tensor<?x4x17x8xf32>, %k: tensor<?x4x17x8xf32>, %v: tensor<?x4x17x8xf32>, %n: index) -> (tensor<?x4x17x8xf32>, tensor<?x4x17x8xf32>, tensor<?x4x17x8xf32>) {
  %true = tsc.constant dense<true> : tensor<1x1x17x1xi1>
  %zero = tsc.constant dense<0.000000e+00> : tensor<f32>
  %min = tsc.constant dense<-3.40282347E+38> : tensor<f32>
  %keep = tsc.expand %true[%n] : tensor<1x1x17x1xi1> -> tensor<?x1x17x17xi1>
  %add = tsc.where %keep, %zero, %min : (tensor<?x1x17x17xi1>, tensor<f32>, tensor<f32>) -> tensor<?x1x17x17xf32>
  %a = tsc.attention %q, %k, %v mask %add scale = 0.5 : (tensor<?x4x17x8xf32>, tensor<?x4x17x8xf32>, tensor<?x4x17x8xf32>, tensor<?x1x17x17xf32>) -> tensor<?x4x17x8xf32>
  %b = tsc.attention %q, %k, %v mask %keep : (tensor<?x4x17x8xf32>, tensor<?x4x17x8xf32>, tensor<?x4x17x8xf32>, tensor<?x1x17x17xi1>) -> tensor<?x4x17x8xf32>
  %none = tsc.where %keep, %min, %zero : (tensor<?x1x17x17xi1>, tensor<f32>, tensor<f32>) -> tensor<?x1x17x17xf32>
  %c = tsc.attention %q, %k, %v mask %none : (tensor<?x4x17x8xf32>, tensor<?x4x17x8xf32>, tensor<?x4x17x8xf32>, tensor<?x1x17x17xf32>) -> tensor<?x4x17x8xf32>
  return %a, %b, %c : tensor<?x4x17x8xf32>, tensor<?x4x17x8xf32>, tensor<?x4x17x8xf32>
}
