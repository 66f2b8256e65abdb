// RUN: tsc-opt %s --split-input-file --canonicalize | FileCheck %s

// tsc.dim of an indexing op's result folds to the operand dim it comes from.

// A gather_elements result has the indices' shape.
// CHECK-LABEL: func.func @dim_of_gather_elements
// CHECK-SAME:    (%{{.+}}: tensor<?x32xf32>, %[[I:.+]]: tensor<?x?xi64>)
// CHECK:         %[[D:.+]] = tsc.dim %[[I]], 1 : tensor<?x?xi64>
// CHECK:         return %[[D]]
func.func @dim_of_gather_elements(%d: tensor<?x32xf32>, %i: tensor<?x?xi64>) -> index {
  %g = tsc.gather_elements %d[%i] axis = 1 : (tensor<?x32xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  %n = tsc.dim %g, 1 : tensor<?x?xf32>
  return %n : index
}

// -----

// gather_nd: the tuples' dims from the indices, the slice's from the data.
// CHECK-LABEL: func.func @dim_of_gather_nd
// CHECK-SAME:    (%[[D:.+]]: tensor<4x?x?xf32>, %[[I:.+]]: tensor<?x1xi64>)
// CHECK-DAG:     %[[T:.+]] = tsc.dim %[[I]], 0 : tensor<?x1xi64>
// CHECK-DAG:     %[[S:.+]] = tsc.dim %[[D]], 2 : tensor<4x?x?xf32>
// CHECK:         return %[[T]], %[[S]]
func.func @dim_of_gather_nd(%d: tensor<4x?x?xf32>, %i: tensor<?x1xi64>) -> (index, index) {
  %g = tsc.gather_nd %d[%i] batch_dims = 0 : (tensor<4x?x?xf32>, tensor<?x1xi64>) -> tensor<?x?x?xf32>
  %t = tsc.dim %g, 0 : tensor<?x?x?xf32>
  %s = tsc.dim %g, 2 : tensor<?x?x?xf32>
  return %t, %s : index, index
}

// -----

// A pad keeps the dims it adds no border to; a padded dynamic dim stays.
// CHECK-LABEL: func.func @dim_of_pad
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?xf32>)
// CHECK:         %[[P:.+]] = tsc.pad %[[X]]
// CHECK-DAG:     %[[B:.+]] = tsc.dim %[[X]], 0 : tensor<?x?xf32>
// CHECK-DAG:     %[[W:.+]] = tsc.dim %[[P]], 1 : tensor<?x?xf32>
// CHECK:         return %[[B]], %[[W]]
func.func @dim_of_pad(%x: tensor<?x?xf32>) -> (index, index) {
  %p = tsc.pad %x low = [0, 1] high = [0, 1] : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %b = tsc.dim %p, 0 : tensor<?x?xf32>
  %w = tsc.dim %p, 1 : tensor<?x?xf32>
  return %b, %w : index, index
}
