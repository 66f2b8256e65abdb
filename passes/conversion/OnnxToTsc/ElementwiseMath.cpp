//===- ElementwiseMath.cpp - ONNX math, logic, bitwise ops, activations ---===//
//
// Rounding, trigonometry, classification, modulo, bitwise ops and shifts map
// to one tsc op each. Activations (LeakyRelu, Elu, Softplus, HardSwish, ...)
// and variadic sums are built from where/exp/log/mul and friends: each is an
// exact composition of elementwise ops, which the lowering fuses into one
// kernel, so they need no op of their own.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"
#include "passes/conversion/Foreign/Builders.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// One tsc op over all of the node's inputs: a unary op keeps its operand's
/// type, a binary one broadcasts.
template <typename OpTy>
FailureOr<Values> direct(ForeignNode &node) {
  if (failed(node.checkOperandCount<OpTy>(node.getNumInputs())))
    return failure();
  SmallVector<Value> operands;
  for (unsigned i = 0; i < node.getNumInputs(); ++i) {
    auto x = node.input(i);
    if (failed(x))
      return failure();
    operands.push_back(*x);
  }
  if constexpr (OpTy::template hasTrait<OpTrait::SameOperandsAndResultType>())
    return Values{OpTy::create(node.getRewriter(), node.getLoc(), operands[0])};
  else
    return results(node.create<OpTy>(operands));
}

/// Builds elementwise compositions at one node: broadcasting ops whose
/// failures (shape mismatches) stop the chain, and 0-d constants of the
/// operand's element type.
class Composer {
public:
  Composer(ForeignNode &node, Type element) : node(node), element(element) {}

  /// The first failure of any operand or creation, else the value.
  template <typename OpTy>
  FailureOr<Value> op(ArrayRef<FailureOr<Value>> operands) {
    SmallVector<Value> values;
    for (const FailureOr<Value> &v : operands) {
      if (failed(v))
        return failure();
      values.push_back(*v);
    }
    if constexpr (OpTy::template hasTrait<OpTrait::SameOperandsAndResultType>())
      return Value(OpTy::create(node.getRewriter(), node.getLoc(), values[0]));
    else
      return node.create<OpTy>(values);
  }

  /// A 0-d constant of the element type.
  FailureOr<Value> c(double value) { return node.scalar(element, value); }

  /// `x` clamped to [lo, hi].
  FailureOr<Value> clip(FailureOr<Value> x, double lo, double hi) {
    if (failed(x))
      return failure();
    RewriterBase &rw = node.getRewriter();
    return Value(ClipOp::create(rw, node.getLoc(), *x, rw.getF64FloatAttr(lo),
                                rw.getF64FloatAttr(hi)));
  }

  /// log(1 + e^x) without overflow: max(x, 0) + log(1 + e^-|x|).
  FailureOr<Value> softplus(Value x) {
    FailureOr<Value> tail = op<LogOp>(
        {op<AddOp>({op<ExpOp>({op<NegOp>({op<AbsOp>({x})})}), c(1.0)})});
    return op<AddOp>({op<ReluOp>({x}), tail});
  }

  /// x · sigmoid(alpha · x); silu when alpha is 1.
  FailureOr<Value> swish(Value x, double alpha) {
    if (alpha == 1.0)
      return op<SiluOp>({x});
    return op<MulOp>({x, op<SigmoidOp>({op<MulOp>({x, c(alpha)})})});
  }

private:
  ForeignNode &node;
  Type element;
};

/// The float input 0 of an activation, with a composer for its type.
FailureOr<std::pair<Value, Composer>> floatInput(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  Type element = x->getType().getElementType();
  if (!isa<FloatType>(element))
    return node.fail("input element type must be a float type");
  return std::make_pair(Value(*x), Composer(node, element));
}

/// An activation `build(composer, x)` of float input 0.
template <typename BuildFn>
FailureOr<Values> activation(ForeignNode &node, BuildFn build) {
  auto in = floatInput(node);
  if (failed(in))
    return failure();
  auto &[x, compose] = *in;
  return results(build(compose, x));
}

FailureOr<Values> convertIsInf(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return Values{IsInfOp::create(node.getRewriter(), node.getLoc(), *x,
                                node.getInt("detect_positive", 1) != 0,
                                node.getInt("detect_negative", 1) != 0)};
}

