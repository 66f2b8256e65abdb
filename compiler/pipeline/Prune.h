//===- Prune.h - the pruning a compile asks for -----------------*- C++ -*-===//
//
// `--prune=SPEC[,SPEC...]` as a type: the driver and the pipeline parse the
// specs with parsePruneSpecs and add one pass per spec (docs/pruning.md).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_PIPELINE_PRUNE_H
#define TSC_COMPILER_PIPELINE_PRUNE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tsc {

/// What the prune phase removes; a ratio of 0 leaves that kind alone.
struct PruneSpecs {
  /// `heads=R[:global]`: the fraction of attention heads (K/V groups).
  double heads = 0;
  bool headsGlobal = false;
  /// `ffn=R[:global]`: the fraction of FFN intermediate neurons.
  double ffn = 0;
  bool ffnGlobal = false;
  /// `magnitude=R`: the fraction of all linear weights zeroed (global L1).
  double magnitude = 0;
  /// `2:4`: two of every four weights along K zeroed.
  bool twoFour = false;

  bool any() const { return heads > 0 || ffn > 0 || magnitude > 0 || twoFour; }
};

/// Parses specs such as {"heads=0.25", "ffn=0.3:global", "2:4"}; an error
/// naming the spec for an unknown key, a ratio outside [0, 1) or a spec
/// given twice.
llvm::Expected<PruneSpecs> parsePruneSpecs(llvm::ArrayRef<std::string> specs);

} // namespace mlir::tsc

#endif // TSC_COMPILER_PIPELINE_PRUNE_H
