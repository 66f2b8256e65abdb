//===- Shape.cpp - ONNX shape ops: reshape, slice, gather, expand, ... ----===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/Foreign/IndexMath.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// The static element count of `x`, or a failure naming the input that
/// gives the shape at run time.
FailureOr<int64_t> staticCount(ForeignNode &node, RankedTensorType type,
                               unsigned runtimeInput) {
  if (type.hasStaticShape())
    return type.getNumElements();
  return node.fail("input #" + Twine(runtimeInput) +
                   " is read at run time; with it, a dynamic shape of input "
                   "#0 is not supported");
}

/// Dim `d` of `x` as an index value, with the largest size it may take: its
/// size when static, else the symbol it is bound to and that symbol's
/// maximum; a failure naming the dim otherwise.
FailureOr<std::pair<Value, int64_t>> boundedDim(ForeignNode &node, Value x,
                                                int64_t d) {
  OpFoldResult size = node.dimSize(x, d);
  if (std::optional<int64_t> n = constantOf(size))
    return std::make_pair(node.toIndex(size), *n);
  if (std::optional<int64_t> most = largestSize(cast<Value>(size)))
    return std::make_pair(node.toIndex(size), *most);
  return node.fail("with a shape read at run time, dim " + Twine(d) +
                   " of input #0 (dynamic, not bounded by the symbols' "
                   "maxima) is not supported");
}

/// Reshape to a shape the model takes at run time: each result dim is a
/// symbol defined from the shape's elements, with ONNX's 0 (copy the input's
/// dim, unless `allowzero`) and -1 (the rest of the element count). A shape
/// that does not hold the input's elements makes every dim -1, which the run
/// rejects naming the symbol.
FailureOr<Value> reshapeAtRuntime(ForeignNode &node,
                                  TypedValue<RankedTensorType> x,
                                  bool allowZero) {
  RankedTensorType type = x.getType();
  IndexMath im{node.getRewriter(), node.getLoc()};
  // The element count, and its largest value over the input dims' ranges.
  SmallVector<Value> inputDims;
  Value count = im.c(1);
  int64_t mostCount = 1;
  std::string maxima;
  bool tooMany = false;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    FailureOr<std::pair<Value, int64_t>> dim = boundedDim(node, x, d);
    if (failed(dim))
      return failure();
    inputDims.push_back(dim->first);
    count = im.mul(count, dim->first);
    maxima += (d ? ", " : "") + std::to_string(dim->second);
    tooMany |= dim->second && mostCount > (int64_t(1) << 40) / dim->second;
    mostCount = tooMany ? int64_t(1) << 40 : mostCount * dim->second;
  }
  // The dims are planned at their maxima, each up to the element count's.
  if (tooMany)
    return node.fail("with a shape read at run time, input #0 holds more "
                     "than 2^40 elements at the symbols' maxima (its dims "
                     "up to [" +
                     maxima +
                     "]), more than tsc can plan for; "
                     "bound the sizes they are made of");
  // An empty input reshapes to any shape holding a 0 (allowzero), whose
  // other dims are bounded by the default range of a symbolic dim.
  int64_t most = std::max(mostCount, kDefaultValueMax);
  if (type.hasStaticShape() && mostCount)
    most = mostCount;
  FailureOr<SmallVector<Value>> shape = node.runtimeInts(1, -1, most);
  if (failed(shape))
    return failure();
  SmallVector<Value> sizes;
  Value known = im.c(1), inferred = im.c(0);
  for (auto [i, v] : llvm::enumerate(*shape)) {
    Value size = v;
    if (!allowZero && static_cast<int64_t>(i) < type.getRank())
      size = im.select(im.eq(v, im.c(0)), inputDims[i], v);
    Value isInferred = im.eq(v, im.c(-1));
    inferred = im.add(inferred, im.indicator(isInferred));
    known = im.mul(known, im.select(isInferred, im.c(1), size));
    sizes.push_back(size);
  }
  Value rest = im.div(count, im.max(known, im.c(1)));
  Value total = im.c(1);
  for (Value &size : sizes) {
    size = im.select(im.eq(size, im.c(-1)), rest, size);
    total = im.mul(total, size);
  }
  Value valid = im.select(im.lt(inferred, im.c(2)), im.eq(total, count),
                          im.eq(im.c(0), im.c(1)));
  SmallVector<OpFoldResult> dims;
  for (auto [i, size] : llvm::enumerate(sizes))
    dims.push_back(node.defineSymbol(
        "dim " + Twine(i) + " (-1: the shape does not fit the input)",
        im.select(valid, size, im.c(-1)), 0, most));
  return node.reshape(x, dims);
}

