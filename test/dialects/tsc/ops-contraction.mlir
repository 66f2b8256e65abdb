// RUN: tsc-opt %s --split-input-file | tsc-opt --split-input-file | FileCheck %s

// Round trip of matmul, linear, reductions, softmax, norms and attention.

// CHECK-LABEL: func.func @matmul_batched
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x12x?x64xf32>, %[[K:.+]]: tensor<?x12x64x?xf32>)
// CHECK:         %[[S:.+]] = tsc.matmul %[[Q]], %[[K]] : (tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>) -> tensor<?x12x?x?xf32>
// CHECK:         return %[[S]]
func.func @matmul_batched(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x64x?xf32>) -> tensor<?x12x?x?xf32> {
  %s = tsc.matmul %q, %k : (tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>) -> tensor<?x12x?x?xf32>
  return %s : tensor<?x12x?x?xf32>
}

// -----

// Batch dims broadcast: [5, 1] against [3].
// CHECK-LABEL: func.func @matmul_broadcast_batch
// CHECK-SAME:    (%[[A:.+]]: tensor<5x1x2x4xf16>, %[[B:.+]]: tensor<3x4x6xf16>)
// CHECK:         %[[C:.+]] = tsc.matmul %[[A]], %[[B]] : (tensor<5x1x2x4xf16>, tensor<3x4x6xf16>) -> tensor<5x3x2x6xf16>
// CHECK:         return %[[C]]
func.func @matmul_broadcast_batch(%a: tensor<5x1x2x4xf16>, %b: tensor<3x4x6xf16>) -> tensor<5x3x2x6xf16> {
  %c = tsc.matmul %a, %b : (tensor<5x1x2x4xf16>, tensor<3x4x6xf16>) -> tensor<5x3x2x6xf16>
  return %c : tensor<5x3x2x6xf16>
}

// -----

// A 1-D operand is a vector; its unit dim is dropped from the result.
// CHECK-LABEL: func.func @matmul_vectors
// CHECK-SAME:    (%[[V:.+]]: tensor<4xf32>, %[[M:.+]]: tensor<?x4x6xf32>, %[[N:.+]]: tensor<3x4xf32>)
// CHECK:         %[[A:.+]] = tsc.matmul %[[V]], %[[M]] : (tensor<4xf32>, tensor<?x4x6xf32>) -> tensor<?x6xf32>
// CHECK:         %[[B:.+]] = tsc.matmul %[[N]], %[[V]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
// CHECK:         %[[C:.+]] = tsc.matmul %[[V]], %[[V]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @matmul_vectors(%v: tensor<4xf32>, %m: tensor<?x4x6xf32>, %n: tensor<3x4xf32>)
    -> (tensor<?x6xf32>, tensor<3xf32>, tensor<f32>) {
  %a = tsc.matmul %v, %m : (tensor<4xf32>, tensor<?x4x6xf32>) -> tensor<?x6xf32>
  %b = tsc.matmul %n, %v : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  %c = tsc.matmul %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %a, %b, %c : tensor<?x6xf32>, tensor<3xf32>, tensor<f32>
}

// -----

// 8-bit integer operands accumulate into i32.
// CHECK-LABEL: func.func @matmul_int8
// CHECK-SAME:    (%[[A:.+]]: tensor<?x64xi8>, %[[B:.+]]: tensor<64x32xi8>)
// CHECK:         %[[C:.+]] = tsc.matmul %[[A]], %[[B]] : (tensor<?x64xi8>, tensor<64x32xi8>) -> tensor<?x32xi32>
// CHECK:         return %[[C]]
func.func @matmul_int8(%a: tensor<?x64xi8>, %b: tensor<64x32xi8>) -> tensor<?x32xi32> {
  %c = tsc.matmul %a, %b : (tensor<?x64xi8>, tensor<64x32xi8>) -> tensor<?x32xi32>
  return %c : tensor<?x32xi32>
}

// -----

