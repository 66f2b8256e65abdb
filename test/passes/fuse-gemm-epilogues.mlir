// RUN: tsc-opt %s --split-input-file --tsc-fuse-gemm-epilogues | FileCheck %s

// The BERT output projection: x·W + b + residual, bias on either side of
// the add, residual on either side.
// CHECK-LABEL: func.func @bias_and_residual
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x4xf32>, %[[R:.+]]: tensor<?x?x3xf32>)
// CHECK-DAG:     %[[W:.+]] = tsc.constant dense<1.000000e+00> : tensor<4x3xf32>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]>
// CHECK:         %[[Y:.+]] = tsc.linear %[[X]], %[[W]], %[[B]] residual %[[R]] {weight_kn} : (tensor<?x?x4xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
// CHECK-NOT:     tsc.add
// CHECK:         return %[[Y]]
func.func @bias_and_residual(%x: tensor<?x?x4xf32>, %r: tensor<?x?x3xf32>) -> tensor<?x?x3xf32> {
  %w = tsc.constant dense<1.0> : tensor<4x3xf32>
  %b = tsc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %p = tsc.matmul %x, %w : (tensor<?x?x4xf32>, tensor<4x3xf32>) -> tensor<?x?x3xf32>
  %pb = tsc.add %b, %p : (tensor<3xf32>, tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
  %y = tsc.add %r, %pb : (tensor<?x?x3xf32>, tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
  return %y : tensor<?x?x3xf32>
}

// -----

// A linear of PyTorch's [N, K] layout takes a residual without a bias (the
// Llama down projection), and a bias of [1, 1, N] becomes [N].
// CHECK-LABEL: func.func @nk_layout
// CHECK:         %[[L:.+]] = tsc.linear %{{.+}}, %{{.+}} residual %{{.+}} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[B:.+]] = tsc.reshape %{{.+}} : tensor<1x3xf32> -> tensor<3xf32>
// CHECK:         tsc.linear %{{.+}}, %{{.+}}, %[[B]] : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @nk_layout(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %r: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %p = tsc.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %y = tsc.add %p, %r : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %q = tsc.linear %x, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %z = tsc.add %q, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %y, %z : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Near-misses: a product by a run-time matrix stays a matmul; a GEMM whose
// output is also used elsewhere keeps its add; an add that broadcasts the
// GEMM's output ([3] + [2, 3] against a [2, 3] result of another shape) is
// no epilogue; a second residual does not fold.
// CHECK-LABEL: func.func @near_misses
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<2x4xf32>, tensor<4x3xf32>)
// CHECK:         %[[A:.+]] = tsc.linear %{{.+}}, %{{.+}} {weight_kn} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK:         tsc.add %[[A]], %{{.+}} : (tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:         %[[C:.+]] = tsc.linear %{{.+}}, %{{.+}} {weight_kn} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK:         tsc.add %[[C]], %{{.+}} : (tensor<2x3xf32>, tensor<3x2x3xf32>) -> tensor<3x2x3xf32>
// CHECK:         %[[D:.+]] = tsc.linear %{{.+}}, %{{.+}} residual %{{.+}} {weight_kn}
// CHECK:         tsc.add %[[D]], %{{.+}} : (tensor<2x3xf32>, tensor<2x3xf32>)
func.func @near_misses(%x: tensor<2x4xf32>, %m: tensor<4x3xf32>, %r: tensor<2x3xf32>, %big: tensor<3x2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2x3xf32>, tensor<2x3xf32>) {
  %w = tsc.constant dense<1.0> : tensor<4x3xf32>
  %p = tsc.matmul %x, %m : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %a = tsc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %ar = tsc.add %a, %r : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = tsc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %cb = tsc.add %c, %big : (tensor<2x3xf32>, tensor<3x2x3xf32>) -> tensor<3x2x3xf32>
  %d = tsc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %d1 = tsc.add %d, %r : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %d2 = tsc.add %d1, %r : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %p, %a, %ar, %cb, %d2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2x3xf32>, tensor<2x3xf32>
}

// -----

// x · Wᵀ by the transpose of a constant [N, K] weight (Falcon's
// `x @ self.weight.T`) is a linear of W as stored, its bias folds, and the
// transpose is gone.
// CHECK-LABEL: func.func @transposed_weight
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x4xf32>)
// CHECK-DAG:     %[[W:.+]] = tsc.constant dense<{{\[}}[1.000000e+00, {{.+}}]]> : tensor<3x4xf32>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK:         %[[Y:.+]] = tsc.linear %[[X]], %[[W]], %[[B]] : (tensor<?x?x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<?x?x3xf32>
// CHECK-NOT:     tsc.transpose
// CHECK:         return %[[Y]]
func.func @transposed_weight(%x: tensor<?x?x4xf32>) -> tensor<?x?x3xf32> {
  %w = tsc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %b = tsc.constant dense<2.0> : tensor<3xf32>
  %wt = tsc.transpose %w perm = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %p = tsc.matmul %x, %wt : (tensor<?x?x4xf32>, tensor<4x3xf32>) -> tensor<?x?x3xf32>
  %y = tsc.add %p, %b : (tensor<?x?x3xf32>, tensor<3xf32>) -> tensor<?x?x3xf32>
  return %y : tensor<?x?x3xf32>
}