/// Bitwise not: x ^ all-ones, in the operand's own width and signedness.
FailureOr<Values> convertBitwiseNot(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  Type element = x->getType().getElementType();
  auto ones = ConstantOp::create(
      node.getRewriter(), node.getLoc(),
      DenseElementsAttr::get(
          RankedTensorType::get({}, element),
          APInt::getAllOnes(element.getIntOrFloatBitWidth())));
  return results(node.create<BitwiseXorOp>({*x, ones}));
}

FailureOr<Values> convertMod(ForeignNode &node) {
  int64_t fmod = node.getInt("fmod", 0);
  if (fmod != 0 && fmod != 1)
    return node.fail("fmod must be 0 or 1, not " + Twine(fmod));
  return fmod ? direct<FmodOp>(node) : direct<ModOp>(node);
}

FailureOr<Values> convertBitShift(ForeignNode &node) {
  StringRef direction = node.getString("direction", "");
  if (direction == "LEFT")
    return direct<ShiftLeftOp>(node);
  if (direction == "RIGHT")
    return direct<ShiftRightOp>(node);
  return node.fail("direction must be \"LEFT\" or \"RIGHT\", not \"" +
                   direction + "\"");
}

/// Sum and Mean: a left fold of broadcasting adds; Mean divides by the
/// count once at the end, as the ONNX reference does.
template <bool mean>
FailureOr<Values> convertSum(ForeignNode &node) {
  if (node.getNumInputs() == 0)
    return node.fail("needs at least one input");
  auto first = node.input(0);
  if (failed(first))
    return failure();
  Composer compose(node, first->getType().getElementType());
  FailureOr<Value> acc = Value(*first);
  for (unsigned i = 1; i < node.getNumInputs(); ++i) {
    auto next = node.input(i);
    if (failed(next))
      return failure();
    acc = compose.op<AddOp>({acc, Value(*next)});
  }
  if (mean && node.getNumInputs() > 1)
    acc = compose.op<DivOp>({acc, compose.c(node.getNumInputs())});
  return results(acc);
}

FailureOr<Values> convertLeakyRelu(ForeignNode &node) {
  double alpha = node.getFloat("alpha", 0.01f);
  return activation(node, [&](Composer &c, Value x) {
    return c.op<WhereOp>(
        {c.op<LessOp>({x, c.c(0)}), c.op<MulOp>({x, c.c(alpha)}), x});
  });
}

/// alpha · (e^exponent - 1) where x < 0, else x: Elu, and Celu with
/// exponent x / alpha.
FailureOr<Value> exponentialBelowZero(Composer &c, Value x,
                                      FailureOr<Value> exponent, double alpha) {
  FailureOr<Value> expm1 = c.op<SubOp>({c.op<ExpOp>({exponent}), c.c(1)});
  return c.op<WhereOp>(
      {c.op<LessOp>({x, c.c(0)}), c.op<MulOp>({expm1, c.c(alpha)}), x});
}

FailureOr<Values> convertElu(ForeignNode &node) {
  double alpha = node.getFloat("alpha", 1.0f);
  return activation(node, [&](Composer &c, Value x) {
    return exponentialBelowZero(c, x, x, alpha);
  });
}

FailureOr<Values> convertSelu(ForeignNode &node) {
  double alpha = node.getFloat("alpha", 1.67326319217681884765625f);
  double gamma = node.getFloat("gamma", 1.05070102214813232421875f);
  return activation(node, [&](Composer &c, Value x) {
    // gamma · (alpha · e^x - alpha) where x <= 0, else gamma · x.
    FailureOr<Value> negative =
        c.op<SubOp>({c.op<MulOp>({c.op<ExpOp>({x}), c.c(alpha)}), c.c(alpha)});
    return c.op<MulOp>(
        {c.op<WhereOp>({c.op<GreaterOp>({x, c.c(0)}), x, negative}),
         c.c(gamma)});
  });
}

