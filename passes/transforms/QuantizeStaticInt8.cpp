//===- QuantizeStaticInt8.cpp - GEMMs in int8 by calibrated scales --------===//
//
// `--quantize=static-int8`: the form of tsc-quantize-dynamic-int8 with the
// activation's scale a constant from calibration (one per tensor), so the
// int8 GEMM step quantizes its input without measuring it and the scale
// folds into the output scales (docs/quantization.md). With calibrated
// minima as well as maxima the activation is asymmetric: a zero point maps
// [min, max] onto the whole s8 range, which a GELU's output (-0.17 to
// tens) would otherwise use half of; the int8 GEMM step subtracts the zero
// point's share through B's column sums. With smoothing-alpha, outlier
// channels move into the weights first (Smoothing.h), and the smoothed
// input's range comes from its channels' calibrated extremes.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/DynamicInt8.h"
#include "passes/transforms/KeepFloat.h"
#include "passes/transforms/QuantizeGemm.h"
#include "passes/transforms/Smoothing.h"

#include <algorithm>
#include <cmath>

namespace mlir::tsc {
#define GEN_PASS_DEF_QUANTIZESTATICINT8PASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// An activation's calibrated range: [-max|x|, max|x|] (symmetric, no
/// zero point) or [min, max] widened to hold 0 (asymmetric).
struct Range {
  float lo, hi;
  bool symmetric;
};

/// Rewrites `g` with its input quantized per tensor: symmetric, scale
/// max(hi / 127, FLT_MIN); or asymmetric, scale max((hi - lo) / 255,
/// FLT_MIN) and the zero point that maps lo to -128, clamped to s8. With
/// the input's calibrated means, the bias is corrected by what the
/// weight's rounding takes from the product at the mean input (Nagel et
/// al.'s bias correction; docs/quantization.md). With `smoothed`, `g`
/// reads the smoothed input by the weight scaled to match, the means and
/// `range` are the smoothed input's. Failure (with `why`) when the weight's
/// data cannot be read.
LogicalResult quantize(QuantizableGemm g, Range range,
                       const SmoothedInput *smoothed, bool narrowWeights,
                       std::string &why) {
  FailureOr<std::vector<float>> means = prepareInput(g, smoothed, why);
  if (failed(means))
    return failure();
  if (smoothed) {
    range.lo = smoothed->lo;
    range.hi = smoothed->hi;
  }
  std::vector<float> meanError;
  FailureOr<Value> wd = createQuantizedWeight(
      g, why, Codes::S8, *means, means->empty() ? nullptr : &meanError,
      narrowWeights ? kNarrowInt8Max : 0.0f);
  if (failed(wd))
    return failure();
  Value bias = means->empty() ? Value() : correctBias(g, meanError);
  float s = range.symmetric
                ? std::max(range.hi / kInt8Max, kMinInt8Scale)
                : std::max((range.hi - range.lo) / 255.0f, kMinInt8Scale);
  std::optional<int8_t> zeroPoint;
  if (!range.symmetric)
    zeroPoint = int8_t(std::clamp(
        std::nearbyint(-128.0 - double(range.lo) / double(s)), -128.0, 127.0));
  Value xd = quantizePerTensor(g, Codes::S8, s, zeroPoint);
  replaceGemm(g, xd, *wd, bias);
  return success();
}

struct QuantizeStaticInt8Pass
    : public tsc::impl::QuantizeStaticInt8PassBase<QuantizeStaticInt8Pass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    FailureOr<KeptPrecision> precision =
        parseKeptPrecision(context, keptPrecision);
    if (failed(precision))
      return failure();
    keptAs = *precision;
    return KeepFloat::parse(context, keepFloat, kept);
  }

  void runOnOperation() override {
    SmallVector<Operation *> gemms = getGemmOps(getOperation());
    if (inputRanges.size() != gemms.size()) {
      getOperation().emitError()
          << "tsc-quantize-static-int8: input-ranges has " << inputRanges.size()
          << " entries, the function has " << gemms.size()
          << " GEMM ops (tsc.linear, tsc.matmul): one range each expected";
      return signalPassFailure();
    }
    bool asymmetric = !inputMinima.empty();
    if (asymmetric && inputMinima.size() != gemms.size()) {
      getOperation().emitError()
          << "tsc-quantize-static-int8: input-minima has " << inputMinima.size()
          << " entries, the function has " << gemms.size()
          << " GEMM ops: one minimum each expected (or none)";
      return signalPassFailure();
    }
    std::vector<Range> ranges;
    SmallVector<QuantizableGemm> quantized;
    for (auto [i, op] : llvm::enumerate(gemms)) {
      float hi = inputRanges[i], lo = asymmetric ? inputMinima[i] : -hi;
      if (!(std::isfinite(hi) && (asymmetric || hi >= 0.0f))) {
        op->emitError() << "tsc-quantize-static-int8: input range " << hi
                        << " is not a finite number"
                        << (asymmetric ? "" : " >= 0");
        return signalPassFailure();
      }
      if (!std::isfinite(lo) || lo > hi) {
        op->emitError() << "tsc-quantize-static-int8: input minimum " << lo
                        << " is not a finite number <= the maximum " << hi;
        return signalPassFailure();
      }
      ranges.push_back({std::min(lo, 0.0f), std::max(hi, 0.0f), !asymmetric});
      std::string why;
      if (!kept.matches(op) && ranges.back().hi != ranges.back().lo)
        if (FailureOr<QuantizableGemm> g =
                matchQuantizableGemm(op, minInputFeatures, why);
            succeeded(g))
          quantized.push_back(*g);
    }
    // The inputs of the GEMMs to quantize, smoothed first: the factors of
    // an input shared by several GEMMs take all of their weights.
    std::vector<SmoothedInput> inputs;
    DenseMap<Operation *, unsigned> smoothed = smoothInputs(
        quantized, float(smoothingAlpha.getValue()), !asymmetric, inputs);
    for (auto [i, op] : llvm::enumerate(gemms)) {
      std::string why;
      FailureOr<QuantizableGemm> g =
          matchQuantizableGemm(op, minInputFeatures, why);
      if (succeeded(g) && kept.matches(op)) {
        keepGemm(op, keptAs, minInputFeatures, remarks);
        continue;
      }
      auto s = smoothed.find(op);
      const SmoothedInput *input =
          s == smoothed.end() ? nullptr : &inputs[s->second];
      if (succeeded(g) && ranges[i].hi == ranges[i].lo)
        why = "no calibrated range for its input";
      else if (succeeded(g) &&
               succeeded(quantize(*g, ranges[i], input, narrowWeights, why)))
        continue;
      if (remarks && !why.empty())
        op->emitRemark() << "kept float: " << why;
    }
    removeInputMeans(getOperation());
    removeChannelExtremes(getOperation());
  }

  KeepFloat kept;
  KeptPrecision keptAs = KeptPrecision::F32;
};

} // namespace
