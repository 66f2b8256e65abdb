//===- TscShapeOps.cpp - verifiers and inference: symbols, shape ops ------===//

#include "dialects/tsc/IR/SymbolicShape.h"
#include "dialects/tsc/IR/TscOpUtils.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::util;

//===----------------------------------------------------------------------===//
// Symbolic dimensions
//===----------------------------------------------------------------------===//

void SymbolOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // Symbols bound from data have descriptive names ("axes[0]", "Reshape_1:
  // dim 0 (...)"); their SSA names are the input's name or "def".
  if (getDefinition())
    setNameFn(getResult(), "def");
  else
    setNameFn(getResult(), getSymbol().split('[').first);
}

LogicalResult SymbolOp::verify() {
  auto min = static_cast<int64_t>(getMin());
  auto max = static_cast<int64_t>(getMax());
  if (getSymbol().empty())
    return emitOpError("symbol name must not be empty");
  if (getDefinition() && getSource())
    return emitOpError("symbol '")
           << getSymbol() << "' is both defined and read from an input";
  if (static_cast<bool>(getSource()) != getElement().has_value())
    return emitOpError("symbol '")
           << getSymbol() << "' needs both a source input and an element";
  if ((!isBoundFromData() && min < 0) || min > max)
    return emitOpError("range [")
           << min << ", " << max << "] of symbol '" << getSymbol()
           << "' must satisfy " << (isBoundFromData() ? "" : "0 <= ")
           << "min <= max";
  if (Value source = getSource()) {
    auto type = cast<RankedTensorType>(source.getType());
    int64_t element = static_cast<int64_t>(*getElement());
    // A graph input is read before the first step; a computed value right
    // after the step that produces it (the plan orders the definition).
    if (auto arg = dyn_cast<BlockArgument>(source);
        arg && !isa_and_nonnull<func::FuncOp>(arg.getOwner()->getParentOp()))
      return emitOpError("symbol '")
             << getSymbol()
             << "' must be read from a function argument or a computed value";
    if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat() ||
        element < 0 || element >= type.getNumElements())
      return emitOpError("symbol '")
             << getSymbol() << "' reads element " << element << " of " << type
             << "; it needs a static numeric tensor holding it";
  }
  for (Operation &other : (*this)->getBlock()->getOperations()) {
    auto symbol = dyn_cast<SymbolOp>(&other);
    if (symbol && symbol != *this && symbol.getSymbol() == getSymbol())
      return emitOpError("symbol '")
             << getSymbol() << "' is declared more than once";
  }
  return success();
}

LogicalResult BindShapeOp::verify() {
  auto type = cast<RankedTensorType>(getOperand().getType());
  AffineMap map = getShape();
  SmallVector<DimRange> ranges;
  for (auto [i, value] : llvm::enumerate(getSymbols())) {
    auto symbol = value.getDefiningOp<SymbolOp>();
    if (!symbol)
      return emitOpError("symbol operand #")
             << i << " is not defined by tsc.symbol";
    if (llvm::count(getSymbols(), value) > 1)
      return emitOpError("symbol '") << symbol.getSymbol() << "' is listed twice";
    ranges.push_back({static_cast<int64_t>(symbol.getMin()),
                      static_cast<int64_t>(symbol.getMax())});
  }
  if (map.getNumDims() != 0 || map.getNumSymbols() != getSymbols().size())
    return emitOpError("shape map must have no dims and one symbol per symbol "
                       "operand (")
           << getSymbols().size() << "), got " << toString(map);
  if (static_cast<int64_t>(map.getNumResults()) != type.getRank())
    return emitOpError("shape map has ")
           << map.getNumResults() << " results for a tensor of rank "
           << type.getRank();
  for (auto [i, expr, dim] :
       llvm::enumerate(map.getResults(), type.getShape())) {
    if (!ShapedType::isDynamic(dim)) {
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      if (!constant || constant.getValue() != dim)
        return emitOpError("static dim ")
               << i << " of size " << dim << " is bound to " << toString(expr);
      continue;
    }
    std::optional<DimRange> range = getRange(expr, ranges);
    if (range && range->max < 0)
      return emitOpError("dim ")
             << i << " is bound to " << toString(expr)
             << ", which is negative for every value of its symbols";
  }

  // Every binding of the same value must say the same thing.
  SmallVector<Value> seen(getSymbols());
  auto positionOf = [&](Value symbol) -> unsigned {
    auto it = llvm::find(seen, symbol);
    if (it != seen.end())
      return it - seen.begin();
    seen.push_back(symbol);
    return seen.size() - 1;
  };
  SmallVector<AffineExpr> mine = getBoundShape(*this, positionOf);
  for (Operation *user : getOperand().getUsers()) {
    auto other = dyn_cast<BindShapeOp>(user);
    if (!other || other == *this ||
        llvm::any_of(other.getSymbols(), [](Value symbol) {
          return !symbol.getDefiningOp<SymbolOp>();
        }))
      continue;
    SmallVector<AffineExpr> theirs = getBoundShape(other, positionOf);
    if (theirs.size() == mine.size() && theirs != mine) {
      InFlightDiagnostic diag =
          emitOpError("binds the shape differently from another tsc.bind_shape "
                      "of the same value");
      diag.attachNote(other.getLoc()) << "the other binding";
      return diag;
    }
  }
  return success();
}

