#!/usr/bin/env python3
"""Numerics of the CUDA target's block-per-row norms and softmax, on the host.

Each case is a small ONNX model whose rows (the last dim) are reduced and
written elementwise: LayerNormalization (with its Mean and InvStdDev outputs),
Softmax, LogSoftmax, a decomposed RMSNorm, a residual add feeding a
LayerNormalization; and scaled dot-product attention with a mask (head dims 8,
64 and 128, 100 queries and keys: partial query and key blocks), which the
CUDA target maps to a thread per query row, and the same attention in fp16,
whose products (where their shapes allow) become warp-level 16 x 8 x 16 vector
products (mma.sync on the device), within 3e-3, and in bf16 (the same path),
within 2.4e-2. Row lengths cover the mapping's cases: shorter than a
block (33: one element per thread, most threads idle), a multiple of 4 with
fewer than 32 groups (100: one element per thread), groups of 4 (768, 4096,
1000 with a partial last warp of groups), not a multiple of 4 (2050: several
elements per thread) and a symbolic length (seq). Each model is compiled with
`tsc --gpu-loop-mapping` (the CUDA target's loop structure, thread phases run
in order on the host), run by tsc-run on seeded inputs, and every output is
compared with ONNX Runtime's: relative L2 at most 1e-5 and the same shape.

Usage: row_blocks.py --tsc TSC --tsc-run TSC_RUN --work DIR
"""
import argparse
import pathlib
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

TOLERANCE = 1e-5
# Half storage (inputs rounded to the half type, P rounded before P·V), f32
# math; bf16 rounds 8 times coarser than fp16 (8 significand bits, not 11).
TOLERANCE_HALF = {"--precision=fp16": 3e-3, "--precision=bf16": 8 * 3e-3}
F32 = TensorProto.FLOAT


