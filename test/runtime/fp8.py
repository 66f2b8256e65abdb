#!/usr/bin/env python3
"""--quantize=fp8 end to end on dynamic_int8.py's FFN block (tsc, tsc-run).

fp8 runs on CUDA sm_89 and later only; its numerics are checked on the host
by the CUDA form's own code (--gpu-loop-mapping: the f8 product and the
kernels around it, run by the device code's loop structure), as the int8
CUDA form is. The FFN block (an outlier feature, an all-zero row, two
projections of one input, a K = 8 product kept float) is compiled in fp32
and in fp8 and run. Checks (rel L2 = |a - b| / |b| per output), each
printed as `PASS name: value <= bound` or `FAIL ...`:
- fp8 against an independent numpy model of the same quantization
  (ml_dtypes' float8_e4m3fn for the codes, float64 sums): z and u <= 1e-6
  (the same codes; f32 against f64 sums; measured 3.7e-8), y <= 1e-4
  (measured 4.8e-8; its second GEMM quantizes GELU's output, whose f32
  value may differ from numpy's in the last bit and so land on the other
  side of a rounding tie: one code one step off would move y by about
  1e-4);
- fp8 against fp32 <= 6e-2 (e4m3 keeps 3 mantissa bits: each code is
  within 2^-4 of its value; measured 2.7e-2 to 2.9e-2);
- t (kept float) equal to fp32's within 1e-6, the all-zero row zero;
- a CUDA compile's report lists two fp8 GEMM steps and t's as float (K =
  8) and measures the error on the host. W1, W3 and W5 (one input) become
  one merged GEMM of N = 96 + 8 + 12 = 116, not the multiple of 16 that
  cuBLASLt's fp8 kernels need: its weight is padded to 128 rows;
- `--max-error=0.035` keeps the two GEMMs whose fp8 error exceeds it float;
- static fp8 (`--calibration`, 3 samples, min-max): each activation per
  tensor by max|x| over the samples / 448 and each bias corrected by
  mean(input) · (W - dequantized W) (the means over the samples' rows),
  against the same numpy model with those scales and corrections (computed
  by numpy from the fp32 block): z, u <= 1e-6, y <= 1e-4, and against fp32
  <= 6e-2; with --bias-correction=off against the model without the
  corrections, the same bounds (printed `INFO`, against fp32: corrected
  2.68e-2 / 4.31e-2 / 3.13e-2 for y / z / u, uncorrected 2.79e-2 / 4.37e-2
  / 3.18e-2);
- an fp8 QDQ model (opset 19: f8E4M3FN QuantizeLinear/DequantizeLinear
  around two MatMuls of one input, an outlier past the activation's range
  that saturates) against ONNX Runtime's run of it (graph optimizations
  off: its Q/DQ fusion takes no f8): compiled for the host (the pairs in
  fp8 form, computed as written) <= 1e-6 (measured 0), and in the CUDA
  form on the host <= 1e-6 (f32 sums in another order; measured 1.8e-7);
  for CUDA both GEMMs are one merged fp8 step (N = 96 + 40, padded).

Usage: fp8.py OUT_DIR TSC TSC_RUN
"""
import math
import pathlib
import subprocess
import sys

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from dynamic_int8 import (F32_MIN, Checks, compile_and_run, outlier_inputs, rel_l2,  # noqa: E402
                          start)

E4M3_MAX = np.float32(448.0)


def to_e4m3(v):
    """f32 values to the nearest f8E4M3FN (ties to even), saturating."""
    return np.clip(v, -E4M3_MAX, E4M3_MAX).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)


def fp8_matmul(x, w, range_=None, mean=None):
    """x · w with w [K, N] in e4m3 per column and x per row, or with
    `range_` (a calibrated max|x|) per tensor (f32 scales). With `mean` (the
    calibration samples' mean of each input channel), plus the bias
    correction mean · (w - dequantized w)."""
    amax = np.abs(w).max(axis=0)
    ws = np.where(amax > 0, amax / E4M3_MAX, np.float32(1)).astype(np.float32)
    wq = to_e4m3((w / ws).astype(np.float32))
    x = x.astype(np.float32)
    top = (np.abs(x).max(axis=-1, keepdims=True) if range_ is None
           else np.float32(range_))
    s = np.maximum(top / E4M3_MAX, F32_MIN).astype(np.float32)
    q = to_e4m3((x / s).astype(np.float32))
    product = (q @ wq) * s.astype(np.float64) * ws.astype(np.float64)
    if mean is None:
        return product
    dequantized = (wq.astype(np.float32) * ws).astype(np.float64)
    return product + mean @ (w.astype(np.float64) - dequantized)


