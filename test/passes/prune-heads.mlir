// RUN: tsc-opt %s --split-input-file --tsc-prune-heads=ratio=0.5 | FileCheck %s

// BERT-style attention, 2 heads of 2: head 1's Q, K, V columns and output
// rows are small, so it goes. Its columns leave the Q/K/V weights and
// biases, its rows the output weight, and the head count of every reshape,
// transpose and product between them drops to 1.
// CHECK:         tsc.prune = [{{.*}}groups = 2 : i64, heads_per_group = 1 : i64, importance = "weights", kind = "heads"{{.*}}removed = array<i64: 1>
// CHECK-LABEL: func.func @bert_attention_loses_weak_head
// CHECK-DAG:     %[[WQ:.+]] = tsc.constant dense<{{.+}}> : tensor<4x2xf32>
// CHECK-DAG:     %[[BQ:.+]] = tsc.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG:     %[[WO:.+]] = tsc.constant dense<{{.+}}> : tensor<2x4xf32>
// CHECK:         %[[Q:.+]] = tsc.matmul %{{.+}}, %[[WQ]] : (tensor<1x3x4xf32>, tensor<4x2xf32>) -> tensor<1x3x2xf32>
// CHECK:         tsc.add %[[Q]], %[[BQ]] : (tensor<1x3x2xf32>, tensor<2xf32>) -> tensor<1x3x2xf32>
// CHECK:         tsc.reshape %{{.+}} : tensor<1x3x2xf32> -> tensor<1x3x1x2xf32>
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<1x1x3x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x1x3x3xf32>
// CHECK:         tsc.add %{{.+}}, %{{.+}} : (tensor<1x1x3x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x1x3x3xf32>
// CHECK:         tsc.softmax %{{.+}} axis = 3 : tensor<1x1x3x3xf32>
// CHECK:         tsc.reshape %{{.+}} : tensor<1x3x1x2xf32> -> tensor<1x3x2xf32>
// CHECK:         tsc.matmul %{{.+}}, %[[WO]] : (tensor<1x3x2xf32>, tensor<2x4xf32>) -> tensor<1x3x4xf32>
func.func @bert_attention_loses_weak_head(%x: tensor<1x3x4xf32>, %mask: tensor<1x1x1x3xf32>) -> tensor<1x3x4xf32> {
  %w = tsc.constant dense<[[1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1]]> : tensor<4x4xf32>
  %wk = tsc.constant dense<[[0.5, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1]]> : tensor<4x4xf32>
  %wv = tsc.constant dense<[[2.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1]]> : tensor<4x4xf32>
  %wo = tsc.constant dense<[[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0.1, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.1]]> : tensor<4x4xf32>
  %bq = tsc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %sqrt_d = tsc.constant dense<1.41421354> : tensor<f32>
  %q0 = tsc.matmul %x, %w : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %q1 = tsc.add %q0, %bq : (tensor<1x3x4xf32>, tensor<4xf32>) -> tensor<1x3x4xf32>
  %q2 = tsc.reshape %q1 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %q = tsc.transpose %q2 perm = [0, 2, 1, 3] : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %k0 = tsc.matmul %x, %wk : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %k1 = tsc.reshape %k0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %kt = tsc.transpose %k1 perm = [0, 2, 3, 1] : (tensor<1x3x2x2xf32>) -> tensor<1x2x2x3xf32>
  %v0 = tsc.matmul %x, %wv : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %v1 = tsc.reshape %v0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %v = tsc.transpose %v1 perm = [0, 2, 1, 3] : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %s = tsc.matmul %q, %kt : (tensor<1x2x3x2xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x3x3xf32>
  %d = tsc.div %s, %sqrt_d : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %m = tsc.add %d, %mask : (tensor<1x2x3x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x2x3x3xf32>
  %p = tsc.softmax %m axis = 3 : tensor<1x2x3x3xf32>
  %c = tsc.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  %ct = tsc.transpose %c perm = [0, 2, 1, 3] : (tensor<1x2x3x2xf32>) -> tensor<1x3x2x2xf32>
  %cr = tsc.reshape %ct : tensor<1x3x2x2xf32> -> tensor<1x3x4xf32>
  %o = tsc.matmul %cr, %wo : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  return %o : tensor<1x3x4xf32>
}

// -----

// Grouped-query attention, 4 query heads over 2 K/V heads: a K/V head goes
// only with both its query heads. Group 0 (K/V head 0, query heads 0 and 1)
// is weak; Q keeps 2 heads, K and V 1, and the GQA repeat
// (unsqueeze, expand, reshape) repeats 1 head into 2.
// CHECK:         tsc.prune = [{{.*}}groups = 2 : i64, heads_per_group = 2 : i64, importance = "weights", kind = "heads"{{.*}}removed = array<i64: 0>
// CHECK-LABEL: func.func @gqa_loses_whole_group
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<1x3x2xf32>, tensor<2x4xf32>) -> tensor<1x3x4xf32>
// CHECK:         tsc.reshape %{{.+}} : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<1x3x2xf32>, tensor<2x2xf32>) -> tensor<1x3x2xf32>
// CHECK:         tsc.reshape %{{.+}} : tensor<1x3x2xf32> -> tensor<1x3x1x2xf32>
// CHECK:         tsc.unsqueeze %{{.+}} dims = [2] : (tensor<1x1x3x2xf32>) -> tensor<1x1x1x3x2xf32>
// CHECK:         tsc.expand %{{.+}} : tensor<1x1x1x3x2xf32> -> tensor<1x1x2x3x2xf32>
// CHECK:         tsc.reshape %{{.+}} : tensor<1x1x2x3x2xf32> -> tensor<1x2x3x2xf32>
// CHECK:         tsc.softmax %{{.+}} axis = 3 : tensor<1x2x3x3xf32>
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<1x3x4xf32>, tensor<4x2xf32>) -> tensor<1x3x2xf32>
func.func @gqa_loses_whole_group(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %wq = tsc.constant dense<[[0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 1.0, 1.0], [0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 1.0, 1.0]]> : tensor<2x8xf32>
  %wk = tsc.constant dense<[[0.1, 0.1, 1.0, 1.0], [0.1, 0.1, 1.0, 1.0]]> : tensor<2x4xf32>
  %wo = tsc.constant dense<1.0> : tensor<8x2xf32>
  %q0 = tsc.matmul %x, %wq : (tensor<1x3x2xf32>, tensor<2x8xf32>) -> tensor<1x3x8xf32>
  %q1 = tsc.reshape %q0 : tensor<1x3x8xf32> -> tensor<1x3x4x2xf32>
  %q = tsc.transpose %q1 perm = [0, 2, 1, 3] : (tensor<1x3x4x2xf32>) -> tensor<1x4x3x2xf32>
  %k0 = tsc.matmul %x, %wk : (tensor<1x3x2xf32>, tensor<2x4xf32>) -> tensor<1x3x4xf32>
  %k1 = tsc.reshape %k0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %k = tsc.transpose %k1 perm = [0, 2, 1, 3] : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %v0 = tsc.matmul %x, %wk : (tensor<1x3x2xf32>, tensor<2x4xf32>) -> tensor<1x3x4xf32>
  %v1 = tsc.reshape %v0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %v = tsc.transpose %v1 perm = [0, 2, 1, 3] : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %k2 = tsc.unsqueeze %k dims = [2] : (tensor<1x2x3x2xf32>) -> tensor<1x2x1x3x2xf32>
  %k3 = tsc.expand %k2 : tensor<1x2x1x3x2xf32> -> tensor<1x2x2x3x2xf32>
  %k4 = tsc.reshape %k3 : tensor<1x2x2x3x2xf32> -> tensor<1x4x3x2xf32>
  %v2 = tsc.unsqueeze %v dims = [2] : (tensor<1x2x3x2xf32>) -> tensor<1x2x1x3x2xf32>
  %v3 = tsc.expand %v2 : tensor<1x2x1x3x2xf32> -> tensor<1x2x2x3x2xf32>
  %v4 = tsc.reshape %v3 : tensor<1x2x2x3x2xf32> -> tensor<1x4x3x2xf32>
  %kt = tsc.transpose %k4 perm = [0, 1, 3, 2] : (tensor<1x4x3x2xf32>) -> tensor<1x4x2x3xf32>
  %s = tsc.matmul %q, %kt : (tensor<1x4x3x2xf32>, tensor<1x4x2x3xf32>) -> tensor<1x4x3x3xf32>
  %p = tsc.softmax %s axis = 3 : tensor<1x4x3x3xf32>
  %c = tsc.matmul %p, %v4 : (tensor<1x4x3x3xf32>, tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  %ct = tsc.transpose %c perm = [0, 2, 1, 3] : (tensor<1x4x3x2xf32>) -> tensor<1x3x4x2xf32>
  %cr = tsc.reshape %ct : tensor<1x3x4x2xf32> -> tensor<1x3x8xf32>
  %o = tsc.matmul %cr, %wo : (tensor<1x3x8xf32>, tensor<8x2xf32>) -> tensor<1x3x2xf32>
  return %o : tensor<1x3x2xf32>
}

// -----

// GPT-2's merged QKV projection, split after its bias add: split into one
// projection per piece first, each then losing head 0's columns.
// CHECK:         tsc.prune = [{{.*}}kind = "heads"{{.*}}removed = array<i64: 0>
// CHECK-LABEL: func.func @merged_qkv_is_split_then_pruned
// CHECK-NOT:     tsc.split
// CHECK-COUNT-3: tsc.matmul %{{.+}}, %{{.+}} : (tensor<1x3x4xf32>, tensor<4x2xf32>) -> tensor<1x3x2xf32>
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<1x3x2xf32>, tensor<2x4xf32>) -> tensor<1x3x4xf32>
func.func @merged_qkv_is_split_then_pruned(%x: tensor<1x3x4xf32>) -> tensor<1x3x4xf32> {
  %w = tsc.constant dense<[[0.1, 0.1, 1.0, 1.0, 0.1, 0.1, 1.0, 1.0, 0.1, 0.1, 1.0, 1.0], [0.1, 0.1, 1.0, 1.0, 0.1, 0.1, 1.0, 1.0, 0.1, 0.1, 1.0, 1.0], [0.1, 0.1, 1.0, 1.0, 0.1, 0.1, 1.0, 1.0, 0.1, 0.1, 1.0, 1.0], [0.1, 0.1, 1.0, 1.0, 0.1, 0.1, 1.0, 1.0, 0.1, 0.1, 1.0, 1.0]]> : tensor<4x12xf32>
  %b = tsc.constant dense<0.5> : tensor<12xf32>
  %wo = tsc.constant dense<1.0> : tensor<4x4xf32>
  %qkv0 = tsc.matmul %x, %w : (tensor<1x3x4xf32>, tensor<4x12xf32>) -> tensor<1x3x12xf32>
  %qkv = tsc.add %qkv0, %b : (tensor<1x3x12xf32>, tensor<12xf32>) -> tensor<1x3x12xf32>
  %q0, %k0, %v0 = tsc.split %qkv axis = 2 sizes = [4, 4, 4] : tensor<1x3x12xf32> -> tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>
  %q1 = tsc.reshape %q0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %q = tsc.transpose %q1 perm = [0, 2, 1, 3] : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %k1 = tsc.reshape %k0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %kt = tsc.transpose %k1 perm = [0, 2, 3, 1] : (tensor<1x3x2x2xf32>) -> tensor<1x2x2x3xf32>
  %v1 = tsc.reshape %v0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %v = tsc.transpose %v1 perm = [0, 2, 1, 3] : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %s = tsc.matmul %q, %kt : (tensor<1x2x3x2xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x3x3xf32>
  %p = tsc.softmax %s axis = 3 : tensor<1x2x3x3xf32>
  %c = tsc.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  %ct = tsc.transpose %c perm = [0, 2, 1, 3] : (tensor<1x2x3x2xf32>) -> tensor<1x3x2x2xf32>
  %cr = tsc.reshape %ct : tensor<1x3x2x2xf32> -> tensor<1x3x4xf32>
  %o = tsc.matmul %cr, %wo : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  return %o : tensor<1x3x4xf32>
}

// -----

// Near miss: the attention probabilities are also returned, per head, so
// no head can go; the block is recorded as refused and left unchanged.
// CHECK:         tsc.prune = [{kind = "heads", layer = "0", reason = "'func.return' {{.*}}returns a value that carries the groups", status = "refused"}]
// CHECK-LABEL: func.func @refuses_heads_whose_probabilities_escape
// CHECK:         tsc.softmax %{{.+}} axis = 3 : tensor<1x2x3x3xf32>
func.func @refuses_heads_whose_probabilities_escape(%x: tensor<1x3x4xf32>) -> (tensor<1x3x4xf32>, tensor<1x2x3x3xf32>) {
  %w = tsc.constant dense<[[1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1]]> : tensor<4x4xf32>
  %q0 = tsc.matmul %x, %w : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %q1 = tsc.reshape %q0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %q = tsc.transpose %q1 perm = [0, 2, 1, 3] : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %k0 = tsc.matmul %x, %w : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %k1 = tsc.reshape %k0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %kt = tsc.transpose %k1 perm = [0, 2, 3, 1] : (tensor<1x3x2x2xf32>) -> tensor<1x2x2x3xf32>
  %v0 = tsc.matmul %x, %w : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %v1 = tsc.reshape %v0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %v = tsc.transpose %v1 perm = [0, 2, 1, 3] : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %s = tsc.matmul %q, %kt : (tensor<1x2x3x2xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x3x3xf32>
  %p = tsc.softmax %s axis = 3 : tensor<1x2x3x3xf32>
  %c = tsc.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  %ct = tsc.transpose %c perm = [0, 2, 1, 3] : (tensor<1x2x3x2xf32>) -> tensor<1x3x2x2xf32>
  %cr = tsc.reshape %ct : tensor<1x3x2x2xf32> -> tensor<1x3x4xf32>
  %o = tsc.matmul %cr, %w : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  return %o, %p : tensor<1x3x4xf32>, tensor<1x2x3x3xf32>
}