// CHECK-LABEL: func.func @linear_bias_and_no_bias
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[W:.+]]: tensor<3072x768xf32>, %[[B:.+]]: tensor<3072xf32>)
// CHECK:         %[[Y:.+]] = tsc.linear %[[X]], %[[W]], %[[B]] : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
// CHECK:         %[[Z:.+]] = tsc.linear %[[X]], %[[W]] : (tensor<?x?x768xf32>, tensor<3072x768xf32>) -> tensor<?x?x3072xf32>
// CHECK:         return %[[Y]], %[[Z]]
func.func @linear_bias_and_no_bias(%x: tensor<?x?x768xf32>, %w: tensor<3072x768xf32>, %b: tensor<3072xf32>)
    -> (tensor<?x?x3072xf32>, tensor<?x?x3072xf32>) {
  %y = tsc.linear %x, %w, %b
      : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
  %z = tsc.linear %x, %w : (tensor<?x?x768xf32>, tensor<3072x768xf32>) -> tensor<?x?x3072xf32>
  return %y, %z : tensor<?x?x3072xf32>, tensor<?x?x3072xf32>
}

// -----

// The GEMM epilogue's activation, alone and before a residual.
// CHECK-LABEL: func.func @linear_activation
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>, %[[W:.+]]: tensor<3072x768xf32>, %[[B:.+]]: tensor<3072xf32>, %[[R:.+]]: tensor<?x3072xf32>)
// CHECK:         %[[Y:.+]] = tsc.linear %[[X]], %[[W]], %[[B]] activation = gelu : (tensor<?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x3072xf32>
// CHECK:         %[[Z:.+]] = tsc.linear %[[X]], %[[W]] residual %[[R]] activation = gelu_tanh : (tensor<?x768xf32>, tensor<3072x768xf32>, tensor<?x3072xf32>) -> tensor<?x3072xf32>
// CHECK:         %[[N:.+]] = tsc.linear %[[X]], %[[W]] : (tensor<?x768xf32>, tensor<3072x768xf32>) -> tensor<?x3072xf32>
// CHECK:         return %[[Y]], %[[Z]], %[[N]]
func.func @linear_activation(%x: tensor<?x768xf32>, %w: tensor<3072x768xf32>, %b: tensor<3072xf32>, %r: tensor<?x3072xf32>)
    -> (tensor<?x3072xf32>, tensor<?x3072xf32>, tensor<?x3072xf32>) {
  %y = tsc.linear %x, %w, %b activation = gelu
      : (tensor<?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x3072xf32>
  %z = tsc.linear %x, %w residual %r activation = gelu_tanh
      : (tensor<?x768xf32>, tensor<3072x768xf32>, tensor<?x3072xf32>) -> tensor<?x3072xf32>
  %n = tsc.linear %x, %w activation = none
      : (tensor<?x768xf32>, tensor<3072x768xf32>) -> tensor<?x3072xf32>
  return %y, %z, %n : tensor<?x3072xf32>, tensor<?x3072xf32>, tensor<?x3072xf32>
}

// -----

// CHECK-LABEL: func.func @reductions
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[I:.+]]: tensor<4x5x6xi32>)
// CHECK:         %[[A:.+]] = tsc.reduce_sum %[[X]] dims = [2] keepdim : (tensor<?x?x768xf32>) -> tensor<?x?x1xf32>
// CHECK:         %[[B:.+]] = tsc.reduce_mean %[[X]] dims = [1, 2] : (tensor<?x?x768xf32>) -> tensor<?xf32>
// CHECK:         %[[C:.+]] = tsc.reduce_max %[[I]] dims = [0, 2] keepdim : (tensor<4x5x6xi32>) -> tensor<1x5x1xi32>
// CHECK:         %[[D:.+]] = tsc.reduce_min %[[I]] dims = [0, 1, 2] : (tensor<4x5x6xi32>) -> tensor<i32>
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @reductions(%x: tensor<?x?x768xf32>, %i: tensor<4x5x6xi32>)
    -> (tensor<?x?x1xf32>, tensor<?xf32>, tensor<1x5x1xi32>, tensor<i32>) {
  %a = tsc.reduce_sum %x dims = [2] keepdim : (tensor<?x?x768xf32>) -> tensor<?x?x1xf32>
  %b = tsc.reduce_mean %x dims = [1, 2] : (tensor<?x?x768xf32>) -> tensor<?xf32>
  %c = tsc.reduce_max %i dims = [0, 2] keepdim : (tensor<4x5x6xi32>) -> tensor<1x5x1xi32>
  %d = tsc.reduce_min %i dims = [0, 1, 2] : (tensor<4x5x6xi32>) -> tensor<i32>
  return %a, %b, %c, %d : tensor<?x?x1xf32>, tensor<?xf32>, tensor<1x5x1xi32>, tensor<i32>
}

