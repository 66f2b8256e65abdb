//===- Objects.h - LLVM IR to x86-64 objects, in parallel -------*- C++ -*-===//
//
// The last step of host codegen before linking: LLVM's O3 pipeline and its
// x86-64 back end. A module of several kernels is split into partitions of
// whole kernels (each with the internal functions and constants only it
// uses), and each partition is optimized and compiled on its own thread with
// its own LLVM context; the objects are linked together. The partition count
// depends only on the module, never on the machine, so the artifact's bytes
// do not either.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_HOST_OBJECTS_H
#define TSC_COMPILER_TARGET_HOST_OBJECTS_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class GlobalValue;
class Module;
} // namespace llvm

namespace mlir::tsc {

/// At most this many partitions (threads) for one module.
constexpr unsigned kMaxCodegenPartitions = 4;

/// The defined globals of each partition of `module`: whole kernels, each
/// kept with the local functions and variables it uses (a local used by two
/// kernels joins them), packed largest first onto the lightest partition by
/// instruction count; at most `most` partitions, fewer where there are fewer
/// such groups (at least one), and one where the module has what whole
/// kernels cannot be split around (aliases, ifuncs, comdats, appending
/// arrays such as llvm.global_ctors, module assembly). Local constants (the
/// OpenMP runtime's source locations, tables) are in none: they are copied into
/// every partition.
std::vector<llvm::SmallVector<const llvm::GlobalValue *>>
partitionKernels(const llvm::Module &module, unsigned most);

/// Optimizes `module` (O3, no unrolling before vectorization) and compiles
/// it for x86-64 `cpu` with `features`, as one object per partition, in the
/// order they are to be linked. The module's functions already carry their
/// target attributes.
llvm::Expected<std::vector<llvm::SmallString<0>>>
emitObjects(std::unique_ptr<llvm::Module> module, const std::string &cpu,
            const std::string &features);

} // namespace mlir::tsc

#endif // TSC_COMPILER_TARGET_HOST_OBJECTS_H
