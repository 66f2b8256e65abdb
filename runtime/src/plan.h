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

#include <string>
#include <vector>

namespace tsc::rt {

constexpr uint32_t kNone = 0xFFFFFFFFu;

enum class Storage : uint8_t {
  Input = 1,
  Output = 2,
  Weight = 3,
  Arena = 4,
  View = 5
};

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

struct GemmStep {
  uint32_t a = 0, b = 0, c = 0, bias = kNone;
  // Format 1.1, step kind 4: C = alpha·op(A)·op(B) + beta·R (+ bias), R in
  // C's layout, possibly C itself.
  uint32_t residual = kNone;
  bool transA = false, transB = false;
  // Expression indices.
  uint32_t batch = 0, m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  uint32_t strideA = 0, strideB = 0, strideC = 0;
  float alpha = 1, beta = 0;
};

enum class StepKind : uint8_t { Kernel = 1, Gemm = 2, Copy = 3 };

struct Step {
  StepKind kind = StepKind::Copy;
  std::string function;                 // kernel
  std::vector<uint32_t> buffers;        // kernel
  GemmStep gemm;                        // gemm
  uint32_t source = 0, destination = 0; // copy
};

struct Plan {
  std::string target;
  uint64_t isa = 0;
  std::vector<Symbol> symbols;
  std::vector<Expr> exprs;
  std::vector<Value> values;
  uint64_t arenaSize = 0;
  std::vector<Port> inputs, outputs;
  std::vector<Step> steps;
};

/// Decodes the PLAN section, reading every field within bounds and checking
/// every count against the bytes left and every expression's code. `minor` is
/// the artifact's minor version: unknown enumerators and trailing bytes are
/// corruption in a version this runtime knows, and UNIMPLEMENTED in a newer
/// one.
tsc_status_t parsePlan(const SectionView &section, const std::string &file,
                       uint16_t minor, Plan &out);

/// Checks what parsePlan cannot see alone: indices into the other tables,
/// storage-specific fields, dtypes of gemm/copy operands, weights inside WGHT,
/// every symbol bound by an input dim, kernel steps only with HOST. Sets the
/// values' roots.
tsc_status_t checkPlan(Plan &plan, const std::string &file,
                       const SectionView &host, const SectionView &weights);

} // namespace tsc::rt

#endif // TSC_RUNTIME_PLAN_H
