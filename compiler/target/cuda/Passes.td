//===- Passes.td - the CUDA target's loop mapping steps ----*- tablegen -*-===//
//
// Each step of the CUDA mapping on bufferized kernels (compiler/kernels),
// registered so that tsc-opt replays it; `tsc-cuda-map-loops` is their
// pipeline (CudaCodegen.h, mapKernelLoops).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_TARGET_CUDA_PASSES_TD
#define TSC_COMPILER_TARGET_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Loop mapping: bufferized kernels to mapped scf.parallel loops
//===----------------------------------------------------------------------===//

def MapRowsToBlocksPass : Pass<"tsc-cuda-map-rows-to-blocks", "func::FuncOp"> {
  let summary = "Norms and softmax: a block of threads per row";
  let description = [{
    Replaces each scf.forall over rows whose body reduces rows and writes
    them elementwise (the kernels' row-fused norms and softmax, on buffers)
    by an scf.parallel over the rows marked `tsc.row_blocks`, whose body is
    thread phases (scf.parallel marked `tsc.thread_phase`, with scf.reduce
    for a row reduction) and block-uniform scalars between them. Other
    foralls are left as they are. See RowBlocks.cpp.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::affine::AffineDialect"];
}

def MapQueryRowsToThreadsPass
    : Pass<"tsc-cuda-map-query-rows-to-threads", "func::FuncOp"> {
  let summary = "Attention: a block per query block, a thread per query row";
  let description = [{
    Replaces each scf.forall over (batch, head, query block) whose ops work
    row by row on per-row tiles by a `tsc.row_blocks` loop with a thread per
    query row: per-row tiles `tsc.thread_tile`, tiles every row reads (key
    and value blocks) `tsc.block_shared`, filled by the block's threads
    together. With `tensor-cores`, fp16/bf16 products whose shapes allow
    become warp products (`tsc.warp_phase`, vector.contract on shared
    tiles). See QueryRows.cpp.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect"];
  let options = [
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Let fp16/bf16 products be warp products (mma.sync)">
  ];
}

def CanonicalizeOutsideRowBlocksPass
    : Pass<"tsc-cuda-canonicalize-outside-row-blocks", "ModuleOp"> {
  let summary = "Canonicalize everything but the row blocks";
  let description = [{
    The canonicalizer would drop a row loop's unit dims, and with them its
    `tsc.row_blocks` mark: this runs every loaded dialect's and op's
    canonicalization patterns on the ops outside row blocks only.
  }];
}

def WrapSerialWorkPass : Pass<"tsc-cuda-wrap-serial-work", "func::FuncOp"> {
  let summary = "Device work outside parallel loops as one-iteration loops";
  let description = [{
    Moves each run of ops that touch memory outside parallel loops (0-d
    results, scalar stores, full reductions) into a one-iteration
    scf.parallel, so that it is launched like the rest. Scalars it computes
    for later work go through a 0-d buffer, loaded after the loop with a
    `tsc.spill_load` mark.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def MapLoopsToGpuPass : Pass<"tsc-cuda-map-loops-to-gpu", "func::FuncOp"> {
  let summary = "Tile the outermost parallel loops for the grid and map them";
  let description = [{
    Each outermost scf.parallel is tiled by the threads per block along its
    innermost dim (grouping consecutive elements for 16-byte accesses where
    the dim allows) and mapped: tiles to blockIdx.x/y/z, the tile's
    innermost dim to threadIdx.x, deeper loops sequential. A row block's
    rows go to the grid; the loops in its phases run in order.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def JoinThreadPhasesPass : Pass<"tsc-cuda-join-thread-phases", "func::FuncOp"> {
  let summary = "For the device: a row block's phases as one loop over threads";
  let description = [{
    In each row block, the thread phases and the uniform code between them
    become one scf.parallel over threadIdx.x, with gpu.barrier where a phase
    may read what another thread wrote and gpu.all_reduce for each
    reduction. A thread's values may then be used after its loop, in the row
    block: the IR is valid again once convert-parallel-loops-to-gpu has made
    both one launch body (run them together, without verifying in between).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def RunThreadPhasesInOrderPass
    : Pass<"tsc-cuda-run-thread-phases-in-order", "ModuleOp"> {
  let summary = "For the host: each thread phase as a loop over the threads";
  let description = [{
    What --gpu-loop-mapping compiles for the host: each `tsc.thread_phase`
    becomes an scf.for over the threads (a warp phase's first thread of each
    warp computes the warp's vectors), run in order.
  }];
}

//===----------------------------------------------------------------------===//
// Device kernels: after outlining into gpu.modules
//===----------------------------------------------------------------------===//

def PlaceRowBuffersInSharedMemoryPass
    : Pass<"tsc-cuda-place-row-buffers-in-shared-memory", "gpu::GPUModuleOp"> {
  let summary = "Row buffers as workgroup (shared memory) buffers";
  let description = [{
    Each `tsc.block_shared` alloca of a kernel becomes a workgroup buffer of
    the kernel; one with `tsc.shared_row_stride` a view of the rows of a
    padded buffer.
  }];
}

def LowerBlockReductionsPass
    : Pass<"tsc-cuda-lower-block-reductions", "gpu::GPUModuleOp"> {
  let summary = "gpu.all_reduce as warp shuffles and shared memory";
  let description = [{
    MLIR's all-reduce lowering (populateGpuAllReducePatterns): the block
    reductions of row blocks as warp shuffles, then the warps' partials
    through a workgroup buffer between barriers.
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LowerWarpProductsPass
    : Pass<"tsc-cuda-lower-warp-products", "gpu::GPUModuleOp"> {
  let summary = "Warp products as ldmatrix and mma.sync";
  let description = [{
    The warp phases' products (vector.contract on shared tiles) as per-lane
    ldmatrix and mma.sync (MLIR's vector-to-nvgpu conversion; bf16 through
    an f16 view of its bytes and NVVM's bf16 mma.sync). A product left is
    an error.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
}

def LowerExpToExp2Pass : Pass<"tsc-cuda-lower-exp-to-exp2", "gpu::GPUModuleOp"> {
  let summary = "math.exp as the GPU's ex2.approx.f32";
  let description = [{
    exp(x) = 2^(x·log2 e) through NVVM's `llvm.nvvm.ex2.approx.f32` (CUDA's
    __expf); half operands compute in f32.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TSC_COMPILER_TARGET_CUDA_PASSES_TD
