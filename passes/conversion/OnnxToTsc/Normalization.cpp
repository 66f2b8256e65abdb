//===- Normalization.cpp - ONNX normalizations and losses -----------------===//
//
// Norms other than LayerNormalization/RMSNormalization, and the two loss
// functions, as compositions of tsc ops: statistics are reductions (or a
// tsc.layer_norm over the right dims), which keep them in f32 for half
// inputs; the rest is elementwise math that fuses into one loop. Each
// composition evaluates the ONNX formula, not an approximation of it.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/Compose.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// A float input `i`, or the node's failure.
FailureOr<TypedValue<RankedTensorType>> floatInput(ForeignNode &node,
                                                   unsigned i) {
  auto x = node.input(i);
  if (failed(x))
    return failure();
  Type element = x->getType().getElementType();
  if (!isa<FloatType>(element)) {
    std::string name;
    llvm::raw_string_ostream(name) << element;
    return node.fail("input #" + Twine(i) + " must be a float tensor, not " +
                     name);
  }
  return x;
}

/// A per-channel parameter `param` ([C]) shaped to broadcast against
/// `[N, C, D...]` of `rank` dims: [C, 1, ..., 1].
Value perChannel(ForeignNode &node, Value param, int64_t rank) {
  SmallVector<OpFoldResult> shape(rank - 1, node.getRewriter().getIndexAttr(1));
  shape[0] = node.dimSize(param, 0);
  return node.reshape(param, shape);
}

/// Checks that per-channel parameter input `i` is [C] for an input whose
/// dim 1 is `channels`, with the input's element type.
FailureOr<TypedValue<RankedTensorType>> channelInput(ForeignNode &node,
                                                     unsigned i,
                                                     RankedTensorType input,
                                                     int64_t channels) {
  auto param = node.input(i);
  if (failed(param))
    return failure();
  RankedTensorType type = param->getType();
  if (type.getElementType() != input.getElementType())
    return node.fail("input #" + Twine(i) +
                     " must have the element type of input #0");
  if (type.getRank() != 1 ||
      (!ShapedType::isDynamic(channels) && !type.isDynamicDim(0) &&
       type.getDimSize(0) != channels))
    return node.fail("input #" + Twine(i) + " must have " +
                     (ShapedType::isDynamic(channels)
                          ? Twine("one element per channel")
                          : Twine(channels) + " elements (one per channel)"));
  return param;
}

//===----------------------------------------------------------------------===//
// LpNormalization, MeanVarianceNormalization
//===----------------------------------------------------------------------===//

