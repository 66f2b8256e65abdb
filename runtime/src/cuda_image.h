//===- cuda_image.h - the CUDA section: device code per chip --------------===//

#ifndef TSC_RUNTIME_CUDA_IMAGE_H
#define TSC_RUNTIME_CUDA_IMAGE_H

#include "artifact.h"

#include <string>
#include <vector>

namespace tsc::rt {

/// The decoded CUDA section (docs/artifact-format.md): the chips the device
/// code was compiled for and, per kernel module, its SASS and PTX for each.
/// The bytes stay in the artifact.
struct CudaImage {
  struct Chip {
    uint32_t capability = 0; // 80 for sm_80
    uint32_t minDriver = 0;  // as cuDriverGetVersion reports, 12000 = 12.0
  };
  struct Code {
    const uint8_t *sass = nullptr;
    size_t sassSize = 0;
    const uint8_t *ptx = nullptr;
    size_t ptxSize = 0;
  };
  struct Module {
    std::string name, kernel;
    std::vector<Code> code; // per chip
  };
  std::vector<Chip> chips;
  std::vector<Module> modules;
};

/// Decodes the CUDA section with every size checked against the bytes left.
tsc_status_t parseCudaImage(const SectionView &section, const std::string &file,
                            CudaImage &out);

} // namespace tsc::rt

#endif // TSC_RUNTIME_CUDA_IMAGE_H
