//===- ShapeArithmetic.cpp - evaluate shape subgraphs element by element --===//
//
// Exporters compute shapes at run time: Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape, with Add/Mul/Div/Mod, Neg, Cast, Equal, Not/And/Or and Where
// on the way (ONNX Attention's function body tests head counts). Once
// converted, those are tsc ops on small integer tensors. These patterns turn
// each into `tensor.from_elements` of scalars (dims as `tsc.dim`, constants
// folded), so converters read a shape's elements as dims and constants, and
// the dims fold to symbols.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/ForeignNode.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::foreign;

namespace {

std::optional<int64_t> constantOf(OpFoldResult ofr) {
  if (auto attr = dyn_cast<Attribute>(ofr))
    return cast<IntegerAttr>(attr).getInt();
  return std::nullopt;
}

/// `ofr` as a scalar of `type`.
Value materialize(OpBuilder &b, Location loc, OpFoldResult ofr,
                  IntegerType type) {
  if (std::optional<int64_t> c = constantOf(ofr))
    return arith::ConstantIntOp::create(b, loc, type, *c);
  Value v = cast<Value>(ofr);
  if (v.getType().isIndex())
    return b.createOrFold<arith::IndexCastOp>(loc, type, v);
  unsigned from = v.getType().getIntOrFloatBitWidth();
  if (from < type.getWidth())
    return b.createOrFold<arith::ExtSIOp>(loc, type, v);
  if (from > type.getWidth())
    return b.createOrFold<arith::TruncIOp>(loc, type, v);
  return v;
}

/// The result's element type, when it is a small static integer tensor.
IntegerType smallIntResult(Value result) {
  auto type = cast<RankedTensorType>(result.getType());
  if (type.getRank() > 1 || !type.hasStaticShape() ||
      type.getNumElements() > 16)
    return {};
  return dyn_cast<IntegerType>(type.getElementType());
}

LogicalResult replaceWithElements(PatternRewriter &rw, Operation *op,
                                  ArrayRef<OpFoldResult> elements) {
  Value result = op->getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  if (type.getNumElements() != static_cast<int64_t>(elements.size()))
    return failure();
  rw.replaceOp(op, buildShapeTensor(rw, op->getLoc(), elements,
                                    type.getRank() == 0,
                                    type.getElementType()));
  return success();
}

struct ShapeOfToElements : OpRewritePattern<ShapeOfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ShapeOfOp op,
                                PatternRewriter &rw) const override {
    RankedTensorType type = op.getInput().getType();
    if (type.hasStaticShape() || type.getRank() > 16)
      return failure();
    SmallVector<OpFoldResult> dims;
    for (int64_t d = 0; d < type.getRank(); ++d)
      dims.push_back(type.isDynamicDim(d)
                         ? OpFoldResult(rw.createOrFold<DimOp>(
                               op.getLoc(), op.getInput(), d))
                         : OpFoldResult(rw.getI64IntegerAttr(type.getDimSize(d))));
    return replaceWithElements(rw, op, dims);
  }
};

struct GatherOfElements : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rw) const override {
    auto data = getShapeElements(op.getData());
    DenseIntElementsAttr indices;
    if (!data || op.getData().getType().getRank() != 1 ||
        !smallIntResult(op.getResult()) ||
        !matchPattern(op.getIndices(), m_Constant(&indices)))
      return failure();
    SmallVector<OpFoldResult> out;
    for (const APInt &index : indices.getValues<APInt>()) {
      int64_t i = index.getSExtValue();
      if (i < 0)
        i += data->size();
      if (i < 0 || i >= static_cast<int64_t>(data->size()))
        return failure();
      out.push_back((*data)[i]);
    }
    return replaceWithElements(rw, op, out);
  }
};

/// Squeeze, Unsqueeze, Reshape and int-to-int Cast keep the elements.
template <typename OpTy>
struct SameElements : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    auto elements = getShapeElements(op->getOperand(0));
    if (!elements || !smallIntResult(op->getResult(0)))
      return failure();
    return replaceWithElements(rw, op, *elements);
  }
};

struct ConcatOfElements : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rw) const override {
    if (!smallIntResult(op.getResult()) || op.getType().getRank() != 1)
      return failure();
    SmallVector<OpFoldResult> out;
    for (Value input : op.getInputs()) {
      auto elements = getShapeElements(input);
      if (!elements)
        return failure();
      llvm::append_range(out, *elements);
    }
    return replaceWithElements(rw, op, out);
  }
};

struct SliceOfElements : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rw) const override {
    auto elements = getShapeElements(op.getInput());
    if (!elements || op.getType().getRank() != 1 ||
        !smallIntResult(op.getResult()) || !op.getOffsets().empty() ||
        !op.getSizes().empty() || !op.getStrides().empty())
      return failure();
    SmallVector<OpFoldResult> out;
    int64_t offset = op.getStaticOffsets()[0], stride = op.getStaticStrides()[0];
    for (int64_t i = 0; i < op.getStaticSizes()[0]; ++i)
      out.push_back((*elements)[offset + i * stride]);
    return replaceWithElements(rw, op, out);
  }
};

