//===- half.cpp - bulk fp16/bf16 conversions to and from f32 --------------===//
//
// The runtime's conversions of whole buffers (half-precision GEMM operands
// and results): fp16 through F16C eight at a time where the CPU has it
// (vcvtph2ps / vcvtps2ph with round to nearest even are the IEEE
// conversions, as half.h's scalar ones), the scalar definitions of half.h
// for the rest and on other CPUs.
//
//===----------------------------------------------------------------------===//

#include "half.h"
#include "vector_clones.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace tsc::rt {
namespace {

#if defined(__x86_64__)
// F16C from CPUID leaf 1 (the compiler's __builtin_cpu_supports does not
// name it); AVX as the compiler checks it, with the OS's YMM state.
bool detectF16C() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) &&
         (c & bit_F16C);
}
const bool hasF16C = detectF16C();

__attribute__((target("avx,f16c"))) size_t widenF16C(const uint16_t *from,
                                                     float *to, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(from + i));
    _mm256_storeu_ps(to + i, _mm256_cvtph_ps(h));
  }
  return i;
}

__attribute__((target("avx,f16c"))) size_t narrowF16C(const float *from,
                                                      uint16_t *to, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(from + i),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(to + i), h);
  }
  return i;
}
#else
const bool hasF16C = false;
size_t widenF16C(const uint16_t *, float *, size_t) { return 0; }
size_t narrowF16C(const float *, uint16_t *, size_t) { return 0; }
#endif

} // namespace

void widenHalves(const uint16_t *from, float *to, size_t n, bool bf16) {
  if (bf16) {
    for (size_t i = 0; i < n; ++i)
      to[i] = bf16ToFloat(from[i]);
    return;
  }
  for (size_t i = hasF16C ? widenF16C(from, to, n) : 0; i < n; ++i)
    to[i] = halfToFloat(from[i]);
}

namespace {

TSC_VECTOR_CLONES void narrowToBf16Clones(const float *from, uint16_t *to,
                                          size_t n) {
  for (size_t i = 0; i < n; ++i)
    to[i] = floatToBf16(from[i]);
}

} // namespace

void narrowToBf16(const float *from, uint16_t *to, size_t n) {
  narrowToBf16Clones(from, to, n);
}

void narrowToHalves(const float *from, uint16_t *to, size_t n, bool bf16) {
  if (bf16)
    return narrowToBf16(from, to, n);
  for (size_t i = hasF16C ? narrowF16C(from, to, n) : 0; i < n; ++i)
    to[i] = floatToHalf(from[i]);
}

} // namespace tsc::rt
