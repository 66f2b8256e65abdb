// qdq-shared-pair.mlir's pair with x computed by a kernel: the mul, the
// pair and the add chain into one kernel (the host chains quantize and
// dequantize since 2026-12-07), whose every reader of x is inside it; the
// int8 step reads x too, through the quantize it computes itself, so the
// kernel must keep x's buffer. The first build that chained them dropped it
// and crashed planning ONNX Runtime's s8 per-tensor QDQ BERT
// (models-run's bert-opset17-qdq-s8-per-tensor). The int8 step matches the
// same IR computed by generated kernels.
// RUN: tsc %s --report -o %t.tscm | FileCheck %s
// CHECK: plan: 2 steps: 1 kernels, 1 GEMM library calls
// CHECK: quantization: static int8 ({{.*}}, 1 of them with a zero point, s32 accumulation): 1 of 1 GEMMs int8
// CHECK: step {{.+}} int8
// CHECK: tsc_kernel_{{[0-9]+}}_mul_quantize_dequantize_add
// RUN: tsc %s --generated-gemms -o %t.generated.tscm
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', (np.arange(48, dtype=np.float32).reshape(3, 16) - 20) / 7)"
// RUN: tsc-run %t.tscm --input input0=%t.x.npy --output-dir %t.out --profile | FileCheck %s --check-prefix=PROFILE
// PROFILE: gemm int8
// RUN: tsc-run %t.generated.tscm --input input0=%t.x.npy --output-dir %t.generated
// RUN: %python %S/../runtime/make_artifact.py compare %t.out/output0.npy %t.generated/output0.npy --tolerance 1e-6 | FileCheck %s --check-prefix=SAME
// RUN: %python %S/../runtime/make_artifact.py compare %t.out/output1.npy %t.generated/output1.npy --tolerance 0 | FileCheck %s --check-prefix=SAME
// SAME: MATCH
func.func @shared(%in: tensor<3x16xf32>) -> (tensor<3x2xf32>, tensor<3x16xf32>) {
  %c = tsc.constant dense<1.25> : tensor<f32>
  %x = tsc.mul %in, %c : (tensor<3x16xf32>, tensor<f32>) -> tensor<3x16xf32>
  %s = tsc.constant dense<0.0625> : tensor<f32>
  %z = tsc.constant dense<-3> : tensor<i8>
  %q = tsc.quantize %x, %s, %z : (tensor<3x16xf32>, tensor<f32>, tensor<i8>) -> tensor<3x16xi8>
  %xd = tsc.dequantize %q, %s, %z : (tensor<3x16xi8>, tensor<f32>, tensor<i8>) -> tensor<3x16xf32>
  %r = tsc.add %xd, %x : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  %wq = tsc.constant dense<[[1, -2], [3, -6], [5, 7], [-8, 9], [10, -11], [12, 13], [-14, 15], [16, -17],
                            [18, 19], [-20, 21], [22, -23], [24, 25], [-26, 27], [28, -29], [30, 31], [-32, 33]]> : tensor<16x2xi8>
  %ws = tsc.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %wd = tsc.dequantize %wq, %ws axis = 1 : (tensor<16x2xi8>, tensor<2xf32>) -> tensor<16x2xf32>
  %y = tsc.matmul %xd, %wd : (tensor<3x16xf32>, tensor<16x2xf32>) -> tensor<3x2xf32>
  return %y, %r : tensor<3x2xf32>, tensor<3x16xf32>
}
