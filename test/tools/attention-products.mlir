// --attention-products: `auto` (the default) marks f32 attention
// bf16_products after the fuse phase with int8 quantization on a host with
// bf16 products (x86-64-v4+bf16, x86-64-v4+amx, native on such a CPU), and
// nowhere else; `f32` and `bf16` force either; `tsc-opt --tsc-pipeline`
// replays the choice; bf16 without bf16 products and unknown values are
// refused with a message.
// RUN: tsc %s --quantize=dynamic-int8 --cpu=x86-64-v4+bf16 --emit=fuse | FileCheck %s --check-prefix=MARKED
// RUN: tsc %s --quantize=dynamic-int8 --cpu=x86-64-v4+amx --emit=fuse | FileCheck %s --check-prefix=MARKED
// RUN: tsc %s --attention-products=bf16 --cpu=x86-64-v4+bf16 --emit=fuse -o %t.bf16.mlir
// RUN: FileCheck %s --check-prefix=MARKED < %t.bf16.mlir
// RUN: tsc-opt %s --tsc-pipeline="attention-products=bf16" | diff %t.bf16.mlir -
// RUN: tsc %s --quantize=dynamic-int8 --cpu=x86-64-v4 --emit=fuse | FileCheck %s --check-prefix=PLAIN
// RUN: tsc %s --quantize=dynamic-int8 --emit=fuse | FileCheck %s --check-prefix=PLAIN
// RUN: tsc %s --cpu=x86-64-v4+bf16 --emit=fuse | FileCheck %s --check-prefix=PLAIN
// RUN: tsc %s --quantize=dynamic-int8 --cpu=x86-64-v4+bf16 --attention-products=f32 --emit=fuse | FileCheck %s --check-prefix=PLAIN
// RUN: tsc %s --quantize=dynamic-int8 --cpu=x86-64-v4+bf16 --target=cuda:sm_80 --emit=fuse | FileCheck %s --check-prefix=PLAIN
// RUN: tsc %s --quantize=dynamic-int8 --cpu=x86-64-v4+bf16 --gpu-loop-mapping --emit=fuse | FileCheck %s --check-prefix=PLAIN
// RUN: not tsc %s --attention-products=bf16 --cpu=x86-64-v4+bf16 --gpu-loop-mapping --emit=fuse 2>&1 | FileCheck %s --check-prefix=NO-PAIRS
// RUN: not tsc %s --attention-products=bf16 --emit=fuse 2>&1 | FileCheck %s --check-prefix=NO-PAIRS
// RUN: not tsc %s --attention-products=bf16 --cpu=x86-64-v4 --emit=fuse 2>&1 | FileCheck %s --check-prefix=NO-PAIRS
// RUN: not tsc %s --attention-products=bf16 --cpu=x86-64-v4+bf16 --target=cuda:sm_90 --emit=fuse 2>&1 | FileCheck %s --check-prefix=NO-PAIRS
// RUN: not tsc %s --attention-products=fp16 --emit=fuse 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tsc %s --cpu=x86-64-v3+bf16 -o %t.level.tscm 2>&1 | FileCheck %s --check-prefix=LEVEL
// --report says which attention kernels compute their products in bf16:
// on the quantization line with int8 (not twice), on the precision line
// without, and in the JSON report; a head dim that is not whole tiles (48)
// stays float.
// RUN: tsc %s --quantize=dynamic-int8 --cpu=x86-64-v4+bf16 --report | FileCheck %s --check-prefix=REPORT-INT8
// RUN: tsc %s --quantize=dynamic-int8 --cpu=x86-64-v4 --report | FileCheck %s --check-prefix=REPORT-FLOAT
// RUN: tsc %s --attention-products=bf16 --cpu=x86-64-v4+bf16 --report | FileCheck %s --check-prefix=REPORT-FP32
// RUN: tsc %s --quantize=dynamic-int8 --cpu=x86-64-v4+bf16 --report=json | FileCheck %s --check-prefix=REPORT-JSON

// REPORT-INT8: precision: fp32 storage and compute, TF32 off{{$}}
// REPORT-INT8: quantization: dynamic int8 {{.+}}: 1 of 1 GEMMs int8; attention's products bf16 (operands rounded, f32 accumulation; --attention-products) in 1 of 2 attention kernels, float in the rest (softmax and norms stay float)
// REPORT-FLOAT: quantization: dynamic int8 {{.+}}: 1 of 1 GEMMs int8; attention's products float in 2 attention kernels (softmax and norms stay float)
// REPORT-FP32: precision: fp32 storage and compute, TF32 off; attention's products bf16 (operands rounded, f32 accumulation; --attention-products) in 1 of 2 attention kernels, float in the rest (softmax and norms stay float)
// REPORT-JSON-DAG: "attention_kernels_bf16_products": 1
// REPORT-JSON-DAG: "attention_kernels_float": 1
// MARKED: tsc.attention {{.+}} bf16_products
// PLAIN-NOT: bf16_products
// PLAIN: tsc.attention
// PLAIN-NOT: bf16_products
// NO-PAIRS: tsc: error: --attention-products=bf16 needs a cpu target with bf16 products: --cpu=x86-64-v4+bf16, x86-64-v4+amx, or native on a CPU with AMX, or an AMD one with AVX512_BF16 (and no --gpu-loop-mapping)
// UNKNOWN: tsc: error: --attention-products=fp16: expected auto, f32 or bf16
// LEVEL: tsc: error: --cpu=x86-64-v3+bf16: expected native, x86-64, x86-64-v3, x86-64-v4, x86-64-v4+bf16 or x86-64-v4+amx

func.func @attention(%q: tensor<?x2x?x32xf32> {tsc.name = "q"}, %k: tensor<?x2x?x32xf32> {tsc.name = "k"},
                     %v: tensor<?x2x?x32xf32> {tsc.name = "v"}) -> (tensor<?x2x?x48xf32> {tsc.name = "o"}) {
  %batch = tsc.symbol "batch" [1, 2]
  %seq = tsc.symbol "seq" [1, 64]
  tsc.bind_shape %q[%batch, %seq], affine_map<()[s0, s1] -> (s0, 2, s1, 32)> : tensor<?x2x?x32xf32>
  tsc.bind_shape %k[%batch, %seq], affine_map<()[s0, s1] -> (s0, 2, s1, 32)> : tensor<?x2x?x32xf32>
  tsc.bind_shape %v[%batch, %seq], affine_map<()[s0, s1] -> (s0, 2, s1, 32)> : tensor<?x2x?x32xf32>
  %o = tsc.attention %q, %k, %v : (tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>) -> tensor<?x2x?x32xf32>
  tsc.bind_shape %o[%batch, %seq], affine_map<()[s0, s1] -> (s0, 2, s1, 32)> : tensor<?x2x?x32xf32>
  %w = tsc.constant dense<0.5> : tensor<32x48xf32>
  %p = tsc.matmul %o, %w : (tensor<?x2x?x32xf32>, tensor<32x48xf32>) -> tensor<?x2x?x48xf32>
  tsc.bind_shape %p[%batch, %seq], affine_map<()[s0, s1] -> (s0, 2, s1, 48)> : tensor<?x2x?x48xf32>
  %r = tsc.attention %p, %p, %p : (tensor<?x2x?x48xf32>, tensor<?x2x?x48xf32>, tensor<?x2x?x48xf32>) -> tensor<?x2x?x48xf32>
  tsc.bind_shape %r[%batch, %seq], affine_map<()[s0, s1] -> (s0, 2, s1, 48)> : tensor<?x2x?x48xf32>
  return %r : tensor<?x2x?x48xf32>
}
