//===- SharedKernelsTests.cpp - a repeated kernel compiled once ----------===//
//
// compiler/target/host/SharedKernels.h: kernels with the same body call the
// first of them; kernels that differ in anything (an op, a constant, a
// type) keep their own code.

#include "compiler/target/host/SharedKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

// Layers 0 and 2 are the same code (their ops carry different locations,
// as two layers' ops do); layer 1 adds another constant; @tail's argument
// type differs; @erff is a declaration.
constexpr const char *kKernels = R"(
func.func private @erff(f32) -> f32
func.func @tsc_kernel_0_norm(%x: f32) -> f32 {
  %c = arith.constant 2.0 : f32
  %y = arith.mulf %x, %c : f32 loc("layer.0")
  return %y : f32
}
func.func @tsc_kernel_1_norm(%x: f32) -> f32 {
  %c = arith.constant 3.0 : f32
  %y = arith.mulf %x, %c : f32
  return %y : f32
}
func.func @tsc_kernel_2_norm(%x: f32) -> f32 {
  %c = arith.constant 2.0 : f32
  %y = arith.mulf %x, %c : f32 loc("layer.2")
  return %y : f32
}
func.func @tsc_kernel_3_tail(%x: f64) -> f64 {
  %c = arith.constant 2.0 : f64
  %y = arith.mulf %x, %c : f64
  return %y : f64
}
func.func @tsc_kernel_4_norm(%x: f32) -> f32 {
  %c = arith.constant 3.0 : f32
  %y = arith.mulf %x, %c : f32
  return %y : f32
}
)";

/// The callee of `name`'s body when it is one call and a return, else "".
std::string calleeOf(ModuleOp module, StringRef name) {
  auto f = module.lookupSymbol<func::FuncOp>(name);
  Block &body = f.getBody().front();
  if (body.getOperations().size() != 2)
    return "";
  auto call = dyn_cast<func::CallOp>(body.front());
  return call ? call.getCallee().str() : "";
}

TEST(SharedKernels, CopiesCallTheFirstAndOthersKeepTheirCode) {
  MLIRContext context;
  context.loadDialect<func::FuncDialect, arith::ArithDialect>();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kKernels, &context);
  ASSERT_TRUE(module);
  llvm::StringSet<> called = tsc::shareDuplicateKernels(*module);
  EXPECT_EQ(called.size(), 2u);
  EXPECT_TRUE(called.contains("tsc_kernel_0_norm"));
  EXPECT_TRUE(called.contains("tsc_kernel_1_norm"));
  EXPECT_EQ(calleeOf(*module, "tsc_kernel_2_norm"), "tsc_kernel_0_norm");
  EXPECT_EQ(calleeOf(*module, "tsc_kernel_4_norm"), "tsc_kernel_1_norm");
  EXPECT_EQ(calleeOf(*module, "tsc_kernel_0_norm"), "");
  EXPECT_EQ(calleeOf(*module, "tsc_kernel_1_norm"), "");
  EXPECT_EQ(calleeOf(*module, "tsc_kernel_3_tail"), "");
  EXPECT_TRUE(module->lookupSymbol<func::FuncOp>("erff").isDeclaration());
  // Every kernel keeps its symbol (the plan's steps name them).
  for (StringRef name :
       {"tsc_kernel_0_norm", "tsc_kernel_1_norm", "tsc_kernel_2_norm",
        "tsc_kernel_3_tail", "tsc_kernel_4_norm"})
    EXPECT_TRUE(module->lookupSymbol<func::FuncOp>(name)) << name.str();
  EXPECT_TRUE(succeeded(verify(*module)));
}

} // namespace
