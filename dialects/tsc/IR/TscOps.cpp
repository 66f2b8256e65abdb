//===- TscOps.cpp - verifiers and result inference: math, norms, attention -===//
//
// Shape ops (reshape, slice, ...) and the symbolic-dimension ops live in
// TscShapeOps.cpp; folders in TscFolders.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/tsc/IR/TscOpUtils.h"
#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::util;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

std::string util::dimToString(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

LogicalResult util::broadcastInto(std::optional<Location> loc,
                                    SmallVectorImpl<int64_t> &acc,
                                    ArrayRef<int64_t> shape) {
  if (shape.size() > acc.size())
    acc.insert(acc.begin(), shape.size() - acc.size(), 1);
  size_t offset = acc.size() - shape.size();
  for (auto [i, dim] : llvm::enumerate(shape)) {
    int64_t &out = acc[offset + i];
    if (dim == 1 || out == dim)
      continue;
    if (out == 1 || ShapedType::isDynamic(out)) {
      // `?` against a static size: the static size is the only legal outcome
      // (or 1, which broadcasts to it).
      out = dim;
      continue;
    }
    if (ShapedType::isDynamic(dim))
      continue;
    return emitOptionalError(loc, "operand shapes do not broadcast: dim ",
                             offset + i, " is ", out, " in one operand and ",
                             dim, " in another");
  }
  return success();
}

LogicalResult util::verifyDimList(std::optional<Location> loc,
                                    StringRef what, ArrayRef<int64_t> dims,
                                    int64_t rank) {
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= rank)
      return emitOptionalError(loc, what, " ", dim, " is out of range [0, ",
                               rank, ")");
    if (i > 0 && dims[i - 1] >= dim)
      return emitOptionalError(loc, what,
                               " must be strictly increasing, got [",
                               llvm::make_range(dims.begin(), dims.end()),
                               "]");
  }
  return success();
}

LogicalResult util::verifyAxis(std::optional<Location> loc, int64_t axis,
                                 int64_t rank) {
  if (axis < 0 || axis >= rank)
    return emitOptionalError(loc, "axis ", axis, " is out of range [0, ",
                             rank, ")");
  return success();
}

LogicalResult util::verifyAxis(Operation *op, StringRef name, int64_t axis,
                              int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError(name)
           << " " << axis << " is out of range [0, " << rank << ")";
  return success();
}

std::string util::shapeToString(ArrayRef<int64_t> shape) {
  std::string out = "[";
  for (auto [i, dim] : llvm::enumerate(shape))
    out += (i ? ", " : "") + dimToString(dim);
  return out + "]";
}

Operation *tsc::getValuesProducer(Value value) {
  Operation *op = value.getDefiningOp();
  while (op &&
         (isa<CastOp>(op) || op->hasTrait<OpTrait::tsc::RearrangesElements>()))
    op = op->getOperand(0).getDefiningOp();
  return op;
}

bool tsc::areRefinements(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [want, have] : llvm::zip_equal(inferred, actual)) {
    auto wantTensor = dyn_cast<RankedTensorType>(want);
    auto haveTensor = dyn_cast<RankedTensorType>(have);
    if (!wantTensor || !haveTensor) {
      if (want != have)
        return false;
      continue;
    }
    if (wantTensor.getElementType() != haveTensor.getElementType() ||
        wantTensor.getRank() != haveTensor.getRank())
      return false;
    for (auto [w, h] : llvm::zip_equal(wantTensor.getShape(),
                                       haveTensor.getShape()))
      if (!ShapedType::isDynamic(w) && w != h)
        return false;
  }
  return true;
}

