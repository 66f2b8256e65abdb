//===- RegisterBlock.h - products as register-blocked vectors -*- C++ -*-===//
//
// Attention's two products per tile (S = Q·Kᵀ, O += P·V) are linalg
// contractions on small static stack tiles inside an scf.forall. Lowered to
// loops, LLVM vectorizes them one row of the result at a time, loading and
// storing that row for every step of the reduction. Here each becomes
// micro-tiles of a few result rows × two vector registers of columns whose
// accumulators stay in registers across the whole reduction: per step one
// vector load of the right operand, one broadcast per row and one FMA per
// accumulator (the outer-product form upstream's vector.contract lowering
// produces).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_HOST_REGISTERBLOCK_H
#define TSC_COMPILER_TARGET_HOST_REGISTERBLOCK_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::linalg {
class GenericOp;
} // namespace mlir::linalg

namespace mlir::tsc {

/// The vector registers of an x86-64 level (LLVM CPU name): f32 lanes of
/// one register and how many registers there are.
struct VectorRegisters {
  int64_t lanes;
  int64_t count;
};
VectorRegisters vectorRegistersOf(StringRef cpu);

/// The m, n and k loops of `op` where it is a tile product as the attention
/// lowering writes them: a bufferized contraction C[m, n] += A·B inside an
/// scf.forall with one loop each, whose body only widens, multiplies and
/// adds.
std::optional<linalg::ContractionDimensions>
matchTileContraction(linalg::GenericOp op);

/// Rewrites every bufferized linalg contraction C[m, n] += A·B (one m, n and
/// k loop, static sizes, float operands no wider than C, B and C unit-stride
/// along n) inside an scf.forall as register-blocked vector code. Other ops
/// are left as they are.
void registerBlockContractions(ModuleOp kernels, VectorRegisters registers);

/// Rewrites every bufferized bf16 contraction into f32 inside an scf.forall,
/// C[m, n] += A[m, k]·B[k, n] or A[m, k]·B[n, k] with A and C row-major and
/// whole AMX tiles (M and N multiples of 16, K of 32), as AMX code: B packed
/// into the tiles' pair layout in a stack buffer, then tile loads, tdpbf16ps
/// and stores (PairProducts.cpp).
LogicalResult amxTileProducts(ModuleOp kernels);

/// The same products, B packed the same way, as AVX512_BF16 code:
/// register blocks of f32 accumulators updated by vdpbf16ps
/// (x86vector.avx512.dot), one (k, k + 1) pair of the reduction per step.
LogicalResult dotBf16Products(ModuleOp kernels);

/// Registers `tsc-host-amx-products` and `tsc-host-bf16-dot-products` (the
/// rewrites above).
void registerPairProductsPasses();

/// Registers `tsc-host-register-block{cpu=...}`, `tsc-host-amx-products`
/// and `tsc-host-bf16-dot-products` (the rewrites above, for tsc-opt and
/// lit tests).
void registerHostPasses();

} // namespace mlir::tsc

#endif // TSC_COMPILER_TARGET_HOST_REGISTERBLOCK_H
