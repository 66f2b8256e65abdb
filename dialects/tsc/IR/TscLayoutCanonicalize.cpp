//===- TscLayoutCanonicalize.cpp - transposes cancelling across ops -------===//
//
// Exporters move between layouts and back around ops that do not care:
// a convolution's NCHW output flattened and transposed back to tokens (ViT's
// patch embedding), an activation between two transposes of a 1-D
// convolution's output (Whisper). These rewrites remove such pairs; each
// replaces two transposes by at most a reshape (a view) and never adds data
// movement.
//
//===----------------------------------------------------------------------===//

#include "dialects/tsc/IR/TscLayoutCanonicalize.h"
#include "dialects/tsc/IR/ConstantData.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// Whether `perm` is the identity.
bool isIdentity(ArrayRef<int64_t> perm) {
  return llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
}

/// Whether transposing by `outer` after `inner` puts every dim back.
bool undoes(TransposeOp outer, TransposeOp inner) {
  SmallVector<int64_t> composed;
  for (int64_t p : outer.getPerm())
    composed.push_back(inner.getPerm()[p]);
  return isIdentity(composed);
}

/// Whether `value`'s users, besides shape bindings, are just `op`.
bool onlyUsedBy(Value value, Operation *op) {
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    return user == op || isa<BindShapeOp>(user);
  });
}

/// transpose(unary(transpose(x))) -> unary(x) when the transposes undo each
/// other and the unary op is elementwise: it computes the same in any
/// layout.
struct CancelTransposesAroundUnary : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp outer,
                                PatternRewriter &rw) const override {
    Operation *unary = outer.getInput().getDefiningOp();
    if (!unary || !unary->hasTrait<OpTrait::tsc::Elementwise>() ||
        unary->getNumOperands() != 1 || unary->getNumResults() != 1 ||
        !onlyUsedBy(unary->getResult(0), outer))
      return failure();
    auto inner = unary->getOperand(0).getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    if (!undoes(outer, inner))
      return failure();
    OperationState state(unary->getLoc(), unary->getName());
    state.addOperands(inner.getInput());
    state.addTypes(outer.getType());
    state.addAttributes(unary->getAttrs());
    rw.replaceOp(outer, rw.create(state)->getResults());
    return success();
  }
};

/// The dims of `from` that make up each dim of `to`, when a reshape from
/// `from` to `to` only merges runs of adjacent dims. A dynamic dim must be
/// its own run on both sides, and there may be one only: with a single
/// unknown on each side, equal element counts make them equal.
std::optional<SmallVector<SmallVector<int64_t>>>
mergedRuns(RankedTensorType from, RankedTensorType to) {
  if (from.getNumDynamicDims() > 1 ||
      from.getNumDynamicDims() != to.getNumDynamicDims())
    return std::nullopt;
  SmallVector<SmallVector<int64_t>> runs;
  int64_t i = 0, rank = from.getRank();
  for (int64_t size : to.getShape()) {
    SmallVector<int64_t> run;
    if (ShapedType::isDynamic(size)) {
      if (i == rank || !from.isDynamicDim(i))
        return std::nullopt;
      run.push_back(i++);
    } else {
      int64_t product = 1;
      while (i < rank && !from.isDynamicDim(i) &&
             (run.empty() || product < size)) {
        product *= from.getDimSize(i);
        run.push_back(i++);
      }
      // Trailing 1s join the run they follow.
      while (i < rank && product == size && from.getDimSize(i) == 1 &&
             runs.size() + 1 == static_cast<size_t>(to.getRank()))
        run.push_back(i++);
      if (run.empty() || product != size)
        return std::nullopt;
    }
    runs.push_back(std::move(run));
  }
  if (i != rank)
    return std::nullopt;
  return runs;
}

/// transpose(reshape(transpose(x))) -> reshape(x) when the reshape merges
/// runs of adjacent dims and the outer transpose, moving those runs, puts
/// every dim of x back in place. ViT's patch embedding writes it: the
/// [B, H, W, C] convolution output transposed to [B, C, H, W], flattened to
/// [B, C, H*W] and transposed to [B, H*W, C] tokens.
struct FoldTransposesAroundReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp outer,
                                PatternRewriter &rw) const override {
    auto reshape = outer.getInput().getDefiningOp<ReshapeOp>();
    if (!reshape)
      return failure();
    auto inner = reshape.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    std::optional<SmallVector<SmallVector<int64_t>>> runs =
        mergedRuns(inner.getType(), reshape.getType());
    if (!runs)
      return failure();
    SmallVector<int64_t> order;
    for (int64_t p : outer.getPerm())
      for (int64_t d : (*runs)[p])
        order.push_back(inner.getPerm()[d]);
    if (!isIdentity(order))
      return failure();
    // The result's dynamic dims are the reshape's, in the outer order.
    RankedTensorType merged = reshape.getType();
    SmallVector<Value> dynamic;
    for (int64_t p : outer.getPerm())
      if (merged.isDynamicDim(p))
        dynamic.push_back(reshape.getShape()[merged.getDynamicDimIndex(p)]);
    rw.replaceOpWithNewOp<ReshapeOp>(outer, outer.getType(), inner.getInput(),
                                     dynamic);
    return success();
  }
};

