//===- Attention.cpp - ONNX Attention, RotaryEmbedding (and ORT's) ------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

FailureOr<Value> fromonnx::splitHeads(ForeignNode &node, Value x,
                                      int64_t heads) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() != 3)
    return node.fail("3-D inputs are [batch, seq, hidden]; one is rank " +
                     Twine(type.getRank()));
  int64_t hidden = type.getDimSize(2);
  if (heads <= 0 || ShapedType::isDynamic(hidden) || hidden % heads != 0)
    return node.fail("3-D inputs need num_heads dividing the static hidden "
                     "size (" + Twine(hidden) + ", " + Twine(heads) + " heads)");
  RewriterBase &rw = node.getRewriter();
  Value split = node.reshape(x, {node.dimSize(x, 0), node.dimSize(x, 1),
                                 rw.getIndexAttr(heads),
                                 rw.getIndexAttr(hidden / heads)});
  return node.transpose(split, {0, 2, 1, 3});
}

FailureOr<Value> fromonnx::mergeHeads(ForeignNode &node, Value x) {
  FailureOr<Value> t = node.transpose(x, {0, 2, 1, 3});
  if (failed(t))
    return failure();
  return node.reshape(*t, {node.dimSize(*t, 0), node.dimSize(*t, 1),
                           node.multiply(node.dimSize(*t, 2),
                                         node.dimSize(*t, 3))});
}

FailureOr<Value> fromonnx::repeatHeads(ForeignNode &node, Value x,
                                       int64_t times) {
  if (times == 1)
    return x;
  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> sizes = node.sizes(x);
  Value grouped = node.reshape(
      x, {sizes[0], sizes[1], rw.getIndexAttr(1), sizes[2], sizes[3]});
  FailureOr<Value> repeated = buildExpand(
      node, cast<TypedValue<RankedTensorType>>(grouped),
      {sizes[0], sizes[1], rw.getIndexAttr(times), sizes[2], sizes[3]});
  if (failed(repeated))
    return failure();
  return node.reshape(
      *repeated, {sizes[0], node.multiply(sizes[1], rw.getIndexAttr(times)),
                  sizes[2], sizes[3]});
}

