// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg --verify-diagnostics

// Declarations stay for the plan; a compute op with no host lowering (here a
// source op never converted to tsc) fails the pass, naming the op.
func.func @unconverted_foreign_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %n = tsc.symbol "n" [1, 4]
  // expected-error @+1 {{no host lowering for 'tsc.foreign'}}
  %y = tsc.foreign "onnx" "Celu" version 12 (%x) {} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
