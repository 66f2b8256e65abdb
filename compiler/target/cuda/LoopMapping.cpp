//===- LoopMapping.cpp - bufferized kernels' loops mapped to the GPU -----===//
//
// The loop structure of device code, on bufferized kernels (as a pipeline of
// the passes in Passes.td, tsc-cuda-map-loops): norms and softmax as a
// block per row (RowBlocks.cpp), attention as a thread per query row
// (QueryRows.cpp); other linalg and scf.forall as scf.parallel; device work
// outside parallel loops in one-iteration loops; each outermost parallel
// loop tiled by kThreadsPerBlock (fewer for a small constant innermost dim)
// along its innermost dim and mapped: tiles to the grid (innermost dim on
// x, which has no 65535 limit), the tile to threadIdx.x, deeper parallel
// loops sequential in their thread.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/cuda/CudaCodegen.h"
#include "compiler/target/cuda/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tsc::cuda {
#define GEN_PASS_DEF_CANONICALIZEOUTSIDEROWBLOCKSPASS
#define GEN_PASS_DEF_WRAPSERIALWORKPASS
#define GEN_PASS_DEF_MAPLOOPSTOGPUPASS
#include "compiler/target/cuda/Passes.h.inc"
} // namespace mlir::tsc::cuda

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::cuda;

namespace {

/// Whether `op` works on memory the kernel computes: the device part of a
/// kernel function. Descriptor building, shape queries, allocation and views
/// stay host-side.
bool isDeviceWork(Operation *op) {
  if (isa<scf::ParallelOp, memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
          memref::DimOp, memref::ExtractStridedMetadataOp,
          UnrealizedConversionCastOp, bufferization::ToTensorOp,
          func::ReturnOp>(op) ||
      isa<ViewLikeOpInterface>(op))
    return false;
  bool touchesMemory = false;
  op->walk([&](Operation *inner) {
    if (llvm::any_of(inner->getOperandTypes(),
                     [](Type t) { return isa<MemRefType>(t); }))
      touchesMemory = true;
  });
  return touchesMemory;
}

/// Moves each run of device work outside parallel loops (0-d results,
/// scalar stores, full reductions) into a one-iteration scf.parallel, so it
/// is launched like the rest. Scalars the run computes for later work go
/// through memory: stored in the loop to a 0-d buffer, loaded after it (a
/// load the launches that use it take in). A run with other results used
/// after it stays where it is.
void wrapSerialWork(func::FuncOp func) {
  Block &body = func.getBody().front();
  SmallVector<SmallVector<Operation *>> runs;
  SmallVector<Operation *> run;
  for (Operation &op : body) {
    if (isDeviceWork(&op)) {
      run.push_back(&op);
      continue;
    }
    if (!run.empty())
      runs.push_back(std::exchange(run, {}));
  }
  for (ArrayRef<Operation *> ops : runs) {
    llvm::SmallPtrSet<Operation *, 8> inRun(ops.begin(), ops.end());
    SetVector<Value> escaping;
    for (Operation *op : ops)
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers())
          if (!inRun.contains(body.findAncestorOpInBlock(*user)))
            escaping.insert(result);
    if (llvm::any_of(escaping, [](Value v) {
          return !v.getType().isIntOrIndexOrFloat();
        }))
      continue;
    OpBuilder b(ops.front());
    Location loc = ops.front()->getLoc();
    SmallVector<Value> spills;
    for (Value value : escaping) {
      Type type = value.getType().isIndex() ? b.getI64Type() : value.getType();
      spills.push_back(
          memref::AllocOp::create(b, loc, MemRefType::get({}, type)));
    }
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                        ValueRange{one}, ValueRange{one});
    Operation *terminator = loop.getBody()->getTerminator();
    for (Operation *op : ops)
      op->moveBefore(terminator);
    b.setInsertionPoint(terminator);
    for (auto [value, spill] : llvm::zip(escaping, spills)) {
      Value stored = value;
      if (value.getType().isIndex())
        stored = arith::IndexCastOp::create(b, loc, b.getI64Type(), value);
      memref::StoreOp::create(b, loc, stored, spill);
    }
    b.setInsertionPointAfter(loop);
    for (auto [value, spill] : llvm::zip(escaping, spills)) {
      auto load = memref::LoadOp::create(b, loc, spill);
      // Nothing but the loop writes the spill: launches may read it later.
      load->setAttr(kSpillLoad, b.getUnitAttr());
      Value loaded = load;
      if (value.getType().isIndex())
        loaded = arith::IndexCastOp::create(b, loc, b.getIndexType(), loaded);
      Value(value).replaceUsesWithIf(loaded, [&](OpOperand &use) {
        return !loop->isAncestor(use.getOwner());
      });
    }
    b.setInsertionPoint(body.getTerminator());
    for (Value spill : spills)
      memref::DeallocOp::create(b, loc, spill);
  }
}

