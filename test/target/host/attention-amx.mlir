// bf16 attention compiled for an AMX CPU (--cpu=x86-64-v4+amx): its two
// products are AMX tiles, and the artifact records that its host code needs
// AMX (ISA bit 2) next to AVX-512; for x86-64-v4 alone it does not. The
// summary line names the level. attention-amx-run.test runs both where the
// CPU has AMX.
// RUN: tsc %s --precision=bf16 --cpu=x86-64-v4+amx -o %t.amx.tscm 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: %python %S/Inputs/artifact_isa.py %t.amx.tscm | FileCheck %s --check-prefix=AMX
// RUN: tsc %s --precision=bf16 --cpu=x86-64-v4 -o %t.v4.tscm
// RUN: %python %S/Inputs/artifact_isa.py %t.v4.tscm | FileCheck %s --check-prefix=V4
// The same model in fp32 uses no AMX, and the level alone does not ask for it.
// RUN: tsc %s --cpu=x86-64-v4+amx -o %t.fp32.tscm
// RUN: %python %S/Inputs/artifact_isa.py %t.fp32.tscm | FileCheck %s --check-prefix=V4

// The same for a CPU with AVX512_BF16 but no AMX (--cpu=x86-64-v4+bf16):
// vdpbf16ps products, ISA bit 3 next to AVX-512; f32 attention uses them
// only with --attention-products=bf16 (or auto with int8 quantization).
// RUN: tsc %s --precision=bf16 --cpu=x86-64-v4+bf16 -o %t.dot.tscm 2>&1 | FileCheck %s --check-prefix=SUMMARY-DOT
// RUN: %python %S/Inputs/artifact_isa.py %t.dot.tscm | FileCheck %s --check-prefix=DOT
// RUN: tsc %s --attention-products=bf16 --cpu=x86-64-v4+bf16 -o %t.f32dot.tscm
// RUN: %python %S/Inputs/artifact_isa.py %t.f32dot.tscm | FileCheck %s --check-prefix=DOT
// RUN: tsc %s --cpu=x86-64-v4+bf16 -o %t.f32.tscm
// RUN: %python %S/Inputs/artifact_isa.py %t.f32.tscm | FileCheck %s --check-prefix=V4
// With AMX, f32 attention's bf16 products are AMX tiles.
// RUN: tsc %s --attention-products=bf16 --cpu=x86-64-v4+amx -o %t.f32amx.tscm
// RUN: %python %S/Inputs/artifact_isa.py %t.f32amx.tscm | FileCheck %s --check-prefix=AMX

// SUMMARY: for x86-64-v4+amx (AVX-512, AMX)
// SUMMARY-DOT: for x86-64-v4+bf16 (AVX-512, AVX512_BF16)
// DOT: target cpu isa 11
// AMX: target cpu isa 7
// V4: target cpu isa 3

func.func @attention(%q: tensor<?x2x?x64xf32> {tsc.name = "q"}, %k: tensor<?x2x?x64xf32> {tsc.name = "k"},
                     %v: tensor<?x2x?x64xf32> {tsc.name = "v"}) -> (tensor<?x2x?x64xf32> {tsc.name = "o"}) {
  %batch = tsc.symbol "batch" [1, 2]
  %seq = tsc.symbol "seq" [1, 160]
  tsc.bind_shape %q[%batch, %seq], affine_map<()[s0, s1] -> (s0, 2, s1, 64)> : tensor<?x2x?x64xf32>
  tsc.bind_shape %k[%batch, %seq], affine_map<()[s0, s1] -> (s0, 2, s1, 64)> : tensor<?x2x?x64xf32>
  tsc.bind_shape %v[%batch, %seq], affine_map<()[s0, s1] -> (s0, 2, s1, 64)> : tensor<?x2x?x64xf32>
  %o = tsc.attention %q, %k, %v : (tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>) -> tensor<?x2x?x64xf32>
  tsc.bind_shape %o[%batch, %seq], affine_map<()[s0, s1] -> (s0, 2, s1, 64)> : tensor<?x2x?x64xf32>
  return %o : tensor<?x2x?x64xf32>
}
