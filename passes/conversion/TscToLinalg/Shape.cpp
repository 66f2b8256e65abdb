//===- Shape.cpp - tsc data movement ops to tensor and linalg -------------===//
//
// Views (slices, reshapes, unit dims) become tensor ops, which bufferize to
// memref views; everything that computes an address per element (gather,
// negative strides, run-time broadcasts, range, trilu) becomes a
// linalg.generic reading `linalg.index`.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

namespace {

/// The sizes of a result of `type` whose dynamic dims are `dynamic`, in
/// order (the convention of ops with index shape operands).
SmallVector<OpFoldResult> mixedShape(OpBuilder &b, RankedTensorType type,
                                     ValueRange dynamic) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0, next = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d) ? OpFoldResult(dynamic[next++])
                                         : b.getIndexAttr(type.getDimSize(d)));
  return sizes;
}

/// Replaces the sizes of `type`'s static dims by those constants.
void refineSizes(OpBuilder &b, RankedTensorType type,
                 SmallVectorImpl<OpFoldResult> &sizes) {
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d))
      sizes[d] = b.getIndexAttr(type.getDimSize(d));
}

/// `value` cast to `type` when it is only less (or more) static.
Value castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(b, loc, type, value);
}

/// Whether index `v` is provably the size of dim `dim` of `tensor`.
bool isDimOf(Value v, Value tensor, int64_t dim) {
  if (auto op = v.getDefiningOp<tensor::DimOp>())
    return op.getSource() == tensor && op.getConstantIndex() == dim;
  if (auto op = v.getDefiningOp<DimOp>())
    return op.getInput() == tensor && static_cast<int64_t>(op.getDim()) == dim;
  return false;
}

//===----------------------------------------------------------------------===//
// transpose, expand, concat
//===----------------------------------------------------------------------===//

struct TransposePattern : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> in =
        tensor::getMixedSizes(rewriter, loc, op.getInput());
    SmallVector<OpFoldResult> sizes;
    for (int64_t p : op.getPerm())
      sizes.push_back(in[p]);
    Value init = createEmptyOfSizes(rewriter, loc, op.getType(), sizes);
    auto transpose = linalg::TransposeOp::create(rewriter, loc, op.getInput(),
                                                 init, op.getPerm());
    rewriter.replaceOp(op, transpose->getResult(0));
    return success();
  }
};

