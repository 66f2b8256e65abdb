//===- CudaCodegen.cpp - kernels through gpu/nvvm to PTX and SASS ---------===//
//
// After bufferization (shared with the host target), each kernel step is a
// function whose preamble builds memref descriptors from the buffer and
// symbol arrays, followed by loop nests over those memrefs. Here:
//   1-2. the loops are mapped to the grid and threads (LoopMapping.cpp,
//      the tsc-cuda-map-loops pipeline);
//   3. the mapped loops become gpu.launch ops, outlined into gpu.modules
//      (buildKernelOutliningPipeline);
//   4. each module is lowered to NVVM and serialized to PTX by LLVM's NVPTX
//      back end for the target's chip and PTX version, with FMA contraction;
//   5. ptxas assembles each module's PTX into SASS.
// The launches' geometry and arguments become plan expressions
// (Launches.cpp), which the runtime evaluates per run.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/cuda/CudaCodegen.h"
#include "compiler/kernels/Kernels.h"
#include "compiler/target/cuda/Passes.h"

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
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
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
#include "mlir/IR/Verifier.h"
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

namespace mlir::tsc::cuda {
#define GEN_PASS_DEF_LOWERBLOCKREDUCTIONSPASS
#define GEN_PASS_DEF_LOWEREXPTOEXP2PASS
#include "compiler/target/cuda/Passes.h.inc"
} // namespace mlir::tsc::cuda

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

} // namespace

namespace {

struct LowerBlockReductionsPass
    : cuda::impl::LowerBlockReductionsPassBase<LowerBlockReductionsPass> {
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet allReduce(context);
    populateGpuAllReducePatterns(allReduce);
    patterns = FrozenRewritePatternSet(std::move(allReduce));
    return success();
  }
  void runOnOperation() override {
    if (failed(applyPatternsGreedily(getOperation(), patterns))) {
      getOperation().emitError("cannot lower the block reductions");
      signalPassFailure();
    }
  }
  FrozenRewritePatternSet patterns;
};

struct LowerExpToExp2Pass
    : cuda::impl::LowerExpToExp2PassBase<LowerExpToExp2Pass> {
  void runOnOperation() override { lowerExpToExp2(getOperation()); }
};

} // namespace

void cuda::buildKernelOutliningPipeline(OpPassManager &pm) {
  pm.addPass(createGpuKernelOutliningPass());
  // Row blocks: their row buffers and block reductions (warp shuffles) in
  // shared memory, which needs the kernel function for its workgroup
  // buffers.
  OpPassManager &module = pm.nest<gpu::GPUModuleOp>();
  module.addPass(createPlaceRowBuffersInSharedMemoryPass());
  module.addPass(createLowerBlockReductionsPass());
  module.addPass(createLowerWarpProductsPass());
  module.addPass(createLowerExpToExp2Pass());
}

void cuda::buildNVVMPipeline(OpPassManager &pm,
                             ArrayRef<const TargetInfo *> targets) {
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
}

FailureOr<DeviceCode>
cuda::generateDeviceCode(ModuleOp kernels, const plan::Plan &plan,
                         ArrayRef<const TargetInfo *> targets) {
  DeviceCode code;
  plan::PlanExtender extended(plan, code.planAdditions);
  MLIRContext *context = kernels.getContext();
  registerDeviceDialects(context);
  if (failed(bufferizeKernels(kernels, /*polynomialExp=*/false,
                              /*freeLoopTemporaries=*/false)))
    return failure();
  // The mapped loops become launches that capture only the kernel
  // function's arguments.
  PassManager toLaunches(context);
  buildLoopMappingPipeline(toLaunches, MappedFor::Device,
                           llvm::all_of(targets, [](const TargetInfo *t) {
                             return t->hasMmaSync();
                           }));
  toLaunches.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  // joinThreadPhases leaves a thread's values used after its loop, in the
  // row block, until the launch lowering makes both one body: the IR is
  // valid again (and verified) only after the pipeline.
  toLaunches.enableVerifier(false);
  if (failed(toLaunches.run(kernels)) || failed(verify(kernels)))
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
  buildKernelOutliningPipeline(outline);
  if (failed(outline.run(kernels)))
    return failure();
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
  buildNVVMPipeline(pm, targets);
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
    // Best effort: a temporary file left behind is harmless.
    for (StringRef path : {ptxPath.str(), cubinPath.str(), logPath.str()})
      (void)llvm::sys::fs::remove(path);
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
