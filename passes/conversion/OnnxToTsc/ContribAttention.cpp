//===- ContribAttention.cpp - ONNX Runtime's attention and embedding ops --===//
//
// com.microsoft Attention (packed QKV projection), MultiHeadAttention
// (projected Q, K, V, packed or separate) and EmbedLayerNormalization, as
// ONNX Runtime's transformer optimizer writes them for BERT- and GPT-2-style
// models. Each becomes the projection, head split, one tsc.attention and head
// merge of the graph it replaced, so the fuse phase treats it as it treats
// the unfused export. Masks follow ONNX Runtime's CPU kernels: a masked key
// adds `mask_filter_value` (default -10000) to the score, so that a row whose
// keys are all masked averages them all, as ONNX Runtime's does.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

FailureOr<Value> unsqueeze(ForeignNode &node, Value x, ArrayRef<int64_t> dims) {
  UnsqueezeOp::Properties properties;
  properties.dims = node.getRewriter().getDenseI64ArrayAttr(dims);
  return node.create<UnsqueezeOp>({x}, properties);
}

FailureOr<Value> concat(ForeignNode &node, ValueRange xs, int64_t axis) {
  ConcatOp::Properties properties;
  properties.axis = node.getRewriter().getI64IntegerAttr(axis);
  return node.create<ConcatOp>(xs, properties);
}

/// Keys 0 .. `keys`-1 as a [keys] i64 range.
FailureOr<Value> keyPositions(ForeignNode &node, OpFoldResult keys) {
  Builder b(node.getContext());
  return buildRange(node, b.getI64Type(),
                    {b.getI64IntegerAttr(0), keys, b.getI64IntegerAttr(1)});
}

/// The additive mask of ONNX Runtime's attention kernels for a mask input
/// in one of its formats, over `keys` key positions of batch `batch`: 0
/// where a key is kept, `filter` where it is masked; shaped to broadcast to
/// [B, heads, queries, keys] ([B, 1, 1, keys] or [B, 1, queries, keys]).
/// - [B, keys] (or [B, queries, keys]): a raw mask, kept where > 0;
/// - [B]: right padding, the length of each row's keys;
/// - [2B]: left and right padding, exclusive ends then inclusive starts.
FailureOr<Value> paddingMask(ForeignNode &node, Value mask, OpFoldResult keys,
                             Type element, double filter, int64_t batch) {
  auto type = cast<RankedTensorType>(mask.getType());
  FailureOr<Value> keep;
  if (type.getRank() == 2 || type.getRank() == 3) {
    FailureOr<Value> positive =
        node.create<GreaterOp>({mask, node.scalar(type.getElementType(), 0)});
    if (failed(positive))
      return failure();
    keep = type.getRank() == 2 ? unsqueeze(node, *positive, {1, 2})
                               : unsqueeze(node, *positive, {1});
  } else if (type.getRank() == 1) {
    FailureOr<Value> positions = keyPositions(node, keys);
    if (failed(positions))
      return failure();
    Type i64 = node.getRewriter().getI64Type();
    int64_t size = type.getDimSize(0);
    bool startsToo = !ShapedType::isDynamic(size) &&
                     !ShapedType::isDynamic(batch) && size == 2 * batch &&
                     batch != 0;
    if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(batch) &&
        size != batch && !startsToo)
      return node.fail("a 1-D mask has " + Twine(size) + " entries for batch " +
                       Twine(batch) +
                       " (the (3 * batch + 2) format is not "
                       "supported)");
    // [B] -> [B, 1] bounds against the [keys] positions: [B, keys].
    auto bound = [&](int64_t offset) -> FailureOr<Value> {
      Value bounds = castTo(node, mask, i64);
      if (startsToo) {
        FailureOr<SmallVector<Value>> halves =
            buildSplit(node, cast<TypedValue<RankedTensorType>>(bounds), 0,
                       {batch, batch});
        if (failed(halves))
          return failure();
        bounds = (*halves)[offset];
      }
      return unsqueeze(node, bounds, {1});
    };
    FailureOr<Value> end = bound(0);
    if (failed(end))
      return failure();
    keep = node.create<LessOp>({*positions, *end});
    if (succeeded(keep) && startsToo) {
      FailureOr<Value> start = bound(1);
      if (failed(start))
        return failure();
      FailureOr<Value> before = node.create<LessOp>({*positions, *start});
      if (failed(before))
        return failure();
      Value after = NotOp::create(node.getRewriter(), node.getLoc(), *before);
      keep = node.create<AndOp>({*keep, after});
    }
    if (succeeded(keep))
      keep = unsqueeze(node, *keep, {1, 2});
  } else {
    return node.fail("masks of rank " + Twine(type.getRank()) +
                     " (max_sequence_length masks) are not supported");
  }
  if (failed(keep))
    return failure();
  return node.create<WhereOp>(
      {*keep, node.scalar(element, 0.0), node.scalar(element, filter)});
}

