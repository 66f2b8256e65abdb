//===- Elementwise.cpp - TorchScript arithmetic, activations and casts ----===//

#include "passes/conversion/TorchToTsc/TorchToTsc.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::foreign;
using namespace mlir::tsc::fromtorch;

namespace {

/// Operands `indices` as tensors, cast to their promoted element type
/// (`zeroDimTensors` as promotedElementType takes it).
FailureOr<SmallVector<Value>>
promotedInputs(ForeignNode &node, ArrayRef<unsigned> indices,
               ArrayRef<bool> zeroDimTensors = {}) {
  SmallVector<Value> values;
  for (unsigned i : indices) {
    auto value = node.input(i);
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  return promoted(node, values, zeroDimTensors);
}

/// `x * alpha` for the alpha argument at `index` (absent or 1: `x`).
FailureOr<Value> scaledByAlpha(ForeignNode &node, Value x, unsigned index) {
  if (!node.hasInput(index))
    return x;
  FailureOr<double> alpha = node.constantScalar(index);
  if (failed(alpha))
    return failure();
  if (*alpha == 1.0)
    return x;
  Type element = cast<RankedTensorType>(x.getType()).getElementType();
  return node.create<MulOp>({x, node.scalar(element, *alpha)});
}

/// add, sub (self op alpha * other) and rsub (other - alpha * self).
template <typename OpTy, bool reversed = false>
FailureOr<Values> convertAddSub(ForeignNode &node) {
  if (overload(node) == "t")
    return node.fail("list concatenation is not supported");
  FailureOr<SmallVector<Value>> operands = promotedInputs(node, {0, 1});
  if (failed(operands))
    return failure();
  Value lhs = (*operands)[0], rhs = (*operands)[1];
  if (reversed)
    std::swap(lhs, rhs);
  FailureOr<Value> scaled = scaledByAlpha(node, rhs, 2);
  if (failed(scaled))
    return failure();
  return results(node.create<OpTy>({lhs, *scaled}));
}

template <typename OpTy>
FailureOr<Values> convertBinary(ForeignNode &node) {
  FailureOr<SmallVector<Value>> operands = promotedInputs(node, {0, 1});
  if (failed(operands))
    return failure();
  return results(node.create<OpTy>(*operands));
}

/// Comparisons, with `negate` for the one tsc spells as a negation
/// (ne = !eq, which is also true where either side is NaN).
template <typename OpTy, bool negate = false>
FailureOr<Values> convertCompare(ForeignNode &node) {
  FailureOr<SmallVector<Value>> operands = promotedInputs(node, {0, 1});
  if (failed(operands))
    return failure();
  FailureOr<Value> out = node.create<OpTy>(*operands);
  if (failed(out) || !negate)
    return results(out);
  return Values{NotOp::create(node.getRewriter(), node.getLoc(), *out)};
}

/// True division; with rounding_mode, integer division of sizes.
FailureOr<Values> convertDiv(ForeignNode &node) {
  FailureOr<SmallVector<Value>> operands = promotedInputs(node, {0, 1});
  if (failed(operands))
    return failure();
  StringRef rounding = node.getString("rounding_mode", "");
  auto type = cast<RankedTensorType>((*operands)[0].getType());
  bool integer = isa<IntegerType>(type.getElementType());
  if (!rounding.empty() || node.getOp().getOpType() != "div") {
    // floor_divide, floordiv and rounded div: shape arithmetic on sizes,
    // where floor and truncation agree.
    bool sizes = llvm::all_of(*operands, [](Value v) {
      return cast<RankedTensorType>(v.getType()).getRank() == 0;
    });
    if (!integer || !sizes)
      return node.fail("rounded division is supported for integer scalars "
                       "(sizes) only");
    return results(node.create<DivOp>(*operands));
  }
  if (integer) {
    // Integer true division gives floats, f32 for tensors as in torch.
    bool scalars = llvm::all_of(*operands, [](Value v) {
      return cast<RankedTensorType>(v.getType()).getRank() == 0;
    });
    Builder b(node.getContext());
    Type element = scalars ? Type(b.getF64Type()) : b.getF32Type();
    for (Value &operand : *operands)
      operand = castTo(node, operand, element);
  }
  return results(node.create<DivOp>(*operands));
}

/// Ops defined on floats: integer inputs become f32, as torch does. Python
/// math on scalars (`math.sqrt(head_dim)`, overloads `int`/`float`/
/// `Scalar`) gives an f64 and is folded when the scalar is a constant, so
/// the attention scale stays a constant.
template <typename OpTy, double (*fold)(double)>
FailureOr<Values> convertFloatUnary(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  bool pythonScalar = !overload(node).empty();
  Type element = x->getType().getElementType();
  if (!isa<FloatType>(element))
    element = pythonScalar ? Type(Float64Type::get(node.getContext()))
                           : Type(Float32Type::get(node.getContext()));
  Attribute value;
  if (x->getType().getRank() == 0 && matchPattern(*x, m_Constant(&value))) {
    FailureOr<double> operand = node.constantScalar(0);
    if (succeeded(operand))
      return Values{node.scalar(element, fold(*operand))};
  }
  Value input = castTo(node, *x, element);
  return Values{OpTy::create(node.getRewriter(), node.getLoc(), input)};
}

double rsqrt(double x) { return 1.0 / std::sqrt(x); }
double reciprocal(double x) { return 1.0 / x; }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double silu(double x) { return x * sigmoid(x); }
double sqrtOf(double x) { return std::sqrt(x); }
double expOf(double x) { return std::exp(x); }
double logOf(double x) { return std::log(x); }
double tanhOf(double x) { return std::tanh(x); }
double erfOf(double x) { return std::erf(x); }
double sinOf(double x) { return std::sin(x); }
double cosOf(double x) { return std::cos(x); }

template <typename OpTy>
FailureOr<Values> convertUnary(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return Values{OpTy::create(node.getRewriter(), node.getLoc(), *x)};
}

/// ceil and floor keep integer tensors as they are, as torch does. The
/// Python-scalar overloads (`math.ceil(x)` in scripted code) return an int
/// and are not converted.
template <typename OpTy> FailureOr<Values> convertRounding(ForeignNode &node) {
  if (!overload(node).empty())
    return node.fail("overload '" + overload(node) +
                     "' (math on Python scalars) is not supported");
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(x->getType().getElementType()))
    return Values{*x};
  return Values{OpTy::create(node.getRewriter(), node.getLoc(), *x)};
}

FailureOr<Values> convertLogicalNot(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (!x->getType().getElementType().isInteger(1))
    return node.fail("bitwise not of integers is not supported");
  return Values{NotOp::create(node.getRewriter(), node.getLoc(), *x)};
}

FailureOr<Values> convertGelu(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return results(buildGelu(node, *x, node.getString("approximate", "none")));
}

FailureOr<Values> convertPow(ForeignNode &node) {
  FailureOr<SmallVector<Value>> operands = promotedInputs(node, {0, 1});
  if (failed(operands))
    return failure();
  Type element =
      cast<RankedTensorType>((*operands)[0].getType()).getElementType();
  if (!isa<FloatType>(element))
    return node.fail("integer pow is not supported");
  return results(node.create<PowOp>(*operands));
}

/// clamp(x, min?, max?), clamp_min(x, min), clamp_max(x, max): constant
/// bounds make a tsc.clip, tensor bounds a max/min.
FailureOr<Values> convertClamp(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  StringRef op = node.getOp().getOpType();
  // Which operand is which bound.
  std::optional<unsigned> minIndex, maxIndex;
  if (op == "clamp_min")
    minIndex = 1;
  else if (op == "clamp_max")
    maxIndex = 1;
  else
    minIndex = 1, maxIndex = 2;
  Value out = *x;
  FloatAttr min, max;
  RewriterBase &rw = node.getRewriter();
  for (auto [index, bound, isMin] :
       {std::tuple{minIndex, &min, true}, std::tuple{maxIndex, &max, false}}) {
    if (!index || !node.hasInput(*index))
      continue;
    auto limit = node.input(*index);
    if (failed(limit))
      return failure();
    Attribute constant;
    if (limit->getType().getRank() == 0 &&
        matchPattern(*limit, m_Constant(&constant))) {
      FailureOr<double> value = node.constantScalar(*index);
      if (failed(value))
        return failure();
      *bound = rw.getF64FloatAttr(*value);
      continue;
    }
    SmallVector<Value> operands = promoted(node, {out, *limit});
    FailureOr<Value> clamped = isMin ? node.create<MaxOp>(operands)
                                     : node.create<MinOp>(operands);
    if (failed(clamped))
      return failure();
    out = *clamped;
  }
  if (!min && !max)
    return Values{out};
  return Values{ClipOp::create(rw, node.getLoc(), out, min, max)};
}

/// The condition of where/masked_fill as i1.
FailureOr<Value> condition(ForeignNode &node, unsigned i) {
  auto mask = node.input(i);
  if (failed(mask))
    return failure();
  return castTo(node, *mask, IntegerType::get(node.getContext(), 1));
}

/// where.self(cond, Tensor, Tensor), where.ScalarOther(cond, Tensor,
/// Scalar), where.ScalarSelf(cond, Scalar, Tensor), where.Scalar(cond,
/// Scalar, Scalar).
FailureOr<Values> convertWhere(ForeignNode &node) {
  StringRef which = overload(node);
  bool tensors[] = {which != "ScalarSelf" && which != "Scalar",
                    which != "ScalarOther" && which != "Scalar"};
  FailureOr<Value> cond = condition(node, 0);
  FailureOr<SmallVector<Value>> operands =
      promotedInputs(node, {1, 2}, tensors);
  if (failed(cond) || failed(operands))
    return failure();
  return results(
      node.create<WhereOp>({*cond, (*operands)[0], (*operands)[1]}));
}

/// masked_fill(self, mask, value): value where mask, else self (self's type).
FailureOr<Values> convertMaskedFill(ForeignNode &node) {
  auto x = node.input(0);
  FailureOr<Value> mask = condition(node, 1);
  auto value = node.input(2);
  if (failed(x) || failed(mask) || failed(value))
    return failure();
  if (value->getType().getRank() != 0)
    return node.fail("the fill value must be a scalar");
  Value fill = castTo(node, *value, x->getType().getElementType());
  return results(node.create<WhereOp>({*mask, fill, *x}));
}

/// Identities at inference: dropout, contiguous, clone, detach.
FailureOr<Values> convertIdentity(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (node.getOp().getOpType().contains("dropout") && node.getNumInputs() > 2) {
    FailureOr<SmallVector<int64_t>> train = node.constantInts(2);
    if (failed(train))
      return failure();
    if (!train->empty() && train->front())
      return node.fail("dropout in training mode (call model.eval() before "
                       "saving)");
  }
  return Values{*x};
}

/// An in-place op (`x.add_(y)`, left by torch.export) as its functional
/// form, when nothing reads `x` after it: then the mutation is not seen.
template <ConvertFn functional>
FailureOr<Values> convertInPlace(ForeignNode &node) {
  ForeignOp op = node.getOp();
  if (op.getInputs().empty())
    return node.fail("needs the tensor it updates");
  for (Operation *user : op.getInputs()[0].getUsers())
    if (user != op && user->getBlock() == op->getBlock() &&
        op->isBeforeInBlock(user))
      return node.fail("updates a tensor read again afterwards (export the "
                       "program in functional form: "
                       "ExportedProgram.run_decompositions())");
  return functional(node);
}

/// min(x, other) and max(x, other); the reductions are other overloads.
template <typename OpTy> FailureOr<Values> convertMinMax(ForeignNode &node) {
  if (overload(node) != "other")
    return node.fail("overload '" + overload(node) +
                     "' is not supported (min/max of two tensors are)");
  return convertBinary<OpTy>(node);
}

/// _to_copy(x, *, dtype, layout, device, ...): torch.export's `to`.
FailureOr<Values> convertToCopy(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return results(castToDtypeArg(node, *x, 1));
}

/// aten::to: the dtype argument's position depends on the overload; the
/// `other` overloads take the other tensor's type; device moves are no-ops.
FailureOr<Values> convertTo(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  StringRef which = overload(node);
  if (which == "other") {
    auto other = node.input(1);
    if (failed(other))
      return failure();
    return Values{castTo(node, *x, other->getType().getElementType())};
  }
  int dtypeIndex = llvm::StringSwitch<int>(which)
                       .Case("dtype", 1)
                       .Case("dtype_layout", 1)
                       .Case("prim_dtype", 1)
                       .Case("device", 2)
                       .Case("prim_Device", 2)
                       .Default(-1);
  if (dtypeIndex < 0)
    return node.fail("aten::to overload '" + which + "' is not supported");
  // Without a dtype, only a device or layout change: the identity.
  return results(castToDtypeArg(node, *x, dtypeIndex));
}

FailureOr<Values> convertTypeAs(ForeignNode &node) {
  auto x = node.input(0);
  auto other = node.input(1);
  if (failed(x) || failed(other))
    return failure();
  return Values{castTo(node, *x, other->getType().getElementType())};
}

} // namespace

