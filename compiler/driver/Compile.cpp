//===- Compile.cpp - the one compile path: pipeline, plan, code, artifact -===//

#include "compiler/driver/Compile.h"
#include "compiler/artifact/Artifact.h"
#include "compiler/driver/CalibrateGraph.h"
#include "compiler/driver/ErrorBudget.h"
#include "compiler/driver/MeasuredError.h"
#include "compiler/driver/PruneReport.h"
#include "compiler/kernels/Kernels.h"
#include "compiler/pipeline/Prune.h"
#include "compiler/plan/Plan.h"
#include "compiler/plan/PlanReport.h"
#include "compiler/target/cuda/CudaCodegen.h"
#include "compiler/target/cuda/Sparse24.h"
#include "compiler/target/host/HostCodegen.h"
#include "passes/transforms/PruneRegion.h"
#include "passes/transforms/Weights.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ToolOutputFile.h"

#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <optional>

using namespace mlir;
using namespace mlir::tsc;

/// Plans built by this process: the report plans once per configuration it
/// shows (tsc --print-plan-count). LLVM's statistics print nothing in a
/// release LLVM, hence a counter of its own.
static std::atomic<unsigned> numPlansBuilt{0};

unsigned tsc::getNumPlansBuilt() { return numPlansBuilt; }

namespace {

/// Frees the data of every weight that no op of `live` refers to: the
/// originals of weights a pass replaced (merged GEMMs, converted precision)
/// and those only a dropped report baseline used. Weights mapped from
/// external data give their pages back.
void releaseUnusedWeights(MLIRContext *context, ArrayRef<ModuleOp> live) {
  SmallVector<Operation *> roots;
  for (ModuleOp module : live)
    if (module)
      roots.push_back(module);
  freeUnreferencedWeights(context, roots);
}

/// Runs the tsc pipeline on `module` up to `until` (at most the fuse phase)
/// as `options` say. `freeReplacedWeights` when no other module shares the
/// module's weights.
LogicalResult runPipeline(ModuleOp module, const CompileOptions &options,
                          Phase until, bool freeReplacedWeights,
                          TimingScope *timing = nullptr) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  // --time-phases: every pass timed under the pipeline's phase timer.
  if (timing)
    pm.enableTiming(*timing);
  TscPipelineOptions pipeline;
  pipeline.until = std::min(until, Phase::Fuse);
  pipeline.fuse = options.fuse;
  pipeline.precision = options.precision;
  pipeline.quantize = options.quantize;
  pipeline.weightGroupSize = options.weightGroupSize;
  pipeline.weightZeroPoints = options.weightZeroPoints;
  pipeline.narrowInt8Weights = options.narrowInt8Weights;
  pipeline.inputRanges = options.inputRanges;
  pipeline.inputMinima = options.inputMinima;
  pipeline.smoothingAlpha = options.smoothingAlpha;
  pipeline.precisionIO = options.precisionIO;
  // cuBLASLt's GELU epilogue is the tanh approximation: with a CUDA target,
  // an exact GELU stays its own kernel.
  pipeline.erfGeluEpilogue = options.target == TargetKind::Host;
  // CUDA runs int8 GEMMs as an s8 product and kernels; the host's replica
  // of the device code's loops (--gpu-loop-mapping) computes the same.
  pipeline.expandQuantizedGemms =
      options.target == TargetKind::Cuda || options.gpuLoopMapping;
  pipeline.freeReplacedWeights = freeReplacedWeights;
  pipeline.prune = options.prune;
  pipeline.keepFloat = options.keepFloat;
  pipeline.keptPrecision = options.keptPrecision;
  pipeline.attentionProducts = options.attentionProducts;
  pipeline.detectPruned = options.report || !options.pruneReport.empty();
  buildTscPipeline(pm, pipeline);
  return pm.run(module);
}

