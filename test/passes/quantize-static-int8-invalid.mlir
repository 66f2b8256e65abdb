// RUN: tsc-opt %s --split-input-file --tsc-quantize-static-int8="input-ranges=1.0,-2.0" --verify-diagnostics

// A negative range is refused, naming the GEMM.
func.func @negative_range(%x: tensor<?x16xf32>) -> tensor<?x2xf32> {
  %w0 = tsc.constant dense<0.5> : tensor<16x16xf32>
  %w1 = tsc.constant dense<0.25> : tensor<2x16xf32>
  %h = tsc.linear %x, %w0 : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  // expected-error @+1 {{input range -2.000000e+00 is not a finite number >= 0}}
  %y = tsc.linear %h, %w1 : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// Ranges for another graph (two ranges, one GEMM) are refused rather than
// applied to the wrong GEMMs.
// expected-error @+1 {{input-ranges has 2 entries, the function has 1 GEMM ops}}
func.func @count_mismatch(%x: tensor<?x16xf32>) -> tensor<?x2xf32> {
  %w = tsc.constant dense<0.25> : tensor<2x16xf32>
  %y = tsc.linear %x, %w : (tensor<?x16xf32>, tensor<2x16xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