FailureOr<Values> convertReshape(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (node.isRuntimeInts(1))
    return results(reshapeAtRuntime(node, *x, node.getInt("allowzero", 0)));
  FailureOr<SmallVector<OpFoldResult>> shape = node.shapeElements(1);
  if (failed(shape))
    return failure();
  return results(buildReshape(node, *x, *shape,
                              /*zeroCopiesDim=*/!node.getInt("allowzero", 0)));
}

FailureOr<Values> convertTranspose(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  SmallVector<int64_t> perm = node.getInts("perm").value_or(
      llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank))));
  FailureOr<Value> out = node.transpose(*x, perm);
  if (failed(out))
    return failure();
  return Values{*out};
}

FailureOr<Values> convertGather(ForeignNode &node) {
  auto data = node.input(0);
  auto indices = node.input(1);
  if (failed(data) || failed(indices))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", 0), data->getType().getRank());
  if (failed(axis))
    return failure();
  return results(buildGather(node, *data, *indices, *axis));
}

FailureOr<Values> convertConcat(ForeignNode &node) {
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < node.getNumInputs(); ++i) {
    auto input = node.input(i);
    if (failed(input))
      return failure();
    inputs.push_back(*input);
  }
  if (inputs.empty())
    return node.fail("Concat needs at least one input");
  FailureOr<int64_t> axis = node.axis(
      node.getInt("axis", 0),
      cast<RankedTensorType>(inputs.front().getType()).getRank());
  if (failed(axis))
    return failure();
  ConcatOp::Properties properties;
  properties.axis = node.getRewriter().getI64IntegerAttr(*axis);
  return results(node.create<ConcatOp>(inputs, properties));
}

/// Slice with starts, ends, axes or steps that graph inputs give at run
/// time: per dim, the listed axis's bounds (or the whole dim) clamped as
/// ONNX specifies, computed from symbols read from the inputs; the result's
/// size per dim is a symbol (-1 for a step of 0, which the run rejects).
FailureOr<Value> sliceAtRuntime(ForeignNode &node,
                                TypedValue<RankedTensorType> x) {
  RankedTensorType type = x.getType();
  int64_t rank = type.getRank();
  IndexMath im{node.getRewriter(), node.getLoc()};
  // Input i's elements as index values: constants or symbols read at run
  // time; `fallback` when the input is omitted.
  auto elements = [&](unsigned i, int64_t min, int64_t max,
                      std::optional<SmallVector<Value>> fallback)
      -> FailureOr<SmallVector<Value>> {
    if (!node.hasInput(i) && fallback)
      return *fallback;
    if (node.isRuntimeInts(i))
      return node.runtimeInts(i, min, max);
    FailureOr<SmallVector<int64_t>> values = node.constantInts(i);
    if (failed(values))
      return failure();
    SmallVector<Value> out;
    for (int64_t v : *values)
      out.push_back(im.c(v));
    return out;
  };
  FailureOr<SmallVector<Value>> starts =
      elements(1, INT64_MIN, INT64_MAX, std::nullopt);
  FailureOr<SmallVector<Value>> ends =
      elements(2, INT64_MIN, INT64_MAX, std::nullopt);
  if (failed(starts) || failed(ends))
    return failure();
  size_t count = starts->size();
  SmallVector<Value> defaultAxes, defaultSteps;
  for (size_t m = 0; m < count; ++m) {
    defaultAxes.push_back(im.c(m));
    defaultSteps.push_back(im.c(1));
  }
  FailureOr<SmallVector<Value>> axes =
      elements(3, -rank, rank - 1, defaultAxes);
  FailureOr<SmallVector<Value>> steps =
      elements(4, INT64_MIN, INT64_MAX, defaultSteps);
  if (failed(axes) || failed(steps))
    return failure();
  if (ends->size() != count || axes->size() != count || steps->size() != count)
    return node.fail("starts, ends, axes and steps differ in length");
  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t d = 0; d < rank; ++d) {
    // The dim's size (a symbol when dynamic) and its largest value.
    FailureOr<std::pair<Value, int64_t>> dim = boundedDim(node, x, d);
    if (failed(dim))
      return failure();
    Value cn = dim->first;
    int64_t n = dim->second;
    Value negative = im.sub(im.c(0), cn);
    // Bounds clamped to [-n - 1, n + 1] first, so nothing below overflows.
    auto bound = [&](Value v) {
      return im.max(im.min(v, im.add(cn, im.c(1))), im.sub(negative, im.c(1)));
    };
    Value listed = im.c(0), start = im.c(0), end = im.c(0), step = im.c(0);
    for (size_t m = 0; m < count; ++m) {
      Value is =
          im.indicator(im.eq(im.normalizeAxis((*axes)[m], rank), im.c(d)));
      listed = im.max(listed, is);
      start = im.add(start, im.mul(is, bound((*starts)[m])));
      end = im.add(end, im.mul(is, bound((*ends)[m])));
      step =
          im.add(step, im.mul(is, im.max(im.min((*steps)[m], cn), negative)));
    }
    Value unlisted = im.sub(im.c(1), listed);
    end = im.add(end, im.mul(unlisted, cn));
    step = im.add(step, unlisted);
    auto wrap = [&](Value v) {
      return im.select(im.lt(v, im.c(0)), im.add(v, cn), v);
    };
    auto clamp = [&](Value v, int64_t lo, Value hi) {
      return im.max(im.min(v, hi), im.c(lo));
    };
    Value last = im.sub(cn, im.c(1));
    Value s = wrap(start), e = wrap(end);
    Value forward = im.lt(im.c(0), step), backward = im.lt(step, im.c(0));
    Value sF = clamp(s, 0, cn), eF = clamp(e, 0, cn);
    Value sB = clamp(s, 0, last), eB = clamp(e, -1, last);
    Value countF = arith::CeilDivSIOp::create(rw, node.getLoc(),
                                              im.max(im.sub(eF, sF), im.c(0)),
                                              im.max(step, im.c(1)));
    Value countB = arith::CeilDivSIOp::create(
        rw, node.getLoc(), im.max(im.sub(sB, eB), im.c(0)),
        im.max(im.sub(im.c(0), step), im.c(1)));
    Value size =
        im.select(forward, countF, im.select(backward, countB, im.c(-1)));
    Value sizeSymbol =
        node.defineSymbol("dim " + Twine(d) + " (-1: a step of 0)", size, 0, n);
    offsets.push_back(
        im.select(im.lt(im.c(0), size), im.select(forward, sF, sB), im.c(0)));
    sizes.push_back(sizeSymbol);
    strides.push_back(step);
  }
  return buildSliceOp(node, x, offsets, sizes, strides);
}

