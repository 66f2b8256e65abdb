//===- MergeGemms.cpp - GEMMs sharing an input into one wider GEMM --------===//

#include "passes/Passes.h"
#include "passes/transforms/MatchUtils.h"
#include "passes/transforms/MergedGemms.h"
#include "passes/transforms/Weights.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_MERGEGEMMSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// A linear op of `input` by a constant weight, without a residual. The
/// weight is a constant, or `dequantize` of constant codes (`weight` then)
/// by a constant scale and zero point, which concatenate along the output
/// features as the codes do: per output channel, or per group along K.
struct Gemm {
  LinearOp op;
  ConstantOp weight;
  DequantizeOp dequantize;
  ConstantOp scale, zeroPoint;
};

/// How a weight is stored, as far as GEMMs merged must agree on it: the
/// codes' element type, the dequantization's axis and group size, and
/// whether it has a zero point (1 or 0; none of these for a plain constant).
using WeightForm = std::tuple<Type, int64_t, int64_t, unsigned>;

/// `op` as a Gemm of a constant or of a dequantized constant that can merge
/// (whole-byte codes, per-channel or per-group scales), with its weight's
/// form; nullopt otherwise.
std::optional<std::pair<Gemm, WeightForm>> asGemm(LinearOp op) {
  Value weight = op.getWeight();
  if (auto constant = weight.getDefiningOp<ConstantOp>())
    return std::make_pair(Gemm{op, constant, {}, {}, {}},
                          WeightForm{Type(), -1, 0, 0u});
  auto dequantize = weight.getDefiningOp<DequantizeOp>();
  if (!dequantize || !dequantize.getAxis())
    return std::nullopt;
  auto codes = dequantize.getInput().getDefiningOp<ConstantOp>();
  auto scale = dequantize.getScale().getDefiningOp<ConstantOp>();
  ConstantOp zeroPoint;
  if (Value zp = dequantize.getZeroPoint())
    if (!(zeroPoint = zp.getDefiningOp<ConstantOp>()))
      return std::nullopt;
  auto codesType = cast<RankedTensorType>(dequantize.getInput().getType());
  if (!codes || !scale || codesType.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  // The scale's rows follow the output features: per channel, a 1-D scale
  // along them; per group along K, the weight's rank with N in place.
  int64_t axis = static_cast<int64_t>(*dequantize.getAxis());
  std::optional<uint64_t> group = dequantize.getGroupSize();
  int64_t scaleRank = cast<RankedTensorType>(scale.getType()).getRank();
  bool perChannel =
      !group && axis == op.getOutputFeaturesDim() && scaleRank == 1;
  bool perGroup = group && axis == op.getInputFeaturesDim() &&
                  scaleRank == codesType.getRank();
  if (!perChannel && !perGroup)
    return std::nullopt;
  return std::make_pair(Gemm{op, codes, dequantize, scale, zeroPoint},
                        WeightForm{codesType.getElementType(), axis,
                                   group ? static_cast<int64_t>(*group) : 0,
                                   zeroPoint ? 1u : 0u});
}

/// split(x)[i] each reshaped [..., n_i] -> [..., n_i / d, d] with one d
/// (the Q/K/V pieces of a projection split into heads) -> split(reshape(x)
/// to [..., N / d, d]) along the heads axis. The reshape of the projection
/// is a view, and the pieces are strided slices of it: a kernel reading
/// them needs no copy, where a reshape of a strided slice needs one.
struct SplitHeadsAfterReshape : OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitOp op, PatternRewriter &rw) const override {
    RankedTensorType inputType = op.getInput().getType();
    int64_t rank = inputType.getRank();
    if (static_cast<int64_t>(op.getAxis()) != rank - 1 ||
        inputType.isDynamicDim(rank - 1))
      return rw.notifyMatchFailure(op, "not a split of a static last dim");
    SmallVector<ReshapeOp> reshapes;
    int64_t d = 0;
    for (Value piece : op.getResults()) {
      if (!hasUsesIgnoringBindings(piece, 1))
        return failure();
      ReshapeOp reshape;
      for (Operation *user : piece.getUsers())
        if (auto r = dyn_cast<ReshapeOp>(user))
          reshape = r;
      if (!reshape)
        return failure();
      RankedTensorType from = cast<RankedTensorType>(piece.getType());
      RankedTensorType to = reshape.getType();
      // [..., n] -> [..., n / d, d] with the same leading dims.
      if (to.getRank() != rank + 1 ||
          to.getShape().take_front(rank - 1) != from.getShape().drop_back() ||
          to.isDynamicDim(rank - 1) || to.isDynamicDim(rank) ||
          (d && to.getDimSize(rank) != d) ||
          (!reshapes.empty() && reshape.getShape() != reshapes[0].getShape()))
        return failure();
      d = to.getDimSize(rank);
      reshapes.push_back(reshape);
    }
    if (reshapes.empty() || d <= 0 || inputType.getDimSize(rank - 1) % d != 0)
      return failure();
    SmallVector<int64_t> shape(inputType.getShape().drop_back());
    shape.append({inputType.getDimSize(rank - 1) / d, d});
    // The leading dims are the pieces' and so the input's: the first
    // reshape's dynamic sizes serve.
    auto whole = ReshapeOp::create(rw, op.getLoc(), inputType.clone(shape),
                                   op.getInput(), reshapes[0].getShape());
    SmallVector<Type> types;
    SmallVector<int64_t> sizes;
    for (ReshapeOp r : reshapes) {
      types.push_back(r.getType());
      sizes.push_back(r.getType().getDimSize(rank - 1));
    }
    auto heads = SplitOp::create(rw, op.getLoc(), types, whole,
                                 rw.getI64IntegerAttr(rank - 1),
                                 rw.getDenseI64ArrayAttr(sizes));
    for (auto [r, piece] : llvm::zip_equal(reshapes, heads.getResults()))
      rw.replaceOp(r, piece);
    return success();
  }
};

