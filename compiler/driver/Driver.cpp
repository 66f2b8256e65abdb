//===- Driver.cpp - the `tsc` and `tsc-opt` command-line front ends -------===//

#include "compiler/driver/Driver.h"
#include "compiler/InitAll.h"
#include "compiler/artifact/Signature.h"
#include "compiler/driver/Compile.h"
#include "compiler/driver/DimRanges.h"
#include "compiler/driver/DriverOptions.h"
#include "compiler/importers/onnx/OnnxImporter.h"
#include "compiler/importers/torch_export/TorchExportImporter.h"
#include "compiler/importers/torchscript/TorchScriptImporter.h"
#include "compiler/target/host/HostCodegen.h"

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
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Timer.h"

using namespace mlir;
using namespace mlir::tsc;

namespace {

namespace cl = llvm::cl;

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

} // namespace

static void printVersion(llvm::raw_ostream &os) {
  os << "tsc " << TSC_VERSION << " (LLVM/MLIR " << LLVM_VERSION_STRING
     << ")\n";
}

namespace {

/// Parses the command line into `flags`, beside MLIR's own options (timing,
/// printing, pass manager) that `tsc` also takes.
void parseCommandLine(int argc, char **argv, DriverOptions &flags) {
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
}

/// --time-phases (or MLIR's --mlir-timing): a tree of phase times on stderr
/// when the timers go out of scope.
void configureTiming(DefaultTimingManager &timing, const DriverOptions &flags) {
  applyDefaultTimingManagerCLOptions(timing);
  if (flags.timePhases) {
    timing.setEnabled(true);
    timing.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
  }
}

/// --sign-key signs a written artifact with a usable key.
LogicalResult checkSigning(const DriverOptions &flags, bool artifact) {
  if (flags.signKey.empty())
    return success();
  if (!artifact) {
    llvm::errs() << "tsc: error: --sign-key signs an artifact: give -o "
                    "FILE.tscm\n";
    return failure();
  }
  return checkSigningKey(flags.signKey);
}

double secondsSince(const llvm::TimeRecord &start) {
  return llvm::TimeRecord::getCurrentTime().getWallTime() - start.getWallTime();
}

/// `bytes` in B, KiB, MiB or GiB, whichever keeps the number below 1024.
std::string sizeText(uint64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  double value = double(bytes) / 1024.0;
  const char *unit = "KiB";
  for (const char *next : {"MiB", "GiB"}) {
    if (value < 1024.0)
      break;
    value /= 1024.0;
    unit = next;
  }
  return llvm::formatv("{0:F1} {1}", value, unit).str();
}

/// One line for a written artifact: what, for which CPU level, its plan
/// (kernels, library calls, arena, weights), how big, how long.
void printWritten(const CompileOptions &options, const DriverOptions &flags,
                  const CompileSummary &summary, double seconds,
                  double importSeconds) {
  uint64_t bytes = 0;
  (void)llvm::sys::fs::file_size(options.output, bytes);
  std::string isa;
  if (options.target == TargetKind::Host)
    if (FailureOr<HostTarget> host = resolveHostTarget(options.hostCpu);
        succeeded(host))
      isa = " for " + host->cpu +
            (host->amx                  ? "+amx (AVX-512, AMX)"
             : host->avx512bf16         ? "+bf16 (AVX-512, AVX512_BF16)"
             : host->cpu == "x86-64-v4" ? " (AVX-512)"
             : host->cpu == "x86-64-v3" ? " (AVX2)"
                                        : " (SSE2)");
  llvm::errs() << llvm::formatv(
      "tsc: wrote {0}{1}{2}: {3} kernels, {4} GEMM calls, {5} copies; arena "
      "{6}, weights {7}; file {8}; {9:F1} s (import {10:F1} s); `tsc-run {0} "
      "--info` shows what it holds\n",
      options.output, flags.signKey.empty() ? "" : " and its .sig", isa,
      summary.kernels, summary.gemmCalls, summary.copies,
      sizeText(summary.arenaBytes), sizeText(summary.weightBytes),
      sizeText(bytes), seconds, importSeconds);
}

} // namespace

int mlir::tsc::runTscDriver(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DriverOptions flags;
  parseCommandLine(argc, argv, flags);

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // Users get messages, not IR dumps; tsc-opt keeps MLIR's default.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  ScopedDiagnosticHandler modelDiagnostics(&context, printModelDiagnostic);
  DefaultTimingManager timing;
  configureTiming(timing, flags);
  TimingScope rootTimer = timing.getRootScope();
  llvm::TimeRecord start = llvm::TimeRecord::getCurrentTime();

  TimingScope importTimer = rootTimer.nest("import");
  OwningOpRef<ModuleOp> module = importModel(flags, context, sourceMgr);
  if (!module || failed(applyDimRanges(*module, flags.dims)))
    return 1;
  importTimer.stop();
  double importSeconds = secondsSince(start);
  FailureOr<CompileOptions> options = getCompileOptions(flags);
  if (failed(options))
    return 1;
  bool artifact = !options->emit && !options->emitDot && options->output != "-";
  if (failed(checkSigning(flags, artifact)))
    return 1;
  // A .mlir module states its ranges itself; an import's come from --dim,
  // the archive, or the importer's default, which deserves a word.
  std::set<std::string> defaulted;
  if (!options->emit && llvm::sys::path::extension(flags.input) != ".mlir")
    defaulted = defaultRangedSymbols(*module);
  CompileSummary summary;
  if (failed(compile(*module, *options,
                     timing.isEnabled() ? &rootTimer : nullptr, &summary)))
    return 1;
  warnDefaultRanges(*module, defaulted,
                    artifact ? std::optional(summary.arenaBytes)
                             : std::nullopt);
  if (!flags.signKey.empty() &&
      failed(signArtifact(options->output, flags.signKey)))
    return 1;
  if (artifact)
    printWritten(*options, flags, summary, secondsSince(start), importSeconds);
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