/// ONNX Slice: starts, ends and optional axes and steps as inputs.
FailureOr<Values> convertSlice(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (node.getVersion() >= 10 &&
      llvm::any_of(llvm::seq<unsigned>(1, 5),
                   [&](unsigned i) { return node.isRuntimeInts(i); }))
    return results(sliceAtRuntime(node, *x));
  // ONNX asks for 1-D starts and ends; a constant [1, 1] (an Unsqueeze of
  // a [1] as the Loop node tests write) is read in element order too, as
  // the reference implementation does.
  auto elements = [&](unsigned i) -> FailureOr<SmallVector<OpFoldResult>> {
    DenseIntElementsAttr dense;
    if (failed(node.input(i))) // absent (an opset past the schema check)
      return failure();
    Value v = node.getOp().getInputs()[i];
    if (matchPattern(v, m_Constant(&dense)) && dense.getType().getRank() > 1 &&
        dense.getNumElements() <= 16)
      return llvm::map_to_vector(dense.getValues<APInt>(), [&](APInt e) {
        return OpFoldResult(node.getRewriter().getIndexAttr(e.getSExtValue()));
      });
    return node.shapeElements(i);
  };
  FailureOr<SmallVector<OpFoldResult>> starts = elements(1);
  FailureOr<SmallVector<OpFoldResult>> ends = elements(2);
  if (failed(starts) || failed(ends))
    return failure();
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  if (node.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(3);
    if (failed(values))
      return failure();
    axes = *values;
  }
  SmallVector<int64_t> steps(axes.size(), 1);
  if (node.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(4);
    if (failed(values))
      return failure();
    steps = *values;
  }
  return results(buildSlice(node, *x, *starts, *ends, axes, steps));
}