// -----

// Near-misses: the transpose of a run-time matrix stays a transpose and a
// matmul; a transposed constant of rank 3 (a batched product) is no linear.
// CHECK-LABEL: func.func @transposed_near_misses
// CHECK:         %[[T:.+]] = tsc.transpose %{{.+}} perm = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK:         tsc.matmul %{{.+}}, %[[T]] : (tensor<2x4xf32>, tensor<4x3xf32>)
// CHECK:         %[[U:.+]] = tsc.transpose %{{.+}} perm = [0, 2, 1] : (tensor<2x1x2xf32>) -> tensor<2x2x1xf32>
// CHECK:         tsc.matmul %{{.+}}, %[[U]] : (tensor<2x2x2xf32>, tensor<2x2x1xf32>)
// CHECK-NOT:     tsc.linear
func.func @transposed_near_misses(%x: tensor<2x4xf32>, %m: tensor<3x4xf32>, %xb: tensor<2x2x2xf32>) -> (tensor<2x3xf32>, tensor<2x2x1xf32>) {
  %mt = tsc.transpose %m perm = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %p = tsc.matmul %x, %mt : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %w = tsc.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
  %wt = tsc.transpose %w perm = [0, 2, 1] : (tensor<2x1x2xf32>) -> tensor<2x2x1xf32>
  %q = tsc.matmul %xb, %wt : (tensor<2x2x2xf32>, tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
  return %p, %q : tensor<2x3xf32>, tensor<2x2x1xf32>
}

// -----

// A linear that has a bias (static int8's bias correction gives one to a
// GEMM the model adds its own bias to) absorbs a second one: two constants
// become their sum ([0.25, 0.5] + [1.0, -2.0]), a computed bias an add.
// CHECK-LABEL: func.func @second_bias
// CHECK-SAME:    (%{{.+}}: tensor<3x4xf32>, %[[B:.+]]: tensor<2xf32>)
// CHECK:         %[[C:.+]] = tsc.constant dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK:         %[[SUM:.+]] = tsc.constant dense<[1.250000e+00, -1.500000e+00]> : tensor<2xf32>
// CHECK:         %[[Y:.+]] = tsc.linear %{{.+}}, %{{.+}}, %[[SUM]] : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK:         %[[B2:.+]] = tsc.add %[[B]], %[[C]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK:         %[[Z:.+]] = tsc.linear %{{.+}}, %{{.+}}, %[[B2]] : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK-NOT:     tsc.add
// CHECK:         return %[[Y]], %[[Z]]
func.func @second_bias(%x: tensor<3x4xf32>, %b: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = tsc.constant dense<1.0> : tensor<2x4xf32>
  %corr = tsc.constant dense<[0.25, 0.5]> : tensor<2xf32>
  %c = tsc.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %y0 = tsc.linear %x, %w, %corr : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %y = tsc.add %y0, %c : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %z0 = tsc.linear %x, %w, %b : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %z = tsc.add %z0, %c : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %y, %z : tensor<3x2xf32>, tensor<3x2xf32>
}
