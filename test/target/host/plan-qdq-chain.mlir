// A QDQ model's fake-quantized activations (ONNX Runtime's quantize_static
// puts a QuantizeLinear/DequantizeLinear pair on each input and output of an
// Add, a norm, a softmax) chain on the host into the kernel of the ops around
// them (Fusion.cpp's isFusible): per tensor and per channel, the whole chain
// below is one kernel with the fuse phase (ten until 2026-12-07, as without
// it), and the fused artifact computes exactly what the unfused one does.
// RUN: tsc %s --report | FileCheck %s --check-prefix=REPORT
// RUN: tsc %s --report --no-fuse | FileCheck %s --check-prefix=NOFUSE
// RUN: tsc %s -o %t.fused.tscm
// RUN: tsc %s --no-fuse -o %t.unfused.tscm
// RUN: tsc-run %t.unfused.tscm --dim seq=9 --seed 5 --output-dir %t.unfused
// RUN: tsc-run %t.fused.tscm --dim seq=9 --seed 5 --output-dir %t.fused
// RUN: %python %S/../../runtime/make_artifact.py compare %t.fused/y.npy %t.unfused/y.npy --tolerance 0 | FileCheck %s --check-prefix=SAME
// SAME: MATCH

// REPORT: plan: 1 steps: 1 kernels, 0 GEMM library calls, 0 copies
// REPORT: tsc_kernel_0_quantize_dequantize_quantize_dequantize_add_quantize_dequantize_mul_quantize_dequantize
// NOFUSE: plan: 10 steps: 10 kernels, 0 GEMM library calls, 0 copies

func.func @qdq(%a: tensor<?x8xf32> {tsc.name = "a"}, %b: tensor<?x8xf32> {tsc.name = "b"})
    -> (tensor<?x8xf32> {tsc.name = "y"}) {
  %seq = tsc.symbol "seq" [1, 32]
  tsc.bind_shape %a[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  tsc.bind_shape %b[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %s = tsc.constant dense<0.015625> : tensor<f32>
  %z = tsc.constant dense<3> : tensor<i8>
  %sc = tsc.constant dense<[0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08]> : tensor<8xf32>
  %zc = tsc.constant dense<[0, 1, -1, 2, -2, 3, -3, 4]> : tensor<8xi8>
  %g = tsc.constant dense<[1.5, -0.5, 2.0, 0.25, -1.0, 3.0, 0.5, -2.5]> : tensor<8xf32>
  %qa = tsc.quantize %a, %s, %z : (tensor<?x8xf32>, tensor<f32>, tensor<i8>) -> tensor<?x8xi8>
  tsc.bind_shape %qa[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xi8>
  %da = tsc.dequantize %qa, %s, %z : (tensor<?x8xi8>, tensor<f32>, tensor<i8>) -> tensor<?x8xf32>
  tsc.bind_shape %da[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %qb = tsc.quantize %b, %sc, %zc axis = 1 : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xi8>) -> tensor<?x8xi8>
  tsc.bind_shape %qb[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xi8>
  %db = tsc.dequantize %qb, %sc, %zc axis = 1 : (tensor<?x8xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<?x8xf32>
  tsc.bind_shape %db[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %sum = tsc.add %da, %db : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  tsc.bind_shape %sum[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %qs = tsc.quantize %sum, %s, %z : (tensor<?x8xf32>, tensor<f32>, tensor<i8>) -> tensor<?x8xi8>
  tsc.bind_shape %qs[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xi8>
  %ds = tsc.dequantize %qs, %s, %z : (tensor<?x8xi8>, tensor<f32>, tensor<i8>) -> tensor<?x8xf32>
  tsc.bind_shape %ds[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %m = tsc.mul %ds, %g : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  tsc.bind_shape %m[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %qm = tsc.quantize %m, %sc, %zc axis = 1 : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xi8>) -> tensor<?x8xi8>
  tsc.bind_shape %qm[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xi8>
  %y = tsc.dequantize %qm, %sc, %zc axis = 1 : (tensor<?x8xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<?x8xf32>
  tsc.bind_shape %y[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