/// `x` cut along `axis` into consecutive parts of the given sizes.
Values sliceParts(ForeignNode &node, TypedValue<RankedTensorType> x,
                  int64_t axis, ArrayRef<Value> partSizes) {
  IndexMath im{node.getRewriter(), node.getLoc()};
  RewriterBase &rw = node.getRewriter();
  int64_t rank = x.getType().getRank();
  Values out;
  Value offset = im.c(0);
  for (Value size : partSizes) {
    SmallVector<OpFoldResult> offsets(rank, rw.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = node.sizes(x);
    SmallVector<OpFoldResult> strides(rank, rw.getIndexAttr(1));
    offsets[axis] = offset;
    sizes[axis] = size;
    out.push_back(buildSliceOp(node, x, offsets, sizes, strides));
    offset = im.add(offset, size);
  }
  return out;
}

/// Split into the sizes input #1 gives at run time: each part's size is a
/// symbol read from it, -1 (rejected by the run) unless they add up to the
/// axis's size.
FailureOr<Values> splitAtRuntime(ForeignNode &node,
                                 TypedValue<RankedTensorType> x, int64_t axis) {
  int64_t dim = x.getType().getDimSize(axis);
  if (ShapedType::isDynamic(dim))
    return node.fail("split sizes given at run time need a static axis");
  FailureOr<SmallVector<Value>> parts = node.runtimeInts(1, 0, dim);
  if (failed(parts))
    return failure();
  if (static_cast<int64_t>(parts->size()) != node.getOp().getNumResults())
    return node.fail("split sizes do not match the " +
                     Twine(node.getOp().getNumResults()) + " outputs");
  IndexMath im{node.getRewriter(), node.getLoc()};
  Value total = im.c(0);
  for (Value part : *parts)
    total = im.add(total, part);
  Value valid = im.eq(total, im.c(dim));
  SmallVector<Value> sizes;
  for (auto [i, part] : llvm::enumerate(*parts))
    sizes.push_back(node.defineSymbol(
        "part " + Twine(i) + " (-1: the sizes do not add up to " + Twine(dim) +
            ")",
        im.select(valid, part, im.c(-1)), 0, dim));
  return sliceParts(node, x, axis, sizes);
}

/// An equal split of a dynamic dim: parts of ceil(dim / n), the last ones
/// smaller (empty where the dim runs out), each a symbol bounded by the
/// dim's maximum.
FailureOr<Values> splitDynamicEqually(ForeignNode &node,
                                      TypedValue<RankedTensorType> x,
                                      int64_t axis, int64_t parts) {
  FailureOr<std::pair<Value, int64_t>> dim = boundedDim(node, x, axis);
  if (failed(dim))
    return failure();
  auto [size, most] = *dim;
  IndexMath im{node.getRewriter(), node.getLoc()};
  Value chunk = im.div(im.add(size, im.c(parts - 1)), im.c(parts));
  SmallVector<Value> sizes;
  for (int64_t i = 0; i < parts; ++i) {
    Value rest = im.max(im.sub(size, im.mul(im.c(i), chunk)), im.c(0));
    sizes.push_back(node.defineSymbol(
        "part " + Twine(i) + " of " + Twine(parts), im.min(rest, chunk), 0,
        llvm::divideCeil(most, parts)));
  }
  return sliceParts(node, x, axis, sizes);
}

FailureOr<Values> convertSplit(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  FailureOr<int64_t> axis = node.axis(node.getInt("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  int64_t outputs = node.getOp().getNumResults();
  SmallVector<int64_t> sizes;
  if (node.isRuntimeInts(1))
    return splitAtRuntime(node, *x, *axis);
  if (node.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(1);
    if (failed(values))
      return failure();
    sizes = *values;
  } else if (std::optional<SmallVector<int64_t>> attr = node.getInts("split")) {
    sizes = *attr;
  } else {
    int64_t dim = type.getDimSize(*axis);
    int64_t parts = node.getInt("num_outputs", outputs);
    // Before dividing by it (a fuzzer's finding: num_outputs 0).
    if (parts < 1 || parts != outputs)
      return node.fail("num_outputs is " + Twine(parts) + " for a node with " +
                       Twine(outputs) + " outputs");
    if (ShapedType::isDynamic(dim))
      return splitDynamicEqually(node, *x, *axis, parts);
    int64_t chunk = llvm::divideCeil(dim, parts);
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::min(chunk, dim - i * chunk));
  }
  if (static_cast<int64_t>(sizes.size()) != outputs)
    return node.fail("split sizes do not match the " + Twine(outputs) +
                     " outputs");
  return buildSplit(node, *x, *axis, sizes);
}

/// Squeeze or Unsqueeze of the axes that input #1 gives at run time: a view
/// whose dims are symbols defined from the axes.
FailureOr<Value> squeezeAtRuntime(ForeignNode &node,
                                  TypedValue<RankedTensorType> x,
                                  bool unsqueeze) {
  RankedTensorType type = x.getType();
  if (failed(staticCount(node, type, 1)))
    return failure();
  int64_t count = cast<RankedTensorType>(node.getOp().getInputs()[1].getType())
                      .getNumElements();
  int64_t rank = type.getRank(), outRank = rank + (unsqueeze ? count : -count);
  if (outRank < 0)
    return node.fail(Twine(count) + " axes for a rank-" + Twine(rank) +
                     " input");
  int64_t axesRank = unsqueeze ? outRank : rank;
  FailureOr<SmallVector<Value>> axes =
      node.runtimeInts(1, -axesRank, axesRank - 1);
  if (failed(axes))
    return failure();
  IndexMath im{node.getRewriter(), node.getLoc()};
  SmallVector<Value> flags(axesRank);
  Value distinct;
  node.markAxes(*axes, flags, distinct);
  if (!unsqueeze) {
    // The squeezed dims must have size 1.
    Value valid = distinct;
    for (auto [d, n] : llvm::enumerate(type.getShape()))
      if (n != 1)
        valid =
            im.select(im.eq(flags[d], im.c(1)), im.eq(im.c(0), im.c(1)), valid);
    return node.reshape(x, node.keptDims(type.getShape(), flags, valid, outRank,
                                         "repeated axes or a dim not of "
                                         "size 1"));
  }
  // Result dim p is 1 where an axis names it, else the next input dim.
  int64_t hi = 1;
  for (int64_t n : type.getShape())
    hi = std::max(hi, n);
  SmallVector<OpFoldResult> dims;
  Value before = im.c(0); // input dims placed before p
  for (int64_t p = 0; p < outRank; ++p) {
    Value size = im.c(0);
    for (auto [d, n] : llvm::enumerate(type.getShape()))
      size = im.add(size, im.select(im.eq(before, im.c(d)), im.c(n), im.c(0)));
    size = im.select(im.eq(flags[p], im.c(1)), im.c(1), size);
    before = im.add(before, im.sub(im.c(1), flags[p]));
    dims.push_back(node.defineSymbol("dim " + Twine(p) + " (-1: repeated axes)",
                                     im.select(distinct, size, im.c(-1)), 0,
                                     hi));
  }
  return node.reshape(x, dims);
}

FailureOr<Values> convertSqueeze(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  SmallVector<int64_t> dims;
  // Before opset 13 the axes are an attribute.
  std::optional<SmallVector<int64_t>> attrAxes;
  if (node.getVersion() < 13)
    attrAxes = node.getInts("axes");
  else if (node.isRuntimeInts(1))
    return results(squeezeAtRuntime(node, *x, /*unsqueeze=*/false));
  if (attrAxes || (node.getVersion() >= 13 && node.hasInput(1))) {
    FailureOr<SmallVector<int64_t>> axes =
        attrAxes ? FailureOr<SmallVector<int64_t>>(*attrAxes)
                 : node.constantInts(1);
    if (failed(axes))
      return failure();
    FailureOr<SmallVector<int64_t>> normalized = node.axes(*axes, type.getRank());
    if (failed(normalized))
      return failure();
    dims = *normalized;
  } else {
    // Every dim of size 1 goes. A dynamic dim is kept, as torch.export
    // takes its dynamic dims to be at least 2: its symbol's range is
    // narrowed to start at 2, so that a run where it is 1 (and ONNX would
    // drop it) fails naming the symbol instead of giving the wrong rank.
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.getDimSize(d) == 1)
        dims.push_back(d);
      if (!type.isDynamicDim(d))
        continue;
      auto size = dyn_cast<Value>(node.dimSize(*x, d));
      auto symbol = size ? size.getDefiningOp<SymbolOp>() : SymbolOp();
      // Only a dim the model declares is taken to be at least 2; one
      // computed from values (a split's part, a size read at run time) may
      // well be 1.
      if (!symbol || symbol.getDefinition() || symbol.getSource())
        return node.fail("without axes, dim " + Twine(d) +
                         " (dynamic, computed by the graph) would be squeezed "
                         "or kept only at run time, which is not supported; "
                         "give the axes");
      // A range the user gave is not narrowed behind their back.
      if (symbol.getHighest() < 2 ||
          (symbol.getLowest() < 2 && symbol.getCommandLine()))
        return node.fail(
            "without axes, dim " + Twine(d) + " ('" + symbol.getSymbol() +
            "' in [" + Twine(symbol.getLowest()) + ", " +
            Twine(symbol.getHighest()) +
            "]) would be squeezed where it is 1, which a compiled rank "
            "cannot follow; give the axes, or a range from 2");
      if (symbol.getLowest() < 2)
        node.getRewriter().modifyOpInPlace(symbol, [&] {
          symbol.setMinAttr(node.getRewriter().getI64IntegerAttr(2));
        });
    }
  }
  SqueezeOp::Properties properties;
  properties.dims = node.getRewriter().getDenseI64ArrayAttr(dims);
  return results(node.create<SqueezeOp>({*x}, properties));
}

