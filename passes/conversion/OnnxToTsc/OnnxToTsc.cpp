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
    populateElementwiseConverters(converters);
    populateMatmulConverters(converters);
    populateReductionConverters(converters);
    populateShapeConverters(converters);
    populateAttentionConverters(converters);
    populateQuantizationConverters(converters);

    RewritePatternSet set(ctx);
    populateForeignConversion(set, converters, isOnnxNode);
    populateShapeArithmeticPatterns(set);
    populateCanonicalizations(set, ctx);
    patterns = std::move(set);
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(convertForeignOps(func, converters, patterns, isOnnxNode,
                                 "ONNX", allowUnsupported)))
      signalPassFailure();
  }

  ForeignConverters converters;
  FrozenRewritePatternSet patterns;
};

} // namespace
