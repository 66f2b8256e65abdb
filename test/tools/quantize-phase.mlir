// The quantize phase: `tsc --quantize=dynamic-int8 --emit=quantize` and
// `tsc-opt --tsc-pipeline` with the same options give the same IR; without
// --quantize the phase changes nothing; weight-int8/int4 with and without a
// group; with a CUDA target, int8 GEMMs as an s8 product and its epilogue
// (tsc-expand-quantized-gemms) and weight-only ones unchanged; fp8 as an f8
// product (sm_89 and later only; refused for the host), malformed groups, half precisions, static-int8 without
// --calibration and calibration flags without static-int8 are refused with
// a message.
// RUN: tsc %s --quantize=dynamic-int8 --emit=quantize -o %t.driver.mlir
// RUN: tsc-opt %s --tsc-pipeline="until=quantize quantize=dynamic-int8" | diff %t.driver.mlir -
// RUN: FileCheck %s < %t.driver.mlir
// RUN: tsc %s --quantize=dynamic-int8 --keep-float='/kept/*' --emit=quantize -o %t.kept.mlir
// RUN: tsc-opt %s --tsc-pipeline="until=quantize quantize=dynamic-int8 keep-float=/kept/*" | diff %t.kept.mlir -
// RUN: FileCheck %s --check-prefix=KEPT < %t.kept.mlir
// RUN: not tsc %s --keep-float='/kept/*' --emit=graph 2>&1 | FileCheck %s --check-prefix=KEPT-ALONE
// RUN: tsc %s --quantize=dynamic-int8 --keep-float='/kept/*' --kept-precision=bf16 --emit=quantize -o %t.bf16.mlir
// RUN: tsc-opt %s --tsc-pipeline="until=quantize quantize=dynamic-int8 keep-float=/kept/* kept-precision=bf16" | diff %t.bf16.mlir -
// RUN: FileCheck %s --check-prefix=KEPT-BF16 < %t.bf16.mlir
// RUN: tsc %s --quantize=dynamic-int8 --keep-float='/kept/*' --cpu=x86-64-v4+amx --emit=quantize | diff %t.bf16.mlir -
// RUN: tsc %s --quantize=dynamic-int8 --keep-float='/kept/*' --cpu=x86-64-v4 --emit=quantize | diff %t.kept.mlir -
// RUN: not tsc %s --quantize=weight-int8 --kept-precision=bf16 --emit=graph 2>&1 | FileCheck %s --check-prefix=KEPT-WEIGHT
// RUN: not tsc %s --quantize=dynamic-int8 --kept-precision=fp16 --emit=graph 2>&1 | FileCheck %s --check-prefix=KEPT-UNKNOWN
// RUN: not tsc %s --quantize=dynamic-int8 --max-error=0 --emit=graph 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not tsc %s --max-error=0.1 --emit=graph 2>&1 | FileCheck %s --check-prefix=BUDGET-ALONE
// RUN: tsc %s --emit=graph -o %t.graph.mlir
// RUN: tsc %s --emit=quantize | diff %t.graph.mlir -
// RUN: not tsc %s --quantize=static-int8 --emit=graph 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not tsc %s --calibration %t --emit=graph 2>&1 | FileCheck %s --check-prefix=CALIB
// RUN: not tsc %s --quantize=static-int8 --calibration %t --calibration-method=kl --emit=graph 2>&1 | FileCheck %s --check-prefix=METHOD
// RUN: not tsc %s --quantize=static-int8 --calibration %t --calibration-method=percentile=101 --emit=graph 2>&1 | FileCheck %s --check-prefix=METHOD
// RUN: not tsc %s --quantize=dynamic-int8 --calibration-range=symmetric --emit=graph 2>&1 | FileCheck %s --check-prefix=RANGE-ALONE
// RUN: not tsc %s --quantize=static-int8 --calibration %t --calibration-range=both --emit=graph 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not tsc %s --quantize=dynamic-int8 --bias-correction=off --emit=graph 2>&1 | FileCheck %s --check-prefix=BIAS-ALONE
// RUN: not tsc %s --quantize=static-int8 --calibration %t --bias-correction=maybe --emit=graph 2>&1 | FileCheck %s --check-prefix=BIAS
// RUN: not tsc %s --quantize=dynamic-int8 --smoothing=0.5 --emit=graph 2>&1 | FileCheck %s --check-prefix=SMOOTH-ALONE
// RUN: not tsc %s --quantize=weight-int8 --narrow-int8-weights --emit=graph 2>&1 | FileCheck %s --check-prefix=NARROW-ALONE
// RUN: not tsc %s --narrow-int8-weights --emit=graph 2>&1 | FileCheck %s --check-prefix=NARROW-ALONE
// RUN: not tsc %s --quantize=static-int8 --calibration %t --smoothing=1 --emit=graph 2>&1 | FileCheck %s --check-prefix=SMOOTH
// RUN: not tsc %s --quantize=static-int8 --calibration %t --smoothing=strong --emit=graph 2>&1 | FileCheck %s --check-prefix=SMOOTH-WORD
// (tsc's --emit leaves the i4 blobs' bytes out: the IR before them.)
// RUN: tsc %s --quantize=weight-int4:group=16 --emit=quantize | sed '/^{-#/,$d' > %t.int4.mlir
// RUN: tsc-opt %s --tsc-pipeline="until=quantize quantize=weight-int4 weight-group-size=16" | sed '/^{-#/,$d' | diff %t.int4.mlir -
// RUN: FileCheck %s --check-prefix=INT4 < %t.int4.mlir
// RUN: tsc %s --quantize=weight-int8 --emit=quantize | FileCheck %s --check-prefix=INT8
// RUN: tsc %s --quantize=weight-int4 --emit=quantize | FileCheck %s --check-prefix=INT4-DEFAULT
// RUN: not tsc %s --quantize=weight-int4:group=48 --emit=graph 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: not tsc %s --quantize=weight-int8:groups=32 --emit=graph 2>&1 | FileCheck %s --check-prefix=GROUP-KEY
// RUN: tsc %s --quantize=weight-int4 --target=cuda:sm_90 --emit=fuse | sed '/^{-#/,$d' | FileCheck %s --check-prefix=WEIGHT-CUDA
// RUN: not tsc %s --quantize=fp8 --emit=graph 2>&1 | FileCheck %s --check-prefix=FP8-HOST
// RUN: not tsc %s --quantize=fp8 --target=cuda:sm_80 --emit=graph 2>&1 | FileCheck %s --check-prefix=FP8-SM80
// RUN: not tsc %s --quantize=fp8 --target=cuda:sm_90 --calibration %t --calibration-range=asymmetric --emit=graph 2>&1 | FileCheck %s --check-prefix=FP8-RANGE
// RUN: tsc %s --quantize=fp8 --target=cuda:sm_90 --emit=quantize -o %t.fp8q.mlir
// RUN: tsc-opt %s --tsc-pipeline="until=quantize quantize=fp8" | diff %t.fp8q.mlir -
// RUN: FileCheck %s --check-prefix=FP8-QUANTIZE < %t.fp8q.mlir
// (tsc elides the padded weight's 512 bytes as a resource, tsc-opt prints
// them: the constants' payloads are compared by FileCheck, not by diff.)
// RUN: tsc %s --quantize=fp8 --target=cuda:sm_89 --emit=fuse -o %t.fp8.mlir
// RUN: sed -E 's/dense(_resource)?<[^>]*>/PAYLOAD/' %t.fp8.mlir > %t.fp8.driver
// RUN: tsc-opt %s --tsc-pipeline="quantize=fp8 erf-gelu-epilogue=0 expand-quantized-gemms" | sed -E 's/dense(_resource)?<[^>]*>/PAYLOAD/' | diff %t.fp8.driver -
// RUN: FileCheck %s --check-prefix=FP8 < %t.fp8.mlir
// RUN: not tsc %s --quantize=int3 --emit=graph 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: tsc %s --quantize=dynamic-int8 --target=cuda:sm_90 --emit=fuse -o %t.cuda.mlir
// RUN: tsc-opt %s --tsc-pipeline="quantize=dynamic-int8 erf-gelu-epilogue=0 expand-quantized-gemms" | diff %t.cuda.mlir -
// RUN: FileCheck %s --check-prefix=CUDA < %t.cuda.mlir
// RUN: tsc %s --quantize=dynamic-int8 --target=cuda:sm_90 --report | FileCheck %s --check-prefix=CUDA-REPORT
// RUN: not tsc %s --quantize=dynamic-int8 --precision=bf16 --emit=graph 2>&1 | FileCheck %s --check-prefix=HALF

