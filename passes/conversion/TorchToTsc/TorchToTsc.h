//===- TorchToTsc.h - converters from TorchScript nodes to tsc --*- C++ -*-===//
//
// How the TorchScript importer represents TorchScript values, which the
// converters rely on:
//   - Tensor: a tensor value (`none`-typed until its producer is converted);
//   - int, float, bool: 0-d `i64`, `f64`, `i1` tensors (constants, or
//     computed: `aten::size` gives index arithmetic on dims);
//   - int[]: a 1-D `i64` tensor (a constant, or `prim::ListConstruct`
//     converted to `tensor.from_elements` once its elements are known);
//   - Tensor[]: a `prim::ListConstruct` read by its consumer (aten::cat);
//   - a list only unpacked: the producer's results (aten::split, size);
//   - None, str, Device: `tsc.none`, with the constant in the node's
//     attributes under the schema's argument name (`approximate = "tanh"`),
//     and the overload name as `overload` (`to` with `overload = "dtype"`).
// Converters live one file per op family, registered by populate*Converters
// under `aten::<op>` / `prim::<op>` at version 0: libtorch upgrades archives
// to its own operator version when loading them.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_CONVERSION_TORCHTOTSC_TORCHTOTSC_H
#define TSC_PASSES_CONVERSION_TORCHTOTSC_TORCHTOTSC_H

#include "passes/conversion/Foreign/Builders.h"

namespace mlir::tsc::fromtorch {

using foreign::ForeignConverters;
using foreign::ForeignNode;
using Values = SmallVector<Value>;

/// The element type of a torch ScalarType code (`torch.float32` is 6), or
/// null for codes tsc does not support.
Type elementTypeOfScalarType(MLIRContext *ctx, int64_t code);
/// The ScalarType code of `element`, or -1.
int64_t scalarTypeOf(Type element);

/// The overload the node was written against (`""` for the default one).
StringRef overload(ForeignNode &node);

/// Operand `i` as a constant integer (an int argument).
FailureOr<int64_t> intArg(ForeignNode &node, unsigned i);

/// Operand `i` as a constant number; `absent` when it is None.
FailureOr<double> scalarArg(ForeignNode &node, unsigned i, double absent);
/// The element type named by the dtype argument `i` (a ScalarType code);
/// `absent` when it is None.
FailureOr<Type> dtypeArg(ForeignNode &node, unsigned i, Type absent);
/// `x` cast to the dtype argument `i` (a ScalarType code); `x` itself when
/// the argument is None.
FailureOr<Value> castToDtypeArg(ForeignNode &node, Value x, unsigned i);

/// The tensors of the Tensor[] operand `i` (a `prim::ListConstruct`); fails
/// while one of them is not converted.
FailureOr<SmallVector<TypedValue<RankedTensorType>>>
tensorList(ForeignNode &node, unsigned i);

/// The element type torch computes for an op on `operands`: dimensioned
/// tensors decide; 0-d ones (Python scalars) only raise the category
/// (bool < int < float; a float scalar with integer tensors gives f32).
/// `zeroDimTensors[i]`, where given, says that a 0-d operand `i` is a Tensor
/// of the op's schema, not a Python scalar: torch ranks those between the
/// two (a 0-d f32 tensor with a Python float gives f32, as in
/// `torch.where(mask, torch.zeros(()), torch.finfo(dtype).min)`).
Type promotedElementType(ArrayRef<Value> operands,
                         ArrayRef<bool> zeroDimTensors = {});
/// `operands` cast to `promotedElementType(operands, zeroDimTensors)`.
SmallVector<Value> promoted(ForeignNode &node, ArrayRef<Value> operands,
                            ArrayRef<bool> zeroDimTensors = {});

void populatePrimConverters(ForeignConverters &converters);
void populateElementwiseConverters(ForeignConverters &converters);
void populateShapeConverters(ForeignConverters &converters);
void populateNNConverters(ForeignConverters &converters);

} // namespace mlir::tsc::fromtorch

#endif // TSC_PASSES_CONVERSION_TORCHTOTSC_TORCHTOTSC_H
