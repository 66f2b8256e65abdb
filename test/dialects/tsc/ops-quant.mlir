// RUN: tsc-opt %s --split-input-file | tsc-opt --split-input-file | FileCheck %s

// Round trip of quantize, dequantize and quantized_matmul at each granularity.

// CHECK-LABEL: func.func @quantize_per_tensor
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>, %[[S:.+]]: tensor<f32>, %[[Z:.+]]: tensor<ui8>)
// CHECK:         %[[A:.+]] = tsc.quantize %[[X]], %[[S]] : (tensor<?x768xf32>, tensor<f32>) -> tensor<?x768xi8>
// CHECK:         %[[B:.+]] = tsc.quantize %[[X]], %[[S]], %[[Z]] : (tensor<?x768xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x768xui8>
// CHECK:         return %[[A]], %[[B]]
func.func @quantize_per_tensor(%x: tensor<?x768xf32>, %s: tensor<f32>, %z: tensor<ui8>)
    -> (tensor<?x768xi8>, tensor<?x768xui8>) {
  %a = tsc.quantize %x, %s : (tensor<?x768xf32>, tensor<f32>) -> tensor<?x768xi8>
  %b = tsc.quantize %x, %s, %z : (tensor<?x768xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x768xui8>
  return %a, %b : tensor<?x768xi8>, tensor<?x768xui8>
}

// -----

// CHECK-LABEL: func.func @quantize_per_channel
// CHECK-SAME:    (%[[W:.+]]: tensor<768x3072xf16>, %[[S:.+]]: tensor<3072xf16>, %[[Z:.+]]: tensor<3072xi8>)
// CHECK:         %[[Q:.+]] = tsc.quantize %[[W]], %[[S]], %[[Z]] axis = 1 : (tensor<768x3072xf16>, tensor<3072xf16>, tensor<3072xi8>) -> tensor<768x3072xi8>
// CHECK:         return %[[Q]]
func.func @quantize_per_channel(%w: tensor<768x3072xf16>, %s: tensor<3072xf16>, %z: tensor<3072xi8>)
    -> tensor<768x3072xi8> {
  %q = tsc.quantize %w, %s, %z axis = 1
      : (tensor<768x3072xf16>, tensor<3072xf16>, tensor<3072xi8>) -> tensor<768x3072xi8>
  return %q : tensor<768x3072xi8>
}

// -----

// Per group: ceil(100 / 32) = 4 groups along axis 0.
// CHECK-LABEL: func.func @quantize_per_group
// CHECK-SAME:    (%[[W:.+]]: tensor<4096x4096xf32>, %[[S:.+]]: tensor<128x4096xf32>, %[[V:.+]]: tensor<100x8xf32>, %[[T:.+]]: tensor<4x8xf32>)
// CHECK:         %[[Q:.+]] = tsc.quantize %[[W]], %[[S]] axis = 0 group_size = 32 : (tensor<4096x4096xf32>, tensor<128x4096xf32>) -> tensor<4096x4096xi4>
// CHECK:         %[[R:.+]] = tsc.quantize %[[V]], %[[T]] axis = 0 group_size = 32 : (tensor<100x8xf32>, tensor<4x8xf32>) -> tensor<100x8xui4>
// CHECK:         return %[[Q]], %[[R]]
func.func @quantize_per_group(%w: tensor<4096x4096xf32>, %s: tensor<128x4096xf32>,
                              %v: tensor<100x8xf32>, %t: tensor<4x8xf32>)
    -> (tensor<4096x4096xi4>, tensor<100x8xui4>) {
  %q = tsc.quantize %w, %s axis = 0 group_size = 32
      : (tensor<4096x4096xf32>, tensor<128x4096xf32>) -> tensor<4096x4096xi4>
  %r = tsc.quantize %v, %t axis = 0 group_size = 32
      : (tensor<100x8xf32>, tensor<4x8xf32>) -> tensor<100x8xui4>
  return %q, %r : tensor<4096x4096xi4>, tensor<100x8xui4>
}

// -----

// CHECK-LABEL: func.func @dequantize_per_tensor
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x768xi8>, %[[S:.+]]: tensor<f32>, %[[Z:.+]]: tensor<i8>)
// CHECK:         %[[X:.+]] = tsc.dequantize %[[Q]], %[[S]], %[[Z]] : (tensor<?x768xi8>, tensor<f32>, tensor<i8>) -> tensor<?x768xf32>
// CHECK:         return %[[X]]
func.func @dequantize_per_tensor(%q: tensor<?x768xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<?x768xf32> {
  %x = tsc.dequantize %q, %s, %z : (tensor<?x768xi8>, tensor<f32>, tensor<i8>) -> tensor<?x768xf32>
  return %x : tensor<?x768xf32>
}

// -----

// CHECK-LABEL: func.func @dequantize_per_channel
// CHECK-SAME:    (%[[Q:.+]]: tensor<768x768xi8>, %[[S:.+]]: tensor<768xf32>, %[[Z:.+]]: tensor<768xi8>)
// CHECK:         %[[W:.+]] = tsc.dequantize %[[Q]], %[[S]], %[[Z]] axis = 0 : (tensor<768x768xi8>, tensor<768xf32>, tensor<768xi8>) -> tensor<768x768xf32>
// CHECK:         return %[[W]]
func.func @dequantize_per_channel(%q: tensor<768x768xi8>, %s: tensor<768xf32>, %z: tensor<768xi8>)
    -> tensor<768x768xf32> {
  %w = tsc.dequantize %q, %s, %z axis = 0
      : (tensor<768x768xi8>, tensor<768xf32>, tensor<768xi8>) -> tensor<768x768xf32>
  return %w : tensor<768x768xf32>
}

// -----

// CHECK-LABEL: func.func @dequantize_per_group
// CHECK-SAME:    (%[[Q:.+]]: tensor<4096x64xi4>, %[[S:.+]]: tensor<4096x2xbf16>, %[[Z:.+]]: tensor<4096x2xi4>)
// CHECK:         %[[W:.+]] = tsc.dequantize %[[Q]], %[[S]], %[[Z]] axis = 1 group_size = 32 : (tensor<4096x64xi4>, tensor<4096x2xbf16>, tensor<4096x2xi4>) -> tensor<4096x64xbf16>
// CHECK:         return %[[W]]
func.func @dequantize_per_group(%q: tensor<4096x64xi4>, %s: tensor<4096x2xbf16>, %z: tensor<4096x2xi4>)
    -> tensor<4096x64xbf16> {
  %w = tsc.dequantize %q, %s, %z axis = 1 group_size = 32
      : (tensor<4096x64xi4>, tensor<4096x2xbf16>, tensor<4096x2xi4>) -> tensor<4096x64xbf16>
  return %w : tensor<4096x64xbf16>
}

// -----

// CHECK-LABEL: func.func @quantized_matmul_per_tensor
// CHECK-SAME:    (%[[X:.+]]: tensor<?x768xf32>, %[[W:.+]]: tensor<768x3072xi8>, %[[S:.+]]: tensor<f32>, %[[Z:.+]]: tensor<i8>)
// CHECK:         %[[Y:.+]] = tsc.quantized_matmul %[[X]], %[[W]], %[[S]], %[[Z]] : (tensor<?x768xf32>, tensor<768x3072xi8>, tensor<f32>, tensor<i8>) -> tensor<?x3072xf32>
// CHECK:         return %[[Y]]
func.func @quantized_matmul_per_tensor(%x: tensor<?x768xf32>, %w: tensor<768x3072xi8>, %s: tensor<f32>,
                                       %z: tensor<i8>) -> tensor<?x3072xf32> {
  %y = tsc.quantized_matmul %x, %w, %s, %z
      : (tensor<?x768xf32>, tensor<768x3072xi8>, tensor<f32>, tensor<i8>) -> tensor<?x3072xf32>
  return %y : tensor<?x3072xf32>
}

// -----

// CHECK-LABEL: func.func @quantized_matmul_per_channel
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x768xf16>, %[[W:.+]]: tensor<768x3072xi8>, %[[S:.+]]: tensor<3072xf16>)
// CHECK:         %[[Y:.+]] = tsc.quantized_matmul %[[X]], %[[W]], %[[S]] axis = 1 : (tensor<?x?x768xf16>, tensor<768x3072xi8>, tensor<3072xf16>) -> tensor<?x?x3072xf16>
// CHECK:         return %[[Y]]
func.func @quantized_matmul_per_channel(%x: tensor<?x?x768xf16>, %w: tensor<768x3072xi8>, %s: tensor<3072xf16>)
    -> tensor<?x?x3072xf16> {
  %y = tsc.quantized_matmul %x, %w, %s axis = 1
      : (tensor<?x?x768xf16>, tensor<768x3072xi8>, tensor<3072xf16>) -> tensor<?x?x3072xf16>
  return %y : tensor<?x?x3072xf16>
}

