"""Kernel benchmarks of the GPU check, for issue 7's targets: fused attention
at sequence 2048 as a fraction of the measured bf16 matmul peak, and
memory-bound kernels as a fraction of the measured copy bandwidth.

Here (tools/gpu/bundle.sh): export(out_dir, tsc) builds small ONNX models and
compiles them for sm_80 and sm_90 (no weights: the artifacts are a few KB):
  attention-d64.tscm, attention-d128.tscm  fp16 q, k, v [1, 16, 2048, D]
                                           -> softmax(q·kᵀ/sqrt(D))·v, which
                                           tsc fuses into one attention kernel
  attention-bf16-d64.tscm                  the same in bf16, head dim 64
  add.tscm                                 fp16 a + b over 2^26 elements
  layer-norm.tscm                          fp16 LayerNorm of [16384, 4096]
There (tools/gpu/check.py): measure(runtime, bench, repeats, median_ms) runs each artifact
on device tensors with per-step profiling, and times the peers on the same
tensors: PyTorch's scaled_dot_product_attention (flash attention) and a bf16
matmul of 8192^3 for the peak; a device-to-device copy for the bandwidth.
The kernel times are the profiled kernel steps' (the runtime synchronizes
after each step; the run's staging copies are left out).
"""
import ctypes
import math
import pathlib
import subprocess

HEADS, SEQ = 16, 2048
ADD_ELEMENTS = 1 << 26
NORM_ROWS, NORM_COLS = 16384, 4096


# (dtype, head dim) of the attention benchmarks, and their artifacts' names.
ATTENTION = (("fp16", 64), ("fp16", 128), ("bf16", 64))


def _attention_name(dtype, d):
    return f"attention-d{d}" if dtype == "fp16" else f"attention-{dtype}-d{d}"


def _attention(dtype, d):
    from onnx import TensorProto, helper
    shape = [1, HEADS, SEQ, d]
    element = {"fp16": TensorProto.FLOAT16, "bf16": TensorProto.BFLOAT16}[dtype]
    tensors = [helper.make_tensor_value_info(n, element, shape)
               for n in ("q", "k", "v", "y")]
    scale = helper.make_tensor("scale", TensorProto.FLOAT, [], [1.0 / math.sqrt(d)])
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["qk"]),
             helper.make_node("CastLike", ["scale", "q"], ["scale_q"]),
             helper.make_node("Mul", ["qk", "scale_q"], ["s"]),
             helper.make_node("Softmax", ["s"], ["p"], axis=-1),
             helper.make_node("MatMul", ["p", "v"], ["y"])]
    return helper.make_graph(nodes, f"attention_{dtype}_d{d}", tensors[:3], tensors[3:],
                             [scale])


def _add():
    from onnx import TensorProto, helper
    t = [helper.make_tensor_value_info(n, TensorProto.FLOAT16, [ADD_ELEMENTS])
         for n in ("a", "b", "y")]
    return helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"])], "add", t[:2], t[2:])


def _layer_norm():
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT16, [NORM_ROWS, NORM_COLS])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT16, [NORM_ROWS, NORM_COLS])
    cols = np.arange(NORM_COLS)
    gamma = numpy_helper.from_array((1 + 0.1 * np.sin(cols)).astype(np.float16), "gamma")
    beta = numpy_helper.from_array((0.1 * np.cos(cols)).astype(np.float16), "beta")
    node = helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["y"], axis=-1,
                            epsilon=1e-5)
    return helper.make_graph([node], "layer_norm", [x], [y], [gamma, beta])


def export(out_dir, tsc):
    """Writes the kernel benchmarks' artifacts to out_dir."""
    import onnx
    from onnx import helper
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    graphs = {_attention_name(dtype, d): _attention(dtype, d) for dtype, d in ATTENTION}
    graphs.update({"add": _add(), "layer-norm": _layer_norm()})
    for name, graph in graphs.items():
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        model.ir_version = 9
        onnx.checker.check_model(model)
        path = out_dir / f"{name}.onnx"
        onnx.save(model, path)
        subprocess.run([tsc, str(path), "--target=cuda:sm_80,cuda:sm_90",
                        "-o", str(out_dir / f"{name}.tscm")], check=True)
        path.unlink()


def _kernel_ms(runtime, artifact, inputs, outputs, repeats):
    """Milliseconds per run of the artifact's kernel steps on device tensors
    (profiled; staging copies and library calls left out)."""
    import torch
    lib = runtime.lib
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    with runtime.session(artifact, stream, inputs, outputs, profile=True,
                         cuda_graphs=False) as (model, session):
        for _ in range(3 + repeats):
            runtime.check(lib.tsc_session_run(session))
        kernels = [i for i in range(lib.tsc_model_step_count(model))
                   if lib.tsc_model_step_name(model, i).startswith(b"tsc_kernel")]
        total = sum(lib.tsc_session_step_time(session, i) for i in kernels)
        return total / lib.tsc_session_run_count(session)


