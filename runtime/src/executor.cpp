//===- executor.cpp - sizing a plan's values and running its steps --------===//

#include "executor.h"

#include <chrono>

#include "half.h"
#include "internal.h"

#include <climits>
#include <cstring>

#if TSC_RUNTIME_HAS_OPENBLAS
#include <cblas.h>
// Declared by OpenBLAS's cblas.h, but not by every cblas.h; the same
// declaration twice is harmless.
extern "C" void openblas_set_num_threads(int num_threads);
#endif

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

void runGemmF32(const GemmStep &g, const Layout &layout,
                const std::vector<void *> &addresses);

/// A GEMM on fp16 or bf16 operands: the CPU has no half-precision BLAS, so
/// each operand is widened to f32 (values that are one operand twice share
/// one copy, keeping an in-place residual in place), the f32 GEMM runs, and
/// C is rounded back. Accumulation is f32, as on the GPU.
void runGemmHalf(const GemmStep &g, const Layout &layout,
                 const std::vector<void *> &addresses, bool bf16) {
  std::vector<void *> wide(addresses.size(), nullptr);
  std::vector<std::vector<float>> copies;
  for (uint32_t v : {g.a, g.b, g.c, g.bias, g.residual}) {
    if (v == kNone || wide[v])
      continue;
    const uint16_t *from = static_cast<const uint16_t *>(addresses[v]);
    std::vector<float> &to = copies.emplace_back(size_t(layout.elements[v]));
    for (size_t i = 0; i < to.size(); ++i)
      to[i] = bf16 ? bf16ToFloat(from[i]) : halfToFloat(from[i]);
    wide[v] = to.data();
  }
  runGemmF32(g, layout, wide);
  const float *from = static_cast<const float *>(wide[g.c]);
  uint16_t *to = static_cast<uint16_t *>(addresses[g.c]);
  for (int64_t i = 0; i < layout.elements[g.c]; ++i)
    to[i] = bf16 ? floatToBf16(from[i]) : floatToHalf(from[i]);
}

void runGemm(const Plan &plan, const GemmStep &g, const Layout &layout,
             const std::vector<void *> &addresses) {
  uint8_t dtype = plan.values[g.c].dtype;
  if (dtype == TSC_DTYPE_F32)
    runGemmF32(g, layout, addresses);
  else
    runGemmHalf(g, layout, addresses, dtype == TSC_DTYPE_BF16);
}

void runGemmF32(const GemmStep &g, const Layout &layout,
                const std::vector<void *> &addresses) {
  const std::vector<int64_t> &e = layout.exprValues;
  const int batch = int(e[g.batch]), m = int(e[g.m]), n = int(e[g.n]),
            k = int(e[g.k]);
  const int lda = int(e[g.lda]), ldb = int(e[g.ldb]), ldc = int(e[g.ldc]);
  const int64_t strideA = e[g.strideA], strideB = e[g.strideB],
                strideC = e[g.strideC];
  const float *a = static_cast<const float *>(addresses[g.a]);
  const float *b = static_cast<const float *>(addresses[g.b]);
  float *c = static_cast<float *>(addresses[g.c]);
  const float *bias =
      g.bias == kNone ? nullptr : static_cast<const float *>(addresses[g.bias]);
  const float *residual = g.residual == kNone
                              ? nullptr
                              : static_cast<const float *>(addresses[g.residual]);
  if (m == 0 || n == 0)
    return;
  // The epilogue rides on the library's beta: C is seeded with the residual
  // (unless it is C already) and the bias, then C = alpha·A·B + beta·C. A
  // bias with beta != 0 and no residual is added after the call.
  const bool seed = residual || (bias && g.beta == 0.0f);
  const bool biasAfter = bias && !seed;
  for (int i = 0; i < batch; ++i) {
    float *ci = c + i * strideC;
    if (seed) {
      const float *ri = residual ? residual + i * strideC : nullptr;
      for (int r = 0; r < m; ++r) {
        float *row = ci + int64_t(r) * ldc;
        const float *from = ri ? ri + int64_t(r) * ldc : nullptr;
        if (from && from != row)
          std::memcpy(row, from, sizeof(float) * size_t(n));
        if (bias && from)
          for (int j = 0; j < n; ++j)
            row[j] += bias[j];
        else if (bias)
          std::memcpy(row, bias, sizeof(float) * size_t(n));
      }
    }
    // A seeded bias stands in for beta·C = 0.
    const float beta = seed && !residual ? 1.0f : g.beta;
#if TSC_RUNTIME_HAS_OPENBLAS
    cblas_sgemm(CblasRowMajor, g.transA ? CblasTrans : CblasNoTrans,
                g.transB ? CblasTrans : CblasNoTrans, m, n, k, g.alpha,
                a + i * strideA, lda, b + i * strideB, ldb, beta, ci, ldc);
#else
    // checkHostGemms refused the model at load.
    (void)a, (void)b, (void)lda, (void)ldb, (void)ldc, (void)k, (void)strideA,
        (void)strideB, (void)beta;
#endif
    if (biasAfter)
      for (int r = 0; r < m; ++r) {
        float *row = ci + int64_t(r) * ldc;
        for (int j = 0; j < n; ++j)
          row[j] += bias[j];
      }
  }
}

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

void executeSteps(const tsc_model_s &model, const Layout &layout,
                  const std::vector<void *> &addresses, const int64_t *symbols,
                  std::vector<void *> &scratch,
                  std::vector<double> *stepTimes) {
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
      runGemm(plan, s.gemm, layout, addresses);
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
      (*stepTimes)[i] +=
          std::chrono::duration<double, std::milli>(Clock::now() - start)
              .count();
  }
}

void setBlasThreads(int threads) {
#if TSC_RUNTIME_HAS_OPENBLAS
  openblas_set_num_threads(threads);
#else
  (void)threads;
#endif
}

tsc_status_t checkHostGemms(const tsc_model_s &model) {
#if TSC_RUNTIME_HAS_OPENBLAS
  (void)model;
  return nullptr;
#else
  return statusf(TSC_STATUS_UNAVAILABLE,
                 "%s: the plan has GEMM steps, and this runtime was built "
                 "without OpenBLAS (build it with libopenblas-dev installed)",
                 model.artifact.name().c_str());
#endif
}

} // namespace tsc::rt
