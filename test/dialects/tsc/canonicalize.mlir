// RUN: tsc-opt %s --split-input-file --canonicalize | FileCheck %s

// Folders of the elementwise ops: constant evaluation with broadcasting,
// IEEE-exact identities, where and cast. Shape-op folders are in
// canonicalize-shape.mlir, the DRR patterns in canonicalize-patterns.mlir.

// CHECK-LABEL: func.func @fold_add_broadcast_i64
// CHECK:         %[[C:.+]] = tsc.constant dense<{{\[}}[11, 22, 33], [14, 25, 36]]> : tensor<2x3xi64>
// CHECK-NOT:     tsc.add
// CHECK:         return %[[C]]
func.func @fold_add_broadcast_i64() -> tensor<2x3xi64> {
  %a = tsc.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %b = tsc.constant dense<[10, 20, 30]> : tensor<3xi64>
  %c = tsc.add %a, %b : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %c : tensor<2x3xi64>
}

// -----

// [2, 1] - [3] broadcasts to [2, 3].
// CHECK-LABEL: func.func @fold_sub_column_broadcast
// CHECK:         %[[C:.+]] = tsc.constant dense<{{\[}}[-9, -19, -29], [-8, -18, -28]]> : tensor<2x3xi32>
// CHECK-NOT:     tsc.sub
// CHECK:         return %[[C]]
func.func @fold_sub_column_broadcast() -> tensor<2x3xi32> {
  %a = tsc.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %b = tsc.constant dense<[10, 20, 30]> : tensor<3xi32>
  %c = tsc.sub %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %c : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @fold_mul_div_f32
// CHECK-DAG:     %[[M:.+]] = tsc.constant dense<[3.000000e+00, -4.000000e+00, 8.000000e+00]> : tensor<3xf32>
// CHECK-DAG:     %[[D:.+]] = tsc.constant dense<[7.500000e-01, -1.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-NOT:     tsc.mul
// CHECK-NOT:     tsc.div
// CHECK:         return %[[M]], %[[D]]
func.func @fold_mul_div_f32() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = tsc.constant dense<[1.5, -2.0, 4.0]> : tensor<3xf32>
  %b = tsc.constant dense<2.0> : tensor<f32>
  %c = tsc.mul %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %d = tsc.div %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %c, %d : tensor<3xf32>, tensor<3xf32>
}

// -----

