//===- DataDependent.cpp - outputs whose size only a run knows ------------===//
//
// NonZero, Compress and Unique select elements by a mask the model computes,
// so the size of their result is a count known only when the model runs. The
// count is a tsc.symbol read from the value computing it, right after its step
// (format 1.8, "Symbols from computed values"), with the range [0, the
// mask's length]: the memory planner plans every buffer after it at that
// bound, and a run checks the count against the range (it cannot exceed it:
// it is a sum of the mask's 0/1 flags) before any later step uses it. The
// selected positions come from a TopK over keys that put the selected ones
// first, in order; every op is one the graph already has, so both targets
// run them.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/Compose.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::foreign;
using namespace mlir::tsc::fromonnx;

namespace {

using Values = SmallVector<Value>;

/// 0, 1, ..., n - 1 as i64 [n].
FailureOr<Value> iota(ForeignNode &node, int64_t n) {
  RewriterBase &rw = node.getRewriter();
  return buildRange(node, rw.getI64Type(),
                    {rw.getI64IntegerAttr(0), rw.getI64IntegerAttr(n),
                     rw.getI64IntegerAttr(1)});
}

/// A tsc.top_k of all of `x`'s elements along `axis`, largest first (equal
/// ones in index order): its values and indices.
FailureOr<Operation *> sortLargestFirst(ForeignNode &node, Value x,
                                        int64_t axis) {
  RewriterBase &rw = node.getRewriter();
  TopKOp::Properties properties;
  properties.k = rw.getI64IntegerAttr(
      cast<RankedTensorType>(x.getType()).getDimSize(axis));
  properties.axis = rw.getI64IntegerAttr(axis);
  SmallVector<Type> types;
  if (failed(TopKOp::inferReturnTypes(
          node.getContext(), node.getLoc(),
          TopKOp::Adaptor(ValueRange{x}, DictionaryAttr(), properties, {}),
          types)))
    return node.fail("cannot infer the sort's result types");
  OperationState state(node.getLoc(), TopKOp::getOperationName());
  state.addOperands(x);
  state.addTypes(types);
  state.useProperties(properties);
  return rw.create(state);
}

/// The positions (i64 [count]) where `flags` (i1 [L], L static) holds, in
/// increasing `order` (i64 [L], distinct where selected; the position when
/// null); `count` is a symbol named after `what` in [0, L].
FailureOr<Value> selectedPositions(ForeignNode &node, Value flags,
                                   const Twine &what, Value order = {}) {
  RewriterBase &rw = node.getRewriter();
  Type i64 = rw.getI64Type();
  int64_t length = cast<RankedTensorType>(flags.getType()).getDimSize(0);
  // No flags, no positions (a slice of an empty sort would start out of
  // bounds).
  if (length == 0) {
    Value none = ConstantOp::create(
        rw, node.getLoc(),
        DenseElementsAttr::get(RankedTensorType::get({0}, i64),
                               ArrayRef<int64_t>()));
    return none;
  }
  if (!order) {
    FailureOr<Value> range = iota(node, length);
    if (failed(range))
      return failure();
    order = *range;
  }
  // Key L - order where selected, 0 elsewhere: the selected come first in a
  // largest-first sort, in increasing order, and no key ties among them.
  FailureOr<Value> keys =
      node.create<SubOp>({node.scalar(i64, double(length)), order});
  if (failed(keys))
    return failure();
  keys = node.create<WhereOp>({flags, *keys, node.scalar(i64, 0.0)});
  if (failed(keys))
    return failure();
  ReduceSumOp::Properties sum;
  sum.dims = rw.getDenseI64ArrayAttr({0});
  FailureOr<Value> total =
      node.create<ReduceSumOp>({castTo(node, flags, i64)}, sum);
  if (failed(total))
    return failure();
  FailureOr<SmallVector<Value>> count =
      node.readElements(*total, node.getName() + ": " + what.str(), 0, length);
  if (failed(count))
    return failure();

  FailureOr<Operation *> sort = sortLargestFirst(node, *keys, 0);
  if (failed(sort))
    return failure();
  Value sorted = (*sort)->getResult(1);
  return buildSliceOp(node, cast<TypedValue<RankedTensorType>>(sorted),
                      {rw.getIndexAttr(0)}, {count->front()},
                      {rw.getIndexAttr(1)});
}

/// `x` flattened to 1-D.
Value flatten(ForeignNode &node, TypedValue<RankedTensorType> x) {
  return node.reshape(
      x, {node.getRewriter().getIndexAttr(x.getType().getNumElements())});
}

/// The axis attribute of Compress and Unique, normalized against `data`;
/// without one, `data` becomes itself flattened and the axis 0.
FailureOr<int64_t> selectionAxis(ForeignNode &node,
                                 TypedValue<RankedTensorType> &data) {
  if (node.hasAttr("axis"))
    return node.axis(node.getInt("axis", 0), data.getType().getRank());
  data = cast<TypedValue<RankedTensorType>>(flatten(node, data));
  return 0;
}

/// NonZero: the indices [rank, count] of x's nonzero elements in row-major
/// order (NaN counts as nonzero).
FailureOr<Values> convertNonZero(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  if (!type.hasStaticShape() || type.getRank() == 0)
    return node.fail("NonZero needs an input of static shape and rank >= 1 "
                     "(its count is bounded by the element count)");
  Type i64 = node.getRewriter().getI64Type();
  // An empty input (a dim of 0) has no nonzero elements: [rank, 0].
  if (type.getNumElements() == 0) {
    auto empty = RankedTensorType::get({type.getRank(), 0}, i64);
    Value none =
        ConstantOp::create(node.getRewriter(), node.getLoc(),
                           DenseElementsAttr::get(empty, ArrayRef<int64_t>()));
    return results(none);
  }
  Value flat = flatten(node, *x);
  Value flags = flat;
  if (!type.getElementType().isInteger(1)) {
    FailureOr<Value> zero =
        node.create<EqualOp>({flat, node.scalar(type.getElementType(), 0.0)});
    if (failed(zero))
      return failure();
    flags = NotOp::create(node.getRewriter(), node.getLoc(), *zero);
  }
  FailureOr<Value> positions = selectedPositions(node, flags, "count");
  if (failed(positions))
    return failure();
  OpFoldResult count = node.dimSize(*positions, 0);
  RewriterBase &rw = node.getRewriter();
  SmallVector<Value> rows;
  int64_t stride = type.getNumElements();
  for (int64_t n : type.getShape()) {
    // (position / stride) mod n, without a division by 1 or a modulo that
    // cannot wrap (the first dim). Every n is at least 1 here (an empty
    // input returned above: fuzzing found the stride divided by its 0).
    FailureOr<Value> row = *positions;
    if ((stride /= n) != 1)
      row = node.create<DivOp>({*row, node.scalar(i64, double(stride))});
    if (succeeded(row) && !rows.empty())
      row = node.create<ModOp>({*row, node.scalar(i64, double(n))});
    if (failed(row))
      return failure();
    rows.push_back(node.reshape(*row, {rw.getIndexAttr(1), count}));
  }
  ConcatOp::Properties properties;
  properties.axis = rw.getI64IntegerAttr(0);
  return results(node.create<ConcatOp>(rows, properties));
}

/// Compress: the slices of x along `axis` (x flattened without it) where the
/// 1-D condition holds; a condition shorter than the axis selects among its
/// first elements.
FailureOr<Values> convertCompress(ForeignNode &node) {
  auto x = node.input(0);
  auto condition = node.input(1);
  if (failed(x) || failed(condition))
    return failure();
  if (!x->getType().hasStaticShape() ||
      !condition->getType().hasStaticShape() ||
      condition->getType().getRank() != 1)
    return node.fail("Compress needs an input of static shape and a 1-D "
                     "condition of static length (the count is bounded by "
                     "the condition's length)");
  TypedValue<RankedTensorType> data = *x;
  FailureOr<int64_t> axis = selectionAxis(node, data);
  if (failed(axis))
    return failure();
  int64_t length = condition->getType().getDimSize(0);
  if (length > data.getType().getDimSize(*axis))
    return node.fail("the condition's " + Twine(length) +
                     " elements exceed the axis's " +
                     Twine(data.getType().getDimSize(*axis)));
  Value flags = castTo(node, *condition, node.getRewriter().getI1Type());
  FailureOr<Value> positions = selectedPositions(node, flags, "selected");
  if (failed(positions))
    return failure();
  return results(buildGather(
      node, data, cast<TypedValue<RankedTensorType>>(*positions), *axis));
}

/// The most elements Unique compares (its comparisons are quadratic in the
/// number of slices): 2^24.
constexpr int64_t kUniqueComparisons = int64_t(1) << 24;

/// Unique: the distinct slices of x along `axis` (elements of x flattened
/// without it), sorted (lexicographically for slices) or in order of first
/// occurrence, with the index of each one's first occurrence, each slice's
/// index in the result, and each one's count. Every pair of slices is
/// compared, so the node is refused past kUniqueComparisons elements.
FailureOr<Values> convertUnique(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (!x->getType().hasStaticShape() || x->getType().getRank() == 0)
    return node.fail("Unique needs an input of static shape and rank >= 1 "
                     "(its count is bounded by the number of slices)");
  RewriterBase &rw = node.getRewriter();
  Type i64 = rw.getI64Type();
  TypedValue<RankedTensorType> data = *x;
  FailureOr<int64_t> axis = selectionAxis(node, data);
  if (failed(axis))
    return failure();
  int64_t n = data.getType().getDimSize(*axis);
  int64_t m = data.getType().getNumElements() / std::max<int64_t>(n, 1);
  if (n * n * std::max<int64_t>(m, 1) > kUniqueComparisons)
    return node.fail("Unique compares every pair of its " + Twine(n) +
                     " slices of " + Twine(m) + " elements: more than " +
                     Twine(kUniqueComparisons) + " comparisons");
  // The slices as rows [n, m].
  Value rows = data;
  if (*axis != 0) {
    SmallVector<int64_t> perm = {*axis};
    for (int64_t d = 0; d < data.getType().getRank(); ++d)
      if (d != *axis)
        perm.push_back(d);
    FailureOr<Value> moved = node.transpose(data, perm);
    if (failed(moved))
      return failure();
    rows = *moved;
  }
  auto size = [&](int64_t v) -> OpFoldResult { return rw.getIndexAttr(v); };
  Value a = node.reshape(rows, {size(n), size(1), size(m)});
  Value b = node.reshape(rows, {size(1), size(n), size(m)});
  auto reduce = [&](auto tag, Value v, int64_t dim) -> FailureOr<Value> {
    using OpTy = decltype(tag);
    typename OpTy::Properties properties;
    properties.dims = rw.getDenseI64ArrayAttr({dim});
    return node.create<OpTy>({castTo(node, v, i64)}, properties);
  };
  // same[i, j]: slices i and j are equal (elementwise in `equal`).
  FailureOr<Value> equal = node.create<EqualOp>({a, b});
  if (failed(equal))
    return failure();
  FailureOr<Value> same = reduce(ReduceMinOp(), *equal, 2);
  FailureOr<Value> index = iota(node, n);
  if (failed(same) || failed(index))
    return failure();
  Value column = node.reshape(*index, {size(1), size(n)});
  Value row = node.reshape(*index, {size(n), size(1)});
  // first[i]: no earlier slice equals slice i.
  FailureOr<Value> earlier = node.create<LessOp>({column, row});
  if (failed(earlier))
    return failure();
  FailureOr<Value> repeats =
      node.create<MulOp>({*same, castTo(node, *earlier, i64)});
  if (failed(repeats))
    return failure();
  repeats = reduce(ReduceMaxOp(), *repeats, 1);
  if (failed(repeats))
    return failure();
  FailureOr<Value> first =
      node.create<EqualOp>({*repeats, node.scalar(i64, 0.0)});
  if (failed(first))
    return failure();
  // before[k, j]: slice j comes before slice k's value in the result.
  FailureOr<Value> before;
  if (node.getInt("sorted", 1)) {
    // Lexicographic: at the first element where they differ, j's is less.
    FailureOr<Value> less = node.create<LessOp>({b, a});
    if (failed(less))
      return failure();
    Value differ =
        castTo(node, NotOp::create(rw, node.getLoc(), *equal).getResult(), i64);
    auto differences =
        CumSumOp::create(rw, node.getLoc(), differ.getType(), differ, Value(),
                         rw.getI64IntegerAttr(2), rw.getUnitAttr(), UnitAttr());
    if (failed(node.verifyCreated(differences)))
      return failure();
    FailureOr<Value> prefixEqual =
        node.create<EqualOp>({differences.getResult(), node.scalar(i64, 0.0)});
    if (failed(prefixEqual))
      return failure();
    FailureOr<Value> decides = node.create<AndOp>({*less, *prefixEqual});
    if (failed(decides))
      return failure();
    before = reduce(ReduceMaxOp(), *decides, 2);
  } else {
    // Order of first occurrence: j is first and lies before k's first
    // occurrence, min over equal slices of their index.
    FailureOr<Value> notSame =
        node.create<SubOp>({node.scalar(i64, 1.0), *same});
    if (failed(notSame))
      return failure();
    FailureOr<Value> far =
        node.create<MulOp>({*notSame, node.scalar(i64, double(n))});
    FailureOr<Value> at = node.create<MulOp>({*same, column});
    if (failed(far) || failed(at))
      return failure();
    FailureOr<Value> candidates = node.create<AddOp>({*at, *far});
    if (failed(candidates))
      return failure();
    FailureOr<Value> occurrence = reduce(ReduceMinOp(), *candidates, 1);
    if (failed(occurrence))
      return failure();
    before = node.create<LessOp>(
        {column, node.reshape(*occurrence, {size(n), size(1)})});
  }
  if (failed(before))
    return failure();
  FailureOr<Value> counted = node.create<MulOp>(
      {castTo(node, *before, i64),
       node.reshape(castTo(node, *first, i64), {size(1), size(n)})});
  if (failed(counted))
    return failure();
  FailureOr<Value> inverse = reduce(ReduceSumOp(), *counted, 1);
  FailureOr<Value> counts = reduce(ReduceSumOp(), *same, 1);
  if (failed(inverse) || failed(counts))
    return failure();
  FailureOr<Value> positions =
      selectedPositions(node, *first, "unique count", *inverse);
  if (failed(positions))
    return failure();
  auto picked = cast<TypedValue<RankedTensorType>>(*positions);
  FailureOr<Value> y = buildGather(node, data, picked, *axis);
  FailureOr<Value> pickedCounts =
      buildGather(node, cast<TypedValue<RankedTensorType>>(*counts), picked, 0);
  if (failed(y) || failed(pickedCounts))
    return failure();
  return Values{*y, *positions, *inverse, *pickedCounts};
}

/// The most boxes NonMaxSuppression takes per batch: its greedy selection
/// is unrolled, one step (a dozen ops over [batches, classes, boxes]) per
/// box in score order.
constexpr int64_t kSuppressionBoxes = 128;

/// Input `i` of NonMaxSuppression (a 1-element tensor) as a rank-0 value of
/// `element`, or `fallback` (a constant) when it is omitted.
MaybeValue suppressionScalar(ForeignNode &node, unsigned i, Type element,
                             double fallback) {
  if (!node.hasInput(i))
    return node.scalar(element, fallback);
  auto x = node.input(i);
  if (failed(x))
    return failure();
  if (!x->getType().hasStaticShape() || x->getType().getNumElements() != 1)
    return node.fail("input #" + Twine(i) + " must hold one element");
  return castTo(node, node.reshape(*x, ArrayRef<OpFoldResult>{}), element);
}

/// NonMaxSuppression (opset 10/11): per batch and class, the boxes whose
/// score passes score_threshold (strictly, when given), visited by
/// decreasing score (equal scores by increasing index, as ONNX's reference
/// and ONNX Runtime order them), each kept unless its IoU with a kept box
/// exceeds iou_threshold (strictly; boxes without area or intersection never
/// suppress), at most max_output_boxes_per_class of them. The output
/// [count, 3] lists (batch, class, box) by batch, class and score; count
/// is a run-time symbol in [0, batches * classes * boxes].
FailureOr<Values> convertNonMaxSuppression(ForeignNode &node) {
  auto boxes = node.input(0);
  auto scores = node.input(1);
  if (failed(boxes) || failed(scores))
    return failure();
  RankedTensorType boxType = boxes->getType(), scoreType = scores->getType();
  if (!boxType.hasStaticShape() || !scoreType.hasStaticShape() ||
      boxType.getRank() != 3 || boxType.getDimSize(2) != 4 ||
      scoreType.getRank() != 3)
    return node.fail("NonMaxSuppression needs boxes [batches, boxes, 4] and "
                     "scores [batches, classes, boxes] of static shape (the "
                     "selected count is bounded by their sizes)");
  int64_t batches = boxType.getDimSize(0), count = boxType.getDimSize(1),
          classes = scoreType.getDimSize(1);
  if (scoreType.getDimSize(0) != batches || scoreType.getDimSize(2) != count)
    return node.fail("scores must be [" + Twine(batches) + ", classes, " +
                     Twine(count) + "] to match the boxes");
  if (count > kSuppressionBoxes)
    return node.fail("NonMaxSuppression selects greedily, one unrolled step "
                     "per box: " +
                     Twine(count) + " boxes exceed the bound of " +
                     Twine(kSuppressionBoxes));
  RewriterBase &rw = node.getRewriter();
  Type f32 = rw.getF32Type(), i64 = rw.getI64Type();
  MaybeValue limit = suppressionScalar(node, 2, i64, 0);
  MaybeValue iouThreshold = suppressionScalar(node, 3, f32, 0);
  if (failed(limit) || failed(iouThreshold))
    return failure();

  // Boxes by decreasing score per batch and class: order [B, C, N].
  FailureOr<Operation *> sorted = sortLargestFirst(node, *scores, 2);
  if (failed(sorted))
    return failure();
  Value sortedScores = castTo(node, (*sorted)->getResult(0), f32);
  auto order = cast<TypedValue<RankedTensorType>>((*sorted)->getResult(1));

  // Each box's extent along x and y, [B, C, N] in score order.
  auto size = [&](int64_t v) -> OpFoldResult { return rw.getIndexAttr(v); };
  Value corners = castTo(node, *boxes, f32);
  auto coordinate = [&](int64_t k) -> MaybeValue {
    MaybeValue c = insertDim(node, entry(node, corners, k, 2), 1);
    if (failed(c))
      return failure();
    FailureOr<Value> wide =
        buildExpand(node, cast<TypedValue<RankedTensorType>>(*c),
                    {size(batches), size(classes), size(count)});
    if (failed(wide))
      return failure();
    GatherElementsOp::Properties gather;
    gather.axis = rw.getI64IntegerAttr(2);
    return node.create<GatherElementsOp>({*wide, order}, gather);
  };
  MaybeValue c0 = coordinate(0), c1 = coordinate(1), c2 = coordinate(2),
             c3 = coordinate(3);
  MaybeValue xMin, xMax, yMin, yMax;
  if (node.getInt("center_point_box", 0)) {
    // [x_center, y_center, width, height].
    MaybeValue halfWidth = binary<DivOp>(node, c2, node.scalar(f32, 2.0));
    MaybeValue halfHeight = binary<DivOp>(node, c3, node.scalar(f32, 2.0));
    xMin = binary<SubOp>(node, c0, halfWidth);
    xMax = binary<AddOp>(node, c0, halfWidth);
    yMin = binary<SubOp>(node, c1, halfHeight);
    yMax = binary<AddOp>(node, c1, halfHeight);
  } else {
    // [y1, x1, y2, x2], either corner first.
    xMin = binary<MinOp>(node, c1, c3);
    xMax = binary<MaxOp>(node, c1, c3);
    yMin = binary<MinOp>(node, c0, c2);
    yMax = binary<MaxOp>(node, c0, c2);
  }

  // suppresses[b, c, j, i]: kept box j (rows) suppresses box i (columns).
  auto rows = [&](MaybeValue v) { return insertDim(node, v, 3); };
  auto columns = [&](MaybeValue v) { return insertDim(node, v, 2); };
  MaybeValue lowX = binary<MaxOp>(node, rows(xMin), columns(xMin));
  MaybeValue highX = binary<MinOp>(node, rows(xMax), columns(xMax));
  MaybeValue lowY = binary<MaxOp>(node, rows(yMin), columns(yMin));
  MaybeValue highY = binary<MinOp>(node, rows(yMax), columns(yMax));
  MaybeValue intersection = binary<MulOp>(
      node, binary<SubOp>(node, highX, lowX), binary<SubOp>(node, highY, lowY));
  MaybeValue area = binary<MulOp>(node, binary<SubOp>(node, xMax, xMin),
                                  binary<SubOp>(node, yMax, yMin));
  MaybeValue candidateArea = columns(area), keptArea = rows(area);
  MaybeValue unionArea = binary<SubOp>(
      node, binary<AddOp>(node, candidateArea, keptArea), intersection);
  MaybeValue zero = node.scalar(f32, 0.0);
  MaybeValue suppresses = binary<AndOp>(
      node,
      binary<AndOp>(node, binary<GreaterOp>(node, highX, lowX),
                    binary<GreaterOp>(node, highY, lowY)),
      binary<AndOp>(node, binary<GreaterOp>(node, intersection, zero),
                    binary<GreaterOp>(node, unionArea, zero)));
  suppresses = binary<AndOp>(
      node, suppresses,
      binary<AndOp>(node, binary<GreaterOp>(node, candidateArea, zero),
                    binary<GreaterOp>(node, keptArea, zero)));
  suppresses = binary<AndOp>(
      node, suppresses,
      binary<GreaterOp>(node, binary<DivOp>(node, intersection, unionArea),
                        iouThreshold));
  if (failed(suppresses))
    return failure();
  Value suppressing = castTo(node, *suppresses, i64);

  // Candidates: every box, or those scoring above score_threshold.
  MaybeValue candidates = node.scalar(i64, 1.0);
  if (node.hasInput(4)) {
    MaybeValue threshold = suppressionScalar(node, 4, f32, 0);
    candidates = binary<GreaterOp>(node, sortedScores, threshold);
    if (failed(candidates))
      return failure();
    candidates = castTo(node, *candidates, i64);
  }

  // The greedy pass in score order: kept[b, c, t] (0/1) for t < step.
  Value kept =
      buildFilled(node, {size(batches), size(classes), size(count)},
                  DenseElementsAttr::get(RankedTensorType::get({}, i64),
                                         rw.getZeroAttr(i64)));
  FailureOr<Value> positions = iota(node, count);
  if (failed(positions))
    return failure();
  MaybeValue one = node.scalar(i64, 1.0);
  for (int64_t t = 0; t < count; ++t) {
    MaybeValue blocked = reduce<ReduceMaxOp>(
        node, binary<MulOp>(node, kept, entry(node, suppressing, t, 3)), {2},
        false);
    MaybeValue room = binary<LessOp>(
        node, reduce<ReduceSumOp>(node, kept, {2}, false), limit);
    if (failed(room))
      return failure();
    room = castTo(node, *room, i64);
    MaybeValue candidate =
        node.hasInput(4) ? entry(node, candidates, t, 2) : candidates;
    MaybeValue keep = binary<MulOp>(node, binary<MulOp>(node, candidate, room),
                                    binary<SubOp>(node, one, blocked));
    MaybeValue at =
        binary<EqualOp>(node, *positions, node.scalar(i64, double(t)));
    if (failed(at))
      return failure();
    at = castTo(node, *at, i64);
    MaybeValue next = binary<AddOp>(
        node, kept, binary<MulOp>(node, insertDim(node, keep, 2), at));
    if (failed(next))
      return failure();
    kept = *next;
  }

  // The kept boxes in row-major order of [B, C, N]: batch, class, score.
  Value flags =
      castTo(node, flatten(node, cast<TypedValue<RankedTensorType>>(kept)),
             rw.getI1Type());
  FailureOr<Value> selected = selectedPositions(node, flags, "selected boxes");
  if (failed(selected))
    return failure();
  OpFoldResult selectedCount = node.dimSize(*selected, 0);
  MaybeValue batch =
      binary<DivOp>(node, *selected, node.scalar(i64, double(classes * count)));
  MaybeValue klass = binary<ModOp>(
      node, binary<DivOp>(node, *selected, node.scalar(i64, double(count))),
      node.scalar(i64, double(classes)));
  FailureOr<Value> box = buildGather(
      node, cast<TypedValue<RankedTensorType>>(flatten(node, order)),
      cast<TypedValue<RankedTensorType>>(*selected), 0);
  if (failed(batch) || failed(klass) || failed(box))
    return failure();
  SmallVector<Value> columnsOut;
  for (Value v : {*batch, *klass, *box})
    columnsOut.push_back(node.reshape(v, {selectedCount, size(1)}));
  return results(concat(node, columnsOut, 1));
}

} // namespace

void mlir::tsc::fromonnx::populateDataDependentConverters(
    ForeignConverters &c) {
  c.add("NonZero", 9, convertNonZero);
  c.add("Compress", 9, convertCompress);
  c.add("Unique", 11, convertUnique);
  c.add("NonMaxSuppression", 10, convertNonMaxSuppression);
}