/// The plan of `module`'s function (after the pipeline) as `options` say.
FailureOr<plan::Plan> planModule(ModuleOp module,
                                 const CompileOptions &options) {
  auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
  if (funcs.size() != 1)
    return module.emitError()
           << "expected one function to compile, found " << funcs.size();
  plan::PlanOptions planOptions;
  planOptions.useGemmLibrary = options.useGemmLibrary;
  planOptions.hostGemmForms =
      options.target == TargetKind::Host && !options.gpuLoopMapping;
  planOptions.integerGemms = options.target == TargetKind::Cuda;
  planOptions.deviceKernels =
      options.target == TargetKind::Cuda || options.gpuLoopMapping;
  planOptions.fuseKernels = options.fuse;
  planOptions.precision = options.precision;
  planOptions.halfIO = options.precisionIO == PrecisionIO::Storage;
  ++numPlansBuilt;
  return plan::buildPlan(funcs.front(), planOptions);
}

/// The plan's kernels outlined and lowered to linalg: what --emit=lower
/// prints, and where both targets' code generation starts. The CUDA loop
/// structure (on the device, or on the host for --gpu-loop-mapping) keeps
/// attention's key and value blocks in shared memory; `bf16Products` lays
/// bf16 attention out for the host's pair products (AMX or AVX512_BF16).
FailureOr<OwningOpRef<ModuleOp>> lowerPlan(const plan::Plan &plan,
                                           MLIRContext *context, KernelABI abi,
                                           bool cudaLoopStructure,
                                           bool bf16Products) {
  FailureOr<OwningOpRef<ModuleOp>> kernels = outlineKernels(plan, context, abi);
  int64_t keyValueBytes = cudaLoopStructure ? cuda::kMaxSharedBytes : 0;
  if (failed(kernels) ||
      failed(lowerKernels(**kernels, keyValueBytes,
                          !cudaLoopStructure && bf16Products)))
    return failure();
  return kernels;
}

/// Host objects already generated in this process, by the SHA-256 of the
/// lowered kernels' text and the target: the error budget's trial compiles
/// lower the same kernels each time (which GEMMs are int8, bf16 or f32 is
/// the GEMM steps' business, not the kernels'), and LLVM's code generation
/// was most of each (2.1 of 3.5 s for BERT-base). The last few are kept.
struct HostObjectCache {
  struct Entry {
    std::array<uint8_t, 32> key;
    std::vector<char> object;
    uint64_t isa;
  };
  static constexpr size_t kEntries = 4;
  std::mutex mutex;
  std::deque<Entry> entries;
};

HostObjectCache &hostObjectCache() {
  static HostObjectCache cache;
  return cache;
}

/// The cache key of `kernels` for `target`; nullopt when the text does not
/// stand for the module (a resource blob prints as its handle).
std::optional<std::array<uint8_t, 32>>
hostObjectKey(ModuleOp kernels, const HostTarget &target, bool gpuLoopMapping) {
  bool blobs = false;
  kernels->walk([&](Operation *op) {
    op->getAttrDictionary().walk(
        [&](DenseResourceElementsAttr) { blobs = true; });
  });
  if (blobs)
    return std::nullopt;
  std::string text;
  llvm::raw_string_ostream os(text);
  kernels->print(os, OpPrintingFlags().printGenericOpForm());
  os << "\n"
     << target.cpu << " isa " << target.isa << " amx " << target.amx
     << " avx512bf16 " << target.avx512bf16 << " gpu-loops " << gpuLoopMapping;
  llvm::SHA256 hash;
  hash.update(text);
  return hash.final();
}

