//===- quantize_rows.h - f32 rows to int8 for the GEMM steps -*- C++ -*-===//
//
// An int8 GEMM step (format 1.10) quantizes its activation on every run,
// a pass over all of it before the GEMM, so these loops are vectorized
// where the CPU allows (quantize_rows.cpp): the baseline x86-64 has no
// rounding instruction (std::nearbyint is a libm call per element) and
// leaves a float max-reduction scalar.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_QUANTIZE_ROWS_H
#define TSC_RUNTIME_QUANTIZE_ROWS_H

#include <cstdint>

namespace tsc::rt {

/// The largest |x| of the k floats at `row`, NaNs skipped (0 for none).
float absMax(const float *row, int64_t k);

/// absMax of the products row[j] · m[j] (f32): the row scale of a smoothed
/// activation quantized per row (tsc.mul, then tsc.abs and tsc.reduce_max).
float absMaxScaled(const float *row, const float *m, int64_t k);

/// The smallest and the largest of the k floats at `row` and those already
/// in `lo` and `hi`, NaNs skipped; `nan` set when there was one.
void extendRange(const float *row, int64_t k, float &lo, float &hi, bool &nan);

/// q[j] = clamp(round_half_even(row[j] / scale) + zeroPoint, -128, 127)
/// for j < k (zeroPoint in [-128, 127]), a NaN quotient to -128:
/// tsc.quantize's arithmetic, bit for bit. With `toUnsigned` each byte is
/// the u8 code q[j] + 128 instead (the same value with zero point
/// zeroPoint + 128), the form VNNI's u8-by-s8 products read.
void quantizeRow(const float *row, int64_t k, float scale, int32_t zeroPoint,
                 bool toUnsigned, uint8_t *q);

/// quantizeRow of the products row[j] · m[j] (f32), the smoothed
/// activation of format 1.21: tsc.mul then tsc.quantize, bit for bit.
void quantizeScaledRow(const float *row, const float *m, int64_t k, float scale,
                       int32_t zeroPoint, bool toUnsigned, uint8_t *q);

} // namespace tsc::rt

#endif // TSC_RUNTIME_QUANTIZE_ROWS_H
