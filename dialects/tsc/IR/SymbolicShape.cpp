//===- SymbolicShape.cpp - symbolic shape queries, ranges and evaluation --===//

#include "dialects/tsc/IR/SymbolicShape.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/AffineMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tsc;

SmallVector<AffineExpr>
tsc::getBoundShape(BindShapeOp bind, function_ref<unsigned(Value)> positionOf) {
  MLIRContext *ctx = bind.getContext();
  SmallVector<AffineExpr> replacements;
  unsigned numSymbols = 0;
  for (Value symbol : bind.getSymbols()) {
    unsigned position = positionOf(symbol);
    numSymbols = std::max(numSymbols, position + 1);
    replacements.push_back(getAffineSymbolExpr(position, ctx));
  }
  SmallVector<AffineExpr> shape;
  for (AffineExpr expr : bind.getShape().getResults())
    shape.push_back(simplifyAffineExpr(
        expr.replaceSymbols(replacements), /*numDims=*/0, numSymbols));
  return shape;
}

/// Checked arithmetic for interval ends: nullopt on overflow.
static std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t out;
  if (llvm::MulOverflow(a, b, out))
    return std::nullopt;
  return out;
}

std::optional<DimRange> tsc::getRange(AffineExpr expr,
                                      ArrayRef<DimRange> symbolRanges) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return DimRange{constant.getValue(), constant.getValue()};
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr)) {
    if (symbol.getPosition() >= symbolRanges.size())
      return std::nullopt;
    return symbolRanges[symbol.getPosition()];
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return std::nullopt; // dims never appear in shape expressions
  std::optional<DimRange> lhs = getRange(binary.getLHS(), symbolRanges);
  std::optional<DimRange> rhs = getRange(binary.getRHS(), symbolRanges);
  if (!lhs || !rhs)
    return std::nullopt;
  switch (expr.getKind()) {
  case AffineExprKind::Add: {
    int64_t lo, hi;
    if (llvm::AddOverflow(lhs->min, rhs->min, lo) ||
        llvm::AddOverflow(lhs->max, rhs->max, hi))
      return std::nullopt;
    return DimRange{lo, hi};
  }
  case AffineExprKind::Mul: {
    // Products of the four corners bound the product of two intervals.
    std::optional<int64_t> corners[] = {
        checkedMul(lhs->min, rhs->min), checkedMul(lhs->min, rhs->max),
        checkedMul(lhs->max, rhs->min), checkedMul(lhs->max, rhs->max)};
    DimRange out{INT64_MAX, INT64_MIN};
    for (std::optional<int64_t> corner : corners) {
      if (!corner)
        return std::nullopt;
      out.min = std::min(out.min, *corner);
      out.max = std::max(out.max, *corner);
    }
    return out;
  }
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    // Monotone in the dividend for a positive constant divisor.
    if (rhs->min != rhs->max || rhs->min <= 0)
      return std::nullopt;
    bool ceil = expr.getKind() == AffineExprKind::CeilDiv;
    auto divide = [&](int64_t v) {
      return ceil ? llvm::divideCeilSigned(v, rhs->min)
                  : llvm::divideFloorSigned(v, rhs->min);
    };
    return DimRange{divide(lhs->min), divide(lhs->max)};
  }
  case AffineExprKind::Mod: {
    if (rhs->min != rhs->max || rhs->min <= 0)
      return std::nullopt;
    if (lhs->min >= 0 && lhs->max < rhs->min)
      return lhs;
    return DimRange{0, rhs->min - 1};
  }
  default:
    return std::nullopt;
  }
}

FailureOr<int64_t> tsc::evaluate(AffineExpr expr,
                                 ArrayRef<int64_t> symbolValues) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue();
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr)) {
    if (symbol.getPosition() >= symbolValues.size())
      return failure();
    return symbolValues[symbol.getPosition()];
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return failure();
  FailureOr<int64_t> lhs = evaluate(binary.getLHS(), symbolValues);
  FailureOr<int64_t> rhs = evaluate(binary.getRHS(), symbolValues);
  if (failed(lhs) || failed(rhs))
    return failure();
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return *lhs + *rhs;
  case AffineExprKind::Mul:
    return *lhs * *rhs;
  case AffineExprKind::FloorDiv:
    if (*rhs == 0)
      return failure();
    return llvm::divideFloorSigned(*lhs, *rhs);
  case AffineExprKind::CeilDiv:
    if (*rhs == 0)
      return failure();
    return llvm::divideCeilSigned(*lhs, *rhs);
  case AffineExprKind::Mod:
    if (*rhs == 0)
      return failure();
    return llvm::mod(*lhs, *rhs);
  default:
    return failure();
  }
}

SymbolicShapes::SymbolicShapes(Operation *scope) {
  scope->walk([&](Operation *op) {
    if (auto symbol = dyn_cast<SymbolOp>(op)) {
      positions[symbol.getResult()] = symbols.size();
      symbols.push_back(symbol);
      ranges.push_back({static_cast<int64_t>(symbol.getMin()),
                        static_cast<int64_t>(symbol.getMax())});
    } else if (auto bind = dyn_cast<BindShapeOp>(op)) {
      // The verifier guarantees that all bindings of a value agree.
      bindings.try_emplace(bind.getOperand(), bind);
    }
  });
}

std::optional<unsigned> SymbolicShapes::lookup(StringRef name) const {
  for (auto [i, symbol] : llvm::enumerate(symbols))
    if (SymbolOp(symbol).getSymbol() == name)
      return i;
  return std::nullopt;
}

std::optional<SmallVector<AffineExpr>>
SymbolicShapes::getShape(Value value) const {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return std::nullopt;
  if (auto it = bindings.find(value); it != bindings.end())
    return getBoundShape(it->second,
                         [&](Value symbol) { return positions.at(symbol); });
  if (!type.hasStaticShape())
    return std::nullopt;
  SmallVector<AffineExpr> shape;
  for (int64_t dim : type.getShape())
    shape.push_back(getAffineConstantExpr(dim, value.getContext()));
  return shape;
}

std::optional<SmallVector<int64_t>>
SymbolicShapes::getMaxShape(Value value) const {
  std::optional<SmallVector<AffineExpr>> shape = getShape(value);
  if (!shape)
    return std::nullopt;
  SmallVector<int64_t> max;
  for (AffineExpr expr : *shape) {
    std::optional<DimRange> range = getRange(expr, ranges);
    if (!range)
      return std::nullopt;
    max.push_back(range->max);
  }
  return max;
}