/// The sum of the additive masks that are given (null when none is).
FailureOr<Value> addMasks(ForeignNode &node, Value a, Value b) {
  if (!a || !b)
    return a ? a : b;
  return node.create<AddOp>({a, b});
}

/// Attention over heads already split ([B, H, S, D]): keys and values
/// extended by the past ones when given; returns the merged output [B, S,
/// H*Dv] and the keys and values attended over.
FailureOr<Values> attend(ForeignNode &node, Value q, Value k, Value v,
                         Value pastKey, Value pastValue, Value mask,
                         Value keyMask, double filter) {
  if (pastKey) {
    FailureOr<Value> keys = concat(node, {pastKey, k}, 2);
    FailureOr<Value> values = concat(node, {pastValue, v}, 2);
    if (failed(keys) || failed(values))
      return failure();
    k = *keys, v = *values;
  }
  Type element = cast<RankedTensorType>(q.getType()).getElementType();
  Value additive;
  if (keyMask) {
    FailureOr<Value> padding =
        paddingMask(node, keyMask, node.dimSize(k, 2), element, filter,
                    cast<RankedTensorType>(q.getType()).getDimSize(0));
    if (failed(padding))
      return failure();
    additive = *padding;
  }
  FailureOr<Value> combined = addMasks(node, additive, mask);
  if (failed(combined))
    return failure();
  RewriterBase &rw = node.getRewriter();
  SmallVector<Value> operands = {q, k, v};
  if (*combined)
    operands.push_back(*combined);
  AttentionOp::Properties properties;
  if (node.getInt("unidirectional", 0))
    properties.causal = rw.getUnitAttr();
  if (node.hasAttr("scale"))
    properties.scale = rw.getF64FloatAttr(node.getFloat("scale", 1.0f));
  FailureOr<Value> out = node.create<AttentionOp>(operands, properties);
  if (failed(out))
    return failure();
  FailureOr<Value> merged = mergeHeads(node, *out);
  if (failed(merged))
    return failure();
  return Values{*merged, k, v};
}

