//===- FuseAttention.cpp - softmax(Q·Kᵀ·scale + mask)·V into tsc.attention -===//

#include "passes/Passes.h"
#include "passes/transforms/MatchUtils.h"

#include "dialects/tsc/IR/SymbolicShape.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

/// Whether dim `i` of `a` and dim `j` of `b` are the same size: equal
/// static sizes, or the same expression of the symbols.
bool sameDim(const SymbolicShapes &shapes, Value a, unsigned i, Value b,
             unsigned j) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (!ta.isDynamicDim(i) || !tb.isDynamicDim(j))
    return ta.getDimSize(i) == tb.getDimSize(j);
  std::optional<SmallVector<AffineExpr>> sa = shapes.getShape(a);
  std::optional<SmallVector<AffineExpr>> sb = shapes.getShape(b);
  return sa && sb && (*sa)[i] == (*sb)[j];
}

/// The [B, Hkv, S, D] source of K/V heads repeated for grouped-query
/// attention, given the [B, Hkv, n, S, D] expansion that exporters write for
/// repeat_kv: expand(unsqueeze(kv, 2)) with `kv` static in its heads.
Value repeatSource(Value expanded) {
  auto expand = expanded.getDefiningOp<ExpandOp>();
  if (!expand || !singleUse(expanded))
    return {};
  auto unsqueeze = expand.getInput().getDefiningOp<UnsqueezeOp>();
  if (!unsqueeze || unsqueeze.getDims() != ArrayRef<int64_t>{2} ||
      !isRank4(unsqueeze.getInput()))
    return {};
  auto source = cast<RankedTensorType>(unsqueeze.getInput().getType());
  RankedTensorType type = expand.getType();
  if (source.isDynamicDim(1) || type.isDynamicDim(2) ||
      type.getDimSize(1) != source.getDimSize(1))
    return {};
  return unsqueeze.getInput();
}

/// The heads of `x` (dim 1, static for the tensors attention fuses).
int64_t headsOf(Value x) {
  return cast<RankedTensorType>(x.getType()).getDimSize(1);
}

/// K from Kᵀ written as a 3-D transpose, as PyTorch's dynamo exporter spells
/// `k.transpose(-2, -1)` of a [B, H, S, D] tensor:
/// reshape(transpose(reshape(K, [B*H, S, D]), [0, 2, 1]), [B, H, D, S]).
/// With grouped-query attention the inner reshape may read the repetition
/// [B, Hkv, n, S, D] directly (repeat_kv's own reshape folded into it); K
/// is then the unrepeated [B, Hkv, S, D] tensor and `unrepeated` is set.
Value keyFromFlattenedTranspose(Value kt, bool &unrepeated) {
  unrepeated = false;
  auto outer = kt.getDefiningOp<ReshapeOp>();
  if (!outer || !isRank4(kt))
    return {};
  auto t = outer.getInput().getDefiningOp<TransposeOp>();
  if (!t || t.getPerm() != ArrayRef<int64_t>{0, 2, 1})
    return {};
  auto inner = t.getInput().getDefiningOp<ReshapeOp>();
  if (!inner)
    return {};
  Value k = inner.getInput(), flat = inner.getResult();
  SymbolicShapes shapes(kt.getParentRegion()->getParentOp());
  if (Value source = repeatSource(k)) {
    // [B, Hkv, n, S, D] -> [*, S, D] -> [*, D, S] -> [B, Hkv*n, D, S]
    auto expanded = cast<RankedTensorType>(k.getType());
    if (sameDim(shapes, flat, 1, k, 3) && sameDim(shapes, flat, 2, k, 4) &&
        sameDim(shapes, kt, 0, k, 0) &&
        headsOf(kt) == expanded.getDimSize(1) * expanded.getDimSize(2) &&
        sameDim(shapes, kt, 2, k, 4) && sameDim(shapes, kt, 3, k, 3)) {
      unrepeated = true;
      return source;
    }
    return {};
  }
  if (!isRank4(k))
    return {};
  // [B, H, S, D] -> [*, S, D] -> [*, D, S] -> [B, H, D, S]
  if (sameDim(shapes, flat, 1, k, 2) && sameDim(shapes, flat, 2, k, 3) &&
      sameDim(shapes, kt, 0, k, 0) && sameDim(shapes, kt, 1, k, 1) &&
      sameDim(shapes, kt, 2, k, 3) && sameDim(shapes, kt, 3, k, 2))
    return k;
  return {};
}

