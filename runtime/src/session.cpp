//===- session.cpp - sessions: binding, symbol resolution, runs -----------===//

#include "cuda_backend.h"
#include "executor.h"
#include "host_gemm.h"
#include "internal.h"
#include "model.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <unistd.h>

using namespace tsc::rt;

struct tsc_session_s {
  std::atomic<int32_t> refs{1};
  std::atomic<bool> running{false};
  tsc_model_t *model = nullptr;
  int threads = 1;
  void *arena = nullptr;
  std::vector<tsc_tensor_t *> inputs;       // bound, retained
  std::vector<tsc_tensor_t *> boundOutputs; // caller's, retained
  std::vector<tsc_tensor_t *> outputs;      // the last run's, retained
  bool haveOutputs = false;
  // Per-run state, kept to avoid allocating on every run.
  std::vector<int64_t> symbols;
  // Format 1.8, per symbol: defined after a step and not yet in this run.
  std::vector<bool> pending;
  std::vector<int64_t>
      binder; // per symbol: input * 2^32 + dim, -1 when unbound
  Layout layout;
  std::vector<void *> addresses, scratch;
  // Host models with GEMM steps: their oneDNN primitives and weights.
  std::unique_ptr<HostGemms> gemms;
  mutable std::string gemmLibrary; // tsc_session_gemm_library's text
  bool profile = false;
  StepTimes stepTimes; // ms per step: summed over runs, and the last run's
  uint64_t runs = 0;
  // CUDA models: the device side; the host arena is not allocated.
  CudaSessionPtr cuda;
  std::vector<CudaBuffer> cudaInputs, cudaOutputs;

  ~tsc_session_s() {
    cuda.reset(); // device memory before the model (and its context)
    for (auto *list : {&inputs, &boundOutputs, &outputs})
      for (tsc_tensor_t *t : *list)
        tsc_tensor_release(t);
    std::free(arena);
    tsc_model_release(model);
  }
};

