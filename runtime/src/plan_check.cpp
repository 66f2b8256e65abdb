//===- plan_check.cpp - cross-checking a decoded plan ---------------------===//

#include "internal.h"
#include "plan.h"

#include <cstring>
#include <map>
#include <set>

namespace tsc::rt {
namespace {

class Checker {
public:
  Checker(Plan &plan, const std::string &file, const SectionView &host,
          const SectionView &weights, size_t cudaModules)
      : plan_(plan), file_(file), host_(host), weights_(weights),
        cudaModules_(cudaModules) {}

  tsc_status_t run() {
    tsc_status_t status = nullptr;
    if (plan_.target != "cpu" && plan_.target != "cuda")
      return statusf(TSC_STATUS_UNIMPLEMENTED,
                     "%s: target '%s' is not supported by this runtime (it "
                     "runs 'cpu' and 'cuda')",
                     file_.c_str(), plan_.target.c_str());
    if ((status = checkSymbols()) || (status = checkPorts()) ||
        (status = checkValues()) || (status = checkSymbolsBound()) ||
        (status = checkSteps()))
      return status;
    return nullptr;
  }

private:
  tsc_status_t corrupt(const std::string &what) {
    return statusf(TSC_STATUS_DATA_LOSS, "%s: PLAN: %s (corrupt artifact)",
                   file_.c_str(), what.c_str());
  }

  tsc_status_t checkSymbols() {
    std::set<std::string> names;
    for (size_t j = 0; j < plan_.symbols.size(); ++j) {
      const Symbol &s = plan_.symbols[j];
      if (s.name.empty())
        return corrupt(formatString("symbol %zu has an empty name", j));
      if (!names.insert(s.name).second)
        return corrupt("two symbols named '" + s.name + "'");
      // Symbols defined from data (1.6) may be negative (an axis, a -1).
      if ((s.min < 0 && !s.defined) || s.min > s.max)
        return corrupt(formatString(
            "symbol '%s' has range [%lld, %lld]", s.name.c_str(),
            static_cast<long long>(s.min), static_cast<long long>(s.max)));
    }
    return nullptr;
  }

  tsc_status_t checkPorts() {
    for (bool inputs : {true, false}) {
      const std::vector<Port> &ports = inputs ? plan_.inputs : plan_.outputs;
      const char *what = inputs ? "input" : "output";
      Storage storage = inputs ? Storage::Input : Storage::Output;
      std::set<std::string> names;
      for (size_t i = 0; i < ports.size(); ++i) {
        const Port &p = ports[i];
        if (p.name.empty())
          return corrupt(formatString("%s %zu has an empty name", what, i));
        if (!names.insert(p.name).second)
          return corrupt(
              formatString("two %ss named '%s'", what, p.name.c_str()));
        if (p.value >= plan_.values.size())
          return corrupt(
              formatString("%s '%s' refers to value %u, but there are %zu",
                           what, p.name.c_str(), p.value, plan_.values.size()));
        const Value &v = plan_.values[p.value];
        if (v.storage != storage || v.ref != i)
          return corrupt(
              formatString("%s '%s' refers to value %u, which is not %s %zu",
                           what, p.name.c_str(), p.value, what, i));
      }
    }
    return nullptr;
  }

