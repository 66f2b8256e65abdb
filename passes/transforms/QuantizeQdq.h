//===- QuantizeQdq.h - QDQ pairs around GEMMs as int8 GEMMs -----*- C++ -*-===//
//
// tsc-quantize-qdq (docs/quantization.md, "QDQ models"). Declared here
// rather than in passes/Passes.td so that adding it did not rebuild every
// pass; it belongs there (one rebuild) when the .td is next touched.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_TRANSFORMS_QUANTIZEQDQ_H
#define TSC_PASSES_TRANSFORMS_QUANTIZEQDQ_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::tsc {

/// The pass on func.func; `remarks` says on each near miss why it stays
/// float.
std::unique_ptr<Pass> createQuantizeQdqPass(bool remarks = false);

/// Registers tsc-quantize-qdq with tsc-opt.
void registerQuantizeQdqPass();

} // namespace mlir::tsc

#endif // TSC_PASSES_TRANSFORMS_QUANTIZEQDQ_H
