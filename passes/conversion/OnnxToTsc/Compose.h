//===- Compose.h - building ONNX ops out of tsc ops ------------*- C++ -*-===//
//
// Converters that decompose an ONNX op into several tsc ops (norms as
// reductions and elementwise math, losses as selections and sums) chain
// many creations, each of which may fail result inference; these helpers
// take and return FailureOr so a chain reads as the formula it builds.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_CONVERSION_ONNXTOTSC_COMPOSE_H
#define TSC_PASSES_CONVERSION_ONNXTOTSC_COMPOSE_H

#include "passes/conversion/Foreign/ForeignNode.h"

namespace mlir::tsc::fromonnx {

using foreign::ForeignNode;
using MaybeValue = FailureOr<Value>;

/// A same-type unary op (abs, sqrt, exp, ...) on `x`.
template <typename OpTy> MaybeValue unary(ForeignNode &node, MaybeValue x) {
  if (failed(x))
    return failure();
  return Value(OpTy::create(node.getRewriter(), node.getLoc(), *x));
}

/// A broadcasting binary op (add, mul, equal, ...) on `lhs` and `rhs`.
template <typename OpTy>
MaybeValue binary(ForeignNode &node, MaybeValue lhs, MaybeValue rhs) {
  if (failed(lhs) || failed(rhs))
    return failure();
  return node.create<OpTy>({*lhs, *rhs});
}

/// `condition ? yes : no`, broadcast.
inline MaybeValue select(ForeignNode &node, MaybeValue condition,
                         MaybeValue yes, MaybeValue no) {
  if (failed(condition) || failed(yes) || failed(no))
    return failure();
  return node.create<WhereOp>({*condition, *yes, *no});
}

/// A reduction (reduce_sum, reduce_max, ...) of `x` over `dims`.
template <typename OpTy>
MaybeValue reduce(ForeignNode &node, MaybeValue x, ArrayRef<int64_t> dims,
                  bool keepdim) {
  if (failed(x))
    return failure();
  typename OpTy::Properties properties;
  properties.dims = node.getRewriter().getDenseI64ArrayAttr(dims);
  if (keepdim)
    properties.keepdim = node.getRewriter().getUnitAttr();
  return node.create<OpTy>({*x}, properties);
}

/// Entry `i` of dim `axis` of `x`, that dim dropped.
MaybeValue entry(ForeignNode &node, MaybeValue x, int64_t i, int64_t axis = 0);
/// `x` with a size-1 dim inserted at `dim`.
MaybeValue insertDim(ForeignNode &node, MaybeValue x, int64_t dim);
/// `xs` concatenated along `axis`.
MaybeValue concat(ForeignNode &node, ArrayRef<Value> xs, int64_t axis);

/// The element type of a ranked tensor value.
inline Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

} // namespace mlir::tsc::fromonnx

#endif // TSC_PASSES_CONVERSION_ONNXTOTSC_COMPOSE_H