  tsc_status_t checkValues() {
    const size_t count = plan_.values.size();
    // The B of each 2:4 GEMM (format 1.14) and whether it is N × K.
    std::map<size_t, bool> sparseWeights;
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const GemmStep &g = plan_.steps[i].gemm;
      if (plan_.steps[i].kind != StepKind::Gemm || !g.sparse24)
        continue;
      if (plan_.target != "cuda")
        return corrupt(formatString(
            "step %zu is a 2:4 sparse GEMM in a '%s' plan (CUDA only)", i,
            plan_.target.c_str()));
      if (g.b >= count || plan_.values[g.b].storage != Storage::Weight)
        return corrupt(formatString(
            "step %zu is a 2:4 sparse GEMM whose B is not a weight", i));
      sparseWeights[g.b] = g.transB;
    }
    for (size_t i = 0; i < count; ++i) {
      Value &v = plan_.values[i];
      switch (v.storage) {
      case Storage::Input:
      case Storage::Output: {
        bool input = v.storage == Storage::Input;
        const std::vector<Port> &ports = input ? plan_.inputs : plan_.outputs;
        if (v.ref >= ports.size() || ports[v.ref].value != i)
          return corrupt(formatString(
              "value %zu claims to be %s %u, which does not refer to it", i,
              input ? "input" : "output", v.ref));
        break;
      }
      case Storage::Weight: {
        if (!weights_.present)
          return corrupt(formatString(
              "value %zu is a weight, but there is no WGHT section", i));
        if (v.offset % 64 || v.offset > weights_.size ||
            v.byteSize > weights_.size - v.offset)
          return corrupt(formatString(
              "weight value %zu at [%llu, +%llu) is unaligned or outside WGHT "
              "(%zu bytes)",
              i, static_cast<unsigned long long>(v.offset),
              static_cast<unsigned long long>(v.byteSize), weights_.size));
        int64_t elements = 1;
        std::vector<int64_t> sizes;
        for (uint32_t d : v.dims) {
          const Expr &e = plan_.exprs[d];
          int64_t size = 0;
          const char *error = nullptr;
          if (!e.constant)
            return corrupt(formatString(
                "weight value %zu has a dim that depends on symbols", i));
          if (!evalExpr(e, nullptr, size, error) ||
              !mulNonNegative(elements, size, elements))
            return corrupt(
                formatString("weight value %zu has an invalid dim", i));
          sizes.push_back(size);
        }
        int64_t bytes = 0;
        if (auto sparse = sparseWeights.find(i);
            sparse != sparseWeights.end()) {
          // Format 1.14: B of a 2:4 GEMM, K × N (N × K with transB).
          int64_t elementBytes = 0;
          if (!denseBytes(1, v.dtype, elementBytes) || sizes.size() != 2 ||
              sizes[sparse->second ? 1 : 0] % 8)
            return corrupt(formatString(
                "weight value %zu is a 2:4-compressed GEMM weight, but not a "
                "float matrix with K a multiple of 8",
                i));
          int64_t k = sizes[sparse->second ? 1 : 0],
                  n = sizes[sparse->second ? 0 : 1];
          if (sparse24Bytes(uint64_t(n), uint64_t(k), uint64_t(elementBytes)) !=
              v.byteSize)
            return corrupt(formatString(
                "weight value %zu (2:4-compressed, %lld x %lld) has %llu bytes",
                i, static_cast<long long>(n), static_cast<long long>(k),
                static_cast<unsigned long long>(v.byteSize)));
        } else if (!denseBytes(elements, v.dtype, bytes) ||
                   uint64_t(bytes) != v.byteSize)
          return corrupt(
              formatString("weight value %zu has %lld elements but %llu bytes",
                           i, static_cast<long long>(elements),
                           static_cast<unsigned long long>(v.byteSize)));
        break;
      }
      case Storage::Arena:
        if (v.offset % 64 || v.offset > plan_.arenaSize)
          return corrupt(formatString(
              "arena value %zu at offset %llu is unaligned or outside "
              "the arena (%llu bytes)",
              i, static_cast<unsigned long long>(v.offset),
              static_cast<unsigned long long>(plan_.arenaSize)));
        break;
      case Storage::View:
        if (v.ref >= count || v.ref == i)
          return corrupt(formatString("view value %zu has base %u", i, v.ref));
        if (plan_.values[v.ref].dtype != v.dtype)
          return corrupt(formatString(
              "view value %zu and its base %u differ in dtype", i, v.ref));
        break;
      }
    }
    // Roots: follow each view's bases; a chain longer than the value count is a
    // cycle.
    for (size_t i = 0; i < count; ++i) {
      uint32_t root = uint32_t(i);
      for (size_t hops = 0; plan_.values[root].storage == Storage::View;
           ++hops) {
        if (hops == count)
          return corrupt(
              formatString("view value %zu is part of a cycle of views", i));
        root = plan_.values[root].ref;
      }
      plan_.values[i].root = root;
    }
    return nullptr;
  }

