//===- MachineLearning.cpp - TfIdfVectorizer and ai.onnx.ml ops ----------===//
//
// Classical ML ops whose parameters are attributes, evaluated as dense
// tensor ops over them. TfIdfVectorizer counts the n-grams of a pool fixed at
// compile time: each (length, skip) pair is a set of shifted slices of the
// input compared with the pool's tokens at once, [N, windows, pool], and summed
// over the windows. A constant 0/1 matrix maps pool entries to output
// coordinates, so the counts land where `ngram_indexes` says with one matmul
// (exact: the counts are small integers). TreeEnsemble evaluates every node's
// condition for every sample and reaches a leaf where no node on its path
// disagrees (branch-free: fine for the small trees of feature pipelines,
// bounded with an error for forests).
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/Compose.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// The pool's n-grams of one length: their tokens, [count, length] in row
/// order, and the output coordinate of each.
struct PoolGrams {
  SmallVector<int64_t> tokens;
  SmallVector<int64_t> outputs;
};

/// Counts of the `length`-grams of `grams` in `x` [N, C] (i64), [N, P], the
/// tokens `skip + 1` apart for each skip up to `maxSkip` (1-grams once).
MaybeValue countGrams(ForeignNode &node, Value x, int64_t length,
                      const PoolGrams &grams, int64_t maxSkip) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rows = type.getDimSize(0), width = type.getDimSize(1);
  int64_t count = static_cast<int64_t>(grams.outputs.size());
  RewriterBase &rw = node.getRewriter();
  MaybeValue total = failure();
  for (int64_t distance = 1; distance <= (length == 1 ? 1 : maxSkip + 1);
       ++distance) {
    int64_t windows = width - distance * (length - 1);
    if (windows <= 0)
      break;
    MaybeValue match = failure();
    for (int64_t j = 0; j < length; ++j) {
      Value window =
          buildSliceOp(node, cast<TypedValue<RankedTensorType>>(x),
                       {rw.getIndexAttr(0), rw.getIndexAttr(j * distance)},
                       {rw.getIndexAttr(rows), rw.getIndexAttr(windows)},
                       {rw.getIndexAttr(1), rw.getIndexAttr(1)});
      SmallVector<int64_t> column;
      for (int64_t g = 0; g < count; ++g)
        column.push_back(grams.tokens[g * length + j]);
      Value tokens = ConstantOp::create(
          rw, node.getLoc(),
          DenseElementsAttr::get(
              RankedTensorType::get({count}, rw.getI64Type()),
              ArrayRef<int64_t>(column)));
      MaybeValue equal =
          binary<EqualOp>(node, insertDim(node, window, 2), tokens);
      match = j == 0 ? equal : binary<AndOp>(node, match, equal);
    }
    if (failed(match))
      return failure();
    MaybeValue counts =
        reduce<ReduceSumOp>(node, castTo(node, *match, rw.getF32Type()), {1},
                            /*keepdim=*/false);
    total = distance == 1 ? counts : binary<AddOp>(node, total, counts);
  }
  return total;
}

/// The first `outputs` weights as a constant [outputs].
Value weightVector(ForeignNode &node, ArrayRef<float> weights,
                   int64_t outputs) {
  RewriterBase &rw = node.getRewriter();
  return ConstantOp::create(
      rw, node.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get({outputs}, rw.getF32Type()),
                             weights.take_front(outputs)));
}

