"""Runs bundled CUDA artifacts on a GPU with tsc-run, and tells whether there
is one: the GPU half of the node tests and models (suite onnx-node-gpu, the
models' `-gpu` cases; skipped, and counted so, where there is no usable GPU)
and of the GPU check (tools/gpu/check.py).

A bundled case is a folder holding model.tscm, its inputs, its expected
outputs and case.json: for each run tsc-run's arguments and the outputs'
files and dtypes, and a tolerance (relative L2) or null for the node tests'
per-dtype comparison (run_node_tests.py --ptx --bundle, run_models.py
--bundle).
"""
import json
import pathlib
import shutil
import subprocess
import tempfile

import numpy as np

# Seconds a case's run may take before it counts as hung.
TIMEOUT_S = 300


def unavailable(tsc_run):
    """None when tsc-run finds a CUDA device, else why it does not."""
    proc = subprocess.run([tsc_run, "--list-devices"], capture_output=True, text=True)
    if proc.returncode:
        return (proc.stderr.strip().splitlines() or [f"tsc-run --list-devices: exit "
                                                     f"{proc.returncode}"])[-1]
    first = (proc.stdout.splitlines() or [""])[0]
    prefix = "cuda: unavailable: "
    return first[len(prefix):] if first.startswith(prefix) else None


def rel_l2(out, ref):
    """|out - ref|_2 / |ref|_2 (NaN when shapes differ, as a failure)."""
    if out.shape != ref.shape:
        return float("nan")
    ref = ref.astype(np.float64)
    return float(np.linalg.norm(out.astype(np.float64) - ref)
                 / max(np.linalg.norm(ref), 1e-30))


def run_case(tsc_run, folder, compare):
    """None when every run of the bundled case in `folder` matches, else the
    problem; `compare(out, ref, name, dtype)` is the node tests' comparison
    (run_node_tests.compare). A failing case is run again without CUDA
    graphs and with profiling (a synchronization after every step), so the
    report tells a capture problem from a kernel's and names the step that
    fails."""
    problem = _run_case_with(tsc_run, folder, compare, [])
    if problem is None:
        return None
    again = _run_case_with(tsc_run, folder, compare, ["--no-cuda-graphs", "--profile"])
    if again is None:
        return f"{problem} [passes without CUDA graphs]"
    return f"{problem} [without graphs, step by step: {again}]"


def _run_case_with(tsc_run, folder, compare, options):
    folder = pathlib.Path(folder)
    # (It runs in the case's folder.)
    tsc_run = pathlib.Path(shutil.which(str(tsc_run)) or tsc_run).resolve()
    spec = json.loads((folder / "case.json").read_text())
    for k, run in enumerate(spec["runs"]):
        with tempfile.TemporaryDirectory() as out:
            try:
                proc = subprocess.run([tsc_run, "model.tscm", "--output-dir", out, *options,
                                       *run["run_args"]],
                                      cwd=folder, capture_output=True, text=True,
                                      timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                # (A kernel that never finishes: a barrier or a deadlock.)
                return f"tsc-run did not finish in {TIMEOUT_S} s (run {k})"
            if proc.returncode:
                lines = [l for l in proc.stderr.splitlines() if "error" in l]
                return (lines or proc.stderr.splitlines() or [f"exit {proc.returncode}"])[0]
            for output in run["outputs"]:
                path = pathlib.Path(out) / output["file"]
                if not path.exists():
                    return f"no output file for '{output['name']}'"
                out_array, ref = np.load(path), np.load(folder / output["expected"])
                if spec["tolerance"] is not None:
                    err = rel_l2(out_array, ref)
                    problem = None if err <= spec["tolerance"] else \
                        f"rel L2 {err:.1e} on '{output['name']}' (run {k})"
                else:
                    problem = compare(out_array, ref, output["name"], output["dtype"])
                if problem:
                    return problem
    return None