FailureOr<Values> convertUnsqueeze(ForeignNode &node) {
  auto x = node.input(0);
  // Before opset 13 the axes are an attribute.
  bool attribute = node.getVersion() < 13;
  if (succeeded(x) && !attribute && node.isRuntimeInts(1))
    return results(squeezeAtRuntime(node, *x, /*unsqueeze=*/true));
  std::optional<SmallVector<int64_t>> attrAxes;
  if (attribute && !(attrAxes = node.getInts("axes")))
    return node.fail("attribute 'axes' is required");
  FailureOr<SmallVector<int64_t>> axes =
      attribute ? FailureOr<SmallVector<int64_t>>(*attrAxes)
                : node.constantInts(1);
  if (failed(x) || failed(axes))
    return failure();
  FailureOr<SmallVector<int64_t>> dims =
      node.axes(*axes, x->getType().getRank() + axes->size());
  if (failed(dims))
    return failure();
  UnsqueezeOp::Properties properties;
  properties.dims = node.getRewriter().getDenseI64ArrayAttr(*dims);
  return results(node.create<UnsqueezeOp>({*x}, properties));
}

/// Expand to a shape input #1 gives at run time: each result dim is a
/// symbol, the requested size where the input's dim is 1 (or missing), the
/// input's dim where 1 or that dim is requested, and -1 otherwise, which the
/// run rejects.
FailureOr<Value> expandAtRuntime(ForeignNode &node,
                                 TypedValue<RankedTensorType> x) {
  RankedTensorType type = x.getType();
  if (failed(staticCount(node, type, 1)))
    return failure();
  FailureOr<SmallVector<Value>> shape =
      node.runtimeInts(1, 0, kDefaultValueMax);
  if (failed(shape))
    return failure();
  IndexMath im{node.getRewriter(), node.getLoc()};
  int64_t rank = std::max<int64_t>(type.getRank(), shape->size());
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t xd = d - (rank - type.getRank());
    int64_t sd = d - (rank - static_cast<int64_t>(shape->size()));
    if (sd < 0) {
      sizes.push_back(node.dimSize(x, xd));
      continue;
    }
    Value v = (*shape)[sd];
    int64_t n = xd < 0 ? 1 : type.getDimSize(xd);
    // An entry the model computes from constants is checked here.
    if (std::optional<int64_t> c = getConstantIntValue(v)) {
      if (n != 1 && *c != 1 && *c != n)
        return node.fail("dim " + Twine(d) + " of size " + Twine(n) +
                         " cannot broadcast to " + Twine(*c));
      sizes.push_back(node.getRewriter().getIndexAttr(n == 1 ? *c : n));
      continue;
    }
    // A dim of 1 takes the entry as it is: the same symbol as every other
    // read of that entry.
    if (n == 1) {
      sizes.push_back(v);
      continue;
    }
    Value size = im.select(im.eq(v, im.c(1)), im.c(n),
                           im.select(im.eq(v, im.c(n)), im.c(n), im.c(-1)));
    sizes.push_back(node.defineSymbol(
        "dim " + Twine(d) + " (-1: cannot broadcast " + Twine(n) + ")", size, 0,
        std::max<int64_t>(n, kDefaultValueMax)));
  }
  // Built here rather than by buildExpand, which would take a static dim for
  // granted and drop its check.
  return Value(ExpandOp::create(node.getRewriter(), node.getLoc(),
                                type.clone(ForeignNode::staticShape(sizes)), x,
                                node.dynamicSizes(sizes)));
}

