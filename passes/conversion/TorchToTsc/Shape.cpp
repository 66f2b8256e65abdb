//===- Shape.cpp - TorchScript views, slices, joins and factories ---------===//

#include "passes/conversion/TorchToTsc/TorchToTsc.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::foreign;
using namespace mlir::tsc::fromtorch;

namespace {

/// The dim argument at `i`, normalized against `rank`.
FailureOr<int64_t> dimArg(ForeignNode &node, unsigned i, int64_t rank) {
  FailureOr<int64_t> dim = intArg(node, i);
  if (failed(dim))
    return failure();
  return node.axis(*dim, rank);
}

/// `x` with size-1 dims inserted at (or removed from) `dims`.
template <typename OpTy>
FailureOr<Value> reshapeDims(ForeignNode &node, Value x,
                             ArrayRef<int64_t> dims) {
  typename OpTy::Properties properties;
  properties.dims = node.getRewriter().getDenseI64ArrayAttr(dims);
  return node.create<OpTy>({x}, properties);
}
constexpr auto unsqueeze = reshapeDims<UnsqueezeOp>;
constexpr auto squeeze = reshapeDims<SqueezeOp>;

/// A scalar size argument (constant or computed from dims).
FailureOr<OpFoldResult> sizeArg(ForeignNode &node, unsigned i) {
  FailureOr<SmallVector<OpFoldResult>> elements = node.shapeElements(i);
  if (failed(elements))
    return failure();
  if (elements->size() != 1)
    return node.fail("argument #" + Twine(i) + " must be an int");
  return elements->front();
}

/// view, reshape: -1 is inferred, 0 is a zero-size dim.
FailureOr<Values> convertView(ForeignNode &node) {
  auto x = node.input(0);
  FailureOr<SmallVector<OpFoldResult>> shape = node.shapeElements(1);
  if (failed(x) || failed(shape))
    return failure();
  return results(buildReshape(node, *x, *shape, /*zeroCopiesDim=*/false));
}

/// flatten(x, start_dim, end_dim).
FailureOr<Values> convertFlatten(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  if (rank == 0)
    return Values{node.reshape(*x, {node.getRewriter().getIndexAttr(1)})};
  FailureOr<int64_t> start = dimArg(node, 1, rank);
  FailureOr<int64_t> end = dimArg(node, 2, rank);
  if (failed(start) || failed(end))
    return failure();
  SmallVector<OpFoldResult> sizes = node.sizes(*x), flat;
  for (int64_t d = 0; d < rank; ++d) {
    if (d > *start && d <= *end)
      flat.back() = node.multiply(flat.back(), sizes[d]);
    else
      flat.push_back(sizes[d]);
  }
  return Values{node.reshape(*x, flat)};
}

FailureOr<Values> convertTranspose(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (node.getOp().getOpType() == "t") {
    if (rank == 2)
      std::swap(perm[0], perm[1]);
  } else {
    FailureOr<int64_t> a = dimArg(node, 1, rank);
    FailureOr<int64_t> b = dimArg(node, 2, rank);
    if (failed(a) || failed(b))
      return failure();
    std::swap(perm[*a], perm[*b]);
  }
  return results(node.transpose(*x, perm));
}

FailureOr<Values> convertPermute(ForeignNode &node) {
  auto x = node.input(0);
  FailureOr<SmallVector<int64_t>> dims = node.constantInts(1);
  if (failed(x) || failed(dims))
    return failure();
  int64_t rank = x->getType().getRank();
  if (static_cast<int64_t>(dims->size()) != rank)
    return node.fail("permutation of " + Twine(dims->size()) +
                     " dims for a rank-" + Twine(rank) + " tensor");
  SmallVector<int64_t> perm;
  for (int64_t d : *dims) {
    FailureOr<int64_t> axis = node.axis(d, rank);
    if (failed(axis))
      return failure();
    perm.push_back(*axis);
  }
  return results(node.transpose(*x, perm));
}

FailureOr<Values> convertUnsqueeze(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> dim = dimArg(node, 1, x->getType().getRank() + 1);
  if (failed(dim))
    return failure();
  return results(unsqueeze(node, *x, {*dim}));
}

/// squeeze(x) drops every size-1 dim, squeeze(x, dim) that dim if it is 1
/// (and is a no-op otherwise).
FailureOr<Values> convertSqueeze(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  SmallVector<int64_t> dims;
  if (node.getNumInputs() > 1) {
    FailureOr<int64_t> dim = dimArg(node, 1, type.getRank());
    if (failed(dim))
      return failure();
    if (type.isDynamicDim(*dim))
      return node.fail("squeeze of dim " + Twine(*dim) +
                       ", whose size is only known at run time");
    if (type.getDimSize(*dim) == 1)
      dims.push_back(*dim);
  } else {
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.getDimSize(d) == 1)
        dims.push_back(d);
  }
  if (dims.empty())
    return Values{*x};
  return results(squeeze(node, *x, dims));
}

