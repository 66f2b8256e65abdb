//===- HostCodegen.h - kernels for the host CPU, as a shared object -*- C++ -*-===//
//
// The `lower` and `codegen` phases for --target=cpu: each kernel step of the
// plan becomes a function with the kernel ABI (docs/artifact-format.md),
// lowered through linalg, bufferization and loops to LLVM, compiled for the
// chosen x86-64 level and linked by lld into one position-independent
// shared object.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_HOST_HOSTCODEGEN_H
#define TSC_COMPILER_TARGET_HOST_HOSTCODEGEN_H

#include "compiler/plan/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::tsc {

/// The x86-64 level kernels are compiled for, and what the artifact records.
struct HostTarget {
  std::string cpu;      // LLVM CPU name: x86-64, x86-64-v3, x86-64-v4
  uint64_t isa = 0;     // artifact ISA bits (docs/artifact-format.md)
  /// Give the kernels the CUDA target's loop structure (tiles, guards,
  /// one-iteration launches) before lowering them for the host: a check of
  /// that mapping's numerics without a GPU, not a way to run fast.
  bool gpuLoopMapping = false;
};

/// `native` picks the best level this machine runs; otherwise one of
/// x86-64, x86-64-v3 (AVX2+FMA), x86-64-v4 (AVX-512).
FailureOr<HostTarget> resolveHostTarget(StringRef cpu);

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
/// value blocks (the CUDA target's shared memory; 0: no bound).
LogicalResult lowerKernels(ModuleOp kernels, int64_t maxKeyValueBlockBytes = 0);

/// Bufferizes the (lowered) kernels into their plan buffers, moves small
/// per-iteration temporaries to the stack and expands erf, tanh and (with
/// `polynomialExp`) exp into polynomials: the device-independent start of
/// code generation, shared by the host and CUDA targets.
LogicalResult bufferizeKernels(ModuleOp kernels, bool polynomialExp = true);

/// Bufferizes, lowers to LLVM, compiles and links the (lowered) kernels into
/// a shared object's bytes.
FailureOr<std::vector<char>> compileKernels(ModuleOp kernels,
                                            const HostTarget &target);

} // namespace mlir::tsc

#endif // TSC_COMPILER_TARGET_HOST_HOSTCODEGEN_H
