//===- OnnxToTsc.cpp - the ONNX-to-tsc pass -------------------------------===//

#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"
#include "passes/Passes.h"


namespace mlir::tsc {
#define GEN_PASS_DEF_CONVERTONNXTOTSCPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;


namespace {

/// Every foreign op of an ONNX model: the `onnx` domain and vendor domains
/// such as `com.microsoft` (reported as unsupported unless converted).
bool isOnnxNode(ForeignOp op) { return !isTorchDomain(op); }

struct ConvertOnnxToTscPass
    : public tsc::impl::ConvertOnnxToTscPassBase<ConvertOnnxToTscPass> {
  using ConvertOnnxToTscPassBase::ConvertOnnxToTscPassBase;

  LogicalResult initialize(MLIRContext *ctx) override {
    conversion.initialize(ctx, [](ForeignConverters &c) {
      populateElementwiseConverters(c);
      populateMatmulConverters(c);
      populateReductionConverters(c);
      populateShapeConverters(c);
      populateAttentionConverters(c);
      populateQuantizationConverters(c);
      populateElementwiseMathConverters(c);
      populateNormalizationConverters(c);
      populateIndexingConverters(c);
      populateDataDependentConverters(c);
      populateConvolutionConverters(c);
      populateRecurrentConverters(c);
      populateControlFlowConverters(c);
      populateLinearAttentionConverters(c);
      populateSignalConverters(c);
      populateMachineLearningConverters(c);
      populateContribConverters(c);
      populateContribAttentionConverters(c);
      populateContribQuantizationConverters(c);
      populateContribQLinearConverters(c);
    });
    return success();
  }

  void runOnOperation() override {
    if (failed(conversion.run(getOperation(), allowUnsupported)))
      signalPassFailure();
  }

  ForeignConversion conversion{"ONNX", isOnnxNode};
};

} // namespace
