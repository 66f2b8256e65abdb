"""2:4 sparse GEMMs on a GPU (docs/pruning.md "2:4 on CUDA"): a model of two
GEMMs (MatMul by a K x N weight plus a bias, and Gemm with transB, an N x K
weight) compiled with --prune=2:4 for CUDA runs sparse through cuSPARSELt
(--precision=tf32 and fp16) and dense through cuBLASLt (fp32, the same
pruned weights); the outputs are compared with numpy on the same 2:4 masks
and the sparse run with the dense one. Without a usable GPU it prints why
and counts as skipped; on a GPU a mismatch or a failed run (cuSPARSELt
missing included: TSC_CUSPARSELT, else .venv-torch's copy) fails it.

    sparse24_gpu.py --tsc tsc --tsc-run tsc-run --out DIR
"""
import argparse
import os
import pathlib
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from gpu_run import rel_l2, unavailable  # noqa: E402

K, N, M = 256, 512, 64
# Relative L2 against numpy in f64: TF32 rounds the inputs to 10-bit
# mantissas (~5e-4 per element), fp16 stores the weights and activations in
# fp16 as well (~1e-3); the sparse and dense runs of one precision agree
# to the dense run's rounding.
TOLERANCE = {"tf32": 3e-3, "fp16": 1e-2}


def prune24(w, k_axis):
    """w with the 2 smallest |w| of every 4 along k_axis set to zero."""
    moved = np.moveaxis(w, k_axis, -1)
    groups = moved.reshape(*moved.shape[:-1], -1, 4)
    order = np.argsort(np.abs(groups), axis=-1)
    mask = np.ones_like(groups, dtype=bool)
    np.put_along_axis(mask, order[..., :2], False, axis=-1)
    return np.moveaxis((groups * mask).reshape(moved.shape), -1, k_axis)


def build(folder):
    rng = np.random.default_rng(23)
    w1 = rng.standard_normal((K, N)).astype(np.float32) / np.sqrt(K)
    b1 = rng.standard_normal(N).astype(np.float32)
    w2 = rng.standard_normal((N, N)).astype(np.float32) / np.sqrt(N)  # [N, K]
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h"]),
         helper.make_node("Add", ["h", "b1"], ["hb"]),
         helper.make_node("Gemm", ["hb", "w2"], ["y"], transB=1)],
        "sparse24",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [M, K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [M, N])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
         numpy_helper.from_array(w2, "w2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, folder / "model.onnx")
    x = rng.standard_normal((M, K)).astype(np.float32)
    np.save(folder / "x.npy", x)
    p1, p2 = prune24(w1, 0), prune24(w2, 1)
    reference = (x.astype(np.float64) @ p1 + b1) @ p2.T
    return x, reference


def find_cusparselt():
    """$TSC_CUSPARSELT, else the libcusparseLt.so.0 that PyTorch's wheels
    install into the checkout's .venv-torch (tools/setup.sh), else None (the
    runtime then searches the library path)."""
    if os.environ.get("TSC_CUSPARSELT"):
        return os.environ["TSC_CUSPARSELT"]
    root = pathlib.Path(__file__).resolve().parents[3]
    found = sorted(root.glob(".venv-torch/lib/python3*/site-packages/nvidia/cu*/lib/libcusparseLt.so.0"))
    return str(found[-1]) if found else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    folder = pathlib.Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    why = unavailable(args.tsc_run)
    if why:
        print(f"sparse24-gpu: skipped: no usable CUDA device ({why})")
        return 0
    _, reference = build(folder)
    env = dict(os.environ)
    if find_cusparselt():
        env["TSC_CUSPARSELT"] = find_cusparselt()
    outputs, problems = {}, []
    for name, precision in [("tf32", "tf32"), ("fp16", "fp16"), ("dense", "fp32")]:
        artifact = folder / f"{name}.tscm"
        proc = subprocess.run([args.tsc, str(folder / "model.onnx"), "--target=cuda:sm_80,cuda:sm_90",
                               "--prune=2:4", f"--precision={precision}", "--report",
                               "-o", str(artifact)], capture_output=True, text=True)
        if proc.returncode:
            problems.append(f"{name}: tsc failed: {proc.stderr.strip()}")
            continue
        sparse_lines = [l for l in proc.stdout.splitlines() if "runs sparse" in l]
        if (name != "dense") != (len(sparse_lines) == 2):
            problems.append(f"{name}: {len(sparse_lines)} GEMMs run sparse:\n{proc.stdout}")
        out = folder / f"out-{name}"
        proc = subprocess.run([args.tsc_run, str(artifact), "--input", f"x={folder / 'x.npy'}",
                               "--output-dir", str(out)], capture_output=True, text=True,
                              env=env)
        if proc.returncode:
            # (Without cuSPARSELt too: .venv-torch has it wherever
            # tools/setup.sh ran, so on a GPU its absence is a failure.)
            problems.append(f"{name}: tsc-run failed: {proc.stderr.strip()}")
            continue
        outputs[name] = np.load(out / "y.npy").astype(np.float64)
    for name, tolerance in [("tf32", TOLERANCE["tf32"]), ("fp16", TOLERANCE["fp16"]),
                            ("dense", TOLERANCE["tf32"])]:
        if name in outputs:
            error = rel_l2(outputs[name], reference)
            print(f"sparse24-gpu: {name} against numpy (same 2:4 masks): rel L2 {error:.2e}")
            if not error <= tolerance:
                problems.append(f"{name}: rel L2 {error:.2e} > {tolerance:.0e}")
    if "tf32" in outputs and "dense" in outputs:
        error = rel_l2(outputs["tf32"], outputs["dense"])
        print(f"sparse24-gpu: sparse (tf32) against dense cuBLASLt (fp32): rel L2 {error:.2e}")
        if not error <= TOLERANCE["tf32"]:
            problems.append(f"sparse against dense: rel L2 {error:.2e}")
    for p in problems:
        print(f"sparse24-gpu: FAIL: {p}")
    print("sparse24-gpu: " + ("failed" if problems else "passed"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