// -----

// CHECK-LABEL: func.func @reductions_other_keepdim
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>)
// CHECK:         %[[A:.+]] = tsc.reduce_sum %[[X]] dims = [0] : (tensor<?x?x768xf32>) -> tensor<?x768xf32>
// CHECK:         %[[B:.+]] = tsc.reduce_mean %[[X]] dims = [2] keepdim : (tensor<?x?x768xf32>) -> tensor<?x?x1xf32>
// CHECK:         %[[C:.+]] = tsc.reduce_max %[[X]] dims = [1] : (tensor<?x?x768xf32>) -> tensor<?x768xf32>
// CHECK:         %[[D:.+]] = tsc.reduce_min %[[X]] dims = [1] keepdim : (tensor<?x?x768xf32>) -> tensor<?x1x768xf32>
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @reductions_other_keepdim(%x: tensor<?x?x768xf32>)
    -> (tensor<?x768xf32>, tensor<?x?x1xf32>, tensor<?x768xf32>, tensor<?x1x768xf32>) {
  %a = tsc.reduce_sum %x dims = [0] : (tensor<?x?x768xf32>) -> tensor<?x768xf32>
  %b = tsc.reduce_mean %x dims = [2] keepdim : (tensor<?x?x768xf32>) -> tensor<?x?x1xf32>
  %c = tsc.reduce_max %x dims = [1] : (tensor<?x?x768xf32>) -> tensor<?x768xf32>
  %d = tsc.reduce_min %x dims = [1] keepdim : (tensor<?x?x768xf32>) -> tensor<?x1x768xf32>
  return %a, %b, %c, %d : tensor<?x768xf32>, tensor<?x?x1xf32>, tensor<?x768xf32>, tensor<?x1x768xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_and_log_softmax
// CHECK-SAME:    (%[[S:.+]]: tensor<?x12x?x?xf32>)
// CHECK:         %[[P:.+]] = tsc.softmax %[[S]] axis = 3 : tensor<?x12x?x?xf32>
// CHECK:         %[[L:.+]] = tsc.log_softmax %[[S]] axis = 0 : tensor<?x12x?x?xf32>
// CHECK:         return %[[P]], %[[L]]
func.func @softmax_and_log_softmax(%s: tensor<?x12x?x?xf32>) -> (tensor<?x12x?x?xf32>, tensor<?x12x?x?xf32>) {
  %p = tsc.softmax %s axis = 3 : tensor<?x12x?x?xf32>
  %l = tsc.log_softmax %s axis = 0 : tensor<?x12x?x?xf32>
  return %p, %l : tensor<?x12x?x?xf32>, tensor<?x12x?x?xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_variants
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf32>, %[[G:.+]]: tensor<768xf32>, %[[B:.+]]: tensor<768xf32>, %[[G2:.+]]: tensor<?x768xf32>)
// CHECK:         %[[A:.+]] = tsc.layer_norm %[[X]] scale %[[G]] bias %[[B]] axis = 2 epsilon = 9.9999999999999998E-13 : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
// CHECK:         %[[C:.+]] = tsc.layer_norm %[[X]] scale %[[G]] axis = 2 epsilon = 1.000000e-05 : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
// CHECK:         %[[D:.+]] = tsc.layer_norm %[[X]] bias %[[B]] axis = 2 epsilon = 1.000000e-05 : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
// CHECK:         %[[E:.+]] = tsc.layer_norm %[[X]] axis = 2 epsilon = 1.000000e-05 : (tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
// CHECK:         %[[F:.+]] = tsc.layer_norm %[[X]] scale %[[G2]] axis = 1 epsilon = 1.000000e-05 : (tensor<?x?x768xf32>, tensor<?x768xf32>) -> tensor<?x?x768xf32>
// CHECK:         return %[[A]], %[[C]], %[[D]], %[[E]], %[[F]]
func.func @layer_norm_variants(%x: tensor<?x?x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>,
                               %g2: tensor<?x768xf32>)
    -> (tensor<?x?x768xf32>, tensor<?x?x768xf32>, tensor<?x?x768xf32>, tensor<?x?x768xf32>,
        tensor<?x?x768xf32>) {
  %a = tsc.layer_norm %x scale %g bias %b axis = 2 epsilon = 1.0e-12
      : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  %c = tsc.layer_norm %x scale %g axis = 2 epsilon = 1.0e-5
      : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  %d = tsc.layer_norm %x bias %b axis = 2 epsilon = 1.0e-5
      : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  %e = tsc.layer_norm %x axis = 2 epsilon = 1.0e-5 : (tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
  %f = tsc.layer_norm %x scale %g2 axis = 1 epsilon = 1.0e-5
      : (tensor<?x?x768xf32>, tensor<?x768xf32>) -> tensor<?x?x768xf32>
  return %a, %c, %d, %e, %f
      : tensor<?x?x768xf32>, tensor<?x?x768xf32>, tensor<?x?x768xf32>, tensor<?x?x768xf32>,
        tensor<?x?x768xf32>
}

// -----

// CHECK-LABEL: func.func @rms_norm_variants
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x4096xf16>, %[[G:.+]]: tensor<4096xf16>)
// CHECK:         %[[A:.+]] = tsc.rms_norm %[[X]] scale %[[G]] axis = 2 epsilon = 9.9999999999999995E-7 : (tensor<?x?x4096xf16>, tensor<4096xf16>) -> tensor<?x?x4096xf16>
// CHECK:         %[[B:.+]] = tsc.rms_norm %[[X]] axis = 2 epsilon = 1.000000e-05 : (tensor<?x?x4096xf16>) -> tensor<?x?x4096xf16>
// CHECK:         return %[[A]], %[[B]]
func.func @rms_norm_variants(%x: tensor<?x?x4096xf16>, %g: tensor<4096xf16>)
    -> (tensor<?x?x4096xf16>, tensor<?x?x4096xf16>) {
  %a = tsc.rms_norm %x scale %g axis = 2 epsilon = 1.0e-06
      : (tensor<?x?x4096xf16>, tensor<4096xf16>) -> tensor<?x?x4096xf16>
  %b = tsc.rms_norm %x axis = 2 epsilon = 1.0e-05 : (tensor<?x?x4096xf16>) -> tensor<?x?x4096xf16>
  return %a, %b : tensor<?x?x4096xf16>, tensor<?x?x4096xf16>
}

// -----

// CHECK-LABEL: func.func @attention_plain
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x12x?x64xf32>, %[[K:.+]]: tensor<?x12x?x64xf32>, %[[V:.+]]: tensor<?x12x?x64xf32>)
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] : (tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32>
// CHECK:         return %[[O]]
func.func @attention_plain(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>)
    -> tensor<?x12x?x64xf32> {
  %o = tsc.attention %q, %k, %v
      : (tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}

// -----

// bshd: sequence before heads in query, key, value and result; grouped-query
// heads and the mask's [B, H, Sq, Skv] meaning are as without it.
// CHECK-LABEL: func.func @attention_bshd
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x?x8x64xf32>, %[[K:.+]]: tensor<?x?x2x64xf32>, %[[V:.+]]: tensor<?x?x2x32xf32>, %[[M:.+]]: tensor<?x1x1x?xi1>)
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] causal bshd scale = 1.250000e-01 : (tensor<?x?x8x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2x32xf32>, tensor<?x1x1x?xi1>) -> tensor<?x?x8x32xf32>
// CHECK:         return %[[O]]
func.func @attention_bshd(%q: tensor<?x?x8x64xf32>, %k: tensor<?x?x2x64xf32>, %v: tensor<?x?x2x32xf32>,
                          %m: tensor<?x1x1x?xi1>) -> tensor<?x?x8x32xf32> {
  %o = tsc.attention %q, %k, %v mask %m causal bshd scale = 0.125
      : (tensor<?x?x8x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2x32xf32>, tensor<?x1x1x?xi1>)
      -> tensor<?x?x8x32xf32>
  return %o : tensor<?x?x8x32xf32>
}

