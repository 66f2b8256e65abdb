"""Runs an artifact of forall-temporaries.onnxtxt (a row of symbolic length
that a fused softmax reads more than once, so each row is a heap temporary)
for 10 and then 300 runs, and prints whether tsc-run's peak RSS grew and
whether the outputs match numpy's softmax of x + m.

Usage: forall_temporaries.py TSC_RUN ARTIFACT DIR
"""
import resource
import subprocess
import sys

import numpy as np

tsc_run, artifact, work = sys.argv[1:4]
rng = np.random.default_rng(0)
x = rng.standard_normal((4096, 128), dtype=np.float32)
m = rng.standard_normal((4096, 128), dtype=np.float32)
np.save(f"{work}/x.npy", x)
np.save(f"{work}/m.npy", m)
args = [tsc_run, artifact, "--input", f"x={work}/x.npy", "--input", f"m={work}/m.npy",
        "--threads", "1", "--warmup", "1"]
peaks = []
for runs in (10, 300):
    subprocess.run(args + ["--bench", str(runs)], check=True, capture_output=True)
    # The largest peak RSS of the children so far, in KiB.
    peaks.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
growth = (peaks[1] - peaks[0]) / 1024
# A leaked row per row per run would be 4096 * 512 bytes = 2 MiB a run.
print(f"peak RSS growth over 290 more runs: {'under' if growth < 64 else 'OVER'} 64 MiB "
      f"({growth:.1f} MiB)")
subprocess.run(args[:6] + ["--output-dir", f"{work}/out"], check=True, capture_output=True)
y = np.load(f"{work}/out/y.npy")
a = (x + m).astype(np.float64)
e = np.exp(a - a.max(axis=-1, keepdims=True))
ref = e / e.sum(axis=-1, keepdims=True)
print(f"softmax max abs error {'below' if np.abs(y - ref).max() < 1e-6 else 'OVER'} 1e-6")
