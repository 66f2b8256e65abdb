// RUN: tsc-opt %s --split-input-file --canonicalize | FileCheck %s

// Modulo folds on small constants (head-count remainders of exporters' shape
// subgraphs): mod takes the divisor's sign, fmod the dividend's; an integer
// divisor of 0 gives 0, as the lowering computes.

// CHECK-LABEL: func.func @fold_mod_signs_i64
// CHECK:         %[[C:.+]] = tsc.constant dense<[2, -2, -1, 1, 0, 0]> : tensor<6xi64>
// CHECK-NOT:     tsc.mod
// CHECK:         return %[[C]]
func.func @fold_mod_signs_i64() -> tensor<6xi64> {
  %a = tsc.constant dense<[-7, 7, -7, 7, 6, 5]> : tensor<6xi64>
  %b = tsc.constant dense<[3, -3, -3, 3, -3, 0]> : tensor<6xi64>
  %c = tsc.mod %a, %b : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  return %c : tensor<6xi64>
}

// -----

// CHECK-LABEL: func.func @fold_fmod_signs_i32
// CHECK:         %[[C:.+]] = tsc.constant dense<[-1, 1, -1, 1, 0, 0]> : tensor<6xi32>
// CHECK-NOT:     tsc.fmod
// CHECK:         return %[[C]]
func.func @fold_fmod_signs_i32() -> tensor<6xi32> {
  %a = tsc.constant dense<[-7, 7, -7, 7, 6, 5]> : tensor<6xi32>
  %b = tsc.constant dense<[3, -3, -3, 3, -3, 0]> : tensor<6xi32>
  %c = tsc.fmod %a, %b : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  return %c : tensor<6xi32>
}

// -----

// Unsigned elements divide as unsigned: 250 is not -6.
// CHECK-LABEL: func.func @fold_mod_unsigned
// CHECK:         %[[C:.+]] = tsc.constant dense<[2, 0]> : tensor<2xui8>
// CHECK:         return %[[C]]
func.func @fold_mod_unsigned() -> tensor<2xui8> {
  %a = tsc.constant dense<[250, 9]> : tensor<2xui8>
  %b = tsc.constant dense<[4, 3]> : tensor<2xui8>
  %c = tsc.mod %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %c : tensor<2xui8>
}

// -----

// Floats broadcast; a zero result takes the divisor's sign (-0.0 for a
// negative divisor), and a finite x against an infinite divisor gives the
// divisor where their signs differ, else x.
// CHECK-LABEL: func.func @fold_mod_float_broadcast
// CHECK:         %[[C:.+]] = tsc.constant dense<{{\[}}[1.500000e+00, -0.000000e+00, 0x7F800000], [2.000000e+00, -1.000000e+00, -3.000000e+00]]> : tensor<2x3xf32>
// CHECK:         return %[[C]]
func.func @fold_mod_float_broadcast() -> tensor<2x3xf32> {
  %a = tsc.constant dense<[[-5.5], [-3.0]]> : tensor<2x1xf32>
  %b = tsc.constant dense<[[3.5, -5.5, 0x7F800000], [2.5, -2.0, 0xFF800000]]> : tensor<2x3xf32>
  %c = tsc.mod %a, %b : (tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}
