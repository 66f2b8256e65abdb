//===- Driver.cpp - the `tsc` and `tsc-opt` command-line front ends -------===//

#include "compiler/driver/Driver.h"
#include "compiler/InitAll.h"
#include "compiler/artifact/Artifact.h"
#include "compiler/driver/MeasuredError.h"
#include "compiler/plan/Plan.h"
#include "compiler/target/cuda/CudaCodegen.h"
#include "compiler/target/host/HostCodegen.h"
#include "compiler/importers/onnx/OnnxImporter.h"
#include "compiler/importers/torch_export/TorchExportImporter.h"
#include "compiler/importers/torchscript/TorchScriptImporter.h"
#include "compiler/pipeline/Pipeline.h"
#include "dialects/tsc/IR/TscOps.h"
#include "passes/transforms/Weights.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::tsc;

namespace {

namespace cl = llvm::cl;

/// The options of `tsc`, constructed once per run of the driver.
struct DriverOptions {
  cl::OptionCategory category{"tsc options"};
  cl::opt<std::string> input{
      cl::Positional, cl::Required,
      cl::desc("<model: .onnx, .onnxtxt (textual ONNX), .pt2 (torch.export "
               "archive), .pt/.pth (TorchScript archive) or .mlir>"),
      cl::cat(category)};
  cl::opt<std::string> output{"o", cl::desc("Output file ('-' for stdout)"),
                              cl::value_desc("file"), cl::init("-"),
                              cl::cat(category)};
  cl::opt<Phase> emit{
      "emit",
      cl::desc("Print the IR after this phase instead of writing an artifact"),
      cl::values(clEnumValN(Phase::Import, "import", "as imported"),
                 clEnumValN(Phase::Graph, "graph",
                            "canonical tsc graph with bound symbolic dims"),
                 clEnumValN(Phase::Fuse, "fuse",
                            "norms and activations recognised as single ops"),
                 clEnumValN(Phase::Lower, "lower",
                            "the plan's kernels in linalg on tensors"),
                 clEnumValN(Phase::Ptx, "ptx",
                            "CUDA targets: one .ptx and .cubin per kernel "
                            "launch, written to -o DIR/<chip>/")),
      cl::cat(category)};
  cl::list<std::string> targets{
      "target",
      cl::desc("Code generation target: cpu (default), or cuda:sm_80, "
               "cuda:sm_90, ... (several may be given, comma-separated)"),
      cl::CommaSeparated, cl::cat(category)};
  cl::opt<std::string> cpu{
      "cpu",
      cl::desc("x86-64 level of host kernels: native (default: the best this "
               "machine runs), x86-64, x86-64-v3 (AVX2) or x86-64-v4 "
               "(AVX-512)"),
      cl::init("native"), cl::cat(category)};
  cl::opt<bool> generatedGemms{
      "generated-gemms",
      cl::desc("Generate fp32 matmul/linear kernels instead of calling the "
               "GEMM library (for comparison)"),
      cl::init(false), cl::cat(category)};
  cl::opt<std::string> precision{
      "precision",
      cl::desc("Storage and compute precision: fp32 (default, TF32 off), "
               "tf32 (GEMMs may round their inputs to TF32; CUDA only, the "
               "CPU computes fp32), fp16 or bf16 (weights and activations "
               "stored in half precision, computed and accumulated in fp32; "
               "the model's inputs and outputs keep their types)"),
      cl::init("fp32"), cl::cat(category)};
  cl::opt<std::string> precisionIO{
      "precision-io",
      cl::desc("With --precision=fp16|bf16: model (default: float inputs "
               "and outputs keep the model's types, converted at the edges) "
               "or storage (they are fp16/bf16 too, for callers holding "
               "half-precision tensors)"),
      cl::init("model"), cl::cat(category)};
  cl::opt<bool> noFuse{
      "no-fuse",
      cl::desc("No fusion: skip the fuse phase's passes (attention, norms, "
               "activations, GEMM epilogues and merging) and plan one kernel "
               "per op (for comparison)"),
      cl::init(false), cl::cat(category)};
  cl::opt<bool> report{
      "report",
      cl::desc("Print the plan: kernels and library calls per layer, "
               "estimated memory traffic with fusion on and off, arena and "
               "weights"),
      cl::init(false), cl::cat(category)};
  cl::list<std::string> dims{
      "dim", cl::desc("Range of a symbolic dim, e.g. --dim seq=1..512"),
      cl::value_desc("NAME=MIN..MAX"), cl::cat(category)};
  cl::opt<bool> gpuLoopMapping{
      "gpu-loop-mapping",
      cl::desc("Host kernels with the CUDA target's loop mapping (tiles of "
               "256, bounds guards, one-iteration launches): checks that "
               "mapping's numerics on the CPU"),
      cl::init(false), cl::Hidden, cl::cat(category)};
  cl::list<std::string> inputs{
      "input",
      cl::desc("Element type and dims of an input of a TorchScript model's "
               "forward, e.g. --input input_ids=i64[batch,seq] (named dims "
               "are symbols; ranges from --dim)"),
      cl::value_desc("NAME=TYPE[DIMS]"), cl::cat(category)};
  cl::opt<bool> allowExternalDataOutside{
      "allow-external-data-outside",
      cl::desc("Let an ONNX model's external data lie outside its folder "
               "(absolute paths, '..', symbolic links): only for trusted "
               "models"),
      cl::init(false), cl::cat(category)};
  cl::opt<bool> printWeights{
      "print-weights",
      cl::desc("Print weight blobs in full instead of eliding them"),
      cl::init(false), cl::cat(category)};
};

/// One `--dim NAME=MIN..MAX` setting.
struct DimRangeOption {
  std::string name;
  int64_t min, max;
};

FailureOr<DimRangeOption> parseDimOption(StringRef text) {
  auto [name, range] = text.split('=');
  auto [minText, maxText] = range.split("..");
  DimRangeOption out{name.str(), 0, 0};
  if (name.empty() || minText.getAsInteger(10, out.min) ||
      maxText.getAsInteger(10, out.max) || out.min < 0 || out.min > out.max) {
    llvm::errs() << "tsc: error: --dim " << text
                 << ": expected NAME=MIN..MAX with 0 <= MIN <= MAX\n";
    return failure();
  }
  return out;
}

/// Applies --dim ranges to the module's tsc.symbol declarations.
LogicalResult applyDimRanges(ModuleOp module,
                             ArrayRef<std::string> settings) {
  for (StringRef text : settings) {
    FailureOr<DimRangeOption> setting = parseDimOption(text);
    if (failed(setting))
      return failure();
    bool found = false, outside = false;
    std::set<std::string> known;
    module.walk([&](SymbolOp symbol) {
      known.insert(symbol.getSymbol().str());
      if (symbol.getSymbol() != setting->name)
        return;
      found = true;
      auto exported =
          symbol->getAttrOfType<DenseI64ArrayAttr>(kExportedRangeAttr);
      if (exported && exported.size() == 2 &&
          (setting->min < exported[0] || setting->max > exported[1])) {
        llvm::errs() << "tsc: error: --dim " << text << ": the model was "
                     << "exported for " << setting->name << " in ["
                     << exported[0] << ", " << exported[1]
                     << "]; --dim may narrow that range, not widen it\n";
        outside = true;
        return;
      }
      Builder builder(symbol);
      symbol.setMinAttr(builder.getI64IntegerAttr(setting->min));
      symbol.setMaxAttr(builder.getI64IntegerAttr(setting->max));
      // The graph phase checks user ranges against the model instead of
      // tightening them.
      symbol->setAttr("tsc.command_line", builder.getUnitAttr());
    });
    if (outside)
      return failure();
    if (!found) {
      llvm::errs() << "tsc: error: --dim " << text << ": the model has no "
                   << "symbolic dim named '" << setting->name << "'";
      if (!known.empty()) {
        llvm::errs() << " (it has:";
        for (const std::string &name : known)
          llvm::errs() << " " << name;
        llvm::errs() << ")";
      }
      llvm::errs() << "\n";
      return failure();
    }
  }
  return success();
}

/// Reads the model named by --input-file into a module, by its extension.
OwningOpRef<ModuleOp> importModel(const DriverOptions &driverOptions,
                                  MLIRContext &context,
                                  llvm::SourceMgr &sourceMgr) {
  StringRef path = driverOptions.input;
  ArrayRef<std::string> inputSpecs = driverOptions.inputs;
  StringRef extension = llvm::sys::path::extension(path);
  auto adopt = [](FailureOr<OwningOpRef<ModuleOp>> module) {
    return failed(module) ? OwningOpRef<ModuleOp>() : std::move(*module);
  };
  // torch.export archives by extension, or by content when saved as .pt.
  bool torchExport =
      extension == ".pt2" || ((extension == ".pt" || extension == ".pth") &&
                              isTorchExportArchive(path));
  if (torchExport && inputSpecs.empty()) {
    TorchExportImportOptions options;
    options.path = path.str();
    return adopt(importTorchExportModel(&context, options));
  }
  if (!torchExport && (extension == ".pt" || extension == ".pth")) {
    TorchScriptImportOptions options;
    options.path = path.str();
    for (StringRef text : inputSpecs) {
      std::string message;
      FailureOr<TorchInputSpec> spec = parseTorchInputSpec(text, message);
      if (failed(spec)) {
        llvm::errs() << "tsc: error: " << message << "\n";
        return nullptr;
      }
      options.inputs.push_back(std::move(*spec));
    }
    return adopt(importTorchScriptModel(&context, options));
  }
  if (!inputSpecs.empty()) {
    llvm::errs() << "tsc: error: --input applies to TorchScript archives "
                    "(.pt); "
                 << path << " records its input shapes itself\n";
    return nullptr;
  }
  if (extension == ".onnx" || extension == ".onnxtxt") {
    OnnxImportOptions options;
    options.path = path.str();
    options.allowExternalDataOutside = driverOptions.allowExternalDataOutside;
    return adopt(importOnnxModel(&context, options));
  }
  if (extension != ".mlir") {
    llvm::errs() << "tsc: error: " << path << ": unsupported input format '"
                 << extension
                 << "' (tsc reads .onnx, .onnxtxt, .pt2, .pt, .pth and "
                    ".mlir)\n";
    return nullptr;
  }
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &message);
  if (!file) {
    llvm::errs() << "tsc: error: " << message << "\n";
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

/// Prints diagnostics located in model files that have no line numbers (ONNX:
/// `file:0:0`, or a node's NameLoc around it) as `file: error: 'node': ...`;
/// everything else goes on to the SourceMgr handler, which shows source lines.
LogicalResult printModelDiagnostic(Diagnostic &diag) {
  Location loc = diag.getLocation();
  std::string name;
  if (auto named = dyn_cast<NameLoc>(loc)) {
    name = named.getName().str();
    loc = named.getChildLoc();
  }
  // A module scope the importer nests inside the node's name.
  while (auto scope = dyn_cast<NameLoc>(loc))
    loc = scope.getChildLoc();
  auto file = dyn_cast<FileLineColLoc>(loc);
  if (!file || file.getLine() != 0)
    return failure();
  auto print = [&](const Diagnostic &d, StringRef indent) {
    StringRef severity = d.getSeverity() == DiagnosticSeverity::Error
                             ? "error"
                             : d.getSeverity() == DiagnosticSeverity::Warning
                                   ? "warning"
                                   : d.getSeverity() == DiagnosticSeverity::Note
                                         ? "note"
                                         : "remark";
    std::string message = d.str();
    llvm::errs() << indent << file.getFilename().getValue() << ": " << severity
                 << ": ";
    if (!name.empty() && message.find("'" + name + "'") == std::string::npos)
      llvm::errs() << "'" << name << "': ";
    llvm::errs() << message << "\n";
  };
  print(diag, "");
  for (const Diagnostic &note : diag.getNotes())
    print(note, "  ");
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

/// What --target asked for: the host CPU, or CUDA chips.
struct Targets {
  bool cpu = false;
  std::vector<std::unique_ptr<cuda::TargetInfo>> cuda;
};

FailureOr<Targets> parseTargets(ArrayRef<std::string> names) {
  Targets targets;
  for (StringRef name : names) {
    if (name == "cpu") {
      targets.cpu = true;
    } else if (name.consume_front("cuda:")) {
      std::unique_ptr<cuda::TargetInfo> info = cuda::createTargetInfo(name);
      if (!info) {
        llvm::errs() << "tsc: error: --target=cuda:" << name
                     << ": unknown chip (known: " << cuda::getKnownChips()
                     << ")\n";
        return failure();
      }
      targets.cuda.push_back(std::move(info));
    } else {
      llvm::errs() << "tsc: error: --target=" << name
                   << ": unsupported target (cpu or cuda:sm_XX)\n";
      return failure();
    }
  }
  if (targets.cuda.empty())
    targets.cpu = true;
  if (targets.cpu && !targets.cuda.empty()) {
    llvm::errs() << "tsc: error: --target: give either cpu or cuda targets\n";
    return failure();
  }
  return targets;
}

/// The CUDA targets' infos, in --target order.
SmallVector<const cuda::TargetInfo *> getChips(const Targets &targets) {
  SmallVector<const cuda::TargetInfo *> chips;
  for (const std::unique_ptr<cuda::TargetInfo> &target : targets.cuda)
    chips.push_back(target.get());
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

/// `--emit=ptx -o DIR`: per chip, DIR/<chip>/<module>.ptx and, when ptxas is
/// there, the SASS it assembles (.cubin). Prints one line per chip.
int emitDeviceCode(ModuleOp kernels, const plan::Plan &plan,
                   const Targets &targets, StringRef directory) {
  SmallVector<const cuda::TargetInfo *> chips = getChips(targets);
  FailureOr<cuda::DeviceCode> code = buildDeviceCode(kernels, plan, chips);
  if (failed(code))
    return 1;
  for (auto [target, modules] : llvm::zip_equal(chips, code->modules)) {
    bool assembled = llvm::all_of(modules, [](const cuda::DeviceModule &m) {
      return !m.cubin.empty();
    });
    SmallString<128> dir(directory);
    llvm::sys::path::append(dir, target->getChip());
    if (std::error_code error = llvm::sys::fs::create_directories(dir)) {
      llvm::errs() << "tsc: error: cannot create " << dir << ": "
                   << error.message() << "\n";
      return 1;
    }
    size_t ptxBytes = 0, sassBytes = 0;
    for (cuda::DeviceModule &module : modules) {
      SmallString<128> path(dir);
      llvm::sys::path::append(path, module.name + ".ptx");
      if (failed(writeFile(path, module.ptx)))
        return 1;
      ptxBytes += module.ptx.size();
      if (!module.cubin.empty()) {
        llvm::sys::path::replace_extension(path, "cubin");
        if (failed(writeFile(path, StringRef(module.cubin.data(),
                                             module.cubin.size()))))
          return 1;
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
  return 0;
}

/// Frees the data of every weight that no op of `live` refers to: the
/// originals of weights a pass replaced (merged GEMMs, converted precision)
/// and those only a dropped report baseline used. Weights mapped from
/// external data give their pages back.
void releaseUnusedWeights(MLIRContext *context, ArrayRef<ModuleOp> live) {
  SmallVector<Operation *> roots;
  for (ModuleOp module : live)
    roots.push_back(module);
  freeUnreferencedWeights(context, roots);
}

/// The lower and codegen phases: plan, kernels, artifact.
/// `unfused`, when given, is the same model without the fuse phase: the
/// report compares its plan (one kernel per op) with the fused one.
/// `reference`, when given, is the model before --precision: the report
/// measures the error against it. Both are dropped after the report.
int compileModel(ModuleOp module, const DriverOptions &options,
                 const Targets &targets, Phase until,
                 OwningOpRef<ModuleOp> unfused = {},
                 OwningOpRef<ModuleOp> reference = {}) {
  bool emitting = options.emit.getNumOccurrences() > 0;
  auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
  if (funcs.size() != 1) {
    module.emitError() << "expected one function to compile, found "
                       << funcs.size();
    return 1;
  }
  FailureOr<HostTarget> target = resolveHostTarget(options.cpu);
  if (failed(target)) {
    llvm::errs() << "tsc: error: --cpu=" << options.cpu
                 << ": expected native, x86-64, x86-64-v3 or x86-64-v4\n";
    return 1;
  }
  target->gpuLoopMapping = options.gpuLoopMapping;
  plan::PlanOptions planOptions;
  planOptions.useGemmLibrary = !options.generatedGemms;
  planOptions.fuseKernels = !options.noFuse;
  planOptions.precision = llvm::StringSwitch<Precision>(options.precision)
                              .Case("tf32", Precision::TF32)
                              .Case("fp16", Precision::FP16)
                              .Case("bf16", Precision::BF16)
                              .Default(Precision::FP32);
  planOptions.halfIO = options.precisionIO == "storage";
  FailureOr<plan::Plan> plan = plan::buildPlan(funcs.front(), planOptions);
  if (failed(plan))
    return 1;
  if (options.report) {
    std::optional<plan::Plan> baseline;
    if (unfused) {
      plan::PlanOptions off = planOptions;
      off.fuseKernels = false;
      auto unfusedFuncs = llvm::to_vector(unfused->getOps<func::FuncOp>());
      FailureOr<plan::Plan> other = plan::buildPlan(unfusedFuncs.front(), off);
      if (failed(other))
        return 1;
      baseline = std::move(*other);
    }
    plan::printReport(*plan, baseline ? &*baseline : nullptr, llvm::outs());
    // Reduced precision states what it costs on this model (DESIGN.md).
    if (reference) {
      OwningOpRef<ModuleOp> reduced = module.clone();
      if (failed(reportMeasuredError(*reference, *reduced, options.precision,
                                     llvm::outs())))
        return 1;
    }
  }
  unfused = nullptr;
  reference = nullptr;
  releaseUnusedWeights(module.getContext(), module);
  if (!emitting && options.output == "-")
    return 0;
  bool cuda = !targets.cuda.empty();
  FailureOr<OwningOpRef<ModuleOp>> kernels = outlineKernels(
      *plan, module.getContext(), cuda ? KernelABI::Device : KernelABI::Host);
  // The CUDA loop structure (on the device, or on the host for
  // --gpu-loop-mapping) keeps attention's key and value blocks in shared
  // memory.
  int64_t keyValueBytes =
      cuda || options.gpuLoopMapping ? cuda::kMaxSharedBytes : 0;
  if (failed(kernels) || failed(lowerKernels(**kernels, keyValueBytes)))
    return 1;
  if (until == Phase::Ptx)
    return emitDeviceCode(**kernels, *plan, targets, options.output);
  if (emitting) {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutput(options.output);
    if (!out)
      return 1;
    (*kernels)->print(out->os());
    out->os() << "\n";
    out->keep();
    return 0;
  }
  // The weights stream from their constants into the file, whose header is
  // completed last: a file, not a pipe.
  auto openArtifact = [&]() -> std::unique_ptr<llvm::ToolOutputFile> {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutput(options.output);
    if (out && !out->os().supportsSeeking()) {
      llvm::errs() << "tsc: error: -o " << options.output
                   << ": an artifact is written to a file, not a pipe or a "
                      "terminal\n";
      return nullptr;
    }
    return out;
  };
  std::unique_ptr<llvm::ToolOutputFile> out;
  LogicalResult written = failure();
  if (cuda) {
    SmallVector<const cuda::TargetInfo *> chips = getChips(targets);
    FailureOr<cuda::DeviceCode> code = buildDeviceCode(**kernels, *plan, chips);
    if (failed(code) || !(out = openArtifact()))
      return 1;
    plan::extendPlan(*plan, std::move(code->planAdditions));
    written =
        writeCudaArtifact(*plan, *code, chips, "tsc " TSC_VERSION, out->os());
  } else {
    FailureOr<std::vector<char>> object = compileKernels(**kernels, *target);
    if (failed(object) || !(out = openArtifact()))
      return 1;
    written = writeArtifact(*plan, *object, target->isa, "tsc " TSC_VERSION,
                            out->os());
  }
  if (failed(written)) {
    llvm::errs() << "tsc: error: the plan has an expression the artifact "
                    "format cannot encode\n";
    return 1;
  }
  out->os().flush();
  if (std::error_code error = out->os().error()) {
    llvm::errs() << "tsc: error: cannot write " << options.output << ": "
                 << error.message() << "\n";
    out->os().clear_error();
    return 1;
  }
  out->keep();
  return 0;
}

} // namespace

static void printVersion(llvm::raw_ostream &os) {
  os << "tsc " << TSC_VERSION << " (LLVM/MLIR " << LLVM_VERSION_STRING
     << ")\n";
}

int mlir::tsc::runTscDriver(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DriverOptions options;
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  cl::SetVersionPrinter(printVersion);
  cl::HideUnrelatedOptions(options.category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tsc: ahead-of-time compiler for transformer models\n\n"
      "Exit status: 0 on success, 1 when the model or the options are "
      "rejected (the reason is printed on stderr).\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // Users get messages, not IR dumps; tsc-opt keeps MLIR's default.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  ScopedDiagnosticHandler modelDiagnostics(&context, printModelDiagnostic);

  OwningOpRef<ModuleOp> module = importModel(options, context, sourceMgr);
  if (!module || failed(applyDimRanges(*module, options.dims)))
    return 1;

  bool emitting = options.emit.getNumOccurrences() > 0;
  Phase until = emitting ? options.emit.getValue() : Phase::Lower;
  FailureOr<Targets> targets = parseTargets(options.targets);
  if (failed(targets))
    return 1;
  if (until == Phase::Ptx && targets->cuda.empty()) {
    llvm::errs() << "tsc: error: --emit=ptx needs a CUDA target "
                    "(--target=cuda:sm_90)\n";
    return 1;
  }
  if (until == Phase::Ptx && options.output == "-") {
    llvm::errs() << "tsc: error: --emit=ptx writes files: give -o DIR\n";
    return 1;
  }
  if (!llvm::is_contained({"fp32", "tf32", "fp16", "bf16"},
                          StringRef(options.precision))) {
    llvm::errs() << "tsc: error: --precision=" << options.precision
                 << ": expected fp32, tf32, fp16 or bf16\n";
    return 1;
  }
  if (options.precisionIO != "model" &&
      (options.precisionIO != "storage" ||
       (options.precision != "fp16" && options.precision != "bf16"))) {
    llvm::errs() << "tsc: error: --precision-io=" << options.precisionIO
                 << (options.precisionIO == "storage"
                         ? ": needs --precision=fp16 or bf16"
                         : ": expected model or storage")
                 << "\n";
    return 1;
  }
  if (!emitting && !options.report && options.output == "-") {
    llvm::errs() << "tsc: error: give -o FILE.tscm to write an artifact, "
                    "--emit=PHASE to print IR, or --report\n";
    return 1;
  }

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  TscPipelineOptions pipeline;
  pipeline.until = std::min(until, Phase::Fuse);
  pipeline.fuse = false;
  buildTscPipeline(pm, pipeline);
  if (failed(pm.run(*module)))
    return 1;
  releaseUnusedWeights(&context, *module);
  // The fuse phase on its own, so that the report can plan the graph without
  // it too.
  OwningOpRef<ModuleOp> unfused;
  if (until >= Phase::Fuse && !options.noFuse) {
    if (options.report && until >= Phase::Lower)
      unfused = module->clone();
    PassManager fuse(&context);
    if (failed(applyPassManagerCLOptions(fuse)))
      return 1;
    // Without the report's baselines, nothing shares the weights that GEMM
    // merging replaces: they are freed group by group.
    // cuBLASLt's GELU epilogue is the tanh approximation: with a CUDA
    // target, an exact GELU stays its own kernel.
    buildFusePhase(fuse, /*freeReplacedWeights=*/!options.report,
                   /*erfGeluEpilogue=*/targets->cuda.empty());
    if (failed(fuse.run(*module)))
      return 1;
    // The Q/K/V and gate/up weights that merged GEMMs replaced.
    releaseUnusedWeights(&context, {*module, unfused.get()});
  }
  // Half-precision storage, on the baseline too so that the report compares
  // like with like; the report measures the error against the fp32 graph.
  OwningOpRef<ModuleOp> reference;
  if (until >= Phase::Fuse &&
      (options.precision == "fp16" || options.precision == "bf16")) {
    if (options.report && until >= Phase::Lower)
      reference = module->clone();
    for (ModuleOp m : {*module, unfused ? *unfused : ModuleOp()}) {
      if (!m)
        continue;
      PassManager precision(&context);
      if (failed(applyPassManagerCLOptions(precision)))
        return 1;
      buildPrecisionPhase(precision,
                          options.precision == "fp16" ? "f16" : "bf16",
                          options.precisionIO == "storage",
                          /*freeReplacedWeights=*/!options.report);
      if (failed(precision.run(m)))
        return 1;
    }
    // The f32 weights converted to half, unless the report's reference
    // keeps them.
    releaseUnusedWeights(&context, {*module, unfused.get(), reference.get()});
  }
  if (until >= Phase::Lower)
    return compileModel(*module, options, *targets, until, std::move(unfused),
                        std::move(reference));

  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> out =
      openOutputFile(options.output, &message);
  if (!out) {
    llvm::errs() << "tsc: error: " << message << "\n";
    return 1;
  }
  OpPrintingFlags flags;
  if (!options.printWeights)
    flags.elideLargeElementsAttrs(16).elideLargeResourceString(64);
  module->print(out->os(), flags);
  out->os() << "\n";
  out->keep();
  return 0;
}

int mlir::tsc::runTscOpt(int argc, char **argv) {
  registerAllPasses();
  DialectRegistry registry;
  registerAllDialects(registry);
  return asMainReturnCode(MlirOptMain(
      argc, argv, "tsc-opt: run tsc passes and pipelines on .mlir files\n",
      registry));
}
