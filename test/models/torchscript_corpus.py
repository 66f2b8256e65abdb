"""The corpus architectures as TorchScript archives saved by the pinned
PyTorch 2.x, for run_torchscript.py (which runs with Debian's torch 1.13: the
archives are traced in the PyTorch 2 environment by corpus/trace_corpus.py,
cached, and only compiled and run here).

Per archive `<arch>-<attention>` (attention `sdpa`, `eager` or `default`, see
trace_corpus.py) two cases:
- `ts-<arch>-<attention>`: tsc compiles it with
      --input input_ids=i64[batch,seq] --input attention_mask=i64[batch,seq]
      (vision: pixel_values=f32[batch,3,32,32]; speech:
      input_features=f32[batch,16,32]) --dim batch=1..4 --dim seq=1..64
  and tsc-run's outputs at (batch, seq) = (1, 7) and (3, 64) (padded masks;
  vision and speech: batch 1 and 3) match torch eager's at relative L2
  <= 1e-4, shapes and dtypes exactly;
- `ts-<arch>-<attention>-plan`: the fuse phase's promise (checks.check_fusion:
  one tsc.attention per layer, norms fused, at most 8 kernels + library calls
  per layer, 9 with a gated MLP), and the plan's steps, kernels, GEMM library
  calls, copies, layers and kernels per layer equal those of the same
  model's ONNX export (export_corpus.py's) compiled with the same --dim.
A model PyTorch cannot trace or save fails both with PyTorch's message.
Cases listed in torchscript-expected-failures.txt are skipped while they
fail for exactly the recorded reason (the corpus suite's rules).
"""
import json
import pathlib
import re
import subprocess
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import checks  # noqa: E402
import manifest  # noqa: E402
from checks import Failure  # noqa: E402

MANIFEST = HERE / "torchscript-expected-failures.txt"
TORCH_PYTHON = HERE.parents[1] / "tools" / "torch-python"
TOLERANCE = 1e-4
TEXT_DIMS = ["--dim", "batch=1..4", "--dim", "seq=1..64"]
FIXED_DIMS = ["--dim", "batch=1..4"]
# --input of each modality's inputs (corpus/architectures.py's shapes).
INPUT_TYPES = {"input_ids": "i64[batch,seq]", "attention_mask": "i64[batch,seq]",
               "pixel_values": "f32[batch,3,32,32]", "input_features": "f32[batch,16,32]"}


def trace(cache=None):
    """The folder of traced archives (corpus/trace_corpus.py in the PyTorch 2
    environment; cached)."""
    command = [str(TORCH_PYTHON), str(HERE / "corpus" / "trace_corpus.py")]
    if cache:
        command += ["--cache", cache]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if proc.returncode:
        raise Failure(f"trace_corpus.py failed: {proc.stderr.strip()[-800:]}")
    return pathlib.Path(proc.stdout.strip().splitlines()[-1])


def plan_counts(report):
    """{count: N}: the `plan:` line's steps, kernels, GEMM library calls and
    copies, and the `layers:` line's layers and kernels per layer."""
    counts = {}
    plan = re.search(r"^plan:(.*)$", report, re.M)
    if plan:
        for number, label in re.findall(r"(\d+) ([A-Za-z][A-Za-z ]*)", plan.group(1)):
            if label.strip() in ("steps", "kernels", "GEMM library calls", "copies"):
                counts[label.strip()] = int(number)
    layers = re.search(r"^layers: (\d+), at most (\d+) kernels", report, re.M)
    if layers:
        counts["layers"], counts["kernels per layer"] = map(int, layers.groups())
    return counts


def unsupported_ops(tsc, archive, options):
    """'unsupported ops: A, B' from tsc's one report of them."""
    proc = subprocess.run([tsc, str(archive), "--emit=graph"] + options, capture_output=True,
                          text=True, timeout=600)
    ops = sorted(set(re.findall(r"^\s+((?:aten|prim)::\w+): \d+ node", proc.stderr, re.M)))
    return "unsupported ops: " + ", ".join(ops)


def onnx_plan(tsc, entry, dims, cache):
    """Plan counts of the entry's ONNX export compiled with `dims` (once per
    export)."""
    path = entry["onnx"]
    if path not in cache:
        proc = subprocess.run([tsc, path, "--report", "-o", "/dev/null"] + dims,
                              capture_output=True, text=True, timeout=1200)
        cache[path] = (plan_counts(proc.stdout) if proc.returncode == 0 else
                       Failure("ONNX export: " + checks.first_error("tsc", proc)))
    if isinstance(cache[path], Failure):
        raise cache[path]
    return cache[path]


