//===- ImportUtils.cpp - input symbols and weight constants ---------------===//

#include "compiler/importers/common/ImportUtils.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::tsc;

Value InputSymbols::symbolFor(StringRef name) {
  Value &symbol = symbols[name];
  if (!symbol)
    symbol = SymbolOp::create(builder, loc, name,
                              static_cast<uint64_t>(defaultMin),
                              static_cast<uint64_t>(defaultMax));
  return symbol;
}

void InputSymbols::bind(Value arg, ArrayRef<InputDim> dims) {
  SmallVector<Value> operands;
  SmallVector<AffineExpr> exprs;
  for (const InputDim &dim : dims) {
    if (const auto *size = std::get_if<int64_t>(&dim)) {
      exprs.push_back(builder.getAffineConstantExpr(*size));
      continue;
    }
    Value symbol = symbolFor(std::get<std::string>(dim));
    auto *pos = llvm::find(operands, symbol);
    if (pos == operands.end()) {
      operands.push_back(symbol);
      pos = operands.end() - 1;
    }
    exprs.push_back(builder.getAffineSymbolExpr(pos - operands.begin()));
  }
  if (operands.empty())
    return;
  BindShapeOp::create(
      builder, loc, arg, operands,
      AffineMap::get(0, operands.size(), exprs, builder.getContext()));
}

ElementsAttr tsc::weightAttr(RankedTensorType type, ArrayRef<char> bytes,
                             StringRef name, int64_t maxInlineElements) {
  Type element = type.getElementType();
  if (type.getNumElements() <= maxInlineElements &&
      element.getIntOrFloatBitWidth() >= 8) {
    bool splat = false;
    if (DenseElementsAttr::isValidRawBuffer(type, bytes, splat))
      return DenseElementsAttr::getFromRawBuffer(type, bytes);
  } else if (element.isInteger(1)) {
    SmallVector<bool> bits(bytes.begin(), bytes.end());
    return DenseElementsAttr::get(type, bits);
  }
  // Weights: 64-byte aligned blobs, never printed as text.
  return DenseResourceElementsAttr::get(
      type, name,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, /*align=*/64));
}