/// The index of `op` when it gathers by a constant of rank `indexRank` (0
/// or 1) holding one element within the gathered axis' static size.
std::optional<int64_t> constantIndex(GatherOp op, int64_t indexRank) {
  RankedTensorType type = op.getData().getType();
  DenseIntElementsAttr index;
  if (type.isDynamicDim(op.getAxis()) ||
      !matchPattern(op.getIndices(), m_Constant(&index)) ||
      index.getType().getRank() != indexRank || index.getNumElements() != 1)
    return std::nullopt;
  int64_t j = (*index.value_begin<APInt>()).getSExtValue();
  if (j < 0 || j >= type.getDimSize(op.getAxis()))
    return std::nullopt;
  return j;
}

/// The `tsc.dim` of each dynamic dim among the first `count` of `x`.
SmallVector<Value> dynamicSizes(PatternRewriter &rw, Location loc, Value x,
                                int64_t count) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < count; ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(DimOp::create(rw, loc, x, rw.getI64IntegerAttr(d)));
  return sizes;
}

/// gather(x, j) along the next-to-last axis of x [..., n, d], with j a
/// constant scalar -> piece j of split(reshape(x to [..., n * d])) along the
/// last axis. BLOOM lays its fused projection out as [B, S, H, 3, D] and
/// takes Q, K and V with such gathers, each a copy; the pieces of the split
/// are strided slices of a view, which a kernel reads without one. (The
/// gathers of one x give equal splits, which CSE merges.)
struct GatherPieceAsSplit : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rw) const override {
    RankedTensorType type = op.getData().getType();
    int64_t rank = type.getRank();
    if (rank < 2 || static_cast<int64_t>(op.getAxis()) != rank - 2 ||
        type.isDynamicDim(rank - 1))
      return failure();
    std::optional<int64_t> j = constantIndex(op, 0);
    if (!j)
      return failure();
    int64_t n = type.getDimSize(rank - 2), d = type.getDimSize(rank - 1);
    Location loc = op.getLoc();
    SmallVector<Value> sizes = dynamicSizes(rw, loc, op.getData(), rank - 2);
    SmallVector<int64_t> shape(type.getShape().drop_back(2));
    shape.push_back(n * d);
    auto whole =
        ReshapeOp::create(rw, loc, type.clone(shape), op.getData(), sizes);
    shape.back() = d;
    SmallVector<Type> types(n, type.clone(shape));
    auto pieces =
        SplitOp::create(rw, loc, types, whole, rw.getI64IntegerAttr(rank - 2),
                        rw.getDenseI64ArrayAttr(SmallVector<int64_t>(n, d)));
    rw.replaceOp(op, pieces.getResult(*j));
    return success();
  }
};

