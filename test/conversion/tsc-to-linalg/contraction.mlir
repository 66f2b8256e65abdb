// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg | FileCheck %s

// One generic over (batch0, batch1, m, n, k): the lhs's unit batch dim reads
// index 0, the rank-3 rhs aligns with the trailing batch dim.
// CHECK-DAG:   #[[LHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG:   #[[RHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG:   #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast_batch
// CHECK-SAME:    (%[[A:.+]]: tensor<?x1x?x8xf32>, %[[B:.+]]: tensor<3x8x?xf32>)
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[D0:.+]] = tensor.dim %[[A]], %[[C0]]
// CHECK-DAG:     %[[M:.+]] = tensor.dim %[[A]], %[[C2]]
// CHECK-DAG:     %[[N:.+]] = tensor.dim %[[B]], %[[C2]]
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%[[D0]], %[[M]], %[[N]]) : tensor<?x3x?x?xf32>
// CHECK:         %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<?x3x?x?xf32>)
// CHECK:         %[[MM:.+]] = linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:        ins(%[[A]], %[[B]] : tensor<?x1x?x8xf32>, tensor<3x8x?xf32>) outs(%[[FILL]] : tensor<?x3x?x?xf32>)
// CHECK:           ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK:             %[[P:.+]] = arith.mulf %[[X]], %[[Y]] fastmath<reassoc,contract> : f32
// CHECK:             %[[S:.+]] = arith.addf %[[ACC]], %[[P]] fastmath<reassoc,contract> : f32
// CHECK:             linalg.yield %[[S]] : f32
// CHECK:         return %[[MM]]
func.func @matmul_broadcast_batch(%a: tensor<?x1x?x8xf32>, %b: tensor<3x8x?xf32>) -> tensor<?x3x?x?xf32> {
  %r = tsc.matmul %a, %b : (tensor<?x1x?x8xf32>, tensor<3x8x?xf32>) -> tensor<?x3x?x?xf32>
  return %r : tensor<?x3x?x?xf32>
}

// -----

// A 1-D lhs is a vector: loops (n, k) only. i8 operands widen to i32 by
// sign extension.
// CHECK-DAG:   #[[VEC:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG:   #[[MAT:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG:   #[[RES:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @matmul_vector_i8
// CHECK:         %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK:         linalg.fill ins(%[[ZERO]] : i32) outs(%{{.+}} : tensor<4xi32>)
// CHECK:         linalg.generic {indexing_maps = [#[[VEC]], #[[MAT]], #[[RES]]], iterator_types = ["parallel", "reduction"]}
// CHECK:           ^bb0(%[[X:.+]]: i8, %[[Y:.+]]: i8, %[[ACC:.+]]: i32):
// CHECK-DAG:         %[[XW:.+]] = arith.extsi %[[X]] : i8 to i32
// CHECK-DAG:         %[[YW:.+]] = arith.extsi %[[Y]] : i8 to i32
// CHECK:             %[[P:.+]] = arith.muli %[[XW]], %[[YW]] : i32
// CHECK:             arith.addi %[[ACC]], %[[P]] : i32
func.func @matmul_vector_i8(%a: tensor<8xi8>, %b: tensor<8x4xi8>) -> tensor<4xi32> {
  %r = tsc.matmul %a, %b : (tensor<8xi8>, tensor<8x4xi8>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// Unsigned 8-bit operands zero-extend.
// CHECK-LABEL: func.func @matmul_unsigned
// CHECK:           ^bb0(%[[X:.+]]: ui8, %[[Y:.+]]: ui8, %{{.+}}: i32):
// CHECK:             %[[XS:.+]] = builtin.unrealized_conversion_cast %[[X]] : ui8 to i8
// CHECK:             arith.extui %[[XS]] : i8 to i32
func.func @matmul_unsigned(%a: tensor<3x8xui8>, %b: tensor<8x4xui8>) -> tensor<3x4xi32> {
  %r = tsc.matmul %a, %b : (tensor<3x8xui8>, tensor<8x4xui8>) -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}

// -----

// Two vectors give a 0-d result: one reduction loop.
// CHECK-DAG:   #[[K:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG:   #[[SCALAR:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @matmul_dot
// CHECK:         linalg.generic {indexing_maps = [#[[K]], #[[K]], #[[SCALAR]]], iterator_types = ["reduction"]}
// CHECK-SAME:        outs(%{{.+}} : tensor<f32>)
func.func @matmul_dot(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %r = tsc.matmul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// x · Wᵀ + b: the bias initializes the accumulator, the weight is read as
// [n, k].
// CHECK-DAG:   #[[BIAS:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG:   #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[X:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG:   #[[W:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG:   #[[Y:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @linear_bias
// CHECK-SAME:    (%[[IN:.+]]: tensor<?x?x8xf32>, %[[WT:.+]]: tensor<5x8xf32>, %[[B:.+]]: tensor<5xf32>)
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%{{.+}}, %{{.+}}) : tensor<?x?x5xf32>
// CHECK:         %[[INIT:.+]] = linalg.generic {indexing_maps = [#[[BIAS]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:        ins(%[[B]] : tensor<5xf32>) outs(%[[EMPTY]] : tensor<?x?x5xf32>)
// CHECK:         %[[OUT:.+]] = linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:        ins(%[[IN]], %[[WT]] : tensor<?x?x8xf32>, tensor<5x8xf32>) outs(%[[INIT]] : tensor<?x?x5xf32>)
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK:         return %[[OUT]]
func.func @linear_bias(%x: tensor<?x?x8xf32>, %w: tensor<5x8xf32>, %b: tensor<5xf32>) -> tensor<?x?x5xf32> {
  %r = tsc.linear %x, %w, %b : (tensor<?x?x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<?x?x5xf32>
  return %r : tensor<?x?x5xf32>
}

// -----

// f16 accumulates in f32 from a zero fill, then narrows.
// CHECK-LABEL: func.func @linear_f16
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x5xf32>)
// CHECK:         %[[ACC:.+]] = linalg.generic
// CHECK:             arith.extf %{{.+}} : f16 to f32
// CHECK:         linalg.generic
// CHECK-SAME:        ins(%[[ACC]] : tensor<2x5xf32>) outs(%{{.+}} : tensor<2x5xf16>)
// CHECK:             arith.truncf %{{.+}} : f32 to f16
func.func @linear_f16(%x: tensor<2x8xf16>, %w: tensor<5x8xf16>) -> tensor<2x5xf16> {
  %r = tsc.linear %x, %w : (tensor<2x8xf16>, tensor<5x8xf16>) -> tensor<2x5xf16>
  return %r : tensor<2x5xf16>
}
