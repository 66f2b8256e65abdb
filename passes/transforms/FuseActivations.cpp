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

/// sqrt(2/pi) * (x + 0.044715 * x^3): returns x.
Value tanhArgument(Value z) {
  auto outer = commuted(z.getDefiningOp<MulOp>(),
                        [](Value w) { return isSplat(w, kSqrt2OverPi); });
  if (!outer)
    return {};
  auto add = outer->second.getDefiningOp<AddOp>();
  if (!add)
    return {};
  for (auto [lhs, rhs] : {std::pair{add.getLhs(), add.getRhs()},
                          std::pair{add.getRhs(), add.getLhs()}}) {
    Value x = lhs, cubic = rhs;
    auto scaled = commuted(cubic.getDefiningOp<MulOp>(),
                           [](Value w) { return isSplat(w, 0.044715); });
    if (!scaled)
      continue;
    Value cube = scaled->second;
    auto pow = cube.getDefiningOp<PowOp>();
    if (pow && pow.getLhs() == x && isSplat(pow.getRhs(), 3.0, 0.0))
      return x;
    auto outerMul = cube.getDefiningOp<MulOp>();
    if (outerMul) {
      auto sq = commuted(outerMul, [&](Value w) { return w != x; });
      if (sq && sq->second == x)
        if (auto inner = sq->first.getDefiningOp<MulOp>())
          if (inner.getLhs() == x && inner.getRhs() == x)
            return x;
    }
  }
  return {};
}

/// 0.5 * x * (1 + erf(x / sqrt 2)) and 0.5 * x * (1 + tanh(sqrt(2/pi) *
/// (x + 0.044715 x^3))), in any association of the products.
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
