// RUN: tsc-opt %s --split-input-file --tsc-convert-torch-to-tsc | FileCheck %s

// Views and their sizes: aten::size arithmetic folds to dims, so a traced
// x.view(b, s, heads, -1) keeps its dynamic dims.

// CHECK-LABEL: func.func @view_with_sizes_from_the_input
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x32xf32>) -> tensor<?x?x4x8xf32>
// CHECK-DAG:     %[[B:.+]] = tsc.dim %[[X]], 0
// CHECK-DAG:     %[[S:.+]] = tsc.dim %[[X]], 1
// CHECK:         %[[R:.+]] = tsc.reshape %[[X]][%[[B]], %[[S]]] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
// CHECK:         return %[[R]]
func.func @view_with_sizes_from_the_input(%x: tensor<?x?x32xf32>) -> none {
  %c0 = tsc.constant dense<0> : tensor<i64>
  %c1 = tsc.constant dense<1> : tensor<i64>
  %heads = tsc.constant dense<4> : tensor<i64>
  %minus1 = tsc.constant dense<-1> : tensor<i64>
  %b = tsc.foreign "aten" "size" version 10 (%x, %c0) {dim = 0 : i64, overload = "int"} : (tensor<?x?x32xf32>, tensor<i64>) -> none
  %s = tsc.foreign "aten" "size" version 10 (%x, %c1) {dim = 1 : i64, overload = "int"} : (tensor<?x?x32xf32>, tensor<i64>) -> none
  %shape = tsc.foreign "prim" "ListConstruct" version 10 (%b, %s, %heads, %minus1) {arg2 = 4 : i64, arg3 = -1 : i64} : (none, none, tensor<i64>, tensor<i64>) -> none
  %0 = tsc.foreign "aten" "view" version 10 (%x, %shape) {} : (tensor<?x?x32xf32>, none) -> none
  return %0 : none
}

// -----

