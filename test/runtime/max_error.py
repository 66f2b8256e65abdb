#!/usr/bin/env python3
"""`tsc --quantize=dynamic-int8 --max-error=E` (with `--static`:
`--quantize=static-int8` calibrated on eight samples) on a small model of four
residual layers, y_i = y_(i-1) + gelu(y_(i-1)·A_i)·B_i (eight GEMMs, hidden
64, FFN 128), whose layer 2 reads an outlier feature (one column of layer
1's B scaled by 40): per-row int8 scales then leave its other features a
few codes, so its GEMMs cost the most. Budgets are derived from what the
compiler measures, never written down:

- E = 1 (loose): every GEMM int8, nothing kept float; its error e_all;
- E = e_all / 1.5 and E = e_all / 3: the kept-float lists, each of which
  must hold the GEMMs of the larger budget and more (the list grows as the
  budget tightens), start with the GEMM the compiler measured the most
  sensitive (its "quantized alone" lines), and a final error within E;
- the artifact each writes (-o) run by tsc-run on inputs of its own
  (uniform [-1, 1), another draw than the compiler's) against the fp32
  artifact: rel L2 <= 2E (other inputs of the same distribution);
- `--keep-float` with the printed list compiles to the same bytes as the
  --max-error artifact (the choice replays);
- static int8: the printed tsc-opt replay carries the calibrated range of
  every GEMM op (`input-ranges=`, eight of them);
- E = 1e-9: no choice but every GEMM float: exit 1 with a message.

With `--bf16` (`--kept-precision=bf16`, either mode): the kept GEMMs compute
on operands rounded to bf16 (GEMM steps with bf16 inputs), which the
budget's search measures as such: the same checks, the printed list says
bf16 at E = e_all / 1.5, the replay takes `--kept-precision` as printed,
and at E = 1e-9 the search falls back to f32 before it fails.

Prints `PASS ...` / `FAIL ...` lines and `KEPT E=...: names`.

Usage: max_error.py OUT_DIR TSC TSC_RUN [--static] [--bf16]
"""
import math
import pathlib
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LAYERS, HIDDEN, FFN = 4, 64, 128


