//===- cuda_backend.cpp - running a "cuda" plan on an NVIDIA GPU ----------===//
//
// Every driver call goes through cuda_api.h's table, inside the model's
// (primary) context pushed for the duration of one API call, so the
// caller's current context is left as it was. Every failure becomes a
// status naming the call, the driver's error and, for launches, the kernel
// and the nodes it was compiled from.
//
//===----------------------------------------------------------------------===//

#include "cuda_backend.h"

#include "cuda_api.h"
#include "cuda_sparse.h"
#include "internal.h"
#include "model.h"

#include <chrono>
#include <climits>
#include <cstring>
#include <map>
#include <mutex>

namespace tsc::rt {

using namespace cuda;

namespace {

constexpr size_t kWorkspaceBytes = 32u << 20; // cuBLASLt's, per session
constexpr size_t kMaxCachedShapes = 64;

tsc_status_t driverError(const std::string &file, const std::string &what,
                         CUresult result) {
  tsc_status_code_t code = result == 2 /* CUDA_ERROR_OUT_OF_MEMORY */
                               ? TSC_STATUS_RESOURCE_EXHAUSTED
                               : TSC_STATUS_INTERNAL;
  return statusf(code, "%s: %s failed with %s", file.c_str(), what.c_str(),
                 errorName(result).c_str());
}

/// Pushes a context for the lifetime of the scope.
class ContextScope {
public:
  explicit ContextScope(CUcontext context) {
    pushed_ = driver().cuCtxPushCurrent(context) == CUDA_SUCCESS;
  }
  ~ContextScope() {
    CUcontext previous = nullptr;
    if (pushed_)
      driver().cuCtxPopCurrent(&previous);
  }
  bool ok() const { return pushed_; }

private:
  bool pushed_ = false;
};

} // namespace

/// One model on one device.
struct CudaModelState {
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions; // per module
  CUdeviceptr weights = 0;
  int cc = 0; // compute capability, 80 for sm_80
  /// What was loaded: "SASS sm_90" or "PTX sm_90 (JIT)", for messages.
  std::string code;