/// Replaces `loop` (without reductions) by a nest of scf.for.
void sequentialize(scf::ParallelOp loop) {
  OpBuilder b(loop);
  IRMapping mapping;
  scf::buildLoopNest(
      b, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
      loop.getStep(), [&](OpBuilder &nested, Location, ValueRange ivs) {
        mapping.map(loop.getInductionVars(), ivs);
        for (Operation &op : loop.getBody()->without_terminator())
          nested.clone(op, mapping);
      });
  loop.erase();
}

} // namespace

int64_t cuda::getElementsPerGroup(Operation *op) {
  // Floats only: a bool mask or byte buffer beside f32 data would otherwise
  // make groups of 16 floats.
  int64_t narrowest = 4;
  op->walk([&](Operation *nested) {
    for (Type type : nested->getOperandTypes())
      if (auto memref = dyn_cast<MemRefType>(type);
          memref && isa<FloatType>(memref.getElementType()))
        narrowest = std::min<int64_t>(
            narrowest,
            std::max(1u, memref.getElementType().getIntOrFloatBitWidth() / 8));
  });
  return kGroupBytes / narrowest;
}

namespace {

/// The trip count of `loop`'s innermost dim when its bounds and step are
/// constants.
std::optional<int64_t> innermostTrips(scf::ParallelOp loop) {
  std::optional<int64_t> lower =
      getConstantIntValue(loop.getLowerBound().back());
  std::optional<int64_t> upper =
      getConstantIntValue(loop.getUpperBound().back());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep().back());
  if (!lower || !upper || !step || *step <= 0)
    return std::nullopt;
  return llvm::divideCeil(std::max<int64_t>(*upper - *lower, 0), *step);
}

/// Regroups `loop`'s innermost dim (0 to C, step 1, C a multiple of the
/// group width, C / width >= kWarpSize) into groups of getElementsPerGroup
/// consecutive iterations, run in order by one parallel iteration; returns
/// the new loop, or `loop` unchanged when it does not qualify.
scf::ParallelOp groupInnermost(scf::ParallelOp loop) {
  std::optional<int64_t> trips = innermostTrips(loop);
  const int64_t width = getElementsPerGroup(loop);
  if (loop.getNumReductions() || !trips || *trips % width ||
      *trips / width < cuda::kWarpSize ||
      getConstantIntValue(loop.getLowerBound().back()) != 0 ||
      getConstantIntValue(loop.getStep().back()) != 1)
    return loop;
  int64_t upper = *trips;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> ubs(loop.getUpperBound());
  ubs.back() = arith::ConstantIndexOp::create(b, loc, upper / width);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value widthValue = arith::ConstantIndexOp::create(b, loc, width);
  scf::ForOp group;
  auto grouped = scf::ParallelOp::create(
      b, loc, loop.getLowerBound(), ubs, loop.getStep(),
      [&](OpBuilder &nested, Location loc, ValueRange ivs) {
        Value base = arith::MulIOp::create(nested, loc, ivs.back(), widthValue);
        group = scf::ForOp::create(
            nested, loc, zero, widthValue, one, ValueRange{},
            [&](OpBuilder &inner, Location loc, Value lane, ValueRange) {
              IRMapping mapping;
              mapping.map(ValueRange(loop.getInductionVars()).drop_back(),
                          ivs.drop_back());
              mapping.map(loop.getInductionVars().back(),
                          arith::AddIOp::create(inner, loc, base, lane));
              for (Operation &op : loop.getBody()->without_terminator())
                inner.clone(op, mapping);
              scf::YieldOp::create(inner, loc);
            });
      });
  loop.erase();
  // Unrolled here: LLVM's unroller declines a group of 8 heavy bodies (fp16
  // GELU), and its load/store vectorizer only merges straight-line accesses.
  (void)loopUnrollFull(group);
  return grouped;
}

