// RUN: tsc-opt %s --split-input-file --tsc-cuda-lower-block-reductions | FileCheck %s

// A block reduction: warp shuffles, then the warps' partials through a
// workgroup buffer between barriers.

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @block_sum
  // CHECK-SAME:    workgroup(%[[PARTIALS:.+]] : memref<32xf32, #gpu.address_space<workgroup>>)
  // CHECK-NOT:     gpu.all_reduce
  // CHECK:         gpu.shuffle xor
  // CHECK:         memref.store %{{.+}}, %[[PARTIALS]]
  // CHECK:         gpu.barrier
  // CHECK:         memref.load %[[PARTIALS]]
  // CHECK:         gpu.shuffle xor
  // CHECK:         gpu.barrier
  gpu.func @block_sum(%in: memref<256xf32>, %out: memref<f32>) kernel {
    %tid = gpu.thread_id x
    %v = memref.load %in[%tid] : memref<256xf32>
    %sum = gpu.all_reduce add %v uniform {} : (f32) -> f32
    memref.store %sum, %out[] : memref<f32>
    gpu.return
  }
}
