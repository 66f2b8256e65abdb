//===- model.cpp - loading a model and reading its signature --------------===//

#include "model.h"

#include "cuda_backend.h"
#include "executor.h"
#include "internal.h"
#include "isa.h"
#include "log.h"
#include "reader.h"
#include "signature.h"

#include <cstddef>
#include <fstream>
#include <memory>

using namespace tsc::rt;

namespace {

// Options fields a caller's struct_size covers; older callers get defaults.
tsc_status_t readOptions(const tsc_model_options_t *opts) {
  if (opts && opts->struct_size < sizeof(size_t))
    return statusf(
        TSC_STATUS_INVALID_ARGUMENT,
        "tsc_model_options_t.struct_size is %zu: call tsc_model_options_init",
        opts->struct_size);
  return nullptr;
}

/// The options' public key; NULL when not set, or when the caller's options
/// struct predates the field (API version 7).
const uint8_t *publicKey(const tsc_model_options_t *opts) {
  if (!opts || opts->struct_size < offsetof(tsc_model_options_t, public_key) +
                                       sizeof opts->public_key)
    return nullptr;
  return opts->public_key;
}

/// With a public key in the options, verifies the artifact's signature (the
/// options' bytes, else the file `path`.sig) before anything reads more than
/// the container.
tsc_status_t checkSignature(const tsc_model_options_t *opts,
                            const Artifact &artifact, const char *path) {
  const uint8_t *key = publicKey(opts);
  if (!key)
    return nullptr;
  bool given =
      opts->struct_size >= sizeof(tsc_model_options_t) && opts->signature;
  std::string bytes;
  if (given)
    bytes.assign(static_cast<const char *>(opts->signature),
                 opts->signature_size);
  else if (!path)
    return statusf(TSC_STATUS_UNAUTHENTICATED,
                   "%s: a public key was given but no signature (set "
                   "tsc_model_options_t.signature for an artifact in memory)",
                   artifact.name().c_str());
  else {
    std::string file = std::string(path) + ".sig";
    std::ifstream in(file, std::ios::binary);
    if (!in)
      return statusf(TSC_STATUS_UNAUTHENTICATED,
                     "%s: a public key was given but the signature file %s "
                     "cannot be read (sign with tsc --sign-key)",
                     artifact.name().c_str(), file.c_str());
    char buffer[tscm::kSignatureSize + 1];
    in.read(buffer, sizeof buffer);
    bytes.assign(buffer, size_t(in.gcount()));
  }
  return verifySignature(artifact.data(), artifact.size(), key, bytes.data(),
                         bytes.size(), artifact.name());
}

// Format 1.13's STEP section: a layer and source nodes per step of the plan
// (empty strings without the section).
tsc_status_t parseStepSources(tsc_model_s &model) {
  size_t steps = model.plan.steps.size();
  model.stepLayers.assign(steps, "");
  model.stepNodes.assign(steps, "");
  const SectionView &section = model.artifact.steps();
  if (!section.present)
    return nullptr;
  Reader r(section.data, section.size);
  uint32_t count = r.count(8, "step_count");
  if (r.ok() && count != steps)
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: STEP: %u steps, the plan has %zu (corrupt artifact)",
                   model.artifact.name().c_str(), count, steps);
  for (size_t i = 0; r.ok() && i < steps; ++i) {
    model.stepLayers[i] = r.str("step layer");
    model.stepNodes[i] = r.str("step source nodes");
  }
  if (!r.ok() || r.remaining())
    return statusf(TSC_STATUS_DATA_LOSS, "%s: STEP: %s (corrupt artifact)",
                   model.artifact.name().c_str(),
                   r.ok() ? "bytes after the last step" : r.error().c_str());
  return nullptr;
}

