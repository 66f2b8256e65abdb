//===- ThreadPhases.h - building blocks of row blocks --------*- C++ -*-===//
//
// Internal to compiler/target/cuda: what RowBlocks.cpp (norms, softmax) and
// QueryRows.cpp (attention) share to build a kRowBlocks loop's thread
// phases from linalg ops on buffers.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_CUDA_THREADPHASES_H
#define TSC_COMPILER_TARGET_CUDA_THREADPHASES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tsc::cuda {

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