  ~CudaModelState() {
    if (!context)
      return;
    const Driver &d = driver();
    {
      ContextScope scope(context);
      for (CUmodule module : modules)
        if (module)
          d.cuModuleUnload(module);
      if (weights)
        d.cuMemFree(weights);
    }
    d.cuDevicePrimaryCtxRelease(device);
  }
};

struct CudaModelCache {
  std::mutex mutex;
  std::map<int, std::shared_ptr<CudaModelState>> devices;
};

std::shared_ptr<CudaModelCache> createCudaModelCache() {
  return std::make_shared<CudaModelCache>();
}

namespace {

/// Which of the image's codes runs on a device of compute capability `cc`:
/// SASS of the same major version and a minor no newer than the device's,
/// else the newest PTX no newer than the device (the driver compiles it).
struct Choice {
  size_t chip = 0;
  bool sass = false;
};

bool chooseCode(const CudaImage &image, int cc, Choice &out) {
  bool found = false;
  for (size_t c = 0; c < image.chips.size(); ++c) {
    uint32_t chip = image.chips[c].capability;
    if (chip / 10 == uint32_t(cc) / 10 && chip <= uint32_t(cc) &&
        (!found || !out.sass || chip > image.chips[out.chip].capability)) {
      out = {c, true};
      found = true;
    }
  }
  if (found)
    return true;
  for (size_t c = 0; c < image.chips.size(); ++c) {
    uint32_t chip = image.chips[c].capability;
    if (chip <= uint32_t(cc) &&
        (!found || chip > image.chips[out.chip].capability)) {
      out = {c, false};
      found = true;
    }
  }
  return found;
}

std::string chipList(const CudaImage &image) {
  std::string text;
  for (const CudaImage::Chip &chip : image.chips)
    text += (text.empty() ? "sm_" : ", sm_") + std::to_string(chip.capability);
  return text;
}

tsc_status_t loadModel(const tsc_model_s &model, int index,
                       std::shared_ptr<CudaModelState> &out) {
  const Driver &d = driver();
  const std::string &file = model.artifact.name();
  const CudaImage &image = model.cuda;
  size_t count = 0;
  if (tsc_status_t status = tsc_cuda_device_count(&count)) {
    std::string message = file + ": cannot run a CUDA artifact: " +
                          tsc_status_message(status);
    tsc_status_free(status);
    return makeStatus(TSC_STATUS_UNAVAILABLE, message);
  }
  if (index < 0 || size_t(index) >= count)
    return statusf(TSC_STATUS_OUT_OF_RANGE,
                   "%s: CUDA device %d does not exist (there are %zu)",
                   file.c_str(), index, count);
  auto state = std::make_shared<CudaModelState>();
  int major = 0, minor = 0, version = 0;
  CUresult r = d.cuDeviceGet(&state->device, index);
  if (r == CUDA_SUCCESS)
    r = d.cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, state->device);
  if (r == CUDA_SUCCESS)
    r = d.cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, state->device);
  if (r == CUDA_SUCCESS)
    r = d.cuDriverGetVersion(&version);
  if (r != CUDA_SUCCESS)
    return driverError(file, "querying CUDA device " + std::to_string(index),
                       r);
  int cc = major * 10 + minor;
  state->cc = cc;
  Choice choice;
  if (!chooseCode(image, cc, choice))
    return statusf(TSC_STATUS_UNAVAILABLE,
                   "%s: CUDA device %d is sm_%d; the artifact has code for %s "
                   "only (compile with --target=cuda:sm_%d)",
                   file.c_str(), index, cc, chipList(image).c_str(), cc);
  const CudaImage::Chip &chip = image.chips[choice.chip];
  if (uint32_t(version) < chip.minDriver)
    return statusf(TSC_STATUS_UNAVAILABLE,
                   "%s: the CUDA driver is %d.%d; the code for sm_%u needs "
                   "%u.%u or newer",
                   file.c_str(), version / 1000, version % 1000 / 10,
                   chip.capability, chip.minDriver / 1000,
                   chip.minDriver % 1000 / 10);
  if ((r = d.cuDevicePrimaryCtxRetain(&state->context, state->device)) !=
      CUDA_SUCCESS)
    return driverError(file, "retaining the primary context of device " +
                                 std::to_string(index),
                       r);
  ContextScope scope(state->context);
  if (!scope.ok())
    return makeStatus(TSC_STATUS_INTERNAL, file + ": cannot make the CUDA "
                                                  "context current");
  state->code = (choice.sass ? "SASS sm_" : "PTX sm_") +
                std::to_string(chip.capability) +
                (choice.sass ? "" : " (compiled by the driver)");
  state->modules.assign(image.modules.size(), nullptr);
  state->functions.assign(image.modules.size(), nullptr);
  std::vector<char> copy, log(4096);
  for (size_t m = 0; m < image.modules.size(); ++m) {
    const CudaImage::Module &module = image.modules[m];
    const CudaImage::Code &code = module.code[choice.chip];
    bool sass = choice.sass && code.sassSize;
    // An aligned copy (the driver reads the ELF in place); PTX must end
    // with a NUL.
    const uint8_t *bytes = sass ? code.sass : code.ptx;
    size_t size = sass ? code.sassSize : code.ptxSize;
    if (!bytes || !size)
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: CUDA: module '%s' has no %s for sm_%u (corrupt "
                     "artifact)",
                     file.c_str(), module.name.c_str(), sass ? "SASS" : "PTX",
                     chip.capability);
    copy.assign(bytes, bytes + size);
    copy.push_back(0);
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    std::fill(log.begin(), log.end(), 0);
    void *values[] = {log.data(),
                      reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
    r = d.cuModuleLoadDataEx(&state->modules[m], copy.data(), 2, options,
                             values);
    if (r != CUDA_SUCCESS)
      return statusf(r == 2 ? TSC_STATUS_RESOURCE_EXHAUSTED
                            : TSC_STATUS_UNAVAILABLE,
                     "%s: loading kernel module '%s' (%s sm_%u) failed with "
                     "%s%s%s",
                     file.c_str(), module.name.c_str(), sass ? "SASS" : "PTX",
                     chip.capability, errorName(r).c_str(),
                     log[0] ? ": " : "", log.data());
    r = d.cuModuleGetFunction(&state->functions[m], state->modules[m],
                              module.kernel.c_str());
    if (r != CUDA_SUCCESS)
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: kernel module '%s' has no kernel '%s' (%s; corrupt "
                     "artifact)",
                     file.c_str(), module.name.c_str(), module.kernel.c_str(),
                     errorName(r).c_str());
  }
  // The weights, once per model and device.
  const SectionView &weights = model.artifact.weights();
  if (weights.present && weights.size) {
    if ((r = d.cuMemAlloc(&state->weights, weights.size)) != CUDA_SUCCESS)
      return driverError(file,
                         "allocating " + std::to_string(weights.size) +
                             " bytes of device memory for the weights",
                         r);
    if ((r = d.cuMemcpyHtoD(state->weights, weights.data, weights.size)) !=
        CUDA_SUCCESS)
      return driverError(file, "uploading the weights", r);
  }
  out = std::move(state);
  return nullptr;
}

/// A GEMM step's cuBLASLt descriptors and algorithm at one set of sizes.
struct GemmPlan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool empty = false; // m or n is 0: nothing to do
  /// s8 · s8 -> s32 (format 1.19): int32 alpha and beta.
  bool integer = false;
  /// f8E4M3FN · f8E4M3FN -> f32 (format 1.20).
  bool fp8 = false;
  /// A 2:4 sparse step (cuSPARSELt, no cuBLASLt descriptors): its sizes.
  bool sparse = false;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldc = 0;

  GemmPlan() = default;
  GemmPlan(const GemmPlan &) = delete;
  GemmPlan &operator=(const GemmPlan &) = delete;
  ~GemmPlan() {
    const BlasLt &lt = blasLt();
    for (cublasLtMatrixLayout_t layout : {a, b, c})
      if (layout)
        lt.cublasLtMatrixLayoutDestroy(layout);
    if (desc)
      lt.cublasLtMatmulDescDestroy(desc);
  }
};

