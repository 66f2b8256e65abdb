//===- runtime_tests.cpp - tests of the tsc runtime's C and C++ API -------===//
//
// tsc-runtime-tests DIR: writes small (mostly broken) artifacts into DIR and
// checks what loading them reports; with the fixtures of make_artifact.py in
// DIR, also loads and runs valid artifacts. Prints "PASS name" or
// "FAIL name" per test and exits non-zero when one fails.
//
//===----------------------------------------------------------------------===//

#include "runtime_tests.h"

#include <dlfcn.h>

using namespace tsc_runtime_tests;

namespace {

// --- Status, dtypes, tensors
// --------------------------------------------------
TEST(api_version) { CHECK(tsc_api_version() == TSC_API_VERSION); }

TEST(status_ok_is_null) {
  CHECK(tsc_status_code(nullptr) == TSC_STATUS_OK);
  CHECK(std::strcmp(tsc_status_message(nullptr), "") == 0);
  tsc_status_free(nullptr);
  CHECK(std::strcmp(tsc_status_code_name(TSC_STATUS_DATA_LOSS), "DATA_LOSS") ==
        0);
  CHECK(std::strcmp(tsc_status_code_name(tsc_status_code_t(99)), "UNKNOWN") ==
        0);
}

TEST(dtypes) {
  CHECK(tsc_dtype_size(TSC_DTYPE_F32) == 4 &&
        tsc_dtype_size(TSC_DTYPE_BF16) == 2);
  CHECK(tsc_dtype_size(TSC_DTYPE_I64) == 8 &&
        tsc_dtype_size(TSC_DTYPE_BOOL) == 1);
  CHECK(tsc_dtype_size(TSC_DTYPE_U16) == 2 &&
        tsc_dtype_size(TSC_DTYPE_U32) == 4 &&
        tsc_dtype_size(TSC_DTYPE_U64) == 8);
  for (tsc_dtype_t f8 :
       {TSC_DTYPE_F8E4M3FN, TSC_DTYPE_F8E4M3FNUZ, TSC_DTYPE_F8E5M2,
        TSC_DTYPE_F8E5M2FNUZ, TSC_DTYPE_F8E8M0})
    CHECK(tsc_dtype_size(f8) == 1 && tsc_dtype_name(f8) != nullptr);
  // The packed types share bytes: no byte size, a bit size.
  for (tsc_dtype_t packed : {TSC_DTYPE_U4, TSC_DTYPE_I4, TSC_DTYPE_F4E2M1})
    CHECK(tsc_dtype_size(packed) == 0 && tsc_dtype_bits(packed) == 4 &&
          tsc_dtype_name(packed) != nullptr);
  for (tsc_dtype_t packed : {TSC_DTYPE_U2, TSC_DTYPE_I2})
    CHECK(tsc_dtype_size(packed) == 0 && tsc_dtype_bits(packed) == 2 &&
          tsc_dtype_name(packed) != nullptr);
  CHECK(tsc_dtype_bits(TSC_DTYPE_BOOL) == 8 &&
        tsc_dtype_bits(TSC_DTYPE_F64) == 64);
  CHECK(tsc_dtype_size(tsc_dtype_t(0)) == 0 &&
        tsc_dtype_bits(tsc_dtype_t(0)) == 0 &&
        tsc_dtype_size(tsc_dtype_t(24)) == 0 &&
        tsc_dtype_bits(tsc_dtype_t(24)) == 0 &&
        tsc_dtype_name(tsc_dtype_t(24)) == nullptr);
  CHECK(std::strcmp(tsc_dtype_name(TSC_DTYPE_F4E2M1), "f4e2m1") == 0);
  CHECK(std::strcmp(tsc_dtype_name(TSC_DTYPE_F16), "f16") == 0);
  CHECK(std::strcmp(tsc_dtype_name(TSC_DTYPE_U64), "u64") == 0);
  CHECK(std::strcmp(tsc_dtype_name(TSC_DTYPE_F8E5M2FNUZ), "f8e5m2fnuz") == 0);
}

// --- Devices: libcuda through dlopen
// --------------------------------------------------
// Both branches are real: without a driver (CI) the count is a status that
// says why; with a GPU (the device machine) the devices are described.
TEST(cuda_devices) {
  size_t count = 0;
  tsc_status_t status = tsc_cuda_device_count(&count);
  tsc_cuda_device_t device;
  if (status) {
    CHECK(tsc_status_code(status) == TSC_STATUS_UNAVAILABLE);
    std::string message = tsc_status_message(status);
    CHECK(message.find("CUDA") != std::string::npos);
    tsc_status_free(status);
    tsc_status_t again = tsc_cuda_device_get(0, &device);
    CHECK(tsc_status_code(again) == TSC_STATUS_UNAVAILABLE);
    tsc_status_free(again);
  } else {
    CHECK(count >= 1);
    tsc_status_t first = tsc_cuda_device_get(0, &device);
    CHECK(first == nullptr);
    CHECK(device.major >= 5 && device.memory > 0 && device.name[0] != '\0');
    tsc_status_t past = tsc_cuda_device_get(count, &device);
    CHECK(tsc_status_code(past) == TSC_STATUS_OUT_OF_RANGE);
    tsc_status_free(past);
  }
  tsc_status_t null = tsc_cuda_device_count(nullptr);
  CHECK(tsc_status_code(null) == TSC_STATUS_INVALID_ARGUMENT);
  tsc_status_free(null);
}

TEST(tensor_create_host) {
  int64_t dims[] = {3, 5};
  tsc_tensor_t *t = nullptr;
  CHECK(tsc_tensor_create_host(TSC_DTYPE_F32, 2, dims, &t) == nullptr);
  CHECK(reinterpret_cast<uintptr_t>(tsc_tensor_data(t)) % 64 == 0);
  CHECK(tsc_tensor_byte_size(t) == 60 && tsc_tensor_rank(t) == 2);
  CHECK(tsc_tensor_dims(t)[1] == 5 && tsc_tensor_dtype(t) == TSC_DTYPE_F32);
  CHECK(tsc_tensor_owns_data(t) == 1 &&
        tsc_tensor_location(t) == TSC_LOCATION_HOST);
  tsc_tensor_retain(t);
  tsc_tensor_release(t);
  tsc_tensor_release(t);

  CHECK(tsc_tensor_create_host(TSC_DTYPE_I8, 0, nullptr, &t) == nullptr);
  CHECK(tsc_tensor_byte_size(t) == 1 && tsc_tensor_data(t) != nullptr);
  tsc_tensor_release(t);
  int64_t empty[] = {0, 7};
  CHECK(tsc_tensor_create_host(TSC_DTYPE_I8, 2, empty, &t) == nullptr);
  CHECK(tsc_tensor_byte_size(t) == 0 && tsc_tensor_data(t) != nullptr);
  tsc_tensor_release(t);

  // Packed: ceil(n * bits / 8) bytes, 15 int4 in 8, 15 int2 in 4.
  CHECK(tsc_tensor_create_host(TSC_DTYPE_I4, 2, dims, &t) == nullptr);
  CHECK(tsc_tensor_byte_size(t) == 8);
  tsc_tensor_release(t);
  CHECK(tsc_tensor_create_host(TSC_DTYPE_U2, 2, dims, &t) == nullptr);
  CHECK(tsc_tensor_byte_size(t) == 4);
  tsc_tensor_release(t);
}

TEST(tensor_errors) {
  int64_t negative[] = {2, -1};
  tsc_tensor_t *t = nullptr;
  CHECK(expectStatus(tsc_tensor_create_host(TSC_DTYPE_F32, 2, negative, &t),
                     TSC_STATUS_INVALID_ARGUMENT, {"dim 1 is -1"}));
  CHECK(t == nullptr);
  int64_t dims[] = {4};
  CHECK(expectStatus(tsc_tensor_create_host(tsc_dtype_t(42), 1, dims, &t),
                     TSC_STATUS_INVALID_ARGUMENT, {"dtype 42"}));
  int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40};
  CHECK(expectStatus(tsc_tensor_create_host(TSC_DTYPE_F32, 2, huge, &t),
                     TSC_STATUS_OUT_OF_RANGE, {"overflows"}));
  float small[3];
  CHECK(expectStatus(
      tsc_tensor_wrap_host(TSC_DTYPE_F32, 1, dims, small, sizeof(small), &t),
      TSC_STATUS_INVALID_ARGUMENT, {"12 bytes", "16"}));
  CHECK(expectStatus(tsc_tensor_create_host(TSC_DTYPE_F32, 1, dims, nullptr),
                     TSC_STATUS_INVALID_ARGUMENT, {"out_tensor"}));
}

