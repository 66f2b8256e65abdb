//===- ZipArchive.h - the entries of a zip file, mapped ---------*- C++ -*-===//
//
// torch.export archives are zip files whose entries are stored uncompressed.
// The central directory is read with minizip (Debian libminizip); the file
// itself is mapped, so a stored entry's bytes are a view into the mapping and
// weights become blobs without a copy. Compressed entries (other writers)
// are inflated into memory. Every offset and size comes from the file and is
// checked against it.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_IMPORTERS_TORCH_EXPORT_ZIPARCHIVE_H
#define TSC_COMPILER_IMPORTERS_TORCH_EXPORT_ZIPARCHIVE_H

#include "compiler/importers/common/ImportUtils.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::tsc {

class ZipArchive {
public:
  /// Opens the zip file at `path`; failure with the reason in `error`.
  static FailureOr<std::unique_ptr<ZipArchive>> open(StringRef path,
                                                     std::string &error);

  /// The entries' names, in the order of the central directory.
  ArrayRef<std::string> getNames() const { return names; }
  bool contains(StringRef name) const { return entries.count(name); }

  /// The bytes of entry `name`: a view into the mapped file when the entry
  /// is stored, else inflated and owned by the archive. Failure (reason in
  /// `error`) when it is missing, encrypted or corrupt.
  FailureOr<ArrayRef<char>> read(StringRef name, std::string &error);
  /// Whether entry `name` is stored, so that `read` views the mapped file.
  bool isMapped(StringRef name) const;
  /// The mapped file, which blobs viewing stored entries keep alive.
  const std::shared_ptr<MappedFile> &getFile() const { return file; }

  ~ZipArchive();

private:
  struct Entry {
    uint64_t dataOffset = 0, compressedSize = 0, size = 0;
    bool stored = false, encrypted = false;
    /// Inflated bytes of a compressed entry, once read.
    std::unique_ptr<std::string> inflated;
  };
  ZipArchive() = default;

  void *handle = nullptr;
  std::shared_ptr<MappedFile> file;
  std::vector<std::string> names;
  llvm::StringMap<Entry> entries;
};

} // namespace mlir::tsc

#endif // TSC_COMPILER_IMPORTERS_TORCH_EXPORT_ZIPARCHIVE_H
