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

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tsc {

/// Unary, binary (numpy broadcasting), where, cast, clip and activations.
void populateTscElementwiseToLinalgPatterns(RewritePatternSet &patterns);
/// Reductions, softmax, log_softmax, layer_norm and rms_norm.
void populateTscReductionToLinalgPatterns(RewritePatternSet &patterns);
/// matmul and linear.
void populateTscContractionToLinalgPatterns(RewritePatternSet &patterns);
/// attention, as a tiled online-softmax loop nest; with
/// `maxKeyValueBlockBytes`, blocks of fewer keys (the largest power of 2
/// that fits) where 64 keys' K and V rows would take more (half of it for
/// fp16 tiles, whose Q, S, P and O the CUDA target keeps in
/// shared memory as well). With `bf16Products` (a host with AMX-BF16 or
/// AVX512_BF16), bf16 attention, and f32 attention marked bf16_products,
/// whose head dims are whole tiles keeps Q, K, V and P in bf16 and computes
/// S = Q·Kᵀ from K as it is ([Bk, D]); the host codegen packs the products'
/// right operands and emits AMX tiles or vdpbf16ps
/// (compiler/target/host/PairProducts.cpp).
void populateTscAttentionToLinalgPatterns(RewritePatternSet &patterns,
                                          int64_t maxKeyValueBlockBytes = 0,
                                          bool bf16Products = false);
/// Data movement: transpose, expand, concat, slice, split, gather, range,
/// trilu, reshape, squeeze, unsqueeze.
void populateTscShapeToLinalgPatterns(RewritePatternSet &patterns);
/// Quantize, dequantize and quantized matmul.
void populateTscQuantizationToLinalgPatterns(RewritePatternSet &patterns);
/// Scans, index reductions and selection (TscScanOps.td).
void populateTscScanToLinalgPatterns(RewritePatternSet &patterns);
/// Gathers, scatters, padding and tiling (TscIndexingOps.td).
void populateTscIndexingToLinalgPatterns(RewritePatternSet &patterns);
/// Convolutions, pooling, resizing and sampling (TscConvolutionOps.td).
void populateTscConvolutionToLinalgPatterns(RewritePatternSet &patterns);
/// Its sampling ops: resize, grid_sample, roi_align, deform_conv and
/// max_unpool (added by populateTscConvolutionToLinalgPatterns).
void populateTscSamplingToLinalgPatterns(RewritePatternSet &patterns);

/// All of the above.
void populateTscToLinalgPatterns(RewritePatternSet &patterns,
                                 int64_t maxKeyValueBlockBytes = 0,
                                 bool bf16Products = false);

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

/// GELU of float scalar `x`: `x·Φ(x)` through erf, or by the tanh
/// approximation when `tanh` (tsc.gelu, and tsc.linear's activation).
Value buildGelu(OpBuilder &b, Location loc, Value x, bool tanh);

/// A scalar of `type` (float or integer) with value `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// Converts scalar `v` to `to` with ONNX Cast semantics (float→int
/// truncates; to bool is `!= 0`; unsigned ints convert as unsigned).
Value convertScalar(OpBuilder &b, Location loc, Value v, Type from, Type to);

/// How a conversion to an 8- or 4-bit float treats what the type cannot
/// hold (tsc.cast's `saturate` and `round_mode`).
struct MinifloatCast {
  bool saturate = false;
  ExponentRounding roundMode = ExponentRounding::up;
};

/// Whether `type` is an 8- or 4-bit float (f8E4M3FN, f8E4M3FNUZ, f8E5M2,
/// f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN), which convert in software.
bool isMinifloat(Type type);

/// Converts scalar `v` (signless) from `from` to `to`, one of them a
/// minifloat, by ONNX Cast's rules for it (Minifloat.cpp).
Value convertMinifloat(OpBuilder &b, Location loc, Value v, Type from, Type to,
                       const MinifloatCast &how);

/// Builds a `linalg.generic` reading `inputs` through `inputMaps` and
/// writing `init` through `initMap`, with `iterators` over the loops; `body`
/// gets the input elements followed by the current `init` element and
/// returns the element to yield.
Value buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                   ArrayRef<AffineMap> inputMaps, Value init, AffineMap initMap,
                   ArrayRef<utils::IteratorType> iterators,
                   function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// A parallel `linalg.generic` producing `type` (sizes as for
/// createEmptyOfSizes) whose `body` computes each element from `inputs`
/// (read through `maps`; block arguments, then the init element) and
/// `linalg.index`, extracting from other tensors itself: gathers, pads.
Value buildIndexed(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<OpFoldResult> sizes, ValueRange inputs,
                   ArrayRef<AffineMap> maps,
                   function_ref<Value(OpBuilder &, Location, ValueRange)> body);

/// `tensor.empty` of `type`; `sizes` has one entry per dim, and the entries
/// of `type`'s dynamic dims become its dynamic sizes.
Value createEmptyOfSizes(OpBuilder &b, Location loc, RankedTensorType type,
                         ArrayRef<OpFoldResult> sizes);

/// A tensor of `type` (sizes as for createEmptyOfSizes) filled with the
/// scalar `value` by `linalg.fill`.
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<OpFoldResult> sizes, Value value);