namespace {

/// A session's thread count is at most this many per online core.
constexpr long kMaxThreadsPerCore = 4;

std::string shapeText(const int64_t *dims, size_t rank) {
  std::string text = "[";
  for (size_t d = 0; d < rank; ++d)
    text +=
        formatString(d ? ", %lld" : "%lld", static_cast<long long>(dims[d]));
  return text + "]";
}

// NOT_FOUND naming the valid names.
tsc_status_t unknownName(const std::vector<Port> &ports, const char *what,
                         const char *name) {
  std::string valid;
  for (const Port &p : ports)
    valid += (valid.empty() ? "'" : ", '") + p.name + "'";
  return statusf(TSC_STATUS_NOT_FOUND, "no %s named '%s'; the %ss are %s", what,
                 name, what, valid.empty() ? "none" : valid.c_str());
}

tsc_status_t findPort(const std::vector<Port> &ports, const char *what,
                      const char *name, size_t &index) {
  if (!name)
    return statusf(TSC_STATUS_INVALID_ARGUMENT, "%s name is NULL", what);
  for (index = 0; index < ports.size(); ++index)
    if (ports[index].name == name)
      return nullptr;
  return unknownName(ports, what, name);
}

// Where a bound tensor's memory may be: host memory for every session, CUDA
// memory of the session's device for CUDA models.
tsc_status_t checkLocation(const tsc_session_s &s, const char *what,
                           const std::string &name, const tsc_tensor_t *t) {
  if (t->location == TSC_LOCATION_HOST)
    return nullptr;
  if (!s.cuda)
    return statusf(TSC_STATUS_INVALID_ARGUMENT,
                   "%s '%s' is in CUDA memory; this model runs on the CPU "
                   "(pass host memory)",
                   what, name.c_str());
  if (int device = cudaDevice(*s.cuda); t->device != device)
    return statusf(TSC_STATUS_INVALID_ARGUMENT,
                   "%s '%s' is in the memory of CUDA device %d; the session "
                   "runs on device %d",
                   what, name.c_str(), int(t->device), device);
  return nullptr;
}

tsc_status_t checkKind(const char *what, const std::string &name,
                       const Value &value, const tsc_tensor_t *t) {
  if (t->dtype != tsc_dtype_t(value.dtype))
    return statusf(TSC_STATUS_INVALID_ARGUMENT,
                   "%s '%s' has dtype %s, expected %s", what, name.c_str(),
                   tsc_dtype_name(t->dtype),
                   tsc_dtype_name(tsc_dtype_t(value.dtype)));
  if (t->dims.size() != value.dims.size())
    return statusf(TSC_STATUS_INVALID_ARGUMENT,
                   "%s '%s' has rank %zu, expected %zu", what, name.c_str(),
                   t->dims.size(), value.dims.size());
  return nullptr;
}

void replace(tsc_tensor_t *&slot, tsc_tensor_t *tensor) {
  tsc_tensor_retain(tensor);
  tsc_tensor_release(slot);
  slot = tensor;
}

// Reads the elements of bound inputs for symbol definitions: integer inputs
// the caller passed in host memory (like TensorRT's shape tensors); and
// (format 1.8) elements of values earlier steps of the run computed.
struct InputElements final : ElementReader {
  const tsc_session_s &s;
  explicit InputElements(const tsc_session_s &s) : s(s) {}
  bool readValue(uint32_t value, uint32_t element, int64_t &out,
                 const char *&error) const override {
    uint8_t dtype = s.model->plan.values[value].dtype;
    if (int64_t(element) >= s.layout.elements[value]) {
      error = "the value has fewer elements";
      return false;
    }
    if (s.cuda)
      return readCudaElement(*s.cuda, value, dtype, element, out, error);
    if (!loadIntegerElement(dtype, s.addresses[value], element, out)) {
      error = "the element is not a number that fits an i64";
      return false;
    }
    return true;
  }
  bool read(uint32_t input, uint32_t element, int64_t &out,
            const char *&error) const override {
    const tsc_tensor_t *t = s.inputs[input];
    if (t->location != TSC_LOCATION_HOST) {
      error = "the input is in device memory; inputs that give shapes or "
              "axes must be in host memory";
      return false;
    }
    if (!loadIntegerElement(uint8_t(t->dtype), t->data, element, out)) {
      error = "the element is not a number that fits an i64";
      return false;
    }
    return true;
  }
};

// The step's kernel or source nodes, for messages.
std::string stepName(const Plan &plan, uint32_t i) {
  const Step &step = plan.steps[i];
  std::string what = step.kind == StepKind::Kernel   ? step.function
                     : step.kind == StepKind::Launch ? step.launch.source
                     : step.kind == StepKind::Gemm   ? std::string("gemm")
                                                     : std::string("copy");
  return formatString("step %u (%s)", i, what.c_str());
}

// Format 1.6: evaluates the symbols defined from the inputs' data and other
// symbols, in order, each checked against its range: those defined before
// the first step (`after` = kNone) or (format 1.8) after step `after`,
// which computed the value they read.
tsc_status_t defineSymbols(tsc_session_s &s, uint32_t after) {
  const Plan &plan = s.model->plan;
  InputElements reader(s);
  for (uint32_t j : plan.definitionOrder) {
    const Symbol &sym = plan.symbols[j];
    if (sym.afterStep != after)
      continue;
    int64_t value = 0;
    const char *error = nullptr;
    uint32_t input = 0, element = 0;
    bool read = isElementRead(sym.definition, input, element);
    std::vector<std::pair<uint32_t, uint32_t>> computed =
        elementReads(sym.definition, /*values=*/true);
    std::string from =
        read ? formatString("input '%s' element %u",
                            plan.inputs[input].name.c_str(), element)
        : computed.size() == 1 && sym.definition.size == 9
            ? formatString("element %u of the value computed by %s",
                           computed[0].second, stepName(plan, after).c_str())
            : printExpr(sym.definition, plan.symbols);
    if (!evalExpr(sym.definition, s.symbols.data(), value, error, &reader))
      return statusf(TSC_STATUS_INVALID_ARGUMENT,
                     "symbol '%s' (%s) cannot be evaluated: %s",
                     sym.name.c_str(), from.c_str(), error);
    if (value < sym.min || value > sym.max)
      return statusf(
          TSC_STATUS_OUT_OF_RANGE,
          "symbol '%s' (%s) is %lld, outside [%lld, %lld]", sym.name.c_str(),
          from.c_str(), static_cast<long long>(value),
          static_cast<long long>(sym.min), static_cast<long long>(sym.max));
    s.symbols[j] = value;
    s.pending[j] = false;
  }
  return nullptr;
}

// Whether a dim of value `v` uses a symbol the run has not defined yet.
bool isPending(const tsc_session_s &s, const Value &v) {
  for (uint32_t d : v.dims)
    for (uint32_t j : exprSymbols(s.model->plan.exprs[d]))
      if (s.pending[j])
        return true;
  return false;
}

// Binds every symbol from the inputs' bare-symbol dims
// (docs/artifact-format.md, "Symbols from inputs"), then checks every other
// input dim against its expression.
tsc_status_t resolveInputs(tsc_session_s &s) {
  const tsc_model_s &model = *s.model;
  const Plan &plan = model.plan;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const Port &p = plan.inputs[i];
    if (!s.inputs[i])
      return statusf(TSC_STATUS_FAILED_PRECONDITION, "input '%s' is not bound",
                     p.name.c_str());
    if (tsc_status_t status =
            checkKind("input", p.name, plan.values[p.value], s.inputs[i]))
      return status;
  }
  s.binder.assign(plan.symbols.size(), -1);
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const Value &v = plan.values[plan.inputs[i].value];
    const int64_t *dims = s.inputs[i]->dims.data();
    for (size_t d = 0; d < v.dims.size(); ++d) {
      int64_t j = plan.exprs[v.dims[d]].bareSymbol;
      if (j < 0)
        continue;
      const Symbol &sym = plan.symbols[size_t(j)];
      const char *input = plan.inputs[i].name.c_str();
      int64_t binder = s.binder[size_t(j)];
      if (binder >= 0) {
        if (dims[d] != s.symbols[size_t(j)])
          return statusf(
              TSC_STATUS_INVALID_ARGUMENT,
              "input '%s' dim %zu (%s) is %lld, but input '%s' dim %lld sets "
              "%s to %lld",
              input, d, sym.name.c_str(), static_cast<long long>(dims[d]),
              plan.inputs[size_t(binder >> 32)].name.c_str(),
              static_cast<long long>(binder & 0xFFFFFFFF), sym.name.c_str(),
              static_cast<long long>(s.symbols[size_t(j)]));
        continue;
      }
      if (dims[d] < sym.min || dims[d] > sym.max)
        return statusf(
            TSC_STATUS_OUT_OF_RANGE,
            "input '%s' dim %zu (%s) is %lld, outside [%lld, %lld]", input, d,
            sym.name.c_str(), static_cast<long long>(dims[d]),
            static_cast<long long>(sym.min), static_cast<long long>(sym.max));
      s.symbols[size_t(j)] = dims[d];
      s.binder[size_t(j)] = int64_t(i << 32 | d);
    }
  }
  if (tsc_status_t status = defineSymbols(s, kNone))
    return status;
  // Symbols defined after a step stand at their maxima until then (format
  // 1.8): the layout's sizes are bounds, checked in full once all are known.
  bool late = false;
  for (size_t j = 0; j < plan.symbols.size(); ++j) {
    s.pending[j] = plan.symbols[j].afterStep != kNone;
    if (s.pending[j]) {
      s.symbols[j] = plan.symbols[j].max;
      late = true;
    }
  }
  if (tsc_status_t status =
          computeLayout(model, s.symbols.data(), s.layout, /*bounds=*/late))
    return status;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const Value &v = plan.values[plan.inputs[i].value];
    const int64_t *dims = s.inputs[i]->dims.data();
    for (size_t d = 0; d < v.dims.size(); ++d) {
      const Expr &e = plan.exprs[v.dims[d]];
      int64_t expected = s.layout.exprValues[v.dims[d]];
      if (e.bareSymbol >= 0 || dims[d] == expected)
        continue;
      std::string why = e.constant
                            ? std::string()
                            : " = " + printExpr(e, plan.symbols) + " at " +
                                  describeSymbols(plan, s.symbols.data());
      return statusf(TSC_STATUS_INVALID_ARGUMENT,
                     "input '%s' dim %zu is %lld, expected %lld%s",
                     plan.inputs[i].name.c_str(), d,
                     static_cast<long long>(dims[d]),
                     static_cast<long long>(expected), why.c_str());
    }
  }
  return nullptr;
}

