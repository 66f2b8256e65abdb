//===- ThreadPhases.h - building blocks of row blocks --------*- C++ -*-===//
//
// Internal to compiler/target/cuda: what RowBlocks.cpp (norms, softmax) and
// QueryRows.cpp (attention) share to build a kRowBlocks loop's thread
// phases from linalg ops on buffers (defined in ThreadPhases.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_CUDA_THREADPHASES_H
#define TSC_COMPILER_TARGET_CUDA_THREADPHASES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tsc::cuda {

/// A combiner the block can reduce with: its all-reduce kind and the
/// identity each thread's partial starts from.
struct Combiner {
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

/// The combiner of a reduction's scf.reduce or payload op, if the block can
/// reduce with it.
std::optional<Combiner> getCombiner(Operation *op);

/// The combiner of a reduction getCombiner accepted.
Combiner checkedCombiner(Operation *op);

/// Marks the scf.execute_region holding one warp product's vector ops
/// (QueryRows.cpp builds them, WarpProducts.cpp lowers them).
constexpr llvm::StringLiteral kWarpProductRegion = "tsc.warp_product";

/// The shape of one tensor-core product (mma.sync m16n8k16 on fp16 or
/// bf16).
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;

/// A product a warp computes on tensor cores: out[m, n] += lhs[m, k] ·
/// rhs[k, n] on whole tiles, fp16 or bf16 operands widened to an f32
/// accumulator.
struct WarpProduct {
  linalg::LinalgOp op;
  memref::AllocaOp lhs, rhs, out;
  /// The fill of `out` with zeros just before `op`, if any: the product
  /// then starts from zero accumulators, and the fill goes.
  linalg::FillOp zeroInit;
};

/// Replaces `product.op` by a warp phase (kWarpPhase) of `rows` threads: the
/// warp of thread t computes rows [32·(t / 32), +32) of the output
/// (WarpProducts.cpp).
void emitWarpProduct(WarpProduct product, int64_t rows);

/// A thread phase (kThreadPhase) over `threads` threads: `body(builder, t)`
/// per thread; with `inits`, the body ends in the scf.reduce it builds.
scf::ParallelOp createThreadPhase(OpBuilder &b, Location loc, int64_t threads,
                                  ValueRange inits,
                                  function_ref<void(OpBuilder &, Value)> body);

/// The memref indices `map` gives at the loop point `dims`.
SmallVector<Value> evaluateMap(OpBuilder &b, Location loc, AffineMap map,
                               ValueRange dims);

/// The block arguments of `op`'s payload: `read(operand)` for its inputs
/// and for the outputs the payload uses, zero for the others.
SmallVector<Value> payloadArguments(OpBuilder &b, Location loc,
                                    linalg::LinalgOp op,
                                    function_ref<Value(OpOperand &)> read);

/// Clones `op`'s payload at the loop point `dims` (what its linalg.index ops
/// stand for) with `args` for its block arguments and `outer` for the values
/// it uses from around it; returns the yielded values.
SmallVector<Value> clonePayload(OpBuilder &b, linalg::LinalgOp op,
                                ValueRange args, ValueRange dims,
                                const IRMapping &outer);

} // namespace mlir::tsc::cuda

#endif // TSC_COMPILER_TARGET_CUDA_THREADPHASES_H
