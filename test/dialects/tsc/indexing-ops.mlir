// RUN: tsc-opt %s --split-input-file | tsc-opt --split-input-file | FileCheck %s

// Round trip of the indexing ops: gathers, scatters, pad, reverse_sequence.

// CHECK-LABEL: func.func @gathers
// CHECK-SAME:    (%[[D:.+]]: tensor<?x32xf32>, %[[I:.+]]: tensor<?x1xi64>, %[[T:.+]]: tensor<2x2x2xi32>, %[[J:.+]]: tensor<2x1xi64>)
// CHECK:         %[[E:.+]] = tsc.gather_elements %[[D]][%[[I]]] axis = 1 : (tensor<?x32xf32>, tensor<?x1xi64>) -> tensor<?x1xf32>
// CHECK:         %[[N:.+]] = tsc.gather_nd %[[T]][%[[J]]] batch_dims = 1 : (tensor<2x2x2xi32>, tensor<2x1xi64>) -> tensor<2x2xi32>
// CHECK:         return %[[E]], %[[N]]
func.func @gathers(%d: tensor<?x32xf32>, %i: tensor<?x1xi64>, %t: tensor<2x2x2xi32>, %j: tensor<2x1xi64>)
    -> (tensor<?x1xf32>, tensor<2x2xi32>) {
  %e = tsc.gather_elements %d[%i] axis = 1 : (tensor<?x32xf32>, tensor<?x1xi64>) -> tensor<?x1xf32>
  %n = tsc.gather_nd %t[%j] batch_dims = 1 : (tensor<2x2x2xi32>, tensor<2x1xi64>) -> tensor<2x2xi32>
  return %e, %n : tensor<?x1xf32>, tensor<2x2xi32>
}

// -----

