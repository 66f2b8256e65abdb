//===- InferSymbolRanges.cpp - symbol maxima from what the model indexes ---===//

#include "dialects/tsc/IR/TscOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_INFERSYMBOLRANGESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// The symbol `value` is, looking through index casts.
SymbolOp asSymbol(Value value) {
  while (auto cast = value.getDefiningOp<arith::IndexCastOp>())
    value = cast.getIn();
  return value.getDefiningOp<SymbolOp>();
}

/// The RangeOp whose values `indices` holds, all of them (through casts,
/// reshapes and broadcasts).
RangeOp producingRange(Value indices) {
  return dyn_cast_or_null<RangeOp>(getValuesProducer(indices));
}

struct InferSymbolRangesPass
    : public tsc::impl::InferSymbolRangesPassBase<InferSymbolRangesPass> {
  void runOnOperation() override {
    bool failedAny = false;
    llvm::SmallPtrSet<Operation *, 4> reported;
    // symbol <= bound, because of `op`.
    auto limit = [&](SymbolOp symbol, int64_t bound, Operation *op) {
      if (!symbol || bound < static_cast<int64_t>(symbol.getMin()) ||
          bound >= static_cast<int64_t>(symbol.getMax()))
        return;
      if (symbol.getCommandLine()) {
        failedAny = true;
        if (!reported.insert(symbol).second)
          return;
        op->emitError("the range [")
            << symbol.getMin() << ", " << symbol.getMax() << "] of '"
            << symbol.getSymbol() << "' set on the command line exceeds "
            << bound << ", the most this op can index";
        return;
      }
      symbol.setMaxAttr(Builder(op).getI64IntegerAttr(bound));
    };
    getOperation().walk([&](Operation *op) {
      if (auto slice = dyn_cast<SliceOp>(op)) {
        // A forward slice [o, o + size) of a static dim bounds size <= D - o.
        RankedTensorType type = slice.getInput().getType();
        unsigned dynamicSize = 0;
        for (int64_t d = 0; d < type.getRank(); ++d) {
          if (!ShapedType::isDynamic(slice.getStaticSizes()[d]))
            continue;
          Value size = slice.getSizes()[dynamicSize++];
          int64_t offset = slice.getStaticOffsets()[d];
          if (type.isDynamicDim(d) || ShapedType::isDynamic(offset) ||
              slice.getStaticStrides()[d] != 1)
            continue;
          limit(asSymbol(size), type.getDimSize(d) - offset, op);
        }
      } else if (auto gather = dyn_cast<GatherOp>(op)) {
        // Rows start..limit-1 of a D-row table: limit <= D.
        RankedTensorType data = gather.getData().getType();
        int64_t extent = data.getDimSize(gather.getAxis());
        RangeOp range = producingRange(gather.getIndices());
        IntegerAttr start, delta;
        if (!range || ShapedType::isDynamic(extent) ||
            !matchPattern(range.getStart(), m_Constant(&start)) ||
            !matchPattern(range.getDelta(), m_Constant(&delta)) ||
            start.getInt() < 0 || delta.getInt() != 1)
          return;
        limit(asSymbol(range.getLimit()), extent, op);
      }
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
