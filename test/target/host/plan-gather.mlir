// A gather chains into the kernel of the elementwise ops and the norm around
// it (Plan.cpp's isFusible): an embedding lookup by token id plus a position
// table's lookup, summed and normalized, is one kernel with the fuse phase
// and four without; the fused artifact computes what the unfused one does.
// RUN: tsc %s --report | FileCheck %s --check-prefix=REPORT
// RUN: tsc %s --report --no-fuse | FileCheck %s --check-prefix=NOFUSE
// RUN: tsc %s -o %t.fused.tscm
// RUN: tsc %s --no-fuse -o %t.unfused.tscm
// RUN: tsc-run %t.unfused.tscm --dim seq=9 --int-range 0..10 --seed 3 --output-dir %t.unfused
// RUN: tsc-run %t.fused.tscm --dim seq=9 --int-range 0..10 --seed 3 --expected y=%t.unfused/y.npy

// REPORT: plan: 1 steps: 1 kernels, 0 GEMM library calls, 0 copies
// REPORT: tsc_kernel_0_gather_gather_add_layer_norm
// NOFUSE: plan: 4 steps: 4 kernels, 0 GEMM library calls, 0 copies

func.func @embed(%ids: tensor<?xi64> {tsc.name = "ids"}, %pos: tensor<?xi64> {tsc.name = "pos"})
    -> (tensor<?x16xf32> {tsc.name = "y"}) {
  %seq = tsc.symbol "seq" [1, 32]
  tsc.bind_shape %ids[%seq], affine_map<()[s0] -> (s0)> : tensor<?xi64>
  tsc.bind_shape %pos[%seq], affine_map<()[s0] -> (s0)> : tensor<?xi64>
  %words = tsc.constant dense<[[0.0, 0.644, 0.985, 0.863, 0.335, -0.351, -0.872, -0.982, -0.631, 0.017, 0.657, 0.988, 0.855, 0.319, -0.366, -0.88], [0.964, 0.746, -0.158, -0.916, -0.832, 0.017, 0.85, 0.902, 0.124, -0.768, -0.954, -0.263, 0.67, 0.987, 0.397, -0.558], [0.516, -0.688, -0.883, 0.215, 0.999, 0.319, -0.828, -0.762, 0.42, 0.987, 0.108, -0.929, -0.605, 0.606, 0.929, -0.109], [-0.688, -0.706, 0.729, 0.663, -0.768, -0.618, 0.804, 0.571, -0.837, -0.522, 0.868, 0.472, -0.895, -0.419, 0.92, 0.366], [-0.883, 0.729, 0.412, -0.995, 0.232, 0.846, -0.778, -0.342, 1.0, -0.304, -0.803, 0.823, 0.271, -0.998, 0.375, 0.756], [0.215, 0.663, -0.995, 0.509, 0.397, -0.976, 0.752, 0.091, -0.859, 0.92, -0.224, -0.656, 0.996, -0.516, -0.389, 0.974], [0.999, -0.768, 0.232, 0.397, -0.867, 0.993, -0.723, 0.166, 0.457, -0.898, 0.983, -0.676, 0.101, 0.515, -0.925, 0.968], [0.319, -0.618, 0.846, -0.976, 0.993, -0.895, 0.694, -0.413, 0.084, 0.255, -0.564, 0.808, -0.959, 0.999, -0.923, 0.741], [-0.828, 0.804, -0.778, 0.752, -0.723, 0.694, -0.664, 0.632, -0.599, 0.565, -0.531, 0.495, -0.458, 0.421, -0.383, 0.344], [-0.762, 0.571, -0.342, 0.091, 0.166, -0.413, 0.632, -0.809, 0.932, -0.994, 0.989, -0.919, 0.788, -0.604, 0.38, -0.131]]> : tensor<10x16xf32>
  %positions = tsc.constant dense<[[0.0, 0.863, -0.872, 0.017, 0.855, -0.88, 0.034, 0.846, -0.888, 0.05, 0.837, -0.895, 0.067, 0.827, -0.903, 0.084], [0.389, 0.335, -0.883, 0.968, -0.544, -0.166, 0.788, -0.997, 0.682, -0.009, -0.669, 0.995, -0.799, 0.183, 0.529, -0.963], [0.717, -0.351, -0.083, 0.501, -0.823, 0.987, -0.961, 0.752, -0.398, -0.033, 0.457, -0.793, 0.977, -0.974, 0.784, -0.443], [0.932, -0.872, 0.794, -0.7, 0.592, -0.472, 0.343, -0.207, 0.067, 0.074, -0.214, 0.35, -0.479, 0.598, -0.705, 0.798], [1.0, -0.982, 0.941, -0.875, 0.788, -0.681, 0.557, -0.419, 0.271, -0.116, -0.042, 0.2, -0.352, 0.495, -0.626, 0.741], [0.909, -0.631, 0.223, 0.232, -0.638, 0.913, -0.999, 0.879, -0.578, 0.157, 0.296, -0.688, 0.938, -0.994, 0.845, -0.522], [0.675, 0.017, -0.7, 0.999, -0.751, 0.091, 0.619, -0.989, 0.818, -0.198, -0.531, 0.968, -0.875, 0.302, 0.436, -0.936], [0.335, 0.657, -0.979, 0.303, 0.682, -0.972, 0.271, 0.706, -0.963, 0.238, 0.73, -0.954, 0.206, 0.752, -0.943, 0.173], [-0.058, 0.988, -0.358, -0.837, 0.711, 0.537, -0.938, -0.142, 0.998, -0.279, -0.88, 0.65, 0.606, -0.905, -0.225, 1.0], [-0.443, 0.855, 0.592, -0.751, -0.723, 0.624, 0.833, -0.479, -0.917, 0.318, 0.972, -0.148, -0.998, -0.027, 0.993, 0.2]]> : tensor<10x16xf32>
  %g = tsc.constant dense<1.5> : tensor<16xf32>
  %b = tsc.constant dense<0.125> : tensor<16xf32>
  %w = tsc.gather %words[%ids] axis = 0 : (tensor<10x16xf32>, tensor<?xi64>) -> tensor<?x16xf32>
  tsc.bind_shape %w[%seq], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  %p = tsc.gather %positions[%pos] axis = 0 : (tensor<10x16xf32>, tensor<?xi64>) -> tensor<?x16xf32>
  tsc.bind_shape %p[%seq], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  %s = tsc.add %w, %p : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  tsc.bind_shape %s[%seq], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  %y = tsc.layer_norm %s scale %g bias %b axis = 1 epsilon = 1.0e-5 : (tensor<?x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  tsc.bind_shape %y[%seq], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