def build_model(rng):
    inits, nodes = [], []
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    inits += [c("sqrt2", math.sqrt(2.0)), c("one", 1.0), c("half", 0.5)]
    y = "x"
    for i in range(LAYERS):
        a = rng.standard_normal((HIDDEN, FFN)).astype(np.float32) * 0.15
        b = rng.standard_normal((FFN, HIDDEN)).astype(np.float32) * 0.1
        if i == 1:
            b[:, 5] *= 40.0  # an outlier feature for layer 2's input
        inits += [numpy_helper.from_array(a, f"A{i}"), numpy_helper.from_array(b, f"B{i}")]
        p = f"/layer.{i}"
        nodes += [
            helper.make_node("MatMul", [y, f"A{i}"], [f"h{i}"], name=f"{p}/up/MatMul"),
            helper.make_node("Div", [f"h{i}", "sqrt2"], [f"hd{i}"], name=f"{p}/div"),
            helper.make_node("Erf", [f"hd{i}"], [f"he{i}"], name=f"{p}/erf"),
            helper.make_node("Add", [f"he{i}", "one"], [f"hp{i}"], name=f"{p}/add1"),
            helper.make_node("Mul", [f"h{i}", f"hp{i}"], [f"hm{i}"], name=f"{p}/mul"),
            helper.make_node("Mul", [f"hm{i}", "half"], [f"g{i}"], name=f"{p}/gelu"),
            helper.make_node("MatMul", [f"g{i}", f"B{i}"], [f"o{i}"], name=f"{p}/down/MatMul"),
            helper.make_node("Add", [y, f"o{i}"], [f"y{i}"], name=f"{p}/residual"),
        ]
        y = f"y{i}"
    nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    f32 = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "layers", [helper.make_tensor_value_info("x", f32, ["batch", "seq", HIDDEN])],
        [helper.make_tensor_value_info("y", f32, ["batch", "seq", HIDDEN])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


DIMS = ["--dim", "batch=1..4", "--dim", "seq=1..16"]


def tsc_compile(tsc, model, artifact, flags):
    return subprocess.run([tsc, str(model), "-o", str(artifact), *DIMS, *flags],
                          capture_output=True, text=True, timeout=600)


def run(tsc_run, artifact, x_path, out):
    subprocess.run([tsc_run, str(artifact), "--input", f"x={x_path}", "--output-dir",
                    str(out), "--threads", "2"], check=True, stdout=subprocess.DEVNULL)
    return np.load(out / "y.npy").astype(np.float64)


def parse(stdout):
    """(every-int8 error, {gemm: alone error}, kept list, final error)."""
    def errors(line):
        return max(float(v) for v in re.findall(r" y ([0-9.e+-]+)", line))
    every = errors(re.search(r"every GEMM int8:.*", stdout).group(0))
    alone = {m.group(1): float(m.group(2))
             for m in re.finditer(r"^    (\S+) ([0-9.e+-]+)$", stdout, re.M)}
    kept = re.search(r"kept float(?: \(.*?\))?: ?(.*)", stdout).group(1)
    kept = [] if kept == "none" else kept.split(", ")
    final = re.search(r"final error:.*", stdout)
    return every, alone, kept, errors(final.group(0)) if final else every


def main():
    out, tsc, tsc_run = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    static = "--static" in sys.argv[4:]
    bf16 = "--bf16" in sys.argv[4:]
    out.mkdir(parents=True, exist_ok=True)
    model = out / "model.onnx"
    onnx.save(build_model(np.random.default_rng(7)), str(model))
    x = np.random.default_rng(11).uniform(-1, 1, (4, 16, HIDDEN)).astype(np.float32)
    np.save(out / "x.npy", x)
    failures = 0

    def check(name, ok, detail):
        nonlocal failures
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")

    proc = tsc_compile(tsc, model, out / "fp32.tscm", [])
    if proc.returncode:
        sys.exit("FAIL fp32 compile: " + proc.stderr)
    ref = run(tsc_run, out / "fp32.tscm", out / "x.npy", out / "fp32")
    quantize = ["--quantize=dynamic-int8"]
    if static:
        # Calibration samples of the same distribution, other draws.
        rng = np.random.default_rng(5)
        for i in range(8):
            sample = out / "calibration" / f"{i:03d}"
            sample.mkdir(parents=True, exist_ok=True)
            np.save(sample / "x.npy", rng.uniform(-1, 1, (2, 16, HIDDEN)).astype(np.float32))
        quantize = ["--quantize=static-int8", "--calibration", str(out / "calibration")]
    if bf16:
        quantize.append("--kept-precision=bf16")
    proc = tsc_compile(tsc, model, out / "loose.tscm", quantize + ["--max-error=1"])
    if proc.returncode:
        sys.exit("FAIL --max-error=1: " + proc.stderr)
    every, _, kept, _ = parse(proc.stdout)
    check("loose budget keeps nothing float", kept == [], f"kept {kept}, error {every:.1e}")
    previous = []
    for divisor in (1.5, 3):
        budget = every / divisor
        artifact = out / f"e{divisor}.tscm"
        proc = tsc_compile(tsc, model, artifact, quantize + [f"--max-error={budget:.3e}"])
        if proc.returncode:
            check(f"E=e_all/{divisor} compiles", False, proc.stderr.strip())
            continue
        _, alone, kept, final = parse(proc.stdout)
        print(f"KEPT E=e_all/{divisor}: {', '.join(kept)}")
        precision = re.search(r"kept-precision=(\w+)", proc.stdout)
        precision = precision.group(1) if precision else "?"
        if bf16 and divisor == 1.5:
            check(f"E=e_all/{divisor}: kept in bf16", "kept float (bf16, " in proc.stdout
                  and precision == "bf16", f"replay kept-precision={precision}")
        if static:
            ranges = re.search(r"input-ranges=([0-9.e+,-]+)", proc.stdout)
            count = len(ranges.group(1).split(",")) if ranges else 0
            check(f"E=e_all/{divisor}: the replay has every GEMM's range", count == 2 * LAYERS,
                  f"{count} ranges")
        check(f"E=e_all/{divisor}: 8 GEMMs measured alone", len(alone) == 2 * LAYERS,
              f"{sorted(alone)}")
        most = max(alone, key=alone.get) if alone else None
        check(f"E=e_all/{divisor}: the most sensitive GEMM is kept first",
              bool(kept) and kept[0] == most, f"{most} ({alone.get(most, 0):.1e})")
        check(f"E=e_all/{divisor}: the list grows as the budget tightens",
              set(previous) < set(kept), f"{len(previous)} -> {len(kept)}")
        check(f"E=e_all/{divisor}: final error within budget", final <= budget,
              f"{final:.1e} <= {budget:.1e}")
        y = run(tsc_run, artifact, out / "x.npy", out / f"e{divisor}")
        err = np.linalg.norm(y - ref) / np.linalg.norm(ref)
        check(f"E=e_all/{divisor}: tsc-run error on other inputs", err <= 2 * budget,
              f"{err:.1e} <= 2E = {2 * budget:.1e}")
        replay = out / f"e{divisor}-replay.tscm"
        replay_flags = quantize + ["--keep-float=" + ",".join(kept)]
        if bf16:
            replay_flags[-2] = f"--kept-precision={precision}"
        proc = tsc_compile(tsc, model, replay, replay_flags)
        check(f"E=e_all/{divisor}: --keep-float replays the artifact",
              proc.returncode == 0 and replay.read_bytes() == artifact.read_bytes(),
              f"exit {proc.returncode}, {replay.stat().st_size} bytes")
        previous = kept
    proc = tsc_compile(tsc, model, out / "none.tscm", quantize + ["--max-error=1e-9"])
    check("an unreachable budget fails with a message",
          proc.returncode == 1 and "only keeping every GEMM float" in proc.stderr
          and (not bf16 or "kept in f32 instead" in proc.stdout),
          proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
