//===- model.h - the loaded model behind tsc_model_t ----------------------===//

#ifndef TSC_RUNTIME_MODEL_H
#define TSC_RUNTIME_MODEL_H

#include "artifact.h"
#include "host_code.h"
#include "plan.h"

#include <atomic>
#include <vector>

struct tsc_model_s {
  std::atomic<int32_t> refs{1};
  // Declared first so that it is destroyed last: the plan's expressions and
  // the weights point into its memory.
  tsc::rt::Artifact artifact;
  tsc::rt::Plan plan;
  tsc::rt::HostCode host;
  /// Per step: the kernel function, nullptr for gemm and copy steps.
  std::vector<tsc::rt::KernelFn> kernels;
  bool hasGemm = false;
};

#endif // TSC_RUNTIME_MODEL_H
