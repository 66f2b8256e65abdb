// RUN: tsc-opt %s --split-input-file --verify-each=false --tsc-cuda-join-thread-phases --convert-parallel-loops-to-gpu | FileCheck %s

// For the device: a row block's phases as one loop over threadIdx.x, a row
// reduction as gpu.all_reduce. (The joined IR is valid again only once the
// launch lowering has made the row and thread loops one body: see the pass's
// description.)

// CHECK-LABEL: func.func @block_sum_per_row
// CHECK-SAME:    (%[[A:.+]]: memref<4x256xf32>, %[[OUT:.+]]: memref<4xf32>)
// CHECK:         gpu.launch blocks(%[[BX:.+]], %{{.+}}, %{{.+}}) in {{.+}} threads(%[[TX:.+]], %{{.+}}, %{{.+}}) in
// CHECK:           %[[ROW:.+]] = affine.apply #{{.+}}(%[[BX]])
// CHECK:           %[[T:.+]] = affine.apply #{{.+}}(%[[TX]])
// CHECK:           %[[V:.+]] = memref.load %[[A]][%[[ROW]], %[[T]]]
// CHECK:           %[[SUM:.+]] = gpu.all_reduce add %[[V]] uniform
// CHECK:           memref.store %[[SUM]], %[[OUT]][%[[ROW]]]
// CHECK:         } {SCFToGPU_visited, tsc.row_blocks}
func.func @block_sum_per_row(%a: memref<4x256xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    %s = scf.parallel (%t) = (%c0) to (%c256) step (%c1) init (%zero) -> f32 {
      %v = memref.load %a[%r, %t] : memref<4x256xf32>
      scf.reduce(%v : f32) {
      ^bb0(%x: f32, %y: f32):
        %z = arith.addf %x, %y : f32
        scf.reduce.return %z : f32
      }
    } {tsc.thread_phase}
    memref.store %s, %out[%r] : memref<4xf32>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>], tsc.row_blocks}
  return
}
