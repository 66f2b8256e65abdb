//===- PruneRecord.h - what the prune passes record -------------*- C++ -*-===//
//
// Each prune pass appends one dictionary per layer (or per weight) to the
// module attribute `tsc.prune`: the driver prints them in --report and
// writes them as JSON with --prune-report, so that a test can rebuild the
// pruned model from the original weights by name (docs/pruning.md lists
// the keys).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_TRANSFORMS_PRUNERECORD_H
#define TSC_PASSES_TRANSFORMS_PRUNERECORD_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::tsc {

/// The module attribute holding the records.
inline constexpr llvm::StringLiteral kPruneRecordsAttr = "tsc.prune";

/// Appends `record` to `module`'s records.
inline void appendPruneRecord(ModuleOp module, DictionaryAttr record) {
  SmallVector<Attribute> records;
  if (auto old = module->getAttrOfType<ArrayAttr>(kPruneRecordsAttr))
    records.append(old.begin(), old.end());
  records.push_back(record);
  module->setAttr(kPruneRecordsAttr,
                  ArrayAttr::get(module.getContext(), records));
}

/// The name a weight constant's blob has (its initializer or parameter
/// name), or "" for a literal.
inline StringRef getWeightName(Attribute value) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return resource.getRawHandle().getKey();
  return "";
}

} // namespace mlir::tsc

#endif // TSC_PASSES_TRANSFORMS_PRUNERECORD_H
