//===- plan.h - the execution plan: signature, values and steps -----------===//
//
// The PLAN section decoded (parsePlan) and cross-checked (checkPlan) at load
// time, so that a run only evaluates expressions and checks sizes.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_PLAN_H
#define TSC_RUNTIME_PLAN_H

#include "artifact.h"
#include "expr.h"
#include "half.h"

#include <string>
#include <vector>

namespace tsc::rt {

using tscm::kNone;
using tscm::Storage;

struct Value {
  uint8_t dtype = 0;
  Storage storage = Storage::Arena;
  std::vector<uint32_t> dims; // expression indices
  uint32_t ref = 0;           // input or output index, or the view's base value
  uint64_t offset = 0;        // into WGHT or the arena
  uint64_t byteSize = 0;      // weights only
  uint32_t root = 0; // set by checkPlan: the non-view value owning the bytes
};

struct Port {
  std::string name;
  uint32_t value = 0;
};

using tscm::GemmActivation;
using tscm::kLastGemmActivation;

struct GemmStep {
  uint32_t a = 0, b = 0, c = 0, bias = kNone;
  // Format 1.1, step kind 4: C = alpha·op(A)·op(B) + beta·R (+ bias), R in
  // C's layout, possibly C itself.
  uint32_t residual = kNone;
  bool transA = false, transB = false;
  /// Format 1.2, flags bit 0: the inputs may be rounded to TF32 (CUDA).
  bool tf32 = false;
  /// Format 1.14, flags bit 1: B is a weight stored 2:4-compressed
  /// (sparse24Bytes); the GEMM runs on sparse tensor cores (CUDA only).
  bool sparse24 = false;
  /// Format 1.16, flags bit 2: A and B (f32) are rounded to bf16 and the
  /// product accumulates in f32 (host plans only, f32 operands).
  bool bf16Inputs = false;
  /// Format 1.8, flags bits 8-15: a GemmActivation, as read (checkPlan
  /// refuses one it does not know).
  uint8_t activation = 0;
  // Expression indices.
  uint32_t batch = 0, m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  uint32_t strideA = 0, strideB = 0, strideC = 0;
  float alpha = 1, beta = 0;
  /// Format 1.10, step kind 6: an int8 GEMM. A (f32) is quantized per row
  /// at run time, B is s8 with this f32 scale per output channel (kNone: a
  /// float GEMM); C = dequantized A·B, then bias, activation and residual.
  uint32_t weightScale = kNone;
  /// Format 1.12, step kind 7: A's scale, one for the whole tensor, fixed
  /// at compile time by calibration (0: per row at run time, kind 6).
  float inputScale = 0;
  /// Format 1.17, flags bit 3 (kind 7 only): A's zero point, in
  /// [-128, 127]: A quantizes to saturate(round(a / inputScale) + zero
  /// point) and C is the product of (q - zero point) by B.
  int32_t inputZeroPoint = 0;
  /// Format 1.15, step kind 8: a weight-only GEMM. A and C are f32, B an
  /// i8 or (packed) i4 weight, `weightScale` its f32 scales: per output
  /// channel (groupSize 0, n of them) or per group of `groupSize`
  /// consecutive elements along K (B's layout with K replaced by
  /// ceil(k / groupSize)). B is dequantized once per session.
  bool weightOnly = false;
  uint32_t groupSize = 0;
  /// Format 1.18, flags bit 4 (kind 8 only): B's zero points (kNone:
  /// none), a weight of B's dtype laid out as the scales, one per scale:
  /// B = (Bq - zero point)·scale.
  uint32_t weightZeroPoint = kNone;
  /// Format 1.21, flags bit 5 (kind 7 only): A's multipliers (kNone:
  /// none), an f32 weight of k values m: A quantizes to saturate(round((a ·
  /// m) / inputScale) + zero point), a smoothed activation.
  uint32_t inputMultiplier = kNone;
  /// Format 1.23, flags bit 6 (kind 6 only): A is quantized per tensor by
  /// its range, as ONNX's DynamicQuantizeLinear does (u8 codes, scale
  /// (max(a, 0) - min(a, 0)) / 255, zero point round(-min(a, 0) / scale)),
  /// not per row; C is the product of (q - zero point) by B.
  bool inputRange = false;
};

/// Bytes of a 2:4-compressed weight (format 1.14) of n output channels
/// and k along K: the kept values, n·k/2 elements, then a 4-bit code of
/// their indices per group of 4, n·k/8 bytes.
inline uint64_t sparse24Bytes(uint64_t n, uint64_t k, uint64_t elementBytes) {
  return n * (k / 2) * elementBytes + n * (k / 8);
}

/// Format 1.2, step kind 5: one kernel launch of the CUDA section's module.
struct LaunchStep {
  using ArgKind = tscm::LaunchArgKind;
  struct Arg {
    ArgKind kind = ArgKind::Pointer;
    uint32_t index = 0; // value (Pointer) or expression (Int64)
  };
  uint32_t module = 0;
  uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0}; // expressions
  std::vector<Arg> args;
  /// The kernel step and its source nodes, for messages.
  std::string source;
};

