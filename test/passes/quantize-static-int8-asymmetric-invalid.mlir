// RUN: tsc-opt %s --split-input-file --tsc-quantize-static-int8="input-ranges=1.0,2.0 input-minima=-1.0,3.0" --verify-diagnostics
// RUN: not tsc-opt %s --tsc-quantize-static-int8="input-ranges=1.0,2.0 input-minima=-1.0" 2>&1 | FileCheck %s --check-prefix=COUNT

// A minimum above its maximum is refused, naming the GEMM.
func.func @minimum_above_maximum(%x: tensor<?x16xf32>) -> tensor<?x2xf32> {
  %w0 = tsc.constant dense<0.5> : tensor<16x16xf32>
  %w1 = tsc.constant dense<0.25> : tensor<2x16xf32>
  %h = tsc.linear %x, %w0 : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  // expected-error @+1 {{input minimum 3.000000e+00 is not a finite number <= the maximum 2.000000e+00}}
  %y = tsc.linear %h, %w1 : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// Minima for another graph (one minimum, two GEMMs) are refused rather
// than applied to the wrong GEMMs.
// COUNT: error: tsc-quantize-static-int8: input-minima has 1 entries, the function has 2 GEMM ops: one minimum each expected (or none)
