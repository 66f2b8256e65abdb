#!/usr/bin/env python3
"""GELU as a GEMM epilogue (tsc.linear's `activation`) against ONNX Runtime.

One small ONNX model holds the FFN shapes of a transformer block three ways:
`Gelu(x·W1 + b1)` exact (opset 20's Gelu, approximate "none"), then a down
projection with the residual `x`; the same with `approximate="tanh"` on the
same x (two GEMMs of one input that must not merge: their activations
differ); and, after the tanh block, an exact GELU written out as
`0.5·h·(1 + Erf(h / √2))` (what exporters before opset 20 emit, fused into
tsc.gelu by tsc-fuse-activations). For the host
target each GELU must fold into its GEMM (`activation = gelu` / `gelu_tanh`
in `tsc --emit=fuse`, no tsc.gelu left); for a CUDA target only the tanh one
may (cuBLASLt's GELU epilogue is the tanh approximation), so the erf GELUs
stay tsc.gelu there.

The model is compiled for the host three ways, all of which must compute the
same function: with the GEMM library (oneDNN eltwise post-ops), with
generated GEMM kernels (`--generated-gemms`: the linalg lowering of the
activation) and with the CUDA target's loop mapping (`--gpu-loop-mapping`).
Each runs at (batch, seq) = (2, 9) on seeded inputs with tsc-run and every
output is compared with ONNX Runtime's (CPUExecutionProvider): relative L2 at
most 5e-6 (fp32 throughout). The check can fail: ONNX Runtime's outputs for
the model with each GELU's formula swapped are computed too, and they must
differ from the reference by more than 10x the tolerance (they differ by
about 1.3e-4: a GELU computed by the wrong formula would be caught).

Usage: gemm_gelu.py --tsc TSC --tsc-run TSC_RUN --work DIR
"""
import argparse
import pathlib
import re
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

TOLERANCE = 5e-6
HIDDEN, FFN = 64, 256
F32 = TensorProto.FLOAT
RANGES = ["--dim", "batch=1..4", "--dim", "seq=1..64"]
BUILDS = {"library": [], "generated-gemms": ["--generated-gemms"],
          "gpu-loop-mapping": ["--gpu-loop-mapping"]}