namespace {

using Values = SmallVector<Value>;

/// `x` reshaped to rank 4 with its elements on `dim` ([n, 1, 1, 1] for
/// dim 0, [1, 1, n, 1] for dim 2, [1, 1, 1, n] for dim 3).
Value onDim(ForeignNode &node, Value x, int64_t dim) {
  SmallVector<OpFoldResult> sizes(4, node.getRewriter().getIndexAttr(1));
  sizes[dim] = node.dimSize(x, 0);
  return node.reshape(x, sizes);
}

/// ONNX Attention written out as the operator's definition computes it, for
/// what tsc.attention does not take: `nonpad_kv_seqlen` (per-batch valid
/// key lengths, which also move the causal and window frontiers), the
/// `qk_matmul_output` output (modes 0 and 1: the scaled, softcapped scores;
/// 2: with the mask added; 3: the probabilities), `softcap`, and
/// `left_window_size`/`right_window_size`. `query` is [B, Hq, Sq, D]; `key`
/// and `value` [B, Hkv, Skv, D] with the past already prepended; K/V heads
/// are repeated for grouped-query attention. A query row with every key
/// masked gives zeros, in Y and in the probabilities. Returns Y, present
/// key, present value and the scores output.
FailureOr<Values> spelledOutAttention(ForeignNode &node, Value query, Value key,
                                      Value value, Value mask, bool causal,
                                      bool past) {
  RewriterBase &rw = node.getRewriter();
  Location loc = node.getLoc();
  auto qt = cast<RankedTensorType>(query.getType());
  auto kt = cast<RankedTensorType>(key.getType());
  Type f = qt.getElementType();
  Type i64 = rw.getI64Type();
  int64_t qHeads = qt.getDimSize(1), kvHeads = kt.getDimSize(1);
  int64_t headSize = qt.getDimSize(3);
  if (ShapedType::isDynamic(qHeads) || ShapedType::isDynamic(kvHeads) ||
      kvHeads == 0 || qHeads % kvHeads != 0)
    return node.fail("the query heads (" + Twine(qHeads) +
                     ") must be a static multiple of the key/value heads (" +
                     Twine(kvHeads) + ")");
  if (!node.hasAttr("scale") && ShapedType::isDynamic(headSize))
    return node.fail("the default scale needs a static head size");
  double scale = node.hasAttr("scale") ? node.getFloat("scale", 1.0f)
                                       : 1.0 / std::sqrt(double(headSize));
  // Q and K each scaled by sqrt(scale), as the definition does.
  Value rootScale = node.scalar(f, std::sqrt(scale));
  FailureOr<Value> qs = node.create<MulOp>({query, rootScale});
  FailureOr<Value> ks = node.create<MulOp>({key, rootScale});
  FailureOr<Value> kr =
      failed(ks) ? ks : repeatHeads(node, *ks, qHeads / kvHeads);
  FailureOr<Value> vr = repeatHeads(node, value, qHeads / kvHeads);
  if (failed(qs) || failed(kr) || failed(vr))
    return failure();
  FailureOr<Value> kT = node.transpose(*kr, {0, 1, 3, 2});
  FailureOr<Value> scores = failed(kT) ? kT : node.create<MatmulOp>({*qs, *kT});
  if (failed(scores))
    return failure();
  if (float cap = node.getFloat("softcap", 0.0f); cap > 0.0f) {
    Value c = node.scalar(f, cap);
    FailureOr<Value> over = node.create<DivOp>({*scores, c});
    if (failed(over))
      return failure();
    Value t = TanhOp::create(rw, loc, over->getType(), *over);
    scores = node.create<MulOp>({t, c});
    if (failed(scores))
      return failure();
  }

  // The mask as an additive bias (a bool mask: 0 where true, -inf where
  // false), then what the causal flag, the window and the valid lengths
  // allow, on query positions (offset by the past or by each batch's valid
  // length) against key positions.
  Value negInf = node.scalar(f, -std::numeric_limits<double>::infinity());
  Value zero = node.scalar(f, 0.0);
  Value bias;
  if (mask) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    if (maskType.getRank() == 0)
      return node.fail("the attention mask must have at least one dim");
    // A mask shorter than the keys is padded with blocked keys.
    int64_t maskKeys = maskType.getShape().back();
    int64_t allKeys = kt.getDimSize(2);
    if (!ShapedType::isDynamic(maskKeys) && !ShapedType::isDynamic(allKeys) &&
        maskKeys < allKeys) {
      SmallVector<OpFoldResult> padShape = node.sizes(mask);
      padShape.back() = rw.getIndexAttr(allKeys - maskKeys);
      Type me = maskType.getElementType();
      auto padType = RankedTensorType::get({}, me);
      DenseElementsAttr blocked =
          me.isInteger(1)
              ? DenseElementsAttr::get(padType, false)
              : DenseElementsAttr::get(
                    padType, rw.getFloatAttr(
                                   me, -std::numeric_limits<double>::infinity())
                                 .getValue());
      ConcatOp::Properties lastAxis;
      lastAxis.axis = rw.getI64IntegerAttr(maskType.getRank() - 1);
      FailureOr<Value> padded = node.create<ConcatOp>(
          {mask, buildFilled(node, padShape, blocked)}, lastAxis);
      if (failed(padded))
        return failure();
      mask = *padded;
      maskType = cast<RankedTensorType>(mask.getType());
    }
    FailureOr<Value> b = maskType.getElementType().isInteger(1)
                             ? node.create<WhereOp>({mask, zero, negInf})
                             : FailureOr<Value>(mask);
    if (failed(b))
      return failure();
    bias = *b;
  }
  int64_t left = node.getInt("left_window_size", -1);
  int64_t right = node.getInt("right_window_size", -1);
  Value nonpad;
  if (node.hasInput(6)) {
    auto lengths = node.input(6);
    if (failed(lengths))
      return failure();
    if (past)
      return node.fail("nonpad_kv_seqlen cannot be combined with past_key "
                       "and past_value");
    // [batch] (a rank-0 one was read at dim 0: found by fuzzing).
    RankedTensorType lt = lengths->getType();
    if (lt.getRank() != 1)
      return node.fail("nonpad_kv_seqlen must be 1-D, one length per batch; "
                       "it has rank " +
                       Twine(lt.getRank()));
    int64_t batch = qt.getDimSize(0), given = lt.getDimSize(0);
    if (!ShapedType::isDynamic(batch) && !ShapedType::isDynamic(given) &&
        given != batch)
      return node.fail("nonpad_kv_seqlen has " + Twine(given) +
                       " lengths for a batch of " + Twine(batch));
    nonpad = onDim(node, castTo(node, *lengths, i64), 0);
  }
  Value allowed;
  auto allow = [&](FailureOr<Value> keep) -> LogicalResult {
    if (failed(keep))
      return failure();
    if (!allowed) {
      allowed = *keep;
      return success();
    }
    FailureOr<Value> both = node.create<AndOp>({allowed, *keep});
    if (failed(both))
      return failure();
    allowed = *both;
    return success();
  };
  OpFoldResult sq = node.dimSize(query, 2), skv = node.dimSize(key, 2);
  Attribute i0 = rw.getIndexAttr(0), i1 = rw.getIndexAttr(1);
  FailureOr<Value> keys = buildRange(node, i64, {i0, skv, i1});
  if (failed(keys))
    return failure();
  Value keyPos = onDim(node, *keys, 3);
  if (causal || left >= 0 || right >= 0) {
    // Query i sits at i + offset: the past's length, or (with valid
    // lengths) nonpad[b] - Sq, or 0.
    OpFoldResult start = i0, end = sq;
    if (past) {
      auto pastKey = node.input(4);
      if (failed(pastKey))
        return failure();
      start = node.dimSize(*pastKey, 2);
      end = rw.createOrFold<arith::AddIOp>(loc, node.toIndex(start),
                                           node.toIndex(sq));
    } else if (nonpad) {
      start = rw.createOrFold<arith::SubIOp>(loc, node.toIndex(i0),
                                             node.toIndex(sq));
      end = i0;
    }
    FailureOr<Value> queries = buildRange(node, i64, {start, end, i1});
    if (failed(queries))
      return failure();
    FailureOr<Value> queryPos = onDim(node, *queries, 2);
    if (nonpad)
      queryPos = node.create<AddOp>({*queryPos, nonpad});
    if (failed(queryPos))
      return failure();
    if (causal && failed(allow(node.create<LessEqualOp>({keyPos, *queryPos}))))
      return failure();
    if (left >= 0 || right >= 0) {
      // query - key <= left and key - query <= right.
      FailureOr<Value> behind = node.create<SubOp>({*queryPos, keyPos});
      FailureOr<Value> ahead = node.create<SubOp>({keyPos, *queryPos});
      if (failed(behind) || failed(ahead))
        return failure();
      if (left >= 0 && failed(allow(node.create<LessEqualOp>(
                           {*behind, node.scalar(i64, double(left))}))))
        return failure();
      if (right >= 0 && failed(allow(node.create<LessEqualOp>(
                            {*ahead, node.scalar(i64, double(right))}))))
        return failure();
    }
  }
  if (nonpad && failed(allow(node.create<LessOp>({keyPos, nonpad}))))
    return failure();
  if (allowed) {
    FailureOr<Value> blocked = node.create<WhereOp>({allowed, zero, negInf});
    if (failed(blocked))
      return failure();
    FailureOr<Value> sum =
        bias ? node.create<AddOp>({bias, *blocked}) : blocked;
    if (failed(sum))
      return failure();
    bias = *sum;
  }

