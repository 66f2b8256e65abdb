//===- CudaCodegen.cpp - kernels through gpu/nvvm to PTX and SASS ---------===//
//
// After bufferization (shared with the host target), each kernel step is a
// function whose preamble builds memref descriptors from the buffer and
// symbol arrays, followed by loop nests over those memrefs. Here:
//   1. norms and softmax (row-tiled scf.forall) become a block per row
//      (RowBlocks.cpp), attention a block per query block with a thread per
//      query row (QueryRows.cpp); other linalg becomes scf.parallel, other
//      scf.forall too; work outside any parallel loop is put in a
//      one-iteration loop;
//   2. each outermost parallel loop is tiled by kThreadsPerBlock (fewer for
//      a small constant innermost dim) along its
//      innermost dim and mapped: tiles to the grid (innermost dim on x,
//      which has no 65535 limit), the tile to threadIdx.x, deeper parallel
//      loops run sequentially in their thread;
//   3. the mapped loops become gpu.launch ops, outlined into gpu.modules;
//   4. each module is lowered to NVVM and serialized to PTX by LLVM's NVPTX
//      back end for the target's chip and PTX version, with FMA contraction;
//   5. ptxas assembles each module's PTX into SASS.
// The launches' geometry and arguments become plan expressions
// (Launches.cpp), which the runtime evaluates per run.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/cuda/CudaCodegen.h"
#include "compiler/target/host/HostCodegen.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::cuda;

namespace {

/// The CUDA toolkit root: $CUDA_HOME, $CUDA_ROOT, else /usr/local/cuda.
std::string toolkitRoot() {
  for (const char *var : {"CUDA_HOME", "CUDA_ROOT"})
    if (const char *root = std::getenv(var))
      return root;
  return "/usr/local/cuda";
}

/// exp as the GPU's ex2.approx.f32: exp(x) = 2^(x·log2 e), CUDA's __expf,
/// through NVVM's intrinsic (NVPTX has no exp instruction; MLIR's NVVM
/// conversion sends math.exp and math.exp2 to libdevice's precise functions
/// and refuses LLVM's exp2). Relative error: ex2's 2 ulp plus the rounding of
/// x·log2 e and of log2 e, up to |x|·2^-23 (1e-6 for |x| <= 8, 1e-5 at |x| =
/// 88, where exp leaves f32's range). Half operands compute in f32. It replaces
/// the host's polynomial (about 20 FMAs, selects and a rounding): softmax
/// and attention evaluate it once per score.
void lowerExpToExp2(gpu::GPUModuleOp module) {
  SmallVector<math::ExpOp> exps;
  module.walk([&](math::ExpOp exp) {
    if (isa<FloatType>(exp.getType()) &&
        exp.getType().getIntOrFloatBitWidth() <= 32)
      exps.push_back(exp);
  });
  for (math::ExpOp exp : exps) {
    OpBuilder b(exp);
    Location loc = exp.getLoc();
    Type f32 = b.getF32Type();
    Value x = exp.getOperand();
    if (x.getType() != f32)
      x = arith::ExtFOp::create(b, loc, f32, x);
    Value log2e = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(1.4426950408889634));
    Value y = LLVM::CallIntrinsicOp::create(
                  b, loc, f32, b.getStringAttr("llvm.nvvm.ex2.approx.f32"),
                  ValueRange{arith::MulFOp::create(b, loc, x, log2e)})
                  .getResult(0);
    if (exp.getType() != f32)
      y = arith::TruncFOp::create(b, loc, exp.getType(), y);
    exp.replaceAllUsesWith(y);
    exp.erase();
  }
}

/// Registers what the device lowering and NVPTX serialization need.
void registerDeviceDialects(MLIRContext *context) {
  DialectRegistry registry;
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  registerAllToLLVMIRTranslations(registry);
  context->appendDialectRegistry(registry);
  context->loadDialect<gpu::GPUDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect,
                       vector::VectorDialect, affine::AffineDialect>();
}

