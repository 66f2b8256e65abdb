// RUN: not tsc-opt %s --tsc-convert-torch-to-tsc 2>&1 | FileCheck %s

// Every op without a converter is listed at once, with counts and node
// names; a node reading an unsupported one says nothing more.
// CHECK:      error: 2 unsupported TorchScript op type(s):
// CHECK-NEXT:   aten::fancy_op: 2 node(s), e.g. '/layers.0/fancy', '/layers.1/fancy'
// CHECK-NEXT:   prim::If: 1 node(s), e.g. '/layers.0/branch'
// CHECK-NOT:  error:
func.func @unsupported_ops_listed_together(%x: tensor<4xf32>) -> (none, none, none) {
  %0 = tsc.foreign "aten" "fancy_op" version 10 (%x) {} : (tensor<4xf32>) -> none loc("/layers.0/fancy")
  %1 = tsc.foreign "aten" "fancy_op" version 10 (%x) {} : (tensor<4xf32>) -> none loc("/layers.1/fancy")
  %2 = tsc.foreign "prim" "If" version 10 (%x) {blocks = 2 : i64} : (tensor<4xf32>) -> none loc("/layers.0/branch")
  %3 = tsc.foreign "aten" "relu" version 10 (%0) {} : (none) -> none
  return %1, %2, %3 : none, none, none
}