/// Lowered `kernels` as a host shared object; with `gpuLoopMapping` in the
/// CUDA target's loop structure (its numerics without a GPU). The same
/// kernels for the same target again come from hostObjectCache().
FailureOr<std::vector<char>>
compileHostKernels(ModuleOp kernels, HostTarget &target, bool gpuLoopMapping) {
  std::optional<std::array<uint8_t, 32>> key =
      hostObjectKey(kernels, target, gpuLoopMapping);
  HostObjectCache &cache = hostObjectCache();
  if (key) {
    std::lock_guard<std::mutex> lock(cache.mutex);
    for (const HostObjectCache::Entry &e : cache.entries)
      if (e.key == *key) {
        target.isa = e.isa;
        return e.object;
      }
  }
  auto gpuLoops = [](ModuleOp module) {
    return cuda::mapKernelLoops(module, cuda::MappedFor::Host);
  };
  FailureOr<std::vector<char>> object = compileKernels(
      kernels, target, gpuLoopMapping ? LoopMapping(gpuLoops) : nullptr);
  if (succeeded(object) && key) {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (cache.entries.size() == HostObjectCache::kEntries)
      cache.entries.pop_front();
    cache.entries.push_back({*key, *object, target.isa});
  }
  return object;
}

/// The plan's kernels as a host shared object.
FailureOr<std::vector<char>> compileForHost(const plan::Plan &plan,
                                            MLIRContext *context,
                                            HostTarget &target,
                                            bool gpuLoopMapping) {
  FailureOr<OwningOpRef<ModuleOp>> kernels =
      lowerPlan(plan, context, KernelABI::Host, gpuLoopMapping,
                target.amx || target.avx512bf16);
  if (failed(kernels))
    return failure();
  return compileHostKernels(**kernels, target, gpuLoopMapping);
}

/// The CUDA chips of `options`; an error for an unknown one.
FailureOr<std::vector<std::unique_ptr<cuda::TargetInfo>>>
getChips(const CompileOptions &options) {
  std::vector<std::unique_ptr<cuda::TargetInfo>> chips;
  for (StringRef name : options.cudaChips) {
    chips.push_back(cuda::createTargetInfo(name));
    if (!chips.back()) {
      llvm::errs() << "tsc: error: unknown CUDA chip " << name
                   << " (known: " << cuda::getKnownChips() << ")\n";
      return failure();
    }
  }
  return chips;
}

/// Device code for `chips`, each module assembled by ptxas when there is
/// one (a warning otherwise: the PTX is kept alone, without SASS).
FailureOr<cuda::DeviceCode>
buildDeviceCode(ModuleOp kernels, const plan::Plan &plan,
                ArrayRef<const cuda::TargetInfo *> chips) {
  std::string ptxas = cuda::findPtxas();
  if (ptxas.empty())
    llvm::errs() << "tsc: warning: ptxas not found (set CUDA_HOME): PTX is "
                    "kept without SASS\n";
  FailureOr<cuda::DeviceCode> code =
      cuda::generateDeviceCode(kernels, plan, chips);
  if (failed(code) || ptxas.empty())
    return code;
  for (auto [target, modules] : llvm::zip_equal(chips, code->modules))
    for (cuda::DeviceModule &module : modules)
      if (failed(cuda::assemble(module, *target, ptxas, kernels.getLoc())))
        return failure();
  return code;
}

/// Writes `bytes` to `path`, saying why not on failure.
LogicalResult writeFile(StringRef path, StringRef bytes) {
  if (llvm::Error error = llvm::writeToOutput(path, [&](raw_ostream &os) {
        os << bytes;
        return llvm::Error::success();
      })) {
    llvm::errs() << "tsc: error: cannot write " << path << ": "
                 << llvm::toString(std::move(error)) << "\n";
    return failure();
  }
  return success();
}

