//===- FuseActivations.cpp - GELU and SiLU formulas into one op ------------===//

#include "passes/Passes.h"
#include "passes/transforms/MatchUtils.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_FUSEACTIVATIONSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrt2OverPi = 0.7978845608028654;

/// The factors of a product tree rooted at `root`: inner products are looked
/// through when nothing else uses them.
SmallVector<Value> factors(MulOp root) {
  SmallVector<Value> out;
  SmallVector<Value> work = {root.getLhs(), root.getRhs()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    auto mul = v.getDefiningOp<MulOp>();
    if (mul && hasUsesIgnoringBindings(v, 1) && out.size() + work.size() < 8) {
      work.push_back(mul.getLhs());
      work.push_back(mul.getRhs());
    } else {
      out.push_back(v);
    }
  }
  return out;
}

/// `1 + f(arg)` or `f(arg) + 1`; returns the add's other operand.
template <typename OpTy>
Value onePlus(Value v) {
  auto add = v.getDefiningOp<AddOp>();
  auto parts = commuted(add, [](Value w) { return isSplat(w, 1.0, 0.0); });
  if (!parts)
    return {};
  auto f = parts->second.template getDefiningOp<OpTy>();
  return f ? f.getInput() : Value();
}

/// x / sqrt(2) or x * (1/sqrt(2)): returns x.
Value overSqrt2(Value z) {
  if (auto div = z.getDefiningOp<DivOp>())
    return isSplat(div.getRhs(), kSqrt2) ? div.getLhs() : Value();
  auto parts = commuted(z.getDefiningOp<MulOp>(),
                        [](Value w) { return isSplat(w, 1.0 / kSqrt2); });
  return parts ? parts->second : Value();
}

/// Whether `v` is `coefficient * x^power`, its factors in any association,
/// x repeated or raised by pow to a whole exponent.
bool isMonomial(Value v, Value x, int64_t power, double coefficient) {
  SmallVector<Value> terms = {v};
  if (auto mul = v.getDefiningOp<MulOp>())
    terms = factors(mul);
  bool scaled = false;
  int64_t degree = 0;
  for (Value t : terms) {
    if (t == x) {
      ++degree;
      continue;
    }
    if (auto pow = t.getDefiningOp<PowOp>(); pow && pow.getLhs() == x) {
      std::optional<double> n = splatValue(pow.getRhs());
      if (!n || *n < 1.0 || *n != std::round(*n))
        return false;
      degree += static_cast<int64_t>(*n);
      continue;
    }
    if (scaled || !isSplat(t, coefficient))
      return false;
    scaled = true;
  }
  return scaled && degree == power;
}

/// The argument of tanh in GELU's approximation, returning x: either
/// sqrt(2/pi) * (x + 0.044715 x^3) (GPT-2), or the same with x factored
/// out, sqrt(2/pi) * x * (1 + 0.044715 x^2) (BLOOM), the products in any
/// association.
Value tanhArgument(Value z) {
  auto mul = z.getDefiningOp<MulOp>();
  if (!mul)
    return {};
  SmallVector<Value> terms = factors(mul);
  auto k =
      llvm::find_if(terms, [](Value t) { return isSplat(t, kSqrt2OverPi); });
  if (k == terms.end())
    return {};
  terms.erase(k);
  if (terms.size() == 1) {
    auto add = terms[0].getDefiningOp<AddOp>();
    if (!add)
      return {};
    for (auto [x, cubic] : {std::pair{add.getLhs(), add.getRhs()},
                            std::pair{add.getRhs(), add.getLhs()}})
      if (isMonomial(cubic, x, 3, 0.044715))
        return x;
    return {};
  }
  if (terms.size() != 2)
    return {};
  for (auto [x, poly] :
       {std::pair{terms[0], terms[1]}, std::pair{terms[1], terms[0]}}) {
    auto parts = commuted(poly.getDefiningOp<AddOp>(),
                          [](Value w) { return isSplat(w, 1.0, 0.0); });
    if (parts && isMonomial(parts->second, x, 2, 0.044715))
      return x;
  }
  return {};
}

/// 0.5 * x * (1 + erf(x / sqrt 2)) and 0.5 * x * (1 + tanh(sqrt(2/pi) *
/// (x + 0.044715 x^3))) (tanhArgument's forms), in any association of the
/// products.
struct FuseGelu : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rw) const override {
    SmallVector<Value> terms = factors(op);
    if (terms.size() != 3)
      return failure();
    for (Value term : terms) {
      Value x;
      GeluApproximation kind;
      if (Value z = onePlus<ErfOp>(term)) {
        x = overSqrt2(z);
        kind = GeluApproximation::none;
      } else if (Value z = onePlus<TanhOp>(term)) {
        x = tanhArgument(z);
        kind = GeluApproximation::tanh;
      }
      if (!x || x.getType() != op.getType())
        continue;
      SmallVector<Value> rest;
      for (Value t : terms)
        if (t != term)
          rest.push_back(t);
      bool ok = rest.size() == 2 &&
                ((rest[0] == x && isSplat(rest[1], 0.5, 0.0)) ||
                 (rest[1] == x && isSplat(rest[0], 0.5, 0.0)));
      if (!ok)
        continue;
      rw.replaceOpWithNewOp<GeluOp>(op, x, kind);
      return success();
    }
    return failure();
  }
};

/// x * sigmoid(x) -> silu(x).
struct FuseSilu : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rw) const override {
    auto parts = commuted(op, [](Value v) { return v.getDefiningOp<SigmoidOp>() != nullptr; });
    if (!parts || parts->first.getDefiningOp<SigmoidOp>().getInput() != parts->second ||
        parts->second.getType() != op.getType())
      return failure();
    rw.replaceOpWithNewOp<SiluOp>(op, parts->second);
    return success();
  }
};

struct FuseActivationsPass
    : public tsc::impl::FuseActivationsPassBase<FuseActivationsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseGelu, FuseSilu>(&getContext());
    BindShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
