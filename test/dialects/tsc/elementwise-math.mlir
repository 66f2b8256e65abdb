// RUN: tsc-opt %s --split-input-file | tsc-opt --split-input-file | FileCheck %s

// Round trip of the ElementwiseMath ops: rounding, sign, trigonometry,
// classification (i1 results), comparisons, modulo, bitwise ops and shifts.

// CHECK-LABEL: func.func @rounding_and_sign
// CHECK-SAME:    (%[[X:.+]]: tensor<?x8xf32>, %[[I:.+]]: tensor<4xi8>, %[[U:.+]]: tensor<4xui8>)
// CHECK:         %[[FLOOR:.+]] = tsc.floor %[[X]] : tensor<?x8xf32>
// CHECK:         %[[CEIL:.+]] = tsc.ceil %[[X]] : tensor<?x8xf32>
// CHECK:         %[[ROUND:.+]] = tsc.round %[[X]] : tensor<?x8xf32>
// CHECK:         %[[SIGN:.+]] = tsc.sign %[[X]] : tensor<?x8xf32>
// CHECK:         %[[ISIGN:.+]] = tsc.sign %[[I]] : tensor<4xi8>
// CHECK:         %[[USIGN:.+]] = tsc.sign %[[U]] : tensor<4xui8>
// CHECK:         return %[[FLOOR]], %[[CEIL]], %[[ROUND]], %[[SIGN]], %[[ISIGN]], %[[USIGN]]
func.func @rounding_and_sign(%x: tensor<?x8xf32>, %i: tensor<4xi8>, %u: tensor<4xui8>)
    -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<4xi8>, tensor<4xui8>) {
  %floor = tsc.floor %x : tensor<?x8xf32>
  %ceil = tsc.ceil %x : tensor<?x8xf32>
  %round = tsc.round %x : tensor<?x8xf32>
  %sign = tsc.sign %x : tensor<?x8xf32>
  %isign = tsc.sign %i : tensor<4xi8>
  %usign = tsc.sign %u : tensor<4xui8>
  return %floor, %ceil, %round, %sign, %isign, %usign
      : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<4xi8>, tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @trigonometry
// CHECK-SAME:    (%[[X:.+]]: tensor<3xf16>)
// CHECK:         %[[TAN:.+]] = tsc.tan %[[X]] : tensor<3xf16>
// CHECK:         %[[ASIN:.+]] = tsc.asin %[[TAN]] : tensor<3xf16>
// CHECK:         %[[ACOS:.+]] = tsc.acos %[[ASIN]] : tensor<3xf16>
// CHECK:         %[[ATAN:.+]] = tsc.atan %[[ACOS]] : tensor<3xf16>
// CHECK:         %[[SINH:.+]] = tsc.sinh %[[ATAN]] : tensor<3xf16>
// CHECK:         %[[COSH:.+]] = tsc.cosh %[[SINH]] : tensor<3xf16>
// CHECK:         %[[ASINH:.+]] = tsc.asinh %[[COSH]] : tensor<3xf16>
// CHECK:         %[[ACOSH:.+]] = tsc.acosh %[[ASINH]] : tensor<3xf16>
// CHECK:         %[[ATANH:.+]] = tsc.atanh %[[ACOSH]] : tensor<3xf16>
// CHECK:         return %[[ATANH]]
func.func @trigonometry(%x: tensor<3xf16>) -> tensor<3xf16> {
  %tan = tsc.tan %x : tensor<3xf16>
  %asin = tsc.asin %tan : tensor<3xf16>
  %acos = tsc.acos %asin : tensor<3xf16>
  %atan = tsc.atan %acos : tensor<3xf16>
  %sinh = tsc.sinh %atan : tensor<3xf16>
  %cosh = tsc.cosh %sinh : tensor<3xf16>
  %asinh = tsc.asinh %cosh : tensor<3xf16>
  %acosh = tsc.acosh %asinh : tensor<3xf16>
  %atanh = tsc.atanh %acosh : tensor<3xf16>
  return %atanh : tensor<3xf16>
}

// -----

// is_inf prints only the directions it ignores.
// CHECK-LABEL: func.func @classification
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xbf16>)
// CHECK:         %[[NAN:.+]] = tsc.is_nan %[[X]] : (tensor<?x4xbf16>) -> tensor<?x4xi1>
// CHECK:         %[[INF:.+]] = tsc.is_inf %[[X]] : (tensor<?x4xbf16>) -> tensor<?x4xi1>
// CHECK:         %[[NEG:.+]] = tsc.is_inf %[[X]] detect_positive = false : (tensor<?x4xbf16>) -> tensor<?x4xi1>
// CHECK:         %[[POS:.+]] = tsc.is_inf %[[X]] detect_negative = false : (tensor<?x4xbf16>) -> tensor<?x4xi1>
// CHECK:         return %[[NAN]], %[[INF]], %[[NEG]], %[[POS]]
func.func @classification(%x: tensor<?x4xbf16>)
    -> (tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>) {
  %nan = tsc.is_nan %x : (tensor<?x4xbf16>) -> tensor<?x4xi1>
  %inf = tsc.is_inf %x detect_positive = true : (tensor<?x4xbf16>) -> tensor<?x4xi1>
  %neg = tsc.is_inf %x detect_positive = false : (tensor<?x4xbf16>) -> tensor<?x4xi1>
  %pos = tsc.is_inf %x detect_negative = false : (tensor<?x4xbf16>) -> tensor<?x4xi1>
  return %nan, %inf, %neg, %pos : tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>
}

