//===- SymbolicShape.h - ask what a dim is, in terms of named symbols -*- C++ -*-===//
//
// Symbolic dims (DESIGN.md): a function declares symbols with `tsc.symbol`
// and `tsc.bind_shape` records each tensor's shape as affine expressions of
// them. This is the query side that every stage uses: the shape of a value over
// the function's symbols, its value for given symbol values, and its bounds
// over the symbols' ranges (the memory planner plans at the upper bounds).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_DIALECTS_TSC_IR_SYMBOLICSHAPE_H
#define TSC_DIALECTS_TSC_IR_SYMBOLICSHAPE_H

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tsc {

/// An inclusive integer interval.
struct DimRange {
  int64_t min;
  int64_t max;
};

/// The shape that `bind` records, with its i-th symbol operand replaced by
/// the symbol at `positionOf(operand)`.
SmallVector<AffineExpr>
getBoundShape(BindShapeOp bind, function_ref<unsigned(Value)> positionOf);

/// The range of `expr` when each symbol `s_i` ranges over `symbolRanges[i]`,
/// by interval arithmetic; nullopt for forms it cannot bound (e.g. a product
/// of symbols that may be negative, or division by a symbol).
std::optional<DimRange> getRange(AffineExpr expr,
                                 ArrayRef<DimRange> symbolRanges);

/// The value of `expr` at the given symbol values; failure on division by
/// zero or a symbol out of the list.
FailureOr<int64_t> evaluate(AffineExpr expr, ArrayRef<int64_t> symbolValues);

/// The symbols of one function (or other isolated-from-above op) and the
/// shapes its `tsc.bind_shape` ops record. Built once, queried many times;
/// rebuild after the IR changes.
class SymbolicShapes {
public:
  explicit SymbolicShapes(Operation *scope);

  /// The declared symbols, in IR order; expressions use these positions.
  ArrayRef<SymbolOp> getSymbols() const { return symbols; }
  /// Ranges of getSymbols(), in the same order.
  ArrayRef<DimRange> getRanges() const { return ranges; }
  /// Position of the symbol declared as `name`, if any.
  std::optional<unsigned> lookup(StringRef name) const;
  /// Position of the symbol whose value is `symbol`, if it is one.
  std::optional<unsigned> getPosition(Value symbol) const {
    auto it = positions.find(symbol);
    if (it == positions.end())
      return std::nullopt;
    return it->second;
  }

  /// The shape of `value`, one expression per dim: constants for static dims,
  /// the bound expressions for dynamic ones. Nullopt if `value` is not a
  /// ranked tensor, or has a dynamic dim and no binding.
  std::optional<SmallVector<AffineExpr>> getShape(Value value) const;

  /// Largest size of each dim of `value` over the symbols' ranges.
  std::optional<SmallVector<int64_t>> getMaxShape(Value value) const;

private:
  SmallVector<SymbolOp> symbols;
  SmallVector<DimRange> ranges;
  DenseMap<Value, unsigned> positions;
  DenseMap<Value, BindShapeOp> bindings;
};

} // namespace mlir::tsc

#endif // TSC_DIALECTS_TSC_IR_SYMBOLICSHAPE_H
