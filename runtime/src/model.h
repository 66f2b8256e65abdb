//===- model.h - the loaded model behind tsc_model_t ----------------------===//

#ifndef TSC_RUNTIME_MODEL_H
#define TSC_RUNTIME_MODEL_H

#include "artifact.h"
#include "cuda_image.h"
#include "host_code.h"
#include "plan.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace tsc::rt {
struct CudaModelCache;
}

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
  /// Format 1.13, per step: the layer and the source nodes it runs ("" for
  /// older artifacts), for tsc_model_step_layer and _nodes.
  std::vector<std::string> stepLayers, stepNodes;
  /// tsc_model_isa's text of plan.isa.
  std::string isaText;
  /// Target "cuda": the device code, and its state per device (created by
  /// the first session on a device, freed with the model).
  tsc::rt::CudaImage cuda;
  std::shared_ptr<tsc::rt::CudaModelCache> cudaCache;
  bool isCuda() const { return plan.target == "cuda"; }
};

#endif // TSC_RUNTIME_MODEL_H