/// Attention (com.microsoft): one projection of `input` by the packed Q/K/V
/// weights, heads, an optional KV cache `past` [2, B, H, P, D] whose
/// extension is the `present` output, and masks.
FailureOr<Values> convertAttention(ForeignNode &node) {
  auto input = node.input(0);
  auto weights = node.input(1);
  if (failed(input) || failed(weights))
    return failure();
  if (node.getInt("do_rotary", 0))
    return node.fail("do_rotary is not supported");
  if (node.getInt("past_present_share_buffer", 0) || node.hasInput(6))
    return node.fail("shared past/present buffers are not supported");
  int64_t heads = node.getInt("num_heads", 0);
  if (weights->getType().getRank() != 2)
    return node.fail("the weights must be 2-D");
  int64_t width = weights->getType().getShape().back();
  SmallVector<int64_t> sizes;
  if (std::optional<SmallVector<int64_t>> given =
          node.getInts("qkv_hidden_sizes"))
    sizes = *given;
  else if (!ShapedType::isDynamic(width) && width % 3 == 0)
    sizes = {width / 3, width / 3, width / 3};
  if (sizes.size() != 3 || sizes[0] != sizes[1] ||
      sizes[0] + sizes[1] + sizes[2] != width)
    return node.fail("the weights' " + Twine(width) +
                     " columns do not split into Q, K "
                     "and V of equal Q/K size (qkv_hidden_sizes)");
  FailureOr<Value> projected = node.create<MatmulOp>({*input, *weights});
  if (failed(projected))
    return failure();
  FailureOr<Value> bias = node.optionalInput(2);
  if (failed(bias))
    return failure();
  if (*bias)
    projected = node.create<AddOp>({*projected, *bias});
  if (failed(projected))
    return failure();
  FailureOr<SmallVector<Value>> qkv = buildSplit(
      node, cast<TypedValue<RankedTensorType>>(*projected), 2, sizes);
  if (failed(qkv))
    return failure();
  FailureOr<Value> q = splitHeads(node, (*qkv)[0], heads);
  FailureOr<Value> k = splitHeads(node, (*qkv)[1], heads);
  FailureOr<Value> v = splitHeads(node, (*qkv)[2], heads);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  Value pastKey, pastValue;
  if (node.hasInput(4)) {
    auto past = node.input(4);
    if (failed(past))
      return failure();
    if (past->getType().getRank() != 5 || past->getType().getDimSize(0) != 2)
      return node.fail("past must be [2, batch, heads, past, head size]");
    FailureOr<SmallVector<Value>> halves = buildSplit(node, *past, 0, {1, 1});
    if (failed(halves))
      return failure();
    SqueezeOp::Properties first;
    first.dims = node.getRewriter().getDenseI64ArrayAttr({0});
    FailureOr<Value> key = node.create<SqueezeOp>({(*halves)[0]}, first);
    FailureOr<Value> value = node.create<SqueezeOp>({(*halves)[1]}, first);
    if (failed(key) || failed(value))
      return failure();
    pastKey = *key, pastValue = *value;
  }
  FailureOr<Value> keyMask = node.optionalInput(3);
  FailureOr<Value> bias2 = node.optionalInput(5);
  if (failed(keyMask) || failed(bias2))
    return failure();
  FailureOr<Values> out =
      attend(node, *q, *k, *v, pastKey, pastValue, *bias2, *keyMask,
             node.getFloat("mask_filter_value", -10000.0f));
  if (failed(out))
    return failure();
  if (!node.isOutputUsed(1))
    return Values{(*out)[0]};
  // present = [keys, values] stacked: [2, B, H, T, D].
  FailureOr<Value> keys = unsqueeze(node, (*out)[1], {0});
  FailureOr<Value> values = unsqueeze(node, (*out)[2], {0});
  if (failed(keys) || failed(values))
    return failure();
  FailureOr<Value> present = concat(node, {*keys, *values}, 0);
  if (failed(present))
    return failure();
  return Values{(*out)[0], *present};
}

