// RUN: tsc-opt %s --split-input-file --tsc-prune-heads=exact=1 --tsc-prune-ffn=exact=1 | FileCheck %s
// RUN: not tsc-opt %s --split-input-file --tsc-prune-ffn="exact=1 ratio=0.5" 2>&1 | FileCheck %s --check-prefix=RATIO
// RATIO: exact removes the groups whose consumer weights are all zero; it takes no ratio

// An already-pruned FFN (as torch.nn.utils.prune.ln_structured on the down
// projection's input features leaves it): rows 1 and 3 of the down weight
// are zero, so neurons 1 and 3 contribute nothing whatever their up
// columns and biases: exact mode removes them and records it. The weights
// themselves would rank other neurons (up column 1 is the largest).
// CHECK:         tsc.prune = [{{.*}}importance = "zero consumers", kind = "ffn"{{.*}}removed = array<i64: 1, 3>
// CHECK-LABEL: func.func @ffn_loses_dead_neurons
// CHECK-DAG:     %[[WU:.+]] = tsc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-DAG:     %[[WD:.+]] = tsc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
// CHECK:         tsc.matmul %{{.+}}, %[[WU]] : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
// CHECK:         tsc.matmul %{{.+}}, %[[WD]] : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
func.func @ffn_loses_dead_neurons(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wu = tsc.constant dense<[[1.0, 9.0, 2.0, 0.2], [1.0, 9.0, 2.0, 0.2]]> : tensor<2x4xf32>
  %b = tsc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %wd = tsc.constant dense<[[1.0, 2.0], [0.0, 0.0], [5.0, 6.0], [0.0, 0.0]]> : tensor<4x2xf32>
  %u = tsc.matmul %x, %wu : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %ub = tsc.add %u, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %g = tsc.gelu %ub : tensor<3x4xf32>
  %d = tsc.matmul %g, %wd : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %d : tensor<3x2xf32>
}

// -----

// Nothing dead (and an up weight of zeros does not make a neuron dead:
// gelu(bias) still reaches the down projection): nothing changes and
// nothing is recorded.
// CHECK-NOT:     tsc.prune
// CHECK-LABEL: func.func @ffn_without_dead_neurons
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
func.func @ffn_without_dead_neurons(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wu = tsc.constant dense<[[1.0, 0.0, 2.0, 0.2], [1.0, 0.0, 2.0, 0.2]]> : tensor<2x4xf32>
  %b = tsc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %wd = tsc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %u = tsc.matmul %x, %wu : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %ub = tsc.add %u, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %g = tsc.gelu %ub : tensor<3x4xf32>
  %d = tsc.matmul %g, %wd : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %d : tensor<3x2xf32>
}

// -----

// BERT-style attention, 2 heads of 2: the output projection's rows of head
// 1 (rows 2 and 3) are zero, so head 1 goes: its Q, K, V columns and the
// bias's elements, and the head count of everything between drops to 1.
// CHECK:         tsc.prune = [{{.*}}groups = 2 : i64, heads_per_group = 1 : i64, importance = "zero consumers", kind = "heads"{{.*}}removed = array<i64: 1>
// CHECK-LABEL: func.func @attention_loses_dead_head
// CHECK-DAG:     %[[WO:.+]] = tsc.constant dense<{{.+}}> : tensor<2x4xf32>
// CHECK:         tsc.reshape %{{.+}} : tensor<1x3x2xf32> -> tensor<1x3x1x2xf32>
// CHECK:         tsc.matmul %{{.+}}, %[[WO]] : (tensor<1x3x2xf32>, tensor<2x4xf32>) -> tensor<1x3x4xf32>
func.func @attention_loses_dead_head(%x: tensor<1x3x4xf32>, %mask: tensor<1x1x1x3xf32>) -> tensor<1x3x4xf32> {
  %w = tsc.constant dense<[[1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1]]> : tensor<4x4xf32>
  %wk = tsc.constant dense<[[0.5, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1]]> : tensor<4x4xf32>
  %wv = tsc.constant dense<[[2.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1]]> : tensor<4x4xf32>
  %wo = tsc.constant dense<[[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
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
