// RUN: tsc-opt %s --split-input-file --tsc-cuda-wrap-serial-work | FileCheck %s

// Device work outside parallel loops runs in a one-iteration loop, so that it
// is launched like the rest.

// CHECK-LABEL: func.func @scalar_store
// CHECK-SAME:    (%[[A:.+]]: memref<16xf32>, %[[OUT:.+]]: memref<f32>)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK:         scf.parallel (%{{.+}}) = (%{{.+}}) to (%[[C1]]) step (%[[C1]])
// CHECK:           %[[V:.+]] = memref.load %[[A]]
// CHECK:           memref.store %[[V]], %[[OUT]][]
// CHECK:         }
// CHECK-NEXT:    return
func.func @scalar_store(%a: memref<16xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<16xf32>
  memref.store %v, %out[] : memref<f32>
  return
}

// -----

// A scalar a later loop uses goes through a 0-d buffer: stored in the
// one-iteration loop, loaded after it (tsc.spill_load), freed at the end.

// CHECK-LABEL: func.func @scalar_spilled
// CHECK:         %[[SPILL:.+]] = memref.alloc() : memref<f32>
// CHECK:         scf.parallel
// CHECK:           %[[FIRST:.+]] = memref.load
// CHECK:           memref.store %[[FIRST]], %[[SPILL]][]
// CHECK:         %[[LOADED:.+]] = memref.load %[[SPILL]][] {tsc.spill_load}
// CHECK:         scf.parallel
// CHECK:           arith.subf %{{.+}}, %[[LOADED]]
// CHECK:         memref.dealloc %[[SPILL]]

func.func @scalar_spilled(%a: memref<16xf32>, %b: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %first = memref.load %a[%c0] : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %v = memref.load %a[%i] : memref<16xf32>
    %w = arith.subf %v, %first : f32
    memref.store %w, %b[%i] : memref<16xf32>
    scf.reduce
  }
  return
}
