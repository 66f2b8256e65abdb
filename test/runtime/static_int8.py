#!/usr/bin/env python3
"""--quantize=static-int8 --calibration end to end on dynamic_int8.py's FFN
block (tsc, tsc-run).

Calibration: four samples of x (with the outlier column) and s, seeded. The
model is compiled four ways and run on an input of the same distribution:
- `fp32`: no quantization;
- `static` (--calibration-method=min-max): int8 GEMM steps whose activation
  scale and zero point are constants (artifact step kind 7, flags bit 3):
  asymmetric activations, the default;
- `symmetric` (the same with --calibration-range=symmetric): no zero point;
- `uncorrected` (the same with --bias-correction=off): the biases as the
  model has them (with it, the default, each quantized GEMM's bias gains
  mean(x) · (W - dequantized W), the calibration inputs' mean);
- `static-generated` (--generated-gemms): the same quantize-dequantize IR
  computed as written by generated kernels;
- `percentile` and `entropy`: the other observers;
- `smoothed` (--smoothing=0.5): x's outlier column moved into W1's and
  W3's rows (one set of factors for the two GEMMs reading x), g's columns
  into W2's: int8 steps with multipliers (flags bit 5), ranges from the
  channels' extremes; `auto` (the default): the alpha of least measured
  error. Every other compile says --smoothing=off, as its numpy model has
  none.
Checks (rel L2 = |a - b| / |b| per output), printed `PASS name: value <=
bound` or `FAIL ...`:
- static against static-generated <= 1e-5: the step computes what the IR
  says (with the constant scale folded into oneDNN's output scales);
- static against an independent numpy model (per-tensor scale (max - min) /
  255 over the calibration samples, 0 included, and the zero point mapping
  min to -128; values beyond saturated; each bias corrected by the mean of
  the GEMM's input over the calibration samples) <= 1e-4; symmetric against
  the same model with scale max|x| / 127 and no zero point <= 1e-4;
  uncorrected against the model without the correction <= 1e-4 (printed
  `INFO`: both against fp32; on this block, whose test input is not the
  calibration samples' and whose means are near 0 but for the GELU's, the
  correction moves y by 1 % of its error, z not at all: BERT-base's figures
  are in docs/quantization.md);
- smoothed against an independent numpy model of the smoothing (factors
  max|x_k|^0.5 / max|W_k|^0.5 over the calibration samples' channel extremes
  and every weight reading the input, the weights' rows divided by their
  multipliers, the range the extremes times the multipliers) <= 1e-4, its
  CUDA form (the multiplication fused into the quantizing kernels) run by
  the device code's loops on the host against it <= 1e-6, and
  closer to fp32 than unsmoothed static on y and z (the outlier column no
  longer sets the scale: docs/quantization.md "Smoothing");
- auto against fp32 no worse than unsmoothed static on the largest error
  of y and z (auto measures on the calibration samples, this on another
  input, so within 10 %);
- y asymmetric no worse than symmetric against fp32: its second GEMM's
  input is a GELU's output, [-0.17, max], half of which a symmetric range
  wastes;
- static, percentile and entropy against fp32 <= 1e-1: one scale for the
  whole tensor, whose outlier column (20x) sets it, leaves the other features
  few codes (measured 3.1e-2 for min-max and percentile; entropy 6.7e-2 on y,
  whose GELU input it clips, 2.8e-2 on z; docs/quantization.md); t (K = 8) stays float,
  equal to fp32 within 1e-6;
- static and smoothed run with oneDNN held to AVX-512 and AVX2 (A's codes
  as f32) against their unrestricted runs (u8 codes, the zero point + 128,
  on a CPU with VNNI and no AMX) <= 1e-6 (run_code_forms);
- the report says static int8 and keeps t float;
- bad calibration folders are refused naming the folder or file (printed
  `REFUSED ...` lines for FileCheck).

Usage: static_int8.py OUT_DIR TSC TSC_RUN
"""
import json
import math
import pathlib
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from dynamic_int8 import (Checks, compile_and_run, rel_l2, run_code_forms,  # noqa: E402
                          smoothing_multipliers, start)


