//===- Kernels.h - kernel steps as functions, for any target -*- C++ -*-===//
//
// The target-neutral start of code generation: each kernel step of the plan
// becomes a function with the kernel ABI (docs/artifact-format.md), its tsc
// ops lowered to linalg and fused, then bufferized into the plan's buffers.
// The host (compiler/target/host) and CUDA (compiler/target/cuda) targets
// both start from here and do not depend on each other.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_KERNELS_KERNELS_H
#define TSC_COMPILER_KERNELS_KERNELS_H

#include "compiler/plan/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::tsc {

/// How a kernel function receives its buffers and symbols.
enum class KernelABI {
  /// `(void *const *buffers, const int64_t *symbols)`: the host target's
  /// kernel ABI (docs/artifact-format.md).
  Host,
  /// One pointer argument per buffer, then one i64 per plan symbol: what
  /// device launches capture (the CUDA target).
  Device
};

/// A module with one kernel function per kernel step: buffers wrapped as
/// memrefs, the step's tsc ops cloned on tensors, results written into the
/// step's result buffers.
FailureOr<OwningOpRef<ModuleOp>>
outlineKernels(const plan::Plan &plan, MLIRContext *context,
               KernelABI abi = KernelABI::Host);

/// A memref of `type` (identity layout) over the bare pointer `ptr`, whose
/// dims are the i64 values `sizes`: a descriptor built in place, so that
/// the memref costs nothing at run time.
Value wrapPointer(OpBuilder &b, Location loc, Value ptr, MemRefType type,
                  ArrayRef<Value> sizes);

/// Runs tsc-convert-to-linalg and linalg fusion on the kernels: the IR that
/// `--emit=lower` prints. `maxKeyValueBlockBytes` bounds attention's key and
/// value blocks (the CUDA target's shared memory; 0: no bound);
/// `bf16Products` lays bf16 attention (and f32 attention marked
/// bf16_products) out for the host's bf16 pair products (AMX-BF16 or
/// AVX512_BF16).
LogicalResult lowerKernels(ModuleOp kernels, int64_t maxKeyValueBlockBytes = 0,
                           bool bf16Products = false);

/// Bufferizes the (lowered) kernels into their plan buffers, moves small
/// per-iteration temporaries to the stack, frees (with
/// `freeLoopTemporaries`) the heap ones at the end of their iteration, and
/// expands erf, tanh and (with `polynomialExp`) exp into polynomials: the
/// device-independent start of code generation, shared by the host and
/// CUDA targets (which places such temporaries itself).
LogicalResult bufferizeKernels(ModuleOp kernels, bool polynomialExp = true,
                               bool freeLoopTemporaries = true);

} // namespace mlir::tsc

#endif // TSC_COMPILER_KERNELS_KERNELS_H