/// x / ||x||_p along `axis` (p = 1 or 2), 0 where the norm is 0 (opset 22
/// says so; before, it was left undefined).
FailureOr<Values> convertLpNorm(ForeignNode &node) {
  auto x = floatInput(node, 0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", -1), x->getType().getRank());
  if (failed(axis))
    return failure();
  int64_t p = node.getInt("p", 2);
  if (p != 1 && p != 2)
    return node.fail("p = " + Twine(p) +
                     " is not supported: ONNX defines "
                     "p = 1 and p = 2");
  MaybeValue norm =
      p == 1 ? reduce<ReduceSumOp>(node, unary<AbsOp>(node, *x), *axis, true)
             : unary<SqrtOp>(
                   node, reduce<ReduceSumOp>(node, binary<MulOp>(node, *x, *x),
                                             *axis, true));
  Value zero = node.scalar(x->getType().getElementType(), 0);
  return results(select(node, binary<EqualOp>(node, norm, zero), zero,
                        binary<DivOp>(node, *x, norm)));
}

/// (x - mean) / (stddev + 1e-9) over `axes` (default [0, 2, 3]). The
/// variance is the mean squared deviation, which the function body's
/// E[x²] - E[x]² equals but can round below zero.
FailureOr<Values> convertMeanVarianceNorm(ForeignNode &node) {
  auto x = floatInput(node, 0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> axes =
      node.getInts("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  FailureOr<SmallVector<int64_t>> dims =
      node.axes(axes, x->getType().getRank());
  if (failed(dims))
    return failure();
  MaybeValue mean = reduce<ReduceMeanOp>(node, *x, *dims, true);
  MaybeValue centered = binary<SubOp>(node, *x, mean);
  MaybeValue deviation = unary<SqrtOp>(
      node, reduce<ReduceMeanOp>(node, binary<MulOp>(node, centered, centered),
                                 *dims, true));
  Type element = x->getType().getElementType();
  return results(binary<DivOp>(
      node, centered,
      binary<AddOp>(node, deviation, node.scalar(element, 1e-9))));
}

//===----------------------------------------------------------------------===//
// InstanceNormalization, GroupNormalization, BatchNormalization
//===----------------------------------------------------------------------===//

/// Layer norm of `x` over dims [axis, rank), without scale and bias.
Value normalize(ForeignNode &node, Value x, int64_t axis, float epsilon) {
  RewriterBase &rw = node.getRewriter();
  return LayerNormOp::create(rw, node.getLoc(), x.getType(), x, Value(),
                             Value(), rw.getI64IntegerAttr(axis),
                             rw.getF64FloatAttr(epsilon));
}

/// The float input [N, C, D...] of a norm over channels, with at least
/// `minRank` dims.
FailureOr<TypedValue<RankedTensorType>> imageInput(ForeignNode &node,
                                                   int64_t minRank) {
  auto x = floatInput(node, 0);
  if (failed(x))
    return failure();
  if (x->getType().getRank() < minRank)
    return node.fail("the input must have at least " + Twine(minRank) +
                     " dims (N, C, ...)");
  return x;
}

/// Normalizes each (n, c) over the spatial dims, then scale[c], bias[c].
FailureOr<Values> convertInstanceNorm(ForeignNode &node) {
  auto x = imageInput(node, 3);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  int64_t channels = type.getDimSize(1);
  auto scale = channelInput(node, 1, type, channels);
  auto bias = channelInput(node, 2, type, channels);
  if (failed(scale) || failed(bias))
    return failure();
  Value y = normalize(node, *x, 2, node.getFloat("epsilon", 1e-5f));
  int64_t rank = type.getRank();
  return results(binary<AddOp>(
      node, binary<MulOp>(node, y, perChannel(node, *scale, rank)),
      perChannel(node, *bias, rank)));
}

/// Normalizes each (n, group of C / G channels) over those channels and the
/// spatial dims: a layer norm of x seen as [N, G, C / G · D...]. Scale and
/// bias are per channel from opset 21, per group in opset 18. Statistics are
/// in at least f32, as stash_type=1 (the default) asks.
FailureOr<Values> convertGroupNorm(ForeignNode &node) {
  auto x = imageInput(node, 2);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  int64_t rank = type.getRank();
  int64_t channels = type.getDimSize(1);
  int64_t groups = node.getInt("num_groups", 0);
  if (groups <= 0)
    return node.fail("num_groups must be positive");
  if (ShapedType::isDynamic(channels))
    return node.fail("the channel dim must be static");
  if (channels % groups)
    return node.fail(Twine(channels) + " channels do not divide into " +
                     Twine(groups) + " groups");
  bool perGroup = node.getVersion() < 21;
  int64_t params = perGroup ? groups : channels;
  auto scale = channelInput(node, 1, type.clone({1, params}), params);
  auto bias = channelInput(node, 2, type.clone({1, params}), params);
  if (failed(scale) || failed(bias))
    return failure();

  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> sizes = node.sizes(*x);
  OpFoldResult members = rw.getIndexAttr(channels / groups);
  for (int64_t d = 2; d < rank; ++d)
    members = node.multiply(members, sizes[d]);
  Value grouped =
      node.reshape(*x, {sizes[0], rw.getIndexAttr(groups), members});
  Value y = node.reshape(
      normalize(node, grouped, 2, node.getFloat("epsilon", 1e-5f)), sizes);

  auto channelParam = [&](Value param) -> MaybeValue {
    if (!perGroup)
      return param;
    // [G] -> [G, C / G] -> [C]: each group's value for its channels.
    auto expanded = buildExpand(
        node,
        cast<TypedValue<RankedTensorType>>(
            node.reshape(param, {rw.getIndexAttr(groups), rw.getIndexAttr(1)})),
        {rw.getIndexAttr(groups), rw.getIndexAttr(channels / groups)});
    if (failed(expanded))
      return failure();
    return node.reshape(*expanded, {rw.getIndexAttr(channels)});
  };
  MaybeValue s = channelParam(*scale), b = channelParam(*bias);
  if (failed(s) || failed(b))
    return failure();
  return results(
      binary<AddOp>(node, binary<MulOp>(node, y, perChannel(node, *s, rank)),
                    perChannel(node, *b, rank)));
}

/// Inference batch norm: (x - mean) / sqrt(var + epsilon) · scale + B with
/// the given running statistics, per channel (dim 1). A per-channel
/// parameter is [C]; with opset 7's spatial=0 it is [C, D...] and
/// broadcasts as it is.
FailureOr<Values> convertBatchNorm(ForeignNode &node) {
  if (node.getInt("training_mode", 0) ||
      (node.getVersion() < 7 && !node.getInt("is_test", 0)))
    return node.fail("training mode is not supported: it computes the "
                     "batch's statistics (a training op); tsc compiles "
                     "inference graphs");
  for (unsigned i = 1; i < 5; ++i)
    if (node.isOutputUsed(i))
      return node.fail("output #" + Twine(i) +
                       " (running or saved statistics) is not supported: it "
                       "exists in training mode only");
  auto x = imageInput(node, 2);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  int64_t rank = type.getRank();
  SmallVector<Value> params;
  for (unsigned i = 1; i < 5; ++i) {
    auto param = node.input(i);
    if (failed(param))
      return failure();
    if (param->getType().getElementType() != type.getElementType())
      return node.fail("input #" + Twine(i) +
                       " must have the element type of input #0");
    params.push_back(param->getType().getRank() == 1
                         ? perChannel(node, *param, rank)
                         : Value(*param));
  }
  Value scale = params[0], bias = params[1], mean = params[2],
        variance = params[3];
  Value epsilon =
      node.scalar(type.getElementType(), node.getFloat("epsilon", 1e-5f));
  MaybeValue deviation =
      unary<SqrtOp>(node, binary<AddOp>(node, variance, epsilon));
  MaybeValue normalized =
      binary<DivOp>(node, binary<SubOp>(node, *x, mean), deviation);
  return results(
      binary<AddOp>(node, binary<MulOp>(node, normalized, scale), bias));
}

//===----------------------------------------------------------------------===//
// LRN
//===----------------------------------------------------------------------===//

/// x / (bias + alpha / size · Σ x²)^beta, the sum over the `size` channels
/// around each one (floor((size - 1) / 2) before, ceil after, clipped to
/// the channels there are): the squares padded with zero channels and
/// `size` shifted slices of them added.
FailureOr<Values> convertLrn(ForeignNode &node) {
  auto x = imageInput(node, 3);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  int64_t channels = type.getDimSize(1);
  if (ShapedType::isDynamic(channels))
    return node.fail("the channel dim must be static");
  int64_t size = node.getInt("size", 0);
  if (size <= 0)
    return node.fail("size must be positive");
  RewriterBase &rw = node.getRewriter();
  Type element = type.getElementType();
  MaybeValue squares = binary<MulOp>(node, *x, *x);
  if (failed(squares))
    return failure();
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  SmallVector<OpFoldResult> sizes = node.sizes(*x);
  auto zeros = [&](int64_t n) {
    SmallVector<OpFoldResult> shape = sizes;
    shape[1] = rw.getIndexAttr(n);
    auto zero = DenseElementsAttr::get(RankedTensorType::get({}, element),
                                       rw.getZeroAttr(element));
    return buildFilled(node, shape, zero);
  };
  SmallVector<Value> pieces;
  if (before)
    pieces.push_back(zeros(before));
  pieces.push_back(*squares);
  if (after)
    pieces.push_back(zeros(after));
  Value padded = *squares;
  if (pieces.size() > 1) {
    ConcatOp::Properties concat;
    concat.axis = rw.getI64IntegerAttr(1);
    MaybeValue joined = node.create<ConcatOp>(pieces, concat);
    if (failed(joined))
      return failure();
    padded = *joined;
  }
  MaybeValue sum;
  for (int64_t shift = 0; shift < size; ++shift) {
    FailureOr<Value> window =
        buildSlice(node, cast<TypedValue<RankedTensorType>>(padded),
                   {rw.getIndexAttr(shift)},
                   {rw.getIndexAttr(shift + channels)}, {1}, {1});
    if (failed(window))
      return failure();
    sum = shift ? binary<AddOp>(node, sum, *window) : MaybeValue(*window);
  }
  float alpha = node.getFloat("alpha", 1e-4f),
        beta = node.getFloat("beta", 0.75f), bias = node.getFloat("bias", 1.0f);
  MaybeValue base = binary<AddOp>(
      node, node.scalar(element, bias),
      binary<MulOp>(node, node.scalar(element, alpha / size), sum));
  return results(binary<DivOp>(
      node, *x, binary<PowOp>(node, base, node.scalar(element, beta))));
}

//===----------------------------------------------------------------------===//
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
//===----------------------------------------------------------------------===//

/// -logProb[n, target[n, d...], d...] · weight[target] per sample, 0 where
/// the target is `ignoreIndex`, then none/sum/mean (mean: divided by the
/// summed weights of the samples not ignored). The class is picked by
/// comparing the target with the class positions and summing over the
/// class dim, so a target out of range reads nothing out of bounds (it
/// picks no class).
MaybeValue buildNll(ForeignNode &node, Value logProb, Value target,
                    Value weight) {
  RewriterBase &rw = node.getRewriter();
  auto type = cast<RankedTensorType>(logProb.getType());
  auto targetType = cast<RankedTensorType>(target.getType());
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  if (rank < 2)
    return node.fail("the input must have at least 2 dims (N, C, ...)");
  if (!isa<IntegerType>(targetType.getElementType()) ||
      targetType.getRank() != rank - 1)
    return node.fail("the target must be integers of shape (N, d1, ...)");
  StringRef reduction = node.getString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return node.fail("unknown reduction '" + reduction + "'");

  OpFoldResult classes = node.dimSize(logProb, 1);
  FailureOr<Value> positions =
      buildRange(node, targetType.getElementType(),
                 {rw.getIndexAttr(0), classes, rw.getIndexAttr(1)});
  if (failed(positions))
    return failure();
  SmallVector<OpFoldResult> along(rank, rw.getIndexAttr(1));
  along[1] = classes;
  UnsqueezeOp::Properties unsqueeze;
  unsqueeze.dims = rw.getDenseI64ArrayAttr({1});
  MaybeValue hot =
      binary<EqualOp>(node, node.create<UnsqueezeOp>({target}, unsqueeze),
                      node.reshape(*positions, along));
  Value zero = node.scalar(element, 0);
  auto pick = [&](MaybeValue perClass) {
    return reduce<ReduceSumOp>(node, select(node, hot, perClass, zero), {1},
                               false);
  };
  Value classWeight = weight ? node.reshape(weight, along) : Value();
  MaybeValue loss =
      unary<NegOp>(node, pick(weight ? binary<MulOp>(node, logProb, classWeight)
                                     : MaybeValue(logProb)));
  MaybeValue ignored;
  if (node.hasAttr("ignore_index")) {
    ignored = binary<EqualOp>(
        node, target,
        node.scalar(targetType.getElementType(),
                    static_cast<double>(node.getInt("ignore_index", 0))));
    loss = select(node, ignored, zero, loss);
  }
  if (reduction == "none")
    return loss;
  auto all = llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  MaybeValue total = reduce<ReduceSumOp>(node, loss, all, false);
  if (reduction == "sum")
    return total;
  MaybeValue samples;
  if (weight)
    samples = pick(classWeight);
  else if (succeeded(ignored))
    samples = castTo(node, *unary<NotOp>(node, ignored), element);
  else
    return binary<DivOp>(node, total,
                         castTo(node, buildNumel(node, target), element));
  if (succeeded(ignored))
    samples = select(node, ignored, zero, samples);
  return binary<DivOp>(node, total,
                       reduce<ReduceSumOp>(node, samples, all, false));
}

/// The optional class weights, input `i`: [C] of the input's element type.
FailureOr<Value> classWeights(ForeignNode &node, unsigned i,
                              RankedTensorType input) {
  if (!node.hasInput(i))
    return Value();
  auto weight = channelInput(node, i, input, input.getDimSize(1));
  if (failed(weight))
    return failure();
  return Value(*weight);
}

FailureOr<Values> convertNll(ForeignNode &node) {
  auto input = floatInput(node, 0);
  auto target = node.input(1);
  if (failed(input) || failed(target))
    return failure();
  FailureOr<Value> weight = classWeights(node, 2, input->getType());
  if (failed(weight))
    return failure();
  return results(buildNll(node, *input, *target, *weight));
}

/// NLL of log_softmax(scores) along the classes; the log-probabilities
/// are the optional second output.
FailureOr<Values> convertSoftmaxCrossEntropy(ForeignNode &node) {
  auto scores = floatInput(node, 0);
  auto labels = node.input(1);
  if (failed(scores) || failed(labels))
    return failure();
  if (scores->getType().getRank() < 2)
    return node.fail("the scores must have at least 2 dims (N, C, ...)");
  FailureOr<Value> weight = classWeights(node, 2, scores->getType());
  if (failed(weight))
    return failure();
  Value logProb = LogSoftmaxOp::create(node.getRewriter(), node.getLoc(),
                                       *scores, static_cast<uint64_t>(1));
  MaybeValue loss = buildNll(node, logProb, *labels, *weight);
  if (failed(loss))
    return failure();
  return Values{*loss, logProb};
}

} // namespace

void fromonnx::populateNormalizationConverters(ForeignConverters &c) {
  c.add("LpNormalization", 1, convertLpNorm);
  c.add("MeanVarianceNormalization", 9, convertMeanVarianceNorm);
  c.add("InstanceNormalization", 1, convertInstanceNorm);
  c.add("GroupNormalization", 18, convertGroupNorm);
  c.add("BatchNormalization", 6, convertBatchNorm);
  c.add("LRN", 1, convertLrn);
  c.add("NegativeLogLikelihoodLoss", 12, convertNll);
  c.add("SoftmaxCrossEntropyLoss", 12, convertSoftmaxCrossEntropy);
}
