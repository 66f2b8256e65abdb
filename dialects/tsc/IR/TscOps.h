//===- TscOps.h - tsc op classes and the helpers their ODS uses -*- C++ -*-===//

#ifndef TSC_DIALECTS_TSC_IR_TSCOPS_H
#define TSC_DIALECTS_TSC_IR_TSCOPS_H

#include "dialects/tsc/IR/ShapeDerivation.h"
#include "dialects/tsc/IR/TscDialect.h"
#include "dialects/tsc/IR/TscTraits.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tsc {

/// True if each `actual` type is a ranked tensor with the element type and
/// rank of the matching `inferred` type and agrees with it on every dim that
/// the inferred type knows statically. Lets passes refine result types.
bool areRefinements(TypeRange inferred, TypeRange actual);

/// Result type of an elementwise op over `operands` with numpy broadcasting.
/// All operands share one element type; `comparison` makes the result `i1`.
LogicalResult inferElementwiseResult(std::optional<Location> loc,
                                     TypeRange operands, bool comparison,
                                     SmallVectorImpl<Type> &results);

/// Result type of a reduction of `input` over `dims`.
LogicalResult inferReductionResult(std::optional<Location> loc, Value input,
                                   ArrayRef<int64_t> dims, bool keepdim,
                                   SmallVectorImpl<Type> &results);

/// The op whose values `value` holds, looking through ops that convert
/// them (tsc.cast) or rearrange them (Tsc_RearrangesElements); null for a
/// block argument.
Operation *getValuesProducer(Value value);

/// The float constant `attr` converted to float type `to` (round to nearest
/// even), splats and blobs of any size; null when `attr` is not a float
/// constant with its data. With `saturate`, finite values beyond `to`'s range
/// become its largest finite value instead of infinity (`--precision`'s
/// weights: a mask constant of -3.4e38 stays finite in fp16).
Attribute convertFloatConstant(Attribute attr, RankedTensorType to,
                               bool saturate);

} // namespace mlir::tsc

#define GET_OP_CLASSES
#include "dialects/tsc/IR/TscOps.h.inc"

#endif // TSC_DIALECTS_TSC_IR_TSCOPS_H