  Value withBias = *scores;
  if (bias) {
    FailureOr<Value> sum = node.create<AddOp>({*scores, bias});
    if (failed(sum))
      return failure();
    withBias = *sum;
  }
  Value probs = SoftmaxOp::create(rw, loc, withBias, static_cast<uint64_t>(3));
  if (bias) {
    // Rows whose bias is -inf everywhere have no key to attend: zeros.
    ReduceMaxOp::Properties last;
    last.dims = rw.getDenseI64ArrayAttr(
        {cast<RankedTensorType>(bias.getType()).getRank() - 1});
    last.keepdim = rw.getUnitAttr();
    FailureOr<Value> rowMax = node.create<ReduceMaxOp>({bias}, last);
    FailureOr<Value> none =
        failed(rowMax) ? rowMax : node.create<EqualOp>({*rowMax, negInf});
    FailureOr<Value> guarded =
        failed(none) ? none : node.create<WhereOp>({*none, zero, probs});
    if (failed(guarded))
      return failure();
    probs = *guarded;
  }
  FailureOr<Value> y = node.create<MatmulOp>({probs, *vr});
  if (failed(y))
    return failure();
  int64_t mode = node.getInt("qk_matmul_output_mode", 0);
  Value qk = mode == 3 ? probs : mode == 2 ? withBias : *scores;
  return Values{*y, key, value, qk};
}