/// What one set of symbol values needs: GEMM plans, and the graph captured
/// from the first run with them.
struct Prepared {
  std::vector<std::unique_ptr<GemmPlan>> gemms; // per step (null: not gemm)
  CUgraphExec graph = nullptr;

  ~Prepared() {
    if (graph)
      driver().cuGraphExecDestroy(graph);
  }
};

} // namespace

class CudaSession {
public:
  const tsc_model_s *model = nullptr;
  std::shared_ptr<CudaModelState> state;
  CudaSessionOptions options;
  CUstream stream = nullptr;
  bool ownsStream = false;
  CUdeviceptr arena = 0, workspace = 0;
  std::vector<CUdeviceptr> inputs, outputs; // staging, at the maxima
  cublasLtHandle_t blas = nullptr;
  SparseGemms sparse; // the 2:4 GEMMs' weights (format 1.14)
  std::map<std::vector<int64_t>, std::unique_ptr<Prepared>> prepared;
  std::vector<CUdeviceptr> addresses; // per value, fixed (locateValues)
  // Per run.
  std::vector<uint64_t> argValues;
  std::vector<void *> argPointers;
  std::string lastKernel;

  ~CudaSession() {
    if (!state)
      return;
    const Driver &d = driver();
    ContextScope scope(state->context);
    if (stream)
      d.cuStreamSynchronize(stream);
    prepared.clear();
    sparse.release();
    if (blas)
      blasLt().cublasLtDestroy(blas);
    for (CUdeviceptr p : inputs)
      d.cuMemFree(p);
    for (CUdeviceptr p : outputs)
      d.cuMemFree(p);
    for (CUdeviceptr p : {arena, workspace})
      if (p)
        d.cuMemFree(p);
    if (ownsStream && stream)
      d.cuStreamDestroy(stream);
  }

  const std::string &file() const { return model->artifact.name(); }

  tsc_status_t allocate(CUdeviceptr &out, uint64_t bytes, const char *what) {
    // At least one 256-byte block: the driver refuses size 0.
    CUresult r = driver().cuMemAlloc(&out, bytes > 256 ? bytes : 256);
    if (r != CUDA_SUCCESS)
      return driverError(file(),
                         "allocating " + std::to_string(bytes) +
                             " bytes of device memory for " + what,
                         r);
    return nullptr;
  }

  tsc_status_t prepareGemm(size_t step, const GemmStep &g,
                           const Layout &layout, GemmPlan &plan);
  tsc_status_t enqueueSteps(const Layout &layout, Prepared &prepared,
                            StepTimes *stepTimes,
                            const StepHook &hook = nullptr);
  tsc_status_t launch(size_t step, const LaunchStep &l, const Layout &layout);
  tsc_status_t gemm(size_t step, const GemmStep &g, const GemmPlan &plan);
};

int cudaDevice(const CudaSession &session) { return session.options.device; }

void CudaSessionDeleter::operator()(CudaSession *session) const {
  delete session;
}

tsc_status_t checkCudaPlan(const tsc_model_s &model) {
  const Plan &plan = model.plan;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const GemmStep &g = plan.steps[i].gemm;
    if (plan.steps[i].kind == StepKind::Gemm && g.weightScale != kNone)
      return statusf(TSC_STATUS_UNIMPLEMENTED,
                     "%s: step %zu: %s GEMMs (format %s) run on the host "
                     "only so far",
                     model.artifact.name().c_str(), i,
                     g.weightOnly ? "weight-only" : "int8",
                     g.weightOnly ? "1.15" : "1.10");
    // cuBLASLt adds the bias after beta scales C: (R + bias) · beta is the
    // format's meaning, the same only for beta = 1.
    if (plan.steps[i].kind == StepKind::Gemm && g.residual != kNone &&
        g.bias != kNone && g.beta != 1.0f)
      return statusf(TSC_STATUS_UNIMPLEMENTED,
                     "%s: step %zu: a GEMM with a residual, a bias and beta "
                     "%g is not supported on CUDA",
                     model.artifact.name().c_str(), i, double(g.beta));
    if (plan.steps[i].kind != StepKind::Gemm ||
        GemmActivation(g.activation) == GemmActivation::None)
      continue;
    // cuBLASLt's GELU epilogue is the tanh approximation, and it applies to
    // the whole of alpha·A·B + beta·C + bias: neither an exact GELU nor one
    // followed by a residual is what it computes (tsc writes neither for
    // CUDA targets).
    if (GemmActivation(g.activation) != GemmActivation::GeluTanh)
      return statusf(TSC_STATUS_UNIMPLEMENTED,
                     "%s: step %zu: a GEMM with an exact (erf) GELU epilogue "
                     "is not supported on CUDA (cuBLASLt's GELU is the tanh "
                     "approximation)",
                     model.artifact.name().c_str(), i);
    if (g.residual != kNone || g.beta != 0.0f)
      return statusf(TSC_STATUS_UNIMPLEMENTED,
                     "%s: step %zu: a GEMM with a GELU epilogue and a residual "
                     "(or beta %g) is not supported on CUDA",
                     model.artifact.name().c_str(), i, double(g.beta));
  }
  return nullptr;
}

