//===- cuda_backend.h - running a "cuda" plan on an NVIDIA GPU ------------===//
//
// Per model and device: a retained primary context, the kernel modules
// loaded from the artifact's SASS (PTX as the fallback) and the weights,
// uploaded once. Per session: a stream (the caller's or its own), the
// activation arena and staging buffers for inputs and outputs, all at
// fixed device addresses sized for the symbols' maxima, so that a run
// captured in a CUDA graph replays at every later run with the same symbol
// values.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_CUDA_BACKEND_H
#define TSC_RUNTIME_CUDA_BACKEND_H

#include "executor.h"

#include <memory>
#include <vector>

namespace tsc::rt {

class CudaSession;
struct CudaSessionDeleter {
  void operator()(CudaSession *session) const;
};
/// Frees the session's device memory and graphs when it goes.
using CudaSessionPtr = std::unique_ptr<CudaSession, CudaSessionDeleter>;

struct CudaSessionOptions {
  int device = 0;
  bool graphs = true;
  void *stream = nullptr; // a CUstream, or null for the session's own
};

/// The device ordinal the session runs on.
int cudaDevice(const CudaSession &session);

/// Checks what a "cuda" plan needs beyond checkPlan (GEMM operand layouts
/// cuBLASLt takes); DATA_LOSS or UNIMPLEMENTED naming the step.
tsc_status_t checkCudaPlan(const tsc_model_s &model);

/// Creates the device state of a session: loads the model on `device` (once
/// per model and device), allocates the arena and staging buffers.
/// UNAVAILABLE, naming what is missing, without a usable driver, device,
/// matching code or cuBLASLt.
tsc_status_t createCudaSession(tsc_model_s &model,
                               const CudaSessionOptions &options,
                               CudaSessionPtr &out);

/// A caller's tensor memory: host, or CUDA memory of the session's device.
struct CudaBuffer {
  void *data = nullptr;
  bool device = false;
};

/// Runs the plan at `symbols` (sized by `layout`): copies the inputs in
/// (from host or device memory) to the staging buffers, runs the steps
/// (replaying a graph when one was captured for these symbol values), copies
/// the outputs out and waits for the stream. `stepTimes` (profiling) receives
/// each step's milliseconds, measured with a synchronization after every step.
/// `hook` (format 1.8: symbols defined between steps) runs after each step that
/// defines some, once the stream has finished it; it may change `layout`,
/// `symbols` and `outputs`.
tsc_status_t runCuda(CudaSession &session, const Layout &layout,
                     const int64_t *symbols,
                     const std::vector<CudaBuffer> &inputs,
                     const std::vector<CudaBuffer> &outputs,
                     StepTimes *stepTimes, const StepHook &hook = nullptr);

/// Element `element` of plan value `value` (of `dtype`) copied back from the
/// device as an i64, for a symbol defined from it (format 1.8); false with
/// the reason in `error`.
bool readCudaElement(CudaSession &session, uint32_t value, uint8_t dtype,
                     uint32_t element, int64_t &out, const char *&error);

/// The model's per-device state (modules, weights): freed with the model.
struct CudaModelCache;
std::shared_ptr<CudaModelCache> createCudaModelCache();

} // namespace tsc::rt

#endif // TSC_RUNTIME_CUDA_BACKEND_H
