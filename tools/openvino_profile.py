#!/usr/bin/env python3
"""OpenVINO's CPU time per layer kind, the peer's side of tools/kernel_cpu_time.py.

Compiles an ONNX model for OpenVINO's "CPU" device as tools/bench_cpu.py does
(INFERENCE_NUM_THREADS, PERFORMANCE_HINT LATENCY, INFERENCE_PRECISION_HINT)
with PERF_COUNT on, runs it, and prints CPU ms per run of each layer kind
(fully connected layers one line per node name with the layer number taken
out, e.g. `FC attention/self/query`) with the implementation OpenVINO chose.
The profile's per-layer times are wall-clock; on a machine shared with other
work they include the waits, so each layer's share of the profiled time is
applied to the process's CPU time per inference (time.process_time), which
is what perf measures for tsc. With one thread the two agree on a quiet
machine.

Usage: .venv-bench/bin/python tools/openvino_profile.py MODEL.onnx --inputs DIR
           [--precision f32|bf16] [--threads 1] [--runs 10] [--warmup 3]
DIR holds NAME.npy per input (tools/bench_cpu.py --keep writes them). Not a test.
"""
import argparse
import collections
import pathlib
import re
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--inputs", required=True)
    parser.add_argument("--precision", choices=("f32", "bf16"), default="f32")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()

    import openvino as ov
    core = ov.Core()
    compiled = core.compile_model(args.model, "CPU", {
        "INFERENCE_NUM_THREADS": args.threads, "PERFORMANCE_HINT": "LATENCY",
        "INFERENCE_PRECISION_HINT": args.precision, "PERF_COUNT": True})
    inputs = {p.get_any_name(): np.load(pathlib.Path(args.inputs) / f"{p.get_any_name()}.npy")
              for p in compiled.inputs}
    request = compiled.create_infer_request()
    for _ in range(args.warmup):
        request.infer(inputs)
    real, impls = collections.Counter(), collections.defaultdict(collections.Counter)
    cpu = 0.0
    for _ in range(args.runs):
        start = time.process_time()
        request.infer(inputs)
        cpu += time.process_time() - start
        for p in request.get_profiling_info():
            if p.status != p.Status.EXECUTED:
                continue
            key = p.node_type
            if key == "FullyConnected":
                key = "FC " + re.sub(r"^/(encoder/)?layer\.\d+/|/(Add|MatMul)$", "", p.node_name)
            real[key] += p.real_time.total_seconds()
            impls[key][p.exec_type] += 1
    cpu_ms = cpu * 1e3 / args.runs
    total = sum(real.values()) or 1
    print(f"OpenVINO {ov.__version__.split('-')[0]} {args.precision}, {args.threads} thread(s): "
          f"{cpu_ms:.2f} CPU ms per run ({total * 1e3 / args.runs:.2f} ms of profiled layer time)")
    for key, t in real.most_common():
        if t / total >= 0.001:
            kinds = ", ".join(f"{k} x{n // args.runs}" for k, n in impls[key].items())
            print(f"  {cpu_ms * t / total:9.3f} ms {100 * t / total:5.1f} %  {key}  ({kinds})")


if __name__ == "__main__":
    main()
