//===- RuntimeValues.cpp - shapes and axes the model takes at run time ----===//
//
// A model may take a Reshape's shape, a reduction's axes or a TopK's k as a
// graph input, or compute it. Its elements become symbols bound from the
// input's data when the model runs (TensorRT's shape tensors), or from the
// computed value right after the step computing it, and what depends on them
// non-affinely (a -1 in a shape, a negative axis) becomes symbols defined by
// index computations over those; the runtime evaluates both before planning
// a run's shapes, and the memory planner plans at their maxima.
//
//===----------------------------------------------------------------------===//

#include "dialects/tsc/IR/ShapeDerivation.h"
#include "passes/conversion/Foreign/ForeignNode.h"
#include "passes/conversion/Foreign/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::foreign;

namespace {

/// A symbol name not yet declared in `block`: `base`, else `base#2`, ...
std::string uniqueSymbolName(Block *block, const std::string &base) {
  auto taken = [&](StringRef name) {
    return llvm::any_of(block->getOps<SymbolOp>(), [&](SymbolOp symbol) {
      return symbol.getSymbol() == name;
    });
  };
  std::string name = base;
  for (int n = 2; taken(name); ++n)
    name = base + "#" + std::to_string(n);
  return name;
}

/// Where element `e` of a small integer tensor comes from: followed through
/// the ops that only move elements (split, slice and concat of vectors,
/// reshape, squeeze, unsqueeze, widening integer casts), either an element
/// shape arithmetic knows (a constant, a dim, a symbol) or an element of the
/// tensor the moves start from. A size input split into its entries, which
/// the model concatenates and slices again before using them, is then read
/// once per entry, so that every use of one entry is the same symbol.
struct ElementOrigin {
  std::optional<OpFoldResult> known;
  Value source;
  int64_t element = 0;
};

ElementOrigin traceElement(Value value, int64_t e) {
  auto staticCount = [](Value v) -> std::optional<int64_t> {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape() || type.getRank() > 1)
      return std::nullopt;
    return type.getNumElements();
  };
  for (int depth = 0; depth < 64; ++depth) {
    if (std::optional<SmallVector<OpFoldResult>> elements =
            getShapeElements(value);
        elements && e < static_cast<int64_t>(elements->size()))
      return {(*elements)[e], Value(), 0};
    Operation *op = value.getDefiningOp();
    if (!op)
      break;
    if (auto split = dyn_cast<SplitOp>(op)) {
      if (!staticCount(split.getInput()))
        break;
      int64_t offset = 0;
      for (unsigned k = 0; k < cast<OpResult>(value).getResultNumber(); ++k)
        offset += split.getSizes()[k];
      value = split.getInput(), e += offset;
      continue;
    }
    if (auto slice = dyn_cast<SliceOp>(op)) {
      if (!staticCount(slice.getInput()) || !slice.getOffsets().empty() ||
          !slice.getStrides().empty())
        break;
      value = slice.getInput();
      e = slice.getStaticOffsets()[0] + e * slice.getStaticStrides()[0];
      continue;
    }
    if (auto concat = dyn_cast<ConcatOp>(op)) {
      Value from;
      for (Value input : concat.getInputs()) {
        std::optional<int64_t> n = staticCount(input);
        if (!n || cast<RankedTensorType>(input.getType()).getRank() != 1)
          break;
        if (e < *n) {
          from = input;
          break;
        }
        e -= *n;
      }
      if (!from)
        break;
      value = from;
      continue;
    }
    if (auto cast = dyn_cast<CastOp>(op)) {
      auto in = dyn_cast<IntegerType>(
          getElementTypeOrSelf(cast.getInput().getType()));
      auto out = dyn_cast<IntegerType>(getElementTypeOrSelf(value.getType()));
      if (!in || !out || in.getWidth() > out.getWidth() ||
          in.isUnsigned() != out.isUnsigned())
        break;
      value = cast.getInput();
      continue;
    }
    if (isa<ReshapeOp, SqueezeOp, UnsqueezeOp>(op) &&
        staticCount(op->getOperand(0))) {
      value = op->getOperand(0);
      continue;
    }
    break;
  }
  return {std::nullopt, value, e};
}

/// Whether `value` can be read at run time: a graph input (an argument of
/// the function, not of a subgraph) or a value a converted op computes.
bool isReadable(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return isa<func::FuncOp>(arg.getOwner()->getParentOp());
  Operation *producer = value.getDefiningOp();
  return producer && !isa<ForeignOp>(producer) &&
         !matchPattern(value, m_Constant());
}

/// The name a graph input has in messages and symbols: its `tsc.name`, else
/// `input<N>`.
std::string graphInputName(BlockArgument arg) {
  auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "tsc.name");
  return name ? name.str() : "input" + std::to_string(arg.getArgNumber());
}

} // namespace

