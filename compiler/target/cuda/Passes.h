//===- Passes.h - the CUDA target's mapping steps as passes -----*- C++ -*-===//

#ifndef TSC_COMPILER_TARGET_CUDA_PASSES_H
#define TSC_COMPILER_TARGET_CUDA_PASSES_H

#include "mlir/Pass/Pass.h"

// (Each pass's file includes the dialects it depends on.)
namespace mlir::tsc::cuda {

#define GEN_PASS_DECL
#include "compiler/target/cuda/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/target/cuda/Passes.h.inc"

/// Registers the CUDA passes and the `tsc-cuda-map-loops` pipeline.
void registerCudaPasses();

} // namespace mlir::tsc::cuda

#endif // TSC_COMPILER_TARGET_CUDA_PASSES_H