// -----

// CHECK-LABEL: func.func @quantized_matmul_per_group
// CHECK-SAME:    (%[[X:.+]]: tensor<?x?x4096xf16>, %[[W:.+]]: tensor<4096x11008xi4>, %[[S:.+]]: tensor<32x11008xf16>, %[[Z:.+]]: tensor<32x11008xi4>)
// CHECK:         %[[Y:.+]] = tsc.quantized_matmul %[[X]], %[[W]], %[[S]], %[[Z]] axis = 0 group_size = 128 : (tensor<?x?x4096xf16>, tensor<4096x11008xi4>, tensor<32x11008xf16>, tensor<32x11008xi4>) -> tensor<?x?x11008xf16>
// CHECK:         return %[[Y]]
func.func @quantized_matmul_per_group(%x: tensor<?x?x4096xf16>, %w: tensor<4096x11008xi4>,
                                      %s: tensor<32x11008xf16>, %z: tensor<32x11008xi4>)
    -> tensor<?x?x11008xf16> {
  %y = tsc.quantized_matmul %x, %w, %s, %z axis = 0 group_size = 128
      : (tensor<?x?x4096xf16>, tensor<4096x11008xi4>, tensor<32x11008xf16>, tensor<32x11008xi4>)
      -> tensor<?x?x11008xf16>
  return %y : tensor<?x?x11008xf16>
}