struct ExpandPattern : OpRewritePattern<ExpandOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ExpandOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    RankedTensorType inType = op.getInput().getType();
    RankedTensorType resultType = op.getType();
    SmallVector<OpFoldResult> sizes =
        mixedShape(rewriter, resultType, op.getShape());
    int64_t offset = resultType.getRank() - inType.getRank();
    // A dynamic input dim may be 1 at run time and broadcast; unless the
    // result dim is provably the same size, test it per element.
    SmallVector<int64_t> runtime;
    for (int64_t j = 0; j < inType.getRank(); ++j) {
      if (!inType.isDynamicDim(j))
        continue;
      auto size = dyn_cast<Value>(sizes[j + offset]);
      if (!size || !isDimOf(size, input, j))
        runtime.push_back(j);
    }
    if (runtime.empty()) {
      SmallVector<AffineMap> maps = {
          getBroadcastMap(rewriter.getContext(), inType, resultType)};
      rewriter.replaceOp(
          op, buildIndexed(rewriter, loc, resultType, sizes, input, maps,
                           [](OpBuilder &, Location, ValueRange args) {
                             return args[0];
                           }));
      return success();
    }
    SmallVector<Value> unit;
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t j = 0; j < inType.getRank(); ++j)
      unit.push_back(
          llvm::is_contained(runtime, j)
              ? Value(arith::CmpIOp::create(
                    rewriter, loc, arith::CmpIPredicate::eq,
                    tensor::DimOp::create(rewriter, loc, input, j), one))
              : Value());
    Value result =
        buildIndexed(rewriter, loc, resultType, sizes, {}, {},
                     [&](OpBuilder &b, Location l, ValueRange) -> Value {
                       Value zero = arith::ConstantIndexOp::create(b, l, 0);
                       SmallVector<Value> indices;
                       for (int64_t j = 0; j < inType.getRank(); ++j) {
                         Value i = linalg::IndexOp::create(b, l, j + offset);
                         if (inType.getDimSize(j) == 1 &&
                             resultType.getDimSize(j + offset) != 1)
                           i = zero;
                         else if (unit[j])
                           i = arith::SelectOp::create(b, l, unit[j], zero, i);
                         indices.push_back(i);
                       }
                       return tensor::ExtractOp::create(b, l, input, indices);
                     });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConcatPattern : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto axis = static_cast<int64_t>(op.getAxis());
    RankedTensorType resultType = op.getType();
    ValueRange inputs = op.getInputs();
    SmallVector<SmallVector<OpFoldResult>> inputSizes;
    for (Value input : inputs)
      inputSizes.push_back(tensor::getMixedSizes(rewriter, loc, input));
    // Non-axis dims: any input that knows a static size, else the first.
    SmallVector<OpFoldResult> sizes(inputSizes.front());
    for (int64_t d = 0; d < resultType.getRank(); ++d)
      for (auto &in : inputSizes)
        if (d != axis && isa<Attribute>(in[d]))
          sizes[d] = in[d];
    SmallVector<OpFoldResult> offsets;
    OpFoldResult total = rewriter.getIndexAttr(0);
    for (auto &in : inputSizes) {
      offsets.push_back(total);
      std::optional<int64_t> a = getConstantIntValue(total);
      std::optional<int64_t> c = getConstantIntValue(in[axis]);
      if (a && c)
        total = rewriter.getIndexAttr(*a + *c);
      else
        total = arith::AddIOp::create(
                    rewriter, loc,
                    getValueOrCreateConstantIndexOp(rewriter, loc, total),
                    getValueOrCreateConstantIndexOp(rewriter, loc, in[axis]))
                    .getResult();
    }
    sizes[axis] = total;
    Value result = createEmptyOfSizes(rewriter, loc, resultType, sizes);
    int64_t rank = resultType.getRank();
    for (auto [input, in, offset] :
         llvm::zip_equal(inputs, inputSizes, offsets)) {
      SmallVector<OpFoldResult> at(rank, rewriter.getIndexAttr(0));
      at[axis] = offset;
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result, at,
                                             in, strides);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// slice, split, gather
//===----------------------------------------------------------------------===//

