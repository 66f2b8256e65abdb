// cuda_sparse.cpp - 2:4 sparse GEMMs through cuSPARSELt (cuda_sparse.h).
//
// The C ABI of cusparseLt.h (0.6 to 0.8), declared here as cuda_api.h
// declares cuBLASLt's: the runtime never links CUDA. The opaque structs
// are 512 bytes in 0.8 (1024 in older releases): 1024 covers both.

#include "cuda_sparse.h"

#include "internal.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace tsc::rt::cuda {
namespace {

struct alignas(16) Opaque {
  uint8_t data[1024];
};
using cusparseStatus_t = int;
constexpr cusparseStatus_t CUSPARSE_STATUS_SUCCESS = 0;
constexpr int CUSPARSE_OPERATION_NON_TRANSPOSE = 0,
              CUSPARSE_OPERATION_TRANSPOSE = 1;
constexpr int CUSPARSE_ORDER_ROW = 2;
constexpr int CUSPARSE_COMPUTE_32F = 2;
constexpr int CUSPARSELT_SPARSITY_50_PERCENT = 0;
constexpr int CUSPARSELT_MATMUL_ALG_DEFAULT = 0;
constexpr int CUSPARSELT_MATMUL_ACTIVATION_GELU = 3;
constexpr int CUSPARSELT_MATMUL_BIAS_POINTER = 8;
/// Operands' alignment the descriptors promise (the plan's values start at
/// 64-byte multiples).
constexpr uint32_t kAlignmentBytes = 16;

struct SparseLt {
  cusparseStatus_t (*init)(Opaque *);
  cusparseStatus_t (*destroy)(const Opaque *);
  cusparseStatus_t (*denseDescriptorInit)(const Opaque *, Opaque *, int64_t,
                                          int64_t, int64_t, uint32_t, int, int);
  cusparseStatus_t (*structuredDescriptorInit)(const Opaque *, Opaque *,
                                               int64_t, int64_t, int64_t,
                                               uint32_t, int, int, int);
  cusparseStatus_t (*matDescriptorDestroy)(const Opaque *);
  cusparseStatus_t (*matmulDescriptorInit)(const Opaque *, Opaque *, int, int,
                                           const Opaque *, const Opaque *,
                                           const Opaque *, const Opaque *, int);
  cusparseStatus_t (*matmulDescSetAttribute)(const Opaque *, Opaque *, int,
                                             const void *, size_t);
  cusparseStatus_t (*algSelectionInit)(const Opaque *, Opaque *, const Opaque *,
                                       int);
  cusparseStatus_t (*planInit)(const Opaque *, Opaque *, const Opaque *,
                               const Opaque *);
  cusparseStatus_t (*planDestroy)(const Opaque *);
  cusparseStatus_t (*getWorkspace)(const Opaque *, const Opaque *, size_t *);
  cusparseStatus_t (*matmul)(const Opaque *, const Opaque *, const void *,
                             const void *, const void *, const void *,
                             const void *, void *, void *, CUstream *, int32_t);
  cusparseStatus_t (*compressedSize2)(const Opaque *, const Opaque *, size_t *,
                                      size_t *);
  cusparseStatus_t (*compress2)(const Opaque *, const Opaque *, int, int,
                                const void *, void *, void *, CUstream);
  const char *(*errorName)(cusparseStatus_t);
  std::string error;
};

const SparseLt &sparseLt() {
  static SparseLt s;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *path = std::getenv("TSC_CUSPARSELT");
    std::string name = path ? path : "libcusparseLt.so.0";
    std::string why;
    void *library = openLibrary(name, why);
    if (!library) {
      s.error = "cuSPARSELt could not be loaded (" + why +
                "); install it (pip install nvidia-cusparselt-cu13) and set "
                "TSC_CUSPARSELT to the path of libcusparseLt.so.0";
      return;
    }
    bool found =
        lookup(library, "cusparseLtInit", s.init) &&
        lookup(library, "cusparseLtDestroy", s.destroy) &&
        lookup(library, "cusparseLtDenseDescriptorInit",
               s.denseDescriptorInit) &&
        lookup(library, "cusparseLtStructuredDescriptorInit",
               s.structuredDescriptorInit) &&
        lookup(library, "cusparseLtMatDescriptorDestroy",
               s.matDescriptorDestroy) &&
        lookup(library, "cusparseLtMatmulDescriptorInit",
               s.matmulDescriptorInit) &&
        lookup(library, "cusparseLtMatmulDescSetAttribute",
               s.matmulDescSetAttribute) &&
        lookup(library, "cusparseLtMatmulAlgSelectionInit",
               s.algSelectionInit) &&
        lookup(library, "cusparseLtMatmulPlanInit", s.planInit) &&
        lookup(library, "cusparseLtMatmulPlanDestroy", s.planDestroy) &&
        lookup(library, "cusparseLtMatmulGetWorkspace", s.getWorkspace) &&
        lookup(library, "cusparseLtMatmul", s.matmul) &&
        lookup(library, "cusparseLtSpMMACompressedSize2", s.compressedSize2) &&
        lookup(library, "cusparseLtSpMMACompress2", s.compress2);
    lookup(library, "cusparseLtGetErrorName", s.errorName);
    if (!found)
      s.error = "the cuSPARSELt library lacks an entry point tsc needs "
                "(cusparseLtSpMMACompress2 came with 0.6)";
  });
  return s;
}

