//===- WarpProducts.cpp - warp products as ldmatrix and mma.sync ----------===//
//
// Attention's fp16/bf16 products on tensor cores. For mapQueryRowsToThreads
// (QueryRows.cpp), each product becomes a warp phase: a kWarpProductRegion
// of 16 x 8 x 16 vector.contracts on shared tiles (emitWarpProduct), which
// the host computes as they are (--gpu-loop-mapping). After outlining and
// placing shared memory, the device's become per-lane ldmatrix and mma.sync
// through MLIR's vector-to-nvgpu conversion (lowerWarpProducts); bf16
// products read their tiles as f16 (the same bytes) and use NVVM's bf16
// mma.sync.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/cuda/CudaCodegen.h"
#include "compiler/target/cuda/Passes.h"
#include "compiler/target/cuda/ThreadPhases.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
// (It declares a global kWarpSize too: cuda::kWarpSize is qualified below.)
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tsc::cuda {
#define GEN_PASS_DEF_LOWERWARPPRODUCTSPASS
#include "compiler/target/cuda/Passes.h.inc"
} // namespace mlir::tsc::cuda

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::cuda;

/// Runs `product` in a warp phase: the warp of thread t computes rows
/// [32·(t / 32), +32) of the output as 16 x 8 x 16 vector.contracts, each
/// output tile read once, updated over k and written back. Row indices are
/// affine.apply of the thread (which MLIR's mma.sync conversion leaves
/// alone), column indices the loops' (lowerWarpProducts unrolls and folds
/// them to constants first).
void cuda::emitWarpProduct(WarpProduct product, int64_t rows) {
  linalg::LinalgOp op = product.op;
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  MemRefType outType = product.out.getType();
  int64_t n = outType.getDimSize(1);
  int64_t k = product.lhs.getType().getDimSize(1);
  Type halfType = product.lhs.getType().getElementType();
  Type f32 = outType.getElementType();
  auto half = [&](int64_t r, int64_t c) {
    return VectorType::get({r, c}, halfType);
  };
  AffineExpr m, nDim, kDim;
  bindDims(ctx, m, nDim, kDim);
  SmallVector<AffineMap> maps = AffineMap::inferFromExprList(
      ArrayRef<ArrayRef<AffineExpr>>{{m, kDim}, {kDim, nDim}, {m, nDim}}, ctx);
  Attribute parallel =
      vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel);
  Attribute reduction =
      vector::IteratorTypeAttr::get(ctx, vector::IteratorType::reduction);
  ArrayAttr iterators = b.getArrayAttr({parallel, parallel, reduction});
  auto phase =
      createThreadPhase(b, loc, rows, {}, [&](OpBuilder &outer, Value t) {
        // In a region of its own: MLIR's conversion takes every scalar
        // add, mul or div under the op it is given for a fragment op.
        auto region = scf::ExecuteRegionOp::create(outer, loc, TypeRange{});
        region->setAttr(kWarpProductRegion, outer.getUnitAttr());
        OpBuilder nb =
            OpBuilder::atBlockBegin(&region.getRegion().emplaceBlock());
        auto index = [&](int64_t v) -> Value {
          return arith::ConstantIndexOp::create(nb, loc, v);
        };
        Value zeroHalf =
            arith::ConstantOp::create(nb, loc, nb.getZeroAttr(halfType));
        Value zeroAcc = arith::ConstantOp::create(nb, loc, nb.getZeroAttr(f32));
        SmallVector<bool> inBounds(2, true);
        auto read = [&](memref::AllocaOp tile, VectorType type, Value row,
                        Value col, Value padding) {
          return vector::TransferReadOp::create(
              nb, loc, type, tile, ValueRange{row, col}, padding, inBounds);
        };
        // Loops over the warp's two 16-row tiles and the 8-column tiles (the
        // host compiles them as loops; the device unrolls them before the
        // mma.sync conversion), the 16-deep k tiles unrolled, each row tile's
        // lhs read once.
        auto loop = [&](OpBuilder &lb, int64_t end, int64_t step,
                        function_ref<void(OpBuilder &, Value)> body) {
          scf::ForOp::create(
              lb, loc, index(0), index(end), index(step), ValueRange{},
              [&](OpBuilder &inner, Location, Value iv, ValueRange) {
                body(inner, iv);
                scf::YieldOp::create(inner, loc);
              });
        };
        loop(nb, 2 * kMmaM, kMmaM, [&](OpBuilder &mb, Value m0) {
          OpBuilder::InsertionGuard guard(nb);
          nb.setInsertionPoint(mb.getInsertionBlock(), mb.getInsertionPoint());
          AffineExpr thread = getAffineDimExpr(0, ctx);
          Value row = affine::AffineApplyOp::create(
              nb, loc,
              AffineMap::get(2, 0,
                             thread.floorDiv(cuda::kWarpSize) *
                                     cuda::kWarpSize +
                                 getAffineDimExpr(1, ctx)),
              ValueRange{t, m0});
          SmallVector<Value> lhs;
          for (int64_t k0 = 0; k0 < k; k0 += kMmaK)
            lhs.push_back(read(product.lhs, half(kMmaM, kMmaK), row, index(k0),
                               zeroHalf));
          loop(nb, n, kMmaN, [&](OpBuilder &cb, Value col) {
            OpBuilder::InsertionGuard inner(nb);
            nb.setInsertionPoint(cb.getInsertionBlock(),
                                 cb.getInsertionPoint());
            auto accType = VectorType::get({kMmaM, kMmaN}, f32);
            Value acc =
                product.zeroInit
                    ? Value(arith::ConstantOp::create(
                          nb, loc,
                          DenseElementsAttr::get(accType, nb.getZeroAttr(f32))))
                    : Value(read(product.out, accType, row, col, zeroAcc));
            for (auto [i, a] : llvm::enumerate(lhs)) {
              Value rhs = read(product.rhs, half(kMmaK, kMmaN),
                               index(int64_t(i) * kMmaK), col, zeroHalf);
              acc = vector::ContractionOp::create(
                  nb, loc, a, rhs, acc, nb.getAffineMapArrayAttr(maps),
                  iterators);
            }
            vector::TransferWriteOp::create(nb, loc, acc, product.out,
                                            ValueRange{row, col}, inBounds);
          });
        });
        scf::YieldOp::create(nb, loc);
      });
  phase->setAttr(kWarpPhase, b.getUnitAttr());
  op->erase();
}

