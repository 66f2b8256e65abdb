//===- Bufferize.cpp - the lowered kernels on their plan buffers ----------===//

#include "compiler/kernels/Kernels.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// The largest temporary a kernel keeps on the stack (OpenMP worker
/// threads have a few MiB of stack).
constexpr int64_t kMaxStackTemporaryBytes = 64 * 1024;

/// Small static temporaries inside an scf.forall (attention's tiles) become
/// one stack buffer per parallel iteration: allocated at the top of the
/// forall's body, however deep the loop that used to allocate and free it
/// per trip. The deallocation pipeline leaves allocations in a forall body
/// unfreed; on the stack (the OpenMP loop body is an alloca scope) they
/// cost nothing, and distinct stack objects are what lets LLVM vectorize
/// their loops without runtime alias checks.
void tileTemporariesOnStack(ModuleOp kernels) {
  SmallVector<memref::AllocOp> allocs;
  kernels.walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (alloc->getParentOfType<scf::ForallOp>() && type.hasStaticShape() &&
        type.getLayout().isIdentity() &&
        type.getNumElements() * (type.getElementTypeBitWidth() / 8) <=
            kMaxStackTemporaryBytes)
      allocs.push_back(alloc);
  });
  // Their deallocations, which may free a view or the base buffer of one.
  DenseSet<Operation *> moving(allocs.begin(), allocs.end());
  kernels.walk([&](memref::DeallocOp dealloc) {
    Value v = dealloc.getMemref();
    while (Operation *def = v.getDefiningOp()) {
      if (moving.contains(def)) {
        dealloc->erase();
        return;
      }
      if (auto view = dyn_cast<ViewLikeOpInterface>(def))
        v = view.getViewSource();
      else if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(def))
        v = meta.getSource();
      else
        return;
    }
  });
  for (memref::AllocOp alloc : allocs) {
    auto forall = alloc->getParentOfType<scf::ForallOp>();
    OpBuilder b = OpBuilder::atBlockBegin(forall.getBody());
    auto alloca = memref::AllocaOp::create(b, alloc.getLoc(), alloc.getType(),
                                           alloc.getAlignmentAttr());
    alloc.replaceAllUsesWith(alloca.getResult());
    alloc->erase();
  }
}

/// Whether `v` (a buffer or a view of one) reaches a terminator of `block`
/// (leaves it) or is deallocated already.
bool escapesOrFreed(Value v, Block *block) {
  for (Operation *user : v.getUsers()) {
    if (isa<memref::DeallocOp>(user) ||
        (user->getBlock() == block && user->hasTrait<OpTrait::IsTerminator>()))
      return true;
    if (isa<ViewLikeOpInterface>(user) &&
        llvm::any_of(user->getResults(),
                     [&](Value r) { return escapesOrFreed(r, block); }))
      return true;
  }
  return false;
}

/// The heap temporaries left in an scf.forall (those of dynamic size: a row
/// of symbolic length that a fused norm or softmax reads more than once),
/// freed at the end of the block that allocates them. The deallocation
/// pipeline leaves allocations in a forall body unfreed, so each such row
/// was a malloc per row per run never given back: an Add feeding a Softmax
/// over 4096 rows of a symbolic 128 grew tsc-run's memory by 2.3 MB a run.
void freeForallTemporaries(ModuleOp kernels) {
  kernels.walk([](memref::AllocOp alloc) {
    Block *block = alloc->getBlock();
    if (!alloc->getParentOfType<scf::ForallOp>() ||
        escapesOrFreed(alloc.getResult(), block))
      return;
    OpBuilder b(block->getTerminator());
    memref::DeallocOp::create(b, alloc.getLoc(), alloc.getResult());
  });
}
} // namespace

LogicalResult mlir::tsc::bufferizeKernels(ModuleOp kernels, bool polynomialExp,
                                          bool freeLoopTemporaries) {
  PassManager pm(kernels.getContext());
  // Results land in their plan buffers (materialize_in_destination), and a
  // result built from tensor.empty is built there directly, not in a
  // temporary copied there afterwards; only temporaries inside a kernel get
  // new allocations.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass());
  // Temporaries are freed before the kernel returns.
  bufferization::buildBufferDeallocationPipeline(pm);
  if (failed(pm.run(kernels)))
    return failure();
  tileTemporariesOnStack(kernels);
  if (freeLoopTemporaries)
    freeForallTemporaries(kernels);
  // Strided memref.copy lowers to a call into MLIR's C runner library, which
  // the runtime does not have: copy with loops instead.
  kernels.walk([](memref::CopyOp copy) {
    OpBuilder b(copy);
    linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                           copy.getTarget());
    copy.erase();
  });
  // exp, erf and tanh as polynomials: libm calls would keep LLVM from
  // vectorizing the loops of softmax, GELU and every activation (and on the
  // GPU would need libdevice; the CUDA target has ex2 for exp).
  {
    RewritePatternSet patterns(kernels.getContext());
    populateMathPolynomialApproximationPatterns(patterns, [&](StringRef name) {
      return (polynomialExp && name == math::ExpOp::getOperationName()) ||
             name == math::ErfOp::getOperationName() ||
             name == math::TanhOp::getOperationName();
    });
    if (failed(applyPatternsGreedily(kernels, std::move(patterns))))
      return failure();
  }
  return success();
}