/// Whether `op` moves only dims of static size 1: the elements stay in
/// row-major order (a single K/V head moved between the [B, S, H, D] and
/// [B, H, S, D] layouts).
bool movesOnlyUnitDims(TransposeOp op) {
  RankedTensorType input = op.getInput().getType();
  SmallVector<int64_t> kept;
  for (int64_t p : op.getPerm())
    if (input.getDimSize(p) != 1)
      kept.push_back(p);
  return llvm::is_sorted(kept);
}

/// reshape(transpose(x)) -> reshape(x) when the transpose moves only dims
/// of size 1: a reshape reads the elements in row-major order, which such a
/// transpose keeps. (Sinking a single K/V head's transpose through a rotary
/// embedding leaves this pair.)
struct ReshapeOfUnitDimTranspose : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rw) const override {
    auto transpose = op.getInput().getDefiningOp<TransposeOp>();
    if (!transpose || !movesOnlyUnitDims(transpose))
      return failure();
    rw.modifyOpInPlace(
        op, [&] { op.getInputMutable().assign(transpose.getInput()); });
    return success();
  }
};

/// transpose(gather_nd(transpose(x), [[i]])) -> slice(x) when the inner
/// transpose brings dim `a` of x to the front, gather_nd takes its index
/// `i` (a constant tuple of one entry, batch_dims 0: the [1, ...] slice at
/// i) and the outer transpose puts every dim back. Falcon's dynamo export
/// picks the shared K and V heads out of the fused QKV projection so:
/// `qkv[..., -2:-1, :]` through a transpose to the front and back.
struct FoldTransposedGatherNdToSlice : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp outer,
                                PatternRewriter &rw) const override {
    auto gather = outer.getInput().getDefiningOp<GatherNdOp>();
    if (!gather || gather.getBatchDims() != 0)
      return failure();
    auto inner = gather.getData().getDefiningOp<TransposeOp>();
    DenseIntElementsAttr indices;
    if (!inner || !matchPattern(gather.getIndices(), m_Constant(&indices)) ||
        indices.getType().getShape() != ArrayRef<int64_t>{1, 1})
      return failure();
    if (!undoes(outer, inner))
      return failure();
    Value x = inner.getInput();
    RankedTensorType type = inner.getInput().getType();
    int64_t axis = inner.getPerm()[0];
    int64_t size = type.getDimSize(axis);
    int64_t index = (*indices.getValues<APInt>().begin()).getSExtValue();
    if (ShapedType::isDynamic(size) || index < -size || index >= size)
      return failure();
    if (index < 0)
      index += size;
    Location loc = outer.getLoc();
    SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
    SmallVector<int64_t> sizes(type.getShape());
    offsets[axis] = index;
    sizes[axis] = 1;
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(
            DimOp::create(rw, loc, x, rw.getI64IntegerAttr(d)));
    rw.replaceOpWithNewOp<SliceOp>(outer, outer.getType(), x, ValueRange(),
                                   dynamicSizes, ValueRange(), offsets, sizes,
                                   strides);
    return success();
  }
};

/// Whether `v` is all zeros of an integer type: a splat 0, a product with
/// one, or a sum of two (TorchScript traces a broadcast as `x + y * 0`).
bool isIntegerZeros(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !isa<IntegerType>(type.getElementType()))
    return false;
  SplatElementsAttr splat;
  if (matchPattern(v, m_Constant(&splat)))
    return splat.getSplatValue<APInt>().isZero();
  if (auto mul = v.getDefiningOp<MulOp>())
    return isIntegerZeros(mul.getLhs()) || isIntegerZeros(mul.getRhs());
  if (auto add = v.getDefiningOp<AddOp>())
    return isIntegerZeros(add.getLhs()) && isIntegerZeros(add.getRhs());
  return false;
}

