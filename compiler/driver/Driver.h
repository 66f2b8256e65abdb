//===- Driver.h - entry points of the tsc command-line tools ----*- C++ -*-===//

#ifndef TSC_COMPILER_DRIVER_DRIVER_H
#define TSC_COMPILER_DRIVER_DRIVER_H

namespace mlir::tsc {

/// `tsc MODEL --emit=PHASE [-o FILE] [--dim NAME=MIN..MAX]...`; returns the
/// process exit status.
int runTscDriver(int argc, char **argv);

/// `tsc-opt`: MlirOptMain over every tsc dialect, pass and pipeline.
int runTscOpt(int argc, char **argv);

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_DRIVER_H
