#!/usr/bin/env python3
"""The GPU check's ctypes layer (tools/gpu/check.py's Runtime, which
tools/gpu/kernels.py times kernels with) against the stand-in driver
(test/runtime/Inputs/fake_cuda.c, host memory as device memory), so that its
first real use on a GPU is not its first use: a session of the runtime
tests' cuda-scale.tscm (y = 2x) on CPU torch tensors, plain and profiled
(per-step times, as kernels.py reads them), a wrong input name reported, and
every dtype the check wraps.

Usage: gpu_check_runtime.py LIBTSC_RUNTIME FIXTURES   (make_artifact.py's)
"""
import ctypes
import pathlib
import sys

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools" / "gpu"))
import check  # noqa: E402

runtime = check.Runtime(sys.argv[1])
fixtures = pathlib.Path(sys.argv[2])
artifact = fixtures / "cuda-scale.tscm"
x = torch.tensor(np.load(fixtures / "cuda_x.npy")).contiguous()
y = torch.zeros_like(x)
no_stream = ctypes.c_void_p(None)
with runtime.session(artifact, no_stream, {"x": x}, {"y": y}) as (_, session):
    runtime.check(runtime.lib.tsc_session_run(session))
print(f"session: y == 2x {bool(torch.equal(y, 2 * x))}")
y.zero_()
with runtime.session(artifact, no_stream, {"x": x}, {"y": y}, profile=True,
                     cuda_graphs=False) as (model, session):
    for _ in range(3):
        runtime.check(runtime.lib.tsc_session_run(session))
    steps = [runtime.lib.tsc_model_step_name(model, i).decode()
             for i in range(runtime.lib.tsc_model_step_count(model))]
    timed = all(runtime.lib.tsc_session_step_time(session, i) > 0 for i in range(len(steps)))
    print(f"profiled: steps {steps}, runs {runtime.lib.tsc_session_run_count(session)}, "
          f"timed {timed}, y == 2x {bool(torch.equal(y, 2 * x))}")
try:
    with runtime.session(artifact, no_stream, {"nope": x}, {"y": y}):
        pass
except RuntimeError as e:
    print(f"error: {e}")
for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.int64):
    tensor = runtime.wrap(torch.zeros(4, dtype=dtype), 0)
    runtime.lib.tsc_tensor_release(tensor)
    print(f"wrap {dtype}: ok")
