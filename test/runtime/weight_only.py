#!/usr/bin/env python3
"""--quantize=weight-int8|weight-int4[:group=G][:zero-points] end to end (tsc, tsc-run).

The ONNX model: h = gelu(x·W1 + b1) with W1 [K=64, N=96] (ONNX's MatMul
layout), y = Gemm(h, W2, transB) + x with W2 [N=64, K=96] (PyTorch's
layout), and t = s·W3 with K = 8, which min-input-features keeps float.
Each mode is compiled twice and run:
- as shipped: weight-only GEMM steps (format 1.15), which dequantize the
  weights once per session and run oneDNN's f32 matmul;
- with --generated-gemms: the dequantize-then-product IR computed as written
  by generated kernels (the packed i4 read by the kernels).
Checks (rel L2 per output), each printed as `PASS name: value <= bound` or
`FAIL ...`:
- the steps against the generated kernels <= 1e-5 (only the order of the
  sums differs);
- the steps against an independent numpy model of the documented
  quantization (symmetric, scale = max|W| / (2^(bits-1) - 1) per output
  channel or group of G along K, round half to even) <= 1e-5;
- against fp32 within the mode's bound below (the quantization error of
  these random weights; the measured values are printed);
- t (kept float) equal to fp32's within 1e-6;
- the report's weight-only line and the profile's step names;
- the report's weight bytes below the fp32 artifact's by the mode's ratio;
- int8 and int4-g32-zp with --calibration (three samples drawn as the input
  is): each GEMM's bias corrected by mean(input) · (W - dequantized W) over
  the samples, against the numpy model with that correction <= 1e-5 (the
  model without it is 2.3e-3 and 3.2e-2 away: printed `INFO`), and against
  fp32 within the mode's bound (measured 4.8e-3 against 5.1e-3 uncorrected
  for int8; 6.8e-2 either way for int4).

Usage: weight_only.py OUT_DIR TSC TSC_RUN
"""
import math
import pathlib
import re
import subprocess
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper
import onnx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from dynamic_int8 import Checks, erf_gelu_constants, erf_gelu_nodes, rel_l2  # noqa: E402

# mode -> (flags, bits, group (0: per channel), zero points, bound vs fp32,
# largest weight-bytes ratio to fp32 (scales and zero points included)).
MODES = {
    "int8": (["--quantize=weight-int8"], 8, 0, False, 2e-2, 0.30),
    "int8-g16": (["--quantize=weight-int8:group=16"], 8, 16, False, 2e-2, 0.35),
    "int4-g32": (["--quantize=weight-int4:group=32"], 4, 32, False, 0.2, 0.20),
    # 128 covers both K (64, 96): one scale per output channel.
    "int4": (["--quantize=weight-int4"], 4, 0, False, 0.25, 0.20),
    # Asymmetric codes, a zero point per group (format 1.18's step).
    "int4-g32-zp": (["--quantize=weight-int4:group=32:zero-points"], 4, 32, True, 0.2, 0.22),
}


def build_model(rng):
    def init(name, shape, scale):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name)

    weights = {"W1": init("W1", (64, 96), 0.15), "b1": init("b1", (96,), 0.1),
               "W2": init("W2", (64, 96), 0.1), "W3": init("W3", (8, 4), 0.3)}
    nodes = [
        helper.make_node("MatMul", ["x", "W1"], ["h0"]),
        helper.make_node("Add", ["h0", "b1"], ["h"]),
        *erf_gelu_nodes("h", "g"),
        helper.make_node("Gemm", ["g", "W2"], ["y0"], transB=1),
        helper.make_node("Add", ["y0", "x"], ["y"]),
        helper.make_node("MatMul", ["s", "W3"], ["t"]),
    ]
    f32 = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "ffn",
        [helper.make_tensor_value_info("x", f32, ["rows", 64]),
         helper.make_tensor_value_info("s", f32, ["rows", 8])],
        [helper.make_tensor_value_info("y", f32, ["rows", 64]),
         helper.make_tensor_value_info("t", f32, ["rows", 4])],
        list(weights.values()) + erf_gelu_constants())
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return model, {k: numpy_helper.to_array(v) for k, v in weights.items()}


