//===- ZipArchive.cpp - zip entries through minizip, stored ones mapped ---===//

#include "compiler/importers/torch_export/ZipArchive.h"

#include "llvm/ADT/Twine.h"

#include <minizip/unzip.h>

using namespace mlir;
using namespace mlir::tsc;

FailureOr<std::unique_ptr<ZipArchive>> ZipArchive::open(StringRef path,
                                                        std::string &error) {
  std::unique_ptr<ZipArchive> archive(new ZipArchive());
  FailureOr<std::shared_ptr<MappedFile>> mapped = MappedFile::open(path, error);
  if (failed(mapped))
    return failure();
  archive->file = *mapped;
  std::string name = path.str();
  archive->handle = unzOpen64(name.c_str());
  if (!archive->handle) {
    error = "not a zip file, or a truncated one (no readable central "
            "directory)";
    return failure();
  }
  uint64_t fileSize = archive->file->getData().size();
  int status = unzGoToFirstFile(archive->handle);
  while (status == UNZ_OK) {
    unz_file_info64 info;
    char entryName[1024];
    if (unzGetCurrentFileInfo64(archive->handle, &info, entryName,
                                sizeof(entryName), nullptr, 0, nullptr,
                                0) != UNZ_OK ||
        info.size_filename >= sizeof(entryName)) {
      error = "a central directory entry cannot be read";
      return failure();
    }
    Entry entry;
    entry.compressedSize = info.compressed_size;
    entry.size = info.uncompressed_size;
    entry.stored = info.compression_method == 0;
    entry.encrypted = info.flag & 1;
    if (!entry.encrypted) {
      // The data's offset is known once the local header has been read.
      if (unzOpenCurrentFile(archive->handle) != UNZ_OK) {
        error = ("the local header of entry '" + Twine(entryName) +
                 "' cannot be read")
                    .str();
        return failure();
      }
      entry.dataOffset = unzGetCurrentFileZStreamPos64(archive->handle);
      unzCloseCurrentFile(archive->handle);
      if (entry.dataOffset > fileSize ||
          entry.compressedSize > fileSize - entry.dataOffset ||
          (entry.stored && entry.size != entry.compressedSize)) {
        error = ("entry '" + Twine(entryName) + "' claims " +
                 Twine(entry.compressedSize) + " bytes at offset " +
                 Twine(entry.dataOffset) + ", past the end of the " +
                 Twine(fileSize) + "-byte file (truncated?)")
                    .str();
        return failure();
      }
    }
    archive->names.push_back(entryName);
    archive->entries[entryName] = std::move(entry);
    status = unzGoToNextFile(archive->handle);
  }
  if (status != UNZ_END_OF_LIST_OF_FILE) {
    error = "its central directory is corrupt";
    return failure();
  }
  return archive;
}

ZipArchive::~ZipArchive() {
  if (handle)
    unzClose(handle);
}

bool ZipArchive::isMapped(StringRef name) const {
  auto it = entries.find(name);
  return it != entries.end() && it->second.stored;
}

FailureOr<ArrayRef<char>> ZipArchive::read(StringRef name, std::string &error) {
  auto it = entries.find(name);
  if (it == entries.end()) {
    error = ("entry '" + name + "' is missing").str();
    return failure();
  }
  Entry &entry = it->second;
  if (entry.encrypted) {
    error = ("entry '" + name + "' is encrypted").str();
    return failure();
  }
  if (entry.stored)
    return file->getData().slice(entry.dataOffset, entry.size);
  if (entry.inflated)
    return ArrayRef<char>(*entry.inflated);
  // A compressed entry expands to at most ~1032x its compressed size; a
  // claimed size beyond that is a lie, refused before allocating for it.
  if (entry.size / 1032 > entry.compressedSize + 1) {
    error = ("entry '" + name + "' claims an impossible size").str();
    return failure();
  }
  std::string entryName = name.str();
  auto bytes = std::make_unique<std::string>(entry.size, '\0');
  bool ok = unzLocateFile(handle, entryName.c_str(), /*case=*/1) == UNZ_OK &&
            unzOpenCurrentFile(handle) == UNZ_OK;
  if (ok) {
    uint64_t done = 0;
    while (done < entry.size) {
      unsigned chunk =
          static_cast<unsigned>(std::min<uint64_t>(entry.size - done, 1 << 30));
      int got = unzReadCurrentFile(handle, bytes->data() + done, chunk);
      if (got <= 0)
        break;
      done += static_cast<uint64_t>(got);
    }
    // Closing checks the CRC once everything was read.
    ok = unzCloseCurrentFile(handle) == UNZ_OK && done == entry.size;
  }
  if (!ok) {
    error = ("entry '" + name + "' cannot be inflated (corrupt)").str();
    return failure();
  }
  entry.inflated = std::move(bytes);
  return ArrayRef<char>(*entry.inflated);
}
