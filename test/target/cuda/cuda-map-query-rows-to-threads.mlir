// RUN: tsc-opt %s --tsc-cuda-map-query-rows-to-threads | FileCheck %s

// A small fp32 attention (batch 2, 2 heads, 64 queries and keys, head dim 8)
// as compiler/kernels bufferizes it for the CUDA target: the lowering's
// scf.forall over (batch, head, block of 32 query rows) becomes a row block
// with a thread per query row. Per-row tiles (Q rows, scores, running max
// and sum, output rows) are tsc.thread_tile, the key and value blocks every
// row reads tsc.block_shared; each op runs in a thread phase.

// CHECK-LABEL: func.func @tsc_kernel_0_attention
// CHECK-NOT:     scf.forall
// CHECK:         scf.parallel (%{{.+}}, %{{.+}}, %{{.+}}) =
// CHECK-DAG:       memref.alloca() {{.+}}tsc.thread_tile{{.+}} : memref<32x64xf32>
// CHECK-DAG:       memref.alloca() {{.+}}tsc.block_shared{{.+}} : memref<64x8xf32>
// CHECK-DAG:       memref.alloca() {{.+}}tsc.block_shared{{.+}} : memref<8x64xf32>
// CHECK-DAG:       memref.alloca() {{.+}}tsc.thread_tile{{.+}} : memref<32x8xf32>
// CHECK:           %[[C32:.+]] = arith.constant 32 : index
// CHECK:           scf.parallel (%{{.+}}) = (%{{.+}}) to (%[[C32]])
// CHECK:           } {tsc.thread_phase}
// CHECK-NOT:     scf.forall
// CHECK:         } {tsc.row_blocks}
// CHECK-NOT:     scf.forall

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map4 = affine_map<(d0, d1) -> (d0)>
#map5 = affine_map<(d0) -> (d0)>
#map6 = affine_map<(d0, d1, d2) -> (d1, d0)>
module {
  func.func @tsc_kernel_0_attention(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr) {
    %c63 = arith.constant 63 : index
    %c32 = arith.constant 32 : index
    %cst = arith.constant 3.500000e-01 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 0.000000e+00 : f32
    %c64 = arith.constant 64 : index
    %0 = llvm.mlir.constant(1 : i64) : i64
    %1 = llvm.mlir.constant(0 : i64) : i64
    %2 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)>
    %c2_i64 = arith.constant 2 : i64
    %c64_i64 = arith.constant 64 : i64
    %c8_i64 = arith.constant 8 : i64
    %3 = llvm.insertvalue %arg0, %2[0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %4 = llvm.insertvalue %arg0, %3[1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %5 = llvm.insertvalue %1, %4[2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %6 = llvm.insertvalue %c8_i64, %5[3, 3] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %7 = llvm.insertvalue %0, %6[4, 3] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %8 = llvm.mul %c8_i64, %0 : i64
    %9 = llvm.insertvalue %c64_i64, %7[3, 2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %10 = llvm.insertvalue %8, %9[4, 2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %11 = llvm.mul %8, %c64_i64 : i64
    %12 = llvm.insertvalue %c2_i64, %10[3, 1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %13 = llvm.insertvalue %11, %12[4, 1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %14 = llvm.mul %11, %c2_i64 : i64
    %15 = llvm.insertvalue %c2_i64, %13[3, 0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %16 = llvm.insertvalue %14, %15[4, 0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %17 = builtin.unrealized_conversion_cast %16 : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> to memref<2x2x64x8xf32>
    %18 = llvm.insertvalue %arg1, %2[0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %19 = llvm.insertvalue %arg1, %18[1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %20 = llvm.insertvalue %1, %19[2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %21 = llvm.insertvalue %c8_i64, %20[3, 3] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %22 = llvm.insertvalue %0, %21[4, 3] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %23 = llvm.insertvalue %c64_i64, %22[3, 2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %24 = llvm.insertvalue %8, %23[4, 2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %25 = llvm.insertvalue %c2_i64, %24[3, 1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %26 = llvm.insertvalue %11, %25[4, 1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %27 = llvm.insertvalue %c2_i64, %26[3, 0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %28 = llvm.insertvalue %14, %27[4, 0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %29 = builtin.unrealized_conversion_cast %28 : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> to memref<2x2x64x8xf32>
    %30 = llvm.insertvalue %arg2, %2[0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %31 = llvm.insertvalue %arg2, %30[1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %32 = llvm.insertvalue %1, %31[2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %33 = llvm.insertvalue %c8_i64, %32[3, 3] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %34 = llvm.insertvalue %0, %33[4, 3] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %35 = llvm.insertvalue %c64_i64, %34[3, 2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %36 = llvm.insertvalue %8, %35[4, 2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %37 = llvm.insertvalue %c2_i64, %36[3, 1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %38 = llvm.insertvalue %11, %37[4, 1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %39 = llvm.insertvalue %c2_i64, %38[3, 0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %40 = llvm.insertvalue %14, %39[4, 0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %41 = builtin.unrealized_conversion_cast %40 : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> to memref<2x2x64x8xf32>
    %42 = llvm.insertvalue %arg3, %2[0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %43 = llvm.insertvalue %arg3, %42[1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %44 = llvm.insertvalue %1, %43[2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %45 = llvm.insertvalue %c8_i64, %44[3, 3] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %46 = llvm.insertvalue %0, %45[4, 3] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %47 = llvm.insertvalue %c64_i64, %46[3, 2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %48 = llvm.insertvalue %8, %47[4, 2] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %49 = llvm.insertvalue %c2_i64, %48[3, 1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %50 = llvm.insertvalue %11, %49[4, 1] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %51 = llvm.insertvalue %c2_i64, %50[3, 0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %52 = llvm.insertvalue %14, %51[4, 0] : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> 
    %53 = builtin.unrealized_conversion_cast %52 : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)> to memref<2x2x64x8xf32>
    scf.forall (%arg4, %arg5, %arg6) in (2, 2, 2) {
      %alloca = memref.alloca() {alignment = 64 : i64} : memref<32xf32>
      %alloca_2 = memref.alloca() {alignment = 64 : i64} : memref<32x64xf32>
      %alloca_3 = memref.alloca() {alignment = 64 : i64} : memref<64x8xf32>
      %alloca_4 = memref.alloca() {alignment = 64 : i64} : memref<8x64xf32>
      %alloca_5 = memref.alloca() {alignment = 64 : i64} : memref<32xf32>
      %alloca_6 = memref.alloca() {alignment = 64 : i64} : memref<32xf32>
      %alloca_7 = memref.alloca() {alignment = 64 : i64} : memref<32xf32>
      %alloca_8 = memref.alloca() {alignment = 64 : i64} : memref<32x8xf32>
      %alloca_9 = memref.alloca() {alignment = 64 : i64} : memref<32x8xf32>
      %54 = arith.muli %arg6, %c32 : index
      %55 = arith.subi %c64, %54 : index
      %56 = arith.minui %55, %c32 : index
      linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%alloca_8 : memref<32x8xf32>) {
      ^bb0(%out: f32):
        %57 = linalg.index 0 : index
        %58 = linalg.index 1 : index
        %59 = arith.addi %54, %57 : index
        %60 = arith.minui %59, %c63 : index
        %61 = memref.load %17[%arg4, %arg5, %60, %58] : memref<2x2x64x8xf32>
        %62 = arith.mulf %61, %cst : f32
        linalg.yield %62 : f32
      }
      linalg.fill ins(%cst_0 : f32) outs(%alloca_6 : memref<32xf32>)
      linalg.fill ins(%cst_1 : f32) outs(%alloca_5 : memref<32xf32>)
      linalg.fill ins(%cst_1 : f32) outs(%alloca_9 : memref<32x8xf32>)
      linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%alloca_4 : memref<8x64xf32>) {
      ^bb0(%out: f32):
        %57 = linalg.index 0 : index
        %58 = linalg.index 1 : index
        %59 = arith.minui %58, %c63 : index
        %60 = memref.load %29[%arg4, %arg5, %59, %57] : memref<2x2x64x8xf32>
        linalg.yield %60 : f32
      }
      linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%alloca_3 : memref<64x8xf32>) {
      ^bb0(%out: f32):
        %57 = linalg.index 0 : index
        %58 = linalg.index 1 : index
        %59 = arith.minui %57, %c63 : index
        %60 = memref.load %41[%arg4, %arg5, %59, %58] : memref<2x2x64x8xf32>
        linalg.yield %60 : f32
      }
      linalg.fill ins(%cst_1 : f32) outs(%alloca_2 : memref<32x64xf32>)
      linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "reduction", "parallel"]} ins(%alloca_8, %alloca_4 : memref<32x8xf32>, memref<8x64xf32>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f32, %in_11: f32, %out: f32):
        %57 = arith.mulf %in, %in_11 fastmath<reassoc,contract> : f32
        %58 = arith.addf %out, %57 fastmath<reassoc,contract> : f32
        linalg.yield %58 : f32
      }
      linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloca_2 : memref<32x64xf32>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f32, %out: f32):
        %57 = linalg.index 1 : index
        %58 = arith.cmpi ult, %57, %c64 : index
        %59 = arith.select %58, %in, %cst_0 : f32
        linalg.yield %59 : f32
      }
      linalg.copy ins(%alloca_6 : memref<32xf32>) outs(%alloca : memref<32xf32>)
      linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["parallel", "reduction"]} ins(%alloca_2 : memref<32x64xf32>) outs(%alloca : memref<32xf32>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.maxnumf %in, %out : f32
        linalg.yield %57 : f32
      }
      linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel"]} ins(%alloca : memref<32xf32>) outs(%alloca_6, %alloca_7 : memref<32xf32>, memref<32xf32>) {
      ^bb0(%in: f32, %out: f32, %out_11: f32):
        %57 = arith.maxnumf %out, %in : f32
        %58 = arith.cmpf oeq, %57, %cst_0 : f32
        %59 = arith.select %58, %cst_1, %57 : f32
        %60 = arith.subf %out, %59 : f32
        %61 = math.exp %60 : f32
        linalg.yield %57, %61 : f32, f32
      }
      linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%alloca_2, %alloca_6 : memref<32x64xf32>, memref<32xf32>) outs(%alloca_2 : memref<32x64xf32>) {
      ^bb0(%in: f32, %in_11: f32, %out: f32):
        %57 = arith.cmpf oeq, %in_11, %cst_0 : f32
        %58 = arith.select %57, %cst_1, %in_11 : f32
        %59 = arith.subf %in, %58 : f32
        %60 = math.exp %59 : f32
        linalg.yield %60 : f32
      }
      linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%alloca_7 : memref<32xf32>) outs(%alloca_5 : memref<32xf32>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.mulf %out, %in : f32
        linalg.yield %57 : f32
      }
      linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["parallel", "reduction"]} ins(%alloca_2 : memref<32x64xf32>) outs(%alloca_5 : memref<32xf32>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.addf %out, %in fastmath<reassoc> : f32
        linalg.yield %57 : f32
      }
      linalg.generic {indexing_maps = [#map4, #map], iterator_types = ["parallel", "parallel"]} ins(%alloca_7 : memref<32xf32>) outs(%alloca_9 : memref<32x8xf32>) {
      ^bb0(%in: f32, %out: f32):
        %57 = arith.mulf %out, %in : f32
        linalg.yield %57 : f32
      }
      linalg.generic {indexing_maps = [#map6, #map3, #map2], iterator_types = ["reduction", "parallel", "parallel"]} ins(%alloca_2, %alloca_3 : memref<32x64xf32>, memref<64x8xf32>) outs(%alloca_9 : memref<32x8xf32>) {
      ^bb0(%in: f32, %in_11: f32, %out: f32):
        %57 = arith.mulf %in, %in_11 fastmath<reassoc,contract> : f32
        %58 = arith.addf %out, %57 fastmath<reassoc,contract> : f32
        linalg.yield %58 : f32
      }
      linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%alloca_9, %alloca_5 : memref<32x8xf32>, memref<32xf32>) outs(%alloca_9 : memref<32x8xf32>) {
      ^bb0(%in: f32, %in_11: f32, %out: f32):
        %57 = arith.cmpf oeq, %in_11, %cst_1 : f32
        %58 = arith.divf %in, %in_11 : f32
        %59 = arith.select %57, %cst_1, %58 : f32
        linalg.yield %59 : f32
      }
      %subview = memref.subview %alloca_9[0, 0] [%56, 8] [1, 1] : memref<32x8xf32> to memref<?x8xf32, strided<[8, 1]>>
      %subview_10 = memref.subview %53[%arg4, %arg5, %54, 0] [1, 1, %56, 8] [1, 1, 1, 1] : memref<2x2x64x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
      linalg.copy ins(%subview : memref<?x8xf32, strided<[8, 1]>>) outs(%subview_10 : memref<?x8xf32, strided<[8, 1], offset: ?>>)
    }
    return
  }
}