LogicalResult ForeignOp::verify() {
  if (getDomain().empty() || getOpType().empty())
    return emitOpError("needs a non-empty domain and op type");
  if (static_cast<int64_t>(getVersion()) < 0)
    return emitOpError("version must be non-negative");
  return success();
}

//===----------------------------------------------------------------------===//
// Reshape, expand, transpose, concat
//===----------------------------------------------------------------------===//

/// Shared by reshape and expand: the element type is kept and `shape` supplies
/// exactly the result's dynamic dims.
static LogicalResult verifyDynamicShapeOperands(Operation *op,
                                                RankedTensorType in,
                                                RankedTensorType out,
                                                ValueRange shape) {
  if (in.getElementType() != out.getElementType())
    return op->emitOpError("changes the element type from ")
           << in.getElementType() << " to " << out.getElementType();
  if (shape.size() != out.getNumDynamicDims())
    return op->emitOpError("needs one shape operand per dynamic result dim (")
           << out.getNumDynamicDims() << "), got " << shape.size();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  if (failed(verifyDynamicShapeOperands(*this, in, out, getShape())))
    return failure();
  if (in.hasStaticShape() && out.hasStaticShape() &&
      in.getNumElements() != out.getNumElements())
    return emitOpError("cannot reshape ")
           << in.getNumElements() << " elements (" << in << ") into "
           << out.getNumElements() << " (" << out << ")";
  return success();
}

LogicalResult ExpandOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  if (failed(verifyDynamicShapeOperands(*this, in, out, getShape())))
    return failure();
  if (in.getRank() > out.getRank())
    return emitOpError("cannot expand rank ")
           << in.getRank() << " to the lower rank " << out.getRank();
  int64_t offset = out.getRank() - in.getRank();
  for (auto [i, dim] : llvm::enumerate(in.getShape())) {
    int64_t target = out.getDimSize(offset + i);
    if (dim != 1 && !dimsCompatible(dim, target))
      return emitOpError("input dim ")
             << i << " of size " << dim << " cannot broadcast to "
             << dimToString(target);
  }
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  SmallVector<bool> used(type.getRank(), false);
  if (static_cast<int64_t>(perm.size()) != type.getRank())
    return emitOptionalError(loc, "perm has ", perm.size(),
                             " entries for rank ", type.getRank());
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= type.getRank() || used[p])
      return emitOptionalError(loc, "perm [",
                               llvm::make_range(perm.begin(), perm.end()),
                               "] is not a permutation of [0, ",
                               type.getRank(), ")");
    used[p] = true;
    shape.push_back(type.getDimSize(p));
  }
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "concat needs at least one input");
  auto first = cast<RankedTensorType>(adaptor.getInputs().front().getType());
  auto axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(verifyAxis(loc, axis, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value input : adaptor.getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getRank() != first.getRank() ||
        type.getElementType() != first.getElementType())
      return emitOptionalError(loc, "inputs must share rank and element type: ",
                               first, " vs ", type);
    for (auto [d, dim] : llvm::enumerate(type.getShape())) {
      int64_t &out = shape[d];
      if (static_cast<int64_t>(d) == axis) {
        out = ShapedType::isDynamic(out) || ShapedType::isDynamic(dim)
                  ? ShapedType::kDynamic
                  : out + dim;
      } else if (!dimsCompatible(out, dim)) {
        return emitOptionalError(loc, "inputs differ in dim ", d, ": ", out,
                                 " vs ", dim);
      } else if (ShapedType::isDynamic(out)) {
        out = dim;
      }
    }
  }
  results.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Slice, split, gather
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  int64_t rank = in.getRank();
  if (in.getElementType() != out.getElementType() || out.getRank() != rank)
    return emitOpError("result must have the input's rank and element type");
  if (failed(verifyListOfOperandsOrIntegers(*this, "offset", rank,
                                            getStaticOffsets(), getOffsets())) ||
      failed(verifyListOfOperandsOrIntegers(*this, "size", rank,
                                            getStaticSizes(), getSizes())) ||
      failed(verifyListOfOperandsOrIntegers(*this, "stride", rank,
                                            getStaticStrides(), getStrides())))
    return failure();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t offset = getStaticOffsets()[d], size = getStaticSizes()[d];
    int64_t stride = getStaticStrides()[d], dim = in.getDimSize(d);
    if (stride == 0)
      return emitOpError("stride of dim ") << d << " is zero";
    if (!ShapedType::isDynamic(size)) {
      if (size < 0)
        return emitOpError("size of dim ") << d << " is negative";
      if (!ShapedType::isDynamic(out.getDimSize(d)) &&
          out.getDimSize(d) != size)
        return emitOpError("result dim ")
               << d << " is " << out.getDimSize(d) << " but the slice takes "
               << size;
    }
    if (!ShapedType::isDynamic(offset) && offset < 0)
      return emitOpError("offset of dim ") << d << " is negative";
    if (ShapedType::isDynamic(offset) || ShapedType::isDynamic(size) ||
        ShapedType::isDynamic(stride) || ShapedType::isDynamic(dim) ||
        size == 0)
      continue;
    int64_t last = offset + (size - 1) * stride;
    if (offset >= dim || last < 0 || last >= dim)
      return emitOpError("dim ")
             << d << " reads elements " << offset << " to " << last
             << ", outside [0, " << dim << ")";
  }
  return success();
}

