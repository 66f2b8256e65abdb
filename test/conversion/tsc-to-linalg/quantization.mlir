// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg | FileCheck %s

// Per tensor: the 0-d scale is read through a map with no results. Round
// half to even, add the zero point, saturate to [-128, 127].
// CHECK-DAG:   #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @quantize_per_tensor
// CHECK-SAME:    (%[[X:.+]]: tensor<?x8xf32>, %[[S:.+]]: tensor<f32>, %[[Z:.+]]: tensor<i8>)
// CHECK-DAG:     %[[LO:.+]] = arith.constant -1.280000e+02 : f32
// CHECK-DAG:     %[[HI:.+]] = arith.constant 1.270000e+02 : f32
// CHECK:         linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[SCALAR]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X]], %[[S]], %[[Z]] : tensor<?x8xf32>, tensor<f32>, tensor<i8>) outs(%{{.+}} : tensor<?x8xi8>)
// CHECK:           ^bb0(%[[XA:.+]]: f32, %[[SA:.+]]: f32, %[[ZA:.+]]: i8, %{{.+}}: i8):
// CHECK:             %[[Q:.+]] = arith.divf %[[XA]], %[[SA]] : f32
// CHECK:             %[[R:.+]] = math.roundeven %[[Q]] : f32
// CHECK:             %[[ZW:.+]] = arith.extsi %[[ZA]] : i8 to i32
// CHECK:             %[[ZF:.+]] = arith.sitofp %[[ZW]] : i32 to f32
// CHECK:             %[[SHIFTED:.+]] = arith.addf %[[R]], %[[ZF]] : f32
// CHECK:             %[[C1:.+]] = arith.maxnumf %[[SHIFTED]], %[[LO]] : f32
// CHECK:             %[[C2:.+]] = arith.minnumf %[[C1]], %[[HI]] : f32
// CHECK:             %[[I:.+]] = arith.fptosi %[[C2]] : f32 to i32
// CHECK:             %[[T:.+]] = arith.trunci %[[I]] : i32 to i8
// CHECK:             linalg.yield %[[T]] : i8
func.func @quantize_per_tensor(%x: tensor<?x8xf32>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<?x8xi8> {
  %q = tsc.quantize %x, %s, %z : (tensor<?x8xf32>, tensor<f32>, tensor<i8>) -> tensor<?x8xi8>
  return %q : tensor<?x8xi8>
}

// -----

// Per group along axis 0: the parameters are read at row floordiv 32; an
// unsigned result saturates to [0, 255] and is viewed back as ui8.
// CHECK-DAG:   #[[GROUP:.+]] = affine_map<(d0, d1) -> (d0 floordiv 32, d1)>
// CHECK-LABEL: func.func @quantize_per_group_unsigned
// CHECK-DAG:     %[[LO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[HI:.+]] = arith.constant 2.550000e+02 : f32
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[GROUP]], #[[GROUP]], #{{.+}}]
// CHECK:           ^bb0(%{{.+}}: f32, %{{.+}}: f32, %[[ZA:.+]]: ui8, %{{.+}}: ui8):
// CHECK:             %[[ZS:.+]] = builtin.unrealized_conversion_cast %[[ZA]] : ui8 to i8
// CHECK:             arith.extui %[[ZS]] : i8 to i32
// CHECK:             arith.maxnumf %{{.+}}, %[[LO]] : f32
// CHECK:             arith.minnumf %{{.+}}, %[[HI]] : f32
// CHECK:             %[[T:.+]] = arith.trunci %{{.+}} : i32 to i8
// CHECK:             %[[U:.+]] = builtin.unrealized_conversion_cast %[[T]] : i8 to ui8
// CHECK:             linalg.yield %[[U]] : ui8
func.func @quantize_per_group_unsigned(%x: tensor<64x8xf32>, %s: tensor<2x8xf32>, %z: tensor<2x8xui8>) -> tensor<64x8xui8> {
  %q = tsc.quantize %x, %s, %z axis = 0 group_size = 32 : (tensor<64x8xf32>, tensor<2x8xf32>, tensor<2x8xui8>) -> tensor<64x8xui8>
  return %q : tensor<64x8xui8>
}