/// Where dim `pos` of a reshape's input is in its result, when the reshape
/// only inserts or drops dims of static size 1 and keeps the others (each
/// dynamic one given the input's size); nullopt otherwise.
std::optional<int64_t> unitReshapedDim(ReshapeOp reshape, int64_t pos) {
  RankedTensorType in = reshape.getInput().getType(), out = reshape.getType();
  auto kept = [](RankedTensorType t) {
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (t.getDimSize(d) != 1)
        dims.push_back(d);
    return dims;
  };
  SmallVector<int64_t> from = kept(in), to = kept(out);
  if (from.size() != to.size())
    return std::nullopt;
  std::optional<int64_t> moved;
  for (auto [a, b] : llvm::zip_equal(from, to)) {
    if (in.getDimSize(a) != out.getDimSize(b) ||
        (out.isDynamicDim(b) &&
         !isDimOf(reshape.getShape()[out.getDynamicDimIndex(b)],
                  reshape.getInput(), a)))
      return std::nullopt;
    if (a == pos)
      moved = b;
  }
  return moved;
}

/// The dim of `index` along which it counts 0, 1, ..., L - 1 (broadcast
/// along its other dims), with `limit` set to L (an i64 scalar): a
/// range(0, L, 1) through unsqueezes, expands, additions of integer zeros
/// (broadcasts, as traces write them) and reshapes of unit dims. Nullopt
/// otherwise.
std::optional<int64_t> countingDim(Value index, Value &limit) {
  SmallVector<std::pair<Operation *, Value>> chain; // op, its input
  Value v = index;
  while (Operation *def = v.getDefiningOp()) {
    Value input;
    if (isa<UnsqueezeOp, ExpandOp, ReshapeOp>(def))
      input = def->getOperand(0);
    else if (auto add = dyn_cast<AddOp>(def))
      input = isIntegerZeros(add.getRhs())   ? add.getLhs()
              : isIntegerZeros(add.getLhs()) ? add.getRhs()
                                             : Value();
    if (!input)
      break;
    chain.push_back({def, input});
    v = input;
  }
  auto range = v.getDefiningOp<RangeOp>();
  if (!range || !matchPattern(range.getStart(), m_Zero()) ||
      !matchPattern(range.getDelta(), m_One()))
    return std::nullopt;
  // The range's one dim, followed from the range to `index`.
  int64_t pos = 0;
  for (auto [op, input] : llvm::reverse(chain)) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (auto unsqueeze = dyn_cast<UnsqueezeOp>(op)) {
      // The pos-th result dim that the unsqueeze does not insert.
      int64_t kept = -1, d = 0;
      for (; d < type.getRank(); ++d)
        if (!llvm::is_contained(unsqueeze.getDims(), d) && ++kept == pos)
          break;
      pos = d;
    } else if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      std::optional<int64_t> moved = unitReshapedDim(reshape, pos);
      if (!moved)
        return std::nullopt;
      pos = *moved;
    } else {
      // An expand or a broadcasting add aligns the input's dims with the
      // result's trailing ones.
      pos += type.getRank() - cast<RankedTensorType>(input.getType()).getRank();
    }
  }
  limit = range.getLimit();
  return pos;
}

/// Whether the i64 scalar `limit` is dim `d` of `x`: the same constant, or
/// the index cast of a size that is that dim (isDimOf).
bool limitIsDimOf(Value limit, Value x, int64_t d) {
  int64_t size = cast<RankedTensorType>(x.getType()).getDimSize(d);
  APInt value;
  if (matchPattern(limit, m_ConstantInt(&value)))
    return !ShapedType::isDynamic(size) && value.getSExtValue() == size;
  auto cast = limit.getDefiningOp<arith::IndexCastOp>();
  return cast && isDimOf(cast.getIn(), x, d);
}

/// gather_nd(x, concat(i_0, ..., i_{r-1})) -> reshape(x) when each i_j
/// counts through dim j of x along its own output dim p_j (countingDim),
/// p_0 < ... < p_{r-1}, and every other output dim is a static 1: the
/// gather reads x in order. transformers' masks built by vmap index the
/// padding mask so, `mask[batch_idx, kv_idx]` over [B, 1, 1, S] grids of
/// aranges, which PyTorch's dynamo exporter writes as expands, a concat
/// and a GatherND.
struct GatherNdOfCountingGrid : OpRewritePattern<GatherNdOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherNdOp op,
                                PatternRewriter &rw) const override {
    Value x = op.getData();
    auto xType = cast<RankedTensorType>(x.getType());
    RankedTensorType type = op.getType();
    int64_t rank = xType.getRank();
    auto concat = op.getIndices().getDefiningOp<ConcatOp>();
    int64_t outer = type.getRank();
    if (op.getBatchDims() != 0 || !concat ||
        int64_t(concat.getInputs().size()) != rank ||
        int64_t(concat.getAxis()) != outer)
      return failure();
    SmallVector<int64_t> source(outer, -1); // the dim of x each counts
    int64_t last = -1;
    for (auto [j, part] : llvm::enumerate(concat.getInputs())) {
      Value limit;
      std::optional<int64_t> p = countingDim(part, limit);
      // Along p: x's dim j, and the output's (so the range was not
      // broadcast along it).
      if (!p || *p <= last || *p >= outer || !limitIsDimOf(limit, x, j))
        return failure();
      int64_t size = type.getDimSize(*p);
      auto index = limit.getDefiningOp<arith::IndexCastOp>();
      if (ShapedType::isDynamic(size)
              ? !index || !isDimOf(index.getIn(), op.getResult(), *p)
              : size != xType.getDimSize(j))
        return failure();
      source[*p] = j;
      last = *p;
    }
    if (llvm::any_of(llvm::seq<int64_t>(0, outer), [&](int64_t d) {
          return source[d] < 0 && type.getDimSize(d) != 1;
        }))
      return failure();
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < outer; ++d)
      if (type.isDynamicDim(d))
        sizes.push_back(
            DimOp::create(rw, op.getLoc(), x, rw.getI64IntegerAttr(source[d])));
    rw.replaceOpWithNewOp<ReshapeOp>(op, type, x, sizes);
    return success();
  }
};