// Integer division truncates toward zero.
// CHECK-LABEL: func.func @fold_int_div_truncates
// CHECK:         %[[C:.+]] = tsc.constant dense<[3, -3, -3, 3]> : tensor<4xi64>
// CHECK-NOT:     tsc.div
// CHECK:         return %[[C]]
func.func @fold_int_div_truncates() -> tensor<4xi64> {
  %a = tsc.constant dense<[7, -7, 7, -7]> : tensor<4xi64>
  %b = tsc.constant dense<[2, 2, -2, -2]> : tensor<4xi64>
  %c = tsc.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %c : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @fold_splat_add
// CHECK:         %[[C:.+]] = tsc.constant dense<3.750000e+00> : tensor<2x2xf32>
// CHECK-NOT:     tsc.add
// CHECK:         return %[[C]]
func.func @fold_splat_add() -> tensor<2x2xf32> {
  %a = tsc.constant dense<1.5> : tensor<2x2xf32>
  %b = tsc.constant dense<2.25> : tensor<2x2xf32>
  %c = tsc.add %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @no_fold_int_div_by_zero
// CHECK-DAG:     %[[A:.+]] = tsc.constant dense<[6, 8]> : tensor<2xi64>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<[2, 0]> : tensor<2xi64>
// CHECK:         %[[C:.+]] = tsc.div %[[A]], %[[B]]
// CHECK:         return %[[C]]
func.func @no_fold_int_div_by_zero() -> tensor<2xi64> {
  %a = tsc.constant dense<[6, 8]> : tensor<2xi64>
  %b = tsc.constant dense<[2, 0]> : tensor<2xi64>
  %c = tsc.div %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %c : tensor<2xi64>
}

// -----

// INT_MIN / -1 overflows: not folded.
// CHECK-LABEL: func.func @no_fold_int_div_overflow
// CHECK:         %[[C:.+]] = tsc.div
// CHECK:         return %[[C]]
func.func @no_fold_int_div_overflow() -> tensor<i8> {
  %a = tsc.constant dense<-128> : tensor<i8>
  %b = tsc.constant dense<-1> : tensor<i8>
  %c = tsc.div %a, %b : (tensor<i8>, tensor<i8>) -> tensor<i8>
  return %c : tensor<i8>
}

// -----

// 200 / 3 as unsigned (200 is -56 as signed i8).
// CHECK-LABEL: func.func @fold_unsigned_div
// CHECK:         %[[C:.+]] = tsc.constant dense<66> : tensor<ui8>
// CHECK-NOT:     tsc.div
// CHECK:         return %[[C]]
func.func @fold_unsigned_div() -> tensor<ui8> {
  %a = tsc.constant dense<200> : tensor<ui8>
  %b = tsc.constant dense<3> : tensor<ui8>
  %c = tsc.div %a, %b : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
  return %c : tensor<ui8>
}

// -----

// CHECK-LABEL: func.func @fold_mul_by_one
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT:     tsc.mul
// CHECK:         return %[[X]]
func.func @fold_mul_by_one(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %one = tsc.constant dense<1.0> : tensor<4xf32>
  %y = tsc.mul %x, %one : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// The constant moves to the right of the commutative mul, then folds.
// CHECK-LABEL: func.func @fold_one_times_x
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xi32>)
// CHECK-NOT:     tsc.mul
// CHECK:         return %[[X]]
func.func @fold_one_times_x(%x: tensor<?x4xi32>) -> tensor<?x4xi32> {
  %one = tsc.constant dense<1> : tensor<i32>
  %y = tsc.mul %one, %x : (tensor<i32>, tensor<?x4xi32>) -> tensor<?x4xi32>
  return %y : tensor<?x4xi32>
}

// -----

// x * 1 is not x when the 1 broadcasts x to a larger shape.
// CHECK-LABEL: func.func @no_fold_mul_by_one_broadcasting
// CHECK-SAME:    (%[[X:.+]]: tensor<4xf32>)
// CHECK:         %[[ONE:.+]] = tsc.constant dense<1.000000e+00> : tensor<2x4xf32>
// CHECK:         %[[Y:.+]] = tsc.mul %[[X]], %[[ONE]]
// CHECK:         return %[[Y]]
func.func @no_fold_mul_by_one_broadcasting(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  %one = tsc.constant dense<1.0> : tensor<2x4xf32>
  %y = tsc.mul %x, %one : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_div_by_one
// CHECK-SAME:    (%[[X:.+]]: tensor<?xf16>)
// CHECK-NOT:     tsc.div
// CHECK:         return %[[X]]
func.func @fold_div_by_one(%x: tensor<?xf16>) -> tensor<?xf16> {
  %one = tsc.constant dense<1.0> : tensor<f16>
  %y = tsc.div %x, %one : (tensor<?xf16>, tensor<f16>) -> tensor<?xf16>
  return %y : tensor<?xf16>
}

// -----

// x - 0.0 == x for every x, -0.0 included.
// CHECK-LABEL: func.func @fold_sub_positive_zero
// CHECK-SAME:    (%[[X:.+]]: tensor<?xf32>)
// CHECK-NOT:     tsc.sub
// CHECK:         return %[[X]]
func.func @fold_sub_positive_zero(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = tsc.constant dense<0.0> : tensor<f32>
  %y = tsc.sub %x, %zero : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// -0.0 - -0.0 = +0.0: x - -0.0 is not x.
// CHECK-LABEL: func.func @no_fold_sub_negative_zero
// CHECK-SAME:    (%[[X:.+]]: tensor<?xf32>)
// CHECK:         %[[Z:.+]] = tsc.constant dense<-0.000000e+00> : tensor<f32>
// CHECK:         %[[Y:.+]] = tsc.sub %[[X]], %[[Z]]
// CHECK:         return %[[Y]]
func.func @no_fold_sub_negative_zero(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = tsc.constant dense<-0.0> : tensor<f32>
  %y = tsc.sub %x, %zero : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// -0.0 + 0.0 = +0.0: x + 0.0 is not x.
// CHECK-LABEL: func.func @no_fold_add_positive_zero
// CHECK-SAME:    (%[[X:.+]]: tensor<?xf32>)
// CHECK:         %[[Z:.+]] = tsc.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[Y:.+]] = tsc.add %[[X]], %[[Z]]
// CHECK:         return %[[Y]]
func.func @no_fold_add_positive_zero(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = tsc.constant dense<0.0> : tensor<f32>
  %y = tsc.add %x, %zero : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// x + -0.0 == x for every x.
// CHECK-LABEL: func.func @fold_add_negative_zero
// CHECK-SAME:    (%[[X:.+]]: tensor<?xf32>)
// CHECK-NOT:     tsc.add
// CHECK:         return %[[X]]
func.func @fold_add_negative_zero(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = tsc.constant dense<-0.0> : tensor<f32>
  %y = tsc.add %x, %zero : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @fold_add_int_zero
// CHECK-SAME:    (%[[X:.+]]: tensor<?xi64>)
// CHECK-NOT:     tsc.add
// CHECK-NOT:     tsc.sub
// CHECK:         return %[[X]], %[[X]]
func.func @fold_add_int_zero(%x: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %zero = tsc.constant dense<0> : tensor<i64>
  %y = tsc.add %x, %zero : (tensor<?xi64>, tensor<i64>) -> tensor<?xi64>
  %z = tsc.sub %x, %zero : (tensor<?xi64>, tensor<i64>) -> tensor<?xi64>
  return %y, %z : tensor<?xi64>, tensor<?xi64>
}

// -----

// CHECK-LABEL: func.func @fold_where_splat_condition
// CHECK-SAME:    (%[[A:.+]]: tensor<?x4xf32>, %[[B:.+]]: tensor<?x4xf32>)
// CHECK-NOT:     tsc.where
// CHECK:         return %[[A]], %[[B]]
func.func @fold_where_splat_condition(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %t = tsc.constant dense<true> : tensor<4xi1>
  %f = tsc.constant dense<false> : tensor<4xi1>
  %x = tsc.where %t, %a, %b : (tensor<4xi1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %y = tsc.where %f, %a, %b : (tensor<4xi1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %x, %y : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @no_fold_where_non_splat_condition
// CHECK-SAME:    (%[[A:.+]]: tensor<2xf32>, %[[B:.+]]: tensor<2xf32>)
// CHECK:         %[[C:.+]] = tsc.constant dense<[true, false]> : tensor<2xi1>
// CHECK:         %[[X:.+]] = tsc.where %[[C]], %[[A]], %[[B]]
// CHECK:         return %[[X]]
func.func @no_fold_where_non_splat_condition(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %c = tsc.constant dense<[true, false]> : tensor<2xi1>
  %x = tsc.where %c, %a, %b : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %x : tensor<2xf32>
}

// -----

// The chosen value has a smaller shape than the result.
// CHECK-LABEL: func.func @no_fold_where_chosen_value_broadcasts
// CHECK-SAME:    (%[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<2x4xf32>)
// CHECK:         %[[X:.+]] = tsc.where %{{.+}}, %[[A]], %[[B]]
// CHECK:         return %[[X]]
func.func @no_fold_where_chosen_value_broadcasts(%a: tensor<4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %t = tsc.constant dense<true> : tensor<i1>
  %x = tsc.where %t, %a, %b : (tensor<i1>, tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %x : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_cast_same_type
// CHECK-SAME:    (%[[X:.+]]: tensor<?xf32>)
// CHECK-NOT:     tsc.cast
// CHECK:         return %[[X]]
func.func @fold_cast_same_type(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tsc.cast %x : tensor<?xf32> to tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// int -> float, float -> int (truncating), int -> bool and float -> bool
// (nonzero; -0.0 is zero), bool -> int (0 or 1), int -> narrower int (wraps).
// CHECK-LABEL: func.func @fold_cast_constants
// CHECK-DAG:     %[[A:.+]] = tsc.constant dense<[-2.000000e+00, 0.000000e+00, 5.000000e+00]> : tensor<3xf32>
// CHECK-DAG:     %[[C:.+]] = tsc.constant dense<[-2, 0, 0, 2]> : tensor<4xi32>
// CHECK-DAG:     %[[D:.+]] = tsc.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG:     %[[E:.+]] = tsc.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG:     %[[H:.+]] = tsc.constant dense<[1, 0]> : tensor<2xi32>
// CHECK-DAG:     %[[T:.+]] = tsc.constant dense<[44, -1]> : tensor<2xi8>
// CHECK-NOT:     tsc.cast
// CHECK:         return %[[A]], %[[C]], %[[D]], %[[E]], %[[H]], %[[T]]
func.func @fold_cast_constants() -> (tensor<3xf32>, tensor<4xi32>, tensor<3xi1>, tensor<3xi1>, tensor<2xi32>, tensor<2xi8>) {
  %i = tsc.constant dense<[-2, 0, 5]> : tensor<3xi64>
  %f = tsc.constant dense<[-2.7, -0.5, 0.5, 2.9]> : tensor<4xf32>
  %g = tsc.constant dense<[0.0, -0.0, 0.25]> : tensor<3xf32>
  %b = tsc.constant dense<[true, false]> : tensor<2xi1>
  %w = tsc.constant dense<[300, -1]> : tensor<2xi32>
  %a = tsc.cast %i : tensor<3xi64> to tensor<3xf32>
  %c = tsc.cast %f : tensor<4xf32> to tensor<4xi32>
  %d = tsc.cast %i : tensor<3xi64> to tensor<3xi1>
  %e = tsc.cast %g : tensor<3xf32> to tensor<3xi1>
  %h = tsc.cast %b : tensor<2xi1> to tensor<2xi32>
  %t = tsc.cast %w : tensor<2xi32> to tensor<2xi8>
  return %a, %c, %d, %e, %h, %t : tensor<3xf32>, tensor<4xi32>, tensor<3xi1>, tensor<3xi1>, tensor<2xi32>, tensor<2xi8>
}

// -----

// A splat stays a splat; unsigned integers convert as unsigned.
// CHECK-LABEL: func.func @fold_cast_splat_and_unsigned
// CHECK-DAG:     %[[A:.+]] = tsc.constant dense<3.000000e+00> : tensor<2x2xf16>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<2.550000e+02> : tensor<f32>
// CHECK-NOT:     tsc.cast
// CHECK:         return %[[A]], %[[B]]
func.func @fold_cast_splat_and_unsigned() -> (tensor<2x2xf16>, tensor<f32>) {
  %s = tsc.constant dense<3.0> : tensor<2x2xf32>
  %u = tsc.constant dense<255> : tensor<ui8>
  %a = tsc.cast %s : tensor<2x2xf32> to tensor<2x2xf16>
  %b = tsc.cast %u : tensor<ui8> to tensor<f32>
  return %a, %b : tensor<2x2xf16>, tensor<f32>
}

// -----

// 300.0 does not fit i8: the cast is not folded.
// CHECK-LABEL: func.func @no_fold_cast_out_of_range
// CHECK:         %[[C:.+]] = tsc.cast
// CHECK:         return %[[C]]
func.func @no_fold_cast_out_of_range() -> tensor<2xi8> {
  %f = tsc.constant dense<[1.0, 300.0]> : tensor<2xf32>
  %c = tsc.cast %f : tensor<2xf32> to tensor<2xi8>
  return %c : tensor<2xi8>
}

// -----

// Casts to and from the 8-bit floats stay for the kernels, which implement
// ONNX's rules for them (saturation, NaN codes); through f32 and back is the
// value itself.
// CHECK-LABEL: func.func @keep_minifloat_casts
// CHECK-SAME:    (%[[X:.+]]: tensor<2xf8E4M3FN>)
// CHECK:         %[[C:.+]] = tsc.cast %{{.+}} saturate : tensor<2xf32> to tensor<2xf8E4M3FN>
// CHECK:         return %[[C]], %[[X]]
func.func @keep_minifloat_casts(%x: tensor<2xf8E4M3FN>) -> (tensor<2xf8E4M3FN>, tensor<2xf8E4M3FN>) {
  %f = tsc.constant dense<[1.0e6, 0.3]> : tensor<2xf32>
  %c = tsc.cast %f saturate : tensor<2xf32> to tensor<2xf8E4M3FN>
  %w = tsc.cast %x : tensor<2xf8E4M3FN> to tensor<2xf32>
  %n = tsc.cast %w : tensor<2xf32> to tensor<2xf8E4M3FN>
  return %c, %n : tensor<2xf8E4M3FN>, tensor<2xf8E4M3FN>
}
