//===- Driver.cpp - the `tsc` and `tsc-opt` command-line front ends -------===//

#include "compiler/driver/Driver.h"
#include "compiler/InitAll.h"
#include "compiler/artifact/Signature.h"
#include "compiler/driver/Compile.h"
#include "compiler/importers/onnx/OnnxImporter.h"
#include "compiler/importers/torch_export/TorchExportImporter.h"
#include "compiler/importers/torchscript/TorchScriptImporter.h"
#include "compiler/pipeline/Prune.h"
#include "compiler/target/cuda/TargetInfo.h"
#include "compiler/target/host/HostCodegen.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>

using namespace mlir;
using namespace mlir::tsc;

namespace {

namespace cl = llvm::cl;

/// What --emit prints: the IR after a phase (the Phase of the same name),
/// or the plan as a Graphviz graph.
enum class Emit { Import, Graph, Prune, Quantize, Fuse, Lower, Ptx, Dot };

/// `--report` (text), `--report=json`, or no report.
enum class ReportFormat { None, Text, Json };

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
  cl::opt<Emit> emit{
      "emit",
      cl::desc("Print the IR after this phase instead of writing an artifact"),
      cl::values(
          clEnumValN(Emit::Import, "import", "as imported"),
          clEnumValN(Emit::Graph, "graph",
                     "canonical tsc graph with bound symbolic dims"),
          clEnumValN(Emit::Prune, "prune",
                     "after --prune: heads and neurons removed, "
                     "weights sparsified"),
          clEnumValN(Emit::Quantize, "quantize",
                     "GEMMs quantized as --quantize says"),
          clEnumValN(Emit::Fuse, "fuse",
                     "norms and activations recognised as single ops"),
          clEnumValN(Emit::Lower, "lower",
                     "the plan's kernels in linalg on tensors"),
          clEnumValN(Emit::Ptx, "ptx",
                     "CUDA targets: one .ptx and .cubin per kernel "
                     "launch, written to -o DIR/<chip>/"),
          clEnumValN(Emit::Dot, "dot",
                     "the plan as a Graphviz graph: one node per kernel or "
                     "library call, coloured by precision")),
      cl::cat(category)};
  cl::list<std::string> targets{
      "target",
      cl::desc("Code generation target: cpu (default), or cuda:sm_80, "
               "cuda:sm_90, ... (several may be given, comma-separated)"),
      cl::CommaSeparated, cl::cat(category)};
  cl::opt<std::string> cpu{
      "cpu",
      cl::desc("x86-64 level of host kernels: x86-64-v3 (default: AVX2 and "
               "FMA, which runs on any x86-64 CPU since 2015), x86-64, "
               "x86-64-v4 (AVX-512) or native (the best this machine runs)"),
      cl::init("x86-64-v3"), cl::cat(category)};
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
  cl::opt<std::string> quantize{
      "quantize",
      cl::desc("Quantization (docs/quantization.md): none (default), "
               "dynamic-int8 (GEMMs by constant weights in int8: weights per "
               "output channel at compile time, activations per row at run "
               "time) or static-int8 (activations per tensor by scales "
               "calibrated on --calibration); host target, fp32 precision"),
      cl::init("none"), cl::cat(category)};
  cl::opt<std::string> calibration{
      "calibration",
      cl::desc("--quantize=static-int8: a folder with one folder per sample, "
               "each holding NAME.npy for every model input"),
      cl::value_desc("DIR"), cl::cat(category)};
  cl::opt<std::string> calibrationMethod{
      "calibration-method",
      cl::desc("How calibration picks each activation range: min-max, "
               "percentile[=P] (default, P = 99.999) or entropy (KL, as "
               "TensorRT's calibrator)"),
      cl::init("percentile"), cl::cat(category)};
  cl::opt<bool> noFuse{
      "no-fuse",
      cl::desc("No fusion: skip the fuse phase's passes (attention, norms, "
               "activations, GEMM epilogues and merging) and plan one kernel "
               "per op (for comparison)"),
      cl::init(false), cl::cat(category)};
  cl::opt<ReportFormat> report{
      "report",
      cl::desc("Print the plan: kernels and library calls per layer, "
               "estimated memory traffic with fusion on and off, arena and "
               "weights (--report=json: the same as one JSON object)"),
      cl::ValueOptional,
      cl::values(clEnumValN(ReportFormat::Text, "", "text (the default)"),
                 clEnumValN(ReportFormat::Text, "text", "text"),
                 clEnumValN(ReportFormat::Json, "json", "one JSON object")),
      cl::init(ReportFormat::None),
      cl::cat(category)};
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
  cl::opt<std::string> signKey{
      "sign-key",
      cl::desc("Sign the artifact with this Ed25519 private key (PEM): "
               "writes OUT.tscm.sig, which the runtime verifies when the "
               "product gives it the public key"),
      cl::value_desc("KEY.pem"), cl::cat(category)};
  cl::opt<bool> allowExternalDataOutside{
      "allow-external-data-outside",
      cl::desc("Let an ONNX model's external data lie outside its folder "
               "(absolute paths, '..', symbolic links): only for trusted "
               "models"),
      cl::init(false), cl::cat(category)};
  cl::opt<bool> printPlanCount{
      "print-plan-count",
      cl::desc("Print on stderr how many plans the compile built"),
      cl::init(false), cl::Hidden, cl::cat(category)};
  cl::list<std::string> prune{
      "prune",
      cl::desc("Prune: heads=R (attention heads), ffn=R (FFN neurons), each "
               "per layer or with :global over all layers, magnitude=R "
               "(global L1 over the linear weights), 2:4 (semi-structured); "
               "comma-separated, R in [0, 1) (docs/pruning.md)"),
      cl::value_desc("SPEC[,SPEC...]"), cl::CommaSeparated, cl::cat(category)};
  cl::opt<std::string> maxError{
      "max-error",
      cl::desc("Error budget for --quantize or --prune: the largest relative "
               "L2 of an output against the model in fp32, measured on the "
               "host; GEMMs are kept float, or the pruning ratios scaled "
               "down, until it holds (docs/quantization.md, docs/pruning.md)"),
      cl::value_desc("E"), cl::init(""), cl::cat(category)};
  cl::list<std::string> keepFloat{
      "keep-float",
      cl::desc("With --quantize: GEMMs left float, glob patterns over their "
               "names (the source nodes'), as --max-error prints them"),
      cl::value_desc("PATTERN[,PATTERN...]"), cl::CommaSeparated,
      cl::cat(category)};
  cl::opt<std::string> pruneReport{
      "prune-report",
      cl::desc("Write what the prune phase removed (weights, indices, "
               "parameters and FLOPs per layer) and found already pruned as "
               "JSON"),
      cl::value_desc("file"), cl::init(""), cl::cat(category)};
  cl::opt<bool> timePhases{
      "time-phases",
      cl::desc("Print the wall time of each phase (import, the pipeline's "
               "passes, plan, report, lower, codegen, write) on stderr, as "
               "MLIR's --mlir-timing does"),
      cl::init(false), cl::cat(category)};
  cl::opt<double> progressAfter{
      "progress-after",
      cl::desc("Print a progress line on stderr at each phase once the "
               "compile has taken this many seconds (default 3; negative: "
               "never)"),
      cl::init(3.0), cl::Hidden, cl::cat(category)};
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

/// `NAME=MIN..MAX`, or `NAME=N` for a fixed size (MIN = MAX = N).
FailureOr<DimRangeOption> parseDimOption(StringRef text) {
  auto [name, range] = text.split('=');
  auto [minText, maxText] = range.split("..");
  if (!range.contains(".."))
    maxText = minText;
  DimRangeOption out{name.str(), 0, 0};
  if (name.empty() || !text.contains('=') ||
      minText.getAsInteger(10, out.min) || maxText.getAsInteger(10, out.max) ||
      out.min < 0 || out.min > out.max) {
    llvm::errs() << "tsc: error: --dim " << text
                 << ": expected NAME=MIN..MAX with 0 <= MIN <= MAX, or NAME=N "
                    "for a fixed size\n";
    return failure();
  }
  return out;
}

/// The plain symbols of an imported model that neither --dim nor the archive
/// ranged: they keep the importer's default range.
std::set<std::string> defaultRangedSymbols(ModuleOp module) {
  std::set<std::string> names;
  module.walk([&](SymbolOp symbol) {
    if (!symbol.isBoundFromData() && !symbol.getCommandLine() &&
        !symbol->hasAttr(kExportedRangeAttr))
      names.insert(symbol.getSymbol().str());
  });
  return names;
}

/// Warns about `names` with the ranges the compile gave them (the graph
/// phase narrows a default range to what the model allows).
void warnDefaultRanges(ModuleOp module, const std::set<std::string> &names) {
  std::map<std::string, std::string> ranges;
  module.walk([&](SymbolOp symbol) {
    std::string name = symbol.getSymbol().str();
    if (names.count(name))
      ranges[name] = name + " in [" + std::to_string(symbol.getLowest()) +
                     ", " + std::to_string(symbol.getHighest()) + "]";
  });
  if (ranges.empty())
    return;
  std::vector<std::string> list;
  for (const auto &entry : ranges)
    list.push_back(entry.second);
  llvm::errs() << "tsc: warning: no --dim for " << llvm::join(list, ", ")
               << ": the artifact accepts the default range (narrowed to what "
                  "the model allows) and plans its memory for the largest "
                  "sizes; give --dim NAME=MIN..MAX or --dim NAME=N for the "
                  "shapes you run\n";
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
      symbol.setCommandLine(true);
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

/// The CUDA chips and the host as --target names them.
LogicalResult parseTargets(ArrayRef<std::string> names,
                           CompileOptions &options) {
  bool cpu = false;
  for (StringRef name : names) {
    if (name == "cpu") {
      cpu = true;
    } else if (name.consume_front("cuda:")) {
      if (!cuda::createTargetInfo(name)) {
        llvm::errs() << "tsc: error: --target=cuda:" << name
                     << ": unknown chip (known: " << cuda::getKnownChips()
                     << ")\n";
        return failure();
      }
      options.cudaChips.push_back(name.str());
    } else {
      llvm::errs() << "tsc: error: --target=" << name
                   << ": unsupported target (cpu or cuda:sm_XX)\n";
      return failure();
    }
  }
  if (cpu && !options.cudaChips.empty()) {
    llvm::errs() << "tsc: error: --target: give either cpu or cuda targets\n";
    return failure();
  }
  options.target =
      options.cudaChips.empty() ? TargetKind::Host : TargetKind::Cuda;
  return success();
}

/// `--calibration-method=METHOD` into `calibration`; failure after saying
/// why.
LogicalResult parseCalibrationMethod(StringRef method,
                                     CalibrationOptions &calibration) {
  auto [name, value] = method.split('=');
  if (name == "min-max" && value.empty())
    calibration.method = CalibrationMethod::MinMax;
  else if (name == "entropy" && value.empty())
    calibration.method = CalibrationMethod::Entropy;
  else if (name == "percentile" &&
           (value.empty() ||
            (!value.getAsDouble(calibration.percentile) &&
             calibration.percentile > 0 && calibration.percentile <= 100)))
    calibration.method = CalibrationMethod::Percentile;
  else {
    llvm::errs() << "tsc: error: --calibration-method=" << method
                 << ": expected min-max, percentile[=P] (0 < P <= 100) or "
                    "entropy\n";
    return failure();
  }
  return success();
}

/// `--quantize=MODE` and its calibration flags into `options` (after the
/// target and the precision); failure after saying why a mode is refused.
LogicalResult parseQuantization(StringRef mode, const DriverOptions &flags,
                                CompileOptions &options) {
  bool calibrated = mode == "static-int8";
  if (!calibrated && (flags.calibration.getNumOccurrences() ||
                      flags.calibrationMethod.getNumOccurrences())) {
    llvm::errs() << "tsc: error: --calibration and --calibration-method go "
                    "with --quantize=static-int8\n";
    return failure();
  }
  if (mode == "none")
    return success();
  if (mode == "fp8" || mode.starts_with("weight-")) {
    llvm::errs() << "tsc: error: --quantize=" << mode
                 << ": not implemented yet (available: dynamic-int8, "
                    "static-int8)\n";
    return failure();
  }
  if (mode != "dynamic-int8" && !calibrated) {
    llvm::errs() << "tsc: error: --quantize=" << mode
                 << ": expected none, dynamic-int8 or static-int8\n";
    return failure();
  }
  if (options.target != TargetKind::Host) {
    llvm::errs() << "tsc: error: --quantize=" << mode
                 << ": the CUDA target has no int8 GEMM step yet (host "
                    "target only)\n";
    return failure();
  }
  if (options.precision != Precision::FP32) {
    llvm::errs() << "tsc: error: --quantize=" << mode
                 << " with --precision=" << getPrecisionName(options.precision)
                 << ": quantization keeps fp32 around the int8 GEMMs; "
                    "combine it with --precision=fp32 only\n";
    return failure();
  }
  if (calibrated && flags.calibration.empty()) {
    llvm::errs() << "tsc: error: --quantize=static-int8 needs --calibration "
                    "DIR (one folder of NAME.npy inputs per sample)\n";
    return failure();
  }
  options.calibration.directory = flags.calibration;
  if (calibrated && failed(parseCalibrationMethod(flags.calibrationMethod,
                                                  options.calibration)))
    return failure();
  options.quantize =
      calibrated ? Quantization::StaticInt8 : Quantization::DynamicInt8;
  return success();
}

/// The flags as typed options; failure after saying which flag is wrong.
FailureOr<CompileOptions> getCompileOptions(const DriverOptions &flags) {
  CompileOptions options;
  if (flags.emit.getNumOccurrences() > 0) {
    Emit emit = flags.emit.getValue();
    static constexpr Phase kPhases[] = {
        Phase::Import, Phase::Graph, Phase::Prune, Phase::Quantize,
        Phase::Fuse,   Phase::Lower, Phase::Ptx};
    if (emit == Emit::Dot)
      options.emitDot = true;
    else
      options.emit = kPhases[static_cast<int>(emit)];
  }
  options.output = flags.output;
  if (failed(parseTargets(flags.targets, options)))
    return failure();
  if (options.emit == Phase::Ptx && options.target != TargetKind::Cuda) {
    llvm::errs() << "tsc: error: --emit=ptx needs a CUDA target "
                    "(--target=cuda:sm_90)\n";
    return failure();
  }
  if (options.emit == Phase::Ptx && options.output == "-") {
    llvm::errs() << "tsc: error: --emit=ptx writes files: give -o DIR\n";
    return failure();
  }
  std::optional<Precision> precision =
      llvm::StringSwitch<std::optional<Precision>>(flags.precision)
          .Case("fp32", Precision::FP32)
          .Case("tf32", Precision::TF32)
          .Case("fp16", Precision::FP16)
          .Case("bf16", Precision::BF16)
          .Default(std::nullopt);
  if (!precision) {
    llvm::errs() << "tsc: error: --precision=" << flags.precision
                 << ": expected fp32, tf32, fp16 or bf16\n";
    return failure();
  }
  options.precision = *precision;
  if (flags.precisionIO != "model" &&
      (flags.precisionIO != "storage" || !isHalfPrecision(*precision))) {
    llvm::errs() << "tsc: error: --precision-io=" << flags.precisionIO
                 << (flags.precisionIO == "storage"
                         ? ": needs --precision=fp16 or bf16"
                         : ": expected model or storage")
                 << "\n";
    return failure();
  }
  if (flags.precisionIO == "storage")
    options.precisionIO = PrecisionIO::Storage;
  if (failed(parseQuantization(flags.quantize, flags, options)))
    return failure();
  bool report = flags.report != ReportFormat::None;
  if (!options.emit && !options.emitDot && !report && options.output == "-") {
    llvm::errs() << "tsc: error: give -o FILE.tscm to write an artifact, "
                    "--emit=PHASE to print IR, or --report\n";
    return failure();
  }
  options.hostCpu = flags.cpu;
  options.gpuLoopMapping = flags.gpuLoopMapping;
  options.fuse = !flags.noFuse;
  options.useGemmLibrary = !flags.generatedGemms;
  options.report = report;
  options.reportJson = flags.report == ReportFormat::Json;
  options.printWeights = flags.printWeights;
  if (llvm::Expected<PruneSpecs> specs = parsePruneSpecs(flags.prune); !specs) {
    llvm::errs() << "tsc: error: " << llvm::toString(specs.takeError()) << "\n";
    return failure();
  }
  options.prune.assign(flags.prune.begin(), flags.prune.end());
  options.pruneReport = flags.pruneReport;
  options.keepFloat.assign(flags.keepFloat.begin(), flags.keepFloat.end());
  if (!options.keepFloat.empty() && options.quantize == Quantization::None) {
    llvm::errs() << "tsc: error: --keep-float names GEMMs to leave float: it "
                    "needs --quantize\n";
    return failure();
  }
  if (!flags.maxError.empty()) {
    double budget = 0;
    if (StringRef(flags.maxError).getAsDouble(budget) || !(budget > 0)) {
      llvm::errs() << "tsc: error: --max-error=" << flags.maxError
                   << ": expected a relative L2 error E > 0 (e.g. 1e-2)\n";
      return failure();
    }
    options.maxError = budget;
  }
  options.progressAfter = flags.progressAfter;
  return options;
}

} // namespace

static void printVersion(llvm::raw_ostream &os) {
  os << "tsc " << TSC_VERSION << " (LLVM/MLIR " << LLVM_VERSION_STRING
     << ")\n";
}

int mlir::tsc::runTscDriver(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DriverOptions flags;
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::SetVersionPrinter(printVersion);
  cl::HideUnrelatedOptions(flags.category);
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

  // --time-phases (or MLIR's --mlir-timing): a tree of phase times on
  // stderr when the timers go out of scope.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  if (flags.timePhases) {
    timing.setEnabled(true);
    timing.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
  }
  TimingScope rootTimer = timing.getRootScope();
  llvm::TimeRecord start = llvm::TimeRecord::getCurrentTime();
  TimingScope importTimer = rootTimer.nest("import");
  OwningOpRef<ModuleOp> module = importModel(flags, context, sourceMgr);
  if (!module || failed(applyDimRanges(*module, flags.dims)))
    return 1;
  importTimer.stop();
  double importSeconds =
      llvm::TimeRecord::getCurrentTime().getWallTime() - start.getWallTime();
  FailureOr<CompileOptions> options = getCompileOptions(flags);
  if (failed(options))
    return 1;
  bool artifact = !options->emit && !options->emitDot && options->output != "-";
  if (!flags.signKey.empty() && !artifact) {
    llvm::errs() << "tsc: error: --sign-key signs an artifact: give -o "
                    "FILE.tscm\n";
    return 1;
  }
  if (!flags.signKey.empty() && failed(checkSigningKey(flags.signKey)))
    return 1;
  // A .mlir module states its ranges itself; an import's come from --dim,
  // the archive, or the importer's default, which deserves a word.
  std::set<std::string> defaulted;
  if (!options->emit && llvm::sys::path::extension(flags.input) != ".mlir")
    defaulted = defaultRangedSymbols(*module);
  if (failed(compile(*module, *options,
                     timing.isEnabled() ? &rootTimer : nullptr)))
    return 1;
  warnDefaultRanges(*module, defaulted);
  if (!flags.signKey.empty() &&
      failed(signArtifact(options->output, flags.signKey)))
    return 1;
  // One line for a written artifact: what, for which CPU level, how big,
  // how long.
  if (artifact) {
    uint64_t bytes = 0;
    (void)llvm::sys::fs::file_size(options->output, bytes);
    double seconds =
        llvm::TimeRecord::getCurrentTime().getWallTime() - start.getWallTime();
    std::string isa;
    if (options->target == TargetKind::Host)
      if (FailureOr<HostTarget> host = resolveHostTarget(options->hostCpu);
          succeeded(host))
        isa = " for " + host->cpu +
              (host->cpu == "x86-64-v4"   ? " (AVX-512)"
               : host->cpu == "x86-64-v3" ? " (AVX2)"
                                          : " (SSE2)");
    llvm::errs() << llvm::format(
        "tsc: wrote %s%s%s (%.1f MiB) in %.1f s (import %.1f s); `tsc-run %s "
        "--info` shows what it holds\n",
        options->output.c_str(), flags.signKey.empty() ? "" : " and its .sig",
        isa.c_str(), double(bytes) / (1024.0 * 1024.0), seconds, importSeconds,
        options->output.c_str());
  }
  if (flags.printPlanCount)
    llvm::errs() << "tsc: plans built: " << getNumPlansBuilt() << "\n";
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
