//===- options.h - tsc-run's command line ----------------------*- C++ -*-===//
//
// The options of tsc-run and their parser, apart from the runner so that a
// fuzz target (runtime/fuzz/options_fuzzer.cpp) can drive the parser alone.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_TOOLS_TSC_RUN_OPTIONS_H
#define TSC_TOOLS_TSC_RUN_OPTIONS_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tsc::run {

extern const char *const kUsage;

struct Options {
  std::string model;
  /// name, file; an empty name: every array of a .npz file, by name.
  std::vector<std::pair<std::string, std::string>> inputs;
  std::vector<std::pair<std::string, int64_t>> dims;       // symbol, value
  std::string outputDir;
  /// --output-npz: every output in one .npz archive.
  std::string outputNpz;
  /// --trace: a Chrome trace (trace-event JSON) of the measured runs.
  std::string trace;
  /// --public-key: an Ed25519 public key (PEM); the artifact must be signed.
  std::string publicKey;
  /// --expected: output name, file (an empty name: every array of a .npz
  /// file); compared within atol + rtol·|expected|.
  std::vector<std::pair<std::string, std::string>> expected;
  double rtol = 1e-5, atol = 1e-6;
  int64_t intLo = 0, intHi = 2;
  uint64_t seed = 0;
  int threads = 0;
  int bench = 0, warmup = 3;
  int cudaDevice = 0;
  bool help = false, version = false, info = false, json = false,
       profile = false, timing = false, listDevices = false, cudaGraphs = true;
};

/// Whether `file` names a .npz archive (np.savez), by its extension.
bool isNpzFile(const std::string &file);

/// Parses tsc-run's arguments (argv[0] is the program); throws
/// std::runtime_error with a message naming the option at fault.
Options parseArgs(int argc, char **argv);

} // namespace tsc::run

#endif // TSC_TOOLS_TSC_RUN_OPTIONS_H
