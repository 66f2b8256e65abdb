//===- FuseAttention.cpp - softmax(Q·Kᵀ·scale + mask)·V into tsc.attention -===//

#include "passes/Passes.h"
#include "passes/transforms/MatchUtils.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_FUSEATTENTIONPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// The single non-binding user of `value`, if it has exactly one.
bool singleUse(Value value) { return hasUsesIgnoringBindings(value, 1); }

bool isRank4(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getRank() == 4;
}

/// K from Kᵀ: a transpose swapping the last two dims of a [B, H, S, D]
/// tensor (K is its input), or turning [B, S, H, D] into [B, H, D, S], the
/// head split and the transposition in one (K is its input with perm
/// [0, 2, 1, 3], `needsTranspose`).
Value keyFromTransposed(Value kt, bool &needsTranspose) {
  auto t = kt.getDefiningOp<TransposeOp>();
  if (!t || !isRank4(t.getInput()))
    return {};
  ArrayRef<int64_t> perm = t.getPerm();
  needsTranspose = perm == ArrayRef<int64_t>{0, 2, 3, 1};
  if (needsTranspose || perm == ArrayRef<int64_t>{0, 1, 3, 2})
    return t.getInput();
  return {};
}

/// K/V heads repeated for grouped-query attention, as exporters write
/// repeat_kv: reshape(expand(unsqueeze(kv, 2))) from [B, Hkv, S, D] to
/// [B, Hkv*n, S, D]. Returns the unrepeated tensor, which tsc.attention
/// takes directly.
Value unrepeatedHeads(Value kv) {
  auto reshape = kv.getDefiningOp<ReshapeOp>();
  if (!reshape || !singleUse(kv))
    return kv;
  auto expand = reshape.getInput().getDefiningOp<ExpandOp>();
  if (!expand || !singleUse(expand.getResult()))
    return kv;
  auto unsqueeze = expand.getInput().getDefiningOp<UnsqueezeOp>();
  if (!unsqueeze || unsqueeze.getDims() != ArrayRef<int64_t>{2} ||
      !isRank4(unsqueeze.getInput()))
    return kv;
  auto source = cast<RankedTensorType>(unsqueeze.getInput().getType());
  auto expanded = expand.getType();
  auto result = cast<RankedTensorType>(kv.getType());
  // [B, Hkv, 1, S, D] -> [B, Hkv, n, S, D] -> [B, Hkv*n, S, D]
  int64_t heads = source.getDimSize(1), repeat = expanded.getDimSize(2);
  if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(repeat) ||
      result.getDimSize(1) != heads * repeat ||
      expanded.getDimSize(1) != heads)
    return kv;
  return unsqueeze.getInput();
}

/// softmax(mask(Q·Kᵀ · scale)) · V -> tsc.attention.
struct FuseAttention : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp pv, PatternRewriter &rw) const override {
    auto softmax = pv.getLhs().getDefiningOp<SoftmaxOp>();
    Value v = pv.getRhs();
    if (!softmax || !isRank4(v) || !isRank4(pv.getLhs()) ||
        softmax.getAxis() != 3 || !singleUse(softmax.getResult()))
      return failure();
    Type element = pv.getType().getElementType();

    // Masks, from the outside in: `+ additive` and `where(keep, ., -big)`.
    Value scores = softmax.getInput();
    Value additive, keep;
    double fill = 0.0;
    for (int step = 0; step < 2; ++step) {
      if (auto add = scores.getDefiningOp<AddOp>(); add && singleUse(scores)) {
        // The scores side is the one that is rank 4 with the result's type.
        auto parts = commuted(add, [&](Value x) {
          return x.getType() == add.getType() && x.getDefiningOp() &&
                 !isa<ConstantOp>(x.getDefiningOp());
        });
        if (!parts || additive)
          break;
        Value mask = parts->second;
        if (cast<RankedTensorType>(mask.getType()).getElementType() != element)
          break;
        additive = mask;
        scores = parts->first;
        continue;
      }
      if (auto where = scores.getDefiningOp<WhereOp>(); where && singleUse(scores)) {
        std::optional<double> value = splatValue(where.getFalseValue());
        if (!value || *value > -1e4 || keep ||
            where.getTrueValue().getType() != where.getType())
          break;
        fill = *value;
        keep = where.getCondition();
        scores = where.getTrueValue();
        continue;
      }
      break;
    }