// -----

// Grouped-query attention: 32 query heads read 8 K/V heads; float mask,
// causal and an explicit scale.
// CHECK-LABEL: func.func @attention_gqa_mask_causal_scale
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x32x?x128xf32>, %[[K:.+]]: tensor<?x8x?x128xf32>, %[[V:.+]]: tensor<?x8x?x128xf32>, %[[M:.+]]: tensor<?x1x1x?xf32>)
// CHECK:         %[[O:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] causal scale = 1.250000e-01 : (tensor<?x32x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x1x1x?xf32>) -> tensor<?x32x?x128xf32>
// CHECK:         return %[[O]]
func.func @attention_gqa_mask_causal_scale(%q: tensor<?x32x?x128xf32>, %k: tensor<?x8x?x128xf32>,
                                           %v: tensor<?x8x?x128xf32>, %m: tensor<?x1x1x?xf32>)
    -> tensor<?x32x?x128xf32> {
  %o = tsc.attention %q, %k, %v mask %m causal scale = 0.125
      : (tensor<?x32x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x1x1x?xf32>)
      -> tensor<?x32x?x128xf32>
  return %o : tensor<?x32x?x128xf32>
}

// -----

// An i1 mask of lower rank; causal alone; scale alone; value head dim
// differing from the query's.
// CHECK-LABEL: func.func @attention_optional_parts
// CHECK-SAME:    (%[[Q:.+]]: tensor<2x4x8x16xf16>, %[[K:.+]]: tensor<2x2x10x16xf16>, %[[V:.+]]: tensor<2x2x10x32xf16>, %[[M:.+]]: tensor<8x10xi1>)
// CHECK:         %[[A:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : (tensor<2x4x8x16xf16>, tensor<2x2x10x16xf16>, tensor<2x2x10x32xf16>, tensor<8x10xi1>) -> tensor<2x4x8x32xf16>
// CHECK:         %[[B:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] causal : (tensor<2x4x8x16xf16>, tensor<2x2x10x16xf16>, tensor<2x2x10x32xf16>) -> tensor<2x4x8x32xf16>
// CHECK:         %[[C:.+]] = tsc.attention %[[Q]], %[[K]], %[[V]] scale = 2.500000e-01 : (tensor<2x4x8x16xf16>, tensor<2x2x10x16xf16>, tensor<2x2x10x32xf16>) -> tensor<2x4x8x32xf16>
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @attention_optional_parts(%q: tensor<2x4x8x16xf16>, %k: tensor<2x2x10x16xf16>,
                                    %v: tensor<2x2x10x32xf16>, %m: tensor<8x10xi1>)
    -> (tensor<2x4x8x32xf16>, tensor<2x4x8x32xf16>, tensor<2x4x8x32xf16>) {
  %a = tsc.attention %q, %k, %v mask %m
      : (tensor<2x4x8x16xf16>, tensor<2x2x10x16xf16>, tensor<2x2x10x32xf16>, tensor<8x10xi1>)
      -> tensor<2x4x8x32xf16>
  %b = tsc.attention %q, %k, %v causal
      : (tensor<2x4x8x16xf16>, tensor<2x2x10x16xf16>, tensor<2x2x10x32xf16>) -> tensor<2x4x8x32xf16>
  %c = tsc.attention %q, %k, %v scale = 0.25
      : (tensor<2x4x8x16xf16>, tensor<2x2x10x16xf16>, tensor<2x2x10x32xf16>) -> tensor<2x4x8x32xf16>
  return %a, %b, %c : tensor<2x4x8x32xf16>, tensor<2x4x8x32xf16>, tensor<2x4x8x32xf16>
}
