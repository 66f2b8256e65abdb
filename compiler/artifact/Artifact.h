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

namespace mlir::tsc {

/// CRC-32C (Castagnoli) of `data`, as the format defines it.
uint32_t crc32c(ArrayRef<char> data);

/// The artifact's bytes for the host target.
FailureOr<std::vector<char>> writeArtifact(const plan::Plan &plan,
                                           ArrayRef<char> hostObject,
                                           uint64_t isa, StringRef producer);

/// The artifact's bytes for CUDA targets: the plan's kernel steps become
/// `device`'s launches, and its modules (SASS and PTX per chip) the CUDA
/// section.
FailureOr<std::vector<char>>
writeCudaArtifact(const plan::Plan &plan, const cuda::DeviceCode &device,
                  ArrayRef<const cuda::TargetInfo *> targets,
                  StringRef producer);

} // namespace mlir::tsc

#endif // TSC_COMPILER_ARTIFACT_ARTIFACT_H
