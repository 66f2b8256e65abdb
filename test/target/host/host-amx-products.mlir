// RUN: tsc-opt %s --split-input-file --tsc-host-amx-products | FileCheck %s

// O += P·V as the AMX layout of the attention lowering leaves it (bufferized,
// loops (j, i, e), bf16 operands into f32): V [32, 48] is packed into AMX's
// pair layout [16, 96] (rows k and k + 1 interleaved 16 columns at a time),
// then per 16 rows of P its one A tile (32 keys) is loaded once and each of
// the 3 column tiles of O is loaded, multiplied and stored.
// CHECK-LABEL: func.func @values_by_probabilities
// CHECK-SAME:    (%[[P:.+]]: memref<32x32xbf16>, %[[V:.+]]: memref<32x48xbf16>, %[[O:.+]]: memref<32x48xf32>)
// CHECK:         scf.forall
// CHECK:           %[[PACKED:.+]] = memref.alloca() : memref<16x96xbf16>
// CHECK:           scf.for %[[PAIR:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:             %[[EVEN:.+]] = arith.muli %[[PAIR]], %{{.+}} : index
// CHECK:             %[[ODD:.+]] = arith.addi %[[EVEN]], %{{.+}} : index
// CHECK:             %[[R0:.+]] = vector.load %[[V]][%[[EVEN]], %{{.+}}] : memref<32x48xbf16>, vector<16xbf16>
// CHECK:             %[[R1:.+]] = vector.load %[[V]][%[[ODD]], %{{.+}}] : memref<32x48xbf16>, vector<16xbf16>
// CHECK:             %[[PAIRS:.+]] = vector.shuffle %[[R0]], %[[R1]] [0, 16, 1, 17, 2, 18
// CHECK:             vector.store %[[PAIRS]], %[[PACKED]][%[[PAIR]], %{{.+}}] : memref<16x96xbf16>, vector<32xbf16>
// CHECK-COUNT-2:     vector.store
// CHECK:           scf.for %[[M:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:             %[[A:.+]] = amx.tile_load %[[P]][%[[M]], %{{.+}}] : memref<32x32xbf16> into !amx.tile<16x32xbf16>
// CHECK:             %[[C:.+]] = amx.tile_load %[[O]][%[[M]], %{{.+}}] : memref<32x48xf32> into !amx.tile<16x16xf32>
// CHECK:             %[[B:.+]] = amx.tile_load %[[PACKED]][%{{.+}}, %{{.+}}] : memref<16x96xbf16> into !amx.tile<16x32xbf16>
// CHECK:             %[[R:.+]] = amx.tile_mulf %[[A]], %[[B]], %[[C]]
// CHECK:             amx.tile_store %[[O]][%[[M]], %{{.+}}], %[[R]]
// CHECK-COUNT-2:     amx.tile_mulf
// CHECK-NOT:     linalg.generic
func.func @values_by_probabilities(%p: memref<32x32xbf16>, %v: memref<32x48xbf16>, %o: memref<32x48xf32>) {
  scf.forall (%b) in (2) {
    linalg.generic {indexing_maps = [affine_map<(j, i, e) -> (i, j)>, affine_map<(j, i, e) -> (j, e)>, affine_map<(j, i, e) -> (i, e)>],
                    iterator_types = ["reduction", "parallel", "parallel"]}
        ins(%p, %v : memref<32x32xbf16>, memref<32x48xbf16>) outs(%o : memref<32x48xf32>) {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xw = arith.extf %x : bf16 to f32
      %yw = arith.extf %y : bf16 to f32
      %m = arith.mulf %xw, %yw fastmath<reassoc, contract> : f32
      %r = arith.addf %acc, %m fastmath<reassoc, contract> : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// S = Q·Kᵀ from K as it is (loops (i, j, d)): K's (d, d + 1) pairs are
// 32-bit values transposed in 16 x 16 blocks, a loop over the blocks of
// columns and one over those of the reduction (as shuffles: no
// vector.transpose is left) into [D/2, 2·Bk]; a head dim of 64 is two A
// tiles per 16 rows of Q, each column tile of S two tdpbf16ps.
// CHECK-LABEL: func.func @scores_from_keys
// CHECK-SAME:    (%[[Q:.+]]: memref<16x64xbf16>, %[[K:.+]]: memref<32x64xbf16>, %[[S:.+]]: memref<16x32xf32>)
// The packing buffer sits at the top of the forall's body, not in the loop
// around the product (key blocks), where each trip would grow the stack.
// CHECK:         scf.forall
// CHECK-NEXT:      %[[PACKED:.+]] = memref.alloca() : memref<32x64xbf16>
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:         vector.load %[[K]][%{{.+}}, %{{.+}}] : memref<32x64xbf16>, vector<32xbf16>
// CHECK:         vector.bitcast %{{.+}} : vector<32xbf16> to vector<16xi32>
// CHECK:         vector.shuffle
// CHECK:         vector.store %{{.+}}, %[[PACKED]]
// CHECK-NOT:     vector.transpose
// CHECK:         scf.for
// CHECK-COUNT-2:   amx.tile_load %[[Q]]
// CHECK:           amx.tile_load %[[S]]
// CHECK-COUNT-2:   amx.tile_mulf
// CHECK:           amx.tile_store %[[S]]
// CHECK:           amx.tile_load %[[S]]
// CHECK-COUNT-2:   amx.tile_mulf
// CHECK:           amx.tile_store %[[S]]
// CHECK-NOT:     amx.tile_mulf
func.func @scores_from_keys(%q: memref<16x64xbf16>, %k: memref<32x64xbf16>, %s: memref<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.forall (%b) in (2) {
    scf.for %block = %c0 to %c3 step %c1 {
      linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>],
                      iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%q, %k : memref<16x64xbf16>, memref<32x64xbf16>) outs(%s : memref<16x32xf32>) {
      ^bb0(%x: bf16, %y: bf16, %acc: f32):
        %xw = arith.extf %x : bf16 to f32
        %yw = arith.extf %y : bf16 to f32
        %m = arith.mulf %xw, %yw fastmath<reassoc, contract> : f32
        %r = arith.addf %acc, %m fastmath<reassoc, contract> : f32
        linalg.yield %r : f32
      }
    }
  }
  return
}

// -----

// Left as they are: rows not a multiple of 16, a reduction of 16 (not whole
// tiles of 32 bf16), f32 operands, and a product outside an scf.forall.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT:     amx.
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT:     amx.
func.func @near_misses(%p: memref<24x32xbf16>, %v: memref<32x16xbf16>, %o: memref<24x16xf32>,
                       %p16: memref<16x16xbf16>, %v16: memref<16x16xbf16>, %o16: memref<16x16xf32>,
                       %pf: memref<16x32xf32>, %vf: memref<32x16xf32>, %of: memref<16x16xf32>,
                       %q: memref<16x32xbf16>, %k: memref<32x16xbf16>, %s: memref<16x16xf32>) {
  scf.forall (%b) in (2) {
    linalg.generic {indexing_maps = [affine_map<(j, i, e) -> (i, j)>, affine_map<(j, i, e) -> (j, e)>, affine_map<(j, i, e) -> (i, e)>],
                    iterator_types = ["reduction", "parallel", "parallel"]}
        ins(%p, %v : memref<24x32xbf16>, memref<32x16xbf16>) outs(%o : memref<24x16xf32>) {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xw = arith.extf %x : bf16 to f32
      %yw = arith.extf %y : bf16 to f32
      %m = arith.mulf %xw, %yw : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(j, i, e) -> (i, j)>, affine_map<(j, i, e) -> (j, e)>, affine_map<(j, i, e) -> (i, e)>],
                    iterator_types = ["reduction", "parallel", "parallel"]}
        ins(%p16, %v16 : memref<16x16xbf16>, memref<16x16xbf16>) outs(%o16 : memref<16x16xf32>) {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xw = arith.extf %x : bf16 to f32
      %yw = arith.extf %y : bf16 to f32
      %m = arith.mulf %xw, %yw : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(j, i, e) -> (i, j)>, affine_map<(j, i, e) -> (j, e)>, affine_map<(j, i, e) -> (i, e)>],
                    iterator_types = ["reduction", "parallel", "parallel"]}
        ins(%pf, %vf : memref<16x32xf32>, memref<32x16xf32>) outs(%of : memref<16x16xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    }
  }
  linalg.generic {indexing_maps = [affine_map<(j, i, e) -> (i, j)>, affine_map<(j, i, e) -> (j, e)>, affine_map<(j, i, e) -> (i, e)>],
                  iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%q, %k : memref<16x32xbf16>, memref<32x16xbf16>) outs(%s : memref<16x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xw = arith.extf %x : bf16 to f32
    %yw = arith.extf %y : bf16 to f32
    %m = arith.mulf %xw, %yw : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}
