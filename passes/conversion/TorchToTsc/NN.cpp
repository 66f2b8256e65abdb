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

/// addmm(input, a, b, beta, alpha) = beta * input + alpha * (a @ b).
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

} // namespace

void fromtorch::populateNNConverters(ForeignConverters &c) {
  c.add("aten::linear", 0, convertLinear);
  c.add("aten::matmul", 0, convertMatmul);
  c.add("aten::mm", 0, convertMatmul);
  c.add("aten::bmm", 0, convertMatmul);
  c.add("aten::addmm", 0, convertAddmm);
  c.add("aten::softmax", 0, convertSoftmax<SoftmaxOp>);
  c.add("aten::log_softmax", 0, convertSoftmax<LogSoftmaxOp>);
  c.add("aten::layer_norm", 0, convertLayerNorm);
  c.add("aten::mean", 0, convertReduce<ReduceMeanOp>);
  c.add("aten::sum", 0, convertReduce<ReduceSumOp>);
}