tsc_status_t createCudaSession(tsc_model_s &model,
                               const CudaSessionOptions &options,
                               CudaSessionPtr &out) {
  const Plan &plan = model.plan;
  const std::string &file = model.artifact.name();
  CudaSessionPtr session(new CudaSession);
  session->model = &model;
  session->options = options;
  {
    std::lock_guard<std::mutex> lock(model.cudaCache->mutex);
    std::shared_ptr<CudaModelState> &state =
        model.cudaCache->devices[options.device];
    if (!state)
      if (tsc_status_t status = loadModel(model, options.device, state)) {
        model.cudaCache->devices.erase(options.device);
        return status;
      }
    session->state = state;
  }
  const Driver &d = driver();
  ContextScope scope(session->state->context);
  CUresult r = CUDA_SUCCESS;
  if (options.stream) {
    session->stream = static_cast<CUstream>(options.stream);
    // The legacy and per-thread default streams cannot be captured.
    uintptr_t handle = reinterpret_cast<uintptr_t>(options.stream);
    if (handle == kStreamLegacy || handle == kStreamPerThread)
      session->options.graphs = false;
  } else {
    if ((r = d.cuStreamCreate(&session->stream, CU_STREAM_NON_BLOCKING)) !=
        CUDA_SUCCESS)
      return driverError(file, "creating a stream", r);
    session->ownsStream = true;
  }
  // Inputs and outputs get staging buffers at their largest size, so that
  // every address a graph captures stays valid.
  std::vector<int64_t> maxima(plan.symbols.size());
  for (size_t j = 0; j < maxima.size(); ++j)
    maxima[j] = plan.symbols[j].max;
  Layout largest;
  if (tsc_status_t status =
          computeLayout(model, maxima.data(), largest, /*bounds=*/true))
    return status;
  session->inputs.assign(plan.inputs.size(), 0);
  session->outputs.assign(plan.outputs.size(), 0);
  tsc_status_t status = nullptr;
  for (size_t i = 0; i < plan.inputs.size() && !status; ++i)
    status = session->allocate(session->inputs[i],
                               largest.bytes[plan.inputs[i].value],
                               ("input '" + plan.inputs[i].name + "'").c_str());
  for (size_t i = 0; i < plan.outputs.size() && !status; ++i)
    status = session->allocate(
        session->outputs[i], largest.bytes[plan.outputs[i].value],
        ("output '" + plan.outputs[i].name + "'").c_str());
  if (status ||
      (status = session->allocate(session->arena, plan.arenaSize, "the arena")))
    return status;
  if (model.hasGemm) {
    const BlasLt &lt = blasLt();
    if (!lt.error.empty())
      return makeStatus(TSC_STATUS_UNAVAILABLE,
                        file + ": the plan's GEMMs need cuBLASLt: " + lt.error);
    if (cublasStatus_t b = lt.cublasLtCreate(&session->blas);
        b != CUBLAS_STATUS_SUCCESS)
      return statusf(TSC_STATUS_UNAVAILABLE, "%s: cublasLtCreate failed with %s",
                     file.c_str(), blasStatusName(b).c_str());
    if ((status = session->allocate(session->workspace, kWorkspaceBytes,
                                    "cuBLASLt's workspace")))
      return status;
    // 2:4 GEMMs: cuSPARSELt compresses their weights now, from WGHT.
    if ((status = session->sparse.prepare(
             file, plan,
             static_cast<const uint8_t *>(model.artifact.weights().data),
             session->state->cc, session->stream)))
      return status;
  }
  // Every value's device address, fixed for the session's life.
  CudaSession &s = *session;
  locateValues(
      plan, s.state->weights, s.arena, [&](uint32_t i) { return s.inputs[i]; },
      [&](uint32_t i) { return s.outputs[i]; }, s.addresses);
  out = std::move(session);
  return nullptr;
}

