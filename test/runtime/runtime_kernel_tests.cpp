//===- runtime_kernel_tests.cpp - the runtime's own numeric loops ---------===//
//
// Part of tsc-runtime-tests (runtime_tests.cpp has main): the loops the
// runtime runs on tensors itself, against scalar references written the
// obvious way. The bulk half conversions are in runtime_tests.cpp.
//
//===----------------------------------------------------------------------===//

#include "quantize_rows.h"
#include "runtime_tests.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <utility>

using namespace tsc_runtime_tests;

namespace {

// The int8 GEMM steps' quantization (quantize_rows.cpp, vectorized on this
// machine) gives the scalar formula's codes for every element: ties at
// every half (-130 .. 130, half to even), saturation, infinities, NaN
// (-128), subnormal quotients, and random values over many magnitudes, at
// lengths that leave every tail past the vector blocks, with zero points
// across [-128, 127] (static int8's asymmetric activations), the same for
// each value times a multiplier (smoothing); and absMax is the
// largest |x| with NaNs skipped, absMaxScaled that of the products with the
// multipliers (dynamic int8's smoothed rows, format 1.22).
TEST(int8_quantize_rows) {
  auto reference = [](float x, float scale, int32_t zeroPoint) {
    float v = x / scale;
    if (std::isnan(v))
      return int8_t(-128);
    return int8_t(
        std::clamp(double(std::nearbyint(v)) + zeroPoint, -128.0, 127.0));
  };
  std::vector<float> values;
  for (int half = -260; half <= 260; ++half)
    values.push_back(0.5f * float(half));
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {inf, -inf, std::numeric_limits<float>::quiet_NaN(), 0.0f,
                  -0.0f, FLT_MIN, -FLT_MIN, 1e-40f, FLT_MAX, -FLT_MAX,
                  4194304.5f, 8388609.0f, -8388609.0f, 1e30f})
    values.push_back(v);
  uint32_t seed = 12345;
  for (int i = 0; i < 20000; ++i) {
    seed = seed * 1664525u + 1013904223u;
    values.push_back(
        std::ldexp(float(int32_t(seed)) / 2147483648.0f, int(seed % 40) - 20));
  }
  // Multipliers as smoothing makes them: positive, over some magnitudes,
  // 1 among them.
  std::vector<float> multipliers(values.size());
  for (size_t j = 0; j < multipliers.size(); ++j) {
    seed = seed * 1664525u + 1013904223u;
    multipliers[j] = j % 5 == 0
                         ? 1.0f
                         : std::ldexp(1.0f + float(seed >> 9) / 8388608.0f,
                                      int(seed % 12) - 6);
  }
  int wrong = 0;
  for (auto [scale, zeroPoint] : {std::pair{1.0f, 0},
                                  {0.0371f, 0},
                                  {3.0f, 0},
                                  {FLT_MIN, 0},
                                  {1.0f, -128},
                                  {1.0f, 127},
                                  {0.0371f, 37},
                                  {3.0f, -5}}) {
    for (int64_t k : {int64_t(1), int64_t(15), int64_t(17), int64_t(33),
                      int64_t(67), int64_t(values.size())}) {
      for (size_t start = 0; start + size_t(k) <= values.size();
           start += size_t(k) * 7 + 1) {
        // s8 codes (their bytes), then u8 ones: the same code plus 128.
        for (bool toUnsigned : {false, true}) {
          const int shift = toUnsigned ? 128 : 0;
          std::vector<uint8_t> q(static_cast<size_t>(k));
          tsc::rt::quantizeRow(values.data() + start, k, scale, zeroPoint,
                               toUnsigned, q.data());
          for (int64_t j = 0; j < k; ++j)
            wrong +=
                q[size_t(j)] !=
                uint8_t(reference(values[start + size_t(j)], scale, zeroPoint) +
                        shift);
          // Smoothed (format 1.21): each value times its multiplier first,
          // rounded to f32 as tsc.mul rounds it.
          tsc::rt::quantizeScaledRow(values.data() + start, multipliers.data(),
                                     k, scale, zeroPoint, toUnsigned, q.data());
          for (int64_t j = 0; j < k; ++j)
            wrong +=
                q[size_t(j)] != uint8_t(reference(values[start + size_t(j)] *
                                                      multipliers[size_t(j)],
                                                  scale, zeroPoint) +
                                        shift);
        }
      }
    }
  }
  CHECK(wrong == 0);
  // absMax over prefixes of every length up to 70, then the whole list.
  for (int64_t k = 0; k <= 70; ++k) {
    float want = 0.0f;
    for (int64_t j = 0; j < k; ++j)
      if (!std::isnan(values[size_t(j) + 500]))
        want = std::max(want, std::fabs(values[size_t(j) + 500]));
    CHECK(tsc::rt::absMax(values.data() + 500, k) == want);
  }
  CHECK(tsc::rt::absMax(values.data(), int64_t(values.size())) == inf);
  std::vector<float> nans(40, std::numeric_limits<float>::quiet_NaN());
  nans[33] = -2.5f;
  CHECK(tsc::rt::absMax(nans.data(), 40) == 2.5f);
  CHECK(tsc::rt::absMax(nans.data(), 33) == 0.0f);
  // absMaxScaled: the products rounded to f32 as tsc.mul rounds them, over
  // the same prefixes (at offsets that cross the vector blocks), then
  // prefixes of the specials (an infinity, NaNs skipped).
  for (int64_t k = 0; k <= 70; ++k)
    for (size_t start : {size_t(500), size_t(523), size_t(1000)}) {
      float want = 0.0f;
      for (int64_t j = 0; j < k; ++j) {
        float product = values[start + size_t(j)] * multipliers[size_t(j)];
        if (!std::isnan(product))
          want = std::max(want, std::fabs(product));
      }
      CHECK(tsc::rt::absMaxScaled(values.data() + start, multipliers.data(),
                                  k) == want);
    }
  std::vector<float> ones(40, 1.0f);
  CHECK(tsc::rt::absMaxScaled(nans.data(), ones.data(), 40) == 2.5f);
  ones[33] = 0.5f;
  CHECK(tsc::rt::absMaxScaled(nans.data(), ones.data(), 40) == 1.25f);
  const size_t specials = 521; // the 521 halves, then the specials
  CHECK(tsc::rt::absMaxScaled(values.data() + specials, multipliers.data(),
                              14) == inf);
}

