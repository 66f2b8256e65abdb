//===- DimRanges.h - `--dim NAME=MIN..MAX` and default ranges ---*- C++ -*-===//

#ifndef TSC_COMPILER_DRIVER_DIMRANGES_H
#define TSC_COMPILER_DRIVER_DIMRANGES_H

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <set>
#include <string>

namespace mlir::tsc {

/// Applies --dim ranges to the module's tsc.symbol declarations.
LogicalResult applyDimRanges(ModuleOp module, ArrayRef<std::string> settings);

/// The plain symbols of an imported model that neither --dim nor the archive
/// ranged: they keep the importer's default range.
std::set<std::string> defaultRangedSymbols(ModuleOp module);

/// Warns about `names` with the ranges the compile gave them (the graph
/// phase narrows a default range to what the model allows) and, when the
/// compile planned, the arena those ranges cost.
void warnDefaultRanges(ModuleOp module, const std::set<std::string> &names,
                       std::optional<uint64_t> arenaBytes);

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_DIMRANGES_H
