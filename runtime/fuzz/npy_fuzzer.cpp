//===- npy_fuzzer.cpp - libFuzzer target: tsc-run's .npy reader ----------===//
//
// Feeds each input to tsc::run::parseNpy, the reader of tsc-run's --input
// files: it returns a tensor or throws std::runtime_error naming the file;
// any crash, sanitizer report, leak or hang is a finding.
//
//===----------------------------------------------------------------------===//

#include "npy.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  try {
    tsc::Tensor tensor = tsc::run::parseNpy(bytes, "fuzz.npy");
    // What was read is as large as the file said.
    if (tensor.byteSize() > size)
      __builtin_trap();
  } catch (const std::runtime_error &) {
  }
  return 0;
}
