//===- artifact.cpp - mapping and validating the .tscm container ----------===//

#include "artifact.h"

#include "crc32c.h"
#include "internal.h"
#include "log.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tsc::rt {
namespace {

using tscm::kAlignment;
using tscm::kHeaderSize;
using tscm::kMagic;
constexpr size_t kEntrySize = tscm::kSectionEntrySize;

// A section id for messages: printable ASCII as is, other bytes as \xNN.
std::string sectionName(const uint8_t *id) {
  std::string name;
  for (int i = 0; i < 4; ++i) {
    if (id[i] >= 0x20 && id[i] < 0x7F)
      name += char(id[i]);
    else
      name += formatString("\\x%02x", id[i]);
  }
  return name;
}

// Whether `n` bytes at `p` have the CRC-32C `stored`. Fuzzing builds
// (TSC_RUNTIME_FUZZING) take every checksum as matching, so that mutated
// artifacts reach the checks behind them.
bool checksumMatches(const uint8_t *p, size_t n, uint32_t stored) {
#ifdef TSC_RUNTIME_FUZZING
  (void)p;
  (void)n;
  (void)stored;
  return true;
#else
  return crc32c(p, n) == stored;
#endif
}

std::string hexBytes(const uint8_t *p, size_t n) {
  std::string text;
  for (size_t i = 0; i < n; ++i)
    text += formatString(i ? " %02x" : "%02x", p[i]);
  return text;
}

} // namespace

Artifact::~Artifact() {
  if (mapping_)
    munmap(mapping_, mappingSize_);
}

tsc_status_t Artifact::open(const char *path) {
  name_ = path;
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    return statusf(error == ENOENT ? TSC_STATUS_NOT_FOUND
                                   : TSC_STATUS_INVALID_ARGUMENT,
                   "%s: cannot open: %s", path, std::strerror(error));
  }
  struct stat info;
  if (fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    return statusf(TSC_STATUS_INVALID_ARGUMENT, "%s: cannot stat: %s", path,
                   std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return statusf(TSC_STATUS_INVALID_ARGUMENT, "%s: not a regular file", path);
  }
  size_ = static_cast<size_t>(info.st_size);
  if (size_ > 0) {
    void *mapping = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      int error = errno;
      ::close(fd);
      return statusf(
          error == ENOMEM ? TSC_STATUS_RESOURCE_EXHAUSTED : TSC_STATUS_INTERNAL,
          "%s: cannot map %zu bytes: %s", path, size_, std::strerror(error));
    }
    mapping_ = mapping;
    mappingSize_ = size_;
    data_ = static_cast<const uint8_t *>(mapping);
  }
  ::close(fd);
  return validate();
}

tsc_status_t Artifact::borrow(const void *data, size_t size, const char *name) {
  name_ = name ? name : "<memory>";
  if (!data && size)
    return statusf(TSC_STATUS_INVALID_ARGUMENT, "%s: data is NULL",
                   name_.c_str());
  if (reinterpret_cast<uintptr_t>(data) % kAlignment)
    return statusf(TSC_STATUS_INVALID_ARGUMENT,
                   "%s: artifact memory must be 64-byte aligned (the weights "
                   "are used in place)",
                   name_.c_str());
  data_ = static_cast<const uint8_t *>(data);
  size_ = size;
  return validate();
}

