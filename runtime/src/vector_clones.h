//===- vector_clones.h - loops compiled once per x86 ISA level --*- C++ -*-===//
//
// The runtime builds for the baseline x86-64; a loop over whole buffers that
// runs on every inference (quantizing or rounding a GEMM's activation) gets
// one copy per ISA level, chosen when the library loads (an ifunc).
//
// The macro goes only on a function of internal linkage (an anonymous
// namespace), which a plain function of the same file calls: clang 14
// (Debian 12's, which builds the runtime) gets an exported one wrong
// either way. Declared plainly in a header, it makes no clones and no
// ifunc, silently, and compiles the body for the first target alone
// (AVX-512BW: SIGILL on an AVX2 CPU); declared with the macro, a caller in
// another file calls the resolver as if it were the function (a wrong
// result, not a crash). test/runtime/vector-clones.test checks the
// library's clones, and the runtime's kernel tests their results.
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
