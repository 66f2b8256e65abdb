//===- Arena.cpp - offsets of the activation arena ------------------------===//
//
// The arena is planned once, at the symbols' maxima: every arena value gets
// a fixed offset (docs/artifact-format.md), values live at the same time
// never overlap, and values whose lifetimes do not meet share bytes.
//
//===----------------------------------------------------------------------===//

#include "compiler/plan/Planning.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

void planner::assignArena(Plan &plan) {
  // Lifetime of each arena value in steps: [definition, last use].
  DenseMap<unsigned, std::pair<unsigned, unsigned>> life;
  for (auto [s, step] : llvm::enumerate(plan.steps)) {
    SmallVector<unsigned> used(step.buffers);
    if (step.kind == PlanStep::Kind::Gemm) {
      used.append({step.a, step.b, step.c});
      for (unsigned v :
           {step.bias, step.residual, step.weightScale, step.weightZeroPoint})
        if (v != ~0u)
          used.push_back(v);
    } else if (step.kind == PlanStep::Kind::Copy) {
      used.append({step.source, step.destination});
    }
    for (unsigned v : used) {
      unsigned r = plan.root(v);
      if (plan.values[r].storage != Storage::Arena)
        continue;
      auto [it, inserted] = life.try_emplace(r, s, s);
      it->second.first = std::min<unsigned>(it->second.first, s);
      it->second.second = std::max<unsigned>(it->second.second, s);
    }
  }
  SmallVector<unsigned> order;
  for (auto &entry : life)
    order.push_back(entry.first);
  llvm::sort(order, [&](unsigned x, unsigned y) {
    uint64_t sx = plan.values[x].byteSize, sy = plan.values[y].byteSize;
    if (sx != sy)
      return sx > sy;
    return x < y;
  });
  struct Placed {
    uint64_t offset, size;
    unsigned first, last;
  };
  std::vector<Placed> placed;
  for (unsigned v : order) {
    uint64_t size = llvm::alignTo(
        std::max<uint64_t>(plan.values[v].byteSize, 1), kAlignment);
    auto [first, last] = life[v];
    SmallVector<Placed> conflicts;
    for (const Placed &p : placed)
      if (p.first <= last && first <= p.last)
        conflicts.push_back(p);
    llvm::sort(conflicts, [](const Placed &x, const Placed &y) {
      return x.offset < y.offset;
    });
    uint64_t offset = 0;
    for (const Placed &p : conflicts) {
      if (offset + size <= p.offset)
        break;
      offset = std::max(offset, p.offset + p.size);
    }
    placed.push_back({offset, size, first, last});
    plan.values[v].offset = offset;
    plan.arenaSize = std::max(plan.arenaSize, offset + size);
    plan.intermediateBytes += size;
  }
}