/// gather(x, [j]) along any axis, with [j] a constant 1-D index of one
/// element -> the slice of size 1 at j, which a kernel reads in place where
/// the gather copies (Falcon's TorchScript export takes its K and V heads
/// from the fused projection so).
struct GatherOneAsSlice : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rw) const override {
    std::optional<int64_t> j = constantIndex(op, 1);
    if (!j)
      return failure();
    RankedTensorType type = op.getData().getType();
    int64_t axis = op.getAxis(), rank = type.getRank();
    SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
        strides(rank, 1);
    offsets[axis] = *j;
    sizes[axis] = 1;
    SmallVector<Value> dynamic =
        dynamicSizes(rw, op.getLoc(), op.getData(), rank);
    rw.replaceOpWithNewOp<SliceOp>(op, op.getType(), op.getData(), ValueRange(),
                                   dynamic, ValueRange(), offsets, sizes,
                                   strides);
    return success();
  }
};

struct MergeGemmsPass : public tsc::impl::MergeGemmsPassBase<MergeGemmsPass> {
  using Base::Base;

  void runOnOperation() override {
    ReplacedWeights replaced(getOperation(), freeReplacedWeights);
    mergeAll(replaced);
    // Then split projections into heads without copies.
    RewritePatternSet patterns(&getContext());
    patterns.add<SplitHeadsAfterReshape, GatherPieceAsSplit, GatherOneAsSlice>(
        &getContext());
    BindShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }

  void mergeAll(ReplacedWeights &replaced) {
    // Group by the input, the weight layout, K, the element type, the
    // weight's form (plain, or how it is dequantized) and the activation
    // (one GEMM applies one to all its columns).
    using Key =
        std::tuple<Value, unsigned, int64_t, Type, WeightForm, GemmActivation>;
    llvm::MapVector<Key, SmallVector<Gemm>> groups;
    getOperation().walk([&](LinearOp op) {
      auto type = cast<RankedTensorType>(op.getWeight().getType());
      if (op.getResidual() || !type.hasStaticShape() ||
          (op.getBias() && !op.getBias().getDefiningOp<ConstantOp>()))
        return;
      std::optional<std::pair<Gemm, WeightForm>> gemm = asGemm(op);
      if (!gemm)
        return;
      Key key{op.getInput(),
              op.getWeightKn() ? 1u : 0u,
              type.getDimSize(op.getInputFeaturesDim()),
              type.getElementType(),
              gemm->second,
              op.getActivation()};
      groups[key].push_back(gemm->first);
    });
    for (auto &[key, gemms] : groups)
      if (gemms.size() > 1)
        merge(gemms, replaced);
  }

