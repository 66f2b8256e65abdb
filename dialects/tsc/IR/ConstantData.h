//===- ConstantData.h - the bytes of tsc constants --------------*- C++ -*-===//
//
// Reading and making the data of constants (dense literals and the 64-byte
// aligned blobs weights live in), for folders and for converters that
// compute weights at compile time.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_DIALECTS_TSC_IR_CONSTANTDATA_H
#define TSC_DIALECTS_TSC_IR_CONSTANTDATA_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::tsc {

/// Largest constant the dialect's folders evaluate element by element (and
/// the bound of the quantize passes' foldings of small constants).
inline constexpr int64_t kMaxFoldedElements = int64_t(1) << 16;

/// The value of `value` when it is a 0-d constant of a signless or signed
/// 8-bit integer type (an int8 zero point), else nullopt.
std::optional<int32_t> getInt8Scalar(Value value);

/// The bytes of a constant (dense literal or blob) in row-major order, one
/// element per `bitwidth / 8` bytes, splats expanded; nullopt for elements
/// that are not whole bytes (i1, i4), dynamic shapes, or blobs without data.
std::optional<std::vector<char>> getConstantBytes(Attribute attr);

/// A constant of `type` holding `bytes`: a dense literal when small, else a
/// 64-byte aligned blob named after `name` (weights made at compile time).
Attribute getConstantFromBytes(RankedTensorType type, ArrayRef<char> bytes,
                               StringRef name);

/// getConstantFromBytes of `values`, whose bytes are the elements of `type`
/// (f32 scales, i32 terms, i8 codes made at compile time).
template <typename T>
Attribute getConstantFromValues(RankedTensorType type, ArrayRef<T> values,
                                StringRef name) {
  return getConstantFromBytes(
      type,
      ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(T)),
      name);
}

/// The bf16 bits of the f32 with bits `f32Bits`, rounded to nearest even
/// (bf16 has f32's exponent range, so that is the whole conversion); with
/// `saturate`, a finite value that rounds to infinity gives the largest
/// finite bf16 of its sign. Nullopt for a NaN (its payload is the caller's
/// choice).
std::optional<uint16_t> roundF32BitsToBf16(uint32_t f32Bits, bool saturate);

/// The f8E4M3FN code of `value` rounded to nearest even, saturating as
/// tsc.cast's `saturate` does: magnitudes past 448 (infinities included)
/// give ±448; a NaN gives 0x7F.
uint8_t roundToF8E4M3FN(float value);

} // namespace mlir::tsc

#endif // TSC_DIALECTS_TSC_IR_CONSTANTDATA_H
