// RUN: tsc-opt %s --split-input-file | tsc-opt --split-input-file | FileCheck %s

// Round trip of the symbolic-dimension ops, tsc.foreign, tsc.none and
// tsc.constant.

// The symbol's result takes the symbol's name.
// CHECK-LABEL: func.func @symbols_and_bind_shape
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>)
// CHECK:         %[[B:batch]] = tsc.symbol "batch" [1, 64]
// CHECK:         %[[S:seq]] = tsc.symbol "seq" [0, 512]
// CHECK:         tsc.bind_shape %[[X]][%[[B]], %[[S]]], #{{.+}} : tensor<?x?x768xf32>
func.func @symbols_and_bind_shape(%x: tensor<?x?x768xf32>) {
  %batch = tsc.symbol "batch" [1, 64]
  %seq = tsc.symbol "seq" [0, 512]
  tsc.bind_shape %x[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1 * 2, 768)> : tensor<?x?x768xf32>
  return
}

// -----

// A range set on the command line says so.
// CHECK-LABEL: func.func @command_line_symbol
// CHECK:         tsc.symbol "seq" [1, 128] command_line
func.func @command_line_symbol() {
  %seq = tsc.symbol "seq" [1, 128] command_line
  return
}

// -----

// The affine map is printed as an alias; check the map itself.
// CHECK:       #[[MAP:.+]] = affine_map<()[s0, s1] -> (s0, s1 * 2 + 1, 768)>
// CHECK-LABEL: func.func @bind_shape_map
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>)
// CHECK:         tsc.bind_shape %[[X]][%{{.+}}, %{{.+}}], #[[MAP]] : tensor<?x?x768xf32>
func.func @bind_shape_map(%x: tensor<?x?x768xf32>) {
  %b = tsc.symbol "b" [1, 8]
  %s = tsc.symbol "s" [1, 128]
  tsc.bind_shape %x[%b, %s], affine_map<()[s0, s1] -> (s0, s1 * 2 + 1, 768)> : tensor<?x?x768xf32>
  return
}

// -----

// A static tensor may be bound with no symbols; two agreeing bindings of one
// value are fine, even when they list the symbols differently.
// CHECK:       #[[M0:.+]] = affine_map<() -> (4, 8)>
// CHECK:       #[[M1:.+]] = affine_map<()[s0, s1] -> (s1 * 2)>
// CHECK:       #[[M2:.+]] = affine_map<()[s0] -> (s0 * 2)>
// CHECK-LABEL: func.func @bind_shape_static_and_repeated
// CHECK-SAME:    (%[[X:.+]]: tensor<4x8xf32>, %[[Y:.+]]: tensor<?xf32>)
// CHECK:         %[[N:n]] = tsc.symbol "n" [1, 16]
// CHECK:         %[[M:m]] = tsc.symbol "m" [1, 16]
// CHECK:         tsc.bind_shape %[[X]][], #[[M0]] : tensor<4x8xf32>
// CHECK:         tsc.bind_shape %[[Y]][%[[M]], %[[N]]], #[[M1]] : tensor<?xf32>
// CHECK:         tsc.bind_shape %[[Y]][%[[N]]], #[[M2]] : tensor<?xf32>
func.func @bind_shape_static_and_repeated(%x: tensor<4x8xf32>, %y: tensor<?xf32>) {
  %n = tsc.symbol "n" [1, 16]
  %m = tsc.symbol "m" [1, 16]
  tsc.bind_shape %x[], affine_map<() -> (4, 8)> : tensor<4x8xf32>
  tsc.bind_shape %y[%m, %n], affine_map<()[s0, s1] -> (s1 * 2)> : tensor<?xf32>
  tsc.bind_shape %y[%n], affine_map<()[s0] -> (s0 + s0)> : tensor<?xf32>
  return
}

// -----

// Graph attributes are regions; their nodes read outer values directly.
// CHECK-LABEL: func.func @foreign_with_subgraphs
// CHECK-SAME:    (%[[C:.+]]: tensor<i1>, %[[X:.+]]: tensor<2xf32>)
// CHECK:         %[[Y:.+]] = tsc.foreign "onnx" "If" version 11 (%[[C]]) {else_branch = 1 : index, then_branch = 0 : index} subgraphs {
// CHECK-NEXT:      %[[N:.+]] = tsc.foreign "onnx" "Neg" version 11 (%[[X]]) {} : (tensor<2xf32>) -> none
// CHECK-NEXT:      tsc.yield %[[N]] : none
// CHECK-NEXT:    }, {
// CHECK-NEXT:    ^bb0(%[[A:.+]]: none):
// CHECK-NEXT:      tsc.yield %[[A]] : none
// CHECK-NEXT:    } : (tensor<i1>) -> none
func.func @foreign_with_subgraphs(%c: tensor<i1>, %x: tensor<2xf32>) -> none {
  %y = tsc.foreign "onnx" "If" version 11 (%c) {else_branch = 1 : index,
      then_branch = 0 : index} subgraphs {
    %n = tsc.foreign "onnx" "Neg" version 11 (%x) {} : (tensor<2xf32>) -> none
    tsc.yield %n : none
  }, {
  ^bb0(%a: none):
    tsc.yield %a : none
  } : (tensor<i1>) -> none
  return %y : none
}