FailureOr<Values> convertCelu(ForeignNode &node) {
  double alpha = node.getFloat("alpha", 1.0f);
  if (alpha == 0)
    return node.fail("alpha must be nonzero");
  // max(0, x) + min(0, alpha · (e^(x / alpha) - 1)), for either sign of
  // alpha.
  return activation(node, [&](Composer &c, Value x) {
    return exponentialBelowZero(c, x, c.op<DivOp>({x, c.c(alpha)}), alpha);
  });
}

FailureOr<Values> convertSoftplus(ForeignNode &node) {
  return activation(node, [](Composer &c, Value x) { return c.softplus(x); });
}

FailureOr<Values> convertSoftsign(ForeignNode &node) {
  return activation(node, [](Composer &c, Value x) {
    return c.op<DivOp>({x, c.op<AddOp>({c.op<AbsOp>({x}), c.c(1)})});
  });
}

FailureOr<Values> convertMish(ForeignNode &node) {
  return activation(node, [](Composer &c, Value x) {
    return c.op<MulOp>({x, c.op<TanhOp>({c.softplus(x)})});
  });
}

/// max(0, min(1, alpha · x + beta)).
FailureOr<Value> hardSigmoid(Composer &c, Value x, double alpha, double beta) {
  return c.clip(c.op<AddOp>({c.op<MulOp>({x, c.c(alpha)}), c.c(beta)}), 0.0,
                1.0);
}

FailureOr<Values> convertHardSigmoid(ForeignNode &node) {
  double alpha = node.getFloat("alpha", 0.2f);
  double beta = node.getFloat("beta", 0.5f);
  return activation(node, [&](Composer &c, Value x) {
    return hardSigmoid(c, x, alpha, beta);
  });
}

FailureOr<Values> convertHardSwish(ForeignNode &node) {
  return activation(node, [](Composer &c, Value x) {
    return c.op<MulOp>({x, hardSigmoid(c, x, 1.0f / 6, 0.5)});
  });
}

FailureOr<Values> convertThresholdedRelu(ForeignNode &node) {
  double alpha = node.getFloat("alpha", 1.0f);
  return activation(node, [&](Composer &c, Value x) {
    return c.op<WhereOp>({c.op<GreaterOp>({x, c.c(alpha)}), x, c.c(0)});
  });
}

FailureOr<Values> convertSwish(ForeignNode &node) {
  double alpha = node.getFloat("alpha", 1.0f);
  return activation(node,
                    [&](Composer &c, Value x) { return c.swish(x, alpha); });
}

/// Swish(A) · B with A and B of one shape (SwiGLU does not broadcast).
FailureOr<Values> convertSwiGLU(ForeignNode &node) {
  double alpha = node.getFloat("alpha", 1.0f);
  auto b = node.input(1);
  if (failed(b))
    return failure();
  return activation(node, [&](Composer &c, Value a) -> FailureOr<Value> {
    auto aType = cast<RankedTensorType>(a.getType());
    if (aType.getRank() != b->getType().getRank() ||
        llvm::any_of(llvm::zip(aType.getShape(), b->getType().getShape()),
                     [](auto dims) {
                       auto [x, y] = dims;
                       return !ShapedType::isDynamic(x) &&
                              !ShapedType::isDynamic(y) && x != y;
                     }))
      return node.fail("inputs A and B must have the same shape");
    return c.op<MulOp>({c.swish(a, alpha), Value(*b)});
  });
}

/// slope · x where x < 0, else x; slope broadcasts to x.
FailureOr<Values> convertPRelu(ForeignNode &node) {
  auto x = node.input(0);
  auto slope = node.input(1);
  if (failed(x) || failed(slope))
    return failure();
  Composer c(node, x->getType().getElementType());
  FailureOr<Value> out =
      c.op<WhereOp>({c.op<LessOp>({Value(*x), c.c(0)}),
                     c.op<MulOp>({Value(*x), Value(*slope)}), Value(*x)});
  if (succeeded(out) && cast<RankedTensorType>(out->getType()).getShape() !=
                            x->getType().getShape())
    return node.fail("slope must broadcast to the input's shape");
  return results(out);
}

