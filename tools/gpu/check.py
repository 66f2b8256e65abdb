#!/usr/bin/env python3
"""The GPU check's second half, on the machine with the GPU (tools/gpu-check.sh
builds the runtime there and calls this).

1. Correctness: every case of the bundle (node tests and models, compiled
   here by tools/gpu/bundle.sh) runs with tsc-run on the GPU; outputs are
   compared as run_node_tests.py compares them (relative L2 at most 1e-4 for
   float32; models at 1e-4 against ONNX Runtime).
2. Speed: the BERT-base-shaped encoder (tools/gpu/bert_base.py) at batch 1
   and 8, sequence 128: tsc (fp32: --precision is not implemented yet)
   against PyTorch eager and torch.compile in fp16 (the issue's setting) and
   eager fp32, side by side in this process, each timed from host inputs to
   host outputs as tsc-run's runs are. Max error: relative L2 against eager
   fp32.

Prints one table; with --markdown FILE also writes it as Markdown.
"""
import argparse
import collections
import concurrent.futures
import json
import os
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
from run_node_tests import compare  # noqa: E402


def run_case(tsc_run, folder):
    """None when every run of the case matches, else the problem. A failing
    case is run again without CUDA graphs and with profiling (a
    synchronization after every step), so the report tells a capture problem
    from a kernel's and names the step that fails."""
    problem = run_case_with(tsc_run, folder, [])
    if problem is None:
        return None
    again = run_case_with(tsc_run, folder, ["--no-cuda-graphs", "--profile"])
    if again is None:
        return f"{problem} [passes without CUDA graphs]"
    return f"{problem} [without graphs, step by step: {again}]"


def run_case_with(tsc_run, folder, options):
    spec = json.loads((folder / "case.json").read_text())
    for k, run in enumerate(spec["runs"]):
        with tempfile.TemporaryDirectory() as out:
            proc = subprocess.run([tsc_run, "model.tscm", "--output-dir", out, *options,
                                   *run["run_args"]],
                                  cwd=folder, capture_output=True, text=True, timeout=300)
            if proc.returncode:
                lines = [l for l in proc.stderr.splitlines() if "error" in l]
                return (lines or proc.stderr.splitlines() or [f"exit {proc.returncode}"])[0]
            for output in run["outputs"]:
                path = pathlib.Path(out) / output["file"]
                if not path.exists():
                    return f"no output file for '{output['name']}'"
                out_array, ref = np.load(path), np.load(folder / output["expected"])
                if spec["tolerance"] is not None:
                    err = float(np.linalg.norm(out_array.astype(np.float64) - ref)
                                / max(np.linalg.norm(ref.astype(np.float64)), 1e-30))
                    problem = None if err <= spec["tolerance"] else \
                        f"rel L2 {err:.1e} on '{output['name']}' (run {k})"
                else:
                    problem = compare(out_array, ref, output["name"], output["dtype"])
                if problem:
                    return problem
    return None


def correctness(tsc_run, bundle, jobs):
    """{kind: (passed, failed, [failures])} for node tests and models."""
    results = {}
    for kind in ("node", "models"):
        cases = sorted(p for p in (bundle / kind).iterdir() if p.is_dir())
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            problems = dict(zip(cases, pool.map(lambda c: run_case(tsc_run, c), cases)))
        failures = [f"{c.name}: {p}" for c, p in problems.items() if p]
        results[kind] = (len(cases) - len(failures), len(failures), failures)
    return results


def time_torch(fn, x, mask, repeats):
    """Median ms of fn from host tensors to a host result."""
    import torch
    for _ in range(5):
        fn(x, mask)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(x, mask)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def time_tsc(tsc_run, artifact, x, mask, repeats, work):
    """(median ms, output) of tsc-run --bench on the inputs."""
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


def rel_l2(out, ref):
    ref = ref.astype(np.float64)
    return float(np.linalg.norm(out.astype(np.float64) - ref) / np.linalg.norm(ref))


def benchmark(tsc_run, artifact, repeats):
    """Rows (batch, {column: (ms, max error)})."""
    import torch
    import bert_base
    model32 = bert_base.build().cuda()
    model16 = bert_base.build().cuda().half()
    compiled16 = torch.compile(model16)
    rows = []
    with torch.no_grad(), tempfile.TemporaryDirectory() as tmp:
        for batch in (1, 8):
            x, mask = bert_base.inputs(batch, 128)
            ref = model32(x.cuda(), mask.cuda()).cpu().numpy()
            run = lambda m, dtype: (lambda xx, mm: m(xx.cuda().to(dtype), mm.cuda()).float().cpu())
            columns = {}
            ms, out = time_tsc(tsc_run, artifact, x.numpy(), mask.numpy(), repeats,
                               pathlib.Path(tmp))
            columns["tsc fp32"] = (ms, rel_l2(out, ref))
            for name, m, dtype in (("eager fp32", model32, torch.float32),
                                   ("eager fp16", model16, torch.float16),
                                   ("torch.compile fp16", compiled16, torch.float16)):
                fn = run(m, dtype)
                columns[name] = (time_torch(fn, x, mask, repeats),
                                 rel_l2(fn(x, mask).numpy(), ref))
            rows.append((batch, columns))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", required=True, type=pathlib.Path)
    parser.add_argument("--tsc-run", required=True)
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
        rows = benchmark(tsc_run, args.bundle / "bench" / "bert-base.tscm", args.repeats)
        names = list(rows[0][1])
        lines += ["", "| BERT-base-shaped encoder layer, seq 128 | " + " | ".join(
            f"{n} ms (max rel L2)" for n in names) + " | tsc / torch.compile |",
            "| --- |" + " --- |" * (len(names) + 1)]
        for batch, columns in rows:
            cells = [f"{ms:.3f} ({err:.1e})" for ms, err in columns.values()]
            ratio = columns["tsc fp32"][0] / columns["torch.compile fp16"][0]
            lines.append(f"| batch {batch} | " + " | ".join(cells) + f" | {ratio:.2f} |")
    except Exception as e:  # noqa: BLE001 - reported in the table
        bench_failed = True
        lines += ["", f"benchmark failed: {type(e).__name__}: {e}"]
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        args.markdown.write_text(table + "\n")
    failed = sum(f for _, f, _ in results.values())
    return 1 if failed or bench_failed else 0


if __name__ == "__main__":
    sys.exit(main())