void fromtorch::populateElementwiseConverters(ForeignConverters &c) {
  c.add("aten::add", 0, convertAddSub<AddOp>);
  c.add("aten::sub", 0, convertAddSub<SubOp>);
  c.add("aten::rsub", 0, convertAddSub<SubOp, /*reversed=*/true>);
  c.add("aten::mul", 0, convertBinary<MulOp>);
  c.add("aten::div", 0, convertDiv);
  c.add("aten::floor_divide", 0, convertDiv);
  c.add("aten::floordiv", 0, convertDiv);
  c.add("aten::maximum", 0, convertBinary<MaxOp>);
  c.add("aten::max", 0, convertMinMax<MaxOp>);
  c.add("aten::min", 0, convertMinMax<MinOp>);
  c.add("aten::add_", 0, convertInPlace<convertAddSub<AddOp>>);
  c.add("aten::sub_", 0, convertInPlace<convertAddSub<SubOp>>);
  c.add("aten::mul_", 0, convertInPlace<convertBinary<MulOp>>);
  c.add("aten::div_", 0, convertInPlace<convertDiv>);
  c.add("aten::minimum", 0, convertBinary<MinOp>);
  c.add("aten::pow", 0, convertPow);
  c.add("aten::eq", 0, convertCompare<EqualOp>);
  c.add("aten::ne", 0, convertCompare<EqualOp, /*negate=*/true>);
  c.add("aten::lt", 0, convertCompare<LessOp>);
  c.add("aten::gt", 0, convertCompare<GreaterOp>);
  c.add("aten::le", 0, convertCompare<LessEqualOp>);
  c.add("aten::ge", 0, convertCompare<GreaterEqualOp>);
  c.add("aten::logical_and", 0, convertBinary<AndOp>);
  c.add("aten::logical_or", 0, convertBinary<OrOp>);
  // `&` and `|` on masks (torch.export spells them __and__, __or__).
  for (const char *name : {"aten::__and__", "aten::bitwise_and"})
    c.add(name, 0, convertBinary<AndOp>);
  for (const char *name : {"aten::__or__", "aten::bitwise_or"})
    c.add(name, 0, convertBinary<OrOp>);
  c.add("aten::logical_not", 0, convertLogicalNot);
  c.add("aten::bitwise_not", 0, convertLogicalNot);
  c.add("aten::neg", 0, convertUnary<NegOp>);
  c.add("aten::abs", 0, convertUnary<AbsOp>);
  c.add("aten::sign", 0, convertUnary<SignOp>);
  c.add("aten::ceil", 0, convertRounding<CeilOp>);
  c.add("aten::floor", 0, convertRounding<FloorOp>);
  c.add("aten::relu", 0, convertUnary<ReluOp>);
  c.add("aten::exp", 0, convertFloatUnary<ExpOp, expOf>);
  c.add("aten::log", 0, convertFloatUnary<LogOp, logOf>);
  c.add("aten::sqrt", 0, convertFloatUnary<SqrtOp, sqrtOf>);
  c.add("aten::rsqrt", 0, convertFloatUnary<RsqrtOp, rsqrt>);
  c.add("aten::reciprocal", 0, convertFloatUnary<ReciprocalOp, reciprocal>);
  c.add("aten::tanh", 0, convertFloatUnary<TanhOp, tanhOf>);
  c.add("aten::erf", 0, convertFloatUnary<ErfOp, erfOf>);
  c.add("aten::sigmoid", 0, convertFloatUnary<SigmoidOp, sigmoid>);
  c.add("aten::silu", 0, convertFloatUnary<SiluOp, silu>);
  c.add("aten::sin", 0, convertFloatUnary<SinOp, sinOf>);
  c.add("aten::cos", 0, convertFloatUnary<CosOp, cosOf>);
  c.add("aten::gelu", 0, convertGelu);
  c.add("aten::where", 0, convertWhere);
  c.add("aten::clamp", 0, convertClamp);
  c.add("aten::clip", 0, convertClamp);
  c.add("aten::clamp_min", 0, convertClamp);
  c.add("aten::clamp_max", 0, convertClamp);
  c.add("aten::masked_fill", 0, convertMaskedFill);
  c.add("aten::to", 0, convertTo);
  c.add("aten::_to_copy", 0, convertToCopy);
  c.add("aten::type_as", 0, convertTypeAs);
  for (const char *identity :
       {"aten::dropout", "aten::feature_dropout", "aten::contiguous",
        "aten::clone", "aten::detach", "aten::detach_", "aten::alias",
        "aten::lift_fresh_copy"})
    c.add(identity, 0, convertIdentity);
}