/// expand(x, sizes): -1 keeps the dim; numpy broadcast otherwise.
FailureOr<Values> convertExpand(ForeignNode &node) {
  auto x = node.input(0);
  FailureOr<SmallVector<OpFoldResult>> shape = node.shapeElements(1);
  if (failed(x) || failed(shape))
    return failure();
  RewriterBase &rw = node.getRewriter();
  for (OpFoldResult &size : *shape)
    if (constantOf(size) == -1)
      size = rw.getI64IntegerAttr(1);
  return results(buildExpand(node, *x, *shape));
}

/// numpy_T (`x.T`): the dims reversed.
FailureOr<Values> convertNumpyT(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> perm(
      llvm::reverse(llvm::seq<int64_t>(0, x->getType().getRank())));
  return results(node.transpose(*x, perm));
}

FailureOr<Values> convertExpandAs(ForeignNode &node) {
  auto x = node.input(0);
  auto other = node.input(1);
  if (failed(x) || failed(other))
    return failure();
  return results(buildExpand(node, *x, node.sizes(*other)));
}

/// repeat(x, repeats): x tiled, as torch reads it: `repeats` has at least
/// x's rank entries, and x gains leading dims of size 1 for the extra ones
/// (DeBERTa-v2 repeats its relative position embeddings per batch).
FailureOr<Values> convertRepeat(ForeignNode &node) {
  auto x = node.input(0);
  FailureOr<SmallVector<OpFoldResult>> repeats = node.shapeElements(1);
  if (failed(x) || failed(repeats))
    return failure();
  int64_t rank = x->getType().getRank();
  int64_t extra = static_cast<int64_t>(repeats->size()) - rank;
  if (extra < 0)
    return node.fail("repeats has " + Twine(repeats->size()) +
                     " entries, fewer than the input's " + Twine(rank) +
                     " dims");
  TypedValue<RankedTensorType> widened = *x;
  if (extra) {
    SmallVector<OpFoldResult> shape(extra, node.getRewriter().getIndexAttr(1));
    llvm::append_range(shape, node.sizes(*x));
    widened = cast<TypedValue<RankedTensorType>>(node.reshape(*x, shape));
  }
  return results(buildTile(node, widened, *repeats));
}

