//===- TargetInfo.cpp - Ampere, Ada and Hopper ----------------------------===//
//
// Figures from NVIDIA's CUDA C++ Programming Guide (compute capabilities
// table) and the PTX ISA release notes.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/cuda/TargetInfo.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::tsc::cuda;

TargetInfo::~TargetInfo() = default;

namespace {

/// Ampere (sm_80: A100; sm_86: consumer Ampere) and Ada (sm_89).
class AmpereTargetInfo : public TargetInfo {
public:
  AmpereTargetInfo(StringRef chip, unsigned cc, unsigned sharedMemory)
      : chip(chip.str()), cc(cc), sharedMemory(sharedMemory) {}
  StringRef getChip() const override { return chip; }
  unsigned getComputeCapability() const override { return cc; }
  // PTX 7.8 (CUDA 11.8) covers sm_80..sm_89.
  StringRef getPtxFeatures() const override { return "+ptx78"; }
  unsigned getMinimumDriverVersion() const override { return 11080; }
  unsigned getMaxSharedMemoryPerBlock() const override { return sharedMemory; }
  MatrixInstructions getMatrixInstructions() const override {
    return MatrixInstructions::MmaSync;
  }

private:
  std::string chip;
  unsigned cc, sharedMemory;
};

/// Hopper (sm_90: H100, H200).
class HopperTargetInfo : public TargetInfo {
public:
  StringRef getChip() const override { return "sm_90"; }
  unsigned getComputeCapability() const override { return 90; }
  // PTX 8.0 (CUDA 12.0) is the first with sm_90 and wgmma.
  StringRef getPtxFeatures() const override { return "+ptx80"; }
  unsigned getMinimumDriverVersion() const override { return 12000; }
  unsigned getMaxSharedMemoryPerBlock() const override { return 227 * 1024; }
  MatrixInstructions getMatrixInstructions() const override {
    return MatrixInstructions::WarpgroupMma;
  }
};

} // namespace

std::unique_ptr<TargetInfo> mlir::tsc::cuda::createTargetInfo(StringRef chip) {
  if (chip == "sm_90")
    return std::make_unique<HopperTargetInfo>();
  // Opt-in shared memory per block: 163 KB on sm_80, 99 KB on sm_86/sm_89.
  if (chip == "sm_80")
    return std::make_unique<AmpereTargetInfo>(chip, 80, 163 * 1024);
  if (chip == "sm_86" || chip == "sm_89")
    return std::make_unique<AmpereTargetInfo>(
        chip, chip == "sm_86" ? 86 : 89, 99 * 1024);
  return nullptr;
}

StringRef mlir::tsc::cuda::getKnownChips() { return "sm_80, sm_86, sm_89, sm_90"; }