def dequantized(w, k_axis, bits, group, zero_points=False):
    """w quantized as docs/quantization.md states it, in f32, dequantized:
    symmetric codes, or with `zero_points` each group's [min(w, 0), max(w,
    0)] onto all 2^bits codes."""
    wk = np.moveaxis(w, k_axis, 0).astype(np.float32)  # [K, N]
    k = wk.shape[0]
    group = group if 0 < group < k else k
    qmax = np.float32(2 ** (bits - 1) - 1)
    out = np.empty_like(wk)
    for start in range(0, k, group):
        block = wk[start:start + group]
        if zero_points:
            lo = np.minimum(block.min(axis=0), 0)
            hi = np.maximum(block.max(axis=0), 0)
            scale = ((hi - lo) / np.float32(2 * qmax + 1)).astype(np.float32)
            scale = np.where(scale > 0, scale, np.float32(1)).astype(np.float32)
            zp = np.clip(np.rint(-lo / scale) - (qmax + 1), -qmax - 1, qmax)
            codes = np.clip(np.rint(block / scale) + zp, -qmax - 1, qmax)
            out[start:start + group] = (codes - zp) * scale
            continue
        amax = np.abs(block).max(axis=0)
        scale = np.where(amax > 0, amax / qmax, np.float32(1)).astype(np.float32)
        codes = np.clip(np.rint(block / scale), -qmax, qmax)
        out[start:start + group] = codes * scale
    return np.moveaxis(out, 0, k_axis)


def gelu(h):
    erf = np.vectorize(math.erf)
    return 0.5 * h * (1 + erf(h / math.sqrt(2)))


def reference(feeds, w, bits, group, zero_points, samples=None):
    """The block with dequantized weights; with calibration `samples`, each
    GEMM's bias corrected by mean(input) · (W - dequantized W), the means
    over the samples' rows of the fp32 block's GEMM inputs."""
    x = feeds["x"].astype(np.float64)
    w1 = dequantized(w["W1"], 0, bits, group, zero_points).astype(np.float64)
    w2 = dequantized(w["W2"], 1, bits, group, zero_points).astype(np.float64)
    c1 = c2 = 0.0
    if samples is not None:
        xs = np.concatenate([s["x"] for s in samples]).astype(np.float32)
        gs = gelu(xs.astype(np.float64) @ w["W1"] + w["b1"]).astype(np.float32)
        c1 = xs.astype(np.float64).mean(axis=0) @ (w["W1"].astype(np.float64) - w1)
        c2 = gs.astype(np.float64).mean(axis=0) @ (w["W2"].astype(np.float64) - w2).T
    g = gelu(x @ w1 + w["b1"] + c1)
    return {"y": g @ w2.T + c2 + x, "t": feeds["s"].astype(np.float64) @ w["W3"]}


def compile_and_run(folder, name, flags, tsc, tsc_run, args):
    artifact = folder / f"{name}.tscm"
    subprocess.run([tsc, str(folder / "model.onnx"), "-o", str(artifact),
                    "--dim", "rows=1..16", *flags], check=True)
    out = folder / name
    subprocess.run([tsc_run, str(artifact), *args, "--output-dir", str(out),
                    "--threads", "2"], check=True, stdout=subprocess.DEVNULL)
    return {k: np.load(out / f"{k}.npy") for k in ("y", "t")}


def report(tsc, folder, flags):
    """tsc --report's text for the model compiled with `flags`."""
    return subprocess.run([tsc, str(folder / "model.onnx"), "--report",
                           "--dim", "rows=1..16", "-o", str(folder / "report.tscm"),
                           *flags], check=True, capture_output=True, text=True).stdout


def weight_bytes(text):
    m = re.search(r"^weights: (\d+) bytes", text, re.M)
    if not m:
        raise SystemExit(f"no weight bytes in the report:\n{text}")
    return int(m.group(1))


