//===- PruneReport.h - the prune phase's records, shown ---------*- C++ -*-===//

#ifndef TSC_COMPILER_DRIVER_PRUNEREPORT_H
#define TSC_COMPILER_DRIVER_PRUNEREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tsc {

/// Prints the prune passes' records of `module` (nothing when none): per
/// layer what was removed, parameters and FLOPs before and after, refusals
/// with their reasons, and weights that arrived pruned.
void printPruneReport(ModuleOp module, llvm::raw_ostream &os);

/// The records of `module` as JSON objects (what --prune-report writes and
/// --report=json shows as "pruning").
llvm::json::Array getPruneRecordsJson(ModuleOp module);

/// Writes the records of `module` to `path` as JSON ({"records": [...]},
/// with `"error_budget": budget` when given: the --max-error search);
/// failure after saying why.
LogicalResult writePruneReport(ModuleOp module, StringRef path,
                               const llvm::json::Object *budget = nullptr);

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_PRUNEREPORT_H