def quantize_weight(w):
    """Per output column symmetric s8, as the pass does."""
    amax = np.abs(w).max(axis=0)
    ws = np.where(amax > 0, amax / np.float32(127), np.float32(1)).astype(np.float32)
    return np.clip(np.rint(w / ws), -127, 127).astype(np.int64), ws.astype(np.float64)


def static_matmul(x, w, lo, hi, symmetric, mean=None):
    """x · w, x quantized per tensor by the calibrated range [lo, hi]:
    symmetric by max|x| = hi, or asymmetric with a zero point. With `mean`
    (each input channel's mean over the calibration samples), plus the bias
    correction mean · (w - dequantized w)."""
    tiny = np.finfo(np.float32).tiny
    if symmetric:
        s, z = np.float32(max(np.float32(hi) / np.float32(127), tiny)), 0
    else:
        lo, hi = np.float32(min(lo, 0.0)), np.float32(max(hi, 0.0))
        s = np.float32(max((hi - lo) / np.float32(255), tiny))
        z = int(np.clip(np.rint(-128.0 - np.float64(lo) / np.float64(s)), -128, 127))
    q = np.clip(np.rint(x.astype(np.float32) / s) + z, -128, 127).astype(np.int64) - z
    wq, ws = quantize_weight(w)
    product = (q @ wq).astype(np.float64) * np.float64(s) * ws
    if mean is None:
        return product
    dequantized = (wq.astype(np.float32) * ws.astype(np.float32)).astype(np.float64)
    return product + mean.astype(np.float64) @ (w.astype(np.float64) - dequantized)


def smoothed_reference(feeds, w, samples, alpha):
    """The numpy model with smoothing (asymmetric, bias-corrected): x * m
    (f32) quantized by the smoothed range, by W / m (f32) per row."""
    def mean(values):
        rows = np.concatenate([v.reshape(-1, v.shape[-1]) for v in values])
        return rows.astype(np.float64).mean(axis=0)
    xs = [s["x"] for s in samples]
    gs = [gelu(s["x"].astype(np.float64) @ w["W1"] + w["b1"]).astype(np.float32)
          for s in samples]
    mx, lox, hix = smoothing_multipliers(xs, [w["W1"], w["W3"]], alpha)
    mg, log, hig = smoothing_multipliers(gs, [w["W2"]], alpha)
    def smooth(v, m):
        return (v.astype(np.float32) * m).astype(np.float32)
    def scaled(weight, m):
        return (weight.astype(np.float32) / m[:, None]).astype(np.float32)
    x = feeds["x"]
    h = static_matmul(smooth(x, mx), scaled(w["W1"], mx), lox, hix, False,
                      mean(xs) * mx) + w["b1"]
    g = gelu(h).astype(np.float32)
    y = static_matmul(smooth(g, mg), scaled(w["W2"], mg), log, hig, False,
                      mean(gs) * mg) + w["b2"] + x
    z = static_matmul(smooth(x, mx), scaled(w["W3"], mx), lox, hix, False,
                      mean(xs) * mx)
    return {"y": y, "z": z}


def gelu(h):
    erf = np.vectorize(math.erf)
    return 0.5 * h * (1 + erf(h / math.sqrt(2)))


def reference(feeds, w, samples, symmetric, correct=True):
    """The numpy model; ranges by min-max over the fp32 (float32 here)
    activations of the calibration samples, and with `correct` each GEMM's
    bias corrected by its input's mean over them."""
    def extent(values):
        lo = min(float(v.min()) for v in values)
        hi = max(float(v.max()) for v in values)
        return (-max(-lo, hi), max(-lo, hi)) if symmetric else (lo, hi)
    def mean(values):
        rows = np.concatenate([v.reshape(-1, v.shape[-1]) for v in values])
        return rows.astype(np.float64).mean(axis=0) if correct else None
    xs = [s["x"] for s in samples]
    gs = [gelu(s["x"].astype(np.float64) @ w["W1"] + w["b1"]).astype(np.float32)
          for s in samples]
    range_x, range_g, mean_x, mean_g = extent(xs), extent(gs), mean(xs), mean(gs)
    x = feeds["x"]
    h = static_matmul(x, w["W1"], *range_x, symmetric, mean_x) + w["b1"]
    g = gelu(h).astype(np.float32)
    y = static_matmul(g, w["W2"], *range_g, symmetric, mean_g) + w["b2"] + x
    z = static_matmul(x, w["W3"], *range_x, symmetric, mean_x)
    return {"y": y, "z": z, "t": feeds["s"].astype(np.float64) @ w["W4"]}


