// RUN: tsc-opt %s --split-input-file --tsc-cuda-map-loops-to-gpu | FileCheck %s

// 1024 floats a row: groups of 4 consecutive elements (one 16-byte access) a
// thread, 256 threads a block; the tile loop on the grid (innermost dim on x).

// CHECK-LABEL: func.func @elementwise_tiles
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C256:.+]] = arith.constant 256 : index
// CHECK:         scf.parallel (%[[BY:.+]], %[[BX:.+]]) = {{.+}} to ({{.+}}, %[[C256]]) step
// CHECK:           scf.parallel (%{{.+}}, %[[TX:.+]]) =
// CHECK:             %[[G:.+]] = arith.addi %[[TX]], %[[BX]]
// CHECK:             %[[E:.+]] = arith.muli %[[G]], %[[C4]]
// CHECK-COUNT-4:     memref.store
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = sequential, {{.+}}>, #gpu.loop_dim_map<processor = thread_x, {{.+}}>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_y, {{.+}}>, #gpu.loop_dim_map<processor = block_x, {{.+}}>]}

func.func @elementwise_tiles(%a: memref<8x1024xf32>, %b: memref<8x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c1024) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<8x1024xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %b[%i, %j] : memref<8x1024xf32>
    scf.reduce
  }
  return
}

// -----

// A small constant innermost dim (40) gets whole warps enough for it (64
// threads), with a bounds guard.

// CHECK-LABEL: func.func @small_innermost_dim
// CHECK-DAG:     %[[C40:.+]] = arith.constant 40 : index
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : index
// CHECK:         scf.parallel {{.+}} step ({{.+}}, %[[C64]])
// CHECK:           scf.parallel
// CHECK:             arith.cmpi ult, %{{.+}}, %[[C40]]
// CHECK:             scf.if
// CHECK:           } {mapping = [{{.+}}processor = sequential{{.+}}processor = thread_x{{.+}}]}
// CHECK:         } {mapping = [{{.+}}processor = block_y{{.+}}processor = block_x{{.+}}]}

func.func @small_innermost_dim(%a: memref<8x40xf32>, %b: memref<8x40xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c40 = arith.constant 40 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c40) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<8x40xf32>
    memref.store %v, %b[%i, %j] : memref<8x40xf32>
    scf.reduce
  }
  return
}

// -----

// A row block: its rows on the grid, its thread phases left for
// tsc-cuda-join-thread-phases.

// CHECK-LABEL: func.func @row_block_rows_to_grid
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK:           } {tsc.thread_phase}
// CHECK-NOT:       mapping
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.+}}>], tsc.row_blocks}

func.func @row_block_rows_to_grid(%a: memref<4x256xf32>, %out: memref<4xf32>) {
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