def gelu(h):
    erf = np.vectorize(math.erf)
    return (0.5 * h * (1 + erf(h / math.sqrt(2)))).astype(np.float32)


def reference(feeds, w, ranges=None, means=None):
    """The block with fp8 GEMMs; `ranges` (max|x| and max|g|) for static,
    and `means` (x's and g's per channel) for its bias correction."""
    rx, rg = ranges or (None, None)
    mx, mg = means or (None, None)
    x = feeds["x"]
    g = gelu(fp8_matmul(x, w["W1"], rx, mx) + w["b1"])
    return {"y": fp8_matmul(g, w["W2"], rg, mg) + w["b2"] + x,
            "z": fp8_matmul(x, w["W3"], rx, mx), "u": fp8_matmul(x, w["W5"], rx, mx),
            "t": feeds["s"].astype(np.float64) @ w["W4"]}


def calibrate(out, weights):
    """Three calibration samples in out/calibration (the folder), the ranges
    min-max calibration gives: max|x| and max|GELU(x·W1 + b1)| (f32), and
    the means of each of their channels over the samples' rows."""
    folder = out / "calibration"
    rx = rg = 0.0
    xs, gs = [], []
    for i in range(3):
        rng = np.random.default_rng(300 + i)
        x = rng.standard_normal((2, 5, 64)).astype(np.float32)
        x[:, :, 7] *= 20.0
        (folder / str(i)).mkdir(parents=True, exist_ok=True)
        np.save(folder / str(i) / "x.npy", x)
        np.save(folder / str(i) / "s.npy", rng.standard_normal((2, 8)).astype(np.float32))
        g = gelu(x.astype(np.float64) @ weights["W1"] + weights["b1"])
        rx, rg = max(rx, float(np.abs(x).max())), max(rg, float(np.abs(g).max()))
        xs.append(x.reshape(-1, 64))
        gs.append(g.reshape(-1, g.shape[-1]))
    means = tuple(np.concatenate(v).astype(np.float64).mean(axis=0) for v in (xs, gs))
    return folder, (rx, rg), means


def qdq_fp8(out, tsc, tsc_run, check):
    """The fp8 QDQ model against ONNX Runtime (see the module's docstring)."""
    rng = np.random.default_rng(5)
    k, widths = 64, {"y1": 96, "y2": 40}
    initializers = [numpy_helper.from_array(np.array(0.02, np.float32), "xs"),
                    helper.make_tensor("zp", TensorProto.FLOAT8E4M3FN, [], [0])]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "zp"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "xs", "zp"], ["xd"])]
    for name, n in widths.items():
        w = (rng.standard_normal((k, n)) * 0.1).astype(np.float32)
        ws = (np.abs(w).max(axis=0) / E4M3_MAX).astype(np.float32)
        codes = (w / ws).astype(ml_dtypes.float8_e4m3fn)
        initializers += [helper.make_tensor(f"{name}_w", TensorProto.FLOAT8E4M3FN, [k, n],
                                            codes.view(np.uint8).tobytes(), raw=True),
                         numpy_helper.from_array(ws, f"{name}_s")]
        nodes += [helper.make_node("DequantizeLinear", [f"{name}_w", f"{name}_s"],
                                   [f"{name}_wd"], axis=1),
                  helper.make_node("MatMul", ["xd", f"{name}_wd"], [name])]
    graph = helper.make_graph(
        nodes, "qdq_fp8", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", k])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, ["b", n])
         for name, n in widths.items()], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)],
                              ir_version=9)
    onnx.checker.check_model(model)
    path = out / "qdq-fp8.onnx"
    onnx.save(model, path)
    x = (rng.standard_normal((5, k)) * 3).astype(np.float32)
    x[0, 0] = 100.0  # past 448 · 0.02: saturates
    np.save(out / "qdq_x.npy", x)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    expected = dict(zip(widths, ort.InferenceSession(str(path), options).run(None, {"x": x})))
    for label, flags in (("host", []), ("cuda form", ["--gpu-loop-mapping"])):
        artifact = out / f"qdq-{label.replace(' ', '-')}.tscm"
        subprocess.run([tsc, str(path), "--dim", "b=1..8", *flags, "-o", str(artifact)],
                       check=True, capture_output=True)
        run = out / f"qdq-{label.replace(' ', '-')}"
        subprocess.run([tsc_run, str(artifact), "--input", f"x={out / 'qdq_x.npy'}",
                        "--output-dir", str(run)], check=True, stdout=subprocess.DEVNULL)
        for name in widths:
            check(f"qdq {name} {label} vs ONNX Runtime",
                  rel_l2(np.load(run / f"{name}.npy"), expected[name]), 1e-6)
    report = subprocess.run([tsc, str(path), "--dim", "b=1..8", "--target=cuda:sm_90",
                             "--report"], check=True, capture_output=True, text=True).stdout
    print(f"QDQ {next((l for l in report.splitlines() if l.startswith('quantization')), '')}")