// -----

// CHECK-LABEL: func.func @comparisons_and_modulo
// CHECK-SAME:    (%[[X:.+]]: tensor<?x8xf32>, %[[Y:.+]]: tensor<8xf32>, %[[I:.+]]: tensor<?x1xi64>, %[[J:.+]]: tensor<5xi64>)
// CHECK:         %[[GE:.+]] = tsc.greater_equal %[[X]], %[[Y]] : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xi1>
// CHECK:         %[[LE:.+]] = tsc.less_equal %[[I]], %[[J]] : (tensor<?x1xi64>, tensor<5xi64>) -> tensor<?x5xi1>
// CHECK:         %[[MOD:.+]] = tsc.mod %[[I]], %[[J]] : (tensor<?x1xi64>, tensor<5xi64>) -> tensor<?x5xi64>
// CHECK:         %[[FMOD:.+]] = tsc.fmod %[[X]], %[[Y]] : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
// CHECK:         %[[POW:.+]] = tsc.pow %[[I]], %[[J]] : (tensor<?x1xi64>, tensor<5xi64>) -> tensor<?x5xi64>
// CHECK:         return %[[GE]], %[[LE]], %[[MOD]], %[[FMOD]], %[[POW]]
func.func @comparisons_and_modulo(%x: tensor<?x8xf32>, %y: tensor<8xf32>, %i: tensor<?x1xi64>, %j: tensor<5xi64>)
    -> (tensor<?x8xi1>, tensor<?x5xi1>, tensor<?x5xi64>, tensor<?x8xf32>, tensor<?x5xi64>) {
  %ge = tsc.greater_equal %x, %y : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xi1>
  %le = tsc.less_equal %i, %j : (tensor<?x1xi64>, tensor<5xi64>) -> tensor<?x5xi1>
  %mod = tsc.mod %i, %j : (tensor<?x1xi64>, tensor<5xi64>) -> tensor<?x5xi64>
  %fmod = tsc.fmod %x, %y : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %pow = tsc.pow %i, %j : (tensor<?x1xi64>, tensor<5xi64>) -> tensor<?x5xi64>
  return %ge, %le, %mod, %fmod, %pow : tensor<?x8xi1>, tensor<?x5xi1>, tensor<?x5xi64>, tensor<?x8xf32>, tensor<?x5xi64>
}

// -----

// CHECK-LABEL: func.func @bitwise_and_shifts
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3xui16>, %[[Y:.+]]: tensor<3xui16>, %[[B:.+]]: tensor<3xi1>)
// CHECK:         %[[AND:.+]] = tsc.bitwise_and %[[X]], %[[Y]] : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
// CHECK:         %[[OR:.+]] = tsc.bitwise_or %[[AND]], %[[Y]] : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
// CHECK:         %[[XOR:.+]] = tsc.bitwise_xor %[[OR]], %[[Y]] : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
// CHECK:         %[[SHL:.+]] = tsc.shift_left %[[XOR]], %[[Y]] : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
// CHECK:         %[[SHR:.+]] = tsc.shift_right %[[SHL]], %[[Y]] : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
// CHECK:         %[[BXOR:.+]] = tsc.bitwise_xor %[[B]], %[[B]] : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
// CHECK:         return %[[SHR]], %[[BXOR]]
func.func @bitwise_and_shifts(%x: tensor<2x3xui16>, %y: tensor<3xui16>, %b: tensor<3xi1>)
    -> (tensor<2x3xui16>, tensor<3xi1>) {
  %and = tsc.bitwise_and %x, %y : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %or = tsc.bitwise_or %and, %y : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %xor = tsc.bitwise_xor %or, %y : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %shl = tsc.shift_left %xor, %y : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %shr = tsc.shift_right %shl, %y : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  %bxor = tsc.bitwise_xor %b, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %shr, %bxor : tensor<2x3xui16>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @bitcast
// CHECK:         tsc.bitcast %{{.+}} : tensor<?x3xf32> to tensor<?x3xi32>
// CHECK:         tsc.bitcast %{{.+}} : tensor<4xi1> to tensor<4xui8>
func.func @bitcast(%x: tensor<?x3xf32>, %b: tensor<4xi1>) -> (tensor<?x3xi32>, tensor<4xui8>) {
  %i = tsc.bitcast %x : tensor<?x3xf32> to tensor<?x3xi32>
  %u = tsc.bitcast %b : tensor<4xi1> to tensor<4xui8>
  return %i, %u : tensor<?x3xi32>, tensor<4xui8>
}