/// repeat_interleave(x, repeats, dim): each slice along `dim` repeated
/// `repeats` times in place (grouped-query attention's K/V heads).
FailureOr<Values> convertRepeatInterleave(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (overload(node) != "self_int")
    return node.fail("repeats must be an int");
  FailureOr<int64_t> repeats = intArg(node, 1);
  if (failed(repeats))
    return failure();
  int64_t rank = x->getType().getRank();
  if (!node.hasInput(2))
    return node.fail("repeat_interleave without dim is not supported");
  FailureOr<int64_t> dim = dimArg(node, 2, rank);
  if (failed(dim))
    return failure();
  FailureOr<Value> unsqueezed = unsqueeze(node, *x, {*dim + 1});
  if (failed(unsqueezed))
    return failure();
  SmallVector<OpFoldResult> sizes = node.sizes(*unsqueezed);
  sizes[*dim + 1] = node.getRewriter().getIndexAttr(*repeats);
  FailureOr<Value> expanded = buildExpand(
      node, cast<TypedValue<RankedTensorType>>(*unsqueezed), sizes);
  if (failed(expanded))
    return failure();
  SmallVector<OpFoldResult> merged = node.sizes(*x);
  merged[*dim] = node.multiply(merged[*dim],
                               node.getRewriter().getIndexAttr(*repeats));
  return Values{node.reshape(*expanded, merged)};
}

/// cat(tensors, dim) and stack(tensors, dim).
FailureOr<Values> convertCat(ForeignNode &node) {
  auto tensors = tensorList(node, 0);
  if (failed(tensors))
    return failure();
  bool stack = node.getOp().getOpType() == "stack";
  // cat skips 1-D empty tensors whatever the others' rank (torch's legacy
  // rule; an empty cache of a past key or value).
  if (!stack &&
      llvm::any_of(*tensors, [](auto t) { return t.getType().getRank() > 1; }))
    llvm::erase_if(*tensors, [](auto t) {
      return t.getType().getRank() == 1 && t.getType().getDimSize(0) == 0;
    });
  if (tensors->empty())
    return node.fail("needs at least one tensor");
  int64_t rank = tensors->front().getType().getRank() + (stack ? 1 : 0);
  FailureOr<int64_t> dim = dimArg(node, 1, rank);
  if (failed(dim))
    return failure();
  SmallVector<Value> inputs(tensors->begin(), tensors->end());
  inputs = promoted(node, inputs);
  if (stack) {
    for (Value &input : inputs) {
      FailureOr<Value> unsqueezed = unsqueeze(node, input, {*dim});
      if (failed(unsqueezed))
        return failure();
      input = *unsqueezed;
    }
  }
  ConcatOp::Properties properties;
  properties.axis = node.getRewriter().getI64IntegerAttr(*dim);
  return results(node.create<ConcatOp>(inputs, properties));
}

/// The pieces of `x` along `dim` for split/chunk/unbind, which must be
/// unpacked right away (the importer gives them as the node's results).
FailureOr<Values> splitInto(ForeignNode &node, TypedValue<RankedTensorType> x,
                            int64_t dim, ArrayRef<int64_t> sizes) {
  if (!node.hasAttr("unpacked"))
    return node.fail("its list of pieces is used other than by unpacking "
                     "it (q, k, v = x.split(...))");
  if (sizes.size() != node.getOp().getNumResults())
    return node.fail("gives " + Twine(sizes.size()) + " pieces, unpacked into " +
                     Twine(node.getOp().getNumResults()));
  return buildSplit(node, x, dim, sizes);
}

/// split(x, split_size or sizes, dim), split_with_sizes, chunk(x, n, dim).
FailureOr<Values> convertSplit(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  FailureOr<int64_t> dim = dimArg(node, 2, type.getRank());
  FailureOr<SmallVector<int64_t>> arg = node.constantInts(1);
  if (failed(dim) || failed(arg))
    return failure();
  StringRef op = node.getOp().getOpType();
  // An int split size (0-d) or a count of chunks gives even pieces.
  bool evenPieces =
      op == "chunk" ||
      cast<RankedTensorType>(node.getOp().getInputs()[1].getType()).getRank() ==
          0;
  SmallVector<int64_t> sizes = *arg;
  if (evenPieces) {
    int64_t extent = type.getDimSize(*dim);
    if (ShapedType::isDynamic(extent))
      return node.fail("even split of dim " + Twine(*dim) +
                       ", whose size is only known at run time");
    int64_t n = arg->front();
    if (n <= 0)
      return node.fail("split size or chunk count must be positive");
    int64_t piece = op == "chunk" ? llvm::divideCeil(extent, n) : n;
    sizes.clear();
    for (int64_t offset = 0; offset < extent; offset += piece)
      sizes.push_back(std::min(piece, extent - offset));
  }
  return splitInto(node, *x, *dim, sizes);
}

