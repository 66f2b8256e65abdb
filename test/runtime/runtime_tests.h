//===- runtime_tests.h - the runtime tests' harness and helpers --*- C++
//-*-===//
//
// CHECK and TEST, the test directory, and the artifact and file helpers
// that runtime_tests.cpp (API, loading, fixtures) and runtime_cuda_tests.cpp
// (CUDA artifacts, the stand-in driver) share.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_TEST_RUNTIME_RUNTIME_TESTS_H
#define TSC_TEST_RUNTIME_RUNTIME_TESTS_H

#include "crc32c.h"
#include "half.h"
#include "tsc/runtime.h"
#include "tsc/runtime.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

extern "C" int tsc_c_api_smoke(char *why, size_t why_size);

namespace tsc_runtime_tests {

inline std::string gDir;
inline bool gOk = true;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::printf("  check failed: %s (line %d)\n", #cond, __LINE__);          \
      gOk = false;                                                             \
    }                                                                          \
  } while (false)

struct Test {
  const char *name;
  std::function<void()> body;
};
inline std::vector<Test> &tests() {
  static std::vector<Test> all;
  return all;
}
struct Register {
  Register(const char *name, std::function<void()> body) {
    tests().push_back({name, std::move(body)});
  }
};
#define TEST(name)                                                             \
  void test_##name();                                                          \
  Register register_##name(#name, test_##name);                                \
  void test_##name()

// Takes a status: its code, and whether its message holds every fragment.
inline bool expectStatus(tsc_status_t status, tsc_status_code_t code,
                         std::initializer_list<const char *> fragments) {
  bool ok = tsc_status_code(status) == code;
  std::string message = tsc_status_message(status);
  for (const char *f : fragments)
    ok &= message.find(f) != std::string::npos;
  if (!ok)
    std::printf("  got %s: \"%s\"\n",
                tsc_status_code_name(tsc_status_code(status)), message.c_str());
  tsc_status_free(status);
  return ok;
}

inline std::string path(const std::string &name) { return gDir + "/" + name; }

inline void writeFile(const std::string &name, const std::string &bytes) {
  std::ofstream(path(name), std::ios::binary) << bytes;
}

inline std::string readFile(const std::string &name) {
  std::ifstream in(path(name), std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

inline bool haveFixtures() {
  struct stat info;
  return stat(path("copy.tscm").c_str(), &info) == 0;
}

inline void put16(std::string &s, size_t at, uint16_t v) {
  for (int i = 0; i < 2; ++i)
    s[at + i] = char(v >> (8 * i));
}
inline void put32(std::string &s, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    s[at + i] = char(v >> (8 * i));
}
inline void put64(std::string &s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    s[at + i] = char(v >> (8 * i));
}

// A header-only artifact: no sections, valid checksums unless changed later.
inline std::string header(uint16_t major, uint64_t fileSize) {
  std::string h(64, '\0');
  std::memcpy(&h[0], "\x89TSCM\r\n\x1a", 8);
  put16(h, 8, major);
  put64(h, 16, 64); // section table offset, 0 entries
  put64(h, 24, fileSize);
  std::memcpy(&h[32], "tsc-runtime-tests", 17);
  put32(h, 56, tsc::rt::crc32c(nullptr, 0));
  put32(h, 60, tsc::rt::crc32c(h.data(), 60));
  return h;
}

inline tsc_status_t load(const std::string &name, tsc_model_t **model) {
  return tsc_model_load(nullptr, path(name).c_str(), model);
}

inline std::vector<float> expectedFloats(const std::string &name,
                                         size_t count) {
  std::string bytes = readFile(name);
  std::vector<float> values(count);
  if (bytes.size() >= count * 4)
    std::memcpy(values.data(), bytes.data() + bytes.size() - count * 4,
                count * 4);
  return values;
}

/// The half GEMMs of make_artifact.py (format 1.3) run from the artifact
/// `<prefix>gemm-<suffix>.tscm`, against widened f32 math (runtime_tests.cpp).
void checkHalfGemm(const char *suffix, tsc_dtype_t dtype, float ulp,
                   const std::string &prefix = "");

} // namespace tsc_runtime_tests

#endif // TSC_TEST_RUNTIME_RUNTIME_TESTS_H
