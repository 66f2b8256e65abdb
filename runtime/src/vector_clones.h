//===- vector_clones.h - loops compiled once per x86 ISA level --*- C++ -*-===//
//
// The runtime builds for the baseline x86-64; a loop over whole buffers that
// runs on every inference (quantizing or rounding a GEMM's activation) gets
// one copy per ISA level, chosen when the library loads (an ifunc).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_VECTOR_CLONES_H
#define TSC_RUNTIME_VECTOR_CLONES_H

#if defined(__x86_64__) && defined(__clang__)
#define TSC_VECTOR_CLONES                                                      \
  __attribute__((target_clones("avx512bw", "avx2", "default")))
#else
#define TSC_VECTOR_CLONES
#endif

#endif // TSC_RUNTIME_VECTOR_CLONES_H