// -----

// Per channel along axis 1: (q - zero_point) in i32, then times the scale.
// CHECK-DAG:   #[[CHANNEL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @dequantize_per_channel
// CHECK-SAME:    (%[[Q:.+]]: tensor<768x?xi8>, %[[S:.+]]: tensor<?xf32>, %[[Z:.+]]: tensor<?xi8>)
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[CHANNEL]], #[[CHANNEL]], #{{.+}}]
// CHECK-SAME:        ins(%[[Q]], %[[S]], %[[Z]] :
// CHECK:           ^bb0(%[[QA:.+]]: i8, %[[SA:.+]]: f32, %[[ZA:.+]]: i8, %{{.+}}: f32):
// CHECK-DAG:         %[[QW:.+]] = arith.extsi %[[QA]] : i8 to i32
// CHECK-DAG:         %[[ZW:.+]] = arith.extsi %[[ZA]] : i8 to i32
// CHECK:             %[[D:.+]] = arith.subi %[[QW]], %[[ZW]] : i32
// CHECK:             %[[F:.+]] = arith.sitofp %[[D]] : i32 to f32
// CHECK:             %[[Y:.+]] = arith.mulf %[[F]], %[[SA]] : f32
// CHECK:             linalg.yield %[[Y]] : f32
func.func @dequantize_per_channel(%q: tensor<768x?xi8>, %s: tensor<?xf32>, %z: tensor<?xi8>) -> tensor<768x?xf32> {
  %x = tsc.dequantize %q, %s, %z axis = 1 : (tensor<768x?xi8>, tensor<?xf32>, tensor<?xi8>) -> tensor<768x?xf32>
  return %x : tensor<768x?xf32>
}

// -----

// Weight-only int4 GEMM with f16 activations: the weight is dequantized per
// group along K into f32, then contracted with f32 accumulation and
// narrowed to f16.
// CHECK-DAG:   #[[GROUP:.+]] = affine_map<(d0, d1) -> (d0 floordiv 128, d1)>
// CHECK-DAG:   #[[LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG:   #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-LABEL: func.func @quantized_matmul_int4_groups
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x256xf16>, %[[W:.+]]: tensor<256x64xi4>, %[[S:.+]]: tensor<2x64xf16>)
// CHECK:         %[[WF:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[GROUP]], #{{.+}}]
// CHECK-SAME:        ins(%[[W]], %[[S]] : tensor<256x64xi4>, tensor<2x64xf16>) outs(%{{.+}} : tensor<256x64xf32>)
// CHECK:             arith.extsi %{{.+}} : i4 to i32
// CHECK:             arith.extf %{{.+}} : f16 to f32
// CHECK:         %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]], %[[WF]] : tensor<?x?x256xf16>, tensor<256x64xf32>) outs(%{{.+}} : tensor<?x?x64xf32>)
// CHECK:         %[[Y:.+]] = linalg.generic
// CHECK-SAME:        ins(%[[ACC]] : tensor<?x?x64xf32>) outs(%{{.+}} : tensor<?x?x64xf16>)
// CHECK:             arith.truncf
// CHECK:         return %[[Y]]
func.func @quantized_matmul_int4_groups(%x: tensor<?x?x256xf16>, %w: tensor<256x64xi4>, %s: tensor<2x64xf16>) -> tensor<?x?x64xf16> {
  %y = tsc.quantized_matmul %x, %w, %s axis = 0 group_size = 128 : (tensor<?x?x256xf16>, tensor<256x64xi4>, tensor<2x64xf16>) -> tensor<?x?x64xf16>
  return %y : tensor<?x?x64xf16>
}
