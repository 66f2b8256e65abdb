//===- runtime_cuda_tests.cpp - the runtime's CUDA backend tests ---------===//
//
// Part of tsc-runtime-tests (runtime_tests.cpp has main): CUDA artifacts
// loaded without a GPU, and, with test/runtime/Inputs/fake_cuda.c standing
// in for the driver (`--fake-cuda`), the backend's calls end to end.
//
//===----------------------------------------------------------------------===//

#include "runtime_tests.h"

using namespace tsc_runtime_tests;

namespace {

// --- CUDA artifacts
// ---------------------------------------------------------------
// A CUDA model loads and validates anywhere; a session needs a device. Without
// a driver (CI) that is UNAVAILABLE naming libcuda; with a GPU, the fixture's
// stand-in SASS is refused by the real driver, UNAVAILABLE too.
TEST(fixture_cuda_model_loads) {
  tsc::Model model = tsc::Model::load(path("cuda-scale.tscm"));
  CHECK(model.target() == "cuda" && model.inputName(0) == "x");
  CHECK(tsc_model_step_count(model.get()) == 1 &&
        std::string(tsc_model_step_name(model.get(), 0)) == "scale_by_two");
  tsc_session_t *session = nullptr;
  CHECK(expectStatus(tsc_session_create(model.get(), nullptr, &session),
                     TSC_STATUS_UNAVAILABLE, {"cuda-scale.tscm"}));
  CHECK(session == nullptr);
}

// CUDA memory cannot feed a CPU model: refused when bound, naming the input.
TEST(fixture_cuda_tensor_on_cpu) {
  tsc::Model model = tsc::Model::load(path("copy.tscm"));
  tsc::Session s(model, 1);
  std::vector<float> x(12);
  tsc::Tensor onDevice =
      tsc::Tensor::wrapCuda(TSC_DTYPE_F32, {3, 4}, x.data(), 48, 0);
  CHECK(onDevice.location() == TSC_LOCATION_CUDA &&
        tsc_tensor_cuda_device(onDevice.get()) == 0);
  CHECK(expectStatus(
      tsc_session_bind_input(s.get(), "x", onDevice.get()),
      TSC_STATUS_INVALID_ARGUMENT,
      {"input 'x' is in CUDA memory; this model runs on the CPU"}));
  tsc_tensor_t *bad = nullptr;
  CHECK(expectStatus(
      tsc_tensor_wrap_cuda(TSC_DTYPE_F32, 0, nullptr, x.data(), 4, -1, &bad),
      TSC_STATUS_INVALID_ARGUMENT, {"CUDA device -1"}));
}

// With test/runtime/Inputs/fake_cuda.c as libcuda.so.1 and libcublasLt
// (tsc-runtime-tests DIR --fake-cuda FAKE.so): the backend's driver calls,
// end to end on host memory.
long counter(const char *name) {
  static auto read = [] {
    void *fake = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return fake ? reinterpret_cast<long (*)(const char *)>(
                      dlsym(fake, "fake_cuda_counter"))
                : nullptr;
  }();
  return read ? read(name) : -1000;
}

std::vector<float> scaleInput() { return expectedFloats("cuda_x.npy", 37); }

TEST(fake_cuda_devices) {
  tsc_cuda_device_t device;
  CHECK(tsc_cuda_device_get(0, &device) == nullptr);
  CHECK(device.major == 9 && device.minor == 0 &&
        std::string(device.name) == "Fake GPU sm_90");
}

TEST(fake_cuda_scale) {
  tsc::Model model = tsc::Model::load(path("cuda-scale.tscm"));
  std::vector<float> x = scaleInput();
  {
    tsc::Session s(model);
    CHECK(counter("module_loads") == 1 && counter("sass_loads") == 1);
    CHECK(counter("sync_uploads") == 0); // the fixture has no weights
    s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {37}, x.data(),
                                           x.size() * 4));
    for (int run = 0; run < 3; ++run) {
      s.run();
      tsc::Tensor y = s.output("y");
      CHECK(y.dims() == std::vector<int64_t>{37});
      for (size_t i = 0; i < 37; ++i)
        CHECK(y.data<float>()[i] == 2 * x[i]);
    }
    // One capture at n = 37, replayed by every run; one kernel launch
    // recorded (ceil(37 / 32) = 2 blocks of 32, checked by the fake).
    CHECK(counter("captures") == 1 && counter("graph_launches") == 3 &&
          counter("launches") == 1);
    s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {5}, x.data(), 20));
    s.run();
    CHECK(s.output("y").data<float>()[4] == 2 * x[4]);
    CHECK(counter("captures") == 2 && counter("graph_launches") == 4);
  }
  // A second session reuses the model's modules; without graphs (and with
  // profiling) every run launches.
  tsc_session_options_t options;
  tsc_session_options_init(&options);
  options.cuda_graphs = 0;
  options.profile = 1;
  tsc::Session plain(model, options);
  plain.bindInput(
      "x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {37}, x.data(), x.size() * 4));
  plain.run();
  plain.run();
  // Launches: one per capture (n = 37, n = 5), one per plain run.
  CHECK(counter("module_loads") == 1 && counter("launches") == 4);
  CHECK(counter("graph_launches") == 4);
  CHECK(plain.output("y").data<float>()[36] == 2 * x[36]);
  CHECK(tsc_session_step_time(plain.get(), 0) > 0.0);
  options.cuda_device = 1;
  tsc_session_t *none = nullptr;
  CHECK(expectStatus(tsc_session_create(model.get(), &options, &none),
                     TSC_STATUS_OUT_OF_RANGE,
                     {"CUDA device 1 does not exist (there are 1)"}));
}

