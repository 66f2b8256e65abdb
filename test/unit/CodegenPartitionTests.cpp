//===- CodegenPartitionTests.cpp - host codegen's module partitions ------===//
//
// compiler/target/host/Objects.h splits the kernels' LLVM module into
// partitions compiled on their own threads: a partition must hold every
// local symbol its kernels use, and the split must not depend on anything
// but the module.

#include "compiler/target/host/Objects.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace llvm;

namespace {

// Three kernels: @big and @small share the internal @helper (one group),
// @other and @small read the private constant @ident (copied, no group),
// @other has its own internal body @other.body, @alone is empty of locals.
constexpr const char *kModule = R"(
@ident = private unnamed_addr constant [4 x i8] c"loc\00"
@state = internal global i32 0

define internal i32 @helper(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
define i32 @big(i32 %x) {
  %a = call i32 @helper(i32 %x)
  %b = mul i32 %a, %a
  %c = mul i32 %b, %a
  %d = mul i32 %c, %b
  %e = mul i32 %d, %c
  ret i32 %e
}
define ptr @small() {
  %a = call i32 @helper(i32 0)
  ret ptr @ident
}
define internal void @other.body() {
  store i32 1, ptr @state
  ret void
}
define ptr @other() {
  call void @other.body()
  ret ptr @ident
}
define void @alone() {
  ret void
}
)";

std::unique_ptr<Module> parse(LLVMContext &context) {
  SMDiagnostic error;
  std::unique_ptr<Module> module = parseAssemblyString(kModule, error, context);
  if (!module)
    ADD_FAILURE() << error.getMessage().str();
  return module;
}

/// The names in each partition of the test module split `most` ways.
std::vector<std::set<std::string>> partsOf(unsigned most) {
  LLVMContext context;
  std::unique_ptr<Module> module = parse(context);
  std::vector<std::set<std::string>> names;
  if (!module)
    return names;
  for (const auto &part : mlir::tsc::partitionKernels(*module, most)) {
    names.emplace_back();
    for (const GlobalValue *global : part)
      names.back().insert(global->getName().str());
  }
  return names;
}

TEST(CodegenPartition, LocalsStayWithTheirKernels) {
  auto parts = partsOf(4);
  // Groups: {helper, big, small}, {state, other.body, other}, {alone}; the
  // empty @alone still counts (its `ret` is an instruction).
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], (std::set<std::string>{"helper", "big", "small"}));
  EXPECT_EQ(parts[1], (std::set<std::string>{"state", "other.body", "other"}));
  EXPECT_EQ(parts[2], (std::set<std::string>{"alone"}));
  for (const auto &part : parts)
    EXPECT_FALSE(part.count("ident"))
        << "local constants are copied, not placed";
}

TEST(CodegenPartition, FewerPartitionsPackOntoTheLightest) {
  auto parts = partsOf(2);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], (std::set<std::string>{"helper", "big", "small"}));
  EXPECT_EQ(parts[1],
            (std::set<std::string>{"state", "other.body", "other", "alone"}));
  EXPECT_EQ(partsOf(1).size(), 1u);
}

TEST(CodegenPartition, ConstructorsKeepOnePartition) {
  // An internal constructor named by llvm.global_ctors (an appending array)
  // could land away from the array that names it: no split.
  LLVMContext context;
  SMDiagnostic error;
  std::unique_ptr<Module> module =
      parseAssemblyString(std::string(kModule) + R"(
define internal void @init() {
  ret void
}
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @init, ptr null }]
)",
                          error, context);
  ASSERT_TRUE(module) << error.getMessage().str();
  EXPECT_EQ(mlir::tsc::partitionKernels(*module, 4).size(), 1u);
}

TEST(CodegenPartition, PartitionsLinkAloneAndCompileTheSameTwice) {
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  LLVMContext context;
  std::unique_ptr<Module> module = parse(context);
  ASSERT_TRUE(module);
  // Compiled twice: the same objects (the split and the threads' order do
  // not show in the bytes).
  Expected<std::vector<SmallString<0>>> first =
      mlir::tsc::emitObjects(std::move(module), "x86-64", "");
  ASSERT_TRUE(static_cast<bool>(first)) << toString(first.takeError());
  EXPECT_EQ(first->size(), 3u);
  std::unique_ptr<Module> again = parse(context);
  Expected<std::vector<SmallString<0>>> second =
      mlir::tsc::emitObjects(std::move(again), "x86-64", "");
  ASSERT_TRUE(static_cast<bool>(second)) << toString(second.takeError());
  ASSERT_EQ(first->size(), second->size());
  for (size_t i = 0; i < first->size(); ++i) {
    EXPECT_EQ((*first)[i], (*second)[i]) << "partition " << i;
    // Each partition is an object that refers to nothing outside itself:
    // the constant was copied in, the helper came along.
    Expected<std::unique_ptr<object::ObjectFile>> file =
        object::ObjectFile::createObjectFile(
            MemoryBufferRef((*first)[i].str(), "part"));
    ASSERT_TRUE(static_cast<bool>(file)) << toString(file.takeError());
    for (const object::SymbolRef &symbol : (*file)->symbols()) {
      Expected<uint32_t> flags = symbol.getFlags();
      ASSERT_TRUE(static_cast<bool>(flags));
      Expected<StringRef> name = symbol.getName();
      ASSERT_TRUE(static_cast<bool>(name));
      EXPECT_FALSE(*flags & object::SymbolRef::SF_Undefined)
          << "partition " << i << " needs " << name->str();
    }
  }
}

} // namespace
