// RUN: tsc-opt %s --split-input-file --tsc-cuda-map-rows-to-blocks | FileCheck %s

// A softmax fused by rows (the kernels' scf.forall over rows, on buffers)
// becomes a block per row: three thread phases (max, sum, the elementwise
// write), the first two reductions, their scalars block-uniform values.

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax_rows
// CHECK-NOT:     scf.forall
// CHECK:         scf.parallel (%[[ROW:.+]]) =
// CHECK:           %[[X:.+]] = memref.subview %{{.+}}[%[[ROW]], 0] [1, 64]
// CHECK:           %[[MAX:.+]] = scf.parallel (%[[T:.+]]) = {{.+}} init
// CHECK:             memref.load %[[X]]
// CHECK:             arith.maximumf
// CHECK:             scf.reduce
// CHECK:           } {tsc.thread_phase}
// CHECK:           %[[M:.+]] = arith.maximumf %{{.+}}, %[[MAX]]
// CHECK:           %[[SUM:.+]] = scf.parallel {{.+}} init
// CHECK:             arith.subf %{{.+}}, %[[M]]
// CHECK:             math.exp
// CHECK:           } {tsc.thread_phase}
// CHECK:           %[[S:.+]] = arith.addf %{{.+}}, %[[SUM]]
// CHECK:           scf.parallel
// CHECK:             arith.divf %{{.+}}, %[[S]]
// CHECK:             memref.store
// CHECK:           } {tsc.thread_phase}
// CHECK:         } {tsc.row_blocks}
// CHECK-NOT:     memref.alloca
func.func @softmax_rows(%in: memref<4x64xf32>, %out: memref<4x64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  scf.forall (%row) in (4) {
    %x = memref.subview %in[%row, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %max = memref.alloca() {alignment = 64 : i64} : memref<1xf32>
    linalg.fill ins(%ninf : f32) outs(%max : memref<1xf32>)
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1x64xf32, strided<[64, 1], offset: ?>>) outs(%max : memref<1xf32>) {
    ^bb0(%a: f32, %m: f32):
      %r = arith.maximumf %m, %a : f32
      linalg.yield %r : f32
    }
    %sum = memref.alloca() {alignment = 64 : i64} : memref<1xf32>
    linalg.fill ins(%zero : f32) outs(%sum : memref<1xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%x, %max : memref<1x64xf32, strided<[64, 1], offset: ?>>, memref<1xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %m: f32, %s: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      %r = arith.addf %s, %e fastmath<reassoc> : f32
      linalg.yield %r : f32
    }
    %y = memref.subview %out[%row, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %max, %sum : memref<1x64xf32, strided<[64, 1], offset: ?>>, memref<1xf32>, memref<1xf32>) outs(%y : memref<1x64xf32, strided<[64, 1], offset: ?>>) {
    ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      %r = arith.divf %e, %s : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Rows shorter than a warp keep their scf.forall: a block per row would be
// mostly idle threads.

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @short_rows_left
// CHECK:         scf.forall
// CHECK-NOT:     tsc.row_blocks
func.func @short_rows_left(%in: memref<4x16xf32>, %out: memref<4x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  scf.forall (%row) in (4) {
    %x = memref.subview %in[%row, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    %max = memref.alloca() {alignment = 64 : i64} : memref<1xf32>
    linalg.fill ins(%ninf : f32) outs(%max : memref<1xf32>)
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1x16xf32, strided<[16, 1], offset: ?>>) outs(%max : memref<1xf32>) {
    ^bb0(%a: f32, %m: f32):
      %r = arith.maximumf %m, %a : f32
      linalg.yield %r : f32
    }
    %sum = memref.alloca() {alignment = 64 : i64} : memref<1xf32>
    linalg.fill ins(%zero : f32) outs(%sum : memref<1xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%x, %max : memref<1x16xf32, strided<[16, 1], offset: ?>>, memref<1xf32>) outs(%sum : memref<1xf32>) {
    ^bb0(%a: f32, %m: f32, %s: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      %r = arith.addf %s, %e fastmath<reassoc> : f32
      linalg.yield %r : f32
    }
    %y = memref.subview %out[%row, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %max, %sum : memref<1x16xf32, strided<[16, 1], offset: ?>>, memref<1xf32>, memref<1xf32>) outs(%y : memref<1x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      %r = arith.divf %e, %s : f32
      linalg.yield %r : f32
    }
  }
  return
}
