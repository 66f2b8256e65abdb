//===- Artifact.h - write the .tscm artifact ---------------------*- C++ -*-===//
//
// Serializes a plan, its weights and the host shared object in the format of
// docs/artifact-format.md. The output depends only on its inputs, so two
// compiles of one model give the same bytes.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_ARTIFACT_ARTIFACT_H
#define TSC_COMPILER_ARTIFACT_ARTIFACT_H

#include "compiler/plan/Plan.h"
#include "compiler/target/cuda/CudaCodegen.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::tsc {

/// Writes the artifact for the host target to `os`. The weights go from their
/// constants to `os` piece by piece, never assembled in memory; the header
/// and section table, which hold the checksums, are completed last in place
/// (so `os` is a file or a buffer, not a pipe). Fails, writing nothing, if
/// the plan has an expression the format cannot encode.
LogicalResult writeArtifact(const plan::Plan &plan, ArrayRef<char> hostObject,
                            uint64_t isa, StringRef producer,
                            llvm::raw_pwrite_stream &os);

/// The same for CUDA targets: the plan's kernel steps become `device`'s
/// launches, and its modules (SASS and PTX per chip) the CUDA section.
LogicalResult writeCudaArtifact(const plan::Plan &plan,
                                const cuda::DeviceCode &device,
                                ArrayRef<const cuda::TargetInfo *> targets,
                                StringRef producer,
                                llvm::raw_pwrite_stream &os);

} // namespace mlir::tsc

#endif // TSC_COMPILER_ARTIFACT_ARTIFACT_H
