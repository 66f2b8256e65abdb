//===- ShapeDerivation.h - op shape rules and what they read -*- C++ -*-===//
//
// Each op's shape rule (ShapeDerivationOpInterface, declared in
// TscInterfaces.td) is written once against a DimReader; the callers decide
// what an operand dim is: a placeholder that names it (folding tsc.dim) or an
// expression of the function's symbols (tsc-bind-symbolic-shapes).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_DIALECTS_TSC_IR_SHAPEDERIVATION_H
#define TSC_DIALECTS_TSC_IR_SHAPEDERIVATION_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::tsc {

/// One dim of a ranked tensor value.
struct ValueDim {
  Value value;
  int64_t dim;
};

/// What a shape rule reads, as affine expressions in the caller's terms.
class DimReader {
public:
  explicit DimReader(MLIRContext *ctx) : ctx(ctx) {}
  virtual ~DimReader() = default;

  /// Dim `d` of the ranked tensor `v` (an operand of the op).
  virtual AffineExpr dim(Value v, int64_t d) = 0;
  /// The value of the index operand `v`; null when it is not affine in what
  /// this reader counts in.
  virtual AffineExpr value(Value v) = 0;
  /// The numpy broadcast of `dims`, the operand dims aligned with one result
  /// dim (operands too short to reach it left out); null when it depends on
  /// run-time values (two different sizes that may each be 1).
  virtual AffineExpr broadcast(ArrayRef<ValueDim> dims) = 0;

  AffineExpr constant(int64_t v) const { return getAffineConstantExpr(v, ctx); }
  MLIRContext *getContext() const { return ctx; }

private:
  MLIRContext *ctx;
};

/// Reads each operand dim and index value as a placeholder symbol, so that a
/// shape rule whose answer is one placeholder names what the result dim
/// equals (folding tsc.dim), and the placeholders of any answer can be
/// bounded one by one (a converter bounding a dim by the symbols' maxima).
class PlaceholderReader : public DimReader {
public:
  using DimReader::DimReader;

  /// The `dim` of a placeholder that stands for an index value.
  static constexpr int64_t kValue = -1;

  AffineExpr dim(Value v, int64_t d) override { return placeholder({v, d}); }
  /// A constant index operand is its value (a range's step must be one).
  AffineExpr value(Value v) override {
    IntegerAttr c;
    if (matchPattern(v, m_Constant(&c)))
      return constant(c.getInt());
    return placeholder({v, kValue});
  }
  /// A dynamic result dim is the first operand dim dynamic there: two dynamic
  /// dims broadcast against each other are equal (a model whose dims would be
  /// 1 there is rejected at run time by the symbol ranges and bindings).
  AffineExpr broadcast(ArrayRef<ValueDim> dims) override {
    for (ValueDim d : dims)
      if (cast<RankedTensorType>(d.value.getType()).isDynamicDim(d.dim))
        return dim(d.value, d.dim);
    return {};
  }

  /// The operand dim or index value that `expr` is, if it is one.
  std::optional<ValueDim> source(AffineExpr expr) const {
    if (!expr || !isa<AffineSymbolExpr>(expr))
      return std::nullopt;
    auto symbol = cast<AffineSymbolExpr>(expr);
    return placeholders[symbol.getPosition()];
  }
  /// Every placeholder, symbol `i` the i-th.
  ArrayRef<ValueDim> getPlaceholders() const { return placeholders; }

private:
  AffineExpr placeholder(ValueDim d) {
    placeholders.push_back(d);
    return getAffineSymbolExpr(placeholders.size() - 1, getContext());
  }

  SmallVector<ValueDim> placeholders;
};

/// Dim `dim` of result `result` of `op` as its shape rule reads it through
/// `reader`: from the shape traits (Tsc_ShapeOfFirstOperand,
/// SameOperandsAndResultType, Tsc_Broadcasting), else from
/// ShapeDerivationOpInterface. Nullopt when the op has no shape rule; a null
/// expression when the dim is not affine in what `reader` reads.
std::optional<AffineExpr> deriveResultDim(Operation *op, unsigned result,
                                          int64_t dim, DimReader &reader);

/// The shape rule of a reduction of `input` over `dims`, with `keepdim`
/// keeping them as size-1 dims.
AffineExpr deriveReducedDim(Value input, ArrayRef<int64_t> dims, bool keepdim,
                            int64_t dim, DimReader &reader);

} // namespace mlir::tsc

#include "dialects/tsc/IR/TscInterfaces.h.inc"

#endif // TSC_DIALECTS_TSC_IR_SHAPEDERIVATION_H
