// RUN: tsc-opt %s --split-input-file | tsc-opt --split-input-file | FileCheck %s

// Round trip of the elementwise tsc ops: unary math, gelu, clip, cast, binary
// ops with numpy broadcasting and where.
// -----

// CHECK-LABEL: func.func @exp_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.exp %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @exp_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.exp %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @log_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.log %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @log_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.log %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @sqrt_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.sqrt %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @sqrt_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.sqrt %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @rsqrt_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.rsqrt %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @rsqrt_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.rsqrt %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @reciprocal_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.reciprocal %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @reciprocal_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.reciprocal %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @tanh_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.tanh %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @tanh_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.tanh %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @erf_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.erf %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @erf_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.erf %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @sigmoid_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.sigmoid %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @sigmoid_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.sigmoid %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @silu_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.silu %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @silu_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.silu %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @sin_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.sin %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @sin_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.sin %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @cos_f32
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[Y:.+]] = tsc.cos %[[X]] : tensor<?x768xf32>
// CHECK:         return %[[Y]]
func.func @cos_f32(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %y = tsc.cos %x : tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @neg_numeric
// CHECK-SAME:    (%[[X:.+]]: tensor<4x?xi32>)
// CHECK:         %[[Y:.+]] = tsc.neg %[[X]] : tensor<4x?xi32>
// CHECK:         return %[[Y]]
func.func @neg_numeric(%x: tensor<4x?xi32>) -> tensor<4x?xi32> {
  %y = tsc.neg %x : tensor<4x?xi32>
  return %y : tensor<4x?xi32>
}

// -----

// CHECK-LABEL: func.func @abs_numeric
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3xi8>)
// CHECK:         %[[Y:.+]] = tsc.abs %[[X]] : tensor<2x3xi8>
// CHECK:         return %[[Y]]
func.func @abs_numeric(%x: tensor<2x3xi8>) -> tensor<2x3xi8> {
  %y = tsc.abs %x : tensor<2x3xi8>
  return %y : tensor<2x3xi8>
}

// -----

// CHECK-LABEL: func.func @relu_numeric
// CHECK-SAME:    (%[[X:.+]]: tensor<?xbf16>)
// CHECK:         %[[Y:.+]] = tsc.relu %[[X]] : tensor<?xbf16>
// CHECK:         return %[[Y]]
func.func @relu_numeric(%x: tensor<?xbf16>) -> tensor<?xbf16> {
  %y = tsc.relu %x : tensor<?xbf16>
  return %y : tensor<?xbf16>
}

// -----

// CHECK-LABEL: func.func @not_i1
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?xi1>)
// CHECK:         %[[Y:.+]] = tsc.not %[[X]] : tensor<?x?xi1>
// CHECK:         return %[[Y]]
func.func @not_i1(%x: tensor<?x?xi1>) -> tensor<?x?xi1> {
  %y = tsc.not %x : tensor<?x?xi1>
  return %y : tensor<?x?xi1>
}

// -----