extern "C" int tsc_c_log_callback(const char *newer, const char *copy,
                                  char *why, size_t why_size);

// tsc_set_log_callback from C: a newer artifact's skipped section is a
// warning naming the file, a load is information, levels filter.
TEST(log_callback_from_c) {
  char why[600] = "";
  int failed = tsc_c_log_callback(path("unknown-section-newer.tscm").c_str(),
                                  path("copy.tscm").c_str(), why, sizeof(why));
  if (failed)
    std::printf("  %s\n", why);
  CHECK(!failed);
}

TEST(c99_header_smoke) {
  char why[256] = "";
  int failed = tsc_c_api_smoke(why, sizeof(why));
  if (failed)
    std::printf("  %s\n", why);
  CHECK(!failed);
}

TEST(crc32c_known_values) {
  const char *check = "123456789";
  CHECK(tsc::rt::crc32c(check, 9) == 0xE3069283u);
  CHECK(tsc::rt::crc32cPortable(check, 9) == 0xE3069283u);
  CHECK(tsc::rt::crc32c(nullptr, 0) == 0);
  std::vector<uint8_t> bytes(1000);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = uint8_t(i * 131 + 7);
  for (size_t offset : {0, 1, 3})
    for (size_t n : {0, 1, 7, 8, 9, 63, 64, 65, 997})
      CHECK(tsc::rt::crc32c(bytes.data() + offset, n) ==
            tsc::rt::crc32cPortable(bytes.data() + offset, n));
  // Extending a checksum piece by piece gives the checksum of the whole.
  CHECK(tsc::rt::crc32cExtend(tsc::rt::crc32c(check, 4), check + 4, 5) ==
        0xE3069283u);
  for (size_t split : {0, 1, 8, 500, 999, 1000}) {
    uint32_t head = tsc::rt::crc32c(bytes.data(), split);
    CHECK(tsc::rt::crc32cExtend(head, bytes.data() + split,
                                bytes.size() - split) ==
          tsc::rt::crc32c(bytes.data(), bytes.size()));
  }
}

// --- Loading broken files written here
// ----------------------------------------
TEST(load_missing_file) {
  tsc_model_t *m = nullptr;
  CHECK(expectStatus(load("does-not-exist.tscm", &m), TSC_STATUS_NOT_FOUND,
                     {"does-not-exist.tscm", "No such file"}));
  CHECK(m == nullptr);
}

TEST(load_bad_magic) {
  std::string bytes = header(1, 64);
  bytes.replace(0, 8, "PK\x03\x04zip!", 8);
  writeFile("bad-magic-t.tscm", bytes);
  tsc_model_t *m = nullptr;
  CHECK(expectStatus(load("bad-magic-t.tscm", &m), TSC_STATUS_INVALID_ARGUMENT,
                     {"bad-magic-t.tscm", "not a tsc artifact"}));
}

TEST(load_empty_file) {
  writeFile("empty-t.tscm", "");
  tsc_model_t *m = nullptr;
  CHECK(expectStatus(load("empty-t.tscm", &m), TSC_STATUS_DATA_LOSS,
                     {"empty-t.tscm", "empty"}));
}

TEST(load_truncated_header) {
  writeFile("short-t.tscm", header(1, 64).substr(0, 30));
  tsc_model_t *m = nullptr;
  CHECK(expectStatus(load("short-t.tscm", &m), TSC_STATUS_DATA_LOSS,
                     {"short-t.tscm", "truncated", "30 bytes"}));
}

TEST(load_wrong_major_version) {
  writeFile("major-t.tscm", header(7, 64));
  tsc_model_t *m = nullptr;
  CHECK(expectStatus(load("major-t.tscm", &m), TSC_STATUS_UNIMPLEMENTED,
                     {"major-t.tscm", "format version 7.0", "1.x"}));
}

TEST(load_header_checksum) {
  std::string bytes = header(1, 64);
  bytes[33] ^= 1;
  writeFile("hcrc-t.tscm", bytes);
  tsc_model_t *m = nullptr;
  CHECK(expectStatus(load("hcrc-t.tscm", &m), TSC_STATUS_DATA_LOSS,
                     {"hcrc-t.tscm", "header checksum mismatch"}));
}