// Caller-bound outputs are checked; the others get a tensor at the resolved
// shape, reusing last run's when nobody else holds it. An output whose
// shape the run knows only after some step (format 1.8) gets a tensor at
// the symbols' maxima for now, and is prepared again then, before the step
// that writes it.
tsc_status_t prepareOutputs(tsc_session_s &s) {
  const Plan &plan = s.model->plan;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    const Port &p = plan.outputs[i];
    const Value &v = plan.values[p.value];
    dims.resize(v.dims.size());
    for (size_t d = 0; d < dims.size(); ++d)
      dims[d] = s.layout.exprValues[v.dims[d]];
    bool pending = isPending(s, v);
    if (tsc_tensor_t *bound = s.boundOutputs[i]; bound && !pending) {
      if (tsc_status_t status = checkKind("output", p.name, v, bound))
        return status;
      if (bound->dims != dims)
        return statusf(
            TSC_STATUS_INVALID_ARGUMENT,
            "output '%s' has shape %s, expected %s", p.name.c_str(),
            shapeText(bound->dims.data(), bound->dims.size()).c_str(),
            shapeText(dims.data(), dims.size()).c_str());
      continue;
    }
    if (s.boundOutputs[i])
      continue;
    tsc_tensor_t *&current = s.outputs[i];
    if (current && current->refs.load(std::memory_order_acquire) == 1 &&
        current->dims == dims)
      continue;
    tsc_tensor_release(current);
    current = nullptr;
    if (tsc_status_t status = createHostTensor(
            tsc_dtype_t(v.dtype), dims.size(), dims.data(), &current))
      return status;
  }
  return nullptr;
}

