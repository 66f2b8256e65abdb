//===- Reduction.cpp - ONNX reductions, softmax and normalizations --------===//

#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// Reduce* with axes from an attribute (opset 13 for all but ReduceSum) or
/// from the optional second input (ReduceSum 13, the others from 18).
template <typename OpTy, bool axesAsInput>
FailureOr<Values> convertReduce(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = x->getType().getRank();
  SmallVector<int64_t> axes;
  if (axesAsInput) {
    if (node.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> values = node.constantInts(1);
      if (failed(values))
        return failure();
      axes = *values;
    }
  } else if (std::optional<SmallVector<int64_t>> values = node.getInts("axes")) {
    axes = *values;
  }
  if (axes.empty()) {
    if (node.getInt("noop_with_empty_axes", 0))
      return Values{*x};
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  if (rank == 0)
    return Values{*x};
  FailureOr<SmallVector<int64_t>> dims = node.axes(axes, rank);
  if (failed(dims))
    return failure();
  typename OpTy::Properties properties;
  properties.dims = node.getRewriter().getDenseI64ArrayAttr(*dims);
  if (node.getInt("keepdims", 1))
    properties.keepdim = node.getRewriter().getUnitAttr();
  return results(node.create<OpTy>({*x}, properties));
}

template <typename OpTy>
FailureOr<Values> convertSoftmax(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", -1), x->getType().getRank());
  if (failed(axis))
    return failure();
  return Values{OpTy::create(node.getRewriter(), node.getLoc(), *x,
                             static_cast<uint64_t>(*axis))};
}

/// Checks that a norm's scale or bias has exactly the normalized shape, which
/// is what tsc's norms take (ONNX also allows broadcastable shapes).
LogicalResult checkNormParam(ForeignNode &node, Value param, StringRef name,
                             RankedTensorType input, int64_t axis) {
  auto type = cast<RankedTensorType>(param.getType());
  ArrayRef<int64_t> normalized = input.getShape().drop_front(axis);
  if (type.getElementType() != input.getElementType())
    return node.fail(name + " has element type different from the input's");
  if (type.getShape() != normalized && !(
          type.getRank() == static_cast<int64_t>(normalized.size()) &&
          llvm::all_of(llvm::zip_equal(type.getShape(), normalized), [](auto p) {
            return ShapedType::isDynamic(std::get<1>(p)) ||
                   std::get<0>(p) == std::get<1>(p);
          })))
    return node.fail(name + " must have the normalized shape of the input "
                     "(broadcast scales are not supported)");
  return success();
}

/// The input, scale and normalized axis every norm node starts with.
struct NormOperands {
  TypedValue<RankedTensorType> x;
  Value scale;
  int64_t axis;
};

FailureOr<NormOperands> normOperands(ForeignNode &node) {
  auto x = node.input(0);
  auto scale = node.input(1);
  if (failed(x) || failed(scale))
    return failure();
  FailureOr<int64_t> axis =
      node.axis(node.getInt("axis", -1), x->getType().getRank());
  if (failed(axis) ||
      failed(checkNormParam(node, *scale, "scale", x->getType(), *axis)))
    return failure();
  return NormOperands{*x, *scale, *axis};
}

FailureOr<Values> convertLayerNorm(ForeignNode &node) {
  FailureOr<NormOperands> operands = normOperands(node);
  if (failed(operands))
    return failure();
  auto [x, scale, axis] = *operands;
  RankedTensorType type = x.getType();
  Value bias;
  if (node.hasInput(2)) {
    auto b = node.input(2);
    if (failed(b) || failed(checkNormParam(node, *b, "bias", type, axis)))
      return failure();
    bias = *b;
  }
  RewriterBase &rw = node.getRewriter();
  float epsilon = node.getFloat("epsilon", 1e-5f);
  Value y = LayerNormOp::create(rw, node.getLoc(), type, x, scale, bias,
                                rw.getI64IntegerAttr(axis),
                                rw.getF64FloatAttr(epsilon));
  if (!node.isOutputUsed(1) && !node.isOutputUsed(2))
    return Values{y};
  // The statistics outputs, as training graphs export them: mean and
  // 1/sqrt(var + epsilon) over the normalized dims, kept as size-1 dims.
  ReduceMeanOp::Properties stats;
  stats.dims = rw.getDenseI64ArrayAttr(
      llvm::to_vector(llvm::seq<int64_t>(axis, type.getRank())));
  stats.keepdim = rw.getUnitAttr();
  FailureOr<Value> mean = node.create<ReduceMeanOp>({x}, stats);
  if (failed(mean))
    return failure();
  FailureOr<Value> centered = node.create<SubOp>({x, *mean});
  if (failed(centered))
    return failure();
  FailureOr<Value> squared = node.create<MulOp>({*centered, *centered});
  if (failed(squared))
    return failure();
  FailureOr<Value> variance = node.create<ReduceMeanOp>({*squared}, stats);
  if (failed(variance))
    return failure();
  FailureOr<Value> shifted = node.create<AddOp>(
      {*variance, node.scalar(type.getElementType(), epsilon)});
  if (failed(shifted))
    return failure();
  Value invStdDev = RsqrtOp::create(rw, node.getLoc(), *shifted);
  return Values{y, *mean, invStdDev};
}

FailureOr<Values> convertRmsNorm(ForeignNode &node) {
  FailureOr<NormOperands> operands = normOperands(node);
  if (failed(operands))
    return failure();
  auto [x, scale, axis] = *operands;
  RewriterBase &rw = node.getRewriter();
  return Values{RmsNormOp::create(
      rw, node.getLoc(), x.getType(), x, scale, rw.getI64IntegerAttr(axis),
      rw.getF64FloatAttr(node.getFloat("epsilon", 1e-5f)))};
}

} // namespace

void fromonnx::populateReductionConverters(ForeignConverters &c) {
  c.add("ReduceSum", 1, convertReduce<ReduceSumOp, false>);
  c.add("ReduceSum", 13, convertReduce<ReduceSumOp, true>);
  c.add("ReduceMean", 1, convertReduce<ReduceMeanOp, false>);
  c.add("ReduceMean", 18, convertReduce<ReduceMeanOp, true>);
  c.add("ReduceMax", 1, convertReduce<ReduceMaxOp, false>);
  c.add("ReduceMax", 18, convertReduce<ReduceMaxOp, true>);
  c.add("ReduceMin", 1, convertReduce<ReduceMinOp, false>);
  c.add("ReduceMin", 18, convertReduce<ReduceMinOp, true>);
  c.add("Softmax", 13, convertSoftmax<SoftmaxOp>);
  c.add("LogSoftmax", 13, convertSoftmax<LogSoftmaxOp>);
  c.add("LayerNormalization", 17, convertLayerNorm);
  c.add("RMSNormalization", 23, convertRmsNorm);
}