def main():
    out, tsc, tsc_run, rng, weights = start()
    feeds, args = outlier_inputs(out, rng)
    fp32 = compile_and_run(out, "fp32", [], tsc, tsc_run, args)
    fp8 = compile_and_run(out, "fp8", ["--quantize=fp8", "--gpu-loop-mapping"], tsc, tsc_run,
                          args)
    ref = reference(feeds, weights)

    check = Checks()
    for k, bound in (("y", 1e-4), ("z", 1e-6), ("u", 1e-6)):
        check(f"{k} fp8 vs numpy", rel_l2(fp8[k], ref[k]), bound)
        check(f"{k} fp8 vs fp32", rel_l2(fp8[k], fp32[k]), 6e-2)
    check("t kept float vs fp32", rel_l2(fp8["t"], fp32["t"]), 1e-6)
    check("zero row of z", float(np.abs(fp8["z"][1, 3]).max()), 0.0)
    report = subprocess.run([tsc, str(out / "model.onnx"), "--report", "--quantize=fp8",
                             "--target=cuda:sm_90", "--dim", "batch=1..4", "--dim",
                             "seq=1..64"], check=True, capture_output=True, text=True).stdout
    for line in report.splitlines():
        if line.startswith("quantization:") or line.startswith("measured error"):
            print(f"REPORT {line}")
    decisions = [l.split(None, 2)[2] for l in report.splitlines() if l.startswith("  step ")]
    print(f"REPORT fp8 gemm steps: {sum(d.startswith('fp8') for d in decisions)}")
    # The error budget works for fp8 as for int8: 0.035 is below z's and u's
    # errors with every GEMM fp8 (3.7e-2, 3.6e-2), so their GEMMs stay float.
    budget = subprocess.run([tsc, str(out / "model.onnx"), "--quantize=fp8", "--max-error=0.035",
                             "--target=cuda:sm_90", "--dim", "batch=1..4", "--dim", "seq=1..64",
                             "-o", str(out / "budget.tscm")], check=True, capture_output=True,
                            text=True)
    for line in (budget.stdout + budget.stderr).splitlines():
        if "kept float" in line or "final error" in line:
            print(f"BUDGET {line.strip()}")
    folder, ranges, means = calibrate(out, weights)
    static = compile_and_run(out, "fp8-static",
                             ["--quantize=fp8", "--calibration", str(folder),
                              "--calibration-method=min-max", "--gpu-loop-mapping"],
                             tsc, tsc_run, args)
    ref = reference(feeds, weights, ranges, means)
    uncorrected = compile_and_run(out, "fp8-static-uncorrected",
                                  ["--quantize=fp8", "--calibration", str(folder),
                                   "--calibration-method=min-max", "--bias-correction=off",
                                   "--gpu-loop-mapping"], tsc, tsc_run, args)
    ref_uncorrected = reference(feeds, weights, ranges)
    for k, bound in (("y", 1e-4), ("z", 1e-6), ("u", 1e-6)):
        check(f"{k} static fp8 vs numpy", rel_l2(static[k], ref[k]), bound)
        check(f"{k} static fp8 uncorrected vs numpy",
              rel_l2(uncorrected[k], ref_uncorrected[k]), bound)
        check(f"{k} static fp8 vs fp32", rel_l2(static[k], fp32[k]), 6e-2)
        print(f"INFO {k} static fp8 vs fp32: corrected {rel_l2(static[k], fp32[k]):.3g}, "
              f"uncorrected {rel_l2(uncorrected[k], fp32[k]):.3g}")
    qdq_fp8(out, tsc, tsc_run, check)
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
