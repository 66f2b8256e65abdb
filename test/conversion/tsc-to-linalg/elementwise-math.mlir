// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg | FileCheck %s

// Scalar bodies of the ElementwiseMath ops inside the elementwise generic.

// Half floats round in f32 and convert back once.
// CHECK-LABEL: func.func @round_f16
// CHECK:         linalg.generic
// CHECK:           ^bb0(%[[X:.+]]: f16, %{{.+}}: f16):
// CHECK:             %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK:             %[[R:.+]] = math.roundeven %[[W]] : f32
// CHECK:             %[[H:.+]] = arith.truncf %[[R]] : f32 to f16
// CHECK:             linalg.yield %[[H]] : f16
func.func @round_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = tsc.round %x : tensor<4xf16>
  return %y : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @floor_ceil_trig
// CHECK:           math.floor %{{.+}} : f64
// CHECK:           math.ceil %{{.+}} : f64
// CHECK:           math.atanh %{{.+}} : f64
// CHECK:           math.cosh %{{.+}} : f64
func.func @floor_ceil_trig(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %a = tsc.floor %x : tensor<4xf64>
  %b = tsc.ceil %x : tensor<4xf64>
  %c = tsc.atanh %x : tensor<4xf64>
  %d = tsc.cosh %x : tensor<4xf64>
  return %a, %b, %c, %d : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// -----

// NaN is unordered with itself; |x| == inf finds both infinities, x == -inf
// only the negative one.
// CHECK-LABEL: func.func @classification
// CHECK-DAG:     %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK-DAG:     %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         linalg.generic
// CHECK-SAME:        outs(%{{.+}} : tensor<4xi1>)
// CHECK:           ^bb0(%[[X:.+]]: f32, %{{.+}}: i1):
// CHECK:             %[[NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK:             linalg.yield %[[NAN]] : i1
// CHECK:         linalg.generic
// CHECK:           ^bb0(%[[Y:.+]]: f32, %{{.+}}: i1):
// CHECK:             %[[ABS:.+]] = math.absf %[[Y]] : f32
// CHECK:             arith.cmpf oeq, %[[ABS]], %[[INF]] : f32
// CHECK:         linalg.generic
// CHECK:           ^bb0(%[[Z:.+]]: f32, %{{.+}}: i1):
// CHECK:             arith.cmpf oeq, %[[Z]], %[[NEGINF]] : f32
func.func @classification(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %nan = tsc.is_nan %x : (tensor<4xf32>) -> tensor<4xi1>
  %inf = tsc.is_inf %x : (tensor<4xf32>) -> tensor<4xi1>
  %neg = tsc.is_inf %x detect_positive = false : (tensor<4xf32>) -> tensor<4xi1>
  return %nan, %inf, %neg : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Unsigned elements compare as unsigned; sign of an unsigned is x != 0.
// CHECK-LABEL: func.func @unsigned_compare_and_sign
// CHECK:           arith.cmpi uge, %{{.+}}, %{{.+}} : i8
// CHECK:           %[[NZ:.+]] = arith.cmpi ne, %{{.+}}, %{{.+}} : i8
// CHECK:           arith.select %[[NZ]], %{{.+}}, %{{.+}} : i8
func.func @unsigned_compare_and_sign(%x: tensor<4xui8>, %y: tensor<4xui8>) -> (tensor<4xi1>, tensor<4xui8>) {
  %ge = tsc.greater_equal %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %s = tsc.sign %x : tensor<4xui8>
  return %ge, %s : tensor<4xi1>, tensor<4xui8>
}

// -----

// The signed remainder divides by 1 where y is 0 or -1 (arith leaves x % 0
// undefined and INT_MIN % -1 traps), then moves by y where the remainder's
// sign differs from y's.
// CHECK-LABEL: func.func @mod_i32
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-DAG:     %[[MONE:.+]] = arith.constant -1 : i32
// CHECK:           ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK:             %[[Y0:.+]] = arith.cmpi eq, %[[Y]], %[[ZERO]] : i32
// CHECK:             %[[YM1:.+]] = arith.cmpi eq, %[[Y]], %[[MONE]] : i32
// CHECK:             %[[BAD:.+]] = arith.ori %[[Y0]], %[[YM1]] : i1
// CHECK:             %[[D:.+]] = arith.select %[[BAD]], %[[ONE]], %[[Y]] : i32
// CHECK:             %[[R:.+]] = arith.remsi %[[X]], %[[D]] : i32
// CHECK:             %[[SUM:.+]] = arith.addi %[[R]], %[[Y]] : i32
// CHECK:             %[[M:.+]] = arith.select %{{.+}}, %[[SUM]], %[[R]] : i32
// CHECK:             linalg.yield %[[M]] : i32
func.func @mod_i32(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %m = tsc.mod %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %m : tensor<4xi32>
}

// -----

// fmod is arith's remf; mod gives a zero the divisor's sign.
// CHECK-LABEL: func.func @float_remainders
// CHECK:           ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK:             %[[F:.+]] = arith.remf %[[A]], %[[B]] : f32
// CHECK:             linalg.yield %[[F]] : f32
// CHECK:           ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK:             %[[R:.+]] = arith.remf %[[X]], %[[Y]] : f32
// CHECK:             %[[MOVED:.+]] = arith.addf %[[R]], %[[Y]] : f32
// CHECK:             %[[SIGNED:.+]] = math.copysign %[[R]], %[[Y]] : f32
// CHECK:             arith.select %{{.+}}, %[[SIGNED]], %{{.+}} : f32
func.func @float_remainders(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %f = tsc.fmod %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = tsc.mod %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %f, %m : tensor<4xf32>, tensor<4xf32>
}

// -----

// Shift amounts are tested unsigned against the width (negative ones are
// large): left shifts and unsigned right shifts give 0 outside it, signed
// right shifts shift by width - 1 (the sign fill).
// CHECK-LABEL: func.func @shifts
// CHECK-DAG:     %[[W8:.+]] = arith.constant 8 : i8
// CHECK-DAG:     %[[W16:.+]] = arith.constant 16 : i16
// CHECK-DAG:     %[[S15:.+]] = arith.constant 15 : i16
// CHECK:           ^bb0(%[[X:.+]]: i16, %[[Y:.+]]: i16, %{{.+}}: i16):
// CHECK:             %[[IN:.+]] = arith.cmpi ult, %[[Y]], %[[W16]] : i16
// CHECK:             %[[AMOUNT:.+]] = arith.select %[[IN]], %[[Y]], %[[S15]] : i16
// CHECK:             %[[SHR:.+]] = arith.shrsi %[[X]], %[[AMOUNT]] : i16
// CHECK:             linalg.yield %[[SHR]] : i16
// CHECK:           ^bb0(%{{.+}}: ui8, %{{.+}}: ui8, %{{.+}}: ui8):
// CHECK:             %[[UIN:.+]] = arith.cmpi ult, %{{.+}}, %[[W8]] : i8
// CHECK:             %[[SHL:.+]] = arith.shli
// CHECK:             arith.select %[[UIN]], %[[SHL]], %{{.+}} : i8
func.func @shifts(%x: tensor<4xi16>, %y: tensor<4xi16>, %u: tensor<4xui8>, %v: tensor<4xui8>) -> (tensor<4xi16>, tensor<4xui8>) {
  %r = tsc.shift_right %x, %y : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  %l = tsc.shift_left %u, %v : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %r, %l : tensor<4xi16>, tensor<4xui8>
}

// -----

// Integer powers multiply by squares of the base for each set exponent bit
// (7 value bits of an i8); a negative exponent selects trunc(1 / x^-y).
// CHECK-LABEL: func.func @integer_pow_i8
// CHECK:           ^bb0(%[[X:.+]]: i8, %[[Y:.+]]: i8, %{{.+}}: i8):
// CHECK-COUNT-7:     arith.andi %[[Y]], %{{.+}} : i8
// CHECK:             %[[NEG:.+]] = arith.cmpi slt, %[[Y]], %{{.+}} : i8
// CHECK:             %[[P:.+]] = arith.select %[[NEG]], %{{.+}}, %{{.+}} : i8
// CHECK:             linalg.yield %[[P]] : i8
func.func @integer_pow_i8(%x: tensor<4xi8>, %y: tensor<4xi8>) -> tensor<4xi8> {
  %p = tsc.pow %x, %y : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %p : tensor<4xi8>
}
