#!/usr/bin/env python3
"""The GPU check's second half, on the machine with the GPU (tools/gpu-check.sh
builds the runtime there and calls this).

1. Correctness: every case of the bundle (node tests and models, compiled
   here by tools/gpu/bundle.sh) runs with tsc-run on the GPU; outputs are
   compared as run_node_tests.py compares them (relative L2 at most 1e-4 for
   float32; models at 1e-4 against ONNX Runtime).
2. Speed: the BERT-base-shaped encoder (tools/gpu/bert_base.py) at batch 1
   and 8, sequence 128: tsc fp32, int8 (`--quantize=dynamic-int8`: cuBLASLt's
   s8 GEMMs), fp8 (`--quantize=fp8`: its e4m3 GEMMs, sm_90) and fp16 (`--precision=fp16 --precision-io=storage`: weights,
   activations, input and output in fp16, as torch.compile fp16 is called)
   on tensors in device memory on PyTorch's
   stream (the runtime's C API through ctypes),
   against PyTorch eager fp32, eager fp16 and torch.compile fp16 (the issue's
   setting) on the same device tensors, side by side in this process; and
   tsc-run against torch.compile from host inputs to host outputs. Each time
   is a median over --repeats runs that wait for their work. Max error:
   relative L2 against eager fp32.
3. Kernels (tools/gpu/kernels.py): fp16 and bf16 attention at sequence 2048 against
   scaled_dot_product_attention and as a fraction of a measured bf16 matmul
   peak; fp16 add and LayerNorm as fractions of a measured device copy's
   bandwidth.

Prints one table; with --markdown FILE also writes it as Markdown.
"""
import argparse
import collections
import concurrent.futures
import contextlib
import ctypes
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "onnx-node"))
sys.path.insert(0, str(ROOT / "tools" / "gpu"))
sys.path.insert(0, str(ROOT / "test" / "target" / "cuda"))
from run_node_tests import compare  # noqa: E402
from gpu_run import rel_l2, run_case  # noqa: E402


def correctness(tsc_run, bundle, jobs):
    """{kind: (passed, failed, [failures])} for node tests and models."""
    results = {}
    for kind in ("node", "models"):
        cases = sorted(p for p in (bundle / kind).iterdir() if p.is_dir())
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            problems = dict(zip(cases, pool.map(lambda c: run_case(tsc_run, c, compare), cases)))
        failures = [f"{c.name}: {p}" for c, p in problems.items() if p]
        results[kind] = (len(cases) - len(failures), len(failures), failures)
    return results