FailureOr<Values> convertAttention(ForeignNode &node) {
  auto q = node.input(0);
  auto k = node.input(1);
  auto v = node.input(2);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  // What tsc.attention does not take: per-batch valid KV lengths, the
  // scores as an output, softcap, a sliding window.
  bool spelledOut = node.hasInput(6) || node.isOutputUsed(3) ||
                    node.getFloat("softcap", 0.0f) != 0.0f ||
                    node.getInt("left_window_size", -1) != -1 ||
                    node.getInt("right_window_size", -1) != -1;
  RewriterBase &rw = node.getRewriter();
  bool threeD = q->getType().getRank() == 3;
  Value query = *q, key = *k, value = *v;
  if (threeD) {
    FailureOr<Value> qs =
        splitHeads(node, query, node.getInt("q_num_heads", 0));
    FailureOr<Value> ks = splitHeads(node, key, node.getInt("kv_num_heads", 0));
    FailureOr<Value> vs =
        splitHeads(node, value, node.getInt("kv_num_heads", 0));
    if (failed(qs) || failed(ks) || failed(vs))
      return failure();
    query = *qs, key = *ks, value = *vs;
  }
  // [B, H, S, D] each from here on (a fuzzer's finding: a rank-2 operand
  // was read at dims 2 and 3 when K/V heads were repeated).
  for (auto [name, x] : {std::pair{"Q", query}, {"K", key}, {"V", value}})
    if (int64_t rank = cast<RankedTensorType>(x.getType()).getRank(); rank != 4)
      return node.fail("Q, K and V must all be 4-D [B, H, S, D] or all 3-D "
                       "[B, S, H*D]; " +
                       Twine(name) + " has rank " + Twine(rank) +
                       (threeD ? " after its heads were split" : ""));
  // A KV cache: attend over past ++ new; the concatenations are the present
  // key/value outputs.
  bool past = node.hasInput(4) || node.hasInput(5);
  if (past) {
    auto pastKey = node.input(4);
    auto pastValue = node.input(5);
    if (failed(pastKey) || failed(pastValue))
      return failure();
    ConcatOp::Properties seq;
    seq.axis = rw.getI64IntegerAttr(2);
    FailureOr<Value> fullKey = node.create<ConcatOp>({*pastKey, key}, seq);
    FailureOr<Value> fullValue =
        node.create<ConcatOp>({*pastValue, value}, seq);
    if (failed(fullKey) || failed(fullValue))
      return failure();
    key = *fullKey, value = *fullValue;
  }
  Value mask;
  if (node.hasInput(3)) {
    auto m = node.input(3);
    if (failed(m))
      return failure();
    mask = *m;
    // Bool (where to attend) or float (added to the scores); an integer
    // one was given a -inf constant (UBSan, found by fuzzing).
    Type me = m->getType().getElementType();
    if (!me.isInteger(1) && !isa<FloatType>(me)) {
      std::string name;
      llvm::raw_string_ostream(name) << me;
      return node.fail("attn_mask must be bool or float; it is " + name);
    }
  }
  bool causal = node.getInt("is_causal", 0);
  if (spelledOut) {
    FailureOr<Values> out =
        spelledOutAttention(node, query, key, value, mask, causal, past);
    if (failed(out))
      return failure();
    if (threeD) {
      FailureOr<Value> merged = mergeHeads(node, out->front());
      if (failed(merged))
        return failure();
      out->front() = *merged;
    }
    return out;
  }
  auto qt = cast<RankedTensorType>(query.getType());
  auto kt = cast<RankedTensorType>(key.getType());
  if (causal && qt.getRank() == 4 && kt.getRank() == 4) {
    int64_t sq = qt.getDimSize(2), skv = kt.getDimSize(2);
    bool known = !ShapedType::isDynamic(sq) && !ShapedType::isDynamic(skv);
    // With a KV cache, ONNX lets query i see keys up to i + past length:
    // tsc's bottom-right aligned causal flag, as keys = past ++ new.
    if (known && sq != skv && !past) {
      // Without one, ONNX aligns the causal mask at the top left (query i
      // sees keys 0..i); spell it out.
      SmallVector<bool> keep;
      for (int64_t i = 0; i < sq; ++i)
        for (int64_t j = 0; j < skv; ++j)
          keep.push_back(j <= i);
      Value causalMask = ConstantOp::create(
          rw, node.getLoc(),
          DenseElementsAttr::get(
              RankedTensorType::get({sq, skv}, rw.getI1Type()), keep));
      FailureOr<Value> combined = causalMask;
      if (mask) {
        auto maskType = cast<RankedTensorType>(mask.getType());
        if (maskType.getElementType().isInteger(1)) {
          combined = node.create<AndOp>({mask, causalMask});
        } else {
          Value blocked = node.scalar(maskType.getElementType(),
                                      -std::numeric_limits<double>::infinity());
          combined = node.create<WhereOp>({causalMask, mask, blocked});
        }
      }
      if (failed(combined))
        return failure();
      mask = *combined;
      causal = false;
    }
  }
  SmallVector<Value> operands = {query, key, value};
  if (mask)
    operands.push_back(mask);
  AttentionOp::Properties properties;
  if (causal)
    properties.causal = rw.getUnitAttr();
  if (node.hasAttr("scale"))
    properties.scale = rw.getF64FloatAttr(node.getFloat("scale", 1.0f));
  FailureOr<Value> out = node.create<AttentionOp>(operands, properties);
  if (failed(out))
    return failure();
  Value y = *out;
  if (threeD) {
    FailureOr<Value> merged = mergeHeads(node, y);
    if (failed(merged))
      return failure();
    y = *merged;
  }
  return Values{y, key, value};
}

