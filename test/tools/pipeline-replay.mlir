// tsc-opt --tsc-pipeline replays what tsc runs through the fuse and
// precision phases, option for option: tsc builds its passes with
// buildTscPipeline alone. The model is report.mlir's gated-MLP block.
// RUN: tsc %S/../target/host/report.mlir --emit=fuse --print-weights -o %t.tsc.mlir
// RUN: tsc-opt %S/../target/host/report.mlir --tsc-pipeline=until=fuse | diff %t.tsc.mlir -
// RUN: tsc %S/../target/host/report.mlir --emit=fuse --precision=fp16 --precision-io=storage --target=cuda:sm_90 --print-weights -o %t.cuda.mlir
// RUN: tsc-opt %S/../target/host/report.mlir --tsc-pipeline="until=fuse precision=fp16 precision-io=storage erf-gelu-epilogue=false" | diff %t.cuda.mlir -
// RUN: tsc %S/../target/host/report.mlir --emit=fuse --no-fuse --precision=bf16 --print-weights -o %t.nofuse.mlir
// RUN: tsc-opt %S/../target/host/report.mlir --tsc-pipeline="until=fuse fuse=false precision=bf16" | diff %t.nofuse.mlir -
// The options change the IR, so the diffs above compare different things.
// RUN: not diff -q %t.tsc.mlir %t.cuda.mlir
// RUN: not diff -q %t.tsc.mlir %t.nofuse.mlir
// RUN: FileCheck %s --input-file=%t.cuda.mlir
// CHECK: f16

// The report plans once per configuration it shows: fused fp16, unfused
// fp16 and the fp32 reference of the measured error.
// RUN: tsc %S/../target/host/report.mlir --report --precision=fp16 --print-plan-count 2>&1 >/dev/null | FileCheck %s --check-prefix=PLANS
// PLANS: tsc: plans built: 3
