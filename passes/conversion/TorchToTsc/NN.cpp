//===- NN.cpp - TorchScript matmuls, softmax, norms and reductions --------===//

#include "passes/conversion/TorchToTsc/TorchToTsc.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::foreign;
using namespace mlir::tsc::fromtorch;

namespace {

/// linear(x, weight [N, K], bias?): tsc.linear takes torch's layout as is.
FailureOr<Values> convertLinear(ForeignNode &node) {
  auto x = node.input(0);
  auto weight = node.input(1);
  if (failed(x) || failed(weight))
    return failure();
  SmallVector<Value> operands = {*x, *weight};
  if (node.hasInput(2)) {
    auto bias = node.input(2);
    if (failed(bias))
      return failure();
    operands.push_back(*bias);
  }
  LinearOp::Properties properties;
  properties.operandSegmentSizes = {1, 1, operands.size() > 2 ? 1 : 0, 0};
  return results(node.create<LinearOp>(operands, properties));
}

/// matmul, mm, bmm: numpy matmul semantics cover all three.
FailureOr<Values> convertMatmul(ForeignNode &node) {
  auto a = node.input(0);
  auto b = node.input(1);
  if (failed(a) || failed(b))
    return failure();
  return results(node.create<MatmulOp>({*a, *b}));
}

/// addmm(input, a, b, beta, alpha) = beta * input + alpha * (a @ b); the
/// same for baddbmm on batches.
FailureOr<Values> convertAddmm(ForeignNode &node) {
  auto c = node.input(0);
  auto a = node.input(1);
  auto b = node.input(2);
  if (failed(c) || failed(a) || failed(b))
    return failure();
  FailureOr<double> beta = scalarArg(node, 3, 1.0);
  FailureOr<double> alpha = scalarArg(node, 4, 1.0);
  if (failed(beta) || failed(alpha))
    return failure();
  Type element = a->getType().getElementType();
  FailureOr<Value> product = node.create<MatmulOp>({*a, *b});
  if (succeeded(product) && *alpha != 1.0)
    product = node.create<MulOp>({*product, node.scalar(element, *alpha)});
  FailureOr<Value> addend = *c;
  if (*beta != 1.0)
    addend = node.create<MulOp>({*c, node.scalar(element, *beta)});
  if (failed(product) || failed(addend))
    return failure();
  return results(node.create<AddOp>({*product, *addend}));
}

/// softmax/log_softmax(x, dim, dtype?): the dtype casts the input first.
template <typename OpTy>
FailureOr<Values> convertSoftmax(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> dim = intArg(node, 1);
  if (failed(dim))
    return failure();
  FailureOr<int64_t> axis = node.axis(*dim, x->getType().getRank());
  if (failed(axis))
    return failure();
  FailureOr<Value> typed = castToDtypeArg(node, *x, 2);
  if (failed(typed))
    return failure();
  Value input = *typed;
  if (!isa<FloatType>(cast<RankedTensorType>(input.getType()).getElementType()))
    return node.fail("softmax of integers");
  return Values{OpTy::create(node.getRewriter(), node.getLoc(), input,
                             static_cast<uint64_t>(*axis))};
}

/// layer_norm(x, normalized_shape, weight?, bias?, eps, cudnn_enable).
FailureOr<Values> convertLayerNorm(ForeignNode &node) {
  auto x = node.input(0);
  FailureOr<SmallVector<int64_t>> normalized = node.constantInts(1);
  if (failed(x) || failed(normalized))
    return failure();
  RankedTensorType type = x->getType();
  int64_t axis = type.getRank() - static_cast<int64_t>(normalized->size());
  if (axis < 0)
    return node.fail("normalized_shape has more dims than the input");
  ArrayRef<int64_t> trailing = type.getShape().drop_front(axis);
  for (auto [want, have] : llvm::zip_equal(*normalized, trailing))
    if (!ShapedType::isDynamic(have) && want != have)
      return node.fail("normalized_shape does not match the input's "
                       "trailing dims");
  Value params[2];
  for (unsigned i : {2u, 3u}) {
    if (!node.hasInput(i))
      continue;
    auto param = node.input(i);
    if (failed(param))
      return failure();
    if (param->getType().getShape() != ArrayRef<int64_t>(*normalized))
      return node.fail(Twine(i == 2 ? "weight" : "bias") +
                       " must have the normalized shape");
    params[i - 2] = castTo(node, *param, type.getElementType());
  }
  FailureOr<double> eps = scalarArg(node, 4, 1e-5);
  if (failed(eps))
    return failure();
  RewriterBase &rw = node.getRewriter();
  return Values{LayerNormOp::create(rw, node.getLoc(), type, *x, params[0],
                                    params[1], rw.getI64IntegerAttr(axis),
                                    rw.getF64FloatAttr(*eps))};
}

/// mean/sum(x, dims?, keepdim, dtype?); without dims over everything.
template <typename OpTy>
FailureOr<Values> convertReduce(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  SmallVector<int64_t> dims;
  bool keepdim = false;
  unsigned dtypeIndex = 1;
  if (node.getNumInputs() > 2 &&
      cast<RankedTensorType>(node.getOp().getInputs()[2].getType())
          .getElementType()
          .isInteger(1)) {
    // The dim overloads: (self, dim, keepdim, dtype).
    if (node.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> values = node.constantInts(1);
      if (failed(values))
        return failure();
      dims = *values;
    }
    FailureOr<int64_t> keep = intArg(node, 2);
    if (failed(keep))
      return failure();
    keepdim = *keep;
    dtypeIndex = 3;
  }
  if (dims.empty())
    dims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  FailureOr<Value> typed = castToDtypeArg(node, *x, dtypeIndex);
  if (failed(typed))
    return failure();
  Value input = *typed;
  if (rank == 0)
    return Values{input};
  FailureOr<SmallVector<int64_t>> axes = node.axes(dims, rank);
  if (failed(axes))
    return failure();
  typename OpTy::Properties properties;
  properties.dims = node.getRewriter().getDenseI64ArrayAttr(*axes);
  if (keepdim)
    properties.keepdim = node.getRewriter().getUnitAttr();
  return results(node.create<OpTy>({input}, properties));
}

/// scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal,
/// *, scale, enable_gqa): tsc.attention in the [B, H, S, D] layout. A bool
/// mask keeps where true and a float mask is added, as in both. torch
/// aligns a causal mask at the top left and tsc at the end: they agree when
/// query and key have one length, so other lengths are refused.
FailureOr<Values> convertScaledDotProductAttention(ForeignNode &node) {
  auto q = node.input(0);
  auto k = node.input(1);
  auto v = node.input(2);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  FailureOr<double> dropout = scalarArg(node, 4, 0.0);
  FailureOr<int64_t> causal =
      node.hasInput(5) ? intArg(node, 5) : FailureOr<int64_t>(0);
  if (failed(dropout) || failed(causal))
    return failure();
  if (*dropout != 0.0)
    return node.fail("dropout_p must be 0 in inference");
  if (q->getType().getRank() != 4 || k->getType().getRank() != 4)
    return node.fail("query and key must have rank 4 ([B, H, S, D])");
  int64_t sq = q->getType().getDimSize(2), skv = k->getType().getDimSize(2);
  if (*causal && (ShapedType::isDynamic(sq) || ShapedType::isDynamic(skv)
                      ? node.dimSize(*q, 2) != node.dimSize(*k, 2)
                      : sq != skv))
    return node.fail("is_causal with queries and keys of different lengths "
                     "is not supported");
  SmallVector<Value> operands = {*q, *k, *v};
  if (node.hasInput(3)) {
    auto mask = node.input(3);
    if (failed(mask))
      return failure();
    operands.push_back(*mask);
  }
  AttentionOp::Properties properties;
  RewriterBase &rw = node.getRewriter();
  if (*causal)
    properties.causal = rw.getUnitAttr();
  if (node.hasInput(6)) {
    FailureOr<double> scale = node.constantScalar(6);
    if (failed(scale))
      return failure();
    properties.scale = rw.getF64FloatAttr(*scale);
  }
  return results(node.create<AttentionOp>(operands, properties));
}

/// _native_batch_norm_legit_no_training(x, weight?, bias?, running_mean,
/// running_var, momentum, eps): (x - mean) / sqrt(var + eps) * w + b per
/// channel (dim 1); its other two results (saved statistics) are empty in
/// inference and must be unused.
FailureOr<Values> convertBatchNormInference(ForeignNode &node) {
  for (unsigned i = 1; i < node.getOp().getNumResults(); ++i)
    if (node.isOutputUsed(i))
      return node.fail("result #" + Twine(i) +
                       " (saved statistics) is not supported");
  auto x = node.input(0);
  auto mean = node.input(3);
  auto variance = node.input(4);
  FailureOr<double> eps = scalarArg(node, 6, 1e-5);
  if (failed(x) || failed(mean) || failed(variance) || failed(eps))
    return failure();
  int64_t rank = x->getType().getRank();
  if (rank < 2)
    return node.fail("input must have a channel dim (rank >= 2)");
  Type element = x->getType().getElementType();
  RewriterBase &rw = node.getRewriter();
  // [C] -> [C, 1, ...]: broadcast against [N, C, ...].
  auto perChannel = [&](Value param) {
    SmallVector<OpFoldResult> shape = {node.dimSize(param, 0)};
    shape.append(rank - 2, rw.getIndexAttr(1));
    return node.reshape(castTo(node, param, element), shape);
  };
  FailureOr<Value> variancePlusEps =
      node.create<AddOp>({perChannel(*variance), node.scalar(element, *eps)});
  if (failed(variancePlusEps))
    return failure();
  Value deviation =
      SqrtOp::create(node.getRewriter(), node.getLoc(), *variancePlusEps);
  FailureOr<Value> y = node.create<SubOp>({*x, perChannel(*mean)});
  if (succeeded(y))
    y = node.create<DivOp>({*y, deviation});
  for (unsigned i : {1u, 2u}) {
    if (failed(y) || !node.hasInput(i))
      continue;
    auto param = node.input(i);
    if (failed(param))
      return failure();
    y = i == 1 ? node.create<MulOp>({*y, perChannel(*param)})
               : node.create<AddOp>({*y, perChannel(*param)});
  }
  if (failed(y))
    return failure();
  Values out = {*y};
  out.resize(node.getOp().getNumResults(), Value());
  return out;
}

/// conv1d/conv2d/conv3d(x, weight, bias, stride, padding, dilation, groups)
/// and convolution(x, weight, bias, stride, padding, dilation, transposed,
/// output_padding, groups), also as _convolution (what torch.jit.trace
/// records for nn.Conv*d; its trailing backend flags do not change the
/// result); one-entry lists apply to every spatial dim.
/// String paddings ("same") are not supported.
FailureOr<Values> convertConvolution(ForeignNode &node) {
  StringRef name = node.getOp().getOpType();
  bool general = name == "convolution" || name == "_convolution";
  auto x = node.input(0);
  auto w = node.input(1);
  if (failed(x) || failed(w))
    return failure();
  int64_t spatial = w->getType().getRank() - 2;
  if (spatial < 1 || x->getType().getRank() != spatial + 2)
    return node.fail("needs an [N, C, spatial...] input and an [F, C, k...] "
                     "weight");
  if (general) {
    FailureOr<int64_t> transposed = intArg(node, 6);
    if (failed(transposed))
      return failure();
    if (*transposed)
      return node.fail("transposed convolution is not supported");
  }
  FailureOr<Value> bias = node.optionalInput(2);
  if (failed(bias))
    return failure();
  auto list = [&](unsigned i) -> FailureOr<SmallVector<int64_t>> {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(i);
    if (failed(values))
      return node.fail("argument #" + Twine(i) +
                       " must be a constant int list (string paddings are "
                       "not supported)");
    if (values->size() == 1)
      values->assign(spatial, values->front());
    if (static_cast<int64_t>(values->size()) != spatial)
      return node.fail("argument #" + Twine(i) + " has " +
                       Twine(values->size()) + " entries for " +
                       Twine(spatial) + " spatial dims");
    return values;
  };
  FailureOr<SmallVector<int64_t>> stride = list(3), padding = list(4),
                                  dilation = list(5);
  FailureOr<int64_t> groups = intArg(node, general ? 8 : 6);
  if (failed(stride) || failed(padding) || failed(dilation) || failed(groups))
    return failure();
  SmallVector<int64_t> pads(*padding);
  pads.append(padding->begin(), padding->end());
  return results(
      buildConvolution(node, *x, *w, *bias, *stride, pads, *dilation, *groups));
}

/// cumsum(x, dim, dtype): integers and bools sum in int64 unless a dtype is
/// given, as in torch.
FailureOr<Values> convertCumsum(ForeignNode &node) {
  auto x = node.input(0);
  FailureOr<int64_t> dim = intArg(node, 1);
  if (failed(x) || failed(dim))
    return failure();
  int64_t rank = x->getType().getRank();
  if (rank == 0)
    return node.fail("the input must have rank at least 1");
  FailureOr<int64_t> axis = node.axis(*dim, rank);
  RewriterBase &rw = node.getRewriter();
  Type element = x->getType().getElementType();
  FailureOr<Type> type =
      dtypeArg(node, 2, isa<IntegerType>(element) ? rw.getI64Type() : element);
  if (failed(axis) || failed(type))
    return failure();
  Value input = castTo(node, *x, *type);
  auto op =
      CumSumOp::create(rw, node.getLoc(), input.getType(), input, Value(),
                       rw.getI64IntegerAttr(*axis), UnitAttr(), UnitAttr());
  if (failed(node.verifyCreated(op)))
    return failure();
  return Values{op.getResult()};
}

} // namespace

void fromtorch::populateNNConverters(ForeignConverters &c) {
  c.add("aten::linear", 0, convertLinear);
  c.add("aten::matmul", 0, convertMatmul);
  c.add("aten::mm", 0, convertMatmul);
  c.add("aten::bmm", 0, convertMatmul);
  c.add("aten::addmm", 0, convertAddmm);
  c.add("aten::baddbmm", 0, convertAddmm);
  c.add("aten::softmax", 0, convertSoftmax<SoftmaxOp>);
  c.add("aten::log_softmax", 0, convertSoftmax<LogSoftmaxOp>);
  c.add("aten::layer_norm", 0, convertLayerNorm);
  c.add("aten::mean", 0, convertReduce<ReduceMeanOp>);
  c.add("aten::sum", 0, convertReduce<ReduceSumOp>);
  c.add("aten::cumsum", 0, convertCumsum);
  for (const char *name : {"aten::conv1d", "aten::conv2d", "aten::conv3d",
                           "aten::convolution", "aten::_convolution"})
    c.add(name, 0, convertConvolution);
  c.add("aten::scaled_dot_product_attention", 0,
        convertScaledDotProductAttention);
  c.add("aten::_native_batch_norm_legit_no_training", 0,
        convertBatchNormInference);
}
