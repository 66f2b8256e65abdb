//===- SharedKernels.h - compile a repeated kernel once --------*- C++ -*-===//
//
// A model's layers repeat their kernels: BERT-base's 43 kernel steps are 10
// distinct functions (each layer's attention and norms take the same
// buffers in the same places and read sizes from the same symbols). The
// host target compiles each distinct body once.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_HOST_SHAREDKERNELS_H
#define TSC_COMPILER_TARGET_HOST_SHAREDKERNELS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tsc {

/// Gives every kernel function of `kernels` whose body (operations,
/// attributes and types, its name aside) is the same as an earlier one's a
/// body that calls the earlier one instead, so that each step keeps its own
/// symbol and the code exists once. Returns the names of the functions so
/// called: the caller keeps them out of line (an inliner would copy them
/// back into every caller).
llvm::StringSet<> shareDuplicateKernels(ModuleOp kernels);

} // namespace mlir::tsc

#endif // TSC_COMPILER_TARGET_HOST_SHAREDKERNELS_H