/// TfIdfVectorizer (opset 9) over an integer pool: [C] -> [O] or
/// [N, C] -> [N, O], O = max(ngram_indexes) + 1. Weights apply per output
/// coordinate, as ONNX's reference implementation reads them.
FailureOr<Values> convertTfIdfVectorizer(ForeignNode &node) {
  if (node.hasAttr("pool_strings"))
    return node.fail("pool_strings is not supported: tsc has no string "
                     "tensors");
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  if ((type.getRank() != 1 && type.getRank() != 2) || !type.hasStaticShape())
    return node.fail("the input must be [C] or [N, C] of static sizes");
  std::optional<SmallVector<int64_t>> pool = node.getInts("pool_int64s");
  std::optional<SmallVector<int64_t>> starts = node.getInts("ngram_counts");
  std::optional<SmallVector<int64_t>> indexes = node.getInts("ngram_indexes");
  if (!pool || !starts || !indexes || indexes->empty())
    return node.fail("pool_int64s, ngram_counts and ngram_indexes are "
                     "required");
  int64_t minLength = node.getInt("min_gram_length", 0);
  int64_t maxLength = node.getInt("max_gram_length", 0);
  int64_t maxSkip = node.getInt("max_skip_count", 0);
  if (minLength < 1 || maxLength < minLength || maxSkip < 0)
    return node.fail("needs 1 <= min_gram_length <= max_gram_length and "
                     "max_skip_count >= 0");
  StringRef mode = node.getString("mode", "");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return node.fail("mode must be TF, IDF or TFIDF, not '" + mode + "'");
  int64_t outputs = *llvm::max_element(*indexes) + 1;
  SmallVector<float> weights;
  if (auto attr = node.getOp().getSourceAttributes().getAs<DenseF32ArrayAttr>(
          "weights"))
    weights.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  if (mode != "TF" && !weights.empty() &&
      static_cast<int64_t>(weights.size()) < outputs)
    return node.fail("weights has " + Twine(weights.size()) + " entries for " +
                     Twine(outputs) + " outputs");
  if (llvm::any_of(*indexes, [](int64_t i) { return i < 0; }))
    return node.fail("ngram_indexes must not be negative");
  // Each n-gram length becomes a dense 0/1 map [n-grams, outputs] of f32:
  // at most 2^26 elements (256 MiB), as a splat constant may expand to.
  constexpr int64_t kMaxMapElements = int64_t(1) << 26;
  if (outputs > kMaxMapElements / std::max<int64_t>(1, indexes->size()))
    return node.fail("ngram_indexes up to " + Twine(outputs - 1) + " for " +
                     Twine(indexes->size()) +
                     " n-grams: the n-gram maps would pass 2^26 elements");

  // The pool's n-grams by length, each mapped to its output coordinate; a
  // repeated n-gram counts where its last entry says (the reference's trie
  // keeps the last id).
  std::map<int64_t, std::map<SmallVector<int64_t>, int64_t>> byLength;
  int64_t id = 0, total = static_cast<int64_t>(pool->size());
  for (size_t i = 0; i < starts->size(); ++i) {
    int64_t length = static_cast<int64_t>(i) + 1;
    int64_t begin = (*starts)[i];
    int64_t end = i + 1 < starts->size() ? (*starts)[i + 1] : total;
    if (begin < 0 || end > total || end < begin)
      return node.fail("ngram_counts must rise within the pool");
    for (int64_t g = begin; g + length <= end; g += length, ++id) {
      if (id >= static_cast<int64_t>(indexes->size()))
        return node.fail("ngram_indexes has fewer entries than the pool has "
                         "n-grams");
      if (length >= minLength && length <= maxLength)
        byLength[length][SmallVector<int64_t>(
            pool->begin() + g, pool->begin() + g + length)] = (*indexes)[id];
    }
  }

  RewriterBase &rw = node.getRewriter();
  Value rows =
      type.getRank() == 1 ? *insertDim(node, *x, 0) : static_cast<Value>(*x);
  rows = castTo(node, rows, rw.getI64Type());
  int64_t batch = cast<RankedTensorType>(rows.getType()).getDimSize(0);
  // [N, O] as the sum of each length's counts times its 0/1 map.
  MaybeValue y = failure();
  bool counted = false;
  for (auto &[length, grams] : byLength) {
    PoolGrams flat;
    for (auto &[tokens, output] : grams) {
      flat.tokens.append(tokens.begin(), tokens.end());
      flat.outputs.push_back(output);
    }
    if (length > cast<RankedTensorType>(rows.getType()).getDimSize(1))
      continue; // the input is shorter than any n-gram of this length
    MaybeValue counts = countGrams(node, rows, length, flat, maxSkip);
    if (failed(counts))
      return failure();
    int64_t count = static_cast<int64_t>(flat.outputs.size());
    SmallVector<float> map(count * outputs, 0.0f);
    for (int64_t g = 0; g < count; ++g)
      map[g * outputs + flat.outputs[g]] = 1.0f;
    Value mapping = ConstantOp::create(
        rw, node.getLoc(),
        DenseElementsAttr::get(
            RankedTensorType::get({count, outputs}, rw.getF32Type()),
            ArrayRef<float>(map)));
    MaybeValue part = binary<MatmulOp>(node, counts, mapping);
    y = counted ? binary<AddOp>(node, y, part) : part;
    if (failed(y))
      return failure();
    counted = true;
  }
  if (!counted) {
    // No n-gram fits: all counts are zero.
    DenseElementsAttr zero = DenseElementsAttr::get(
        RankedTensorType::get({}, rw.getF32Type()), 0.0f);
    y = buildFilled(node, {rw.getIndexAttr(batch), rw.getIndexAttr(outputs)},
                    zero);
  }
  Value zero = node.scalar(rw.getF32Type(), 0);
  if (mode == "IDF") {
    MaybeValue seen = binary<GreaterOp>(node, y, zero);
    y = weights.empty()
            ? select(node, seen, Value(node.scalar(rw.getF32Type(), 1)), zero)
            : select(node, seen, weightVector(node, weights, outputs), zero);
  } else if (mode == "TFIDF" && !weights.empty()) {
    y = binary<MulOp>(node, y, weightVector(node, weights, outputs));
  }
  if (failed(y))
    return failure();
  if (type.getRank() == 1)
    return results(entry(node, *y, 0));
  return Values{*y};
}

