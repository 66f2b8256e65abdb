//===- TorchScriptLoader.cpp - loads the libtorch plugin on demand --------===//
//
// libtorch's static initializers take about a second, so the importer lives
// in a plugin (libtsc-torchscript.so, beside tsc in <prefix>/lib) that tsc
// opens only when it reads an archive; every other run starts as fast as a
// build without libtorch.
//
//===----------------------------------------------------------------------===//

#include "compiler/importers/torchscript/TorchScriptImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

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
                      "install Debian's libtorch-dev (tools/setup.sh does) "
                      "and reconfigure with -DTSC_ENABLE_TORCHSCRIPT=ON";
    return failure();
  }
  std::string path = pluginPath();
  std::string message;
  auto plugin =
      llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &message);
  auto import = plugin.isValid()
                    ? reinterpret_cast<ImportFn>(
                          plugin.getAddressOfSymbol("tscImportTorchScript"))
                    : nullptr;
  if (!import) {
    emitError(loc) << "cannot load tsc's TorchScript importer '" << path
                   << "': " << (message.empty() ? "no entry point" : message)
                   << " (set TSC_TORCHSCRIPT_PLUGIN to its path)";
    return failure();
  }
  OwningOpRef<ModuleOp> module;
  if (!import(context, &options, &module))
    return failure();
  return module;
}
