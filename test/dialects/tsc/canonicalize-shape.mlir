// RUN: tsc-opt %s --split-input-file --canonicalize | FileCheck %s

// Folders of the shape ops and shape queries.

// With one dynamic dim, equal types mean an identity reshape.
// CHECK-LABEL: func.func @fold_reshape_identity
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>, %{{.+}}: index)
// CHECK-NOT:     tsc.reshape
// CHECK:         return %[[X]]
func.func @fold_reshape_identity(%x: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %y = tsc.reshape %x [%n] : tensor<?x4xf32> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// ?x? -> ?x? may regroup the elements.
// CHECK-LABEL: func.func @no_fold_reshape_two_dynamic_dims
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?xf32>, %[[A:.+]]: index, %[[B:.+]]: index)
// CHECK:         %[[Y:.+]] = tsc.reshape %[[X]][%[[A]], %[[B]]] : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK:         return %[[Y]]
func.func @no_fold_reshape_two_dynamic_dims(%x: tensor<?x?xf32>, %a: index, %b: index) -> tensor<?x?xf32> {
  %y = tsc.reshape %x [%a, %b] : tensor<?x?xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @fold_reshape_of_reshape
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>, %{{.+}}: index, %[[M:.+]]: index)
// CHECK:         %[[Y:.+]] = tsc.reshape %[[X]][%[[M]]] : tensor<?x768xf32> -> tensor<?x64xf32>
// CHECK-NOT:     tsc.reshape
// CHECK:         return %[[Y]]
func.func @fold_reshape_of_reshape(%x: tensor<?x768xf32>, %n: index, %m: index) -> tensor<?x64xf32> {
  %y = tsc.reshape %x [%n] : tensor<?x768xf32> -> tensor<?x12x64xf32>
  %z = tsc.reshape %y [%m] : tensor<?x12x64xf32> -> tensor<?x64xf32>
  return %z : tensor<?x64xf32>
}

// -----

// CHECK-LABEL: func.func @fold_reshape_of_constant
// CHECK:         %[[C:.+]] = tsc.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
// CHECK-NOT:     tsc.reshape
// CHECK:         return %[[C]]
func.func @fold_reshape_of_constant() -> tensor<3x2xi64> {
  %c = tsc.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %r = tsc.reshape %c : tensor<2x3xi64> -> tensor<3x2xi64>
  return %r : tensor<3x2xi64>
}

// -----

