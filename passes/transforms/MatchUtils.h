//===- MatchUtils.h - small matchers shared by the fusion passes -*- C++ -*-===//

#ifndef TSC_PASSES_TRANSFORMS_MATCHUTILS_H
#define TSC_PASSES_TRANSFORMS_MATCHUTILS_H

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/Matchers.h"

namespace mlir::tsc {

/// The value of a floating-point splat constant, if `value` is one.
inline std::optional<double> splatValue(Value value) {
  SplatElementsAttr splat;
  if (!value || !matchPattern(value, m_Constant(&splat)) ||
      !isa<FloatType>(splat.getElementType()))
    return std::nullopt;
  return splat.getSplatValue<APFloat>().convertToDouble();
}

/// Whether `value` is a splat constant within `tolerance` (relative) of
/// `expected`: exporters write 1/sqrt(2) and friends at various precisions.
inline bool isSplat(Value value, double expected, double tolerance = 1e-5) {
  std::optional<double> v = splatValue(value);
  return v && std::abs(*v - expected) <= tolerance * std::max(1.0, std::abs(expected));
}

/// Whether `value`'s only users, besides shape bindings, are `n` ops:
/// intermediates of a fused pattern must not be needed elsewhere.
inline bool hasUsesIgnoringBindings(Value value, unsigned n) {
  unsigned count = 0;
  for (Operation *user : value.getUsers())
    if (!isa<BindShapeOp>(user))
      ++count;
  return count == n;
}

/// The operands of a binary op as (matched, other) where `matched` satisfies
/// `pred`, trying both orders (for commutative ops).
template <typename Pred>
inline std::optional<std::pair<Value, Value>> commuted(Operation *op, Pred pred) {
  if (!op || op->getNumOperands() != 2)
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i)
    if (pred(op->getOperand(i)))
      return std::make_pair(op->getOperand(i), op->getOperand(1 - i));
  return std::nullopt;
}

} // namespace mlir::tsc

#endif // TSC_PASSES_TRANSFORMS_MATCHUTILS_H
