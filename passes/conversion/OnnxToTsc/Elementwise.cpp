//===- Elementwise.cpp - ONNX elementwise ops, casts and constants --------===//

#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"
#include "passes/conversion/Foreign/Builders.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

template <typename OpTy>
FailureOr<Values> unary(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return Values{OpTy::create(node.getRewriter(), node.getLoc(), *x)};
}

template <typename OpTy>
FailureOr<Values> binary(ForeignNode &node) {
  auto lhs = node.input(0);
  auto rhs = node.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  return results(node.create<OpTy>({*lhs, *rhs}));
}

/// Max and Min take any number of inputs.
template <typename OpTy>
FailureOr<Values> variadic(ForeignNode &node) {
  auto acc = node.input(0);
  if (failed(acc))
    return failure();
  Value out = *acc;
  for (unsigned i = 1; i < node.getNumInputs(); ++i) {
    auto next = node.input(i);
    if (failed(next))
      return failure();
    FailureOr<Value> combined = node.create<OpTy>({out, *next});
    if (failed(combined))
      return failure();
    out = *combined;
  }
  return Values{out};
}

FailureOr<Values> convertWhere(ForeignNode &node) {
  auto condition = node.input(0);
  auto x = node.input(1);
  auto y = node.input(2);
  if (failed(condition) || failed(x) || failed(y))
    return failure();
  return results(node.create<WhereOp>({*condition, *x, *y}));
}

/// The result has the base's type; it computes in the type numpy promotes
/// the operands to (the ONNX reference's `np.power`): an integer base with a
/// float exponent in f64, a float base with a wider float exponent in the
/// exponent's type, else the base's type (integers power exactly).
FailureOr<Values> convertPow(ForeignNode &node) {
  auto base = node.input(0);
  auto exponent = node.input(1);
  if (failed(base) || failed(exponent))
    return failure();
  Type element = base->getType().getElementType();
  Type compute = element;
  if (auto wide = dyn_cast<FloatType>(exponent->getType().getElementType())) {
    if (!isa<FloatType>(element))
      compute = Float64Type::get(node.getContext());
    else if (wide.getWidth() > element.getIntOrFloatBitWidth())
      compute = wide;
  }
  FailureOr<Value> out = node.create<PowOp>(
      {castTo(node, *base, compute), castTo(node, *exponent, compute)});
  if (failed(out))
    return failure();
  return Values{castTo(node, *out, element)};
}

FailureOr<Values> convertGelu(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return results(buildGelu(node, *x, node.getString("approximate", "none")));
}

FailureOr<Values> convertClip(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RewriterBase &rw = node.getRewriter();
  FloatAttr min, max;
  Value out = *x;
  // Constant bounds become attributes; others clamp with max/min ops.
  for (auto [i, bound] : llvm::enumerate(std::array<FloatAttr *, 2>{&min, &max})) {
    if (!node.hasInput(i + 1))
      continue;
    if (FailureOr<double> v = node.constantScalar(i + 1); succeeded(v)) {
      *bound = rw.getF64FloatAttr(*v);
      continue;
    }
    auto limit = node.input(i + 1);
    if (failed(limit))
      return failure();
    FailureOr<Value> clamped = i == 0 ? node.create<MaxOp>({out, *limit})
                                      : node.create<MinOp>({out, *limit});
    if (failed(clamped))
      return failure();
    out = *clamped;
  }
  if (!min && !max && out != *x)
    return Values{out};
  return Values{ClipOp::create(rw, node.getLoc(), out, min, max)};
}

} // namespace