// The default approximation (none) is not printed, whether spelled or not.
// CHECK-LABEL: func.func @gelu_approximations
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>)
// CHECK:         %[[A:.+]] = tsc.gelu %[[X]] : tensor<?x768xf32>
// CHECK:         %[[B:.+]] = tsc.gelu %[[X]] : tensor<?x768xf32>
// CHECK:         %[[C:.+]] = tsc.gelu %[[X]] approximate = tanh : tensor<?x768xf32>
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @gelu_approximations(%x: tensor<?x768xf32>)
    -> (tensor<?x768xf32>, tensor<?x768xf32>, tensor<?x768xf32>) {
  %a = tsc.gelu %x : tensor<?x768xf32>
  %b = tsc.gelu %x approximate = none : tensor<?x768xf32>
  %c = tsc.gelu %x approximate = tanh : tensor<?x768xf32>
  return %a, %b, %c : tensor<?x768xf32>, tensor<?x768xf32>, tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @clip_bounds
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>, %[[I:.+]]: tensor<8xi32>)
// CHECK:         %[[A:.+]] = tsc.clip %[[X]] min = 0.000000e+00 max = 6.000000e+00 : tensor<?x768xf32>
// CHECK:         %[[B:.+]] = tsc.clip %[[X]] min = -1.500000e+00 : tensor<?x768xf32>
// CHECK:         %[[C:.+]] = tsc.clip %[[I]] max = 1.270000e+02 : tensor<8xi32>
// CHECK:         %[[D:.+]] = tsc.clip %[[X]] : tensor<?x768xf32>
// CHECK:         %[[E:.+]] = tsc.clip %[[X]] min = 2.000000e+00 max = 2.000000e+00 : tensor<?x768xf32>
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
func.func @clip_bounds(%x: tensor<?x768xf32>, %i: tensor<8xi32>)
    -> (tensor<?x768xf32>, tensor<?x768xf32>, tensor<8xi32>, tensor<?x768xf32>,
        tensor<?x768xf32>) {
  %a = tsc.clip %x min = 0.0 max = 6.0 : tensor<?x768xf32>
  %b = tsc.clip %x min = -1.5 : tensor<?x768xf32>
  %c = tsc.clip %i max = 127.0 : tensor<8xi32>
  %d = tsc.clip %x : tensor<?x768xf32>
  %e = tsc.clip %x min = 2.0 max = 2.0 : tensor<?x768xf32>
  return %a, %b, %c, %d, %e
      : tensor<?x768xf32>, tensor<?x768xf32>, tensor<8xi32>, tensor<?x768xf32>,
        tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @cast_element_types
// CHECK-SAME:    (%[[M:.+]]: tensor<?x?xi64>, %[[X:.+]]: tensor<2x?xf32>, %[[U:.+]]: tensor<3xui8>)
// CHECK:         %[[A:.+]] = tsc.cast %[[M]] : tensor<?x?xi64> to tensor<?x?xf32>
// CHECK:         %[[B:.+]] = tsc.cast %[[X]] : tensor<2x?xf32> to tensor<2x?xi1>
// CHECK:         %[[C:.+]] = tsc.cast %[[X]] : tensor<2x?xf32> to tensor<2x?xbf16>
// CHECK:         %[[D:.+]] = tsc.cast %[[U]] : tensor<3xui8> to tensor<3xf16>
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @cast_element_types(%m: tensor<?x?xi64>, %x: tensor<2x?xf32>, %u: tensor<3xui8>)
    -> (tensor<?x?xf32>, tensor<2x?xi1>, tensor<2x?xbf16>, tensor<3xf16>) {
  %a = tsc.cast %m : tensor<?x?xi64> to tensor<?x?xf32>
  %b = tsc.cast %x : tensor<2x?xf32> to tensor<2x?xi1>
  %c = tsc.cast %x : tensor<2x?xf32> to tensor<2x?xbf16>
  %d = tsc.cast %u : tensor<3xui8> to tensor<3xf16>
  return %a, %b, %c, %d : tensor<?x?xf32>, tensor<2x?xi1>, tensor<2x?xbf16>, tensor<3xf16>
}

// -----

// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<768xf32>)
// CHECK:         %[[Z:.+]] = tsc.add %[[X]], %[[Y]] : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
// CHECK:         return %[[Z]]
func.func @add_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<768xf32>) -> tensor<?x?x768xf32> {
  %z = tsc.add %x, %y : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  return %z : tensor<?x?x768xf32>
}

// -----

// CHECK-LABEL: func.func @sub_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<768xf32>)
// CHECK:         %[[Z:.+]] = tsc.sub %[[X]], %[[Y]] : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
// CHECK:         return %[[Z]]
func.func @sub_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<768xf32>) -> tensor<?x?x768xf32> {
  %z = tsc.sub %x, %y : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  return %z : tensor<?x?x768xf32>
}

// -----

// CHECK-LABEL: func.func @mul_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<768xf32>)
// CHECK:         %[[Z:.+]] = tsc.mul %[[X]], %[[Y]] : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
// CHECK:         return %[[Z]]
func.func @mul_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<768xf32>) -> tensor<?x?x768xf32> {
  %z = tsc.mul %x, %y : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  return %z : tensor<?x?x768xf32>
}

// -----

// CHECK-LABEL: func.func @div_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<768xf32>)
// CHECK:         %[[Z:.+]] = tsc.div %[[X]], %[[Y]] : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
// CHECK:         return %[[Z]]
func.func @div_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<768xf32>) -> tensor<?x?x768xf32> {
  %z = tsc.div %x, %y : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  return %z : tensor<?x?x768xf32>
}

// -----

// CHECK-LABEL: func.func @pow_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<768xf32>)
// CHECK:         %[[Z:.+]] = tsc.pow %[[X]], %[[Y]] : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
// CHECK:         return %[[Z]]
func.func @pow_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<768xf32>) -> tensor<?x?x768xf32> {
  %z = tsc.pow %x, %y : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  return %z : tensor<?x?x768xf32>
}

// -----

// CHECK-LABEL: func.func @max_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<768xf32>)
// CHECK:         %[[Z:.+]] = tsc.max %[[X]], %[[Y]] : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
// CHECK:         return %[[Z]]
func.func @max_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<768xf32>) -> tensor<?x?x768xf32> {
  %z = tsc.max %x, %y : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  return %z : tensor<?x?x768xf32>
}

// -----

// CHECK-LABEL: func.func @min_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<768xf32>)
// CHECK:         %[[Z:.+]] = tsc.min %[[X]], %[[Y]] : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
// CHECK:         return %[[Z]]
func.func @min_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<768xf32>) -> tensor<?x?x768xf32> {
  %z = tsc.min %x, %y : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  return %z : tensor<?x?x768xf32>
}