/// Threads per block for `loop`: kThreadsPerBlock, or fewer (whole warps)
/// when its innermost dim is a smaller constant, so that a block is not
/// mostly idle threads (64 features, not 256 threads of which 192 wait).
int64_t threadsFor(scf::ParallelOp loop) {
  std::optional<int64_t> trips = innermostTrips(loop);
  if (!trips)
    return kThreadsPerBlock;
  return std::min(
      kThreadsPerBlock,
      int64_t(llvm::alignTo(std::max<int64_t>(*trips, 1), cuda::kWarpSize)));
}

/// Canonicalizes `kernels` but the row blocks: the canonicalizer would drop
/// a row loop's unit dims, and with them its kRowBlocks mark.
void canonicalizeOutsideRowBlocks(ModuleOp kernels) {
  MLIRContext *context = kernels.getContext();
  RewritePatternSet patterns(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  SmallVector<Operation *> ops;
  kernels.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->hasAttr(kRowBlocks))
      return WalkResult::skip();
    ops.push_back(op);
    return WalkResult::advance();
  });
  // Ops the rewrites create are simplified too, but not ops outside the
  // list whose operands change (a row loop whose bounds fold).
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(
      ops, FrozenRewritePatternSet(std::move(patterns)), config);
}

/// A row block's loop: its innermost dim on blockIdx.x, the next two on y
/// and z (mapRowsToBlocks takes at most three).
LogicalResult mapRowsToGrid(scf::ParallelOp rows) {
  MLIRContext *ctx = rows.getContext();
  auto identity = AffineMap::getMultiDimIdentityMap(1, ctx);
  const gpu::Processor order[] = {
      gpu::Processor::BlockX, gpu::Processor::BlockY, gpu::Processor::BlockZ};
  unsigned rank = rows.getNumLoops();
  SmallVector<gpu::ParallelLoopDimMappingAttr> grid;
  for (unsigned d = 0; d < rank; ++d)
    grid.push_back(gpu::ParallelLoopDimMappingAttr::get(
        ctx, order[rank - 1 - d], identity, identity));
  return gpu::setMappingAttr(rows, grid);
}

/// Tiles each outermost parallel loop for the grid and maps it: the tile
/// loop's innermost dim on blockIdx.x, the next two on y and z, the rest
/// sequential; in the tile, the innermost dim on threadIdx.x.
LogicalResult mapLoopsToGpu(func::FuncOp func) {
  SmallVector<scf::ParallelOp> outermost;
  for (Operation &op : func.getBody().front())
    if (auto loop = dyn_cast<scf::ParallelOp>(op))
      outermost.push_back(loop);
  MLIRContext *ctx = func.getContext();
  auto identity = AffineMap::getMultiDimIdentityMap(1, ctx);
  auto dimMapping = [&](gpu::Processor processor) {
    return gpu::ParallelLoopDimMappingAttr::get(ctx, processor, identity,
                                                identity);
  };
  for (scf::ParallelOp loop : outermost) {
    if (loop->hasAttr(kRowBlocks)) {
      if (failed(mapRowsToGrid(loop)))
        return failure();
      // Loops of a thread's own work (a row op's) run in order.
      SmallVector<scf::ParallelOp> inner;
      loop.getBody()->walk([&](scf::ParallelOp op) {
        if (!op->hasAttr(kThreadPhase))
          inner.push_back(op);
      });
      for (scf::ParallelOp op : inner)
        sequentialize(op);
      continue;
    }
    loop = groupInnermost(loop);
    unsigned rank = loop.getNumLoops();
    SmallVector<int64_t> tileSizes(rank, 1);
    tileSizes.back() = threadsFor(loop);
    auto [tiles, tile] =
        scf::tileParallelLoop(loop, tileSizes, /*noMinMaxBounds=*/true);
    SmallVector<gpu::ParallelLoopDimMappingAttr> grid, threads;
    for (unsigned d = 0; d < rank; ++d) {
      unsigned fromInner = rank - 1 - d;
      grid.push_back(dimMapping(fromInner == 0   ? gpu::Processor::BlockX
                                : fromInner == 1 ? gpu::Processor::BlockY
                                : fromInner == 2 ? gpu::Processor::BlockZ
                                                 : gpu::Processor::Sequential));
      threads.push_back(dimMapping(fromInner == 0
                                       ? gpu::Processor::ThreadX
                                       : gpu::Processor::Sequential));
    }
    if (failed(gpu::setMappingAttr(tiles, grid)) ||
        failed(gpu::setMappingAttr(tile, threads)))
      return failure();
    // Parallel loops inside a thread's work run in order (the launch
    // lowering does not take mapped loops below other side effects).
    // (Post-order: inner loops go first, so no loop is cloned with an
    // unconverted one inside.)
    SmallVector<scf::ParallelOp> inner;
    tile.getBody()->walk([&](scf::ParallelOp op) { inner.push_back(op); });
    for (scf::ParallelOp op : inner)
      sequentialize(op);
  }
  // Launch bounds must be constants: fold the tilings' step arithmetic
  // (canonicalizing the loops themselves would drop unit dims and with them
  // the mapping).
  SmallVector<Operation *> arithmetic;
  func.walk([&](Operation *op) {
    if (isa<arith::ArithDialect>(op->getDialect()))
      arithmetic.push_back(op);
  });
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  (void)applyOpPatternsGreedily(arithmetic, FrozenRewritePatternSet(), config);
  return success();
}

} // namespace

