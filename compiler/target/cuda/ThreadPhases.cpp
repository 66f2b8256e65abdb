//===- ThreadPhases.cpp - thread phases, built and run on host or device --===//
//
// The building blocks of row blocks (ThreadPhases.h) that RowBlocks.cpp
// and QueryRows.cpp share, and what thread phases become: loops in order on
// the host (runThreadPhasesInOrder), one loop over the threads with
// barriers and block reductions on the device (joinThreadPhases), row
// buffers in shared memory once the kernels are outlined.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/cuda/ThreadPhases.h"
#include "compiler/target/cuda/CudaCodegen.h"
#include "compiler/target/cuda/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tsc::cuda {
#define GEN_PASS_DEF_RUNTHREADPHASESINORDERPASS
#define GEN_PASS_DEF_JOINTHREADPHASESPASS
#define GEN_PASS_DEF_PLACEROWBUFFERSINSHAREDMEMORYPASS
#include "compiler/target/cuda/Passes.h.inc"
} // namespace mlir::tsc::cuda

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::cuda;

std::optional<Combiner> cuda::getCombiner(Operation *op) {
  using Kind = gpu::AllReduceOperation;
  if (op->getNumResults() != 1 || op->getNumOperands() != 2)
    return std::nullopt;
  Type type = op->getResult(0).getType();
  // What gpu.shuffle moves between lanes.
  if (!type.isF32() && !type.isF64() && !type.isInteger(32) &&
      !type.isInteger(64))
    return std::nullopt;
  std::optional<Kind> kind =
      llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
          .Case<arith::AddFOp, arith::AddIOp>([](auto) { return Kind::ADD; })
          .Case<arith::MulFOp, arith::MulIOp>([](auto) { return Kind::MUL; })
          .Case([](arith::MaximumFOp) { return Kind::MAXIMUMF; })
          .Case([](arith::MinimumFOp) { return Kind::MINIMUMF; })
          .Case([](arith::MaxNumFOp) { return Kind::MAXNUMF; })
          .Case([](arith::MinNumFOp) { return Kind::MINNUMF; })
          .Case([](arith::AndIOp) { return Kind::AND; })
          .Case([](arith::OrIOp) { return Kind::OR; })
          .Case([](arith::XOrIOp) { return Kind::XOR; })
          .Case([](arith::MaxSIOp) { return Kind::MAXSI; })
          .Case([](arith::MinSIOp) { return Kind::MINSI; })
          .Case([](arith::MaxUIOp) { return Kind::MAXUI; })
          .Case([](arith::MinUIOp) { return Kind::MINUI; })
          .Default([](Operation *) { return std::nullopt; });
  // Each thread's partial starts from the combiner's neutral element
  // (maxnum/minnum: NaN, which they ignore).
  std::optional<TypedAttr> identity = arith::getNeutralElement(op);
  if (!kind || !identity)
    return std::nullopt;
  return Combiner{*kind, *identity};
}

Combiner cuda::checkedCombiner(Operation *op) {
  std::optional<Combiner> combiner = getCombiner(op);
  assert(combiner && "a reduction getRowOp did not accept");
  return *combiner;
}

