// RUN: tsc-opt %s --split-input-file --tsc-convert-torch-to-tsc | FileCheck %s

// CHECK-LABEL: func.func @linear_takes_torch_weight_layout
// CHECK-SAME:    (%[[X:.+]]: tensor<?x32xf32>, %[[W:.+]]: tensor<64x32xf32>, %[[B:.+]]: tensor<64xf32>)
// CHECK:         %[[Y:.+]] = tsc.linear %[[X]], %[[W]], %[[B]] :
// CHECK-NOT:     weight_kn
// CHECK:         return %[[Y]]
func.func @linear_takes_torch_weight_layout(%x: tensor<?x32xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>) -> none {
  %0 = tsc.foreign "aten" "linear" version 10 (%x, %w, %b) {} : (tensor<?x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> none
  return %0 : none
}

// -----

// CHECK-LABEL: func.func @layer_norm_and_softmax
// CHECK:         tsc.layer_norm %{{.+}} scale %{{.+}} bias %{{.+}} axis = 2 epsilon = 9.9999999999999998E-13
// CHECK:         tsc.softmax %{{.+}} axis = 2
func.func @layer_norm_and_softmax(%x: tensor<?x?x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>) -> (none, none) {
  %shape = tsc.constant dense<32> : tensor<1xi64>
  %eps = tsc.constant dense<1.0e-12> : tensor<f64>
  %t = tsc.constant dense<true> : tensor<i1>
  %dim = tsc.constant dense<-1> : tensor<i64>
  %none = tsc.none
  %0 = tsc.foreign "aten" "layer_norm" version 10 (%x, %shape, %g, %b, %eps, %t) {cudnn_enable = true, eps = 1.0e-12 : f64, normalized_shape = array<i64: 32>} : (tensor<?x?x32xf32>, tensor<1xi64>, tensor<32xf32>, tensor<32xf32>, tensor<f64>, tensor<i1>) -> none
  %1 = tsc.foreign "aten" "softmax" version 10 (%x, %dim, %none) {dim = -1 : i64, overload = "int"} : (tensor<?x?x32xf32>, tensor<i64>, none) -> none
  return %0, %1 : none, none
}

// -----

// x.pow(2).mean(-1, keepdim=True): an RMS norm's statistics.
// CHECK-LABEL: func.func @pow_and_mean
// CHECK:         %[[P:.+]] = tsc.pow
// CHECK:         tsc.reduce_mean %[[P]] dims = [2] keepdim
func.func @pow_and_mean(%x: tensor<?x?x32xf32>) -> none {
  %two = tsc.constant dense<2> : tensor<i64>
  %dims = tsc.constant dense<-1> : tensor<1xi64>
  %t = tsc.constant dense<true> : tensor<i1>
  %none = tsc.none
  %p = tsc.foreign "aten" "pow" version 10 (%x, %two) {exponent = 2 : i64, overload = "Tensor_Scalar"} : (tensor<?x?x32xf32>, tensor<i64>) -> none
  %0 = tsc.foreign "aten" "mean" version 10 (%p, %dims, %t, %none) {dim = array<i64: -1>, keepdim = true, overload = "dim"} : (none, tensor<1xi64>, tensor<i1>, none) -> none
  return %0 : none
}

// -----

// CHECK-LABEL: func.func @matmul_and_addmm
// CHECK:         tsc.matmul
// CHECK:         %[[P:.+]] = tsc.matmul
// CHECK:         tsc.add %[[P]]
func.func @matmul_and_addmm(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<3xf32>) -> (none, none) {
  %one = tsc.constant dense<1> : tensor<i64>
  %0 = tsc.foreign "aten" "matmul" version 10 (%a, %b) {} : (tensor<4x8xf32>, tensor<8x3xf32>) -> none
  %1 = tsc.foreign "aten" "addmm" version 10 (%c, %a, %b, %one, %one) {alpha = 1 : i64, beta = 1 : i64} : (tensor<3xf32>, tensor<4x8xf32>, tensor<8x3xf32>, tensor<i64>, tensor<i64>) -> none
  return %0, %1 : none, none
}

// -----

// torch.jit.trace records nn.Conv1d as _convolution: convolution's first
// nine arguments, then backend flags that do not change the result.
// CHECK-LABEL: func.func @traced_convolution
// CHECK-SAME:    (%[[X:.+]]: tensor<2x4x16xf32>, %[[W:.+]]: tensor<8x4x3xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK:         %[[COLS:.+]] = tsc.im2col %[[X]] kernel_shape = [3] strides = [2] pads = [1, 1] dilations = [1]
// CHECK:         %[[Y:.+]] = tsc.linear %{{.+}}, %{{.+}}, %[[B]] : {{.*}} -> tensor<2x8x8xf32>
// CHECK:         %[[T:.+]] = tsc.transpose %[[Y]] perm = [0, 2, 1]
// CHECK:         return %[[T]]
func.func @traced_convolution(%x: tensor<2x4x16xf32>, %w: tensor<8x4x3xf32>, %b: tensor<8xf32>) -> none {
  %stride = tsc.constant dense<2> : tensor<1xi64>
  %pad = tsc.constant dense<1> : tensor<1xi64>
  %one = tsc.constant dense<1> : tensor<1xi64>
  %zero = tsc.constant dense<0> : tensor<1xi64>
  %false = tsc.constant dense<false> : tensor<i1>
  %true = tsc.constant dense<true> : tensor<i1>
  %groups = tsc.constant dense<1> : tensor<i64>
  %0 = tsc.foreign "aten" "_convolution" version 10 (%x, %w, %b, %stride, %pad, %one, %false, %zero, %groups, %false, %false, %true, %true) {} : (tensor<2x4x16xf32>, tensor<8x4x3xf32>, tensor<8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<i1>, tensor<1xi64>, tensor<i64>, tensor<i1>, tensor<i1>, tensor<i1>, tensor<i1>) -> none
  return %0 : none
}
