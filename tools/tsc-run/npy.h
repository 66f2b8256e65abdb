//===- npy.h - reading and writing NumPy .npy files for tsc-run -----------===//

#ifndef TSC_TOOLS_TSC_RUN_NPY_H
#define TSC_TOOLS_TSC_RUN_NPY_H

#include "tsc/runtime.hpp"

#include <string>

namespace tsc::run {

/// Reads a .npy file (format 1.0, 2.0 or 3.0; little-endian, C order; dtypes
/// <f4 <f2 <f8 |i1 |u1 <i2 <i4 <i8 |b1) into a new host tensor. Throws
/// std::runtime_error naming the file.
Tensor readNpy(const std::string &path);

/// Writes `tensor` as a .npy file; bf16 is written as <f4 (exactly), and the
/// 8-bit floats as |u1 holding their bits, since NumPy has neither. Throws
/// std::runtime_error naming the file.
void writeNpy(const std::string &path, const Tensor &tensor);

/// Whether `dtype` is one of the 8-bit floats (TSC_DTYPE_F8*), which .npy
/// files hold as |u1 bits (ml_dtypes arrays viewed as uint8).
bool isFloat8(tsc_dtype_t dtype);

/// bf16 <-> f32 conversions (round to nearest even), used for bf16 inputs given
/// as <f4.
uint16_t floatToBf16(float value);
float bf16ToFloat(uint16_t bits);
/// f32 -> IEEE half, round to nearest even.
uint16_t floatToHalf(float value);

} // namespace tsc::run

#endif // TSC_TOOLS_TSC_RUN_NPY_H