tsc_status_t CudaSession::prepareGemm(size_t step, const GemmStep &g,
                                      const Layout &layout, GemmPlan &plan) {
  const BlasLt &lt = blasLt();
  const std::vector<int64_t> &e = layout.exprValues;
  int64_t batch = e[g.batch], m = e[g.m], n = e[g.n], k = e[g.k];
  if (m == 0 || n == 0 || batch == 0) {
    plan.empty = true;
    return nullptr;
  }
  if (g.sparse24) {
    if (batch != 1)
      return statusf(TSC_STATUS_INTERNAL,
                     "%s: step %zu (2:4 gemm): batch %lld (only 1 runs "
                     "sparse)",
                     file().c_str(), step, static_cast<long long>(batch));
    plan.sparse = true;
    plan.m = m, plan.n = n, plan.k = k, plan.lda = e[g.lda],
    plan.ldc = e[g.ldc];
    return nullptr;
  }
  // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: cuBLASLt's
  // "A" is our B (n × k after its op) and its "B" our A (k × m after its
  // op); the bias runs along cuBLASLt's rows, our n.
  int32_t transLtA = g.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  int32_t transLtB = g.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  // checkCudaPlan let through no activation but the tanh GELU.
  bool gelu = GemmActivation(g.activation) == GemmActivation::GeluTanh;
  uint32_t epilogue =
      g.bias != kNone
          ? (gelu ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_BIAS)
          : (gelu ? CUBLASLT_EPILOGUE_GELU : CUBLASLT_EPILOGUE_DEFAULT);
  // fp32 compute and scale on f32, f16 or bf16 operands (all alike, checked
  // at load); TF32 only where the plan allows it (--precision=tf32). An s32
  // C (format 1.19) is cuBLASLt's int8 GEMM: s8 A and B (the weight
  // transposed, "TN" in cuBLASLt's terms, checked at load), s32 compute
  // and scale, nothing in the epilogue. f8E4M3FN A and B (1.20) are its
  // fp8 GEMM: "TN" too, f32 C, compute and scale, sm_89 and later.
  uint8_t dtype = model->plan.values[g.c].dtype;
  plan.integer = dtype == TSC_DTYPE_I32;
  plan.fp8 = model->plan.values[g.a].dtype == TSC_DTYPE_F8E4M3FN;
  if ((plan.integer || plan.fp8) && batch != 1)
    return statusf(TSC_STATUS_INTERNAL,
                   "%s: step %zu (%s gemm): batch %lld (only 1 runs so)",
                   file().c_str(), step, plan.fp8 ? "fp8" : "int8",
                   static_cast<long long>(batch));
  if (plan.fp8 && state->cc < 89)
    return statusf(TSC_STATUS_UNIMPLEMENTED,
                   "%s: step %zu (fp8 gemm): this GPU (sm_%d) has no fp8 "
                   "tensor cores; cuBLASLt's fp8 GEMMs need sm_89 or later "
                   "(compile without --quantize=fp8 for it)",
                   file().c_str(), step, state->cc);
  int dataType = plan.integer              ? CUDA_R_8I
                 : plan.fp8                ? CUDA_R_8F_E4M3
                 : dtype == TSC_DTYPE_F16  ? CUDA_R_16F
                 : dtype == TSC_DTYPE_BF16 ? CUDA_R_16BF
                                           : CUDA_R_32F;
  int cType = plan.integer ? CUDA_R_32I : plan.fp8 ? CUDA_R_32F : dataType;
  int64_t elementBytes = plan.integer || plan.fp8 ? 1
                         : dataType == CUDA_R_32F ? 4
                                                  : 2;
  int64_t cBytes = plan.integer || plan.fp8 ? 4 : elementBytes;
  bool tf32 = g.tf32 && dataType == CUDA_R_32F;
  cublasStatus_t s =
      lt.cublasLtMatmulDescCreate(&plan.desc,
                                  plan.integer ? CUBLAS_COMPUTE_32I
                                  : tf32       ? CUBLAS_COMPUTE_32F_FAST_TF32
                                               : CUBLAS_COMPUTE_32F,
                                  plan.integer ? CUDA_R_32I : CUDA_R_32F);
  auto layoutOf = [&](cublasLtMatrixLayout_t &out, int type, int64_t rows,
                      int64_t cols, int64_t ld, int64_t stride) {
    if (s == CUBLAS_STATUS_SUCCESS)
      s = lt.cublasLtMatrixLayoutCreate(&out, type, uint64_t(rows),
                                        uint64_t(cols), ld);
    int32_t count = int32_t(batch);
    if (s == CUBLAS_STATUS_SUCCESS && batch > 1)
      s = lt.cublasLtMatrixLayoutSetAttribute(
          out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count));
    if (s == CUBLAS_STATUS_SUCCESS && batch > 1)
      s = lt.cublasLtMatrixLayoutSetAttribute(
          out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
          sizeof(stride));
  };
  if (s == CUBLAS_STATUS_SUCCESS)
    s = lt.cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                          &transLtA, sizeof(transLtA));
  if (s == CUBLAS_STATUS_SUCCESS)
    s = lt.cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                          &transLtB, sizeof(transLtB));
  if (s == CUBLAS_STATUS_SUCCESS)
    s = lt.cublasLtMatmulDescSetAttribute(
        plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
  // Stored shapes (column-major view of the row-major matrices).
  layoutOf(plan.a, dataType, g.transB ? k : n, g.transB ? n : k, e[g.ldb],
           e[g.strideB]);
  layoutOf(plan.b, dataType, g.transA ? m : k, g.transA ? k : m, e[g.lda],
           e[g.strideA]);
  layoutOf(plan.c, cType, n, m, e[g.ldc], e[g.strideC]);
  if (s != CUBLAS_STATUS_SUCCESS)
    return statusf(TSC_STATUS_INTERNAL,
                   "%s: step %zu (gemm): describing the matmul to cuBLASLt "
                   "failed with %s",
                   file().c_str(), step, blasStatusName(s).c_str());
  cublasLtMatmulPreference_t preference = nullptr;
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  uint64_t workspaceBytes = kWorkspaceBytes;
  s = lt.cublasLtMatmulPreferenceCreate(&preference);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = lt.cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
        sizeof(workspaceBytes));
  // The operands' actual alignment (the session's addresses are fixed):
  // cuBLASLt otherwise assumes 256 bytes and may pick algorithms that refuse
  // the arena's 64-byte offsets. cuBLASLt's A, B, C, D are our B, A, the
  // residual (or C) and C.
  auto alignment = [&](uint32_t value, uint32_t stride, int64_t size) {
    uint64_t address = addresses[value];
    uint64_t strideBytes = uint64_t(e[stride]) * uint64_t(size);
    uint32_t bytes = 256;
    while (bytes > size &&
           (address % bytes || (batch > 1 && strideBytes % bytes)))
      bytes /= 2;
    return bytes;
  };
  uint32_t alignments[4] = {
      alignment(g.b, g.strideB, elementBytes),
      alignment(g.a, g.strideA, elementBytes),
      alignment(g.residual != kNone ? g.residual : g.c, g.strideC, cBytes),
      alignment(g.c, g.strideC, cBytes)};
  for (int i = 0; i < 4 && s == CUBLAS_STATUS_SUCCESS; ++i)
    s = lt.cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + i,
        &alignments[i], sizeof(alignments[i]));
  if (s == CUBLAS_STATUS_SUCCESS)
    s = lt.cublasLtMatmulAlgoGetHeuristic(blas, plan.desc, plan.a, plan.b,
                                          plan.c, plan.c, preference, 1,
                                          &result, &found);
  if (preference)
    lt.cublasLtMatmulPreferenceDestroy(preference);
  if (s != CUBLAS_STATUS_SUCCESS || found == 0)
    return statusf(TSC_STATUS_UNIMPLEMENTED,
                   "%s: step %zu (gemm %lldx%lldx%lld, batch %lld): cuBLASLt "
                   "has no algorithm for it (%s)",
                   file().c_str(), step, static_cast<long long>(m),
                   static_cast<long long>(n), static_cast<long long>(k),
                   static_cast<long long>(batch),
                   s != CUBLAS_STATUS_SUCCESS ? blasStatusName(s).c_str()
                                              : "none found");
  plan.algo = result.algo;
  return nullptr;
}

