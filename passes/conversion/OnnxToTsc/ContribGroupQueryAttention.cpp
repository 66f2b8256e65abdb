//===- ContribGroupQueryAttention.cpp - ONNX Runtime's GroupQueryAttention
//-===//
//
// com.microsoft GroupQueryAttention, which ONNX Runtime's generative-AI
// model builder writes for every Llama-, Mistral-, Phi- and Qwen-style
// decoder, as ONNX Runtime's CPU kernel computes it: per-row lengths from
// `seqlens_k` (run-time values), the present KV caches assembled from the
// past and the new keys at each row's offset, rotary embeddings at each
// row's positions, and one grouped-query `tsc.attention` over the present
// cache with the mask the lengths imply. The fuse phase then sees the same
// attention as for an unfused export.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/Foreign/IndexMath.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// A size as a 0-d i64 tensor.
Value sizeTensor(ForeignNode &node, OpFoldResult size) {
  return buildShapeTensor(node.getRewriter(), node.getLoc(), {size},
                          /*scalar=*/true, node.getRewriter().getI64Type());
}

/// 0 .. `count`-1 as i64, shaped `shape` (one entry `count`, others 1).
FailureOr<Value> positions(ForeignNode &node, OpFoldResult count, int64_t rank,
                           int64_t dim) {
  RewriterBase &rw = node.getRewriter();
  FailureOr<Value> range = buildRange(
      node, rw.getI64Type(), {rw.getIndexAttr(0), count, rw.getIndexAttr(1)});
  if (failed(range))
    return failure();
  SmallVector<OpFoldResult> shape(rank, rw.getIndexAttr(1));
  shape[dim] = count;
  return node.reshape(*range, shape);
}

/// One present cache, [B, Nkv, T, D], as ONNX Runtime's CPU kernel writes
/// it: row b's first `rowPast[b]` positions from `past` ([B, Nkv, P, D];
/// null without one), then the S new positions `fresh` ([B, S, Nkv*D]),
/// then zeros. What falls outside [0, T) is dropped; a position before
/// rowPast[b] but past P (a row whose seqlens_k claims more past than the
/// buffer holds) is zero. `rowPast` is [B, 1] i64, `slots` 0..T-1 as
/// [1, T]. One batched gather over past ++ new ++ a zero row.
FailureOr<Value> buildPresent(ForeignNode &node, Value fresh, Value past,
                              Value rowPast, Value slots, int64_t kvHeads) {
  RewriterBase &rw = node.getRewriter();
  Type i64 = rw.getI64Type();
  Type element = cast<RankedTensorType>(fresh.getType()).getElementType();
  OpFoldResult batch = node.dimSize(fresh, 0), seq = node.dimSize(fresh, 1),
               width = node.dimSize(fresh, 2);
  SmallVector<Value> parts;
  OpFoldResult pastSize = rw.getIndexAttr(0);
  if (past) {
    FailureOr<Value> bshd = node.transpose(past, {0, 2, 1, 3});
    if (failed(bshd))
      return failure();
    pastSize = node.dimSize(past, 2);
    parts.push_back(node.reshape(*bshd, {batch, pastSize, width}));
  }
  parts.push_back(fresh);
  parts.push_back(
      buildFilled(node, {batch, rw.getIndexAttr(1), width},
                  DenseElementsAttr::get(RankedTensorType::get({}, element),
                                         rw.getZeroAttr(element))));
  ConcatOp::Properties alongSeq;
  alongSeq.axis = rw.getI64IntegerAttr(1);
  FailureOr<Value> rows = node.create<ConcatOp>(parts, alongSeq);
  if (failed(rows))
    return failure();

  // Source row of slot j: j (past), P + j - rowPast (new), P + S (zero).
  Value pastCount = sizeTensor(node, pastSize);
  Value seqCount = sizeTensor(node, seq);
  FailureOr<Value> rel = node.create<SubOp>({slots, rowPast});
  FailureOr<Value> beforeRow = node.create<LessOp>({slots, rowPast});
  FailureOr<Value> inBuffer = node.create<LessOp>({slots, pastCount});
  if (failed(rel) || failed(beforeRow) || failed(inBuffer))
    return failure();
  FailureOr<Value> inPast = node.create<AndOp>({*beforeRow, *inBuffer});
  FailureOr<Value> negative =
      node.create<LessOp>({*rel, node.scalar(i64, 0.0)});
  FailureOr<Value> beforeEnd = node.create<LessOp>({*rel, seqCount});
  if (failed(inPast) || failed(negative) || failed(beforeEnd))
    return failure();
  Value started = NotOp::create(rw, node.getLoc(), *negative);
  FailureOr<Value> inNew = node.create<AndOp>({started, *beforeEnd});
  FailureOr<Value> newRow = node.create<AddOp>({*rel, pastCount});
  FailureOr<Value> zeroRow = node.create<AddOp>({pastCount, seqCount});
  if (failed(inNew) || failed(newRow) || failed(zeroRow))
    return failure();
  FailureOr<Value> notPast = node.create<WhereOp>({*inNew, *newRow, *zeroRow});
  FailureOr<Value> source =
      failed(notPast) ? notPast
                      : node.create<WhereOp>({*inPast, slots, *notPast});
  if (failed(source))
    return failure();
  UnsqueezeOp::Properties tuple;
  tuple.dims = rw.getDenseI64ArrayAttr({2});
  FailureOr<Value> indices = node.create<UnsqueezeOp>({*source}, tuple);
  if (failed(indices))
    return failure();
  GatherNdOp::Properties perRow;
  perRow.batch_dims = rw.getI64IntegerAttr(1);
  FailureOr<Value> present = node.create<GatherNdOp>({*rows, *indices}, perRow);
  if (failed(present))
    return failure();
  return splitHeads(node, *present, kvHeads);
}

