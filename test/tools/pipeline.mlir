// tsc-opt replays the driver's pipeline: the same registered passes give the
// same IR as `tsc --emit`.
// RUN: tsc %s --emit=graph -o %t.driver.mlir
// RUN: tsc-opt %s --tsc-pipeline=until=graph | diff %t.driver.mlir -
// RUN: tsc %s --emit=import -o %t.import.mlir
// RUN: tsc-opt %s --tsc-pipeline=until=import | diff %t.import.mlir -
// RUN: tsc-opt %s --tsc-pipeline=until=graph | FileCheck %s

// CHECK-LABEL: func.func @folds_and_binds
// CHECK:         %[[N:.+]] = tsc.symbol "n" [1, 32]
// CHECK:         %[[Y:.+]] = tsc.relu
// CHECK-NEXT:    tsc.bind_shape %[[Y]][%[[N]]]
// CHECK-NOT:     tsc.neg
func.func @folds_and_binds(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %n = tsc.symbol "n" [1, 32]
  tsc.bind_shape %x[%n], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  %a = tsc.neg %x : tensor<?x16xf32>
  %b = tsc.neg %a : tensor<?x16xf32>
  %y = tsc.relu %b : tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