void computeAddresses(tsc_session_s &s) {
  // Weights are read-only: kernels receive them through the ABI's void*.
  uint8_t *weights = const_cast<uint8_t *>(s.model->artifact.weights().data);
  locateValues(
      s.model->plan, weights, static_cast<uint8_t *>(s.arena),
      [&](uint32_t i) { return s.inputs[i]->data; },
      [&](uint32_t i) {
        return (s.boundOutputs[i] ? s.boundOutputs[i] : s.outputs[i])->data;
      },
      s.addresses);
}

// A CUDA model's run: the caller's tensors (host or device memory) go to
// the backend, which copies them through its staging buffers.
// Where a CUDA run copies its outputs: set again after a step that
// prepares the outputs again (format 1.8), as the copies come at the end.
void locateCudaOutputs(tsc_session_s &s) {
  const Plan &plan = s.model->plan;
  s.cudaOutputs.resize(plan.outputs.size());
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    tsc_tensor_t *t = s.boundOutputs[i] ? s.boundOutputs[i] : s.outputs[i];
    s.cudaOutputs[i] = {t->data, t->location == TSC_LOCATION_CUDA};
  }
}

tsc_status_t runOnCuda(tsc_session_s &s, const StepHook &hook) {
  const Plan &plan = s.model->plan;
  s.cudaInputs.resize(plan.inputs.size());
  for (size_t i = 0; i < plan.inputs.size(); ++i)
    s.cudaInputs[i] = {s.inputs[i]->data,
                       s.inputs[i]->location == TSC_LOCATION_CUDA};
  locateCudaOutputs(s);
  return runCuda(*s.cuda, s.layout, s.symbols.data(), s.cudaInputs,
                 s.cudaOutputs, s.profile ? &s.stepTimes : nullptr, hook);
}

void locateCudaOutputs(tsc_session_s &s);

// Format 1.8: after step `i`, the symbols read from the values it computed
// take their values; the layout, the outputs' shapes and (on the host) the
// addresses follow.
tsc_status_t afterStep(tsc_session_s &s, size_t i) {
  const tsc_model_s &model = *s.model;
  if (!model.plan.definesAfter[i])
    return nullptr;
  tsc_status_t status = defineSymbols(s, uint32_t(i));
  if (status)
    return status;
  bool late = false;
  for (bool p : s.pending)
    late = late || p;
  if ((status = computeLayout(model, s.symbols.data(), s.layout,
                              /*bounds=*/late)) ||
      (status = prepareOutputs(s)))
    return status;
  if (s.cuda)
    locateCudaOutputs(s);
  else
    computeAddresses(s);
  return nullptr;
}

tsc_status_t run(tsc_session_s &s) {
  s.haveOutputs = false;
  if (s.profile)
    s.stepTimes.beginRun();
  tsc_status_t status = nullptr;
  if ((status = resolveInputs(s)) || (status = prepareOutputs(s)))
    return status;
  StepHook hook;
  if (s.model->plan.hasLateDefinitions)
    hook = [&s](size_t i) { return afterStep(s, i); };
  if (s.cuda) {
    if ((status = runOnCuda(s, hook)))
      return status;
  } else {
    computeAddresses(s);
    ScopedHostThreads threads(s.threads);
    if ((status = executeSteps(*s.model, s.layout, s.addresses,
                               s.symbols.data(), s.gemms.get(), s.scratch,
                               s.profile ? &s.stepTimes : nullptr, hook)))
      return status;
  }
  s.haveOutputs = true;
  ++s.runs;
  return nullptr;
}

} // namespace

