// RUN: tsc-opt %s --split-input-file --tsc-prune-ffn=ratio=0.5 | FileCheck %s
// RUN: tsc-opt %s --split-input-file --tsc-prune-ffn="ratio=0.5 global=true" | FileCheck %s --check-prefix=GLOBAL

// Importance of neuron j: ‖up[:, j]‖₂ · ‖down[j, :]‖₂ = √2·(1, 0.1, 2, 0.2)·√2:
// neurons 1 and 3 go. The up weight loses those columns, the bias those
// elements (a constant operand of the add), the down weight those rows; the
// intermediate values shrink to 2.
// CHECK:         tsc.prune = [{{.*}}kind = "ffn"{{.*}}params_after = 10{{.*}}params_before = 20{{.*}}removed = array<i64: 1, 3>
// CHECK-LABEL: func.func @gelu_ffn_loses_weakest_neurons
// CHECK-DAG:     %[[WU:.+]] = tsc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-DAG:     %[[WD:.+]] = tsc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
// CHECK:         %[[U:.+]] = tsc.matmul %{{.+}}, %[[WU]] : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
// CHECK:         %[[UB:.+]] = tsc.add %[[U]], %[[B]] : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK:         %[[G:.+]] = tsc.gelu %[[UB]] : tensor<3x2xf32>
// CHECK:         tsc.matmul %[[G]], %[[WD]] : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
func.func @gelu_ffn_loses_weakest_neurons(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wu = tsc.constant dense<[[1.0, 0.1, 2.0, 0.2], [1.0, 0.1, 2.0, 0.2]]> : tensor<2x4xf32>
  %b = tsc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %wd = tsc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %u = tsc.matmul %x, %wu : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %ub = tsc.add %u, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %g = tsc.gelu %ub : tensor<3x4xf32>
  %d = tsc.matmul %g, %wd : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %d : tensor<3x2xf32>
}

// -----

// SwiGLU with [N, K] weights (nn.Linear): silu(gate) · up → down. Scores
// ‖gate_j‖·‖up_j‖·‖down[:, j]‖ = (2, 2, 9, 20) with down all ones:
// neurons 0 and 1 go (a tie, the lower index first); gate and up lose rows,
// down loses columns.
// CHECK:         removed = array<i64: 0, 1>
// CHECK-LABEL: func.func @swiglu_ffn_shrinks_gate_up_and_down
// CHECK-DAG:     %[[G:.+]] = tsc.constant dense<{{\[}}[3.000000e+00], [4.000000e+00]]> : tensor<2x1xf32>
// CHECK-DAG:     %[[U:.+]] = tsc.constant dense<{{\[}}[3.000000e+00], [5.000000e+00]]> : tensor<2x1xf32>
// CHECK-DAG:     %[[D:.+]] = tsc.constant dense<{{.+}}> : tensor<1x2xf32>
// CHECK:         tsc.linear %{{.+}}, %[[G]] : (tensor<5x1xf32>, tensor<2x1xf32>) -> tensor<5x2xf32>
// CHECK:         tsc.linear %{{.+}}, %[[U]] : (tensor<5x1xf32>, tensor<2x1xf32>) -> tensor<5x2xf32>
// CHECK:         tsc.silu %{{.+}} : tensor<5x2xf32>
// CHECK:         tsc.linear %{{.+}}, %[[D]] : (tensor<5x2xf32>, tensor<1x2xf32>) -> tensor<5x1xf32>
func.func @swiglu_ffn_shrinks_gate_up_and_down(%x: tensor<5x1xf32>) -> tensor<5x1xf32> {
  %wg = tsc.constant dense<[[2.0], [1.0], [3.0], [4.0]]> : tensor<4x1xf32>
  %wu = tsc.constant dense<[[1.0], [2.0], [3.0], [5.0]]> : tensor<4x1xf32>
  %wd = tsc.constant dense<1.0> : tensor<1x4xf32>
  %g = tsc.linear %x, %wg : (tensor<5x1xf32>, tensor<4x1xf32>) -> tensor<5x4xf32>
  %u = tsc.linear %x, %wu : (tensor<5x1xf32>, tensor<4x1xf32>) -> tensor<5x4xf32>
  %s = tsc.silu %g : tensor<5x4xf32>
  %h = tsc.mul %s, %u : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
  %d = tsc.linear %h, %wd : (tensor<5x4xf32>, tensor<1x4xf32>) -> tensor<5x1xf32>
  return %d : tensor<5x1xf32>
}

// -----

