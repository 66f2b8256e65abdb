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

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tsc {

/// Compiles `reference` (the fp32 graph after the fuse phase) and `reduced`
/// (the same after the precision phase) for the host, runs both through the
/// runtime on one set of seeded random inputs (floats uniform in [-1, 1),
/// integers 1, each symbol at its maximum or at most 64), and prints
/// `measured error` lines to `os`. Failure (with a message on stderr) when a
/// compilation or run fails.
LogicalResult reportMeasuredError(ModuleOp reference, ModuleOp reduced,
                                  StringRef precision, llvm::raw_ostream &os);

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_MEASUREDERROR_H