// -----

// CHECK-LABEL: func.func @equal_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<768xf32>)
// CHECK:         %[[Z:.+]] = tsc.equal %[[X]], %[[Y]] : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xi1>
// CHECK:         return %[[Z]]
func.func @equal_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<768xf32>) -> tensor<?x?x768xi1> {
  %z = tsc.equal %x, %y : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xi1>
  return %z : tensor<?x?x768xi1>
}

// -----

// CHECK-LABEL: func.func @less_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<768xf32>)
// CHECK:         %[[Z:.+]] = tsc.less %[[X]], %[[Y]] : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xi1>
// CHECK:         return %[[Z]]
func.func @less_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<768xf32>) -> tensor<?x?x768xi1> {
  %z = tsc.less %x, %y : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xi1>
  return %z : tensor<?x?x768xi1>
}

// -----

// CHECK-LABEL: func.func @greater_broadcast
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[Y:.+]]: tensor<768xf32>)
// CHECK:         %[[Z:.+]] = tsc.greater %[[X]], %[[Y]] : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xi1>
// CHECK:         return %[[Z]]
func.func @greater_broadcast(%x: tensor<?x?x768xf32>, %y: tensor<768xf32>) -> tensor<?x?x768xi1> {
  %z = tsc.greater %x, %y : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xi1>
  return %z : tensor<?x?x768xi1>
}

// -----

// CHECK-LABEL: func.func @and_or_i1
// CHECK-SAME:    (%[[A:.+]]: tensor<1x?xi1>, %[[B:.+]]: tensor<4x1xi1>)
// CHECK:         %[[X:.+]] = tsc.and %[[A]], %[[B]] : (tensor<1x?xi1>, tensor<4x1xi1>) -> tensor<4x?xi1>
// CHECK:         %[[Y:.+]] = tsc.or %[[A]], %[[B]] : (tensor<1x?xi1>, tensor<4x1xi1>) -> tensor<4x?xi1>
// CHECK:         return %[[X]], %[[Y]]
func.func @and_or_i1(%a: tensor<1x?xi1>, %b: tensor<4x1xi1>) -> (tensor<4x?xi1>, tensor<4x?xi1>) {
  %x = tsc.and %a, %b : (tensor<1x?xi1>, tensor<4x1xi1>) -> tensor<4x?xi1>
  %y = tsc.or %a, %b : (tensor<1x?xi1>, tensor<4x1xi1>) -> tensor<4x?xi1>
  return %x, %y : tensor<4x?xi1>, tensor<4x?xi1>
}

// -----

// Integer operands, and a result type more static than the inferred one.
// CHECK-LABEL: func.func @integer_add_refined_result
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3xi64>, %[[Y:.+]]: tensor<3xi64>)
// CHECK:         %[[Z:.+]] = tsc.add %[[X]], %[[Y]] : (tensor<?x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
// CHECK:         return %[[Z]]
func.func @integer_add_refined_result(%x: tensor<?x3xi64>, %y: tensor<3xi64>) -> tensor<2x3xi64> {
  %z = tsc.add %x, %y : (tensor<?x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %z : tensor<2x3xi64>
}

// -----

// equal accepts any element type, i1 included.
// CHECK-LABEL: func.func @equal_i1_scalar
// CHECK-SAME:    (%[[X:.+]]: tensor<i1>, %[[Y:.+]]: tensor<5xi1>)
// CHECK:         %[[Z:.+]] = tsc.equal %[[X]], %[[Y]] : (tensor<i1>, tensor<5xi1>) -> tensor<5xi1>
func.func @equal_i1_scalar(%x: tensor<i1>, %y: tensor<5xi1>) -> tensor<5xi1> {
  %z = tsc.equal %x, %y : (tensor<i1>, tensor<5xi1>) -> tensor<5xi1>
  return %z : tensor<5xi1>
}

// -----

// CHECK-LABEL: func.func @where_broadcast
// CHECK-SAME:    (%[[M:.+]]: tensor<1x1x?x?xi1>, %[[S:.+]]: tensor<?x12x?x?xf32>, %[[F:.+]]: tensor<f32>)
// CHECK:         %[[R:.+]] = tsc.where %[[M]], %[[S]], %[[F]] : (tensor<1x1x?x?xi1>, tensor<?x12x?x?xf32>, tensor<f32>) -> tensor<?x12x?x?xf32>
// CHECK:         return %[[R]]
func.func @where_broadcast(%m: tensor<1x1x?x?xi1>, %s: tensor<?x12x?x?xf32>, %f: tensor<f32>)
    -> tensor<?x12x?x?xf32> {
  %r = tsc.where %m, %s, %f
      : (tensor<1x1x?x?xi1>, tensor<?x12x?x?xf32>, tensor<f32>) -> tensor<?x12x?x?xf32>
  return %r : tensor<?x12x?x?xf32>
}