/// A static slice of the last dim of `x`: elements offset, offset+stride,
/// ... (`size` of them).
Value sliceLast(ForeignNode &node, Value x, int64_t offset, int64_t size,
                int64_t stride) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
      strides(rank, 1);
  offsets.back() = offset;
  sizes.back() = size;
  strides.back() = stride;
  SmallVector<Value> dynSizes;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (type.isDynamicDim(d))
      dynSizes.push_back(node.toIndex(node.dimSize(x, d)));
  return SliceOp::create(node.getRewriter(), node.getLoc(), type.clone(sizes),
                         x, ValueRange(), dynSizes, ValueRange(), offsets,
                         sizes, strides);
}

/// The attributes RotaryEmbedding nodes spell the rotation with.
RotarySpec rotarySpec(ForeignNode &node) {
  return {node.getInt("num_heads", 0), node.getInt("rotary_embedding_dim", 0),
          node.getInt("interleaved", 0) != 0};
}

} // namespace

FailureOr<Value> fromonnx::buildRotaryEmbedding(ForeignNode &node,
                                                TypedValue<RankedTensorType> x,
                                                Value cosCache, Value sinCache,
                                                Value positions,
                                                const RotarySpec &spec) {
  RewriterBase &rw = node.getRewriter();
  bool threeD = x.getType().getRank() == 3;
  Value input = x;
  if (threeD) {
    FailureOr<Value> split = splitHeads(node, input, spec.heads);
    if (failed(split))
      return failure();
    input = *split;
  }
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getRank() != 4 || type.isDynamicDim(3))
    return node.fail("input must be [batch, heads, seq, head] with a static "
                     "head size");
  int64_t head = type.getDimSize(3);
  int64_t rotary = spec.rotaryDim;
  if (rotary == 0)
    rotary = head;
  if (rotary % 2 != 0 || rotary > head)
    return node.fail("rotary_embedding_dim " + Twine(rotary) +
                     " must be even and at most the head size " + Twine(head));
  int64_t half = rotary / 2;

  // cos/sin for each (batch, position): [B, S, half] -> [B, 1, S, half].
  auto table = [&](Value cache) -> FailureOr<Value> {
    Value rows = cache;
    if (positions) {
      GatherOp::Properties properties;
      properties.axis = rw.getI64IntegerAttr(0);
      FailureOr<Value> gathered =
          node.create<GatherOp>({cache, positions}, properties);
      if (failed(gathered))
        return failure();
      rows = *gathered;
    }
    auto rowsType = cast<RankedTensorType>(rows.getType());
    if (rowsType.getRank() != 3 || rowsType.getDimSize(2) != half)
      return node.fail("cos/sin caches must give [batch, seq, " + Twine(half) +
                       "] per position");
    UnsqueezeOp::Properties properties;
    properties.dims = rw.getDenseI64ArrayAttr({1});
    return node.create<UnsqueezeOp>({rows}, properties);
  };
  FailureOr<Value> cos = table(cosCache);
  FailureOr<Value> sin = table(sinCache);
  if (failed(cos) || failed(sin))
    return failure();

  bool interleaved = spec.interleaved;
  Value x1 = interleaved ? sliceLast(node, input, 0, half, 2)
                         : sliceLast(node, input, 0, half, 1);
  Value x2 = interleaved ? sliceLast(node, input, 1, half, 2)
                         : sliceLast(node, input, half, half, 1);
  // out1 = x1 cos - x2 sin, out2 = x2 cos + x1 sin
  auto mul = [&](Value a, Value b) { return node.create<MulOp>({a, b}); };
  FailureOr<Value> a = mul(x1, *cos), b = mul(x2, *sin), c = mul(x2, *cos),
                   d = mul(x1, *sin);
  if (failed(a) || failed(b) || failed(c) || failed(d))
    return failure();
  FailureOr<Value> out1 = node.create<SubOp>({*a, *b});
  FailureOr<Value> out2 = node.create<AddOp>({*c, *d});
  if (failed(out1) || failed(out2))
    return failure();
  FailureOr<Value> rotated;
  if (interleaved) {
    // Put the pairs back side by side: [.., half, 2] -> [.., rotary].
    UnsqueezeOp::Properties last;
    last.dims = rw.getDenseI64ArrayAttr({4});
    FailureOr<Value> p1 = node.create<UnsqueezeOp>({*out1}, last);
    FailureOr<Value> p2 = node.create<UnsqueezeOp>({*out2}, last);
    if (failed(p1) || failed(p2))
      return failure();
    ConcatOp::Properties pairs;
    pairs.axis = rw.getI64IntegerAttr(4);
    FailureOr<Value> stacked = node.create<ConcatOp>({*p1, *p2}, pairs);
    if (failed(stacked))
      return failure();
    SmallVector<OpFoldResult> sizes = node.sizes(input);
    sizes.back() = rw.getIndexAttr(rotary);
    rotated = node.reshape(*stacked, sizes);
  } else {
    ConcatOp::Properties halves;
    halves.axis = rw.getI64IntegerAttr(3);
    rotated = node.create<ConcatOp>({*out1, *out2}, halves);
  }
  if (failed(rotated))
    return failure();
  Value out = *rotated;
  if (rotary < head) {
    ConcatOp::Properties rest;
    rest.axis = rw.getI64IntegerAttr(3);
    FailureOr<Value> joined = node.create<ConcatOp>(
        {out, sliceLast(node, input, rotary, head - rotary, 1)}, rest);
    if (failed(joined))
      return failure();
    out = *joined;
  }
  if (!threeD)
    return out;
  return mergeHeads(node, out);
}

