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
  if (auto arg = dyn_cast<BlockArgument>(source)) {
    auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
    auto nameAttr =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "tsc.name");
    return readElements(source,
                        nameAttr ? nameAttr.str()
                                 : "input" + std::to_string(arg.getArgNumber()),
                        min, max);
  }
  return readElements(source, getName() + ": input #" + std::to_string(i), min,
                      max);
}

FailureOr<SmallVector<Value>>
ForeignNode::readElements(Value source, const std::string &input, int64_t min,
                          int64_t max) {
  auto type = cast<RankedTensorType>(source.getType());
  Block *block = source.getParentBlock();
  int64_t count = type.getNumElements();
  SmallVector<Value> elements;
  // A computed value is read right after the op computing it (format 1.8:
  // the run defines the symbol after the step computing the value).
  OpBuilder::InsertionGuard guard(rewriter);
  if (isa<BlockArgument>(source))
    rewriter.setInsertionPointToStart(block);
  else
    rewriter.setInsertionPointAfterValue(source);
  for (int64_t e = 0; e < count; ++e) {
    SymbolOp symbol;
    for (SymbolOp existing : block->getOps<SymbolOp>())
      if (existing.getSource() == source &&
          static_cast<int64_t>(*existing.getElement()) == e)
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
      std::string name =
          uniqueSymbolName(block, count == 1 && type.getRank() == 0
                                      ? input
                                      : input + "[" + std::to_string(e) + "]");
      symbol =
          SymbolOp::create(rewriter, getLoc(), name, static_cast<uint64_t>(min),
                           static_cast<uint64_t>(max), Value(), source,
                           rewriter.getI64IntegerAttr(e));
      rewriter.setInsertionPointAfter(symbol);
    }
    elements.push_back(symbol.getResult());
  }
  return elements;
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
