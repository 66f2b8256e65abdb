//===- Codegen.cpp - lower kernels to LLVM, compile and link them --------===//

#include "compiler/kernels/Kernels.h"
#include "compiler/target/host/HostCodegen.h"
#include "compiler/target/host/Objects.h"
#include "compiler/target/host/RegisterBlock.h"
#include "compiler/target/host/SharedKernels.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::tsc;

FailureOr<HostTarget> mlir::tsc::resolveHostTarget(StringRef cpu) {
  HostTarget target;
  if (cpu == "native") {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    auto has = [&](StringRef f) { return features.lookup(f); };
    // bf16 products without AMX only where vdpbf16ps outruns f32 FMAs:
    // AMD's Zen 4 and 5 (BERT-base static int8 with bf16 attention products
    // 0.90x NNCF against 1.05x in f32 on Zen 5). On Intel without AMX (an
    // Emerald Rapids VM that hides it) they are slower: the same model's
    // attention 240 against 224 ms a run at batch 8, and oneDNN's bf16
    // GEMMs 1.6x its f32 ones (docs/benchmarks-int8.md). AMX sets it below.
    target.avx512bf16 =
        has("avx512bf16") && llvm::sys::getHostCPUName().starts_with("znver");
    if (has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512vl"))
      cpu = has("amx-tile") && has("amx-bf16") ? "x86-64-v4+amx" : "x86-64-v4";
    else if (has("avx2") && has("fma"))
      cpu = "x86-64-v3";
    else
      cpu = "x86-64";
  }
  if (cpu.consume_back("+amx")) {
    if (cpu != "x86-64-v4")
      return failure();
    target.amx = true;
    target.avx512bf16 = true; // every CPU with AMX-BF16 has it
  } else if (cpu.consume_back("+bf16")) {
    if (cpu != "x86-64-v4")
      return failure();
    target.avx512bf16 = true;
  }
  if (cpu == "x86-64-v4")
    target.isa = 0b11;
  else if (cpu == "x86-64-v3")
    target.isa = 0b01;
  else if (cpu != "x86-64")
    return failure();
  target.cpu = cpu.str();
  return target;
}

namespace {

/// Tiles the leading parallel loops of every linalg op on buffers by 1 into
/// one scf.parallel, which becomes an OpenMP work-sharing loop over all of
/// them (collapsed, so a batch of 1 still spreads over the threads). The
/// innermost loop stays sequential inside, where LLVM vectorizes it; for
/// contractions (5 loops and more) the innermost two.
LogicalResult parallelizeOuterLoops(ModuleOp kernels) {
  SmallVector<linalg::LinalgOp> ops;
  kernels.walk([&](linalg::LinalgOp op) {
    // Ops inside an scf.forall (tiled attention, row-tiled norms) run
    // inside its parallel loop already.
    if (op.hasPureBufferSemantics() && !op->getParentOfType<scf::ForallOp>())
      ops.push_back(op);
  });
  IRRewriter rewriter(kernels.getContext());
  for (linalg::LinalgOp op : ops) {
    unsigned loops = op.getNumLoops();
    unsigned inner = loops >= 5 ? 2 : 1;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<int64_t> tiles(loops, 0);
    bool any = false;
    for (unsigned i = 0;
         i + inner < loops && iterators[i] == utils::IteratorType::parallel;
         ++i)
      tiles[i] = 1, any = true;
    if (!any)
      continue;
    linalg::LinalgTilingOptions options;
    options.setTileSizes(tiles).setLoopType(
        linalg::LinalgTilingLoopType::ParallelLoops);
    rewriter.setInsertionPoint(op);
    if (failed(linalg::tileLinalgOp(rewriter, op, options)))
      return op->emitError("cannot tile for parallel loops");
    rewriter.eraseOp(op);
  }
  return success();
}

/// `type` with i16 for bf16 (also as a vector's element, and in the arrays
/// of vectors that n-D vectors become).
Type bf16AsI16(Type type) {
  if (type.isBF16())
    return IntegerType::get(type.getContext(), 16);
  if (auto vector = dyn_cast<VectorType>(type); vector && vector.getElementType().isBF16())
    return vector.clone(IntegerType::get(type.getContext(), 16));
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type))
    return LLVM::LLVMArrayType::get(bf16AsI16(array.getElementType()),
                                    array.getNumElements());
  return type;
}

