//===- cuda_image.cpp - decoding the CUDA section --------------------------===//

#include "cuda_image.h"

#include "reader.h"

namespace tsc::rt {

tsc_status_t parseCudaImage(const SectionView &section, const std::string &file,
                            CudaImage &out) {
  Reader r(section.data, section.size);
  const char *name = file.c_str();
  uint32_t chipCount = r.count(8, "chip_count");
  out.chips.resize(chipCount);
  for (CudaImage::Chip &chip : out.chips) {
    chip.capability = r.u32("chip compute capability");
    chip.minDriver = r.u32("chip minimum driver");
  }
  for (size_t i = 0; r.ok() && i < out.chips.size(); ++i) {
    uint32_t cc = out.chips[i].capability;
    if (cc < 10 || cc > 1000)
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: CUDA: chip %zu has compute capability %u (corrupt "
                     "artifact)",
                     name, i, cc);
  }
  if (r.ok() && chipCount == 0)
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: CUDA: no chips (corrupt artifact)", name);
  uint32_t moduleCount = r.count(8 + 16 * size_t(chipCount), "module_count");
  out.modules.resize(moduleCount);
  for (CudaImage::Module &module : out.modules) {
    module.name = r.str("module name");
    module.kernel = r.str("module kernel");
    module.code.resize(chipCount);
    for (CudaImage::Code &code : module.code) {
      code.sassSize = r.u64("SASS size");
      code.sass = r.bytes(code.sassSize, "SASS");
      code.ptxSize = r.u64("PTX size");
      code.ptx = r.bytes(code.ptxSize, "PTX");
    }
    if (!r.ok())
      break;
    if (module.kernel.empty())
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: CUDA: module '%s' names no kernel (corrupt artifact)",
                     name, module.name.c_str());
    for (size_t c = 0; c < module.code.size(); ++c)
      if (!module.code[c].sassSize && !module.code[c].ptxSize)
        return statusf(TSC_STATUS_DATA_LOSS,
                       "%s: CUDA: module '%s' has no code for sm_%u (corrupt "
                       "artifact)",
                       name, module.name.c_str(), out.chips[c].capability);
  }
  if (!r.ok())
    return statusf(TSC_STATUS_DATA_LOSS, "%s: CUDA: %s (corrupt artifact)",
                   name, r.error().c_str());
  if (r.remaining())
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: CUDA: %zu unexpected bytes after the last module "
                   "(corrupt artifact)",
                   name, r.remaining());
  return nullptr;
}

} // namespace tsc::rt