namespace {

/// Moves `loop`'s body (but its terminator) before `before`, its induction
/// variable replaced by `iv`; returns the values its scf.reduce combines.
SmallVector<Value> inlinePhase(scf::ParallelOp loop, Value iv,
                               Operation *before) {
  Block *body = loop.getBody();
  body->getArgument(0).replaceAllUsesWith(iv);
  SmallVector<Value> partials(body->getTerminator()->getOperands());
  for (Operation &op : llvm::make_early_inc_range(body->without_terminator()))
    op.moveBefore(before);
  return partials;
}

/// The ops of type OpT in `root` that carry the attribute `mark`.
template <typename OpT>
SmallVector<OpT> collectMarked(Operation *root, StringRef mark) {
  SmallVector<OpT> marked;
  root->walk([&](OpT op) {
    if (op->hasAttr(mark))
      marked.push_back(op);
  });
  return marked;
}

/// Whether `memref` is a thread's own memory (an alloca not in shared
/// memory, or a view of one), which no other thread sees.
bool isThreadPrivate(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  auto alloca = memref.getDefiningOp<memref::AllocaOp>();
  return alloca && !alloca->hasAttr(kBlockShared);
}

/// Whether `op` or an op in it has a memory effect of kind EffectT on
/// memory other threads see (an op that does not say what it does counts as
/// having it).
template <typename EffectT> bool hasMemoryEffect(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
          return WalkResult::advance();
        if (auto load = dyn_cast<memref::LoadOp>(inner);
            load && isThreadPrivate(load.getMemRef()))
          return WalkResult::advance();
        if (auto store = dyn_cast<memref::StoreOp>(inner);
            store && isThreadPrivate(store.getMemRef()))
          return WalkResult::advance();
        auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
        return !effects || effects.hasEffect<EffectT>()
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Barrier bookkeeping in a block's thread loop: whether some thread wrote
/// (read) memory since the last barrier that another thread may read or
/// overwrite (overwrite) next.
struct Hazards {
  bool wrote = false, read = false;
};

/// Inlines the thread phases of `block` (the thread loop's body, or the body
/// of uniform control flow in it) for thread `t`: a gpu.barrier before an op
/// whose accesses may conflict with another thread's since the last one, a
/// gpu.all_reduce per reduction.
void joinPhasesIn(Block &block, Value t, Hazards &hazards) {
  MLIRContext *ctx = t.getContext();
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    auto phase = dyn_cast<scf::ParallelOp>(op);
    bool isPhase = phase && phase->hasAttr(kThreadPhase);
    if (!isPhase &&
        !collectMarked<scf::ParallelOp>(&op, kThreadPhase).empty()) {
      // A loop (all threads run the same trips) around phases: at its
      // start, after a trip and after it, any access may conflict.
      for (Region &region : op.getRegions())
        for (Block &inner : region) {
          Hazards unknown{true, true};
          joinPhasesIn(inner, t, unknown);
        }
      hazards = {true, true};
      continue;
    }
    OpBuilder b(&op);
    Location loc = op.getLoc();
    bool reads = hasMemoryEffect<MemoryEffects::Read>(&op),
         writes = hasMemoryEffect<MemoryEffects::Write>(&op);
    if ((hazards.wrote && (reads || writes)) || (hazards.read && writes)) {
      gpu::BarrierOp::create(b, loc);
      hazards = {};
    }
    hazards.wrote |= writes;
    hazards.read |= reads;
    if (!isPhase)
      continue;
    auto reduce = cast<scf::ReduceOp>(phase.getBody()->getTerminator());
    SmallVector<Value> partials = inlinePhase(phase, t, phase);
    SmallVector<Value> totals;
    for (auto [region, partial] : llvm::zip(reduce.getReductions(), partials)) {
      const Combiner combiner = checkedCombiner(&region.front().front());
      totals.push_back(gpu::AllReduceOp::create(
          b, loc, partial, gpu::AllReduceOperationAttr::get(ctx, combiner.kind),
          /*uniform=*/true));
      // The reduction's barriers order all memory accesses before it.
      hazards = {};
    }
    phase.replaceAllUsesWith(totals);
    phase.erase();
  }
}

/// Each kThreadTile alloca in `threads` (a tile with a row per thread, used
/// through views at the thread's row) as a one-row tile of the thread's own:
/// each thread's copy of the whole tile would be mostly unused local memory.
void shrinkThreadTiles(scf::ParallelOp threads) {
  Value t = threads.getInductionVars().front();
  for (auto tile : collectMarked<memref::AllocaOp>(threads, kThreadTile)) {
    // Every use a view whose first offset is the thread's row.
    auto atRow = [&](Operation *user) {
      auto view = dyn_cast<memref::SubViewOp>(user);
      return view && view.getSource() == tile &&
             ShapedType::isDynamic(view.getStaticOffsets().front()) &&
             view.getOffsets().front() == t &&
             view.getStaticSizes().front() == 1;
    };
    if (!llvm::all_of(tile->getUsers(), atRow))
      continue;
    MemRefType type = tile.getType();
    SmallVector<int64_t> shape(type.getShape());
    shape.front() = 1;
    OpBuilder b(tile);
    auto own = memref::AllocaOp::create(
        b, tile.getLoc(), MemRefType::get(shape, type.getElementType()),
        tile.getAlignmentAttr());
    Value zero = arith::ConstantIndexOp::create(b, tile.getLoc(), 0);
    for (Operation *user : llvm::make_early_inc_range(tile->getUsers())) {
      auto view = cast<memref::SubViewOp>(user);
      view.getSourceMutable().assign(own);
      view.getOffsetsMutable()[0].assign(zero);
    }
    tile.erase();
  }
}

} // namespace

scf::ParallelOp
cuda::createThreadPhase(OpBuilder &b, Location loc, int64_t threads,
                        ValueRange inits,
                        function_ref<void(OpBuilder &, Value)> body) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto loop = scf::ParallelOp::create(
      b, loc, ValueRange{index(0)}, ValueRange{index(threads)},
      ValueRange{index(1)}, inits,
      [&](OpBuilder &nested, Location, ValueRange ivs, ValueRange) {
        body(nested, ivs.front());
      });
  loop->setAttr(kThreadPhase, b.getUnitAttr());
  return loop;
}

