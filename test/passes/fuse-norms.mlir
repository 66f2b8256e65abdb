// RUN: tsc-opt %s --split-input-file --tsc-fuse-norms | FileCheck %s

// The torch.onnx opset-14 form of nn.LayerNorm.
// CHECK-LABEL: func.func @fuses_layer_norm_div_sqrt
// CHECK-SAME:    (%[[X:.+]]: tensor<2x8x32xf32>, %[[G:.+]]: tensor<32xf32>, %[[B:.+]]: tensor<32xf32>)
// CHECK:         %[[N:.+]] = tsc.layer_norm %[[X]] scale %[[G]] bias %[[B]] axis = 2 epsilon = 9.9999997473787516E-6
// CHECK-NOT:     tsc.reduce_mean
// CHECK-NOT:     tsc.sqrt
// CHECK:         return %[[N]]
func.func @fuses_layer_norm_div_sqrt(%x: tensor<2x8x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<2x8x32xf32> {
  %two = tsc.constant dense<2.0> : tensor<f32>
  %eps = tsc.constant dense<1.0e-05> : tensor<f32>
  %m = tsc.reduce_mean %x dims = [2] keepdim : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %d = tsc.sub %x, %m : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %p = tsc.pow %d, %two : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8x32xf32>
  %v = tsc.reduce_mean %p dims = [2] keepdim : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %e = tsc.add %v, %eps : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8x1xf32>
  %s = tsc.sqrt %e : tensor<2x8x1xf32>
  %n = tsc.div %d, %s : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %y = tsc.mul %n, %g : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %z = tsc.add %y, %b : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  return %z : tensor<2x8x32xf32>
}

// -----

// rsqrt and a self-product for the square, operands commuted, dynamic dims
// with bindings, no bias.
// CHECK-LABEL: func.func @fuses_layer_norm_rsqrt_no_bias
// CHECK-SAME:    (%[[X:.+]]: tensor<?x32xf32>, %[[G:.+]]: tensor<32xf32>)
// CHECK:         %[[N:.+]] = tsc.layer_norm %[[X]] scale %[[G]] axis = 1 epsilon = 9.999999960041972E-13
// CHECK-NOT:     tsc.rsqrt
// CHECK:         return %[[N]]
func.func @fuses_layer_norm_rsqrt_no_bias(%x: tensor<?x32xf32>, %g: tensor<32xf32>) -> tensor<?x32xf32> {
  %n0 = tsc.symbol "n" [1, 16]
  tsc.bind_shape %x[%n0], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %eps = tsc.constant dense<1.0e-12> : tensor<f64>
  %epsf = tsc.cast %eps : tensor<f64> to tensor<f32>
  %m = tsc.reduce_mean %x dims = [1] keepdim : (tensor<?x32xf32>) -> tensor<?x1xf32>
  %d = tsc.sub %x, %m : (tensor<?x32xf32>, tensor<?x1xf32>) -> tensor<?x32xf32>
  tsc.bind_shape %d[%n0], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %p = tsc.mul %d, %d : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
  %v = tsc.reduce_mean %p dims = [1] keepdim : (tensor<?x32xf32>) -> tensor<?x1xf32>
  %e = tsc.add %epsf, %v : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
  %r = tsc.rsqrt %e : tensor<?x1xf32>
  %n = tsc.mul %r, %d : (tensor<?x1xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
  %y = tsc.mul %g, %n : (tensor<32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// Llama's RMSNorm: x * rsqrt(mean(x^2) + eps) * weight.
// CHECK-LABEL: func.func @fuses_rms_norm
// CHECK-SAME:    (%[[X:.+]]: tensor<2x8x32xf32>, %[[W:.+]]: tensor<32xf32>)
// CHECK:         %[[N:.+]] = tsc.rms_norm %[[X]] scale %[[W]] axis = 2 epsilon = 9.9999999747524271E-7
// CHECK:         return %[[N]]
func.func @fuses_rms_norm(%x: tensor<2x8x32xf32>, %w: tensor<32xf32>) -> tensor<2x8x32xf32> {
  %two = tsc.constant dense<2.0> : tensor<f32>
  %eps = tsc.constant dense<1.0e-06> : tensor<f32>
  %p = tsc.pow %x, %two : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8x32xf32>
  %v = tsc.reduce_mean %p dims = [2] keepdim : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %e = tsc.add %v, %eps : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8x1xf32>
  %r = tsc.rsqrt %e : tensor<2x8x1xf32>
  %n = tsc.mul %x, %r : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %y = tsc.mul %w, %n : (tensor<32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %y : tensor<2x8x32xf32>
}

// -----

// Near-misses that must stay decomposed: the mean over a leading dim, and a
// variance of a different value than the one normalized.
// CHECK-LABEL: func.func @leaves_near_misses
// CHECK-NOT:     tsc.layer_norm
// CHECK-NOT:     tsc.rms_norm
// CHECK:         return
func.func @leaves_near_misses(%x: tensor<2x8x32xf32>, %other: tensor<2x8x32xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>) {
  %two = tsc.constant dense<2.0> : tensor<f32>
  %eps = tsc.constant dense<1.0e-05> : tensor<f32>
  %m = tsc.reduce_mean %x dims = [0] keepdim : (tensor<2x8x32xf32>) -> tensor<1x8x32xf32>
  %d = tsc.sub %x, %m : (tensor<2x8x32xf32>, tensor<1x8x32xf32>) -> tensor<2x8x32xf32>
  %p = tsc.pow %d, %two : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8x32xf32>
  %v = tsc.reduce_mean %p dims = [0] keepdim : (tensor<2x8x32xf32>) -> tensor<1x8x32xf32>
  %e = tsc.add %v, %eps : (tensor<1x8x32xf32>, tensor<f32>) -> tensor<1x8x32xf32>
  %s = tsc.sqrt %e : tensor<1x8x32xf32>
  %n = tsc.div %d, %s : (tensor<2x8x32xf32>, tensor<1x8x32xf32>) -> tensor<2x8x32xf32>
  %p2 = tsc.pow %other, %two : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8x32xf32>
  %v2 = tsc.reduce_mean %p2 dims = [2] keepdim : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %e2 = tsc.add %v2, %eps : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8x1xf32>
  %r2 = tsc.rsqrt %e2 : tensor<2x8x1xf32>
  %n2 = tsc.mul %x, %r2 : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  return %n, %n2 : tensor<2x8x32xf32>, tensor<2x8x32xf32>
}

// -----

// A scale of the wrong shape is not absorbed; the norm itself still is.
// CHECK-LABEL: func.func @keeps_broadcast_scale_outside
// CHECK:         %[[N:.+]] = tsc.rms_norm %{{.+}} axis = 1
// CHECK:         tsc.mul %[[N]]
func.func @keeps_broadcast_scale_outside(%x: tensor<4x32xf32>, %w: tensor<4x1xf32>) -> tensor<4x32xf32> {
  %two = tsc.constant dense<2.0> : tensor<f32>
  %eps = tsc.constant dense<1.0e-06> : tensor<f32>
  %p = tsc.pow %x, %two : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  %v = tsc.reduce_mean %p dims = [1] keepdim : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %e = tsc.add %v, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = tsc.rsqrt %e : tensor<4x1xf32>
  %n = tsc.mul %x, %r : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  %y = tsc.mul %n, %w : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// A square outside any norm becomes a self-product (pow would expand into
// exp and log in the kernel), in f16 too (x·x is exact in f32 and rounded
// once either way); other exponents and integer squares stay pow.
// CHECK-LABEL: func.func @squares_as_products
// CHECK-SAME:    (%[[X:.+]]: tensor<4x32xf32>, %[[I:.+]]: tensor<4x32xi32>, %[[H:.+]]: tensor<4x32xf16>)
// CHECK:         %[[S:.+]] = tsc.mul %[[X]], %[[X]] : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK:         %[[C:.+]] = tsc.pow %[[X]], %{{.+}} : (tensor<4x32xf32>, tensor<f32>)
// CHECK:         %[[N:.+]] = tsc.pow %[[I]], %{{.+}} : (tensor<4x32xi32>, tensor<i32>)
// CHECK:         %[[W:.+]] = tsc.mul %[[H]], %[[H]] : (tensor<4x32xf16>, tensor<4x32xf16>) -> tensor<4x32xf16>
// CHECK:         return %[[S]], %[[C]], %[[N]], %[[W]]
func.func @squares_as_products(%x: tensor<4x32xf32>, %i: tensor<4x32xi32>, %h: tensor<4x32xf16>) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xi32>, tensor<4x32xf16>) {
  %two = tsc.constant dense<2.0> : tensor<f32>
  %three = tsc.constant dense<3.0> : tensor<f32>
  %itwo = tsc.constant dense<2> : tensor<i32>
  %htwo = tsc.constant dense<2.0> : tensor<f16>
  %s = tsc.pow %x, %two : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  %c = tsc.pow %x, %three : (tensor<4x32xf32>, tensor<f32>) -> tensor<4x32xf32>
  %n = tsc.pow %i, %itwo : (tensor<4x32xi32>, tensor<i32>) -> tensor<4x32xi32>
  %w = tsc.pow %h, %htwo : (tensor<4x32xf16>, tensor<f16>) -> tensor<4x32xf16>
  return %s, %c, %n, %w : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xi32>, tensor<4x32xf16>
}
