//===- Builders.h - shape ops both importers' converters build --*- C++ -*-===//

#ifndef TSC_PASSES_CONVERSION_FOREIGN_BUILDERS_H
#define TSC_PASSES_CONVERSION_FOREIGN_BUILDERS_H

#include "passes/conversion/Foreign/ForeignNode.h"

namespace mlir::tsc::foreign {

/// The integer held by a shape element, if it is a constant.
std::optional<int64_t> constantOf(OpFoldResult ofr);
/// A shape element as an index size (constants stay attributes).
OpFoldResult asIndex(ForeignNode &node, OpFoldResult element);

/// `x` reshaped to `shape`: one entry may be -1 (inferred, with equal
/// factors cancelled so [b, s, -1] of [b, s, 4, 16] is 64); a 0 copies the
/// input's dim when `zeroCopiesDim` (ONNX without allowzero).
FailureOr<Value> buildReshape(ForeignNode &node, TypedValue<RankedTensorType> x,
                              ArrayRef<OpFoldResult> shape, bool zeroCopiesDim);

/// `tsc.slice` of `x` with these offsets, sizes and strides (constants or
/// index values), its result as static as they allow.
Value buildSliceOp(ForeignNode &node, TypedValue<RankedTensorType> x,
                   ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                   ArrayRef<OpFoldResult> strides);

/// Python/ONNX slicing of `x` along `axes`: start and end clamped to the dim,
/// negative values counting from the end, a nonzero constant step. With
/// run-time bounds: step 1, a constant non-negative start, and an end that
/// is a run-time size, "the end" (>= 2^31) or negative.
FailureOr<Value> buildSlice(ForeignNode &node, TypedValue<RankedTensorType> x,
                            ArrayRef<OpFoldResult> starts,
                            ArrayRef<OpFoldResult> ends,
                            ArrayRef<int64_t> axes, ArrayRef<int64_t> steps);

/// `x` split along `axis` into pieces of `sizes`.
FailureOr<SmallVector<Value>> buildSplit(ForeignNode &node,
                                         TypedValue<RankedTensorType> x,
                                         int64_t axis, ArrayRef<int64_t> sizes);

/// numpy broadcast of `x` to `shape` (1 keeps the input's dim).
FailureOr<Value> buildExpand(ForeignNode &node, TypedValue<RankedTensorType> x,
                             ArrayRef<OpFoldResult> shape);

/// `x` with each dim d repeated `repeats[d]` times (ONNX Tile, torch's
/// repeat): x viewed [1, n0, 1, n1, ...], broadcast to [r0, n0, r1, n1,
/// ...] and merged. Repeats are constants or index values; one per dim.
FailureOr<Value> buildTile(ForeignNode &node, TypedValue<RankedTensorType> x,
                           ArrayRef<OpFoldResult> repeats);

/// A tensor of `shape` filled with the one element of `value`.
Value buildFilled(ForeignNode &node, ArrayRef<OpFoldResult> shape,
                  DenseElementsAttr value);

/// Elements of `data` at `indices` along `axis`; negative indices count
/// from the end (wrapped now when constant, at run time otherwise: the wrap
/// folds away for indices that cannot be negative, WhereOp::fold).
FailureOr<Value> buildGather(ForeignNode &node,
                             TypedValue<RankedTensorType> data,
                             TypedValue<RankedTensorType> indices,
                             int64_t axis);

/// A 1-D range `start, start + delta, ...` below `limit` (`bounds`, in that
/// order): for an integer `element` each bound is a constant or an
/// index/integer value, for a float one a constant (FloatAttr).
FailureOr<Value> buildRange(ForeignNode &node, Type element,
                            ArrayRef<OpFoldResult> bounds);

/// A convolution of `x` [N, C, spatial...] with `w` [F, C / group, k...]
/// plus an optional `bias` [F], `pads` as ONNX gives them (all begins, then
/// all ends): ungrouped float ones as im2col and a GEMM, others as tsc.conv.
FailureOr<Value> buildConvolution(ForeignNode &node, Value x,
                                  TypedValue<RankedTensorType> w, Value bias,
                                  ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> pads,
                                  ArrayRef<int64_t> dilations, int64_t group);

/// GELU of `x` with ONNX's and torch's `approximate` spelling ("none",
/// "tanh").
FailureOr<Value> buildGelu(ForeignNode &node, Value x, StringRef approximate);

/// A norm's result and, when asked for, its statistics over the normalized
/// dims (kept as size-1 dims): the mean (layer norms only) and
/// 1/sqrt(variance + epsilon), the variance being the mean square for RMS
/// norms. Null where not computed.
struct NormStatistics {
  Value result, mean, invStdDev;
};

/// A layer norm, or an RMS norm when `rms`, of `x` over dims [axis, rank),
/// with `scale` and `bias` when not null (an RMS norm takes no bias); with
/// `statistics`, also the statistics training graphs export.
FailureOr<NormStatistics> buildNorm(ForeignNode &node, Value x, Value scale,
                                    Value bias, int64_t axis, double epsilon,
                                    bool rms, bool statistics);

/// The element count of `x` as a 0-d i64 size.
Value buildNumel(ForeignNode &node, Value x);

/// `x` converted to `element`, keeping its shape.
Value castTo(ForeignNode &node, Value x, Type element);

} // namespace mlir::tsc::foreign

#endif // TSC_PASSES_CONVERSION_FOREIGN_BUILDERS_H