/// A step's kind as decoded: format kind 4 (a GEMM with a residual) is a
/// Gemm with `residual` set.
enum class StepKind : uint8_t {
  Kernel = uint8_t(tscm::StepKind::Kernel),
  Gemm = uint8_t(tscm::StepKind::Gemm),
  Copy = uint8_t(tscm::StepKind::Copy),
  Launch = uint8_t(tscm::StepKind::Launch),
};

/// Format 1.9: what a kernel or a GEMM expects one of its buffers to be, as
/// the compiler derived it from the code's own types. checkPlan holds the
/// value the step passes to it.
struct BufferExpectation {
  uint8_t dtype = 0;
  bool written = false;
  std::vector<Expr> dims; // code borrowed from the PLAN section
};

struct Step {
  StepKind kind = StepKind::Copy;
  std::string function;                 // kernel
  std::vector<uint32_t> buffers;        // kernel
  /// Format 1.9: per buffer of a kernel; per operand of a GEMM (A, B, C,
  /// then bias and residual when it has them); (1.11) per pointer argument
  /// of a launch. Empty in older versions.
  std::vector<BufferExpectation> expected;
  GemmStep gemm;                        // gemm
  LaunchStep launch;                    // launch
  uint32_t source = 0, destination = 0; // copy
};

struct Plan {
  std::string target;
  /// The artifact's minor format version.
  uint16_t minor = 0;
  uint64_t isa = 0;
  std::vector<Symbol> symbols;
  std::vector<Expr> exprs;
  std::vector<Value> values;
  uint64_t arenaSize = 0;
  std::vector<Port> inputs, outputs;
  std::vector<Step> steps;
  /// Format 1.6: the defined symbols, in the order the run evaluates them.
  std::vector<uint32_t> definitionOrder;
  /// Format 1.8: per step, whether symbols are defined after it (from the
  /// values it computes); whether any step has some.
  std::vector<bool> definesAfter;
  bool hasLateDefinitions = false;
};

/// Whether symbols may be read from elements of `dtype` (format 1.6):
/// integers, and floats (truncated toward zero, as ONNX reads OneHot's depth).
inline bool isIntegerDtype(uint8_t dtype) {
  switch (dtype) {
  case TSC_DTYPE_I8:
  case TSC_DTYPE_U8:
  case TSC_DTYPE_I16:
  case TSC_DTYPE_U16:
  case TSC_DTYPE_I32:
  case TSC_DTYPE_U32:
  case TSC_DTYPE_I64:
  case TSC_DTYPE_U64:
  case TSC_DTYPE_F32:
  case TSC_DTYPE_F64:
  case TSC_DTYPE_F16:
  case TSC_DTYPE_BF16:
    return true;
  default:
    return false;
  }
}