struct SlicePattern : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    SmallVector<OpFoldResult> offsets =
        getMixedValues(op.getStaticOffsets(), op.getOffsets(), rewriter);
    SmallVector<OpFoldResult> sizes =
        getMixedValues(op.getStaticSizes(), op.getSizes(), rewriter);
    SmallVector<OpFoldResult> strides =
        getMixedValues(op.getStaticStrides(), op.getStrides(), rewriter);
    refineSizes(rewriter, resultType, sizes);
    bool forward = llvm::all_of(op.getStaticStrides(), [](int64_t s) {
      return !ShapedType::isDynamic(s) && s > 0;
    });
    if (forward) {
      Value slice = tensor::ExtractSliceOp::create(rewriter, loc, op.getInput(),
                                                   offsets, sizes, strides);
      rewriter.replaceOp(op, castTo(rewriter, loc, slice, resultType));
      return success();
    }
    // Negative or run-time strides: element i of dim d reads
    // offsets[d] + i * strides[d].
    SmallVector<Value> offsetValues =
        getValueOrCreateConstantIndexOp(rewriter, loc, offsets);
    SmallVector<Value> strideValues =
        getValueOrCreateConstantIndexOp(rewriter, loc, strides);
    Value input = op.getInput();
    Value result = buildIndexed(
        rewriter, loc, resultType, sizes, {}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < resultType.getRank(); ++d) {
            Value i = linalg::IndexOp::create(b, l, d);
            Value step = arith::MulIOp::create(b, l, i, strideValues[d]);
            indices.push_back(
                arith::AddIOp::create(b, l, offsetValues[d], step));
          }
          return tensor::ExtractOp::create(b, l, input, indices);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SplitPattern : OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto axis = static_cast<int64_t>(op.getAxis());
    int64_t rank = op.getInput().getType().getRank();
    SmallVector<OpFoldResult> inputSizes =
        tensor::getMixedSizes(rewriter, loc, op.getInput());
    SmallVector<Value> results;
    int64_t offset = 0;
    for (auto [result, size] :
         llvm::zip_equal(op.getResults(), op.getSizes())) {
      auto type = cast<RankedTensorType>(result.getType());
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes(inputSizes);
      sizes[axis] = rewriter.getIndexAttr(size);
      refineSizes(rewriter, type, sizes);
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      // An empty piece at the end would start out of bounds, which
      // extract_slice rejects.
      Value slice =
          size == 0 ? tensor::EmptyOp::create(rewriter, loc, sizes,
                                              type.getElementType())
                          .getResult()
                    : tensor::ExtractSliceOp::create(rewriter, loc,
                                                     op.getInput(), offsets,
                                                     sizes, strides)
                          .getResult();
      results.push_back(castTo(rewriter, loc, slice, type));
      offset += size;
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct GatherPattern : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value data = op.getData(), indices = op.getIndices();
    auto axis = static_cast<int64_t>(op.getAxis());
    auto dataType = cast<RankedTensorType>(data.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t q = indicesType.getRank();
    RankedTensorType resultType = op.getType();
    SmallVector<OpFoldResult> dataSizes =
        tensor::getMixedSizes(rewriter, loc, data);
    SmallVector<OpFoldResult> sizes(dataSizes.begin(),
                                    dataSizes.begin() + axis);
    llvm::append_range(sizes, tensor::getMixedSizes(rewriter, loc, indices));
    sizes.append(dataSizes.begin() + axis + 1, dataSizes.end());
    SmallVector<AffineExpr> exprs;
    for (int64_t d = axis; d < axis + q; ++d)
      exprs.push_back(getAffineDimExpr(d, context));
    SmallVector<AffineMap> maps = {
        AffineMap::get(resultType.getRank(), 0, exprs, context)};
    Value extent =
        getValueOrCreateConstantIndexOp(rewriter, loc, dataSizes[axis]);
    bool isUnsigned = indicesType.getElementType().isUnsignedInteger();
    Value result =
        buildIndexed(rewriter, loc, resultType, sizes, indices, maps,
                     [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                       Value raw = toSignless(b, l, args[0]);
                       Value index = isUnsigned
                                         ? Value(arith::IndexCastUIOp::create(
                                               b, l, b.getIndexType(), raw))
                                         : Value(arith::IndexCastOp::create(
                                               b, l, b.getIndexType(), raw));
                       if (!isUnsigned) {
                         // ONNX counts negative indices from the end.
                         Value zero = arith::ConstantIndexOp::create(b, l, 0);
                         Value negative = arith::CmpIOp::create(
                             b, l, arith::CmpIPredicate::slt, index, zero);
                         index = arith::SelectOp::create(
                             b, l, negative,
                             arith::AddIOp::create(b, l, index, extent), index);
                       }
                       SmallVector<Value> at;
                       for (int64_t d = 0; d < axis; ++d)
                         at.push_back(linalg::IndexOp::create(b, l, d));
                       at.push_back(index);
                       for (int64_t d = axis + 1; d < dataType.getRank(); ++d)
                         at.push_back(linalg::IndexOp::create(b, l, d + q - 1));
                       return tensor::ExtractOp::create(b, l, data, at);
                     });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// range, trilu
//===----------------------------------------------------------------------===//

struct RangePattern : OpRewritePattern<RangeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RangeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value start = op.getStart(), limit = op.getLimit(), delta = op.getDelta();
    Type operand = start.getType();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    bool flt = isa<FloatType>(operand);
    OpFoldResult length;
    if (!resultType.isDynamicDim(0)) {
      length = rewriter.getIndexAttr(resultType.getDimSize(0));
    } else {
      // max(0, ceil((limit - start) / delta)).
      Value count;
      if (flt) {
        Value quotient = arith::DivFOp::create(
            rewriter, loc, arith::SubFOp::create(rewriter, loc, limit, start),
            delta);
        Value up = math::CeilOp::create(rewriter, loc, quotient);
        count =
            arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(), up);
      } else {
        count = arith::CeilDivSIOp::create(
            rewriter, loc, arith::SubIOp::create(rewriter, loc, limit, start),
            delta);
      }
      if (!count.getType().isIndex())
        count = arith::IndexCastOp::create(rewriter, loc,
                                           rewriter.getIndexType(), count);
      length = arith::MaxSIOp::create(
                   rewriter, loc, count,
                   arith::ConstantIndexOp::create(rewriter, loc, 0))
                   .getResult();
    }
    Value result = buildIndexed(
        rewriter, loc, resultType, length, {}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value i = linalg::IndexOp::create(b, l, 0);
          if (flt) {
            Value wide = arith::IndexCastOp::create(b, l, b.getI64Type(), i);
            Value x = arith::SIToFPOp::create(b, l, operand, wide);
            return arith::AddFOp::create(b, l, start,
                                         arith::MulFOp::create(b, l, x, delta));
          }
          if (!operand.isIndex())
            i = arith::IndexCastOp::create(b, l, operand, i);
          Value v = arith::AddIOp::create(
              b, l, start, arith::MulIOp::create(b, l, i, delta));
          if (operand.isIndex())
            v = arith::IndexCastOp::create(b, l, element, v);
          return v;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct TriluPattern : OpRewritePattern<TriluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TriluOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    Type element = type.getElementType();
    auto diagonal = static_cast<int64_t>(op.getDiagonal());
    bool upper = op.getUpper();
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())};
    Value result = buildIndexed(
        rewriter, loc, type,
        tensor::getMixedSizes(rewriter, loc, op.getInput()), op.getInput(),
        maps, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          // Element (i, j) is on diagonal j - i.
          Value i = linalg::IndexOp::create(b, l, rank - 2);
          Value j = linalg::IndexOp::create(b, l, rank - 1);
          Value offset = arith::SubIOp::create(b, l, j, i);
          Value k = arith::ConstantIndexOp::create(b, l, diagonal);
          Value keep = arith::CmpIOp::create(b, l,
                                             upper ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sle,
                                             offset, k);
          return arith::SelectOp::create(b, l, keep, args[0],
                                         typedConstant(b, l, element, 0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// reshape, squeeze, unsqueeze
//===----------------------------------------------------------------------===//

/// Whether collapsing `big` into `small` by `groups` is right whatever the
/// run-time sizes: static groups multiply out, and at most one dim on each
/// side is dynamic (both in the same group), so the element count pins the
/// dynamic one down. Zero-size dims would let any dynamic size through.
bool isSafeReassociation(ArrayRef<int64_t> big, ArrayRef<int64_t> small,
                         ArrayRef<ReassociationIndices> groups) {
  if (groups.size() != small.size() || llvm::is_contained(big, 0) ||
      llvm::is_contained(small, 0) ||
      llvm::count(big, ShapedType::kDynamic) > 1 ||
      llvm::count(small, ShapedType::kDynamic) > 1)
    return false;
  for (auto [group, size] : llvm::zip_equal(groups, small)) {
    int64_t product = 1;
    bool dynamic = false;
    for (int64_t d : group) {
      dynamic |= ShapedType::isDynamic(big[d]);
      product *= ShapedType::isDynamic(big[d]) ? 1 : big[d];
    }
    if (dynamic != ShapedType::isDynamic(size) || (!dynamic && product != size))
      return false;
  }
  return true;
}

/// `input` reshaped to `resultType` with the dynamic sizes `shape`:
/// collapse_shape/expand_shape when a reassociation is provably right,
/// else tensor.reshape of a shape tensor (which also avoids LLVM 22's
/// expand-strided-metadata crash on groups with two dynamic dims).
Value buildReshape(OpBuilder &b, Location loc, Value input,
                   RankedTensorType resultType, ValueRange shape) {
  auto inType = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> in = inType.getShape(), out = resultType.getShape();
  SmallVector<OpFoldResult> sizes = mixedShape(b, resultType, shape);
  if (in == out && inType.getNumDynamicDims() <= 1 &&
      !llvm::is_contained(in, 0))
    return input;
  if (in.size() > out.size()) {
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForCollapse(in, out);
    if (groups && isSafeReassociation(in, out, *groups))
      return tensor::CollapseShapeOp::create(b, loc, resultType, input,
                                             *groups);
  } else if (in.size() < out.size()) {
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForCollapse(out, in);
    if (groups && isSafeReassociation(out, in, *groups))
      return tensor::ExpandShapeOp::create(b, loc, resultType, input, *groups,
                                           sizes);
  }
  if (inType.hasStaticShape() && resultType.hasStaticShape() &&
      inType.getRank() > 0 && resultType.getRank() > 0) {
    // Static but not one reassociation: through the flat vector.
    auto flatType = RankedTensorType::get({inType.getNumElements()},
                                          inType.getElementType());
    SmallVector<ReassociationIndices> all = {
        llvm::to_vector(llvm::seq<int64_t>(0, inType.getRank()))};
    SmallVector<ReassociationIndices> allOut = {
        llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank()))};
    Value flat = tensor::CollapseShapeOp::create(b, loc, flatType, input, all);
    return tensor::ExpandShapeOp::create(b, loc, resultType, flat, allOut,
                                         sizes);
  }
  SmallVector<Value> dims;
  for (OpFoldResult size : sizes)
    dims.push_back(arith::IndexCastOp::create(
        b, loc, b.getI64Type(), getValueOrCreateConstantIndexOp(b, loc, size)));
  auto shapeType = RankedTensorType::get({static_cast<int64_t>(dims.size())},
                                         b.getI64Type());
  Value shapeTensor = tensor::FromElementsOp::create(b, loc, shapeType, dims);
  return tensor::ReshapeOp::create(b, loc, resultType, input, shapeTensor);
}

struct ReshapePattern : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildReshape(rewriter, op.getLoc(), op.getInput(),
                                        op.getType(), op.getShape()));
    return success();
  }
};