/// A value the graph computes whose elements a run can read after the step
/// computing it: not a constant, not an expression of known dims, and not a
/// node still waiting for conversion (it may yet fold).
static bool isComputedInts(ForeignNode &node, Value value) {
  Operation *producer = value.getDefiningOp();
  return producer && node.isSettled() && !isa<ForeignOp>(producer) &&
         !matchPattern(value, m_Constant()) && !getShapeElements(value);
}

bool ForeignNode::isRuntimeInts(unsigned i, bool floats) {
  if (!hasInput(i))
    return false;
  Value value = op.getInputs()[i];
  auto arg = dyn_cast<BlockArgument>(value);
  if (arg ? !isa<func::FuncOp>(arg.getOwner()->getParentOp())
          : !isComputedInts(*this, value))
    return false;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getRank() <= 1 &&
         type.getNumElements() <= 16 &&
         ((isa<IntegerType>(type.getElementType()) &&
           !type.getElementType().isInteger(1)) ||
          (floats && isa<FloatType>(type.getElementType())));
}

FailureOr<SmallVector<Value>>
ForeignNode::runtimeInts(unsigned i, int64_t min, int64_t max, bool floats) {
  if (!isRuntimeInts(i, floats))
    return fail("input #" + Twine(i) +
                " must be a constant or a small integer graph input or "
                "computed value");
  Value source = op.getInputs()[i];
  if (auto arg = dyn_cast<BlockArgument>(source))
    return readElements(source, graphInputName(arg), min, max);
  return readElements(source, getName() + ": input #" + std::to_string(i), min,
                      max);
}

FailureOr<SmallVector<Value>>
ForeignNode::readElements(Value source, const std::string &input, int64_t min,
                          int64_t max) {
  auto type = cast<RankedTensorType>(source.getType());
  int64_t count = type.getNumElements();
  bool integers = isa<IntegerType>(type.getElementType());
  SmallVector<Value> elements;
  OpBuilder::InsertionGuard guard(rewriter);
  const OpBuilder::InsertPoint home = rewriter.saveInsertionPoint();
  // The symbols this call declares for each source, in element order.
  DenseMap<Value, Operation *> lastDeclared;
  for (int64_t e = 0; e < count; ++e) {
    // An integer element is read where it starts (a graph input's entry
    // that the model splits and concatenates again), or is known.
    ElementOrigin origin{std::nullopt, source, e};
    if (integers) {
      ElementOrigin traced = traceElement(source, e);
      if (traced.known || isReadable(traced.source))
        origin = traced;
    }
    if (origin.known) {
      // At the caller's point: a known value may be defined after the
      // symbols this loop put at the start of the block.
      rewriter.restoreInsertionPoint(home);
      OpFoldResult known = *origin.known;
      std::optional<int64_t> constant = getConstantIntValue(known);
      if (constant && (*constant < min || *constant > max))
        return fail("'" + input + "' element " + Twine(e) + " is " +
                    Twine(*constant) + ", outside [" + Twine(min) + ", " +
                    Twine(max) + "]");
      Value v = constant ? Value(arith::ConstantIndexOp::create(
                               rewriter, getLoc(), *constant))
                         : cast<Value>(known);
      if (!v.getType().isIndex())
        v = rewriter.createOrFold<arith::IndexCastOp>(
            getLoc(), rewriter.getIndexType(), v);
      elements.push_back(v);
      continue;
    }
    Value from = origin.source;
    int64_t at = origin.element;
    Block *block = from.getParentBlock();
    // A computed value is read right after the op computing it (format 1.8:
    // the run defines the symbol after the step computing the value).
    if (Operation *last = lastDeclared.lookup(from))
      rewriter.setInsertionPointAfter(last);
    else if (isa<BlockArgument>(from))
      rewriter.setInsertionPointToStart(block);
    else
      rewriter.setInsertionPointAfterValue(from);
    SymbolOp symbol;
    for (SymbolOp existing : block->getOps<SymbolOp>())
      if (existing.getSource() == from &&
          static_cast<int64_t>(*existing.getElement()) == at)
        symbol = existing;
    if (symbol) {
      // Another node reads the same element: both ranges hold.
      int64_t lo = std::max(min, symbol.getLowest());
      int64_t hi = std::min(max, symbol.getHighest());
      if (lo > hi)
        return fail("'" + input + "' element " + Twine(e) +
                    " would need to lie in [" + Twine(min) + ", " + Twine(max) +
                    "] and in [" + Twine(symbol.getLowest()) + ", " +
                    Twine(symbol.getHighest()) + "] for another node");
      rewriter.modifyOpInPlace(symbol, [&] {
        symbol.setMinAttr(rewriter.getI64IntegerAttr(lo));
        symbol.setMaxAttr(rewriter.getI64IntegerAttr(hi));
      });
    } else {
      // Named after the graph input it is read from, else after `input`.
      std::string base = input;
      auto fromType = cast<RankedTensorType>(from.getType());
      if (auto arg = dyn_cast<BlockArgument>(from); arg && from != source)
        base = graphInputName(arg);
      std::string name = uniqueSymbolName(
          block, fromType.getNumElements() == 1 && fromType.getRank() == 0
                     ? base
                     : base + "[" + std::to_string(at) + "]");
      symbol =
          SymbolOp::create(rewriter, getLoc(), name, static_cast<uint64_t>(min),
                           static_cast<uint64_t>(max), Value(), from,
                           rewriter.getI64IntegerAttr(at));
      lastDeclared[from] = symbol;
    }
    elements.push_back(symbol.getResult());
  }
  return elements;
}

