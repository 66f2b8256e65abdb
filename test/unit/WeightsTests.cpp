//===- WeightsTests.cpp - weights freed when replaced or unused -----------===//
//===//

#include "compiler/InitAll.h"
#include "compiler/driver/Compile.h"
#include "dialects/tsc/IR/TscOps.h"
#include "passes/Passes.h"
#include "passes/transforms/Weights.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tsc;

namespace {

// Q and K projections of one input by [K, N] weights held in blobs; K's
// weight is also returned, so merging leaves it one reader. `spare` is a
// blob no op refers to.
constexpr const char *kProjections = R"mlir(
func.func @qk(%x: tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x2xf32>) {
  %wq = tsc.constant dense_resource<wq> : tensor<4x2xf32>
  %wk = tsc.constant dense_resource<wk> : tensor<4x2xf32>
  %q = tsc.linear %x, %wq {weight_kn} : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  %k = tsc.linear %x, %wk {weight_kn} : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return %q, %k, %wk : tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      wq: "0x040000000000803F0000004000004040000080400000A0400000C0400000E04000000041",
      wk: "0x040000000000304100004041000050410000604100007041000080410000884100009041",
      spare: "0x040000000000A8410000B0410000B8410000C041"
    }
  }
#-}
)mlir";

class WeightsTest : public ::testing::Test {
protected:
  WeightsTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kProjections, &context);
    EXPECT_TRUE(module) << "test IR does not parse";
  }

  /// Whether the blob named `key` still holds its data (a freed one is
  /// empty).
  bool holdsData(StringRef key) {
    WeightEntry *entry =
        DenseResourceElementsHandle::getManagerInterface(&context)
            .getBlobManager()
            .lookup(key);
    EXPECT_TRUE(entry) << "no blob named " << key.str();
    return entry && entry->getBlob() && !entry->getBlob()->getData().empty();
  }

  /// Runs tsc-merge-gemms with `free-replaced-weights` set to `free`.
  void mergeGemms(bool free) {
    PassManager pm(&context);
    MergeGemmsPassOptions options;
    options.freeReplacedWeights = free;
    pm.addNestedPass<func::FuncOp>(createMergeGemmsPass(options));
    ASSERT_TRUE(succeeded(pm.run(*module)));
  }

  /// The floats of the weight of the one linear op left.
  std::vector<float> mergedWeight() {
    std::vector<float> values;
    module->walk([&](LinearOp op) {
      auto weight = op.getWeight().getDefiningOp<ConstantOp>();
      auto data = weight ? dyn_cast<DenseElementsAttr>(weight.getValue())
                         : DenseElementsAttr();
      if (data)
        for (float v : data.getValues<float>())
          values.push_back(v);
    });
    return values;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(WeightsTest, MergingFreesTheWeightsNoOpReadsAnyMore) {
  mergeGemms(/*free=*/true);
  // Q's weight has no reader left; K's is still returned.
  EXPECT_FALSE(holdsData("wq"));
  EXPECT_TRUE(holdsData("wk"));
  // The merged weight was read from both before Q's was freed: rows of
  // [wq | wk].
  std::vector<float> expected{1, 2, 11, 12, 3, 4, 13, 14,
                              5, 6, 15, 16, 7, 8, 17, 18};
  EXPECT_EQ(mergedWeight(), expected);
}

TEST_F(WeightsTest, MergingKeepsTheWeightsWhenOthersMayShareThem) {
  // tsc-opt's default, and tsc's with --report (its baselines share the
  // weights).
  mergeGemms(/*free=*/false);
  EXPECT_TRUE(holdsData("wq"));
  EXPECT_TRUE(holdsData("wk"));
}

TEST_F(WeightsTest, UnreferencedWeightsAreFreedReferencedOnesKept) {
  OwningOpRef<ModuleOp> clone = module->clone();
  mergeGemms(/*free=*/false);
  // The clone still refers to wq, which the merged module no longer does.
  freeUnreferencedWeights(&context,
                          {module->getOperation(), clone->getOperation()});
  EXPECT_TRUE(holdsData("wq"));
  EXPECT_TRUE(holdsData("wk"));
  EXPECT_FALSE(holdsData("spare"));
  // Without the clone, wq goes too; the merged weight is a literal here.
  clone = nullptr;
  freeUnreferencedWeights(&context, {module->getOperation()});
  EXPECT_FALSE(holdsData("wq"));
  EXPECT_TRUE(holdsData("wk"));
}

TEST_F(WeightsTest, PrecisionFreesEachF32WeightOnceConverted) {
  PassManager pm(&context);
  ReducePrecisionPassOptions options;
  options.freeReplacedWeights = true;
  pm.addNestedPass<func::FuncOp>(createReducePrecisionPass(options));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  // Both projections read half copies now; K's f32 weight is still
  // returned, Q's has no reader left.
  EXPECT_FALSE(holdsData("wq"));
  EXPECT_TRUE(holdsData("wk"));
  std::vector<float> converted;
  module->walk([&](LinearOp op) {
    auto weight = op.getWeight().getDefiningOp<ConstantOp>();
    auto data = weight ? dyn_cast<DenseElementsAttr>(weight.getValue())
                       : DenseElementsAttr();
    if (data && data.getElementType().isF16() && converted.empty())
      for (APFloat v : data.getValues<APFloat>())
        converted.push_back(v.convertToFloat());
  });
  std::vector<float> expected{1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(converted, expected);
}

} // namespace

// A trial compile (writeHostArtifact: what --max-error and the calibration
// run for each candidate) makes weights of its own, here a linear's s8 codes
// (256 x 512, over kMaxFoldedElements, so a blob): they go with the trial's
// clone. Until 2026-12-07 each trial kept its codes (MiniLM dynamic int8
// --max-error=0.05: 861 MB peak, 219 MB without the budget).
constexpr const char *kLinear = R"mlir(
func.func @f(%x: tensor<2x256xf32>) -> tensor<2x512xf32> {
  %w = tsc.constant dense_resource<w> : tensor<256x512xf32>
  %y = tsc.linear %x, %w {weight_kn} : (tensor<2x256xf32>, tensor<256x512xf32>) -> tensor<2x512xf32>
  return %y : tensor<2x512xf32>
}
)mlir";

