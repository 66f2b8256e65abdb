//===- InitAll.h - register every dialect and pass tsc tools use -*- C++ -*-===//

#ifndef TSC_COMPILER_INITALL_H
#define TSC_COMPILER_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tsc {

/// Adds the dialects that tsc IR may contain (tsc and the upstream dialects
/// it is mixed with) to `registry`.
void registerAllDialects(DialectRegistry &registry);

/// Registers tsc passes, the upstream passes the pipeline uses, and the
/// `tsc-pipeline` pipeline, so that tsc-opt can replay any phase.
void registerAllPasses();

} // namespace mlir::tsc

#endif // TSC_COMPILER_INITALL_H