namespace {

/// ONNX's RotaryEmbedding (opset 23): X, cos_cache, sin_cache and the
/// optional position_ids; without them the caches are [B, S, half] already.
FailureOr<Values> convertRotaryEmbedding(ForeignNode &node) {
  auto x = node.input(0);
  auto cosCache = node.input(1);
  auto sinCache = node.input(2);
  if (failed(x) || failed(cosCache) || failed(sinCache))
    return failure();
  Value positions;
  if (node.hasInput(3)) {
    auto ids = node.input(3);
    if (failed(ids))
      return failure();
    positions = *ids;
  }
  return results(buildRotaryEmbedding(node, *x, *cosCache, *sinCache, positions,
                                      rotarySpec(node)));
}

/// ONNX Runtime's RotaryEmbedding (com.microsoft): input, position_ids,
/// cos_cache, sin_cache, where position_ids is [B, S] or a 1-element start
/// offset (positions start, start + 1, ... for every row).
FailureOr<Values> convertContribRotaryEmbedding(ForeignNode &node) {
  auto x = node.input(0);
  auto ids = node.input(1);
  auto cosCache = node.input(2);
  auto sinCache = node.input(3);
  if (failed(x) || failed(ids) || failed(cosCache) || failed(sinCache))
    return failure();
  if (node.getInt("is_packed_batching", 0))
    return node.fail("packed (ragged) batches are not supported");
  if (node.getFloat("scale", 1.0f) != 1.0f)
    return node.fail("scale other than 1 is not supported");
  Value positions = *ids;
  if (ids->getType().getRank() == 1) {
    // [start] -> [[start, start + 1, ..., start + S - 1]].
    int64_t seqAxis = x->getType().getRank() == 3 ? 1 : 2;
    Type element = ids->getType().getElementType();
    FailureOr<Value> steps = buildRange(
        node, element,
        {node.getRewriter().getI64IntegerAttr(0), node.dimSize(*x, seqAxis),
         node.getRewriter().getI64IntegerAttr(1)});
    if (failed(steps))
      return failure();
    FailureOr<Value> shifted = node.create<AddOp>({*steps, *ids});
    if (failed(shifted))
      return failure();
    UnsqueezeOp::Properties row;
    row.dims = node.getRewriter().getDenseI64ArrayAttr({0});
    FailureOr<Value> rows = node.create<UnsqueezeOp>({*shifted}, row);
    if (failed(rows))
      return failure();
    positions = *rows;
  }
  return results(buildRotaryEmbedding(node, *x, *cosCache, *sinCache, positions,
                                      rotarySpec(node)));
}

/// ai.onnx.preview FlexAttention: Q K^T * scale in the softmax precision,
/// score_mod, softmax, prob_mod, times V, cast back to V's type. The
/// modifier subgraphs are cloned in; what follows them is built as foreign
/// ONNX nodes, converted once the clones are.
FailureOr<Values> convertFlexAttention(ForeignNode &node) {
  FailureOr<TypedValue<RankedTensorType>> q = node.input(0);
  FailureOr<TypedValue<RankedTensorType>> k = node.input(1);
  FailureOr<TypedValue<RankedTensorType>> v = node.input(2);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  if (q->getType().getRank() != 4 || k->getType().getRank() != 4 ||
      v->getType().getRank() != 4)
    return node.fail("Q, K and V must be rank 4");
  int64_t qHeads = q->getType().getDimSize(1);
  int64_t kvHeads = k->getType().getDimSize(1);
  int64_t headSize = q->getType().getDimSize(3);
  if (ShapedType::isDynamic(qHeads) || ShapedType::isDynamic(kvHeads) ||
      ShapedType::isDynamic(headSize) || kvHeads <= 0 || qHeads % kvHeads != 0)
    return node.fail("the head counts must be static, Q's a multiple of K's");
  Type element = q->getType().getElementType();
  Type compute = element;
  if (node.hasAttr("softmax_precision")) {
    compute =
        onnxElementType(node.getContext(), node.getInt("softmax_precision", 1));
    if (!compute || !isa<FloatType>(compute))
      return node.fail("softmax_precision must be a floating-point type");
  } else if (element.getIntOrFloatBitWidth() < 32) {
    compute = Float32Type::get(node.getContext());
  }
  double scale = node.getFloat("scale", 0.0f);
  if (!node.hasAttr("scale"))
    scale = 1.0 / std::sqrt(static_cast<double>(headSize));
  int64_t group = qHeads / kvHeads;
  FailureOr<Value> keys = repeatHeads(node, *k, group);
  FailureOr<Value> values = repeatHeads(node, *v, group);
  if (failed(keys) || failed(values))
    return failure();
  FailureOr<Value> kT =
      node.transpose(castTo(node, *keys, compute), {0, 1, 3, 2});
  if (failed(kT))
    return failure();
  FailureOr<Value> scores =
      node.create<MatmulOp>({castTo(node, *q, compute), *kT});
  if (failed(scores))
    return failure();
  scores = node.create<MulOp>({*scores, node.scalar(compute, scale)});
  if (failed(scores))
    return failure();
  auto modify = [&](StringRef name, Value x) -> FailureOr<Value> {
    if (!node.hasAttr(name))
      return x;
    FailureOr<Block *> body = node.subgraph(name);
    if (failed(body))
      return failure();
    if ((*body)->getNumArguments() != 1 ||
        (*body)->getTerminator()->getNumOperands() != 1)
      return node.fail(name + " must take one input and yield one output");
    return cloneSubgraph(node, *body, ValueRange(x)).front();
  };
  RewriterBase &rw = node.getRewriter();
  FailureOr<Value> modified = modify("score_mod", *scores);
  if (failed(modified))
    return failure();
  Value probs =
      buildForeignNode(node, "Softmax", 13, {*modified},
                       {rw.getNamedAttr("axis", rw.getI64IntegerAttr(-1))});
  FailureOr<Value> modifiedProbs = modify("prob_mod", probs);
  if (failed(modifiedProbs))
    return failure();
  Value y = buildForeignNode(node, "MatMul", 13,
                             {*modifiedProbs, castTo(node, *values, compute)});
  return Values{buildForeignNode(node, "CastLike", 15, {y, *v})};
}

} // namespace

void fromonnx::populateAttentionConverters(ForeignConverters &c) {
  c.add("com.microsoft::RotaryEmbedding", 1, convertContribRotaryEmbedding);
  c.add("Attention", 23, convertAttention);
  c.add("RotaryEmbedding", 23, convertRotaryEmbedding);
  c.add("ai.onnx.preview::FlexAttention", 1, convertFlexAttention);
}
