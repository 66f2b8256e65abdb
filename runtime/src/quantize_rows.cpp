//===- quantize_rows.cpp - f32 rows to s8 for the int8 GEMM steps ---------===//

#include "quantize_rows.h"

#include "vector_clones.h"

#include <cstring>

namespace tsc::rt {

namespace {

// Compared as bit patterns, which order non-negative floats as their
// values do, so that the loop vectorizes as an integer max.
inline uint32_t absBits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits &= 0x7fffffffu;
  return bits > 0x7f800000u ? 0u : bits; // NaN
}

inline float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

TSC_VECTOR_CLONES float absMaxClones(const float *row, int64_t k) {
  uint32_t amax = 0;
  for (int64_t j = 0; j < k; ++j) {
    uint32_t bits = absBits(row[j]);
    amax = bits > amax ? bits : amax;
  }
  return fromBits(amax);
}

TSC_VECTOR_CLONES float absMaxScaledClones(const float *row, const float *m,
                                           int64_t k) {
  uint32_t amax = 0;
  for (int64_t j = 0; j < k; ++j) {
    uint32_t bits = absBits(row[j] * m[j]);
    amax = bits > amax ? bits : amax;
  }
  return fromBits(amax);
}

// A float's bits as an i32 that orders as the floats do (-0 below +0;
// NaNs beyond the infinities, which extendRange reports apart), so that
// the loop vectorizes as integer min and max: a float min or max of
// comparisons does not without -ffast-math, where it may not reassociate.
// The map is its own inverse.
inline int32_t orderKey(float v) {
  int32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits ^ ((bits >> 31) & 0x7fffffff);
}

inline float fromOrderKey(int32_t key) {
  int32_t bits = key ^ ((key >> 31) & 0x7fffffff);
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

TSC_VECTOR_CLONES void extendRangeClones(const float *row, int64_t k, float &lo,
                                         float &hi, bool &nan) {
  int32_t l = orderKey(lo), h = orderKey(hi);
  uint32_t widest = 0;
  for (int64_t j = 0; j < k; ++j) {
    int32_t key = orderKey(row[j]);
    l = key < l ? key : l;
    h = key > h ? key : h;
    uint32_t bits;
    std::memcpy(&bits, row + j, sizeof bits);
    bits &= 0x7fffffffu;
    widest = bits > widest ? bits : widest;
  }
  lo = fromOrderKey(l);
  hi = fromOrderKey(h);
  nan = nan || widest > 0x7f800000u;
}

// Clamping first (to the integers that saturate to the s8 range once the
// zero point is added) keeps the quotient within 2^22, where adding and
// taking away 1.5 * 2^23 rounds it to an integer, half to even, in the
// default rounding mode (the library is not built with -ffast-math, which
// would fold the two away). Rounding commutes with clamping to integers.
inline int8_t toCode(float v, int32_t zeroPoint) {
  const float lo = float(-128 - zeroPoint), hi = float(127 - zeroPoint);
  v = v > lo ? v : lo;
  v = v < hi ? v : hi;
  v = (v + 12582912.0f) - 12582912.0f;
  return int8_t(int32_t(v) + zeroPoint);
}

// q + 128 as a u8 byte is q's byte with its top bit flipped.
TSC_VECTOR_CLONES void quantizeRowClones(const float *row, int64_t k,
                                         float scale, int32_t zeroPoint,
                                         bool toUnsigned, uint8_t *q) {
  const uint8_t flip = toUnsigned ? 0x80 : 0;
  for (int64_t j = 0; j < k; ++j)
    q[j] = uint8_t(toCode(row[j] / scale, zeroPoint)) ^ flip;
}

TSC_VECTOR_CLONES void quantizeScaledRowClones(const float *row, const float *m,
                                               int64_t k, float scale,
                                               int32_t zeroPoint,
                                               bool toUnsigned, uint8_t *q) {
  const uint8_t flip = toUnsigned ? 0x80 : 0;
  for (int64_t j = 0; j < k; ++j)
    q[j] = uint8_t(toCode((row[j] * m[j]) / scale, zeroPoint)) ^ flip;
}

} // namespace

float absMax(const float *row, int64_t k) { return absMaxClones(row, k); }

float absMaxScaled(const float *row, const float *m, int64_t k) {
  return absMaxScaledClones(row, m, k);
}

void extendRange(const float *row, int64_t k, float &lo, float &hi, bool &nan) {
  extendRangeClones(row, k, lo, hi, nan);
}

void quantizeRow(const float *row, int64_t k, float scale, int32_t zeroPoint,
                 bool toUnsigned, uint8_t *q) {
  quantizeRowClones(row, k, scale, zeroPoint, toUnsigned, q);
}

void quantizeScaledRow(const float *row, const float *m, int64_t k, float scale,
                       int32_t zeroPoint, bool toUnsigned, uint8_t *q) {
  quantizeScaledRowClones(row, m, k, scale, zeroPoint, toUnsigned, q);
}

} // namespace tsc::rt
