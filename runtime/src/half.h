//===- half.h - fp16 and bf16 conversions to and from f32 -------*- C++ -*-===//
//
// Bit-exact IEEE conversions (round to nearest even, NaN kept a NaN) that do
// not depend on the compiler's half-precision support: the runtime builds
// with any C++17 compiler, on the GPU machine too. The bulk conversions
// (half.cpp) give the same values, fp16 through F16C where present.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_HALF_H
#define TSC_RUNTIME_HALF_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tsc::rt {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent == 0x1f) // inf, NaN
    return bitsFloat(sign | 0x7f800000 | (mantissa << 13));
  if (exponent != 0)
    return bitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa · 2^-24, exact in f32.
  float magnitude = float(mantissa) * (1.0f / 16777216.0f);
  return bitsFloat(sign | floatBits(magnitude));
}

inline uint16_t floatToHalf(float f) {
  uint32_t u = floatBits(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  uint32_t magnitude = u & 0x7fffffff;
  if (magnitude > 0x7f800000) // NaN: quiet, top mantissa bits kept
    return uint16_t(sign | 0x7e00 | ((magnitude >> 13) & 0x3ff));
  if (magnitude >= 0x477ff000) // rounds past 65504: inf
    return uint16_t(sign | 0x7c00);
  if (magnitude >= 0x38800000) { // normal in f16
    uint32_t rounded = magnitude + 0xfff + ((magnitude >> 13) & 1);
    return uint16_t(sign | ((rounded - 0x38000000) >> 13));
  }
  // Subnormal or zero: magnitude · 2^24 rounded to an integer, ties to even,
  // in integer arithmetic (no reliance on the FPU's rounding mode or on
  // excess precision): the f32 mantissa with its implicit bit, shifted.
  if (magnitude < 0x33000000) // below 2^-25: rounds to zero
    return sign;
  uint32_t exponent = magnitude >> 23;
  uint32_t mantissa = (magnitude & 0x7fffff) | 0x800000;
  uint32_t shift = 126 - exponent; // value · 2^24 = mantissa >> shift
  uint32_t whole = mantissa >> shift;
  uint32_t rest = mantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
  whole += rest > half || (rest == half && (whole & 1));
  return uint16_t(sign | whole);
}

inline float bf16ToFloat(uint16_t b) { return bitsFloat(uint32_t(b) << 16); }

inline uint16_t floatToBf16(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7fffffff) > 0x7f800000) // NaN: quiet
    return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/// `n` f32 values rounded to bf16 (floatToBf16), vectorized where the CPU
/// allows.
void narrowToBf16(const float *from, uint16_t *to, size_t n);

/// `n` fp16 (or, with `bf16`, bf16) values widened to f32: the same values
/// as halfToFloat/bf16ToFloat, fp16 through F16C where the CPU has it.
void widenHalves(const uint16_t *from, float *to, size_t n, bool bf16);

/// `n` f32 values rounded to fp16 (or bf16), as floatToHalf/floatToBf16 do.
void narrowToHalves(const float *from, uint16_t *to, size_t n, bool bf16);

} // namespace tsc::rt

#endif // TSC_RUNTIME_HALF_H