// Everything after the container is validated.
tsc_status_t finishLoad(tsc_model_s &model) {
  const std::string &file = model.artifact.name();
  Plan &plan = model.plan;
  tsc_status_t status = nullptr;
  if ((status = parsePlan(model.artifact.plan(), file,
                          model.artifact.minorVersion(), plan)))
    return status;
  if ((status = parseStepSources(model)))
    return status;
  if (model.isCuda()) {
    if (!model.artifact.cuda().present)
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: a 'cuda' plan without a CUDA section (corrupt "
                     "artifact)",
                     file.c_str());
    if ((status = parseCudaImage(model.artifact.cuda(), file, model.cuda)))
      return status;
    model.cudaCache = createCudaModelCache();
  }
  if ((status = checkPlan(plan, file, model.artifact.host(),
                          model.artifact.weights(), model.cuda.modules.size())))
    return status;
  // Size everything at both ends of the symbols' ranges, so that a plan that
  // cannot run is refused now rather than at some later run.
  std::vector<int64_t> symbols(plan.symbols.size());
  Layout layout;
  for (bool atMax : {false, true}) {
    for (size_t j = 0; j < symbols.size(); ++j)
      symbols[j] = atMax ? plan.symbols[j].max : plan.symbols[j].min;
    if ((status = computeLayout(model, symbols.data(), layout,
                                /*bounds=*/true)))
      return status;
  }

  model.kernels.assign(plan.steps.size(), nullptr);
  model.isaText = isaText(plan.isa);
  bool hasKernels = false;
  for (const Step &s : plan.steps) {
    hasKernels |= s.kind == StepKind::Kernel;
    model.hasGemm |= s.kind == StepKind::Gemm;
  }
  // Device code is loaded by the first session on a device.
  if (model.isCuda())
    return checkCudaPlan(model);
  if (model.hasGemm && (status = checkHostGemms(model)))
    return status;
  if (!hasKernels)
    return nullptr;
#ifdef TSC_RUNTIME_FUZZING
  // Fuzzed bytes are never loaded as code.
  return nullptr;
#endif
  // The ISA check comes before dlopen: the object's constructors may already
  // use the instructions.
  if ((status = checkIsa(plan.isa, file)) ||
      (status = model.host.load(model.artifact.host(), file)))
    return status;
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (plan.steps[i].kind == StepKind::Kernel &&
        (status = model.host.resolve(plan.steps[i].function, i, file,
                                     model.kernels[i])))
      return status;
  return nullptr;
}

template <typename Open>
tsc_status_t load(const tsc_model_options_t *opts, tsc_model_t **out_model,
                  const char *path, Open open) {
  if (!out_model)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "out_model is NULL");
  *out_model = nullptr;
  if (tsc_status_t status = readOptions(opts))
    return status;
  return guarded([&]() -> tsc_status_t {
    auto model = std::make_unique<tsc_model_s>();
    tsc_status_t status = nullptr;
    if ((status = open(model->artifact)) ||
        (status = checkSignature(opts, model->artifact, path)) ||
        (status = finishLoad(*model)))
      return status;
    logf(TSC_LOG_INFO, "%s: loaded: format 1.%u by %s, target %s, %zu steps",
         model->artifact.name().c_str(),
         unsigned(model->artifact.minorVersion()),
         model->artifact.producer().c_str(), model->plan.target.c_str(),
         model->plan.steps.size());
    *out_model = model.release();
    return nullptr;
  });
}

const Port *port(const tsc_model_t *model, bool input, size_t index) {
  if (!model)
    return nullptr;
  const std::vector<Port> &ports =
      input ? model->plan.inputs : model->plan.outputs;
  return index < ports.size() ? &ports[index] : nullptr;
}

const Value *portValue(const tsc_model_t *model, bool input, size_t index) {
  const Port *p = port(model, input, index);
  return p ? &model->plan.values[p->value] : nullptr;
}

const Expr *dimExpr(const tsc_model_t *model, bool input, size_t index,
                    size_t dim) {
  const Value *v = portValue(model, input, index);
  return v && dim < v->dims.size() ? &model->plan.exprs[v->dims[dim]] : nullptr;
}

int64_t dimSize(const tsc_model_t *model, bool input, size_t index,
                size_t dim) {
  const Expr *e = dimExpr(model, input, index, dim);
  int64_t size = -1;
  const char *error = nullptr;
  if (!e || !e->constant || !evalExpr(*e, nullptr, size, error))
    return -1;
  return size;
}

