// RUN: tsc-opt %s --split-input-file --tsc-cuda-place-row-buffers-in-shared-memory | FileCheck %s

// A row buffer (tsc.block_shared alloca) becomes a workgroup buffer of its
// kernel; other allocas stay thread-private.

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @row_buffer
  // CHECK-SAME:    (%[[IN:.+]]: memref<64xf32>)
  // CHECK-SAME:    workgroup(%[[ROW:.+]] : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
  // CHECK:         %[[PRIVATE:.+]] = memref.alloca() : memref<4xf32>
  // CHECK:         %[[V:.+]] = memref.load %[[IN]]
  // CHECK:         memref.store %[[V]], %[[ROW]]
  // CHECK:         memref.store %[[V]], %[[PRIVATE]]
  gpu.func @row_buffer(%in: memref<64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %row = memref.alloca() {alignment = 16 : i64, tsc.block_shared} : memref<64xf32>
    %private = memref.alloca() : memref<4xf32>
    %tid = gpu.thread_id x
    %v = memref.load %in[%tid] : memref<64xf32>
    memref.store %v, %row[%tid] : memref<64xf32>
    memref.store %v, %private[%c0] : memref<4xf32>
    gpu.return
  }
}
