//===- Smoothing.h - activation outliers moved into the weights -*- C++ -*-===//
//
// Static int8 quantizes a GEMM's input with one scale for the whole tensor,
// so a few channels with outliers (all-MiniLM-L6-v2's hidden features reach
// tens where most stay below one) take most of the 256 levels. Smoothing
// (Xiao et al., SmoothQuant) divides input channel k by a factor f_k and
// multiplies row k of the weight by it: the product is the same, the
// activation flatter and the weight a little less so. With the calibrated
// extremes of each channel, f_k = max|x_k|^alpha / max|W_k|^(1 - alpha)
// (docs/quantization.md, "Smoothing").
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_TRANSFORMS_SMOOTHING_H
#define TSC_PASSES_TRANSFORMS_SMOOTHING_H

#include "passes/transforms/QuantizeGemm.h"

#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace mlir::tsc {

/// The attributes of a GEMM op holding the calibrated minimum and maximum of
/// each channel of its input (K f32 values each, over every sample), which
/// `tsc --calibration` attaches for tsc-quantize-static-int8's smoothing and
/// the pass removes.
inline constexpr llvm::StringLiteral kInputChannelMinAttr =
    "tsc.input_channel_min";
inline constexpr llvm::StringLiteral kInputChannelMaxAttr =
    "tsc.input_channel_max";

/// The least ratio of an input's largest channel extreme (|min| or max) to
/// its median channel's for it to be smoothed: on all-MiniLM-L6-v2 the
/// attention outputs (2.4-2.7) lose more by giving up their percentile
/// range for the channels' min-max one than smoothing gains them, the LayerNorm
/// and GELU outputs (4.2-23) gain (docs/quantization.md, "Smoothing").
inline constexpr float kMinOutlierRatio = 3.0f;

/// An input smoothed for the GEMMs that read it.
struct SmoothedInput {
  /// `x * m`, m the reciprocals of the factors (a [K] f32 constant), built
  /// after x's definition: the GEMMs' new input.
  Value input;
  /// m, one per input channel.
  std::vector<float> multipliers;
  /// The smoothed input's range from the channels' extremes: [min_k(min_k ·
  /// m_k), max_k(max_k · m_k)], 0 included (symmetric: [-r, r], r the
  /// largest |extreme| · m_k).
  float lo = 0.0f, hi = 0.0f;
};

/// Smooths the inputs of `gemms` (GEMMs the pass quantizes) by `alpha` in
/// (0, 1): the GEMMs reading one input share its factors, whose weight side
/// is the largest |W_k| over all of their weights. A GEMM whose op lacks
/// the channel extremes, or holds them for another K or not finite, is not
/// smoothed, nor are the others reading its input (they share one
/// activation); nor is an input whose channels' extremes are within
/// kMinOutlierRatio of each other. Returns, per smoothed GEMM op, its index
/// in `inputs`.
llvm::DenseMap<Operation *, unsigned>
smoothInputs(ArrayRef<QuantizableGemm> gemms, float alpha, bool symmetric,
             std::vector<SmoothedInput> &inputs);

/// `g` reading `smoothed.input` by a new weight constant whose row k is
/// row k of the old one divided by m_k; failure (with `why`) when the
/// weight's data cannot be read.
LogicalResult useSmoothedInput(QuantizableGemm &g,
                               const SmoothedInput &smoothed, std::string &why);

/// `g`'s calibrated input means (getInputMeans, none without them); with
/// `smoothed`, `g` made to read it (useSmoothedInput) and the means those
/// of the smoothed input (each times its multiplier). Failure (with `why`)
/// when the weight's data cannot be read.
FailureOr<std::vector<float>> prepareInput(QuantizableGemm &g,
                                           const SmoothedInput *smoothed,
                                           std::string &why);

/// Whether channel extremes `channelMin` and `channelMax` (one pair per
/// channel) have a channel whose largest |extreme| is at least
/// kMinOutlierRatio times the (lower) median channel's: an input worth
/// smoothing.
bool hasOutlierChannels(ArrayRef<float> channelMin, ArrayRef<float> channelMax);

/// Whether some GEMM op of `func` holds channel extremes that
/// hasOutlierChannels accepts: without one, no alpha changes anything.
bool hasInputsToSmooth(Operation *func);

/// Removes the channel extremes from every GEMM op of `func`.
void removeChannelExtremes(Operation *func);

} // namespace mlir::tsc

#endif // TSC_PASSES_TRANSFORMS_SMOOTHING_H
