#!/usr/bin/env python3
"""The packed sub-byte types end to end, against ONNX's reference.

int4, uint4, int2, uint2 and float4e2m1 are stored as ONNX packs them: two
4-bit or four 2-bit elements a byte, the first in the low bits. For each
type, ONNX models are compiled with tsc and run with tsc-run, and every
output is compared exactly with what onnx.reference.ReferenceEvaluator
computes:
- `f32_to_T`: Cast of float32 values (for the integers, -20..20 in halves,
  so out-of-range values wrap as the reference wraps them; for float4e2m1,
  every finite float16 value widened) to T, an odd count, so the last byte
  is half used;
- `T_to_f32`: every code of T, three times and one more, back to float32;
- `weight_T`: an initializer of T (3x7, packed by onnx.numpy_helper) cast
  to float32 and added to an input;
- `chain_T`: float32 [5, 7] cast to T, transposed and cast back: the
  packed value is an output of the graph and read by another op too.
Prints `MATCH <case>` per case, or `MISMATCH <case>: ...`. tsc-run reads and
writes these types one element a byte: the integers as |i1 or |u1 values,
float4e2m1 as |u1 bits.

Usage: packed_types.py OUT_DIR TSC TSC_RUN
"""
import pathlib
import subprocess
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

TYPES = {
    "int4": (TensorProto.INT4, ml_dtypes.int4, 4),
    "uint4": (TensorProto.UINT4, ml_dtypes.uint4, 4),
    "int2": (TensorProto.INT2, ml_dtypes.int2, 2),
    "uint2": (TensorProto.UINT2, ml_dtypes.uint2, 2),
    "float4e2m1": (TensorProto.FLOAT4E2M1, ml_dtypes.float4_e2m1fn, 4),
}


def as_file(array):
    """`array` as tsc-run reads and writes it."""
    name = array.dtype.name
    if name == "float4_e2m1fn":
        return array.view(np.uint8)
    if name in ("int4", "int2"):
        return array.astype(np.int8)
    if name in ("uint4", "uint2"):
        return array.astype(np.uint8)
    return array


def model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "packed", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])


def run(out, name, onnx_model, feeds, tsc, tsc_run):
    folder = out / name
    folder.mkdir(parents=True)
    onnx.save(onnx_model, folder / "model.onnx")
    args = []
    for key, value in feeds.items():
        np.save(folder / f"{key}.npy", as_file(value))
        args += ["--input", f"{key}={folder / (key + '.npy')}"]
    subprocess.run([tsc, str(folder / "model.onnx"), "-o", str(folder / "m.tscm")],
                   check=True)
    subprocess.run([tsc_run, str(folder / "m.tscm"), *args, "--output-dir",
                    str(folder / "out"), "--threads", "2"],
                   check=True, stdout=subprocess.DEVNULL)
    wants = ReferenceEvaluator(onnx_model).run(None, feeds)
    for info, want in zip(onnx_model.graph.output, wants):
        got = np.load(folder / "out" / f"{info.name}.npy")
        want = as_file(want)
        if got.dtype != want.dtype or got.shape != want.shape:
            return (f"MISMATCH {name}: {info.name} is {got.dtype}{got.shape}, "
                    f"expected {want.dtype}{want.shape}")
        same = (got == want) | (np.isnan(got) & np.isnan(want)) \
            if got.dtype.kind == "f" else got == want
        if not same.all():
            wrong = np.flatnonzero(~same.ravel())[:4]
            shown = ", ".join(f"[{i}] {got.ravel()[i]!r} (expected {want.ravel()[i]!r})"
                              for i in wrong)
            return (f"MISMATCH {name}: {info.name}: {np.count_nonzero(~same)} of "
                    f"{got.size} differ: {shown}")
    return f"MATCH {name}"


def cases_of(name, onnx_type, dtype, bits):
    rng = np.random.default_rng(bits)
    f32 = TensorProto.FLOAT
    if onnx_type == TensorProto.FLOAT4E2M1:
        halves = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
        floats = halves[np.isfinite(halves)].astype(np.float32)[:-1]
    else:
        floats = np.arange(-40, 41, dtype=np.float32) / 2
    assert floats.size % 2 == 1
    cast = helper.make_node("Cast", ["x"], ["y"], to=onnx_type)
    yield (f"f32_to_{name}",
           model([cast], [helper.make_tensor_value_info("x", f32, [floats.size])],
                 [helper.make_tensor_value_info("y", onnx_type, [floats.size])]),
           {"x": floats})

    codes = np.tile(np.arange(1 << bits, dtype=np.uint8), 3)
    codes = np.append(codes, np.uint8(1))
    if onnx_type == TensorProto.FLOAT4E2M1:
        x = codes.view(dtype)
    else:
        # The codes' values: two's complement of `bits` for the signed types.
        signed = np.where(codes >= 1 << (bits - 1), codes.astype(np.int16) - (1 << bits),
                          codes) if name.startswith("int") else codes
        x = signed.astype(dtype)
    cast = helper.make_node("Cast", ["x"], ["y"], to=f32)
    yield (f"{name}_to_f32",
           model([cast], [helper.make_tensor_value_info("x", onnx_type, [x.size])],
                 [helper.make_tensor_value_info("y", f32, [x.size])]),
           {"x": x})

    weight = x[rng.integers(0, x.size, size=21)].reshape(3, 7)
    nodes = [helper.make_node("Cast", ["w"], ["wf"], to=f32),
             helper.make_node("Add", ["wf", "x"], ["y"])]
    yield (f"weight_{name}",
           model(nodes, [helper.make_tensor_value_info("x", f32, [3, 7])],
                 [helper.make_tensor_value_info("y", f32, [3, 7])],
                 [numpy_helper.from_array(weight, "w")]),
           {"x": rng.standard_normal((3, 7)).astype(np.float32)})

    nodes = [helper.make_node("Cast", ["x"], ["p"], to=onnx_type),
             helper.make_node("Transpose", ["p"], ["t"], perm=[1, 0]),
             helper.make_node("Cast", ["t"], ["y"], to=f32)]
    yield (f"chain_{name}",
           model(nodes, [helper.make_tensor_value_info("x", f32, [5, 7])],
                 [helper.make_tensor_value_info("p", onnx_type, [5, 7]),
                  helper.make_tensor_value_info("y", f32, [7, 5])]),
           {"x": floats[rng.integers(0, floats.size, size=35)].reshape(5, 7)})


def main():
    out, tsc, tsc_run = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    failed = False
    for name, (onnx_type, dtype, bits) in TYPES.items():
        for case, onnx_model, feeds in cases_of(name, onnx_type, dtype, bits):
            line = run(out, case, onnx_model, feeds, tsc, tsc_run)
            failed |= line.startswith("MISMATCH")
            print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