/// `--emit=ptx -o DIR`: per chip, DIR/<chip>/<module>.ptx and, when ptxas is
/// there, the SASS it assembles (.cubin). Prints one line per chip.
LogicalResult writeDeviceCode(const cuda::DeviceCode &code,
                              ArrayRef<const cuda::TargetInfo *> chips,
                              StringRef directory) {
  for (auto [target, modules] : llvm::zip_equal(chips, code.modules)) {
    bool assembled = llvm::all_of(
        modules, [](const cuda::DeviceModule &m) { return !m.cubin.empty(); });
    SmallString<128> dir(directory);
    llvm::sys::path::append(dir, target->getChip());
    if (std::error_code error = llvm::sys::fs::create_directories(dir)) {
      llvm::errs() << "tsc: error: cannot create " << dir << ": "
                   << error.message() << "\n";
      return failure();
    }
    size_t ptxBytes = 0, sassBytes = 0;
    for (const cuda::DeviceModule &module : modules) {
      SmallString<128> path(dir);
      llvm::sys::path::append(path, module.name + ".ptx");
      if (failed(writeFile(path, module.ptx)))
        return failure();
      ptxBytes += module.ptx.size();
      if (!module.cubin.empty()) {
        llvm::sys::path::replace_extension(path, "cubin");
        if (failed(writeFile(
                path, StringRef(module.cubin.data(), module.cubin.size()))))
          return failure();
        sassBytes += module.cubin.size();
      }
    }
    llvm::outs() << target->getChip() << ": " << modules.size()
                 << " kernel modules, PTX " << ptxBytes << " bytes"
                 << (!assembled ? std::string(", not assembled")
                                : ", SASS " + std::to_string(sassBytes) +
                                      " bytes (ptxas accepted all)")
                 << "\n";
  }
  return success();
}

/// Opens `path` for writing; null after printing why not.
std::unique_ptr<llvm::ToolOutputFile> openOutput(StringRef path) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(path, &message);
  if (!out)
    llvm::errs() << "tsc: error: " << message << "\n";
  return out;
}

/// Prints `op` to `path` (`-`: stdout).
LogicalResult printIR(Operation *op, StringRef path, OpPrintingFlags flags) {
  std::unique_ptr<llvm::ToolOutputFile> out = openOutput(path);
  if (!out)
    return failure();
  op->print(out->os(), flags);
  out->os() << "\n";
  out->keep();
  return success();
}

/// The artifact file: the weights stream from their constants into it and
/// its header is completed last, so a file, not a pipe.
std::unique_ptr<llvm::ToolOutputFile> openArtifact(StringRef path) {
  std::unique_ptr<llvm::ToolOutputFile> out = openOutput(path);
  if (out && !out->os().supportsSeeking()) {
    llvm::errs() << "tsc: error: -o " << path
                 << ": an artifact is written to a file, not a pipe or a "
                    "terminal\n";
    return nullptr;
  }
  return out;
}

/// Keeps the artifact `out` once `written`; failure with the reason.
LogicalResult finishArtifact(llvm::ToolOutputFile &out, StringRef path,
                             LogicalResult written) {
  if (failed(written)) {
    llvm::errs() << "tsc: error: the plan has an expression the artifact "
                    "format cannot encode\n";
    return failure();
  }
  out.os().flush();
  if (std::error_code error = out.os().error()) {
    llvm::errs() << "tsc: error: cannot write " << path << ": "
                 << error.message() << "\n";
    out.os().clear_error();
    return failure();
  }
  out.keep();
  return success();
}