LogicalResult tsc::inferElementwiseResult(std::optional<Location> loc,
                                          TypeRange operands, bool comparison,
                                          SmallVectorImpl<Type> &results) {
  SmallVector<int64_t> shape;
  Type element;
  for (Type type : operands) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return emitOptionalError(loc, "expected ranked tensor operands, got ",
                               type);
    if (element && tensor.getElementType() != element)
      return emitOptionalError(loc, "operands have different element types ",
                               element, " and ", tensor.getElementType());
    element = tensor.getElementType();
    if (failed(broadcastInto(loc, shape, tensor.getShape())))
      return failure();
  }
  if (comparison)
    element = IntegerType::get(element.getContext(), 1);
  results.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult tsc::inferReductionResult(std::optional<Location> loc,
                                        Value input, ArrayRef<int64_t> dims,
                                        bool keepdim,
                                        SmallVectorImpl<Type> &results) {
  auto type = cast<RankedTensorType>(input.getType());
  if (dims.empty())
    return emitOptionalError(loc, "reduction needs at least one dim");
  if (failed(verifyDimList(loc, "reduction dim", dims, type.getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [i, dim] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(i)))
      shape.push_back(dim);
    else if (keepdim)
      shape.push_back(1);
  }
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult ClipOp::verify() {
  if (getMin() && getMax() && getMin()->convertToDouble() >
                                  getMax()->convertToDouble())
    return emitOpError("min ") << getMin()->convertToDouble()
                               << " is greater than max "
                               << getMax()->convertToDouble();
  return success();
}

LogicalResult CastOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getShape() != out.getShape())
    return emitOpError("changes the shape from ")
           << in << " to " << out << "; cast converts element types only";
  // An 8-bit float result saturates from any type (ONNX Cast's rules).
  bool eightBitFloat = isa<FloatType>(out.getElementType()) &&
                       out.getElementType().getIntOrFloatBitWidth() == 8;
  if (getSaturate() && !eightBitFloat &&
      !(isa<FloatType>(in.getElementType()) &&
        isa<FloatType>(out.getElementType())))
    return emitOpError("saturate applies to float-to-float casts and casts "
                       "to 8-bit floats, not ")
           << in.getElementType() << " to " << out.getElementType();
  if (getRoundMode() && !isa<Float8E8M0FNUType>(out.getElementType()))
    return emitOpError("round_mode applies to casts to f8E8M0FNU, not to ")
           << out.getElementType();
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  auto cond = cast<RankedTensorType>(adaptor.getCondition().getType());
  SmallVector<int64_t> shape(cond.getShape());
  SmallVector<Type> valueResult;
  if (failed(inferElementwiseResult(
          loc,
          {adaptor.getTrueValue().getType(), adaptor.getFalseValue().getType()},
          /*comparison=*/false, valueResult)))
    return failure();
  auto values = cast<RankedTensorType>(valueResult.front());
  if (failed(broadcastInto(loc, shape, values.getShape())))
    return failure();
  results.push_back(RankedTensorType::get(shape, values.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  if (lhs.getRank() == 0 || rhs.getRank() == 0)
    return emitOptionalError(loc, "matmul operands must have rank >= 1");
  Type element = lhs.getElementType();
  if (rhs.getElementType() != element)
    return emitOptionalError(loc, "operands have different element types ",
                             element, " and ", rhs.getElementType());
  Type resultElement = element;
  if (auto integer = dyn_cast<IntegerType>(element))
    if (integer.getWidth() <= 16)
      resultElement = IntegerType::get(ctx, 32);
  // 8-bit floats (fp8 GEMMs) accumulate into f32.
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() <= 8)
    resultElement = Float32Type::get(ctx);

  // A 1-D operand is a vector: [K] acts as [1, K] on the left, [K, 1] on the
  // right, and the unit dim is dropped from the result.
  ArrayRef<int64_t> l = lhs.getShape(), r = rhs.getShape();
  int64_t k1 = l.back();
  int64_t k2 = r.size() == 1 ? r[0] : r[r.size() - 2];
  if (!dimsCompatible(k1, k2))
    return emitOptionalError(loc, "contraction dims differ: ", k1, " vs ", k2);
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> lBatch = l.size() > 2 ? l.drop_back(2) : ArrayRef<int64_t>();
  ArrayRef<int64_t> rBatch = r.size() > 2 ? r.drop_back(2) : ArrayRef<int64_t>();
  if (failed(broadcastInto(loc, shape, lBatch)) ||
      failed(broadcastInto(loc, shape, rBatch)))
    return failure();
  if (l.size() >= 2)
    shape.push_back(l[l.size() - 2]);
  if (r.size() >= 2)
    shape.push_back(r.back());
  results.push_back(RankedTensorType::get(shape, resultElement));
  return success();
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  if (input.getRank() < 1 || weight.getRank() != 2)
    return emitOptionalError(
        loc, "expects an input of rank >= 1 and a weight of rank 2 [N, K]");
  if (weight.getElementType() != input.getElementType())
    return emitOptionalError(loc, "weight element type ",
                             weight.getElementType(), " differs from input's ",
                             input.getElementType());
  bool kn = adaptor.getWeightKn();
  int64_t n = weight.getDimSize(kn ? 1 : 0), k = weight.getDimSize(kn ? 0 : 1);
  if (!dimsCompatible(input.getShape().back(), k))
    return emitOptionalError(loc, "input features ", input.getShape().back(),
                             " do not match weight ",
                             kn ? "[K, N]" : "[N, K]", " with K = ", k);
  if (Value bias = adaptor.getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 || !dimsCompatible(biasType.getDimSize(0), n) ||
        biasType.getElementType() != input.getElementType())
      return emitOptionalError(loc, "bias must be a 1-D tensor of ", n, " ",
                               input.getElementType(), ", got ", biasType);
  }
  SmallVector<int64_t> shape(input.getShape().drop_back());
  shape.push_back(n);
  auto result = RankedTensorType::get(shape, input.getElementType());
  if (Value residual = adaptor.getResidual()) {
    auto residualType = cast<RankedTensorType>(residual.getType());
    if (residualType.getElementType() != input.getElementType() ||
        residualType.getRank() != result.getRank() ||
        !llvm::all_of_zip(residualType.getShape(), shape, dimsCompatible))
      return emitOptionalError(loc, "residual must have the result's type ",
                               result, ", got ", residualType);
  }
  results.push_back(result);
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax and norms
//===----------------------------------------------------------------------===//

