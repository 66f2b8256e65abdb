//===- HostCodegen.h - host CPU kernels as a shared object ----*- C++ -*-===//
//
// The codegen phase for --target=cpu: the kernels compiler/kernels outlines
// and lowers (host kernel ABI, docs/artifact-format.md) are bufferized,
// lowered through loops to LLVM, compiled for the chosen x86-64 level and
// linked by lld into one position-independent shared object.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_HOST_HOSTCODEGEN_H
#define TSC_COMPILER_TARGET_HOST_HOSTCODEGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace mlir::tsc {

/// The x86-64 level kernels are compiled for, and what the artifact records.
struct HostTarget {
  std::string cpu;      // LLVM CPU name: x86-64, x86-64-v3, x86-64-v4
  uint64_t isa = 0;     // artifact ISA bits (docs/artifact-format.md)
  /// AMX (tiles and bf16) on top of x86-64-v4: bf16 attention's products
  /// are AMX tiles. The artifact records it (ISA bit 2) only where the code
  /// uses them.
  bool amx = false;
  /// AVX512_BF16 on top of x86-64-v4: with AMX, x86-64-v4+bf16, or
  /// `native` on a CPU that has it. Without AMX, attention's bf16 products
  /// are vdpbf16ps register blocks; the artifact records it (ISA bit 3)
  /// only where the code uses them. The driver's defaults
  /// (--kept-precision=auto) read it too.
  bool avx512bf16 = false;
};

/// The artifact's ISA bits for AMX-TILE and AMX-BF16, and for AVX512_BF16
/// (docs/artifact-format.md).
constexpr uint64_t kIsaAmxBf16 = 1u << 2;
constexpr uint64_t kIsaAvx512Bf16 = 1u << 3;

/// `native` picks the best level this machine runs; otherwise one of
/// x86-64, x86-64-v3 (AVX2+FMA), x86-64-v4 (AVX-512), x86-64-v4+bf16 (and
/// AVX512_BF16), x86-64-v4+amx (and AMX-TILE, AMX-BF16, AVX512_BF16).
FailureOr<HostTarget> resolveHostTarget(StringRef cpu);

/// A loop structure other than the host's own (OpenMP over the outer
/// parallel dims) for the bufferized kernels: the caller's choice, e.g. the
/// CUDA target's mapping (--gpu-loop-mapping), whose numerics the host then
/// checks without a GPU.
using LoopMapping = llvm::function_ref<LogicalResult(ModuleOp)>;

/// Bufferizes, lowers to LLVM, compiles and links the (lowered) kernels into
/// a shared object's bytes. With `mapLoops`, the bufferized kernels get that
/// loop structure instead of the host's, and the vector ops it leaves (warp
/// products) are unrolled. Adds to `target.isa` what the code turned out to
/// use (kIsaAmxBf16, kIsaAvx512Bf16).
FailureOr<std::vector<char>> compileKernels(ModuleOp kernels,
                                            HostTarget &target,
                                            LoopMapping mapLoops = nullptr);

} // namespace mlir::tsc

#endif // TSC_COMPILER_TARGET_HOST_HOSTCODEGEN_H