/// With a half precision or a quantization: the error `plan` (of `module`)
/// costs, measured against `reference` (a clone of the imported module)
/// compiled in fp32, both for this machine's CPU; a `measured error` line
/// to `out`. A quantized CUDA plan's s8 GEMM steps have no host form: its
/// module is measured as the host's replica of the device code
/// (--gpu-loop-mapping), which computes the same values.
LogicalResult measureError(ModuleOp module, const plan::Plan &plan,
                           const CompileOptions &options, ModuleOp reference,
                           raw_ostream &out) {
  CompileOptions onHost = options;
  std::optional<plan::Plan> replica;
  if (options.target == TargetKind::Cuda &&
      options.quantize != Quantization::None) {
    onHost.target = TargetKind::Host;
    onHost.gpuLoopMapping = true;
    FailureOr<plan::Plan> hostPlan = planModule(module, onHost);
    if (failed(hostPlan))
      return failure();
    replica = std::move(*hostPlan);
  }
  CompileOptions fp32 = options;
  fp32.precision = Precision::FP32;
  fp32.precisionIO = PrecisionIO::Model;
  fp32.quantize = Quantization::None;
  if (failed(runPipeline(reference, fp32, Phase::Fuse, false)))
    return failure();
  FailureOr<plan::Plan> referencePlan = planModule(reference, fp32);
  FailureOr<HostTarget> host = resolveHostTarget("native");
  if (failed(referencePlan) || failed(host))
    return failure();
  auto writer = [&](const plan::Plan &measured) {
    return [&, plan = &measured](llvm::raw_pwrite_stream &os) {
      FailureOr<std::vector<char>> object = compileForHost(
          *plan, reference.getContext(), *host, onHost.gpuLoopMapping);
      return failure(failed(object) ||
                     failed(writeArtifact(*plan, *object, host->isa,
                                          "tsc (measured error)", os)));
    };
  };
  return reportMeasuredError(writer(*referencePlan),
                             writer(replica ? *replica : plan),
                             options.quantize != Quantization::None
                                 ? getQuantizationName(options.quantize)
                                 : getPrecisionName(options.precision),
                             out);
}

/// The report: `plan` against the same model compiled without fusion and,
/// for a half precision or a quantization, the error measured against it
/// compiled in fp32, then the prune records; as text on stdout, or for
/// --report=json as one JSON object (the measured error's line and the prune
/// records beside the plan's fields).
/// `unfused` and `reference` are clones of the imported module for those
/// baselines (null when not wanted).
LogicalResult report(ModuleOp module, const plan::Plan &plan,
                     const CompileOptions &options, ModuleOp unfused,
                     ModuleOp reference) {
  std::optional<plan::Plan> baseline;
  if (unfused) {
    CompileOptions off = options;
    off.fuse = false;
    if (failed(runPipeline(unfused, off, Phase::Fuse, false)))
      return failure();
    FailureOr<plan::Plan> other = planModule(unfused, off);
    if (failed(other))
      return failure();
    baseline = std::move(*other);
  }
  const plan::Plan *unfusedPlan = baseline ? &*baseline : nullptr;
  if (!options.reportJson)
    plan::printReport(plan, unfusedPlan, llvm::outs());
  std::string measured;
  llvm::raw_string_ostream measuredText(measured);
  if (reference &&
      failed(measureError(module, plan, options, reference,
                          options.reportJson
                              ? static_cast<raw_ostream &>(measuredText)
                              : llvm::outs())))
    return failure();
  if (!options.reportJson) {
    printPruneReport(module, llvm::outs());
    return success();
  }
  llvm::json::Object json = plan::getReportJson(plan, unfusedPlan);
  if (reference)
    json["measured_error"] = StringRef(measured).trim().str();
  json["pruning"] = getPruneRecordsJson(module);
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(json)))
               << "\n";
  return success();
}

/// The compile's phases: a timer under `root` each (--time-phases; none
/// without a root), and a progress line on stderr at the start of each once
/// the compile has taken `progressAfter` seconds.
class Phases {
public:
  Phases(TimingScope *root, double progressAfter)
      : root(root), progressAfter(progressAfter) {}

  TimingScope begin(StringRef name) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (progressAfter >= 0 && seconds >= progressAfter)
      llvm::errs() << llvm::formatv("tsc: [{0:F1} s] {1}\n", seconds, name);
    return root ? root->nest(name) : TimingScope();
  }

private:
  TimingScope *root;
  double progressAfter;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};

CompileSummary summarize(const plan::Plan &plan) {
  CompileSummary summary;
  summary.arenaBytes = plan.arenaSize;
  summary.weightBytes = plan.weightBytes;
  for (const plan::PlanStep &step : plan.steps) {
    summary.kernels += step.kind == plan::PlanStep::Kind::Kernel;
    summary.gemmCalls += step.kind == plan::PlanStep::Kind::Gemm;
    summary.copies += step.kind == plan::PlanStep::Kind::Copy;
  }
  return summary;
}

} // namespace