/// After bf16 arithmetic became f32 and conversions integer arithmetic, bf16
/// values only move (loads, stores, selects, block arguments). The x86 back
/// end would still move them through f32 with `__truncsfbf2`, which the
/// runtime's process may not have (libgcc before 13): they become i16.
LogicalResult moveBf16AsI16(ModuleOp kernels) {
  auto retype = [](Value v) { v.setType(bf16AsI16(v.getType())); };
  // Intrinsics that take bf16 vectors (vdpbf16ps) keep them: each such
  // operand becomes a bit cast of its i16 vector.
  SmallVector<std::pair<OpOperand *, Type>> bf16Operands;
  kernels.walk([&](LLVM::CallIntrinsicOp call) {
    for (OpOperand &operand : call->getOpOperands())
      if (bf16AsI16(operand.get().getType()) != operand.get().getType())
        bf16Operands.push_back({&operand, operand.get().getType()});
  });
  kernels.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::for_each(block.getArguments(), retype);
    if (auto constant = dyn_cast<LLVM::ConstantOp>(op)) {
      Type i16 = IntegerType::get(op->getContext(), 16);
      Attribute value = constant.getValue();
      if (auto scalar = dyn_cast<FloatAttr>(value);
          scalar && scalar.getType().isBF16())
        constant.setValueAttr(
            IntegerAttr::get(i16, scalar.getValue().bitcastToAPInt()));
      if (auto dense = dyn_cast<DenseFPElementsAttr>(value);
          dense && dense.getElementType().isBF16())
        constant.setValueAttr(dense.bitcast(i16));
    }
    llvm::for_each(op->getResults(), retype);
  });
  for (auto [operand, type] : bf16Operands) {
    OpBuilder b(operand->getOwner());
    operand->set(LLVM::BitcastOp::create(b, operand->getOwner()->getLoc(), type,
                                         operand->get()));
  }
  // Bit casts between bf16 and i16 are now no-ops.
  kernels.walk([](LLVM::BitcastOp cast) {
    if (cast.getArg().getType() == cast.getType()) {
      cast.replaceAllUsesWith(cast.getArg());
      cast.erase();
    }
  });
  // Function signatures keep their pointer types; anything else that still
  // needs a bf16 (arithmetic left unexpanded) fails verification here.
  return verify(kernels);
}

/// The bufferization and LLVM lowering of the kernels module.
LogicalResult lowerToLLVMDialect(ModuleOp kernels, const HostTarget &target,
                                 LoopMapping mapLoops) {
  if (failed(bufferizeKernels(kernels)))
    return failure();
  PassManager pm(kernels.getContext());
  bool mapped = static_cast<bool>(mapLoops);
  if (mapped) {
    if (failed(mapLoops(kernels)))
      return failure();
    // The mapping's vector.contracts (warp products) as outer products
    // (LLVM's lowering of the vector dialect takes neither).
    RewritePatternSet patterns(kernels.getContext());
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(kernels, std::move(patterns))))
      return failure();
  } else {
    // Attention's tile products: bf16 ones on AMX tiles or as AVX512_BF16
    // dot products (the lowering lays them out in pairs only for such a
    // target), the rest in vector registers (the CUDA mapping above keeps
    // its own warp products).
    if (target.amx && failed(amxTileProducts(kernels)))
      return failure();
    if (!target.amx && target.avx512bf16 && failed(dotBf16Products(kernels)))
      return failure();
    registerBlockContractions(kernels, vectorRegistersOf(target.cpu));
    if (failed(parallelizeOuterLoops(kernels)))
      return failure();
  }
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Lowerings that tile on tensors (attention) parallelize with scf.forall.
  pm.addPass(createForallToParallelLoopPass());
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  // Vectors: the mapping's warp products.
  if (mapped) {
    VectorTransferToSCFOptions transfers;
    transfers.enableFullUnroll();
    pm.addPass(createConvertVectorToSCFPass(transfers));
  }
  pm.addPass(createLowerAffinePass());
  // The mapping's warp products or the host's register-blocked products.
  // (and AMX's tile ops.)
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.amx = target.amx;
  vectorToLLVM.x86Vector = target.avx512bf16;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  // The OpenMP loop bodies sit in memref.alloca_scope regions, which must be
  // lowered before scf becomes multi-block control flow inside them.
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  // f16/bf16 math computes in f32: libm has no half-precision functions.
  pm.addPass(math::createMathExtendToSupportedTypes());
  // Math ops with an LLVM lowering first (rsqrt is 1/sqrt, libm has no
  // rsqrtf); what is left (erf) calls libm.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // bf16 arithmetic in f32 (the CPU has none), and bf16 conversions as
  // integer arithmetic, not compiler-rt calls.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  if (failed(pm.run(kernels)))
    return failure();
  // Of arith-expand's patterns only those LLVM needs: arith-expand would
  // also turn maxnumf/minnumf into compares and selects, which LLVM does
  // not vectorize as reductions (attention's row max ran one key at a
  // time); as llvm.maxnum it does.
  {
    RewritePatternSet patterns(kernels.getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    arith::populateExpandScalingExtTruncPatterns(patterns);
    if (failed(applyPatternsGreedily(kernels, std::move(patterns))))
      return failure();
  }
  pm.clear();
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(kernels)))
    return failure();
  return moveBf16AsI16(kernels);
}

/// Writes `bytes` to `path`.
LogicalResult writeFile(StringRef path, StringRef bytes) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return failure();
  os << bytes;
  return success(!os.has_error());
}

} // namespace