int64_t dimSymbol(const tsc_model_t *model, bool input, size_t index,
                  size_t dim) {
  const Expr *e = dimExpr(model, input, index, dim);
  return e ? e->bareSymbol : -1;
}

tsc_status_t shape(const tsc_model_t *model, bool input, size_t index,
                   const int64_t *symbolValues, size_t symbolCount,
                   int64_t *out_dims) {
  const char *what = input ? "input" : "output";
  const Value *v = portValue(model, input, index);
  if (!v)
    return statusf(TSC_STATUS_OUT_OF_RANGE, "no %s %zu", what, index);
  if (symbolCount != model->plan.symbols.size() ||
      (symbolCount && !symbolValues))
    return statusf(TSC_STATUS_INVALID_ARGUMENT,
                   "%zu symbol values given, the model has %zu", symbolCount,
                   model->plan.symbols.size());
  if (!out_dims && !v->dims.empty())
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "out_dims is NULL");
  for (size_t d = 0; d < v->dims.size(); ++d) {
    const Expr &e = model->plan.exprs[v->dims[d]];
    const char *error = nullptr;
    if (!evalExpr(e, symbolValues, out_dims[d], error))
      return statusf(TSC_STATUS_INVALID_ARGUMENT, "%s '%s' dim %zu (%s): %s",
                     what, port(model, input, index)->name.c_str(), d,
                     printExpr(e, model->plan.symbols).c_str(), error);
  }
  return nullptr;
}

} // namespace

