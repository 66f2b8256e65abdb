// RUN: tsc-opt %s --split-input-file --tsc-host-bf16-dot-products | FileCheck %s

// O += P·V as the pair layout of the attention lowering leaves it
// (bufferized, loops (j, i, e), bf16 operands into f32): V [32, 48] is packed
// into (k, k + 1) pairs [16, 96] as for AMX (rows k and k + 1 interleaved 16
// columns at a time); then per 8 rows of P and per 32 columns of O (the last
// block 16) the accumulators are loaded once, and per pair of keys each row's
// (P[i, k], P[i, k + 1]) is broadcast as one 32-bit value and multiplied into
// its accumulators by vdpbf16ps (x86vector.avx512.dot), 16 of them per step
// for the block of 32 columns.
// CHECK-LABEL: func.func @values_by_probabilities
// CHECK-SAME:    (%[[P:.+]]: memref<32x32xbf16>, %[[V:.+]]: memref<32x48xbf16>, %[[O:.+]]: memref<32x48xf32>)
// CHECK:         scf.forall
// CHECK:           %[[PACKED:.+]] = memref.alloca() : memref<16x96xbf16>
// CHECK:           scf.for %[[PAIR:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:             %[[EVEN:.+]] = arith.muli %[[PAIR]], %{{.+}} : index
// CHECK:             %[[ODD:.+]] = arith.addi %[[EVEN]], %{{.+}} : index
// CHECK:             %[[R0:.+]] = vector.load %[[V]][%[[EVEN]], %{{.+}}] : memref<32x48xbf16>, vector<16xbf16>
// CHECK:             %[[R1:.+]] = vector.load %[[V]][%[[ODD]], %{{.+}}] : memref<32x48xbf16>, vector<16xbf16>
// CHECK:             vector.shuffle %[[R0]], %[[R1]] [0, 16, 1, 17, 2, 18
// CHECK:           scf.for %[[M:.+]] = %c0 to %c32 step %c8 {
// CHECK-COUNT-16:    vector.load %[[O]]{{.+}} : memref<32x48xf32>, vector<16xf32>
// CHECK:             %[[SUMS:.+]]:16 = scf.for %[[K2:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(
// CHECK:               %[[B0:.+]] = vector.load %[[PACKED]][%[[K2]], %{{.+}}] : memref<16x96xbf16>, vector<32xbf16>
// CHECK:               %[[B1:.+]] = vector.load %[[PACKED]][%[[K2]], %{{.+}}] : memref<16x96xbf16>, vector<32xbf16>
// CHECK:               %[[K:.+]] = arith.muli %[[K2]], %{{.+}} : index
// CHECK:               %[[TWO:.+]] = vector.load %[[P]][%[[M]], %[[K]]] : memref<32x32xbf16>, vector<2xbf16>
// CHECK:               %[[WORD:.+]] = vector.bitcast %[[TWO]] : vector<2xbf16> to vector<1xi32>
// CHECK:               %[[SCALAR:.+]] = vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// CHECK:               %[[SPLAT:.+]] = vector.broadcast %[[SCALAR]] : i32 to vector<16xi32>
// CHECK:               %[[A:.+]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK:               x86vector.avx512.dot %{{.+}}, %[[A]], %[[B0]] : vector<32xbf16> -> vector<16xf32>
// CHECK:               x86vector.avx512.dot %{{.+}}, %[[A]], %[[B1]] : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-14:      x86vector.avx512.dot
// CHECK:               scf.yield
// CHECK-COUNT-16:    vector.store %[[SUMS]]#{{[0-9]+}}, %[[O]]
// The last 16 columns: one accumulator per row.
// CHECK:             %[[LAST:.+]]:8 = scf.for
// CHECK-COUNT-8:       x86vector.avx512.dot
// CHECK:               scf.yield
// CHECK-COUNT-8:     vector.store %[[LAST]]#{{[0-9]+}}, %[[O]]
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     amx.
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

// S = Q·Kᵀ from K as it is (loops (i, j, d)): K's (d, d + 1) pairs
// transposed into [D/2, 2·Bk] as for AMX, then per 8 rows of Q the 32
// columns of S in one block of two accumulators per row, over 32 pairs of
// the head dim.
// CHECK-LABEL: func.func @scores_from_keys
// CHECK-SAME:    (%[[Q:.+]]: memref<16x64xbf16>, %[[K:.+]]: memref<32x64xbf16>, %[[S:.+]]: memref<16x32xf32>)
// CHECK:         scf.forall
// CHECK-NEXT:      %[[PACKED:.+]] = memref.alloca() : memref<32x64xbf16>
// CHECK:         vector.load %[[K]][%{{.+}}, %{{.+}}] : memref<32x64xbf16>, vector<32xbf16>
// CHECK:         vector.shuffle
// CHECK:         vector.store %{{.+}}, %[[PACKED]]
// CHECK-NOT:     vector.transpose
// CHECK:         scf.for %{{.+}} = %c0 to %c16 step %c8
// CHECK:         scf.for %{{.+}} = %c0 to %c32 step %c1
// CHECK-COUNT-2:   vector.load %[[PACKED]]
// CHECK-COUNT-16:  x86vector.avx512.dot
// CHECK:           scf.yield
// CHECK-COUNT-16:  vector.store %{{.+}}, %[[S]]
// CHECK-NOT:     x86vector.avx512.dot
func.func @scores_from_keys(%q: memref<16x64xbf16>, %k: memref<32x64xbf16>, %s: memref<16x32xf32>) {
  scf.forall (%b) in (2) {
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
  return
}

// -----

// Left as they are (the products the pair layout cannot take, as for AMX):
// rows not a multiple of 16, a reduction of 16, f32 operands, and a product
// outside an scf.forall.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT:     x86vector.
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT:     x86vector.
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