/// Elementwise integer arithmetic and comparison on shape elements, with the
/// broadcasting of a single element.
template <typename OpTy>
struct BinaryOfElements : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    auto lhs = getShapeElements(op.getLhs());
    auto rhs = getShapeElements(op.getRhs());
    IntegerType resultType = smallIntResult(op.getResult());
    if (!lhs || !rhs || !resultType)
      return failure();
    auto operandType =
        cast<IntegerType>(op.getLhs().getType().getElementType());
    int64_t n = op.getType().getNumElements();
    if ((lhs->size() != 1 && static_cast<int64_t>(lhs->size()) != n) ||
        (rhs->size() != 1 && static_cast<int64_t>(rhs->size()) != n))
      return failure();
    SmallVector<OpFoldResult> out;
    for (int64_t i = 0; i < n; ++i) {
      OpFoldResult a = (*lhs)[lhs->size() == 1 ? 0 : i];
      OpFoldResult b = (*rhs)[rhs->size() == 1 ? 0 : i];
      std::optional<int64_t> ca = constantOf(a), cb = constantOf(b);
      if (ca && cb) {
        std::optional<int64_t> folded = evaluate(*ca, *cb);
        if (!folded)
          return failure();
        out.push_back(rw.getI64IntegerAttr(*folded));
        continue;
      }
      Value va = materialize(rw, op.getLoc(), a, operandType);
      Value vb = materialize(rw, op.getLoc(), b, operandType);
      out.push_back(build(rw, op.getLoc(), va, vb));
    }
    return replaceWithElements(rw, op, out);
  }

  static std::optional<int64_t> evaluate(int64_t a, int64_t b) {
    if constexpr (std::is_same_v<OpTy, AddOp>)
      return a + b;
    if constexpr (std::is_same_v<OpTy, SubOp>)
      return a - b;
    if constexpr (std::is_same_v<OpTy, MulOp>)
      return a * b;
    if constexpr (std::is_same_v<OpTy, DivOp>) {
      if (b == 0)
        return std::nullopt;
      return a / b;
    }
    if constexpr (std::is_same_v<OpTy, ModOp>) {
      // Floored (Python's %), 0 for b = 0 as tsc.mod computes.
      int64_t r = b == 0 ? 0 : a % b;
      return r != 0 && (r < 0) != (b < 0) ? r + b : r;
    }
    if constexpr (std::is_same_v<OpTy, EqualOp>)
      return a == b;
    if constexpr (std::is_same_v<OpTy, AndOp>)
      return a && b;
    if constexpr (std::is_same_v<OpTy, OrOp>)
      return a || b;
    return std::nullopt;
  }

  static Value build(PatternRewriter &rw, Location loc, Value a, Value b) {
    if constexpr (std::is_same_v<OpTy, AddOp>)
      return rw.createOrFold<arith::AddIOp>(loc, a, b);
    if constexpr (std::is_same_v<OpTy, SubOp>)
      return rw.createOrFold<arith::SubIOp>(loc, a, b);
    if constexpr (std::is_same_v<OpTy, MulOp>)
      return rw.createOrFold<arith::MulIOp>(loc, a, b);
    if constexpr (std::is_same_v<OpTy, DivOp>)
      return rw.createOrFold<arith::DivSIOp>(loc, a, b);
    if constexpr (std::is_same_v<OpTy, ModOp>)
      return rw.createOrFold<arith::SubIOp>(
          loc, a,
          rw.createOrFold<arith::MulIOp>(
              loc, rw.createOrFold<arith::FloorDivSIOp>(loc, a, b), b));
    if constexpr (std::is_same_v<OpTy, AndOp>)
      return rw.createOrFold<arith::AndIOp>(loc, a, b);
    if constexpr (std::is_same_v<OpTy, OrOp>)
      return rw.createOrFold<arith::OrIOp>(loc, a, b);
    return rw.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, a, b);
  }
};

/// Unary ops on shape elements: exporters' `Not(Equal(...))`, and negated
/// axes (LayerNormalization's expansion counts its reduced dims as -axis).
template <typename OpTy>
struct UnaryOfElements : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    auto elements = getShapeElements(op.getInput());
    IntegerType type = smallIntResult(op.getResult());
    if (!elements || !type)
      return failure();
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> out;
    for (OpFoldResult e : *elements) {
      std::optional<int64_t> c = constantOf(e);
      if constexpr (std::is_same_v<OpTy, NotOp>) {
        if (c)
          out.push_back(rw.getI64IntegerAttr(*c == 0));
        else
          out.push_back(rw.createOrFold<arith::XOrIOp>(
              loc, materialize(rw, loc, e, type),
              arith::ConstantIntOp::create(rw, loc, type, 1)));
      } else {
        if (c)
          out.push_back(rw.getI64IntegerAttr(-*c));
        else
          out.push_back(rw.createOrFold<arith::SubIOp>(
              loc, arith::ConstantIntOp::create(rw, loc, type, 0),
              materialize(rw, loc, e, type)));
      }
    }
    return replaceWithElements(rw, op, out);
  }
};