TEST(load_file_size_mismatch) {
  writeFile("size-t.tscm", header(1, 123456));
  tsc_model_t *m = nullptr;
  CHECK(expectStatus(
      load("size-t.tscm", &m), TSC_STATUS_DATA_LOSS,
      {"size-t.tscm: truncated: header says 123456 bytes, file has 64"}));
}

TEST(load_no_plan) {
  writeFile("noplan-t.tscm", header(1, 64));
  tsc_model_t *m = nullptr;
  CHECK(expectStatus(load("noplan-t.tscm", &m), TSC_STATUS_DATA_LOSS,
                     {"no PLAN section"}));
}

TEST(load_from_memory_arguments) {
  alignas(64) static char buffer[128] = {};
  tsc_model_t *m = nullptr;
  CHECK(expectStatus(
      tsc_model_load_from_memory(nullptr, buffer + 1, 64, "mem", &m),
      TSC_STATUS_INVALID_ARGUMENT, {"mem", "64-byte aligned"}));
  CHECK(expectStatus(
      tsc_model_load_from_memory(nullptr, buffer, 64, nullptr, nullptr),
      TSC_STATUS_INVALID_ARGUMENT, {"out_model"}));
  tsc_model_options_t bad{}; // struct_size 0
  CHECK(expectStatus(tsc_model_load_from_memory(&bad, buffer, 64, "mem", &m),
                     TSC_STATUS_INVALID_ARGUMENT, {"struct_size"}));
}

TEST(cpp_wrapper_throws) {
  try {
    tsc::Model::load(path("does-not-exist.tscm"));
    CHECK(false);
  } catch (const tsc::Error &e) {
    CHECK(e.code() == TSC_STATUS_NOT_FOUND);
    CHECK(std::string(e.what()).find("does-not-exist.tscm") !=
          std::string::npos);
  }
}

// --- Fixtures of make_artifact.py
// ----------------------------------------------
struct Expected {
  const char *file;
  tsc_status_code_t code;
  const char *fragment;
};

TEST(fixtures_corrupt) {
  const Expected cases[] = {
      {"truncated.tscm", TSC_STATUS_DATA_LOSS, "truncated: header says"},
      {"trailing.tscm", TSC_STATUS_DATA_LOSS, "trailing data"},
      {"bad-magic.tscm", TSC_STATUS_INVALID_ARGUMENT, "bad magic"},
      {"text-mode.tscm", TSC_STATUS_DATA_LOSS, "text mode"},
      {"major2.tscm", TSC_STATUS_UNIMPLEMENTED, "format version 2.0"},
      {"header-crc.tscm", TSC_STATUS_DATA_LOSS, "header checksum mismatch"},
      {"table-crc.tscm", TSC_STATUS_DATA_LOSS,
       "section table checksum mismatch"},
      {"plan-crc.tscm", TSC_STATUS_DATA_LOSS, "section PLAN checksum mismatch"},
      {"weights-crc.tscm", TSC_STATUS_DATA_LOSS,
       "section WGHT checksum mismatch"},
      {"no-plan.tscm", TSC_STATUS_DATA_LOSS, "no PLAN section"},
      {"duplicate.tscm", TSC_STATUS_DATA_LOSS, "section PLAN appears twice"},
      {"short-header.tscm", TSC_STATUS_DATA_LOSS,
       "truncated: file has 40 bytes"},
      {"bad-expr.tscm", TSC_STATUS_DATA_LOSS, "unknown code 0x7f"},
      {"expr-underflow.tscm", TSC_STATUS_DATA_LOSS, "stack underflow"},
      {"plan-truncated.tscm", TSC_STATUS_DATA_LOSS, "step_count 1"},
      {"gemm-flags.tscm", TSC_STATUS_DATA_LOSS, "unknown gemm flags 2"},
      {"gemm-sparse-cpu.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 is a 2:4 sparse GEMM in a 'cpu' plan (CUDA only)"},
      {"gemm-bf16-inputs-minor15.tscm", TSC_STATUS_DATA_LOSS,
       "unknown gemm flags 4"},
      {"gemm-bf16-inputs-cuda.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (gemm) has bf16 inputs, which only a 'cpu' plan's GEMM of f32 "
       "operands (A not transposed) has"},
      {"gemm-activation.tscm", TSC_STATUS_DATA_LOSS,
       "step 1 (gemm) has unknown activation 7"},
      // Format 1.17: A's zero point, on static int8 steps (kind 7) only.
      {"int8-zero-point-minor16.tscm", TSC_STATUS_DATA_LOSS,
       "unknown gemm flags 8"},
      {"int8-zero-point-dynamic.tscm", TSC_STATUS_DATA_LOSS,
       "unknown gemm flags 8"},
      {"int8-zero-point-range.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (int8 gemm) has input zero point 200, outside [-128, 127]"},
      // Format 1.18: B's zero points, on weight-only steps (kind 8) only.
      {"weight-only-zp-minor17.tscm", TSC_STATUS_DATA_LOSS,
       "unknown gemm flags 16"},
      {"weight-only-zp-dtype.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (weight-only gemm) B's zero point (value 5) is not a weight of "
       "its own of B's dtype"},
      {"gemm-activation-minor7.tscm", TSC_STATUS_DATA_LOSS,
       "unknown gemm flags 256"},
      // Format 1.20: f8 · f8 -> f32 GEMMs, in 'cuda' plans only.
      {"cuda-gemm-fp8-minor19.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (gemm) multiplies f8e4m3fn operands, which only a 'cuda' plan "
       "of format 1.20 or later has"},
      {"gemm-fp8-cpu.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (gemm) multiplies f8e4m3fn operands, which only a 'cuda' plan "
       "of format 1.20 or later has"},
      // Format 1.19: s8 · s8 -> s32 GEMMs, in 'cuda' plans only.
      {"cuda-gemm-int8-minor18.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (gemm) multiplies s8 operands, which only a 'cuda' plan of "
       "format 1.19 or later has"},
      {"gemm-int8-cpu.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (gemm) multiplies s8 operands, which only a 'cuda' plan of "
       "format 1.19 or later has"},
      {"cuda-gemm-gelu-erf.tscm", TSC_STATUS_UNIMPLEMENTED,
       "step 1: a GEMM with an exact (erf) GELU epilogue is not supported on "
       "CUDA"},
      {"kernel-no-host.tscm", TSC_STATUS_DATA_LOSS, "no HOST section"},
      {"vulkan-target.tscm", TSC_STATUS_UNIMPLEMENTED, "target 'vulkan'"},
      {"cuda-no-section.tscm", TSC_STATUS_DATA_LOSS,
       "a 'cuda' plan without a CUDA section"},
      {"cuda-bad-module.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 launches module 5, but the CUDA section has 1"},
      {"cuda-section-truncated.tscm", TSC_STATUS_DATA_LOSS, "CUDA: truncated"},
      {"cuda-launch-on-cpu.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 is a CUDA launch in a 'cpu' plan"},
      {"cuda-launch-minor1.tscm", TSC_STATUS_DATA_LOSS, "unknown step kind 5"},
      // Format 1.11: a launch's pointer arguments against its kernel's.
      {"cuda-launch-expect-dtype.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (launch of tsc_kernel_0_scale (/Mul)) passes value 0 (input "
       "'x') as argument 0, whose dtype is f32, but its code expects i32"},
      {"cuda-launch-expect-writes-input.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (launch of tsc_kernel_0_scale (/Mul)) writes value 0 (input "
       "'x'), an input or a weight, as argument 0"},
      {"cuda-launch-expect-missing.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 needs 2 buffer expectations"},
      {"unbound-symbol.tscm", TSC_STATUS_DATA_LOSS, "'orphan' is not bound"},
      {"small-arena.tscm", TSC_STATUS_DATA_LOSS, "past the arena's 32"},
      {"gemm-mixed-dtype.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (gemm) B (value 4) differs in dtype from A (value 0)"},
      // Format 1.9: the plan's values against what the code expects.
      {"kernel-expect-dtype.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (kernel 'scale_by_two') passes value 0 (input 'x') as buffer "
       "0, whose dtype is f32, but its code expects i32"},
      {"kernel-expect-shape.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (kernel 'scale_by_two') passes value 1 (output 'y') as buffer "
       "1, whose shape is [n], but its code expects [5]"},
      {"kernel-expect-writes-input.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (kernel 'scale_by_two') writes value 0 (input 'x'), an input "
       "or a weight, as buffer 0"},
      {"kernel-expect-access.tscm", TSC_STATUS_DATA_LOSS,
       "unknown expected access 2"},
      {"kernel-expect-missing.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 needs 2 buffer expectations, 4 bytes left"},
      {"gemm-expect-shape.tscm", TSC_STATUS_DATA_LOSS,
       "step 0 (gemm) passes value 6 as C, whose shape is [batch, 4], but its "
       "code expects [batch, 5]"},
      {"value-reserved.tscm", TSC_STATUS_DATA_LOSS,
       "unknown value reserved field 1"},
      {"section-flags.tscm", TSC_STATUS_DATA_LOSS,
       "section PLAN has flags 0x1 and reserved 0x0, not 0"},
      {"unknown-section.tscm", TSC_STATUS_DATA_LOSS,
       "unknown section XTRA in format 1.0"},
      {"steps-count.tscm", TSC_STATUS_DATA_LOSS,
       "STEP: 2 steps, the plan has 1"},
      {"steps-truncated.tscm", TSC_STATUS_DATA_LOSS,
       "STEP: truncated at byte 17 reading step source nodes"},
  };
  for (const Expected &c : cases) {
    tsc_model_t *m = nullptr;
    bool ok = expectStatus(load(c.file, &m), c.code, {c.file, c.fragment});
    if (!ok)
      std::printf("  (for %s)\n", c.file);
    CHECK(ok && m == nullptr);
  }
}