/// MultiHeadAttention (com.microsoft): Q, K, V already projected, as
/// [B, S, H*D] each, as packed QKV [B, S, H, 3, D] in the query, as packed
/// KV [B, L, H, 2, D] in the key, or K and V as projected heads
/// [B, H, L, D] (cross attention with cached keys); the optional bias is
/// added to the 3-D ones.
FailureOr<Values> convertMultiHeadAttention(ForeignNode &node) {
  auto query = node.input(0);
  if (failed(query))
    return failure();
  if (node.hasInput(8) || node.hasInput(9))
    return node.fail("past_sequence_length and cache_indirection (shared "
                     "buffers, beam search) are not supported");
  if (node.isOutputUsed(3))
    return node.fail("the qk output is not supported");
  int64_t heads = node.getInt("num_heads", 0);
  FailureOr<Value> key = node.optionalInput(1);
  FailureOr<Value> value = node.optionalInput(2);
  FailureOr<Value> bias = node.optionalInput(3);
  if (failed(key) || failed(value) || failed(bias))
    return failure();
  RewriterBase &rw = node.getRewriter();
  // Packed inputs: split the [.., H, n, D] dim n into Q/K/V, [B, S, H, D]
  // each, then to [B, H, S, D].
  auto unpack = [&](Value packed, int64_t n) -> FailureOr<Values> {
    auto type = cast<RankedTensorType>(packed.getType());
    if (type.getRank() != 5 || type.getDimSize(3) != n ||
        type.getDimSize(2) != heads)
      return node.fail("packed inputs must be [batch, seq, " + Twine(heads) +
                       ", " + Twine(n) + ", head size]");
    FailureOr<SmallVector<Value>> parts =
        buildSplit(node, cast<TypedValue<RankedTensorType>>(packed), 3,
                   SmallVector<int64_t>(n, 1));
    if (failed(parts))
      return failure();
    Values out;
    for (Value part : *parts) {
      SqueezeOp::Properties drop;
      drop.dims = rw.getDenseI64ArrayAttr({3});
      FailureOr<Value> squeezed = node.create<SqueezeOp>({part}, drop);
      if (failed(squeezed))
        return failure();
      FailureOr<Value> bhsd = node.transpose(*squeezed, {0, 2, 1, 3});
      if (failed(bhsd))
        return failure();
      out.push_back(*bhsd);
    }
    return out;
  };
  // The bias [Hq + Hk + Hv], split as the 3-D projections need.
  auto biased = [&](Value x, int64_t which) -> FailureOr<Value> {
    if (!*bias)
      return x;
    auto type = cast<RankedTensorType>(x.getType());
    auto biasType = cast<RankedTensorType>((*bias).getType());
    if (biasType.getRank() != 1 || type.getRank() == 0)
      return node.fail("the bias must be 1-D");
    int64_t total = biasType.getDimSize(0);
    int64_t width = type.getShape().back();
    if (ShapedType::isDynamic(total) || ShapedType::isDynamic(width) ||
        total % 3 != 0 || total != 3 * width)
      return node.fail("bias must be [3 * hidden] for equal Q, K and V widths");
    FailureOr<SmallVector<Value>> parts =
        buildSplit(node, cast<TypedValue<RankedTensorType>>(*bias), 0,
                   {width, width, width});
    if (failed(parts))
      return failure();
    return node.create<AddOp>({x, (*parts)[which]});
  };
  Value q, k, v;
  if (query->getType().getRank() == 5) {
    if (*key || *value || *bias)
      return node.fail("packed QKV takes no separate key, value or bias");
    FailureOr<Values> parts = unpack(*query, 3);
    if (failed(parts))
      return failure();
    q = (*parts)[0], k = (*parts)[1], v = (*parts)[2];
  } else {
    FailureOr<Value> qb = biased(*query, 0);
    FailureOr<Value> qh =
        failed(qb) ? FailureOr<Value>(failure()) : splitHeads(node, *qb, heads);
    if (failed(qh))
      return failure();
    q = *qh;
    if (!*key)
      return node.fail("a key is required unless the query packs Q, K and V");
    auto keyType = cast<RankedTensorType>((*key).getType());
    if (keyType.getRank() == 5) {
      if (*value || *bias)
        return node.fail("packed KV takes no separate value or bias");
      FailureOr<Values> parts = unpack(*key, 2);
      if (failed(parts))
        return failure();
      k = (*parts)[0], v = (*parts)[1];
    } else if (keyType.getRank() == 4) {
      // Projected heads from a cache: used as they are.
      if (!*value)
        return node.fail("a value is required with a [B, H, L, D] key");
      k = *key, v = *value;
    } else {
      if (!*value)
        return node.fail("a value is required with a 3-D key");
      FailureOr<Value> kb = biased(*key, 1);
      FailureOr<Value> vb = biased(*value, 2);
      if (failed(kb) || failed(vb))
        return failure();
      FailureOr<Value> kh = splitHeads(node, *kb, heads);
      FailureOr<Value> vh = splitHeads(node, *vb, heads);
      if (failed(kh) || failed(vh))
        return failure();
      k = *kh, v = *vh;
    }
  }
  FailureOr<Value> keyMask = node.optionalInput(4);
  FailureOr<Value> attentionBias = node.optionalInput(5);
  FailureOr<Value> pastKey = node.optionalInput(6);
  FailureOr<Value> pastValue = node.optionalInput(7);
  if (failed(keyMask) || failed(attentionBias) || failed(pastKey) ||
      failed(pastValue))
    return failure();
  if (bool(*pastKey) != bool(*pastValue))
    return node.fail("past_key and past_value go together");
  return attend(node, q, k, v, *pastKey, *pastValue, *attentionBias, *keyMask,
                node.getFloat("mask_filter_value", -10000.0f));
}

