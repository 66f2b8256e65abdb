//===- QuantizeStaticInt8.cpp - GEMMs in int8 by calibrated scales --------===//
//
// `--quantize=static-int8`: the form of tsc-quantize-dynamic-int8 with the
// activation's scale a constant from calibration (one per tensor), so the
// int8 GEMM step quantizes its input without measuring it and the scale
// folds into the output scales (docs/quantization.md). With calibrated
// minima as well as maxima the activation is asymmetric: a zero point maps
// [min, max] onto the whole s8 range, which a GELU's output (-0.17 to
// tens) would otherwise use half of; the int8 GEMM step subtracts the zero
// point's share through B's column sums.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/DynamicInt8.h"
#include "passes/transforms/KeepFloat.h"
#include "passes/transforms/QuantizeGemm.h"

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
/// al.'s bias correction; docs/quantization.md). Failure (with `why`) when
/// the weight's data cannot be read.
LogicalResult quantize(QuantizableGemm g, Range range, std::string &why) {
  ArrayRef<float> means = getInputMeans(g);
  std::vector<float> meanError;
  FailureOr<Value> wd = createQuantizedWeight(
      g, why, Codes::S8, means, means.empty() ? nullptr : &meanError);
  if (failed(wd))
    return failure();
  Value bias = means.empty() ? Value() : correctBias(g, meanError);
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
      Range range{std::min(lo, 0.0f), std::max(hi, 0.0f), !asymmetric};
      std::string why;
      FailureOr<QuantizableGemm> g =
          matchQuantizableGemm(op, minInputFeatures, why);
      if (succeeded(g) && kept.matches(op)) {
        keepGemm(op, keptAs, minInputFeatures, remarks);
        continue;
      }
      if (succeeded(g) && range.hi == range.lo)
        why = "no calibrated range for its input";
      else if (succeeded(g) && succeeded(quantize(*g, range, why)))
        continue;
      if (remarks && !why.empty())
        op->emitRemark() << "kept float: " << why;
    }
    removeInputMeans(getOperation());
  }

  KeepFloat kept;
  KeptPrecision keptAs = KeptPrecision::F32;
};

} // namespace