def ffn_model(rng, tanh_as_erf=False):
    """y_erf, y_tanh, y_formula: three FFN blocks on x [batch, seq, HIDDEN].

    With `tanh_as_erf` every GELU is the other formula: the wrong answer a
    mixed-up epilogue would give, to show the tolerance tells them apart."""
    def init(name, *shape, scale=1.0):
        values = (rng.standard_normal(shape) * scale).astype(np.float32)
        return helper.make_tensor(name, F32, list(shape), values.ravel())

    nodes, inits = [], []
    approx = {"erf": "tanh" if tanh_as_erf else "none",
              "tanh": "none" if tanh_as_erf else "tanh"}
    for tag in ("erf", "tanh", "formula"):
        # Pre-activations of a few units: the GELU's curved part.
        inits += [init(f"w1_{tag}", HIDDEN, FFN, scale=0.25), init(f"b1_{tag}", FFN),
                  init(f"w2_{tag}", FFN, HIDDEN, scale=0.5), init(f"b2_{tag}", HIDDEN)]
        # The formula block follows the tanh one: were it to read x too,
        # its GEMM would merge with the erf block's (same input and
        # activation) and hide whether it folded on its own.
        source = "y_tanh" if tag == "formula" else "x"
        nodes += [helper.make_node("MatMul", [source, f"w1_{tag}"], [f"p_{tag}"]),
                  helper.make_node("Add", [f"p_{tag}", f"b1_{tag}"], [f"h_{tag}"])]
        if tag == "formula" and not tanh_as_erf:
            inits += [helper.make_tensor("sqrt2", F32, [], [np.sqrt(2.0)]),
                      helper.make_tensor("one", F32, [], [1.0]),
                      helper.make_tensor("half", F32, [], [0.5])]
            nodes += [helper.make_node("Div", ["h_formula", "sqrt2"], ["s_formula"]),
                      helper.make_node("Erf", ["s_formula"], ["e_formula"]),
                      helper.make_node("Add", ["e_formula", "one"], ["c_formula"]),
                      helper.make_node("Mul", ["h_formula", "c_formula"], ["m_formula"]),
                      helper.make_node("Mul", ["m_formula", "half"], ["g_formula"])]
        else:
            kind = "tanh" if tag == "formula" else approx[tag]
            nodes.append(helper.make_node("Gelu", [f"h_{tag}"], [f"g_{tag}"],
                                          approximate=kind))
        nodes += [helper.make_node("MatMul", [f"g_{tag}", f"w2_{tag}"], [f"d_{tag}"]),
                  helper.make_node("Add", [f"d_{tag}", f"b2_{tag}"], [f"o_{tag}"]),
                  helper.make_node("Add", [source, f"o_{tag}"], [f"y_{tag}"])]
    io = lambda name: helper.make_tensor_value_info(name, F32, ["batch", "seq", HIDDEN])
    graph = helper.make_graph(nodes, "ffn_gelu", [io("x")],
                              [io(f"y_{t}") for t in ("erf", "tanh", "formula")], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    onnx.checker.check_model(m)
    return m


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        lines = proc.stderr.strip().splitlines()
        raise RuntimeError(f"{pathlib.Path(cmd[0]).name}: {lines[-1] if lines else proc.returncode}")
    return proc.stdout


def rel_l2(got, ref):
    return float(np.linalg.norm(got.astype(np.float64) - ref) / np.linalg.norm(ref))


def check_fold(tsc, path, target, expect):
    """The activations of --emit=fuse's linears for `target`, and the GELUs
    left, against `expect` = (sorted activations, GELUs left)."""
    fused = run([tsc, str(path), "--emit=fuse", f"--target={target}"] + RANGES)
    found = (sorted(re.findall(r"tsc\.linear .*activation = (\w+)", fused)),
             len(re.findall(r"= tsc\.gelu ", fused)))
    if found != expect:
        return f"{target}: activations {found[0]}, {found[1]} tsc.gelu; expected {expect[0]}, {expect[1]}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    path = work / "ffn_gelu.onnx"
    onnx.save(ffn_model(np.random.default_rng(21)), path)
    wrong = work / "ffn_gelu_swapped.onnx"
    onnx.save(ffn_model(np.random.default_rng(21), tanh_as_erf=True), wrong)

    x = (np.random.default_rng(5).standard_normal((2, 9, HIDDEN))).astype(np.float32)
    np.save(work / "x.npy", x)
    names = ["y_erf", "y_tanh", "y_formula"]
    ref = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(names, {"x": x})
    swapped = ort.InferenceSession(str(wrong), providers=["CPUExecutionProvider"]).run(
        names, {"x": x})
    failures = 0
    # The check's power: each output's other-formula answer is far outside
    # the tolerance ("formula" swapped is a tanh GELU).
    distance = min(rel_l2(s, r) for s, r in zip(swapped, ref))
    if not distance > 10 * TOLERANCE:
        failures += 1
        print(f"FAIL power: erf and tanh GELU outputs differ by only {distance:.1e}")
    else:
        print(f"PASS power: erf vs tanh GELU outputs differ by >= {distance:.1e}")

    for target, expect in (("cpu", (["gelu", "gelu", "gelu_tanh"], 0)),
                           ("cuda:sm_90", (["gelu_tanh"], 2))):
        try:
            problem = check_fold(args.tsc, path, target, expect)
        except RuntimeError as e:
            problem = str(e)
        failures += problem is not None
        print(f"FAIL fold {problem}" if problem else f"PASS fold {target}")

    for build, options in BUILDS.items():
        artifact = work / f"{build}.tscm"
        out = work / build
        try:
            run([args.tsc, str(path), "-o", str(artifact)] + RANGES + options)
            run([args.tsc_run, str(artifact), "--input", f"x={work / 'x.npy'}",
                 "--output-dir", str(out), "--threads", "1"])
        except RuntimeError as e:
            failures += 1
            print(f"FAIL {build}: {e}")
            continue
        errors = {n: rel_l2(np.load(out / f"{n}.npy"), r) for n, r in zip(names, ref)}
        bad = {n: e for n, e in errors.items() if not e <= TOLERANCE}
        failures += bool(bad)
        worst = max(errors.values())
        print(f"{'FAIL' if bad else 'PASS'} {build}: max rel L2 {worst:.1e}"
              + (f" > {TOLERANCE:g} in {sorted(bad)}" if bad else ""))
    print(f"gemm gelu: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
