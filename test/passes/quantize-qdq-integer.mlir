// RUN: tsc-opt %s --split-input-file --tsc-quantize-qdq | FileCheck %s

// ONNX Runtime's quantize_dynamic form as the importer builds it:
// DynamicQuantizeLinear (a u8 code per element, scale and zero point from
// the tensor's range), MatMulInteger of the codes less the zero point by an
// s8 weight in i32, Cast to f32 and Mul by the product of the scales. Each
// product becomes a linear of the dequantized codes by the dequantized
// weight (one scale per output column), which the host plan runs as an int8
// step quantizing per tensor by the range. Two products of one input (Q and
// K) share its codes; the integer ops, the scales' product and the weight
// scales it read are gone, the range's ops stay (the dequantize reads the
// scale and the zero point).
// CHECK-LABEL: func.func @two_products
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK:         tsc.reduce_min %[[X]] dims = [0, 1]
// CHECK:         %[[SCALE:.+]] = tsc.div
// CHECK:         %[[ZP:.+]] = tsc.quantize %{{.+}}, %[[SCALE]] : (tensor<f32>, tensor<f32>) -> tensor<ui8>
// CHECK:         %[[Q:.+]] = tsc.quantize %[[X]], %[[SCALE]], %[[ZP]]
// CHECK-NEXT:    %[[XD:.+]] = tsc.dequantize %[[Q]], %[[SCALE]], %[[ZP]] : (tensor<?x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x4xf32>
// CHECK:         %[[W1:.+]] = tsc.constant dense<{{\[\[}}1, -2], [3, 4], [-5, 6], [7, -8]]> : tensor<4x2xi8>
// CHECK-NOT:     tsc.constant dense<2.500000e-01> : tensor<f32>
// CHECK:         %[[WS1:.+]] = tsc.constant dense<2.500000e-01> : tensor<2xf32>
// CHECK-NOT:     tsc.dequantize %[[Q]]
// CHECK:         %[[WD1:.+]] = tsc.dequantize %[[W1]], %[[WS1]] axis = 1 : (tensor<4x2xi8>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK:         %[[Y1:.+]] = tsc.linear %[[XD]], %[[WD1]] {weight_kn} : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
// CHECK:         %[[W2:.+]] = tsc.constant dense<2> : tensor<4x2xi8>
// CHECK-NEXT:    %[[WS2:.+]] = tsc.constant dense<[5.000000e-01, 1.250000e-01]> : tensor<2xf32>
// CHECK-NEXT:    %[[WD2:.+]] = tsc.dequantize %[[W2]], %[[WS2]] axis = 1
// CHECK-NEXT:    %[[Y2:.+]] = tsc.linear %[[XD]], %[[WD2]] {weight_kn}
// CHECK-NOT:     tsc.matmul
// CHECK-NOT:     xi32>
// CHECK:         return %[[Y1]], %[[Y2]]
func.func @two_products(%x: tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %zero = tsc.constant dense<0.0> : tensor<f32>
  %c255 = tsc.constant dense<255.0> : tensor<f32>
  %lo = tsc.reduce_min %x dims = [0, 1] : (tensor<?x4xf32>) -> tensor<f32>
  %hi = tsc.reduce_max %x dims = [0, 1] : (tensor<?x4xf32>) -> tensor<f32>
  %lo0 = tsc.min %lo, %zero : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %hi0 = tsc.max %hi, %zero : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %span = tsc.sub %hi0, %lo0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %s = tsc.div %span, %c255 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %neg = tsc.neg %lo0 : tensor<f32>
  %z = tsc.quantize %neg, %s : (tensor<f32>, tensor<f32>) -> tensor<ui8>
  %q = tsc.quantize %x, %s, %z : (tensor<?x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4xui8>
  %qi = tsc.cast %q : tensor<?x4xui8> to tensor<?x4xi32>
  %zi = tsc.cast %z : tensor<ui8> to tensor<i32>
  %a = tsc.sub %qi, %zi : (tensor<?x4xi32>, tensor<i32>) -> tensor<?x4xi32>
  %w1 = tsc.constant dense<[[1, -2], [3, 4], [-5, 6], [7, -8]]> : tensor<4x2xi8>
  %w1i = tsc.cast %w1 : tensor<4x2xi8> to tensor<4x2xi32>
  %p1 = tsc.matmul %a, %w1i : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %f1 = tsc.cast %p1 : tensor<?x2xi32> to tensor<?x2xf32>
  %ws1 = tsc.constant dense<0.25> : tensor<f32>
  %s1 = tsc.mul %s, %ws1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %y1 = tsc.mul %f1, %s1 : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
  %w2 = tsc.constant dense<2> : tensor<4x2xi8>
  %w2i = tsc.cast %w2 : tensor<4x2xi8> to tensor<4x2xi32>
  %p2 = tsc.matmul %a, %w2i : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %f2 = tsc.cast %p2 : tensor<?x2xi32> to tensor<?x2xf32>
  // Per column, the scales' product written the other way round.
  %ws2 = tsc.constant dense<[0.5, 0.125]> : tensor<2xf32>
  %s2 = tsc.mul %ws2, %s : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %y2 = tsc.mul %s2, %f2 : (tensor<2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  return %y1, %y2 : tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// Near misses keep the integer form: a weight less a zero point (in i32)
// whose differences leave s8 (-100 - 100), a product scaled by something other than the codes' scale, an
// i32 product something else reads, a u8 weight, and codes that are not a
// quantization's.
// CHECK-LABEL: func.func @near_misses
// CHECK-COUNT-5: tsc.matmul
// CHECK-NOT:     tsc.linear
// CHECK:         return
func.func @near_misses(%x: tensor<?x4xf32>, %other: tensor<f32>, %codes: tensor<?x4xui8>)
    -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xi32>, tensor<?x2xf32>, tensor<?x2xf32>) {
  %s = tsc.constant dense<0.1> : tensor<f32>
  %z = tsc.constant dense<3> : tensor<ui8>
  %q = tsc.quantize %x, %s, %z : (tensor<?x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4xui8>
  %qi = tsc.cast %q : tensor<?x4xui8> to tensor<?x4xi32>
  %zi = tsc.cast %z : tensor<ui8> to tensor<i32>
  %a = tsc.sub %qi, %zi : (tensor<?x4xi32>, tensor<i32>) -> tensor<?x4xi32>
  %ws = tsc.constant dense<0.25> : tensor<f32>
  %scales = tsc.mul %s, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %w = tsc.constant dense<1> : tensor<4x2xi8>
  %wi = tsc.cast %w : tensor<4x2xi8> to tensor<4x2xi32>
  // The weight less its zero point, outside s8.
  %wn = tsc.constant dense<-100> : tensor<4x2xi8>
  %wni = tsc.cast %wn : tensor<4x2xi8> to tensor<4x2xi32>
  %wz = tsc.constant dense<100> : tensor<i32>
  %wsub = tsc.sub %wni, %wz : (tensor<4x2xi32>, tensor<i32>) -> tensor<4x2xi32>
  %p1 = tsc.matmul %a, %wsub : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %f1 = tsc.cast %p1 : tensor<?x2xi32> to tensor<?x2xf32>
  %y1 = tsc.mul %f1, %scales : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
  // Scaled by another scale than the codes'.
  %p2 = tsc.matmul %a, %wi : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %f2 = tsc.cast %p2 : tensor<?x2xi32> to tensor<?x2xf32>
  %s2 = tsc.mul %other, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %y2 = tsc.mul %f2, %s2 : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
  // The i32 product returned too.
  %p3 = tsc.matmul %a, %wi : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %f3 = tsc.cast %p3 : tensor<?x2xi32> to tensor<?x2xf32>
  %y3 = tsc.mul %f3, %scales : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
  // A u8 weight.
  %wu = tsc.constant dense<1> : tensor<4x2xui8>
  %wui = tsc.cast %wu : tensor<4x2xui8> to tensor<4x2xi32>
  %p4 = tsc.matmul %a, %wui : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %f4 = tsc.cast %p4 : tensor<?x2xi32> to tensor<?x2xf32>
  %y4 = tsc.mul %f4, %scales : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
  // Codes from an input, not from a quantization.
  %ci = tsc.cast %codes : tensor<?x4xui8> to tensor<?x4xi32>
  %c = tsc.sub %ci, %zi : (tensor<?x4xi32>, tensor<i32>) -> tensor<?x4xi32>
  %p5 = tsc.matmul %c, %wi : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %f5 = tsc.cast %p5 : tensor<?x2xi32> to tensor<?x2xf32>
  %y5 = tsc.mul %f5, %scales : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
  return %y1, %y2, %y3, %p3, %y4, %y5 : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xi32>, tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// A weight whose widening cast was folded (a small MatMulInteger weight: an
// i32 constant): its values within [-128, 127] become s8 codes again; one
// outside them keeps the integer form.
// CHECK-LABEL: func.func @folded_weight
// CHECK:         %[[W:.+]] = tsc.constant dense<{{\[\[}}-128, 127], [0, 5]]> : tensor<2x2xi8>
// CHECK:         %[[WD:.+]] = tsc.dequantize %[[W]], %{{.+}} axis = 1 : (tensor<2x2xi8>, tensor<2xf32>) -> tensor<2x2xf32>
// CHECK:         %[[Y:.+]] = tsc.linear %{{.+}}, %[[WD]] {weight_kn}
// CHECK:         %[[P:.+]] = tsc.matmul %{{.+}}, %{{.+}} : (tensor<?x2xi32>, tensor<2x2xi32>) -> tensor<?x2xi32>
// CHECK:         return %[[Y]], %{{.+}}
func.func @folded_weight(%x: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %s = tsc.constant dense<0.1> : tensor<f32>
  %z = tsc.constant dense<3> : tensor<ui8>
  %q = tsc.quantize %x, %s, %z : (tensor<?x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x2xui8>
  %qi = tsc.cast %q : tensor<?x2xui8> to tensor<?x2xi32>
  %zi = tsc.cast %z : tensor<ui8> to tensor<i32>
  %a = tsc.sub %qi, %zi : (tensor<?x2xi32>, tensor<i32>) -> tensor<?x2xi32>
  %ws = tsc.constant dense<0.25> : tensor<f32>
  %scales = tsc.mul %s, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %w = tsc.constant dense<[[-128, 127], [0, 5]]> : tensor<2x2xi32>
  %p = tsc.matmul %a, %w : (tensor<?x2xi32>, tensor<2x2xi32>) -> tensor<?x2xi32>
  %f = tsc.cast %p : tensor<?x2xi32> to tensor<?x2xf32>
  %y = tsc.mul %f, %scales : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
  %wide = tsc.constant dense<[[-129, 1], [0, 5]]> : tensor<2x2xi32>
  %p2 = tsc.matmul %a, %wide : (tensor<?x2xi32>, tensor<2x2xi32>) -> tensor<?x2xi32>
  %f2 = tsc.cast %p2 : tensor<?x2xi32> to tensor<?x2xf32>
  %y2 = tsc.mul %f2, %scales : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
  return %y, %y2 : tensor<?x2xf32>, tensor<?x2xf32>
}
