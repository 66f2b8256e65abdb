// RUN: tsc-opt %s --split-input-file --tsc-host-register-block | FileCheck %s
// RUN: tsc-opt %s --split-input-file --tsc-host-register-block=cpu=x86-64-v3 | FileCheck %s --check-prefix=AVX2

// Attention's S = Q·Kᵀ as the host codegen sees it (bufferized, loops
// (i, d, j)): 13 rows are one tile of 8 rows then 5 single rows; 19 keys fit
// one block of columns (two AVX-512 registers hold 32). The accumulators
// are loaded once, live in the reduction loop's iter_args, stored once.

// CHECK-LABEL: func.func @scores_register_blocked
// CHECK-SAME:    (%[[Q:.+]]: memref<13x40xf32>, %[[KT:.+]]: memref<40x19xf32>, %[[S:.+]]: memref<13x19xf32>)
// CHECK:         scf.forall
// CHECK:           scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %[[EIGHT:.+]] {
// CHECK-COUNT-8:     vector.load %[[S]][%{{.+}}, %{{.+}}] : memref<13x19xf32>, vector<19xf32>
// CHECK:             %[[ACC:.+]]:8 = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK:               %[[ROW:.+]] = vector.load %[[KT]][%[[K]], %{{.+}}] : memref<40x19xf32>, vector<19xf32>
// CHECK:               %[[A:.+]] = memref.load %[[Q]][%[[I]], %[[K]]]
// CHECK:               %[[SPLAT:.+]] = vector.broadcast %[[A]] : f32 to vector<19xf32>
// CHECK:               vector.fma %[[SPLAT]], %[[ROW]], %{{.+}} : vector<19xf32>
// CHECK-COUNT-7:       vector.fma
// CHECK:               scf.yield
// CHECK-COUNT-8:     vector.store %{{.+}}, %[[S]]
// The remaining 5 rows one at a time.
// CHECK:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:             vector.load %[[S]]
// CHECK:             scf.for {{.+}} iter_args({{[^,]+}}) -> (vector<19xf32>)
// CHECK:               vector.fma
// CHECK:           vector.store
// CHECK-NOT:       linalg.generic
// AVX2-LABEL: func.func @scores_register_blocked
// AVX2:         scf.for {{.+}} iter_args({{.+}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// AVX2:         scf.for {{.+}} iter_args({{.+}}) -> (vector<3xf32>, vector<3xf32>, vector<3xf32>, vector<3xf32>)
func.func @scores_register_blocked(%q: memref<13x40xf32>, %kt: memref<40x19xf32>, %s: memref<13x19xf32>) {
  scf.forall (%b) in (2) {
    linalg.generic {indexing_maps = [affine_map<(i, d, j) -> (i, d)>, affine_map<(i, d, j) -> (d, j)>, affine_map<(i, d, j) -> (i, j)>],
                    iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%q, %kt : memref<13x40xf32>, memref<40x19xf32>) outs(%s : memref<13x19xf32>) {
    ^bb0(%a: f32, %k: f32, %acc: f32):
      %m = arith.mulf %a, %k fastmath<reassoc, contract> : f32
      %r = arith.addf %acc, %m fastmath<reassoc, contract> : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// O += P·V with bf16 tiles (loops (j, i, e)): P is read one element at a
// time, V a row of 32 and then of 8 values, both widened to f32.

// CHECK-LABEL: func.func @bf16_values_widened
// CHECK-SAME:    (%[[P:.+]]: memref<8x16xbf16>, %[[V:.+]]: memref<16x40xbf16>, %[[O:.+]]: memref<8x40xf32>)
// CHECK:         scf.for
// CHECK:           scf.for %[[J:.+]] = {{.+}} iter_args({{.+}}) -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>)
// CHECK:             %[[ROW:.+]] = vector.load %[[V]][%[[J]], %{{.+}}] : memref<16x40xbf16>, vector<32xbf16>
// CHECK:             %[[WIDE:.+]] = arith.extf %[[ROW]] : vector<32xbf16> to vector<32xf32>
// CHECK:             %[[X:.+]] = memref.load %[[P]][%{{.+}}, %[[J]]] : memref<8x16xbf16>
// CHECK:             arith.extf %[[X]] : bf16 to f32
// CHECK:             vector.fma %{{.+}}, %[[WIDE]], %{{.+}} : vector<32xf32>
// CHECK:           scf.for {{.+}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-NOT:     linalg.generic
func.func @bf16_values_widened(%p: memref<8x16xbf16>, %v: memref<16x40xbf16>, %o: memref<8x40xf32>) {
  scf.forall (%b) in (2) {
    linalg.generic {indexing_maps = [affine_map<(j, i, e) -> (i, j)>, affine_map<(j, i, e) -> (j, e)>, affine_map<(j, i, e) -> (i, e)>],
                    iterator_types = ["reduction", "parallel", "parallel"]}
        ins(%p, %v : memref<8x16xbf16>, memref<16x40xbf16>) outs(%o : memref<8x40xf32>) {
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

// Left as they are: a product outside an scf.forall (the OpenMP tiling
// handles those), one with a dynamic size, and one whose columns are
// strided in the right operand.

// CHECK-LABEL: func.func @not_rewritten
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     vector.fma
func.func @not_rewritten(%a: memref<8x16xf32>, %b: memref<16x32xf32>, %c: memref<8x32xf32>,
                         %d: memref<?x16xf32>, %e: memref<?x32xf32>, %bt: memref<32x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k)>, affine_map<(i, k, j) -> (k, j)>, affine_map<(i, k, j) -> (i, j)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<8x16xf32>, memref<16x32xf32>) outs(%c : memref<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  scf.forall (%t) in (2) {
    linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k)>, affine_map<(i, k, j) -> (k, j)>, affine_map<(i, k, j) -> (i, j)>],
                    iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%d, %b : memref<?x16xf32>, memref<16x32xf32>) outs(%e : memref<?x32xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k)>, affine_map<(i, k, j) -> (j, k)>, affine_map<(i, k, j) -> (i, j)>],
                    iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%a, %bt : memref<8x16xf32>, memref<32x16xf32>) outs(%c : memref<8x32xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    }
  }
  return
}
