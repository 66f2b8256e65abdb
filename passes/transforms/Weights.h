//===- Weights.h - freeing the weights that passes replace ------*- C++ -*-===//
//
// Weights are `dense_resource` blobs in the context's blob manager, which
// keeps each blob until told otherwise, whether or not an op still refers to
// it. Passes that replace weights (GEMM merging, precision conversion) free
// the originals as soon as the last op referring to one is gone, when their
// caller says that nothing outside the function shares them; the driver frees
// whatever no live module refers to after each phase.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_TRANSFORMS_WEIGHTS_H
#define TSC_PASSES_TRANSFORMS_WEIGHTS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <string>

namespace mlir::tsc {

using WeightEntry = DialectResourceBlobManager::BlobEntry;

/// Calls `fn` with the blob entry of every weight an op in `root` (`root`
/// included) refers to, once per reference.
inline void forEachWeightReference(Operation *root,
                                   function_ref<void(WeightEntry *)> fn) {
  root->walk([&](Operation *op) {
    op->getAttrDictionary().walk([&](DenseResourceElementsAttr attr) {
      fn(attr.getRawHandle().getResource());
    });
  });
}

/// Frees a weight's data: a heap blob's memory, a mapped blob's pages. The
/// entry keeps an empty blob (the manager cannot drop one): an op that still
/// referred to it would find no data.
inline void freeWeight(WeightEntry *entry) {
  entry->setBlob(AsmResourceBlob());
}

/// Frees every weight of `context` that no op in `live` refers to (null
/// entries are skipped): the originals of weights a pass replaced, and those
/// only a dropped module used. Clones of a module share its weights, so a
/// clone costs memory only for the weights it alone has.
inline void freeUnreferencedWeights(MLIRContext *context,
                                    ArrayRef<Operation *> live) {
  llvm::DenseSet<WeightEntry *> used;
  for (Operation *root : live)
    if (root)
      forEachWeightReference(root, [&](WeightEntry *e) { used.insert(e); });
  DialectResourceBlobManager &manager =
      DenseResourceElementsHandle::getManagerInterface(context)
          .getBlobManager();
  SmallVector<std::string> unused;
  manager.getBlobMap([&](const llvm::StringMap<WeightEntry> &blobs) {
    for (const auto &entry : blobs)
      if (const AsmResourceBlob *blob = entry.second.getBlob();
          blob && !blob->getData().empty() && !used.contains(&entry.second))
        unused.push_back(entry.first().str());
  });
  for (const std::string &key : unused)
    freeWeight(manager.lookup(key));
}

/// The references to the weights of `scope`, counted once, so that a pass can
/// free each weight it replaced when the last op referring to it is erased
/// (ops the pass creates hold new weights, never these). With `enabled` false
/// (other modules may share the weights: the driver's report baselines, or
/// tsc-opt's callers), it frees nothing.
class ReplacedWeights {
public:
  ReplacedWeights(Operation *scope, bool enabled) : enabled(enabled) {
    if (enabled)
      forEachWeightReference(scope, [&](WeightEntry *e) { ++references[e]; });
  }

  /// Erases `op` if it is enabled and nothing uses `op`, then frees each
  /// weight that `op` held the last reference to.
  void eraseIfDead(Operation *op) {
    if (!enabled || !op->use_empty())
      return;
    SmallVector<WeightEntry *> held;
    forEachWeightReference(op, [&](WeightEntry *e) { held.push_back(e); });
    op->erase();
    for (WeightEntry *entry : held) {
      auto it = references.find(entry);
      if (it != references.end() && --it->second == 0)
        freeWeight(entry);
    }
  }

private:
  bool enabled;
  DenseMap<WeightEntry *, unsigned> references;
};

} // namespace mlir::tsc

#endif // TSC_PASSES_TRANSFORMS_WEIGHTS_H