// extendRange (the range of A, format 1.23's per-tensor quantization):
// the smallest and largest element with those already given, against
// std::min / std::max over every prefix at offsets that cross the vector
// blocks; -0 below +0 (tsc.reduce_min's order); infinities; a NaN of
// either sign reported wherever it is (the caller's scale is then NaN).
TEST(int8_extend_range) {
  std::vector<float> values;
  uint32_t seed = 777;
  for (int i = 0; i < 2000; ++i) {
    seed = seed * 1664525u + 1013904223u;
    values.push_back(
        std::ldexp(float(int32_t(seed)) / 2147483648.0f, int(seed % 40) - 20));
  }
  for (int64_t k = 0; k <= 70; ++k)
    for (size_t start : {size_t(0), size_t(13), size_t(1001)}) {
      float lo = 0.0f, hi = 0.0f, wantLo = 0.0f, wantHi = 0.0f;
      bool nan = false;
      for (int64_t j = 0; j < k; ++j) {
        wantLo = std::min(wantLo, values[start + size_t(j)]);
        wantHi = std::max(wantHi, values[start + size_t(j)]);
      }
      tsc::rt::extendRange(values.data() + start, k, lo, hi, nan);
      CHECK(lo == wantLo && hi == wantHi && !nan);
    }
  // From infinite starting values (an empty range), as given.
  const float inf = std::numeric_limits<float>::infinity();
  float lo = inf, hi = -inf;
  bool nan = false;
  tsc::rt::extendRange(values.data(), 0, lo, hi, nan);
  CHECK(lo == inf && hi == -inf && !nan);
  std::vector<float> zeros = {0.0f, -0.0f, 0.0f};
  lo = inf;
  hi = -inf;
  tsc::rt::extendRange(zeros.data(), 3, lo, hi, nan);
  CHECK(lo == 0.0f && std::signbit(lo) && hi == 0.0f && !std::signbit(hi));
  std::vector<float> specials(40, 1.5f);
  specials[3] = -inf;
  specials[37] = inf;
  lo = 0.0f;
  hi = 0.0f;
  tsc::rt::extendRange(specials.data(), 40, lo, hi, nan);
  CHECK(lo == -inf && hi == inf && !nan);
  for (size_t at : {size_t(0), size_t(17), size_t(39)}) {
    std::vector<float> withNan(40, -2.0f);
    withNan[at] = std::numeric_limits<float>::quiet_NaN();
    lo = 0.0f;
    hi = 0.0f;
    nan = false;
    tsc::rt::extendRange(withNan.data(), 40, lo, hi, nan);
    CHECK(nan);
    // A NaN's sign bit set too.
    withNan[at] = -std::numeric_limits<float>::quiet_NaN();
    nan = false;
    tsc::rt::extendRange(withNan.data(), 40, lo, hi, nan);
    CHECK(nan);
  }
}

} // namespace