TEST(fixture_signature) {
  tsc::Model m = tsc::Model::load(path("gemm.tscm"));
  CHECK(m.producer() == "tsc 0.1.0");
  CHECK(m.symbolCount() == 2 && m.symbolName(1) == "seq");
  CHECK(m.symbolMin(0) == 1 && m.symbolMax(0) == 4 && m.symbolMax(1) == 16);
  CHECK(m.inputCount() == 2 && m.inputName(0) == "x" &&
        m.inputName(1) == "ids");
  CHECK(m.inputDtype(1) == TSC_DTYPE_I64 && m.inputRank(0) == 2);
  CHECK(m.inputDimSymbol(0, 0) == 0 && m.inputDimSize(0, 0) == -1);
  CHECK(m.inputDimSymbol(0, 1) == -1 && m.inputDimSize(0, 1) == 3);
  CHECK(m.inputDimSymbol(1, 1) == 1 && m.inputDimSymbol(1, 2) == -1);
  CHECK((m.inputShape(1, {3, 7}) == std::vector<int64_t>{3, 7}));
  CHECK(m.outputCount() == 2 && m.outputName(1) == "ids_out");
  CHECK((m.outputShape(0, {2, 9}) == std::vector<int64_t>{2, 4}));
  CHECK(tsc_model_input_name(m.get(), 5) == nullptr && m.symbolMin(9) == -1);
  CHECK(expectStatus(tsc_model_input_shape(m.get(), 0, nullptr, 0, nullptr),
                     TSC_STATUS_INVALID_ARGUMENT,
                     {"0 symbol values given, the model has 2"}));
}

TEST(fixture_copy_runs) {
  tsc::Model model = tsc::Model::load(path("copy.tscm"));
  tsc::Session s(model, 1);
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i) * 0.5f;
  s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {3, 4}, x.data(), 48));
  s.run();
  tsc::Tensor y = s.output("y");
  CHECK((y.dims() == std::vector<int64_t>{3, 4}) && y.dtype() == TSC_DTYPE_F32);
  CHECK(y.ownsData() && std::memcmp(y.data(), x.data(), 48) == 0);

  // A held output is not overwritten by the next run; a released one is reused.
  void *first = y.data();
  s.run();
  tsc::Tensor y2 = s.output("y");
  CHECK(y2.data() != first);
  void *second = y2.data();
  y = tsc::Tensor();
  y2 = tsc::Tensor();
  s.run();
  CHECK(s.output("y").data() == second);
  CHECK(tsc_session_gemm_library(s.get()) == nullptr); // no GEMM steps
}

