// RUN: tsc-opt %s --split-input-file --tsc-prune-heads=ratio=0.5 --tsc-prune-ffn=ratio=0.5 | FileCheck %s
// RUN: tsc-opt %s --split-input-file --tsc-drop-input-norms --tsc-prune-heads=ratio=0.5 --tsc-prune-ffn=ratio=0.5 | FileCheck %s --check-prefix=WEIGHTS
// RUN: tsc-opt %s --split-input-file --tsc-pipeline="until=prune prune=heads=0.5,ffn=0.5" | FileCheck %s --check-prefix=PIPELINE

// Activation-aware importance: calibration's `tsc.input_norms` on the
// consumer GEMM (per input channel, the L2 norm of its input over the
// calibration tokens) decide instead of the weights. The same IR without
// the norms (WEIGHTS) removes other groups; the pipeline ranks by them and
// then drops them (PIPELINE).

// FFN: every up column has norm √2, the down rows (1, 1), (1, 1), (2, 2),
// (2, 2): by weights neurons 0 and 1 go (√2·√2·(1, 1, 2, 2)·√2). The down
// input's norms (10, 10, 1, 1) make the scores ‖X_j‖·‖W_down[j, :]‖ =
// √2·(10, 10, 2, 2): neurons 2 and 3 go, and the norms left on the down
// GEMM are those of the kept channels.
// CHECK:         tsc.prune = [{{.*}}importance = "activations"{{.*}}kind = "ffn"{{.*}}removed = array<i64: 2, 3>
// CHECK-LABEL: func.func @ffn_ranked_by_input_norms
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} {tsc.input_norms = array<f64: 1.000000e+01, 1.000000e+01>} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
// WEIGHTS:       tsc.prune = [{{.*}}importance = "weights"{{.*}}kind = "ffn"{{.*}}removed = array<i64: 0, 1>
// WEIGHTS-LABEL: func.func @ffn_ranked_by_input_norms
// WEIGHTS-NOT:   tsc.input_norms
// PIPELINE:      tsc.prune = [{{.*}}importance = "activations"{{.*}}kind = "ffn"{{.*}}removed = array<i64: 2, 3>
// PIPELINE-LABEL: func.func @ffn_ranked_by_input_norms
// PIPELINE-NOT:  tsc.input_norms
func.func @ffn_ranked_by_input_norms(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wu = tsc.constant dense<1.0> : tensor<2x4xf32>
  %wd = tsc.constant dense<[[1.0, 1.0], [1.0, 1.0], [2.0, 2.0], [2.0, 2.0]]> : tensor<4x2xf32>
  %u = tsc.matmul %x, %wu : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %g = tsc.gelu %u : tensor<3x4xf32>
  %d = tsc.matmul %g, %wd {tsc.input_norms = array<f64: 10.0, 10.0, 1.0, 1.0>} : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %d : tensor<3x2xf32>
}

// -----

// Norms that do not match the down GEMM's K (3 for 4 channels) are not
// used: the weights rank, and the record says so.
// CHECK:         tsc.prune = [{{.*}}importance = "weights"{{.*}}kind = "ffn"{{.*}}removed = array<i64: 0, 1>
// CHECK-LABEL: func.func @ffn_with_mismatched_norms_ranked_by_weights
func.func @ffn_with_mismatched_norms_ranked_by_weights(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wu = tsc.constant dense<1.0> : tensor<2x4xf32>
  %wd = tsc.constant dense<[[1.0, 1.0], [1.0, 1.0], [2.0, 2.0], [2.0, 2.0]]> : tensor<4x2xf32>
  %u = tsc.matmul %x, %wu : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %g = tsc.gelu %u : tensor<3x4xf32>
  %d = tsc.matmul %g, %wd {tsc.input_norms = array<f64: 10.0, 10.0, 1.0>} : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %d : tensor<3x2xf32>
}

// -----

// Attention, 2 heads of 2: head 1's Q, K, V columns and output rows are
// 0.1 where head 0's are about 1 (Q, K and V differ, so that CSE leaves
// three projections in the pipeline), so by weights head 1 goes. Its attention
// output is 1000 times larger on the calibration tokens (norms 0.1 and
// 100): its score ‖X_g‖·‖W_o,g‖ = 141·0.28 = 40 beats head 0's
// 0.14·2.8 = 0.4, and head 0 goes.
// CHECK:         tsc.prune = [{{.*}}groups = 2 : i64, heads_per_group = 1 : i64, importance = "activations", kind = "heads"{{.*}}removed = array<i64: 0>
// CHECK-LABEL: func.func @heads_ranked_by_output_norms
// CHECK-DAG:     %[[WO:.+]] = tsc.constant dense<1.000000e-01> : tensor<2x4xf32>
// CHECK:         tsc.matmul %{{.+}}, %[[WO]] {tsc.input_norms = array<f64: 1.000000e+02, 1.000000e+02>} : (tensor<1x3x2xf32>, tensor<2x4xf32>) -> tensor<1x3x4xf32>
// WEIGHTS:       tsc.prune = [{{.*}}importance = "weights", kind = "heads"{{.*}}removed = array<i64: 1>
// WEIGHTS-LABEL: func.func @heads_ranked_by_output_norms
// PIPELINE:      tsc.prune = [{{.*}}importance = "activations", kind = "heads"{{.*}}removed = array<i64: 0>
// PIPELINE-LABEL: func.func @heads_ranked_by_output_norms
// PIPELINE-NOT:  tsc.input_norms
func.func @heads_ranked_by_output_norms(%x: tensor<1x3x4xf32>) -> tensor<1x3x4xf32> {
  %w = tsc.constant dense<[[1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1]]> : tensor<4x4xf32>
  %wk = tsc.constant dense<[[0.5, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1]]> : tensor<4x4xf32>
  %wv = tsc.constant dense<[[2.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1], [1.0, 1.0, 0.1, 0.1]]> : tensor<4x4xf32>
  %wo = tsc.constant dense<[[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0.1, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.1]]> : tensor<4x4xf32>
  %q0 = tsc.matmul %x, %w : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %q1 = tsc.reshape %q0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %q = tsc.transpose %q1 perm = [0, 2, 1, 3] : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %k0 = tsc.matmul %x, %wk : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %k1 = tsc.reshape %k0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %kt = tsc.transpose %k1 perm = [0, 2, 3, 1] : (tensor<1x3x2x2xf32>) -> tensor<1x2x2x3xf32>
  %v0 = tsc.matmul %x, %wv : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  %v1 = tsc.reshape %v0 : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
  %v = tsc.transpose %v1 perm = [0, 2, 1, 3] : (tensor<1x3x2x2xf32>) -> tensor<1x2x3x2xf32>
  %s = tsc.matmul %q, %kt : (tensor<1x2x3x2xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x3x3xf32>
  %p = tsc.softmax %s axis = 3 : tensor<1x2x3x3xf32>
  %c = tsc.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  %ct = tsc.transpose %c perm = [0, 2, 1, 3] : (tensor<1x2x3x2xf32>) -> tensor<1x3x2x2xf32>
  %cr = tsc.reshape %ct : tensor<1x3x2x2xf32> -> tensor<1x3x4xf32>
  %o = tsc.matmul %cr, %wo {tsc.input_norms = array<f64: 0.1, 0.1, 100.0, 100.0>} : (tensor<1x3x4xf32>, tensor<4x4xf32>) -> tensor<1x3x4xf32>
  return %o : tensor<1x3x4xf32>
}