/// numpy broadcast of `x` with the requested shape.
FailureOr<Values> convertExpand(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (node.isRuntimeInts(1))
    return results(expandAtRuntime(node, *x));
  FailureOr<SmallVector<OpFoldResult>> shape = node.shapeElements(1);
  if (failed(shape))
    return failure();
  return results(buildExpand(node, *x, *shape));
}

FailureOr<Values> convertShape(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  int64_t start = node.getInt("start", 0), end = node.getInt("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  SmallVector<OpFoldResult> dims;
  for (int64_t d = start; d < end; ++d)
    dims.push_back(node.dimSize(*x, d));
  return Values{buildShapeTensor(node.getRewriter(), node.getLoc(), dims)};
}

FailureOr<Values> convertSize(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return Values{buildNumel(node, *x)};
}

FailureOr<Values> convertConstantOfShape(ForeignNode &node) {
  FailureOr<SmallVector<OpFoldResult>> shape =
      node.sizeElements(0, 0, kDefaultValueMax);
  if (failed(shape))
    return failure();
  RewriterBase &rw = node.getRewriter();
  auto value = node.getOp().getSourceAttributes().getAs<DenseElementsAttr>("value");
  if (!value)
    value = DenseElementsAttr::get(RankedTensorType::get({1}, rw.getF32Type()),
                                   rw.getF32FloatAttr(0.0f));
  if (value.getNumElements() != 1)
    return node.fail("value must have one element");
  return Values{buildFilled(node, *shape, value)};
}

/// Range whose bounds are known only at run time: the count
/// ceil((limit - start) / delta) computed in floats by the graph and read as a
/// symbol after the step computing it (format 1.8), its maximum with 0 the
/// length; the elements start + i * delta for i below it.
FailureOr<Value> rangeAtRuntime(ForeignNode &node, Type element) {
  RewriterBase &rw = node.getRewriter();
  // The count in f64 (exact for integers below 2^53); half-precision bounds
  // in f32, which they convert to directly.
  Type i64 = rw.getI64Type();
  Type wideType =
      isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32
          ? Type(rw.getF32Type())
          : Type(rw.getF64Type());
  SmallVector<Value> scalars, wide;
  for (unsigned i = 0; i < 3; ++i) {
    auto bound = node.input(i);
    if (failed(bound))
      return failure();
    if (bound->getType().getNumElements() != 1)
      return node.fail("start, limit and delta must be scalars");
    scalars.push_back(node.reshape(*bound, {}));
    wide.push_back(castTo(node, scalars.back(), wideType));
  }
  FailureOr<Value> span = node.create<SubOp>({wide[1], wide[0]});
  if (failed(span))
    return failure();
  FailureOr<Value> steps = node.create<DivOp>({*span, wide[2]});
  if (failed(steps))
    return failure();
  Value up = CeilOp::create(rw, node.getLoc(), steps->getType(), *steps);
  Value count = node.reshape(castTo(node, up, i64), {rw.getIndexAttr(1)});
  FailureOr<SmallVector<Value>> read = node.readElements(
      count, node.getName() + ": count", -(int64_t(1) << 40), int64_t(1) << 40);
  if (failed(read))
    return failure();
  IndexMath im{rw, node.getLoc()};
  Value length = node.defineSymbol("length", im.max(read->front(), im.c(0)), 0,
                                   kDefaultValueMax);
  FailureOr<Value> positions =
      buildRange(node, i64, {rw.getIndexAttr(0), length, rw.getIndexAttr(1)});
  if (failed(positions))
    return failure();
  FailureOr<Value> offsets =
      node.create<MulOp>({castTo(node, *positions, element), scalars[2]});
  if (failed(offsets))
    return failure();
  return node.create<AddOp>({*offsets, scalars[0]});
}

/// An integer Range from a constant start by a constant positive delta to a
/// limit read at run time (`arange(0, n)` of a size the model takes as data):
/// the limit is a symbol of its own, shared with every other read of the
/// same element (a ConstantOfShape of the same size), so that the range's
/// length, (limit - start) / delta rounded up, is an expression of it that
/// other shapes match. The limit is read in [start, start + delta *
/// kDefaultValueMax], as the range's shape rule takes the limit to be at
/// least the start: a run asking for an empty range by a limit below the
/// start fails naming the symbol. Nullopt when the node is not of that form
/// (rangeAtRuntime then counts in floats).
std::optional<FailureOr<Value>> rangeOfRuntimeLimit(ForeignNode &node,
                                                    Type element) {
  if (!isa<IntegerType>(element) || !node.isRuntimeInts(1))
    return std::nullopt;
  std::optional<SmallVector<OpFoldResult>> start =
      getShapeElements(node.getOp().getInputs()[0]);
  std::optional<SmallVector<OpFoldResult>> delta =
      getShapeElements(node.getOp().getInputs()[2]);
  if (!start || !delta || start->size() != 1 || delta->size() != 1)
    return std::nullopt;
  std::optional<int64_t> from = getConstantIntValue(start->front());
  std::optional<int64_t> step = getConstantIntValue(delta->front());
  if (!from || !step || *step <= 0 || std::abs(*from) > (int64_t(1) << 40) ||
      *step > (int64_t(1) << 20))
    return std::nullopt;
  FailureOr<SmallVector<Value>> limit =
      node.runtimeInts(1, *from, *from + *step * kDefaultValueMax);
  if (failed(limit))
    return FailureOr<Value>(failure());
  if (limit->size() != 1)
    return FailureOr<Value>(node.fail("limit must be a scalar"));
  RewriterBase &rw = node.getRewriter();
  return buildRange(
      node, element,
      {rw.getIndexAttr(*from), limit->front(), rw.getIndexAttr(*step)});
}

FailureOr<Values> convertRange(ForeignNode &node) {
  // Start, limit and delta, read by index below. The importer counts every
  // standard node's inputs (OnnxArity.h); this stays for a node it does not
  // see as one (a model-local function's body).
  if (node.getNumInputs() != 3)
    return node.fail("Range takes 3 inputs (start, limit, delta); the node "
                     "gives " +
                     Twine(node.getNumInputs()));
  auto start = node.input(0);
  if (failed(start))
    return failure();
  Type element = start->getType().getElementType();
  bool known = llvm::all_of(llvm::seq(0u, 3u), [&](unsigned i) {
    Value bound = node.getOp().getInputs()[i];
    return isa<IntegerType>(element) ? getShapeElements(bound).has_value()
                                     : matchPattern(bound, m_Constant());
  });
  if (!known && node.isSettled() &&
      llvm::none_of(node.getOp().getInputs(), [](Value bound) {
        return bound.getDefiningOp<ForeignOp>();
      })) {
    if (std::optional<FailureOr<Value>> counted =
            rangeOfRuntimeLimit(node, element))
      return results(*counted);
    return results(rangeAtRuntime(node, element));
  }
  SmallVector<OpFoldResult> bounds;
  for (unsigned i = 0; i < 3; ++i) {
    if (isa<IntegerType>(element)) {
      FailureOr<SmallVector<OpFoldResult>> e = node.shapeElements(i);
      if (failed(e) || e->size() != 1)
        return node.fail("start, limit and delta must be scalars");
      bounds.push_back((*e)[0]);
    } else {
      FailureOr<double> c = node.constantScalar(i);
      if (failed(c))
        return failure();
      bounds.push_back(node.getRewriter().getF64FloatAttr(*c));
    }
  }
  return results(buildRange(node, element, bounds));
}

/// Trilu with `k` given at run time: keep x[..., i, j] where j - i >= k
/// (upper) or j - i <= k (lower), zero elsewhere.
FailureOr<Values> triluOfRuntimeK(ForeignNode &node,
                                  TypedValue<RankedTensorType> x) {
  auto k = node.input(1);
  if (failed(k))
    return failure();
  if (k->getType().getNumElements() != 1)
    return node.fail("k must be a scalar");
  RewriterBase &rw = node.getRewriter();
  Type i64 = rw.getI64Type();
  int64_t rank = x.getType().getRank();
  Attribute zero = rw.getIndexAttr(0), one = rw.getIndexAttr(1);
  FailureOr<Value> rows =
      buildRange(node, i64, {zero, node.dimSize(x, rank - 2), one});
  FailureOr<Value> cols =
      buildRange(node, i64, {zero, node.dimSize(x, rank - 1), one});
  if (failed(rows) || failed(cols))
    return failure();
  Value column = node.reshape(*rows, {node.dimSize(*rows, 0), one});
  FailureOr<Value> offset = node.create<SubOp>({*cols, column});
  if (failed(offset))
    return failure();
  Value kScalar = castTo(node, node.reshape(*k, {}), i64);
  FailureOr<Value> keep =
      node.getInt("upper", 1) ? node.create<GreaterEqualOp>({*offset, kScalar})
                              : node.create<LessEqualOp>({*offset, kScalar});
  if (failed(keep))
    return failure();
  return results(node.create<WhereOp>(
      {*keep, x, node.scalar(x.getType().getElementType(), 0.0)}));
}

FailureOr<Values> convertTrilu(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (x->getType().getRank() < 2)
    return node.fail("Trilu needs rank >= 2");
  if (node.hasInput(1) &&
      !matchPattern(node.getOp().getInputs()[1], m_Constant()))
    return triluOfRuntimeK(node, *x);
  int64_t k = 0;
  if (node.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(1);
    if (failed(values) || values->size() != 1)
      return node.fail("k must be a constant scalar");
    k = values->front();
  }
  RewriterBase &rw = node.getRewriter();
  return Values{TriluOp::create(
      rw, node.getLoc(), *x,
      node.getInt("upper", 1) ? rw.getUnitAttr() : UnitAttr(),
      rw.getI64IntegerAttr(k))};
}

} // namespace

void fromonnx::populateShapeConverters(ForeignConverters &c) {
  c.add("Reshape", 5, convertReshape);
  c.add("Transpose", 1, convertTranspose);
  c.add("Gather", 11, convertGather);
  c.add("Concat", 11, convertConcat);
  c.add("Slice", 10, convertSlice);
  c.add("Split", 11, convertSplit);
  c.add("Squeeze", 1, convertSqueeze);
  c.add("Unsqueeze", 1, convertUnsqueeze);
  c.add("Expand", 8, convertExpand);
  c.add("Shape", 1, convertShape);
  c.add("Size", 1, convertSize);
  c.add("ConstantOfShape", 9, convertConstantOfShape);
  c.add("Range", 11, convertRange);
  c.add("Trilu", 14, convertTrilu);
}
