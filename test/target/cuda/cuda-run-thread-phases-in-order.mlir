// RUN: tsc-opt %s --split-input-file --tsc-cuda-run-thread-phases-in-order | FileCheck %s

// For the host (--gpu-loop-mapping): a thread phase is a loop over the
// threads in order; its scf.reduce an accumulator.

// CHECK-LABEL: func.func @sum_phase_as_loop
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C256:.+]] = arith.constant 256 : index
// CHECK:         scf.parallel (%[[R:.+]]) =
// CHECK-NOT:       tsc.thread_phase
// CHECK:           %[[SUM:.+]] = scf.for %[[T:.+]] = %{{.+}} to %[[C256]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32)
// CHECK:             %[[V:.+]] = memref.load %{{.+}}[%[[R]], %[[T]]]
// CHECK:             %[[NEXT:.+]] = arith.addf %[[ACC]], %[[V]]
// CHECK:             scf.yield %[[NEXT]]
// CHECK:           memref.store %[[SUM]]
// CHECK:         } {tsc.row_blocks}
func.func @sum_phase_as_loop(%a: memref<4x256xf32>, %out: memref<4xf32>) {
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
  } {tsc.row_blocks}
  return
}

// -----

// A warp phase: the first thread of each warp computes the warp's vectors.

// CHECK-LABEL: func.func @warp_phase_first_threads
// CHECK:         %[[C32:.+]] = arith.constant 32 : index
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C32]]
// CHECK-NOT:     tsc.warp_phase

func.func @warp_phase_first_threads(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%r) = (%c0) to (%c1) step (%c1) {
    scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
      %v = memref.load %a[%t] : memref<64xf32>
      memref.store %v, %a[%t] : memref<64xf32>
      scf.reduce
    } {tsc.thread_phase, tsc.warp_phase}
    scf.reduce
  } {tsc.row_blocks}
  return
}