/// `size` without the integer casts around it: the builder casts
/// total_sequence_length, a dim, to i32 and back, which a symbol's
/// definition cannot evaluate; a dim (at most a symbol's maximum) survives
/// the round trip unchanged.
OpFoldResult withoutCasts(OpFoldResult size) {
  auto value = dyn_cast<Value>(size);
  while (value &&
         isa_and_nonnull<arith::IndexCastOp, arith::TruncIOp, arith::ExtSIOp,
                         arith::ExtUIOp>(value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  if (!value)
    return size;
  if (!value.getType().isIndex())
    return size;
  return value;
}

/// The present caches' length: max(total_sequence_length, P), a constant
/// when both are, else a symbol defined from them (at most
/// kDefaultValueMax).
OpFoldResult presentLength(ForeignNode &node, OpFoldResult total, Value past) {
  if (!past)
    return total;
  RewriterBase &rw = node.getRewriter();
  OpFoldResult buffer = node.dimSize(past, 2);
  std::optional<int64_t> t = constantOf(total), p = constantOf(buffer);
  if (t && p)
    return rw.getIndexAttr(std::max(*t, *p));
  if ((p && *p == 0) || total == buffer)
    return total;
  IndexMath im{rw, node.getLoc()};
  Value totalIndex = node.toIndex(total), bufferIndex = node.toIndex(buffer);
  return node.defineSymbol(
      "present length",
      im.select(im.lt(totalIndex, bufferIndex), bufferIndex, totalIndex), 1,
      kDefaultValueMax);
}

/// GroupQueryAttention (com.microsoft): query [B, S, N*D] with key and
/// value [B, S, Nkv*D] (or packed QKV [B, S, (N + 2 Nkv) * D]), past_key and
/// past_value [B, Nkv, P, D], seqlens_k [B] (each row's total length - 1),
/// total_sequence_length, cos_cache and sin_cache. Row b has total_b =
/// seqlens_k[b] + 1 keys, of which past_b = max(total_b - S, 0) come from
/// the past (ONNX Runtime takes a first prompt's padded rows as having no
/// past, which the max gives); query i sits at past_b + i, sees keys
/// j <= past_b + i with j < total_b (padding queries of a right-padded
/// prompt see the row's total_b keys), and within local_window_size keys of
/// itself when one is given. Outputs the attention [B, S, N*D] and the
/// present caches [B, Nkv, max(total_sequence_length, P), D].
FailureOr<Values> convertGroupQueryAttention(ForeignNode &node) {
  if (node.getFloat("softcap", 0.0f) != 0.0f)
    return node.fail("softcap is not supported");
  if (node.getInt("smooth_softmax", 0))
    return node.fail("smooth_softmax is not supported");
  if (node.getInt("qk_output", 0) || node.isOutputUsed(3))
    return node.fail("the output_qk output (qk_output) is not supported");
  static constexpr std::pair<unsigned, const char *> unsupported[] = {
      {9, "position_ids"}, {10, "attention_bias"}, {11, "head_sink"}};
  for (auto [index, name] : unsupported)
    if (node.hasInput(index))
      return node.fail(Twine("the ") + name + " input is not supported");
  int64_t heads = node.getInt("num_heads", 0);
  int64_t kvHeads = node.getInt("kv_num_heads", 0);
  if (heads <= 0 || kvHeads <= 0 || heads % kvHeads != 0)
    return node.fail("num_heads (" + Twine(heads) +
                     ") must be a positive multiple of kv_num_heads (" +
                     Twine(kvHeads) + ")");
  auto query = node.input(0);
  FailureOr<Value> key = node.optionalInput(1);
  FailureOr<Value> value = node.optionalInput(2);
  FailureOr<Value> pastKey = node.optionalInput(3);
  FailureOr<Value> pastValue = node.optionalInput(4);
  auto seqlens = node.input(5);
  if (failed(query) || failed(key) || failed(value) || failed(pastKey) ||
      failed(pastValue) || failed(seqlens))
    return failure();
  if (bool(*key) != bool(*value))
    return node.fail("key and value go together (both absent: packed QKV)");
  if (bool(*pastKey) != bool(*pastValue))
    return node.fail("past_key and past_value go together");
  if (query->getType().getRank() != 3)
    return node.fail("the query must be [batch, seq, hidden]");
  if (seqlens->getType().getRank() != 1)
    return node.fail("seqlens_k must be [batch]");
  RewriterBase &rw = node.getRewriter();
  Type i64 = rw.getI64Type();

  // Q, K, V as [B, S, heads * D].
  Value q = *query, k = *key, v = *value;
  if (!k) {
    int64_t width = query->getType().getDimSize(2);
    int64_t parts = heads + 2 * kvHeads;
    if (ShapedType::isDynamic(width) || width % parts != 0)
      return node.fail("packed QKV's width " + Twine(width) +
                       " is not (num_heads + 2 * kv_num_heads) * head size");
    int64_t head = width / parts;
    FailureOr<SmallVector<Value>> split = buildSplit(
        node, *query, 2, {heads * head, kvHeads * head, kvHeads * head});
    if (failed(split))
      return failure();
    q = (*split)[0], k = (*split)[1], v = (*split)[2];
  }
  if (*pastKey) {
    auto pastType = cast<RankedTensorType>((*pastKey).getType());
    if (pastType.getRank() != 4 || pastType.getDimSize(1) != kvHeads)
      return node.fail("past_key and past_value must be [batch, " +
                       Twine(kvHeads) + ", past, head size] (BNSH)");
  }

  // Each row's total and past lengths, [B] i64.
  OpFoldResult seq = node.dimSize(q, 1), batch = node.dimSize(q, 0);
  FailureOr<Value> total =
      node.create<AddOp>({castTo(node, *seqlens, i64), node.scalar(i64, 1)});
  if (failed(total))
    return failure();
  FailureOr<Value> newer = node.create<SubOp>({*total, sizeTensor(node, seq)});
  FailureOr<Value> past =
      failed(newer) ? newer : node.create<MaxOp>({*newer, node.scalar(i64, 0)});
  if (failed(past))
    return failure();

  if (node.getInt("do_rotary", 0)) {
    FailureOr<Value> cosCache = node.optionalInput(7);
    FailureOr<Value> sinCache = node.optionalInput(8);
    if (failed(cosCache) || failed(sinCache))
      return failure();
    if (!*cosCache || !*sinCache)
      return node.fail("do_rotary needs cos_cache and sin_cache");
    auto cacheType = cast<RankedTensorType>((*cosCache).getType());
    if (cacheType.getRank() != 2 || cacheType.isDynamicDim(1))
      return node.fail("cos_cache must be [positions, rotary dim / 2]");
    // Query i of row b is at position past_b + i.
    FailureOr<Value> steps = positions(node, seq, 2, 1);
    FailureOr<Value> ids =
        failed(steps)
            ? steps
            : node.create<AddOp>(
                  {node.reshape(*past, {batch, rw.getIndexAttr(1)}), *steps});
    if (failed(ids))
      return failure();
    bool interleaved = node.getInt("rotary_interleaved", 0);
    int64_t rotary = 2 * cacheType.getDimSize(1);
    FailureOr<Value> qr = buildRotaryEmbedding(
        node, cast<TypedValue<RankedTensorType>>(q), *cosCache, *sinCache, *ids,
        {heads, rotary, interleaved});
    FailureOr<Value> kr = buildRotaryEmbedding(
        node, cast<TypedValue<RankedTensorType>>(k), *cosCache, *sinCache, *ids,
        {kvHeads, rotary, interleaved});
    if (failed(qr) || failed(kr))
      return failure();
    q = *qr, k = *kr;
  }

  // The present caches' length comes from total_sequence_length's value.
  FailureOr<SmallVector<OpFoldResult>> totalLength =
      node.sizeElements(6, 1, kDefaultValueMax);
  if (failed(totalLength) || totalLength->size() != 1)
    return node.fail("total_sequence_length must be one element, a constant, "
                     "computed from shapes or a graph input: its value is "
                     "the present outputs' length");
  OpFoldResult length =
      presentLength(node, withoutCasts(totalLength->front()), *pastKey);
  FailureOr<Value> slots = positions(node, length, 2, 1);
  if (failed(slots))
    return failure();
  Value rowPast = node.reshape(*past, {batch, rw.getIndexAttr(1)});
  FailureOr<Value> presentKey =
      buildPresent(node, k, *pastKey, rowPast, *slots, kvHeads);
  FailureOr<Value> presentValue =
      buildPresent(node, v, *pastValue, rowPast, *slots, kvHeads);
  if (failed(presentKey) || failed(presentValue))
    return failure();

  // Which of the present's keys each query sees: [B, 1, S, T].
  SmallVector<OpFoldResult> perRow = {batch, rw.getIndexAttr(1),
                                      rw.getIndexAttr(1), rw.getIndexAttr(1)};
  FailureOr<Value> keyPos = positions(node, length, 4, 3);
  FailureOr<Value> queryPos = positions(node, seq, 4, 2);
  if (failed(keyPos) || failed(queryPos))
    return failure();
  FailureOr<Value> at =
      node.create<AddOp>({node.reshape(*past, perRow), *queryPos});
  FailureOr<Value> notAfter =
      failed(at) ? at : node.create<SubOp>({*keyPos, *at});
  FailureOr<Value> causal =
      failed(notAfter) ? notAfter
                       : node.create<LessOp>({*notAfter, node.scalar(i64, 1)});
  FailureOr<Value> inRow =
      node.create<LessOp>({*keyPos, node.reshape(*total, perRow)});
  if (failed(causal) || failed(inRow))
    return failure();
  FailureOr<Value> allowed = node.create<AndOp>({*causal, *inRow});
  if (int64_t window = node.getInt("local_window_size", -1); window > 0) {
    // The window holds the query's own key and the window - 1 before it.
    FailureOr<Value> behind = node.create<SubOp>({*at, *keyPos});
    FailureOr<Value> near =
        failed(behind)
            ? behind
            : node.create<LessOp>({*behind, node.scalar(i64, double(window))});
    allowed = failed(near) || failed(allowed)
                  ? FailureOr<Value>(failure())
                  : node.create<AndOp>({*allowed, *near});
  }
  if (failed(allowed))
    return failure();

  FailureOr<Value> qHeads = splitHeads(node, q, heads);
  if (failed(qHeads))
    return failure();
  AttentionOp::Properties properties;
  if (float scale = node.getFloat("scale", 0.0f); scale != 0.0f)
    properties.scale = rw.getF64FloatAttr(scale);
  FailureOr<Value> out = node.create<AttentionOp>(
      {*qHeads, *presentKey, *presentValue, *allowed}, properties);
  if (failed(out))
    return failure();
  FailureOr<Value> merged = mergeHeads(node, *out);
  if (failed(merged))
    return failure();
  return Values{*merged, *presentKey, *presentValue};
}

} // namespace

void fromonnx::populateGroupQueryAttentionConverters(ForeignConverters &c) {
  c.add("com.microsoft::GroupQueryAttention", 1, convertGroupQueryAttention);
}