template <typename Op>
static LogicalResult verifySoftmax(Op op) {
  return verifyAxis(op, "axis", static_cast<int64_t>(op.getAxis()),
                    op.getInput().getType().getRank());
}
LogicalResult SoftmaxOp::verify() { return verifySoftmax(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifySoftmax(*this); }

/// Checks a norm's axis and that `param` (scale or bias) has the shape of the
/// normalized dims [axis, rank) and the input's element type.
static LogicalResult verifyNorm(Operation *op, Value input, int64_t axis,
                                ArrayRef<std::pair<StringRef, Value>> params) {
  auto type = cast<RankedTensorType>(input.getType());
  if (failed(verifyAxis(op, "axis", axis, type.getRank())))
    return failure();
  ArrayRef<int64_t> normalized = type.getShape().drop_front(axis);
  for (auto [name, param] : params) {
    if (!param)
      continue;
    auto paramType = cast<RankedTensorType>(param.getType());
    bool shapeOk = paramType.getRank() ==
                       static_cast<int64_t>(normalized.size()) &&
                   llvm::all_of(llvm::zip_equal(paramType.getShape(),
                                                normalized),
                                [](auto dims) {
                                  return dimsCompatible(std::get<0>(dims),
                                                        std::get<1>(dims));
                                });
    if (!shapeOk || paramType.getElementType() != type.getElementType())
      return op->emitOpError()
             << name << " must have the normalized shape "
             << shapeToString(normalized) << " and element type "
             << type.getElementType() << ", got " << paramType;
  }
  return success();
}

LogicalResult LayerNormOp::verify() {
  return verifyNorm(*this, getInput(), static_cast<int64_t>(getAxis()),
                    {{"scale", getScale()}, {"bias", getBias()}});
}

LogicalResult RmsNormOp::verify() {
  return verifyNorm(*this, getInput(), static_cast<int64_t>(getAxis()),
                    {{"scale", getScale()}});
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto q = cast<RankedTensorType>(adaptor.getQuery().getType());
  auto k = cast<RankedTensorType>(adaptor.getKey().getType());
  auto v = cast<RankedTensorType>(adaptor.getValue().getType());
  if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4)
    return emitOptionalError(
        loc, "query, key and value must be rank 4 [batch, heads, seq, dim]");
  if (k.getElementType() != q.getElementType() ||
      v.getElementType() != q.getElementType())
    return emitOptionalError(loc, "query, key and value element types differ");
  // Sequence and head dims: [B, H, S, D], or [B, S, H, D] with bshd.
  int64_t s = adaptor.getBshd() ? 1 : 2, h = adaptor.getBshd() ? 2 : 1;
  auto check = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return emitOptionalError(loc, what, " (query ", q, ", key ", k, ", value ",
                             v, ")");
  };
  if (failed(check(dimsCompatible(q.getDimSize(0), k.getDimSize(0)) &&
                       dimsCompatible(q.getDimSize(0), v.getDimSize(0)) &&
                       dimsCompatible(k.getDimSize(0), v.getDimSize(0)),
                   "batch sizes differ")) ||
      failed(check(dimsCompatible(k.getDimSize(h), v.getDimSize(h)),
                   "key and value head counts differ")) ||
      failed(check(dimsCompatible(k.getDimSize(s), v.getDimSize(s)),
                   "key and value sequence lengths differ")) ||
      failed(check(dimsCompatible(q.getDimSize(3), k.getDimSize(3)),
                   "query and key head dims differ")))
    return failure();
  int64_t heads = q.getDimSize(h), kvHeads = k.getDimSize(h);
  if (!ShapedType::isDynamic(heads) && !ShapedType::isDynamic(kvHeads) &&
      (kvHeads == 0 || heads % kvHeads != 0))
    return emitOptionalError(loc, "query heads (", heads,
                             ") must be a multiple of key/value heads (",
                             kvHeads, ")");
  if (Value mask = adaptor.getMask()) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    Type maskElement = maskType.getElementType();
    if (!maskElement.isInteger(1) && maskElement != q.getElementType())
      return emitOptionalError(loc, "mask must be i1 or ", q.getElementType(),
                               ", got ", maskElement);
    SmallVector<int64_t> scores = {q.getDimSize(0), heads, q.getDimSize(s),
                                   k.getDimSize(s)};
    // The mask broadcasts *to* the scores: combining the two may not change
    // a static dim of the scores (e.g. a mask of 7 rows against Sq = 1).
    SmallVector<int64_t> combined(scores);
    if (maskType.getRank() > 4 ||
        failed(broadcastInto(std::nullopt, combined, maskType.getShape())) ||
        !areRefinements(RankedTensorType::get(scores, maskElement),
                        RankedTensorType::get(combined, maskElement)))
      return emitOptionalError(loc, "mask ", maskType,
                               " does not broadcast to the scores ",
                               shapeToString(scores));
  }
  if (auto scale = adaptor.getScale(); scale && !scale->isFiniteNonZero())
    return emitOptionalError(loc, "scale must be finite and nonzero");
  // Both layouts keep query's first three dims.
  results.push_back(RankedTensorType::get(
      {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), v.getDimSize(3)},
      q.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// Checks quantization parameters of `data` against the granularity rules in
/// tsc.quantize's description.
static LogicalResult verifyQuantParams(Operation *op, RankedTensorType data,
                                       Value scale, Value zeroPoint,
                                       Type quantizedElement,
                                       std::optional<uint64_t> axisAttr,
                                       std::optional<uint64_t> groupAttr) {
  auto scaleType = cast<RankedTensorType>(scale.getType());
  if (zeroPoint) {
    auto zpType = cast<RankedTensorType>(zeroPoint.getType());
    if (zpType.getShape() != scaleType.getShape() ||
        zpType.getElementType() != quantizedElement)
      return op->emitOpError("zero point must have the scale's shape and the "
                             "quantized element type ")
             << quantizedElement << ", got " << zpType;
  }
  if (!axisAttr) {
    if (groupAttr)
      return op->emitOpError("group_size needs an axis");
    if (scaleType.getRank() != 0)
      return op->emitOpError("per-tensor quantization needs a 0-d scale, got ")
             << scaleType;
    return success();
  }
  auto axis = static_cast<int64_t>(*axisAttr);
  if (failed(verifyAxis(op, "axis", axis, data.getRank())))
    return failure();
  int64_t extent = data.getDimSize(axis);
  if (!groupAttr) {
    if (scaleType.getRank() != 1 ||
        !dimsCompatible(scaleType.getDimSize(0), extent))
      return op->emitOpError("per-channel quantization along axis ")
             << axis << " needs a 1-D scale of " << dimToString(extent)
             << " elements, got " << scaleType;
    return success();
  }
  auto group = static_cast<int64_t>(*groupAttr);
  if (group <= 0)
    return op->emitOpError("group_size must be positive, got ") << group;
  SmallVector<int64_t> expected(data.getShape());
  if (!ShapedType::isDynamic(extent))
    expected[axis] = llvm::divideCeil(extent, group);
  if (!areRefinements(RankedTensorType::get(expected, quantizedElement),
                      RankedTensorType::get(scaleType.getShape(),
                                            quantizedElement)))
    return op->emitOpError("per-group quantization needs a scale of shape ")
           << shapeToString(expected) << " (ceil(dim / group_size) along axis "
           << axis << "), got " << scaleType;
  return success();
}

LogicalResult QuantizeOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError("result shape differs from input shape");
  if (getScale().getType().getElementType() != in.getElementType())
    return emitOpError("scale element type must match the input's");
  if (getSaturate() && !isa<FloatType>(out.getElementType()))
    return emitOpError("saturate applies to float results, not ")
           << out.getElementType();
  return verifyQuantParams(*this, in, getScale(), getZeroPoint(),
                           out.getElementType(), getAxis(), getGroupSize());
}