/// unbind(x, dim): size-1 pieces with the dim squeezed away.
FailureOr<Values> convertUnbind(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  FailureOr<int64_t> dim = dimArg(node, 1, type.getRank());
  if (failed(dim))
    return failure();
  if (type.isDynamicDim(*dim))
    return node.fail("unbind of a dim whose size is only known at run time");
  SmallVector<int64_t> ones(type.getDimSize(*dim), 1);
  FailureOr<Values> pieces = splitInto(node, *x, *dim, ones);
  if (failed(pieces))
    return failure();
  for (Value &piece : *pieces) {
    FailureOr<Value> squeezed = squeeze(node, piece, {*dim});
    if (failed(squeezed))
      return failure();
    piece = *squeezed;
  }
  return pieces;
}

/// slice(x, dim, start, end, step): Python slicing; None start/end are the
/// ends of the dim.
FailureOr<Values> convertSlice(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (overload(node) == "t" || overload(node) == "str")
    return node.fail("slicing lists is not supported");
  RewriterBase &rw = node.getRewriter();
  FailureOr<int64_t> dim = intArg(node, 1);
  FailureOr<int64_t> step =
      node.hasInput(4) ? intArg(node, 4) : FailureOr<int64_t>(1);
  if (failed(dim) || failed(step))
    return failure();
  OpFoldResult start = rw.getI64IntegerAttr(0);
  OpFoldResult end = rw.getI64IntegerAttr(std::numeric_limits<int64_t>::max());
  for (auto [i, bound] : {std::pair<unsigned, OpFoldResult *>{2, &start},
                          {3, &end}}) {
    if (!node.hasInput(i))
      continue;
    FailureOr<OpFoldResult> value = sizeArg(node, i);
    if (failed(value))
      return failure();
    *bound = *value;
  }
  return results(buildSlice(node, *x, {start}, {end}, {*dim}, {*step}));
}

/// narrow(x, dim, start, length) = x[start:start + length] along dim.
FailureOr<Values> convertNarrow(ForeignNode &node) {
  auto x = node.input(0);
  FailureOr<int64_t> dim = intArg(node, 1);
  FailureOr<OpFoldResult> start = sizeArg(node, 2);
  FailureOr<OpFoldResult> length = sizeArg(node, 3);
  if (failed(x) || failed(dim) || failed(start) || failed(length))
    return failure();
  OpFoldResult end;
  std::optional<int64_t> s = constantOf(*start), l = constantOf(*length);
  if (s && l)
    end = node.getRewriter().getI64IntegerAttr(*s + *l);
  else
    end = node.getRewriter().createOrFold<arith::AddIOp>(
        node.getLoc(), node.toIndex(*start), node.toIndex(*length));
  return results(buildSlice(node, *x, {*start}, {end}, {*dim}, {1}));
}

/// select(x, dim, index) = x[index] along dim, the dim dropped.
FailureOr<Values> convertSelect(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> dim = dimArg(node, 1, x->getType().getRank());
  FailureOr<int64_t> index = intArg(node, 2);
  if (failed(dim) || failed(index))
    return failure();
  RewriterBase &rw = node.getRewriter();
  // index -1 selects the last element: the slice [-1, end).
  OpFoldResult end = *index == -1
                         ? OpFoldResult(rw.getI64IntegerAttr(
                               std::numeric_limits<int64_t>::max()))
                         : OpFoldResult(rw.getI64IntegerAttr(*index + 1));
  FailureOr<Value> slice = buildSlice(node, *x, {rw.getI64IntegerAttr(*index)},
                                      {end}, {*dim}, {1});
  if (failed(slice))
    return failure();
  return results(squeeze(node, *slice, {*dim}));
}