  tsc_status_t checkSymbolsBound() {
    std::vector<bool> bound(plan_.symbols.size(), false);
    for (const Port &p : plan_.inputs)
      for (uint32_t d : plan_.values[p.value].dims)
        if (plan_.exprs[d].bareSymbol >= 0)
          bound[size_t(plan_.exprs[d].bareSymbol)] = true;
    // Format 1.6: a definition may use the symbols input dims bind and those
    // defined before it, and read elements of integer inputs of static shape.
    for (uint32_t j : plan_.definitionOrder) {
      const Symbol &symbol = plan_.symbols[j];
      if (bound[j])
        return corrupt("symbol '" + symbol.name +
                       "' is both bound by an input dim and defined");
      const Expr &e = symbol.definition;
      for (size_t pc = 0; pc < e.size;) {
        uint8_t op = e.code[pc];
        if (op == expr_code::kSymbol && !bound[loadU32(e.code + pc + 1)])
          return corrupt("the definition of symbol '" + symbol.name +
                         "' uses a symbol not bound before it");
        pc += 1 + expr_code::immediateSize(op);
      }
      for (auto [input, element] : elementReads(e)) {
        const Value &v = plan_.values[plan_.inputs[input].value];
        int64_t count = 1;
        bool known = true;
        for (uint32_t d : v.dims) {
          int64_t size = 0;
          const char *error = nullptr;
          known = known && plan_.exprs[d].constant &&
                  evalExpr(plan_.exprs[d], nullptr, size, error);
          count *= known ? size : 1;
        }
        if (!known || !isIntegerDtype(v.dtype) || element >= count)
          return corrupt("the definition of symbol '" + symbol.name +
                         "' reads element " + std::to_string(element) +
                         " of input '" + plan_.inputs[input].name +
                         "', which is not a numeric input of static shape "
                         "holding it");
      }
      // Format 1.8: an element of a computed value is read after the step
      // that computes it, so no sooner than the symbols the code uses.
      // (Whether the value holds the element is checked when it is read.)
      auto when = [](uint32_t step) {
        return int64_t(step == kNone ? -1 : step);
      };
      for (auto [value, element] : elementReads(e, /*values=*/true))
        if (!isIntegerDtype(plan_.values[value].dtype) ||
            symbol.afterStep == kNone)
          return corrupt("the definition of symbol '" + symbol.name +
                         "' reads value " + std::to_string(value) +
                         (symbol.afterStep == kNone
                              ? " before the first step"
                              : ", which is not numeric"));
      for (uint32_t k : exprSymbols(e))
        if (when(plan_.symbols[k].afterStep) > when(symbol.afterStep))
          return corrupt("the definition of symbol '" + symbol.name +
                         "' uses symbol '" + plan_.symbols[k].name +
                         "' before the run defines it");
      bound[j] = true;
    }
    // Inputs are checked before the first step.
    for (const Port &p : plan_.inputs)
      for (uint32_t d : plan_.values[p.value].dims)
        for (uint32_t k : exprSymbols(plan_.exprs[d]))
          if (plan_.symbols[k].afterStep != kNone)
            return corrupt("input '" + p.name + "' has a dim of symbol '" +
                           plan_.symbols[k].name +
                           "', which the run defines only after a step");
    for (size_t j = 0; j < bound.size(); ++j)
      if (!bound[j])
        return corrupt("symbol '" + plan_.symbols[j].name +
                       "' is not bound by any input dim");
    return nullptr;
  }

