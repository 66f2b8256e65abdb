//===- AttentionProducts.cpp - f32 attention with bf16 products -----------===//
//
// `--attention-products=bf16`: marks f32 attention `bf16_products`, which the
// host lowering turns into bf16 tiles and bf16 products (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/tsc/IR/TscOps.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_ATTENTIONBF16PRODUCTSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

struct AttentionBf16ProductsPass
    : public tsc::impl::AttentionBf16ProductsPassBase<
          AttentionBf16ProductsPass> {
  void runOnOperation() override {
    getOperation().walk([](AttentionOp op) {
      if (op.getQuery().getType().getElementType().isF32())
        op.setBf16Products(true);
    });
  }
};

} // namespace
