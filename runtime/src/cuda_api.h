//===- cuda_api.h - the CUDA driver and cuBLASLt through dlopen -----------===//
//
// The runtime never links CUDA: libcuda.so.1 and libcublasLt are opened on
// first use and the entry points tsc needs are looked up by name, so one
// runtime binary works with and without a GPU. The types and constants below
// are the C ABI of those libraries (cuda.h, cublasLt.h; CUDA 11.8 to 13),
// declared here so that building the runtime needs no CUDA headers;
// test/runtime/cuda_abi_check.cpp checks them against the headers where a
// toolkit is installed.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_CUDA_API_H
#define TSC_RUNTIME_CUDA_API_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsc::rt::cuda {

// --- Driver API (cuda.h) ----------------------------------------------------
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
/// The special stream handles (cuda.h's CU_STREAM_LEGACY and
/// CU_STREAM_PER_THREAD), which cannot be captured.
constexpr uintptr_t kStreamLegacy = 0x1, kStreamPerThread = 0x2;
constexpr int CU_STREAM_CAPTURE_STATUS_NONE = 0;
constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxPushCurrent)(CUcontext);
  CUresult (*cuCtxPopCurrent)(CUcontext *);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamIsCapturing)(CUstream, int *);
  CUresult (*cuStreamBeginCapture)(CUstream, int);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph,
                                          unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  /// Why the driver is unusable; empty when it is usable.
  std::string error;
};

/// The driver, loaded and initialized once per process.
const Driver &driver();
/// "CUDA_ERROR_OUT_OF_MEMORY" for `result`.
std::string errorName(CUresult result);

// --- cuBLASLt (cublasLt.h) ---------------------------------------------------
using cublasStatus_t = int;
using cublasLtHandle_t = struct cublasLtContext *;
using cublasLtMatmulDesc_t = struct cublasLtMatmulDescOpaque_st *;
using cublasLtMatrixLayout_t = struct cublasLtMatrixLayoutOpaque_st *;
using cublasLtMatmulPreference_t = struct cublasLtMatmulPreferenceOpaque_st *;

struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
constexpr int CUBLAS_COMPUTE_32F = 68;
constexpr int CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
constexpr int CUBLAS_COMPUTE_32I = 72;
constexpr int CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14;
constexpr int CUDA_R_8I = 3, CUDA_R_32I = 10, CUDA_R_8F_E4M3 = 28;
constexpr int32_t CUBLAS_OP_N = 0, CUBLAS_OP_T = 1;
constexpr int CUBLASLT_MATMUL_DESC_TRANSA = 3;
constexpr int CUBLASLT_MATMUL_DESC_TRANSB = 4;
constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE = 7;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8;
constexpr uint32_t CUBLASLT_EPILOGUE_DEFAULT = 1, CUBLASLT_EPILOGUE_BIAS = 4;
/// GELU by the tanh approximation, after the bias in GELU_BIAS.
constexpr uint32_t CUBLASLT_EPILOGUE_GELU = 32,
                   CUBLASLT_EPILOGUE_GELU_BIAS = 36;
constexpr int CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;
constexpr int CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6;
constexpr int CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;
/// A, B, C, D: 5, 6, 7, 8 (uint32_t; the default, 256, lets the heuristic
/// pick algorithms that need 256-byte aligned operands).
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5;

struct BlasLt {
  cublasStatus_t (*cublasLtCreate)(cublasLtHandle_t *);
  cublasStatus_t (*cublasLtDestroy)(cublasLtHandle_t);
  cublasStatus_t (*cublasLtMatmulDescCreate)(cublasLtMatmulDesc_t *, int,
                                             int);
  cublasStatus_t (*cublasLtMatmulDescDestroy)(cublasLtMatmulDesc_t);
  cublasStatus_t (*cublasLtMatmulDescSetAttribute)(cublasLtMatmulDesc_t, int,
                                                   const void *, size_t);
  cublasStatus_t (*cublasLtMatrixLayoutCreate)(cublasLtMatrixLayout_t *, int,
                                               uint64_t, uint64_t, int64_t);
  cublasStatus_t (*cublasLtMatrixLayoutDestroy)(cublasLtMatrixLayout_t);
  cublasStatus_t (*cublasLtMatrixLayoutSetAttribute)(cublasLtMatrixLayout_t,
                                                     int, const void *,
                                                     size_t);
  cublasStatus_t (*cublasLtMatmulPreferenceCreate)(
      cublasLtMatmulPreference_t *);
  cublasStatus_t (*cublasLtMatmulPreferenceDestroy)(
      cublasLtMatmulPreference_t);
  cublasStatus_t (*cublasLtMatmulPreferenceSetAttribute)(
      cublasLtMatmulPreference_t, int, const void *, size_t);
  cublasStatus_t (*cublasLtMatmulAlgoGetHeuristic)(
      cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
      cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
      cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t *,
      int *);
  cublasStatus_t (*cublasLtMatmul)(
      cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
      cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t,
      const void *, const void *, cublasLtMatrixLayout_t, void *,
      cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *, size_t,
      CUstream);
  const char *(*cublasLtGetStatusName)(cublasStatus_t);
  /// Why cuBLASLt is unusable; empty when it is usable.
  std::string error;
};

/// dlopen of `name`, else of it in the CUDA toolkit's lib64 ($CUDA_HOME,
/// /usr/local/cuda): where toolkits install the libraries without adding
/// them to the loader's path. Null, with dlopen's reason in `why`, when
/// neither loads.
void *openLibrary(const std::string &name, std::string &why);
/// dlsym of `name` in `library`.
void *lookupSymbol(void *library, const char *name);
/// Sets `fn` to entry point `name` of `library`; whether it has one.
template <typename Fn> bool lookup(void *library, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(lookupSymbol(library, name));
  return fn != nullptr;
}

/// cuBLASLt, loaded once per process: $TSC_CUBLASLT, else libcublasLt.so.13,
/// .12, .11 from the library path or the CUDA toolkit's lib64.
const BlasLt &blasLt();
/// "CUBLAS_STATUS_NOT_SUPPORTED" for `status`.
std::string blasStatusName(cublasStatus_t status);

} // namespace tsc::rt::cuda

#endif // TSC_RUNTIME_CUDA_API_H