  // The value's bytes are caller-owned input or read-only weights.
  bool readOnly(uint32_t value) const {
    Storage s = plan_.values[plan_.values[value].root].storage;
    return s == Storage::Input || s == Storage::Weight;
  }

  tsc_status_t checkOperand(size_t step, const char *kind, const char *role,
                            uint32_t value, bool written) {
    if (value >= plan_.values.size())
      return corrupt(
          formatString("step %zu (%s) %s is value %u, but there are %zu", step,
                       kind, role, value, plan_.values.size()));
    if (written && readOnly(value))
      return corrupt(formatString(
          "step %zu (%s) writes %s (value %u), an input or a weight", step,
          kind, role, value));
    return nullptr;
  }

  /// A GEMM operand: all are f32, all f16 or all bf16 (1.3); `a` is A.
  tsc_status_t checkGemmOperand(size_t step, const char *role, uint32_t value,
                                bool written, uint32_t a) {
    if (tsc_status_t status = checkOperand(step, "gemm", role, value, written))
      return status;
    uint8_t dtype = plan_.values[value].dtype;
    if (dtype != TSC_DTYPE_F32 && dtype != TSC_DTYPE_F16 &&
        dtype != TSC_DTYPE_BF16)
      return corrupt(formatString(
          "step %zu (gemm) %s (value %u) is not f32, f16 or bf16", step, role,
          value));
    if (a < plan_.values.size() && dtype != plan_.values[a].dtype)
      return corrupt(formatString(
          "step %zu (gemm) %s (value %u) differs in dtype from A (value %u)",
          step, role, value, a));
    return nullptr;
  }

  /// A GEMM by a quantized weight: an int8 GEMM (1.10: A f32, B s8) or a
  /// weight-only one (1.15: A f32, B an i8 or i4 weight of its own); B's
  /// scale an f32 weight; no transposed A, no alpha.
  tsc_status_t checkQuantizedOperands(size_t step, const GemmStep &g) {
    const char *kind = g.weightOnly ? "weight-only gemm" : "int8 gemm";
    if (tsc_status_t status = checkOperand(step, "gemm", "B", g.b, false))
      return status;
    if (tsc_status_t status =
            checkOperand(step, "gemm", "B's scale", g.weightScale, false))
      return status;
    if (g.a < plan_.values.size() && plan_.values[g.a].dtype != TSC_DTYPE_F32)
      return corrupt(formatString("step %zu (%s) A (value %u) is not f32", step,
                                  kind, g.a));
    const Value &b = plan_.values[g.b];
    if (!g.weightOnly && b.dtype != TSC_DTYPE_I8)
      return corrupt(formatString("step %zu (%s) B (value %u) is not i8", step,
                                  kind, g.b));
    if (g.weightOnly &&
        ((b.dtype != TSC_DTYPE_I8 && b.dtype != TSC_DTYPE_I4) ||
         b.root != g.b || plan_.values[b.root].storage != Storage::Weight))
      return corrupt(formatString("step %zu (%s) B (value %u) is not an i8 or "
                                  "i4 weight of its own",
                                  step, kind, g.b));
    if (plan_.values[g.weightScale].dtype != TSC_DTYPE_F32 ||
        plan_.values[plan_.values[g.weightScale].root].storage !=
            Storage::Weight)
      return corrupt(formatString(
          "step %zu (%s) B's scale (value %u) is not an f32 weight", step, kind,
          g.weightScale));
    if (g.transA || g.alpha != 1.0f)
      return corrupt(formatString(
          "step %zu (%s) has a transposed A or an alpha", step, kind));
    // Format 1.23: a range is taken of A itself, not of A times multipliers.
    if (g.inputRange && g.inputMultiplier != kNone)
      return corrupt(formatString("step %zu (%s) quantizes A by its range and "
                                  "has A's multipliers",
                                  step, kind));
    // Format 1.21 (1.22 for a dynamic step): A's multipliers, an f32 weight
    // of its own.
    if (g.inputMultiplier != kNone) {
      if (tsc_status_t status = checkOperand(step, "gemm", "A's multipliers",
                                             g.inputMultiplier, false))
        return status;
      const Value &m = plan_.values[g.inputMultiplier];
      if (g.weightOnly || m.dtype != TSC_DTYPE_F32 ||
          m.root != g.inputMultiplier || m.storage != Storage::Weight)
        return corrupt(formatString("step %zu (%s) A's multipliers (value %u) "
                                    "are not an f32 weight of their own",
                                    step, kind, g.inputMultiplier));
    }
    // Format 1.18: B's zero points, a weight of B's dtype.
    if (g.weightZeroPoint == kNone)
      return nullptr;
    if (tsc_status_t status = checkOperand(step, "gemm", "B's zero point",
                                           g.weightZeroPoint, false))
      return status;
    const Value &zp = plan_.values[g.weightZeroPoint];
    if (!g.weightOnly || zp.dtype != b.dtype || zp.root != g.weightZeroPoint ||
        zp.storage != Storage::Weight)
      return corrupt(formatString("step %zu (%s) B's zero point (value %u) is "
                                  "not a weight of its own of B's dtype",
                                  step, kind, g.weightZeroPoint));
    return nullptr;
  }