// Caller tensors in device memory (the stand-in driver's device memory is
// host memory): copied device to device into and out of the staging
// buffers; memory of another device is refused.
TEST(fake_cuda_device_tensors) {
  tsc::Model model = tsc::Model::load(path("cuda-scale.tscm"));
  std::vector<float> x = scaleInput(), y(37, -1.0f);
  tsc::Session s(model);
  s.bindInput(
      "x", tsc::Tensor::wrapCuda(TSC_DTYPE_F32, {37}, x.data(), x.size() * 4));
  tsc::Tensor out =
      tsc::Tensor::wrapCuda(TSC_DTYPE_F32, {37}, y.data(), 37 * 4);
  s.bindOutput("y", out);
  s.run();
  for (size_t i = 0; i < 37; ++i)
    CHECK(y[i] == 2 * x[i]);
  CHECK(s.output("y").data() == y.data());
  tsc::Tensor elsewhere =
      tsc::Tensor::wrapCuda(TSC_DTYPE_F32, {37}, x.data(), x.size() * 4, 1);
  CHECK(expectStatus(tsc_session_bind_input(s.get(), "x", elsewhere.get()),
                     TSC_STATUS_INVALID_ARGUMENT,
                     {"input 'x' is in the memory of CUDA device 1; the "
                      "session runs on device 0"}));
}

// The caller's stream: the legacy default stream works without graphs (it
// cannot be captured); a stream the caller is capturing is refused.
TEST(fake_cuda_caller_stream) {
  tsc::Model model = tsc::Model::load(path("cuda-scale.tscm"));
  std::vector<float> x = scaleInput();
  tsc_session_options_t options;
  tsc_session_options_init(&options);
  options.cuda_stream =
      reinterpret_cast<void *>(uintptr_t(1)); // CU_STREAM_LEGACY
  long captures = counter("captures"), launches = counter("launches");
  {
    tsc::Session legacy(model, options);
    legacy.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {37}, x.data(),
                                                x.size() * 4));
    legacy.run();
    legacy.run();
    CHECK(legacy.output("y").data<float>()[3] == 2 * x[3]);
    CHECK(counter("captures") == captures &&
          counter("launches") == launches + 2);
  }
  void *fake = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  auto create = reinterpret_cast<int (*)(void **, unsigned)>(
      dlsym(fake, "cuStreamCreate"));
  auto begin = reinterpret_cast<int (*)(void *, int)>(
      dlsym(fake, "cuStreamBeginCapture_v2"));
  auto end = reinterpret_cast<int (*)(void *, void **)>(
      dlsym(fake, "cuStreamEndCapture"));
  auto destroyGraph =
      reinterpret_cast<int (*)(void *)>(dlsym(fake, "cuGraphDestroy"));
  auto destroy =
      reinterpret_cast<int (*)(void *)>(dlsym(fake, "cuStreamDestroy_v2"));
  void *stream = nullptr, *graph = nullptr;
  CHECK(create(&stream, 1) == 0 && begin(stream, 1) == 0);
  options.cuda_stream = stream;
  {
    tsc::Session captured(model, options);
    captured.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {37}, x.data(),
                                                  x.size() * 4));
    CHECK(expectStatus(tsc_session_run(captured.get()),
                       TSC_STATUS_FAILED_PRECONDITION,
                       {"the caller's CUDA stream is being captured"}));
  }
  CHECK(end(stream, &graph) == 0);
  destroyGraph(graph);
  destroy(stream);
}

