// `tsc --prune=ffn=R --calibration DIR`: the FFN's neurons are ranked by the
// down GEMM's input norms measured on the samples, not by the weights; the
// report and the records say which importance ranked; --max-error measures
// on the same samples; bad calibration folders and --calibration without a
// structured spec are refused naming the folder, file or input.
// RUN: rm -rf %t && mkdir -p %t/calib/0 %t/calib/1 %t/empty %t/extra/0 %t/missing/0 %t/dtype/0 %t/shape/0
// RUN: %python -c "import numpy as np; np.save('%t/calib/0/input0.npy', np.array([[10, 0.1], [5, 0.2], [8, 0.1]], np.float32)); np.save('%t/calib/1/input0.npy', np.array([[7, 0.3], [9, 0.1], [6, 0.2]], np.float32))"
// RUN: cp %t/calib/0/input0.npy %t/extra/0/ && cp %t/calib/0/input0.npy %t/extra/0/mask.npy && cp %t/calib/0/input0.npy %t/missing/0/other.npy
// RUN: %python -c "import numpy as np; np.save('%t/dtype/0/input0.npy', np.ones((3, 2))); np.save('%t/shape/0/input0.npy', np.ones((2, 2), np.float32))"
// RUN: tsc %s --prune=ffn=0.5 --calibration %t/calib --emit=prune | FileCheck %s
// RUN: tsc %s --prune=ffn=0.5 --emit=prune | FileCheck %s --check-prefix=WEIGHTS
// RUN: tsc %s --prune=ffn=0.5 --calibration %t/calib --report | FileCheck %s --check-prefix=REPORT
// RUN: tsc %s --prune=ffn=0.5 --calibration %t/calib --max-error=1 -o %t/budget.tscm | FileCheck %s --check-prefix=BUDGET
// RUN: not tsc %s --prune=ffn=0.5 --calibration %t/nosuch --emit=prune 2>&1 | FileCheck %s --check-prefix=NOSUCH
// RUN: not tsc %s --prune=ffn=0.5 --calibration %t/empty --emit=prune 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tsc %s --prune=ffn=0.5 --calibration %t/extra --emit=prune 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not tsc %s --prune=ffn=0.5 --calibration %t/missing --emit=prune 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tsc %s --prune=ffn=0.5 --calibration %t/dtype --emit=prune 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not tsc %s --prune=ffn=0.5 --calibration %t/shape --emit=prune 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not tsc %s --prune=2:4 --calibration %t/calib --emit=prune 2>&1 | FileCheck %s --check-prefix=SPEC
// RUN: not tsc %s --prune=ffn=0.5 --calibration %t/calib --calibration-method=entropy --emit=prune 2>&1 | FileCheck %s --check-prefix=METHOD

// Neurons 0 and 2 read x[:, 0] (about 10 on the samples), 1 and 3 read
// x[:, 1] (about 0.2); the down rows' norms are √2, √2, 2√2, 2√2. By the
// weights neurons 0 and 1 go; by ‖X_j‖·‖W_down[j, :]‖ neurons 1 and 3.
// CHECK:         tsc.prune = [{{.*}}importance = "activations"{{.*}}kind = "ffn"{{.*}}removed = array<i64: 1, 3>
// CHECK-NOT:     tsc.input_norms
// CHECK-LABEL:   func.func @ffn
// CHECK:         tsc.matmul %{{.+}}, %{{.+}} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
// WEIGHTS:       tsc.prune = [{{.*}}importance = "weights"{{.*}}kind = "ffn"{{.*}}removed = array<i64: 0, 1>
// REPORT:        ffn 0: removed 2 of 4 neurons by activation importance (calibration), parameters 16 -> 8
// BUDGET:        error budget 1.0e+00 ({{.*}}on the 2 calibration samples of {{.*}}calib):
// BUDGET:        chosen: --prune=ffn=0.5 (16/16 of the asked ratios)
// NOSUCH:        tsc: error: --calibration {{.*}}nosuch: cannot read {{.*}}nosuch: No such file or directory
// EMPTY:         tsc: error: --calibration {{.*}}empty: {{.*}}empty holds no samples
// EXTRA:         tsc: error: --calibration {{.*}}extra: {{.*}}extra/0/mask.npy is not an input of the model
// MISSING:       tsc: error: --calibration {{.*}}missing: {{.*}}missing/0/other.npy is not an input of the model
// DTYPE:         tsc: error: --calibration {{.*}}dtype: {{.*}}dtype/0/input0.npy holds f64, input 'input0' is f32
// SHAPE:         tsc: error: --calibration {{.*}}shape: {{.*}}shape/0: input 'input0' dim 0 is 2, expected 3
// SPEC: tsc: error: --calibration goes with --quantize (static ranges, bias correction) or --prune=heads=R / ffn=R
// METHOD:        tsc: error: --calibration-method goes with --quantize=static-int8
func.func @ffn(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wu = tsc.constant dense<[[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]> : tensor<2x4xf32>
  %wd = tsc.constant dense<[[1.0, 1.0], [1.0, 1.0], [2.0, 2.0], [2.0, 2.0]]> : tensor<4x2xf32>
  %u = tsc.matmul %x, %wu : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %g = tsc.relu %u : tensor<3x4xf32>
  %d = tsc.matmul %g, %wd : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %d : tensor<3x2xf32>
}
