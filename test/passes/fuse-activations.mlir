// RUN: tsc-opt %s --split-input-file --tsc-fuse-activations | FileCheck %s

// torch's exact GELU export: x / sqrt(2) -> erf -> + 1 -> * x -> * 0.5.
// CHECK-LABEL: func.func @fuses_gelu_erf
// CHECK-SAME:    (%[[X:.+]]: tensor<?x64xf32>)
// CHECK:         %[[Y:.+]] = tsc.gelu %[[X]] : tensor<?x64xf32>
// CHECK-NOT:     tsc.erf
// CHECK:         return %[[Y]]
func.func @fuses_gelu_erf(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %sqrt2 = tsc.constant dense<1.41421354> : tensor<f32>
  %one = tsc.constant dense<1.0> : tensor<f32>
  %half = tsc.constant dense<0.5> : tensor<f32>
  %z = tsc.div %x, %sqrt2 : (tensor<?x64xf32>, tensor<f32>) -> tensor<?x64xf32>
  %e = tsc.erf %z : tensor<?x64xf32>
  %a = tsc.add %e, %one : (tensor<?x64xf32>, tensor<f32>) -> tensor<?x64xf32>
  %m = tsc.mul %x, %a : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = tsc.mul %m, %half : (tensor<?x64xf32>, tensor<f32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// The other association and a multiplication by 1/sqrt(2).
// CHECK-LABEL: func.func @fuses_gelu_erf_reassociated
// CHECK:         tsc.gelu %{{.+}} : tensor<8xf32>
// CHECK-NOT:     tsc.erf
func.func @fuses_gelu_erf_reassociated(%x: tensor<8xf32>) -> tensor<8xf32> {
  %inv = tsc.constant dense<0.707106769> : tensor<f32>
  %one = tsc.constant dense<1.0> : tensor<f32>
  %half = tsc.constant dense<0.5> : tensor<f32>
  %h = tsc.mul %half, %x : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %z = tsc.mul %inv, %x : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %e = tsc.erf %z : tensor<8xf32>
  %a = tsc.add %one, %e : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %y = tsc.mul %h, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// GPT-2's tanh approximation, with pow(x, 3).
// CHECK-LABEL: func.func @fuses_gelu_tanh
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x64xf32>)
// CHECK:         %[[Y:.+]] = tsc.gelu %[[X]] approximate = tanh : tensor<?x?x64xf32>
// CHECK-NOT:     tsc.tanh
// CHECK:         return %[[Y]]
func.func @fuses_gelu_tanh(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %half = tsc.constant dense<0.5> : tensor<f32>
  %one = tsc.constant dense<1.0> : tensor<f32>
  %three = tsc.constant dense<3.0> : tensor<f32>
  %c = tsc.constant dense<4.471500e-02> : tensor<f32>
  %k = tsc.constant dense<0.797884583> : tensor<f32>
  %h = tsc.mul %x, %half : (tensor<?x?x64xf32>, tensor<f32>) -> tensor<?x?x64xf32>
  %cube = tsc.pow %x, %three : (tensor<?x?x64xf32>, tensor<f32>) -> tensor<?x?x64xf32>
  %sc = tsc.mul %cube, %c : (tensor<?x?x64xf32>, tensor<f32>) -> tensor<?x?x64xf32>
  %in = tsc.add %x, %sc : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %arg = tsc.mul %in, %k : (tensor<?x?x64xf32>, tensor<f32>) -> tensor<?x?x64xf32>
  %t = tsc.tanh %arg : tensor<?x?x64xf32>
  %a = tsc.add %t, %one : (tensor<?x?x64xf32>, tensor<f32>) -> tensor<?x?x64xf32>
  %y = tsc.mul %h, %a : (tensor<?x?x64xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}

// -----

// BLOOM's form, x factored out of the cubic: 0.5x (1 + tanh(0.79788456 x
// (1 + 0.044715 x^2))), as its dynamo export multiplies it out.
// CHECK-LABEL: func.func @fuses_gelu_tanh_factored
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x128xf32>)
// CHECK:         %[[Y:.+]] = tsc.gelu %[[X]] approximate = tanh : tensor<?x?x128xf32>
// CHECK-NOT:     tsc.tanh
// CHECK:         return %[[Y]]
func.func @fuses_gelu_tanh_factored(%x: tensor<?x?x128xf32>) -> tensor<?x?x128xf32> {
  %half = tsc.constant dense<0.5> : tensor<f32>
  %one = tsc.constant dense<1.0> : tensor<f32>
  %c = tsc.constant dense<4.471500e-02> : tensor<f32>
  %k = tsc.constant dense<0.797884583> : tensor<f32>
  %h = tsc.mul %x, %half : (tensor<?x?x128xf32>, tensor<f32>) -> tensor<?x?x128xf32>
  %kx = tsc.mul %x, %k : (tensor<?x?x128xf32>, tensor<f32>) -> tensor<?x?x128xf32>
  %cx = tsc.mul %x, %c : (tensor<?x?x128xf32>, tensor<f32>) -> tensor<?x?x128xf32>
  %cxx = tsc.mul %cx, %x : (tensor<?x?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %poly = tsc.add %cxx, %one : (tensor<?x?x128xf32>, tensor<f32>) -> tensor<?x?x128xf32>
  %arg = tsc.mul %kx, %poly : (tensor<?x?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  %t = tsc.tanh %arg : tensor<?x?x128xf32>
  %a = tsc.add %t, %one : (tensor<?x?x128xf32>, tensor<f32>) -> tensor<?x?x128xf32>
  %y = tsc.mul %h, %a : (tensor<?x?x128xf32>, tensor<?x?x128xf32>) -> tensor<?x?x128xf32>
  return %y : tensor<?x?x128xf32>
}

// -----

// The factored form with pow(x, 2), constants on the left.
// CHECK-LABEL: func.func @fuses_gelu_tanh_factored_pow
// CHECK:         tsc.gelu %{{.+}} approximate = tanh : tensor<8xf32>
// CHECK-NOT:     tsc.tanh
func.func @fuses_gelu_tanh_factored_pow(%x: tensor<8xf32>) -> tensor<8xf32> {
  %half = tsc.constant dense<0.5> : tensor<f32>
  %one = tsc.constant dense<1.0> : tensor<f32>
  %two = tsc.constant dense<2.0> : tensor<f32>
  %c = tsc.constant dense<4.471500e-02> : tensor<f32>
  %k = tsc.constant dense<0.797884583> : tensor<f32>
  %sq = tsc.pow %x, %two : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %csq = tsc.mul %c, %sq : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %poly = tsc.add %one, %csq : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %kp = tsc.mul %k, %poly : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %arg = tsc.mul %kp, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %t = tsc.tanh %arg : tensor<8xf32>
  %a = tsc.add %one, %t : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %m = tsc.mul %x, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y = tsc.mul %half, %m : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Near-misses of the factored form: the cubic's power with x factored out
// (x (1 + 0.044715 x^3)), a wrong coefficient (0.05), and x missing from
// the factored product (sqrt(2/pi) (1 + 0.044715 x^2)).
// CHECK-LABEL: func.func @leaves_factored_near_misses
// CHECK-NOT:     tsc.gelu
// CHECK-COUNT-3: tsc.tanh
// CHECK-NOT:     tsc.gelu
// CHECK:         return
func.func @leaves_factored_near_misses(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %half = tsc.constant dense<0.5> : tensor<f32>
  %one = tsc.constant dense<1.0> : tensor<f32>
  %three = tsc.constant dense<3.0> : tensor<f32>
  %c = tsc.constant dense<4.471500e-02> : tensor<f32>
  %wrong = tsc.constant dense<5.000000e-02> : tensor<f32>
  %k = tsc.constant dense<0.797884583> : tensor<f32>
  %h = tsc.mul %x, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %cube = tsc.pow %x, %three : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %c3 = tsc.mul %cube, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %p1 = tsc.add %c3, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %kx1 = tsc.mul %x, %k : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %arg1 = tsc.mul %kx1, %p1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %t1 = tsc.tanh %arg1 : tensor<8xf32>
  %a1 = tsc.add %t1, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %y1 = tsc.mul %h, %a1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %w = tsc.mul %x, %wrong : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %wx = tsc.mul %w, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %p2 = tsc.add %wx, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %kx2 = tsc.mul %x, %k : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %arg2 = tsc.mul %kx2, %p2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %t2 = tsc.tanh %arg2 : tensor<8xf32>
  %a2 = tsc.add %t2, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %h2 = tsc.mul %x, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %y2 = tsc.mul %h2, %a2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %cx = tsc.mul %x, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %cxx = tsc.mul %cx, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %p3 = tsc.add %cxx, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %arg3 = tsc.mul %p3, %k : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %t3 = tsc.tanh %arg3 : tensor<8xf32>
  %a3 = tsc.add %t3, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %h3 = tsc.mul %x, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %y3 = tsc.mul %h3, %a3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y1, %y2, %y3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// x * sigmoid(x), either order; the gated MLP keeps its product with up.
// CHECK-LABEL: func.func @fuses_silu
// CHECK-SAME:    (%[[G:.+]]: tensor<4x64xf32>, %[[U:.+]]: tensor<4x64xf32>)
// CHECK:         %[[S:.+]] = tsc.silu %[[G]] : tensor<4x64xf32>
// CHECK:         %[[Y:.+]] = tsc.mul %[[S]], %[[U]]
// CHECK:         return %[[Y]]
func.func @fuses_silu(%g: tensor<4x64xf32>, %u: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %s = tsc.sigmoid %g : tensor<4x64xf32>
  %a = tsc.mul %s, %g : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = tsc.mul %a, %u : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// Near-misses: erf of a different value, a wrong constant (0.6 instead of
// 0.5), and sigmoid of another tensor.
// CHECK-LABEL: func.func @leaves_near_misses
// CHECK-NOT:     tsc.gelu
// CHECK-NOT:     tsc.silu
// CHECK:         return
func.func @leaves_near_misses(%x: tensor<8xf32>, %w: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %sqrt2 = tsc.constant dense<1.41421354> : tensor<f32>
  %one = tsc.constant dense<1.0> : tensor<f32>
  %half = tsc.constant dense<0.5> : tensor<f32>
  %notHalf = tsc.constant dense<0.6> : tensor<f32>
  %z = tsc.div %w, %sqrt2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e = tsc.erf %z : tensor<8xf32>
  %a = tsc.add %e, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %m = tsc.mul %x, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y = tsc.mul %m, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %z2 = tsc.div %x, %sqrt2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e2 = tsc.erf %z2 : tensor<8xf32>
  %a2 = tsc.add %e2, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %m2 = tsc.mul %x, %a2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y2 = tsc.mul %m2, %notHalf : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %s = tsc.sigmoid %w : tensor<8xf32>
  %y3 = tsc.mul %x, %s : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y, %y2, %y3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