/// K from Kᵀ: a transpose swapping the last two dims of a [B, H, S, D]
/// tensor (K is its input), or turning [B, S, H, D] into [B, H, D, S], the
/// head split and the transposition in one (K is its input with perm
/// [0, 2, 1, 3], `needsTranspose`), or the flattened form above.
Value keyFromTransposed(Value kt, bool &needsTranspose, bool &unrepeated) {
  needsTranspose = false;
  if (Value k = keyFromFlattenedTranspose(kt, unrepeated))
    return k;
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
  Value source = repeatSource(reshape.getInput());
  if (!source)
    return kv;
  // [B, Hkv, 1, S, D] -> [B, Hkv, n, S, D] -> [B, Hkv*n, S, D]
  auto expanded = cast<RankedTensorType>(reshape.getInput().getType());
  if (headsOf(kv) != expanded.getDimSize(1) * expanded.getDimSize(2))
    return kv;
  return source;
}

/// The probabilities of softmax(x) · V as the matmul's left operand reads
/// them: the softmax itself, or the softmax behind the guard that PyTorch's
/// exporters put on scaled_dot_product_attention,
/// where(is_nan(p), 0, p) with p = softmax(x). The guard zeroes the rows
/// whose scores are all -inf, which is what tsc.attention gives a query
/// whose keys are all masked; it differs only where the scores themselves
/// hold NaN or +inf (non-finite activations), where the guard also zeroes
/// and tsc.attention propagates them.
SoftmaxOp probabilities(Value p) {
  if (auto softmax = p.getDefiningOp<SoftmaxOp>())
    return singleUse(p) ? softmax : SoftmaxOp();
  auto guard = p.getDefiningOp<WhereOp>();
  if (!guard || !singleUse(p) || !isSplat(guard.getTrueValue(), 0.0))
    return {};
  auto isNan = guard.getCondition().getDefiningOp<IsNanOp>();
  auto softmax = guard.getFalseValue().getDefiningOp<SoftmaxOp>();
  if (!isNan || !softmax || isNan.getInput() != softmax.getResult() ||
      !singleUse(isNan.getResult()) ||
      !hasUsesIgnoringBindings(softmax.getResult(), 2) ||
      guard.getType() != softmax.getType())
    return {};
  return softmax;
}

/// The value of a scale factor computed from constants: a splat, or the
/// square root, reciprocal square root or reciprocal of one (Falcon's
/// TorchScript export scales Q and Kᵀ by sqrt(rsqrt(d)), unfolded).
std::optional<double> scaleConstant(Value value) {
  if (std::optional<double> v = splatValue(value))
    return v;
  Operation *op = value ? value.getDefiningOp() : nullptr;
  if (!isa_and_nonnull<SqrtOp, RsqrtOp, ReciprocalOp>(op))
    return std::nullopt;
  std::optional<double> x = scaleConstant(op->getOperand(0));
  if (!x || *x <= 0.0)
    return std::nullopt;
  if (isa<SqrtOp>(op))
    return std::sqrt(*x);
  return isa<RsqrtOp>(op) ? 1.0 / std::sqrt(*x) : 1.0 / *x;
}

/// `x` without a scaling by a constant, x' * c or x' / c (rank 4, one use),
/// multiplying `scale` by the factor; else `x` itself.
Value unscaled(Value x, double &scale) {
  Operation *op = x.getDefiningOp();
  if (!isa_and_nonnull<MulOp, DivOp>(op) || !singleUse(x))
    return x;
  std::optional<std::pair<Value, Value>> parts;
  if (isa<MulOp>(op))
    parts = commuted(op, [](Value y) { return scaleConstant(y).has_value(); });
  else if (scaleConstant(op->getOperand(1)).value_or(0.0) != 0.0)
    parts = std::make_pair(op->getOperand(1), op->getOperand(0));
  if (!parts || !isRank4(parts->second) ||
      parts->second.getType() != x.getType())
    return x;
  double c = *scaleConstant(parts->first);
  scale *= isa<MulOp>(op) ? c : 1.0 / c;
  return parts->second;
}

/// softmax(mask(Q·Kᵀ · scale)) · V -> tsc.attention.
struct FuseAttention : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp pv, PatternRewriter &rw) const override {
    SoftmaxOp softmax = probabilities(pv.getLhs());
    Value v = pv.getRhs();
    if (!softmax || !isRank4(v) || !isRank4(pv.getLhs()) ||
        softmax.getAxis() != 3)
      return failure();
    Type element = pv.getType().getElementType();

