// RUN: tsc-opt %s --tsc-cuda-map-loops=device=false | FileCheck %s --check-prefix=HOST
// RUN: tsc-opt %s --verify-each=false --tsc-cuda-map-loops=device=true --convert-parallel-loops-to-gpu | FileCheck %s --check-prefix=DEVICE

// The whole mapping on a softmax fused by rows (as compiler/kernels
// bufferizes it): a block per row whose max and sum are block reductions.

// On the host (--gpu-loop-mapping): the rows on the grid, each phase a loop
// over the threads in order.
// HOST-LABEL: func.func @softmax_rows
// HOST:         scf.parallel
// HOST-NOT:       tsc.thread_phase
// HOST:           scf.for {{.+}} iter_args
// HOST:             arith.maximumf
// HOST:           scf.for {{.+}} iter_args
// HOST:             math.exp
// HOST:           scf.for
// HOST:             arith.divf
// HOST:         } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.+}}>], tsc.row_blocks}

// On the device: one launch, a block per row, the phases joined with block
// reductions.
// DEVICE-LABEL: func.func @softmax_rows
// DEVICE:         gpu.launch
// DEVICE:           %[[MAX:.+]] = gpu.all_reduce maximumf
// DEVICE:           arith.subf %{{.+}}, %[[MAX]]
// DEVICE:           %[[SUM:.+]] = gpu.all_reduce add
// DEVICE:           %[[TOTAL:.+]] = arith.addf %[[SUM]],
// DEVICE:           arith.divf %{{.+}}, %[[TOTAL]]
// DEVICE:           memref.store
// DEVICE:         } {SCFToGPU_visited, tsc.row_blocks}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
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