Type fromonnx::onnxElementType(MLIRContext *ctx, int64_t type) {
  Builder b(ctx);
  switch (type) {
  case 1:
    return b.getF32Type();
  case 2:
    return b.getIntegerType(8, /*isSigned=*/false);
  case 3:
    return b.getIntegerType(8);
  case 4:
    return b.getIntegerType(16, /*isSigned=*/false);
  case 5:
    return b.getIntegerType(16);
  case 6:
    return b.getIntegerType(32);
  case 7:
    return b.getIntegerType(64);
  case 9:
    return b.getI1Type();
  case 10:
    return b.getF16Type();
  case 11:
    return b.getF64Type();
  case 12:
    return b.getIntegerType(32, /*isSigned=*/false);
  case 13:
    return b.getIntegerType(64, /*isSigned=*/false);
  case 16:
    return b.getBF16Type();
  case 17:
    return b.getType<Float8E4M3FNType>();
  case 18:
    return b.getType<Float8E4M3FNUZType>();
  case 19:
    return b.getType<Float8E5M2Type>();
  case 20:
    return b.getType<Float8E5M2FNUZType>();
  case 21:
    return b.getIntegerType(4, /*isSigned=*/false);
  case 22:
    return b.getIntegerType(4);
  case 23:
    return b.getType<Float4E2M1FNType>();
  case 24:
    return b.getType<Float8E8M0FNUType>();
  case 25:
    return b.getIntegerType(2, /*isSigned=*/false);
  case 26:
    return b.getIntegerType(2);
  default:
    return {};
  }
}

namespace {

/// Cast and CastLike: `saturate` (default 1, since opset 19) for the 8-bit
/// floats, `round_mode` (default "up", since opset 24) for float8e8m0; the
/// other casts have neither.
FailureOr<Values> castWithAttributes(ForeignNode &node, Value x, Type element) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getElementType() == element)
    return Values{x};
  bool eightBitFloat =
      isa<FloatType>(element) && element.getIntOrFloatBitWidth() == 8;
  if (!eightBitFloat)
    return Values{castTo(node, x, element)};
  RewriterBase &rw = node.getRewriter();
  auto op = CastOp::create(rw, node.getLoc(), type.clone(element), x);
  if (node.getInt("saturate", 1))
    op.setSaturate(true);
  if (isa<Float8E8M0FNUType>(element)) {
    StringRef mode = node.getString("round_mode", "up");
    std::optional<ExponentRounding> rounding = symbolizeExponentRounding(mode);
    if (!rounding)
      return node.fail("unknown round_mode '" + mode + "'");
    op.setRoundMode(*rounding);
  }
  return Values{op.getResult()};
}

/// The element type attribute `to` names (Cast, BitCast).
FailureOr<Type> targetType(ForeignNode &node, StringRef what) {
  int64_t to = node.getInt("to", 0);
  Type element = onnxElementType(node.getContext(), to);
  if (!element)
    return node.fail(what + " to ONNX data type " + Twine(to) +
                     " is not supported");
  return element;
}

FailureOr<Values> convertCast(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<Type> element = targetType(node, "cast");
  if (failed(element))
    return failure();
  return castWithAttributes(node, *x, *element);
}

FailureOr<Values> convertCastLike(ForeignNode &node) {
  auto x = node.input(0);
  auto like = node.input(1);
  if (failed(x) || failed(like))
    return failure();
  return castWithAttributes(node, *x, like->getType().getElementType());
}

/// BitCast (opset 26): the same bits read as `to`, whose width must be the
/// input's (a bool is a byte).
FailureOr<Values> convertBitCast(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<Type> element = targetType(node, "bitcast");
  if (failed(element))
    return failure();
  auto op = BitcastOp::create(node.getRewriter(), node.getLoc(),
                              x->getType().clone(*element), *x);
  if (failed(node.verifyCreated(op)))
    return failure();
  return Values{op.getResult()};
}

FailureOr<Values> convertIdentity(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return Values{*x};
}