    // Masks, from the outside in: `+ additive` (a padding mask, or a
    // position bias and then a mask: MPNet adds both) and
    // `where(keep, ., -big)`.
    Value scores = softmax.getInput();
    SmallVector<Value, 2> additives;
    Value keep;
    double fill = 0.0;
    for (int step = 0; step < 3; ++step) {
      if (auto add = scores.getDefiningOp<AddOp>(); add && singleUse(scores)) {
        // The scores side is the one that is rank 4 with the result's type.
        auto parts = commuted(add, [&](Value x) {
          return x.getType() == add.getType() && x.getDefiningOp() &&
                 !isa<ConstantOp>(x.getDefiningOp());
        });
        if (!parts || additives.size() == 2)
          break;
        Value mask = parts->second;
        if (cast<RankedTensorType>(mask.getType()).getElementType() != element)
          break;
        additives.push_back(mask);
        scores = parts->first;
        continue;
      }
      if (auto where = scores.getDefiningOp<WhereOp>(); where && singleUse(scores)) {
        // where(keep, s, -big), or where(not(keep), -big, s) (DeBERTa).
        Value kept = where.getCondition(), s = where.getTrueValue();
        std::optional<double> value = splatValue(where.getFalseValue());
        auto negated = kept.getDefiningOp<NotOp>();
        if (!value && negated) {
          value = splatValue(where.getTrueValue());
          kept = negated.getInput();
          s = where.getFalseValue();
        }
        if (!value || *value > -1e4 || keep || s.getType() != where.getType())
          break;
        fill = *value;
        keep = kept;
        scores = s;
        continue;
      }
      break;
    }

    // Scale: s / c or s * c.
    double scale = 1.0;
    if (auto div = scores.getDefiningOp<DivOp>(); div && singleUse(scores)) {
      std::optional<double> c = scaleConstant(div.getRhs());
      if (!c || *c == 0.0)
        return failure();
      scale = 1.0 / *c;
      scores = div.getLhs();
    } else if (auto mul = scores.getDefiningOp<MulOp>(); mul && singleUse(scores)) {
      auto parts =
          commuted(mul, [](Value x) { return scaleConstant(x).has_value(); });
      if (!parts)
        return failure();
      scale = *scaleConstant(parts->first);
      scores = parts->second;
    }

    auto qk = scores.getDefiningOp<MatmulOp>();
    if (!qk || !singleUse(scores) || !isRank4(qk.getLhs()) ||
        !isRank4(qk.getRhs()))
      return failure();
    // A query or key scaled before the product folds into the scale (the
    // dynamo exporter scales both by sqrt(scale); DeBERTa divides the key).
    Value q = unscaled(qk.getLhs(), scale);
    Value kt = unscaled(qk.getRhs(), scale);
    bool transposeKey = false, keyUnrepeated = false;
    Value k = keyFromTransposed(kt, transposeKey, keyUnrepeated);
    if (!k)
      return failure();
    Value repeatedValue = v;
    v = unrepeatedHeads(v);
    // A key found unrepeated has no repeated form to fall back on.
    if (keyUnrepeated && headsOf(k) != headsOf(v))
      return failure();
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
    if (!keyUnrepeated)
      k = unrepeatedHeads(k);
    // Grouped-query only when K and V both drop their repetition.
    if (headsOf(k) != headsOf(v)) {
      k = repeatedKey;
      v = repeatedValue;
    }
    // Additive terms, both broadcasting to the scores, add up to one
    // (reassociated: (s + a) + b becomes s + (a + b)).
    auto broadcastType = [&](Type a, Type b) {
      SmallVector<Type> types;
      if (failed(inferElementwiseResult(std::nullopt, {a, b},
                                        /*comparison=*/false, types)))
        llvm_unreachable(
            "masks that broadcast to the scores broadcast together");
      return cast<RankedTensorType>(types.front());
    };
    Value additive = additives.empty() ? Value() : additives.front();
    if (additives.size() == 2)
      additive = AddOp::create(
          rw, loc,
          broadcastType(additives[0].getType(), additives[1].getType()),
          additives[0], additives[1]);
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
      auto keepShape = cast<RankedTensorType>(keep.getType()).clone(element);
      mask =
          WhereOp::create(rw, loc, broadcastType(keepShape, additive.getType()),
                          keep, additive, blocked);
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

//===----------------------------------------------------------------------===//
// Flattened heads: products over [B*H, S, D] computed over [B, H, S, D]
//===----------------------------------------------------------------------===//

/// The size of dim `d` of the bound value `x` as an index: the symbol it
/// is (so that a reshape back to a tensor bound by it folds), else its
/// `tsc.dim`.
Value sizeOf(PatternRewriter &rw, Location loc, const SymbolicShapes &shapes,
             Value x, int64_t d) {
  if (std::optional<SmallVector<AffineExpr>> shape = shapes.getShape(x))
    if (auto symbol = dyn_cast<AffineSymbolExpr>((*shape)[d]))
      return SymbolOp(shapes.getSymbols()[symbol.getPosition()]).getResult();
  return DimOp::create(rw, loc, x, rw.getI64IntegerAttr(d));
}

/// Lifts the 3-D computation below a reshape [N, a, b] -> [B, H, a, b]
/// (N = B*H) to 4-D: each matmul, transpose [0, 2, 1] and elementwise op of
/// the tree, whose values nothing else uses, is rebuilt over [B, H, ., .],
/// and the leaves are reshaped to it (or to [1, 1, ., .] when they
/// broadcast along N). A leaf that was itself a reshape of a [B, H, ., .]
/// tensor then folds back to it.
class HeadLifter {
public:
  HeadLifter(const SymbolicShapes &shapes, ReshapeOp root)
      : shapes(shapes), root(root) {}

