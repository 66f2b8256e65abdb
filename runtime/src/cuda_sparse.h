//===- cuda_sparse.h - 2:4 sparse GEMMs through cuSPARSELt ------*- C++ -*-===//
//
// GEMM steps with format 1.14's kGemmSparse24 flag: B is a weight stored in
// the neutral 2:4 form (docs/artifact-format.md); at session creation each
// is expanded on the host, uploaded and compressed by cuSPARSELt into its
// device format (cusparseLtSpMMACompress2); each run calls cusparseLtMatmul.
// cuSPARSELt (libcusparseLt.so.0, PyPI nvidia-cusparselt-cu13) is opened
// with dlopen like cuBLASLt: $TSC_CUSPARSELT, else from the library path.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_CUDA_SPARSE_H
#define TSC_RUNTIME_CUDA_SPARSE_H

#include "cuda_api.h"
#include "plan.h"

#include "tsc/runtime.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace tsc::rt::cuda {

/// Writes the dense matrix of a 2:4-compressed weight: `packed` in the
/// neutral form (n output channels, k along K), `dense` K × N row-major, or
/// N × K with `transB`; the dropped elements are zero.
void expand24(const uint8_t *packed, int64_t n, int64_t k, bool transB,
              unsigned elementBytes, uint8_t *dense);

struct SparseState;

/// A session's 2:4 GEMM weights in cuSPARSELt's form, and its handle.
class SparseGemms {
public:
  SparseGemms();
  ~SparseGemms();
  SparseGemms(const SparseGemms &) = delete;
  SparseGemms &operator=(const SparseGemms &) = delete;

  /// Loads cuSPARSELt and compresses the B of every sparse GEMM step of
  /// `plan` from `weights` (WGHT on the host): a clear UNAVAILABLE status
  /// when the library is absent or the device below sm_80 (`cc`).
  tsc_status_t prepare(const std::string &file, const Plan &plan,
                       const uint8_t *weights, int cc, CUstream stream);

  /// Runs sparse GEMM step `step` at sizes m, n, k: D = act(alpha·op(A)·B +
  /// beta·R + bias), as the dense path. `workspace` has `workspaceBytes`.
  tsc_status_t run(const std::string &file, size_t step, const GemmStep &g,
                   uint8_t dtype, int64_t m, int64_t n, int64_t k, int64_t lda,
                   int64_t ldc, CUdeviceptr a, CUdeviceptr bias, CUdeviceptr r,
                   CUdeviceptr c, CUdeviceptr workspace, size_t workspaceBytes,
                   CUstream stream);

  /// Frees the compressed weights and the handle (with the session's
  /// context current).
  void release();

private:
  std::unique_ptr<SparseState> state;
};

} // namespace tsc::rt::cuda

#endif // TSC_RUNTIME_CUDA_SPARSE_H
