// RUN: tsc-opt %s --split-input-file --canonicalize | FileCheck %s

// The DRR canonicalization patterns of TscCanonicalize.td.

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT:     tsc.neg
// CHECK:         return %[[X]]
func.func @neg_neg(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %a = tsc.neg %x : tensor<?x4xf32>
  %b = tsc.neg %a : tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @not_not
// CHECK-SAME:    (%[[X:.+]]: tensor<?xi1>)
// CHECK-NOT:     tsc.not
// CHECK:         return %[[X]]
func.func @not_not(%x: tensor<?xi1>) -> tensor<?xi1> {
  %a = tsc.not %x : tensor<?xi1>
  %b = tsc.not %a : tensor<?xi1>
  return %b : tensor<?xi1>
}

// -----

// CHECK-LABEL: func.func @relu_relu
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK:         %[[R:.+]] = tsc.relu %[[X]]
// CHECK-NOT:     tsc.relu
// CHECK:         return %[[R]]
func.func @relu_relu(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %a = tsc.relu %x : tensor<?x4xf32>
  %b = tsc.relu %a : tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @abs_abs
// CHECK-SAME:    (%[[X:.+]]: tensor<4xi32>)
// CHECK:         %[[A:.+]] = tsc.abs %[[X]]
// CHECK-NOT:     tsc.abs
// CHECK:         return %[[A]]
func.func @abs_abs(%x: tensor<4xi32>) -> tensor<4xi32> {
  %a = tsc.abs %x : tensor<4xi32>
  %b = tsc.abs %a : tensor<4xi32>
  return %b : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @abs_neg
// CHECK-SAME:    (%[[X:.+]]: tensor<?xf32>)
// CHECK-NOT:     tsc.neg
// CHECK:         %[[A:.+]] = tsc.abs %[[X]]
// CHECK-NOT:     tsc.neg
// CHECK:         return %[[A]]
func.func @abs_neg(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = tsc.neg %x : tensor<?xf32>
  %b = tsc.abs %a : tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @reciprocal_sqrt
// CHECK-SAME:    (%[[X:.+]]: tensor<?x1xf32>)
// CHECK-NOT:     tsc.sqrt
// CHECK:         %[[R:.+]] = tsc.rsqrt %[[X]] : tensor<?x1xf32>
// CHECK-NOT:     tsc.reciprocal
// CHECK:         return %[[R]]
func.func @reciprocal_sqrt(%x: tensor<?x1xf32>) -> tensor<?x1xf32> {
  %a = tsc.sqrt %x : tensor<?x1xf32>
  %b = tsc.reciprocal %a : tensor<?x1xf32>
  return %b : tensor<?x1xf32>
}

// -----

// sqrt(1 / x) is not rewritten.
// CHECK-LABEL: func.func @no_rewrite_sqrt_reciprocal
// CHECK-SAME:    (%[[X:.+]]: tensor<?x1xf32>)
// CHECK:         %[[A:.+]] = tsc.reciprocal %[[X]]
// CHECK:         %[[B:.+]] = tsc.sqrt %[[A]]
// CHECK:         return %[[B]]
func.func @no_rewrite_sqrt_reciprocal(%x: tensor<?x1xf32>) -> tensor<?x1xf32> {
  %a = tsc.reciprocal %x : tensor<?x1xf32>
  %b = tsc.sqrt %a : tensor<?x1xf32>
  return %b : tensor<?x1xf32>
}

// -----

// CHECK-LABEL: func.func @sub_neg
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>, %[[Y:.+]]: tensor<4xf32>)
// CHECK-NOT:     tsc.neg
// CHECK:         %[[Z:.+]] = tsc.add %[[X]], %[[Y]] : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK:         return %[[Z]]
func.func @sub_neg(%x: tensor<?x4xf32>, %y: tensor<4xf32>) -> tensor<?x4xf32> {
  %n = tsc.neg %y : tensor<4xf32>
  %z = tsc.sub %x, %n : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @add_neg_rhs
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>, %[[Y:.+]]: tensor<4xf32>)
// CHECK-NOT:     tsc.neg
// CHECK:         %[[Z:.+]] = tsc.sub %[[X]], %[[Y]] : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK:         return %[[Z]]
func.func @add_neg_rhs(%x: tensor<?x4xf32>, %y: tensor<4xf32>) -> tensor<?x4xf32> {
  %n = tsc.neg %y : tensor<4xf32>
  %z = tsc.add %x, %n : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @add_neg_lhs
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xi64>, %[[Y:.+]]: tensor<?x4xi64>)
// CHECK-NOT:     tsc.neg
// CHECK:         %[[Z:.+]] = tsc.sub %[[X]], %[[Y]] : (tensor<?x4xi64>, tensor<?x4xi64>) -> tensor<?x4xi64>
// CHECK:         return %[[Z]]
func.func @add_neg_lhs(%x: tensor<?x4xi64>, %y: tensor<?x4xi64>) -> tensor<?x4xi64> {
  %n = tsc.neg %y : tensor<?x4xi64>
  %z = tsc.add %n, %x : (tensor<?x4xi64>, tensor<?x4xi64>) -> tensor<?x4xi64>
  return %z : tensor<?x4xi64>
}

// -----

// (-x) - y has no rewrite.
// CHECK-LABEL: func.func @no_rewrite_neg_sub
// CHECK-SAME:    (%[[X:.+]]: tensor<?xf32>, %[[Y:.+]]: tensor<?xf32>)
// CHECK:         %[[N:.+]] = tsc.neg %[[X]]
// CHECK:         %[[Z:.+]] = tsc.sub %[[N]], %[[Y]]
// CHECK:         return %[[Z]]
func.func @no_rewrite_neg_sub(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %n = tsc.neg %x : tensor<?xf32>
  %z = tsc.sub %n, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %z : tensor<?xf32>
}

// -----

// The rewritten op keeps the refined result type.
// CHECK-LABEL: func.func @sub_neg_keeps_refined_type
// CHECK-SAME:    (%[[X:.+]]: tensor<?xf32>, %[[Y:.+]]: tensor<?xf32>)
// CHECK:         %[[Z:.+]] = tsc.add %[[X]], %[[Y]] : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
// CHECK:         return %[[Z]]
func.func @sub_neg_keeps_refined_type(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<4xf32> {
  %n = tsc.neg %y : tensor<?xf32>
  %z = tsc.sub %x, %n : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @neg_neg_neg
// CHECK-SAME:    (%[[X:.+]]: tensor<?xf32>)
// CHECK:         %[[N:.+]] = tsc.neg %[[X]]
// CHECK-NOT:     tsc.neg
// CHECK:         return %[[N]]
func.func @neg_neg_neg(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = tsc.neg %x : tensor<?xf32>
  %b = tsc.neg %a : tensor<?xf32>
  %c = tsc.neg %b : tensor<?xf32>
  return %c : tensor<?xf32>
}