  /// x·W1ᵀ + b1, x·W2ᵀ + b2, ... -> split(x·[W1 W2 ...]ᵀ + [b1 b2 ...]).
  /// Dequantized weights merge as dequantize([Q1 Q2 ...], [s1 s2 ...]):
  /// the same values, so the merged int8 GEMM computes what the separate
  /// ones did, reading (and quantizing) its input once. The weights and
  /// biases merged are freed as soon as nothing else reads them, before
  /// the next group is concatenated.
  void merge(MutableArrayRef<Gemm> gemms, ReplacedWeights &replaced) {
    // The merged product goes where the first of them is; the weights and
    // biases, being constants, and the shared input dominate it.
    Operation *first = gemms.front().op;
    for (const Gemm &g : gemms)
      if (g.op->isBeforeInBlock(first))
        first = g.op;
    auto before = [&](Operation *op) {
      return !op || op->isBeforeInBlock(first);
    };
    for (Gemm &g : gemms) {
      Value bias = g.op.getBias();
      if (g.op->getBlock() != first->getBlock() || !before(g.weight) ||
          !before(g.scale) || !before(g.zeroPoint) ||
          (bias && !before(bias.getDefiningOp())))
        return;
    }
    OpBuilder builder(first);
    // The merged product carries every source GEMM's location, marked so
    // that reports name each of them (compiler/plan/PlanReport.cpp).
    SmallVector<Location> locs;
    for (const Gemm &g : gemms)
      locs.push_back(g.op->getLoc());
    Location loc = FusedLoc::get(builder.getContext(), locs,
                                 builder.getStringAttr(kMergedGemmsLoc));
    LinearOp sample = gemms.front().op;
    int64_t nDim = sample.getOutputFeaturesDim();
    auto weightType = cast<RankedTensorType>(sample.getWeight().getType());
    Type element = weightType.getElementType();
    bool anyBias = llvm::any_of(gemms, [](Gemm &g) {
      return static_cast<bool>(g.op.getBias());
    });
    SmallVector<Value> weights, scales, zeroPoints, biases;
    SmallVector<int64_t> sizes;
    int64_t total = 0;
    for (Gemm &g : gemms) {
      weights.push_back(g.weight.getResult());
      if (g.scale)
        scales.push_back(g.scale.getResult());
      if (g.zeroPoint)
        zeroPoints.push_back(g.zeroPoint.getResult());
      int64_t n = cast<RankedTensorType>(g.weight.getType()).getDimSize(nDim);
      sizes.push_back(n);
      total += n;
      if (!anyBias)
        continue;
      Value bias = g.op.getBias();
      if (!bias) {
        auto type = RankedTensorType::get({n}, element);
        bias = ConstantOp::create(
            builder, loc,
            DenseElementsAttr::get(type, builder.getFloatAttr(element, 0.0)));
      }
      biases.push_back(bias);
    }
    SmallVector<int64_t> weightShape(weightType.getShape());
    weightShape[nDim] = total;
    Value weight = concat(builder, loc, weights, nDim);
    if (DequantizeOp dequantize = gemms.front().dequantize) {
      // Per channel the 1-D scale runs along N; per group it has the
      // weight's layout.
      int64_t scaleAxis = dequantize.getGroupSize() ? nDim : 0;
      Value zeroPoint;
      if (!zeroPoints.empty())
        zeroPoint = concat(builder, loc, zeroPoints, scaleAxis);
      weight = DequantizeOp::create(
          builder, loc, weightType.clone(weightShape), weight,
          concat(builder, loc, scales, scaleAxis), zeroPoint,
          dequantize.getAxisAttr(), dequantize.getGroupSizeAttr());
    }
    Value bias;
    if (anyBias)
      bias = builder.createOrFold<ConcatOp>(
          loc, RankedTensorType::get({total}, element), biases,
          builder.getI64IntegerAttr(0));
    SmallVector<int64_t> shape(sample.getType().getShape());
    shape.back() = total;
    auto product = LinearOp::create(builder, loc, sample.getType().clone(shape),
                                    sample.getInput(), weight, bias,
                                    /*residual=*/Value(), sample.getWeightKn(),
                                    sample.getActivation());
    SmallVector<Type> pieces;
    for (Gemm &g : gemms)
      pieces.push_back(g.op.getType());
    auto split = SplitOp::create(
        builder, loc, pieces, product,
        builder.getI64IntegerAttr(static_cast<int64_t>(shape.size()) - 1),
        builder.getDenseI64ArrayAttr(sizes));
    llvm::SetVector<Operation *> originals;
    for (auto [g, piece] : llvm::zip_equal(gemms, split.getResults())) {
      LinearOp op = g.op;
      // A dequantization before the constants it reads, so that they are
      // dead when their turn comes.
      for (Operation *weight :
           {g.dequantize.getOperation(), g.weight.getOperation(),
            g.scale.getOperation(), g.zeroPoint.getOperation()})
        if (weight)
          originals.insert(weight);
      if (Value bias = op.getBias())
        originals.insert(bias.getDefiningOp());
      op.getResult().replaceAllUsesWith(piece);
      op->erase();
    }
    for (Operation *original : originals)
      replaced.eraseIfDead(original);
  }

  /// `parts` (constants) concatenated along `axis`, folded into one.
  static Value concat(OpBuilder &builder, Location loc, ArrayRef<Value> parts,
                      int64_t axis) {
    auto type = cast<RankedTensorType>(parts.front().getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = 0;
    for (Value part : parts)
      shape[axis] += cast<RankedTensorType>(part.getType()).getDimSize(axis);
    return builder.createOrFold<ConcatOp>(loc, type.clone(shape), parts,
                                          builder.getI64IntegerAttr(axis));
  }
};

} // namespace
