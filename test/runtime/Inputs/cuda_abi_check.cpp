// Compiled, not run (cuda-abi.test): the types and constants the runtime
// declares for libcuda and cuBLASLt (runtime/src/cuda_api.h, so that the
// runtime builds without CUDA headers) against the toolkit's own headers.

#include "cuda_api.h"

#include <cublasLt.h>
#include <cuda.h>

#include <cstddef>

namespace rt = tsc::rt::cuda;

static_assert(rt::CUDA_SUCCESS == CUDA_SUCCESS);
static_assert(rt::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(rt::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(rt::CU_STREAM_NON_BLOCKING == CU_STREAM_NON_BLOCKING);
static const bool kSpecialStreams =
    CU_STREAM_LEGACY == reinterpret_cast<CUstream>(rt::kStreamLegacy) &&
    CU_STREAM_PER_THREAD == reinterpret_cast<CUstream>(rt::kStreamPerThread);
static_assert(rt::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL ==
              CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
static_assert(rt::CU_JIT_ERROR_LOG_BUFFER == CU_JIT_ERROR_LOG_BUFFER);
static_assert(rt::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES ==
              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(sizeof(rt::CUdeviceptr) == sizeof(CUdeviceptr));
static_assert(rt::CU_STREAM_CAPTURE_STATUS_NONE ==
              CU_STREAM_CAPTURE_STATUS_NONE);
static_assert(sizeof(int) == sizeof(CUstreamCaptureStatus));
static_assert(sizeof(rt::CUresult) == sizeof(CUresult));
static_assert(sizeof(int) == sizeof(CUjit_option));

static_assert(rt::CUBLAS_STATUS_SUCCESS == CUBLAS_STATUS_SUCCESS);
static_assert(rt::CUBLAS_COMPUTE_32F == CUBLAS_COMPUTE_32F);
static_assert(rt::CUBLAS_COMPUTE_32F_FAST_TF32 == CUBLAS_COMPUTE_32F_FAST_TF32);
static_assert(rt::CUDA_R_32F == CUDA_R_32F);
static_assert(rt::CUDA_R_16F == CUDA_R_16F);
static_assert(rt::CUDA_R_16BF == CUDA_R_16BF);
static_assert(rt::CUBLAS_COMPUTE_32I == CUBLAS_COMPUTE_32I);
static_assert(rt::CUDA_R_8I == CUDA_R_8I && rt::CUDA_R_32I == CUDA_R_32I);
static_assert(rt::CUBLAS_OP_N == CUBLAS_OP_N && rt::CUBLAS_OP_T == CUBLAS_OP_T);
static_assert(rt::CUBLASLT_MATMUL_DESC_TRANSA == CUBLASLT_MATMUL_DESC_TRANSA);
static_assert(rt::CUBLASLT_MATMUL_DESC_TRANSB == CUBLASLT_MATMUL_DESC_TRANSB);
static_assert(rt::CUBLASLT_MATMUL_DESC_EPILOGUE ==
              CUBLASLT_MATMUL_DESC_EPILOGUE);
static_assert(rt::CUBLASLT_MATMUL_DESC_BIAS_POINTER ==
              CUBLASLT_MATMUL_DESC_BIAS_POINTER);
static_assert(rt::CUBLASLT_EPILOGUE_DEFAULT == CUBLASLT_EPILOGUE_DEFAULT);
static_assert(rt::CUBLASLT_EPILOGUE_BIAS == CUBLASLT_EPILOGUE_BIAS);
static_assert(rt::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT ==
              CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
static_assert(rt::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET ==
              CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
static_assert(rt::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES ==
              CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
static_assert(rt::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES);
static_assert(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + 1 ==
                  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES &&
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + 2 ==
                  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES &&
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + 3 ==
                  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);
static_assert(sizeof(rt::cublasLtMatmulAlgo_t) == sizeof(cublasLtMatmulAlgo_t));
static_assert(sizeof(rt::cublasLtMatmulHeuristicResult_t) ==
              sizeof(cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(rt::cublasLtMatmulHeuristicResult_t, workspaceSize) ==
              offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(rt::cublasLtMatmulHeuristicResult_t, state) ==
              offsetof(cublasLtMatmulHeuristicResult_t, state));