tsc_status_t CudaSession::gemm(size_t step, const GemmStep &g,
                               const GemmPlan &plan) {
  if (plan.empty)
    return nullptr;
  CUdeviceptr bias = g.bias != kNone ? addresses[g.bias] : 0;
  if (plan.sparse)
    return sparse.run(file(), step, g, model->plan.values[g.c].dtype, plan.m,
                      plan.n, plan.k, plan.lda, plan.ldc, addresses[g.a], bias,
                      g.residual != kNone ? addresses[g.residual]
                                          : addresses[g.c],
                      addresses[g.c], workspace, kWorkspaceBytes, stream);
  const BlasLt &lt = blasLt();
  cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
  if (bias)
    s = lt.cublasLtMatmulDescSetAttribute(
        plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
  // D = alpha·op(A)·op(B) + beta·C (+ bias): C is the residual when there is
  // one (possibly D itself), else D.
  CUdeviceptr c = addresses[g.c];
  CUdeviceptr r = g.residual != kNone ? addresses[g.residual] : c;
  const void *a = reinterpret_cast<const void *>(uintptr_t(addresses[g.a]));
  const void *b = reinterpret_cast<const void *>(uintptr_t(addresses[g.b]));
  // The scale type's alpha and beta: int32 1 and 0 for an int8 GEMM (its
  // alpha and beta are 1 and 0, checked at load).
  static const int32_t kOne = 1, kZero = 0;
  const void *alpha = plan.integer ? static_cast<const void *>(&kOne)
                                   : static_cast<const void *>(&g.alpha);
  const void *beta = plan.integer ? static_cast<const void *>(&kZero)
                                  : static_cast<const void *>(&g.beta);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = lt.cublasLtMatmul(blas, plan.desc, alpha, b, plan.a, a, plan.b, beta,
                          reinterpret_cast<const void *>(uintptr_t(r)), plan.c,
                          reinterpret_cast<void *>(uintptr_t(c)), plan.c,
                          &plan.algo,
                          reinterpret_cast<void *>(uintptr_t(workspace)),
                          kWorkspaceBytes, stream);
  if (s != CUBLAS_STATUS_SUCCESS)
    return statusf(TSC_STATUS_INTERNAL,
                   "%s: step %zu (gemm): cublasLtMatmul failed with %s",
                   file().c_str(), step, blasStatusName(s).c_str());
  return nullptr;
}

tsc_status_t CudaSession::launch(size_t step, const LaunchStep &l,
                                 const Layout &layout) {
  const std::vector<int64_t> &e = layout.exprValues;
  const CudaImage::Module &module = model->cuda.modules[l.module];
  int64_t grid[3], block[3];
  for (int i = 0; i < 3; ++i) {
    grid[i] = e[l.grid[i]];
    block[i] = e[l.block[i]];
  }
  // An empty grid has no work (the driver would refuse it).
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return nullptr;
  const int64_t gridLimit[3] = {INT_MAX, 65535, 65535};
  for (int i = 0; i < 3; ++i)
    if (grid[i] < 0 || grid[i] > gridLimit[i] || block[i] < 1 ||
        block[i] > 1024 || block[0] * block[1] * block[2] > 1024)
      return statusf(TSC_STATUS_OUT_OF_RANGE,
                     "%s: step %zu: kernel '%s' of %s would launch a grid of "
                     "%lldx%lldx%lld blocks of %lldx%lldx%lld threads, past "
                     "the device's limits",
                     file().c_str(), step, module.kernel.c_str(),
                     l.source.c_str(), static_cast<long long>(grid[0]),
                     static_cast<long long>(grid[1]),
                     static_cast<long long>(grid[2]),
                     static_cast<long long>(block[0]),
                     static_cast<long long>(block[1]),
                     static_cast<long long>(block[2]));
  argValues.resize(l.args.size());
  argPointers.resize(l.args.size());
  for (size_t a = 0; a < l.args.size(); ++a) {
    const LaunchStep::Arg &arg = l.args[a];
    argValues[a] = arg.kind == LaunchStep::ArgKind::Pointer
                       ? uint64_t(addresses[arg.index])
                       : uint64_t(e[arg.index]);
    argPointers[a] = &argValues[a];
  }
  lastKernel = module.kernel + " (" + l.source + ")";
  CUresult r = driver().cuLaunchKernel(
      state->functions[l.module], unsigned(grid[0]), unsigned(grid[1]),
      unsigned(grid[2]), unsigned(block[0]), unsigned(block[1]),
      unsigned(block[2]), 0, stream, argPointers.data(), nullptr);
  if (r != CUDA_SUCCESS)
    return statusf(TSC_STATUS_INTERNAL,
                   "%s: step %zu: launching kernel '%s' of %s failed with %s",
                   file().c_str(), step, module.kernel.c_str(),
                   l.source.c_str(), errorName(r).c_str());
  return nullptr;
}

tsc_status_t CudaSession::enqueueSteps(const Layout &layout, Prepared &prepared,
                                       StepTimes *stepTimes,
                                       const StepHook &hook) {
  using Clock = std::chrono::steady_clock;
  const Driver &d = driver();
  const Plan &plan = model->plan;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &s = plan.steps[i];
    Clock::time_point start = Clock::now();
    tsc_status_t status = nullptr;
    switch (s.kind) {
    case StepKind::Launch:
      status = launch(i, s.launch, layout);
      break;
    case StepKind::Gemm:
      status = gemm(i, s.gemm, *prepared.gemms[i]);
      break;
    case StepKind::Copy: {
      CUdeviceptr from = addresses[s.source], to = addresses[s.destination];
      uint64_t bytes = layout.bytes[s.source];
      if (from == to || bytes == 0)
        break;
      if (from < to + bytes && to < from + bytes)
        return statusf(TSC_STATUS_UNIMPLEMENTED,
                       "%s: step %zu (copy) copies between overlapping views",
                       file().c_str(), i);
      if (CUresult r = d.cuMemcpyDtoDAsync(to, from, bytes, stream);
          r != CUDA_SUCCESS)
        return driverError(file(), "step " + std::to_string(i) + " (copy)", r);
      break;
    }
    case StepKind::Kernel:
      return statusf(TSC_STATUS_INTERNAL, "%s: step %zu: a host kernel in a "
                                          "CUDA plan", file().c_str(), i);
    }
    if (status)
      return status;
    if (stepTimes) {
      // Profiling: each step on its own, so errors name their step too.
      if (CUresult r = d.cuStreamSynchronize(stream); r != CUDA_SUCCESS)
        return statusf(TSC_STATUS_INTERNAL, "%s: step %zu (%s) failed on the "
                                            "device with %s",
                       file().c_str(), i,
                       s.kind == StepKind::Launch ? lastKernel.c_str() : "gemm",
                       errorName(r).c_str());
      stepTimes->record(i, start, Clock::now());
    }
    if (!hook || !plan.definesAfter[i])
      continue;
    // Format 1.8: symbols read from what the step computed. The hook copies
    // the elements back (synchronously), and the GEMMs after the step are
    // planned at the new sizes.
    if (CUresult r = d.cuStreamSynchronize(stream); r != CUDA_SUCCESS)
      return statusf(TSC_STATUS_INTERNAL,
                     "%s: step %zu failed on the device with %s",
                     file().c_str(), i, errorName(r).c_str());
    if ((status = hook(i)))
      return status;
    for (size_t j = i + 1; j < plan.steps.size(); ++j)
      if (plan.steps[j].kind == StepKind::Gemm &&
          (status =
               prepareGemm(j, plan.steps[j].gemm, layout, *prepared.gemms[j])))
        return status;
  }
  return nullptr;
}