namespace {

/// A bf16 buffer in shared memory (a view of its bytes, or subviews of one)
/// as f16: the same bytes (placeRowBuffersInSharedMemory).
FailureOr<Value> viewAsF16(Value buffer, DenseMap<Value, Value> &views) {
  if (Value known = views.lookup(buffer))
    return known;
  auto type = cast<MemRefType>(buffer.getType());
  auto f16Type =
      MemRefType::get(type.getShape(), Float16Type::get(type.getContext()),
                      type.getLayout(), type.getMemorySpace());
  OpBuilder b(type.getContext());
  b.setInsertionPointAfterValue(buffer);
  Value f16;
  if (auto view = buffer.getDefiningOp<memref::ViewOp>()) {
    f16 = memref::ViewOp::create(b, view.getLoc(), f16Type, view.getSource(),
                                 view.getByteShift(), view.getSizes());
  } else if (auto sub = buffer.getDefiningOp<memref::SubViewOp>()) {
    FailureOr<Value> source = viewAsF16(sub.getSource(), views);
    if (failed(source))
      return failure();
    f16 = memref::SubViewOp::create(b, sub.getLoc(), f16Type, *source,
                                    sub.getMixedOffsets(), sub.getMixedSizes(),
                                    sub.getMixedStrides());
  } else {
    return failure();
  }
  views[buffer] = f16;
  return f16;
}

/// The bf16 reads of `region`'s products as f16 reads of the same bytes,
/// for MLIR's mma.sync conversion (which takes f16 only; the fragments'
/// layout is the same for both, and they are only moved, never computed
/// with, until mma.sync).
LogicalResult readBf16AsF16(scf::ExecuteRegionOp region) {
  SmallVector<vector::TransferReadOp> reads;
  region.walk([&](vector::TransferReadOp read) {
    if (read.getVectorType().getElementType().isBF16())
      reads.push_back(read);
  });
  DenseMap<Value, Value> views;
  for (vector::TransferReadOp read : reads) {
    FailureOr<Value> base = viewAsF16(read.getBase(), views);
    if (failed(base) || read.getMask() ||
        !read.getPermutationMap().isMinorIdentity())
      return read.emitError("a bf16 tensor-core operand not read from a "
                            "shared byte buffer");
    OpBuilder b(read);
    Type f16 = b.getF16Type();
    Value padding =
        arith::BitcastOp::create(b, read.getLoc(), f16, read.getPadding());
    auto f16Read = vector::TransferReadOp::create(
        b, read.getLoc(), VectorType::get(read.getVectorType().getShape(), f16),
        *base, read.getIndices(), read.getPermutationMapAttr(), padding,
        /*mask=*/Value(), read.getInBoundsAttr());
    read.getResult().replaceAllUsesWith(f16Read.getResult());
    read.erase();
  }
  return success();
}

/// `mma`, whose f16 operands hold bf16 bits (readBf16AsF16), as NVVM's
/// bf16 mma.sync: its operands are the fragments' 32-bit words.
void replaceByBf16MmaSync(nvgpu::MmaSyncOp mma) {
  OpBuilder b(mma);
  Location loc = mma.getLoc();
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto words = [&](Value fragment) {
    SmallVector<Value> out;
    for (int64_t i = 0, e = cast<VectorType>(fragment.getType()).getDimSize(0);
         i < e; ++i) {
      Value pair =
          vector::ExtractOp::create(b, loc, fragment, ArrayRef<int64_t>{i});
      Value word =
          vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
      out.push_back(
          vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
    }
    return out;
  };
  auto accType = cast<VectorType>(mma.getMatrixC().getType());
  SmallVector<Value> acc;
  for (int64_t i = 0; i < accType.getDimSize(0); ++i)
    for (int64_t j = 0; j < accType.getDimSize(1); ++j)
      acc.push_back(
          vector::ExtractOp::create(b, loc, mma.getMatrixC(), {i, j}));
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(acc.size(), f32));
  SmallVector<int64_t> shape =
      llvm::to_vector(llvm::map_range(mma.getMmaShape(), [](Attribute a) {
        return cast<IntegerAttr>(a).getInt();
      }));
  auto product = NVVM::MmaOp::create(
      b, loc, resultType, words(mma.getMatrixA()), words(mma.getMatrixB()), acc,
      shape, std::nullopt, std::nullopt,
      std::array{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array{NVVM::MMALayout::row, NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t i = 0, e = acc.size(); i < e; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, product, i));
  mma.getResult().replaceAllUsesWith(
      vector::FromElementsOp::create(b, loc, accType, elements));
  mma.erase();
}

} // namespace

LogicalResult cuda::lowerWarpProducts(gpu::GPUModuleOp module) {
  SmallVector<scf::ExecuteRegionOp> regions;
  module.walk([&](scf::ExecuteRegionOp region) {
    if (region->hasAttr(kWarpProductRegion))
      regions.push_back(region);
  });
  if (regions.empty())
    return success();
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<NVVM::NVVMDialect, LLVM::LLVMDialect>();
  RewritePatternSet prepare(ctx);
  populatePrepareVectorToMMAPatterns(prepare, /*useNvGpu=*/true);
  FrozenRewritePatternSet prepared(std::move(prepare));
  // The index arithmetic the unrolling leaves, folded: the conversion takes
  // any scalar add or mul in the region for a fragment op.
  RewritePatternSet fold(ctx);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    if (isa<arith::ArithDialect, affine::AffineDialect>(op.getDialect()))
      op.getCanonicalizationPatterns(fold, ctx);
  FrozenRewritePatternSet folds(std::move(fold));
  IRRewriter rewriter(ctx);
  for (scf::ExecuteRegionOp region : regions) {
    SmallVector<scf::ForOp> loops;
    region.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      if (failed(loopUnrollFull(loop)))
        return loop.emitError("cannot unroll a tensor-core product's loop");
    if (failed(applyPatternsGreedily(region.getRegion(), folds)))
      return region.emitError("cannot fold a tensor-core product's indices");
    bool bf16 = false;
    region.walk([&](vector::ContractionOp contract) {
      bf16 |= contract.getLhsType().getElementType().isBF16();
    });
    if (bf16 && failed(readBf16AsF16(region)))
      return failure();
    if (failed(applyPatternsGreedily(region.getRegion(), prepared)) ||
        failed(convertVectorToNVVMCompatibleMMASync(rewriter, region)))
      return region.emitError("cannot lower a tensor-core product");
    if (bf16) {
      SmallVector<nvgpu::MmaSyncOp> mmas;
      region.walk([&](nvgpu::MmaSyncOp mma) { mmas.push_back(mma); });
      for (nvgpu::MmaSyncOp mma : mmas)
        replaceByBf16MmaSync(mma);
    }
    // What the conversion replaced is dead; a contract left is a product
    // the conversion did not take, which every thread would compute alone.
    (void)applyPatternsGreedily(region.getRegion(), FrozenRewritePatternSet());
    WalkResult left = region.walk([](vector::ContractionOp contract) {
      contract.emitError("a tensor-core product not lowered to mma.sync");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      return failure();
  }
  return success();
}

namespace {

struct LowerWarpProductsPass
    : cuda::impl::LowerWarpProductsPassBase<LowerWarpProductsPass> {
  void runOnOperation() override {
    if (failed(lowerWarpProducts(getOperation())))
      signalPassFailure();
  }
};

} // namespace