/// embedding(weight, indices, ...) and index_select(x, dim, indices).
FailureOr<Values> convertEmbedding(ForeignNode &node) {
  bool select = node.getOp().getOpType() == "index_select";
  auto data = node.input(0);
  auto indices = node.input(select ? 2 : 1);
  if (failed(data) || failed(indices))
    return failure();
  int64_t axis = 0;
  if (select) {
    FailureOr<int64_t> dim = dimArg(node, 1, data->getType().getRank());
    if (failed(dim))
      return failure();
    axis = *dim;
  }
  return results(buildGather(node, *data, *indices, axis));
}

/// gather(x, dim, index, sparse_grad): one element along `dim` per index.
FailureOr<Values> convertGather(ForeignNode &node) {
  auto data = node.input(0);
  auto indices = node.input(2);
  if (failed(data) || failed(indices))
    return failure();
  FailureOr<int64_t> dim = dimArg(node, 1, data->getType().getRank());
  if (failed(dim))
    return failure();
  GatherElementsOp::Properties properties;
  properties.axis = node.getRewriter().getI64IntegerAttr(*dim);
  return results(node.create<GatherElementsOp>({*data, *indices}, properties));
}

/// index.Tensor(x, [i0, i1, ...]): advanced indexing by integer tensors on
/// x's leading dims, as a gather_nd of the indices broadcast against each
/// other and stacked on a new last dim; x[:, ..., idx], one index after
/// skipped dims, as a gather. Masks (bool indices) and other mixes of
/// skipped dims and indices are not supported.
FailureOr<Values> convertIndex(ForeignNode &node) {
  auto data = node.input(0);
  if (failed(data))
    return failure();
  auto list = node.getOp().getInputs()[1].getDefiningOp<ForeignOp>();
  if (!list || list.getOpType() != "ListConstruct")
    return node.fail("indices must be a list built in the graph");
  // x[:, ..., idx] (dims skipped, then one index tensor) is a gather along
  // the indexed dim, whose result puts idx's dims in its place.
  ValueRange entries = list.getInputs();
  auto skipped = llvm::find_if(
      entries, [](Value v) { return !v.getDefiningOp<NoneOp>(); });
  if (skipped != entries.begin() && skipped != entries.end() &&
      std::next(skipped) == entries.end()) {
    Value entry = *skipped;
    auto index = dyn_cast<TypedValue<RankedTensorType>>(entry);
    if (!index || entry.getDefiningOp<ForeignOp>())
      return node.fail("an index comes from a node not converted yet");
    int64_t axis = skipped - entries.begin();
    if (axis >= data->getType().getRank())
      return node.fail("more indices than dims");
    return results(buildGather(node, *data, index, axis));
  }
  SmallVector<Value> indices;
  for (Value index : entries) {
    if (index.getDefiningOp<NoneOp>())
      return node.fail("indexing with skipped dims (None) other than "
                       "x[:, ..., idx] is not supported");
    if (index.getDefiningOp<ForeignOp>())
      return node.fail("an index comes from a node not converted yet");
    auto type = dyn_cast<RankedTensorType>(index.getType());
    if (!type || !isa<IntegerType>(type.getElementType()) ||
        type.getElementType().isInteger(1))
      return node.fail("indices must be integer tensors (masks are not "
                       "supported)");
    indices.push_back(castTo(node, index, node.getRewriter().getI64Type()));
  }
  if (indices.empty() ||
      static_cast<int64_t>(indices.size()) > data->getType().getRank())
    return node.fail("needs 1 to rank(x) indices");
  // Broadcast the indices against each other: adding the others times 0.
  Value zero = node.scalar(node.getRewriter().getI64Type(), 0);
  Value broadcast;
  for (Value index : indices) {
    FailureOr<Value> term = node.create<MulOp>({index, zero});
    if (failed(term))
      return failure();
    FailureOr<Value> sum =
        broadcast ? node.create<AddOp>({broadcast, *term}) : term;
    if (failed(sum))
      return failure();
    broadcast = *sum;
  }
  SmallVector<Value> stacked;
  for (Value index : indices) {
    FailureOr<Value> full = node.create<AddOp>({index, broadcast});
    if (failed(full))
      return failure();
    SmallVector<OpFoldResult> shape = node.sizes(*full);
    shape.push_back(node.getRewriter().getIndexAttr(1));
    stacked.push_back(node.reshape(*full, shape));
  }
  Value tuples = stacked.front();
  if (stacked.size() > 1) {
    ConcatOp::Properties properties;
    properties.axis = node.getRewriter().getI64IntegerAttr(
        cast<RankedTensorType>(stacked.front().getType()).getRank() - 1);
    FailureOr<Value> concat = node.create<ConcatOp>(stacked, properties);
    if (failed(concat))
      return failure();
    tuples = *concat;
  }
  GatherNdOp::Properties properties;
  properties.batch_dims = node.getRewriter().getI64IntegerAttr(0);
  return results(node.create<GatherNdOp>({*data, tuples}, properties));
}

