// --cpu picks the x86-64 level of the host kernels; the artifact records the
// ISA it needs (bit 0: AVX2+FMA, bit 1: AVX-512) and the runtime refuses a
// CPU without it. The generic level runs everywhere.
// RUN: tsc %s --cpu=x86-64 -o %t.generic.tscm
// RUN: %python %S/Inputs/artifact_isa.py %t.generic.tscm | FileCheck %s --check-prefix=GENERIC
// RUN: tsc-run %t.generic.tscm --output-dir %t.out | FileCheck %s --check-prefix=EXEC
// RUN: tsc %s --cpu=x86-64-v3 -o %t.v3.tscm
// RUN: %python %S/Inputs/artifact_isa.py %t.v3.tscm | FileCheck %s --check-prefix=V3
// RUN: tsc %s --cpu=x86-64-v4 -o %t.v4.tscm
// RUN: %python %S/Inputs/artifact_isa.py %t.v4.tscm | FileCheck %s --check-prefix=V4
// RUN: not tsc %s --cpu=pentium -o %t.bad.tscm 2>&1 | FileCheck %s --check-prefix=BAD
// Without --cpu: x86-64-v3 (AVX2), whatever this machine has, said in the
// summary line and recorded in the artifact; --cpu=native picks this
// machine's best level (recorded as it is, checked against --info's ISA).
// RUN: tsc %s -o %t.default.tscm 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: %python %S/Inputs/artifact_isa.py %t.default.tscm | FileCheck %s --check-prefix=V3
// RUN: tsc-run %t.default.tscm --info | FileCheck %s --check-prefix=INFO

// GENERIC: target cpu isa 0
// EXEC: output y: shape [4, 16] dtype f32
// V3: target cpu isa 1
// V4: target cpu isa 3
// SUMMARY: tsc: wrote {{.*}}default.tscm for x86-64-v3 (AVX2): {{[0-9]+}} kernels,
// INFO: host code ISA: AVX2+FMA
// BAD: tsc: error: --cpu=pentium: expected native, x86-64, x86-64-v3, x86-64-v4, x86-64-v4+bf16 or x86-64-v4+amx

func.func @softmax_rows(%x: tensor<?x16xf32> {tsc.name = "x"}) -> (tensor<?x16xf32> {tsc.name = "y"}) {
  %n = tsc.symbol "n" [1, 4]
  tsc.bind_shape %x[%n], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  %y = tsc.softmax %x axis = 1 : tensor<?x16xf32>
  tsc.bind_shape %y[%n], affine_map<()[s0] -> (s0, 16)> : tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