extern "C" {

void tsc_model_options_init(tsc_model_options_t *opts) {
  if (opts)
    *opts =
        tsc_model_options_t{sizeof(tsc_model_options_t), nullptr, nullptr, 0};
}

tsc_status_t tsc_model_load(const tsc_model_options_t *opts, const char *path,
                            tsc_model_t **out_model) {
  if (!path)
    return makeStatus(TSC_STATUS_INVALID_ARGUMENT, "path is NULL");
  return load(opts, out_model, path, [&](Artifact &a) { return a.open(path); });
}

tsc_status_t tsc_model_load_from_memory(const tsc_model_options_t *opts,
                                        const void *data, size_t size,
                                        const char *name,
                                        tsc_model_t **out_model) {
  return load(opts, out_model, nullptr,
              [&](Artifact &a) { return a.borrow(data, size, name); });
}

void tsc_model_retain(tsc_model_t *model) {
  if (model)
    model->refs.fetch_add(1, std::memory_order_relaxed);
}

void tsc_model_release(tsc_model_t *model) {
  if (model && model->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete model;
}

const char *tsc_model_target(const tsc_model_t *model) {
  return model ? model->plan.target.c_str() : "";
}

const char *tsc_model_producer(const tsc_model_t *model) {
  return model ? model->artifact.producer().c_str() : nullptr;
}

void tsc_model_format_version(const tsc_model_t *model, uint32_t *out_major,
                              uint32_t *out_minor) {
  if (out_major)
    *out_major = model ? tscm::kMajor : 0;
  if (out_minor)
    *out_minor = model ? model->artifact.minorVersion() : 0;
}

const char *tsc_model_isa(const tsc_model_t *model) {
  return model ? model->isaText.c_str() : "";
}

uint64_t tsc_model_arena_bytes(const tsc_model_t *model) {
  return model ? model->plan.arenaSize : 0;
}

uint64_t tsc_model_weight_bytes(const tsc_model_t *model) {
  return model ? model->artifact.weights().size : 0;
}

size_t tsc_model_symbol_count(const tsc_model_t *model) {
  return model ? model->plan.symbols.size() : 0;
}

const char *tsc_model_symbol_name(const tsc_model_t *model, size_t index) {
  return model && index < model->plan.symbols.size()
             ? model->plan.symbols[index].name.c_str()
             : nullptr;
}

int64_t tsc_model_symbol_min(const tsc_model_t *model, size_t index) {
  return model && index < model->plan.symbols.size()
             ? model->plan.symbols[index].min
             : -1;
}

int64_t tsc_model_symbol_max(const tsc_model_t *model, size_t index) {
  return model && index < model->plan.symbols.size()
             ? model->plan.symbols[index].max
             : -1;
}

size_t tsc_model_input_count(const tsc_model_t *model) {
  return model ? model->plan.inputs.size() : 0;
}

const char *tsc_model_input_name(const tsc_model_t *model, size_t index) {
  const Port *p = port(model, true, index);
  return p ? p->name.c_str() : nullptr;
}

tsc_dtype_t tsc_model_input_dtype(const tsc_model_t *model, size_t index) {
  const Value *v = portValue(model, true, index);
  return v ? tsc_dtype_t(v->dtype) : tsc_dtype_t(0);
}

size_t tsc_model_input_rank(const tsc_model_t *model, size_t index) {
  const Value *v = portValue(model, true, index);
  return v ? v->dims.size() : 0;
}

int64_t tsc_model_input_dim_size(const tsc_model_t *model, size_t index,
                                 size_t dim) {
  return dimSize(model, true, index, dim);
}

int64_t tsc_model_input_dim_symbol(const tsc_model_t *model, size_t index,
                                   size_t dim) {
  return dimSymbol(model, true, index, dim);
}

tsc_status_t tsc_model_input_shape(const tsc_model_t *model, size_t index,
                                   const int64_t *symbol_values,
                                   size_t symbol_count, int64_t *out_dims) {
  return guarded([&] {
    return shape(model, true, index, symbol_values, symbol_count, out_dims);
  });
}

size_t tsc_model_output_count(const tsc_model_t *model) {
  return model ? model->plan.outputs.size() : 0;
}

const char *tsc_model_output_name(const tsc_model_t *model, size_t index) {
  const Port *p = port(model, false, index);
  return p ? p->name.c_str() : nullptr;
}

tsc_dtype_t tsc_model_output_dtype(const tsc_model_t *model, size_t index) {
  const Value *v = portValue(model, false, index);
  return v ? tsc_dtype_t(v->dtype) : tsc_dtype_t(0);
}

size_t tsc_model_output_rank(const tsc_model_t *model, size_t index) {
  const Value *v = portValue(model, false, index);
  return v ? v->dims.size() : 0;
}

int64_t tsc_model_output_dim_size(const tsc_model_t *model, size_t index,
                                  size_t dim) {
  return dimSize(model, false, index, dim);
}

int64_t tsc_model_output_dim_symbol(const tsc_model_t *model, size_t index,
                                    size_t dim) {
  return dimSymbol(model, false, index, dim);
}

tsc_status_t tsc_model_output_shape(const tsc_model_t *model, size_t index,
                                    const int64_t *symbol_values,
                                    size_t symbol_count, int64_t *out_dims) {
  return guarded([&] {
    return shape(model, false, index, symbol_values, symbol_count, out_dims);
  });
}

size_t tsc_model_step_count(const tsc_model_t *model) {
  return model ? model->plan.steps.size() : 0;
}

const char *tsc_model_step_layer(const tsc_model_t *model, size_t index) {
  if (!model || index >= model->stepLayers.size())
    return nullptr;
  return model->stepLayers[index].c_str();
}

const char *tsc_model_step_nodes(const tsc_model_t *model, size_t index) {
  if (!model || index >= model->stepNodes.size())
    return nullptr;
  return model->stepNodes[index].c_str();
}

const char *tsc_model_step_name(const tsc_model_t *model, size_t index) {
  if (!model || index >= model->plan.steps.size())
    return nullptr;
  const Step &step = model->plan.steps[index];
  switch (step.kind) {
  case StepKind::Kernel:
    return step.function.c_str();
  case StepKind::Launch:
    return model->cuda.modules[step.launch.module].kernel.c_str();
  case StepKind::Gemm:
    return step.gemm.weightOnly             ? "gemm weight-only"
           : step.gemm.weightScale != kNone ? "gemm int8"
           : step.gemm.sparse24             ? "gemm 2:4"
           : step.gemm.bf16Inputs           ? "gemm bf16-inputs"
                                            : "gemm";
  case StepKind::Copy:
    return "copy";
  }
  return nullptr;
}

} // extern "C"
