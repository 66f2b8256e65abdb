//===- TscToLinalg.cpp - the tsc-convert-to-linalg pass --------------------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_CONVERTTSCTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

void mlir::tsc::populateTscToLinalgPatterns(RewritePatternSet &patterns,
                                            int64_t maxKeyValueBlockBytes,
                                            bool bf16Products) {
  populateTscElementwiseToLinalgPatterns(patterns);
  populateTscReductionToLinalgPatterns(patterns);
  populateTscContractionToLinalgPatterns(patterns);
  populateTscAttentionToLinalgPatterns(patterns, maxKeyValueBlockBytes,
                                       bf16Products);
  populateTscShapeToLinalgPatterns(patterns);
  populateTscQuantizationToLinalgPatterns(patterns);
  populateTscScanToLinalgPatterns(patterns);
  populateTscIndexingToLinalgPatterns(patterns);
  populateTscConvolutionToLinalgPatterns(patterns);
}

namespace {

struct ConvertTscToLinalgPass
    : mlir::tsc::impl::ConvertTscToLinalgPassBase<ConvertTscToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateTscToLinalgPatterns(patterns, maxKeyValueBlockBytes, bf16Products);
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
    // Declarations (symbols, shape bindings, constants) are the plan's
    // business; every compute op must have become linalg.
    bool leftOver = false;
    getOperation().walk([&](Operation *op) {
      if (!isa<TscDialect>(op->getDialect()) ||
          isa<SymbolOp, BindShapeOp, ConstantOp, NoneOp>(op))
        return;
      op->emitError() << "no host lowering for '" << op->getName() << "'";
      leftOver = true;
    });
    if (leftOver)
      signalPassFailure();
  }
};

} // namespace