LogicalResult DequantizeOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError("result shape differs from input shape");
  if (getScale().getType().getElementType() != out.getElementType())
    return emitOpError("scale element type must match the result's");
  return verifyQuantParams(*this, in, getScale(), getZeroPoint(),
                           in.getElementType(), getAxis(), getGroupSize());
}

LogicalResult QuantizedMatmulOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  if (lhs.getRank() < 1 || rhs.getRank() != 2)
    return emitOptionalError(
        loc, "expects lhs of rank >= 1 and a quantized rhs of rank 2 [K, N]");
  if (!dimsCompatible(lhs.getShape().back(), rhs.getDimSize(0)))
    return emitOptionalError(loc, "contraction dims differ: ",
                             lhs.getShape().back(), " vs ", rhs.getDimSize(0));
  SmallVector<int64_t> shape(lhs.getShape().drop_back());
  shape.push_back(rhs.getDimSize(1));
  results.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

LogicalResult QuantizedMatmulOp::verify() {
  if (getRhsScale().getType().getElementType() !=
      getLhs().getType().getElementType())
    return emitOpError("scale element type must match lhs's");
  std::optional<uint64_t> axis = getAxis();
  bool perTensor = !axis && !getGroupSize();
  bool perChannel = axis == 1u && !getGroupSize();
  bool perGroup = axis == 0u && getGroupSize();
  if (!perTensor && !perChannel && !perGroup)
    return emitOpError("quantizes the weight per tensor, per output channel "
                       "(axis = 1) or per group along K (axis = 0 with "
                       "group_size)");
  return verifyQuantParams(*this, getRhs().getType(), getRhsScale(),
                           getRhsZeroPoint(), getRhs().getType().getElementType(),
                           getAxis(), getGroupSize());
}
