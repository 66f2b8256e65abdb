//===- PlanAdditions.cpp - what code generation adds to a plan ------------===//
//
// Code generation reads the plan it compiles and returns what it needs on
// top (launch expressions, kernel scratch); extendPlan folds that in, so
// that a plan changes only inside compiler/plan.
//
//===----------------------------------------------------------------------===//

#include "compiler/plan/Plan.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

PlanExtender::PlanExtender(const Plan &plan, PlanAdditions &additions)
    : plan(plan), additions(additions) {
  additions.baseExprs = plan.exprs.size();
  additions.baseValues = plan.values.size();
  for (auto [i, expr] : llvm::enumerate(additions.exprs))
    addedExprIndex[expr] = plan.exprs.size() + i;
}

unsigned PlanExtender::addExpr(AffineExpr expr) {
  if (auto it = plan.exprIndex.find(expr); it != plan.exprIndex.end())
    return it->second;
  auto [it, inserted] = addedExprIndex.try_emplace(
      expr, plan.exprs.size() + additions.exprs.size());
  if (inserted)
    additions.exprs.push_back(expr);
  return it->second;
}

AffineExpr PlanExtender::getExpr(unsigned index) const {
  return index < plan.exprs.size() ? plan.exprs[index]
                                   : additions.exprs[index - plan.exprs.size()];
}

unsigned PlanExtender::addScratch(AffineExpr bytes, uint64_t offset,
                                  uint64_t maxBytes) {
  PlanValue value;
  value.dtype = DType::U8;
  value.storage = Storage::Arena;
  value.dims.push_back(addExpr(bytes));
  value.offset = plan.arenaSize + offset;
  value.byteSize = maxBytes;
  additions.values.push_back(value);
  return plan.values.size() + additions.values.size() - 1;
}

void PlanExtender::reserveScratch(uint64_t bytes) {
  additions.scratchBytes = std::max(additions.scratchBytes, bytes);
}

unsigned PlanExtender::root(unsigned v) const {
  return v < plan.values.size() ? plan.root(v) : v;
}

void plan::extendPlan(Plan &plan, PlanAdditions additions) {
  assert(additions.baseExprs == plan.exprs.size() &&
         additions.baseValues == plan.values.size() &&
         "the plan changed since its additions were made");
  for (AffineExpr expr : additions.exprs) {
    [[maybe_unused]] unsigned index = plan.addExpr(expr);
    assert(index == plan.exprs.size() - 1 && "an added expression repeats");
  }
  llvm::append_range(plan.values, additions.values);
  plan.arenaSize += additions.scratchBytes;
}
