//===- TargetInfo.h - what code generation knows of a GPU generation -*- C++ -*-===//
//
// Every choice that depends on the NVIDIA GPU generation goes through this
// interface (as Triton's TargetInfo): the chip and PTX version the NVPTX
// back end targets, the minimum driver that loads the code, the resources
// kernels may plan for, and which matrix instructions exist.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_CUDA_TARGETINFO_H
#define TSC_COMPILER_TARGET_CUDA_TARGETINFO_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace mlir::tsc::cuda {

/// The tensor-core instructions a generation offers to tiled kernels.
enum class MatrixInstructions {
  /// Warp-level `mma.sync` (m16n8k16 for fp16/bf16): sm_80 and later.
  MmaSync,
  /// Warpgroup `wgmma.mma_async` with TMA loads: sm_90.
  WarpgroupMma,
};

class TargetInfo {
public:
  virtual ~TargetInfo();

  /// `sm_80`, `sm_90`: the NVPTX CPU and ptxas `-arch`.
  virtual StringRef getChip() const = 0;
  /// 80, 90.
  virtual unsigned getComputeCapability() const = 0;
  /// The PTX ISA the NVPTX back end emits (`+ptx78`): the oldest that has
  /// every instruction this generation's kernels use.
  virtual StringRef getPtxFeatures() const = 0;
  /// The oldest CUDA driver (as cuDriverGetVersion reports it, 12000 for
  /// 12.0) that loads this PTX; recorded in the artifact.
  virtual unsigned getMinimumDriverVersion() const = 0;
  /// Shared memory one block may use with an opt-in launch, in bytes.
  virtual unsigned getMaxSharedMemoryPerBlock() const = 0;
  virtual MatrixInstructions getMatrixInstructions() const = 0;
  /// Whether warp-level `mma.sync` m16n8k16 exists (sm_90 keeps it beside
  /// wgmma): what attention's tensor-core products use.
  bool hasMmaSync() const {
    MatrixInstructions kind = getMatrixInstructions();
    return kind == MatrixInstructions::MmaSync ||
           kind == MatrixInstructions::WarpgroupMma;
  }

  unsigned getMaxThreadsPerBlock() const { return 1024; }
  unsigned getWarpSize() const { return 32; }
};

/// The target for `chip` (`sm_80`, `sm_86`, `sm_89`, `sm_90`), or null.
std::unique_ptr<TargetInfo> createTargetInfo(StringRef chip);

/// The chips createTargetInfo knows, for messages.
StringRef getKnownChips();

} // namespace mlir::tsc::cuda

#endif // TSC_COMPILER_TARGET_CUDA_TARGETINFO_H