// KEPT-ALONE: tsc: error: --keep-float names GEMMs to leave float: it needs --quantize
// KEPT-WEIGHT: tsc: error: --kept-precision=bf16 needs --quantize=dynamic-int8 or static-int8 and a cpu target
// KEPT-UNKNOWN: tsc: error: --kept-precision=fp16: expected auto, f32 or bf16
// BUDGET: tsc: error: --max-error=0: expected a relative L2 error E > 0 (e.g. 1e-2)
// BUDGET-ALONE: tsc: error: --max-error needs --quantize or --prune with a ratio
// STATIC: tsc: error: --quantize=static-int8 needs --calibration DIR (one folder of NAME.npy inputs per sample)
// CALIB: tsc: error: --calibration goes with --quantize (static ranges, bias correction) or --prune=heads=R / ffn=R
// METHOD: tsc: error: --calibration-method={{kl|percentile=101}}: expected min-max, percentile[=P] (0 < P <= 100) or entropy
// RANGE-ALONE: tsc: error: --calibration-range goes with --quantize=static-int8
// RANGE: tsc: error: --calibration-range=both: expected asymmetric or symmetric
// BIAS-ALONE: tsc: error: --bias-correction goes with --quantize=static-int8
// BIAS: tsc: error: --bias-correction=maybe: expected on or off
// SMOOTH-ALONE: tsc: error: --smoothing goes with --quantize=static-int8, or dynamic-int8 with --calibration
// NARROW-ALONE: tsc: error: --narrow-int8-weights goes with --quantize=dynamic-int8 or static-int8
// SMOOTH: tsc: error: --smoothing=1: expected auto, off or an alpha in (0, 1)
// SMOOTH-WORD: tsc: error: --smoothing=strong: expected auto, off or an alpha in (0, 1)
// FP8-HOST: tsc: error: --quantize=fp8 needs a CUDA target of sm_89 or later (e.g. --target=cuda:sm_90): the host CPU has no fp8 arithmetic
// FP8-RANGE: tsc: error: --quantize=fp8 --calibration-range=asymmetric: fp8 activations are symmetric (e4m3 has no zero point); give symmetric or leave it out
// FP8-SM80: tsc: error: --quantize=fp8: sm_80 has no fp8 tensor cores (cuBLASLt's fp8 GEMMs need sm_89 or later)
// UNKNOWN: tsc: error: --quantize=int3: expected none, dynamic-int8, static-int8, weight-int8[:group=G][:zero-points], weight-int4[:group=G][:zero-points] or fp8
// GROUP: tsc: error: --quantize=weight-int4:group=48: expected weight-int4[:group=G][:zero-points] with G a power of two from 8 to 4096 (32, 64, 128 are usual) or `channel`
// GROUP-KEY: tsc: error: --quantize=weight-int8:groups=32: expected weight-int8[:group=G]
// WEIGHT-CUDA-LABEL: func.func @projection
// WEIGHT-CUDA:         tsc.dequantize %{{.+}}, %{{.+}} axis = 1 : (tensor<32x8xi4>, tensor<8xf32>) -> tensor<32x8xf32>
// WEIGHT-CUDA:         tsc.linear
// WEIGHT-CUDA-NOT:     tsc.matmul