/// Inference (training_mode false): the identity, and an all-true mask.
FailureOr<Values> convertDropout(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (node.hasInput(2)) {
    FailureOr<SmallVector<int64_t>> training = node.constantInts(2);
    if (failed(training))
      return failure();
    if (training->size() != 1 || training->front() != 0)
      return node.fail("training_mode must be false");
  }
  if (!node.isOutputUsed(1))
    return Values{*x};
  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> sizes = node.sizes(*x);
  auto maskType = RankedTensorType::get(ForeignNode::staticShape(sizes),
                                        rw.getI1Type());
  Value one = ConstantOp::create(
      rw, node.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get({}, rw.getI1Type()), true));
  Value mask = ExpandOp::create(rw, node.getLoc(), maskType, one,
                                node.dynamicSizes(sizes));
  return Values{*x, mask};
}

FailureOr<Values> convertConstant(ForeignNode &node) {
  RewriterBase &rw = node.getRewriter();
  DictionaryAttr attrs = node.getOp().getSourceAttributes();
  ElementsAttr value;
  if (auto tensor = attrs.getAs<ElementsAttr>("value")) {
    value = tensor;
  } else if (auto f = attrs.getAs<FloatAttr>("value_float")) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, rw.getF32Type()),
                                   f.getValue());
  } else if (auto i = attrs.getAs<IntegerAttr>("value_int")) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, rw.getI64Type()),
                                   i.getValue());
  } else if (auto fs = attrs.getAs<DenseF32ArrayAttr>("value_floats")) {
    value = DenseElementsAttr::get(
        RankedTensorType::get({fs.size()}, rw.getF32Type()), fs.asArrayRef());
  } else if (auto is = attrs.getAs<DenseI64ArrayAttr>("value_ints")) {
    value = DenseElementsAttr::get(
        RankedTensorType::get({is.size()}, rw.getI64Type()), is.asArrayRef());
  } else {
    return node.fail("Constant has no value attribute tsc supports "
                     "(value, value_float(s), value_int(s))");
  }
  return Values{ConstantOp::create(rw, node.getLoc(), value)};
}

} // namespace

/// Registered at the first opset with today's semantics; later versions only
/// added element types.
void fromonnx::populateElementwiseConverters(ForeignConverters &c) {
  c.add("Neg", 6, unary<NegOp>);
  c.add("Abs", 6, unary<AbsOp>);
  c.add("Exp", 6, unary<ExpOp>);
  c.add("Log", 6, unary<LogOp>);
  c.add("Sqrt", 6, unary<SqrtOp>);
  c.add("Reciprocal", 6, unary<ReciprocalOp>);
  c.add("Tanh", 6, unary<TanhOp>);
  c.add("Erf", 9, unary<ErfOp>);
  c.add("Sigmoid", 6, unary<SigmoidOp>);
  c.add("Relu", 6, unary<ReluOp>);
  c.add("Sin", 7, unary<SinOp>);
  c.add("Cos", 7, unary<CosOp>);
  c.add("Not", 1, unary<NotOp>);
  c.add("Gelu", 20, convertGelu);
  c.add("Add", 7, binary<AddOp>);
  c.add("Sub", 7, binary<SubOp>);
  c.add("Mul", 7, binary<MulOp>);
  c.add("Div", 7, binary<DivOp>);
  c.add("Pow", 7, convertPow);
  c.add("Max", 8, variadic<MaxOp>);
  c.add("Min", 8, variadic<MinOp>);
  c.add("Equal", 11, binary<EqualOp>);
  c.add("Less", 9, binary<LessOp>);
  c.add("Greater", 9, binary<GreaterOp>);
  c.add("And", 7, binary<AndOp>);
  c.add("Or", 7, binary<OrOp>);
  c.add("Where", 9, convertWhere);
  c.add("Clip", 11, convertClip);
  c.add("Cast", 9, convertCast);
  c.add("CastLike", 15, convertCastLike);
  c.add("BitCast", 26, convertBitCast);
  c.add("Identity", 1, convertIdentity);
  c.add("Dropout", 7, convertDropout);
  c.add("Constant", 9, convertConstant);
}