FailureOr<std::vector<char>> mlir::tsc::compileKernels(ModuleOp kernels,
                                                       HostTarget &target,
                                                       LoopMapping mapLoops) {
  MLIRContext *context = kernels.getContext();
  // The layers' kernels once each (before lowering: it lowers them once).
  llvm::StringSet<> shared = shareDuplicateKernels(kernels);
  if (failed(lowerToLLVMDialect(kernels, target, mapLoops)))
    return failure();

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  context->appendDialectRegistry(registry);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(kernels, llvmContext, "tsc-kernels");
  if (!module)
    return emitError(kernels.getLoc(), "translation to LLVM IR failed");

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string features = target.amx ? "+amx-tile,+amx-bf16" : "";
  // What the code uses is what a CPU must have to run it. AVX512_BF16 is
  // enabled only in the kernels that call vdpbf16ps, so that LLVM takes
  // none of its instructions anywhere the artifact does not say it needs it.
  llvm::SmallPtrSet<llvm::Function *, 8> dotKernels;
  for (llvm::Function &f : *module) {
    if (f.isIntrinsic() && f.getName().starts_with("llvm.x86.tdpbf16ps"))
      target.isa |= kIsaAmxBf16;
    if (f.isIntrinsic() &&
        f.getName().starts_with("llvm.x86.avx512bf16.dpbf16ps")) {
      target.isa |= kIsaAvx512Bf16;
      for (llvm::User *user : f.users())
        if (auto *call = dyn_cast<llvm::CallBase>(user))
          dotKernels.insert(call->getFunction());
    }
  }
  module->setSourceFileName("tsc-kernels");
  for (llvm::Function &f : *module)
    if (!f.isDeclaration()) {
      if (shared.contains(f.getName()))
        f.addFnAttr(llvm::Attribute::NoInline);
      f.addFnAttr("target-cpu", target.cpu);
      std::string own = features;
      if (dotKernels.contains(&f))
        own += own.empty() ? "+avx512bf16" : ",+avx512bf16";
      if (!own.empty())
        f.addFnAttr("target-features", own);
      // LLVM's x86-64-v4 tuning prefers 256-bit vectors for the loops it
      // vectorizes itself (softmax's exp, norms, gathers); the explicit
      // vector code (register-blocked products) is 512-bit anyway. On an
      // AVX-512 CPU whose clock does not drop for 512-bit code (Sapphire
      // Rapids: BERT-base bf16 at batch 8, attention 34.4 -> 32.3 ms and
      // layer norms 4.4 -> 3.6 ms per run) the wider loops win.
      if (target.cpu == "x86-64-v4")
        f.addFnAttr("prefer-vector-width", "512");
    }
  llvm::Expected<std::vector<llvm::SmallString<0>>> objects =
      emitObjects(std::move(module), target.cpu, features);
  if (!objects)
    return emitError(kernels.getLoc(), "LLVM code generation failed: ")
           << llvm::toString(objects.takeError());

  // Link with lld into a shared object; the temporary directory goes away.
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("tsc-link", dir))
    return emitError(kernels.getLoc(), "cannot create a temporary directory");
  llvm::SmallString<128> libraryPath(dir);
  llvm::sys::path::append(libraryPath, "kernels.so");
  std::vector<std::string> objectPaths;
  llvm::scope_exit cleanup([&] {
    // Best effort: temporary files left behind are harmless.
    for (const std::string &path : objectPaths)
      (void)llvm::sys::fs::remove(path);
    (void)llvm::sys::fs::remove(libraryPath);
    (void)llvm::sys::fs::remove(dir);
  });
  for (const llvm::SmallString<0> &object : *objects) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(
        path, "kernels" + std::to_string(objectPaths.size()) + ".o");
    objectPaths.push_back(path.str().str());
    if (failed(writeFile(path, object)))
      return emitError(kernels.getLoc(), "cannot write ") << path;
  }
  llvm::ErrorOr<std::string> lld = llvm::sys::findProgramByName(
      "ld.lld", {TSC_LLVM_BINDIR});
  if (!lld)
    lld = llvm::sys::findProgramByName("ld.lld");
  if (!lld)
    return emitError(kernels.getLoc(),
                     "ld.lld not found (install the Debian package lld-22)");
  // Parallel loops call the OpenMP runtime (Debian's libomp5).
  SmallVector<StringRef> args{*lld, "-shared",     "--build-id=none",
                              "-z", "noexecstack", "--hash-style=gnu",
                              "-o", libraryPath};
  args.append(objectPaths.begin(), objectPaths.end());
  args.push_back(TSC_LIBOMP);
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*lld, args, std::nullopt, {}, 0, 0,
                                         &message);
  if (status != 0)
    return emitError(kernels.getLoc(), "linking kernels failed: ")
           << (message.empty() ? "ld.lld exited with status " +
                                     std::to_string(status)
                               : message);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> library =
      llvm::MemoryBuffer::getFile(libraryPath);
  if (!library)
    return emitError(kernels.getLoc(), "cannot read ") << libraryPath;
  StringRef bytes = (*library)->getBuffer();
  return std::vector<char>(bytes.begin(), bytes.end());
}