  /// An int8 GEMM of a 'cuda' plan (format 1.19): C (s32) = A (s8) · Bᵀ
  /// with B an s8 weight [N, K], cuBLASLt's int8 GEMM with nothing else in
  /// it (the compiler's kernels quantize A and dequantize C); or its fp8
  /// GEMM (1.20): f8E4M3FN A and B, f32 C.
  tsc_status_t checkIntegerGemm(size_t step, const GemmStep &g) {
    if (tsc_status_t status = checkOperand(step, "gemm", "A", g.a, false))
      return status;
    if (tsc_status_t status = checkOperand(step, "gemm", "B", g.b, false))
      return status;
    if (tsc_status_t status = checkOperand(step, "gemm", "C", g.c, true))
      return status;
    bool fp8 = plan_.values[g.a].dtype == TSC_DTYPE_F8E4M3FN;
    const char *kind = fp8 ? "fp8" : "int8";
    if (plan_.target != "cuda" || plan_.minor < (fp8 ? 20 : 19))
      return corrupt(formatString(
          "step %zu (gemm) multiplies %s operands, which only a 'cuda' plan "
          "of format %s or later has",
          step, fp8 ? "f8e4m3fn" : "s8", fp8 ? "1.20" : "1.19"));
    const Value &b = plan_.values[g.b];
    if (b.dtype != plan_.values[g.a].dtype ||
        plan_.values[b.root].storage != Storage::Weight)
      return corrupt(formatString(
          "step %zu (%s gemm) B (value %u) is not a weight of A's dtype", step,
          kind, g.b));
    if (plan_.values[g.c].dtype != (fp8 ? TSC_DTYPE_F32 : TSC_DTYPE_I32))
      return corrupt(formatString("step %zu (%s gemm) C (value %u) is not %s",
                                  step, kind, g.c, fp8 ? "f32" : "s32"));
    if (g.bias != kNone || g.residual != kNone || g.activation != 0 ||
        g.sparse24 || g.tf32 || g.bf16Inputs || g.transA || !g.transB ||
        g.alpha != 1.0f || g.beta != 0.0f)
      return corrupt(formatString(
          "step %zu (%s gemm) has a bias, a residual, an activation, an "
          "alpha, a beta or a layout other than A · Bᵀ",
          step, kind));
    return nullptr;
  }

