//===- PadAtRuntime.cpp - Pad with pads known only at run time ------------===//
//
// A Pad whose pads (or axes) are graph inputs or computed values, and a
// CenterCropPad whose target shape is: each padded dim of the result is a
// symbol defined from those values, and the result is gathered from the
// input one dim at a time, at indices that the pad mode maps back into it
// (clamped for edge, reflected for reflect, wrapped for wrap; out of range
// for constant, where a mask then writes the pad value). A crop is a
// negative pad. Every op is one the graph already has, so the gathers and
// the index arithmetic fuse and run on both targets.
//
// The memory planner plans at the symbols' maxima, so each pad is bounded:
// by the largest p for which the input padded by p at both ends of every
// dim holds at most kRuntimePadElements elements (a run with a larger pad
// is refused, naming the pad's symbol).
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/Foreign/IndexMath.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::foreign;

namespace {

/// The source index in a dim of size `n` for each of `src` (i64 [N], the
/// result's indices minus the low pad), as `mode` maps it; for constant
/// mode also `inside`, where it lies in [0, n).
FailureOr<Value> sourceIndices(ForeignNode &node, Value src, int64_t n,
                               PadMode mode, Value &inside) {
  Type i64 = node.getRewriter().getI64Type();
  auto c = [&](int64_t v) { return node.scalar(i64, static_cast<double>(v)); };
  switch (mode) {
  case PadMode::constant: {
    FailureOr<Value> low = node.create<GreaterEqualOp>({src, c(0)});
    FailureOr<Value> high = node.create<LessOp>({src, c(n)});
    if (failed(low) || failed(high))
      return failure();
    FailureOr<Value> both = node.create<AndOp>({*low, *high});
    if (failed(both))
      return failure();
    inside = *both;
    return node.create<WhereOp>({inside, src, c(0)});
  }
  case PadMode::edge: {
    FailureOr<Value> above = node.create<MaxOp>({src, c(0)});
    if (failed(above))
      return failure();
    return node.create<MinOp>({*above, c(n - 1)});
  }
  case PadMode::wrap:
    return node.create<ModOp>({src, c(n)});
  case PadMode::reflect: {
    // Reflection about the first and last element: period 2 (n - 1), and
    // (n - 1) - |(i mod period) - (n - 1)| within it.
    if (n == 1)
      return node.create<ModOp>({src, c(1)});
    FailureOr<Value> folded = node.create<ModOp>({src, c(2 * (n - 1))});
    if (failed(folded))
      return failure();
    FailureOr<Value> offset = node.create<SubOp>({*folded, c(n - 1)});
    if (failed(offset))
      return failure();
    Value distance = AbsOp::create(node.getRewriter(), node.getLoc(), *offset);
    return node.create<SubOp>({c(n - 1), distance});
  }
  }
  llvm_unreachable("unknown pad mode");
}

} // namespace

int64_t fromonnx::runtimePadBound(RankedTensorType type) {
  auto elements = [&](int64_t pad) {
    int64_t count = 1;
    for (int64_t n : type.getShape())
      count = std::min(count * (n + 2 * pad), kRuntimePadElements + 1);
    return count;
  };
  int64_t pad = 0;
  while (pad < kDefaultValueMax && elements(pad + 1) <= kRuntimePadElements)
    ++pad;
  return pad;
}

FailureOr<Value> fromonnx::buildPadAtRuntime(ForeignNode &node,
                                             TypedValue<RankedTensorType> x,
                                             ArrayRef<Value> low,
                                             ArrayRef<Value> high, PadMode mode,
                                             Value value, Value valid,
                                             StringRef why) {
  RankedTensorType type = x.getType();
  if (!type.hasStaticShape())
    return node.fail("pads given at run time need a data input of static "
                     "shape");
  RewriterBase &rw = node.getRewriter();
  IndexMath im{rw, node.getLoc()};
  Type i64 = rw.getI64Type();
  int64_t rank = type.getRank();
  Value y = x, mask;
  for (int64_t d = 0; d < rank; ++d) {
    if (!low[d])
      continue;
    int64_t n = type.getDimSize(d);
    // The result's size, -1 (refused by the run, naming `why`) where the
    // pads are invalid or crop more than the dim holds.
    Value size = im.max(im.add(im.c(n), im.add(low[d], high[d])), im.c(-1));
    if (valid)
      size = im.select(valid, size, im.c(-1));
    Value sizeSymbol =
        node.defineSymbol("dim " + Twine(d) + " (-1: " + why + ")", size, 0,
                          n + 2 * runtimePadBound(type));
    FailureOr<Value> range = buildRange(
        node, i64,
        {rw.getI64IntegerAttr(0), sizeSymbol, rw.getI64IntegerAttr(1)});
    if (failed(range))
      return failure();
    Value lowValue = buildShapeTensor(rw, node.getLoc(), {OpFoldResult(low[d])},
                                      /*scalar=*/true, i64);
    FailureOr<Value> src = node.create<SubOp>({*range, lowValue});
    if (failed(src))
      return failure();
    Value inside;
    FailureOr<Value> indices = sourceIndices(node, *src, n, mode, inside);
    if (failed(indices))
      return failure();
    GatherOp::Properties properties;
    properties.axis = rw.getI64IntegerAttr(d);
    FailureOr<Value> gathered =
        node.create<GatherOp>({y, *indices}, properties);
    if (failed(gathered))
      return failure();
    y = *gathered;
    if (!inside)
      continue;
    // In constant mode, where the index was in the input along every dim.
    SmallVector<OpFoldResult> maskShape(rank, rw.getIndexAttr(1));
    maskShape[d] = sizeSymbol;
    Value along = node.reshape(inside, maskShape);
    if (!mask) {
      mask = along;
      continue;
    }
    FailureOr<Value> both = node.create<AndOp>({mask, along});
    if (failed(both))
      return failure();
    mask = *both;
  }
  if (!mask)
    return y;
  if (!value)
    value = node.scalar(type.getElementType(), 0.0);
  return node.create<WhereOp>({mask, y, value});
}