def _rel_l2(out, ref):
    out, ref = out.double(), ref.double()
    return float((out - ref).norm() / ref.norm().clamp_min(1e-30))


def measure(runtime, bench, repeats, median_ms):
    """Markdown table lines of the kernel benchmarks; `runtime` is check.py's
    Runtime, `median_ms(fn, repeats)` its timer."""
    import torch
    bench = pathlib.Path(bench)
    gen = torch.Generator(device="cuda").manual_seed(0)

    def randn(*shape, dtype=torch.float16):
        return torch.randn(*shape, generator=gen, device="cuda", dtype=dtype)

    def synced(fn):
        def run():
            fn()
            torch.cuda.synchronize()
        return run

    lines = ["", "| kernel | tsc ms | peer | peer ms | measure | fraction | max rel L2 |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    n = 8192
    a, b = randn(n, n, dtype=torch.bfloat16), randn(n, n, dtype=torch.bfloat16)
    peak_ms = median_ms(synced(lambda: torch.matmul(a, b)), repeats)
    peak = 2 * n ** 3 / (peak_ms * 1e-3)
    lines.append(f"| bf16 matmul {n}^3 (the peak) | | torch.matmul | {peak_ms:.3f} | "
                 f"{peak / 1e12:.0f} TFLOP/s | 1 | |")
    a = b = None  # free the memory
    for dtype, d in ATTENTION:
        element = {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
        q, k, v = (randn(1, HEADS, SEQ, d, dtype=element) for _ in range(3))
        y = torch.empty_like(q)
        ms = _kernel_ms(runtime, bench / f"{_attention_name(dtype, d)}.tscm",
                        {"q": q, "k": k, "v": v}, {"y": y}, repeats)
        sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)  # noqa: E731
        peer_ms = median_ms(synced(sdpa), repeats)
        flops = 4 * HEADS * SEQ * SEQ * d
        lines.append(f"| {dtype} attention, 16 heads, seq {SEQ}, head dim {d} | {ms:.3f} | "
                     f"scaled_dot_product_attention | {peer_ms:.3f} | "
                     f"{flops / (ms * 1e-3) / 1e12:.1f} TFLOP/s | "
                     f"{flops / (ms * 1e-3) / peak:.2f} of the bf16 peak | "
                     f"{_rel_l2(y, sdpa()):.1e} |")
    src = randn(ADD_ELEMENTS * 2)
    dst = torch.empty_like(src)
    copy_ms = median_ms(synced(lambda: dst.copy_(src)), repeats)
    bandwidth = 2 * src.numel() * 2 / (copy_ms * 1e-3)
    lines.append(f"| device copy, {src.numel() * 2 >> 20} MiB | | Tensor.copy_ | {copy_ms:.3f} | "
                 f"{bandwidth / 1e9:.0f} GB/s | 1 | |")
    src = dst = None
    x, z = randn(ADD_ELEMENTS), randn(ADD_ELEMENTS)
    y = torch.empty_like(x)
    ms = _kernel_ms(runtime, bench / "add.tscm", {"a": x, "b": z}, {"y": y}, repeats)
    peer_ms = median_ms(synced(lambda: torch.add(x, z)), repeats)
    moved = 3 * ADD_ELEMENTS * 2 / (ms * 1e-3)
    lines.append(f"| fp16 add, 2^26 elements | {ms:.3f} | torch.add | {peer_ms:.3f} | "
                 f"{moved / 1e9:.0f} GB/s | {moved / bandwidth:.2f} of copy | "
                 f"{_rel_l2(y, x + z):.1e} |")
    x = z = y = None
    x = randn(NORM_ROWS, NORM_COLS)
    cols = torch.arange(NORM_COLS, device="cuda", dtype=torch.float64)
    gamma = (1 + 0.1 * torch.sin(cols)).half()
    beta = (0.1 * torch.cos(cols)).half()
    y = torch.empty_like(x)
    ms = _kernel_ms(runtime, bench / "layer-norm.tscm", {"x": x}, {"y": y}, repeats)
    norm = lambda: torch.nn.functional.layer_norm(x, (NORM_COLS,), gamma, beta, 1e-5)  # noqa: E731
    peer_ms = median_ms(synced(norm), repeats)
    moved = 2 * x.numel() * 2 / (ms * 1e-3)
    lines.append(f"| fp16 LayerNorm, {NORM_ROWS} x {NORM_COLS} | {ms:.3f} | layer_norm | "
                 f"{peer_ms:.3f} | {moved / 1e9:.0f} GB/s | {moved / bandwidth:.2f} of copy | "
                 f"{_rel_l2(y, norm()):.1e} |")
    return lines


if __name__ == "__main__":
    import sys
    export(sys.argv[1], sys.argv[2])
