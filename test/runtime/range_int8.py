#!/usr/bin/env python3
"""ONNX Runtime's quantize_dynamic form (DynamicQuantizeLinear, MatMulInteger,
Cast, Mul by the scales' product, Add of the bias) compiled by tsc: each
product one int8 GEMM step that quantizes its input per tensor by its range
(format 1.23, docs/artifact-format.md), checked against ONNX Runtime's run of
the model, against the same IR computed by generated kernels
(--generated-gemms), and in each form of A's codes oneDNN takes; and CUDA's
form of it (the codes re-quantized to s8 for an s8 product, the run's zero
point's term, run by the device code's loops on the host: --gpu-loop-mapping)
against ONNX Runtime; the CUDA artifact itself is test/target/cuda/
quantized.test's.

The model (built here with onnx.helper, as quantize_dynamic writes it):
x [2, 5, 64] quantized once for two products (y: a per-tensor weight scale
and a bias; z: per-column scales; merged into one GEMM step), y's ReLU (all >= 0: the range's zero
point is 0) quantized for u, and -|x| (all <= 0: zero point 255) for t.
Inputs: x with an outlier feature; x all zeros (scale 0); x with a NaN.

Usage: range_int8.py OUT_DIR TSC TSC_RUN
Prints PASS/FAIL lines (FileCheck: range-int8.test) and exits 1 on a FAIL.
"""
import json
import pathlib
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from dynamic_int8 import check_minor, rel_l2, run_code_forms  # noqa: E402  (this folder's)

OUTPUTS = ("y", "z", "u", "t")
# tsc's step against ONNX Runtime's integer run: the same i32 products; the
# scales applied in another order (per column, then per tensor) and the
# bias in f32: a few ulps. Against the generated kernels (each product
# rounded to f32, summed in f32 over K = 64): ~K·2^-24.
BOUND = 1e-6


def build_model(rng):
    nodes, inits = [], []

    def const(name, value):
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def product(x_prefix, weight, scales, out, bias=None):
        """MatMulInteger of x_prefix's codes by `weight` (s8, zero point 0),
        Cast, Mul by x's scale times `scales`, and the bias: `out`."""
        k, n = weight.shape
        w = const(out + "_w", weight)
        wz = const(out + "_wz", np.int8(0))
        ws = const(out + "_ws", scales)
        nodes.append(helper.make_node("MatMulInteger", [x_prefix + "_q", w, x_prefix + "_z", wz],
                                      [out + "_i"]))
        nodes.append(helper.make_node("Cast", [out + "_i"], [out + "_f"], to=TensorProto.FLOAT))
        nodes.append(helper.make_node("Mul", [x_prefix + "_s", ws], [out + "_scale"]))
        last = out if bias is None else out + "_m"
        nodes.append(helper.make_node("Mul", [out + "_f", out + "_scale"], [last]))
        if bias is not None:
            nodes.append(helper.make_node("Add", [last, const(out + "_b", bias)], [out]))

    def dql(x, prefix):
        nodes.append(helper.make_node("DynamicQuantizeLinear", [x],
                                      [prefix + "_q", prefix + "_s", prefix + "_z"]))

    def weight(k, n):
        return rng.integers(-127, 128, (k, n)).astype(np.int8)

    dql("x", "xa")
    product("xa", weight(64, 48), np.float32(0.004), "y",
            rng.standard_normal(48).astype(np.float32))
    product("xa", weight(64, 32), (rng.random(32) * 0.01 + 0.001).astype(np.float32), "z")
    nodes.append(helper.make_node("Relu", ["y"], ["r"]))
    dql("r", "ra")
    product("ra", weight(48, 16), np.float32(0.003), "u",
            rng.standard_normal(16).astype(np.float32))
    nodes.append(helper.make_node("Abs", ["x"], ["ax"]))
    nodes.append(helper.make_node("Neg", ["ax"], ["nx"]))
    dql("nx", "na")
    product("na", weight(64, 8), np.float32(0.005), "t")
    graph = helper.make_graph(
        nodes, "ort_dynamic_block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 64])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2, 5, n])
         for name, n in zip(OUTPUTS, (48, 32, 16, 8))],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


class Checks:
    def __init__(self):
        self.failed = 0

    def __call__(self, name, value, bound):
        ok = value <= bound
        self.failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {value:.3g} (bound {bound:g})")


def run(tsc_run, artifact, x_file, out):
    subprocess.run([tsc_run, str(artifact), "--input", f"x={x_file}", "--output-dir", str(out),
                    "--threads", "2"], check=True, stdout=subprocess.DEVNULL)
    return {k: np.load(out / f"{k}.npy") for k in OUTPUTS}


