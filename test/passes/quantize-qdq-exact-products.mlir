// RUN: tsc-opt %s --split-input-file --tsc-quantize-qdq | FileCheck %s

// An i32 product of two run-time 8-bit codes less their zero points (ONNX
// Runtime's QOperator attention: QLinearMatMul of softmax's u8 codes, zero
// point 0, by V's u8 codes, zero point 128) is computed in f32 when f32
// sums it exactly: each |p| <= 255, each |v - 128| <= 128, and K = seq is
// at most 514, so every partial sum is an integer of magnitude at most
// 514·255·128 = 16,776,960 <= 2^24.
// CHECK-LABEL: func.func @softmax_by_v
// CHECK-SAME:    (%[[P:.+]]: tensor<2x?x?xui8>, %[[V:.+]]: tensor<2x?x8xui8>)
// CHECK:         %[[PI:.+]] = tsc.cast %[[P]] : tensor<2x?x?xui8> to tensor<2x?x?xi32>
// CHECK:         %[[VS:.+]] = tsc.sub
// CHECK:         %[[PF:.+]] = tsc.cast %[[PI]] : tensor<2x?x?xi32> to tensor<2x?x?xf32>
// CHECK-NEXT:    %[[VF:.+]] = tsc.cast %[[VS]] : tensor<2x?x8xi32> to tensor<2x?x8xf32>
// CHECK-NEXT:    %[[S:.+]] = tsc.matmul %[[PF]], %[[VF]] : (tensor<2x?x?xf32>, tensor<2x?x8xf32>) -> tensor<2x?x8xf32>
// CHECK-NEXT:    %[[SI:.+]] = tsc.cast %[[S]] : tensor<2x?x8xf32> to tensor<2x?x8xi32>
// CHECK-NOT:     tsc.matmul
// CHECK:         return %[[SI]]
func.func @softmax_by_v(%p: tensor<2x?x?xui8>, %v: tensor<2x?x8xui8>) -> tensor<2x?x8xi32> {
  %s = tsc.symbol "seq" [1, 514]
  tsc.bind_shape %p[%s], affine_map<()[s0] -> (2, s0, s0)> : tensor<2x?x?xui8>
  tsc.bind_shape %v[%s], affine_map<()[s0] -> (2, s0, 8)> : tensor<2x?x8xui8>
  %z = tsc.constant dense<128> : tensor<i32>
  %pi = tsc.cast %p : tensor<2x?x?xui8> to tensor<2x?x?xi32>
  tsc.bind_shape %pi[%s], affine_map<()[s0] -> (2, s0, s0)> : tensor<2x?x?xi32>
  %vi = tsc.cast %v : tensor<2x?x8xui8> to tensor<2x?x8xi32>
  tsc.bind_shape %vi[%s], affine_map<()[s0] -> (2, s0, 8)> : tensor<2x?x8xi32>
  %vs = tsc.sub %vi, %z : (tensor<2x?x8xi32>, tensor<i32>) -> tensor<2x?x8xi32>
  tsc.bind_shape %vs[%s], affine_map<()[s0] -> (2, s0, 8)> : tensor<2x?x8xi32>
  %y = tsc.matmul %pi, %vs : (tensor<2x?x?xi32>, tensor<2x?x8xi32>) -> tensor<2x?x8xi32>
  tsc.bind_shape %y[%s], affine_map<()[s0] -> (2, s0, 8)> : tensor<2x?x8xi32>
  return %y : tensor<2x?x8xi32>
}

// -----

// Near miss: one more position (seq up to 515) and a sum could reach
// 515·255·128 = 16,809,600 > 2^24, where f32 would round: the product
// stays in i32.
// CHECK-LABEL: func.func @softmax_by_v_too_long
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<2x?x?xi32>, tensor<2x?x8xi32>) -> tensor<2x?x8xi32>
// CHECK-NOT:     f32
func.func @softmax_by_v_too_long(%p: tensor<2x?x?xui8>, %v: tensor<2x?x8xui8>) -> tensor<2x?x8xi32> {
  %s = tsc.symbol "seq" [1, 515]
  tsc.bind_shape %p[%s], affine_map<()[s0] -> (2, s0, s0)> : tensor<2x?x?xui8>
  tsc.bind_shape %v[%s], affine_map<()[s0] -> (2, s0, 8)> : tensor<2x?x8xui8>
  %z = tsc.constant dense<128> : tensor<i32>
  %pi = tsc.cast %p : tensor<2x?x?xui8> to tensor<2x?x?xi32>
  tsc.bind_shape %pi[%s], affine_map<()[s0] -> (2, s0, s0)> : tensor<2x?x?xi32>
  %vi = tsc.cast %v : tensor<2x?x8xui8> to tensor<2x?x8xi32>
  tsc.bind_shape %vi[%s], affine_map<()[s0] -> (2, s0, 8)> : tensor<2x?x8xi32>
  %vs = tsc.sub %vi, %z : (tensor<2x?x8xi32>, tensor<i32>) -> tensor<2x?x8xi32>
  tsc.bind_shape %vs[%s], affine_map<()[s0] -> (2, s0, 8)> : tensor<2x?x8xi32>
  %y = tsc.matmul %pi, %vs : (tensor<2x?x?xi32>, tensor<2x?x8xi32>) -> tensor<2x?x8xi32>
  tsc.bind_shape %y[%s], affine_map<()[s0] -> (2, s0, 8)> : tensor<2x?x8xi32>
  return %y : tensor<2x?x8xi32>
}

// -----

// Near miss: an operand that is no 8-bit codes (an i32 input, of any
// magnitude) keeps the integer product.
// CHECK-LABEL: func.func @wide_operand
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<4x8xi32>, tensor<8x2xi32>) -> tensor<4x2xi32>
// CHECK-NOT:     f32
func.func @wide_operand(%a: tensor<4x8xi8>, %b: tensor<8x2xi32>) -> tensor<4x2xi32> {
  %ai = tsc.cast %a : tensor<4x8xi8> to tensor<4x8xi32>
  %y = tsc.matmul %ai, %b : (tensor<4x8xi32>, tensor<8x2xi32>) -> tensor<4x2xi32>
  return %y : tensor<4x2xi32>
}

// -----

// Q·Kᵀ of s8 codes with per-tensor zero points 3 and -5 (each |q - z| at
// most 131 and 133, K = 64 static): exact in f32.
// CHECK-LABEL: func.func @signed_codes
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<4x64xf32>, tensor<64x4xf32>) -> tensor<4x4xf32>
// CHECK-NOT:     tsc.matmul
func.func @signed_codes(%q: tensor<4x64xi8>, %k: tensor<64x4xi8>) -> tensor<4x4xi32> {
  %zq = tsc.constant dense<3> : tensor<i32>
  %zk = tsc.constant dense<-5> : tensor<i32>
  %qi = tsc.cast %q : tensor<4x64xi8> to tensor<4x64xi32>
  %qs = tsc.sub %qi, %zq : (tensor<4x64xi32>, tensor<i32>) -> tensor<4x64xi32>
  %ki = tsc.cast %k : tensor<64x4xi8> to tensor<64x4xi32>
  %ks = tsc.sub %ki, %zk : (tensor<64x4xi32>, tensor<i32>) -> tensor<64x4xi32>
  %y = tsc.matmul %qs, %ks : (tensor<4x64xi32>, tensor<64x4xi32>) -> tensor<4x4xi32>
  return %y : tensor<4x4xi32>
}