/// The bytes of the constant `attr` (of static `type`) transposed by `perm`;
/// nullopt where getConstantBytes has none.
std::optional<std::vector<char>>
transposeBytes(Attribute attr, RankedTensorType type, ArrayRef<int64_t> perm) {
  std::optional<std::vector<char>> bytes = getConstantBytes(attr);
  if (!bytes || type.getNumElements() == 0)
    return std::nullopt;
  int64_t rank = type.getRank();
  size_t element = bytes->size() / type.getNumElements();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * type.getDimSize(d + 1);
  std::vector<char> out(bytes->size());
  SmallVector<int64_t> index(rank, 0); // of the result, row-major
  for (int64_t i = 0, n = type.getNumElements(); i < n; ++i) {
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d)
      from += index[d] * strides[perm[d]];
    std::copy_n(bytes->begin() + from * element, element,
                out.begin() + i * element);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < type.getDimSize(perm[d]))
        break;
      index[d] = 0;
    }
  }
  return out;
}

/// transpose(gather(table, indices)) -> gather(table', indices) when the
/// table is a constant and the transpose keeps the indices' dims together
/// and in order: table' is the table transposed at compile time, so the
/// transpose costs nothing at run time. T5's relative position bias looks
/// up [S, S, H] from its [buckets, H] table and transposes it to [H, S, S].
struct GatherConstantInTransposedLayout : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rw) const override {
    auto gather = op.getInput().getDefiningOp<GatherOp>();
    Attribute table;
    if (!gather || !onlyUsedBy(gather.getResult(), op) ||
        !matchPattern(gather.getData(), m_Constant(&table)))
      return failure();
    auto dataType = cast<RankedTensorType>(gather.getData().getType());
    auto axis = static_cast<int64_t>(gather.getAxis());
    int64_t count =
        cast<RankedTensorType>(gather.getIndices().getType()).getRank();
    ArrayRef<int64_t> perm = op.getPerm();
    // Where the indices' dims start in the result, and the table's dims in
    // the result's order (the indices' dims as the one dim they replace).
    auto first = llvm::find(perm, axis);
    if (!dataType.hasStaticShape() || count == 0 ||
        perm.end() - first < count ||
        !llvm::equal(ArrayRef(first, count), llvm::seq(axis, axis + count)))
      return failure();
    SmallVector<int64_t> dataPerm;
    for (int64_t p : perm) {
      if (p < axis)
        dataPerm.push_back(p);
      else if (p == axis)
        dataPerm.push_back(axis);
      else if (p >= axis + count)
        dataPerm.push_back(p - count + 1);
    }
    if (isIdentity(dataPerm))
      return failure();
    SmallVector<int64_t> shape;
    for (int64_t p : dataPerm)
      shape.push_back(dataType.getDimSize(p));
    auto transposedType =
        RankedTensorType::get(shape, dataType.getElementType());
    std::optional<std::vector<char>> bytes =
        transposeBytes(table, dataType, dataPerm);
    if (!bytes)
      return failure();
    std::string name = "transposed";
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(table))
      name = (resource.getRawHandle().getKey() + "_transposed").str();
    Value data = ConstantOp::create(
        rw, gather.getLoc(), transposedType,
        cast<ElementsAttr>(getConstantFromBytes(transposedType, *bytes, name)));
    rw.replaceOpWithNewOp<GatherOp>(op, op.getType(), data, gather.getIndices(),
                                    rw.getI64IntegerAttr(first - perm.begin()));
    return success();
  }
};

} // namespace

void mlir::tsc::populateLayoutCanonicalizations(RewritePatternSet &patterns) {
  patterns.add<CancelTransposesAroundUnary, FoldTransposesAroundReshape,
               ReshapeOfUnitDimTranspose, FoldTransposedGatherNdToSlice,
               GatherConstantInTransposedLayout, GatherNdOfCountingGrid>(
      patterns.getContext());
}