/// The largest value of `expr` over the `operands`' largest values, for
/// expressions that grow with them (sums, products, quotients by positive
/// constants); nullopt otherwise.
static std::optional<int64_t> largestOf(AffineExpr expr,
                                        ArrayRef<std::optional<int64_t>> syms) {
  constexpr int64_t kCap = int64_t(1) << 40;
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return c.getValue() >= 0 ? std::optional<int64_t>(c.getValue())
                             : std::nullopt;
  if (auto sy = dyn_cast<AffineSymbolExpr>(expr))
    return syms[sy.getPosition()];
  auto bin = cast<AffineBinaryOpExpr>(expr);
  std::optional<int64_t> l = largestOf(bin.getLHS(), syms);
  std::optional<int64_t> r = largestOf(bin.getRHS(), syms);
  auto rc = dyn_cast<AffineConstantExpr>(bin.getRHS());
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    if (l && r)
      return std::min(*l + *r, kCap);
    return std::nullopt;
  case AffineExprKind::Mul:
    if (l && r)
      return *l && *r > kCap / *l ? kCap : *l * *r;
    return std::nullopt;
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv:
    if (l && rc && rc.getValue() > 0)
      return (*l + rc.getValue() - 1) / rc.getValue();
    return std::nullopt;
  case AffineExprKind::Mod:
    if (rc && rc.getValue() > 0)
      return rc.getValue() - 1;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

std::optional<int64_t> foreign::largestDim(Value tensor, int64_t d, int depth) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(d))
    return type.getDimSize(d);
  if (depth > 32)
    return std::nullopt;
  for (Operation *user : tensor.getUsers())
    if (auto bind = dyn_cast<BindShapeOp>(user)) {
      SmallVector<std::optional<int64_t>> bounds;
      for (Value symbol : bind.getSymbols())
        bounds.push_back(largestSize(symbol, depth + 1));
      return largestOf(bind.getShape().getResult(static_cast<unsigned>(d)),
                       bounds);
    }
  Operation *producer = tensor.getDefiningOp();
  if (!producer)
    return std::nullopt;
  PlaceholderReader reader(tensor.getContext());
  std::optional<AffineExpr> expr = deriveResultDim(
      producer, cast<OpResult>(tensor).getResultNumber(), d, reader);
  if (!expr || !*expr)
    return std::nullopt;
  SmallVector<std::optional<int64_t>> bounds;
  for (ValueDim p : reader.getPlaceholders())
    bounds.push_back(p.dim == PlaceholderReader::kValue
                         ? largestSize(p.value, depth + 1)
                         : largestDim(p.value, p.dim, depth + 1));
  return largestOf(*expr, bounds);
}

