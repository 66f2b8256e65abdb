// RUN: tsc-opt %s --split-input-file --canonicalize | FileCheck %s

// A run-time scan axis that is a constant (shape arithmetic folded after
// the conversion) becomes the static axis, normalized when negative.
// CHECK-LABEL: func.func @constant_runtime_axis_folds
// CHECK-SAME:    (%[[X:.+]]: tensor<4x5xf32>)
// CHECK:         %[[S:.+]] = tsc.cumsum %[[X]] axis = 1 reverse : tensor<4x5xf32>
// CHECK-NEXT:    return %[[S]]
func.func @constant_runtime_axis_folds(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %a = tsc.constant dense<-1> : tensor<i64>
  %s = tsc.cumsum %x runtime_axis %a reverse : tensor<4x5xf32>, tensor<i64>
  return %s : tensor<4x5xf32>
}

// -----

// An axis out of range stays at run time (the verifier cannot reject what
// only the value says).
// CHECK-LABEL: func.func @out_of_range_axis_stays
// CHECK:         tsc.cumprod %{{.+}} runtime_axis %{{.+}} : tensor<4x5xi32>, tensor<i32>
func.func @out_of_range_axis_stays(%x: tensor<4x5xi32>) -> tensor<4x5xi32> {
  %a = tsc.constant dense<2> : tensor<i32>
  %s = tsc.cumprod %x runtime_axis %a : tensor<4x5xi32>, tensor<i32>
  return %s : tensor<4x5xi32>
}