  /// Whether `x` (rank 3, its dim 0 N) is computed by an op the lifter
  /// rebuilds over heads rather than reshapes.
  bool descends(Value x) {
    Operation *op = x.getDefiningOp();
    if (!op || !singleUse(x) || op->getNumResults() != 1)
      return false;
    if (isa<MatmulOp>(op))
      return llvm::all_of(op->getOperands(),
                          [&](Value y) { return isFlat(y); });
    if (auto t = dyn_cast<TransposeOp>(op))
      return t.getPerm() == ArrayRef<int64_t>{0, 2, 1} && isFlat(t.getInput());
    if (!op->hasTrait<OpTrait::tsc::Elementwise>() ||
        (op->getNumOperands() > 1 &&
         !op->hasTrait<OpTrait::tsc::Broadcasting>()))
      return false;
    return llvm::all_of(op->getOperands(), [&](Value y) {
      auto type = cast<RankedTensorType>(y.getType());
      return type.getRank() < 3 || isFlat(y) ||
             (type.getRank() == 3 && type.getDimSize(0) == 1);
    });
  }

  /// `x` over [B, H, ., .], or over [1, 1, ., .] if it broadcasts along N
  /// (built before the root).
  Value lift(PatternRewriter &rw, Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() < 3)
      return x;
    if (!isFlat(x) || !descends(x))
      return reshapeToHeads(rw, x);
    Operation *op = x.getDefiningOp();
    SmallVector<Value> operands;
    for (Value y : op->getOperands())
      operands.push_back(lift(rw, y));
    RankedTensorType lifted = headsType(x);
    Location loc = root.getLoc();
    if (isa<TransposeOp>(op))
      return TransposeOp::create(rw, loc, lifted, operands[0],
                                 rw.getDenseI64ArrayAttr({0, 1, 3, 2}));
    OperationState state(loc, op->getName());
    state.addOperands(operands);
    state.addTypes(lifted);
    state.addAttributes(op->getAttrs());
    return rw.create(state)->getResult(0);
  }

private:
  /// Whether `y` is rank 3 with the root's input's dim 0 (N).
  bool isFlat(Value y) {
    return cast<RankedTensorType>(y.getType()).getRank() == 3 &&
           sameDim(shapes, y, 0, root.getInput(), 0);
  }

  /// [N, a, b] as [B, H, a, b]; a broadcast [1, a, b] as [1, 1, a, b].
  RankedTensorType headsType(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    RankedTensorType heads = root.getType();
    bool flat = isFlat(x);
    return type.clone({flat ? heads.getDimSize(0) : 1,
                       flat ? heads.getDimSize(1) : 1, type.getDimSize(1),
                       type.getDimSize(2)});
  }

  /// The size of dim `d` of `x` as an index (sizeOf), for the root's own
  /// dims its reshape operand where they are no symbol.
  Value sizeOfDim(PatternRewriter &rw, Value x, int64_t d) {
    if (x == root.getResult()) {
      std::optional<SmallVector<AffineExpr>> shape = shapes.getShape(x);
      if (!shape || !isa<AffineSymbolExpr>((*shape)[d]))
        return root.getShape()[root.getType().getDynamicDimIndex(d)];
    }
    return sizeOf(rw, root.getLoc(), shapes, x, d);
  }

  Value reshapeToHeads(PatternRewriter &rw, Value x) {
    RankedTensorType lifted = headsType(x);
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < 4; ++d)
      if (lifted.isDynamicDim(d))
        sizes.push_back(d < 2 ? sizeOfDim(rw, root.getResult(), d)
                              : sizeOfDim(rw, x, d - 1));
    return ReshapeOp::create(rw, root.getLoc(), lifted, x, sizes);
  }

  const SymbolicShapes &shapes;
  ReshapeOp root;
};

/// reshape([N, a, b] -> [B, H, a, b]) of a product computed over flattened
/// heads -> the product over [B, H, a, b] (HeadLifter): BLOOM computes its
/// ALiBi attention as baddbmm(alibi, Q, Kᵀ) over [B*H, S, S] and reshapes
/// the scores to [B, H, S, S] for the mask and softmax, then multiplies the
/// probabilities, reshaped back, by V over [B*H, S, D]. Lifted, both
/// products are 4-D and the attention pattern reads them.
struct UnflattenHeads : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rw) const override {
    Value input = op.getInput();
    if (!isRank4(op.getResult()) ||
        cast<RankedTensorType>(input.getType()).getRank() != 3)
      return failure();
    SymbolicShapes shapes(op->getParentRegion()->getParentOp());
    // Equal trailing dims and equal element counts: dim 0 splits into two.
    if (!sameDim(shapes, op, 2, input, 1) || !sameDim(shapes, op, 3, input, 2))
      return failure();
    HeadLifter lifter(shapes, op);
    if (!lifter.descends(input))
      return failure();
    rw.setInsertionPoint(op);
    rw.replaceOp(op, lifter.lift(rw, input));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Grouped-query heads repeated in the [B, S, H, D] layout
//===----------------------------------------------------------------------===//

/// Whether `op` computes elementwise: of one operand, or of several that
/// broadcast against each other.
bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::tsc::Elementwise>() &&
         (op->getNumOperands() == 1 ||
          op->hasTrait<OpTrait::tsc::Broadcasting>());
}