SmallVector<Value> cuda::evaluateMap(OpBuilder &b, Location loc, AffineMap map,
                                     ValueRange dims) {
  SmallVector<Value> result;
  for (AffineExpr expr : map.getResults())
    result.push_back(affine::expandAffineExpr(b, loc, expr, dims, {}));
  return result;
}

SmallVector<Value>
cuda::payloadArguments(OpBuilder &b, Location loc, linalg::LinalgOp op,
                       function_ref<Value(OpOperand &)> read) {
  SmallVector<Value> args;
  for (OpOperand &operand : op->getOpOperands()) {
    if (op.isDpsInput(&operand) || op.payloadUsesValueFromOperand(&operand)) {
      args.push_back(read(operand));
      continue;
    }
    Type element = getElementTypeOrSelf(operand.get().getType());
    args.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(element)));
  }
  return args;
}

SmallVector<Value> cuda::clonePayload(OpBuilder &b, linalg::LinalgOp op,
                                      ValueRange args, ValueRange dims,
                                      const IRMapping &outer) {
  IRMapping mapping = outer;
  Block *block = op.getBlock();
  mapping.map(block->getArguments(), args);
  for (Operation &inner : block->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), dims[index.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
  SmallVector<Value> results;
  for (Value v : block->getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}

void cuda::runThreadPhasesInOrder(ModuleOp kernels) {
  for (auto loop : collectMarked<scf::ParallelOp>(kernels, kThreadPhase)) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    auto reduce = cast<scf::ReduceOp>(loop.getBody()->getTerminator());
    // A warp phase's first thread computes the warp's vectors.
    Value step = loop->hasAttr(kWarpPhase)
                     ? Value(arith::ConstantIndexOp::create(b, loc, kWarpSize))
                     : loop.getStep().front();
    auto ordered = scf::ForOp::create(
        b, loc, loop.getLowerBound().front(), loop.getUpperBound().front(),
        step, loop.getInitVals(),
        [&](OpBuilder &nested, Location, Value t, ValueRange totals) {
          IRMapping mapping;
          mapping.map(loop.getInductionVars().front(), t);
          for (Operation &op : loop.getBody()->without_terminator())
            nested.clone(op, mapping);
          SmallVector<Value> combined;
          for (auto [region, partial, total] : llvm::zip(
                   reduce.getReductions(), reduce.getOperands(), totals)) {
            Block &block = region.front();
            IRMapping combine;
            combine.map(block.getArgument(0), total);
            combine.map(block.getArgument(1), mapping.lookup(partial));
            for (Operation &op : block.without_terminator())
              nested.clone(op, combine);
            combined.push_back(
                combine.lookup(block.getTerminator()->getOperand(0)));
          }
          scf::YieldOp::create(nested, loc, combined);
        });
    loop.replaceAllUsesWith(ordered.getResults());
    loop.erase();
  }
}

/// Replaces `old` (a buffer in another memory space) by `replacement` in its
/// users, rebuilding the views of it, whose types carry the memory space.
static void replaceBuffer(Value old, Value replacement) {
  for (OpOperand &use : llvm::make_early_inc_range(old.getUses())) {
    auto view = dyn_cast<memref::SubViewOp>(use.getOwner());
    if (!view || use.get() != view.getSource()) {
      use.set(replacement);
      continue;
    }
    OpBuilder b(view);
    MemRefType type = memref::SubViewOp::inferRankReducedResultType(
        view.getType().getShape(), cast<MemRefType>(replacement.getType()),
        view.getMixedOffsets(), view.getMixedSizes(), view.getMixedStrides());
    auto rebuilt = memref::SubViewOp::create(
        b, view.getLoc(), type, replacement, view.getMixedOffsets(),
        view.getMixedSizes(), view.getMixedStrides());
    replaceBuffer(view.getResult(), rebuilt.getResult());
    view->erase();
  }
}

int64_t cuda::getPaddedRowStride(MemRefType type) {
  int64_t cols = type.getShape().back();
  if (type.getRank() != 2 || type.getDimSize(0) <= 1)
    return cols;
  int64_t bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  constexpr int64_t kBankRowBytes = 32 * 4;
  if ((cols * bytes) % kBankRowBytes != 0)
    return cols;
  if (bytes == 4)
    return cols + 1;
  if (bytes == 2)
    return cols + 8;
  return cols;
}

void cuda::placeRowBuffersInSharedMemory(gpu::GPUFuncOp kernel) {
  auto workgroup = gpu::AddressSpaceAttr::get(
      kernel.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  for (auto alloca : collectMarked<memref::AllocaOp>(kernel, kBlockShared)) {
    MemRefType type = alloca.getType();
    SmallVector<int64_t> shape(type.getShape());
    int64_t stride = shape.back();
    if (auto padded = alloca->getAttrOfType<IntegerAttr>(kSharedRowStride))
      stride = padded.getInt();
    shape.back() = stride;
    auto bufferType = MemRefType::get(shape, type.getElementType(),
                                      MemRefLayoutAttrInterface(), workgroup);
    // bf16 buffers are bytes viewed as bf16, so that a tensor-core product
    // can view the same bytes as f16 (lowerWarpProducts: MLIR's mma.sync
    // conversion takes f16 only).
    bool bytes = type.getElementType().isBF16();
    OpBuilder b(alloca);
    Value shared = kernel.addWorkgroupAttribution(
        bytes
            ? MemRefType::get({bufferType.getNumElements() * 2}, b.getI8Type(),
                              MemRefLayoutAttrInterface(), workgroup)
            : bufferType,
        alloca.getLoc());
    // 16-byte aligned for the threads' groups of 4 floats (LLVM does not
    // raise the alignment of a workgroup buffer itself).
    kernel.setWorkgroupAttributionAttr(
        kernel.getNumWorkgroupAttributions() - 1,
        LLVM::LLVMDialect::getAlignAttrName(),
        IntegerAttr::get(IntegerType::get(kernel.getContext(), 64), 16));
    if (bytes)
      shared = memref::ViewOp::create(
          b, alloca.getLoc(), bufferType, shared,
          arith::ConstantIndexOp::create(b, alloca.getLoc(), 0), ValueRange{});
    if (stride != type.getShape().back()) {
      // The tile's rows, a view of the padded buffer.
      SmallVector<OpFoldResult> zeros(2, b.getIndexAttr(0)),
          ones(2, b.getIndexAttr(1)),
          sizes = {b.getIndexAttr(type.getDimSize(0)),
                   b.getIndexAttr(type.getDimSize(1))};
      shared = memref::SubViewOp::create(b, alloca.getLoc(), shared, zeros,
                                         sizes, ones);
    }
    replaceBuffer(alloca.getResult(), shared);
    alloca.erase();
  }
}

LogicalResult cuda::joinThreadPhases(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  for (auto rows : collectMarked<scf::ParallelOp>(func, kRowBlocks)) {
    SmallVector<scf::ParallelOp> phases =
        collectMarked<scf::ParallelOp>(rows, kThreadPhase);
    if (phases.empty())
      continue;
    Block *body = rows.getBody();
    Location loc = rows.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(body);
    // (The phases' bounds are constants in the body, which moves into the
    // loop.)
    std::optional<int64_t> count =
        getConstantIntValue(phases.front().getUpperBound().front());
    assert(count && "thread phases over a constant number of threads");
    auto threads = scf::ParallelOp::create(
        b, loc, ValueRange{arith::ConstantIndexOp::create(b, loc, 0)},
        ValueRange{arith::ConstantIndexOp::create(b, loc, *count)},
        ValueRange{arith::ConstantIndexOp::create(b, loc, 1)});
    auto identity = AffineMap::getMultiDimIdentityMap(1, ctx);
    if (failed(gpu::setMappingAttr(
            threads, {gpu::ParallelLoopDimMappingAttr::get(
                         ctx, gpu::Processor::ThreadX, identity, identity)})))
      return failure();
    Operation *end = threads.getBody()->getTerminator();
    for (Operation &op : llvm::make_early_inc_range(*body))
      if (&op != threads && &op != body->getTerminator())
        op.moveBefore(end);
    Value t = threads.getInductionVars().front();
    Hazards hazards;
    joinPhasesIn(*threads.getBody(), t, hazards);
    shrinkThreadTiles(threads);
  }
  return success();
}

namespace {

struct RunThreadPhasesInOrderPass
    : cuda::impl::RunThreadPhasesInOrderPassBase<RunThreadPhasesInOrderPass> {
  void runOnOperation() override { runThreadPhasesInOrder(getOperation()); }
};

struct JoinThreadPhasesPass
    : cuda::impl::JoinThreadPhasesPassBase<JoinThreadPhasesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (failed(joinThreadPhases(func))) {
      func.emitError("cannot map the kernel's row blocks to the GPU");
      signalPassFailure();
    }
  }
};

struct PlaceRowBuffersInSharedMemoryPass
    : cuda::impl::PlaceRowBuffersInSharedMemoryPassBase<
          PlaceRowBuffersInSharedMemoryPass> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<gpu::GPUFuncOp>())
      placeRowBuffersInSharedMemory(kernel);
  }
};

} // namespace