// RUN: tsc-opt %s --split-input-file --tsc-fuse-gemm-epilogues | FileCheck %s
// RUN: tsc-opt %s --split-input-file --tsc-fuse-gemm-epilogues=erf-gelu=false | FileCheck %s --check-prefix=TANH-ONLY

// The FFN's first GEMM: x·W + b, then GELU (exact or tanh) as its epilogue.
// Without erf-gelu (CUDA targets: cuBLASLt's GELU is the tanh
// approximation) only the tanh one folds.
// CHECK-LABEL: func.func @bias_then_gelu
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-DAG:     %[[W:.+]] = tsc.constant dense<1.000000e+00> : tensor<4x3xf32>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]>
// CHECK:         %[[E:.+]] = tsc.linear %[[X]], %[[W]], %[[B]] activation = gelu {weight_kn} : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK:         %[[T:.+]] = tsc.linear %[[X]], %[[W]], %[[B]] activation = gelu_tanh {weight_kn}
// CHECK-NOT:     tsc.gelu
// CHECK-NOT:     tsc.add
// CHECK:         return %[[E]], %[[T]]
// TANH-ONLY-LABEL: func.func @bias_then_gelu
// TANH-ONLY:       %[[E:.+]] = tsc.linear %{{.+}}, %{{.+}}, %{{.+}} {weight_kn} : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// TANH-ONLY:       %[[G:.+]] = tsc.gelu %[[E]] : tensor<?x3xf32>
// TANH-ONLY:       %[[T:.+]] = tsc.linear %{{.+}}, %{{.+}}, %{{.+}} activation = gelu_tanh {weight_kn}
// TANH-ONLY:       return %[[G]], %[[T]]
func.func @bias_then_gelu(%x: tensor<?x4xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %w = tsc.constant dense<1.0> : tensor<4x3xf32>
  %b = tsc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %p = tsc.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %pb = tsc.add %p, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %g = tsc.gelu %pb : tensor<?x3xf32>
  %q = tsc.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %qb = tsc.add %b, %q : (tensor<3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %t = tsc.gelu %qb approximate = tanh : tensor<?x3xf32>
  return %g, %t : tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// A linear of PyTorch's [N, K] layout without a bias takes the GELU too.
// CHECK-LABEL: func.func @nk_layout_no_bias
// CHECK:         %[[Y:.+]] = tsc.linear %{{.+}}, %{{.+}} activation = gelu : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @nk_layout_no_bias(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> tensor<2x3xf32> {
  %p = tsc.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %y = tsc.gelu %p : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// GPT-2's Conv1D: the GEMM runs on [B·S, K] rows and its result is reshaped
// back to [B, S, N] before the GELU; the GELU folds through the reshape.
// CHECK-LABEL: func.func @through_reshape
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>, %[[B0:.+]]: index, %[[S:.+]]: index)
// CHECK:         %[[Y:.+]] = tsc.linear %[[X]], %{{.+}}, %{{.+}} activation = gelu_tanh {weight_kn} : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK:         %[[R:.+]] = tsc.reshape %[[Y]][%[[B0]], %[[S]]] : tensor<?x3xf32> -> tensor<?x?x3xf32>
// CHECK-NOT:     tsc.gelu
// CHECK:         return %[[R]]
func.func @through_reshape(%x: tensor<?x4xf32>, %b0: index, %s: index) -> tensor<?x?x3xf32> {
  %w = tsc.constant dense<1.0> : tensor<4x3xf32>
  %b = tsc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %p = tsc.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %pb = tsc.add %p, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %r = tsc.reshape %pb[%b0, %s] : tensor<?x3xf32> -> tensor<?x?x3xf32>
  %g = tsc.gelu %r approximate = tanh : tensor<?x?x3xf32>
  return %g : tensor<?x?x3xf32>
}

// -----

// Near-misses: a GEMM whose output is also used elsewhere keeps its GELU (a
// second use needs the value before it); a GEMM with a residual keeps it
// (the epilogue adds the residual after the activation, not before); an add
// after a GELU is not folded into it as a bias or residual (wrong order); a
// reshape of the GEMM also used elsewhere keeps the GELU after it.
// CHECK-LABEL: func.func @near_misses
// CHECK:         %[[A:.+]] = tsc.linear %{{.+}}, %{{.+}} {weight_kn} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK:         tsc.gelu %[[A]]
// CHECK:         %[[R:.+]] = tsc.linear %{{.+}}, %{{.+}} residual %{{.+}} {weight_kn}
// CHECK:         tsc.gelu %[[R]]
// CHECK:         %[[G:.+]] = tsc.linear %{{.+}}, %{{.+}} activation = gelu {weight_kn}
// CHECK:         tsc.add %[[G]], %{{.+}} : (tensor<2x3xf32>, tensor<3xf32>)
// CHECK:         %[[H:.+]] = tsc.linear %{{.+}}, %{{.+}} activation = gelu {weight_kn}
// CHECK:         tsc.add %[[H]], %{{.+}} : (tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:         %[[K:.+]] = tsc.linear %{{.+}}, %{{.+}} {weight_kn} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[KR:.+]] = tsc.reshape %[[K]]
// CHECK:         tsc.gelu %[[KR]]
func.func @near_misses(%x: tensor<2x4xf32>, %r: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<6xf32>) {
  %w = tsc.constant dense<1.0> : tensor<4x3xf32>
  %b = tsc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %a = tsc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %ag = tsc.gelu %a : tensor<2x3xf32>
  %ar = tsc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %arr = tsc.add %ar, %r : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %arg = tsc.gelu %arr : tensor<2x3xf32>
  %g = tsc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %gg = tsc.gelu %g : tensor<2x3xf32>
  %gb = tsc.add %gg, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %h = tsc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %hg = tsc.gelu %h : tensor<2x3xf32>
  %hr = tsc.add %hg, %r : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %k = tsc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %kr = tsc.reshape %k : tensor<2x3xf32> -> tensor<6xf32>
  %kg = tsc.gelu %kr : tensor<6xf32>
  return %a, %ag, %arg, %gb, %hr, %kr, %kg : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<6xf32>
}

// -----

// A gated MLP (GeGLU): gelu(gate(x)) * up(x). The GELU stays out of the
// gate's epilogue, so that MergeGemms can make gate and up one GEMM and the
// GELU fuses with the product.
// CHECK-LABEL: func.func @gated_mlp_gate_keeps_gelu
// CHECK:         %[[G:.+]] = tsc.linear %{{.+}}, %{{.+}} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
// CHECK:         tsc.gelu %[[G]]
func.func @gated_mlp_gate_keeps_gelu(%x: tensor<2x4xf32>, %wg: tensor<3x4xf32>, %wu: tensor<3x4xf32>) -> tensor<2x3xf32> {
  %g = tsc.linear %x, %wg : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %a = tsc.gelu %g : tensor<2x3xf32>
  %u = tsc.linear %x, %wu : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %y = tsc.mul %a, %u : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
