//===- executor.cpp - sizing a plan's values and running its steps --------===//

#include "executor.h"

#include <chrono>

#include "host_gemm.h"
#include "internal.h"

#include <climits>
#include <cstring>

#include <dlfcn.h>

// The first OpenMP runtime in the process's scope: LLVM's libomp, which the
// HOST code links and which also serves libdnnl's GNU OpenMP calls (see
// CMakeLists.txt), unless the program loaded libgomp before the runtime.
extern "C" void omp_set_num_threads(int threads);
extern "C" int omp_get_max_threads(void);

namespace tsc::rt {
namespace {

class LayoutBuilder {
public:
  LayoutBuilder(const tsc_model_s &model, const int64_t *symbols,
                Layout &layout, bool boundsOnly)
      : model_(model), plan_(model.plan), symbols_(symbols), layout_(layout),
        boundsOnly_(boundsOnly) {}

  tsc_status_t build() {
    tsc_status_t status = nullptr;
    if ((status = evaluate()) || (status = sizeValues()))
      return status;
    if (boundsOnly_)
      return nullptr;
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const Step &s = plan_.steps[i];
      if (s.kind == StepKind::Gemm && (status = checkGemm(i, s.gemm)))
        return status;
      if (s.kind == StepKind::Copy &&
          layout_.elements[s.source] != layout_.elements[s.destination])
        return corrupt(formatString(
            "step %zu (copy) copies %lld elements into %lld", i,
            static_cast<long long>(layout_.elements[s.source]),
            static_cast<long long>(layout_.elements[s.destination])));
    }
    return nullptr;
  }

private:
  tsc_status_t corrupt(const std::string &what) {
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: PLAN: %s at %s (corrupt artifact)",
                   model_.artifact.name().c_str(), what.c_str(),
                   describeSymbols(plan_, symbols_).c_str());
  }

  tsc_status_t evaluate() {
    layout_.exprValues.resize(plan_.exprs.size());
    for (size_t i = 0; i < plan_.exprs.size(); ++i) {
      const char *error = nullptr;
      if (!evalExpr(plan_.exprs[i], symbols_, layout_.exprValues[i], error))
        return corrupt(formatString(
            "expression %zu (%s): %s", i,
            printExpr(plan_.exprs[i], plan_.symbols).c_str(), error));
    }
    return nullptr;
  }

  tsc_status_t sizeValues() {
    const size_t count = plan_.values.size();
    layout_.elements.resize(count);
    layout_.bytes.resize(count);
    for (size_t i = 0; i < count; ++i) {
      const Value &v = plan_.values[i];
      int64_t elements = 1, bytes = 0;
      for (size_t d = 0; d < v.dims.size(); ++d) {
        int64_t size = layout_.exprValues[v.dims[d]];
        if (size < 0)
          return corrupt(formatString("value %zu dim %zu is %lld", i, d,
                                      static_cast<long long>(size)));
        if (!mulNonNegative(elements, size, elements))
          return corrupt(
              formatString("value %zu has more than 2^63 elements", i));
      }
      if (!denseBytes(elements, v.dtype, bytes))
        return corrupt(formatString("value %zu has more than 2^63 bytes", i));
      layout_.elements[i] = elements;
      layout_.bytes[i] = uint64_t(bytes);
      if (v.storage == Storage::Arena &&
          uint64_t(bytes) > plan_.arenaSize - v.offset)
        return corrupt(formatString(
            "arena value %zu at offset %llu needs %lld bytes, past the "
            "arena's %llu",
            i, static_cast<unsigned long long>(v.offset),
            static_cast<long long>(bytes),
            static_cast<unsigned long long>(plan_.arenaSize)));
    }
    // Views after all values are sized: a view's base may come later.
    for (size_t i = 0; i < count && !boundsOnly_; ++i) {
      const Value &v = plan_.values[i];
      if (v.storage == Storage::View &&
          layout_.elements[i] != layout_.elements[v.ref])
        return corrupt(formatString(
            "view value %zu has %lld elements, its base %u has %lld", i,
            static_cast<long long>(layout_.elements[i]), v.ref,
            static_cast<long long>(layout_.elements[v.ref])));
    }
    return nullptr;
  }

