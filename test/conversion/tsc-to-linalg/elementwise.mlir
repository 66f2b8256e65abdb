// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg | FileCheck %s

// numpy broadcasting: the bias reads only the trailing dim; the dynamic
// result dim comes from the operand that has it.
// CHECK-DAG:   #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_bias
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>, %[[B:.+]]: tensor<768xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x768xf32>
// CHECK:         %[[EMPTY:.+]] = tensor.empty(%[[D]]) : tensor<?x768xf32>
// CHECK:         %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X]], %[[B]] : tensor<?x768xf32>, tensor<768xf32>) outs(%[[EMPTY]] : tensor<?x768xf32>)
// CHECK:           ^bb0(%[[A:.+]]: f32, %[[C:.+]]: f32, %{{.+}}: f32):
// CHECK:             %[[S:.+]] = arith.addf %[[A]], %[[C]] : f32
// CHECK:             linalg.yield %[[S]] : f32
// CHECK:         return %[[Y]]
func.func @add_bias(%x: tensor<?x768xf32>, %b: tensor<768xf32>) -> tensor<?x768xf32> {
  %y = tsc.add %x, %b : (tensor<?x768xf32>, tensor<768xf32>) -> tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// A static size-1 dim broadcasts by reading index 0.
// CHECK-DAG:   #[[BCAST:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @where_broadcast_mask
// CHECK:         linalg.generic {indexing_maps = [#[[BCAST]], #{{.+}}, #{{.+}}, #{{.+}}]
// CHECK:           ^bb0(%[[C:.+]]: i1, %[[T:.+]]: f32, %[[F:.+]]: f32, %{{.+}}: f32):
// CHECK:             arith.select %[[C]], %[[T]], %[[F]] : f32
func.func @where_broadcast_mask(%c: tensor<1x8xi1>, %t: tensor<4x8xf32>, %f: tensor<f32>) -> tensor<4x8xf32> {
  %y = tsc.where %c, %t, %f : (tensor<1x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Float to int truncates toward zero; the comparison result is i1.
// CHECK-LABEL: func.func @cast_and_compare
// CHECK:         linalg.generic
// CHECK:             arith.fptosi %{{.+}} : f32 to i32
// CHECK:         linalg.generic
// CHECK-SAME:        outs(%{{.+}} : tensor<4xi1>)
// CHECK:             arith.cmpi slt, %{{.+}}, %{{.+}} : i32
func.func @cast_and_compare(%x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xi1> {
  %c = tsc.cast %x : tensor<4xf32> to tensor<4xi32>
  %l = tsc.less %c, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %l : tensor<4xi1>
}

// -----

// Exact GELU: 0.5 x (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu_erf
// CHECK-DAG:     %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[RSQRT2:.+]] = arith.constant 0.707106769 : f32
// CHECK:         linalg.generic
// CHECK:           ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK:             %[[S:.+]] = arith.mulf %[[X]], %[[RSQRT2]] : f32
// CHECK:             %[[E:.+]] = math.erf %[[S]] : f32
// CHECK:             %[[H:.+]] = arith.mulf %[[X]], %[[HALF]] : f32
// CHECK:             %[[P:.+]] = arith.addf %[[E]], %[[ONE]] : f32
// CHECK:             %[[Y:.+]] = arith.mulf %[[H]], %[[P]] : f32
// CHECK:             linalg.yield %[[Y]] : f32
func.func @gelu_erf(%x: tensor<?x3072xf32>) -> tensor<?x3072xf32> {
  %y = tsc.gelu %x : tensor<?x3072xf32>
  return %y : tensor<?x3072xf32>
}

// -----

// A saturating cast (--precision's): finite values past f16's range clamp to
// ±65504 before rounding; infinities (|x| == inf) and NaN pass unchanged.
// CHECK-LABEL: func.func @cast_saturate
// CHECK:         linalg.generic
// CHECK:           %[[HI:.+]] = arith.maximumf %[[IN:.+]], %{{.+}} : f32
// CHECK:           %[[CL:.+]] = arith.minimumf %[[HI]], %{{.+}} : f32
// CHECK:           %[[ABS:.+]] = math.absf %[[IN]] : f32
// CHECK:           %[[INF:.+]] = arith.cmpf oeq, %[[ABS]], %{{.+}} : f32
// CHECK:           %[[SEL:.+]] = arith.select %[[INF]], %[[IN]], %[[CL]] : f32
// CHECK:           arith.truncf %[[SEL]] : f32 to f16
func.func @cast_saturate(%x: tensor<4xf32>) -> tensor<4xf16> {
  %y = tsc.cast %x saturate : tensor<4xf32> to tensor<4xf16>
  return %y : tensor<4xf16>
}

// -----

// f16 and bf16 have one width: widened exactly to f32, then rounded once.
// CHECK-LABEL: func.func @cast_f16_to_bf16
// CHECK:         linalg.generic
// CHECK:           %[[W:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:           arith.truncf %[[W]] : f32 to bf16
func.func @cast_f16_to_bf16(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %y = tsc.cast %x : tensor<4xf16> to tensor<4xbf16>
  return %y : tensor<4xbf16>
}

// -----

// bitcast keeps the bits: one arith.bitcast on signless types; a bool is a
// byte of 0 or 1, and a byte reads as true where it is nonzero.
// CHECK-LABEL: func.func @bitcast
// CHECK:         linalg.generic
// CHECK:           arith.bitcast %{{.+}} : f32 to i32
// CHECK:         linalg.generic
// CHECK:           arith.extui %{{.+}} : i1 to i8
// CHECK:         linalg.generic
// CHECK:           %[[BYTE:.+]] = arith.bitcast %{{.+}} : f8E4M3FN to i8
// CHECK:           arith.cmpi ne, %[[BYTE]], %{{.+}} : i8
func.func @bitcast(%x: tensor<4xf32>, %b: tensor<4xi1>, %f: tensor<4xf8E4M3FN>)
    -> (tensor<4xui32>, tensor<4xui8>, tensor<4xi1>) {
  %i = tsc.bitcast %x : tensor<4xf32> to tensor<4xui32>
  %u = tsc.bitcast %b : tensor<4xi1> to tensor<4xui8>
  %t = tsc.bitcast %f : tensor<4xf8E4M3FN> to tensor<4xi1>
  return %i, %u, %t : tensor<4xui32>, tensor<4xui8>, tensor<4xi1>
}

// -----

// An integer abs is max(x, 0 - x): the CUDA target's NVVM lowering has no
// math.absi.
// CHECK-LABEL: func.func @abs_integer
// CHECK:         %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK:           ^bb0(%[[X:.+]]: i64, %{{.+}}: i64):
// CHECK:             %[[NEG:.+]] = arith.subi %[[ZERO]], %[[X]] : i64
// CHECK:             %[[ABS:.+]] = arith.maxsi %[[X]], %[[NEG]] : i64
// CHECK:             linalg.yield %[[ABS]] : i64
// CHECK-NOT:     math.absi
func.func @abs_integer(%x: tensor<4xi64>) -> tensor<4xi64> {
  %y = tsc.abs %x : tensor<4xi64>
  return %y : tensor<4xi64>
}