// The default reduction (none) is not printed.
// CHECK-LABEL: func.func @scatters
// CHECK-SAME:    (%[[D:.+]]: tensor<1x5xf32>, %[[I:.+]]: tensor<1x2xi64>, %[[U:.+]]: tensor<1x2xf32>, %[[C:.+]]: tensor<8x4x4xf32>, %[[P:.+]]: tensor<?x1xi64>, %[[R:.+]]: tensor<?x4x4xf32>)
// CHECK:         %[[A:.+]] = tsc.scatter_elements %[[D]][%[[I]]], %[[U]] axis = 1 reduction = add : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
// CHECK:         %[[B:.+]] = tsc.scatter_elements %[[A]][%[[I]]], %[[U]] axis = 1 : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
// CHECK:         %[[N:.+]] = tsc.scatter_nd %[[C]][%[[P]]], %[[R]] reduction = max : (tensor<8x4x4xf32>, tensor<?x1xi64>, tensor<?x4x4xf32>) -> tensor<8x4x4xf32>
// CHECK:         %[[M:.+]] = tsc.scatter_nd %[[N]][%[[P]]], %[[R]] : (tensor<8x4x4xf32>, tensor<?x1xi64>, tensor<?x4x4xf32>) -> tensor<8x4x4xf32>
// CHECK:         return %[[B]], %[[M]]
func.func @scatters(%d: tensor<1x5xf32>, %i: tensor<1x2xi64>, %u: tensor<1x2xf32>,
                    %c: tensor<8x4x4xf32>, %p: tensor<?x1xi64>, %r: tensor<?x4x4xf32>)
    -> (tensor<1x5xf32>, tensor<8x4x4xf32>) {
  %a = tsc.scatter_elements %d[%i], %u axis = 1 reduction = add : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
  %b = tsc.scatter_elements %a[%i], %u axis = 1 reduction = none : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
  %n = tsc.scatter_nd %c[%p], %r reduction = max : (tensor<8x4x4xf32>, tensor<?x1xi64>, tensor<?x4x4xf32>) -> tensor<8x4x4xf32>
  %m = tsc.scatter_nd %n[%p], %r : (tensor<8x4x4xf32>, tensor<?x1xi64>, tensor<?x4x4xf32>) -> tensor<8x4x4xf32>
  return %b, %m : tensor<1x5xf32>, tensor<8x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @tensor_scatter
// CHECK-SAME:    (%[[C:.+]]: tensor<4x8x1024x64xf16>, %[[W:.+]]: tensor<4xi64>, %[[U:.+]]: tensor<4x8x?x64xf16>)
// CHECK:         %[[A:.+]] = tsc.tensor_scatter %[[C]][%[[W]]], %[[U]] axis = 2 : (tensor<4x8x1024x64xf16>, tensor<4xi64>, tensor<4x8x?x64xf16>) -> tensor<4x8x1024x64xf16>
// CHECK:         %[[B:.+]] = tsc.tensor_scatter %[[A]], %[[U]] axis = 2 circular : (tensor<4x8x1024x64xf16>, tensor<4x8x?x64xf16>) -> tensor<4x8x1024x64xf16>
// CHECK:         return %[[B]]
func.func @tensor_scatter(%c: tensor<4x8x1024x64xf16>, %w: tensor<4xi64>, %u: tensor<4x8x?x64xf16>) -> tensor<4x8x1024x64xf16> {
  %a = tsc.tensor_scatter %c[%w], %u axis = 2 : (tensor<4x8x1024x64xf16>, tensor<4xi64>, tensor<4x8x?x64xf16>) -> tensor<4x8x1024x64xf16>
  %b = tsc.tensor_scatter %a, %u axis = 2 circular : (tensor<4x8x1024x64xf16>, tensor<4x8x?x64xf16>) -> tensor<4x8x1024x64xf16>
  return %b : tensor<4x8x1024x64xf16>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3x32x32xf32>, %[[IDS:.+]]: tensor<?x5xi64>, %[[V:.+]]: tensor<i64>)
// CHECK:         %[[R:.+]] = tsc.pad %[[X]] low = [0, 0, 1, 1] high = [0, 0, 1, 1] mode = reflect : (tensor<?x3x32x32xf32>) -> tensor<?x3x34x34xf32>
// CHECK:         %[[C:.+]] = tsc.pad %[[IDS]], %[[V]] low = [0, 0] high = [0, 3] : (tensor<?x5xi64>, tensor<i64>) -> tensor<?x8xi64>
// CHECK:         return %[[R]], %[[C]]
func.func @pad(%x: tensor<?x3x32x32xf32>, %ids: tensor<?x5xi64>, %v: tensor<i64>)
    -> (tensor<?x3x34x34xf32>, tensor<?x8xi64>) {
  %r = tsc.pad %x low = [0, 0, 1, 1] high = [0, 0, 1, 1] mode = reflect : (tensor<?x3x32x32xf32>) -> tensor<?x3x34x34xf32>
  %c = tsc.pad %ids, %v low = [0, 0] high = [0, 3] mode = constant : (tensor<?x5xi64>, tensor<i64>) -> tensor<?x8xi64>
  return %r, %c : tensor<?x3x34x34xf32>, tensor<?x8xi64>
}

// -----

// CHECK-LABEL: func.func @reverse_sequence
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4x16xf32>, %[[L:.+]]: tensor<4xi64>)
// CHECK:         %[[Y:.+]] = tsc.reverse_sequence %[[X]], %[[L]] batch_axis = 1 time_axis = 0 : (tensor<?x4x16xf32>, tensor<4xi64>) -> tensor<?x4x16xf32>
// CHECK:         return %[[Y]]
func.func @reverse_sequence(%x: tensor<?x4x16xf32>, %l: tensor<4xi64>) -> tensor<?x4x16xf32> {
  %y = tsc.reverse_sequence %x, %l batch_axis = 1 time_axis = 0 : (tensor<?x4x16xf32>, tensor<4xi64>) -> tensor<?x4x16xf32>
  return %y : tensor<?x4x16xf32>
}