LogicalResult tsc::runTscPipeline(ModuleOp module,
                                  const CompileOptions &options, Phase until) {
  return runPipeline(module, options, until, false);
}

LogicalResult tsc::writeHostArtifact(ModuleOp imported,
                                     const CompileOptions &options,
                                     llvm::raw_pwrite_stream &os) {
  OwningOpRef<ModuleOp> module = imported.clone();
  // The weights the clone's passes make (quantized, merged, converted) are
  // its own: freed with it, or every trial of --max-error and the
  // calibration would keep its copy (MiniLM dynamic int8 --max-error=0.05:
  // 861 MB peak, 219 MB without the budget).
  DenseSet<WeightEntry *> shared;
  forEachWeightReference(imported, [&](WeightEntry *e) { shared.insert(e); });
  llvm::scope_exit freeOwn([&] {
    DenseSet<WeightEntry *> own;
    forEachWeightReference(*module, [&](WeightEntry *e) {
      if (!shared.contains(e))
        own.insert(e);
    });
    for (WeightEntry *e : own)
      freeWeight(e);
  });
  CompileOptions host = options;
  host.target = TargetKind::Host;
  FailureOr<HostTarget> target = resolveHostTarget("native");
  if (failed(target) || failed(runPipeline(*module, host, Phase::Fuse, false)))
    return failure();
  FailureOr<plan::Plan> plan = planModule(*module, host);
  if (failed(plan))
    return failure();
  FailureOr<std::vector<char>> object = compileForHost(
      *plan, module->getContext(), *target, options.gpuLoopMapping);
  return failure(failed(object) ||
                 failed(writeArtifact(*plan, *object, target->isa,
                                      "tsc (measured error)", os)));
}

