//===- Planning.h - the planner's pieces within compiler/plan ---*- C++ -*-===//
//
// Private to compiler/plan: the planner (Plan.cpp) builds steps and values,
// then hands the finished value list to the arena (Arena.cpp) and the
// symbols bound from data to their definitions (SymbolDefinitions.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_PLAN_PLANNING_H
#define TSC_COMPILER_PLAN_PLANNING_H

#include "compiler/plan/Plan.h"

namespace mlir::tsc::plan::planner {

/// Reshapes of dense row-major data: views in the plan, and inside a fused
/// kernel plain tensor ops.
bool isViewOp(Operation *op);

/// Ops whose kernels chain into one: elementwise ops, the row-wise norms
/// and softmax, and the slicing ops of a split projection or a rotary
/// embedding. Linalg's elementwise fusion then makes a chain one pass over
/// memory (a residual add inside the layer norm that follows it, say;
/// silu(gate) · up straight from the split gate/up projection). A gather
/// reads one table element per result element: it chains too (embedding
/// lookups into their norm, T5's position bias into its attention).
/// (De)quantizations chain too: static int8's quantization of a GEMM's
/// input runs in the kernel that computes the input (a launch and a pass
/// over memory fewer), and a QDQ model's fake-quantized activations in the
/// kernels around them. Devices chained them first; on the host they
/// stayed kernels of their own until a quiet machine measured the chained
/// form faster (2026-12-07, Intel Xeon VM, ONNX Runtime's QDQ models:
/// BERT-base 55.7 -> 51.3 ms at batch 1 and 436 -> 389 at batch 8 with 2
/// threads, 100.8 -> 93.9 with one; MiniLM 13.1 -> 11.1 and 94.9 -> 87.7;
/// 252 kernels instead of 1386). An earlier run on a loaded machine had
/// measured them even.
bool isFusible(Operation *op);

/// Whether a symbol reads a result of `op` (or a reshape of one) at run
/// time: the step computing it ends there, so that the run can define the
/// symbol before any op that uses it (format 1.8), and nothing joins it or
/// moves before it.
bool isReadBySymbol(Operation *op);

/// Whether the view `op` only inserts or drops dims of size 1 (a mask
/// [b, s] as [b, 1, 1, s]): the same memory indexed alike, which a device
/// kernel computes in place.
bool onlyUnitDimsChange(Operation *op);

/// Whether `type` is a sub-byte type the artifact packs (not i1: bool takes
/// a byte).
bool isPackedType(Type type);

/// The elements of `dense` (of a packed type) as the artifact holds them:
/// 8 / bits a byte, the first in the low bits. MLIR keeps a byte each.
std::vector<char> packedBytes(DenseElementsAttr dense);

/// The bytes of a value of `dtype` with dims at `maxShape`, or nullopt when
/// they reach 2^63 (the runtime refuses such a value as corrupt).
std::optional<uint64_t> maxByteSize(ArrayRef<int64_t> maxShape, DType dtype);

/// A tsc.linear in the int8 form of tsc-quantize-dynamic-int8 or
/// tsc-quantize-static-int8: `linear(dequantize(quantize(x, s)),
/// dequantize(Wq, Ws), ...)` with s the per-row scale formula of
/// passes/transforms/DynamicInt8.h or a 0-d f32 constant (with an optional
/// constant zero point).
struct Int8Gemm {
  /// The f32 activation, the s8 weight and its f32 per-channel scale.
  Value input, weight, scale;
  /// The activation's constant scale (static int8); 0: per row, or per
  /// tensor by its range (`inputRange`).
  float inputScale = 0.0f;
  /// On the host: the activation quantized per tensor as ONNX's
  /// DynamicQuantizeLinear computes it (u8 codes, scale (max(x, 0) -
  /// min(x, 0)) / 255 and zero point round(-min(x, 0) / scale) over all of
  /// x: ONNX Runtime's quantize_dynamic, after tsc-quantize-qdq).
  bool inputRange = false;
  /// With a constant scale: the activation's zero point (a 0-d i8
  /// constant, the same on the quantize and the dequantize), else 0.
  int32_t inputZeroPoint = 0;
  /// With a constant scale on the host: the activation's multipliers (a
  /// [K] f32 constant m: the step quantizes x · m, tsc-quantize-static-int8's
  /// smoothing), or null.
  Value inputMultiplier;
  /// Weight-only (tsc-quantize-weight-only): `linear(x, dequantize(Wq, Ws))`
  /// with x f32, Wq i8 or i4, Ws per output channel (groupSize 0) or per
  /// group along K; `input` is x.
  bool weightOnly = false;
  unsigned groupSize = 0;
  /// Weight-only: Wq's zero points (a constant of Wq's type and Ws's shape:
  /// W = (Wq - zero point)·Ws), or null (symmetric codes).
  Value zeroPoint;
  /// bf16 inputs (a GEMM the int8 passes kept in bf16, QuantizeGemm.h's
  /// roundGemmToBf16): `linear(cast(cast(x, bf16), f32), W)` with x f32 and
  /// W an f32 constant whose values bf16 holds; `input` is x, `weight` W,
  /// no scale.
  bool bf16 = false;
  /// An s8 or f8 product (tsc-expand-quantized-gemms): `matmul(xq,
  /// transpose(Wq))` with xq s8 (f8E4M3FN), Wq a constant [N, K] of the same
  /// codes; `input` is xq, `weight` Wq, no scale; the result is s32 (f32).
  bool integer = false;
  /// The ops computing the quantized operands (scale, quantize,
  /// dequantize), which the int8 GEMM step does itself.
  SmallVector<Operation *> absorbed;
};

/// The linear ops of `func` in int8 form. Their absorbed ops are those
/// that feed nothing but such linear ops (or absorbed ops): one that
/// something else reads stays an op of the IR, a kernel for that reader,
/// while the GEMM step computes the same values itself. With `hostForms`,
/// the forms only the host runtime runs too: weight-only, bf16 inputs and
/// smoothed activations (`x · m` quantized by a constant scale).
DenseMap<Operation *, Int8Gemm> findInt8Gemms(func::FuncOp func,
                                              bool hostForms);

/// The s8 and f8E4M3FN products of `func` in tsc-expand-quantized-gemms'
/// form whose sizes cuBLASLt's int8 and fp8 GEMMs take (K and N multiples
/// of 4 for s8, of 16 for f8), added to `gemms`; each absorbs its transpose
/// when nothing else reads it.
void findIntegerGemms(func::FuncOp func,
                      DenseMap<Operation *, Int8Gemm> &gemms);

/// What a GEMM step multiplies and how: A, B and the epilogue's operands,
/// for a tsc.linear in its float or quantized form (`int8Gemms`, from
/// findInt8Gemms: A is then the activation the step quantizes, B the
/// stored weight) or a tsc.matmul.
struct GemmOperands {
  Value lhs, rhs, bias, residual, weightScale, weightZeroPoint, inputMultiplier;
  float inputScale = 0.0f;
  int32_t inputZeroPoint = 0;
  bool transB = false, weightOnly = false, bf16Inputs = false;
  bool inputRange = false;
  /// s8 (f8E4M3FN) A and B into an s32 (f32) result (Int8Gemm::integer).
  bool integer = false;
  unsigned groupSize = 0;
  uint8_t activation = 0; // 0 none, 1 erf GELU, 2 tanh GELU
};

/// The operands of `op` as a GEMM step, or nullopt for an op that is not a
/// linear (with a 2-D weight and a 1-D bias) or a matmul.
std::optional<GemmOperands>
gemmOperands(Operation *op, const DenseMap<Operation *, Int8Gemm> &int8Gemms);

/// Places the arena values of `plan` (each root that a step uses, live
/// from its first to its last step) at offsets, largest first, where no
/// value live at the same time overlaps; sets the arena size and the sum of
/// the intermediates.
void assignArena(Plan &plan);

/// The step that produces each computed value a symbol reads (format 1.8),
/// given the step defining each plan value.
FailureOr<DenseMap<Value, unsigned>>
findSymbolSourceSteps(const SymbolicShapes &shapes, const Plan &plan,
                      const DenseMap<unsigned, unsigned> &definingStep);

/// Encodes the definitions of the symbols bound from data and when a run
/// evaluates each: after the step computing the value it reads
/// (`sourceSteps`), or after the latest definition it uses.
LogicalResult defineDataSymbols(const SymbolicShapes &shapes, Plan &plan,
                                const DenseMap<Value, unsigned> &sourceSteps);

/// Refuses a plan that would use a symbol before the run defines it: an
/// input dim (checked before the first step) or a step ahead of the value
/// the symbol is read from. Errors on `func` or the step's first op.
LogicalResult checkSymbolsDefinedBeforeUse(func::FuncOp func,
                                           const SymbolicShapes &shapes,
                                           const Plan &plan);

} // namespace mlir::tsc::plan::planner

#endif // TSC_COMPILER_PLAN_PLANNING_H
