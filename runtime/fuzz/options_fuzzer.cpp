//===- options_fuzzer.cpp - libFuzzer target: tsc-run's option parser -----===//
//
// Splits each input at NUL bytes into at most 64 arguments and parses them
// as tsc-run's command line (tsc::run::parseArgs): it returns the options or
// throws std::runtime_error naming the option; any crash, sanitizer report,
// leak or hang is a finding.
//
//===----------------------------------------------------------------------===//

#include "options.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string> args{"tsc-run"};
  std::string current;
  for (size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(char(data[i]));
    }
  }
  if (args.size() < 64)
    args.push_back(current);
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  try {
    tsc::run::Options options =
        tsc::run::parseArgs(int(argv.size() - 1), argv.data());
    // What parsed holds what was asked: a model unless --help,
    // --list-devices or --version was.
    if (options.model.empty() && !options.help && !options.listDevices &&
        !options.version)
      __builtin_trap();
  } catch (const std::runtime_error &) {
  }
  return 0;
}
