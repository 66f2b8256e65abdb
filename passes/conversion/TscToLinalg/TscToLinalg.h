//===- TscToLinalg.h - tsc ops to linalg/tensor on tensors -------*- C++ -*-===//
//
// The `lower` phase's first step: each tsc compute op becomes linalg (mostly
// linalg.generic), tensor, arith and math ops on tensors, in
// destination-passing style, so that one-shot bufferization can place every
// result in the buffer the memory plan gave it. Dynamic dims are read with
// tensor.dim from operands or from the op's own index operands, so the
// patterns need no symbol table.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_CONVERSION_TSCTOLINALG_TSCTOLINALG_H
#define TSC_PASSES_CONVERSION_TSCTOLINALG_TSCTOLINALG_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tsc {

/// Unary, binary (numpy broadcasting), where, cast, clip and activations.
void populateTscElementwiseToLinalgPatterns(RewritePatternSet &patterns);
/// Reductions, softmax, log_softmax, layer_norm and rms_norm.
void populateTscReductionToLinalgPatterns(RewritePatternSet &patterns);
/// matmul, linear and attention.
void populateTscContractionToLinalgPatterns(RewritePatternSet &patterns);
/// Data movement: transpose, expand, concat, slice, split, gather, range,
/// trilu, reshape, squeeze, unsqueeze.
void populateTscShapeToLinalgPatterns(RewritePatternSet &patterns);
/// Quantize, dequantize and quantized matmul.
void populateTscQuantizationToLinalgPatterns(RewritePatternSet &patterns);

/// All of the above.
void populateTscToLinalgPatterns(RewritePatternSet &patterns);

namespace tolinalg {

/// `tensor.empty` of `type`, its dynamic dims given in order by `dynamicDims`.
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                  ValueRange dynamicDims);

/// The dynamic dims of a broadcasting elementwise result of type
/// `resultType`, each read with tensor.dim from an operand whose
/// right-aligned dim is dynamic too (symbolic shapes make them equal);
/// failure if some dim has no such operand.
FailureOr<SmallVector<Value>> getBroadcastDims(OpBuilder &b, Location loc,
                                               RankedTensorType resultType,
                                               ValueRange operands);

/// The indexing map reading `operandType` (right-aligned numpy broadcasting)
/// inside a loop nest over `resultType`'s dims: broadcast (size-1 static)
/// dims read index 0.
AffineMap getBroadcastMap(MLIRContext *context, RankedTensorType operandType,
                          RankedTensorType resultType);

/// A `linalg.generic` over `resultType` reading `operands` with numpy
/// broadcasting; `body` computes one result element from the operands'
/// elements (block arguments, in order).
FailureOr<Value> buildElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange operands,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// A scalar of `type` (float or integer) with value `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// Converts scalar `v` to `to` with ONNX Cast semantics (float→int
/// truncates; to bool is `!= 0`; unsigned ints convert as unsigned).
Value convertScalar(OpBuilder &b, Location loc, Value v, Type from, Type to);

} // namespace tolinalg
} // namespace mlir::tsc

#endif // TSC_PASSES_CONVERSION_TSCTOLINALG_TSCTOLINALG_H
