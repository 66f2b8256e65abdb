//===- OnnxToTsc.h - converters from ONNX nodes to tsc ops -----*- C++ -*-===//
//
// ONNX converters live one file per op family and are registered by
// populate*Converters; the node helper, registry and driver they use are in
// passes/conversion/Foreign.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_CONVERSION_ONNXTOTSC_ONNXTOTSC_H
#define TSC_PASSES_CONVERSION_ONNXTOTSC_ONNXTOTSC_H

#include "passes/conversion/Foreign/ForeignNode.h"

namespace mlir::tsc::fromonnx {

using foreign::ForeignConverters;
using foreign::ForeignNode;

/// The element type for ONNX's TensorProto.DataType `type`; null for types
/// tsc has not.
Type onnxElementType(MLIRContext *ctx, int64_t type);

void populateElementwiseConverters(ForeignConverters &converters);
void populateMatmulConverters(ForeignConverters &converters);
void populateReductionConverters(ForeignConverters &converters);
void populateShapeConverters(ForeignConverters &converters);
void populateAttentionConverters(ForeignConverters &converters);
void populateQuantizationConverters(ForeignConverters &converters);
void populateElementwiseMathConverters(ForeignConverters &converters);
void populateNormalizationConverters(ForeignConverters &converters);
void populateIndexingConverters(ForeignConverters &converters);
void populateConvolutionConverters(ForeignConverters &converters);
void populateRecurrentConverters(ForeignConverters &converters);
/// If, Loop and Scan: their subgraphs spliced into the graph.
void populateControlFlowConverters(ForeignConverters &converters);
/// Clones subgraph `body` before the node with its formal inputs bound to
/// `args`; returns the values it yields (foreign nodes' results until they
/// are converted).
SmallVector<Value> cloneSubgraph(ForeignNode &node, Block *body,
                                 ValueRange args);
/// A new foreign ONNX node `opType` of opset `version` before the node,
/// with one result: for what follows values of cloned subgraphs, which have
/// no types yet.
Value buildForeignNode(ForeignNode &node, StringRef opType, int64_t version,
                       ValueRange inputs, ArrayRef<NamedAttribute> attrs = {});
/// LinearAttention (opset 27), its recurrence unrolled.
void populateLinearAttentionConverters(ForeignConverters &converters);
/// ONNX Runtime's contrib ops (com.microsoft) and its standard-domain
/// SimplifiedLayerNormalization.
void populateContribConverters(ForeignConverters &converters);
/// ONNX Runtime's attention family (com.microsoft Attention,
/// MultiHeadAttention, RotaryEmbedding, EmbedLayerNormalization).
void populateContribAttentionConverters(ForeignConverters &converters);
/// ONNX Runtime's GroupQueryAttention (com.microsoft), which the
/// generative-AI model builder writes.
void populateGroupQueryAttentionConverters(ForeignConverters &converters);

/// ONNX Runtime's quantized matmuls (MatMulNBits, DynamicQuantizeMatMul,
/// MatMulIntegerToFloat).
void populateContribQuantizationConverters(ForeignConverters &converters);

/// ONNX Runtime's quantized elementwise ops and softmax of QOperator models
/// (QLinearAdd, QLinearMul, QLinearSoftmax).
void populateContribQLinearConverters(ForeignConverters &converters);

/// DynamicQuantizeLinear of `x`: uint8 values, their 0-d scale and zero
/// point, per tensor, with min and max widened to include 0.
FailureOr<SmallVector<Value>>
buildDynamicQuantize(ForeignNode &node, TypedValue<RankedTensorType> x);

/// `x` widened to i32 minus the node's zero point input `zp` when given, for
/// integer matmuls. With `perRow` (A's, as MatMulInteger has it) a 1-D zero
/// point holds one entry per row of A, [M], and becomes [M, 1].
FailureOr<Value> buildZeroPointShift(ForeignNode &node, Value x, unsigned zp,
                                     bool perRow);

/// QLinear ops' output: rint(`acc` (i32) * `multiplier` + zero point)
/// computed in f64 as ONNX's definition does, saturated to the type of the
/// zero point input `zeroPointInput` (`element` without it).
FailureOr<Value> buildRequantize(ForeignNode &node, Value acc, Value multiplier,
                                 unsigned zeroPointInput, Type element);

/// [B, S, H*D] -> [B, H, S, D] for `heads` heads (the hidden size static).
FailureOr<Value> splitHeads(ForeignNode &node, Value x, int64_t heads);
/// How a rotary embedding rotates: `heads` splits a 3-D input; `rotaryDim`
/// leading dims of each head rotate (0: all); pairs are (2i, 2i+1) when
/// `interleaved`, else (i, i + rotaryDim / 2).
struct RotarySpec {
  int64_t heads = 0;
  int64_t rotaryDim = 0;
  bool interleaved = false;
};
/// Rotary embedding of `x` ([B, S, H*D] or [B, H, S, D]) by the rows
/// `positions` (null: 0, 1, ...; else [B or 1, S] indices) of the cos/sin
/// caches ([positions, rotary / 2]), as ONNX's RotaryEmbedding (opset 23)
/// and ONNX Runtime's (com.microsoft) have it.
FailureOr<Value> buildRotaryEmbedding(ForeignNode &node,
                                      TypedValue<RankedTensorType> x,
                                      Value cosCache, Value sinCache,
                                      Value positions, const RotarySpec &spec);
/// [B, H, S, D] -> [B, S, H*D].
FailureOr<Value> mergeHeads(ForeignNode &node, Value x);
/// `x` [B, H, S, D] with each head repeated `times` times in a row,
/// [h0, h0, h1, h1, ...]: grouped-query K/V for the query heads.
FailureOr<Value> repeatHeads(ForeignNode &node, Value x, int64_t times);
/// DFT, the window functions (Hann, Hamming, Blackman) and Det.
void populateSignalConverters(ForeignConverters &converters);
/// TfIdfVectorizer (integer pools) and ai.onnx.ml's ArrayFeatureExtractor
/// and TreeEnsemble.
void populateMachineLearningConverters(ForeignConverters &converters);
/// Resize, GridSample and the family's other sampling ops (called by
/// populateConvolutionConverters).
void populateSamplingConverters(ForeignConverters &converters);
/// NonZero, Compress and Unique: results whose size is a count a run
/// computes.
void populateDataDependentConverters(ForeignConverters &converters);

/// The most elements a Pad given its pads at run time may produce, at the
/// pads' maxima: 2^22 (16 MiB of f32).
constexpr int64_t kRuntimePadElements = int64_t(1) << 22;
/// The largest pad p, at most kDefaultValueMax, for which `type` (static)
/// padded by p at both ends of every dim holds at most kRuntimePadElements
/// elements: the bound of pads read at run time.
int64_t runtimePadBound(RankedTensorType type);

/// `x` (of static shape) with `low[d]`/`high[d]` elements (index values known
/// at run time; null for a dim left as it is; negative ones crop) added at
/// the ends of each dim as `mode` fills them, constant mode with the 0-d
/// `value` (null: zero). Each such dim of the result is a symbol defined
/// from the pads; where `valid` (an i1, may be null) is false or a dim would
/// be negative it is -1, which the run refuses naming `why`.
FailureOr<Value> buildPadAtRuntime(ForeignNode &node,
                                   TypedValue<RankedTensorType> x,
                                   ArrayRef<Value> low, ArrayRef<Value> high,
                                   PadMode mode, Value value, Value valid,
                                   StringRef why);

} // namespace mlir::tsc::fromonnx

#endif // TSC_PASSES_CONVERSION_ONNXTOTSC_ONNXTOTSC_H