/// Whether `op` works on memory the kernel computes: the device part of a
/// kernel function. Descriptor building, shape queries, allocation and views
/// stay host-side.
bool isDeviceWork(Operation *op) {
  if (isa<scf::ParallelOp, memref::AllocOp, memref::AllocaOp,
          memref::DeallocOp, memref::DimOp, memref::ExtractStridedMetadataOp,
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
      spills.push_back(memref::AllocOp::create(b, loc, MemRefType::get({}, type)));
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
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound().back());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound().back());
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
  const gpu::Processor order[] = {gpu::Processor::BlockX,
                                  gpu::Processor::BlockY,
                                  gpu::Processor::BlockZ};
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
      threads.push_back(dimMapping(fromInner == 0 ? gpu::Processor::ThreadX
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

LogicalResult cuda::mapKernelLoops(ModuleOp kernels, MappedFor target,
                                   bool tensorCores) {
  MLIRContext *context = kernels.getContext();
  context->loadDialect<gpu::GPUDialect, vector::VectorDialect,
                       affine::AffineDialect>();
  for (auto func : kernels.getOps<func::FuncOp>()) {
    mapRowsToBlocks(func);
    mapQueryRowsToThreads(func, tensorCores);
  }
  PassManager pm(context);
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createForallToParallelLoopPass());
  if (failed(pm.run(kernels)))
    return failure();
  canonicalizeOutsideRowBlocks(kernels);
  for (auto func : kernels.getOps<func::FuncOp>()) {
    wrapSerialWork(func);
    if (failed(mapLoopsToGpu(func)))
      return func.emitError("cannot map the kernel's loops to the GPU");
    if (target == MappedFor::Device && failed(joinThreadPhases(func)))
      return func.emitError("cannot map the kernel's row blocks to the GPU");
  }
  if (target == MappedFor::Host)
    runThreadPhasesInOrder(kernels);
  return success();
}

FailureOr<DeviceCode>
cuda::generateDeviceCode(ModuleOp kernels, const plan::Plan &plan,
                         ArrayRef<const TargetInfo *> targets) {
  DeviceCode code;
  plan::PlanExtender extended(plan, code.planAdditions);
  MLIRContext *context = kernels.getContext();
  registerDeviceDialects(context);
  if (failed(bufferizeKernels(kernels, /*polynomialExp=*/false)) ||
      failed(mapKernelLoops(kernels, MappedFor::Device,
                            llvm::all_of(targets, [](const TargetInfo *t) {
                              return t->hasMmaSync();
                            }))))
    return failure();

  // The mapped loops become launches that capture only the kernel
  // function's arguments.
  PassManager toLaunches(context);
  toLaunches.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  if (failed(toLaunches.run(kernels)))
    return failure();
  DenseMap<StringRef, unsigned> stepIndex;
  for (auto [i, step] : llvm::enumerate(plan.steps))
    if (step.kind == plan::PlanStep::Kind::Kernel)
      stepIndex[step.name] = i;
  llvm::StringMap<SmallVector<LaunchArg>> argValues;
  for (auto func : kernels.getOps<func::FuncOp>()) {
    auto step = stepIndex.find(func.getSymName());
    if (step == stepIndex.end())
      return func.emitError("a kernel function without a plan step");
    if (failed(prepareLaunches(func, extended, plan.steps[step->second],
                               argValues[func.getSymName()])))
      return failure();
  }

  PassManager outline(context);
  outline.addPass(createGpuKernelOutliningPass());
  if (failed(outline.run(kernels)))
    return failure();
  // Row blocks: their row buffers and block reductions (warp shuffles) in
  // shared memory, which needs the kernel function for its workgroup
  // buffers.
  RewritePatternSet allReduce(context);
  populateGpuAllReducePatterns(allReduce);
  FrozenRewritePatternSet allReducePatterns(std::move(allReduce));
  for (auto module : kernels.getOps<gpu::GPUModuleOp>()) {
    for (auto kernel : module.getOps<gpu::GPUFuncOp>())
      placeRowBuffersInSharedMemory(kernel);
    if (failed(applyPatternsGreedily(module, allReducePatterns)))
      return module.emitError("cannot lower the block reductions");
    if (failed(lowerWarpProducts(module)))
      return failure();
    lowerExpToExp2(module);
  }
  // Every pointer a kernel receives is a plan value's start, aligned to
  // plan::kAlignment;
  // and values of different plan roots that one step uses never overlap.
  // Saying so (align, noalias) lets LLVM combine a thread's neighbouring
  // accesses into vector loads and stores.
  for (auto func : kernels.getOps<func::FuncOp>()) {
    ArrayRef<LaunchArg> meaning = argValues[func.getSymName()];
    func.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel)
        return;
      SmallVector<std::optional<unsigned>> roots;
      for (Value operand : launch.getKernelOperands()) {
        auto arg = dyn_cast<BlockArgument>(operand);
        roots.push_back(
            arg && meaning[arg.getArgNumber()].kind == LaunchArg::Kind::Pointer
                ? std::optional<unsigned>(
                      extended.root(meaning[arg.getArgNumber()].index))
                : std::nullopt);
      }
      for (auto [i, root] : llvm::enumerate(roots)) {
        if (!root)
          continue;
        kernel.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          IntegerAttr::get(IntegerType::get(context, 64),
                                           plan::kAlignment));
        if (llvm::count(roots, root) == 1)
          kernel.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                            UnitAttr::get(context));
      }
    });
  }

  PassManager pm(context);
  // One NVVM target per chip: the lowering below is chip-independent and
  // runs once; serialization makes one PTX object per target.
  for (const TargetInfo *target : targets) {
    GpuNVVMAttachTargetOptions attach;
    attach.chip = target->getChip().str();
    attach.features = target->getPtxFeatures().str();
    attach.optLevel = 3;
    pm.addPass(createGpuNVVMAttachTarget(attach));
  }
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertNVGPUToNVVMPass());
  device.addPass(createSCFToControlFlowPass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  // (bf16 conversions stay LLVM's fpext/fptrunc: NVPTX has cvt to and from
  // bf16 from sm_80, cvt.rn.bf16x2.f32 rounding two at a time.)
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.indexBitwidth = 64;
  device.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
  // PTX text ("isa"): ptxas runs below, under our control.
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.toolkitPath = toolkitRoot();
  toBinary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
  if (failed(pm.run(kernels)))
    return failure();

  code.modules.resize(targets.size());
  code.launches.resize(plan.steps.size());
  llvm::StringMap<unsigned> moduleIndex;
  for (auto binary : kernels.getOps<gpu::BinaryOp>()) {
    moduleIndex[binary.getSymName()] = moduleIndex.size();
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      StringRef chip = cast<NVVM::NVVMTargetAttr>(object.getTarget()).getChip();
      for (auto [i, target] : llvm::enumerate(targets))
        if (target->getChip() == chip)
          code.modules[i].push_back({binary.getSymName().str(), "",
                                     object.getObject().getValue().str(),
                                     {}});
    }
  }
  for (auto func : kernels.getOps<func::FuncOp>()) {
    FailureOr<std::vector<Launch>> launches = collectLaunches(
        func, extended, argValues[func.getSymName()], moduleIndex);
    if (failed(launches))
      return failure();
    // Each module has the one kernel its launch names.
    for (auto launchFunc : func.getOps<gpu::LaunchFuncOp>())
      for (std::vector<DeviceModule> &modules : code.modules)
        modules[moduleIndex[launchFunc.getKernelModuleName()]].kernel =
            launchFunc.getKernelName().str();
    code.launches[stepIndex[func.getSymName()]] = std::move(*launches);
  }
  return code;
}

