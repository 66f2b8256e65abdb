//===- Plan.h - the execution plan: buffers, steps and the arena -*- C++ -*-===//
//
// The plan is what the runtime executes (docs/artifact-format.md): every
// tensor of the graph becomes a value stored in an input, an output, the
// weights, the activation arena or as a view of another value; every
// operation becomes a step: a generated kernel, a GEMM library call or a
// copy. Shapes are expressions over the symbols, evaluated per run; the
// arena is planned once at the symbols' maxima.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_PLAN_PLAN_H
#define TSC_COMPILER_PLAN_PLAN_H

#include "compiler/pipeline/Precision.h"
#include "runtime/src/format.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"

#include <string>
#include <vector>

namespace mlir::tsc {
class SymbolOp;
class SymbolicShapes;
} // namespace mlir::tsc

namespace mlir::tsc::plan {

/// The artifact's element and storage codes (runtime/src/format.h).
using DType = ::tscm::DType;
using Storage = ::tscm::Storage;

/// Every weight and arena offset is a multiple of this (the artifact
/// format's; runtimes allocate WGHT, the arena and buffers at least this
/// aligned), so every plan value starts this aligned.
constexpr uint64_t kAlignment = ::tscm::kAlignment;

/// The artifact's element code for `type`; failure for types the runtime has
/// no code for.
FailureOr<DType> getDType(Type type);
/// Bits per element of `dtype`; the sub-byte types are packed, a dense
/// tensor of n elements taking ceil(n * bits / 8) bytes.
int64_t getDTypeBits(DType dtype);

struct PlanSymbol {
  std::string name;
  int64_t min, max;
  /// Format 1.6: the postfix code defining a symbol bound from data (an
  /// input's element, or a computation over earlier symbols); empty for a
  /// symbol an input dim binds.
  std::vector<uint8_t> definition;
  /// Format 1.8: the step after which a run defines the symbol, for one
  /// read from a value the graph computes (or defined from such a symbol);
  /// -1 for one defined before the first step.
  int64_t afterStep = -1;
};

struct PlanValue {
  Value value; // the graph value it stores (null for plan-made values)
  DType dtype;
  Storage storage;
  SmallVector<unsigned> dims; // expression indices
  uint64_t index = 0;         // input/output index
  uint64_t offset = 0;        // weight or arena offset
  uint64_t byteSize = 0;      // weight bytes / bytes at the symbols' maxima
  unsigned base = 0;          // view: the value it aliases
};

/// A weight's place in WGHT and where its bytes come from: its constant's
/// value, read when the artifact is written (the plan copies no weight
/// data, so a model's weights are not held twice).
struct PlanWeight {
  ElementsAttr value; // DenseElementsAttr or DenseResourceElementsAttr
  uint64_t offset = 0;
  uint64_t byteSize = 0;
};

/// Calls `write` with the bytes of `weight` in order: a blob's data as it is,
/// a literal's in pieces (splats and i1 elements, one byte each, expanded).
void forEachWeightPiece(const PlanWeight &weight,
                        function_ref<void(ArrayRef<char>)> write);

struct PlanStep {
  enum class Kind : uint8_t { Kernel = 1, Gemm = 2, Copy = 3 };
  Kind kind;
  /// Kernel: function name and the graph ops it runs (in order).
  std::string name;
  SmallVector<Operation *> ops;
  /// Kernel: the buffers passed, inputs first, then results.
  SmallVector<unsigned> buffers;
  /// Gemm: operands and shape; see docs/artifact-format.md. A residual
  /// (~0u: none) has C's layout and may be C itself (accumulated in place).
  unsigned a = 0, b = 0, c = 0, bias = ~0u, residual = ~0u;
  bool transA = false, transB = false;
  unsigned batch = 0, m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0,
           strideA = 0, strideB = 0, strideC = 0;
  float alpha = 1.0f, beta = 0.0f;
  /// Gemm: the activation applied before beta·R, as the artifact codes it
  /// (format 1.8: 0 none, 1 GELU through erf, 2 GELU by tanh).
  uint8_t activation = 0;
  /// Gemm: set (~0u: float GEMM) for an int8 GEMM (format 1.10): A is f32,
  /// quantized per row at run time; B is s8; this is B's f32 scale per
  /// output channel; C = dequantized product, then bias, activation and
  /// residual. See docs/quantization.md.
  unsigned weightScale = ~0u;
  /// Gemm, int8 (format 1.12): A's scale for the whole tensor, a constant
  /// from calibration (--quantize=static-int8); 0: per row at run time.
  float inputScale = 0.0f;
  /// Gemm, int8 with a constant scale (format 1.17): A's zero point, in
  /// [-128, 127]; the step quantizes A to saturate(round(a / inputScale) +
  /// zero point) and multiplies (q - zero point) by B.
  int32_t inputZeroPoint = 0;
  /// Gemm, int8 with a constant scale (format 1.21): A's multipliers (~0u:
  /// none), an f32 constant of K values m: the step quantizes a · m (a
  /// smoothed activation, docs/quantization.md "Smoothing").
  unsigned inputMultiplier = ~0u;
  /// Gemm, int8 quantized at run time (format 1.23): A per tensor as ONNX's
  /// DynamicQuantizeLinear does, u8 codes with scale (max(a, 0) - min(a,
  /// 0)) / 255 and zero point round(-min(a, 0) / scale) over all of A,
  /// rather than per row.
  bool inputRange = false;
  /// Gemm, weight-only (format 1.15): A is f32 and stays so; B is an i8 or
  /// i4 constant, `weightScale` its f32 scales per output channel
  /// (groupSize 0) or per group of groupSize along K.
  bool weightOnly = false;
  unsigned groupSize = 0;
  /// Gemm, weight-only (format 1.18): B's zero points (~0u: none), a
  /// constant of B's type with one per scale: B = (Bq - zero point)·scale.
  unsigned weightZeroPoint = ~0u;
  /// Gemm (format 1.16, host only): A and B are f32 and rounded to bf16 by
  /// the step (B's values are bf16 already), which multiplies in bf16 and
  /// accumulates in f32: a GEMM the int8 passes kept in bf16.
  bool bf16Inputs = false;
  /// Copy: source and destination.
  unsigned source = 0, destination = 0;
};

struct Plan {
  std::vector<PlanSymbol> symbols;
  std::vector<AffineExpr> exprs;
  std::vector<PlanValue> values;
  std::vector<std::pair<std::string, unsigned>> inputs, outputs;
  std::vector<PlanStep> steps;
  uint64_t arenaSize = 0;
  /// --precision=tf32: GEMMs may round their inputs to TF32 (CUDA's
  /// cuBLASLt fast-TF32 compute; the CPU has none and computes fp32).
  bool gemmTf32 = false;
  /// --precision (for the report; the graph's types say what is stored how).
  Precision precision = Precision::FP32;
  /// --precision-io=storage: the float inputs and outputs are half too.
  bool halfIO = false;
  /// Sum of the arena values' sizes at the maxima: what the arena would be
  /// without reuse.
  uint64_t intermediateBytes = 0;
  /// The weights in offset order, each at a multiple of kAlignment, and the
  /// size of WGHT.
  std::vector<PlanWeight> weights;
  uint64_t weightBytes = 0;

