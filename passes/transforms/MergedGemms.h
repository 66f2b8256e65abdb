//===- MergedGemms.h - the location of a merged GEMM ------------*- C++ -*-===//
//
// `tsc-merge-gemms` gives the GEMM it makes of several (Q, K and V; gate and
// up) a FusedLoc of their locations with this metadata, so that the plan's
// report and profile name every source node it computes, not only the
// first (compiler/plan/PlanReport.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_TRANSFORMS_MERGEDGEMMS_H
#define TSC_PASSES_TRANSFORMS_MERGEDGEMMS_H

namespace mlir::tsc {

/// The metadata of a merged GEMM's FusedLoc.
constexpr const char kMergedGemmsLoc[] = "tsc.merged_gemms";

} // namespace mlir::tsc

#endif // TSC_PASSES_TRANSFORMS_MERGEDGEMMS_H