std::optional<int64_t> foreign::largestSize(Value size, int depth) {
  if (depth > 16)
    return std::nullopt;
  IntegerAttr constant;
  if (matchPattern(size, m_Constant(&constant)))
    return constant.getInt() >= 0 ? std::optional<int64_t>(constant.getInt())
                                  : std::nullopt;
  if (auto symbol = size.getDefiningOp<SymbolOp>())
    return symbol.getLowest() >= 0 ? std::optional<int64_t>(symbol.getHighest())
                                   : std::nullopt;
  if (auto cast = size.getDefiningOp<arith::IndexCastOp>())
    return largestSize(cast.getIn(), depth + 1);
  Operation *op = size.getDefiningOp();
  if (isa_and_nonnull<arith::AddIOp, arith::MulIOp>(op)) {
    std::optional<int64_t> l = largestSize(op->getOperand(0), depth + 1);
    std::optional<int64_t> r = largestSize(op->getOperand(1), depth + 1);
    if (!l || !r)
      return std::nullopt;
    AffineExpr x = getAffineSymbolExpr(0, size.getContext()),
               y = getAffineSymbolExpr(1, size.getContext());
    return largestOf(isa<arith::AddIOp>(op) ? x + y : x * y, {l, r});
  }
  // A quotient by a positive constant, or by a size of at least 1.
  if (isa_and_nonnull<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp,
                      arith::CeilDivSIOp, arith::CeilDivUIOp>(op)) {
    std::optional<int64_t> l = largestSize(op->getOperand(0), depth + 1);
    IntegerAttr divisor;
    if (!l)
      return std::nullopt;
    if (matchPattern(op->getOperand(1), m_Constant(&divisor)))
      return divisor.getInt() > 0
                 ? std::optional<int64_t>((*l + divisor.getInt() - 1) /
                                          divisor.getInt())
                 : std::nullopt;
    auto symbol = op->getOperand(1).getDefiningOp<SymbolOp>();
    return symbol && symbol.getLowest() >= 1 ? l : std::nullopt;
  }
  // Either of two sizes.
  if (isa_and_nonnull<arith::MaxSIOp, arith::MaxUIOp, arith::SelectOp>(op)) {
    unsigned first = isa<arith::SelectOp>(op) ? 1 : 0;
    std::optional<int64_t> l = largestSize(op->getOperand(first), depth + 1);
    std::optional<int64_t> r =
        largestSize(op->getOperand(first + 1), depth + 1);
    if (!l || !r)
      return std::nullopt;
    return std::max(*l, *r);
  }
  if (auto dim = size.getDefiningOp<DimOp>())
    return largestDim(dim.getInput(), static_cast<int64_t>(dim.getDim()),
                      depth + 1);
  return std::nullopt;
}

FailureOr<SmallVector<OpFoldResult>>
ForeignNode::sizeElements(unsigned i, int64_t min, int64_t max) {
  if (!isRuntimeInts(i)) {
    FailureOr<SmallVector<OpFoldResult>> elements = shapeElements(i);
    if (failed(elements))
      return failure();
    // A size known at compile time is checked here; one computed by shape
    // arithmetic is checked where it folds or, at run time, by its symbol.
    for (auto [e, element] : llvm::enumerate(*elements))
      if (std::optional<int64_t> size = getConstantIntValue(element))
        if (*size < 0)
          return fail("input #" + Twine(i) + " element " + Twine(e) + " is " +
                      Twine(*size) + ": a size cannot be negative");
    return elements;
  }
  FailureOr<SmallVector<Value>> values = runtimeInts(i, min, max);
  if (failed(values))
    return failure();
  return SmallVector<OpFoldResult>(values->begin(), values->end());
}

Value ForeignNode::defineSymbol(const Twine &what, Value value, int64_t min,
                                int64_t max) {
  Block *block = rewriter.getInsertionBlock();
  std::string name = uniqueSymbolName(block, getName() + ": " + what.str());
  return SymbolOp::create(rewriter, getLoc(), name, static_cast<uint64_t>(min),
                          static_cast<uint64_t>(max), value, Value(),
                          IntegerAttr());
}

void ForeignNode::markAxes(ArrayRef<Value> axes, SmallVectorImpl<Value> &flags,
                           Value &distinct) {
  IndexMath im{rewriter, getLoc()};
  int64_t rank = flags.size();
  for (Value &flag : flags)
    flag = im.c(0);
  for (Value axis : axes) {
    Value normalized = im.normalizeAxis(axis, rank);
    for (int64_t d = 0; d < rank; ++d)
      flags[d] = im.select(im.eq(normalized, im.c(d)), im.c(1), flags[d]);
  }
  Value marked = im.c(0);
  for (Value flag : flags)
    marked = im.add(marked, flag);
  distinct = im.eq(marked, im.c(axes.size()));
}

SmallVector<OpFoldResult> ForeignNode::keptDims(ArrayRef<int64_t> shape,
                                                ArrayRef<Value> dropped,
                                                Value valid, int64_t keptCount,
                                                StringRef why) {
  IndexMath im{rewriter, getLoc()};
  int64_t lo = INT64_MAX, hi = 0;
  for (int64_t n : shape)
    lo = std::min(lo, n), hi = std::max(hi, n);
  SmallVector<OpFoldResult> sizes;
  for (int64_t m = 0; m < keptCount; ++m) {
    // Dim d is the m-th kept one when it is kept and m dims are kept before.
    Value size = im.c(0), before = im.c(0);
    for (auto [d, n] : llvm::enumerate(shape)) {
      Value kept = im.sub(im.c(1), dropped[d]);
      size = im.add(size, im.mul(kept, im.select(im.eq(before, im.c(m)),
                                                 im.c(n), im.c(0))));
      before = im.add(before, kept);
    }
    sizes.push_back(defineSymbol("dim " + Twine(m) + " (-1: " + why + ")",
                                 im.select(valid, size, im.c(-1)),
                                 std::min<int64_t>(lo, hi), hi));
  }
  return sizes;
}
