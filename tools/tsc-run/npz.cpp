//===- npz.cpp - NumPy .npz archives (many .npy arrays) for tsc-run -------===//

#include "npz.h"
#include "npy.h"

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>

#if TSC_RUN_HAS_MINIZIP
#include <minizip/unzip.h>
#include <minizip/zip.h>
#endif

namespace tsc::run {
namespace {

[[noreturn]] void fail(const std::string &path, const std::string &message) {
  throw std::runtime_error(path + ": " + message);
}

/// The most bytes one entry may inflate to: as much as a tensor may hold
/// (2^40 elements of 8 bytes would not fit this machine either), checked
/// against what the entry really holds while it is read, so that a small
/// archive claiming or inflating to a huge array is refused, not allocated.
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 36;

} // namespace

#if TSC_RUN_HAS_MINIZIP

std::vector<std::pair<std::string, Tensor>> readNpz(const std::string &path) {
  std::unique_ptr<void, int (*)(unzFile)> zip(unzOpen64(path.c_str()),
                                              unzClose);
  if (!zip)
    fail(path, "cannot read it as a .npz archive (missing, or not a zip "
               "file)");
  std::vector<std::pair<std::string, Tensor>> arrays;
  std::set<std::string> seen;
  int status = unzGoToFirstFile(zip.get());
  while (status == UNZ_OK) {
    unz_file_info64 info;
    char entryName[1024];
    if (unzGetCurrentFileInfo64(zip.get(), &info, entryName, sizeof(entryName),
                                nullptr, 0, nullptr, 0) != UNZ_OK ||
        info.size_filename >= sizeof(entryName))
      fail(path, "a central directory entry cannot be read");
    std::string entry(entryName);
    std::string where = path + ": entry '" + entry + "'";
    if (entry.size() <= 4 || entry.compare(entry.size() - 4, 4, ".npy") != 0)
      fail(where, "is not a NAME.npy array (a .npz holds only .npy files)");
    std::string name = entry.substr(0, entry.size() - 4);
    if (!seen.insert(name).second)
      fail(where, "names array '" + name + "' a second time");
    if (info.flag & 1)
      fail(where, "is encrypted");
    if (info.uncompressed_size > kMaxEntryBytes)
      fail(where, "claims " + std::to_string(info.uncompressed_size) +
                      " bytes, more than a tensor may hold");
    if (unzOpenCurrentFile(zip.get()) != UNZ_OK)
      fail(where, "cannot be opened (unsupported compression?)");
    // Grown as the data arrives: a claim alone allocates little.
    std::string bytes;
    bytes.reserve(size_t(std::min<uint64_t>(info.uncompressed_size, 1 << 26)));
    char chunk[1 << 16];
    int got = 0;
    while ((got = unzReadCurrentFile(zip.get(), chunk, sizeof(chunk))) > 0) {
      if (bytes.size() + size_t(got) > info.uncompressed_size)
        fail(where, "inflates past the " +
                        std::to_string(info.uncompressed_size) +
                        " bytes it claims");
      bytes.append(chunk, size_t(got));
    }
    // UNZ_CRCERROR and friends arrive at the close.
    if (unzCloseCurrentFile(zip.get()) != UNZ_OK || got < 0)
      fail(where, "is corrupt (its data or checksum does not read back)");
    if (bytes.size() != info.uncompressed_size)
      fail(where, "holds " + std::to_string(bytes.size()) + " bytes, not the " +
                      std::to_string(info.uncompressed_size) + " it claims");
    arrays.emplace_back(name, parseNpy(bytes, where));
    status = unzGoToNextFile(zip.get());
  }
  if (status != UNZ_END_OF_LIST_OF_FILE)
    fail(path, "the archive's directory cannot be read to its end");
  if (arrays.empty())
    fail(path, "the archive holds no arrays");
  return arrays;
}

void writeNpz(const std::string &path,
              const std::vector<std::pair<std::string, Tensor>> &arrays) {
  zipFile zip = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  if (!zip)
    fail(path, "cannot create this file");
  auto close = [&](bool ok) {
    if (zipClose(zip, nullptr) != ZIP_OK || !ok)
      fail(path, "cannot write this file");
  };
  for (const auto &[name, tensor] : arrays) {
    std::string bytes = npyBytes(tensor, path + ": array '" + name + "'");
    std::string entry = name + ".npy";
    zip_fileinfo info{};
    // Stored (as np.savez writes), zip64 where an entry needs it.
    bool ok = zipOpenNewFileInZip64(zip, entry.c_str(), &info, nullptr, 0,
                                    nullptr, 0, nullptr, /*method=*/0,
                                    /*level=*/0,
                                    bytes.size() >= 0xffffffffu) == ZIP_OK;
    for (size_t at = 0; ok && at < bytes.size(); at += 1u << 30) {
      size_t n = std::min(bytes.size() - at, size_t(1) << 30);
      ok = zipWriteInFileInZip(zip, bytes.data() + at, unsigned(n)) == ZIP_OK;
    }
    ok = zipCloseFileInZip(zip) == ZIP_OK && ok;
    if (!ok) {
      close(false);
      return;
    }
  }
  close(true);
}

#else

std::vector<std::pair<std::string, Tensor>> readNpz(const std::string &path) {
  fail(path, "this tsc-run was built without minizip, so it cannot read "
             ".npz archives (install libminizip-dev and rebuild)");
}

void writeNpz(const std::string &path,
              const std::vector<std::pair<std::string, Tensor>> &) {
  fail(path, "this tsc-run was built without minizip, so it cannot write "
             ".npz archives (install libminizip-dev and rebuild)");
}

#endif

} // namespace tsc::run
