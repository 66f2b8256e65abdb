//===- npy.h - reading and writing NumPy .npy files for tsc-run -----------===//

#ifndef TSC_TOOLS_TSC_RUN_NPY_H
#define TSC_TOOLS_TSC_RUN_NPY_H

#include "half.h"
#include "tsc/runtime.hpp"

#include <string>

namespace tsc::run {

/// Reads a .npy file (format 1.0, 2.0 or 3.0; little-endian, C order; dtypes
/// <f4 <f2 <f8 |i1 |u1 <i2 <i4 <i8 |b1) into a new host tensor. Throws
/// std::runtime_error naming the file.
Tensor readNpy(const std::string &path);
/// The same from the file's bytes; `path` names them in messages.
Tensor parseNpy(const std::string &bytes, const std::string &path);

/// Writes `tensor` as a .npy file; bf16 is written as <f4 (exactly), the
/// 8-bit floats as |u1 holding their bits, and the packed sub-byte types one
/// element a byte (unpackTensor), since NumPy has none of them. Throws
/// std::runtime_error naming the file.
void writeNpy(const std::string &path, const Tensor &tensor);
/// The bytes writeNpy writes; `what` names the array in messages.
std::string npyBytes(const Tensor &tensor, const std::string &what);

/// Whether `dtype` is one of the 8-bit floats (TSC_DTYPE_F8*), which .npy
/// files hold as |u1 bits (ml_dtypes arrays viewed as uint8).
bool isFloat8(tsc_dtype_t dtype);

/// Whether `dtype` is packed several elements to a byte (TSC_DTYPE_U4, _I4,
/// _F4E2M1, _U2, _I2).
bool isPacked(tsc_dtype_t dtype);
/// A tensor of packed `dtype` from `bytes` (|i1 or |u1), one element a byte:
/// the signed integers as values (-8..7 for i4), the unsigned ones as
/// values (0..15 for u4), f4e2m1 as its bits (ml_dtypes' float4_e2m1fn
/// viewed as uint8). Throws std::runtime_error naming `what` for a value
/// the type cannot hold.
Tensor packTensor(const Tensor &bytes, tsc_dtype_t dtype,
                  const std::string &what);
/// The elements of packed `tensor` one a byte, as packTensor takes them:
/// i8 (sign-extended) for i4 and i2, u8 for the others.
Tensor unpackTensor(const Tensor &tensor);

/// The runtime's fp16/bf16 conversions (half.h: round to nearest even), for
/// bf16 inputs given as <f4 and f16 data.
using rt::bf16ToFloat;
using rt::floatToBf16;
using rt::floatToHalf;
using rt::halfToFloat;

} // namespace tsc::run

#endif // TSC_TOOLS_TSC_RUN_NPY_H