/// Element `i` of host data of `dtype` as an i64 (floats truncated toward
/// zero); false when it does not fit (a u64 above INT64_MAX, a NaN, an
/// infinity or a float out of range).
inline bool loadIntegerElement(uint8_t dtype, const void *data, size_t i,
                               int64_t &out) {
  double f = 0;
  switch (dtype) {
  case TSC_DTYPE_I8:
    out = static_cast<const int8_t *>(data)[i];
    return true;
  case TSC_DTYPE_U8:
    out = static_cast<const uint8_t *>(data)[i];
    return true;
  case TSC_DTYPE_I16:
    out = static_cast<const int16_t *>(data)[i];
    return true;
  case TSC_DTYPE_U16:
    out = static_cast<const uint16_t *>(data)[i];
    return true;
  case TSC_DTYPE_I32:
    out = static_cast<const int32_t *>(data)[i];
    return true;
  case TSC_DTYPE_U32:
    out = static_cast<const uint32_t *>(data)[i];
    return true;
  case TSC_DTYPE_I64:
    out = static_cast<const int64_t *>(data)[i];
    return true;
  case TSC_DTYPE_U64: {
    uint64_t u = static_cast<const uint64_t *>(data)[i];
    out = static_cast<int64_t>(u);
    return u <= uint64_t(INT64_MAX);
  }
  case TSC_DTYPE_F32:
    f = static_cast<const float *>(data)[i];
    break;
  case TSC_DTYPE_F64:
    f = static_cast<const double *>(data)[i];
    break;
  case TSC_DTYPE_F16:
    f = halfToFloat(static_cast<const uint16_t *>(data)[i]);
    break;
  case TSC_DTYPE_BF16:
    f = bf16ToFloat(static_cast<const uint16_t *>(data)[i]);
    break;
  default:
    return false;
  }
  // NaN fails both comparisons.
  if (!(f > -9.2e18 && f < 9.2e18))
    return false;
  out = static_cast<int64_t>(f);
  return true;
}

/// Every value's address for one run: inputs and outputs from `input(i)` and
/// `output(i)`, weights and arena values at their offsets from `weights` and
/// `arena`, views at their root's (set by checkPlan). Host pointers and
/// device addresses alike.
template <typename Base, typename Address, typename Input, typename Output>
void locateValues(const Plan &plan, Base weights, Base arena, Input input,
                  Output output, std::vector<Address> &out) {
  out.resize(plan.values.size());
  for (size_t i = 0; i < plan.values.size(); ++i) {
    const Value &v = plan.values[i];
    switch (v.storage) {
    case Storage::Input:
      out[i] = input(v.ref);
      break;
    case Storage::Output:
      out[i] = output(v.ref);
      break;
    case Storage::Weight:
      out[i] = static_cast<Address>(weights + v.offset);
      break;
    case Storage::Arena:
      out[i] = static_cast<Address>(arena + v.offset);
      break;
    case Storage::View:
      break;
    }
  }
  for (size_t i = 0; i < plan.values.size(); ++i)
    if (plan.values[i].storage == Storage::View)
      out[i] = out[plan.values[i].root];
}

/// Decodes the PLAN section, reading every field within bounds and checking
/// every count against the bytes left and every expression's code. `minor` is
/// the artifact's minor version: unknown enumerators and trailing bytes are
/// corruption in a version this runtime knows, and UNIMPLEMENTED in a newer
/// one.
tsc_status_t parsePlan(const SectionView &section, const std::string &file,
                       uint16_t minor, Plan &out);

/// Checks what parsePlan cannot see alone: indices into the other tables,
/// storage-specific fields, dtypes of gemm/copy operands, (1.9) each kernel
/// buffer and GEMM operand against what the step expects, weights inside WGHT,
/// every symbol bound by an input dim, kernel steps only with HOST (target
/// "cpu"), launch steps only of one of the CUDA section's `cudaModules`
/// modules (target "cuda"). Sets the values' roots.
tsc_status_t checkPlan(Plan &plan, const std::string &file,
                       const SectionView &host, const SectionView &weights,
                       size_t cudaModules);

} // namespace tsc::rt

#endif // TSC_RUNTIME_PLAN_H