/// arange(end), arange(start, end), arange(start, end, step).
FailureOr<Values> convertArange(ForeignNode &node) {
  StringRef which = overload(node);
  unsigned bounds = which == "" ? 1 : which == "start" ? 2 : 3;
  if (which != "" && which != "start" && which != "start_step")
    return node.fail("arange overload '" + which + "' is not supported");
  RewriterBase &rw = node.getRewriter();
  SmallVector<Value> values;
  for (unsigned i = 0; i < bounds; ++i) {
    auto value = node.input(i);
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  Type inferred = promotedElementType(values);
  if (isa<FloatType>(inferred))
    inferred = rw.getF32Type();
  FailureOr<Type> element = dtypeArg(node, bounds, inferred);
  if (failed(element))
    return failure();
  SmallVector<OpFoldResult> range;
  for (unsigned i = 0; i < bounds; ++i) {
    if (isa<IntegerType>(*element)) {
      FailureOr<OpFoldResult> v = sizeArg(node, i);
      if (failed(v))
        return failure();
      range.push_back(*v);
    } else {
      FailureOr<double> v = node.constantScalar(i);
      if (failed(v))
        return failure();
      range.push_back(rw.getF64FloatAttr(*v));
    }
  }
  auto constant = [&](int64_t v) -> OpFoldResult {
    if (isa<IntegerType>(*element))
      return rw.getI64IntegerAttr(v);
    return rw.getF64FloatAttr(static_cast<double>(v));
  };
  if (bounds == 1)
    range.insert(range.begin(), constant(0));
  if (range.size() == 2)
    range.push_back(constant(1));
  return results(buildRange(node, *element, range));
}

/// zeros/ones/full(size, [fill], dtype, ...), their _like forms and new_*.
template <int fill>
FailureOr<Values> convertFactory(ForeignNode &node) {
  StringRef op = node.getOp().getOpType();
  bool like = op.ends_with("_like");
  bool isNew = op.starts_with("new_");
  bool full = op.contains("full");
  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> shape;
  Type fallback = rw.getF32Type();
  unsigned next = 0;
  if (like || isNew) {
    auto self = node.input(0);
    if (failed(self))
      return failure();
    fallback = self->getType().getElementType();
    next = 1;
    if (like)
      shape = node.sizes(*self);
  }
  if (!like) {
    FailureOr<SmallVector<OpFoldResult>> sizes = node.shapeElements(next);
    if (failed(sizes))
      return failure();
    for (OpFoldResult size : *sizes)
      shape.push_back(asIndex(node, size));
    ++next;
  }
  double value = fill;
  if (full) {
    FailureOr<double> v = node.constantScalar(next);
    if (failed(v))
      return failure();
    value = *v;
    if (!like && !isNew) {
      // full() takes the fill value's kind when no dtype is given.
      Type kind = cast<RankedTensorType>(node.getOp().getInputs()[next].getType())
                      .getElementType();
      if (!isa<FloatType>(kind))
        fallback = kind;
    }
    ++next;
  }
  FailureOr<Type> element = dtypeArg(node, next, fallback);
  if (failed(element))
    return failure();
  auto scalarType = RankedTensorType::get({}, *element);
  Attribute attr = isa<FloatType>(*element)
                       ? Attribute(rw.getFloatAttr(*element, value))
                       : Attribute(rw.getIntegerAttr(
                             *element, static_cast<int64_t>(value)));
  return Values{
      buildFilled(node, shape, DenseElementsAttr::get(scalarType, attr))};
}

/// tril/triu(x, diagonal).
FailureOr<Values> convertTriangle(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> diagonal =
      node.hasInput(1) ? intArg(node, 1) : FailureOr<int64_t>(0);
  if (failed(diagonal))
    return failure();
  if (x->getType().getRank() < 2)
    return node.fail("needs rank >= 2");
  RewriterBase &rw = node.getRewriter();
  bool upper = node.getOp().getOpType() == "triu";
  return Values{TriluOp::create(rw, node.getLoc(), *x,
                                upper ? rw.getUnitAttr() : UnitAttr(),
                                rw.getI64IntegerAttr(*diagonal))};
}

} // namespace

