// RUN: tsc-opt %s --tsc-prune-magnitude=ratio=0.5 | FileCheck %s --check-prefix=MAG
// RUN: tsc-opt %s --tsc-prune-2-4 | FileCheck %s --check-prefix=TWO
// RUN: tsc-opt %s --tsc-detect-pruned | FileCheck %s --check-prefix=DETECT
// RUN: tsc-opt %s --tsc-prune-2-4 --tsc-detect-pruned | FileCheck %s --check-prefix=FOUND

// Magnitude: the 6 smallest |w| of the 12 weights of both GEMMs together
// (one threshold, as global_unstructured: the linear's two zeros count)
// become zero; shapes stay.
// MAG:         tsc.prune = [{{.*}}kind = "magnitude"{{.*}}zeros = 4 : i64}, {{.*}}kind = "magnitude"{{.*}}zeros = 2 : i64}]
// MAG-LABEL: func.func @two_gemms
// MAG-DAG:     tsc.constant dense<{{\[}}[0.000000e+00, 5.000000e+00], [0.000000e+00, 6.000000e+00], [3.000000e+00, 0.000000e+00], [-4.000000e+00, 0.000000e+00]]> : tensor<4x2xf32>
// MAG-DAG:     tsc.constant dense<{{\[}}[9.000000e+00, -1.000000e+01], [0.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>

// 2:4 along K: the matmul's [K, N] weight in runs of 4 down each column
// (the two largest |w| stay); the linear's [N, K] weight has K = 2, not a
// multiple of 4, and stays dense.
// TWO:         tsc.prune = [{{.*}}kind = "2:4"{{.*}}status = "pruned"{{.*}}zeros = 4 : i64}, {{.*}}kind = "2:4"{{.*}}status = "refused"
// TWO-LABEL: func.func @two_gemms
// TWO:         tsc.constant dense<{{\[}}[0.000000e+00, 5.000000e+00], [0.000000e+00, 6.000000e+00], [3.000000e+00, 0.000000e+00], [-4.000000e+00, 0.000000e+00]]> : tensor<4x2xf32>

// Detection: the linear's weight arrives with a zero output channel; after
// 2:4 pruning the matmul's weight is found to have the pattern.
// DETECT:      tsc.prune = [{count = 4 : i64, kind = "detected"{{.*}}summary = ": 2 of 4 weights zero, 1 output and 0 input channels all zero"{{.*}}two_four = false, zero_input_channels = 0 : i64, zero_output_channels = 1 : i64, zeros = 2 : i64}]
// FOUND:       kind = "detected"{{.*}}summary = ": 4 of 8 weights zero, 0 output and 0 input channels all zero, 2:4 pattern along K"{{.*}}two_four = true
func.func @two_gemms(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = tsc.constant dense<[[1.0, 5.0], [-2.0, 6.0], [3.0, 0.5], [-4.0, 0.25]]> : tensor<4x2xf32>
  %y = tsc.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %wl = tsc.constant dense<[[9.0, -10.0], [0.0, 0.0]]> : tensor<2x2xf32>
  %z = tsc.linear %y, %wl : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y, %z : tensor<3x2xf32>, tensor<3x2xf32>
}