def main():
    out, tsc, tsc_run = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(22)
    model, weights = build_model(rng)
    onnx.save(model, out / "model.onnx")
    feeds = {"x": rng.standard_normal((5, 64)).astype(np.float32),
             "s": rng.standard_normal((5, 8)).astype(np.float32)}
    args = []
    for key, value in feeds.items():
        np.save(out / f"{key}.npy", value)
        args += ["--input", f"{key}={out / (key + '.npy')}"]
    fp32 = compile_and_run(out, "fp32", [], tsc, tsc_run, args)
    fp32_bytes = weight_bytes(report(tsc, out, []))
    check = Checks()

    for mode, (flags, bits, group, zero_points, bound, ratio) in MODES.items():
        steps = compile_and_run(out, mode, flags, tsc, tsc_run, args)
        generated = compile_and_run(out, mode + "-generated",
                                    flags + ["--generated-gemms"], tsc, tsc_run,
                                    args)
        # CUDA's form (the weight dequantized by a kernel each run, then an
        # f32 GEMM), run by the device code's loops on the host.
        mapping = compile_and_run(out, mode + "-gpu-mapping",
                                  flags + ["--gpu-loop-mapping"], tsc, tsc_run, args)
        ref = reference(feeds, weights, bits, group, zero_points)
        check(f"{mode} y steps vs generated", rel_l2(steps["y"], generated["y"]), 1e-5)
        check(f"{mode} y cuda form vs steps", rel_l2(mapping["y"], steps["y"]), 1e-6)
        check(f"{mode} y steps vs numpy", rel_l2(steps["y"], ref["y"]), 1e-5)
        check(f"{mode} y vs fp32", rel_l2(steps["y"], fp32["y"]), bound)
        check(f"{mode} t kept float vs fp32", rel_l2(steps["t"], fp32["t"]), 1e-6)
        text = report(tsc, out, flags)
        check(f"{mode} weight bytes / fp32's", weight_bytes(text) / fp32_bytes, ratio)
        profile = subprocess.run(
            [tsc_run, str(out / f"{mode}.tscm"), *args, "--profile"],
            check=True, capture_output=True, text=True).stdout
        count = len(re.findall(r"^ +\d+ +[\d.]+ +gemm weight-only", profile, re.M))
        print(f"PROFILE {mode}: {count} weight-only gemm steps")
        for line in text.splitlines():
            if line.startswith("quantization:"):
                print(f"REPORT {mode}: {line}")

    # Bias correction (--calibration with a weight-only mode): three
    # samples of x (and s) drawn as the input is; x's means are near 0, the
    # GELU's output (the second GEMM's input) has positive ones.
    calibration = out / "calibration"
    samples = []
    for i in range(3):
        sample = {"x": rng.standard_normal((6, 64)).astype(np.float32),
                  "s": rng.standard_normal((6, 8)).astype(np.float32)}
        (calibration / str(i)).mkdir(parents=True, exist_ok=True)
        for key, value in sample.items():
            np.save(calibration / str(i) / f"{key}.npy", value)
        samples.append(sample)
    for mode in ("int8", "int4-g32-zp"):
        flags, bits, group, zero_points, bound, _ = MODES[mode]
        name = mode + "-corrected"
        steps = compile_and_run(out, name, flags + ["--calibration", str(calibration)],
                                tsc, tsc_run, args)
        ref = reference(feeds, weights, bits, group, zero_points, samples)
        uncorrected = reference(feeds, weights, bits, group, zero_points)
        check(f"{name} y steps vs numpy", rel_l2(steps["y"], ref["y"]), 1e-5)
        # The correction is there: the uncorrected model is farther off.
        print(f"INFO {name} y vs the uncorrected numpy model: "
              f"{rel_l2(steps['y'], uncorrected['y']):.3g}")
        check(f"{name} y vs fp32", rel_l2(steps["y"], fp32["y"]), bound)
        print(f"INFO {name} y vs fp32: {rel_l2(steps['y'], fp32['y']):.3g} "
              f"(uncorrected {rel_l2(compile_and_run(out, mode, flags, tsc, tsc_run, args)['y'], fp32['y']):.3g})")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
