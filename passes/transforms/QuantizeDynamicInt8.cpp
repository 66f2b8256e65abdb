//===- QuantizeDynamicInt8.cpp - GEMMs by constant weights in int8 --------===//
//
// `--quantize=dynamic-int8`: each GEMM by a constant f32 weight becomes a
// tsc.linear in quantize-dequantize form, the weight quantized to i8 per
// output channel here, the activation per row by ops that run with the
// model. The form states the arithmetic exactly (the generated kernels
// compute it as written); the host plan turns it into one int8 GEMM step.
// With smoothing-alpha, outlier channels move into the weights first
// (Smoothing.h), and the rows quantized are those of the smoothed input.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/KeepFloat.h"
#include "passes/transforms/QuantizeGemm.h"
#include "passes/transforms/Smoothing.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_QUANTIZEDYNAMICINT8PASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// Rewrites `g` in quantize-dequantize form, with its bias corrected as
/// static int8's when its input's calibrated means are there
/// (kInputMeanAttr: `tsc --calibration`); with `smoothed`, `g` reads the
/// smoothed input by the weight scaled to match (the means too). Failure
/// (with `why`) when the weight's data cannot be read.
LogicalResult quantize(QuantizableGemm g, const SmoothedInput *smoothed,
                       bool narrowWeights, std::string &why) {
  FailureOr<std::vector<float>> means = prepareInput(g, smoothed, why);
  if (failed(means))
    return failure();
  std::vector<float> meanError;
  FailureOr<Value> wd = createQuantizedWeight(
      g, why, Codes::S8, *means, means->empty() ? nullptr : &meanError,
      narrowWeights ? kNarrowInt8Max : 0.0f);
  if (failed(wd))
    return failure();
  Value bias = means->empty() ? Value() : correctBias(g, meanError);
  replaceGemm(g, quantizeRows(g, Codes::S8), *wd, bias);
  return success();
}

struct QuantizeDynamicInt8Pass
    : public tsc::impl::QuantizeDynamicInt8PassBase<QuantizeDynamicInt8Pass> {
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
    // The inputs of the GEMMs to quantize, smoothed first (an input's
    // factors take all of its readers' weights).
    SmallVector<QuantizableGemm> quantized;
    for (Operation *op : getGemmOps(getOperation())) {
      std::string why;
      if (FailureOr<QuantizableGemm> g =
              matchQuantizableGemm(op, minInputFeatures, why);
          succeeded(g) && !kept.matches(op))
        quantized.push_back(*g);
    }
    std::vector<SmoothedInput> inputs;
    DenseMap<Operation *, unsigned> smoothed =
        smoothInputs(quantized, float(smoothingAlpha.getValue()),
                     /*symmetric=*/true, inputs);
    quantizeGemms(getOperation(), kept, keptAs, minInputFeatures, remarks,
                  [&](QuantizableGemm g, std::string &why) {
                    auto s = smoothed.find(g.op);
                    return quantize(
                        g, s == smoothed.end() ? nullptr : &inputs[s->second],
                        narrowWeights, why);
                  });
    removeInputMeans(getOperation());
    removeChannelExtremes(getOperation());
  }

  KeepFloat kept;
  KeptPrecision keptAs = KeptPrecision::F32;
};

} // namespace