  // One operand of `batch` problems of rows × cols with leading dimension ld
  // and a stride between problems: checks that it lies inside its value.
  tsc_status_t checkMatrix(size_t step, const char *role, uint32_t value,
                           int64_t batch, int64_t rows, int64_t cols,
                           int64_t ld, int64_t stride) {
    if (ld < (cols > 1 ? cols : 1) || ld > INT_MAX)
      return corrupt(formatString(
          "step %zu (gemm) ld%s is %lld for %lld columns", step, role,
          static_cast<long long>(ld), static_cast<long long>(cols)));
    if (stride < 0)
      return corrupt(formatString("step %zu (gemm) stride_%s is %lld", step,
                                  role, static_cast<long long>(stride)));
    if (batch == 0 || rows == 0 || cols == 0)
      return nullptr;
    int64_t last = 0, rowsPart = 0;
    bool overflow = __builtin_mul_overflow(batch - 1, stride, &last) ||
                    __builtin_mul_overflow(rows - 1, ld, &rowsPart) ||
                    __builtin_add_overflow(last, rowsPart, &last) ||
                    __builtin_add_overflow(last, cols, &last);
    if (overflow || last > layout_.elements[value])
      return corrupt(formatString(
          "step %zu (gemm) reads or writes %s (value %u) past its %lld "
          "elements",
          step, role, value, static_cast<long long>(layout_.elements[value])));
    return nullptr;
  }

  tsc_status_t checkGemm(size_t i, const GemmStep &g) {
    const std::vector<int64_t> &e = layout_.exprValues;
    int64_t batch = e[g.batch], m = e[g.m], n = e[g.n], k = e[g.k];
    for (int64_t size : {batch, m, n, k})
      if (size < 0 || size > INT_MAX)
        return corrupt(formatString(
            "step %zu (gemm) has batch, m, n, k = %lld, %lld, %lld, %lld", i,
            static_cast<long long>(batch), static_cast<long long>(m),
            static_cast<long long>(n), static_cast<long long>(k)));
    tsc_status_t status = nullptr;
    if ((status = checkMatrix(i, "a", g.a, batch, g.transA ? k : m,
                              g.transA ? m : k, e[g.lda], e[g.strideA])) ||
        (status = checkMatrix(i, "b", g.b, batch, g.transB ? n : k,
                              g.transB ? k : n, e[g.ldb], e[g.strideB])) ||
        (status =
             checkMatrix(i, "c", g.c, batch, m, n, e[g.ldc], e[g.strideC])) ||
        (g.residual != kNone &&
         (status = checkMatrix(i, "residual", g.residual, batch, m, n,
                               e[g.ldc], e[g.strideC]))))
      return status;
    // Weight-only (1.15): a scale per output channel, or per group of
    // groupSize along K.
    const int64_t scales =
        g.weightOnly && g.groupSize
            ? n * ((k + int64_t(g.groupSize) - 1) / int64_t(g.groupSize))
            : n;
    if (g.weightScale != kNone && layout_.elements[g.weightScale] != scales)
      return corrupt(formatString(
          "step %zu (%s gemm) B's scale has %lld elements, not %lld", i,
          g.weightOnly ? "weight-only" : "int8",
          static_cast<long long>(layout_.elements[g.weightScale]),
          static_cast<long long>(scales)));
    if (g.weightZeroPoint != kNone &&
        layout_.elements[g.weightZeroPoint] != scales)
      return corrupt(formatString(
          "step %zu (weight-only gemm) B's zero point has %lld elements, not "
          "%lld (one per scale)",
          i, static_cast<long long>(layout_.elements[g.weightZeroPoint]),
          static_cast<long long>(scales)));
    if (g.inputMultiplier != kNone && layout_.elements[g.inputMultiplier] != k)
      return corrupt(formatString(
          "step %zu (int8 gemm) A's multipliers have %lld elements, not "
          "%lld (one per column of A)",
          i, static_cast<long long>(layout_.elements[g.inputMultiplier]),
          static_cast<long long>(k)));
    if (g.weightScale != kNone && batch > 1)
      return corrupt(formatString(
          "step %zu (%s gemm) has a batch of %lld (one matrix only)", i,
          g.weightOnly ? "weight-only" : "int8",
          static_cast<long long>(batch)));
    if (g.bias != kNone && layout_.elements[g.bias] != n)
      return corrupt(
          formatString("step %zu (gemm) bias has %lld elements, n is %lld", i,
                       static_cast<long long>(layout_.elements[g.bias]),
                       static_cast<long long>(n)));
    return nullptr;
  }

