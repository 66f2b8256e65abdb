// RUN: tsc-opt %s --split-input-file --tsc-convert-torch-to-tsc | FileCheck %s

// TorchScript arithmetic: alpha arguments, Python scalars (0-d tensors) that
// take the tensor's type, rsub, comparisons.

// CHECK-LABEL: func.func @add_scales_other_by_alpha
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3xf32>, %[[Y:.+]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[TWO:.+]] = tsc.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[S:.+]] = tsc.mul %[[Y]], %[[TWO]]
// CHECK:         %[[R:.+]] = tsc.add %[[X]], %[[S]]
// CHECK:         return %[[R]]
func.func @add_scales_other_by_alpha(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> none {
  %alpha = tsc.constant dense<2> : tensor<i64>
  %0 = tsc.foreign "aten" "add" version 10 (%x, %y, %alpha) {alpha = 2 : i64, overload = "Tensor"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<i64>) -> none
  return %0 : none
}

// -----

// A float Python scalar keeps the tensor's f32; rsub is other - self.
// CHECK-LABEL: func.func @rsub_of_scalar_keeps_tensor_type
// CHECK-SAME:    (%[[M:.+]]: tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[ONE:.+]] = tsc.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[R:.+]] = tsc.sub %[[ONE]], %[[M]] : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         return %[[R]]
func.func @rsub_of_scalar_keeps_tensor_type(%m: tensor<2x8xf32>) -> none {
  %one = tsc.constant dense<1.0> : tensor<f64>
  %alpha = tsc.constant dense<1> : tensor<i64>
  %0 = tsc.foreign "aten" "rsub" version 10 (%m, %one, %alpha) {alpha = 1 : i64, other = 1.0 : f64, overload = "Scalar"} : (tensor<2x8xf32>, tensor<f64>, tensor<i64>) -> none
  return %0 : none
}

// -----

// An int64 mask times a float scalar is f32 in torch.
// CHECK-LABEL: func.func @int_tensor_times_float_scalar_is_f32
// CHECK:         %[[C:.+]] = tsc.cast %{{.+}} : tensor<2x8xi64> to tensor<2x8xf32>
// CHECK:         tsc.mul %[[C]], %{{.+}} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
func.func @int_tensor_times_float_scalar_is_f32(%m: tensor<2x8xi64>) -> none {
  %big = tsc.constant dense<-1.0e4> : tensor<f64>
  %0 = tsc.foreign "aten" "mul" version 10 (%m, %big) {overload = "Scalar"} : (tensor<2x8xi64>, tensor<f64>) -> none
  return %0 : none
}

// -----

// ne is !eq (true where either side is NaN); le and ge are direct, so a
// NaN compares false as in torch.
// CHECK-LABEL: func.func @comparisons
// CHECK:         %[[EQ:.+]] = tsc.equal
// CHECK:         %[[NE:.+]] = tsc.not %[[EQ]]
// CHECK:         %[[LE:.+]] = tsc.less_equal %{{.+}}, %{{.+}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK:         %[[GE:.+]] = tsc.greater_equal %{{.+}}, %{{.+}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK:         return %[[NE]], %[[LE]], %[[GE]]
func.func @comparisons(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (none, none, none) {
  %0 = tsc.foreign "aten" "ne" version 10 (%x, %y) {overload = "Tensor"} : (tensor<4xf32>, tensor<4xf32>) -> none
  %1 = tsc.foreign "aten" "le" version 10 (%x, %y) {overload = "Tensor"} : (tensor<4xf32>, tensor<4xf32>) -> none
  %2 = tsc.foreign "aten" "ge" version 10 (%x, %y) {overload = "Tensor"} : (tensor<4xf32>, tensor<4xf32>) -> none
  return %0, %1, %2 : none, none, none
}

// -----

// Integer true division gives f32 for tensors.
// CHECK-LABEL: func.func @int_true_division_is_float
// CHECK-DAG:     tsc.cast %{{.+}} : tensor<4xi64> to tensor<4xf32>
// CHECK:         tsc.div {{.+}} -> tensor<4xf32>
func.func @int_true_division_is_float(%x: tensor<4xi64>) -> none {
  %two = tsc.constant dense<2> : tensor<i64>
  %0 = tsc.foreign "aten" "div" version 10 (%x, %two) {overload = "Scalar"} : (tensor<4xi64>, tensor<i64>) -> none
  return %0 : none
}

// -----

// CHECK-LABEL: func.func @activations
// CHECK:         tsc.gelu %{{.+}} approximate = tanh
// CHECK:         tsc.gelu %{{.+}} : tensor<4xf32>
// CHECK:         tsc.silu
// CHECK:         tsc.rsqrt
// CHECK:         tsc.erf
func.func @activations(%x: tensor<4xf32>) -> (none, none, none, none, none) {
  %none = tsc.none
  %0 = tsc.foreign "aten" "gelu" version 10 (%x, %none) {approximate = "tanh"} : (tensor<4xf32>, none) -> none
  %1 = tsc.foreign "aten" "gelu" version 10 (%x, %none) {approximate = "none"} : (tensor<4xf32>, none) -> none
  %2 = tsc.foreign "aten" "silu" version 10 (%x) {} : (tensor<4xf32>) -> none
  %3 = tsc.foreign "aten" "rsqrt" version 10 (%x) {} : (tensor<4xf32>) -> none
  %4 = tsc.foreign "aten" "erf" version 10 (%x) {} : (tensor<4xf32>) -> none
  return %0, %1, %2, %3, %4 : none, none, none, none, none
}

// -----

// masked_fill(x, mask, value) = where(mask, value, x); `to` by overload.
// CHECK-LABEL: func.func @masked_fill_and_casts
// CHECK-SAME:    (%[[X:.+]]: tensor<2x4xf32>, %[[M:.+]]: tensor<2x4xi1>, %[[I:.+]]: tensor<2x4xi64>)
// CHECK:         %[[F:.+]] = tsc.constant dense<-1.000000e+09> : tensor<f32>
// CHECK:         %[[W:.+]] = tsc.where %[[M]], %[[F]], %[[X]]
// CHECK:         %[[C:.+]] = tsc.cast %[[I]] : tensor<2x4xi64> to tensor<2x4xf32>
// CHECK:         %[[H:.+]] = tsc.cast %[[X]] : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK:         return %[[W]], %[[C]], %[[H]]
func.func @masked_fill_and_casts(%x: tensor<2x4xf32>, %m: tensor<2x4xi1>, %i: tensor<2x4xi64>) -> (none, none, none) {
  %fill = tsc.constant dense<-1.0e9> : tensor<f64>
  %f32 = tsc.constant dense<6> : tensor<i64>
  %f16 = tsc.constant dense<5> : tensor<i64>
  %false = tsc.constant dense<false> : tensor<i1>
  %none = tsc.none
  %0 = tsc.foreign "aten" "masked_fill" version 10 (%x, %m, %fill) {overload = "Scalar", value = -1.0e9 : f64} : (tensor<2x4xf32>, tensor<2x4xi1>, tensor<f64>) -> none
  %1 = tsc.foreign "aten" "to" version 10 (%i, %f32, %false, %false, %none) {dtype = 6 : i64, overload = "dtype"} : (tensor<2x4xi64>, tensor<i64>, tensor<i1>, tensor<i1>, none) -> none
  %2 = tsc.foreign "aten" "to" version 10 (%x, %none, %f16, %false, %false, %none) {dtype = 5 : i64, overload = "device"} : (tensor<2x4xf32>, none, tensor<i64>, tensor<i1>, tensor<i1>, none) -> none
  return %0, %1, %2 : none, none, none
}

// -----

// prim::dtype of a converted tensor is its torch code, so `to` reads it.
// CHECK-LABEL: func.func @to_the_dtype_of_another_tensor
// CHECK:         %[[C:.+]] = tsc.cast %{{.+}} : tensor<2x4xi64> to tensor<2x4xf32>
// CHECK:         return %[[C]]
func.func @to_the_dtype_of_another_tensor(%x: tensor<2x4xf32>, %i: tensor<2x4xi64>) -> none {
  %false = tsc.constant dense<false> : tensor<i1>
  %none = tsc.none
  %d = tsc.foreign "prim" "dtype" version 10 (%x) {} : (tensor<2x4xf32>) -> none
  %0 = tsc.foreign "aten" "to" version 10 (%i, %d, %false, %false, %none) {overload = "dtype"} : (tensor<2x4xi64>, none, tensor<i1>, tensor<i1>, none) -> none
  return %0 : none
}

// -----

// clamp with constant bounds is a clip; a tensor bound is a max/min
// (MiniLM's mean pooling: sum_mask.clamp(min=1e-9)).
// CHECK-LABEL: func.func @clamp_forms
// CHECK-SAME:    (%[[X:.+]]: tensor<4xf32>, %[[L:.+]]: tensor<4xf32>)
// CHECK:         %[[C:.+]] = tsc.clip %[[X]] min = 1.000000e-09 : tensor<4xf32>
// CHECK:         %[[M:.+]] = tsc.max %[[X]], %[[L]]
// CHECK:         %[[T:.+]] = tsc.clip %[[M]] max = 6.000000e+00 : tensor<4xf32>
// CHECK:         return %[[C]], %[[T]]
func.func @clamp_forms(%x: tensor<4xf32>, %lo: tensor<4xf32>) -> (none, none) {
  %eps = tsc.constant dense<1.0e-9> : tensor<f64>
  %six = tsc.constant dense<6.0> : tensor<f64>
  %none = tsc.none
  %0 = tsc.foreign "aten" "clamp" version 10 (%x, %eps, %none) {min = 1.0e-9 : f64} : (tensor<4xf32>, tensor<f64>, none) -> none
  %1 = tsc.foreign "aten" "clamp" version 10 (%x, %lo, %six) {max = 6.0 : f64, overload = "Tensor"} : (tensor<4xf32>, tensor<4xf32>, tensor<f64>) -> none
  return %0, %1 : none, none
}

// -----

// where(mask, torch.zeros(()), torch.finfo(f32).min), as transformers 5
// builds its additive masks: a 0-d f32 Tensor with a Python float
// (where.ScalarOther) is f32 in torch, so the mask stays f32; two Tensors
// (where.self) promote as tensors do: 0-d f32 with 0-d f64 gives f64.
// CHECK-LABEL: func.func @where_ranks_zero_dim_tensors_above_python_scalars
// CHECK-SAME:    (%[[M:.+]]: tensor<2x4xi1>, %[[Z:.+]]: tensor<f32>, %[[D:.+]]: tensor<f64>)
// CHECK-DAG:     %[[MIN:.+]] = tsc.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK:         %[[W:.+]] = tsc.where %[[M]], %[[Z]], %[[MIN]] : {{.*}} -> tensor<2x4xf32>
// CHECK:         %[[ZD:.+]] = tsc.cast %[[Z]] : tensor<f32> to tensor<f64>
// CHECK:         %[[W2:.+]] = tsc.where %[[M]], %[[ZD]], %[[D]] : {{.*}} -> tensor<2x4xf64>
// CHECK:         return %[[W]], %[[W2]]
func.func @where_ranks_zero_dim_tensors_above_python_scalars(%m: tensor<2x4xi1>, %z: tensor<f32>, %d: tensor<f64>) -> (none, none) {
  %min = tsc.constant dense<-3.4028234663852886e+38> : tensor<f64>
  %0 = tsc.foreign "aten" "where" version 10 (%m, %z, %min) {overload = "ScalarOther"} : (tensor<2x4xi1>, tensor<f32>, tensor<f64>) -> none
  %1 = tsc.foreign "aten" "where" version 10 (%m, %z, %d) {overload = "self"} : (tensor<2x4xi1>, tensor<f32>, tensor<f64>) -> none
  return %0, %1 : none, none
}

// -----

// sign, ceil and floor (DeBERTa-v2's relative-position buckets); ceil and
// floor leave integer tensors as they are, as torch does.
// CHECK-LABEL: func.func @sign_ceil_floor
// CHECK-SAME:    (%[[X:.+]]: tensor<2x4xf32>, %[[I:.+]]: tensor<2x4xi64>)
// CHECK:         %[[S:.+]] = tsc.sign %[[X]]
// CHECK:         %[[C:.+]] = tsc.ceil %[[X]]
// CHECK:         %[[F:.+]] = tsc.floor %[[X]]
// CHECK:         return %[[S]], %[[C]], %[[F]], %[[I]]
func.func @sign_ceil_floor(%x: tensor<2x4xf32>, %i: tensor<2x4xi64>) -> (none, none, none, none) {
  %0 = tsc.foreign "aten" "sign" version 10 (%x) {} : (tensor<2x4xf32>) -> none
  %1 = tsc.foreign "aten" "ceil" version 10 (%x) {} : (tensor<2x4xf32>) -> none
  %2 = tsc.foreign "aten" "floor" version 10 (%x) {} : (tensor<2x4xf32>) -> none
  %3 = tsc.foreign "aten" "ceil" version 10 (%i) {} : (tensor<2x4xi64>) -> none
  return %0, %1, %2, %3 : none, none, none, none
}