struct WhereOfElements : OpRewritePattern<WhereOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhereOp op,
                                PatternRewriter &rw) const override {
    auto cond = getShapeElements(op.getCondition());
    auto x = getShapeElements(op.getTrueValue());
    auto y = getShapeElements(op.getFalseValue());
    IntegerType resultType = smallIntResult(op.getResult());
    if (!cond || !x || !y || !resultType)
      return failure();
    int64_t n = op.getType().getNumElements();
    auto at = [&](const SmallVector<OpFoldResult> &e, int64_t i) {
      return e.size() == 1 ? e[0] : e[i];
    };
    for (auto *e : {&*cond, &*x, &*y})
      if (e->size() != 1 && static_cast<int64_t>(e->size()) != n)
        return failure();
    SmallVector<OpFoldResult> out;
    for (int64_t i = 0; i < n; ++i) {
      OpFoldResult c = at(*cond, i);
      if (std::optional<int64_t> cc = constantOf(c)) {
        out.push_back(*cc ? at(*x, i) : at(*y, i));
        continue;
      }
      out.push_back(rw.createOrFold<arith::SelectOp>(
          op.getLoc(), cast<Value>(c),
          materialize(rw, op.getLoc(), at(*x, i), resultType),
          materialize(rw, op.getLoc(), at(*y, i), resultType)));
    }
    return replaceWithElements(rw, op, out);
  }
};

/// Whether `value` is a size: a symbol, a dim, or sums, products, quotients
/// and remainders of sizes and non-negative constants (through index/i64
/// casts).
bool isSize(Value value, int depth = 0) {
  if (depth > 8)
    return false;
  if (auto cast = value.getDefiningOp<arith::IndexCastOp>())
    return isSize(cast.getIn(), depth + 1);
  // A symbol read from data (an entry of a shape given at run time) may be
  // -1 where its range says so.
  if (auto symbol = value.getDefiningOp<SymbolOp>())
    return symbol.getLowest() >= 0;
  if (value.getDefiningOp<DimOp>())
    return true;
  IntegerAttr constant;
  if (matchPattern(value, m_Constant(&constant)))
    return constant.getInt() >= 0;
  Operation *op = value.getDefiningOp();
  // A quotient or remainder of two non-negative values is non-negative
  // (exporters divide an element count by the other dims for a reshape's
  // -1, then test the quotient against -1 for an expand).
  if (isa_and_nonnull<arith::AddIOp, arith::MulIOp, arith::DivUIOp,
                      arith::DivSIOp, arith::FloorDivSIOp, arith::CeilDivUIOp,
                      arith::CeilDivSIOp, arith::RemUIOp, arith::RemSIOp>(op))
    return isSize(op->getOperand(0), depth + 1) &&
           isSize(op->getOperand(1), depth + 1);
  return false;
}

/// `size == c` is false and `size != c` true for a negative constant `c`:
/// exporters test shape entries against -1 (torch's expand, repeat).
struct CompareSizeWithNegative : OpRewritePattern<arith::CmpIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::CmpIOp op,
                                PatternRewriter &rw) const override {
    if (op.getPredicate() != arith::CmpIPredicate::eq &&
        op.getPredicate() != arith::CmpIPredicate::ne)
      return failure();
    for (auto [size, other] : {std::pair{op.getLhs(), op.getRhs()},
                               std::pair{op.getRhs(), op.getLhs()}}) {
      IntegerAttr constant;
      if (!matchPattern(other, m_Constant(&constant)) ||
          constant.getValue().isNonNegative() || !isSize(size))
        continue;
      rw.replaceOpWithNewOp<arith::ConstantIntOp>(
          op, rw.getI1Type(), op.getPredicate() == arith::CmpIPredicate::ne);
      return success();
    }
    return failure();
  }
};

} // namespace

void foreign::populateShapeArithmeticPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ShapeOfToElements, GatherOfElements, ConcatOfElements,
               SliceOfElements, WhereOfElements, SameElements<SqueezeOp>,
               SameElements<UnsqueezeOp>, SameElements<ReshapeOp>,
               SameElements<CastOp>, BinaryOfElements<AddOp>,
               BinaryOfElements<SubOp>, BinaryOfElements<MulOp>,
               BinaryOfElements<DivOp>, BinaryOfElements<ModOp>,
               BinaryOfElements<EqualOp>, BinaryOfElements<AndOp>,
               BinaryOfElements<OrOp>, UnaryOfElements<NotOp>,
               UnaryOfElements<NegOp>, CompareSizeWithNegative>(ctx);
}
