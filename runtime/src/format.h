//===- format.h - the .tscm format's numbers, for writer and reader -------===//
//
// The numbers docs/artifact-format.md defines, in one place: the compiler's
// writer (compiler/artifact) and the runtime's reader (artifact.cpp, plan.cpp,
// plan_check.cpp) both include this header, so a code cannot mean one thing
// to one and another to the other. Plain C++17, no MLIR or LLVM; the checksum
// is crc32c.h's, which the compiler compiles in as well.
//
// The namespace is `tscm` (the file extension), not `tsc::...`: compiler
// files that say `using namespace mlir` would otherwise see two `tsc`s.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_FORMAT_H
#define TSC_RUNTIME_FORMAT_H

#include <cstddef>
#include <cstdint>

namespace tscm {

// --- Header and section table ------------------------------------------------

/// `\x89TSCM\r\n\x1a`: catches text-mode transfers.
constexpr uint8_t kMagic[8] = {0x89, 'T', 'S', 'C', 'M', '\r', '\n', 0x1A};
/// The major version written and read; readers reject any other.
constexpr uint16_t kMajor = 1;
/// The newest minor version: the writer writes the oldest minor that has
/// everything a file uses, the reader knows every field up to this one.
constexpr uint16_t kMinor = 23;
constexpr size_t kHeaderSize = 64;
constexpr size_t kSectionEntrySize = 32;
/// Sections, weights and arena values start at multiples of this.
constexpr uint64_t kAlignment = 64;
/// Producer field bytes in the header (NUL-padded).
constexpr size_t kProducerSize = 24;

/// Section ids (4 bytes, no NUL in the file).
constexpr char kSectionPlan[4] = {'P', 'L', 'A', 'N'};
constexpr char kSectionHost[4] = {'H', 'O', 'S', 'T'};
constexpr char kSectionWeights[4] = {'W', 'G', 'H', 'T'};
constexpr char kSectionCuda[4] = {'C', 'U', 'D', 'A'};
/// Format 1.13: per step, its layer and source nodes (for profiles).
constexpr char kSectionSteps[4] = {'S', 'T', 'E', 'P'};

// --- PLAN --------------------------------------------------------------------

/// An absent index (a GEMM without bias or residual, a definition evaluated
/// before the first step).
constexpr uint32_t kNone = 0xFFFFFFFFu;

/// Value element types; the runtime's public TSC_DTYPE_* have the same codes
/// (status.cpp checks it).
enum class DType : uint8_t {
  F32 = 1,
  F16 = 2,
  BF16 = 3,
  F64 = 4,
  I8 = 5,
  U8 = 6,
  I16 = 7,
  I32 = 8,
  I64 = 9,
  Bool = 10, // one byte, 0 or 1
  U16 = 11,  // 1.4
  U32 = 12,
  U64 = 13,
  F8E4M3FN = 14, // 1.5
  F8E4M3FNUZ = 15,
  F8E5M2 = 16,
  F8E5M2FNUZ = 17,
  F8E8M0 = 18,
  U4 = 19, // 1.7, packed: the first element in the low bits
  I4 = 20,
  F4E2M1 = 21,
  U2 = 22,
  I2 = 23,
};

/// Bits per element of dtype code `dtype`; 0 for a code the format does not
/// define.
constexpr unsigned dtypeBits(uint32_t dtype) {
  switch (DType(dtype)) {
  case DType::F64:
  case DType::I64:
  case DType::U64:
    return 64;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 32;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 16;
  case DType::I8:
  case DType::U8:
  case DType::Bool:
  case DType::F8E4M3FN:
  case DType::F8E4M3FNUZ:
  case DType::F8E5M2:
  case DType::F8E5M2FNUZ:
  case DType::F8E8M0:
    return 8;
  case DType::U4:
  case DType::I4:
  case DType::F4E2M1:
    return 4;
  case DType::U2:
  case DType::I2:
    return 2;
  }
  return 0;
}

enum class Storage : uint8_t {
  Input = 1,
  Output = 2,
  Weight = 3,
  Arena = 4,
  View = 5
};

enum class StepKind : uint8_t {
  Kernel = 1,
  Gemm = 2,
  Copy = 3,
  GemmResidual = 4,   // 1.1: kind 2's fields, then the residual
  Launch = 5,         // 1.2, "cuda" plans only
  GemmInt8 = 6,       // 1.10: kind 4's fields, then B's per-channel scale
  GemmInt8Static = 7, // 1.12: kind 6's fields, then A's constant scale
  GemmWeightOnly = 8, // 1.15: kind 4's fields, then B's scale and group size
};

/// A launch argument (1.2): a plan value's device address or an expression.
enum class LaunchArgKind : uint8_t { Pointer = 1, Int64 = 2 };

/// GEMM flags (1.2): bit 0, the inputs may be rounded to TF32; bit 1 (1.14),
/// a 2:4 sparse weight; bits 8-15
/// (1.8), the activation; the rest 0.
constexpr uint16_t kGemmTf32 = 1;
/// Bit 1 (1.14): B is a weight stored 2:4-compressed (docs/artifact-format.md
/// "2:4 compressed weights"); the GEMM runs on sparse tensor cores (CUDA).
constexpr uint16_t kGemmSparse24 = 2;
/// Bit 2 (1.16, "cpu" plans only): A and B (f32) are rounded to bf16 (to
/// nearest even) and multiplied accumulating in f32: a GEMM the int8 passes
/// kept in bf16 (docs/quantization.md).
constexpr uint16_t kGemmBf16Inputs = 4;
/// Bit 3 (1.17, kind 7 only): A is quantized with a zero point, an i32 in
/// [-128, 127] after A's scale: q = saturate(round(a / scale) + zero_point),
/// and the product is of (q - zero_point) by B (docs/artifact-format.md).
constexpr uint16_t kGemmInputZeroPoint = 8;
/// Bit 4 (1.18, kind 8 only): B has zero points, a weight of B's type with
/// one per scale, whose value index follows the group size: B = (Bq - zero
/// point)·scale (docs/artifact-format.md).
constexpr uint16_t kGemmWeightZeroPoint = 16;
/// Bit 5 (1.21, kind 7 only): A has multipliers, an f32 weight of K values
/// m whose value index follows the zero point (or the scale): the step
/// quantizes a · m, q = saturate(round((a · m) / scale) + zero_point)
/// (docs/artifact-format.md).
constexpr uint16_t kGemmInputMultiplier = 32;
/// Bit 6 (1.23, kind 6 only): A is quantized per tensor rather than per
/// row, as ONNX's DynamicQuantizeLinear does: lo = min(min(a), 0), hi =
/// max(max(a), 0) over all of A, scale = (hi - lo) / 255, zero point z =
/// saturate_u8(round(-lo / scale)), q = saturate_u8(round(a / scale) + z),
/// and the product is of (q - z) by B (docs/artifact-format.md).
constexpr uint16_t kGemmInputRange = 64;
constexpr unsigned kGemmActivationShift = 8;
/// What a GEMM applies to alpha·op(A)·op(B) + bias before it adds beta·R.
enum class GemmActivation : uint8_t { None = 0, Gelu = 1, GeluTanh = 2 };
constexpr uint8_t kLastGemmActivation = uint8_t(GemmActivation::GeluTanh);

/// Buffer expectations (1.9; of CUDA launches' pointer arguments 1.11),
/// access byte: bit 0, the step writes the buffer; the other bits are 0.
constexpr uint8_t kBufferWritten = 1;

/// Expression opcodes: postfix code on an i64 stack.
namespace expr_code {
enum : uint8_t {
  kConst = 0x01,        // i64 immediate
  kSymbol = 0x02,       // u32 symbol
  kElement = 0x03,      // 1.6, definitions only: u32 input, u32 element
  kValueElement = 0x04, // 1.8, definitions only: u32 value, u32 element
  kAdd = 0x10,
  kMul = 0x11,
  kFloorDiv = 0x12,
  kCeilDiv = 0x13,
  kMod = 0x14,
  kMin = 0x15, // 1.6, as are the rest
  kMax = 0x16,
  kEq = 0x17,
  kLt = 0x18,
  kSelect = 0x19, // pop f, t, c; push c != 0 ? t : f
};
/// Bytes of immediate after opcode `op`.
constexpr size_t immediateSize(uint8_t op) {
  return op == kConst                            ? 8
         : op == kSymbol                         ? 4
         : op == kElement || op == kValueElement ? 8
                                                 : 0;
}
} // namespace expr_code

// --- Detached signatures (docs/artifact-format.md "Signatures")
// ---------------

/// An Ed25519 signature (64 bytes), kept in the file `ARTIFACT.sig`, of the
/// message kSignatureContext (with its NUL) followed by the SHA-512 of the
/// artifact's bytes.
constexpr char kSignatureContext[] = "tscm signature v1";
constexpr size_t kSignatureSize = 64;
constexpr size_t kPublicKeySize = 32;
constexpr size_t kSha512Size = 64;

} // namespace tscm

#endif // TSC_RUNTIME_FORMAT_H
