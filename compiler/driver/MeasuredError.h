//===- MeasuredError.h - error of reduced precision, measured -----*- C++ -*-===//
//
// `tsc --precision=fp16|bf16 --report` states what the reduced precision
// costs on this model: the model compiled for the host in fp32 and in the
// reduced precision, both run on the same random inputs, each output's
// relative L2 error.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_DRIVER_MEASUREDERROR_H
#define TSC_COMPILER_DRIVER_MEASUREDERROR_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tsc {

/// Writes an artifact for this machine's CPU to the stream.
using ArtifactWriter =
    llvm::function_ref<LogicalResult(llvm::raw_pwrite_stream &)>;

/// Loads the artifacts that `reference` (the model in fp32) and `reduced`
/// (the same in `precision`) write, runs both through the runtime on one
/// set of seeded random inputs (floats uniform in [-1, 1), integers 1, each
/// symbol at its maximum or at most 64), and prints `measured error` lines
/// to `os`. Failure (with a message on stderr) when a compilation or run
/// fails.
LogicalResult reportMeasuredError(ArtifactWriter reference,
                                  ArtifactWriter reduced, StringRef precision,
                                  llvm::raw_ostream &os);

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_MEASUREDERROR_H
