//===- host_gemm.h - a host session's GEMM steps as oneDNN matmuls --------===//

#ifndef TSC_RUNTIME_HOST_GEMM_H
#define TSC_RUNTIME_HOST_GEMM_H

#include "executor.h"

#include <memory>
#include <string>
#include <vector>

namespace tsc::rt {

/// The GEMM steps of one host session, each a oneDNN matmul primitive.
/// Created with the session: a B operand that is a weight is reordered once
/// into the layout the primitive prefers at the symbols' maxima, and the
/// primitives are cached per shape. Bias, the activation (GELU), residual
/// and beta ride as post-ops, in that order; alpha as the output scale.
/// fp16/bf16 steps run on half-precision primitives where the CPU has them,
/// else on f32 ones with the weight widened once and the other operands per
/// run. Thread safety: one run at a time, like its session.
class HostGemms {
public:
  ~HostGemms();

  /// Prepares every GEMM step of `model` (a host model with GEMM steps).
  static tsc_status_t create(const tsc_model_s &model,
                             std::unique_ptr<HostGemms> &out);

  /// Runs GEMM step `step` on the values at `addresses`.
  tsc_status_t run(size_t step, const Layout &layout,
                   const std::vector<void *> &addresses);

  /// "oneDNN 2.6.3, avx512_core_amx: brg:avx512_core_amx ×48": the library,
  /// the ISA it dispatches to, and the implementations the primitives use.
  std::string describe() const;

  struct Impl;

private:
  explicit HostGemms(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace tsc::rt

#endif // TSC_RUNTIME_HOST_GEMM_H
