//===- TscTraits.h - op traits the tsc passes query -------------*- C++ -*-===//
//
// Marker traits declared in TscBase.td (Tsc_Elementwise, Tsc_Fusible, the
// precision policy, ...): passes ask `op->hasTrait<OpTrait::tsc::Elementwise>()`
// instead of keeping lists of ops, so a new op states these facts once, with
// its definition.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_DIALECTS_TSC_IR_TSCTRAITS_H
#define TSC_DIALECTS_TSC_IR_TSCTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::OpTrait::tsc {

#define TSC_MARKER_TRAIT(NAME)                                                 \
  template <typename ConcreteType>                                             \
  class NAME : public ::mlir::OpTrait::TraitBase<ConcreteType, NAME> {};

/// Each result element depends only on the operand elements at its position.
TSC_MARKER_TRAIT(Elementwise)
/// The result's shape is the numpy broadcast of the operands' shapes.
TSC_MARKER_TRAIT(Broadcasting)
/// The result's shape is the first operand's.
TSC_MARKER_TRAIT(ShapeOfFirstOperand)
/// The planner may chain the op's kernel with fusible neighbours.
TSC_MARKER_TRAIT(Fusible)
/// The result holds the first operand's elements, all of them, and no others.
TSC_MARKER_TRAIT(RearrangesElements)
/// Precision policy: computes on half when its inputs are model data.
TSC_MARKER_TRAIT(HalfCompute)
/// Precision policy: kept in f32 for its results' range.
TSC_MARKER_TRAIT(KeepsF32ForRange)
/// Precision policy: takes its operands' precision.
TSC_MARKER_TRAIT(FollowsPrecision)
/// Precision policy: computes on half even next to f32 values.
TSC_MARKER_TRAIT(AlwaysHalf)

#undef TSC_MARKER_TRAIT

} // namespace mlir::OpTrait::tsc

namespace mlir::tsc {

/// Whether the result of `op` has the shape of its first operand (its
/// declared traits say so).
inline bool hasShapeOfFirstOperand(Operation *op) {
  return op->hasTrait<::mlir::OpTrait::SameOperandsAndResultType>() ||
         op->hasTrait<::mlir::OpTrait::tsc::ShapeOfFirstOperand>();
}

} // namespace mlir::tsc

#endif // TSC_DIALECTS_TSC_IR_TSCTRAITS_H
