//===- TorchScriptLoader.cpp - loads the libtorch plugin on demand --------===//
//
// libtorch's static initializers take about a second, so the importer lives
// in a plugin (libtsc-torchscript.so, beside tsc in <prefix>/lib) that tsc
// opens only when it reads an archive; every other run starts as fast as a
// build without libtorch. It is opened RTLD_LOCAL: libtorch (the PyPI
// wheel's, with its own protobuf, ONNX classes, oneDNN and libgomp) then
// adds nothing to the global symbol scope that tsc's libonnx, libprotobuf,
// libdnnl or libomp, or anything loaded later, could bind to.
//
//===----------------------------------------------------------------------===//

#include "compiler/importers/torchscript/TorchScriptImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <dlfcn.h>

using namespace mlir;
using namespace mlir::tsc;

namespace {

using ImportFn = bool (*)(MLIRContext *, const TorchScriptImportOptions *,
                          OwningOpRef<ModuleOp> *);

/// `$TSC_TORCHSCRIPT_PLUGIN`, else `<dir of this executable>/../lib/...`.
std::string pluginPath() {
  if (const char *path = std::getenv("TSC_TORCHSCRIPT_PLUGIN"))
    return path;
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  llvm::SmallString<256> path(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(path, "lib", "libtsc-torchscript.so");
  return std::string(path);
}

} // namespace

bool tsc::isTorchScriptEnabled() { return TSC_HAVE_TORCHSCRIPT; }

FailureOr<OwningOpRef<ModuleOp>>
tsc::importTorchScriptModel(MLIRContext *context,
                            const TorchScriptImportOptions &options) {
  Location loc = FileLineColLoc::get(context, options.path, 0, 0);
  if (!isTorchScriptEnabled()) {
    emitError(loc) << "this tsc was built without TorchScript support: "
                      "create .venv-torch with PyTorch (tools/setup.sh does) "
                      "and reconfigure with -DTSC_ENABLE_TORCHSCRIPT=ON";
    return failure();
  }
  std::string path = pluginPath();
  // Never closed: libtorch keeps process-wide state (its operator registry,
  // at-exit handlers) that must outlive the import.
  // llvm::sys::DynamicLibrary opens RTLD_GLOBAL, hence dlopen itself.
  void *plugin = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto import =
      plugin ? reinterpret_cast<ImportFn>(dlsym(plugin, "tscImportTorchScript"))
             : nullptr;
  if (!import) {
    const char *message = dlerror();
    emitError(loc) << "cannot load tsc's TorchScript importer '" << path
                   << "': " << (message ? message : "no entry point")
                   << " (set TSC_TORCHSCRIPT_PLUGIN to its path)";
    return failure();
  }
  OwningOpRef<ModuleOp> module;
  if (!import(context, &options, &module))
    return failure();
  return module;
}
