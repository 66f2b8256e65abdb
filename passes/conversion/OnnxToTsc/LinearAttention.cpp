//===- LinearAttention.cpp - ONNX LinearAttention (opset 27) --------------===//
//
// The recurrence unrolled over the static sequence length, as the operator's
// definition runs it token by token, in f32 whatever the inputs' type:
//   gated:  S = exp(g_t) * S
//   delta:  v_t = beta_t * (v_t - S^T k_t)
//   write:  S = S + k_t (x) v_t
//   read:   o_t = scale * q_t^T S   (S repeated over each KV head's group of
//                                    query heads)
// `linear` is the write alone, `gated_delta` all three. Inputs are 3-D
// [B, T, H*D]; the state [B, H_kv, d_k, d_v] starts from past_state or zeros.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/Compose.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// Input `i` [B, T, heads * D] as f32 [B, heads, T, D].
MaybeValue heads4d(ForeignNode &node, Value x, int64_t heads) {
  FailureOr<Value> split = splitHeads(node, x, heads);
  if (failed(split))
    return failure();
  return castTo(node, *split, node.getRewriter().getF32Type());
}

FailureOr<Values> convertLinearAttention(ForeignNode &node) {
  StringRef rule = node.getString("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" &&
      rule != "gated_delta")
    return node.fail("update_rule '" + rule +
                     "' is not one of linear, gated, delta, gated_delta");
  bool gating = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  int64_t qHeads = node.getInt("q_num_heads", 0);
  int64_t kvHeads = node.getInt("kv_num_heads", 0);
  if (qHeads <= 0 || kvHeads <= 0 || qHeads % kvHeads != 0)
    return node.fail("q_num_heads (" + Twine(qHeads) +
                     ") must be a positive multiple of kv_num_heads (" +
                     Twine(kvHeads) + ")");
  FailureOr<TypedValue<RankedTensorType>> query = node.input(0);
  FailureOr<TypedValue<RankedTensorType>> key = node.input(1);
  FailureOr<TypedValue<RankedTensorType>> value = node.input(2);
  FailureOr<Value> past = node.optionalInput(3);
  FailureOr<Value> decay = node.optionalInput(4);
  FailureOr<Value> beta = node.optionalInput(5);
  if (failed(query) || failed(key) || failed(value) || failed(past) ||
      failed(decay) || failed(beta))
    return failure();
  if (gating != static_cast<bool>(*decay))
    return node.fail("update_rule '" + rule + "' " +
                     (gating ? "requires" : "forbids") + " the decay input");
  if (delta != static_cast<bool>(*beta))
    return node.fail("update_rule '" + rule + "' " +
                     (delta ? "requires" : "forbids") + " the beta input");
  for (Value x : {Value(*query), Value(*key), Value(*value), *decay, *beta})
    if (x && cast<RankedTensorType>(x.getType()).getRank() != 3)
      return node.fail("query, key, value, decay and beta must be 3-D "
                       "[B, T, H*D]");
  int64_t steps = query->getType().getDimSize(1);
  if (ShapedType::isDynamic(steps))
    return node.fail("the sequence length is known only at run time; tsc "
                     "unrolls the recurrence over a static length");
  if (steps == 0)
    return node.fail("an empty sequence is not supported");

  MaybeValue q = heads4d(node, *query, qHeads);
  MaybeValue k = heads4d(node, *key, kvHeads);
  MaybeValue v = heads4d(node, *value, kvHeads);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  int64_t dk = cast<RankedTensorType>(q->getType()).getDimSize(3);
  int64_t dv = cast<RankedTensorType>(v->getType()).getDimSize(3);
  if (cast<RankedTensorType>(k->getType()).getDimSize(3) != dk)
    return node.fail("key's head size differs from query's");

  // decay: one value per KV head ([B, H_kv, T, 1]) or per key dim
  // ([B, H_kv, T, d_k]); beta: per KV head or one for all ([.., T, 1]).
  MaybeValue decay4 = Value(), beta4 = Value();
  if (*decay) {
    int64_t last = cast<RankedTensorType>(decay->getType()).getDimSize(2);
    if (last != kvHeads && last != kvHeads * dk)
      return node.fail("decay's last dim " + Twine(last) +
                       " must be kv_num_heads or kv_num_heads * d_k");
    decay4 = heads4d(node, *decay, kvHeads);
  }
  if (*beta) {
    int64_t last = cast<RankedTensorType>(beta->getType()).getDimSize(2);
    if (last != kvHeads && last != 1)
      return node.fail("beta's last dim " + Twine(last) +
                       " must be kv_num_heads or 1");
    beta4 = heads4d(node, *beta, last);
  }
  if (failed(decay4) || failed(beta4))
    return failure();

  RewriterBase &rw = node.getRewriter();
  Type f32 = rw.getF32Type();
  SmallVector<OpFoldResult> stateSizes = {
      node.dimSize(*query, 0), rw.getIndexAttr(kvHeads), rw.getIndexAttr(dk),
      rw.getIndexAttr(dv)};
  MaybeValue state = Value();
  if (*past) {
    auto type = cast<RankedTensorType>(past->getType());
    if (type.getRank() != 4 || type.getDimSize(1) != kvHeads ||
        type.getDimSize(2) != dk || type.getDimSize(3) != dv)
      return node.fail("past_state must be [B, " + Twine(kvHeads) + ", " +
                       Twine(dk) + ", " + Twine(dv) + "]");
    state = castTo(node, *past, f32);
  } else {
    state = buildFilled(
        node, stateSizes,
        DenseElementsAttr::get(RankedTensorType::get({}, f32), 0.0f));
  }
  double scale = node.getFloat("scale", 0.0f);
  if (scale == 0.0)
    scale = 1.0 / std::sqrt(static_cast<double>(dk));
  Value scaleValue = node.scalar(f32, scale);

  Values outputs;
  for (int64_t t = 0; t < steps; ++t) {
    MaybeValue kRow = insertDim(node, entry(node, k, t, 2), 2); // [B,H,1,dk]
    MaybeValue vRow = insertDim(node, entry(node, v, t, 2), 2); // [B,H,1,dv]
    if (gating) // [B, H, 1 | dk] -> [B, H, 1 | dk, 1]
      state = binary<MulOp>(
          node, state,
          unary<ExpOp>(node, insertDim(node, entry(node, decay4, t, 2), 3)));
    if (delta) {
      MaybeValue retrieved = binary<MatmulOp>(node, kRow, state);
      MaybeValue rate = insertDim(node, entry(node, beta4, t, 2), 2);
      vRow = binary<MulOp>(node, rate, binary<SubOp>(node, vRow, retrieved));
    }
    FailureOr<Value> kCol =
        failed(kRow) ? kRow : node.transpose(*kRow, {0, 1, 3, 2});
    state = binary<AddOp>(node, state, binary<MulOp>(node, kCol, vRow));
    if (failed(state))
      return failure();
    FailureOr<Value> read = repeatHeads(node, *state, qHeads / kvHeads);
    MaybeValue qRow = insertDim(node, entry(node, q, t, 2), 2); // [B,Hq,1,dk]
    MaybeValue out =
        binary<MulOp>(node, binary<MatmulOp>(node, qRow, read), scaleValue);
    if (failed(out))
      return failure();
    outputs.push_back(*out);
  }
  MaybeValue all =
      steps == 1 ? MaybeValue(outputs.front()) : concat(node, outputs, 2);
  if (failed(all))
    return failure();
  FailureOr<Value> merged = mergeHeads(node, *all);
  if (failed(merged))
    return failure();
  Type outType = query->getType().getElementType();
  Type stateType =
      *past ? cast<RankedTensorType>(past->getType()).getElementType()
            : outType;
  return Values{castTo(node, *merged, outType),
                castTo(node, *state, stateType)};
}

} // namespace

void fromonnx::populateLinearAttentionConverters(
    ForeignConverters &converters) {
  converters.add("LinearAttention", 27, convertLinearAttention);
}
