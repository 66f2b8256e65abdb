//===- artifact.h - the .tscm container: header, section table, sections --===//
//
// Maps an artifact and validates its container (docs/artifact-format.md):
// magic, major version, file size, header/table/section checksums, section
// bounds and unique ids. The PLAN's contents are plan.h's business.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_ARTIFACT_H
#define TSC_RUNTIME_ARTIFACT_H

#include "format.h"
#include "tsc/runtime.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsc::rt {

inline uint16_t loadU16(const uint8_t *p) {
  return uint16_t(p[0] | (p[1] << 8));
}
inline uint32_t loadU32(const uint8_t *p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) |
         (uint32_t(p[3]) << 24);
}
inline uint64_t loadU64(const uint8_t *p) {
  return uint64_t(loadU32(p)) | (uint64_t(loadU32(p + 4)) << 32);
}

struct SectionView {
  const uint8_t *data = nullptr;
  size_t size = 0;
  bool present = false;
};

/// A validated artifact in memory: mapped from a file (and unmapped by the
/// destructor) or borrowed from the caller.
class Artifact {
public:
  Artifact() = default;
  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;
  ~Artifact();

  /// Maps `path` read-only and validates the container.
  tsc_status_t open(const char *path);
  /// Validates an artifact held by the caller, named `name` in messages.
  tsc_status_t borrow(const void *data, size_t size, const char *name);

  const std::string &name() const { return name_; }
  /// The whole file.
  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }
  uint16_t minorVersion() const { return minor_; }
  const std::string &producer() const { return producer_; }
  const SectionView &plan() const { return plan_; }
  const SectionView &host() const { return host_; }
  const SectionView &weights() const { return weights_; }
  const SectionView &cuda() const { return cuda_; }
  /// Format 1.13: each step's layer and source nodes (absent before).
  const SectionView &steps() const { return steps_; }

  /// Drops the resident pages wholly inside [data, data + size) of a mapped
  /// file (a later read faults them in again); does nothing to borrowed
  /// memory. For weights that a session has copied into another layout.
  void releasePages(const uint8_t *data, size_t size) const;

private:
  tsc_status_t validate();

  std::string name_;
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
  void *mapping_ = nullptr;
  size_t mappingSize_ = 0;
  uint16_t minor_ = 0;
  std::string producer_;
  SectionView plan_, host_, weights_, cuda_, steps_;
};

} // namespace tsc::rt

#endif // TSC_RUNTIME_ARTIFACT_H