// Weight-only: the weights quantized, the activation untouched. int4 in
// groups of 16 along K (the scale [32/16, 8]), or by default of 128, which
// covers K = 32 (one scale per output channel); int8 per output channel.
// INT4-LABEL: func.func @projection
// INT4-NOT:     tsc.quantize
// INT4:         tsc.dequantize %{{.+}}, %{{.+}} axis = 0 group_size = 16 : (tensor<32x8xi4>, tensor<2x8xf32>) -> tensor<32x8xf32>
// INT4:         tsc.linear
// INT4:         tsc.dequantize %{{.+}}, %{{.+}} axis = 0 group_size = 16 : (tensor<32x8xi4>, tensor<2x8xf32>) -> tensor<32x8xf32>
// INT4:         tsc.linear
// INT4-DEFAULT-LABEL: func.func @projection
// INT4-DEFAULT:       tsc.dequantize %{{.+}}, %{{.+}} axis = 1 : (tensor<32x8xi4>, tensor<8xf32>) -> tensor<32x8xf32>
// INT8-LABEL: func.func @projection
// INT8-NOT:     tsc.quantize
// INT8:         tsc.dequantize %{{.+}}, %{{.+}} axis = 1 : (tensor<32x8xi8>, tensor<8xf32>) -> tensor<32x8xf32>
// CUDA-LABEL: func.func @projection
// CUDA:         %[[Q:.+]] = tsc.quantize %{{.+}}, %[[S:.+]] axis = 1 group_size = 32 : (tensor<?x32xf32>, tensor<?x1xf32>) -> tensor<?x32xi8>
// CUDA:         %[[T:.+]] = tsc.transpose %{{.+}} perm = [1, 0] : (tensor<8x32xi8>) -> tensor<32x8xi8>
// CUDA:         %[[ACC:.+]] = tsc.matmul %[[Q]], %[[T]] : (tensor<?x32xi8>, tensor<32x8xi8>) -> tensor<?x8xi32>
// CUDA:         %[[F:.+]] = tsc.cast %[[ACC]] : tensor<?x8xi32> to tensor<?x8xf32>
// CUDA:         %[[WS:.+]] = tsc.mul %[[F]], %{{.+}} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
// CUDA:         tsc.mul %[[WS]], %[[S]] : (tensor<?x8xf32>, tensor<?x1xf32>) -> tensor<?x8xf32>
// CUDA-NOT:     tsc.linear
// CUDA-NOT:     tsc.dequantize
// The report measures a CUDA plan's error on the host's replica of its
// device code (the s8 products as kernels).
// CUDA-REPORT: gemm
// CUDA-REPORT: measured error of dynamic-int8 (relative L2 against this model in fp32, both on the host
// HALF: tsc: error: --quantize=dynamic-int8 with --precision=bf16: quantization keeps fp32 around the quantized GEMMs; combine it with --precision=fp32 only

