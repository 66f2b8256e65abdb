// tsc --report on a gated-MLP block named like an exported layer: kernels
// and library calls per layer, the fusion on/off comparison and the steps;
// the artifact's numbers are checked in test/runtime (gemm-epilogue).
// RUN: tsc %s --report | FileCheck %s
// RUN: tsc %s --report --no-fuse | FileCheck %s --check-prefix=NOFUSE
// RUN: tsc %s --emit=fuse | FileCheck %s --check-prefix=FUSE
// RUN: tsc %s --report --precision=fp16 | FileCheck %s --check-prefix=FP16
// RUN: tsc %s --report --precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: tsc %s --report --precision=fp16 --precision-io=storage | FileCheck %s --check-prefix=FP16-IO

// --precision=fp16|bf16: half the weights' bytes; exp keeps f32 (its result
// may leave the half range), rounded to half where rms_norm reads it; the
// output converts back to the model's f32. The error the reduced precision
// costs is measured (fp32 and fp16 host builds on the same random inputs):
// of the order of the unit roundoff (fp16 4.9e-4, bf16 3.9e-3), neither 0
// nor NaN.
// FP16: weights: 784 bytes
// FP16: precision: fp16 storage (weights, activations), fp32 compute and accumulation; the model's inputs and outputs keep their types; ops kept in fp32: exp x1
// FP16: tsc_kernel_0_exp_cast_rms_norm
// FP16: gemm
// FP16: {{tsc_kernel_[0-9]+_cast( |$)}}
// FP16: measured error of fp16 (relative L2 against this model in fp32, both on the host, on random inputs at seq=64): y {{[1-9]\.[0-9]e-0[34]}}
// BF16: measured error of bf16 ({{.*}}): y {{[1-9]\.[0-9]e-0[23]}}
// With --precision-io=storage the input and output are fp16 too: no cast
// kernel at the end, the input rounded to fp16 counts in the error.
// FP16-IO: precision: fp16 storage (weights, activations), fp32 compute and accumulation; float inputs and outputs in fp16; ops kept in fp32: exp x1
// FP16-IO-NOT: {{tsc_kernel_[0-9]+_cast( |$)}}
// FP16-IO: measured error of fp16 ({{.*}}): y {{[1-9]\.[0-9]e-0[34]}}

// The fuse phase: gate and up become one GEMM by the concatenated weights
// (the split's pieces feed silu · mul), the residual add folds into the down
// projection.
// FUSE:      %[[GU:.+]] = tsc.linear %{{.+}}, %{{.+}} {weight_kn} : (tensor<?x8xf32>, tensor<8x32xf32>) -> tensor<?x32xf32>
// FUSE:      %[[S:.+]]:2 = tsc.split %[[GU]] axis = 1 sizes = [16, 16]
// FUSE:      %[[G:.+]] = tsc.silu %[[S]]#0
// FUSE:      %[[H:.+]] = tsc.mul %[[G]], %[[S]]#1
// FUSE:      tsc.linear %[[H]], %{{.+}} residual %{{.+}} {weight_kn} : (tensor<?x16xf32>, tensor<16x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// FUSE-NOT:  tsc.add

// With fusion: exp + rms_norm as one kernel (the exp's result is also the
// residual, so it keeps a buffer), one GEMM for gate and up, split + silu +
// mul as one kernel, and the down GEMM accumulating onto the residual in
// place (nothing reads it after): 4 steps, all in the layer (a step belongs
// to the layer of its first named op that has one).
// CHECK:      plan: 4 steps: 2 kernels, 2 GEMM library calls, 0 copies; 1 views (reshapes, in-place results)
// CHECK:      memory traffic (estimate at the symbols' maxima):
// CHECK:      fusion                        on          off
// CHECK-NEXT: kernels                        2            6
// CHECK-NEXT: GEMM library calls             2            3
// CHECK:      layers: 1, at most 4 kernels + library calls each
// CHECK-NEXT:   /layers.0 2 kernels 2 GEMM calls 0 copies
// CHECK-NEXT:   (outside layers) 0 kernels 0 GEMM calls 0 copies
// CHECK:      steps:
// CHECK-NEXT:    0 tsc_kernel_0_exp_rms_norm {{.*}} /layers.0
// CHECK-NEXT:    1 gemm {{.*}} /layers.0
// CHECK-NEXT:    2 tsc_kernel_2_split_silu_mul {{.*}} /layers.0
// CHECK-NEXT:    3 gemm+residual (in place) {{.*}} /layers.0

// Without fusion: no fuse phase and one kernel per op (x·sigmoid(x) stays two
// ops, the add stays an add).
// NOFUSE: plan: 9 steps: 6 kernels, 3 GEMM library calls, 0 copies

func.func @block(%x0: tensor<?x8xf32> {tsc.name = "x"}) -> (tensor<?x8xf32> {tsc.name = "y"}) {
  %seq = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x0[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %scale = tsc.constant dense<1.5> : tensor<8xf32>
  %wg = tsc.constant dense<0.25> : tensor<8x16xf32>
  %wu = tsc.constant dense<0.5> : tensor<8x16xf32>
  %wd = tsc.constant dense<0.125> : tensor<16x8xf32>
  %x = tsc.exp %x0 : tensor<?x8xf32> loc("/embed/Exp")
  tsc.bind_shape %x[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %n = tsc.rms_norm %x scale %scale axis = 1 epsilon = 1.0e-6 : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32> loc("/layers.0/norm/RMSNorm")
  tsc.bind_shape %n[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %g = tsc.matmul %n, %wg : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32> loc("/layers.0/mlp/gate/MatMul")
  tsc.bind_shape %g[%seq], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  %u = tsc.matmul %n, %wu : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32> loc("/layers.0/mlp/up/MatMul")
  tsc.bind_shape %u[%seq], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  %sig = tsc.sigmoid %g : tensor<?x16xf32> loc("/layers.0/mlp/Sigmoid")
  tsc.bind_shape %sig[%seq], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  %sg = tsc.mul %g, %sig : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32> loc("/layers.0/mlp/Mul")
  tsc.bind_shape %sg[%seq], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  %h = tsc.mul %sg, %u : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32> loc("/layers.0/mlp/Mul_1")
  tsc.bind_shape %h[%seq], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  %d = tsc.matmul %h, %wd : (tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32> loc("/layers.0/mlp/down/MatMul")
  tsc.bind_shape %d[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %y = tsc.add %x, %d : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> loc("/layers.0/Add")
  tsc.bind_shape %y[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
