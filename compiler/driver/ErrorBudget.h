//===- ErrorBudget.h - `--max-error`: lossy options under a budget -*- C++
//-*-===//
//
// `tsc --quantize=dynamic-int8 --max-error=E` keeps the GEMMs whose int8
// costs the most float until the measured error is within E;
// `tsc --prune=SPEC --max-error=E` scales the specs' ratios down until it
// is. Errors are measured (MeasuredError.h) against the model in fp32, the
// largest relative L2 over the outputs; docs/quantization.md and
// docs/pruning.md give the searches and their cost.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_DRIVER_ERRORBUDGET_H
#define TSC_COMPILER_DRIVER_ERRORBUDGET_H

#include "compiler/driver/Compile.h"

namespace mlir::tsc {

/// `options` (with `maxError`) with the kept-float GEMMs or the pruning
/// ratios chosen within the budget, and `maxError` cleared; the search is
/// printed on `os`. Failure after a `tsc: error:` line when no choice meets
/// the budget (or a measurement fails).
FailureOr<CompileOptions> fitErrorBudget(ModuleOp imported,
                                         const CompileOptions &options,
                                         llvm::raw_ostream &os);

/// Static int8's smoothing alpha of least measured error among none (0) and
/// kSmoothingCandidates: each a compile of `imported` with `options` and
/// every GEMM int8 (keep-float ignored), calibrated on the even-numbered
/// calibration samples and measured (the largest relative L2 over the
/// outputs) on the odd-numbered ones; none with a single sample. The
/// measurements are printed on `os`. Failure after a `tsc: error:`
/// line when a measurement fails.
FailureOr<double> chooseSmoothing(ModuleOp imported,
                                  const CompileOptions &options,
                                  llvm::raw_ostream &os);

/// The alphas `--smoothing=auto` tries besides none: on all-MiniLM-L6-v2
/// 0.4 and 0.8 lost to these (docs/quantization.md, "Smoothing"), and each
/// candidate is a compile and a run of half the samples (BERT-base: ~8 s).
inline constexpr double kSmoothingCandidates[] = {0.5, 0.6, 0.7};

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_ERRORBUDGET_H
