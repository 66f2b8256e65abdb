// GEMMs with bf16 inputs (QuantizeGemm.h's roundGemmToBf16 form, format
// 1.16): a tsc.linear of cast(cast(x, bf16), f32) by an f32 constant whose
// values are bf16's is one GEMM step that rounds its A itself, the casts
// part of it. Near-misses keep their casts (a kernel) and an f32 GEMM: a
// saturating cast pair (it clamps what would overflow), and a weight with
// a value bf16 does not hold (0.3). The library artifact computes what the
// generated one (--generated-gemms: casts and f32 products as kernels)
// does, to f32 accumulation's order.
// RUN: tsc %s --report | FileCheck %s
// RUN: tsc %s --cpu=native -o %t.lib.tscm
// RUN: tsc %s --generated-gemms -o %t.gen.tscm
// RUN: tsc-run %t.gen.tscm --dim seq=7 --seed 3 --output-dir %t.gen
// RUN: tsc-run %t.lib.tscm --dim seq=7 --seed 3 --expected y=%t.gen/y.npy --rtol 1e-5 --atol 1e-5

// CHECK: plan: 5 steps: 2 kernels, 3 GEMM library calls, 0 copies
// CHECK: steps:
// CHECK-NEXT: 0 gemm bf16-inputs+bias
// CHECK-NEXT: 1 tsc_kernel_1_cast_cast
// CHECK-NEXT: 2 gemm
// CHECK-NEXT: 3 tsc_kernel_3_cast_cast
// CHECK-NEXT: 4 gemm
func.func @kept(%x: tensor<?x8xf32> {tsc.name = "x"}) -> (tensor<?x8xf32> {tsc.name = "y"}) {
  %seq = tsc.symbol "seq" [1, 32]
  tsc.bind_shape %x[%seq], affine_map<()[s0] -> (s0, 8)> : tensor<?x8xf32>
  %w1 = tsc.constant dense<[[0.24609375, 0.484375, 0.58984375, 0.88671875, 0.48046875, 0.84375, -0.94140625, -0.06884765625], [0.88671875, 0.298828125, 0.80078125, -0.7734375, -0.061767578125, -0.5078125, 0.08740234375, 0.1474609375], [-0.97265625, -0.56640625, -0.44140625, 0.83203125, 0.53125, -0.6796875, 0.59375, -0.72265625], [0.2353515625, -0.74609375, -0.99609375, 0.7421875, -0.58203125, -0.5703125, 0.96484375, 0.74609375], [-0.421875, 0.921875, 0.07861328125, 0.35546875, -0.58984375, 0.8828125, 0.380859375, 0.93359375], [0.7890625, -0.40234375, -0.27734375, -0.66796875, -0.70703125, -0.87109375, -0.396484375, 0.2060546875], [-0.9921875, 0.35546875, -0.32421875, -0.380859375, 0.63671875, -0.03857421875, -0.369140625, -0.03759765625], [0.41015625, -0.88671875, 0.94921875, -0.953125, 0.5, 0.69140625, -0.96484375, 0.57421875]]> : tensor<8x8xf32>
  %w2 = tsc.constant dense<0.5> : tensor<8x8xf32>
  %w3 = tsc.constant dense<0.3> : tensor<8x8xf32>
  %b = tsc.constant dense<0.125> : tensor<8xf32>
  %n1 = tsc.cast %x : tensor<?x8xf32> to tensor<?x8xbf16>
  %r1 = tsc.cast %n1 : tensor<?x8xbf16> to tensor<?x8xf32>
  %y1 = tsc.linear %r1, %w1, %b : (tensor<?x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %n2 = tsc.cast %y1 saturate : tensor<?x8xf32> to tensor<?x8xbf16>
  %r2 = tsc.cast %n2 : tensor<?x8xbf16> to tensor<?x8xf32>
  %y2 = tsc.linear %r2, %w2 : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  %n3 = tsc.cast %y2 : tensor<?x8xf32> to tensor<?x8xbf16>
  %r3 = tsc.cast %n3 : tensor<?x8xbf16> to tensor<?x8xf32>
  %y3 = tsc.linear %r3, %w3 : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  return %y3 : tensor<?x8xf32>
}