/// ai.onnx.ml ArrayFeatureExtractor: the entries of `x`'s last dim at the
/// indices `y` ([k] or [1, k]): [..., k], or [1, k] for a 1-D `x`.
FailureOr<Values> convertArrayFeatureExtractor(ForeignNode &node) {
  auto x = node.input(0);
  auto y = node.input(1);
  if (failed(x) || failed(y))
    return failure();
  RankedTensorType indices = y->getType();
  if (!indices.hasStaticShape() || indices.getRank() < 1 ||
      indices.getRank() > 2 ||
      (indices.getRank() == 2 && indices.getDimSize(0) != 1))
    return node.fail("the indices must be [k] or [1, k] of static size");
  int64_t rank = x->getType().getRank();
  if (rank < 1)
    return node.fail("the input must have at least one dim");
  int64_t count = indices.getNumElements();
  Value flat = node.reshape(*y, {node.getRewriter().getIndexAttr(count)});
  FailureOr<Value> picked =
      buildGather(node, *x, cast<TypedValue<RankedTensorType>>(flat), rank - 1);
  if (failed(picked) || rank > 1)
    return results(picked);
  return Values{
      node.reshape(*picked, {node.getRewriter().getIndexAttr(1),
                             node.getRewriter().getIndexAttr(count)})};
}

/// The values of an inline tensor attribute as doubles; nullopt when the
/// attribute is missing.
FailureOr<std::optional<SmallVector<double>>>
tensorAttrValues(ForeignNode &node, StringRef name) {
  Attribute attr = node.getOp().getSourceAttributes().get(name);
  if (!attr)
    return std::optional<SmallVector<double>>();
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return node.fail("attribute " + name + " must be an inline tensor");
  SmallVector<double> values;
  if (isa<FloatType>(dense.getElementType()))
    for (const APFloat &v : dense.getValues<APFloat>())
      values.push_back(v.convertToDouble());
  else
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(static_cast<double>(v.getZExtValue()));
  return std::optional<SmallVector<double>>(values);
}