// Near miss: the activations are also a result of the function, so no
// neuron can go; the FFN is recorded as refused and left as it is.
// CHECK:         tsc.prune = [{kind = "ffn", layer = "0", reason = "'func.return' {{.*}}returns a value that carries the groups", status = "refused"}]
// CHECK-LABEL: func.func @refuses_ffn_whose_activations_escape
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
func.func @refuses_ffn_whose_activations_escape(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x4xf32>) {
  %wu = tsc.constant dense<[[1.0, 0.1, 2.0, 0.2], [1.0, 0.1, 2.0, 0.2]]> : tensor<2x4xf32>
  %wd = tsc.constant dense<1.0> : tensor<4x2xf32>
  %u = tsc.matmul %x, %wu : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %g = tsc.relu %u : tensor<3x4xf32>
  %d = tsc.matmul %g, %wd : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %d, %g : tensor<3x2xf32>, tensor<3x4xf32>
}

// -----

// Two FFNs ranked together (global): the second's neurons are all weaker
// than the first's, so it loses three (keeping one) and the first one.
// GLOBAL:        tsc.prune = [{{.*}}layer = "0"{{.*}}removed = array<i64: 1>{{.*}}layer = "1"{{.*}}removed = array<i64: 0, 1, 3>
// GLOBAL-LABEL: func.func @global_ranking_over_two_ffns
func.func @global_ranking_over_two_ffns(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w1 = tsc.constant dense<[[5.0, 4.0, 6.0, 7.0], [5.0, 4.0, 6.0, 7.0]]> : tensor<2x4xf32>
  %w2 = tsc.constant dense<[[0.1, 0.2, 0.4, 0.3], [0.1, 0.2, 0.4, 0.3]]> : tensor<2x4xf32>
  %wd = tsc.constant dense<1.0> : tensor<4x2xf32>
  %u1 = tsc.matmul %x, %w1 : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %g1 = tsc.relu %u1 : tensor<3x4xf32>
  %d1 = tsc.matmul %g1, %wd : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %u2 = tsc.matmul %d1, %w2 : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %g2 = tsc.relu %u2 : tensor<3x4xf32>
  %d2 = tsc.matmul %g2, %wd : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %d2 : tensor<3x2xf32>
}

// -----

// Exporters that flatten [B, S] around 2-D GEMMs (torch.onnx's dynamo
// exporter) reshape between the GEMMs and the activation: the neurons stay
// the last dim through both reshapes, which shrink with them.
// CHECK:         removed = array<i64: 1, 3>
// CHECK-LABEL: func.func @flattened_ffn_shrinks_through_reshapes
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<6x2xf32>, tensor<2x2xf32>) -> tensor<6x2xf32>
// CHECK:         tsc.reshape %{{.+}} : tensor<6x2xf32> -> tensor<2x3x2xf32>
// CHECK:         tsc.gelu %{{.+}} : tensor<2x3x2xf32>
// CHECK:         tsc.reshape %{{.+}} : tensor<2x3x2xf32> -> tensor<6x2xf32>
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<6x2xf32>, tensor<2x2xf32>) -> tensor<6x2xf32>
func.func @flattened_ffn_shrinks_through_reshapes(%x: tensor<6x2xf32>) -> tensor<6x2xf32> {
  %wu = tsc.constant dense<[[1.0, 0.1, 2.0, 0.2], [1.0, 0.1, 2.0, 0.2]]> : tensor<2x4xf32>
  %wd = tsc.constant dense<1.0> : tensor<4x2xf32>
  %u = tsc.matmul %x, %wu : (tensor<6x2xf32>, tensor<2x4xf32>) -> tensor<6x4xf32>
  %u3 = tsc.reshape %u : tensor<6x4xf32> -> tensor<2x3x4xf32>
  %g = tsc.gelu %u3 : tensor<2x3x4xf32>
  %g2 = tsc.reshape %g : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %d = tsc.matmul %g2, %wd : (tensor<6x4xf32>, tensor<4x2xf32>) -> tensor<6x2xf32>
  return %d : tensor<6x2xf32>
}

// -----

// Near miss: GEMMs joined only by linear elementwise ops (a negation, a bias)
// are not an FFN, so no neuron is ranked or removed.
// CHECK-NOT:     tsc.prune
// CHECK-LABEL: func.func @linear_chain_is_not_an_ffn
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK:         tsc.neg %{{.+}} : tensor<3x4xf32>
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
func.func @linear_chain_is_not_an_ffn(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wu = tsc.constant dense<[[1.0, 0.1, 2.0, 0.2], [1.0, 0.1, 2.0, 0.2]]> : tensor<2x4xf32>
  %b = tsc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %wd = tsc.constant dense<1.0> : tensor<4x2xf32>
  %u = tsc.matmul %x, %wu : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %ub = tsc.add %u, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %n = tsc.neg %ub : tensor<3x4xf32>
  %d = tsc.matmul %n, %wd : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %d : tensor<3x2xf32>
}
