// RUN: tsc-opt %s --tsc-quantize-weight-only="bits=4 group-size=8 zero-points=1" | FileCheck %s

// Asymmetric i4 codes (`--quantize=weight-int4:group=8:zero-points`): each
// group maps [min(w, 0), max(w, 0)] onto [-8, 7], scale (hi - lo) / 15,
// zero point round(-lo / scale) - 8, codes round(w / scale) + zero point
// (half to even), and the dequantize gets the zero points as its third
// operand, i4 [N, K/8] as the scales. Row 0's first group [-0.4375, 0.875]:
// scale 0.0875, zero point 5 - 8 = -3, codes 0.875 -> 7, -0.4375 -> -8,
// 0.125 -> 1 - 3 = -2, 0 -> -3; its second [0, 1.75]: scale 0.11667, zero
// point -8, 1.75 -> 7, 0.25 -> 2 - 8 = -6, 0 -> -8. Row 1's first group is
// all zeros (scale 1, zero point -8, codes -8); its second [-3.5, 0.5]:
// scale 0.26667, zero point 13 - 8 = 5 (13.125), -3.5 -> -13 + 5 = -8, 0.5
// -> 2 + 5 = 7 (1.875), 0 -> 5. Packed two a byte, the first in the low
// bits (after the blob's alignment, 64): codes (7, -8) -> 0x87, (-2, -3) ->
// 0xDE, ...; zero points (-3, -8) -> 0x8D, (-8, 5) -> 0x58.
// CHECK-LABEL: func.func @linear_nk
// CHECK-DAG:     %[[WQ:.+]] = tsc.constant dense_resource<[[CODES:.+]]> : tensor<2x16xi4>
// CHECK-DAG:     %[[WS:.+]] = tsc.constant dense<{{\[\[}}0.0874999985, 0.116666667], [1.000000e+00, 0.266666681]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[WZ:.+]] = tsc.constant dense_resource<[[ZEROS:.+]]> : tensor<2x2xi4>
// CHECK:         %[[WD:.+]] = tsc.dequantize %[[WQ]], %[[WS]], %[[WZ]] axis = 1 group_size = 8 : (tensor<2x16xi4>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<2x16xf32>
// CHECK:         tsc.linear %{{.+}}, %[[WD]]
// CHECK-DAG:     [[CODES]]: "0x4000000087DEDDDDA78888888888888878555555"
// CHECK-DAG:     [[ZEROS]]: "0x400000008D58"
func.func @linear_nk(%x: tensor<?x16xf32>) -> tensor<?x2xf32> {
  %w = tsc.constant dense<[[0.875, -0.4375, 0.125, 0.0, 0.0, 0.0, 0.0, 0.0, 1.75, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                           [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x16xf32>
  %y = tsc.linear %x, %w : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