    // Scale: s / c or s * c.
    double scale = 1.0;
    if (auto div = scores.getDefiningOp<DivOp>(); div && singleUse(scores)) {
      std::optional<double> c = splatValue(div.getRhs());
      if (!c || *c == 0.0)
        return failure();
      scale = 1.0 / *c;
      scores = div.getLhs();
    } else if (auto mul = scores.getDefiningOp<MulOp>(); mul && singleUse(scores)) {
      auto parts = commuted(mul, [](Value x) { return splatValue(x).has_value(); });
      if (!parts)
        return failure();
      scale = *splatValue(parts->first);
      scores = parts->second;
    }

    auto qk = scores.getDefiningOp<MatmulOp>();
    if (!qk || !singleUse(scores) || !isRank4(qk.getLhs()) ||
        !isRank4(qk.getRhs()))
      return failure();
    Value q = qk.getLhs();
    // A query scaled before the product folds into the scale.
    if (auto mul = q.getDefiningOp<MulOp>(); mul && singleUse(q)) {
      auto parts = commuted(mul, [](Value x) { return splatValue(x).has_value(); });
      if (parts && isRank4(parts->second) && parts->second.getType() == q.getType()) {
        scale *= *splatValue(parts->first);
        q = parts->second;
      }
    }
    bool transposeKey = false;
    Value k = keyFromTransposed(qk.getRhs(), transposeKey);
    if (!k)
      return failure();
    Value repeatedValue = v;
    v = unrepeatedHeads(v);
    // The products were valid, so the operands agree on batch, heads and
    // head dims, and the masks broadcast to the scores without widening
    // them: the fused op's checks hold. Only now does the rewrite build.
    rw.setInsertionPoint(pv);
    Location loc = pv.getLoc();
    if (transposeKey) {
      auto input = cast<RankedTensorType>(k.getType());
      auto type = RankedTensorType::get(
          {input.getDimSize(0), input.getDimSize(2), input.getDimSize(1),
           input.getDimSize(3)},
          input.getElementType());
      k = TransposeOp::create(rw, loc, type, k,
                              rw.getDenseI64ArrayAttr({0, 2, 1, 3}));
    }
    Value repeatedKey = k;
    k = unrepeatedHeads(k);
    // Grouped-query only when K and V both drop their repetition.
    auto heads = [](Value x) {
      return cast<RankedTensorType>(x.getType()).getDimSize(1);
    };
    if (heads(k) != heads(v)) {
      k = repeatedKey;
      v = repeatedValue;
    }
    // One mask: where `keep` is false the scores were replaced by `fill`
    // (finfo.min); keep that value on top of the additive mask.
    Value mask = additive;
    if (keep && !mask) {
      mask = keep;
    } else if (keep) {
      Value blocked = ConstantOp::create(
          rw, loc,
          DenseElementsAttr::get(
              RankedTensorType::get({}, element),
              rw.getFloatAttr(element, fill)));
      // Both broadcast to the scores, so they broadcast together.
      SmallVector<Type> types;
      auto keepShape = cast<RankedTensorType>(keep.getType()).clone(element);
      if (failed(inferElementwiseResult(std::nullopt,
                                        {keepShape, additive.getType()},
                                        /*comparison=*/false, types)))
        llvm_unreachable("masks that broadcast to the scores broadcast together");
      auto combined = cast<RankedTensorType>(types.front());
      mask = WhereOp::create(rw, loc, combined, keep, additive, blocked);
    }
    SmallVector<Value> operands = {q, k, v};
    if (mask)
      operands.push_back(mask);
    OperationState state(loc, AttentionOp::getOperationName());
    state.addOperands(operands);
    state.addTypes(pv.getType());
    AttentionOp::Properties properties;
    properties.scale = rw.getF64FloatAttr(scale);
    state.useProperties(properties);
    rw.replaceOp(pv, rw.create(state)->getResults());
    return success();
  }
};

struct FuseAttentionPass
    : public tsc::impl::FuseAttentionPassBase<FuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAttention>(&getContext());
    BindShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