std::string cuda::findPtxas() {
  SmallString<128> path(toolkitRoot());
  llvm::sys::path::append(path, "bin", "ptxas");
  if (llvm::sys::fs::can_execute(path))
    return std::string(path);
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return {};
}

LogicalResult cuda::assemble(DeviceModule &module, const TargetInfo &target,
                             StringRef ptxas, Location loc) {
  SmallString<128> ptxPath, cubinPath, logPath;
  // A fused kernel's name lists its ops and can pass the 255 bytes a file
  // name may have: its start is enough to tell the files apart.
  std::string prefix = "tsc-" + StringRef(module.name).take_front(64).str();
  if (llvm::sys::fs::createTemporaryFile(prefix, "ptx", ptxPath) ||
      llvm::sys::fs::createTemporaryFile(prefix, "cubin", cubinPath) ||
      llvm::sys::fs::createTemporaryFile("tsc-ptxas", "log", logPath))
    return emitError(loc) << "cannot create temporary files for ptxas";
  llvm::scope_exit cleanup([&] {
    for (StringRef path : {ptxPath.str(), cubinPath.str(), logPath.str()})
      llvm::sys::fs::remove(path);
  });
  {
    std::error_code error;
    llvm::raw_fd_ostream os(ptxPath, error);
    if (error)
      return emitError(loc) << "cannot write " << ptxPath << ": "
                            << error.message();
    os << module.ptx;
  }
  std::string arch = ("-arch=" + target.getChip()).str();
  SmallVector<StringRef> args = {ptxas, arch, "-O3", ptxPath, "-o", cubinPath};
  std::optional<StringRef> redirects[] = {std::nullopt, logPath.str(),
                                          logPath.str()};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                         /*SecondsToWait=*/0,
                                         /*MemoryLimit=*/0, &message);
  if (status != 0) {
    auto log = llvm::MemoryBuffer::getFile(logPath);
    return emitError(loc) << "ptxas rejected kernel module '" << module.name
                          << "' for " << target.getChip() << ": "
                          << (log ? (*log)->getBuffer().trim() : message);
  }
  auto cubin = llvm::MemoryBuffer::getFile(cubinPath, /*IsText=*/false);
  if (!cubin)
    return emitError(loc) << "ptxas wrote no SASS for '" << module.name << "'";
  module.cubin.assign((*cubin)->getBufferStart(), (*cubin)->getBufferEnd());
  return success();
}
