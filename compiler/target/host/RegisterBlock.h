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

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tsc {

/// The vector registers of an x86-64 level (LLVM CPU name): f32 lanes of
/// one register and how many registers there are.
struct VectorRegisters {
  int64_t lanes;
  int64_t count;
};
VectorRegisters vectorRegistersOf(StringRef cpu);

/// Rewrites every bufferized linalg contraction C[m, n] += A·B (one m, n and
/// k loop, static sizes, float operands no wider than C, B and C unit-stride
/// along n) inside an scf.forall as register-blocked vector code. Other ops
/// are left as they are.
void registerBlockContractions(ModuleOp kernels, VectorRegisters registers);

/// Registers `tsc-host-register-block{cpu=...}` (the rewrite above, for
/// tsc-opt and lit tests).
void registerHostPasses();

} // namespace mlir::tsc

#endif // TSC_COMPILER_TARGET_HOST_REGISTERBLOCK_H