// CHECK-LABEL: func.func @fold_transpose_identity
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT:     tsc.transpose
// CHECK:         return %[[X]]
func.func @fold_transpose_identity(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = tsc.transpose %x perm = [0, 1] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// Same type, but not the identity permutation.
// CHECK-LABEL: func.func @no_fold_transpose_permutation
// CHECK-SAME:    (%[[X:.+]]: tensor<4x4xf32>)
// CHECK:         %[[Y:.+]] = tsc.transpose %[[X]] perm = [1, 0]
// CHECK:         return %[[Y]]
func.func @no_fold_transpose_permutation(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = tsc.transpose %x perm = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// Result dim i of the outer transpose is x's dim inner[outer[i]].
// CHECK-LABEL: func.func @fold_transpose_of_transpose
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK:         %[[Y:.+]] = tsc.transpose %[[X]] perm = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
// CHECK-NOT:     tsc.transpose
// CHECK:         return %[[Y]]
func.func @fold_transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %y = tsc.transpose %x perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %z = tsc.transpose %y perm = [2, 1, 0] : (tensor<4x2x3xf32>) -> tensor<3x2x4xf32>
  return %z : tensor<3x2x4xf32>
}

// -----

// Composing with the inverse permutation leaves the identity, which folds.
// CHECK-LABEL: func.func @fold_transpose_inverse
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NOT:     tsc.transpose
// CHECK:         return %[[X]]
func.func @fold_transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = tsc.transpose %x perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %z = tsc.transpose %y perm = [1, 2, 0] : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  return %z : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_transpose_splat
// CHECK:         %[[C:.+]] = tsc.constant dense<5.000000e+00> : tensor<3x2xf32>
// CHECK-NOT:     tsc.transpose
// CHECK:         return %[[C]]
func.func @fold_transpose_splat() -> tensor<3x2xf32> {
  %c = tsc.constant dense<5.0> : tensor<2x3xf32>
  %t = tsc.transpose %c perm = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @no_fold_transpose_non_splat
// CHECK:         %[[C:.+]] = tsc.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK:         %[[T:.+]] = tsc.transpose %[[C]] perm = [1, 0]
// CHECK:         return %[[T]]
func.func @no_fold_transpose_non_splat() -> tensor<2x2xi32> {
  %c = tsc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %t = tsc.transpose %c perm = [1, 0] : (tensor<2x2xi32>) -> tensor<2x2xi32>
  return %t : tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func.func @fold_expand_identity
// CHECK-SAME:    (%[[X:.+]]: tensor<2x4xf32>)
// CHECK-NOT:     tsc.expand
// CHECK:         return %[[X]]
func.func @fold_expand_identity(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = tsc.expand %x : tensor<2x4xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// A ? may be 1 in the input and larger in the result.
// CHECK-LABEL: func.func @no_fold_expand_dynamic
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>, %[[N:.+]]: index)
// CHECK:         %[[Y:.+]] = tsc.expand %[[X]][%[[N]]] : tensor<?x4xf32> -> tensor<?x4xf32>
// CHECK:         return %[[Y]]
func.func @no_fold_expand_dynamic(%x: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %y = tsc.expand %x [%n] : tensor<?x4xf32> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_expand_splat
// CHECK:         %[[C:.+]] = tsc.constant dense<-1.000000e+00> : tensor<3x4xf32>
// CHECK-NOT:     tsc.expand
// CHECK:         return %[[C]]
func.func @fold_expand_splat() -> tensor<3x4xf32> {
  %c = tsc.constant dense<-1.0> : tensor<4xf32>
  %e = tsc.expand %c : tensor<4xf32> -> tensor<3x4xf32>
  return %e : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_concat_of_one
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT:     tsc.concat
// CHECK:         return %[[X]]
func.func @fold_concat_of_one(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = tsc.concat %x axis = 0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_slice_identity
// CHECK-SAME:    (%[[X:.+]]: tensor<8x4xf32>)
// CHECK-NOT:     tsc.slice
// CHECK:         return %[[X]]
func.func @fold_slice_identity(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %y = tsc.slice %x [0, 0] [8, 4] [1, 1] : tensor<8x4xf32> to tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// Same type, but a reversal.
// CHECK-LABEL: func.func @no_fold_slice_reversal
// CHECK-SAME:    (%[[X:.+]]: tensor<8xf32>)
// CHECK:         %[[Y:.+]] = tsc.slice %[[X]] [7] [8] [-1]
// CHECK:         return %[[Y]]
func.func @no_fold_slice_reversal(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = tsc.slice %x [7] [8] [-1] : tensor<8xf32> to tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @fold_split_into_one
// CHECK-SAME:    (%[[X:.+]]: tensor<?x8xf32>)
// CHECK-NOT:     tsc.split
// CHECK:         return %[[X]]
func.func @fold_split_into_one(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = tsc.split %x axis = 1 sizes = [8] : tensor<?x8xf32> -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @fold_squeeze_of_unsqueeze
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK-NOT:     tsc.squeeze
// CHECK:         return %[[X]]
func.func @fold_squeeze_of_unsqueeze(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %u = tsc.unsqueeze %x dims = [0, 2] : (tensor<?x768xf32>) -> tensor<1x?x1x768xf32>
  %s = tsc.squeeze %u dims = [0, 2] : (tensor<1x?x1x768xf32>) -> tensor<?x768xf32>
  return %s : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @fold_unsqueeze_of_squeeze
// CHECK-SAME:    (%[[X:.+]]: tensor<?x1x768xf32>)
// CHECK-NOT:     tsc.squeeze
// CHECK-NOT:     tsc.unsqueeze
// CHECK:         return %[[X]]
func.func @fold_unsqueeze_of_squeeze(%x: tensor<?x1x768xf32>) -> tensor<?x1x768xf32> {
  %s = tsc.squeeze %x dims = [1] : (tensor<?x1x768xf32>) -> tensor<?x768xf32>
  %u = tsc.unsqueeze %s dims = [1] : (tensor<?x768xf32>) -> tensor<?x1x768xf32>
  return %u : tensor<?x1x768xf32>
}

// -----

// Squeezing other dims than were inserted is no round trip.
// CHECK-LABEL: func.func @no_fold_squeeze_of_unsqueeze_other_dims
// CHECK-SAME:    (%[[X:.+]]: tensor<1x768xf32>)
// CHECK:         %[[U:.+]] = tsc.unsqueeze %[[X]] dims = [2]
// CHECK:         %[[S:.+]] = tsc.squeeze %[[U]] dims = [0]
// CHECK:         %[[R:.+]] = tsc.reshape %[[S]]
// CHECK:         return %[[R]]
func.func @no_fold_squeeze_of_unsqueeze_other_dims(%x: tensor<1x768xf32>) -> tensor<1x768xf32> {
  %u = tsc.unsqueeze %x dims = [2] : (tensor<1x768xf32>) -> tensor<1x768x1xf32>
  %s = tsc.squeeze %u dims = [0] : (tensor<1x768x1xf32>) -> tensor<768x1xf32>
  %r = tsc.reshape %s : tensor<768x1xf32> -> tensor<1x768xf32>
  return %r : tensor<1x768xf32>
}

// -----

// CHECK-LABEL: func.func @fold_empty_squeeze_unsqueeze
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT:     tsc.squeeze
// CHECK-NOT:     tsc.unsqueeze
// CHECK:         return %[[X]]
func.func @fold_empty_squeeze_unsqueeze(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s = tsc.squeeze %x dims = [] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %u = tsc.unsqueeze %s dims = [] : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %u : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_dim_static
// CHECK:         %[[C:.+]] = arith.constant 768 : index
// CHECK-NOT:     tsc.dim
// CHECK:         return %[[C]]
func.func @fold_dim_static(%x: tensor<?x768xf32>) -> index {
  %d = tsc.dim %x, 1 : tensor<?x768xf32>
  return %d : index
}

// -----

// A dynamic dim of a reshape is its shape operand.
// CHECK-LABEL: func.func @fold_dim_of_reshape
// CHECK-SAME:    (%{{.+}}: tensor<?x768xf32>, %[[A:.+]]: index, %[[B:.+]]: index)
// CHECK-DAG:     %[[C12:.+]] = arith.constant 12 : index
// CHECK-NOT:     tsc.dim
// CHECK:         return %[[A]], %[[C12]], %[[B]]
func.func @fold_dim_of_reshape(%x: tensor<?x768xf32>, %a: index, %b: index) -> (index, index, index) {
  %r = tsc.reshape %x [%a, %b] : tensor<?x768xf32> -> tensor<?x12x?xf32>
  %d0 = tsc.dim %r, 0 : tensor<?x12x?xf32>
  %d1 = tsc.dim %r, 1 : tensor<?x12x?xf32>
  %d2 = tsc.dim %r, 2 : tensor<?x12x?xf32>
  return %d0, %d1, %d2 : index, index, index
}

// -----

// A dim of a slice is its size: Q, K and V split from a fused projection
// read the sizes the split was given.
// CHECK-LABEL: func.func @fold_dim_of_slice
// CHECK-SAME:    (%{{.+}}: tensor<?x?x96xf32>, %[[B:.+]]: index, %[[S:.+]]: index)
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK-NOT:     tsc.dim
// CHECK:         return %[[B]], %[[S]], %[[C32]]
func.func @fold_dim_of_slice(%x: tensor<?x?x96xf32>, %b: index, %s: index) -> (index, index, index) {
  %q = tsc.slice %x [0, 0, 0] [%b, %s, 32] [1, 1, 1] : tensor<?x?x96xf32> to tensor<?x?x32xf32>
  %d0 = tsc.dim %q, 0 : tensor<?x?x32xf32>
  %d1 = tsc.dim %q, 1 : tensor<?x?x32xf32>
  %d2 = tsc.dim %q, 2 : tensor<?x?x32xf32>
  return %d0, %d1, %d2 : index, index, index
}

// -----

// CHECK-LABEL: func.func @fold_dim_of_expand
// CHECK-SAME:    (%{{.+}}: tensor<1x4xf32>, %[[N:.+]]: index)
// CHECK-NOT:     tsc.dim
// CHECK:         return %[[N]]
func.func @fold_dim_of_expand(%x: tensor<1x4xf32>, %n: index) -> index {
  %e = tsc.expand %x [%n] : tensor<1x4xf32> -> tensor<?x4xf32>
  %d = tsc.dim %e, 0 : tensor<?x4xf32>
  return %d : index
}

// -----

// CHECK-LABEL: func.func @no_fold_dim_of_argument
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK:         %[[D:.+]] = tsc.dim %[[X]], 0
// CHECK:         return %[[D]]
func.func @no_fold_dim_of_argument(%x: tensor<?x4xf32>) -> index {
  %d = tsc.dim %x, 0 : tensor<?x4xf32>
  return %d : index
}

// -----

// The size of a bound dim is the symbol it is bound to.
// CHECK-LABEL: func.func @fold_dim_of_bound_value
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK-NOT:     tsc.dim
// CHECK:         return %[[S]]
func.func @fold_dim_of_bound_value(%x: tensor<2x?xf32>) -> index {
  %seq = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%seq], affine_map<()[s0] -> (2, s0)> : tensor<2x?xf32>
  %d = tsc.dim %x, 1 : tensor<2x?xf32>
  return %d : index
}

// -----

// A dynamic dim bound to a constant expression folds to that constant.
// CHECK-LABEL: func.func @fold_dim_bound_to_constant
// CHECK:         %[[C:.+]] = arith.constant 8 : index
// CHECK:         return %[[C]]
func.func @fold_dim_bound_to_constant(%x: tensor<?xf32>) -> index {
  tsc.bind_shape %x[], affine_map<() -> (8)> : tensor<?xf32>
  %d = tsc.dim %x, 0 : tensor<?xf32>
  return %d : index
}

// -----

// Near-misses: a dim bound to a compound expression, and a symbol declared
// after the query (it would not dominate it), stay as they are.
// CHECK-LABEL: func.func @no_fold_dim_compound_or_later_symbol
// CHECK-COUNT-2: tsc.dim
func.func @no_fold_dim_compound_or_later_symbol(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (index, index) {
  %n = tsc.symbol "n" [1, 64]
  tsc.bind_shape %x[%n], affine_map<()[s0] -> (s0 * 2)> : tensor<?xf32>
  %a = tsc.dim %x, 0 : tensor<?xf32>
  %b = tsc.dim %y, 0 : tensor<?xf32>
  %m = tsc.symbol "m" [1, 64]
  tsc.bind_shape %y[%m], affine_map<()[s0] -> (s0)> : tensor<?xf32>
  return %a, %b : index, index
}

// -----

// CHECK-LABEL: func.func @fold_shape_of_static
// CHECK:         %[[C:.+]] = tsc.constant dense<[2, 3, 768]> : tensor<3xi64>
// CHECK-NOT:     tsc.shape_of
// CHECK:         return %[[C]]
func.func @fold_shape_of_static(%x: tensor<2x3x768xf32>) -> tensor<3xi64> {
  %s = tsc.shape_of %x : (tensor<2x3x768xf32>) -> tensor<3xi64>
  return %s : tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @no_fold_shape_of_dynamic
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[S:.+]] = tsc.shape_of %[[X]]
// CHECK:         return %[[S]]
func.func @no_fold_shape_of_dynamic(%x: tensor<?x768xf32>) -> tensor<2xi64> {
  %s = tsc.shape_of %x : (tensor<?x768xf32>) -> tensor<2xi64>
  return %s : tensor<2xi64>
}

// -----

// Dims of intermediates walk up through producers whose result dims are
// operand dims (here gelu, linear, transpose) to a bound argument.
// CHECK-LABEL: func.func @fold_dim_through_producers
// CHECK:         %[[B:.+]] = tsc.symbol "batch"
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK-NOT:     tsc.dim
// CHECK:         return %[[S]], %[[B]]
func.func @fold_dim_through_producers(%x: tensor<?x?x8xf32>, %w: tensor<16x8xf32>) -> (index, index) {
  %batch = tsc.symbol "batch" [1, 8]
  %seq = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1, 8)> : tensor<?x?x8xf32>
  %y = tsc.linear %x, %w : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
  %g = tsc.gelu %y : tensor<?x?x16xf32>
  %t = tsc.transpose %g perm = [1, 0, 2] : (tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  %d0 = tsc.dim %t, 0 : tensor<?x?x16xf32>
  %d1 = tsc.dim %t, 1 : tensor<?x?x16xf32>
  return %d0, %d1 : index, index
}

// -----

// A broadcast dim comes from the operand that is dynamic there, not from a
// size-1 operand.
// CHECK-LABEL: func.func @fold_dim_through_broadcast
// CHECK:         %[[S:.+]] = tsc.symbol "seq"
// CHECK-NOT:     tsc.dim
// CHECK:         return %[[S]]
func.func @fold_dim_through_broadcast(%mask: tensor<1x1x?xf32>, %x: tensor<?x4x1xf32>) -> index {
  %seq = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %mask[%seq], affine_map<()[s0] -> (1, 1, s0)> : tensor<1x1x?xf32>
  %a = tsc.add %x, %mask : (tensor<?x4x1xf32>, tensor<1x1x?xf32>) -> tensor<?x4x?xf32>
  %d = tsc.dim %a, 2 : tensor<?x4x?xf32>
  return %d : index
}

// -----

// A reshape to its own sizes is the identity, however many dims are dynamic.
// CHECK-LABEL: func.func @fold_reshape_to_own_sizes
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x8xf32>)
// CHECK-NOT:     tsc.reshape
// CHECK:         return %[[X]], %[[X]]
func.func @fold_reshape_to_own_sizes(%x: tensor<?x?x8xf32>) -> (tensor<?x?x8xf32>, tensor<?x?x8xf32>) {
  %b = tsc.symbol "b" [1, 8]
  %s = tsc.symbol "s" [1, 64]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 8)> : tensor<?x?x8xf32>
  %r = tsc.reshape %x [%b, %s] : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  %d0 = tsc.dim %x, 0 : tensor<?x?x8xf32>
  %d1 = tsc.dim %x, 1 : tensor<?x?x8xf32>
  %q = tsc.reshape %x [%d0, %d1] : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  return %r, %q : tensor<?x?x8xf32>, tensor<?x?x8xf32>
}

// -----

// Near-miss: the sizes swapped are not the input's own.
// CHECK-LABEL: func.func @no_fold_reshape_swapped_sizes
// CHECK:         tsc.reshape
func.func @no_fold_reshape_swapped_sizes(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %b = tsc.symbol "b" [1, 8]
  %s = tsc.symbol "s" [1, 64]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1, 8)> : tensor<?x?x8xf32>
  %r = tsc.reshape %x [%s, %b] : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  return %r : tensor<?x?x8xf32>
}

// -----

// Ranges of constants fold, integer and float.
// CHECK-LABEL: func.func @fold_constant_ranges
// CHECK-DAG:     %[[I:.+]] = tsc.constant dense<[2, 5, 8]> : tensor<3xi64>
// CHECK-DAG:     %[[F:.+]] = tsc.constant dense<[0.000000e+00, 5.000000e-01, 1.000000e+00, 1.500000e+00]> : tensor<4xf32>
// CHECK-NOT:     tsc.range
// CHECK:         return %[[I]], %[[F]]
func.func @fold_constant_ranges() -> (tensor<3xi64>, tensor<4xf32>) {
  %s = arith.constant 2 : i64
  %l = arith.constant 10 : i64
  %d = arith.constant 3 : i64
  %r = tsc.range %s, %l, %d : i64 -> tensor<3xi64>
  %fs = arith.constant 0.0 : f32
  %fl = arith.constant 2.0 : f32
  %fd = arith.constant 0.5 : f32
  %f = tsc.range %fs, %fl, %fd : f32 -> tensor<4xf32>
  return %r, %f : tensor<3xi64>, tensor<4xf32>
}

// -----

// Concatenations of constants fold along any axis, splats expanded.
// CHECK-LABEL: func.func @fold_constant_concat
// CHECK-DAG:     %[[A:.+]] = tsc.constant dense<{{\[}}[1, 2, 7], [3, 4, 7]]> : tensor<2x3xi32>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<{{\[}}[1, 2], [3, 4], [7, 7]]> : tensor<3x2xi32>
// CHECK-NOT:     tsc.concat
// CHECK:         return %[[A]], %[[B]]
func.func @fold_constant_concat() -> (tensor<2x3xi32>, tensor<3x2xi32>) {
  %x = tsc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %c = tsc.constant dense<7> : tensor<2x1xi32>
  %r = tsc.constant dense<7> : tensor<1x2xi32>
  %a = tsc.concat %x, %c axis = 1 : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  %b = tsc.concat %x, %r axis = 0 : (tensor<2x2xi32>, tensor<1x2xi32>) -> tensor<3x2xi32>
  return %a, %b : tensor<2x3xi32>, tensor<3x2xi32>
}

// -----

// Splats are expanded only up to 256 MiB: two splats of 2^30 floats (a
// hostile model's ConstantOfShape) keep their concatenation, and the
// compiler its memory. An empty outer dim keeps it too.
// CHECK-LABEL: func.func @keep_huge_splat_concat
// CHECK:         tsc.concat
// CHECK:         tsc.concat
func.func @keep_huge_splat_concat() -> (tensor<2147483648xf32>, tensor<0x4xf32>) {
  %a = tsc.constant dense<1.0> : tensor<1073741824xf32>
  %b = tsc.constant dense<2.0> : tensor<1073741824xf32>
  %c = tsc.concat %a, %b axis = 0 : (tensor<1073741824xf32>, tensor<1073741824xf32>) -> tensor<2147483648xf32>
  %e = tsc.constant dense<1.0> : tensor<0x2xf32>
  %f = tsc.concat %e, %e axis = 1 : (tensor<0x2xf32>, tensor<0x2xf32>) -> tensor<0x4xf32>
  return %c, %f : tensor<2147483648xf32>, tensor<0x4xf32>
}
