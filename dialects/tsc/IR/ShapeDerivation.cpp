//===- ShapeDerivation.cpp - shape rules of the core and scan ops ---------===//
//
// ShapeDerivationOpInterface for the contractions, layout, indexing and scan
// ops; the Convolution family's rules are in TscConvolutionOps.cpp, the
// reductions' in their ODS classes (deriveReducedDim).
//
//===----------------------------------------------------------------------===//

#include "dialects/tsc/IR/ShapeDerivation.h"
#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;

#include "dialects/tsc/IR/TscInterfaces.cpp.inc"

static int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

std::optional<AffineExpr> tsc::deriveResultDim(Operation *op, unsigned result,
                                               int64_t dim, DimReader &reader) {
  if (hasShapeOfFirstOperand(op))
    return reader.dim(op->getOperand(0), dim);
  if (op->hasTrait<OpTrait::tsc::Broadcasting>()) {
    // Operands align at their last dims.
    int64_t rank = rankOf(op->getResult(result));
    SmallVector<ValueDim> dims;
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      int64_t d = type ? dim - (rank - type.getRank()) : -1;
      if (d >= 0)
        dims.push_back({operand, d});
    }
    return reader.broadcast(dims);
  }
  if (auto rule = dyn_cast<ShapeDerivationOpInterface>(op))
    return rule.deriveResultDim(result, dim, reader);
  return std::nullopt;
}

/// The input dim that result dim `dim` is once the input dims in `dropped`
/// are removed.
static int64_t keptInputDim(ArrayRef<int64_t> dropped, int64_t inputRank,
                            int64_t dim) {
  int64_t kept = 0;
  for (int64_t i = 0; i < inputRank; ++i)
    if (!llvm::is_contained(dropped, i) && kept++ == dim)
      return i;
  return -1;
}

AffineExpr tsc::deriveReducedDim(Value input, ArrayRef<int64_t> dims,
                                 bool keepdim, int64_t dim, DimReader &reader) {
  if (keepdim)
    return llvm::is_contained(dims, dim) ? reader.constant(1)
                                         : reader.dim(input, dim);
  int64_t source = keptInputDim(dims, rankOf(input), dim);
  return source < 0 ? AffineExpr() : reader.dim(input, source);
}

/// Entry `dim` of a mixed static/dynamic size list.
static AffineExpr mixedDim(ArrayRef<int64_t> statics, ValueRange dynamics,
                           int64_t dim, DimReader &reader) {
  if (!ShapedType::isDynamic(statics[dim]))
    return reader.constant(statics[dim]);
  auto before = llvm::count_if(statics.take_front(dim), ShapedType::isDynamic);
  return reader.value(dynamics[before]);
}

/// `lhs + rhs`, null if either is.
static AffineExpr sum(AffineExpr lhs, AffineExpr rhs) {
  return lhs && rhs ? lhs + rhs : AffineExpr();
}

//===----------------------------------------------------------------------===//
// Contractions and attention
//===----------------------------------------------------------------------===//

AffineExpr MatmulOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  int64_t l = rankOf(getLhs()), r = rankOf(getRhs());
  int64_t rank = rankOf(getResult());
  if (r >= 2 && dim == rank - 1)
    return reader.dim(getRhs(), r - 1);
  if (l >= 2 && dim == rank - (r >= 2 ? 2 : 1))
    return reader.dim(getLhs(), l - 2);
  // Batch dims: the operands' leading dims broadcast like elementwise ones.
  int64_t batch = rank - (l >= 2) - (r >= 2);
  SmallVector<ValueDim> dims;
  for (auto [operand, orank] :
       {std::pair{getLhs(), l}, std::pair{getRhs(), r}}) {
    int64_t d = dim - (batch - (orank - 2));
    if (orank > 2 && d >= 0)
      dims.push_back({operand, d});
  }
  return reader.broadcast(dims);
}

/// `x · Wᵀ`: the input's dims but the last, which the weight's static N
/// replaces (the result type states it).
static AffineExpr gemmDim(Operation *op, int64_t dim, DimReader &reader) {
  if (dim == rankOf(op->getResult(0)) - 1)
    return {};
  return reader.dim(op->getOperand(0), dim);
}

AffineExpr LinearOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  return gemmDim(*this, dim, reader);
}