/// K/V heads repeated in the [B, S, H, D] layout, and the work done on the
/// repetition before attention reads it, rebuilt over the unrepeated heads.
/// Falcon repeats the K/V heads of its fused projection, laid out
/// [B, S, Hkv, n + 2, D], as reshape(expand([B, S, Hkv, 1, D]) to
/// [B, S, Hkv, n, D]) -> [B, S, Hkv*n, D], and applies the rotary embedding
/// to the repeated K: elementwise ops with operands that broadcast over the
/// heads, slices that keep every head, concats along another dim. All of it
/// commutes with the repetition.
class HeadUnrepeater {
public:
  explicit HeadUnrepeater(const SymbolicShapes &shapes) : shapes(shapes) {}

  /// Whether `x` [B, S, H, D] is such a repetition of `groups` (Hkv) heads,
  /// or computed from ones with the same Hkv by ops that commute with it.
  bool matches(Value x, int64_t &groups) {
    if (Value y = repeatedFrom(x))
      return agree(groups, cast<RankedTensorType>(y.getType()).getDimSize(2));
    Operation *op = x.getDefiningOp();
    if (!op || !singleUse(x) || op->getNumResults() != 1 || !isRank4(x))
      return false;
    if (auto slice = dyn_cast<SliceOp>(op))
      return keepsHeads(slice) && matches(slice.getInput(), groups);
    if (auto concat = dyn_cast<ConcatOp>(op))
      return concat.getAxis() != 2 &&
             llvm::all_of(concat.getInputs(),
                          [&](Value y) { return matches(y, groups); });
    if (!isElementwise(op))
      return false;
    bool repeated = false;
    for (Value y : op->getOperands()) {
      if (broadcastsOverHeads(y))
        continue;
      if (!matches(y, groups))
        return false;
      repeated = true;
    }
    return repeated;
  }

  /// `x` (matched) over the unrepeated heads, [B, S, Hkv, D].
  Value unrepeat(PatternRewriter &rw, Value x) {
    if (Value done = unrepeated.lookup(x))
      return done;
    Location loc = x.getLoc();
    Value result;
    if (Value y = repeatedFrom(x)) {
      auto type = cast<RankedTensorType>(y.getType());
      SmallVector<Value> sizes;
      for (int64_t d : {0, 1})
        if (type.isDynamicDim(d))
          sizes.push_back(sizeOf(rw, loc, shapes, y, d));
      result = ReshapeOp::create(
          rw, loc,
          type.clone({type.getDimSize(0), type.getDimSize(1),
                      type.getDimSize(2), type.getDimSize(4)}),
          y, sizes);
    } else {
      Operation *op = x.getDefiningOp();
      SmallVector<Value> operands;
      for (Value y : op->getOperands())
        operands.push_back(broadcastsOverHeads(y) ? y : unrepeat(rw, y));
      int64_t groups =
          cast<RankedTensorType>(operands.front().getType()).getDimSize(2);
      auto type = cast<RankedTensorType>(x.getType());
      RankedTensorType fewer = type.clone(
          {type.getDimSize(0), type.getDimSize(1), groups, type.getDimSize(3)});
      if (auto slice = dyn_cast<SliceOp>(op)) {
        SmallVector<int64_t> sizes(slice.getStaticSizes());
        sizes[2] = groups;
        result = SliceOp::create(rw, loc, fewer, operands[0],
                                 slice.getOffsets(), slice.getSizes(),
                                 slice.getStrides(), slice.getStaticOffsets(),
                                 sizes, slice.getStaticStrides());
      } else {
        OperationState state(loc, op->getName());
        state.addOperands(operands);
        state.addTypes(fewer);
        state.addAttributes(op->getAttrs());
        result = rw.create(state)->getResult(0);
      }
    }
    unrepeated[x] = result;
    return result;
  }

private:
  static bool agree(int64_t &groups, int64_t found) {
    if (groups && groups != found)
      return false;
    groups = found;
    return true;
  }