def check_entry(args, entry, folder, work, onnx_cache):
    """{case: (problem or None, details)} of one archive, and its table row."""
    name = f"ts-{entry['name']}"
    row = [entry["name"], "-", "-", "-"]
    if entry.get("error"):
        problem = f"PyTorch cannot trace and save it: {entry['error']}"
        return {name: (problem, entry.get("traceback", "")),
                f"{name}-plan": (problem, "")}, row
    text = entry["modality"] == "text"
    dims = TEXT_DIMS if text else FIXED_DIMS
    options = [a for n in entry["inputs"] for a in ("--input", f"{n}={INPUT_TYPES[n]}")]
    artifact = work / f"{entry['name']}.tscm"
    work.mkdir(parents=True, exist_ok=True)
    results = {}
    try:
        fused, report = checks.compile_with_report(
            args.tsc, folder / entry["model"], artifact, options=options,
            symbols=("batch", "seq") if text else ("batch",), dims=dims)
    except Failure as e:
        problem = str(e)
        if "unsupported TorchScript op" in problem:
            problem = unsupported_ops(args.tsc, folder / entry["model"], options)
        return {name: (problem, ""), f"{name}-plan": (problem, "")}, row
    counts = plan_counts(report)
    row[1] = f"{counts.get('steps', '?')} steps, {counts.get('kernels per layer', '?')}/layer"
    try:
        checks.check_fusion(entry["layers"], fused, report, budget=9 if entry["gated_mlp"] else 8,
                            norms=entry["norms"])
        if not entry["onnx"]:
            raise Failure("no ONNX export of this model to compare plans with")
        onnx = onnx_plan(args.tsc, entry, dims, onnx_cache)
        diffs = [f"{k} {counts.get(k, '?')} (ONNX {onnx.get(k, '?')})"
                 for k in sorted(set(counts) | set(onnx)) if counts.get(k) != onnx.get(k)]
        if diffs:
            raise Failure("plan differs from the ONNX export's: " + ", ".join(diffs))
        row[2] = "same"
        results[f"{name}-plan"] = (None, "")
    except Failure as e:
        row[2] = "differs"
        results[f"{name}-plan"] = (str(e), report)
    problems, worst = [], 0.0
    for k, size in enumerate(entry["data"]):
        where = f"batch {size['batch']}" + (f", seq {size['seq']}" if size["seq"] else "")
        inputs = {n: np.load(folder / f) for n, f in size["inputs"].items()}
        try:
            output = checks.run_artifact(args.tsc_run, artifact, inputs, work / f"size{k}")
        except Failure as e:
            problems.append(f"({where}): {e}")
            continue
        for i, (out_name, expected) in enumerate(size["expected"].items()):
            ref = np.load(folder / expected)
            try:
                out = output(f"output_{i}")
            except OSError:
                problems.append(f"({where}): tsc-run wrote no output_{i} ({out_name})")
                continue
            if out.dtype != ref.dtype or out.shape != ref.shape:
                problems.append(f"({where}): output_{i} ({out_name}) is "
                                f"{out.dtype}{list(out.shape)}, torch eager's "
                                f"{ref.dtype}{list(ref.shape)}")
                continue
            err = checks.rel_l2(out, ref)
            worst = max(worst, err)
            if not err <= TOLERANCE:  # also NaN
                problems.append(f"numerics: rel L2 {err:.1e} > {TOLERANCE:.0e} on output_{i} "
                                f"({out_name}, {where})")
    row[3] = f"{worst:.1e}"
    results[name] = (problems[0] if problems else None, "\n".join(problems))
    return results, row


def run(args, out, only="", write_exclusions=False):
    """Runs every case whose name contains `only`; returns (passed, failed,
    skipped, xUnit suite element, table lines). `write_exclusions` rewrites
    the manifest from the failures instead."""
    try:
        folder = trace()
        entries = [e for e in json.loads((folder / "corpus.json").read_text())
                   if only in f"ts-{e['name']}"]
    except (Failure, OSError, ValueError) as e:
        results = {"ts-trace": (f"tracing the corpus failed: {e}", "")}
        return (*manifest.report("torchscript-run", results, MANIFEST), [])
    start = time.monotonic()
    results, rows, onnx_cache = {}, [], {}
    for entry in entries:
        cases, row = check_entry(args, entry, folder, out / "corpus" / entry["name"], onnx_cache)
        results.update(cases)
        rows.append(row)
    lines = [f"{'archive':<24} {'plan (tsc --report)':<24} {'vs ONNX plan':<14} max rel L2",
             *(f"{a:<24} {p:<24} {o:<14} {e}" for a, p, o, e in rows),
             f"corpus archives: {len(entries)}, {time.monotonic() - start:.0f} s (after tracing)"]
    if write_exclusions:
        count = manifest.write(MANIFEST, [
            "TorchScript corpus cases (run_torchscript.py, torchscript_corpus.py) that fail",
            "for a known reason: NAME reason. Written by `run_torchscript.py",
            "--write-exclusions`; review changes by hand. A listed case that passes or",
            "fails for another reason fails the suite."], results)
        lines.append(f"wrote {count} expected failures to {MANIFEST.name}")
    return (*manifest.report("torchscript-run", results, MANIFEST), lines)
