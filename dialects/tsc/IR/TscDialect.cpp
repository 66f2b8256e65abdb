//===- TscDialect.cpp - tsc dialect registration and constants ------------===//

#include "dialects/tsc/IR/TscDialect.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tsc;

#include "dialects/tsc/IR/TscEnums.cpp.inc"
#include "dialects/tsc/IR/TscOpsDialect.cpp.inc"

void TscDialect::initialize() {
  registerTscDialectOperations(this);
}

Operation *TscDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  // Folded shape queries produce `index` scalars; folded tensors stay tsc.
  if (isa<IndexType>(type))
    if (auto typed = dyn_cast<TypedAttr>(value))
      return arith::ConstantOp::create(builder, loc, type, typed);
  if (auto elements = dyn_cast<ElementsAttr>(value))
    if (elements.getType() == type)
      return ConstantOp::create(builder, loc, elements);
  return nullptr;
}
