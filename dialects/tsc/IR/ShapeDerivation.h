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
