// RUN: tsc-opt %s --split-input-file --tsc-infer-symbol-ranges --verify-diagnostics

// A range set on the command line is checked, not tightened; one error per
// symbol.
func.func @command_line_range_too_large(%table: tensor<64x32xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %seq = tsc.symbol "seq" [1, 100] command_line
  // expected-error @+1 {{the range [1, 100] of 'seq' set on the command line exceeds 64, the most this op can index}}
  %a = tsc.slice %table[0, 0] [%seq, 32] [1, 1] : tensor<64x32xf32> to tensor<?x32xf32>
  %b = tsc.slice %table[0, 0] [%seq, 32] [1, 1] : tensor<64x32xf32> to tensor<?x32xf32>
  return %a, %b : tensor<?x32xf32>, tensor<?x32xf32>
}