  /// The value index of graph value `v`, if it has one.
  std::optional<unsigned> lookup(Value v) const;
  /// The index of `expr` in `exprs`, appended when it is new.
  unsigned addExpr(AffineExpr expr);
  /// The value whose storage `v` uses: `v` itself unless it is a view.
  unsigned root(unsigned v) const {
    while (values[v].storage == Storage::View)
      v = values[v].base;
    return v;
  }
  DenseMap<Value, unsigned> valueIndex;
  DenseMap<AffineExpr, unsigned> exprIndex;
};

struct PlanOptions {
  /// Send matmul/linear to the GEMM library where its layout fits.
  bool useGemmLibrary = true;
  /// With the library, the GEMM forms only the host runtime runs: a linear
  /// by a dequantized i8/i4 constant (weight-only quantization) as one
  /// weight-only GEMM step (format 1.15), which dequantizes the weight once
  /// per session, and a linear of operands rounded to bf16 as one GEMM with
  /// bf16 inputs (1.16).
  bool hostGemmForms = false;
  /// With the library, s8 · s8 -> s32 and f8 · f8 -> f32 products by a
  /// transposed constant (tsc-expand-quantized-gemms' form) as GEMM steps:
  /// cuBLASLt's int8 and fp8 GEMMs (CUDA targets). Elsewhere such a product
  /// is a kernel.
  bool integerGemms = false;
  /// Kernels for a device (CUDA, or the host's replica of its loops): no
  /// kernel reshapes a value it computes itself.
  bool deviceKernels = false;
  /// Chain elementwise ops, norms and softmax into one kernel where the
  /// intermediate has no other use.
  bool fuseKernels = true;
  /// The precision the graph was compiled in: for the report, and tf32 lets
  /// the GEMM steps round their inputs to TF32.
  Precision precision = Precision::FP32;
  /// --precision-io=storage: the graph's float inputs and outputs are half
  /// too (for the report).
  bool halfIO = false;
};

/// What code generation adds to a plan that it reads but does not change:
/// expressions (a launch's geometry and i64 arguments) and arena values for
/// kernel scratch, placed past the planned arena. Indices continue the
/// plan's (the first added expression is number `plan.exprs.size()`), so
/// code generated against the plan names them as the plan will once
/// extendPlan has folded them in.
struct PlanAdditions {
  /// The sizes of the plan's expression and value lists when the additions
  /// were made; extendPlan checks that they still hold.
  size_t baseExprs = 0, baseValues = 0;
  std::vector<AffineExpr> exprs;
  std::vector<PlanValue> values;
  /// Bytes the arena grows by for the added values.
  uint64_t scratchBytes = 0;
};

/// A plan read through its additions: lookups see both, additions go to
/// the PlanAdditions only. Lives while code is generated against the plan.
class PlanExtender {
public:
  PlanExtender(const Plan &plan, PlanAdditions &additions);
  const Plan &getPlan() const { return plan; }
  /// The index of `expr` among the plan's and the added expressions,
  /// added when new.
  unsigned addExpr(AffineExpr expr);
  /// Expression `index`, the plan's or an added one.
  AffineExpr getExpr(unsigned index) const;
  /// Adds an arena value of kernel scratch: `bytes` bytes (at most
  /// `maxBytes` over the symbols' ranges) at `offset` past the planned
  /// arena. Returns its value index.
  unsigned addScratch(AffineExpr bytes, uint64_t offset, uint64_t maxBytes);
  /// Makes the arena grow by at least `bytes` for scratch.
  void reserveScratch(uint64_t bytes);
  /// The value whose storage `v` uses (an added value is its own).
  unsigned root(unsigned v) const;

private:
  const Plan &plan;
  PlanAdditions &additions;
  DenseMap<AffineExpr, unsigned> addedExprIndex;
};

/// Folds what code generation added into `plan`: after buildPlan, the only
/// change a plan sees.
void extendPlan(Plan &plan, PlanAdditions additions);

/// Appends the postfix code of `expr` (docs/artifact-format.md).
LogicalResult encodeAffineExpr(AffineExpr expr, std::vector<uint8_t> &code);
/// Appends the code defining `symbol`, one bound from data; errors at the op
/// whose value the code cannot compute. An element of a computed value is
/// read from its buffer in `plan` (format 1.8), an element of a constant is
/// the constant.
LogicalResult encodeSymbolDefinition(SymbolOp symbol,
                                     const SymbolicShapes &shapes,
                                     const Plan &plan,
                                     std::vector<uint8_t> &code);
/// The positions of the symbols that definition code reads.
SmallVector<unsigned> getUsedSymbols(ArrayRef<uint8_t> code);
/// Plans `func` (after the fuse phase). Errors are emitted on the op at fault.
FailureOr<Plan> buildPlan(func::FuncOp func, const PlanOptions &options);

/// Estimated bytes of memory a step moves at the symbols' maxima: each
/// buffer it reads or writes counted once (a GEMM's C twice when it
/// accumulates onto it); what a kernel keeps in registers or cache is free.
uint64_t estimateTraffic(const Plan &plan, const PlanStep &step);

/// The model layer a step belongs to, from its ops' source names: the node
/// path up to the first component numbered like `layers.3` or `h.3`
/// ("/encoder/layer.3"), else the module scope up to its first number
/// ("model.layers.3", which the dynamo exporter records per node); empty
/// for the embedding, the head and anything unnamed.
std::string getLayer(const PlanStep &step);

/// The source nodes of a step's ops, comma-separated, for messages
/// ("/encoder/layer.0/Add, /encoder/layer.0/LayerNorm"); at most `limit`
/// names, then ", ...".
std::string getSourceNodes(const PlanStep &step, unsigned limit = 4);

/// Prints what `tsc --report` shows: kernels and library calls in all and
/// per layer, estimated memory traffic, arena against the sum of the
/// intermediates, weights, then every step. With `unfused` (the same model
/// planned without the fuse phase) the totals are compared side by side.
void printReport(const Plan &plan, const Plan *unfused, llvm::raw_ostream &os);

} // namespace mlir::tsc::plan

#endif // TSC_COMPILER_PLAN_PLAN_H