  /// "value 7", "value 0 (input 'x')": a value as messages name it.
  std::string describeValue(uint32_t value) const {
    const Value &v = plan_.values[value];
    std::string text = formatString("value %u", value);
    if (v.storage == Storage::Input || v.storage == Storage::Output) {
      bool input = v.storage == Storage::Input;
      text += formatString(
          " (%s '%s')", input ? "input" : "output",
          (input ? plan_.inputs : plan_.outputs)[v.ref].name.c_str());
    }
    return text;
  }

  std::string describeShape(const std::vector<Expr> &dims) const {
    std::string text = "[";
    for (size_t d = 0; d < dims.size(); ++d)
      text += (d ? ", " : "") + printExpr(dims[d], plan_.symbols);
    return text + "]";
  }

  /// Format 1.9: `value`, passed to step `step` (`what`: "kernel 'name'",
  /// "gemm") as its `role`, has the dtype and the dims (the same code, so the
  /// same sizes at every run) that the step's code expects, and is not an
  /// input or a weight when the step writes it.
  tsc_status_t checkExpected(size_t step, const std::string &what,
                             const std::string &role, uint32_t value,
                             const BufferExpectation &expected) {
    const Value &v = plan_.values[value];
    auto mismatch = [&](const char *aspect, const std::string &has,
                        const std::string &wants) {
      return corrupt(formatString(
          "step %zu (%s) passes %s as %s, whose %s is %s, but its code "
          "expects %s",
          step, what.c_str(), describeValue(value).c_str(), role.c_str(),
          aspect, has.c_str(), wants.c_str()));
    };
    if (v.dtype != expected.dtype)
      return mismatch("dtype", tsc_dtype_name(tsc_dtype_t(v.dtype)),
                      tsc_dtype_name(tsc_dtype_t(expected.dtype)));
    std::vector<Expr> dims;
    for (uint32_t d : v.dims)
      dims.push_back(plan_.exprs[d]);
    bool same = dims.size() == expected.dims.size();
    for (size_t d = 0; same && d < dims.size(); ++d)
      same =
          dims[d].size == expected.dims[d].size &&
          std::memcmp(dims[d].code, expected.dims[d].code, dims[d].size) == 0;
    if (!same)
      return mismatch("shape", describeShape(dims),
                      describeShape(expected.dims));
    if (expected.written && readOnly(value))
      return corrupt(formatString(
          "step %zu (%s) writes %s, an input or a weight, as %s", step,
          what.c_str(), describeValue(value).c_str(), role.c_str()));
    return nullptr;
  }

