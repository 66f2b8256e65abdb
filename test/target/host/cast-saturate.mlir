// tsc.cast saturate end to end on the host: finite values past f16's range
// become ±65504, infinities and NaN stay, others round to nearest even; the
// plain cast gives infinity. (--precision=fp16 inserts saturating casts.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.array([1e5, -1e5, np.inf, -np.inf, np.nan, 1.0, 65519.0, 65520.0], np.float32))"
// RUN: tsc %s -o %t/cast.tscm
// RUN: tsc-run %t/cast.tscm --input x=%t/x.npy --output-dir %t/out
// RUN: %python -c "import numpy as np; print('saturated', np.load('%t/out/saturated.npy').tolist()); print('plain', np.load('%t/out/plain.npy').tolist())" | FileCheck %s

// CHECK: saturated [65504.0, -65504.0, inf, -inf, nan, 1.0, 65504.0, 65504.0]
// CHECK: plain [inf, -inf, inf, -inf, nan, 1.0, 65504.0, inf]

func.func @casts(%x: tensor<8xf32> {tsc.name = "x"}) -> (tensor<8xf16> {tsc.name = "saturated"}, tensor<8xf16> {tsc.name = "plain"}) {
  %s = tsc.cast %x saturate : tensor<8xf32> to tensor<8xf16>
  %p = tsc.cast %x : tensor<8xf32> to tensor<8xf16>
  return %s, %p : tensor<8xf16>, tensor<8xf16>
}
