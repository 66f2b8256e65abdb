//===- QuantizeGemm.h - GEMMs by constant weights in int8 form --*- C++ -*-===//
//
// What the int8 quantize passes share (docs/quantization.md): which GEMMs
// they may quantize, the weight's s8 form per output channel, and the
// tsc.linear on dequantized operands that replaces the GEMM. Each pass adds
// its own activation scale: per row at run time (dynamic), a calibrated
// constant (static).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_TRANSFORMS_QUANTIZEGEMM_H
#define TSC_PASSES_TRANSFORMS_QUANTIZEGEMM_H

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/Builders.h"

#include <optional>
#include <string>

namespace mlir::tsc {

class KeepFloat;

/// A GEMM a quantize pass may quantize: x · W (W [K, N], `kn`) or x · Wᵀ
/// (W [N, K]).
struct QuantizableGemm {
  Operation *op;
  Value input;
  ConstantOp weight;
  bool kn;
};

/// The GEMM `op` (a tsc.linear or tsc.matmul) is when its weight is a
/// constant 2-D f32 matrix and K >= `minK`; failure otherwise, with `why`
/// set when `op` is a GEMM kept float.
FailureOr<QuantizableGemm> matchQuantizableGemm(Operation *op, int64_t minK,
                                                std::string &why);

/// The GEMM ops (tsc.linear, tsc.matmul) of `func` in walk order: the order
/// of tsc-quantize-static-int8's `input-ranges`.
SmallVector<Operation *> getGemmOps(Operation *func);

/// The precision of a GEMM a quantize pass keeps out of int8 by name
/// (`kept-precision`): f32, or bf16, whose products the host runs on AMX or
/// AVX512_BF16 (docs/quantization.md, "Kept GEMMs in bf16").
enum class KeptPrecision { F32, BF16 };

/// `kept-precision`'s value, or an error naming it.
FailureOr<KeptPrecision> parseKeptPrecision(MLIRContext *context,
                                            StringRef text);

/// Runs `quantize` on each GEMM op of `func` that `kept` does not name and
/// that is quantizable (matchQuantizableGemm with `minK`); with `remarks`, a
/// remark on each GEMM kept float, saying why (`quantize` sets the reason
/// when it fails). A GEMM `kept` names goes to keepGemm.
void quantizeGemms(
    Operation *func, const KeepFloat &kept, KeptPrecision keptPrecision,
    int64_t minK, bool remarks,
    function_ref<LogicalResult(QuantizableGemm, std::string &)> quantize);

/// `op`, a GEMM that keep-float names: left as it is, or with
/// `KeptPrecision::BF16` rounded (roundGemmToBf16) when it is quantizable
/// (with `minK`); with `remarks`, a remark saying which.
void keepGemm(Operation *op, KeptPrecision precision, int64_t minK,
              bool remarks);

/// Replaces `g.op` by the same product of operands rounded to bf16 (round
/// to nearest even), kept f32: `linear(cast(cast(x, bf16), f32), W')`, W'
/// the weight rounded at compile time. The host plan runs it as a GEMM on
/// bf16 operands accumulating in f32 (format 1.16's bf16-inputs flag);
/// elsewhere the casts are kernels and the product f32, with the same
/// values. Failure (with `why`) when the weight's data cannot be read.
/// Returns the new linear op.
FailureOr<Operation *> roundGemmToBf16(QuantizableGemm g, std::string &why);

/// `value` rounded to the nearest bf16 (ties to even; NaN stays NaN,
/// overflow becomes infinity), as tsc.cast rounds it, widened back to f32.
float roundToBf16(float value);

/// The name for a weight made from `weight`: its blob's key (or "weight")
/// with `suffix`.
std::string weightName(ConstantOp weight, StringRef suffix);

/// A 0-d f32 constant.
Value createScalar(OpBuilder &b, Location loc, float value);

/// The codes of a quantized GEMM's operands: s8 (int8 modes) or f8E4M3FN
/// (fp8), both symmetric.
enum class Codes { S8, F8E4M3FN };

/// The largest code magnitude the scales map max|x| onto: 127 (s8, so -x
/// quantizes to -q) or 448 (f8E4M3FN's largest finite value).
float getCodesMax(Codes codes);

/// The attribute of a GEMM op that holds the mean of each channel of its
/// input (K f32 values) over the calibration samples, which
/// tsc-quantize-static-int8 and tsc-quantize-weight-only correct the bias
/// by (docs/quantization.md, "Bias correction") and remove.
inline constexpr llvm::StringLiteral kInputMeanAttr = "tsc.input_mean";

/// `dequantize(Wq, Ws)` of `g`'s weight quantized to `codes` symmetrically
/// per output channel (`Ws = max|W| / getCodesMax`, or `/ codesMax` when
/// given (s8 only), 1 for an all-zero
/// channel; s8 codes round half to even, f8E4M3FN ones as
/// roundToF8E4M3FN), built before `g.op`; failure (with `why`) when the
/// weight's data cannot be read. With `inputMeans` (K of them),
/// `meanError` gets, per output channel n, what the rounding takes from the
/// product at the mean input: `sum_k mean[k] * (W[k, n] - Wd[k, n])`, Wd
/// the dequantized weight as tsc.dequantize computes it.
FailureOr<Value> createQuantizedWeight(QuantizableGemm g, std::string &why,
                                       Codes codes = Codes::S8,
                                       ArrayRef<float> inputMeans = {},
                                       std::vector<float> *meanError = nullptr,
                                       float codesMax = 0.0f);

/// The largest magnitude of narrow s8 weight codes (`codesMax` above, the
/// quantize passes' narrow-weights): about 7 bits, so that two u8
/// activation codes times two of them sum within 16 bits (2 · 255 · 64 =
/// 32,640 <= 32,767), where u8 x s8 kernels without VNNI saturate.
constexpr float kNarrowInt8Max = 64.0f;

/// `dequantize(quantize(x, s), s)` built before `g.op`, with the
/// activation's scale per row computed at run time: `s = max(max|x| /
/// getCodesMax, FLT_MIN)` over the last dim (f8E4M3FN codes saturate).
Value quantizeRows(QuantizableGemm g, Codes codes);

/// `dequantize(quantize(x, s[, z]), s[, z])` built before `g.op`, with the
/// activation's scale a constant: `scale` (calibrated; static int8 and
/// static fp8), and for s8 codes an optional zero point `zeroPoint` (an
/// asymmetric range; nullopt: none). f8E4M3FN codes saturate.
Value quantizePerTensor(QuantizableGemm g, Codes codes, float scale,
                        std::optional<int8_t> zeroPoint = std::nullopt);

/// The calibrated mean of each channel of `g`'s input (kInputMeanAttr),
/// or none when `g.op` has none, not one per input channel, or one that is
/// not finite.
ArrayRef<float> getInputMeans(QuantizableGemm g);

/// Removes kInputMeanAttr from every GEMM op of `func`: a quantize pass
/// spends the calibration's means (GEMMs kept float and near misses too).
void removeInputMeans(Operation *func);

/// `g`'s bias plus `meanError` (what the weight's rounding takes from the
/// product at the mean input), built before `g.op`: addBiases of the bias
/// and the correction, or the correction alone without a bias; null (no
/// correction) when an error is not finite.
Value correctBias(QuantizableGemm g, ArrayRef<float> meanError);

/// `first + second`, two biases of one [N] type: one constant of their sum
/// when both are f32 constants (read in whatever form they have: the
/// dialect's folders read dense literals only, and model biases are
/// blobs), a tsc.add otherwise.
Value addBiases(OpBuilder &b, Location loc, Value first, Value second);

/// Per output channel n of the weight `w` (`rows` x `cols`, [K, N] when
/// `kn`, else [N, K]), what its quantization takes from the product at the
/// mean input: `sum_k means[k] * (w[k, n] - dequantized(i, k, n))`, i the
/// element's index in `w`; summed in double.
std::vector<float>
getMeanError(ArrayRef<float> w, int64_t rows, int64_t cols, bool kn,
             ArrayRef<float> means,
             function_ref<float(int64_t i, int64_t k, int64_t n)> dequantized);

/// Replaces `g.op` by a tsc.linear of `input` and `weight` with the old
/// op's bias (or `bias`, when given), residual, layout and activation.
/// Returns the new op.
LinearOp replaceGemm(QuantizableGemm g, Value input, Value weight,
                     Value bias = Value());

} // namespace mlir::tsc

#endif // TSC_PASSES_TRANSFORMS_QUANTIZEGEMM_H