// Scripted code unpacks x.size(): the importer gives aten::size one result
// per dim; h * d is computed on the unpacked sizes.
// CHECK-LABEL: func.func @reshape_with_unpacked_sizes
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x4x8xf32>) -> tensor<?x?x32xf32>
// CHECK:         tsc.reshape %[[X]]
// CHECK-SAME:      -> tensor<?x?x32xf32>
func.func @reshape_with_unpacked_sizes(%x: tensor<?x?x4x8xf32>) -> none {
  %sizes:4 = tsc.foreign "aten" "size" version 10 (%x) {unpacked} : (tensor<?x?x4x8xf32>) -> (none, none, none, none)
  %hd = tsc.foreign "aten" "mul" version 10 (%sizes#2, %sizes#3) {overload = "int"} : (none, none) -> none
  %shape = tsc.foreign "prim" "ListConstruct" version 10 (%sizes#0, %sizes#1, %hd) {} : (none, none, none) -> none
  %0 = tsc.foreign "aten" "reshape" version 10 (%x, %shape) {} : (tensor<?x?x4x8xf32>, none) -> none
  return %0 : none
}

// -----

// CHECK-LABEL: func.func @transpose_permute_unsqueeze_squeeze
// CHECK:         tsc.transpose %{{.+}} perm = [0, 2, 1, 3]
// CHECK:         tsc.transpose %{{.+}} perm = [0, 1, 3, 2]
// CHECK:         tsc.unsqueeze %{{.+}} dims = [1]
// CHECK:         tsc.squeeze %{{.+}} dims = [0]
func.func @transpose_permute_unsqueeze_squeeze(%x: tensor<2x3x4x5xf32>, %y: tensor<1x7xf32>) -> (none, none, none, none) {
  %c1 = tsc.constant dense<1> : tensor<i64>
  %c2 = tsc.constant dense<2> : tensor<i64>
  %c0 = tsc.constant dense<0> : tensor<i64>
  %perm = tsc.constant dense<[0, 1, -1, -2]> : tensor<4xi64>
  %0 = tsc.foreign "aten" "transpose" version 10 (%x, %c1, %c2) {dim0 = 1 : i64, dim1 = 2 : i64, overload = "int"} : (tensor<2x3x4x5xf32>, tensor<i64>, tensor<i64>) -> none
  %1 = tsc.foreign "aten" "permute" version 10 (%x, %perm) {dims = array<i64: 0, 1, -1, -2>} : (tensor<2x3x4x5xf32>, tensor<4xi64>) -> none
  %2 = tsc.foreign "aten" "unsqueeze" version 10 (%y, %c1) {dim = 1 : i64} : (tensor<1x7xf32>, tensor<i64>) -> none
  %3 = tsc.foreign "aten" "squeeze" version 10 (%y, %c0) {dim = 0 : i64, overload = "dim"} : (tensor<1x7xf32>, tensor<i64>) -> none
  return %0, %1, %2, %3 : none, none, none, none
}

// -----

// Python slicing with a run-time end (positions[:, :seq]) and None bounds.
// CHECK-LABEL: func.func @slice_to_a_size
// CHECK-SAME:    (%[[P:.+]]: tensor<1x64xi64>, %[[X:.+]]: tensor<?x?xi64>)
// CHECK:         %[[S:.+]] = tsc.dim %[[X]], 1
// CHECK:         %[[R:.+]] = tsc.slice %[[P]] [0, 0] [1, %[[S]]] [1, 1]
// CHECK:         return %[[R]]
func.func @slice_to_a_size(%p: tensor<1x64xi64>, %x: tensor<?x?xi64>) -> none {
  %c1 = tsc.constant dense<1> : tensor<i64>
  %none = tsc.none
  %seq = tsc.foreign "aten" "size" version 10 (%x, %c1) {dim = 1 : i64, overload = "int"} : (tensor<?x?xi64>, tensor<i64>) -> none
  %0 = tsc.foreign "aten" "slice" version 10 (%p, %c1, %none, %seq, %c1) {dim = 1 : i64, overload = "Tensor", step = 1 : i64} : (tensor<1x64xi64>, tensor<i64>, none, none, tensor<i64>) -> none
  return %0 : none
}

// -----

// q, k, v = x.split(32, -1): the importer made the unpacked pieces results.
// CHECK-LABEL: func.func @split_unpacked
// CHECK:         %[[P:.+]]:3 = tsc.split %{{.+}} axis = 2 sizes = [32, 32, 32]
// CHECK:         return %[[P]]#0, %[[P]]#1, %[[P]]#2
func.func @split_unpacked(%x: tensor<?x?x96xf32>) -> (none, none, none) {
  %size = tsc.constant dense<32> : tensor<i64>
  %dim = tsc.constant dense<-1> : tensor<i64>
  %0:3 = tsc.foreign "aten" "split" version 10 (%x, %size, %dim) {dim = -1 : i64, overload = "Tensor", split_size = 32 : i64, unpacked} : (tensor<?x?x96xf32>, tensor<i64>, tensor<i64>) -> (none, none, none)
  return %0#0, %0#1, %0#2 : none, none, none
}

// -----

// cat reads its Tensor[] from the ListConstruct, which then goes away.
// CHECK-LABEL: func.func @cat_of_a_list
// CHECK-NOT:     tsc.foreign
// CHECK:         %[[C:.+]] = tsc.concat %{{.+}}, %{{.+}} axis = 1
// CHECK:         return %[[C]]
func.func @cat_of_a_list(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> none {
  %dim = tsc.constant dense<1> : tensor<i64>
  %list = tsc.foreign "prim" "ListConstruct" version 10 (%a, %b) {} : (tensor<2x3xf32>, tensor<2x5xf32>) -> none
  %0 = tsc.foreign "aten" "cat" version 10 (%list, %dim) {dim = 1 : i64} : (none, tensor<i64>) -> none
  return %0 : none
}

// -----

// Factories: arange over a run-time size, a filled square, its triangle.
// CHECK-LABEL: func.func @arange_full_triu
// CHECK:         tsc.range {{.+}} -> tensor<?xi64>
// CHECK:         %[[F:.+]] = tsc.expand
// CHECK-SAME:      -> tensor<?x?xf32>
// CHECK:         tsc.trilu %[[F]] upper diagonal = 1
func.func @arange_full_triu(%x: tensor<?x?xi64>) -> (none, none) {
  %c1 = tsc.constant dense<1> : tensor<i64>
  %fill = tsc.constant dense<-3.0e38> : tensor<f64>
  %none = tsc.none
  %s = tsc.foreign "aten" "size" version 10 (%x, %c1) {dim = 1 : i64, overload = "int"} : (tensor<?x?xi64>, tensor<i64>) -> none
  %pos = tsc.foreign "aten" "arange" version 10 (%s, %none, %none, %none, %none) {} : (none, none, none, none, none) -> none
  %shape = tsc.foreign "prim" "ListConstruct" version 10 (%s, %s) {} : (none, none) -> none
  %full = tsc.foreign "aten" "full" version 10 (%shape, %fill, %none, %none, %none, %none) {fill_value = -3.0e38 : f64} : (none, tensor<f64>, none, none, none, none) -> none
  %triu = tsc.foreign "aten" "triu" version 10 (%full, %c1) {diagonal = 1 : i64} : (none, tensor<i64>) -> none
  return %pos, %triu : none, none
}

// -----

// repeat_interleave of K/V heads (grouped-query attention).
// CHECK-LABEL: func.func @repeat_interleave_heads
// CHECK:         tsc.unsqueeze %{{.+}} dims = [2]
// CHECK:         tsc.expand
// CHECK:         tsc.reshape {{.+}} -> tensor<?x4x?x8xf32>
func.func @repeat_interleave_heads(%kv: tensor<?x2x?x8xf32>) -> none {
  %two = tsc.constant dense<2> : tensor<i64>
  %dim = tsc.constant dense<1> : tensor<i64>
  %none = tsc.none
  %0 = tsc.foreign "aten" "repeat_interleave" version 10 (%kv, %two, %dim, %none) {dim = 1 : i64, overload = "self_int", repeats = 2 : i64} : (tensor<?x2x?x8xf32>, tensor<i64>, tensor<i64>, none) -> none
  return %0 : none
}

// -----

// repeat tiles, with a leading dim for an extra repeat: [3, 4] repeated
// (2, 1, 2) is [1, 3, 4] viewed [1, 1, 1, 3, 1, 4], broadcast to
// [2, 1, 1, 3, 2, 4] and merged to [2, 3, 8].
// CHECK-LABEL: func.func @repeat_tiles
// CHECK:         tsc.reshape %{{.+}} : tensor<3x4xf32> -> tensor<1x1x1x3x1x4xf32>
// CHECK:         tsc.expand %{{.+}} : tensor<1x1x1x3x1x4xf32> -> tensor<2x1x1x3x2x4xf32>
// CHECK:         tsc.reshape %{{.+}} : tensor<2x1x1x3x2x4xf32> -> tensor<2x3x8xf32>
func.func @repeat_tiles(%x: tensor<3x4xf32>) -> none {
  %two = tsc.constant dense<2> : tensor<i64>
  %one = tsc.constant dense<1> : tensor<i64>
  %reps = tsc.foreign "prim" "ListConstruct" version 10 (%two, %one, %two) {} : (tensor<i64>, tensor<i64>, tensor<i64>) -> none
  %0 = tsc.foreign "aten" "repeat" version 10 (%x, %reps) {} : (tensor<3x4xf32>, none) -> none
  return %0 : none
}

// -----

// embedding(weight, ids) gathers rows.
// CHECK-LABEL: func.func @embedding_gathers_rows
// CHECK:         tsc.gather %{{.+}}[%{{.+}}] axis = 0 : (tensor<64x32xf32>, tensor<?x?xi64>) -> tensor<?x?x32xf32>
func.func @embedding_gathers_rows(%w: tensor<64x32xf32>, %ids: tensor<?x?xi64>) -> none {
  %m1 = tsc.constant dense<-1> : tensor<i64>
  %f = tsc.constant dense<false> : tensor<i1>
  %0 = tsc.foreign "aten" "embedding" version 10 (%w, %ids, %m1, %f, %f) {padding_idx = -1 : i64, scale_grad_by_freq = false, sparse = false} : (tensor<64x32xf32>, tensor<?x?xi64>, tensor<i64>, tensor<i1>, tensor<i1>) -> none
  return %0 : none
}
