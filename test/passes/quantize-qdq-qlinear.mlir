// RUN: tsc-opt %s --split-input-file --tsc-quantize-qdq --cse | FileCheck %s

// ONNX Runtime's QLinearMatMul (QOperator static models) by a constant
// weight, as the importer builds it and the graph phase folds it: the codes
// less their zero point times the s8 weight in i32, scaled in f64 by the
// folded multiplier a_scale·b_scale/y_scale (per column), the output zero
// point added, rounded, clamped and cast to u8. It becomes the QDQ form with
// scale 1 on both sides (the codes' integers q - z in f32, the weight
// dequantized by the multipliers, the output quantized by 1 with its zero
// point: one f32 multiply per output, ONNX Runtime's arithmetic), then
// (the pass's QDQ rewrite) static int8's: the integers quantized to s8 by
// 1 with the zero point 120 - 128 = -8.
// CHECK-LABEL: func.func @from_quantize
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-DAG:     %[[Z:.+]] = tsc.constant dense<120> : tensor<ui8>
// CHECK-DAG:     %[[W:.+]] = tsc.constant dense<{{\[\[}}1, -2], [3, 4], [-5, 6], [7, -128]]> : tensor<4x2xi8>
// CHECK-DAG:     %[[YS:.+]] = tsc.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG:     %[[YZ:.+]] = tsc.constant dense<128> : tensor<ui8>
// CHECK:         %[[CODES:.+]] = tsc.quantize %[[X]], %{{.+}}, %[[Z]]
// CHECK-NEXT:    %[[ONE:.+]] = tsc.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[INT:.+]] = tsc.dequantize %[[CODES]], %[[ONE]], %[[Z]]
// CHECK-NEXT:    %[[Z8:.+]] = tsc.constant dense<-8> : tensor<i8>
// CHECK-NEXT:    %[[Q:.+]] = tsc.quantize %[[INT]], %[[ONE]], %[[Z8]] : (tensor<?x4xf32>, tensor<f32>, tensor<i8>) -> tensor<?x4xi8>
// CHECK-NEXT:    %[[XD:.+]] = tsc.dequantize %[[Q]], %[[ONE]], %[[Z8]]
// CHECK-NEXT:    %[[WS:.+]] = tsc.constant dense<[1.250000e-01, 6.250000e-02]> : tensor<2xf32>
// CHECK-NEXT:    %[[WD:.+]] = tsc.dequantize %[[W]], %[[WS]] axis = 1 : (tensor<4x2xi8>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    %[[Y:.+]] = tsc.linear %[[XD]], %[[WD]] {weight_kn} : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
// CHECK-NEXT:    %[[YQ:.+]] = tsc.quantize %[[Y]], %[[ONE]], %[[YZ]] : (tensor<?x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x2xui8>
// CHECK-NEXT:    %[[OUT:.+]] = tsc.dequantize %[[YQ]], %[[YS]], %[[YZ]]
// CHECK-NEXT:    return %[[OUT]]
func.func @from_quantize(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %s = tsc.constant dense<0.25> : tensor<f32>
  %z = tsc.constant dense<120> : tensor<ui8>
  %zi = tsc.constant dense<120> : tensor<i32>
  %w = tsc.constant dense<[[1, -2], [3, 4], [-5, 6], [7, -128]]> : tensor<4x2xi8>
  %m = tsc.constant dense<[0.125, 0.0625]> : tensor<2xf64>
  %yz = tsc.constant dense<128.0> : tensor<f64>
  %lo = tsc.constant dense<0.0> : tensor<f64>
  %hi = tsc.constant dense<255.0> : tensor<f64>
  %ys = tsc.constant dense<0.5> : tensor<f32>
  %yzq = tsc.constant dense<128> : tensor<ui8>
  %q = tsc.quantize %x, %s, %z : (tensor<?x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4xui8>
  %qi = tsc.cast %q : tensor<?x4xui8> to tensor<?x4xi32>
  %a = tsc.sub %qi, %zi : (tensor<?x4xi32>, tensor<i32>) -> tensor<?x4xi32>
  %wi = tsc.cast %w : tensor<4x2xi8> to tensor<4x2xi32>
  %p = tsc.matmul %a, %wi : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %pf = tsc.cast %p : tensor<?x2xi32> to tensor<?x2xf64>
  %y = tsc.mul %pf, %m : (tensor<?x2xf64>, tensor<2xf64>) -> tensor<?x2xf64>
  %y1 = tsc.add %y, %yz : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %r = tsc.round %y1 : tensor<?x2xf64>
  %r0 = tsc.max %r, %lo : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %r1 = tsc.min %r0, %hi : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c = tsc.cast %r1 : tensor<?x2xf64> to tensor<?x2xui8>
  %out = tsc.dequantize %c, %ys, %yzq : (tensor<?x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x2xf32>
  return %out : tensor<?x2xf32>
}

// -----

// Codes that are no quantization of f32 (here the function's input; in a
// model another QLinear op's, reshaped) are dequantized with scale 1 and
// quantized back (the same codes, exactly) for the int8 step to quantize,
// as any codes are; here with a folded i32 weight (B - b_zp, every value an
// s8 one) and s8 output codes without zero point.
// CHECK-LABEL: func.func @from_codes
// CHECK-SAME:    (%[[CODES:.+]]: tensor<?x4xui8>)
// CHECK-NEXT:    %[[ONE:.+]] = tsc.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[Z:.+]] = tsc.constant dense<3> : tensor<ui8>
// CHECK-NEXT:    %[[X:.+]] = tsc.dequantize %[[CODES]], %[[ONE]], %[[Z]] : (tensor<?x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[W:.+]] = tsc.constant dense<{{\[\[}}-127, 2], [3, 4], [5, 6], [7, 127]]> : tensor<4x2xi8>
// CHECK-NEXT:    %[[Z8:.+]] = tsc.constant dense<-125> : tensor<i8>
// CHECK-NEXT:    %[[Q:.+]] = tsc.quantize %[[X]], %[[ONE]], %[[Z8]] : (tensor<?x4xf32>, tensor<f32>, tensor<i8>) -> tensor<?x4xi8>
// CHECK-NEXT:    %[[XD:.+]] = tsc.dequantize %[[Q]], %[[ONE]], %[[Z8]]
// CHECK-NEXT:    %[[WS:.+]] = tsc.constant dense<[1.250000e-01, 6.250000e-02]> : tensor<2xf32>
// CHECK-NEXT:    %[[WD:.+]] = tsc.dequantize %[[W]], %[[WS]] axis = 1
// CHECK-NEXT:    %[[Y:.+]] = tsc.linear %[[XD]], %[[WD]] {weight_kn}
// CHECK-NEXT:    %[[YQ:.+]] = tsc.quantize %[[Y]], %[[ONE]] : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xi8>
// CHECK-NEXT:    return %[[YQ]]
func.func @from_codes(%codes: tensor<?x4xui8>) -> tensor<?x2xi8> {
  %zi = tsc.constant dense<3> : tensor<i32>
  %w = tsc.constant dense<[[-127, 2], [3, 4], [5, 6], [7, 127]]> : tensor<4x2xi32>
  %m = tsc.constant dense<[0.125, 0.0625]> : tensor<2xf64>
  %lo = tsc.constant dense<-128.0> : tensor<f64>
  %hi = tsc.constant dense<127.0> : tensor<f64>
  %qi = tsc.cast %codes : tensor<?x4xui8> to tensor<?x4xi32>
  %a = tsc.sub %qi, %zi : (tensor<?x4xi32>, tensor<i32>) -> tensor<?x4xi32>
  %p = tsc.matmul %a, %w : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %pf = tsc.cast %p : tensor<?x2xi32> to tensor<?x2xf64>
  %y = tsc.mul %pf, %m : (tensor<?x2xf64>, tensor<2xf64>) -> tensor<?x2xf64>
  %r = tsc.round %y : tensor<?x2xf64>
  %r0 = tsc.max %r, %lo : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %r1 = tsc.min %r0, %hi : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c = tsc.cast %r1 : tensor<?x2xf64> to tensor<?x2xi8>
  return %c : tensor<?x2xi8>
}

// -----

// As MiniLM's QOperator model imports (384 channels): the graph phase's
// folders leave the per-channel multiplier a_scale·b_scale / y_scale and
// the weight's zero points as ops; the rewrite computes them (in f32, as
// their kernels would: 0.25·[0.5, 0.25] / 0.5 = [0.25, 0.125]) and takes
// the zero points [1, -2] out of the codes.
// CHECK-LABEL: func.func @unfolded
// CHECK:         %[[W:.+]] = tsc.constant dense<{{\[\[}}0, 4], [2, 6], [-6, 8], [6, -126]]> : tensor<4x2xi8>
// CHECK:         %[[WS:.+]] = tsc.constant dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32>
// CHECK-NEXT:    %[[WD:.+]] = tsc.dequantize %[[W]], %[[WS]] axis = 1
// CHECK-NEXT:    tsc.linear %{{.+}}, %[[WD]] {weight_kn}
// CHECK-NOT:     tsc.matmul
func.func @unfolded(%x: tensor<?x4xf32>) -> tensor<?x2xui8> {
  %s = tsc.constant dense<0.25> : tensor<f32>
  %z = tsc.constant dense<120> : tensor<ui8>
  %zi = tsc.constant dense<120> : tensor<i32>
  %w = tsc.constant dense<[[1, 2], [3, 4], [-5, 6], [7, -128]]> : tensor<4x2xi8>
  %wz = tsc.constant dense<[1, -2]> : tensor<2xi8>
  %bs = tsc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %ys = tsc.constant dense<0.5> : tensor<f32>
  %lo = tsc.constant dense<0.0> : tensor<f64>
  %hi = tsc.constant dense<255.0> : tensor<f64>
  %q = tsc.quantize %x, %s, %z : (tensor<?x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<?x4xui8>
  %qi = tsc.cast %q : tensor<?x4xui8> to tensor<?x4xi32>
  %a = tsc.sub %qi, %zi : (tensor<?x4xi32>, tensor<i32>) -> tensor<?x4xi32>
  %wi = tsc.cast %w : tensor<4x2xi8> to tensor<4x2xi32>
  %wzi = tsc.cast %wz : tensor<2xi8> to tensor<2xi32>
  %wb = tsc.sub %wi, %wzi : (tensor<4x2xi32>, tensor<2xi32>) -> tensor<4x2xi32>
  %p = tsc.matmul %a, %wb : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %sb = tsc.mul %s, %bs : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %m = tsc.div %sb, %ys : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %pf = tsc.cast %p : tensor<?x2xi32> to tensor<?x2xf64>
  %mf = tsc.cast %m : tensor<2xf32> to tensor<2xf64>
  %y = tsc.mul %pf, %mf : (tensor<?x2xf64>, tensor<2xf64>) -> tensor<?x2xf64>
  %r = tsc.round %y : tensor<?x2xf64>
  %r0 = tsc.max %r, %lo : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %r1 = tsc.min %r0, %hi : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c = tsc.cast %r1 : tensor<?x2xf64> to tensor<?x2xui8>
  return %c : tensor<?x2xui8>
}

// -----

// Near misses keep the integer form: a folded weight with a value outside
// s8 (B - b_zp of a u8 weight), the i32 product also returned, a
// multiplier that is not a constant, a clamp that is not the codes' range.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT:     tsc.linear
// CHECK-COUNT-4: tsc.matmul
// CHECK-NOT:     tsc.linear
func.func @near_misses(%codes: tensor<?x4xui8>, %m2: tensor<2xf64>) -> (tensor<?x2xui8>, tensor<?x2xui8>, tensor<?x2xi32>, tensor<?x2xui8>, tensor<?x2xui8>) {
  %zi = tsc.constant dense<3> : tensor<i32>
  %wide = tsc.constant dense<[[-127, 2], [3, 4], [5, 6], [7, 200]]> : tensor<4x2xi32>
  %w = tsc.constant dense<[[-127, 2], [3, 4], [5, 6], [7, 100]]> : tensor<4x2xi32>
  %w3 = tsc.constant dense<[[-127, 2], [3, 4], [5, 6], [7, 101]]> : tensor<4x2xi32>
  %w4 = tsc.constant dense<[[-127, 2], [3, 4], [5, 6], [7, 102]]> : tensor<4x2xi32>
  %m = tsc.constant dense<[0.125, 0.0625]> : tensor<2xf64>
  %lo = tsc.constant dense<0.0> : tensor<f64>
  %hi = tsc.constant dense<255.0> : tensor<f64>
  %hi2 = tsc.constant dense<127.0> : tensor<f64>
  %qi = tsc.cast %codes : tensor<?x4xui8> to tensor<?x4xi32>
  %a = tsc.sub %qi, %zi : (tensor<?x4xi32>, tensor<i32>) -> tensor<?x4xi32>
  // A weight value outside s8.
  %p1 = tsc.matmul %a, %wide : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %pf1 = tsc.cast %p1 : tensor<?x2xi32> to tensor<?x2xf64>
  %y1 = tsc.mul %pf1, %m : (tensor<?x2xf64>, tensor<2xf64>) -> tensor<?x2xf64>
  %r1 = tsc.round %y1 : tensor<?x2xf64>
  %c1a = tsc.max %r1, %lo : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c1b = tsc.min %c1a, %hi : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c1 = tsc.cast %c1b : tensor<?x2xf64> to tensor<?x2xui8>
  // The product read elsewhere too.
  %p2 = tsc.matmul %a, %w : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %pf2 = tsc.cast %p2 : tensor<?x2xi32> to tensor<?x2xf64>
  %y2 = tsc.mul %pf2, %m : (tensor<?x2xf64>, tensor<2xf64>) -> tensor<?x2xf64>
  %r2 = tsc.round %y2 : tensor<?x2xf64>
  %c2a = tsc.max %r2, %lo : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c2b = tsc.min %c2a, %hi : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c2 = tsc.cast %c2b : tensor<?x2xf64> to tensor<?x2xui8>
  // A multiplier computed at run time.
  %p3 = tsc.matmul %a, %w3 : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %pf3 = tsc.cast %p3 : tensor<?x2xi32> to tensor<?x2xf64>
  %y3 = tsc.mul %pf3, %m2 : (tensor<?x2xf64>, tensor<2xf64>) -> tensor<?x2xf64>
  %r3 = tsc.round %y3 : tensor<?x2xf64>
  %c3a = tsc.max %r3, %lo : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c3b = tsc.min %c3a, %hi : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c3 = tsc.cast %c3b : tensor<?x2xf64> to tensor<?x2xui8>
  // Clamped to [0, 127], not u8's range.
  %p4 = tsc.matmul %a, %w4 : (tensor<?x4xi32>, tensor<4x2xi32>) -> tensor<?x2xi32>
  %pf4 = tsc.cast %p4 : tensor<?x2xi32> to tensor<?x2xf64>
  %y4 = tsc.mul %pf4, %m : (tensor<?x2xf64>, tensor<2xf64>) -> tensor<?x2xf64>
  %r4 = tsc.round %y4 : tensor<?x2xf64>
  %c4a = tsc.max %r4, %lo : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c4b = tsc.min %c4a, %hi2 : (tensor<?x2xf64>, tensor<f64>) -> tensor<?x2xf64>
  %c4 = tsc.cast %c4b : tensor<?x2xf64> to tensor<?x2xui8>
  return %c1, %c2, %p2, %c3, %c4 : tensor<?x2xui8>, tensor<?x2xui8>, tensor<?x2xi32>, tensor<?x2xui8>, tensor<?x2xui8>
}
