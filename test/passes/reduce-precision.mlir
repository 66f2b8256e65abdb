// RUN: tsc-opt %s --split-input-file --tsc-reduce-precision --canonicalize --cse | FileCheck %s
// RUN: tsc-opt %s --split-input-file --tsc-reduce-precision=type=bf16 --canonicalize --cse | FileCheck %s --check-prefix=BF16
// RUN: not tsc-opt %s --split-input-file --tsc-reduce-precision=type=f8 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: tsc-opt %s --split-input-file --tsc-reduce-precision=convert-io=true --canonicalize --cse | FileCheck %s --check-prefix=IO

// A chain of ops that compute on half storage: one cast in, one cast out,
// none between (the casts back and forth fold away). Constants are converted
// at compile time, other values by casts at run time; finite values past the
// half range saturate either way (a mask's -3.4e38 must not become -inf, or
// 0 * mask is NaN).
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.+]]: tensor<?x8xf32>, %[[W:.+]]: tensor<8x2xf32>)
// CHECK-DAG:     %[[MIN:.+]] = tsc.constant dense<-6.550400e+04> : tensor<f16>
// CHECK-DAG:     %[[B:.+]] = tsc.constant dense<[1.000000e+00, 6.550400e+04]> : tensor<2xf16>
// CHECK:         %[[XH:.+]] = tsc.cast %[[X]] saturate : tensor<?x8xf32> to tensor<?x8xf16>
// CHECK:         %[[Y:.+]] = tsc.add %[[XH]], %[[MIN]] : (tensor<?x8xf16>, tensor<f16>) -> tensor<?x8xf16>
// CHECK:         %[[G:.+]] = tsc.gelu %[[Y]] : tensor<?x8xf16>
// CHECK:         %[[WH:.+]] = tsc.cast %[[W]] saturate : tensor<8x2xf32> to tensor<8x2xf16>
// CHECK:         %[[M:.+]] = tsc.matmul %[[G]], %[[WH]] : (tensor<?x8xf16>, tensor<8x2xf16>) -> tensor<?x2xf16>
// CHECK:         %[[S:.+]] = tsc.add %[[M]], %[[B]] : (tensor<?x2xf16>, tensor<2xf16>) -> tensor<?x2xf16>
// CHECK:         %[[OUT:.+]] = tsc.cast %[[S]] : tensor<?x2xf16> to tensor<?x2xf32>
// CHECK:         return %[[OUT]]
// BF16-LABEL: func.func @chain
// BF16-DAG:     tsc.constant dense<-3.389530e+38> : tensor<bf16>
// BF16:         tsc.gelu %{{.+}} : tensor<?x8xbf16>
// BF16:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<?x8xbf16>, tensor<8x2xbf16>) -> tensor<?x2xbf16>
// BAD: tsc-reduce-precision: type 'f8', expected f16 or bf16
// With convert-io the signature is half too and no cast is left at the
// edges (the weight argument is half as well).
// IO-LABEL: func.func @chain
// IO-SAME:    (%[[X:.+]]: tensor<?x8xf16>, %[[W:.+]]: tensor<8x2xf16>) -> tensor<?x2xf16>
// IO-NOT:     tsc.cast
// IO:         %[[Y:.+]] = tsc.add %[[X]], %{{.+}} : (tensor<?x8xf16>, tensor<f16>) -> tensor<?x8xf16>
// IO:         %[[M:.+]] = tsc.matmul %{{.+}}, %[[W]]
// IO:         %[[S:.+]] = tsc.add %[[M]]
// IO-NOT:     tsc.cast
// IO:         return %[[S]] : tensor<?x2xf16>
func.func @chain(%x: tensor<?x8xf32>, %w: tensor<8x2xf32>) -> tensor<?x2xf32> {
  %min = tsc.constant dense<-3.40282347e+38> : tensor<f32>
  %b = tsc.constant dense<[1.0, 1.0e5]> : tensor<2xf32>
  %y = tsc.add %x, %min : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32>
  %g = tsc.gelu %y : tensor<?x8xf32>
  %m = tsc.matmul %g, %w : (tensor<?x8xf32>, tensor<8x2xf32>) -> tensor<?x2xf32>
  %s = tsc.add %m, %b : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %s : tensor<?x2xf32>
}

// -----

