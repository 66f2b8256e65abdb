//===- host_code.h - loading the HOST shared object from memory -----------===//

#ifndef TSC_RUNTIME_HOST_CODE_H
#define TSC_RUNTIME_HOST_CODE_H

#include "artifact.h"

#include <cstdint>
#include <string>

namespace tsc::rt {

/// The kernel ABI (docs/artifact-format.md).
using KernelFn = void (*)(void *const *buffers, const int64_t *symbols);

/// The HOST section's ELF object, loaded with memfd_create + dlopen so that
/// nothing is written to disk; unloaded by the destructor.
class HostCode {
public:
  HostCode() = default;
  HostCode(const HostCode &) = delete;
  HostCode &operator=(const HostCode &) = delete;
  ~HostCode();

  tsc_status_t load(const SectionView &host, const std::string &file);
  /// Looks `function` up; NOT_FOUND naming it (and `step`) when it is missing.
  tsc_status_t resolve(const std::string &function, size_t step,
                       const std::string &file, KernelFn &out) const;

private:
  void *handle_ = nullptr;
  int fd_ = -1; // the memory file the object was loaded from
};

} // namespace tsc::rt

#endif // TSC_RUNTIME_HOST_CODE_H
