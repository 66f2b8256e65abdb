//===- ModelFuzzer.cpp - Shared body of the model-file fuzz targets -------===//

#include "compiler/fuzz/ModelFuzzer.h"

#include "compiler/InitAll.h"
#include "compiler/pipeline/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>

using namespace mlir;

namespace {

/// A context lives for this many inputs: imported weights stay in its
/// resource manager, so a context that lived for millions of inputs would
/// grow without bound.
constexpr unsigned kInputsPerContext = 256;

std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  tsc::registerAllDialects(registry);
  auto context =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  return context;
}

/// The fuzzer's own folder: $TMPDIR/tsc-fuzz-<pid>, made once.
const std::string &folder() {
  static const std::string path = [] {
    llvm::SmallString<128> dir;
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, dir);
    llvm::sys::path::append(
        dir, "tsc-fuzz-" + std::to_string(llvm::sys::Process::getProcessId()));
    if (llvm::sys::fs::create_directories(dir)) {
      llvm::errs() << "fuzz: cannot create " << dir << "\n";
      std::abort();
    }
    return std::string(dir);
  }();
  return path;
}

} // namespace

int tsc::fuzz::fuzzModelFile(const uint8_t *data, size_t size,
                             const char *fileName, Importer import) {
  static std::unique_ptr<MLIRContext> context;
  // One pass manager per context: the pipeline and its passes' pattern sets
  // (built in `initialize`) are made once, not once an input (a fifth of
  // the time of 15,000 runs from a sample of the ONNX corpus).
  static std::unique_ptr<PassManager> pm;
  static unsigned inputs = 0;
  if (!context || ++inputs % kInputsPerContext == 0) {
    pm.reset();
    context = makeContext();
    pm = std::make_unique<PassManager>(context.get());
    TscPipelineOptions options;
    options.until = Phase::Fuse;
    buildTscPipeline(*pm, options);
  }

  llvm::SmallString<128> path(folder());
  llvm::sys::path::append(path, fileName);
  {
    std::error_code error;
    llvm::raw_fd_ostream out(path, error);
    if (error) {
      llvm::errs() << "fuzz: cannot write " << path << "\n";
      std::abort();
    }
    out.write(reinterpret_cast<const char *>(data), size);
  }

  ScopedDiagnosticHandler quiet(context.get(),
                                [](Diagnostic &) { return success(); });
  FailureOr<OwningOpRef<ModuleOp>> module =
      import(context.get(), std::string(path));
  if (failed(module))
    return 0;
  (void)pm->run(**module);
  return 0;
}