void fromtorch::populateShapeConverters(ForeignConverters &c) {
  c.add("aten::view", 0, convertView);
  c.add("aten::reshape", 0, convertView);
  c.add("aten::flatten", 0, convertFlatten);
  c.add("aten::transpose", 0, convertTranspose);
  c.add("aten::t", 0, convertTranspose);
  c.add("aten::permute", 0, convertPermute);
  c.add("aten::unsqueeze", 0, convertUnsqueeze);
  c.add("aten::squeeze", 0, convertSqueeze);
  c.add("aten::expand", 0, convertExpand);
  c.add("aten::expand_as", 0, convertExpandAs);
  c.add("aten::broadcast_to", 0, convertExpand);
  c.add("aten::numpy_T", 0, convertNumpyT);
  c.add("aten::repeat", 0, convertRepeat);
  c.add("aten::repeat_interleave", 0, convertRepeatInterleave);
  c.add("aten::cat", 0, convertCat);
  c.add("aten::concat", 0, convertCat);
  c.add("aten::stack", 0, convertCat);
  c.add("aten::split", 0, convertSplit);
  c.add("aten::split_with_sizes", 0, convertSplit);
  c.add("aten::chunk", 0, convertSplit);
  c.add("aten::unbind", 0, convertUnbind);
  c.add("aten::slice", 0, convertSlice);
  c.add("aten::narrow", 0, convertNarrow);
  c.add("aten::select", 0, convertSelect);
  c.add("aten::embedding", 0, convertEmbedding);
  c.add("aten::index_select", 0, convertEmbedding);
  c.add("aten::arange", 0, convertArange);
  c.add("aten::gather", 0, convertGather);
  c.add("aten::index", 0, convertIndex);
  c.add("aten::zeros", 0, convertFactory<0>);
  c.add("aten::ones", 0, convertFactory<1>);
  c.add("aten::full", 0, convertFactory<0>);
  c.add("aten::zeros_like", 0, convertFactory<0>);
  c.add("aten::ones_like", 0, convertFactory<1>);
  c.add("aten::full_like", 0, convertFactory<0>);
  c.add("aten::new_zeros", 0, convertFactory<0>);
  c.add("aten::new_ones", 0, convertFactory<1>);
  c.add("aten::new_full", 0, convertFactory<0>);
  c.add("aten::tril", 0, convertTriangle);
  c.add("aten::triu", 0, convertTriangle);
}