// -----

// CHECK-LABEL: func.func @foreign_with_none
// CHECK-SAME:    (%[[X:.+]]: tensor<4xf32>, %[[MAX:.+]]: tensor<f32>)
// CHECK:         %[[NONE:.+]] = tsc.none
// CHECK:         %[[Y:.+]] = tsc.foreign "onnx" "Clip" version 13 (%[[X]], %[[NONE]], %[[MAX]]) {} : (tensor<4xf32>, none, tensor<f32>) -> tensor<4xf32>
// CHECK:         return %[[Y]]
func.func @foreign_with_none(%x: tensor<4xf32>, %max: tensor<f32>) -> tensor<4xf32> {
  %none = tsc.none
  %y = tsc.foreign "onnx" "Clip" version 13 (%x, %none, %max) {}
      : (tensor<4xf32>, none, tensor<f32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Source attributes are kept verbatim; a foreign op may have several results
// or none, and non-tensor operands.
// CHECK-LABEL: func.func @foreign_attributes_and_results
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>, %[[I:.+]]: i64)
// CHECK:         %[[Y:.+]] = tsc.foreign "onnx" "Gelu" version 20 (%[[X]]) {approximate = "tanh"} : (tensor<?x768xf32>) -> tensor<?x768xf32>
// CHECK:         %[[P:.+]]:2 = tsc.foreign "aten" "topk" version 0 (%[[X]], %[[I]]) {dim = -1 : i64, largest = true} : (tensor<?x768xf32>, i64) -> (tensor<?x?xf32>, tensor<?x?xi64>)
// CHECK:         tsc.foreign "prim" "Print" version 1 (%[[Y]]) {} : (tensor<?x768xf32>) -> ()
// CHECK:         return %[[Y]], %[[P]]#0, %[[P]]#1
func.func @foreign_attributes_and_results(%x: tensor<?x768xf32>, %i: i64)
    -> (tensor<?x768xf32>, tensor<?x?xf32>, tensor<?x?xi64>) {
  %y = tsc.foreign "onnx" "Gelu" version 20 (%x) {approximate = "tanh"}
      : (tensor<?x768xf32>) -> tensor<?x768xf32>
  %v, %idx = tsc.foreign "aten" "topk" version 0 (%x, %i) {dim = -1 : i64, largest = true}
      : (tensor<?x768xf32>, i64) -> (tensor<?x?xf32>, tensor<?x?xi64>)
  tsc.foreign "prim" "Print" version 1 (%y) {} : (tensor<?x768xf32>) -> ()
  return %y, %v, %idx : tensor<?x768xf32>, tensor<?x?xf32>, tensor<?x?xi64>
}

// -----

// CHECK-LABEL: func.func @constant_dense
// CHECK-DAG:     %[[A:.+]] = tsc.constant dense<[0, 12, 64]> : tensor<3xi64>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-DAG:     %[[C:.+]] = tsc.constant dense<true> : tensor<i1>
// CHECK-DAG:     %[[D:.+]] = tsc.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi8>
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @constant_dense() -> (tensor<3xi64>, tensor<2x3xf32>, tensor<i1>, tensor<2x2xi8>) {
  %a = tsc.constant dense<[0, 12, 64]> : tensor<3xi64>
  %b = tsc.constant dense<1.0> : tensor<2x3xf32>
  %c = tsc.constant dense<true> : tensor<i1>
  %d = tsc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  return %a, %b, %c, %d : tensor<3xi64>, tensor<2x3xf32>, tensor<i1>, tensor<2x2xi8>
}

// -----

// Weights are dense_resource blobs; the blob survives both round trips.
// CHECK-LABEL: func.func @constant_dense_resource
// CHECK:         %[[W:.+]] = tsc.constant dense_resource<w0> : tensor<2x2xf32>
// CHECK:         return %[[W]]
// CHECK:       dialect_resources
// CHECK:         builtin
// CHECK:           w0: "0x040000000000803F000000400000404000008040"
func.func @constant_dense_resource() -> tensor<2x2xf32> {
  %w = tsc.constant dense_resource<w0> : tensor<2x2xf32>
  return %w : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