/// The element type that float statistics and contractions accumulate in:
/// f32 for narrower floats, `element` itself otherwise.
Type getAccumulatorType(Type element);

/// `tensor` converted element by element to `element` (ONNX Cast rules);
/// `tensor` itself when its element type is `element` already.
Value convertElements(OpBuilder &b, Location loc, Value tensor, Type element);

/// The product of the sizes of `dims` of `tensor`, as an index.
Value getElementCount(OpBuilder &b, Location loc, Value tensor,
                      ArrayRef<int64_t> dims);

/// The signless integer type of `type`'s width for signed and unsigned
/// integers (arith takes signless operands only); `type` otherwise.
Type getSignlessType(Type type);

/// Views scalar `v` of a signed or unsigned integer type as signless (a
/// no-op cast that LLVM lowering erases), so that arith can compute on it.
Value toSignless(OpBuilder &b, Location loc, Value v);

/// The inverse of toSignless: views signless `v` as `type`.
Value fromSignless(OpBuilder &b, Location loc, Value v, Type type);

/// A scalar constant of any int (any signedness), float or index `type`.
Value typedConstant(OpBuilder &b, Location loc, Type type, double value);

/// The reassociation that inserts or drops the dims flagged in `isUnit`
/// (all of static size 1): each group holds one other dim, leading unit dims
/// join the first group and the rest join the group before them.
SmallVector<ReassociationIndices>
getUnitDimReassociation(ArrayRef<bool> isUnit);

/// `value` reshaped to `resultType` by inserting the size-1 dims flagged in
/// `isUnit` (one flag per result dim), with `tensor.expand_shape`.
Value insertUnitDims(OpBuilder &b, Location loc, Value value,
                     RankedTensorType resultType, ArrayRef<bool> isUnit);

/// Softmax (or log-softmax when `log`) of `input` along `axis`, numerically
/// stable (max subtracted), with statistics in getAccumulatorType; the
/// result has `input`'s shape and `resultElement` elements.
Value buildSoftmax(OpBuilder &b, Location loc, Value input, int64_t axis,
                   Type resultElement, bool log);

/// numpy matmul of `lhs` ([..., M, K] or [K]) and `rhs` ([..., K, N] or
/// [K]) as one linalg.generic over (batch..., m, n, k) with broadcasting
/// batch maps, accumulating floats in getAccumulatorType and 8/16-bit
/// integers (extended by their signedness) in the result's integer type.
Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  RankedTensorType resultType);

} // namespace tolinalg
} // namespace mlir::tsc

#endif // TSC_PASSES_CONVERSION_TSCTOLINALG_TSCTOLINALG_H