std::string statusName(cusparseStatus_t status) {
  const SparseLt &s = sparseLt();
  if (s.errorName)
    if (const char *name = s.errorName(status))
      return name;
  return "cusparseStatus_t " + std::to_string(status);
}

int dataTypeOf(uint8_t dtype) {
  return dtype == TSC_DTYPE_F16    ? CUDA_R_16F
         : dtype == TSC_DTYPE_BF16 ? CUDA_R_16BF
                                   : CUDA_R_32F;
}

} // namespace

void expand24(const uint8_t *packed, int64_t n, int64_t k, bool transB,
              unsigned elementBytes, uint8_t *dense) {
  std::memset(dense, 0, size_t(n) * size_t(k) * elementBytes);
  const uint8_t *codes = packed + size_t(n) * size_t(k / 2) * elementBytes;
  for (int64_t row = 0; row < n; ++row)
    for (int64_t group = 0; group < k / 4; ++group) {
      size_t index = size_t(row) * size_t(k / 4) + size_t(group);
      uint8_t code = uint8_t(codes[index / 2] >> (index % 2 ? 4 : 0));
      for (int j = 0; j < 2; ++j) {
        int64_t col = group * 4 + ((code >> (2 * j)) & 3);
        size_t at = transB ? size_t(row) * size_t(k) + size_t(col)
                           : size_t(col) * size_t(n) + size_t(row);
        std::memcpy(dense + at * elementBytes,
                    packed + (index * 2 + j) * elementBytes, elementBytes);
      }
    }
}

struct SparseState {
  Opaque handle{};
  bool initialized = false;
  /// Per sparse step: B in cuSPARSELt's compressed form on the device.
  std::map<size_t, CUdeviceptr> compressed;
  ~SparseState() {
    for (auto &[step, pointer] : compressed)
      driver().cuMemFree(pointer);
    if (initialized)
      sparseLt().destroy(&handle);
  }
};

SparseGemms::SparseGemms() = default;
SparseGemms::~SparseGemms() = default;
void SparseGemms::release() { state.reset(); }

namespace {

/// B's structured descriptor: K × N row-major, or N × K with transB.
cusparseStatus_t describeB(const SparseLt &lt, const Opaque &handle,
                           Opaque &desc, const GemmStep &g, int64_t n,
                           int64_t k, int dataType) {
  return lt.structuredDescriptorInit(
      &handle, &desc, g.transB ? n : k, g.transB ? k : n, g.transB ? k : n,
      kAlignmentBytes, dataType, CUSPARSE_ORDER_ROW,
      CUSPARSELT_SPARSITY_50_PERCENT);
}

} // namespace