def model(name, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    onnx.checker.check_model(m)
    return m


def tensor(name, dims):
    return helper.make_tensor_value_info(name, F32, dims)


def weight(name, n, rng, offset=0.0):
    return helper.make_tensor(name, F32, [n], (rng.standard_normal(n) + offset).astype(np.float32))


def layer_norm(n, rng):
    return model(f"layer_norm_{n}", [
        helper.make_node("LayerNormalization", ["x", "g", "b"], ["y", "mean", "inv_std"],
                         axis=-1, epsilon=1e-5)],
        [tensor("x", ["batch", "seq", n])],
        [tensor("y", ["batch", "seq", n]), tensor("mean", ["batch", "seq", 1]),
         tensor("inv_std", ["batch", "seq", 1])],
        [weight("g", n, rng, 1.0), weight("b", n, rng)])


def residual_layer_norm(n, rng):
    return model(f"residual_layer_norm_{n}", [
        helper.make_node("Add", ["x", "r"], ["h"]),
        helper.make_node("LayerNormalization", ["h", "g", "b"], ["y"], axis=-1, epsilon=1e-12)],
        [tensor("x", ["batch", "seq", n]), tensor("r", ["batch", "seq", n])],
        [tensor("y", ["batch", "seq", n])],
        [weight("g", n, rng, 1.0), weight("b", n, rng)])


def softmax(n, op="Softmax"):
    return model(f"{op.lower()}_{n}", [helper.make_node(op, ["x"], ["y"], axis=-1)],
                 [tensor("x", ["batch", "seq", n])], [tensor("y", ["batch", "seq", n])])


def attention_softmax():
    # Scores over a symbolic key length, three row dims (batch, heads, query).
    return model("softmax_seq", [helper.make_node("Softmax", ["x"], ["y"], axis=-1)],
                 [tensor("x", ["batch", 4, "seq", "seq"])],
                 [tensor("y", ["batch", 4, "seq", "seq"])])


def attention(d):
    # Scaled dot-product attention over [batch, heads, seq, d] with an
    # additive mask; tsc fuses it into one attention op.
    scale = helper.make_tensor("scale", F32, [], [1.0 / np.sqrt(d)])
    return model(f"attention_{d}", [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["qk"]),
        helper.make_node("Mul", ["qk", "scale"], ["s"]),
        helper.make_node("Add", ["s", "mask"], ["sm"]),
        helper.make_node("Softmax", ["sm"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"])],
        [tensor("q", ["batch", 2, "seq", d]), tensor("k", ["batch", 2, "seq", d]),
         tensor("v", ["batch", 2, "seq", d]), tensor("mask", ["batch", 1, 1, "seq"])],
        [tensor("y", ["batch", 2, "seq", d])], [scale])


def rms_norm(n, rng):
    def const(name, value):
        return helper.make_node("Constant", [], [name], value=helper.make_tensor(
            name, F32, [], [value]))
    return model(f"rms_norm_{n}", [
        const("two", 2.0), const("eps", 1e-6),
        helper.make_node("Constant", [], ["axes"], value=helper.make_tensor(
            "axes", TensorProto.INT64, [1], [-1])),
        helper.make_node("Pow", ["x", "two"], ["sq"]),
        helper.make_node("ReduceMean", ["sq", "axes"], ["ms"], keepdims=1),
        helper.make_node("Add", ["ms", "eps"], ["mse"]),
        helper.make_node("Sqrt", ["mse"], ["rms"]),
        helper.make_node("Div", ["x", "rms"], ["xn"]),
        helper.make_node("Mul", ["xn", "g"], ["y"])],
        [tensor("x", ["batch", "seq", n])], [tensor("y", ["batch", "seq", n])],
        [weight("g", n, rng, 1.0)])


def cases(rng):
    """(model, symbol values to run at, tsc --dim ranges)."""
    rows = {"batch": 2, "seq": 9}
    ranges = ["--dim", "batch=1..4", "--dim", "seq=1..64"]
    for n in (33, 100, 768):
        yield layer_norm(n, rng), rows, ranges
    yield residual_layer_norm(768, rng), rows, ranges
    for n in (33, 1000, 2050):
        yield softmax(n), rows, ranges
    yield softmax(64, "LogSoftmax"), rows, ranges
    for n in (100, 4096):
        yield rms_norm(n, rng), rows, ranges
    long = ["--dim", "batch=1..4", "--dim", "seq=1..512"]
    yield attention_softmax(), {"batch": 2, "seq": 300}, long
    # 100 queries: 4 blocks of 32 query rows, the last with 4; 2 blocks of
    # 64 keys, the last with 36.
    # Head dim 128: blocks of 32 keys, so that K and V fit 32 KiB of shared
    # memory.
    for d in (8, 64, 128):
        yield attention(d), {"batch": 2, "seq": 100}, long
    # In fp16 the products S = Q·Kᵀ and O += P·V run on tensor cores where
    # their shapes allow (k a multiple of 16) and the tiles fit shared
    # memory: both at head dims 64 and 128 (blocks of 32 keys), P·V alone at
    # 8 (S's k is 8).
    # bf16 takes the same path.
    for precision in ("fp16", "bf16"):
        for d in (8, 64, 128):
            m = attention(d)
            m.graph.name += f"_{precision}"
            yield m, {"batch": 2, "seq": 100}, long + [f"--precision={precision}"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    failures = 0
    for m, dims, ranges in cases(rng):
        name = m.graph.name
        case = work / name
        case.mkdir(exist_ok=True)
        path = case / "model.onnx"
        onnx.save(m, path)
        feeds, binds = {}, []
        for value in m.graph.input:
            shape = [d.dim_value or dims[d.dim_param]
                     for d in value.type.tensor_type.shape.dim]
            feeds[value.name] = (rng.standard_normal(shape) * 3).astype(np.float32)
            np.save(case / f"{value.name}.npy", feeds[value.name])
            binds += ["--input", f"{value.name}={case / value.name}.npy"]
        expected = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
            None, feeds)
        artifact = case / "model.tscm"
        compile_ = subprocess.run([args.tsc, str(path), *ranges, "--gpu-loop-mapping",
                                   "-o", str(artifact)], capture_output=True, text=True)
        run = compile_.returncode == 0 and subprocess.run(
            [args.tsc_run, str(artifact), *binds, "--output-dir", str(case / "out")],
            capture_output=True, text=True)
        if compile_.returncode or run.returncode:
            failures += 1
            proc = run if compile_.returncode == 0 else compile_
            print(f"FAIL {name}: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        tolerance = TOLERANCE_HALF.get(
            next((r for r in ranges if r.startswith("--precision=")), ""), TOLERANCE)
        worst, problems = 0.0, []
        for value, ref in zip(m.graph.output, expected):
            got = np.load(case / "out" / f"{value.name}.npy")
            if got.shape != ref.shape:
                problems.append(f"{value.name} shape {got.shape}, expected {ref.shape}")
                continue
            rel = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
            worst = max(worst, rel)
            if not rel <= tolerance:
                problems.append(f"{value.name} rel L2 {rel:.2e} > {tolerance:g}")
        if problems:
            failures += 1
            print(f"FAIL {name}: {'; '.join(problems)}")
        else:
            print(f"PASS {name}: max rel L2 {worst:.1e}")
    print(f"row blocks: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