/// `input` cast to the static sizes the result knows for the dims that
/// survive a squeeze or unsqueeze (`kept[d]`: result dim of input dim d).
Value refineKept(OpBuilder &b, Location loc, Value input,
                 RankedTensorType resultType, ArrayRef<int64_t> kept) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (auto [d, r] : llvm::enumerate(kept))
    if (r >= 0 && !resultType.isDynamicDim(r))
      shape[d] = resultType.getDimSize(r);
  return castTo(b, loc, input, type.clone(shape));
}

struct SqueezePattern : OpRewritePattern<SqueezeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SqueezeOp op,
                                PatternRewriter &rewriter) const override {
    int64_t rank = op.getInput().getType().getRank();
    SmallVector<bool> isUnit;
    SmallVector<int64_t> kept;
    for (int64_t d = 0, r = 0; d < rank; ++d) {
      bool dropped = llvm::is_contained(op.getDims(), d);
      isUnit.push_back(dropped);
      kept.push_back(dropped ? -1 : r++);
    }
    Value input =
        refineKept(rewriter, op.getLoc(), op.getInput(), op.getType(), kept);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, op.getType(), input, getUnitDimReassociation(isUnit));
    return success();
  }
};

struct UnsqueezePattern : OpRewritePattern<UnsqueezeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UnsqueezeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    SmallVector<bool> isUnit;
    SmallVector<int64_t> kept;
    for (int64_t r = 0; r < resultType.getRank(); ++r) {
      bool inserted = llvm::is_contained(op.getDims(), r);
      isUnit.push_back(inserted);
      if (!inserted)
        kept.push_back(r);
    }
    Value input =
        refineKept(rewriter, op.getLoc(), op.getInput(), resultType, kept);
    rewriter.replaceOp(
        op, insertUnitDims(rewriter, op.getLoc(), input, resultType, isUnit));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// dim, shape_of
//===----------------------------------------------------------------------===//

struct DimPattern : OpRewritePattern<DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DimOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::DimOp>(
        op, op.getInput(), static_cast<int64_t>(op.getDim()));
    return success();
  }
};

struct ShapeOfPattern : OpRewritePattern<ShapeOfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ShapeOfOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> dims;
    for (OpFoldResult size :
         tensor::getMixedSizes(rewriter, loc, op.getInput()))
      dims.push_back(arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(),
          getValueOrCreateConstantIndexOp(rewriter, loc, size)));
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, op.getType(), dims);
    return success();
  }
};

} // namespace

void mlir::tsc::populateTscShapeToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<TransposePattern, ExpandPattern, ConcatPattern, SlicePattern,
               SplitPattern, GatherPattern, RangePattern, TriluPattern,
               ReshapePattern, SqueezePattern, UnsqueezePattern, DimPattern,
               ShapeOfPattern>(patterns.getContext());
}