tsc_status_t SparseGemms::prepare(const std::string &file, const Plan &plan,
                                  const uint8_t *weights, int cc,
                                  CUstream stream) {
  std::vector<size_t> steps;
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (plan.steps[i].kind == StepKind::Gemm && plan.steps[i].gemm.sparse24)
      steps.push_back(i);
  if (steps.empty())
    return nullptr;
  if (cc < 80)
    return statusf(TSC_STATUS_UNAVAILABLE,
                   "%s: step %zu is a 2:4 sparse GEMM, which needs sparse "
                   "tensor cores (sm_80 or newer); this device is sm_%d",
                   file.c_str(), steps[0], cc);
  const SparseLt &lt = sparseLt();
  if (!lt.error.empty())
    return makeStatus(
        TSC_STATUS_UNAVAILABLE,
        file + ": the plan's 2:4 sparse GEMMs need cuSPARSELt: " + lt.error);
  state = std::make_unique<SparseState>();
  if (cusparseStatus_t s = lt.init(&state->handle);
      s != CUSPARSE_STATUS_SUCCESS)
    return statusf(TSC_STATUS_UNAVAILABLE, "%s: cusparseLtInit failed with %s",
                   file.c_str(), statusName(s).c_str());
  state->initialized = true;
  const Driver &d = driver();
  for (size_t i : steps) {
    const GemmStep &g = plan.steps[i].gemm;
    const Value &b = plan.values[g.b];
    // checkPlan: B is a rank-2 constant weight of the compressed size.
    int64_t rows = 0, cols = 0;
    const char *error = nullptr;
    evalExpr(plan.exprs[b.dims[0]], nullptr, rows, error);
    evalExpr(plan.exprs[b.dims[1]], nullptr, cols, error);
    int64_t n = g.transB ? rows : cols, k = g.transB ? cols : rows;
    unsigned elementBytes = b.dtype == TSC_DTYPE_F32 ? 4 : 2;
    std::vector<uint8_t> dense(size_t(n) * size_t(k) * elementBytes);
    expand24(weights + b.offset, n, k, g.transB, elementBytes, dense.data());
    Opaque desc{};
    size_t compressedBytes = 0, bufferBytes = 0;
    cusparseStatus_t s =
        describeB(lt, state->handle, desc, g, n, k, dataTypeOf(b.dtype));
    if (s == CUSPARSE_STATUS_SUCCESS)
      s = lt.compressedSize2(&state->handle, &desc, &compressedBytes,
                             &bufferBytes);
    CUdeviceptr denseOnDevice = 0, buffer = 0, out = 0;
    CUresult r = CUDA_SUCCESS;
    if (s == CUSPARSE_STATUS_SUCCESS) {
      r = d.cuMemAlloc(&denseOnDevice, dense.size());
      if (r == CUDA_SUCCESS)
        r = d.cuMemcpyHtoD(denseOnDevice, dense.data(), dense.size());
      if (r == CUDA_SUCCESS && bufferBytes)
        r = d.cuMemAlloc(&buffer, bufferBytes);
      if (r == CUDA_SUCCESS)
        r = d.cuMemAlloc(&out, compressedBytes);
      if (r == CUDA_SUCCESS)
        s = lt.compress2(
            &state->handle, &desc, /*isSparseA=*/0,
            g.transB ? CUSPARSE_OPERATION_TRANSPOSE
                     : CUSPARSE_OPERATION_NON_TRANSPOSE,
            reinterpret_cast<const void *>(uintptr_t(denseOnDevice)),
            reinterpret_cast<void *>(uintptr_t(out)),
            reinterpret_cast<void *>(uintptr_t(buffer)), stream);
      if (r == CUDA_SUCCESS && s == CUSPARSE_STATUS_SUCCESS)
        r = d.cuStreamSynchronize(stream);
    }
    lt.matDescriptorDestroy(&desc);
    for (CUdeviceptr p : {denseOnDevice, buffer})
      if (p)
        d.cuMemFree(p);
    if (out)
      state->compressed[i] = out;
    if (r != CUDA_SUCCESS)
      return statusf(TSC_STATUS_UNAVAILABLE,
                     "%s: step %zu (2:4 gemm): preparing its weight on the "
                     "device failed with %s",
                     file.c_str(), i, errorName(r).c_str());
    if (s != CUSPARSE_STATUS_SUCCESS)
      return statusf(TSC_STATUS_INTERNAL,
                     "%s: step %zu (2:4 gemm %lldx%lld): cuSPARSELt could not "
                     "compress the weight: %s",
                     file.c_str(), i, static_cast<long long>(n),
                     static_cast<long long>(k), statusName(s).c_str());
  }
  return nullptr;
}