namespace {

struct CanonicalizeOutsideRowBlocksPass
    : cuda::impl::CanonicalizeOutsideRowBlocksPassBase<
          CanonicalizeOutsideRowBlocksPass> {
  void runOnOperation() override {
    canonicalizeOutsideRowBlocks(getOperation());
  }
};

struct WrapSerialWorkPass
    : cuda::impl::WrapSerialWorkPassBase<WrapSerialWorkPass> {
  void runOnOperation() override { wrapSerialWork(getOperation()); }
};

struct MapLoopsToGpuPass
    : cuda::impl::MapLoopsToGpuPassBase<MapLoopsToGpuPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (failed(mapLoopsToGpu(func))) {
      func.emitError("cannot map the kernel's loops to the GPU");
      signalPassFailure();
    }
  }
};

/// tsc-cuda-map-loops' options (buildLoopMappingPipeline's arguments).
struct LoopMappingOptions : PassPipelineOptions<LoopMappingOptions> {
  Option<bool> device{*this, "device",
                      llvm::cl::desc("Map for the device (else the host: "
                                     "thread phases as loops in order)"),
                      llvm::cl::init(true)};
  Option<bool> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("Let fp16/bf16 products be warp products (mma.sync)"),
      llvm::cl::init(true)};
};

} // namespace

void cuda::buildLoopMappingPipeline(OpPassManager &pm, MappedFor target,
                                    bool tensorCores) {
  // Row reductions and attention first: they take the foralls the kernels'
  // fusion left, before those become plain parallel loops.
  OpPassManager &func = pm.nest<func::FuncOp>();
  func.addPass(createMapRowsToBlocksPass());
  func.addPass(createMapQueryRowsToThreadsPass({tensorCores}));
  // Everything else as scf.parallel.
  func.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createForallToParallelLoopPass());
  // Launch bounds must be constants; row blocks keep their unit dims.
  pm.addPass(createCanonicalizeOutsideRowBlocksPass());
  OpPassManager &map = pm.nest<func::FuncOp>();
  // Work outside loops is launched too: in a one-iteration loop.
  map.addPass(createWrapSerialWorkPass());
  map.addPass(createMapLoopsToGpuPass());
  // Row blocks' phases: one loop over the threads with barriers on the
  // device, loops in order on the host.
  if (target == MappedFor::Device)
    map.addPass(createJoinThreadPhasesPass());
  else
    pm.addPass(createRunThreadPhasesInOrderPass());
}

LogicalResult cuda::mapKernelLoops(ModuleOp kernels, MappedFor target,
                                   bool tensorCores) {
  PassManager pm(kernels.getContext());
  buildLoopMappingPipeline(pm, target, tensorCores);
  return pm.run(kernels);
}

void cuda::registerCudaPasses() {
  registerTscCudaPasses();
  PassPipelineRegistration<LoopMappingOptions>(
      "tsc-cuda-map-loops",
      "The CUDA target's loop structure on bufferized kernels",
      [](OpPassManager &pm, const LoopMappingOptions &options) {
        buildLoopMappingPipeline(
            pm, options.device ? MappedFor::Device : MappedFor::Host,
            options.tensorCores);
      });
}