  /// The [B, S, Hkv, 1, D] source of a repetition
  /// reshape(expand(y) to [B, S, Hkv, n, D]) -> [B, S, Hkv*n, D], or null.
  Value repeatedFrom(Value x) {
    auto reshape = x.getDefiningOp<ReshapeOp>();
    auto expand =
        reshape ? reshape.getInput().getDefiningOp<ExpandOp>() : ExpandOp();
    if (!expand || !isRank4(x))
      return {};
    Value y = expand.getInput();
    auto source = cast<RankedTensorType>(y.getType());
    RankedTensorType wide = expand.getType();
    RankedTensorType type = reshape.getType();
    if (source.getRank() != 5 || wide.getRank() != 5 ||
        source.isDynamicDim(2) || source.getDimSize(3) != 1 ||
        wide.getDimSize(2) != source.getDimSize(2) || wide.isDynamicDim(3) ||
        source.isDynamicDim(4) || wide.getDimSize(4) != source.getDimSize(4) ||
        type.getDimSize(2) != source.getDimSize(2) * wide.getDimSize(3) ||
        type.getDimSize(3) != source.getDimSize(4))
      return {};
    // Batch and sequence come through from the source, not broadcast.
    if (!sameDim(shapes, x, 0, y, 0) || !sameDim(shapes, x, 1, y, 1))
      return {};
    return y;
  }

  /// A slice taking every head, in order.
  static bool keepsHeads(SliceOp slice) {
    RankedTensorType input = slice.getInput().getType();
    return !input.isDynamicDim(2) && slice.getStaticOffsets()[2] == 0 &&
           slice.getStaticSizes()[2] == input.getDimSize(2) &&
           slice.getStaticStrides()[2] == 1;
  }

  /// Whether `y`, broadcasting against [B, S, H, D], is the same for every
  /// head: padded to rank 4 with leading 1s, its dim 2 is a static 1.
  static bool broadcastsOverHeads(Value y) {
    auto type = cast<RankedTensorType>(y.getType());
    int64_t rank = type.getRank();
    return rank <= 4 && (rank < 2 || type.getDimSize(rank - 2) == 1);
  }

  const SymbolicShapes &shapes;
  DenseMap<Value, Value> unrepeated;
};

