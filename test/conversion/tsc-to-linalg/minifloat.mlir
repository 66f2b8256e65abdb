// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg | FileCheck %s

// The 8-bit floats convert as integer code on their bits (Minifloat.cpp);
// their numerics are checked exhaustively end to end by
// test/runtime/minifloat-casts.test. An f32 is encoded from its 32 bits and
// rounded once; with saturate the overflow code is the largest finite one
// (0x7E for E4M3FN), without it NaN (0x7F).
// CHECK-LABEL: func.func @f32_to_e4m3fn_saturating
// CHECK-DAG:     %[[MAX:.+]] = arith.constant 126 : i32
// CHECK:         linalg.generic
// CHECK:           ^bb0(%[[X:.+]]: f32, %{{.+}}: f8E4M3FN):
// CHECK:             %[[BITS:.+]] = arith.bitcast %[[X]] : f32 to i32
// CHECK:             %[[OVER:.+]] = arith.cmpi ugt, %[[CODE:.+]], %[[MAX]] : i32
// CHECK:             arith.select %[[OVER]], %[[MAX]], %[[CODE]] : i32
// CHECK:             %[[BYTE:.+]] = arith.trunci %{{.+}} : i32 to i8
// CHECK:             %[[F8:.+]] = arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
// CHECK:             linalg.yield %[[F8]] : f8E4M3FN
// CHECK-NOT:     arith.truncf
func.func @f32_to_e4m3fn_saturating(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %y = tsc.cast %x saturate : tensor<4xf32> to tensor<4xf8E4M3FN>
  return %y : tensor<4xf8E4M3FN>
}

// -----

// CHECK-LABEL: func.func @f32_to_e4m3fn_not_saturating
// CHECK-DAG:     %[[MAX:.+]] = arith.constant 126 : i32
// CHECK-DAG:     %[[NAN:.+]] = arith.constant 127 : i32
// CHECK:         ^bb0(%{{.+}}: f32, %{{.+}}: f8E4M3FN):
// CHECK:           %[[OVER:.+]] = arith.cmpi ugt, %[[CODE:.+]], %[[MAX]] : i32
// CHECK:           arith.select %[[OVER]], %[[NAN]], %[[CODE]] : i32
func.func @f32_to_e4m3fn_not_saturating(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %y = tsc.cast %x : tensor<4xf32> to tensor<4xf8E4M3FN>
  return %y : tensor<4xf8E4M3FN>
}

// -----

// f64 rounds once, from its own 64 bits (no f32 in between).
// CHECK-LABEL: func.func @f64_to_e5m2
// CHECK:         ^bb0(%[[X:.+]]: f64, %{{.+}}: f8E5M2):
// CHECK:           arith.bitcast %[[X]] : f64 to i64
// CHECK-NOT:       arith.truncf
// CHECK:           arith.trunci %{{.+}} : i64 to i8
func.func @f64_to_e5m2(%x: tensor<4xf64>) -> tensor<4xf8E5M2> {
  %y = tsc.cast %x : tensor<4xf64> to tensor<4xf8E5M2>
  return %y : tensor<4xf8E5M2>
}

// -----

// Halves widen to f32 exactly first.
// CHECK-LABEL: func.func @f16_to_e5m2fnuz
// CHECK:         ^bb0(%[[X:.+]]: f16, %{{.+}}: f8E5M2FNUZ):
// CHECK:           %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK:           arith.bitcast %[[W]] : f32 to i32
func.func @f16_to_e5m2fnuz(%x: tensor<4xf16>) -> tensor<4xf8E5M2FNUZ> {
  %y = tsc.cast %x : tensor<4xf16> to tensor<4xf8E5M2FNUZ>
  return %y : tensor<4xf8E5M2FNUZ>
}

// -----