// Format 1.13: each step's layer and source nodes, and the last profiled
// run's step times.
TEST(fixture_step_sources) {
  tsc::Model model = tsc::Model::load(path("steps.tscm"));
  CHECK(std::string(tsc_model_step_layer(model.get(), 0)) == "/layers.0");
  CHECK(std::string(tsc_model_step_nodes(model.get(), 0)) == "/x/Identity");
  CHECK(tsc_model_step_layer(model.get(), 1) == nullptr);
  CHECK(tsc_model_step_nodes(model.get(), 1) == nullptr);
  tsc::Model old = tsc::Model::load(path("copy.tscm"));
  CHECK(std::string(tsc_model_step_layer(old.get(), 0)).empty());

  tsc_session_options_t options;
  tsc_session_options_init(&options);
  options.thread_count = 1;
  options.profile = 1;
  tsc::Session s(model, options);
  double start = -1, duration = -1;
  // Before a run: nothing to report.
  CHECK(tsc_session_last_step_time(s.get(), 0, &start, &duration) == 0 &&
        start == 0 && duration == 0);
  std::vector<float> x(8, 1.0f);
  s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 4}, x.data(), 32));
  s.run();
  CHECK(tsc_session_last_step_time(s.get(), 0, &start, &duration) == 1);
  CHECK(start >= 0 && duration >= 0 &&
        duration <= tsc_session_step_time(s.get(), 0));
  CHECK(tsc_session_last_step_time(s.get(), 1, &start, &duration) == 0);
  tsc::Session plain(model, 1);
  plain.bindInput("x",
                  tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 4}, x.data(), 32));
  plain.run();
  CHECK(tsc_session_last_step_time(plain.get(), 0, &start, &duration) == 0);
}

// Sessions with different thread counts, run in turn on one thread, leave
// the caller's OpenMP thread count as it was: no session resets another's
// or the caller's (libomp, which the runtime loads, holds the count).
TEST(session_threads_given_back) {
  void *omp = dlopen("libomp.so.5", RTLD_NOW | RTLD_NOLOAD);
  CHECK(omp != nullptr);
  if (!omp)
    return;
  auto get = reinterpret_cast<int (*)()>(dlsym(omp, "omp_get_max_threads"));
  auto set = reinterpret_cast<void (*)(int)>(dlsym(omp, "omp_set_num_threads"));
  CHECK(get && set);
  set(3);
  tsc::Model model = tsc::Model::load(path("copy.tscm"));
  tsc::Session one(model, 1), two(model, 2);
  CHECK(get() == 3);
  std::vector<float> x(8, 1.0f);
  for (tsc::Session *s : {&one, &two, &one}) {
    s->bindInput("x",
                 tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 4}, x.data(), 32));
    s->run();
    CHECK(get() == 3);
  }
  dlclose(omp);
}

TEST(fixture_copy_caller_output) {
  tsc::Model model = tsc::Model::load(path("copy.tscm"));
  tsc::Session s(model, 1);
  float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {};
  s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 4}, x, sizeof(x)));
  tsc::Tensor wrong = tsc::Tensor::wrapHost(TSC_DTYPE_F32, {3, 4}, out, 48 * 2);
  s.bindOutput("y", wrong);
  CHECK(expectStatus(tsc_session_run(s.get()), TSC_STATUS_INVALID_ARGUMENT,
                     {"output 'y' has shape [3, 4], expected [2, 4]"}));
  tsc::Tensor mine =
      tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 4}, out, sizeof(out));
  s.bindOutput("y", mine);
  s.run();
  CHECK(std::memcmp(out, x, sizeof(x)) == 0);
  CHECK(s.output("y").data() == static_cast<void *>(out));
}

TEST(fixture_session_errors) {
  tsc::Model model = tsc::Model::load(path("copy.tscm"));
  tsc::Session s(model, 1);
  tsc_tensor_t *out = nullptr;
  CHECK(expectStatus(tsc_session_get_output(s.get(), "y", &out),
                     TSC_STATUS_FAILED_PRECONDITION, {"not run"}));
  CHECK(expectStatus(tsc_session_run(s.get()), TSC_STATUS_FAILED_PRECONDITION,
                     {"input 'x' is not bound"}));
  std::vector<float> data(9 * 5);
  tsc::Tensor ok =
      tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 4}, data.data(), 32);
  CHECK(expectStatus(tsc_session_bind_input(s.get(), "input_ids", ok.get()),
                     TSC_STATUS_NOT_FOUND,
                     {"no input named 'input_ids'", "'x'"}));
  CHECK(expectStatus(tsc_session_get_output(s.get(), "z", &out),
                     TSC_STATUS_NOT_FOUND, {"no output named 'z'", "'y'"}));
  tsc::Tensor f64 =
      tsc::Tensor::wrapHost(TSC_DTYPE_F64, {2, 4}, data.data(), 64);
  CHECK(expectStatus(tsc_session_bind_input(s.get(), "x", f64.get()),
                     TSC_STATUS_INVALID_ARGUMENT,
                     {"input 'x' has dtype f64, expected f32"}));
  tsc::Tensor rank3 =
      tsc::Tensor::wrapHost(TSC_DTYPE_F32, {1, 2, 4}, data.data(), 32);
  CHECK(expectStatus(tsc_session_bind_input(s.get(), "x", rank3.get()),
                     TSC_STATUS_INVALID_ARGUMENT, {"rank 3, expected 2"}));
  s.bindInput(
      "x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {9, 4}, data.data(), 9 * 16));
  CHECK(expectStatus(tsc_session_run(s.get()), TSC_STATUS_OUT_OF_RANGE,
                     {"input 'x' dim 0 (batch) is 9, outside [1, 8]"}));
  s.bindInput("x",
              tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 5}, data.data(), 40));
  CHECK(expectStatus(tsc_session_run(s.get()), TSC_STATUS_INVALID_ARGUMENT,
                     {"input 'x' dim 1 is 5, expected 4"}));
  s.bindInput("x", ok);
  s.run();
  CHECK(expectStatus(tsc_session_get_output(s.get(), "y", &out), TSC_STATUS_OK,
                     {}));
  tsc_tensor_release(out);
  tsc_session_options_t bad;
  tsc_session_options_init(&bad);
  bad.thread_count = -2;
  tsc_session_t *session = nullptr;
  CHECK(expectStatus(tsc_session_create(model.get(), &bad, &session),
                     TSC_STATUS_INVALID_ARGUMENT, {"thread_count is -2"}));
}

