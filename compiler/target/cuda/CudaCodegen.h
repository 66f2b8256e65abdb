//===- CudaCodegen.h - the plan's kernels as PTX and SASS -------*- C++ -*-===//
//
// The codegen phase for --target=cuda:sm_XX: the kernels the host target
// lowers to linalg (same plan, same fusion groups) are bufferized, their
// parallel loops mapped to the grid and to threads, each launch outlined
// into a gpu.module, lowered through the NVVM dialect and LLVM's NVPTX back
// end to PTX, and assembled by ptxas into SASS for the chip.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_CUDA_CUDACODEGEN_H
#define TSC_COMPILER_TARGET_CUDA_CUDACODEGEN_H

#include "compiler/plan/Plan.h"
#include "compiler/target/cuda/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringMap.h"

#include <array>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
} // namespace mlir
namespace mlir::func {
class FuncOp;
} // namespace mlir::func
namespace mlir::gpu {
class GPUFuncOp;
class GPUModuleOp;
} // namespace mlir::gpu

namespace mlir::tsc::cuda {

/// One launch of one kernel step: a gpu.module with one kernel function.
struct DeviceModule {
  /// The module's name: `<kernel step>_kernel[_N]`.
  std::string name;
  /// The kernel's entry name in the PTX.
  std::string kernel;
  std::string ptx;
  /// SASS from ptxas; empty when no ptxas was run.
  std::vector<char> cubin;
};

/// One parameter of a launched kernel (the device ABI: pointers and i64s).
struct LaunchArg {
  enum class Kind : uint8_t {
    Pointer = 1, // the device address of a plan value
    Int64 = 2    // the value of a plan expression
  };
  Kind kind;
  unsigned index; // plan value or plan expression
};

/// One kernel launch: what format 1.2's step kind 5 records.
struct Launch {
  unsigned module = 0; // index into each chip's module list
  /// Grid and block sizes (x, y, z) as plan expressions.
  std::array<unsigned, 3> grid{}, block{};
  SmallVector<LaunchArg> args;
};

/// The device code of a plan: its kernel steps as launches of modules.
struct DeviceCode {
  /// Per target: one module per launch, the same modules in the same order
  /// for every target.
  std::vector<std::vector<DeviceModule>> modules;
  /// Per plan step: the launches that run it (none for gemm and copy steps).
  std::vector<std::vector<Launch>> launches;
  /// What the launches need in the plan (plan::extendPlan folds it in):
  /// their expressions, and their scratch as arena values.
  plan::PlanAdditions planAdditions;
  /// Plan steps (ascending) whose GEMM runs 2:4 sparse (format 1.14,
  /// kGemmSparse24): their weight B is stored compressed (Sparse24.h).
  std::vector<unsigned> sparseSteps;
};

/// Marks the load of a scalar that mapKernelLoops spilled to memory after the
/// one-iteration launch computing it: no later launch writes that memory.
constexpr llvm::StringLiteral kSpillLoad = "tsc.spill_load";

/// Threads per block of a mapped parallel loop's innermost dim (at most; a
/// small constant dim gets whole warps enough for it).
constexpr int64_t kThreadsPerBlock = 256;

constexpr int64_t kWarpSize = 32;

/// A row block's row buffers, and attention's key and value blocks (the
/// lowering's budget, half of it for half tiles), take at most this.
constexpr int64_t kMaxSharedBytes = 32 * 1024;

/// A block's static shared memory is at most this: the bound on all of a
/// query-row block's shared tiles (the tensor-core products' Q, S, P and O
/// with K and V).
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

/// Bytes of the widest access a thread makes at once: consecutive elements
/// one thread takes where a dim is a constant multiple of the group with at
/// least a warp of groups, which LLVM forms into one 16-byte access from the
/// unrolled group given the kernel arguments' alignment.
constexpr int64_t kGroupBytes = 16;

/// Elements per group for the memory `op` (and what it nests) accesses: 16
/// bytes of its narrowest float element type (4 floats, 8 halves), at
/// least 4.
int64_t getElementsPerGroup(Operation *op);

/// Marks the scf.parallel over the rows of a norm or softmax that
/// mapRowsToBlocks made: one block per row.
constexpr llvm::StringLiteral kRowBlocks = "tsc.row_blocks";

/// Marks a thread phase of a row block: an scf.parallel over the block's
/// threads (with scf.reduce for a row reduction); phases of one row run in
/// order, as if separated by barriers.
constexpr llvm::StringLiteral kThreadPhase = "tsc.thread_phase";

/// Marks a thread phase whose threads work a warp at a time (tensor-core
/// products): on the device every thread of a warp runs it together; on
/// the host (which computes a warp's vectors in one thread) its first
/// thread does.
constexpr llvm::StringLiteral kWarpPhase = "tsc.warp_phase";

/// Marks a row buffer of a row block (an elementwise result the row reads
/// again): an alloca on the host, shared memory on the device.
constexpr llvm::StringLiteral kBlockShared = "tsc.block_shared";

/// Marks a tile of a row block with one row per thread (attention's query
/// rows): the whole tile on the host, the thread's row on the device.
constexpr llvm::StringLiteral kThreadTile = "tsc.thread_tile";

/// Who runs the mapped loops: the host (--gpu-loop-mapping, thread phases
/// as loops in order) or the device (thread phases joined into one loop
/// over the threads, with barriers and block reductions).
enum class MappedFor { Host, Device };

/// The loop structure the device code gets, on bufferized kernels: row
/// reductions (norms, softmax) as a block per row (mapRowsToBlocks); other
/// linalg and scf.forall as scf.parallel, device work outside loops in one-
/// iteration loops, each outermost loop tiled by kThreadsPerBlock with a
/// bounds guard and mapped (grid, threadIdx.x), inner parallel loops as
/// scf.for. The host target can compile this structure too
/// (--gpu-loop-mapping), which checks its numerics without a GPU.
/// `tensorCores`: whether attention's fp16/bf16 products may be warp products
/// (mma.sync on every target chip; the host emulates them).
LogicalResult mapKernelLoops(ModuleOp kernels, MappedFor target,
                             bool tensorCores = true);

/// mapKernelLoops' steps as passes (Passes.td), on a module pass manager:
/// the `tsc-cuda-map-loops` pipeline.
void buildLoopMappingPipeline(OpPassManager &pm, MappedFor target,
                              bool tensorCores = true);

/// After the mapped loops became gpu.launch ops: each launch outlined into
/// a gpu.module, whose kernel gets its row buffers in shared memory, its
/// block reductions, warp products and exp lowered for the GPU.
void buildKernelOutliningPipeline(OpPassManager &pm);

/// The outlined modules through NVVM to PTX text (gpu.binary ops), one
/// object per target chip.
void buildNVVMPipeline(OpPassManager &pm, ArrayRef<const TargetInfo *> targets);

/// Replaces each scf.forall over rows in `func` whose body reduces rows and
/// writes them elementwise (fuseRowReductions' loops, on buffers) by a
/// kRowBlocks loop of kThreadPhase phases and block-uniform scalars. Other
/// foralls (attention, rows shorter than a warp) are left as they are.
void mapRowsToBlocks(func::FuncOp func);

/// Replaces each scf.forall in `func` over blocks of rows whose ops work
/// row by row on per-row tiles (attention's loop over batch, head and query
/// block) by a kRowBlocks loop with a thread per row: every op on the
/// per-row tiles restricted to the thread's row, tiles all rows read
/// (key and value blocks) filled by the block's threads together in shared
/// memory. With `tensorCores`, fp16/bf16 products whose shapes allow become
/// warp products (kWarpPhase). Other foralls are left as they are.
void mapQueryRowsToThreads(func::FuncOp func, bool tensorCores);

/// For the host: each thread phase as a sequential loop over the threads.
void runThreadPhasesInOrder(ModuleOp kernels);

/// For the device: in each row block, the phases and the uniform code
/// between them as one scf.parallel over threadIdx.x, with gpu.barrier
/// where a phase may read what another thread wrote and gpu.all_reduce
/// for each reduction.
LogicalResult joinThreadPhases(func::FuncOp func);

/// On a kBlockShared 2-D tile: its rows are padded in shared memory to this
/// many elements (getPaddedRowStride).
constexpr llvm::StringLiteral kSharedRowStride = "tsc.shared_row_stride";

/// Elements between the rows of a 2-D tile of `type` that a thread per row
/// (or ldmatrix, 8 rows at once) accesses at one column. Rows spanning
/// whole multiples of the 32 four-byte banks would put those accesses in
/// one bank; four-byte elements get one element of padding (no conflict),
/// two-byte ones 16 bytes, as ldmatrix reads rows at 16-byte-aligned
/// addresses (a 4-way conflict left).
int64_t getPaddedRowStride(MemRefType type);

/// After outlining: each kBlockShared alloca of `kernel` as a workgroup
/// (shared memory) buffer of the kernel; one with kSharedRowStride as a
/// view of the rows of a padded buffer.
void placeRowBuffersInSharedMemory(gpu::GPUFuncOp kernel);

/// After outlining and placing shared memory: the warp phases' products
/// (vector.contract on shared tiles) in `module` as per-lane ldmatrix and
/// mma.sync (MLIR's vector-to-nvgpu conversion, bf16 through an f16 view of
/// its bytes and NVVM's bf16 mma.sync); an error where one is left.
LogicalResult lowerWarpProducts(gpu::GPUModuleOp module);

/// Lowers the kernels (outlined with the device ABI, as lowerKernels leaves
/// them; the module is changed) to one PTX module per launch for each of
/// `targets`. Everything up to NVPTX runs once for all chips. Each launch's
/// geometry and arguments become plan expressions; temporaries a kernel
/// allocates outside its parallel loops become arena values (the arena
/// grows by the largest step's need), both in the code's planAdditions.
FailureOr<DeviceCode> generateDeviceCode(ModuleOp kernels,
                                         const plan::Plan &plan,
                                         ArrayRef<const TargetInfo *> targets);

/// Before outlining: gives each of `func`'s top-level temporaries a place in
/// the arena (as an extra pointer argument; the scratch `plan` reserves)
/// and moves into every gpu.launch
/// what it computes from the arguments, so that launches capture only the
/// function's arguments. `argValues` receives, per argument, what it
/// carries at run time.
LogicalResult prepareLaunches(func::FuncOp func, plan::PlanExtender &plan,
                              const plan::PlanStep &step,
                              SmallVectorImpl<LaunchArg> &argValues);

/// After outlining: the launches left in `func`, host code that must compute
/// nothing but their geometry. `moduleIndex` maps module names to indices.
FailureOr<std::vector<Launch>>
collectLaunches(func::FuncOp func, plan::PlanExtender &plan,
                ArrayRef<LaunchArg> argValues,
                const llvm::StringMap<unsigned> &moduleIndex);

/// ptxas from $CUDA_HOME, /usr/local/cuda or PATH; empty if none.
std::string findPtxas();

/// Assembles `module.ptx` for `target` with `ptxas` into `module.cubin`;
/// an error naming the module and quoting ptxas when it rejects the PTX.
LogicalResult assemble(DeviceModule &module, const TargetInfo &target,
                       StringRef ptxas, Location loc);

} // namespace mlir::tsc::cuda

#endif // TSC_COMPILER_TARGET_CUDA_CUDACODEGEN_H