// Decoding: the code's bits, exactly into f32, then on by the ordinary
// rules (here to f16).
// FNUZ's 0x80 is NaN, not -0.
// CHECK-LABEL: func.func @e4m3fnuz_to_f16
// CHECK-DAG:     %[[C128:.+]] = arith.constant 128 : i32
// CHECK-DAG:     %[[NAN:.+]] = arith.constant 0x7FC00000 : f32
// CHECK:         ^bb0(%[[X:.+]]: f8E4M3FNUZ, %{{.+}}: f16):
// CHECK:           %[[B:.+]] = arith.bitcast %[[X]] : f8E4M3FNUZ to i8
// CHECK:           %[[W:.+]] = arith.extui %[[B]] : i8 to i32
// CHECK:           arith.negf %{{.+}} : f32
// CHECK:           %[[ISNAN:.+]] = arith.cmpi eq, %[[W]], %[[C128]] : i32
// CHECK:           %[[F:.+]] = arith.select %[[ISNAN]], %[[NAN]], %{{.+}} : f32
// CHECK:           arith.truncf %[[F]] : f32 to f16
func.func @e4m3fnuz_to_f16(%x: tensor<4xf8E4M3FNUZ>) -> tensor<4xf16> {
  %y = tsc.cast %x : tensor<4xf8E4M3FNUZ> to tensor<4xf16>
  return %y : tensor<4xf16>
}

// -----

// E8M0 keeps the exponent field; round_mode = down drops the mantissa.
// CHECK-LABEL: func.func @f32_to_e8m0_down
// CHECK:         ^bb0(%[[X:.+]]: f32, %{{.+}}: f8E8M0FNU):
// CHECK:           %[[BITS:.+]] = arith.bitcast %[[X]] : f32 to i32
// CHECK:           arith.shrui %[[BITS]], %{{.+}} : i32
// CHECK-NOT:       arith.addi
// CHECK:           arith.bitcast %{{.+}} : i8 to f8E8M0FNU
func.func @f32_to_e8m0_down(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  %y = tsc.cast %x saturate round_mode = down : tensor<4xf32> to tensor<4xf8E8M0FNU>
  return %y : tensor<4xf8E8M0FNU>
}

// -----

// Quantizing into an 8-bit float: x / scale, then the saturating encoding,
// with no rounding to an integer.
// CHECK-LABEL: func.func @quantize_e4m3fn
// CHECK:         ^bb0(%[[X:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f8E4M3FN):
// CHECK:           %[[Q:.+]] = arith.divf %[[X]], %[[S]] : f32
// CHECK-NOT:       math.roundeven
// CHECK:           arith.bitcast %[[Q]] : f32 to i32
// CHECK:           arith.bitcast %{{.+}} : i8 to f8E4M3FN
func.func @quantize_e4m3fn(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf8E4M3FN> {
  %q = tsc.quantize %x, %s saturate : (tensor<4xf32>, tensor<f32>) -> tensor<4xf8E4M3FN>
  return %q : tensor<4xf8E4M3FN>
}

// -----

// Dequantizing one: decoded to f32, the zero point subtracted in f32.
// CHECK-LABEL: func.func @dequantize_e5m2
// CHECK:         ^bb0(%[[X:.+]]: f8E5M2, %[[S:.+]]: f32, %[[Z:.+]]: f8E5M2, %{{.+}}: f32):
// CHECK:           arith.bitcast %[[X]] : f8E5M2 to i8
// CHECK:           arith.bitcast %[[Z]] : f8E5M2 to i8
// CHECK:           %[[D:.+]] = arith.subf %{{.+}}, %{{.+}} : f32
// CHECK:           arith.mulf %[[D]], %[[S]] : f32
func.func @dequantize_e5m2(%x: tensor<4xf8E5M2>, %s: tensor<f32>, %z: tensor<f8E5M2>) -> tensor<4xf32> {
  %d = tsc.dequantize %x, %s, %z : (tensor<4xf8E5M2>, tensor<f32>, tensor<f8E5M2>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