// exp, log, pow and reduce_sum keep f32 (their results may leave the half
// range), and so does a float-to-integer cast's input (integers past 2048).
// CHECK-LABEL: func.func @kept
// CHECK:         %[[N:.+]] = tsc.neg %{{.+}} : tensor<16xf16>
// CHECK:         %[[NW:.+]] = tsc.cast %[[N]] : tensor<16xf16> to tensor<16xf32>
// CHECK:         %[[E:.+]] = tsc.exp %[[NW]] : tensor<16xf32>
// CHECK:         %[[R:.+]] = tsc.reduce_sum %[[E]] {{.*}}-> tensor<f32>
// CHECK:         %[[I:.+]] = tsc.cast %[[NW]] : tensor<16xf32> to tensor<16xi64>
// CHECK:         return %[[R]], %[[I]]
func.func @kept(%x: tensor<16xf32>) -> (tensor<f32>, tensor<16xi64>) {
  %n = tsc.neg %x : tensor<16xf32>
  %e = tsc.exp %n : tensor<16xf32>
  %r = tsc.reduce_sum %e dims = [0] : (tensor<16xf32>) -> tensor<f32>
  %i = tsc.cast %n : tensor<16xf32> to tensor<16xi64>
  return %r, %i : tensor<f32>, tensor<16xi64>
}

// -----

// A value the model computes in half, converted back and forth by the pass,
// is the half value itself: f16 -> f32 -> f16 folds, f32 -> f16 -> f32 does
// not (it rounds).
// CHECK-LABEL: func.func @round_trips
// CHECK-SAME:    (%[[H:.+]]: tensor<4xf16>, %[[F:.+]]: tensor<4xf32>)
// CHECK:         %[[FH:.+]] = tsc.cast %[[F]] saturate : tensor<4xf32> to tensor<4xf16>
// CHECK:         %[[FW:.+]] = tsc.cast %[[FH]] : tensor<4xf16> to tensor<4xf32>
// CHECK:         return %[[H]], %[[FW]]
func.func @round_trips(%h: tensor<4xf16>, %f: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf32>) {
  %w = tsc.cast %h : tensor<4xf16> to tensor<4xf32>
  %n = tsc.cast %w : tensor<4xf32> to tensor<4xf16>
  %fh = tsc.cast %f : tensor<4xf32> to tensor<4xf16>
  %fw = tsc.cast %fh : tensor<4xf16> to tensor<4xf32>
  return %n, %fw : tensor<4xf16>, tensor<4xf32>
}

// -----

// Positions stay f32: a rotary angle computed from integers (an angle of 2000
// has a spacing of 1 in f16) and its cos, until data meets it; then the cos
// is rounded to half (saturating) for the product with the half activations.
// CHECK-LABEL: func.func @positions
// CHECK:         %[[P:.+]] = tsc.cast %{{.+}} : tensor<64xi64> to tensor<64xf32>
// CHECK:         %[[A:.+]] = tsc.mul %[[P]], %{{.+}} : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
// CHECK:         %[[C:.+]] = tsc.cos %[[A]] : tensor<64xf32>
// CHECK:         %[[CH:.+]] = tsc.cast %[[C]] saturate : tensor<64xf32> to tensor<64xf16>
// CHECK:         tsc.mul %{{.+}}, %[[CH]] : (tensor<4x64xf16>, tensor<64xf16>) -> tensor<4x64xf16>
func.func @positions(%x: tensor<4x64xf32>, %ids: tensor<64xi64>) -> tensor<4x64xf32> {
  %f = tsc.constant dense<0.5> : tensor<f32>
  %p = tsc.cast %ids : tensor<64xi64> to tensor<64xf32>
  %a = tsc.mul %p, %f : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  %c = tsc.cos %a : tensor<64xf32>
  %g = tsc.gelu %x : tensor<4x64xf32>
  %y = tsc.mul %g, %c : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// What reads a value kept f32 for its range stays f32 (autocast's promotion):
// a sum of exponentials and the division by it; data movement takes its
// operand's precision (the reshape of the f32 argument is not rounded). A
// matmul computes on half whatever its operands.
// CHECK-LABEL: func.func @promotion
// CHECK:         %[[E:.+]] = tsc.exp %{{.+}} : tensor<4x8xf32>
// CHECK:         %[[S:.+]] = tsc.reduce_sum %[[E]] {{.*}}-> tensor<4x1xf32>
// CHECK:         %[[D:.+]] = tsc.div %[[E]], %[[S]] : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// CHECK:         %[[R:.+]] = tsc.reshape %{{.+}} : tensor<4x8xf32> -> tensor<32xf32>
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
// CHECK:         return %[[D]], %[[R]], %{{.+}} : tensor<4x8xf32>, tensor<32xf32>, tensor<4x8xf32>
func.func @promotion(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<32xf32>, tensor<4x8xf32>) {
  %e = tsc.exp %x : tensor<4x8xf32>
  %s = tsc.reduce_sum %e dims = [1] keepdim : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = tsc.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %r = tsc.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %m = tsc.matmul %d, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %d, %r, %m : tensor<4x8xf32>, tensor<32xf32>, tensor<4x8xf32>
}