TEST(TrialCompileTest, FreesTheWeightsItMakes) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // The driver's pipeline applies the pass manager's command-line options.
  registerPassManagerCLOptions();
  MLIRContext context;
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kLinear, &context);
  ASSERT_TRUE(module);
  DialectResourceBlobManager &manager =
      DenseResourceElementsHandle::getManagerInterface(&context)
          .getBlobManager();
  WeightEntry *w = manager.lookup("w");
  ASSERT_TRUE(w);
  std::vector<float> values(256 * 512);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(int(i % 97) - 48) / 64.0f;
  w->setBlob(HeapAsmResourceBlob::allocateAndCopyWithAlign(
      ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(float)),
      64));
  auto blobsWithData = [&] {
    size_t count = 0;
    manager.getBlobMap([&](const llvm::StringMap<WeightEntry> &blobs) {
      for (const auto &entry : blobs)
        if (const AsmResourceBlob *blob = entry.second.getBlob();
            blob && !blob->getData().empty())
          ++count;
    });
    return count;
  };
  ASSERT_EQ(blobsWithData(), 1u);
  CompileOptions options;
  options.quantize = Quantization::DynamicInt8;
  for (int trial = 0; trial < 3; ++trial) {
    SmallVector<char> bytes;
    llvm::raw_svector_ostream os(bytes);
    ASSERT_TRUE(succeeded(writeHostArtifact(*module, options, os)));
    // The artifact holds the codes (128 KiB), the context no longer does.
    EXPECT_GT(bytes.size(), size_t(256 * 512));
    EXPECT_EQ(blobsWithData(), 1u) << "after trial " << trial;
  }
  EXPECT_TRUE(w->getBlob() && !w->getBlob()->getData().empty());
}