/// ai.onnx.ml TreeEnsemble (opset 5) without post transform: every node's
/// condition for every sample at once, [N, nodes]; a leaf is reached when
/// no node on its path went the other way; each reached leaf's weight is
/// aggregated into its target (sum, average over the trees, min or max).
FailureOr<Values> convertTreeEnsemble(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  Type element = type.getElementType();
  if (type.getRank() != 2 || !isa<FloatType>(element))
    return node.fail("the input must be a 2-D float tensor [N, features]");
  if (int64_t post = node.getInt("post_transform", 0))
    return node.fail("post_transform " + Twine(post) + " is not supported");
  int64_t aggregate = node.getInt("aggregate_function", 1);
  if (aggregate < 0 || aggregate > 3)
    return node.fail("aggregate_function must be 0 to 3, not " +
                     Twine(aggregate));
  auto splits = tensorAttrValues(node, "nodes_splits");
  auto modes = tensorAttrValues(node, "nodes_modes");
  auto weights = tensorAttrValues(node, "leaf_weights");
  auto members = tensorAttrValues(node, "membership_values");
  if (failed(splits) || failed(modes) || failed(weights) || failed(members))
    return failure();
  auto ints = [&](StringRef name) {
    return node.getInts(name).value_or(SmallVector<int64_t>());
  };
  SmallVector<int64_t> features = ints("nodes_featureids"),
                       trueIds = ints("nodes_truenodeids"),
                       falseIds = ints("nodes_falsenodeids"),
                       trueLeafs = ints("nodes_trueleafs"),
                       falseLeafs = ints("nodes_falseleafs"),
                       targets = ints("leaf_targetids"),
                       roots = ints("tree_roots"),
                       tracksTrue = ints("nodes_missing_value_tracks_true");
  int64_t nodes = static_cast<int64_t>(features.size());
  int64_t leaves = static_cast<int64_t>(targets.size());
  int64_t outputs = node.getInt("n_targets", 0);
  // The conditions of every node meet every leaf: [N, nodes, leaves].
  if (nodes * leaves > (int64_t(1) << 22))
    return node.fail(Twine(nodes) + " nodes and " + Twine(leaves) +
                     " leaves are more than tsc evaluates at once");
  if (!*splits || !*modes || !*weights || nodes == 0 || leaves == 0 ||
      outputs < 1 || roots.empty())
    return node.fail("needs the nodes_*, leaf_*, tree_roots and n_targets "
                     "attributes");
  for (size_t size : {(*splits)->size(), (*modes)->size(), trueIds.size(),
                      falseIds.size(), trueLeafs.size(), falseLeafs.size()})
    if (static_cast<int64_t>(size) != nodes)
      return node.fail("the nodes_* attributes must have one entry per node");
  if (static_cast<int64_t>((*weights)->size()) != leaves ||
      (!tracksTrue.empty() && static_cast<int64_t>(tracksTrue.size()) != nodes))
    return node.fail("leaf_weights and nodes_missing_value_tracks_true must "
                     "have one entry per leaf and node");

  // Each leaf's path: (node, whether the true branch was taken), from the
  // roots in the reference's order (true branch first), which is also the
  // order the set-membership nodes read their sets in.
  int64_t features0 = type.getDimSize(1);
  SmallVector<SmallVector<std::pair<int64_t, bool>>> paths(leaves);
  SmallVector<bool> reachedLeaf(leaves, false);
  std::map<int64_t, SmallVector<double>> sets;
  size_t memberAt = 0;
  SmallVector<std::pair<int64_t, bool>> path;
  std::function<LogicalResult(int64_t, bool, int64_t)> walk =
      [&](int64_t id, bool leaf, int64_t depth) -> LogicalResult {
    if (leaf) {
      if (id < 0 || id >= leaves)
        return node.fail("leaf id " + Twine(id) + " is out of range");
      if (reachedLeaf[id])
        return node.fail("leaf " + Twine(id) + " is reached twice");
      reachedLeaf[id] = true;
      paths[id] = path;
      return success();
    }
    if (id < 0 || id >= nodes || depth > nodes)
      return node.fail("node id " + Twine(id) + " is out of range or cyclic");
    if (features[id] < 0 ||
        (!ShapedType::isDynamic(features0) && features[id] >= features0))
      return node.fail("node " + Twine(id) + " reads feature " +
                       Twine(features[id]) + ", past the input's");
    if ((**modes)[id] == 6) {
      SmallVector<double> &set = sets[id];
      // A set ends at a NaN (or, as the reference reads it, at a 0).
      while (*members && memberAt < (*members)->size()) {
        double m = (**members)[memberAt++];
        if (std::isnan(m) || m == 0.0)
          break;
        set.push_back(m);
      }
    } else if ((**modes)[id] < 0 || (**modes)[id] > 6) {
      return node.fail("node " + Twine(id) + " has an unknown mode");
    }
    path.push_back({id, true});
    if (failed(walk(trueIds[id], trueLeafs[id], depth + 1)))
      return failure();
    path.back().second = false;
    if (failed(walk(falseIds[id], falseLeafs[id], depth + 1)))
      return failure();
    path.pop_back();
    return success();
  };
  for (int64_t root : roots) {
    if (root < 0 || root >= nodes)
      return node.fail("tree root " + Twine(root) + " is out of range");
    // A tree that is one leaf: both branches name it.
    if (trueLeafs[root] && falseLeafs[root] &&
        trueIds[root] == falseIds[root]) {
      if (failed(walk(trueIds[root], true, 0)))
        return failure();
      continue;
    }
    if (failed(walk(root, false, 0)))
      return failure();
  }

  RewriterBase &rw = node.getRewriter();
  Location loc = node.getLoc();
  Type i1 = rw.getI1Type(), i64 = rw.getI64Type();
  auto constant = [&](ArrayRef<int64_t> shape, Type type, auto values) {
    return Value(ConstantOp::create(
        rw, loc,
        DenseElementsAttr::get(RankedTensorType::get(shape, type), values)));
  };
  auto floats = [&](ArrayRef<int64_t> shape, ArrayRef<double> values) {
    SmallVector<APFloat> rounded;
    for (double v : values) {
      APFloat f(v);
      bool losesInfo;
      f.convert(cast<FloatType>(element).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &losesInfo);
      rounded.push_back(f);
    }
    return constant(shape, element, ArrayRef<APFloat>(rounded));
  };
  auto flags = [&](ArrayRef<int64_t> shape, function_ref<bool(int64_t)> f) {
    SmallVector<bool> bits;
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    for (int64_t k = 0; k < count; ++k)
      bits.push_back(f(k));
    return constant(shape, i1, ArrayRef<bool>(bits));
  };

  // The conditions [N, nodes]: the feature each node reads against its
  // split under its mode; a NaN feature goes where the node says.
  Value featureIds = constant({nodes}, i64, ArrayRef<int64_t>(features));
  FailureOr<Value> read =
      buildGather(node, *x, cast<TypedValue<RankedTensorType>>(featureIds), 1);
  if (failed(read))
    return failure();
  Value split = floats({nodes}, **splits);
  auto modeIs = [&](int64_t mode) {
    return flags({nodes}, [&](int64_t n) { return (**modes)[n] == mode; });
  };
  Value v = *read;
  MaybeValue cond = binary<LessEqualOp>(node, v, split);
  cond = select(node, modeIs(1), binary<LessOp>(node, v, split), cond);
  cond = select(node, modeIs(2), binary<GreaterEqualOp>(node, v, split), cond);
  cond = select(node, modeIs(3), binary<GreaterOp>(node, v, split), cond);
  MaybeValue equal = binary<EqualOp>(node, v, split);
  cond = select(node, modeIs(4), equal, cond);
  cond = select(node, modeIs(5), unary<NotOp>(node, equal), cond);
  for (auto &[id, set] : sets) {
    MaybeValue column = entry(node, v, id, 1);
    MaybeValue in = flags({}, [](int64_t) { return false; });
    for (double m : set)
      in = binary<OrOp>(node, in, binary<EqualOp>(node, column, floats({}, m)));
    // Only node `id`'s column takes the membership result.
    MaybeValue onlyHere =
        flags({nodes}, [&, id = id](int64_t n) { return n == id; });
    // An empty set holds nothing: `in` stays a false scalar, which
    // broadcasts as it is.
    cond =
        select(node, onlyHere, set.empty() ? in : insertDim(node, in, 1), cond);
  }
  if (!tracksTrue.empty())
    cond = binary<OrOp>(node, cond,
                        binary<AndOp>(node, unary<IsNanOp>(node, v),
                                      flags({nodes}, [&](int64_t n) {
                                        return tracksTrue[n];
                                      })));

  // Reached [N, leaves]: no node on the leaf's path went the other way.
  // Entry k of a [nodes, leaves] mask is node k / leaves, leaf k % leaves;
  // `along` marks the nodes on each leaf's path, `way` those of them whose
  // true branch the path takes.
  auto onPath = [&](int64_t k, bool trueBranchOnly) {
    for (auto [id, tookTrue] : paths[k % leaves])
      if (id == k / leaves)
        return !trueBranchOnly || tookTrue;
    return false;
  };
  Value along =
      flags({nodes, leaves}, [&](int64_t k) { return onPath(k, false); });
  Value way =
      flags({nodes, leaves}, [&](int64_t k) { return onPath(k, true); });
  MaybeValue wrong = binary<AndOp>(
      node, along, binary<BitwiseXorOp>(node, insertDim(node, cond, 2), way));
  if (failed(wrong))
    return failure();
  MaybeValue missed = reduce<ReduceSumOp>(
      node, castTo(node, *wrong, rw.getF32Type()), {1}, /*keepdim=*/false);
  MaybeValue reached =
      binary<EqualOp>(node, missed, Value(node.scalar(rw.getF32Type(), 0)));

  // Each reached leaf's weight at its target, [N, leaves, targets], then
  // aggregated over the leaves.
  SmallVector<double> leafWeights(**weights);
  if (aggregate == 0)
    for (double &w : leafWeights)
      w /= static_cast<double>(roots.size());
  for (int64_t t : targets)
    if (t < 0 || t >= outputs)
      return node.fail("leaf target " + Twine(t) + " is not below n_targets " +
                       Twine(outputs));
  Value isTarget = flags({leaves, outputs}, [&](int64_t k) {
    return targets[k / outputs] == k % outputs;
  });
  const llvm::fltSemantics &semantics =
      cast<FloatType>(element).getFloatSemantics();
  double identity =
      aggregate == 2   ? APFloat::getLargest(semantics).convertToDouble()
      : aggregate == 3 ? APFloat::getLargest(semantics, true).convertToDouble()
                       : 0.0;
  MaybeValue contribution =
      select(node, binary<AndOp>(node, insertDim(node, reached, 2), isTarget),
             floats({leaves, 1}, leafWeights), floats({}, identity));
  if (aggregate == 2)
    return results(reduce<ReduceMinOp>(node, contribution, {1}, false));
  if (aggregate == 3)
    return results(reduce<ReduceMaxOp>(node, contribution, {1}, false));
  return results(reduce<ReduceSumOp>(node, contribution, {1}, false));
}

} // namespace

void mlir::tsc::fromonnx::populateMachineLearningConverters(
    ForeignConverters &c) {
  c.add("TfIdfVectorizer", 9, convertTfIdfVectorizer);
  c.add("ai.onnx.ml::ArrayFeatureExtractor", 1, convertArrayFeatureExtractor);
  c.add("ai.onnx.ml::TreeEnsemble", 5, convertTreeEnsemble);
}
