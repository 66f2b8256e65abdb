//===- Lower.cpp - the kernels' tsc ops as fused linalg on tensors --------===//

#include "compiler/kernels/Kernels.h"

#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// linalg's elementwise fusion (the patterns of
/// -linalg-fuse-elementwise-ops), except that a producer fuses only into a
/// consumer that reads each of its elements once: through a permutation of
/// all the consumer's loops. Fusing exp(S - m) into P·V, which reads P
/// across the head dim, would compute every exp Dv times.
LogicalResult fuseElementwiseOps(ModuleOp kernels) {
  MLIRContext *context = kernels.getContext();
  linalg::ControlFusionFn singleUse = [](OpOperand *operand) {
    Operation *producer = operand->get().getDefiningOp();
    return producer && producer->hasOneUse();
  };
  linalg::ControlFusionFn noRecompute = [&](OpOperand *operand) {
    auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
    return singleUse(operand) && consumer &&
           consumer.getMatchingIndexingMap(operand).isPermutation();
  };
  RewritePatternSet patterns(context);
  linalg::populateElementwiseOpsFusionPatterns(patterns, noRecompute);
  linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, singleUse);
  tensor::populateBubbleUpExpandShapePatterns(patterns);
  affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
  linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
  context->getLoadedDialect<linalg::LinalgDialect>()
      ->getCanonicalizationPatterns(patterns);
  linalg::populateConstantFoldLinalgOperations(patterns, singleUse);
  return applyPatternsGreedily(kernels, std::move(patterns));
}

/// Whether `op` reduces any loop.
bool hasReduction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

/// Whether a reduction feeds `v` through linalg ops.
bool reducedFrom(Value v) {
  SmallVector<Value> work = {v};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    auto op =
        dyn_cast_or_null<linalg::LinalgOp>(work.pop_back_val().getDefiningOp());
    if (!op || !seen.insert(op).second)
      continue;
    if (op.getNumReductionLoops() > 0)
      return true;
    for (Value input : op->getOperands())
      work.push_back(input);
  }
  return false;
}

/// A norm or softmax is reductions over the last dim (mean, variance; max,
/// sum) and an elementwise generic that reads their results; as separate
/// loop nests each reads the whole input again. Tiling that last generic
/// by rows into an scf.forall and fusing its producers into the loop makes
/// the kernel one pass over memory: each row is read once, reduced and
/// written while it is in cache. The generic must read every value it gets
/// from a reduction per row (its map keeps every tiled dim), and a
/// reduction fuses only for a one-row slice, so no row recomputes
/// another's reduction.
LogicalResult fuseRowReductions(ModuleOp kernels) {
  SmallVector<linalg::GenericOp> roots;
  kernels.walk([&](bufferization::MaterializeInDestinationOp out) {
    auto root = out.getSource().getDefiningOp<linalg::GenericOp>();
    if (!root || root->getParentOfType<scf::ForallOp>() ||
        root.getNumReductionLoops() > 0 || root.getNumLoops() < 2 ||
        llvm::is_contained(roots, root))
      return;
    unsigned tiled = root.getNumLoops() - 1;
    bool reads = false;
    for (OpOperand *operand : root.getDpsInputOperands()) {
      if (!reducedFrom(operand->get()))
        continue;
      AffineMap map = root.getMatchingIndexingMap(operand);
      for (unsigned d = 0; d < tiled; ++d)
        if (!map.isFunctionOfDim(d))
          return;
      reads = true;
    }
    if (reads)
      roots.push_back(root);
  });
  IRRewriter rewriter(kernels.getContext());
  for (linalg::GenericOp root : roots) {
    SmallVector<OpFoldResult> sizes(root.getNumLoops() - 1,
                                    rewriter.getIndexAttr(1));
    sizes.push_back(rewriter.getIndexAttr(0));
    scf::SCFTileAndFuseOptions options;
    options.tilingOptions.setTileSizes(sizes).setLoopType(
        scf::SCFTilingOptions::LoopType::ForallOp);
    options.fusionControlFn =
        [](tensor::ExtractSliceOp slice, OpResult producer,
           bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
      if (hasReduction(producer.getOwner()) &&
          !llvm::all_of(slice.getMixedSizes(), [](OpFoldResult size) {
            return isConstantIntValue(size, 1);
          }))
        return std::nullopt;
      return scf::SCFTileAndFuseOptions::ControlFnResult();
    };
    rewriter.setInsertionPoint(root);
    FailureOr<scf::SCFTileAndFuseResult> fused =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(root.getOperation()), options);
    if (failed(fused))
      return root->emitError("cannot tile the row reduction into rows");
    for (OpResult result : root->getResults())
      rewriter.replaceAllUsesWith(result, fused->replacements.lookup(result));
  }
  return success();
}

} // namespace

LogicalResult mlir::tsc::lowerKernels(ModuleOp kernels,
                                      int64_t maxKeyValueBlockBytes,
                                      bool bf16Products) {
  PassManager pm(kernels.getContext());
  // tsc ops become linalg on tensors, in destination-passing style.
  ConvertTscToLinalgPassOptions toLinalg;
  toLinalg.maxKeyValueBlockBytes = maxKeyValueBlockBytes;
  toLinalg.bf16Products = bf16Products;
  pm.addNestedPass<func::FuncOp>(createConvertTscToLinalgPass(toLinalg));
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(kernels)))
    return failure();
  // Chains of elementwise generics in one kernel become one loop nest.
  if (failed(fuseElementwiseOps(kernels)))
    return failure();
  pm.clear();
  pm.addPass(createCSEPass());
  if (failed(pm.run(kernels)))
    return failure();
  // Norms and softmax: one pass over memory per row.
  if (failed(fuseRowReductions(kernels)))
    return failure();
  pm.clear();
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  return pm.run(kernels);
}