// fp8: both GEMMs (the kept one too: keep-float is not given) with weights
// in f8E4M3FN per output channel (0.5 and 0.25 are 448 times their scale)
// and activations per row, saturating; for CUDA an f8 product into f32,
// with no conversion of the sum, then the two scales; N = 8 padded to 16
// (cuBLASLt's fp8 multiple), the first 8 columns read.
// FP8-QUANTIZE-LABEL: func.func @projection
// FP8-QUANTIZE-DAG:     tsc.constant dense<4.480000e+02> : tensor<32x8xf8E4M3FN>
// FP8-QUANTIZE-DAG:     tsc.constant dense<0.00111607148> : tensor<8xf32>
// FP8-QUANTIZE:         tsc.quantize %{{.+}}, %{{.+}} axis = 1 group_size = 32 saturate : (tensor<?x32xf32>, tensor<?x1xf32>) -> tensor<?x32xf8E4M3FN>
// FP8-QUANTIZE:         tsc.dequantize %{{.+}}, %{{.+}} axis = 1 group_size = 32 : (tensor<?x32xf8E4M3FN>, tensor<?x1xf32>) -> tensor<?x32xf32>
// FP8-QUANTIZE:         tsc.linear
// FP8-LABEL: func.func @projection
// FP8:         %[[Q:.+]] = tsc.quantize %{{.+}}, %[[S:.+]] axis = 1 group_size = 32 saturate : (tensor<?x32xf32>, tensor<?x1xf32>) -> tensor<?x32xf8E4M3FN>
// FP8:         %[[T:.+]] = tsc.transpose %{{.+}} perm = [1, 0] : (tensor<16x32xf8E4M3FN>) -> tensor<32x16xf8E4M3FN>
// FP8:         %[[ACC:.+]] = tsc.matmul %[[Q]], %[[T]] : (tensor<?x32xf8E4M3FN>, tensor<32x16xf8E4M3FN>) -> tensor<?x16xf32>
// FP8:         %[[SPLIT:.+]]:2 = tsc.split %[[ACC]] axis = 1 sizes = [8, 8]
// FP8-NOT:     tsc.cast
// FP8:         %[[WS:.+]] = tsc.mul %[[SPLIT]]#0, %{{.+}} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
// FP8:         tsc.mul %[[WS]], %[[S]] : (tensor<?x8xf32>, tensor<?x1xf32>) -> tensor<?x8xf32>
// FP8-NOT:     tsc.linear
// FP8-NOT:     tsc.dequantize