namespace {

/// compile() once the calibration for pruning and the error budget have
/// chosen what they choose.
LogicalResult compileAsAsked(ModuleOp module, const CompileOptions &options,
                             TimingScope *timing, CompileSummary *summary) {
  MLIRContext *context = module.getContext();
  Phases phases(timing, options.progressAfter);
  Phase until = options.emit.value_or(Phase::Lower);
  // The report's baselines are the same compile with other options, each
  // from its own copy of the imported module (which shares its weights).
  bool reporting = options.report && until >= Phase::Lower;
  OwningOpRef<ModuleOp> unfused, reference;
  if (reporting && options.fuse)
    unfused = module.clone();
  if (reporting && (isHalfPrecision(options.precision) ||
                    options.quantize != Quantization::None))
    reference = module.clone();
  TimingScope pipelineTimer =
      phases.begin("pipeline (graph, prune, quantize, fuse passes)");
  if (failed(runPipeline(module, options, until,
                         /*freeReplacedWeights=*/!unfused && !reference,
                         timing ? &pipelineTimer : nullptr)))
    return failure();
  pipelineTimer.stop();
  if (!options.pruneReport.empty() &&
      failed(writePruneReport(module, options.pruneReport,
                              options.errorBudget ? &*options.errorBudget
                                                  : nullptr)))
    return failure();
  if (until < Phase::Lower) {
    OpPrintingFlags flags;
    if (!options.printWeights)
      flags.elideLargeElementsAttrs(16).elideLargeResourceString(64);
    return printIR(module, options.output, flags);
  }
  releaseUnusedWeights(context, {module, unfused.get(), reference.get()});
  FailureOr<HostTarget> host = resolveHostTarget(options.hostCpu);
  if (failed(host)) {
    llvm::errs() << "tsc: error: --cpu=" << options.hostCpu
                 << ": expected native, x86-64, x86-64-v3, x86-64-v4, "
                    "x86-64-v4+bf16 or x86-64-v4+amx\n";
    return failure();
  }
  TimingScope planTimer = phases.begin("plan");
  FailureOr<plan::Plan> plan = planModule(module, options);
  if (failed(plan))
    return failure();
  planTimer.stop();
  if (summary)
    *summary = summarize(*plan);
  TimingScope reportTimer =
      phases.begin("report (baseline plans, measured error)");
  if (reporting &&
      failed(report(module, *plan, options, unfused.get(), reference.get())))
    return failure();
  reportTimer.stop();
  unfused = nullptr;
  reference = nullptr;
  releaseUnusedWeights(context, module);
  if (options.emitDot) {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutput(options.output);
    if (!out)
      return failure();
    plan::printPlanDot(*plan, out->os());
    out->keep();
    return success();
  }
  if (!options.emit && options.output == "-")
    return success();

  bool cuda = options.target == TargetKind::Cuda;
  TimingScope lowerTimer = phases.begin("lower (kernels to linalg)");
  FailureOr<OwningOpRef<ModuleOp>> kernels = lowerPlan(
      *plan, context, cuda ? KernelABI::Device : KernelABI::Host,
      cuda || options.gpuLoopMapping, !cuda && (host->amx || host->avx512bf16));
  if (failed(kernels))
    return failure();
  lowerTimer.stop();
  TimingScope codegenTimer = phases.begin("codegen");
  if (until == Phase::Lower && options.emit)
    return printIR(**kernels, options.output, OpPrintingFlags());
  std::unique_ptr<llvm::ToolOutputFile> out;
  if (cuda) {
    FailureOr<std::vector<std::unique_ptr<cuda::TargetInfo>>> owned =
        getChips(options);
    if (failed(owned))
      return failure();
    SmallVector<const cuda::TargetInfo *> chips;
    for (const std::unique_ptr<cuda::TargetInfo> &chip : *owned)
      chips.push_back(chip.get());
    FailureOr<cuda::DeviceCode> code = buildDeviceCode(**kernels, *plan, chips);
    if (failed(code))
      return failure();
    if (until == Phase::Ptx)
      return writeDeviceCode(*code, chips, options.output);
    codegenTimer.stop();
    TimingScope writeTimer = phases.begin("write");
    if (!(out = openArtifact(options.output)))
      return failure();
    plan::extendPlan(*plan, std::move(code->planAdditions));
    std::vector<std::string> sparse = cuda::compressSparseWeights(*plan, *code);
    if (options.report && !options.reportJson && !sparse.empty())
      llvm::outs() << "sparsity (cuda):\n  " << llvm::join(sparse, "\n  ")
                   << "\n";
    return finishArtifact(
        *out, options.output,
        writeCudaArtifact(*plan, *code, chips, "tsc " TSC_VERSION, out->os()));
  }
  FailureOr<std::vector<char>> object =
      compileHostKernels(**kernels, *host, options.gpuLoopMapping);
  codegenTimer.stop();
  TimingScope writeTimer = phases.begin("write");
  if (failed(object) || !(out = openArtifact(options.output)))
    return failure();
  return finishArtifact(
      *out, options.output,
      writeArtifact(*plan, *object, host->isa, "tsc " TSC_VERSION, out->os()));
}

} // namespace

LogicalResult tsc::compile(ModuleOp module, const CompileOptions &options,
                           TimingScope *timing, CompileSummary *summary) {
  if (pruneByActivations(options) && failed(attachInputNorms(module, options)))
    return failure();
  // Calibrated once: the error budget's trial compiles keep different GEMMs
  // float, but the ranges are per GEMM op, quantized or not.
  FailureOr<CompileOptions> calibrated =
      calibrateForQuantization(module, options);
  if (failed(calibrated))
    return failure();
  if (!options.maxError)
    return compileAsAsked(module, *calibrated, timing, summary);
  // The budget chooses the options; the compile is then as usual.
  FailureOr<CompileOptions> fitted =
      fitErrorBudget(module, *calibrated, llvm::outs());
  return failure(failed(fitted) ||
                 failed(compileAsAsked(module, *fitted, timing, summary)));
}