// Format 1.9's expectations, when the values meet them, change nothing; a
// section of a newer version is skipped.
TEST(fixture_expectations_met) {
  tsc::Model model = tsc::Model::load(path("gemm-expect.tscm"));
  std::vector<float> x = expectedFloats("gemm_x.npy", 6);
  std::vector<float> expected = expectedFloats("gemm_y_expected.npy", 8);
  std::vector<int64_t> ids(10);
  tsc::Session s(model, 1);
  s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 3}, x.data(), 24));
  s.bindInput("ids",
              tsc::Tensor::wrapHost(TSC_DTYPE_I64, {2, 5}, ids.data(), 80));
  s.run();
  tsc::Tensor y = s.output("y");
  for (size_t i = 0; i < 8; ++i)
    CHECK(std::fabs(y.data<float>()[i] - expected[i]) < 1e-5f);
  tsc_model_t *m = nullptr;
  CHECK(
      expectStatus(load("unknown-section-newer.tscm", &m), TSC_STATUS_OK, {}));
  tsc_model_release(m);
}

TEST(fixture_gemm_runs) {
  tsc::Model model = tsc::Model::load(path("gemm.tscm"));
  std::string xFile = readFile("gemm_x.npy"),
              idsFile = readFile("gemm_ids.npy");
  std::vector<float> x = expectedFloats("gemm_x.npy", 6);
  std::vector<int64_t> ids(10);
  std::memcpy(ids.data(), idsFile.data() + idsFile.size() - 80, 80);
  std::vector<float> expected = expectedFloats("gemm_y_expected.npy", 8);
  tsc::Session s(model, 1);
  s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 3}, x.data(), 24));
  // ids binds batch to 3 while x binds it to 2.
  std::vector<int64_t> wrongIds(15);
  s.bindInput("ids", tsc::Tensor::wrapHost(TSC_DTYPE_I64, {3, 5},
                                           wrongIds.data(), 120));
  CHECK(expectStatus(
      tsc_session_run(s.get()), TSC_STATUS_INVALID_ARGUMENT,
      {"input 'ids' dim 0 (batch) is 3, but input 'x' dim 0 sets batch to 2"}));
  s.bindInput("ids",
              tsc::Tensor::wrapHost(TSC_DTYPE_I64, {2, 5}, ids.data(), 80));
  s.run();
  tsc::Tensor y = s.output("y");
  CHECK((y.dims() == std::vector<int64_t>{2, 4}));
  for (size_t i = 0; i < 8; ++i)
    CHECK(std::fabs(y.data<float>()[i] - expected[i]) < 1e-5f);
  tsc::Tensor idsOut = s.output("ids_out");
  CHECK(std::memcmp(idsOut.data(), ids.data(), 80) == 0);
  // The weight was prepared at batch 4 (the maximum); batch 1 is a third
  // shape of the same step.
  s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {1, 3}, x.data(), 12));
  s.bindInput("ids",
              tsc::Tensor::wrapHost(TSC_DTYPE_I64, {1, 5}, ids.data(), 40));
  s.run();
  y = s.output("y");
  CHECK((y.dims() == std::vector<int64_t>{1, 4}));
  for (size_t i = 0; i < 4; ++i)
    CHECK(std::fabs(y.data<float>()[i] - expected[i]) < 1e-5f);
  const char *library = tsc_session_gemm_library(s.get());
  CHECK(library && std::strncmp(library, "oneDNN ", 7) == 0 &&
        std::strstr(library, ", ISA "));
}

TEST(fixture_gemm_f16_runs) {
  checkHalfGemm("f16", TSC_DTYPE_F16, 1.0f / 1024);
}
TEST(fixture_gemm_bf16_runs) {
  checkHalfGemm("bf16", TSC_DTYPE_BF16, 1.0f / 128);
}

// The bulk conversions (fp16 through F16C where the CPU has it, as here)
// give the scalar conversions' values for every f16 and a sweep of f32 bit
// patterns, over lengths that leave a tail past the 8-wide blocks.
TEST(half_bulk_conversions) {
  std::vector<uint16_t> halves(0x10000 + 5);
  for (size_t i = 0; i < halves.size(); ++i)
    halves[i] = uint16_t(i * 40503u);
  for (bool bf16 : {false, true}) {
    std::vector<float> wide(halves.size());
    tsc::rt::widenHalves(halves.data(), wide.data(), wide.size(), bf16);
    int off = 0;
    for (size_t i = 0; i < halves.size(); ++i) {
      float want = bf16 ? tsc::rt::bf16ToFloat(halves[i])
                        : tsc::rt::halfToFloat(halves[i]);
      if (std::isnan(want) ? !std::isnan(wide[i])
                           : std::memcmp(&want, &wide[i], 4) != 0)
        off += 1;
    }
    CHECK(off == 0);
    std::vector<float> floats;
    for (uint64_t bits = 0; bits < 0x100000000ull; bits += 4099) {
      float f;
      uint32_t u = uint32_t(bits);
      std::memcpy(&f, &u, 4);
      floats.push_back(f);
    }
    std::vector<uint16_t> narrow(floats.size());
    tsc::rt::narrowToHalves(floats.data(), narrow.data(), narrow.size(), bf16);
    off = 0;
    for (size_t i = 0; i < floats.size(); ++i) {
      uint16_t want = bf16 ? tsc::rt::floatToBf16(floats[i])
                           : tsc::rt::floatToHalf(floats[i]);
      bool nan = std::isnan(floats[i]);
      float back = bf16 ? tsc::rt::bf16ToFloat(narrow[i])
                        : tsc::rt::halfToFloat(narrow[i]);
      if (nan ? !std::isnan(back) : narrow[i] != want)
        off += 1;
    }
    CHECK(off == 0);
  }
}