tsc_status_t SparseGemms::run(const std::string &file, size_t step,
                              const GemmStep &g, uint8_t dtype, int64_t m,
                              int64_t n, int64_t k, int64_t lda, int64_t ldc,
                              CUdeviceptr a, CUdeviceptr bias, CUdeviceptr r,
                              CUdeviceptr c, CUdeviceptr workspace,
                              size_t workspaceBytes, CUstream stream) {
  if (m == 0 || n == 0)
    return nullptr;
  const SparseLt &lt = sparseLt();
  const Opaque &handle = state->handle;
  int dataType = dataTypeOf(dtype);
  // Row-major D (m × n) = act(alpha·op(A)·op(B) + beta·R + bias); A is
  // m × k (k × m with transA), B the structured operand.
  Opaque descA{}, descB{}, descC{}, matmul{}, alg{}, plan{};
  cusparseStatus_t s = lt.denseDescriptorInit(
      &handle, &descA, g.transA ? k : m, g.transA ? m : k, lda, kAlignmentBytes,
      dataType, CUSPARSE_ORDER_ROW);
  bool describedA = s == CUSPARSE_STATUS_SUCCESS;
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = describeB(lt, handle, descB, g, n, k, dataType);
  bool describedB = describedA && s == CUSPARSE_STATUS_SUCCESS;
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = lt.denseDescriptorInit(&handle, &descC, m, n, ldc, kAlignmentBytes,
                               dataType, CUSPARSE_ORDER_ROW);
  bool describedC = describedB && s == CUSPARSE_STATUS_SUCCESS;
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = lt.matmulDescriptorInit(&handle, &matmul,
                                g.transA ? CUSPARSE_OPERATION_TRANSPOSE
                                         : CUSPARSE_OPERATION_NON_TRANSPOSE,
                                g.transB ? CUSPARSE_OPERATION_TRANSPOSE
                                         : CUSPARSE_OPERATION_NON_TRANSPOSE,
                                &descA, &descB, &descC, &descC,
                                CUSPARSE_COMPUTE_32F);
  // checkCudaPlan let through no activation but the tanh GELU, which is
  // cuSPARSELt's too.
  int gelu = GemmActivation(g.activation) == GemmActivation::GeluTanh;
  if (s == CUSPARSE_STATUS_SUCCESS && gelu)
    s = lt.matmulDescSetAttribute(&handle, &matmul,
                                  CUSPARSELT_MATMUL_ACTIVATION_GELU, &gelu,
                                  sizeof(gelu));
  void *biasPointer = reinterpret_cast<void *>(uintptr_t(bias));
  if (s == CUSPARSE_STATUS_SUCCESS && bias)
    s = lt.matmulDescSetAttribute(&handle, &matmul,
                                  CUSPARSELT_MATMUL_BIAS_POINTER, &biasPointer,
                                  sizeof(biasPointer));
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = lt.algSelectionInit(&handle, &alg, &matmul,
                            CUSPARSELT_MATMUL_ALG_DEFAULT);
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = lt.planInit(&handle, &plan, &matmul, &alg);
  bool planned = s == CUSPARSE_STATUS_SUCCESS;
  size_t needed = 0;
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = lt.getWorkspace(&handle, &plan, &needed);
  bool fits = needed <= workspaceBytes;
  if (s == CUSPARSE_STATUS_SUCCESS && fits)
    s = lt.matmul(
        &handle, &plan, &g.alpha, reinterpret_cast<const void *>(uintptr_t(a)),
        reinterpret_cast<const void *>(uintptr_t(state->compressed.at(step))),
        &g.beta, reinterpret_cast<const void *>(uintptr_t(r)),
        reinterpret_cast<void *>(uintptr_t(c)),
        reinterpret_cast<void *>(uintptr_t(workspace)), &stream, 1);
  if (planned)
    lt.planDestroy(&plan);
  if (describedC)
    lt.matDescriptorDestroy(&descC);
  if (describedB)
    lt.matDescriptorDestroy(&descB);
  if (describedA)
    lt.matDescriptorDestroy(&descA);
  if (s == CUSPARSE_STATUS_SUCCESS && !fits)
    return statusf(TSC_STATUS_INTERNAL,
                   "%s: step %zu (2:4 gemm): cuSPARSELt wants %zu bytes of "
                   "workspace, the session has %zu",
                   file.c_str(), step, needed, workspaceBytes);
  if (s != CUSPARSE_STATUS_SUCCESS)
    return statusf(TSC_STATUS_INTERNAL,
                   "%s: step %zu (2:4 gemm %lldx%lldx%lld): cuSPARSELt failed "
                   "with %s",
                   file.c_str(), step, static_cast<long long>(m),
                   static_cast<long long>(n), static_cast<long long>(k),
                   statusName(s).c_str());
  return nullptr;
}

} // namespace tsc::rt::cuda
