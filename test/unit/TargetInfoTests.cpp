//===- TargetInfoTests.cpp - what code generation knows of each GPU ------===//

#include "compiler/target/cuda/TargetInfo.h"

#include <gtest/gtest.h>

using namespace mlir::tsc::cuda;

namespace {

TEST(TargetInfoTest, Generations) {
  struct Expected {
    const char *chip;
    unsigned capability;
    const char *ptx;
    MatrixInstructions matrix;
  };
  for (Expected e :
       {Expected{"sm_80", 80, "+ptx78", MatrixInstructions::MmaSync},
        Expected{"sm_86", 86, "+ptx78", MatrixInstructions::MmaSync},
        Expected{"sm_89", 89, "+ptx78", MatrixInstructions::MmaSync},
        Expected{"sm_90", 90, "+ptx80", MatrixInstructions::WarpgroupMma}}) {
    std::unique_ptr<TargetInfo> target = createTargetInfo(e.chip);
    ASSERT_TRUE(target) << e.chip;
    EXPECT_EQ(target->getChip(), e.chip);
    EXPECT_EQ(target->getComputeCapability(), e.capability) << e.chip;
    EXPECT_EQ(target->getPtxFeatures(), e.ptx) << e.chip;
    EXPECT_EQ(target->getMatrixInstructions(), e.matrix) << e.chip;
    // Attention's tensor-core products use mma.sync, which sm_90 keeps.
    EXPECT_TRUE(target->hasMmaSync()) << e.chip;
    EXPECT_GE(target->getMaxSharedMemoryPerBlock(), 48u * 1024) << e.chip;
  }
}

TEST(TargetInfoTest, UnknownChips) {
  for (const char *chip :
       {"sm_70", "sm_75", "sm_100", "sm90", "", "cuda:sm_80"})
    EXPECT_FALSE(createTargetInfo(chip)) << chip;
}

} // namespace