def median_ms(fn, repeats):
    """Median milliseconds of fn(), which returns when its work is done."""
    for _ in range(5):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def time_tsc(tsc_run, artifact, x, mask, repeats, work):
    """(median ms, output) of tsc-run --bench on the inputs: host to host."""
    np.save(work / "x.npy", x)
    np.save(work / "mask.npy", mask)
    proc = subprocess.run([tsc_run, str(artifact), "--input", f"x={work / 'x.npy'}",
                           "--input", f"attention_mask={work / 'mask.npy'}",
                           "--output-dir", str(work / "out"), "--warmup", "10",
                           "--bench", str(repeats)], capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(proc.stderr.strip())
    median = re.search(r"median\s*[=:]?\s*([0-9.]+)", proc.stdout)
    if not median:
        raise RuntimeError(f"no median in tsc-run's output: {proc.stdout}")
    return float(median.group(1)), np.load(work / "out" / "hidden.npy")


class Runtime:
    """The runtime's C API through ctypes: a session of a CUDA artifact run
    on tensors in device memory (tsc_tensor_wrap_cuda) on PyTorch's current
    stream, as a product embedding both would."""

    class Options(ctypes.Structure):
        _fields_ = [("struct_size", ctypes.c_size_t), ("thread_count", ctypes.c_int32),
                    ("profile", ctypes.c_int32), ("cuda_device", ctypes.c_int32),
                    ("cuda_graphs", ctypes.c_int32), ("cuda_stream", ctypes.c_void_p)]

    def __init__(self, library):
        lib = self.lib = ctypes.CDLL(str(library))
        p = ctypes.c_void_p
        for name, args, result in (
                ("tsc_api_version", [], ctypes.c_uint32),
                ("tsc_status_message", [p], ctypes.c_char_p),
                ("tsc_status_free", [p], None),
                ("tsc_model_load", [p, ctypes.c_char_p, ctypes.POINTER(p)], p),
                ("tsc_model_release", [p], None),
                ("tsc_session_options_init", [ctypes.POINTER(self.Options)], None),
                ("tsc_session_create", [p, ctypes.POINTER(self.Options), ctypes.POINTER(p)], p),
                ("tsc_session_release", [p], None),
                ("tsc_tensor_wrap_cuda", [ctypes.c_int, ctypes.c_size_t,
                                          ctypes.POINTER(ctypes.c_int64), p, ctypes.c_size_t,
                                          ctypes.c_int32, ctypes.POINTER(p)], p),
                ("tsc_tensor_release", [p], None),
                ("tsc_session_bind_input", [p, ctypes.c_char_p, p], p),
                ("tsc_session_bind_output", [p, ctypes.c_char_p, p], p),
                ("tsc_session_run", [p], p),
                # Profiling (tools/gpu/kernels.py).
                ("tsc_model_step_count", [p], ctypes.c_size_t),
                ("tsc_model_step_name", [p, ctypes.c_size_t], ctypes.c_char_p),
                ("tsc_session_step_time", [p, ctypes.c_size_t], ctypes.c_double),
                ("tsc_session_run_count", [p], ctypes.c_uint64)):
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, result
        if lib.tsc_api_version() < 3:
            raise RuntimeError("libtsc_runtime is older than API version 3")

    def check(self, status):
        if status:
            message = self.lib.tsc_status_message(status).decode()
            self.lib.tsc_status_free(status)
            raise RuntimeError(message)

    @contextlib.contextmanager
    def session(self, artifact, stream, inputs, outputs, profile=False, cuda_graphs=True):
        """(model, session) of a CUDA artifact on `stream` (a CUstream as
        ctypes.c_void_p), its inputs and outputs bound by name to contiguous
        torch tensors on the device; released when the block ends."""
        lib = self.lib
        model, session, tensors = ctypes.c_void_p(), ctypes.c_void_p(), []
        self.check(lib.tsc_model_load(None, str(artifact).encode(), ctypes.byref(model)))
        try:
            options = self.Options()
            lib.tsc_session_options_init(ctypes.byref(options))
            options.cuda_stream = stream
            options.profile = int(profile)
            options.cuda_graphs = int(cuda_graphs)
            self.check(lib.tsc_session_create(model, ctypes.byref(options),
                                              ctypes.byref(session)))
            for names, bind in ((inputs, lib.tsc_session_bind_input),
                                (outputs, lib.tsc_session_bind_output)):
                for name, tensor in names.items():
                    tensors.append(self.wrap(tensor, tensor.device.index or 0))
                    self.check(bind(session, name.encode(), tensors[-1]))
            yield model, session
        finally:
            for t in tensors:
                lib.tsc_tensor_release(t)
            if session:
                lib.tsc_session_release(session)
            lib.tsc_model_release(model)

    def wrap(self, tensor, device):
        """A TSC_LOCATION_CUDA tensor over a contiguous torch tensor."""
        dtypes = {"torch.float32": 1, "torch.float16": 2, "torch.bfloat16": 3,
                  "torch.int64": 9}
        dims = (ctypes.c_int64 * tensor.dim())(*tensor.shape)
        out = ctypes.c_void_p()
        self.check(self.lib.tsc_tensor_wrap_cuda(
            dtypes[str(tensor.dtype)], tensor.dim(), dims, ctypes.c_void_p(tensor.data_ptr()),
            tensor.numel() * tensor.element_size(), device, ctypes.byref(out)))
        return out


def time_tsc_device(runtime, artifact, x, mask, repeats, dtype=None):
    """(median ms, output) of the artifact run on device tensors; `dtype` is
    its float input's and output's (float32 unless given)."""
    import torch
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    xd, md = x.cuda().to(dtype or torch.float32).contiguous(), mask.cuda().contiguous()
    out = torch.empty_like(xd)
    with runtime.session(artifact, stream, {"x": xd, "attention_mask": md},
                         {"hidden": out}) as (_, session):
        ms = median_ms(lambda: runtime.check(runtime.lib.tsc_session_run(session)), repeats)
    return ms, out.float().cpu().numpy()


def benchmark(tsc_run, runtime, artifacts, repeats):
    """Rows (batch, {column: (ms, max error)}): tsc host to host (tsc-run)
    and on device tensors; PyTorch on device tensors, and torch.compile host
    to host too."""
    import torch
    import bert_base
    model32 = bert_base.build().cuda()
    model16 = bert_base.build().cuda().half()
    compiled16 = torch.compile(model16)
    rows = []
    with torch.no_grad(), tempfile.TemporaryDirectory() as tmp:
        for batch in (1, 8):
            x, mask = bert_base.inputs(batch, 128)
            xd, md = x.cuda(), mask.cuda()
            ref = model32(xd, md).cpu().numpy()
            columns = {}
            ms, out = time_tsc(tsc_run, artifacts["fp32"], x.numpy(), mask.numpy(), repeats,
                               pathlib.Path(tmp))
            columns["tsc fp32, host I/O"] = (ms, rel_l2(out, ref))
            for precision, artifact in artifacts.items():
                dtype = torch.float16 if precision == "fp16" else torch.float32
                ms, out = time_tsc_device(runtime, artifact, x, mask, repeats, dtype)
                columns[f"tsc {precision}"] = (ms, rel_l2(out, ref))
            for name, m, dtype in (("eager fp32", model32, torch.float32),
                                   ("eager fp16", model16, torch.float16),
                                   ("torch.compile fp16", compiled16, torch.float16)):
                xt = xd.to(dtype)

                def step(m=m, xt=xt):
                    m(xt, md)
                    torch.cuda.synchronize()
                columns[name] = (median_ms(step, repeats),
                                 rel_l2(m(xt, md).float().cpu().numpy(), ref))
            host = lambda: compiled16(x.cuda().half(), mask.cuda()).float().cpu()
            columns["torch.compile fp16, host I/O"] = (median_ms(host, repeats),
                                                       rel_l2(host().numpy(), ref))
            rows.append((batch, columns))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", required=True, type=pathlib.Path)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--runtime-lib", required=True,
                        help="libtsc_runtime.so, for runs on device tensors")
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--markdown", type=pathlib.Path)
    args = parser.parse_args()
    tsc_run = str(pathlib.Path(args.tsc_run).resolve())
    lines = []
    start = time.time()
    results = correctness(tsc_run, args.bundle, args.jobs)
    lines.append("| check | passed | failed |")
    lines.append("| --- | --- | --- |")
    for kind, (passed, failed, failures) in results.items():
        lines.append(f"| {kind} artifacts on the GPU | {passed} | {failed} |")
        for failure in failures[:20]:
            print(f"FAIL {kind}: {failure}")
        # Failures grouped by message, names and numbers left out: what to
        # fix first.
        groups = collections.Counter(
            re.sub(r"'[^']*'|\([^)]*\)|tsc_kernel_\w+|\b\d[\d.]*(e[+-]?\d+)?\b", "_",
                   f.split(": ", 1)[1].split(" [")[0])
            for f in failures)
        for message, count in groups.most_common(10):
            print(f"  {count:4}  {message}")
    print(f"correctness: {time.time() - start:.0f} s")
    bench_failed = False
    try:
        bench = args.bundle / "bench"
        tsc_variants = {"fp32": bench / "bert-base.tscm",
                        "fp16": bench / "bert-base-fp16.tscm",
                        "int8": bench / "bert-base-int8.tscm",
                        "fp8": bench / "bert-base-fp8.tscm"}
        rows = benchmark(tsc_run, Runtime(args.runtime_lib), tsc_variants, args.repeats)
        names = list(rows[0][1])
        lines += ["", "| BERT-base-shaped encoder layer, seq 128 | " + " | ".join(
            f"{n} ms (max rel L2)" for n in names)
            + "".join(f" | tsc {p} / torch.compile fp16" for p in tsc_variants) + " |",
            "| --- |" + " --- |" * (len(names) + len(tsc_variants))]
        for batch, columns in rows:
            cells = [f"{ms:.3f} ({err:.1e})" for ms, err in columns.values()]
            # Device I/O on both sides.
            compiled = columns["torch.compile fp16"][0]
            ratios = [columns[f"tsc {p}"][0] / compiled for p in tsc_variants]
            lines.append(f"| batch {batch} | " + " | ".join(cells)
                         + "".join(f" | {r:.2f}" for r in ratios) + " |")
    except Exception as e:  # noqa: BLE001 - reported in the table
        bench_failed = True
        lines += ["", f"benchmark failed: {type(e).__name__}: {e}"]
    try:
        import kernels
        lines += kernels.measure(Runtime(args.runtime_lib), args.bundle / "bench", args.repeats,
                                 median_ms)
    except Exception as e:  # noqa: BLE001 - reported in the table
        bench_failed = True
        lines += ["", f"kernel benchmarks failed: {type(e).__name__}: {e}"]
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(table + "\n")
    failed = sum(f for _, f, _ in results.values())
    return 1 if failed or bench_failed else 0


if __name__ == "__main__":
    sys.exit(main())