LogicalResult SplitOp::verify() {
  auto in = getInput().getType();
  auto axis = static_cast<int64_t>(getAxis());
  if (failed(verifyAxis(*this, "axis", axis, in.getRank())))
    return failure();
  ArrayRef<int64_t> sizes = getSizes();
  if (sizes.size() != getNumResults())
    return emitOpError("has ")
           << getNumResults() << " results but " << sizes.size() << " sizes";
  int64_t total = 0;
  for (auto [i, result, size] : llvm::enumerate(getResults(), sizes)) {
    if (size < 0)
      return emitOpError("size ") << i << " is negative";
    total += size;
    SmallVector<int64_t> expected(in.getShape());
    expected[axis] = size;
    if (!areRefinements(RankedTensorType::get(expected, in.getElementType()),
                        result.getType()))
      return emitOpError("result #")
             << i << " should be " << RankedTensorType::get(expected,
                                                             in.getElementType())
             << ", got " << result.getType();
  }
  if (!ShapedType::isDynamic(in.getDimSize(axis)) &&
      total != in.getDimSize(axis))
    return emitOpError("sizes add up to ")
           << total << " but the axis has " << in.getDimSize(axis);
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  auto axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(verifyAxis(loc, axis, data.getRank())))
    return failure();
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  results.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Squeeze, unsqueeze
//===----------------------------------------------------------------------===//

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> dims = adaptor.getDims();
  if (failed(verifyDimList(loc, "squeezed dim", dims, type.getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [d, dim] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(d))) {
      shape.push_back(dim);
      continue;
    }
    if (dim != 1)
      return emitOptionalError(loc, "squeezed dim ", d,
                               " must have static size 1, got ",
                               dimToString(dim));
  }
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> dims = adaptor.getDims();
  int64_t rank = type.getRank() + dims.size();
  if (failed(verifyDimList(loc, "inserted dim", dims, rank)))
    return failure();
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> rest = type.getShape();
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(dims, d)) {
      shape.push_back(1);
    } else {
      shape.push_back(rest.front());
      rest = rest.drop_front();
    }
  }
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Range, trilu, shape queries
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::verify() {
  Type operand = getStart().getType();
  Type element = getResult().getType().getElementType();
  if (isa<IndexType>(operand) ? !isa<IntegerType>(element)
                              : operand != element)
    return emitOpError("result element type ")
           << element << " does not fit operands of type " << operand;
  return success();
}

LogicalResult TriluOp::verify() {
  if (getInput().getType().getRank() < 2)
    return emitOpError("needs a tensor of rank >= 2");
  return success();
}

LogicalResult DimOp::verify() {
  return verifyAxis(*this, "dim", static_cast<int64_t>(getDim()),
                    getInput().getType().getRank());
}

LogicalResult ShapeOfOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location>,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  results.push_back(
      RankedTensorType::get({type.getRank()}, IntegerType::get(ctx, 64)));
  return success();
}