AffineExpr QuantizedMatmulOp::deriveResultDim(unsigned, int64_t dim,
                                              DimReader &reader) {
  return gemmDim(*this, dim, reader);
}

AffineExpr AttentionOp::deriveResultDim(unsigned, int64_t dim,
                                        DimReader &reader) {
  // Both layouts ([B, H, S, D] and bshd's [B, S, H, D]) keep query's first
  // three dims and value's last.
  return reader.dim(dim == 3 ? getValue() : getQuery(), dim);
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

AffineExpr ReshapeOp::deriveResultDim(unsigned, int64_t dim,
                                      DimReader &reader) {
  return mixedDim(getType().getShape(), getShape(), dim, reader);
}

AffineExpr ExpandOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  return mixedDim(getType().getShape(), getShape(), dim, reader);
}

AffineExpr TransposeOp::deriveResultDim(unsigned, int64_t dim,
                                        DimReader &reader) {
  return reader.dim(getInput(), getPerm()[dim]);
}

AffineExpr ConcatOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  AffineExpr out = reader.dim(getInputs().front(), dim);
  if (dim != static_cast<int64_t>(getAxis()))
    return out;
  for (Value input : getInputs().drop_front())
    out = sum(out, reader.dim(input, dim));
  return out;
}

AffineExpr SliceOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  return mixedDim(getStaticSizes(), getSizes(), dim, reader);
}

AffineExpr SplitOp::deriveResultDim(unsigned result, int64_t dim,
                                    DimReader &reader) {
  if (dim == static_cast<int64_t>(getAxis()))
    return reader.constant(getSizes()[result]);
  return reader.dim(getInput(), dim);
}

AffineExpr SqueezeOp::deriveResultDim(unsigned, int64_t dim,
                                      DimReader &reader) {
  int64_t source = keptInputDim(getDims(), rankOf(getInput()), dim);
  return source < 0 ? AffineExpr() : reader.dim(getInput(), source);
}

AffineExpr UnsqueezeOp::deriveResultDim(unsigned, int64_t dim,
                                        DimReader &reader) {
  ArrayRef<int64_t> inserted = getDims();
  if (llvm::is_contained(inserted, dim))
    return reader.constant(1);
  return reader.dim(getInput(), dim - llvm::count_if(inserted, [&](int64_t d) {
                                  return d < dim;
                                }));
}

AffineExpr RangeOp::deriveResultDim(unsigned, int64_t, DimReader &reader) {
  AffineExpr start = reader.value(getStart());
  AffineExpr limit = reader.value(getLimit());
  auto delta = dyn_cast_or_null<AffineConstantExpr>(reader.value(getDelta()));
  if (!start || !limit || !delta || delta.getValue() <= 0)
    return {};
  return (limit - start).ceilDiv(delta.getValue());
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

AffineExpr GatherOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  auto axis = static_cast<int64_t>(getAxis());
  int64_t indices = rankOf(getIndices());
  if (dim < axis)
    return reader.dim(getData(), dim);
  if (dim < axis + indices)
    return reader.dim(getIndices(), dim - axis);
  return reader.dim(getData(), dim - indices + 1);
}

AffineExpr GatherElementsOp::deriveResultDim(unsigned, int64_t dim,
                                             DimReader &reader) {
  return reader.dim(getIndices(), dim);
}

AffineExpr GatherNdOp::deriveResultDim(unsigned, int64_t dim,
                                       DimReader &reader) {
  // indices.shape[:-1] ++ the slice's dims, data's last ones.
  int64_t tuples = rankOf(getIndices()) - 1;
  if (dim < tuples)
    return reader.dim(getIndices(), dim);
  return reader.dim(getData(), dim - rankOf(getResult()) + rankOf(getData()));
}

AffineExpr PadOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  return sum(reader.dim(getInput(), dim),
             reader.constant(getLow()[dim] + getHigh()[dim]));
}

//===----------------------------------------------------------------------===//
// Scans and selection
//===----------------------------------------------------------------------===//

AffineExpr ReduceWindowOp::deriveResultDim(unsigned, int64_t dim,
                                           DimReader &reader) {
  return reader.value(getSizes()[dim]);
}

AffineExpr TopKOp::deriveResultDim(unsigned, int64_t dim, DimReader &reader) {
  if (dim == static_cast<int64_t>(getAxis()))
    return reader.constant(getK());
  return reader.dim(getInput(), dim);
}
