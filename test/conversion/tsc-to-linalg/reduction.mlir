// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg | FileCheck %s

// The reduced dim is a reduction iterator; keepdim re-inserts it as a unit
// dim with expand_shape.
// CHECK-DAG:   #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[ROW:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_sum_keepdim
// CHECK-SAME:    (%[[X:.+]]: tensor<?x8x16xf32>)
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK:         %[[D0:.+]] = tensor.dim %[[X]], %[[C0]]
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%[[D0]]) : tensor<?x16xf32>
// CHECK:         %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<?x16xf32>)
// CHECK:         %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME:        ins(%[[X]] : tensor<?x8x16xf32>) outs(%[[FILL]] : tensor<?x16xf32>)
// CHECK:           ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK:             %[[ADD:.+]] = arith.addf %[[ACC]], %[[IN]] : f32
// CHECK:             linalg.yield %[[ADD]] : f32
// CHECK:         %[[OUT:.+]] = tensor.expand_shape %[[SUM]] {{\[}}[0, 1], [2]] output_shape [%{{.+}}, 1, 16] : tensor<?x16xf32> into tensor<?x1x16xf32>
// CHECK:         return %[[OUT]]
func.func @reduce_sum_keepdim(%x: tensor<?x8x16xf32>) -> tensor<?x1x16xf32> {
  %r = tsc.reduce_sum %x dims = [1] keepdim : (tensor<?x8x16xf32>) -> tensor<?x1x16xf32>
  return %r : tensor<?x1x16xf32>
}

// -----

// f16 sums accumulate in f32; the mean divides by the element count of the
// reduced dims, read at run time when dynamic.
// CHECK-LABEL: func.func @reduce_mean_f16_dynamic_count
// CHECK-SAME:    (%[[X:.+]]: tensor<4x?xf16>)
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:        iterator_types = ["parallel", "reduction"]
// CHECK-SAME:        outs(%{{.+}} : tensor<4xf32>)
// CHECK:             arith.extf %{{.+}} : f16 to f32
// CHECK:             arith.addf
// CHECK:         %[[D1:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<4x?xf16>
// CHECK:         %[[MEAN:.+]] = linalg.generic
// CHECK-SAME:        ins(%[[SUM]] : tensor<4xf32>) outs(%{{.+}} : tensor<4xf16>)
// CHECK:           ^bb0(%[[S:.+]]: f32, %{{.+}}: f16):
// CHECK:             %[[N64:.+]] = arith.index_cast %[[D1]] : index to i64
// CHECK:             %[[N:.+]] = arith.sitofp %[[N64]] : i64 to f32
// CHECK:             %[[DIV:.+]] = arith.divf %[[S]], %[[N]] : f32
// CHECK:             %[[T:.+]] = arith.truncf %[[DIV]] : f32 to f16
// CHECK:             linalg.yield %[[T]] : f16
// CHECK:         return %[[MEAN]]
func.func @reduce_mean_f16_dynamic_count(%x: tensor<4x?xf16>) -> tensor<4xf16> {
  %r = tsc.reduce_mean %x dims = [1] : (tensor<4x?xf16>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// Unsigned integers compute on signless views; max starts at the type's
// lowest value.
// CHECK-LABEL: func.func @reduce_max_unsigned
// CHECK:         %[[LOW:.+]] = arith.constant 0 : i8
// CHECK:         %[[INIT:.+]] = builtin.unrealized_conversion_cast %[[LOW]] : i8 to ui8
// CHECK:         linalg.fill ins(%[[INIT]] : ui8)
// CHECK:         linalg.generic
// CHECK-SAME:        iterator_types = ["reduction", "parallel"]
// CHECK:           ^bb0(%[[IN:.+]]: ui8, %[[ACC:.+]]: ui8):
// CHECK-DAG:         %[[A:.+]] = builtin.unrealized_conversion_cast %[[IN]] : ui8 to i8
// CHECK-DAG:         %[[B:.+]] = builtin.unrealized_conversion_cast %[[ACC]] : ui8 to i8
// CHECK:             %[[M:.+]] = arith.maxui %[[B]], %[[A]] : i8
// CHECK:             %[[R:.+]] = builtin.unrealized_conversion_cast %[[M]] : i8 to ui8
// CHECK:             linalg.yield %[[R]] : ui8
func.func @reduce_max_unsigned(%x: tensor<?x6xui8>) -> tensor<6xui8> {
  %r = tsc.reduce_max %x dims = [0] : (tensor<?x6xui8>) -> tensor<6xui8>
  return %r : tensor<6xui8>
}

// -----

// Signed min starts at the largest value and reduces to a 0-d tensor.
// CHECK-LABEL: func.func @reduce_min_all_dims
// CHECK:         %[[HIGH:.+]] = arith.constant 2147483647 : i32
// CHECK:         %[[FILL:.+]] = linalg.fill ins(%[[HIGH]] : i32) outs(%{{.+}} : tensor<i32>)
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[SCALAR:.+]]], iterator_types = ["reduction", "reduction"]}
// CHECK:           arith.minsi
func.func @reduce_min_all_dims(%x: tensor<3x4xi32>) -> tensor<i32> {
  %r = tsc.reduce_min %x dims = [0, 1] : (tensor<3x4xi32>) -> tensor<i32>
  return %r : tensor<i32>
}