/// Ops whose float attributes meet integer elements (Shrink, Binarizer)
/// compute as the ONNX reference does, in float64, and convert back
/// (truncating).
template <typename BuildFn>
FailureOr<Values> inFloat64(ForeignNode &node, BuildFn build) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  Type element = x->getType().getElementType();
  Type compute =
      isa<FloatType>(element) ? element : Float64Type::get(node.getContext());
  Composer c(node, compute);
  FailureOr<Value> out = build(c, castTo(node, *x, compute));
  if (failed(out))
    return failure();
  return Values{castTo(node, *out, element)};
}

FailureOr<Values> convertShrink(ForeignNode &node) {
  double lambd = node.getFloat("lambd", 0.5f);
  double bias = node.getFloat("bias", 0.0f);
  return inFloat64(node, [&](Composer &c, Value x) {
    // x + bias below -lambd, x - bias above lambd, else 0.
    return c.op<WhereOp>(
        {c.op<LessOp>({x, c.c(-lambd)}), c.op<AddOp>({x, c.c(bias)}),
         c.op<WhereOp>({c.op<GreaterOp>({x, c.c(lambd)}),
                        c.op<SubOp>({x, c.c(bias)}), c.c(0)})});
  });
}

/// ai.onnx.ml Binarizer: 1 where x > threshold, else 0.
FailureOr<Values> convertBinarizer(ForeignNode &node) {
  double threshold = node.getFloat("threshold", 0.0f);
  return inFloat64(node, [&](Composer &c, Value x) {
    return c.op<WhereOp>(
        {c.op<GreaterOp>({x, c.c(threshold)}), c.c(1), c.c(0)});
  });
}

} // namespace

/// Registered at the first opset with today's semantics; later versions only
/// added element types, and opset 28's Mod and BitShift spelled out the
/// special cases these already implement.
void fromonnx::populateElementwiseMathConverters(ForeignConverters &c) {
  c.add("Floor", 6, direct<FloorOp>);
  c.add("Ceil", 6, direct<CeilOp>);
  c.add("Round", 11, direct<RoundOp>);
  c.add("Sign", 9, direct<SignOp>);
  c.add("Tan", 7, direct<TanOp>);
  c.add("Asin", 7, direct<AsinOp>);
  c.add("Acos", 7, direct<AcosOp>);
  c.add("Atan", 7, direct<AtanOp>);
  c.add("Sinh", 9, direct<SinhOp>);
  c.add("Cosh", 9, direct<CoshOp>);
  c.add("Asinh", 9, direct<AsinhOp>);
  c.add("Acosh", 9, direct<AcoshOp>);
  c.add("Atanh", 9, direct<AtanhOp>);
  c.add("IsNaN", 9, direct<IsNanOp>);
  c.add("IsInf", 10, convertIsInf);
  c.add("GreaterOrEqual", 12, direct<GreaterEqualOp>);
  c.add("LessOrEqual", 12, direct<LessEqualOp>);
  c.add("Xor", 7, direct<BitwiseXorOp>);
  c.add("BitwiseAnd", 18, direct<BitwiseAndOp>);
  c.add("BitwiseOr", 18, direct<BitwiseOrOp>);
  c.add("BitwiseXor", 18, direct<BitwiseXorOp>);
  c.add("BitwiseNot", 18, convertBitwiseNot);
  c.add("Mod", 10, convertMod);
  c.add("BitShift", 11, convertBitShift);
  c.add("Sum", 6, convertSum</*mean=*/false>);
  c.add("Mean", 6, convertSum</*mean=*/true>);
  c.add("LeakyRelu", 6, convertLeakyRelu);
  c.add("Elu", 6, convertElu);
  c.add("Selu", 6, convertSelu);
  c.add("Celu", 12, convertCelu);
  c.add("Softplus", 1, convertSoftplus);
  c.add("Softsign", 1, convertSoftsign);
  c.add("Mish", 18, convertMish);
  c.add("HardSigmoid", 6, convertHardSigmoid);
  c.add("HardSwish", 14, convertHardSwish);
  c.add("ThresholdedRelu", 10, convertThresholdedRelu);
  c.add("Swish", 24, convertSwish);
  c.add("SwiGLU", 28, convertSwiGLU);
  c.add("PRelu", 6, convertPRelu);
  c.add("Shrink", 9, convertShrink);
  c.add("ai.onnx.ml::Binarizer", 1, convertBinarizer);
}