extern "C" {

void tsc_session_options_init(tsc_session_options_t *opts) {
  if (opts)
    *opts = tsc_session_options_t{sizeof(tsc_session_options_t), 0, 0, 0, 1,
                                  nullptr};
}

tsc_status_t tsc_session_create(tsc_model_t *model,
                                const tsc_session_options_t *opts,
                                tsc_session_t **out_session) {
  if (!out_session)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "out_session is NULL");
  *out_session = nullptr;
  if (!model)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "model is NULL");
  tsc_session_options_t options;
  tsc_session_options_init(&options);
  if (opts) {
    if (opts->struct_size < sizeof(size_t))
      return statusf(TSC_STATUS_INVALID_ARGUMENT,
                     "tsc_session_options_t.struct_size is %zu: call "
                     "tsc_session_options_init",
                     opts->struct_size);
    // Copy only the fields the caller's struct has.
    std::memcpy(&options, opts,
                opts->struct_size < sizeof(options) ? opts->struct_size
                                                    : sizeof(options));
    options.struct_size = sizeof(options);
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1)
    cores = 1;
  // More threads than cores only contend; far more would exhaust the
  // process's resources inside the OpenMP runtime, which aborts.
  long maxThreads = kMaxThreadsPerCore * cores;
  if (options.thread_count < 0 || options.thread_count > maxThreads)
    return statusf(TSC_STATUS_INVALID_ARGUMENT,
                   "thread_count is %d; this machine has %ld cores, and a "
                   "session takes 1 to %ld threads (0: one per core)",
                   int(options.thread_count), cores, maxThreads);
  return guarded([&]() -> tsc_status_t {
    auto session = std::make_unique<tsc_session_s>();
    tsc_model_retain(model);
    session->model = model;
    session->threads =
        options.thread_count ? int(options.thread_count) : int(cores);
    session->profile = options.profile != 0;
    session->stepTimes.resize(model->plan.steps.size());
    const Plan &plan = model->plan;
    session->inputs.assign(plan.inputs.size(), nullptr);
    session->boundOutputs.assign(plan.outputs.size(), nullptr);
    session->outputs.assign(plan.outputs.size(), nullptr);
    session->symbols.assign(plan.symbols.size(), 0);
    session->pending.assign(plan.symbols.size(), false);
    if (model->isCuda()) {
      CudaSessionOptions cuda;
      cuda.device = options.cuda_device;
      cuda.graphs = options.cuda_graphs != 0;
      cuda.stream = options.cuda_stream;
      if (tsc_status_t status = createCudaSession(*model, cuda, session->cuda))
        return status;
      *out_session = session.release();
      return nullptr;
    }
    // The arena is sized once, for the symbols' maxima (checked at load), and
    // not cleared: steps write arena values before reading them, and touching
    // every page up front would commit memory a run may never use.
    uint64_t arenaBytes = (plan.arenaSize + 63) / 64 * 64;
    if (arenaBytes < plan.arenaSize || arenaBytes > SIZE_MAX)
      return makeStatus(TSC_STATUS_RESOURCE_EXHAUSTED, "arena too large");
    session->arena =
        std::aligned_alloc(64, arenaBytes ? size_t(arenaBytes) : 64);
    if (!session->arena)
      return statusf(TSC_STATUS_RESOURCE_EXHAUSTED,
                     "%s: cannot allocate the %llu-byte arena",
                     model->artifact.name().c_str(),
                     static_cast<unsigned long long>(plan.arenaSize));
#if TSC_RUNTIME_HAS_ONEDNN
    // Weights are prepared here, with the session's threads.
    ScopedHostThreads threads(session->threads);
    if (model->hasGemm)
      if (tsc_status_t status = HostGemms::create(*model, session->gemms))
        return status;
#endif
    *out_session = session.release();
    return nullptr;
  });
}

void tsc_session_retain(tsc_session_t *session) {
  if (session)
    session->refs.fetch_add(1, std::memory_order_relaxed);
}

