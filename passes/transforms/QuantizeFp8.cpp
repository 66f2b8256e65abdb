//===- QuantizeFp8.cpp - GEMMs by constant weights in fp8 (e4m3) ----------===//
//
// `--quantize=fp8`: the form of `--quantize=dynamic-int8` with f8E4M3FN
// codes instead of s8 ones. The weight's codes are made here, per output
// channel; the activation is quantized per row by ops that run with the
// model, saturating. Both scales factor out of the product, so for CUDA
// targets tsc-expand-quantized-gemms turns each such linear into cuBLASLt's
// f8 · f8 -> f32 GEMM with the scales in the kernel after it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/KeepFloat.h"
#include "passes/transforms/QuantizeGemm.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_QUANTIZEFP8PASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

LogicalResult quantize(QuantizableGemm g, std::string &why) {
  FailureOr<Value> wd = createQuantizedWeight(g, why, Codes::F8E4M3FN);
  if (failed(wd))
    return failure();
  replaceGemm(g, quantizeRows(g, Codes::F8E4M3FN), *wd);
  return success();
}

struct QuantizeFp8Pass
    : public tsc::impl::QuantizeFp8PassBase<QuantizeFp8Pass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    return KeepFloat::parse(context, keepFloat, kept);
  }

  void runOnOperation() override {
    quantizeGemms(getOperation(), kept, KeptPrecision::F32, minInputFeatures,
                  remarks, quantize);
  }

  KeepFloat kept;
};

} // namespace