// Which code loads: SASS of the same major version, else PTX no newer than
// the device, else a status; and the driver version the code needs.
TEST(fake_cuda_code_choice) {
  struct Case {
    const char *cc, *driver;
    long sass, ptx;
    const char *error;
  } cases[] = {
      {"86", "12040", 1, 0, nullptr},  // sm_80's SASS
      {"100", "12040", 0, 1, nullptr}, // sm_90's PTX, compiled by the driver
      {"75", "12040", 0, 0,
       "is sm_75; the artifact has code for sm_80, sm_90 only"},
      {"90", "11080", 0, 0,
       "the CUDA driver is 11.8; the code for sm_90 needs 12.0"},
  };
  for (const Case &c : cases) {
    setenv("FAKE_CUDA_CC", c.cc, 1);
    setenv("FAKE_CUDA_DRIVER", c.driver, 1);
    long sass = counter("sass_loads"), ptx = counter("ptx_loads");
    tsc::Model model = tsc::Model::load(path("cuda-scale.tscm"));
    tsc_session_t *session = nullptr;
    tsc_status_t status = tsc_session_create(model.get(), nullptr, &session);
    if (c.error)
      CHECK(expectStatus(status, TSC_STATUS_UNAVAILABLE, {c.error}));
    else
      CHECK(status == nullptr);
    tsc_session_release(session);
    CHECK(counter("sass_loads") - sass == c.sass &&
          counter("ptx_loads") - ptx == c.ptx);
  }
  unsetenv("FAKE_CUDA_CC");
  unsetenv("FAKE_CUDA_DRIVER");
}

TEST(fake_cuda_launch_error) {
  tsc::Model model = tsc::Model::load(path("cuda-scale.tscm"));
  std::vector<float> x = scaleInput();
  setenv("FAKE_CUDA_FAIL", "scale_by_two", 1);
  for (int graphs : {0, 1}) {
    tsc_session_options_t options;
    tsc_session_options_init(&options);
    options.cuda_graphs = graphs;
    tsc::Session s(model, options);
    s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {37}, x.data(),
                                           x.size() * 4));
    CHECK(expectStatus(tsc_session_run(s.get()), TSC_STATUS_INTERNAL,
                       {"cuda-scale.tscm: step 0: launching kernel "
                        "'scale_by_two' of tsc_kernel_0_scale (/Mul) failed "
                        "with CUDA_ERROR_LAUNCH_FAILED"}));
  }
  unsetenv("FAKE_CUDA_FAIL");
}

