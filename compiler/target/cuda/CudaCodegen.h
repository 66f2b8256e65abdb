//===- CudaCodegen.h - the plan's kernels as PTX and SASS -------*- C++ -*-===//
//
// The codegen phase for --target=cuda:sm_XX: the kernels the host target
// lowers to linalg (same plan, same fusion groups) are bufferized, their
// parallel loops mapped to the grid and to threads, each launch outlined
// into a gpu.module, lowered through the NVVM dialect and LLVM's NVPTX back
// end to PTX, and assembled by ptxas into SASS for the chip.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_CUDA_CUDACODEGEN_H
#define TSC_COMPILER_TARGET_CUDA_CUDACODEGEN_H

#include "compiler/target/cuda/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::tsc::cuda {

/// One launch of one kernel step: a gpu.module with one kernel function.
struct DeviceModule {
  /// The module's (and its kernel's) name: `<kernel step>_kernel[_N]`.
  std::string name;
  std::string ptx;
  /// SASS from ptxas; empty when no ptxas was run.
  std::vector<char> cubin;
};

/// Threads per block of a mapped parallel loop's innermost dim.
constexpr int64_t kThreadsPerBlock = 256;

/// The loop structure the device code gets, on bufferized kernels: linalg
/// and scf.forall as scf.parallel, device work outside loops in one-
/// iteration loops, each outermost loop tiled by kThreadsPerBlock with a
/// bounds guard and mapped (grid, threadIdx.x), inner parallel loops as
/// scf.for. The host target can compile this structure too
/// (--gpu-loop-mapping), which checks its numerics without a GPU.
LogicalResult mapKernelLoops(ModuleOp kernels);

/// Lowers the kernels (as lowerKernels leaves them; the module is changed)
/// to one PTX module per launch for each of `targets`: result `i` holds
/// target `i`'s modules. Everything up to NVPTX runs once for all chips.
FailureOr<std::vector<std::vector<DeviceModule>>>
generateDeviceCode(ModuleOp kernels, ArrayRef<const TargetInfo *> targets);

/// ptxas from $CUDA_HOME, /usr/local/cuda or PATH; empty if none.
std::string findPtxas();

/// Assembles `module.ptx` for `target` with `ptxas` into `module.cubin`;
/// an error naming the module and quoting ptxas when it rejects the PTX.
LogicalResult assemble(DeviceModule &module, const TargetInfo &target,
                       StringRef ptxas, Location loc);

} // namespace mlir::tsc::cuda

#endif // TSC_COMPILER_TARGET_CUDA_CUDACODEGEN_H