/// EmbedLayerNormalization: word, position and (optional) segment
/// embeddings summed and layer-normalized; `mask_index` counts each row's
/// kept (nonzero) mask entries, 0 without a mask; `embedding_sum` is the
/// sum before the norm.
FailureOr<Values> convertEmbedLayerNorm(ForeignNode &node) {
  auto ids = node.input(0);
  auto words = node.input(2);
  auto positionTable = node.input(3);
  auto gamma = node.input(5);
  auto beta = node.input(6);
  if (failed(ids) || failed(words) || failed(positionTable) || failed(gamma) ||
      failed(beta))
    return failure();
  FailureOr<Value> sum = buildGather(node, *words, *ids, 0);
  if (failed(sum))
    return failure();
  // Positions: the given ids ([B, S] or [1, S]), else 0 .. S-1.
  FailureOr<Value> positionIds = node.optionalInput(8);
  if (failed(positionIds))
    return failure();
  Value positions = *positionIds;
  if (!positions) {
    FailureOr<Value> range = keyPositions(node, node.dimSize(*ids, 1));
    if (failed(range))
      return failure();
    positions = *range;
  }
  FailureOr<Value> positional = buildGather(
      node, *positionTable, cast<TypedValue<RankedTensorType>>(positions), 0);
  if (failed(positional))
    return failure();
  sum = node.create<AddOp>({*sum, *positional});
  if (failed(sum))
    return failure();
  if (node.hasInput(1) && node.hasInput(4)) {
    auto segments = node.input(1);
    auto segmentTable = node.input(4);
    if (failed(segments) || failed(segmentTable))
      return failure();
    FailureOr<Value> segment = buildGather(node, *segmentTable, *segments, 0);
    if (failed(segment))
      return failure();
    sum = node.create<AddOp>({*sum, *segment});
    if (failed(sum))
      return failure();
  }
  auto sumType = cast<RankedTensorType>(sum->getType());
  FailureOr<NormStatistics> norm = buildNorm(
      node, *sum, *gamma, *beta, sumType.getRank() - 1,
      node.getFloat("epsilon", 1e-12f), /*rms=*/false, /*statistics=*/false);
  if (failed(norm))
    return failure();
  Value maskIndex;
  if (node.isOutputUsed(1)) {
    Type i32 = node.getRewriter().getI32Type();
    FailureOr<Value> mask = node.optionalInput(7);
    if (failed(mask))
      return failure();
    if (*mask) {
      FailureOr<Value> kept = node.create<GreaterOp>(
          {*mask,
           node.scalar(
               cast<RankedTensorType>((*mask).getType()).getElementType(), 0)});
      if (failed(kept))
        return failure();
      ReduceSumOp::Properties rows;
      rows.dims = node.getRewriter().getDenseI64ArrayAttr({1});
      FailureOr<Value> count =
          node.create<ReduceSumOp>({castTo(node, *kept, i32)}, rows);
      if (failed(count))
        return failure();
      maskIndex = *count;
    } else {
      maskIndex =
          buildFilled(node, {node.dimSize(*ids, 0)},
                      DenseElementsAttr::get(RankedTensorType::get({}, i32),
                                             static_cast<int32_t>(0)));
    }
  }
  return Values{norm->result, maskIndex, *sum};
}

} // namespace

void fromonnx::populateContribAttentionConverters(ForeignConverters &c) {
  c.add("com.microsoft::Attention", 1, convertAttention);
  c.add("com.microsoft::MultiHeadAttention", 1, convertMultiHeadAttention);
  c.add("com.microsoft::EmbedLayerNormalization", 1, convertEmbedLayerNorm);
  populateGroupQueryAttentionConverters(c);
}