// halfToFloat against the definition for every f16; floatToHalf and
// floatToBf16 against the nearest representable value (ties to even, past
// the largest finite value by half an ulp: infinity), found by bisection
// over the ordered non-negative encodings, for a sweep of f32 bit patterns.
TEST(half_conversions) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double magnitude = exponent == 0    ? std::ldexp(double(mantissa), -24)
                       : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                        : std::ldexp(1.0 + mantissa / 1024.0,
                                                     int(exponent) - 15);
    double want = (h & 0x8000) ? -magnitude : magnitude;
    float got = tsc::rt::halfToFloat(uint16_t(h));
    if (std::isnan(want) ? !std::isnan(got) : double(got) != want) {
      std::printf("  halfToFloat(0x%04x) = %g, want %g\n", h, got, want);
      CHECK(false);
      break;
    }
  }
  // value(e) for non-negative encodings up to +inf, which stands for the
  // next power of two when rounding.
  auto nearest = [](float f, uint32_t inf, auto value) -> uint32_t {
    double m = std::fabs(double(f));
    uint32_t lo = 0, hi = inf; // value(lo) <= m < value(hi)
    if (m >= value(inf))
      return inf;
    while (hi - lo > 1) {
      uint32_t mid = (lo + hi) / 2;
      (value(mid) <= m ? lo : hi) = mid;
    }
    double below = m - value(lo), above = value(hi) - m;
    return below < above || (below == above && lo % 2 == 0) ? lo : hi;
  };
  auto halfValue = [](uint32_t e) {
    return e == 0x7c00 ? 65536.0 : double(tsc::rt::halfToFloat(uint16_t(e)));
  };
  auto bf16Value = [](uint32_t e) {
    return e == 0x7f80 ? std::ldexp(1.0, 128)
                       : double(tsc::rt::bf16ToFloat(uint16_t(e)));
  };
  int failures = 0;
  for (uint64_t bits = 0; bits < 0x100000000ull && failures < 5;
       bits += 65521) {
    float f;
    uint32_t u = uint32_t(bits);
    std::memcpy(&f, &u, 4);
    uint16_t h = tsc::rt::floatToHalf(f), b = tsc::rt::floatToBf16(f);
    if (std::isnan(f)) {
      CHECK(std::isnan(tsc::rt::halfToFloat(h)));
      CHECK(std::isnan(tsc::rt::bf16ToFloat(b)));
      continue;
    }
    uint32_t sign = (u >> 16) & 0x8000;
    uint32_t wantH = sign | nearest(f, 0x7c00, halfValue);
    uint32_t wantB = sign | nearest(f, 0x7f80, bf16Value);
    if (h != wantH || b != wantB) {
      std::printf("  %a: f16 0x%04x (want 0x%04x), bf16 0x%04x (want 0x%04x)\n",
                  double(f), h, wantH, b, wantB);
      ++failures;
    }
  }
  CHECK(failures == 0);
}

TEST(fixture_load_from_memory) {
  std::string bytes = readFile("copy.tscm");
  void *aligned = std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64);
  std::memcpy(aligned, bytes.data(), bytes.size());
  {
    tsc::Model m =
        tsc::Model::loadFromMemory(aligned, bytes.size(), "copy-in-memory");
    CHECK(m.inputName(0) == "x");
    uint64_t planOffset = 0; // the only section's offset, from the table at 64
    std::memcpy(&planOffset, bytes.data() + 64 + 8, 8);
    static_cast<char *>(aligned)[planOffset + 2] ^= 1;
    tsc_model_t *bad = nullptr;
    CHECK(expectStatus(
        tsc_model_load_from_memory(nullptr, aligned, bytes.size(),
                                   "copy-in-memory", &bad),
        TSC_STATUS_DATA_LOSS, {"copy-in-memory: section PLAN checksum"}));
  }
  std::free(aligned);
}

// One model, two sessions on two threads at once: the model is shareable.
TEST(fixture_model_shared_by_threads) {
  tsc::Model model = tsc::Model::load(path("gemm.tscm"));
  bool okPerThread[2] = {false, false};
  auto work = [&](int t) {
    tsc::Session s(model, 1);
    std::vector<float> x(4 * 3, float(t + 1));
    std::vector<int64_t> ids(4 * 16, t);
    s.bindInput("x",
                tsc::Tensor::wrapHost(TSC_DTYPE_F32, {4, 3}, x.data(), 48));
    s.bindInput("ids",
                tsc::Tensor::wrapHost(TSC_DTYPE_I64, {4, 16}, ids.data(), 512));
    bool ok = true;
    for (int i = 0; i < 200; ++i) {
      s.run();
      ok &= std::memcmp(s.output("ids_out").data(), ids.data(), 512) == 0;
    }
    okPerThread[t] = ok;
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  CHECK(okPerThread[0] && okPerThread[1]);
}

TEST(fixture_kernel) {
  struct stat info;
  if (stat(path("kernel.tscm").c_str(), &info) != 0) {
    std::printf(
        "  kernel.tscm absent (make_artifact.py ran without --host-object)\n");
    return;
  }
  // Without (format 1.0) and with (1.9) what the kernel expects.
  for (const char *file : {"kernel.tscm", "kernel-expect.tscm"}) {
    tsc::Model model = tsc::Model::load(path(file));
    tsc::Session s(model);
    float x[3] = {1, -2, 0.25f};
    s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {3}, x, sizeof(x)));
    s.run();
    const float *y = s.output("y").data<float>();
    CHECK(y[0] == 2 && y[1] == -4 && y[2] == 0.5f);
  }
  tsc_model_t *m = nullptr;
  CHECK(expectStatus(load("kernel-missing.tscm", &m), TSC_STATUS_NOT_FOUND,
                     {"HOST does not export 'no_such_kernel'"}));
  CHECK(expectStatus(load("kernel-isa.tscm", &m), TSC_STATUS_UNIMPLEMENTED,
                     {"ISA bits 0x20"}));
  CHECK(expectStatus(load("kernel-bad-elf.tscm", &m), TSC_STATUS_DATA_LOSS,
                     {"not a 64-bit"}));
  __builtin_cpu_init();
  bool avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  tsc_status_t status = load("kernel-avx512.tscm", &m);
  if (avx512)
    CHECK(expectStatus(status, TSC_STATUS_OK, {}));
  else
    CHECK(expectStatus(status, TSC_STATUS_UNAVAILABLE,
                       {"this CPU lacks AVX-512"}));
  tsc_model_release(m);
  // AMX (bit 2): loads where the CPU has AMX-TILE and AMX-BF16 and Linux
  // grants the tile state (/proc/cpuinfo lists amx_tile only then), else
  // UNAVAILABLE naming AMX.
  m = nullptr;
  bool amx = false, avx512bf16 = false;
  if (FILE *cpuinfo = std::fopen("/proc/cpuinfo", "r")) {
    char line[8192];
    while (std::fgets(line, sizeof line, cpuinfo))
      if (std::strncmp(line, "flags", 5) == 0) {
        amx = std::strstr(line, " amx_tile") && std::strstr(line, " amx_bf16");
        avx512bf16 = std::strstr(line, " avx512_bf16");
        break;
      }
    std::fclose(cpuinfo);
  }
  status = load("kernel-amx.tscm", &m);
  if (amx)
    CHECK(expectStatus(status, TSC_STATUS_OK, {}));
  else
    CHECK(expectStatus(status, TSC_STATUS_UNAVAILABLE, {"this CPU lacks AMX"}));
  tsc_model_release(m);
  // AVX512_BF16 (bit 3, vdpbf16ps): loads where the CPU has it, else
  // UNAVAILABLE naming it.
  m = nullptr;
  status = load("kernel-avx512bf16.tscm", &m);
  if (avx512bf16)
    CHECK(expectStatus(status, TSC_STATUS_OK, {}));
  else
    CHECK(expectStatus(status, TSC_STATUS_UNAVAILABLE,
                       {"this CPU lacks AVX512_BF16"}));
  tsc_model_release(m);
}

