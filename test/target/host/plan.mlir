// The plan of a small graph: kernels, a GEMM library call, views, the arena
// with liveness-based reuse, and byte-identical artifacts.
// RUN: tsc %s --report | FileCheck %s --check-prefix=REPORT
// RUN: tsc %s --report --no-fuse | FileCheck %s --check-prefix=NOFUSE
// RUN: tsc %s -o %t.a.tscm
// RUN: tsc %s -o %t.b.tscm
// RUN: cmp %t.a.tscm %t.b.tscm
// RUN: od -A n -t x1 -N 12 %t.a.tscm | FileCheck %s --check-prefix=MAGIC
// RUN: tsc %s --emit=lower | FileCheck %s --check-prefix=LOWER
// RUN: tsc-run %t.a.tscm --profile | FileCheck %s --check-prefix=PROFILE

// Three kernels and two GEMMs; the reshape is a view of the output. neg and
// exp chain into one kernel, so their intermediate has no buffer. %a, %m1,
// %t and %m2 are 64x32xf32 (8192 bytes) at seq = 64: %a dies before %t is
// made and %m1 before %m2, so the arena holds two of them.
// REPORT: plan: 5 steps: 3 kernels, 2 GEMM library calls, 0 copies; 1 views (reshapes, in-place results)
// REPORT: symbols: seq=[1, 64]
// REPORT: arena: 16384 bytes at the symbols' maxima; intermediates sum to 32768 bytes (reuse saves 50.0%)
// REPORT: weights: 4096 bytes
// Without fusion neg and exp are two kernels and %n needs a buffer too.
// NOFUSE: plan: 6 steps: 4 kernels, 2 GEMM library calls, 0 copies; 1 views (reshapes, in-place results)

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
// LOWER-NOT:   linear
// LOWER-LABEL: func.func @tsc_kernel_2_tanh
// LOWER-LABEL: func.func @tsc_kernel_4_neg_exp
// LOWER:         linalg.generic
// LOWER-NOT:     linalg.generic
// LOWER:         bufferization.materialize_in_destination

// tsc-run --profile sums the step times by kernel kind.
// PROFILE: profile: mean ms per run over 1 runs
// PROFILE-DAG: 2 x gemm
// PROFILE-DAG: 1 x neg_exp
// PROFILE-DAG: 1 x tanh
// PROFILE-DAG: 1 x exp

// Magic, then format version 1.13: every artifact has the STEP section
// (layers and source nodes per step, for profiles).
// MAGIC: 89 54 53 43 4d 0d 0a 1a 01 00 0d 00

func.func @chain(%x: tensor<?x32xf32> {tsc.name = "x"}) -> (tensor<?x4x8xf32> {tsc.name = "y"}) {
  %seq = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %x[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %w = tsc.constant dense<0.5> : tensor<32x32xf32>
  %a = tsc.exp %x : tensor<?x32xf32>
  tsc.bind_shape %a[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %m1 = tsc.linear %a, %w : (tensor<?x32xf32>, tensor<32x32xf32>) -> tensor<?x32xf32>
  tsc.bind_shape %m1[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %t = tsc.tanh %m1 : tensor<?x32xf32>
  tsc.bind_shape %t[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %m2 = tsc.linear %t, %w : (tensor<?x32xf32>, tensor<32x32xf32>) -> tensor<?x32xf32>
  tsc.bind_shape %m2[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %n = tsc.neg %m2 : tensor<?x32xf32>
  tsc.bind_shape %n[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %e = tsc.exp %n : tensor<?x32xf32>
  tsc.bind_shape %e[%seq], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %r = tsc.reshape %e[%seq] : tensor<?x32xf32> -> tensor<?x4x8xf32>
  tsc.bind_shape %r[%seq], affine_map<()[s0] -> (s0, 4, 8)> : tensor<?x4x8xf32>
  return %r : tensor<?x4x8xf32>
}
