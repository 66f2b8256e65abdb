// RUN: tsc-opt %s --split-input-file --verify-diagnostics --tsc-prune-ffn=ratio=1.0
// RUN: tsc-opt %s --split-input-file --verify-diagnostics --tsc-prune-heads=ratio=-0.5

// A ratio of 1 would remove every neuron, a negative one none: both refused.
// expected-error @below {{pruning ratio}}
module {
  func.func @any(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