tsc_status_t Artifact::validate() {
  const char *file = name_.c_str();
  // Magic first: a file that is not an artifact at all deserves that message,
  // not one about its size.
  size_t magicBytes = std::min(size_, sizeof(kMagic));
  if (size_ == 0 || std::memcmp(data_, kMagic, magicBytes) != 0) {
    if (size_ >= 5 && std::memcmp(data_ + 1, "TSCM", 4) == 0)
      return statusf(
          TSC_STATUS_DATA_LOSS,
          "%s: damaged magic %s, the line-ending bytes changed (transferred in "
          "text mode?) (corrupt artifact)",
          file, hexBytes(data_, magicBytes).c_str());
    if (size_ == 0)
      return statusf(TSC_STATUS_DATA_LOSS, "%s: empty file, not a tsc artifact",
                     file);
    return statusf(TSC_STATUS_INVALID_ARGUMENT,
                   "%s: not a tsc artifact (bad magic %s)", file,
                   hexBytes(data_, magicBytes).c_str());
  }
  if (size_ < kHeaderSize)
    return statusf(
        TSC_STATUS_DATA_LOSS,
        "%s: truncated: file has %zu bytes, less than the %zu-byte header",
        file, size_, kHeaderSize);

  // The major version decides the header's layout, so it is checked before
  // anything else in the header is trusted.
  uint16_t major = loadU16(data_ + 8);
  minor_ = loadU16(data_ + 10);
  if (major != tscm::kMajor)
    return statusf(
        TSC_STATUS_UNIMPLEMENTED,
        "%s: format version %u.%u is not supported (this runtime reads %u.x)",
        file, major, minor_, tscm::kMajor);
  if (!checksumMatches(data_, 60, loadU32(data_ + 60)))
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: header checksum mismatch (corrupt artifact)", file);

  uint64_t fileSize = loadU64(data_ + 24);
  if (fileSize > size_)
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: truncated: header says %llu bytes, file has %zu", file,
                   static_cast<unsigned long long>(fileSize), size_);
  if (fileSize < size_)
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: header says %llu bytes, file has %zu (trailing data)",
                   file, static_cast<unsigned long long>(fileSize), size_);
  const char *producer = reinterpret_cast<const char *>(data_ + 32);
  producer_.assign(producer, strnlen(producer, 24));

  uint32_t sectionCount = loadU32(data_ + 12);
  uint64_t tableOffset = loadU64(data_ + 16);
  uint64_t tableSize = uint64_t(sectionCount) * kEntrySize;
  if (tableOffset < kHeaderSize || tableOffset > size_ ||
      tableSize > size_ - tableOffset)
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: section table at offset %llu with %u entries lies "
                   "outside the file "
                   "(%zu bytes) or overlaps the header (corrupt artifact)",
                   file, static_cast<unsigned long long>(tableOffset),
                   sectionCount, size_);
  const uint8_t *table = data_ + tableOffset;
  if (!checksumMatches(table, tableSize, loadU32(data_ + 56)))
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: section table checksum mismatch (corrupt artifact)",
                   file);

  // Bounds, alignment and ids of every section before any checksum, so that
  // the cheap structural errors are the ones reported.
  struct Range {
    uint64_t begin, end;
    std::string id;
  };
  std::vector<Range> ranges{
      {0, kHeaderSize, "the header"},
      {tableOffset, tableOffset + tableSize, "the section table"}};
  for (uint32_t i = 0; i < sectionCount; ++i) {
    const uint8_t *entry = table + size_t(i) * kEntrySize;
    std::string id = sectionName(entry);
    uint64_t offset = loadU64(entry + 8), size = loadU64(entry + 16);
    // Flags and reserved are 0 in every version this runtime knows; a newer
    // one may give them a meaning this runtime would ignore.
    if (uint32_t flags = loadU32(entry + 4), reserved = loadU32(entry + 28);
        flags || reserved)
      return minor_ > tscm::kMinor
                 ? statusf(TSC_STATUS_UNIMPLEMENTED,
                           "%s: section %s has flags 0x%x and reserved 0x%x, "
                           "which this runtime does not know (artifact format "
                           "1.%u is newer than 1.%u)",
                           file, id.c_str(), flags, reserved, minor_,
                           tscm::kMinor)
                 : statusf(TSC_STATUS_DATA_LOSS,
                           "%s: section %s has flags 0x%x and reserved 0x%x, "
                           "not 0 (corrupt artifact)",
                           file, id.c_str(), flags, reserved);
    if (offset % kAlignment)
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: section %s offset %llu is not a multiple of 64 "
                     "(corrupt artifact)",
                     file, id.c_str(), static_cast<unsigned long long>(offset));
    if (offset > size_ || size > size_ - offset)
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: section %s [%llu, +%llu) lies outside the file (%zu "
                     "bytes) (corrupt "
                     "artifact)",
                     file, id.c_str(), static_cast<unsigned long long>(offset),
                     static_cast<unsigned long long>(size), size_);
    for (uint32_t j = 0; j < i; ++j)
      if (std::memcmp(entry, table + size_t(j) * kEntrySize, 4) == 0)
        return statusf(TSC_STATUS_DATA_LOSS,
                       "%s: section %s appears twice (corrupt artifact)", file,
                       id.c_str());
    if (size)
      ranges.push_back({offset, offset + size, "section " + id});
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range &a, const Range &b) { return a.begin < b.begin; });
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].begin < ranges[i - 1].end)
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: %s overlaps %s (corrupt artifact)", file,
                     ranges[i].id.c_str(), ranges[i - 1].id.c_str());

  for (uint32_t i = 0; i < sectionCount; ++i) {
    const uint8_t *entry = table + size_t(i) * kEntrySize;
    uint64_t offset = loadU64(entry + 8), size = loadU64(entry + 16);
    if (!checksumMatches(data_ + offset, size, loadU32(entry + 24)))
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: section %s checksum mismatch (corrupt artifact)",
                     file, sectionName(entry).c_str());
    // Sections this runtime does not know are skipped when a later minor
    // version may have added them, and corruption otherwise.
    SectionView *view = nullptr;
    if (std::memcmp(entry, tscm::kSectionPlan, 4) == 0)
      view = &plan_;
    else if (std::memcmp(entry, tscm::kSectionHost, 4) == 0)
      view = &host_;
    else if (std::memcmp(entry, tscm::kSectionWeights, 4) == 0)
      view = &weights_;
    else if (std::memcmp(entry, tscm::kSectionCuda, 4) == 0)
      view = &cuda_;
    else if (std::memcmp(entry, tscm::kSectionSteps, 4) == 0)
      view = &steps_;
    if (view)
      *view = SectionView{data_ + offset, static_cast<size_t>(size), true};
    else if (minor_ > tscm::kMinor)
      logf(TSC_LOG_WARNING,
           "%s: format 1.%u is newer than this runtime's (1.%u): skipped its "
           "section %s",
           file, minor_, unsigned(tscm::kMinor), sectionName(entry).c_str());
    else
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: unknown section %s in format 1.%u (corrupt artifact)",
                     file, sectionName(entry).c_str(), minor_);
  }
  if (!plan_.present)
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: no PLAN section (corrupt artifact)", file);
  return nullptr;
}

void Artifact::releasePages(const uint8_t *data, size_t size) const {
  if (!mapping_)
    return;
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (uintptr_t(data) + page - 1) / page * page;
  uintptr_t end = (uintptr_t(data) + size) / page * page;
  if (end > begin)
    madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

} // namespace tsc::rt