bool readCudaElement(CudaSession &session, uint32_t value, uint8_t dtype,
                     uint32_t element, int64_t &out, const char *&error) {
  const Driver &d = driver();
  size_t bytes = dtypeBits(dtype) / 8;
  uint8_t host[8] = {};
  if (bytes == 0 || bytes > sizeof(host)) {
    error = "the value is not of a numeric type";
    return false;
  }
  ContextScope scope(session.state->context);
  if (!scope.ok() ||
      d.cuMemcpyDtoHAsync(host, session.addresses[value] + element * bytes,
                          bytes, session.stream) != CUDA_SUCCESS ||
      d.cuStreamSynchronize(session.stream) != CUDA_SUCCESS) {
    error = "copying the element from the device failed";
    return false;
  }
  if (!loadIntegerElement(dtype, host, 0, out)) {
    error = "the element is not a number that fits an i64";
    return false;
  }
  return true;
}

tsc_status_t runCuda(CudaSession &session, const Layout &layout,
                     const int64_t *symbols,
                     const std::vector<CudaBuffer> &inputs,
                     const std::vector<CudaBuffer> &outputs,
                     StepTimes *stepTimes, const StepHook &hook) {
  const Driver &d = driver();
  const tsc_model_s &model = *session.model;
  const Plan &plan = model.plan;
  const std::string &file = session.file();
  ContextScope scope(session.state->context);
  if (!scope.ok())
    return makeStatus(TSC_STATUS_INTERNAL,
                      file + ": cannot make the CUDA context current");
  // A run copies pageable host memory and synchronizes, which a capture in
  // progress on the caller's stream does not allow.
  int capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!session.ownsStream &&
      (d.cuStreamIsCapturing(session.stream, &capturing) != CUDA_SUCCESS ||
       capturing != CU_STREAM_CAPTURE_STATUS_NONE))
    return makeStatus(TSC_STATUS_FAILED_PRECONDITION,
                      file + ": the caller's CUDA stream is being captured (or "
                             "cannot be queried); a run copies host memory and "
                             "waits for the stream, which capture forbids");

  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    uint64_t bytes = layout.bytes[plan.inputs[i].value];
    if (!bytes)
      continue;
    // Caller device memory is copied too: the staging buffers' addresses are
    // the ones a captured graph uses.
    CUresult r = inputs[i].device
                     ? d.cuMemcpyDtoDAsync(session.inputs[i],
                                           CUdeviceptr(uintptr_t(inputs[i].data)),
                                           bytes, session.stream)
                     : d.cuMemcpyHtoDAsync(session.inputs[i], inputs[i].data,
                                           bytes, session.stream);
    if (r != CUDA_SUCCESS)
      return driverError(file, "copying input '" + plan.inputs[i].name +
                                   "' to the device",
                         r);
  }

  // GEMM plans (and the graph) per set of symbol values. A plan defining
  // symbols between steps (format 1.8) knows them only during the run: it
  // plans its GEMMs then, and runs without a graph.
  std::vector<int64_t> key(symbols, symbols + plan.symbols.size());
  if (hook)
    session.prepared.erase(key);
  auto it = session.prepared.find(key);
  if (it == session.prepared.end()) {
    // Runs synchronize before returning: no graph dropped here is in use.
    if (session.prepared.size() >= kMaxCachedShapes)
      session.prepared.clear();
    auto fresh = std::make_unique<Prepared>();
    fresh->gemms.resize(plan.steps.size());
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      if (plan.steps[i].kind != StepKind::Gemm)
        continue;
      fresh->gemms[i] = std::make_unique<GemmPlan>();
      if (tsc_status_t status = session.prepareGemm(i, plan.steps[i].gemm,
                                                    layout, *fresh->gemms[i]))
        return status;
    }
    it = session.prepared.emplace(key, std::move(fresh)).first;
  }
  Prepared &ready = *it->second;

  tsc_status_t status = nullptr;
  if (session.options.graphs && !stepTimes && !hook) {
    if (!ready.graph) {
      CUresult r = d.cuStreamBeginCapture(session.stream,
                                          CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
      if (r != CUDA_SUCCESS)
        return driverError(file, "beginning a CUDA graph capture", r);
      status = session.enqueueSteps(layout, ready, nullptr);
      CUgraph graph = nullptr;
      r = d.cuStreamEndCapture(session.stream, &graph);
      if (!status && r != CUDA_SUCCESS)
        status = driverError(file, "capturing the run in a CUDA graph", r);
      if (!status &&
          (r = d.cuGraphInstantiateWithFlags(&ready.graph, graph, 0)) !=
              CUDA_SUCCESS)
        status = driverError(file, "instantiating the run's CUDA graph", r);
      if (graph)
        d.cuGraphDestroy(graph);
      if (status)
        return status;
    }
    if (CUresult r = d.cuGraphLaunch(ready.graph, session.stream);
        r != CUDA_SUCCESS)
      return driverError(file, "launching the run's CUDA graph", r);
  } else if ((status = session.enqueueSteps(layout, ready, stepTimes, hook))) {
    d.cuStreamSynchronize(session.stream);
    return status;
  }

  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    uint64_t bytes = layout.bytes[plan.outputs[i].value];
    if (!bytes)
      continue;
    CUresult r = outputs[i].device
                     ? d.cuMemcpyDtoDAsync(CUdeviceptr(uintptr_t(outputs[i].data)),
                                           session.outputs[i], bytes,
                                           session.stream)
                     : d.cuMemcpyDtoHAsync(outputs[i].data, session.outputs[i],
                                           bytes, session.stream);
    if (r != CUDA_SUCCESS)
      return driverError(file, "copying output '" + plan.outputs[i].name +
                                   "' from the device",
                         r);
  }
  if (CUresult r = d.cuStreamSynchronize(session.stream); r != CUDA_SUCCESS)
    return statusf(TSC_STATUS_INTERNAL,
                   "%s: the run failed on the device with %s (the last kernel "
                   "launched was %s; run with profiling on to find the step)",
                   file.c_str(), errorName(r).c_str(),
                   session.lastKernel.c_str());
  return nullptr;
}

} // namespace tsc::rt