// KEPT-LABEL: func.func @projection
// KEPT-SAME:    (%[[X:.+]]: tensor<?x32xf32>)
// KEPT-DAG:     %[[W2:.+]] = tsc.constant dense<2.500000e-01> : tensor<32x8xf32>
// KEPT-DAG:     tsc.constant dense<127> : tensor<32x8xi8>
// KEPT:         tsc.quantize %[[X]]
// KEPT:         tsc.linear
// KEPT:         tsc.matmul %[[X]], %[[W2]]
// With --kept-precision=bf16 (the default with AMX, --cpu=x86-64-v4+amx;
// not without it) the kept GEMM's input is rounded to bf16 and back, its
// weight rounded (0.25 is a bf16 value), and the product a tsc.linear.
// KEPT-BF16-LABEL: func.func @projection
// KEPT-BF16-SAME:    (%[[X:.+]]: tensor<?x32xf32>)
// KEPT-BF16:         tsc.quantize %[[X]]
// KEPT-BF16:         %[[W:.+]] = tsc.constant dense<2.500000e-01> : tensor<32x8xf32>
// KEPT-BF16:         %[[N:.+]] = tsc.cast %[[X]] : tensor<?x32xf32> to tensor<?x32xbf16>
// KEPT-BF16:         %[[R:.+]] = tsc.cast %[[N]] : tensor<?x32xbf16> to tensor<?x32xf32>
// KEPT-BF16:         tsc.linear %[[R]], %[[W]] {weight_kn}

// CHECK-LABEL: func.func @projection
// CHECK:         tsc.quantize
// CHECK:         tsc.dequantize
// CHECK:         tsc.linear
func.func @projection(%x: tensor<?x32xf32>) -> tensor<?x8xf32> {
  %n = tsc.symbol "n" [1, 16]
  tsc.bind_shape %x[%n], affine_map<()[s0] -> (s0, 32)> : tensor<?x32xf32>
  %w = tsc.constant dense<0.5> : tensor<32x8xf32>
  %y = tsc.matmul %x, %w : (tensor<?x32xf32>, tensor<32x8xf32>) -> tensor<?x8xf32> loc("/quantized/MatMul")
  %w2 = tsc.constant dense<0.25> : tensor<32x8xf32>
  %z = tsc.matmul %x, %w2 : (tensor<?x32xf32>, tensor<32x8xf32>) -> tensor<?x8xf32> loc("/kept/MatMul")
  %s = tsc.add %y, %z : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %s : tensor<?x8xf32>
}