  tsc_status_t checkSteps() {
    tsc_status_t status = nullptr;
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const Step &s = plan_.steps[i];
      switch (s.kind) {
      case StepKind::Launch: {
        const LaunchStep &l = s.launch;
        if (plan_.target != "cuda")
          return corrupt(formatString(
              "step %zu is a CUDA launch in a '%s' plan", i,
              plan_.target.c_str()));
        if (l.module >= cudaModules_)
          return corrupt(formatString(
              "step %zu launches module %u, but the CUDA section has %zu", i,
              l.module, cudaModules_));
        for (const LaunchStep::Arg &arg : l.args)
          if (arg.kind == LaunchStep::ArgKind::Pointer &&
              (status = checkOperand(i, "launch", "an argument", arg.index,
                                     false)))
            return status;
        // Format 1.11: the k-th pointer argument against the k-th
        // expectation (none before 1.11).
        for (size_t a = 0, k = 0; a < l.args.size() && k < s.expected.size();
             ++a)
          if (l.args[a].kind == LaunchStep::ArgKind::Pointer &&
              (status = checkExpected(i, "launch of " + l.source,
                                      formatString("argument %zu", a),
                                      l.args[a].index, s.expected[k++])))
            return status;
        break;
      }
      case StepKind::Kernel:
        if (plan_.target != "cpu")
          return corrupt(formatString(
              "step %zu is a host kernel in a '%s' plan", i,
              plan_.target.c_str()));
        if (!host_.present)
          return corrupt(formatString(
              "step %zu is a kernel, but there is no HOST section", i));
        if (s.function.empty())
          return corrupt(
              formatString("step %zu (kernel) has no function name", i));
        for (uint32_t b : s.buffers)
          if ((status = checkOperand(i, "kernel", "a buffer", b, false)))
            return status;
        for (size_t k = 0; k < s.expected.size(); ++k)
          if ((status = checkExpected(i, "kernel '" + s.function + "'",
                                      formatString("buffer %zu", k),
                                      s.buffers[k], s.expected[k])))
            return status;
        break;
      case StepKind::Gemm: {
        const GemmStep &g = s.gemm;
        bool quantizedB = g.weightScale != kNone;
        bool integer = !quantizedB && g.a < plan_.values.size() &&
                       (plan_.values[g.a].dtype == TSC_DTYPE_I8 ||
                        plan_.values[g.a].dtype == TSC_DTYPE_F8E4M3FN);
        if (integer) {
          if ((status = checkIntegerGemm(i, g)))
            return status;
        } else if ((status = checkGemmOperand(i, "A", g.a, false, g.a)) ||
                   (quantizedB && (status = checkQuantizedOperands(i, g))) ||
                   (!quantizedB &&
                    (status = checkGemmOperand(i, "B", g.b, false, g.a))) ||
                   (status = checkGemmOperand(i, "C", g.c, true, g.a)) ||
                   (g.bias != kNone && (status = checkGemmOperand(
                                            i, "bias", g.bias, false, g.a))) ||
                   (g.residual != kNone &&
                    (status = checkGemmOperand(i, "residual", g.residual, false,
                                               g.a))))
          return status;
        std::vector<std::pair<const char *, uint32_t>> operands{
            {"A", g.a}, {"B", g.b}, {"C", g.c}};
        if (g.bias != kNone)
          operands.push_back({"the bias", g.bias});
        if (g.residual != kNone)
          operands.push_back({"the residual", g.residual});
        if (g.weightScale != kNone)
          operands.push_back({"B's scale", g.weightScale});
        if (g.weightZeroPoint != kNone)
          operands.push_back({"B's zero point", g.weightZeroPoint});
        if (g.inputMultiplier != kNone)
          operands.push_back({"A's multipliers", g.inputMultiplier});
        for (size_t k = 0; k < s.expected.size(); ++k)
          if ((status = checkExpected(i, "gemm", operands[k].first,
                                      operands[k].second, s.expected[k])))
            return status;
        if (g.activation > kLastGemmActivation)
          return corrupt(
              formatString("step %zu (gemm) has unknown activation %u", i,
                           unsigned(g.activation)));
        // Format 1.16: bf16 inputs, a host GEMM of f32 operands.
        if (g.bf16Inputs &&
            (plan_.target != "cpu" || quantizedB || g.sparse24 || g.transA ||
             plan_.values[g.a].dtype != TSC_DTYPE_F32))
          return corrupt(formatString(
              "step %zu (gemm) has bf16 inputs, which only a 'cpu' plan's "
              "GEMM of f32 operands (A not transposed) has",
              i));
        break;
      }
      case StepKind::Copy:
        if ((status = checkOperand(i, "copy", "the source", s.source,
                                   false)) ||
            (status = checkOperand(i, "copy", "the destination", s.destination,
                                   true)))
          return status;
        if (plan_.values[s.source].dtype != plan_.values[s.destination].dtype)
          return corrupt(formatString(
              "step %zu (copy) source and destination differ in dtype", i));
        break;
      }
    }
    return nullptr;
  }

  Plan &plan_;
  const std::string &file_;
  const SectionView &host_;
  const SectionView &weights_;
  size_t cudaModules_;
};

} // namespace

tsc_status_t checkPlan(Plan &plan, const std::string &file,
                       const SectionView &host, const SectionView &weights,
                       size_t cudaModules) {
  return Checker(plan, file, host, weights, cudaModules).run();
}

} // namespace tsc::rt