// GEMMs through cuBLASLt: row-major operands as the column-major problem it
// solves, bias and residual epilogues, against make_artifact.py's numbers.
TEST(fake_cuda_gemm) {
  tsc::Model model = tsc::Model::load(path("cuda-gemm.tscm"));
  std::vector<float> x = expectedFloats("gemm_x.npy", 6);
  std::vector<float> expected = expectedFloats("gemm_y_expected.npy", 8);
  std::string idsFile = readFile("gemm_ids.npy");
  std::vector<int64_t> ids(10);
  std::memcpy(ids.data(), idsFile.data() + idsFile.size() - 80, 80);
  tsc::Session s(model);
  long uploads = counter("sync_uploads");
  s.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 3}, x.data(), 24));
  s.bindInput("ids",
              tsc::Tensor::wrapHost(TSC_DTYPE_I64, {2, 5}, ids.data(), 80));
  s.run();
  s.run();
  tsc::Tensor y = s.output("y");
  for (size_t i = 0; i < 8; ++i)
    CHECK(std::fabs(y.data<float>()[i] - expected[i]) < 1e-5f);
  CHECK(std::memcmp(s.output("ids_out").data(), ids.data(), 80) == 0);
  CHECK(counter("matmuls") >= 1 && counter("sync_uploads") == uploads);
  CHECK(counter("tf32_descs") == 0);

  // --precision=tf32 (GEMM flags bit 0): cuBLASLt's fast-TF32 compute type.
  tsc::Model tf32 = tsc::Model::load(path("cuda-gemm-tf32.tscm"));
  tsc::Session t(tf32);
  t.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 3}, x.data(), 24));
  t.bindInput("ids",
              tsc::Tensor::wrapHost(TSC_DTYPE_I64, {2, 5}, ids.data(), 80));
  t.run();
  CHECK(counter("tf32_descs") == 1);
  for (size_t i = 0; i < 8; ++i)
    CHECK(std::fabs(t.output("y").data<float>()[i] - expected[i]) < 1e-5f);

  tsc::Model residual = tsc::Model::load(path("cuda-gemm-residual.tscm"));
  std::vector<float> rx = expectedFloats("residual_x.npy", 6);
  std::vector<float> rr = expectedFloats("residual_r.npy", 8);
  std::vector<float> ry = expectedFloats("residual_y_expected.npy", 8);
  std::vector<float> rz = expectedFloats("residual_z_expected.npy", 8);
  tsc::Session r(residual);
  r.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 3}, rx.data(), 24));
  r.bindInput("r", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 4}, rr.data(), 32));
  r.run();
  for (size_t i = 0; i < 8; ++i) {
    CHECK(std::fabs(r.output("y").data<float>()[i] - ry[i]) < 1e-5f);
    CHECK(std::fabs(r.output("z").data<float>()[i] - rz[i]) < 1e-5f);
  }
  // The same on f16 and bf16 operands (the stand-in cuBLASLt refuses
  // layouts of different types within one matmul).
  checkHalfGemm("f16", TSC_DTYPE_F16, 1.0f / 1024, "cuda-");
  checkHalfGemm("bf16", TSC_DTYPE_BF16, 1.0f / 128, "cuda-");

  // A tanh GELU epilogue (format 1.8) is cuBLASLt's GELU_BIAS (an exact
  // one is refused at load: runtime_tests.cpp).
  tsc::Model gelu = tsc::Model::load(path("cuda-gemm-gelu-tanh.tscm"));
  std::vector<float> gx = expectedFloats("gelu_x.npy", 6);
  std::vector<float> gr = expectedFloats("gelu_r.npy", 8);
  std::vector<float> gz = expectedFloats("gelu_z_expected.npy", 8);
  tsc::Session g(gelu);
  g.bindInput("x", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 3}, gx.data(), 24));
  g.bindInput("r", tsc::Tensor::wrapHost(TSC_DTYPE_F32, {2, 4}, gr.data(), 32));
  g.run();
  for (size_t i = 0; i < 8; ++i) {
    CHECK(std::fabs(g.output("y").data<float>()[i] - gz[i]) < 1e-5f);
    CHECK(std::fabs(g.output("z").data<float>()[i] - gz[i]) < 1e-5f);
  }
}

// An int8 GEMM (format 1.19): cuBLASLt's s8 · s8 -> s32 matmul, the weight
// taken transposed ("TN"), exact against make_artifact.py's sums.
TEST(fake_cuda_int8_gemm) {
  tsc::Model model = tsc::Model::load(path("cuda-gemm-int8.tscm"));
  std::string aFile = readFile("int8_a.npy"),
              cFile = readFile("int8_c_expected.npy");
  std::vector<int32_t> wide(24), expected(12);
  std::memcpy(wide.data(), aFile.data() + aFile.size() - 96, 96);
  std::memcpy(expected.data(), cFile.data() + cFile.size() - 48, 48);
  std::vector<int8_t> a(wide.begin(), wide.end());
  long before = counter("int8_matmuls");
  tsc::Session s(model);
  s.bindInput("a", tsc::Tensor::wrapHost(TSC_DTYPE_I8, {3, 8}, a.data(), 24));
  s.run();
  tsc::Tensor c = s.output("c");
  CHECK(c.dtype() == TSC_DTYPE_I32);
  CHECK(std::memcmp(c.data(), expected.data(), 48) == 0);
  CHECK(counter("int8_matmuls") == before + 1);
}

TEST(fake_cuda_fp8_gemm) {
  tsc::Model model = tsc::Model::load(path("cuda-gemm-fp8.tscm"));
  std::string a = readFile("fp8_a.bin"), cFile = readFile("fp8_c_expected.npy");
  CHECK(a.size() == 48);
  std::vector<float> expected(48);
  std::memcpy(expected.data(), cFile.data() + cFile.size() - 192, 192);
  long before = counter("fp8_matmuls");
  tsc::Session s(model);
  s.bindInput("a",
              tsc::Tensor::wrapHost(TSC_DTYPE_F8E4M3FN, {3, 16}, a.data(), 48));
  s.run();
  tsc::Tensor c = s.output("c");
  CHECK(c.dtype() == TSC_DTYPE_F32);
  CHECK(std::memcmp(c.data(), expected.data(), 192) == 0);
  CHECK(counter("fp8_matmuls") == before + 1);
}

// Runs last: everything the tests made is gone from the device.
TEST(fake_cuda_zz_released) {
  CHECK(counter("live_allocations") == 0);
  CHECK(counter("live_modules") == 0);
  CHECK(counter("contexts") == 0);
}

} // namespace
