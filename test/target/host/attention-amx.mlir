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

// SUMMARY: for x86-64-v4+amx (AVX-512, AMX)
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
