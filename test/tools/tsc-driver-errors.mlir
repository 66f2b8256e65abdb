// The tsc driver rejects bad input and options with a message naming the
// file, option or symbol at fault, and exit status 1.
// RUN: not tsc %s --emit=graph --dim heads=1..8 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tsc %s --emit=graph --dim seq=9..3 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not tsc %s --emit=graph --dim seq 2>&1 | FileCheck %s --check-prefix=RANGE-SYNTAX
// RUN: not tsc %t.missing.mlir --emit=graph 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tsc %S/Inputs/model.caffemodel --emit=import 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tsc %s --emit=import --input x=f32[4] 2>&1 | FileCheck %s --check-prefix=INPUT-NOT-TORCH
// RUN: not tsc %S/Inputs/syntax-error.mlir --emit=import 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not tsc %S/Inputs/unbound-dim.mlir --emit=graph 2>&1 | FileCheck %s --check-prefix=UNBOUND
// RUN: tsc %S/Inputs/unbound-dim.mlir --emit=import | FileCheck %s --check-prefix=IMPORT-OK
// RUN: not tsc %s 2>&1 | FileCheck %s --check-prefix=NO-EMIT
// RUN: not tsc %s --report --precision-io=storage 2>&1 | FileCheck %s --check-prefix=IO-FP32
// RUN: not tsc %s --report --precision=fp16 --precision-io=half 2>&1 | FileCheck %s --check-prefix=IO-VALUE
// RUN: tsc --version | FileCheck %s --check-prefix=VERSION
// RUN: tsc-opt --help | FileCheck %s --check-prefix=PASSES

// UNKNOWN: tsc: error: --dim heads=1..8: the model has no symbolic dim named 'heads' (it has: batch seq)
// RANGE: tsc: error: --dim seq=9..3: expected NAME=MIN..MAX with 0 <= MIN <= MAX
// RANGE-SYNTAX: tsc: error: --dim seq: expected NAME=MIN..MAX
// MISSING: tsc: error: cannot open input file '{{.*}}missing.mlir'
// FORMAT: tsc: error: {{.*}}model.caffemodel: unsupported input format '.caffemodel' (tsc reads .onnx, .onnxtxt, .pt2, .pt, .pth and .mlir)
// INPUT-NOT-TORCH: tsc: error: --input applies to TorchScript archives (.pt); {{.*}}tsc-driver-errors.mlir records its input shapes itself
// SYNTAX: syntax-error.mlir:4:{{[0-9]+}}: error:
// UNBOUND: unbound-dim.mlir:2:{{[0-9]+}}: error: argument #0 ('tensor<?x4xf32>') has dynamic dims but no tsc.bind_shape
// IMPORT-OK: func.func @unbound
// NO-EMIT: tsc: error: give -o FILE.tscm to write an artifact, --emit=PHASE to print IR, or --report
// IO-FP32: tsc: error: --precision-io=storage: needs --precision=fp16 or bf16
// IO-VALUE: tsc: error: --precision-io=half: expected model or storage
// VERSION: tsc {{[0-9]+\.[0-9]+\.[0-9]+}} (LLVM/MLIR 22.{{[0-9.]+}})
// PASSES-DAG: --tsc-bind-symbolic-shapes
// PASSES-DAG: --tsc-convert-onnx-to-tsc
// PASSES-DAG: --tsc-convert-torch-to-tsc
// PASSES-DAG: --tsc-infer-symbol-ranges
// PASSES-DAG: --tsc-fuse-norms
// PASSES-DAG: --tsc-fuse-activations
// PASSES-DAG: --tsc-fuse-attention
// PASSES-DAG: --tsc-merge-gemms
// PASSES-DAG: --tsc-reduce-precision
// PASSES-DAG: --tsc-pipeline

func.func @two_symbols(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %batch = tsc.symbol "batch" [1, 8]
  %seq = tsc.symbol "seq" [1, 16]
  tsc.bind_shape %x[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}
