// Causal grouped-query attention in the [B, S, H, D] layout (4 query heads
// reading 2 K/V heads, head dim 32: whole tiles), the model of
// attention-bf16-dot-run.test's causal check. Compiled here for a CPU with
// AVX512_BF16 and with AMX, f32 attention with --attention-products=bf16
// uses vdpbf16ps (ISA bit 3) or AMX tiles (bit 2).
// RUN: tsc %s --attention-products=bf16 --cpu=x86-64-v4+bf16 -o %t.dot.tscm
// RUN: %python %S/Inputs/artifact_isa.py %t.dot.tscm | FileCheck %s --check-prefix=DOT
// RUN: tsc %s --attention-products=bf16 --cpu=x86-64-v4+amx -o %t.amx.tscm
// RUN: %python %S/Inputs/artifact_isa.py %t.amx.tscm | FileCheck %s --check-prefix=AMX

// DOT: target cpu isa 11
// AMX: target cpu isa 7

func.func @attention(%q: tensor<?x?x4x32xf32> {tsc.name = "q"}, %k: tensor<?x?x2x32xf32> {tsc.name = "k"},
                     %v: tensor<?x?x2x32xf32> {tsc.name = "v"}) -> (tensor<?x?x4x32xf32> {tsc.name = "o"}) {
  %batch = tsc.symbol "batch" [1, 2]
  %seq = tsc.symbol "seq" [1, 128]
  tsc.bind_shape %q[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1, 4, 32)> : tensor<?x?x4x32xf32>
  tsc.bind_shape %k[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1, 2, 32)> : tensor<?x?x2x32xf32>
  tsc.bind_shape %v[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1, 2, 32)> : tensor<?x?x2x32xf32>
  %o = tsc.attention %q, %k, %v causal bshd : (tensor<?x?x4x32xf32>, tensor<?x?x2x32xf32>, tensor<?x?x2x32xf32>) -> tensor<?x?x4x32xf32>
  tsc.bind_shape %o[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1, 4, 32)> : tensor<?x?x4x32xf32>
  return %o : tensor<?x?x4x32xf32>
}