/// attention(q, k, v) bshd with K and V heads repeated (HeadUnrepeater) ->
/// attention(q, k', v') over the Hkv heads, grouped-query: the repetition,
/// and the rotary embedding over it, are not computed. In the [B, H, S, D]
/// layout, K and V repeated by repeat_kv (unrepeatedHeads) likewise: a
/// scaled_dot_product_attention that TorchScript or torch.export records
/// becomes tsc.attention directly, with its operands repeated.
struct UnrepeatHeads : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rw) const override {
    if (!op.getBshd()) {
      Value k = unrepeatedHeads(op.getKey());
      Value v = unrepeatedHeads(op.getValue());
      if (k == op.getKey() || v == op.getValue() || headsOf(k) != headsOf(v))
        return failure();
      rw.modifyOpInPlace(op, [&] {
        op.getKeyMutable().assign(k);
        op.getValueMutable().assign(v);
      });
      return success();
    }
    SymbolicShapes shapes(op->getParentRegion()->getParentOp());
    HeadUnrepeater unrepeater(shapes);
    int64_t groups = 0;
    if (!unrepeater.matches(op.getKey(), groups) ||
        !unrepeater.matches(op.getValue(), groups))
      return failure();
    rw.setInsertionPoint(op);
    Value k = unrepeater.unrepeat(rw, op.getKey());
    Value v = unrepeater.unrepeat(rw, op.getValue());
    rw.modifyOpInPlace(op, [&] {
      op.getKeyMutable().assign(k);
      op.getValueMutable().assign(v);
    });
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Head layout: transposes [0, 2, 1, 3] sunk to attention and absorbed
//===----------------------------------------------------------------------===//

/// The permutation between [B, S, H, D] and [B, H, S, D] (its own inverse).
constexpr int64_t kHeadSwap[] = {0, 2, 1, 3};

/// `x`'s source when `x` is a transpose [0, 2, 1, 3], else null.
Value headSwapSource(Value x) {
  auto t = x.getDefiningOp<TransposeOp>();
  if (!t || t.getPerm() != ArrayRef<int64_t>(kHeadSwap))
    return {};
  return t.getInput();
}

/// `type` (rank 4) with dims 1 and 2 swapped.
RankedTensorType swapped(Type type) {
  auto t = cast<RankedTensorType>(type);
  return t.clone({t.getDimSize(0), t.getDimSize(2), t.getDimSize(1),
                  t.getDimSize(3)});
}

/// Whether `y`, broadcasting against a [B, H, S, D] operand, has a
/// counterpart in the swapped layout that is only a reshape: padded to rank
/// 4 with leading 1s, one of its dims 1 and 2 is a static 1.
bool swapsByReshape(Value y) {
  auto type = cast<RankedTensorType>(y.getType());
  int64_t rank = type.getRank();
  if (rank > 4)
    return false;
  if (rank <= 1)
    return true;
  auto padded = [&](int64_t d) {
    return d < 4 - rank ? 1 : type.getDimSize(d - (4 - rank));
  };
  return padded(1) == 1 || padded(2) == 1;
}

/// The counterpart of `y` (swapsByReshape) in the swapped layout.
Value swapByReshape(PatternRewriter &rw, Location loc, Value y) {
  auto type = cast<RankedTensorType>(y.getType());
  int64_t rank = type.getRank();
  if (rank <= 1)
    return y;
  SmallVector<int64_t> shape(4 - rank, 1);
  llvm::append_range(shape, type.getShape());
  if (shape[1] == 1 && shape[2] == 1 && rank == 4)
    return y;
  std::swap(shape[1], shape[2]);
  // The dynamic dims, in order, read from `y`: a reshape keeps their order
  // because dims 1 and 2 have a 1 among them.
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < rank; ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(
          DimOp::create(rw, loc, y, rw.getI64IntegerAttr(d)).getResult());
  return ReshapeOp::create(rw, loc, type.clone(shape), y, dynamic);
}

/// Elementwise ops compute in any layout: of one operand, or of several
/// that broadcast against each other.
bool isHeadwiseUnary(Operation *op) {
  return op->hasTrait<OpTrait::tsc::Elementwise>() && op->getNumOperands() == 1;
}

bool isHeadwiseBinary(Operation *op) {
  return op->hasTrait<OpTrait::tsc::Elementwise>() &&
         op->hasTrait<OpTrait::tsc::Broadcasting>();
}

/// Whether `op`, one of whose operands is a transpose [0, 2, 1, 3], can
/// compute in the untransposed layout: elementwise ops whose other operand
/// is transposed the same way or a broadcast that swaps by a reshape, a
/// slice, and a concat of inputs all transposed the same way.
bool canSinkHeadSwap(Operation *op) {
  if (op->getNumResults() != 1 || !isRank4(op->getResult(0)))
    return false;
  if (isHeadwiseUnary(op) || isa<SliceOp>(op))
    return static_cast<bool>(headSwapSource(op->getOperand(0)));
  if (isHeadwiseBinary(op)) {
    bool any = false;
    for (Value operand : op->getOperands()) {
      if (headSwapSource(operand))
        any = true;
      else if (!swapsByReshape(operand))
        return false;
    }
    return any;
  }
  if (auto concat = dyn_cast<ConcatOp>(op))
    return llvm::all_of(concat.getInputs(),
                        [](Value x) { return bool(headSwapSource(x)); });
  return false;
}

/// op(transpose(x), ...) -> transpose(op(x, ...)) for the ops of
/// canSinkHeadSwap, so that the transposes of a rotary embedding reach the
/// attention after it. Only when every user of the transpose sinks it (or
/// is an attention, which absorbs it): a transpose some other user keeps
/// would then be computed twice.
struct SinkHeadSwap : RewritePattern {
  SinkHeadSwap(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rw) const override {
    if (!isa_and_nonnull<TscDialect>(op->getDialect()) || !canSinkHeadSwap(op))
      return failure();
    // A slice moves its tensor only: its dynamic offsets, sizes and strides
    // (index operands) are read from its mixed lists below.
    ValueRange tensors =
        isa<SliceOp>(op) ? op->getOperands().take_front() : op->getOperands();
    for (Value operand : tensors) {
      if (!headSwapSource(operand))
        continue;
      for (Operation *user : operand.getUsers())
        if (!isa<BindShapeOp, AttentionOp>(user) && !canSinkHeadSwap(user))
          return failure();
    }
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value operand : tensors) {
      Value source = headSwapSource(operand);
      operands.push_back(source ? source : swapByReshape(rw, loc, operand));
    }
    Type resultType = op->getResult(0).getType();
    Operation *moved;
    if (auto slice = dyn_cast<SliceOp>(op)) {
      // Offsets, sizes and strides of dims 1 and 2 trade places.
      SmallVector<SmallVector<Value>> dynamic(3);
      SmallVector<SmallVector<int64_t>> statics(3);
      SmallVector<SmallVector<OpFoldResult>> mixed = {
          getMixedValues(slice.getStaticOffsets(), slice.getOffsets(), rw),
          getMixedValues(slice.getStaticSizes(), slice.getSizes(), rw),
          getMixedValues(slice.getStaticStrides(), slice.getStrides(), rw)};
      for (int i = 0; i < 3; ++i) {
        std::swap(mixed[i][1], mixed[i][2]);
        dispatchIndexOpFoldResults(mixed[i], dynamic[i], statics[i]);
      }
      moved = SliceOp::create(rw, loc, swapped(resultType), operands[0],
                              dynamic[0], dynamic[1], dynamic[2], statics[0],
                              statics[1], statics[2]);
    } else {
      OperationState state(loc, op->getName());
      state.addOperands(operands);
      state.addTypes(swapped(resultType));
      state.addAttributes(op->getAttrs());
      if (auto concat = dyn_cast<ConcatOp>(op)) {
        int64_t axis = kHeadSwap[concat.getAxis()];
        state.attributes.set("axis", rw.getI64IntegerAttr(axis));
      }
      moved = rw.create(state);
    }
    rw.replaceOpWithNewOp<TransposeOp>(op, resultType, moved->getResult(0),
                                       rw.getDenseI64ArrayAttr(kHeadSwap));
    return success();
  }
};

