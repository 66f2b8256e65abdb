//===- Fusion.cpp - which ops the planner chains into one kernel ----------===//

#include "compiler/plan/Planning.h"

#include "dialects/tsc/IR/TscOps.h"

#include <functional>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

bool planner::isViewOp(Operation *op) {
  return op && isa<ReshapeOp, SqueezeOp, UnsqueezeOp>(op);
}

bool planner::isFusible(Operation *op) {
  return op->hasTrait<OpTrait::tsc::Fusible>() || isViewOp(op) ||
         isa<GatherOp, QuantizeOp, DequantizeOp>(op);
}

bool planner::isReadBySymbol(Operation *op) {
  std::function<bool(Value)> read = [&](Value v) {
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      return isa<SymbolOp>(user) ||
             (isViewOp(user) && read(user->getResult(0)));
    });
  };
  return llvm::any_of(op->getResults(), read);
}

bool planner::onlyUnitDimsChange(Operation *op) {
  auto nonUnit = [](Type type) {
    SmallVector<int64_t> dims;
    for (int64_t d : cast<RankedTensorType>(type).getShape())
      if (d != 1)
        dims.push_back(d);
    return dims;
  };
  return nonUnit(op->getOperand(0).getType()) ==
         nonUnit(op->getResult(0).getType());
}