def ort_run(model_path, x):
    import onnxruntime as ort
    options = ort.SessionOptions()
    # MatMulInteger exactly on every CPU: without VNNI ONNX Runtime's u8 x s8
    # kernels saturate 16-bit pair sums unless this option (applied by its
    # level-2 optimizer) turns the s8 weight into u8
    # (test/onnx-contrib/run_contrib_tests.py's reference_main).
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.add_session_config_entry("session.x64quantprecision", "1")
    session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    return dict(zip(OUTPUTS, session.run(list(OUTPUTS), {"x": x})))


def same_nans(a, b):
    """0 when a and b have NaNs at the same places and agree elsewhere
    (<= BOUND), else 1."""
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return 1.0
    finite = ~np.isnan(b)
    return 0.0 if not finite.any() else float(rel_l2(a[finite], b[finite]) > BOUND)


def main():
    out, tsc, tsc_run = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(23)
    model_path = out / "model.onnx"
    onnx.save(build_model(rng), model_path)
    check = Checks()

    artifacts = {}
    for name, flags in (("int8", []), ("int8-generated", ["--generated-gemms"]),
                        ("cuda-form", ["--gpu-loop-mapping"])):
        artifacts[name] = out / f"{name}.tscm"
        proc = subprocess.run([tsc, str(model_path), "-o", str(artifacts[name]), "--report",
                               *flags], check=True, capture_output=True, text=True)
        if name == "int8":
            report = proc.stdout
    quantization = next((l for l in report.splitlines() if l.startswith("quantization:")), "")
    counted = re.search(r"(\d+) of (\d+) GEMMs int8", quantization)
    print(f"REPORT {counted.group(0) if counted else quantization}")
    steps = (int(counted.group(1)), int(counted.group(2))) if counted else (0, 0)
    # y and z read one input's codes: one GEMM step with both weights.
    check("int8 GEMM steps other than three of three (y and z merged, u, t)",
          0 if steps == (3, 3) else 1, 0)
    check("steps not quantizing by their range (DynamicQuantizeLinear)",
          0 if "per tensor by their range" in quantization else 1, 0)
    proc = subprocess.run([tsc, str(model_path), "-o", str(out / "json.tscm"), "--report=json"],
                          check=True, capture_output=True, text=True)
    ranged = json.loads(proc.stdout)["quantization"].get("range_gemms", 0)
    check("JSON range_gemms other than three", abs(ranged - 3), 0)

    x = rng.standard_normal((2, 5, 64)).astype(np.float32)
    x[:, :, 7] *= 20.0  # an outlier feature
    inputs = {"outliers": x, "zeros": np.zeros_like(x)}
    nan = x.copy()
    nan[1, 2, 3] = np.nan
    for label, value in inputs.items():
        x_file = out / f"x-{label}.npy"
        np.save(x_file, value)
        ours = run(tsc_run, artifacts["int8"], x_file, out / f"int8-{label}")
        generated = run(tsc_run, artifacts["int8-generated"], x_file, out / f"gen-{label}")
        mapped = run(tsc_run, artifacts["cuda-form"], x_file, out / f"cuda-{label}")
        theirs = ort_run(model_path, value)
        for k in OUTPUTS:
            # All zeros: every product 0, each output its bias (or 0).
            if not np.linalg.norm(theirs[k]):
                check(f"{k} int8 vs ONNX Runtime ({label}, max |difference|)",
                      float(np.abs(ours[k] - theirs[k]).max()), 0)
                continue
            check(f"{k} int8 vs ONNX Runtime ({label})", rel_l2(ours[k], theirs[k]), BOUND)
            check(f"{k} int8 vs int8-generated ({label})", rel_l2(ours[k], generated[k]), BOUND)
            check(f"{k} cuda form vs ONNX Runtime ({label})", rel_l2(mapped[k], theirs[k]),
                  BOUND)
    x_file = out / "x-nan.npy"
    np.save(x_file, nan)
    ours = run(tsc_run, artifacts["int8"], x_file, out / "int8-nan")
    generated = run(tsc_run, artifacts["int8-generated"], x_file, out / "gen-nan")
    for k in OUTPUTS:
        check(f"{k} int8 vs int8-generated (a NaN in x: NaNs in the same places)",
              same_nans(ours[k], generated[k]), 0)

    x_file = out / "x-outliers.npy"
    run_code_forms(out, "int8", tsc_run, ["--input", f"x={x_file}"], check, OUTPUTS)
    check_minor(artifacts["int8"], tsc_run, ["--input", f"x={x_file}"], check, minor=23,
                flag=64, label="range artifact", step="range step")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
