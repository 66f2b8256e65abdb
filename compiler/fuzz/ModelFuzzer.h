//===- ModelFuzzer.h - Shared body of the model-file fuzz targets -*- C++
//-*-===//
//
// The importers read a model from a path, as users give it. A fuzz target
// writes each input to a file of its own temporary folder (so that external
// data or archive entries can only name that folder), imports it with the
// target's importer and, when that succeeds, runs the pipeline through the
// fuse phase on it: the converters and fusion passes read the imported
// attributes and shapes as freely as the importer does. Diagnostics are
// swallowed: a clear error is a correct answer here; a crash, sanitizer
// report, leak or hang is a finding.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_FUZZ_MODELFUZZER_H
#define TSC_COMPILER_FUZZ_MODELFUZZER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mlir::tsc::fuzz {

using Importer = llvm::function_ref<FailureOr<OwningOpRef<ModuleOp>>(
    MLIRContext *context, const std::string &path)>;

/// Writes `data` to a file named `fileName` in the fuzzer's folder, imports
/// it with `import` and compiles what imports through the fuse phase.
int fuzzModelFile(const uint8_t *data, size_t size, const char *fileName,
                  Importer import);

} // namespace mlir::tsc::fuzz

#endif // TSC_COMPILER_FUZZ_MODELFUZZER_H
