// The plan of a small graph: kernels, a GEMM library call, views, the arena
// with liveness-based reuse, and byte-identical artifacts.
// RUN: tsc %s --report | FileCheck %s --check-prefix=REPORT
// RUN: tsc %s -o %t.a.tscm
// RUN: tsc %s -o %t.b.tscm
// RUN: cmp %t.a.tscm %t.b.tscm
// RUN: od -A n -t x1 -N 12 %t.a.tscm | FileCheck %s --check-prefix=MAGIC
// RUN: tsc %s --emit=lower | FileCheck %s --check-prefix=LOWER

// Four kernels and one GEMM; the reshape is a view. %a, %b, %c and %m are
// 64x32xf32 (8192 bytes) at seq = 64: %a dies when %c is made, so they share.
// REPORT: plan: 5 steps: 4 kernels, 1 GEMM library calls, 0 copies; 1 reshapes as views
// REPORT: symbols: seq=[1, 64]
// REPORT: arena: 24576 bytes at the symbols' maxima; intermediates sum to 32768 bytes (reuse saves 25.0%)
// REPORT: weights: 4096 bytes

// Each kernel takes the buffer and symbol arrays (the kernel ABI), reads seq
// from the symbols, views its buffers as memrefs and writes its result in
// place; the linear is a library call, so no kernel has it.
// LOWER-LABEL: func.func @tsc_kernel_0_exp(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
// LOWER:         llvm.load %{{.+}} : !llvm.ptr -> i64
// LOWER:         builtin.unrealized_conversion_cast %{{.+}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<?x32xf32>
// LOWER:         bufferization.to_tensor %{{.+}} restrict : memref<?x32xf32> to tensor<?x32xf32>
// LOWER:         linalg.generic
// LOWER:           math.exp
// LOWER:         bufferization.materialize_in_destination %{{.+}} in restrict writable %{{.+}} : (tensor<?x32xf32>, memref<?x32xf32>) -> ()
// LOWER-LABEL: func.func @tsc_kernel_1_neg
// LOWER-LABEL: func.func @tsc_kernel_2_tanh
// LOWER-NOT:   linear
// The graph phase folded add(m, neg(a)) into sub(m, a).
// LOWER-LABEL: func.func @tsc_kernel_4_sub

// Magic, then format version 1.0.
// MAGIC: 89 54 53 43 4d 0d 0a 1a 01 00 00 00

func.func @chain(%x: tensor<?x32xf32> {tsc.name = "x"}) -> (tensor<?x4x8xf32> {tsc.name = "y"}) {
  %seq = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %w = tsc.constant dense<0.5> : tensor<32x32xf32>
  %a = tsc.exp %x : tensor<?x32xf32>
  tsc.bind_shape %a[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %b = tsc.neg %a : tensor<?x32xf32>
  tsc.bind_shape %b[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %c = tsc.tanh %b : tensor<?x32xf32>
  tsc.bind_shape %c[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %m = tsc.linear %c, %w : (tensor<?x32xf32>, tensor<32x32xf32>) -> tensor<?x32xf32>
  tsc.bind_shape %m[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %d = tsc.add %m, %b : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x32xf32>
  tsc.bind_shape %d[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %r = tsc.reshape %d[%seq] : tensor<?x32xf32> -> tensor<?x4x8xf32>
  tsc.bind_shape %r[%seq], affine_map<()[s0] -> (s0, 4, 8)> : tensor<?x4x8xf32>
  return %r : tensor<?x4x8xf32>
}