void tsc_session_release(tsc_session_t *session) {
  if (session && session->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete session;
}

tsc_status_t tsc_session_bind_input(tsc_session_t *session, const char *name,
                                    const tsc_tensor_t *tensor) {
  if (!session)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "session is NULL");
  return guarded([&]() -> tsc_status_t {
    const Plan &plan = session->model->plan;
    size_t i = 0;
    if (tsc_status_t status = findPort(plan.inputs, "input", name, i))
      return status;
    if (tensor) {
      if (tsc_status_t status =
              checkKind("input", plan.inputs[i].name,
                        plan.values[plan.inputs[i].value], tensor))
        return status;
      if (tsc_status_t status =
              checkLocation(*session, "input", plan.inputs[i].name, tensor))
        return status;
    }
    // The session only reads inputs; the reference count is the one thing it
    // changes.
    replace(session->inputs[i], const_cast<tsc_tensor_t *>(tensor));
    return nullptr;
  });
}

tsc_status_t tsc_session_bind_output(tsc_session_t *session, const char *name,
                                     tsc_tensor_t *tensor) {
  if (!session)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "session is NULL");
  return guarded([&]() -> tsc_status_t {
    const Plan &plan = session->model->plan;
    size_t i = 0;
    if (tsc_status_t status = findPort(plan.outputs, "output", name, i))
      return status;
    if (tensor) {
      if (tsc_status_t status =
              checkKind("output", plan.outputs[i].name,
                        plan.values[plan.outputs[i].value], tensor))
        return status;
      if (tsc_status_t status =
              checkLocation(*session, "output", plan.outputs[i].name, tensor))
        return status;
    }
    replace(session->boundOutputs[i], tensor);
    // The last run's outputs may have gone to the tensor just unbound.
    session->haveOutputs = false;
    return nullptr;
  });
}

tsc_status_t tsc_session_run(tsc_session_t *session) {
  if (!session)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "session is NULL");
  if (session->running.exchange(true, std::memory_order_acquire))
    return makeStatus(
        TSC_STATUS_FAILED_PRECONDITION,
        "the session is already running (sessions are not thread-safe)");
  tsc_status_t status = guarded([&] { return run(*session); });
  session->running.store(false, std::memory_order_release);
  return status;
}

tsc_status_t tsc_session_get_output(tsc_session_t *session, const char *name,
                                    tsc_tensor_t **out_tensor) {
  if (!out_tensor)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "out_tensor is NULL");
  *out_tensor = nullptr;
  if (!session)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "session is NULL");
  return guarded([&]() -> tsc_status_t {
    size_t i = 0;
    if (tsc_status_t status =
            findPort(session->model->plan.outputs, "output", name, i))
      return status;
    if (!session->haveOutputs)
      return makeStatus(TSC_STATUS_FAILED_PRECONDITION,
                        "no outputs yet: the session has not run successfully");
    tsc_tensor_t *tensor = session->boundOutputs[i] ? session->boundOutputs[i]
                                                    : session->outputs[i];
    tsc_tensor_retain(tensor);
    *out_tensor = tensor;
    return nullptr;
  });
}

double tsc_session_step_time(const tsc_session_t *session, size_t index) {
  if (!session || index >= session->stepTimes.total.size())
    return 0.0;
  return session->stepTimes.total[index];
}

int32_t tsc_session_last_step_time(const tsc_session_t *session, size_t index,
                                   double *out_start_ms,
                                   double *out_duration_ms) {
  if (!session || !session->profile || !session->runs ||
      index >= session->stepTimes.total.size()) {
    if (out_start_ms)
      *out_start_ms = 0.0;
    if (out_duration_ms)
      *out_duration_ms = 0.0;
    return 0;
  }
  if (out_start_ms)
    *out_start_ms = session->stepTimes.lastStart[index];
  if (out_duration_ms)
    *out_duration_ms = session->stepTimes.lastDuration[index];
  return 1;
}

uint64_t tsc_session_run_count(const tsc_session_t *session) {
  return session ? session->runs : 0;
}

const char *tsc_session_gemm_library(const tsc_session_t *session) {
#if TSC_RUNTIME_HAS_ONEDNN
  if (!session || !session->gemms)
    return nullptr;
  session->gemmLibrary = session->gemms->describe();
  return session->gemmLibrary.c_str();
#else
  (void)session;
  return nullptr;
#endif
}

} // extern "C"
