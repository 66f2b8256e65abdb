//===- npz.h - NumPy .npz archives (many .npy arrays) for tsc-run ---------===//
//
// `np.savez` / `np.savez_compressed` archives: a zip of NAME.npy entries,
// read and written through Debian's minizip (no zip code of our own). A
// tsc-run built without minizip refuses .npz files with a message saying so.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_TOOLS_TSC_RUN_NPZ_H
#define TSC_TOOLS_TSC_RUN_NPZ_H

#include "tsc/runtime.hpp"

#include <string>
#include <utility>
#include <vector>

namespace tsc::run {

/// The arrays of the archive at `path`, by name (the entry's name without
/// `.npy`), in archive order, each read as readNpy reads a file. Throws
/// std::runtime_error naming the file and the entry: not a zip, an entry
/// that is not `NAME.npy`, a name given twice, an entry larger than it
/// claims or than the limit, a malformed array.
std::vector<std::pair<std::string, Tensor>> readNpz(const std::string &path);

/// Writes `arrays` as an uncompressed archive at `path`, each as writeNpy
/// writes a file (NAME.npy). Throws std::runtime_error naming the file.
void writeNpz(const std::string &path,
              const std::vector<std::pair<std::string, Tensor>> &arrays);

} // namespace tsc::run

#endif // TSC_TOOLS_TSC_RUN_NPZ_H
