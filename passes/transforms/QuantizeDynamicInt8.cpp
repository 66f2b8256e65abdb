//===- QuantizeDynamicInt8.cpp - GEMMs by constant weights in int8 --------===//
//
// `--quantize=dynamic-int8`: each GEMM by a constant f32 weight becomes a
// tsc.linear in quantize-dequantize form, the weight quantized to i8 per
// output channel here, the activation per row by ops that run with the
// model. The form states the arithmetic exactly (the generated kernels
// compute it as written); the host plan turns it into one int8 GEMM step.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/KeepFloat.h"
#include "passes/transforms/QuantizeGemm.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_QUANTIZEDYNAMICINT8PASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// Rewrites `g` in quantize-dequantize form, with its bias corrected as
/// static int8's when its input's calibrated means are there
/// (kInputMeanAttr: `tsc --calibration`); failure (with `why`) when the
/// weight's data cannot be read.
LogicalResult quantize(QuantizableGemm g, std::string &why) {
  ArrayRef<float> means = getInputMeans(g);
  std::vector<float> meanError;
  FailureOr<Value> wd = createQuantizedWeight(
      g, why, Codes::S8, means, means.empty() ? nullptr : &meanError);
  if (failed(wd))
    return failure();
  Value bias = means.empty() ? Value() : correctBias(g, meanError);
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
    quantizeGemms(getOperation(), kept, keptAs, minInputFeatures, remarks,
                  quantize);
    removeInputMeans(getOperation());
  }

  KeepFloat kept;
  KeptPrecision keptAs = KeptPrecision::F32;
};

} // namespace
