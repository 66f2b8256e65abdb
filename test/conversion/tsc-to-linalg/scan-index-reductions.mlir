// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg --canonicalize | FileCheck %s

// arg_max/arg_min: one linalg.generic reducing the axis into the best value
// (from max's or min's identity) and its position (from 0); the position
// replaces the best when the value is better (NaN best of all for floats)
// or equal and later (select_last_index) or earlier in the axis.
// CHECK-DAG:   #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @arg_max_last
// CHECK-SAME:    (%[[X:.+]]: tensor<?x10xf32>)
// CHECK-DAG:     %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK:         %[[BEST0:.+]] = linalg.fill ins(%[[NEG_INF]] : f32)
// CHECK:         %[[POS0:.+]] = linalg.fill ins(%[[ZERO]] : i64)
// CHECK:         %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]] : tensor<?x10xf32>) outs(%[[BEST0]], %[[POS0]] : tensor<?xf32>, tensor<?xi64>)
// CHECK:           ^bb0(%[[IN:.+]]: f32, %[[BEST:.+]]: f32, %[[POS:.+]]: i64):
// CHECK:             %[[I:.+]] = linalg.index 1 : index
// CHECK:             %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK:             %[[XNAN:.+]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
// CHECK:             %[[BNUM:.+]] = arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK:             %[[GT:.+]] = arith.cmpf ogt, %[[IN]], %[[BEST]] : f32
// CHECK:             %[[NANBEST:.+]] = arith.andi %[[XNAN]], %[[BNUM]] : i1
// CHECK:             %[[BETTER:.+]] = arith.ori %[[GT]], %[[NANBEST]] : i1
// CHECK:             %[[LATER:.+]] = arith.cmpi sgt, %[[I64]], %[[POS]] : i64
// CHECK:             %[[TIE:.+]] = arith.andi %{{.+}}, %[[LATER]] : i1
// CHECK:             %[[TAKE:.+]] = arith.ori %[[BETTER]], %[[TIE]] : i1
// CHECK:             %[[NB:.+]] = arith.select %[[TAKE]], %[[IN]], %[[BEST]] : f32
// CHECK:             %[[NP:.+]] = arith.select %[[TAKE]], %[[I64]], %[[POS]] : i64
// CHECK:             linalg.yield %[[NB]], %[[NP]] : f32, i64
// CHECK:         %[[OUT:.+]] = tensor.expand_shape %[[R]]#1 {{\[}}[0, 1]] output_shape [%{{.+}}, 1] : tensor<?xi64> into tensor<?x1xi64>
// CHECK:         return %[[OUT]]
func.func @arg_max_last(%x: tensor<?x10xf32>) -> tensor<?x1xi64> {
  %i = tsc.arg_max %x axis = 1 keepdim select_last_index : (tensor<?x10xf32>) -> tensor<?x1xi64>
  return %i : tensor<?x1xi64>
}

// -----

// Unsigned integers compare unsigned, from the type's largest value.
// CHECK-LABEL: func.func @arg_min_unsigned
// CHECK-DAG:     %[[MAX:.+]] = arith.constant -1 : i8
// CHECK:         %[[MAXU:.+]] = builtin.unrealized_conversion_cast %[[MAX]] : i8 to ui8
// CHECK:         linalg.fill ins(%[[MAXU]] : ui8)
// CHECK:         linalg.generic
// CHECK-SAME:        iterator_types = ["reduction", "parallel"]
// CHECK:             %[[I:.+]] = linalg.index 0 : index
// CHECK:             arith.cmpi ult, %{{.+}}, %{{.+}} : i8
// CHECK:             arith.cmpi slt, %{{.+}}, %{{.+}} : i64
func.func @arg_min_unsigned(%x: tensor<4x?xui8>) -> tensor<?xi64> {
  %i = tsc.arg_min %x axis = 0 : (tensor<4x?xui8>) -> tensor<?xi64>
  return %i : tensor<?xi64>
}

// -----

// reduce_prod: from 1; bf16 accumulates in f32 and is rounded once.
// CHECK-LABEL: func.func @reduce_prod_bf16
// CHECK-SAME:    (%[[X:.+]]: tensor<4x?xbf16>)
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[INIT:.+]] = linalg.fill ins(%[[ONE]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK:         %[[P:.+]] = linalg.generic
// CHECK-SAME:        ins(%[[X]] : tensor<4x?xbf16>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK:             %[[W:.+]] = arith.extf %{{.+}} : bf16 to f32
// CHECK:             arith.mulf %{{.+}}, %[[W]] : f32
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:        ins(%[[P]] : tensor<4xf32>) outs(%{{.+}} : tensor<4xbf16>)
// CHECK:             arith.truncf %{{.+}} : f32 to bf16
// CHECK:         return %[[R]]
func.func @reduce_prod_bf16(%x: tensor<4x?xbf16>) -> tensor<4xbf16> {
  %p = tsc.reduce_prod %x dims = [1] : (tensor<4x?xbf16>) -> tensor<4xbf16>
  return %p : tensor<4xbf16>
}