// Two models with different host objects in one process: each runs its own
// code. (The loader finds a loaded object by its path; memory files reused
// one descriptor number, and the second model got the first one's object.)
TEST(fixture_two_host_objects) {
  struct stat info;
  if (stat(path("kernel-three.tscm").c_str(), &info) != 0) {
    std::printf("  kernel-three.tscm absent (make_artifact.py ran without "
                "--second-host-object)\n");
    return;
  }
  float x[3] = {1, -2, 0.25f};
  auto run = [&](tsc::Model &model) {
    tsc::Session s(model);
    s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {3}, x, sizeof(x)));
    s.run();
    return s.output("y").data<float>()[1];
  };
  {
    tsc::Model two = tsc::Model::load(path("kernel.tscm"));
    tsc::Model three = tsc::Model::load(path("kernel-three.tscm"));
    CHECK(run(two) == -4 && run(three) == -6);
  }
  // One after the other, the first released.
  for (const char *file : {"kernel.tscm", "kernel-three.tscm", "kernel.tscm"}) {
    tsc::Model model = tsc::Model::load(path(file));
    CHECK(run(model) == (std::string(file) == "kernel-three.tscm" ? -6 : -4));
  }
}

} // namespace

// The half GEMMs of make_artifact.py (format 1.3) on the host: operands
// widened to f32, one rounding of each result to the half type.
void tsc_runtime_tests::checkHalfGemm(const char *suffix, tsc_dtype_t dtype,
                                      float ulp, const std::string &prefix) {
  std::string name = std::string("residual_") + suffix;
  std::vector<float> x = expectedFloats(name + "_x.npy", 6);
  std::vector<float> r = expectedFloats(name + "_r.npy", 8);
  std::vector<float> y = expectedFloats(name + "_y_expected.npy", 8);
  std::vector<float> z = expectedFloats(name + "_z_expected.npy", 8);
  auto narrow = [&](const std::vector<float> &v) {
    std::vector<uint16_t> out;
    for (float f : v)
      out.push_back(dtype == TSC_DTYPE_F16 ? tsc::rt::floatToHalf(f)
                                           : tsc::rt::floatToBf16(f));
    return out;
  };
  auto widen = [&](uint16_t h) {
    return dtype == TSC_DTYPE_F16 ? tsc::rt::halfToFloat(h)
                                  : tsc::rt::bf16ToFloat(h);
  };
  std::vector<uint16_t> hx = narrow(x), hr = narrow(r);
  // The inputs are representable: narrowing them is exact.
  for (size_t i = 0; i < x.size(); ++i)
    CHECK(widen(hx[i]) == x[i]);
  tsc::Model model =
      tsc::Model::load(path(prefix + "gemm-residual-" + suffix + ".tscm"));
  tsc::Session s(model, 1);
  s.bindInput("x", tsc::Tensor::wrapHost(dtype, {2, 3}, hx.data(), 12));
  s.bindInput("r", tsc::Tensor::wrapHost(dtype, {2, 4}, hr.data(), 16));
  s.run();
  for (auto [out, expected] : {std::pair{"y", &y}, std::pair{"z", &z}}) {
    tsc::Tensor t = s.output(out);
    CHECK(t.dtype() == dtype);
    for (size_t i = 0; i < 8; ++i) {
      float got = widen(t.data<uint16_t>()[i]), want = (*expected)[i];
      // One rounding: within half an ulp of the exact value (plus f32's
      // accumulation error).
      bool ok = std::fabs(got - want) <= 0.5f * ulp * std::fabs(want) + 1e-6f;
      if (!ok)
        std::printf("  %s %s[%zu] = %g, exact %g\n", suffix, out, i, got, want);
      CHECK(ok);
    }
  }
}

int main(int argc, char **argv) {
  bool fakeCuda = argc == 4 && std::strcmp(argv[2], "--fake-cuda") == 0;
  if (argc != 2 && !fakeCuda) {
    std::fprintf(stderr,
                 "usage: tsc-runtime-tests DIR [--fake-cuda FAKE.so]\n");
    return 2;
  }
  gDir = argv[1];
  mkdir(gDir.c_str(), 0755);
  // The fake is libcuda.so.1 on LD_LIBRARY_PATH and cuBLASLt by path.
  if (fakeCuda)
    setenv("TSC_CUBLASLT", argv[3], 1);
  bool fixtures = haveFixtures();
  int failed = 0;
  for (const Test &t : tests()) {
    // The fake_cuda_ tests are their own suite (cuda-fake.test).
    if (fakeCuda != (std::strncmp(t.name, "fake_cuda", 9) == 0))
      continue;
    if (!fixtures && (std::strncmp(t.name, "fixture", 7) == 0 || fakeCuda)) {
      std::printf("SKIP %s (no make_artifact.py fixtures in %s)\n", t.name,
                  gDir.c_str());
      continue;
    }
    gOk = true;
    try {
      t.body();
    } catch (const std::exception &e) {
      std::printf("  exception: %s\n", e.what());
      gOk = false;
    }
    std::printf("%s %s\n", gOk ? "PASS" : "FAIL", t.name);
    failed += !gOk;
  }
  return failed ? 1 : 0;
}
