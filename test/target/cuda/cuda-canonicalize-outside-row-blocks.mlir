// RUN: tsc-opt %s --split-input-file --tsc-cuda-canonicalize-outside-row-blocks | FileCheck %s

// A one-row loop folds away, but not a row block's: its unit dim carries the
// tsc.row_blocks mark and its rows' mapping.

// CHECK-LABEL: func.func @keeps_row_block_unit_dims
// CHECK-SAME:    (%[[A:.+]]: memref<1x64xf32>, %[[B:.+]]: memref<1x64xf32>)
// CHECK:         scf.parallel (%[[R:.+]]) =
// CHECK:           memref.load %[[A]][%[[R]],
// CHECK:         } {tsc.row_blocks}
// CHECK-NOT:     scf.parallel
// CHECK:         %[[V:.+]] = memref.load %[[A]]
// CHECK:         memref.store %[[V]], %[[B]]
func.func @keeps_row_block_unit_dims(%a: memref<1x64xf32>, %b: memref<1x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%r) = (%c0) to (%c1) step (%c1) {
    %v = memref.load %a[%r, %c0] : memref<1x64xf32>
    memref.store %v, %b[%r, %c0] : memref<1x64xf32>
    scf.reduce
  } {tsc.row_blocks}
  scf.parallel (%r) = (%c0) to (%c1) step (%c1) {
    %v = memref.load %a[%r, %c1] : memref<1x64xf32>
    memref.store %v, %b[%r, %c1] : memref<1x64xf32>
    scf.reduce
  }
  return
}
