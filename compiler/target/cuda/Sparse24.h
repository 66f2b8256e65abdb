//===- Sparse24.h - 2:4 sparse GEMM weights for CUDA -------------*- C++
//-*-===//
//
// A GEMM step of a CUDA plan whose constant weight has at most 2 nonzeros in
// every 4 consecutive elements along K (what `--prune=2:4` leaves, or a
// model that arrives pruned) runs on the sparse tensor cores of sm_80+
// through cuSPARSELt. Its weight is stored compressed in the artifact, in
// the neutral form docs/artifact-format.md defines ("2:4 compressed
// weights"): per output channel n and group g of 4 along K, the 2 kept
// values, then per group a 4-bit code of their two indices. The runtime
// expands it and lets cuSPARSELt compress it into the device's format at
// session creation (that format is the library's and the chip's, so the
// artifact cannot hold it).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_CUDA_SPARSE24_H
#define TSC_COMPILER_TARGET_CUDA_SPARSE24_H

#include "compiler/target/cuda/CudaCodegen.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tsc::cuda {

/// The neutral 2:4 compressed form of an n × k matrix whose element
/// (row, col) is at `dense[row * rowStride + col * colStride]` (element
/// units, `elementBytes` each): for each row, the k/2 kept values in K
/// order; then for each row, k/4 codes of 4 bits (the first index in bits
/// 0-1, the second in bits 2-3, first < second), two codes to a byte, the
/// lower group in the low nibble. Failure (an empty vector) when a group
/// has more than 2 nonzero elements or k is not a multiple of 8. A group
/// with fewer than 2 nonzeros keeps its lowest-indexed zeros.
std::vector<char> compress24(const char *dense, int64_t n, int64_t k,
                             int64_t rowStride, int64_t colStride,
                             unsigned elementBytes);

/// Bytes of the neutral form of an n × k matrix.
inline uint64_t compressed24Bytes(uint64_t n, uint64_t k,
                                  unsigned elementBytes) {
  return n * (k / 2) * elementBytes + n * (k / 8);
}

/// Marks the GEMM steps of `plan` that run 2:4 sparse in `code.sparseSteps`
/// and replaces their weights by the compressed form (the weights are laid
/// out again; WGHT shrinks). A step qualifies when its B is a weight no
/// other step or launch reads, of f16/bf16, or f32 with TF32 allowed
/// (--precision=tf32: cuSPARSELt's f32 path computes in TF32), batch 1, K
/// and N multiples of 16 (cuSPARSELt's sizes), with the 2:4 pattern along
/// K. Returns report lines: one per weight with the 2:4 pattern, compressed
/// or left dense and why.
std::vector<std::string> compressSparseWeights(plan::Plan &plan,
                                               DeviceCode &code);

} // namespace mlir::tsc::cuda

#endif // TSC_COMPILER_TARGET_CUDA_SPARSE24_H
