//===- TscLayoutCanonicalize.h - transposes cancelling -----*- C++ -*-===//
//
// Private to dialects/tsc/IR: the dialect's canonicalizer adds these.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_DIALECTS_TSC_IR_TSCLAYOUTCANONICALIZE_H
#define TSC_DIALECTS_TSC_IR_TSCLAYOUTCANONICALIZE_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tsc {

/// Patterns removing pairs of transposes that undo each other across an
/// elementwise op or a reshape merging adjacent dims.
void populateLayoutCanonicalizations(RewritePatternSet &patterns);

/// Whether `size` (an index) is known to equal dim `d` of `tensor`: a
/// tsc.dim of it, or the symbol its binding gives that dim.
bool isDimOf(Value size, Value tensor, int64_t d);

} // namespace mlir::tsc

#endif // TSC_DIALECTS_TSC_IR_TSCLAYOUTCANONICALIZE_H