def make_feeds(rng):
    x = rng.standard_normal((2, 5, 64)).astype(np.float32)
    x[:, :, 7] *= 20.0  # an outlier feature, as transformers have
    return {"x": x, "s": rng.standard_normal((2, 8)).astype(np.float32)}


def refused(tsc, model, folder, what):
    """Compiles with the calibration folder `folder`; prints the first error."""
    proc = subprocess.run([tsc, str(model), "--quantize=static-int8", "--calibration",
                           str(folder), "-o", str(folder) + ".tscm"],
                          capture_output=True, text=True)
    line = next((l for l in proc.stderr.splitlines() if "error" in l), "no error")
    print(f"REFUSED {what} (exit {proc.returncode}): {line}")


def main():
    out, tsc, tsc_run, rng, weights = start()
    calibration = out / "calibration"
    samples = [make_feeds(np.random.default_rng(100 + i)) for i in range(4)]
    for i, sample in enumerate(samples):
        (calibration / f"{i}").mkdir(parents=True, exist_ok=True)
        for key, value in sample.items():
            np.save(calibration / f"{i}" / f"{key}.npy", value)
    feeds = make_feeds(np.random.default_rng(7))
    args = []
    for key, value in feeds.items():
        np.save(out / f"{key}.npy", value)
        args += ["--input", f"{key}={out / (key + '.npy')}"]
    quantize = ["--quantize=static-int8", "--calibration", str(calibration),
                "--smoothing=off"]
    minmax = quantize + ["--calibration-method=min-max"]
    smoothed = compile_and_run(out, "smoothed", quantize[:-1] + [
        "--calibration-method=min-max", "--smoothing=0.5"], tsc, tsc_run, args)
    smoothed_mapping = compile_and_run(out, "smoothed-gpu-mapping", quantize[:-1] + [
        "--calibration-method=min-max", "--smoothing=0.5", "--gpu-loop-mapping"],
        tsc, tsc_run, args)
    auto = compile_and_run(out, "auto", [a for a in minmax if a != "--smoothing=off"],
                           tsc, tsc_run, args)
    fp32 = compile_and_run(out, "fp32", [], tsc, tsc_run, args)
    static = compile_and_run(out, "static", minmax, tsc, tsc_run, args)
    generated = compile_and_run(out, "static-generated", minmax + ["--generated-gemms"],
                                tsc, tsc_run, args)
    symmetric = compile_and_run(out, "symmetric", minmax + ["--calibration-range=symmetric"],
                                tsc, tsc_run, args)
    uncorrected = compile_and_run(out, "uncorrected", minmax + ["--bias-correction=off"],
                                  tsc, tsc_run, args)
    others = {m: compile_and_run(out, m, quantize + [f"--calibration-method={m}"], tsc,
                                 tsc_run, args) for m in ("percentile", "entropy")}
    # CUDA's form (an s8 product, the zero point's term and the scales as
    # kernels), run by the device code's loops on the host.
    mapping = compile_and_run(out, "static-gpu-mapping", minmax + ["--gpu-loop-mapping"],
                              tsc, tsc_run, args)
    ref = reference(feeds, weights, samples, symmetric=False)
    ref_symmetric = reference(feeds, weights, samples, symmetric=True)
    ref_uncorrected = reference(feeds, weights, samples, symmetric=False, correct=False)

    check = Checks()

    for k in ("y", "z"):
        check(f"{k} static vs static-generated", rel_l2(static[k], generated[k]), 1e-5)
        check(f"{k} cuda form vs static", rel_l2(mapping[k], static[k]), 1e-6)
        check(f"{k} static vs numpy", rel_l2(static[k], ref[k]), 1e-4)
        check(f"{k} symmetric vs numpy", rel_l2(symmetric[k], ref_symmetric[k]), 1e-4)
        check(f"{k} uncorrected vs numpy", rel_l2(uncorrected[k], ref_uncorrected[k]), 1e-4)
        print(f"INFO {k} vs fp32: corrected {rel_l2(static[k], fp32[k]):.3g}, "
              f"uncorrected {rel_l2(uncorrected[k], fp32[k]):.3g}")
        check(f"{k} static vs fp32", rel_l2(static[k], fp32[k]), 1e-1)
        for method, result in others.items():
            check(f"{k} {method} vs fp32", rel_l2(result[k], fp32[k]), 1e-1)
    ref_smoothed = smoothed_reference(feeds, weights, samples, 0.5)
    for k in ("y", "z"):
        check(f"{k} smoothed vs numpy", rel_l2(smoothed[k], ref_smoothed[k]), 1e-4)
        check(f"{k} smoothed cuda form vs smoothed", rel_l2(smoothed_mapping[k], smoothed[k]),
              1e-6)
        print(f"INFO {k} vs fp32: smoothed {rel_l2(smoothed[k], fp32[k]):.3g}, "
              f"unsmoothed {rel_l2(static[k], fp32[k]):.3g}, "
              f"auto {rel_l2(auto[k], fp32[k]):.3g}")
        check(f"{k} smoothed closer to fp32 than unsmoothed",
              rel_l2(smoothed[k], fp32[k]), rel_l2(static[k], fp32[k]))
    check("auto no worse than unsmoothed (within 10 %)",
          max(rel_l2(auto[k], fp32[k]) for k in ("y", "z")),
          1.1 * max(rel_l2(static[k], fp32[k]) for k in ("y", "z")))
    check("y asymmetric no worse than symmetric", rel_l2(static["y"], fp32["y"]),
          rel_l2(symmetric["y"], fp32["y"]))
    check("t kept float vs fp32", rel_l2(static["t"], fp32["t"]), 1e-6)
    for name in ("static", "smoothed"):
        run_code_forms(out, name, tsc_run, args, check, ("y", "z"))
    report = subprocess.run([tsc, str(out / "model.onnx"), "--report", *minmax],
                            check=True, capture_output=True, text=True).stdout
    print(next((l for l in report.splitlines()
                if l.startswith("quantization:")), "REPORT no quantization line"))
    decisions = [l.split(None, 2)[2] for l in report.splitlines() if l.startswith("  step ")]
    smoothed_report = subprocess.run(
        [tsc, str(out / "model.onnx"), "--report", *quantize[:-1],
         "--calibration-method=min-max", "--smoothing=0.5"],
        check=True, capture_output=True, text=True).stdout
    print("SMOOTHED " + next((l for l in smoothed_report.splitlines()
                              if l.startswith("quantization:")), "no quantization line"))
    smoothed_json = json.loads(subprocess.run(
        [tsc, str(out / "model.onnx"), "--report=json", *quantize[:-1],
         "--calibration-method=min-max", "--smoothing=0.5"],
        check=True, capture_output=True, text=True).stdout)
    check("smoothed gemms in the JSON report",
          abs(smoothed_json["quantization"]["smoothed_gemms"] - 3), 0)
    print(f"REPORT int8 gemm steps: {sum(d.startswith('int8') for d in decisions)}")
    check("float gemms in the report (t only)",
          sum(d.startswith("float:") for d in decisions), 1)

    bad = out / "bad"
    shutil.rmtree(bad, ignore_errors=True)
    (bad / "empty").mkdir(parents=True)
    refused(tsc, out / "model.onnx", bad / "empty", "no samples")
    for case in ("missing", "extra", "dtype"):
        shutil.copytree(calibration / "0", bad / case / "0")
    (bad / "missing" / "0" / "s.npy").unlink()
    refused(tsc, out / "model.onnx", bad / "missing", "missing input")
    np.save(bad / "extra" / "0" / "mask.npy", np.zeros(3, np.float32))
    refused(tsc, out / "model.onnx", bad / "extra", "extra file")
    np.save(bad / "dtype" / "0" / "x.npy", feeds["x"].astype(np.float64))
    refused(tsc, out / "model.onnx", bad / "dtype", "ill-typed file")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
