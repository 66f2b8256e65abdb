#!/usr/bin/env python3
"""Exhaustive checks of the 8-bit float casts against ONNX's reference.

For each 8-bit float type, one ONNX model per conversion is compiled with tsc
and run with tsc-run; its output is compared bit for bit with what
onnx.reference.ReferenceEvaluator computes for the same model and input:
- every float16 value (all 65536 bit patterns) to the type, saturating and
  not;
- float32 values to the type, saturating and not: every float16 value
  widened, their midpoints (the ties of rounding), and random bit patterns;
- every code of the type (all 256) to float32 (NaN matching NaN);
- for float8e8m0, each round_mode with and without saturation.
Prints `MATCH <case>` per case, or `MISMATCH <case>: ...` with the first
differing elements. Inputs and outputs of 8-bit floats travel as their bits
in |u1 .npy files, as tsc-run reads and writes them.

Usage: minifloat_casts.py OUT_DIR TSC TSC_RUN
"""
import pathlib
import subprocess
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

TYPES = {
    "float8e4m3fn": (TensorProto.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn),
    "float8e4m3fnuz": (TensorProto.FLOAT8E4M3FNUZ, ml_dtypes.float8_e4m3fnuz),
    "float8e5m2": (TensorProto.FLOAT8E5M2, ml_dtypes.float8_e5m2),
    "float8e5m2fnuz": (TensorProto.FLOAT8E5M2FNUZ, ml_dtypes.float8_e5m2fnuz),
    "float8e8m0": (TensorProto.FLOAT8E8M0, ml_dtypes.float8_e8m0fnu),
}
NUMPY_TYPES = {TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16}


def cast_model(source, target, n, **attrs):
    x = helper.make_tensor_value_info("x", source, [n])
    y = helper.make_tensor_value_info("y", target, [n])
    node = helper.make_node("Cast", ["x"], ["y"], to=target, **attrs)
    graph = helper.make_graph([node], "cast", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])


def bits(array):
    return array.view(np.uint8) if array.dtype.itemsize == 1 else array


def run(out, name, model, x, tsc, tsc_run):
    folder = out / name
    folder.mkdir(parents=True)
    onnx.save(model, folder / "model.onnx")
    np.save(folder / "x.npy", bits(x))
    subprocess.run([tsc, str(folder / "model.onnx"), "-o", str(folder / "m.tscm")],
                   check=True)
    subprocess.run([tsc_run, str(folder / "m.tscm"), "--input", f"x={folder / 'x.npy'}",
                    "--output-dir", str(folder / "out"), "--threads", "1"],
                   check=True, stdout=subprocess.DEVNULL)
    got = np.load(folder / "out" / "y.npy")
    with np.errstate(invalid="ignore"):  # the reference's casts of NaN
        (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    want = bits(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"MISMATCH {name}: {got.dtype}{got.shape}, expected {want.dtype}{want.shape}"
    if got.dtype.kind == "f":
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        same &= (np.signbit(got) == np.signbit(want)) | np.isnan(want)
    else:
        same = got == want
    if same.all():
        return f"MATCH {name}"
    wrong = np.flatnonzero(~same)[:4]
    shown = ", ".join(f"{bits(x)[i]!r} -> {got[i]!r} (expected {want[i]!r})" for i in wrong)
    return f"MISMATCH {name}: {len(np.flatnonzero(~same))} of {got.size} differ: {shown}"


def main():
    out, tsc, tsc_run = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    halves = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    widened = halves.astype(np.float32)
    # Midpoints between neighbouring halves: ties for the 8-bit types' rounding.
    finite = np.sort(widened[np.isfinite(widened)])
    midpoints = ((finite[:-1].astype(np.float64) + finite[1:]) / 2).astype(np.float32)
    rng = np.random.default_rng(0)
    random = rng.integers(0, 1 << 32, size=1 << 16, dtype=np.uint64).astype(np.uint32)
    floats = np.concatenate([widened, midpoints, random.view(np.float32)])
    codes = np.arange(256, dtype=np.uint8)
    cases = []
    for name, (onnx_type, dtype) in TYPES.items():
        modes = ["up", "down", "nearest"] if onnx_type == TensorProto.FLOAT8E8M0 else [None]
        for mode in modes:
            for saturate in (1, 0):
                attrs = {"saturate": saturate}
                if mode:
                    attrs["round_mode"] = mode
                suffix = f"{'sat' if saturate else 'nosat'}{'_' + mode if mode else ''}"
                for source, x in ((TensorProto.FLOAT16, halves), (TensorProto.FLOAT, floats)):
                    label = "f16" if source == TensorProto.FLOAT16 else "f32"
                    cases.append((f"{label}_to_{name}_{suffix}",
                                  cast_model(source, onnx_type, x.size, **attrs), x))
        cases.append((f"{name}_to_f32", cast_model(onnx_type, TensorProto.FLOAT, 256),
                      codes.view(dtype)))
    failed = False
    for name, model, x in cases:
        line = run(out, name, model, x, tsc, tsc_run)
        failed |= line.startswith("MISMATCH")
        print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
