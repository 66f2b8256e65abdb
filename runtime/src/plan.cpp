//===- plan.cpp - decoding the PLAN section with full bounds checks -------===//

#include "plan.h"

#include "internal.h"
#include "reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tsc::rt {
namespace {

// Minimum encoded sizes, for count checks.
constexpr size_t kMinSymbol = 4 + 8 + 8;
constexpr size_t kMinExpr = 4;
constexpr size_t kMinValue = 1 + 1 + 2 + 4 + 4;
constexpr size_t kMinPort = 4 + 4;
constexpr size_t kMinStep = 1 + 4 + 4;
constexpr size_t kMinExpectation = 1 + 1 + 2 + 4;

} // namespace

tsc_status_t parsePlan(const SectionView &section, const std::string &file,
                       uint16_t minor, Plan &plan) {
  Reader r(section.data, section.size);
  const char *name = file.c_str();
  bool newer = minor > tscm::kMinor;
  // An enumerator this runtime does not know: corruption in a version it
  // knows, a newer feature otherwise.
  auto unknown = [&](const char *what, unsigned value) {
    if (newer)
      return statusf(TSC_STATUS_UNIMPLEMENTED,
                     "%s: PLAN: %s %u is not known to this runtime (artifact "
                     "format 1.%u is newer "
                     "than 1.%u)",
                     name, what, value, minor, tscm::kMinor);
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: PLAN: unknown %s %u at byte %zu (corrupt artifact)",
                   name, what, value, r.position() - 1);
  };
  auto corrupt = [&]() {
    return statusf(TSC_STATUS_DATA_LOSS, "%s: PLAN: %s (corrupt artifact)",
                   name, r.error().c_str());
  };

  plan.target = r.str("target");
  plan.minor = minor;
  plan.isa = r.u64("isa");

  uint32_t symbolCount = r.count(kMinSymbol, "symbol_count");
  plan.symbols.resize(symbolCount);
  for (Symbol &s : plan.symbols) {
    s.name = r.str("symbol name");
    s.min = r.i64("symbol min");
    s.max = r.i64("symbol max");
  }

  uint32_t exprCount = r.count(kMinExpr, "expr_count");
  plan.exprs.resize(exprCount);
  for (uint32_t i = 0; i < exprCount && r.ok(); ++i) {
    uint32_t n = r.u32("expression byte_count");
    const uint8_t *code = r.bytes(n, "expression code");
    std::string error;
    if (code && !checkExpr(code, n, symbolCount, plan.exprs[i], error))
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: PLAN: expression %u: %s (corrupt artifact)", name, i,
                     error.c_str());
  }

  uint32_t valueCount = r.count(kMinValue, "value_count");
  plan.values.resize(valueCount);
  for (uint32_t i = 0; i < valueCount && r.ok(); ++i) {
    Value &v = plan.values[i];
    v.dtype = r.u8("value dtype");
    if (r.ok() && dtypeBits(v.dtype) == 0)
      return unknown("dtype", v.dtype);
    uint8_t storage = r.u8("value storage");
    if (r.ok() &&
        (storage < uint8_t(Storage::Input) || storage > uint8_t(Storage::View)))
      return unknown("storage", storage);
    v.storage = Storage(storage);
    if (uint16_t reserved = r.u16("value reserved"); r.ok() && reserved)
      return unknown("value reserved field", reserved);
    uint32_t rank = r.count(4, "value rank");
    v.dims.resize(rank);
    for (uint32_t &d : v.dims) {
      d = r.u32("value dim");
      if (r.ok() && d >= exprCount)
        return statusf(TSC_STATUS_DATA_LOSS,
                       "%s: PLAN: value %u: dim uses expression %u, but there "
                       "are %u (corrupt "
                       "artifact)",
                       name, i, d, exprCount);
    }
    switch (v.storage) {
    case Storage::Input:
    case Storage::Output:
    case Storage::View:
      v.ref = r.u32("value index");
      break;
    case Storage::Weight:
      v.offset = r.u64("weight offset");
      v.byteSize = r.u64("weight byte size");
      break;
    case Storage::Arena:
      v.offset = r.u64("arena offset");
      break;
    }
  }

  plan.arenaSize = r.u64("arena_size");
  for (std::vector<Port> *ports : {&plan.inputs, &plan.outputs}) {
    const char *what = ports == &plan.inputs ? "input" : "output";
    uint32_t n = r.count(kMinPort, ports == &plan.inputs ? "input_count"
                                                         : "output_count");
    ports->resize(n);
    for (Port &p : *ports) {
      p.name = r.str(what);
      p.value = r.u32(what);
    }
  }

  uint32_t stepCount = r.count(kMinStep, "step_count");
  plan.steps.resize(stepCount);
  for (uint32_t i = 0; i < stepCount && r.ok(); ++i) {
    Step &s = plan.steps[i];
    uint8_t kind = r.u8("step kind");
    if (!r.ok())
      break;
    // Kind 5 (a CUDA launch) is format 1.2's.
    if (kind < uint8_t(tscm::StepKind::Kernel) ||
        kind > uint8_t(tscm::StepKind::GemmWeightOnly) ||
        (tscm::StepKind(kind) == tscm::StepKind::Launch && minor < 2) ||
        (tscm::StepKind(kind) == tscm::StepKind::GemmInt8 && minor < 10) ||
        (tscm::StepKind(kind) == tscm::StepKind::GemmInt8Static &&
         minor < 12) ||
        (tscm::StepKind(kind) == tscm::StepKind::GemmWeightOnly && minor < 15))
      return unknown("step kind", kind);
    // Kind 4 (format 1.1) is a GEMM with a residual, kind 6 (1.10) an int8
    // GEMM with kind 4's fields and then B's scale, kind 7 (1.12) kind 6's
    // fields and then A's constant scale, kind 8 (1.15) a weight-only GEMM
    // with kind 4's fields, then B's scale and its group size.
    bool staticInt8 = tscm::StepKind(kind) == tscm::StepKind::GemmInt8Static;
    bool int8 = staticInt8 || tscm::StepKind(kind) == tscm::StepKind::GemmInt8;
    bool weightOnly = tscm::StepKind(kind) == tscm::StepKind::GemmWeightOnly;
    bool residual = int8 || weightOnly ||
                    tscm::StepKind(kind) == tscm::StepKind::GemmResidual;
    s.kind = residual ? StepKind::Gemm : StepKind(kind);
    auto expression = [&](uint32_t e, const char *what) -> tsc_status_t {
      if (r.ok() && e >= exprCount)
        return statusf(TSC_STATUS_DATA_LOSS,
                       "%s: PLAN: step %u (%s) uses expression %u, but there "
                       "are %u (corrupt artifact)",
                       name, i, what, e, exprCount);
      return nullptr;
    };
    // Format 1.9: what the step expects of `count` buffers, into
    // s.expected.
    auto expectations = [&](uint32_t step, size_t count,
                            Step &s) -> tsc_status_t {
      s.expected.resize(
          r.ok() && count * kMinExpectation <= r.remaining() ? count : 0);
      if (s.expected.size() != count)
        r.fail(formatString("step %u needs %zu buffer expectations, %zu "
                            "bytes left",
                            step, count, r.remaining()));
      for (BufferExpectation &e : s.expected) {
        e.dtype = r.u8("expected dtype");
        if (r.ok() && tscm::dtypeBits(e.dtype) == 0)
          return unknown("expected dtype", e.dtype);
        uint8_t access = r.u8("expected access");
        if (r.ok() && (access & ~tscm::kBufferWritten))
          return unknown("expected access", access);
        e.written = access & tscm::kBufferWritten;
        if (uint16_t reserved = r.u16("expectation reserved");
            r.ok() && reserved)
          return unknown("expectation reserved field", reserved);
        e.dims.resize(r.count(4, "expected rank"));
        for (Expr &dim : e.dims) {
          uint32_t n = r.u32("expected dim byte_count");
          const uint8_t *code = r.bytes(n, "expected dim code");
          std::string error;
          if (code && !checkExpr(code, n, symbolCount, dim, error))
            return statusf(TSC_STATUS_DATA_LOSS,
                           "%s: PLAN: step %u: an expected dim: %s (corrupt "
                           "artifact)",
                           name, step, error.c_str());
        }
      }
      return nullptr;
    };
    if (s.kind == StepKind::Launch) {
      LaunchStep &l = s.launch;
      l.module = r.u32("launch module");
      for (uint32_t *e : {&l.grid[0], &l.grid[1], &l.grid[2], &l.block[0],
                          &l.block[1], &l.block[2]})
        if (tsc_status_t status = expression(*e = r.u32("launch size"),
                                             "launch"))
          return status;
      l.args.resize(r.count(5, "launch arg_count"));
      for (LaunchStep::Arg &arg : l.args) {
        uint8_t argKind = r.u8("launch arg kind");
        if (r.ok() && argKind != uint8_t(LaunchStep::ArgKind::Pointer) &&
            argKind != uint8_t(LaunchStep::ArgKind::Int64))
          return unknown("launch argument kind", argKind);
        arg.kind = LaunchStep::ArgKind(argKind);
        arg.index = r.u32("launch arg index");
        if (arg.kind == LaunchStep::ArgKind::Int64)
          if (tsc_status_t status = expression(arg.index, "launch"))
            return status;
      }
      l.source = r.str("launch source");
      // Format 1.11: what the kernel expects of each pointer argument.
      if (minor >= 11)
        if (tsc_status_t status = expectations(
                i,
                std::count_if(l.args.begin(), l.args.end(),
                              [](const LaunchStep::Arg &a) {
                                return a.kind == LaunchStep::ArgKind::Pointer;
                              }),
                s))
          return status;
    } else if (s.kind == StepKind::Kernel) {
      s.function = r.str("kernel function name");
      s.buffers.resize(r.count(4, "kernel buffer_count"));
      for (uint32_t &b : s.buffers)
        b = r.u32("kernel buffer");
      if (minor >= 9)
        if (tsc_status_t status = expectations(i, s.buffers.size(), s))
          return status;
    } else if (s.kind == StepKind::Gemm) {
      GemmStep &g = s.gemm;
      g.a = r.u32("gemm a");
      g.b = r.u32("gemm b");
      g.c = r.u32("gemm c");
      g.bias = r.u32("gemm bias");
      g.transA = r.u8("gemm trans_a") != 0;
      g.transB = r.u8("gemm trans_b") != 0;
      uint16_t flags = r.u16("gemm flags");
      // Bit 0: TF32 (1.2); bit 1: 2:4 sparse (1.14); bit 2: bf16 inputs
      // (1.16); bit 3: A's zero point (1.17, kind 7); bit 4: B's zero points
      // (1.18, kind 8); bit 5: A's multipliers (1.21, kind 7; 1.22, kind 6);
      // bit 6: A per tensor by its range (1.23, kind 6); bits 8-15: the
      // activation (1.8).
      uint16_t known =
          tscm::kGemmTf32 |
          (minor >= 8 ? 0xFFu << tscm::kGemmActivationShift : 0u) |
          (minor >= 14 ? tscm::kGemmSparse24 : 0u) |
          (minor >= 16 ? tscm::kGemmBf16Inputs : 0u) |
          (minor >= 17 && staticInt8 ? tscm::kGemmInputZeroPoint : 0u) |
          (minor >= 18 && weightOnly ? tscm::kGemmWeightZeroPoint : 0u) |
          (minor >= 21 && staticInt8 ? tscm::kGemmInputMultiplier : 0u) |
          (minor >= 22 && int8 ? tscm::kGemmInputMultiplier : 0u) |
          (minor >= 23 && int8 && !staticInt8 ? tscm::kGemmInputRange : 0u);
      if (r.ok() && (flags & ~known))
        return unknown("gemm flags", flags);
      g.tf32 = flags & tscm::kGemmTf32;
      g.sparse24 = flags & tscm::kGemmSparse24;
      g.bf16Inputs = flags & tscm::kGemmBf16Inputs;
      g.inputRange = flags & tscm::kGemmInputRange;
      g.activation = uint8_t(flags >> tscm::kGemmActivationShift);
      // checkPlan calls an unknown one corruption, unless a newer version
      // may have added it.
      if (r.ok() && newer && g.activation > kLastGemmActivation)
        return unknown("gemm activation", g.activation);
      for (uint32_t *e : {&g.batch, &g.m, &g.n, &g.k, &g.lda, &g.ldb, &g.ldc,
                          &g.strideA, &g.strideB, &g.strideC})
        if (tsc_status_t status =
                expression(*e = r.u32("gemm expression"), "gemm"))
          return status;
      g.alpha = r.f32("gemm alpha");
      g.beta = r.f32("gemm beta");
      if (residual)
        g.residual = r.u32("gemm residual");
      if (int8 || weightOnly)
        g.weightScale = r.u32("gemm weight scale");
      if (weightOnly) {
        g.weightOnly = true;
        g.groupSize = r.u32("gemm group size");
        if (flags & tscm::kGemmWeightZeroPoint)
          g.weightZeroPoint = r.u32("gemm weight zero point");
      }
      if (staticInt8) {
        g.inputScale = r.f32("gemm input scale");
        if (r.ok() && !(std::isfinite(g.inputScale) && g.inputScale > 0))
          return statusf(TSC_STATUS_DATA_LOSS,
                         "%s: PLAN: step %u (int8 gemm) has input scale %g, "
                         "not a positive finite number (corrupt artifact)",
                         name, i, double(g.inputScale));
        if (flags & tscm::kGemmInputZeroPoint) {
          g.inputZeroPoint = int32_t(r.u32("gemm input zero point"));
          if (r.ok() && (g.inputZeroPoint < -128 || g.inputZeroPoint > 127))
            return statusf(TSC_STATUS_DATA_LOSS,
                           "%s: PLAN: step %u (int8 gemm) has input zero "
                           "point %d, outside [-128, 127] (corrupt artifact)",
                           name, i, int(g.inputZeroPoint));
        }
      }
      // After the zero point (kind 7), or the weight scale (kind 6, 1.22).
      if (int8 && (flags & tscm::kGemmInputMultiplier))
        g.inputMultiplier = r.u32("gemm input multiplier");
      // Format 1.9: A, B, C, then the bias and the residual it has.
      if (minor >= 9)
        if (tsc_status_t status = expectations(
                i,
                3 + (g.bias != kNone) + (g.residual != kNone) +
                    (g.weightScale != kNone) + (g.weightZeroPoint != kNone) +
                    (g.inputMultiplier != kNone),
                s))
          return status;
    } else {
      s.source = r.u32("copy source");
      s.destination = r.u32("copy destination");
    }
  }
  // Format 1.6: symbols defined from the inputs' data and other symbols.
  if (r.ok() && minor >= 6) {
    uint32_t definitionCount =
        r.count(minor >= 8 ? 4 + 4 + 1 + 4 : 4 + 4 + 1, "definition_count");
    for (uint32_t i = 0; i < definitionCount && r.ok(); ++i) {
      uint32_t j = r.u32("definition symbol");
      uint32_t n = r.u32("definition byte_count");
      const uint8_t *code = r.bytes(n, "definition code");
      if (!r.ok())
        break;
      if (j >= symbolCount || plan.symbols[j].defined)
        return statusf(TSC_STATUS_DATA_LOSS,
                       "%s: PLAN: definition %u is of symbol %u, which %s "
                       "(corrupt artifact)",
                       name, i, j,
                       j >= symbolCount ? "does not exist"
                                        : "is defined twice");
      // Format 1.8: the step after which the run evaluates it.
      uint32_t afterStep = minor >= 8 ? r.u32("definition after_step") : kNone;
      if (!r.ok())
        break;
      std::string error;
      Symbol &symbol = plan.symbols[j];
      symbol.afterStep = afterStep;
      if (!checkExpr(code, n, symbolCount, symbol.definition, error,
                     uint32_t(plan.inputs.size()),
                     minor >= 8 ? uint32_t(plan.values.size()) : 0))
        return statusf(TSC_STATUS_DATA_LOSS,
                       "%s: PLAN: definition of symbol '%s': %s (corrupt "
                       "artifact)",
                       name, symbol.name.c_str(), error.c_str());
      symbol.defined = true;
      plan.definitionOrder.push_back(j);
    }
  }
  if (!r.ok())
    return corrupt();
  plan.definesAfter.assign(plan.steps.size(), false);
  for (uint32_t j : plan.definitionOrder) {
    uint32_t after = plan.symbols[j].afterStep;
    if (after == kNone)
      continue;
    if (after >= plan.steps.size())
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: PLAN: symbol '%s' is defined after step %u, but "
                     "there are %zu steps (corrupt artifact)",
                     name, plan.symbols[j].name.c_str(), after,
                     plan.steps.size());
    plan.definesAfter[after] = true;
    plan.hasLateDefinitions = true;
  }
  // A newer minor version may append fields; this one ends here.
  if (r.remaining() && !newer)
    return statusf(
        TSC_STATUS_DATA_LOSS,
        "%s: PLAN: %zu unexpected bytes after the last step (corrupt artifact)",
        name, r.remaining());
  return nullptr;
}

} // namespace tsc::rt