/// split(transpose(x)) -> transpose of each part of split(x), for a
/// [0, 2, 1, 3] transpose only the split reads: GPT-NeoX splits one fused
/// QKV projection after the head transpose, and the parts' transposes then
/// sink through the rotary embedding to the attention, which absorbs them.
struct SinkHeadSwapThroughSplit : OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SplitOp op,
                                PatternRewriter &rw) const override {
    Value source = headSwapSource(op.getInput());
    if (!source || !singleUse(op.getInput()))
      return failure();
    SmallVector<Type> types;
    for (Type type : op.getResultTypes())
      types.push_back(swapped(type));
    OperationState state(op.getLoc(), op->getName());
    state.addOperands(source);
    state.addTypes(types);
    state.addAttributes(op->getAttrs());
    state.attributes.set("axis", rw.getI64IntegerAttr(kHeadSwap[op.getAxis()]));
    Operation *split = rw.create(state);
    SmallVector<Value> parts;
    for (auto [part, type] :
         llvm::zip(split->getResults(), op.getResultTypes()))
      parts.push_back(TransposeOp::create(rw, op.getLoc(), type, part,
                                          rw.getDenseI64ArrayAttr(kHeadSwap)));
    rw.replaceOp(op, parts);
    return success();
  }
};

/// attention(transpose(q), transpose(k), transpose(v)) with transposes
/// [0, 2, 1, 3] -> transpose(attention(q, k, v) bshd); the transpose back
/// cancels against a [0, 2, 1, 3] transpose of the result. A transposed
/// operand with other users keeps its transpose for them.
struct AbsorbHeadSwaps : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rw) const override {
    if (op.getBshd())
      return failure();
    Value q = headSwapSource(op.getQuery()), k = headSwapSource(op.getKey()),
          v = headSwapSource(op.getValue());
    if (!q || !k || !v)
      return failure();
    SmallVector<Value> operands = {q, k, v};
    if (Value mask = op.getMask())
      operands.push_back(mask);
    OperationState state(op.getLoc(), op->getName());
    state.addOperands(operands);
    state.addTypes(swapped(op.getType()));
    AttentionOp::Properties properties = op.getProperties();
    properties.bshd = rw.getUnitAttr();
    state.useProperties(properties);
    Value result = rw.create(state)->getResult(0);
    rw.replaceOpWithNewOp<TransposeOp>(op, op.getType(), result,
                                       rw.getDenseI64ArrayAttr(kHeadSwap));
    return success();
  }
};

/// The value every element of `v` holds, when all hold one: a splat
/// constant through rearrangements and casts (getValuesProducer), or the
/// branch a where with such a condition picks.
std::optional<Attribute> splatValue(Value v) {
  Operation *producer = getValuesProducer(v);
  if (auto where = dyn_cast_or_null<WhereOp>(producer)) {
    std::optional<Attribute> condition = splatValue(where.getCondition());
    auto flag = condition ? dyn_cast<IntegerAttr>(*condition) : IntegerAttr();
    if (!flag)
      return std::nullopt;
    return splatValue(flag.getValue().isZero() ? where.getFalseValue()
                                               : where.getTrueValue());
  }
  SplatElementsAttr splat;
  if (!producer || !matchPattern(producer->getResult(0), m_Constant(&splat)))
    return std::nullopt;
  return splat.getSplatValue<Attribute>();
}

/// attention(q, k, v, mask) -> attention(q, k, v) for a mask that changes
/// no score: all zeros added, or all true kept. PyTorch's dynamo exporter
/// writes ViT's absent mask as where(expand(true), 0, finfo.min).
struct DropNeutralMask : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rw) const override {
    Value mask = op.getMask();
    std::optional<Attribute> value = mask ? splatValue(mask) : std::nullopt;
    if (!value)
      return failure();
    bool neutral = false;
    if (auto flag = dyn_cast<IntegerAttr>(*value))
      neutral = flag.getType().isInteger(1) && flag.getValue().isOne();
    else if (auto number = dyn_cast<FloatAttr>(*value))
      neutral = number.getValue().isZero();
    if (!neutral)
      return failure();
    rw.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
    return success();
  }
};

struct FuseAttentionPass
    : public tsc::impl::FuseAttentionPassBase<FuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<UnflattenHeads, FuseAttention, UnrepeatHeads, SinkHeadSwap,
                 SinkHeadSwapThroughSplit, AbsorbHeadSwaps, DropNeutralMask>(
        &getContext());
    BindShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
