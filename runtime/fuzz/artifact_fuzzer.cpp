//===- artifact_fuzzer.cpp - libFuzzer target: loading an artifact -------===//
//
// Feeds each input to tsc_model_load_from_memory. Built with
// TSC_RUNTIME_FUZZING (runtime/CMakeLists.txt, TSC_RUNTIME_FUZZ=ON): every
// checksum is taken as matching, so mutations reach the header, section,
// PLAN, weight and CUDA-image checks behind them, and the HOST section is
// never loaded as code. A load either succeeds or returns a status; any
// crash, sanitizer report, leak or hang is a finding.
//
//===----------------------------------------------------------------------===//

#include "tsc/runtime.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tsc_model_t *model = nullptr;
  tsc_status_t status =
      tsc_model_load_from_memory(nullptr, data, size, "fuzz.tscm", &model);
  if (status) {
    // Every refusal says why.
    if (!tsc_status_message(status) || !*tsc_status_message(status))
      __builtin_trap();
    tsc_status_free(status);
    return 0;
  }
  tsc_model_release(model);
  return 0;
}
