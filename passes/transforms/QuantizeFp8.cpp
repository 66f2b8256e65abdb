//===- QuantizeFp8.cpp - GEMMs by constant weights in fp8 (e4m3) ----------===//
//
// `--quantize=fp8`: the form of `--quantize=dynamic-int8` with f8E4M3FN
// codes instead of s8 ones. The weight's codes are made here, per output
// channel; the activation is quantized per row by ops that run with the
// model, saturating, or with calibration (`input-ranges`, static fp8) per
// tensor by a constant scale. Both scales factor out of the product, so for
// CUDA targets tsc-expand-quantized-gemms turns each such linear into
// cuBLASLt's f8 · f8 -> f32 GEMM with the scales in the kernel after it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/DynamicInt8.h"
#include "passes/transforms/KeepFloat.h"
#include "passes/transforms/QuantizeGemm.h"

#include <algorithm>
#include <cmath>

namespace mlir::tsc {
#define GEN_PASS_DEF_QUANTIZEFP8PASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// Rewrites `g` in fp8 form: its activation per row at run time, or with
/// `range` > 0 (a calibrated max|x|) per tensor by the constant scale
/// max(range / 448, FLT_MIN). With its input's calibrated means
/// (kInputMeanAttr), its bias corrected as static int8's. Failure (with
/// `why`) when the weight's data cannot be read.
LogicalResult quantize(QuantizableGemm g, float range, std::string &why) {
  ArrayRef<float> means = getInputMeans(g);
  std::vector<float> meanError;
  FailureOr<Value> wd = createQuantizedWeight(
      g, why, Codes::F8E4M3FN, means, means.empty() ? nullptr : &meanError);
  if (failed(wd))
    return failure();
  Value bias = means.empty() ? Value() : correctBias(g, meanError);
  if (range <= 0.0f) {
    replaceGemm(g, quantizeRows(g, Codes::F8E4M3FN), *wd, bias);
    return success();
  }
  Value xd = quantizePerTensor(
      g, Codes::F8E4M3FN,
      std::max(range / getCodesMax(Codes::F8E4M3FN), kMinInt8Scale));
  replaceGemm(g, xd, *wd, bias);
  return success();
}

struct QuantizeFp8Pass
    : public tsc::impl::QuantizeFp8PassBase<QuantizeFp8Pass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    return KeepFloat::parse(context, keepFloat, kept);
  }

  void runOnOperation() override {
    // Static: one calibrated range per GEMM op, in walk order (the ranges
    // tsc's calibration measured on this graph).
    SmallVector<Operation *> gemms = getGemmOps(getOperation());
    DenseMap<Operation *, float> ranges;
    if (!inputRanges.empty()) {
      if (inputRanges.size() != gemms.size()) {
        getOperation().emitError()
            << "tsc-quantize-fp8: input-ranges has " << inputRanges.size()
            << " entries, the function has " << gemms.size()
            << " GEMM ops (tsc.linear, tsc.matmul): one range each expected";
        return signalPassFailure();
      }
      for (auto [i, op] : llvm::enumerate(gemms)) {
        if (!std::isfinite(inputRanges[i]) || inputRanges[i] < 0.0f) {
          op->emitError() << "tsc-quantize-fp8: input range " << inputRanges[i]
                          << " is not a finite number >= 0";
          return signalPassFailure();
        }
        ranges[op] = inputRanges[i];
      }
    }
    bool calibrated = !inputRanges.empty();
    quantizeGemms(getOperation(), kept, KeptPrecision::F32, minInputFeatures,
                  remarks, [&](QuantizableGemm g, std::string &why) {
                    float range = ranges.lookup(g.op);
                    if (calibrated && range == 0.0f) {
                      why = "no calibrated range for its input";
                      return failure();
                    }
                    return quantize(g, range, why);
                  });
    removeInputMeans(getOperation());
  }

  KeepFloat kept;
};

} // namespace