  const tsc_model_s &model_;
  const Plan &plan_;
  const int64_t *symbols_;
  Layout &layout_;
  bool boundsOnly_;
};

} // namespace

std::string describeSymbols(const Plan &plan, const int64_t *symbols) {
  if (plan.symbols.empty())
    return "static shapes";
  std::string text;
  for (size_t j = 0; j < plan.symbols.size(); ++j)
    text +=
        formatString("%s%s=%lld", j ? ", " : "", plan.symbols[j].name.c_str(),
                     static_cast<long long>(symbols[j]));
  return text;
}

tsc_status_t computeLayout(const tsc_model_s &model, const int64_t *symbols,
                           Layout &out, bool bounds) {
  return LayoutBuilder(model, symbols, out,
                       bounds && !model.plan.definitionOrder.empty())
      .build();
}

tsc_status_t executeSteps(const tsc_model_s &model, const Layout &layout,
                          const std::vector<void *> &addresses,
                          const int64_t *symbols, HostGemms *gemms,
                          std::vector<void *> &scratch, StepTimes *stepTimes,
                          const StepHook &hook) {
  using Clock = std::chrono::steady_clock;
  const Plan &plan = model.plan;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &s = plan.steps[i];
    Clock::time_point start;
    if (stepTimes)
      start = Clock::now();
    switch (s.kind) {
    case StepKind::Kernel:
      scratch.resize(s.buffers.size());
      for (size_t b = 0; b < s.buffers.size(); ++b)
        scratch[b] = addresses[s.buffers[b]];
      model.kernels[i](scratch.data(), symbols);
      break;
    case StepKind::Gemm:
#if TSC_RUNTIME_HAS_ONEDNN
      if (tsc_status_t status = gemms->run(i, layout, addresses))
        return status;
#else
      (void)gemms; // checkHostGemms refused the model at load.
#endif
      break;
    case StepKind::Launch:
      // checkPlan allows launches only in "cuda" plans, which run in
      // cuda_backend.cpp.
      break;
    case StepKind::Copy:
      // Views of one base may overlap.
      if (layout.bytes[s.source])
        std::memmove(addresses[s.destination], addresses[s.source],
                     layout.bytes[s.source]);
      break;
    }
    if (stepTimes)
      stepTimes->record(i, start, Clock::now());
    if (hook)
      if (tsc_status_t status = hook(i))
        return status;
  }
  return nullptr;
}

ScopedHostThreads::ScopedHostThreads(int threads)
    : previous(omp_get_max_threads()) {
  setHostThreads(threads);
}

ScopedHostThreads::~ScopedHostThreads() { setHostThreads(previous); }

void setHostThreads(int threads) {
  // The kernels' runtime by name, in case libgomp came first and took the
  // global binding (then libdnnl uses libgomp's pool, set by the call below).
  using SetThreads = void (*)(int);
  static const SetThreads libomp = [] {
    void *handle = dlopen("libomp.so.5", RTLD_LAZY | RTLD_NOLOAD);
    return handle ? reinterpret_cast<SetThreads>(
                        dlsym(handle, "omp_set_num_threads"))
                  : nullptr;
  }();
  omp_set_num_threads(threads);
  if (libomp && libomp != &omp_set_num_threads)
    libomp(threads);
}

tsc_status_t checkHostGemms(const tsc_model_s &model) {
#if TSC_RUNTIME_HAS_ONEDNN
  (void)model;
  return nullptr;
#else
  return statusf(TSC_STATUS_UNAVAILABLE,
                 "%s: the plan has GEMM steps, and this runtime was built "
                 "without oneDNN (build it with libdnnl-dev installed)",
                 model.artifact.name().c_str());
#endif
}

} // namespace tsc::rt