// -----

// Softmax along a leading axis: max, then the sum of exp(x - max), then a
// parallel normalize step; the row statistics drop the softmax axis.
// CHECK-DAG:   #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @softmax_axis0
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-DAG:     %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[MAXINIT:.+]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK:         %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME:        ins(%[[X]] : tensor<?x4xf32>) outs(%[[MAXINIT]] : tensor<4xf32>)
// CHECK:             arith.maximumf
// CHECK:         %[[SUMINIT:.+]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK:         %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME:        ins(%[[X]], %[[MAX]] : tensor<?x4xf32>, tensor<4xf32>) outs(%[[SUMINIT]] : tensor<4xf32>)
// CHECK:           ^bb0(%[[A:.+]]: f32, %[[M:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK:             %[[D:.+]] = arith.subf %[[A]], %[[M]] : f32
// CHECK:             %[[E:.+]] = math.exp %[[D]] : f32
// CHECK:             arith.addf %[[ACC]], %[[E]] fastmath<reassoc> : f32
// CHECK:         %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:           ^bb0(%[[A2:.+]]: f32, %[[M2:.+]]: f32, %[[S2:.+]]: f32, %{{.+}}: f32):
// CHECK:             %[[D2:.+]] = arith.subf %[[A2]], %[[M2]] : f32
// CHECK:             %[[E2:.+]] = math.exp %[[D2]] : f32
// CHECK:             %[[P:.+]] = arith.divf %[[E2]], %[[S2]] : f32
// CHECK:             linalg.yield %[[P]] : f32
// CHECK:         return %[[Y]]
func.func @softmax_axis0(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = tsc.softmax %x axis = 0 : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// log_softmax of f16: statistics in f32, (x - max) - log(sum).
// CHECK-LABEL: func.func @log_softmax_f16
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK:         linalg.generic
// CHECK:           arith.extf %{{.+}} : f16 to f32
// CHECK:           arith.maximumf
// CHECK:         linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.generic
// CHECK-SAME:        iterator_types = ["parallel", "parallel"]
// CHECK:           ^bb0(%[[A:.+]]: f16, %[[M:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f16):
// CHECK:             %[[W:.+]] = arith.extf %[[A]] : f16 to f32
// CHECK:             %[[D:.+]] = arith.subf %[[W]], %[[M]] : f32
// CHECK:             %[[L:.+]] = math.log %[[S]] : f32
// CHECK:             %[[Y:.+]] = arith.subf %[[D]], %[[L]] : f32
// CHECK:             %[[T:.+]] = arith.truncf %[[Y]] : f32 to f16
// CHECK:             linalg.yield %[[T]] : f16
func.func @log_softmax_f16(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %y = tsc.log_softmax %x axis = 1 : tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}

// -----

// Layer norm: the row mean, then the sum of squared deviations (two passes),
// both sums reassociable (LLVM vectorizes only those), then 1/sqrt(var + eps)
// per row; scale and bias read the normalized dims.
// CHECK-DAG:   #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[ROW:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   #[[LAST:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm_scale_bias
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[N:.+]] = arith.constant 8.000000e+00 : f32
// CHECK-DAG:     %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK:         %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:         %[[MEAN:.+]] = linalg.generic
// CHECK-SAME:        ins(%[[SUM]] : tensor<?x?xf32>)
// CHECK:             arith.divf %{{.+}}, %[[N]] : f32
// CHECK:         %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]], %[[MEAN]] : tensor<?x?x8xf32>, tensor<?x?xf32>)
// CHECK:           ^bb0(%[[A:.+]]: f32, %[[M:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK:             %[[D:.+]] = arith.subf %[[A]], %[[M]] : f32
// CHECK:             %[[D2:.+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK:             arith.addf %[[ACC]], %[[D2]] fastmath<reassoc> : f32
// CHECK:         %[[RSTD:.+]] = linalg.generic
// CHECK-SAME:        ins(%[[SQ]] : tensor<?x?xf32>)
// CHECK:             %[[VAR:.+]] = arith.divf %{{.+}}, %[[N]] : f32
// CHECK:             %[[SHIFTED:.+]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK:             %[[ROOT:.+]] = math.sqrt %[[SHIFTED]] : f32
// CHECK:             arith.divf %[[ONE]], %[[ROOT]] : f32
// CHECK:         %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[LAST]], #[[LAST]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X]], %[[RSTD]], %[[MEAN]], %[[G]], %[[B]] :
// CHECK:           ^bb0(%[[XA:.+]]: f32, %[[R:.+]]: f32, %[[MA:.+]]: f32, %[[GA:.+]]: f32, %[[BA:.+]]: f32, %{{.+}}: f32):
// CHECK:             %[[C:.+]] = arith.subf %[[XA]], %[[MA]] : f32
// CHECK:             %[[NORM:.+]] = arith.mulf %[[C]], %[[R]] : f32
// CHECK:             %[[SCALED:.+]] = arith.mulf %[[NORM]], %[[GA]] : f32
// CHECK:             %[[OUT:.+]] = arith.addf %[[SCALED]], %[[BA]] : f32
// CHECK:             linalg.yield %[[OUT]] : f32
// CHECK:         return %[[Y]]
func.func @layer_norm_scale_bias(%x: tensor<?x?x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x?x8xf32> {
  %y = tsc.layer_norm %x scale %g bias %b axis = 2 epsilon = 1.0e-5 : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// Normalizing over several trailing dims, one of them dynamic: the count is
// the run-time product.
// CHECK-LABEL: func.func @layer_norm_two_dims_no_params
// CHECK:         %[[D1:.+]] = tensor.dim %{{.+}}, %{{.+}} : tensor<2x?x4xf32>
// CHECK:         %[[COUNT:.+]] = arith.muli %[[D1]], %{{.+}} : index
// CHECK:         %[[C64:.+]] = arith.index_cast %[[COUNT]] : index to i64
// CHECK:         arith.sitofp %[[C64]] : i64 to f32
// CHECK:         linalg.generic
// CHECK-SAME:        iterator_types = ["parallel", "reduction", "reduction"]
// CHECK:         linalg.generic {{.+}} ins(%{{.+}} : tensor<2x?x4xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK:         return
func.func @layer_norm_two_dims_no_params(%x: tensor<2x?x4xf32>) -> tensor<2x?x4xf32> {
  %y = tsc.layer_norm %x axis = 1 epsilon = 1.0e-5 : (tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  return %y : tensor<2x?x4xf32>
}

// -----

// RMS norm: no mean, x * 1/sqrt(mean(x^2) + eps) * scale.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME:    (%[[X:.+]]: tensor<?x16xf32>, %[[G:.+]]: tensor<16xf32>)
// CHECK:         %[[SQ:.+]] = linalg.generic
// CHECK-SAME:        iterator_types = ["parallel", "reduction"]
// CHECK-SAME:        ins(%[[X]] : tensor<?x16xf32>)
// CHECK:           ^bb0(%[[A:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK:             %[[A2:.+]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK:             arith.addf %[[ACC]], %[[A2]] fastmath<reassoc> : f32
// CHECK:         %[[RINV:.+]] = linalg.generic
// CHECK:             math.sqrt
// CHECK:         %[[Y:.+]] = linalg.generic
// CHECK-SAME:        ins(%[[X]], %[[RINV]], %[[G]] :
// CHECK:           ^bb0(%[[XA:.+]]: f32, %[[R:.+]]: f32, %[[GA:.+]]: f32, %{{.+}}: f32):
// CHECK-NOT:         arith.subf
// CHECK:             %[[N:.+]] = arith.mulf %[[XA]], %[[R]] : f32
// CHECK:             %[[S:.+]] = arith.mulf %[[N]], %[[GA]] : f32
// CHECK:             linalg.yield %[[S]] : f32
// CHECK:         return %[[Y]]
func.func @rms_norm(%x: tensor<?x16xf32>, %g: tensor<16xf32>) -> tensor<?x16xf32> {
  %y = tsc.rms_norm %x scale %g axis = 1 epsilon = 1.0e-6 : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
