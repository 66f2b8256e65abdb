#!/usr/bin/env python3
"""ONNX Runtime's contrib ops (com.microsoft) against ONNX Runtime itself.

Each case is a small model with one contrib op (and its attribute and input
variants: optional inputs present and absent, masks in each format, packed
and separate projections, KV caches, quantized weights), built here with
onnx.helper on seeded inputs. ONNX Runtime (CPU) runs it for the reference;
tsc compiles it (`tsc model.onnx -o case.tscm`, `--dim` for symbolic dims)
and tsc-run runs it; every output must match: shapes and dtypes exactly,
integers exactly, floats at relative L2 <= 1e-4 (ONNX Runtime's own kernels
take other summation orders and, for the quantized matmuls, quantize the
same way as tsc's conversion, so the bound is the fp32 one).

Cases listed in expected-failures.txt are skipped while they fail for
exactly the recorded reason (the node tests' manifest rules).

Usage: run_contrib_tests.py --tsc build/bin/tsc --tsc-run build/bin/tsc-run
                            [--xunit FILE] [--filter TEXT] [--write-exclusions]
"""
import argparse
import concurrent.futures
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "models"))
import manifest  # noqa: E402
from checks import first_error, rel_l2, sanitize  # noqa: E402

MANIFEST = HERE / "expected-failures.txt"
TOLERANCE = 1e-4
MS = "com.microsoft"
F32, I32, I64, U8, I8 = (TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64,
                         TensorProto.UINT8, TensorProto.INT8)
NP = {F32: np.float32, I32: np.int32, I64: np.int64, U8: np.uint8, I8: np.int8}
B, S, H, N = 2, 5, 16, 4  # batch, sequence, hidden, heads (head size 4)


class Case:
    """One model: `nodes` over named inputs (`inputs`: name -> array, fed at
    run time) and initializers (`weights`), with `outputs` (name, elem type,
    shape with None for unknown dims). `dims` are tsc's --dim ranges for
    symbolic input dims (`symbolic`: input name -> {axis: symbol}).

    The expected outputs are ONNX Runtime's on this model, or, where its CPU
    kernels lack a variant (packed QKV, BiasAdd) or crash, ONNX Runtime's on
    `equivalent`, another Case computing the same (the unpacked inputs, a
    zero bias), or numpy's `reference(**inputs, **weights)`."""

    def __init__(self, name, nodes, inputs, outputs, weights=None, symbolic=None,
                 opset=17, reference=None, equivalent=None):
        self.name, self.nodes, self.inputs, self.outputs = name, nodes, inputs, outputs
        self.weights = weights or {}
        self.symbolic = symbolic or {}
        self.opset = opset
        self.reference = reference
        self.equivalent = equivalent

    def model(self):
        def elem(array):
            return helper.np_dtype_to_tensor_dtype(array.dtype)
        graph_inputs = []
        for name, array in self.inputs.items():
            shape = list(array.shape)
            for axis, symbol in self.symbolic.get(name, {}).items():
                shape[axis] = symbol
            graph_inputs.append(helper.make_tensor_value_info(name, elem(array), shape))
        graph = helper.make_graph(
            self.nodes, self.name, graph_inputs,
            [helper.make_tensor_value_info(n, t, s) for n, t, s in self.outputs],
            [onnx.numpy_helper.from_array(a, n) for n, a in self.weights.items()])
        # IR version 9 (ONNX 1.14): what the pinned ONNX Runtime loads.
        return helper.make_model(graph, ir_version=9,
                                 opset_imports=[helper.make_opsetid("", self.opset),
                                                helper.make_opsetid(MS, 1)])

    def dims(self):
        sizes = {}
        for name, axes in self.symbolic.items():
            for axis, symbol in axes.items():
                sizes[symbol] = max(sizes.get(symbol, 1), self.inputs[name].shape[axis])
        return [a for s, n in sorted(sizes.items()) for a in ("--dim", f"{s}=1..{n}")]


def rng(seed):
    return np.random.default_rng(seed)


def normal(seed, *shape, scale=1.0):
    return (scale * rng(seed).standard_normal(shape)).astype(np.float32)


def node(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, domain=MS, **attrs)


# --- norms and activations ---------------------------------------------------

def skip_norm_cases():
    x, skip = normal(1, B, S, H), normal(2, B, S, H)
    gamma, beta, bias = normal(3, H, scale=0.3) + 1, normal(4, H, scale=0.1), normal(5, H)
    out3 = [("y", F32, [B, S, H])]
    yield Case("skip_layer_norm", [node("SkipLayerNormalization", ["x", "skip", "gamma", "beta",
                                                                  "bias"], ["y"], epsilon=1e-5)],
               {"x": x, "skip": skip}, out3, {"gamma": gamma, "beta": beta, "bias": bias})
    yield Case("skip_layer_norm_no_beta_no_bias",
               [node("SkipLayerNormalization", ["x", "skip", "gamma"], ["y"])],
               {"x": x, "skip": skip}, out3, {"gamma": gamma})
    yield Case("skip_layer_norm_broadcast_skip_sum_output",
               [node("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"],
                     ["y", "", "", "sum"], epsilon=1e-6)],
               {"x": x, "skip": skip[0]}, out3 + [("sum", F32, [B, S, H])],
               {"gamma": gamma, "beta": beta, "bias": bias})
    yield Case("skip_layer_norm_statistics",
               [node("SkipLayerNormalization", ["x", "skip", "gamma", "beta"],
                     ["y", "mean", "inv_std_var"], epsilon=1e-5)],
               {"x": x, "skip": skip}, out3 + [("mean", F32, [B, S, 1]),
                                               ("inv_std_var", F32, [B, S, 1])],
               {"gamma": gamma, "beta": beta})
    yield Case("skip_layer_norm_symbolic",
               [node("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"], ["y"])],
               {"x": x, "skip": skip}, [("y", F32, ["batch", "seq", H])],
               {"gamma": gamma, "beta": beta, "bias": bias},
               symbolic={"x": {0: "batch", 1: "seq"}, "skip": {0: "batch", 1: "seq"}})
    yield Case("skip_simplified_layer_norm",
               [node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma", "bias"],
                     ["y", "", "", "sum"], epsilon=1e-6)],
               {"x": x, "skip": skip}, out3 + [("sum", F32, [B, S, H])],
               {"gamma": gamma, "bias": bias})
    yield Case("skip_simplified_layer_norm_2d",
               [node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma"], ["y"])],
               {"x": x[0], "skip": skip[0]}, [("y", F32, [S, H])], {"gamma": gamma})
    yield Case("simplified_layer_norm",
               [helper.make_node("SimplifiedLayerNormalization", ["x", "gamma"],
                                 ["y", "inv_std_var"], axis=-1, epsilon=1e-6)],
               {"x": x}, out3 + [("inv_std_var", F32, [B, S, 1])], {"gamma": gamma})


def activation_cases():
    x, bias = normal(11, B, S, H, scale=2.0), normal(12, H)
    out = [("y", F32, [B, S, H])]
    yield Case("gelu", [node("Gelu", ["x"], ["y"])], {"x": x}, out)
    yield Case("bias_gelu", [node("BiasGelu", ["x", "bias"], ["y"])], {"x": x}, out,
               {"bias": bias})
    yield Case("fast_gelu", [node("FastGelu", ["x"], ["y"])], {"x": x}, out)
    yield Case("fast_gelu_bias", [node("FastGelu", ["x", "bias"], ["y"])], {"x": x}, out,
               {"bias": bias})
    yield Case("quick_gelu", [node("QuickGelu", ["x"], ["y"])], {"x": x}, out)
    yield Case("quick_gelu_alpha_1", [node("QuickGelu", ["x"], ["y"], alpha=1.0)], {"x": x}, out)
    # ONNX Runtime has BiasAdd for CUDA only.
    yield Case("bias_add", [node("BiasAdd", ["x", "bias", "skip"], ["y"])],
               {"x": x, "skip": normal(13, B, S, H)}, out, {"bias": bias},
               reference=lambda x, skip, bias: {"y": x + bias + skip})


# --- attention and embeddings -------------------------------------------------

D = H // N  # head size


def padded_mask(batch, length, dtype=np.int32):
    """A raw 0/1 mask with trailing padding in every row but the first."""
    mask = np.ones((batch, length), dtype=dtype)
    for row in range(1, batch):
        mask[row, length - row - 1:] = 0
    return mask


def attention_cases():
    x = normal(21, B, S, H)
    weights, bias = normal(22, H, 3 * H, scale=0.3), normal(23, 3 * H, scale=0.1)
    out = [("y", F32, [B, S, H])]

    def attention(inputs, **attrs):
        return [node("Attention", inputs, ["y"], num_heads=N, **attrs)]
    w = {"weights": weights, "bias": bias}
    yield Case("attention_raw_mask", attention(["x", "weights", "bias", "mask"]),
               {"x": x, "mask": padded_mask(B, S)}, out, w)
    yield Case("attention_lengths", attention(["x", "weights", "bias", "mask"]),
               {"x": x, "mask": np.array([S, S - 2], dtype=np.int32)}, out, w)
    yield Case("attention_start_and_end", attention(["x", "weights", "bias", "mask"]),
               {"x": x, "mask": np.array([S, S - 1, 0, 2], dtype=np.int32)}, out, w)
    yield Case("attention_mask_3d", attention(["x", "weights", "bias", "mask"]),
               {"x": x, "mask": (rng(24).random((B, S, S)) > 0.3).astype(np.int32)}, out, w)
    yield Case("attention_unidirectional", attention(["x", "weights", "bias"], unidirectional=1),
               {"x": x}, out, w)
    # ONNX Runtime's CPU Attention crashes without a bias: a zero bias is the
    # same attention.
    yield Case("attention_scale_no_bias", attention(["x", "weights"], scale=0.2),
               {"x": x}, out, {"weights": weights},
               equivalent=Case("zero_bias", attention(["x", "weights", "bias"], scale=0.2),
                               {"x": x}, out,
                               {"weights": weights, "bias": np.zeros_like(bias)}))
    yield Case("attention_bias_input", attention(["x", "weights", "bias", "", "", "ab"]),
               {"x": x, "ab": normal(25, 1, N, S, S)}, out, w)
    yield Case("attention_v_width",
               attention(["x", "weights", "bias"], qkv_hidden_sizes=[H, H, H // 2]),
               {"x": x}, [("y", F32, [B, S, H // 2])],
               {"weights": weights[:, :5 * H // 2], "bias": bias[:5 * H // 2]})
    past = normal(26, 2, B, N, 3, D)
    yield Case("attention_past_present",
               [node("Attention", ["x", "weights", "bias", "mask", "past"], ["y", "present"],
                     num_heads=N, unidirectional=1)],
               {"x": x, "mask": padded_mask(B, S + 3), "past": past},
               out + [("present", F32, [2, B, N, S + 3, D])], w)
    yield Case("attention_symbolic", attention(["x", "weights", "bias", "mask"]),
               {"x": x, "mask": padded_mask(B, S)}, [("y", F32, ["batch", "seq", H])], w,
               symbolic={"x": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"}})


def multi_head_attention_cases():
    L = 7
    q, k, v = normal(31, B, S, H), normal(32, B, L, H), normal(33, B, L, H)
    bias = normal(34, 3 * H, scale=0.1)
    out = [("y", F32, [B, S, H])]

    def mha(inputs, outputs=("y",), **attrs):
        return [node("MultiHeadAttention", inputs, list(outputs), num_heads=N, **attrs)]
    yield Case("mha_bias_key_padding", mha(["q", "k", "v", "bias", "mask"]),
               {"q": q, "k": k, "v": v, "mask": padded_mask(B, L)}, out, {"bias": bias})
    yield Case("mha_key_lengths", mha(["q", "k", "v", "", "mask"]),
               {"q": q, "k": k, "v": v, "mask": np.array([L, 4], dtype=np.int32)}, out)
    yield Case("mha_self_unidirectional", mha(["q", "q2", "v2"], unidirectional=1),
               {"q": q, "q2": normal(35, B, S, H), "v2": normal(36, B, S, H)}, out)
    # ONNX Runtime's CPU kernel has no packed forms: the same attention on the
    # unpacked [B, S, H*D] inputs is the reference.
    qkv, kv = normal(37, B, S, N, 3, D), normal(38, B, L, N, 2, D)
    part = lambda packed, i: np.ascontiguousarray(packed[:, :, :, i, :]).reshape(
        packed.shape[0], packed.shape[1], -1)
    yield Case("mha_packed_qkv", mha(["qkv"]), {"qkv": qkv}, out,
               equivalent=Case("unpacked", mha(["q", "k", "v"]),
                               {"q": part(qkv, 0), "k": part(qkv, 1), "v": part(qkv, 2)}, out))
    yield Case("mha_packed_kv", mha(["q", "kv"]), {"q": q, "kv": kv}, out,
               equivalent=Case("unpacked", mha(["q", "k", "v"]),
                               {"q": q, "k": part(kv, 0), "v": part(kv, 1)}, out))
    yield Case("mha_cached_kv", mha(["q", "k4", "v4"]),
               {"q": q, "k4": normal(39, B, N, L, D), "v4": normal(40, B, N, L, D)}, out)
    yield Case("mha_attention_bias", mha(["q", "k", "v", "", "", "ab"], scale=0.3),
               {"q": q, "k": k, "v": v, "ab": normal(41, B, 1, S, L)}, out)
    yield Case("mha_past_present",
               mha(["q", "q2", "v2", "bias", "", "", "pk", "pv"], ("y", "present_key",
                                                                   "present_value"),
                   unidirectional=1),
               {"q": q, "q2": normal(42, B, S, H), "v2": normal(43, B, S, H),
                "pk": normal(44, B, N, 3, D), "pv": normal(45, B, N, 3, D)},
               out + [("present_key", F32, [B, N, S + 3, D]),
                      ("present_value", F32, [B, N, S + 3, D])], {"bias": bias})


def embedding_cases():
    vocab, positions, segments = 20, 12, 2
    ids = rng(51).integers(0, vocab, (B, S)).astype(np.int32)
    seg = rng(52).integers(0, segments, (B, S)).astype(np.int32)
    tables = {"words": normal(53, vocab, H), "positions": normal(54, positions, H),
              "segments": normal(55, segments, H), "gamma": normal(56, H, scale=0.2) + 1,
              "beta": normal(57, H, scale=0.1)}
    yield Case("embed_layer_norm",
               [node("EmbedLayerNormalization", ["ids", "seg", "words", "positions", "segments",
                                                 "gamma", "beta", "mask"],
                     ["y", "mask_index", "sum"], epsilon=1e-5)],
               {"ids": ids, "seg": seg, "mask": padded_mask(B, S)},
               [("y", F32, [B, S, H]), ("mask_index", I32, [B]), ("sum", F32, [B, S, H])],
               tables)
    yield Case("embed_layer_norm_position_ids",
               [node("EmbedLayerNormalization", ["ids", "", "words", "positions", "", "gamma",
                                                 "beta", "", "pos"], ["y", "mask_index"],
                     epsilon=1e-5)],
               {"ids": ids, "pos": rng(58).integers(0, positions, (B, S)).astype(np.int32)},
               [("y", F32, [B, S, H]), ("mask_index", I32, [B])], tables)


def rotary_cases():
    max_seq, half = 16, D // 2
    angles = np.arange(max_seq)[:, None] / (10000 ** (np.arange(half) / half))[None, :]
    caches = {"cos": np.cos(angles).astype(np.float32), "sin": np.sin(angles).astype(np.float32)}
    x3 = normal(61, B, S, H)
    ids = rng(62).integers(0, max_seq - S, (B, S)).astype(np.int64)

    def rotary(**attrs):
        return [node("RotaryEmbedding", ["x", "ids", "cos", "sin"], ["y"], **attrs)]
    yield Case("rotary_3d", rotary(num_heads=N), {"x": x3, "ids": ids},
               [("y", F32, [B, S, H])], caches)
    yield Case("rotary_offset", rotary(num_heads=N), {"x": x3,
                                                       "ids": np.array([3], dtype=np.int64)},
               [("y", F32, [B, S, H])], caches)
    yield Case("rotary_interleaved", rotary(num_heads=N, interleaved=1), {"x": x3, "ids": ids},
               [("y", F32, [B, S, H])], caches)
    yield Case("rotary_4d", rotary(), {"x": normal(63, B, N, S, D), "ids": ids},
               [("y", F32, [B, N, S, D])], caches)
    part = {"cos": caches["cos"][:, :1], "sin": caches["sin"][:, :1]}
    yield Case("rotary_partial", rotary(num_heads=N, rotary_embedding_dim=2),
               {"x": x3, "ids": ids}, [("y", F32, [B, S, H])], part)


def gqa_caches(max_seq=32, half=8):
    """Rotary cos/sin caches [max_seq, half]."""
    angles = np.arange(max_seq)[:, None] / (10000 ** (np.arange(half) / half))[None, :]
    return {"cos": np.cos(angles).astype(np.float32), "sin": np.sin(angles).astype(np.float32)}


def group_query_attention_cases():
    """GroupQueryAttention as the generative-AI model builder writes it:
    prompts (with right padding given by seqlens_k), decoding steps with
    past caches whose rows hold different lengths, packed QKV, rotary
    (interleaved and not), local windows, num_heads / kv_num_heads of 1, 2
    and 4, and the builder's own length computation from the attention mask
    with symbolic dims. ONNX Runtime's kernel needs head sizes that are
    multiples of 16 with rotary: D = 16."""
    d = 16

    def gqa(name, b, s, heads, kv_heads, lengths, total, past=0, packed=False,
            rotary=False, total_from=None, symbolic=None, seed=0, **attrs):
        r = rng(100 + seed)
        inputs = {}
        if packed:
            inputs["qkv"] = r.standard_normal((b, s, (heads + 2 * kv_heads) * d)).astype(np.float32)
            names = ["qkv", "", ""]
        else:
            inputs["q"] = r.standard_normal((b, s, heads * d)).astype(np.float32)
            inputs["k"] = r.standard_normal((b, s, kv_heads * d)).astype(np.float32)
            inputs["v"] = r.standard_normal((b, s, kv_heads * d)).astype(np.float32)
            names = ["q", "k", "v"]
        if past:
            inputs["past_key"] = r.standard_normal((b, kv_heads, past, d)).astype(np.float32)
            inputs["past_value"] = r.standard_normal((b, kv_heads, past, d)).astype(np.float32)
            names += ["past_key", "past_value"]
        else:
            names += ["", ""]
        inputs["seqlens_k"] = np.array(lengths, np.int32) - 1
        weights, nodes = {}, []
        if total_from == "computed":
            # max(seqlens_k) + 1, known only when the graph runs.
            weights["one"] = np.array(1, np.int32)
            nodes = [helper.make_node("ReduceMax", ["seqlens_k"], ["longest"], keepdims=0),
                     helper.make_node("Add", ["longest", "one"], ["total"])]
        else:
            (inputs if total_from == "input" else weights)["total"] = np.array(total, np.int32)
        names += ["seqlens_k", "total"]
        if rotary:
            weights.update(gqa_caches())
            names += ["cos", "sin"]
            attrs["do_rotary"] = 1
        present = max(total, past)
        outputs = [("y", F32, [b, s, heads * d]),
                   ("present_key", F32, [b, kv_heads, present, d]),
                   ("present_value", F32, [b, kv_heads, present, d])]
        return Case(name, nodes + [node("GroupQueryAttention", names,
                                ["y", "present_key", "present_value"], num_heads=heads,
                                kv_num_heads=kv_heads, **attrs)],
                    inputs, outputs, weights, symbolic=symbolic)

    yield gqa("gqa_prompt", 1, 5, 4, 2, [5], 5)
    yield gqa("gqa_prompt_right_padded", 2, 5, 4, 1, [5, 3], 5, seed=1)
    yield gqa("gqa_prompt_mha_heads", 2, 4, 2, 2, [2, 4], 4, seed=2)
    yield gqa("gqa_decode_past", 2, 1, 4, 2, [7, 4], 7, past=6, seed=3)
    yield gqa("gqa_decode_buffer_longer", 2, 1, 4, 1, [5, 2], 5, past=8, seed=4)
    yield gqa("gqa_subsequent_prompt", 1, 3, 4, 2, [7], 7, past=4, seed=5)
    yield gqa("gqa_packed_qkv", 2, 5, 4, 2, [5, 2], 5, packed=True, seed=6)
    yield gqa("gqa_packed_qkv_decode", 2, 1, 2, 1, [6, 3], 6, past=5, packed=True, seed=7)
    yield gqa("gqa_rotary_prompt", 2, 5, 4, 2, [5, 3], 5, rotary=True, seed=8)
    yield gqa("gqa_rotary_interleaved_decode", 2, 1, 4, 2, [7, 4], 7, past=6, rotary=True,
              rotary_interleaved=1, seed=9)
    yield gqa("gqa_rotary_packed_interleaved", 2, 4, 4, 1, [4, 2], 4, packed=True,
              rotary=True, rotary_interleaved=1, seed=10)
    yield gqa("gqa_local_window", 2, 6, 4, 2, [6, 4], 6, local_window_size=3, seed=11)
    yield gqa("gqa_local_window_decode", 2, 1, 4, 2, [8, 5], 8, past=7, local_window_size=3,
              seed=12)
    yield gqa("gqa_scale", 1, 4, 4, 4, [4], 4, scale=0.3, seed=13)
    yield gqa("gqa_total_input", 2, 1, 4, 2, [6, 3], 6, past=5, total_from="input", seed=14)
    yield gqa("gqa_total_computed", 2, 1, 4, 2, [6, 3], 6, past=5, total_from="computed",
              seed=15)
    # The builder's graph: seqlens_k and total_sequence_length from the
    # attention mask [B, past + S] (left-aligned ones), batch, seq and past
    # symbolic.
    b, s, past, heads, kv_heads = 2, 1, 5, 4, 2
    r = rng(120)
    mask = np.ones((b, past + s), np.int64)
    mask[1, 4:] = 0  # row 1: 3 past tokens, the new one written after them
    inputs = {"q": r.standard_normal((b, s, heads * d)).astype(np.float32),
              "k": r.standard_normal((b, s, kv_heads * d)).astype(np.float32),
              "v": r.standard_normal((b, s, kv_heads * d)).astype(np.float32),
              "past_key": r.standard_normal((b, kv_heads, past, d)).astype(np.float32),
              "past_value": r.standard_normal((b, kv_heads, past, d)).astype(np.float32),
              "mask": mask}
    mask_nodes = [
        helper.make_node("ReduceSum", ["mask", "axis1"], ["kept"], keepdims=0),
        helper.make_node("Sub", ["kept", "one"], ["last"]),
        helper.make_node("Cast", ["last"], ["seqlens_k"], to=I32),
        helper.make_node("Shape", ["mask"], ["mask_shape"]),
        helper.make_node("Gather", ["mask_shape", "one"], ["total64"], axis=0),
        helper.make_node("Cast", ["total64"], ["total"], to=I32)]
    symbolic = {"q": {0: "batch", 1: "seq"}, "k": {0: "batch", 1: "seq"},
                "v": {0: "batch", 1: "seq"}, "past_key": {0: "batch", 2: "past"},
                "past_value": {0: "batch", 2: "past"}, "mask": {0: "batch", 1: "total"}}
    yield Case("gqa_builder_mask_symbolic", mask_nodes + [
        node("GroupQueryAttention", ["q", "k", "v", "past_key", "past_value", "seqlens_k",
                                     "total", "cos", "sin"],
             ["y", "present_key", "present_value"], num_heads=heads, kv_num_heads=kv_heads,
             do_rotary=1)],
        inputs, [("y", F32, ["batch", "seq", heads * d]),
                 ("present_key", F32, ["batch", kv_heads, "total", d]),
                 ("present_value", F32, ["batch", kv_heads, "total", d])],
        {"one": np.array(1, np.int64), "axis1": np.array([1], np.int64),
         **gqa_caches()}, symbolic=symbolic)


# --- quantized matmuls --------------------------------------------------------

def pack_bits(values, bits):
    """Little-endian bit stream of `values` (last axis), ONNX Runtime's
    packing: value i at bits [i * bits, (i + 1) * bits)."""
    values = np.asarray(values, dtype=np.uint32)
    count = values.shape[-1]
    out = np.zeros(values.shape[:-1] + ((count * bits + 7) // 8,), dtype=np.uint8)
    for i in range(count):
        for bit in range(bits):
            byte, shift = divmod(i * bits + bit, 8)
            out[..., byte] |= (((values[..., i] >> bit) & 1) << shift).astype(np.uint8)
    return out


def nbits_weights(seed, k, n, bits, block, zero_points):
    """B, scales and zero points of a MatMulNBits weight [K, N]: random
    quantized values per block along K; zero points packed like B, as floats,
    or absent."""
    blocks = (k + block - 1) // block
    r = rng(seed)
    q = r.integers(0, 1 << bits, (n, blocks * block))
    q[:, k:] = 0
    b = pack_bits(q.reshape(n, blocks, block), bits)
    weights = {"B": b, "scales": (0.05 + 0.1 * r.random((n * blocks,))).astype(np.float32)}
    if zero_points == "packed":
        weights["zp"] = pack_bits(r.integers(0, 1 << bits, (n, blocks)), bits)
    elif zero_points == "float":
        weights["zp"] = r.integers(0, 1 << bits, (n, blocks)).astype(np.float32)
    return weights


def quantized_matmul_cases():
    for name, k, n, bits, block, zp in (("nbits4_packed_zp", 64, 24, 4, 32, "packed"),
                                        ("nbits4_default_zp", 64, 24, 4, 16, None),
                                        ("nbits4_partial_block", 40, 8, 4, 16, "packed"),
                                        ("nbits8", 32, 16, 8, 16, "packed"),
                                        ("nbits4_float_zp", 64, 8, 4, 32, "float"),
                                        ("nbits2", 64, 8, 2, 32, "packed")):
        weights = nbits_weights(60 + k + bits, k, n, bits, block, zp)
        inputs = ["a", "B", "scales"] + (["zp"] if zp else [])
        yield Case(f"matmul_{name}", [node("MatMulNBits", inputs, ["y"], K=k, N=n, bits=bits,
                                           block_size=block)],
                   {"a": normal(70, B, S, k)}, [("y", F32, [B, S, n])], weights)
    weights = nbits_weights(80, 64, 16, 4, 32, "packed")
    weights["bias"] = normal(81, 16)
    yield Case("matmul_nbits_bias",
               [node("MatMulNBits", ["a", "B", "scales", "zp", "", "bias"], ["y"], K=64, N=16,
                     bits=4, block_size=32)],
               {"a": normal(82, 3, 64)}, [("y", F32, [3, 16])], weights)
    # The default zero point (8): tsc keeps the weight packed (a weight-only
    # GEMM step); here with a partial last block and a bias.
    weights = nbits_weights(83, 40, 8, 4, 16, None)
    weights["bias"] = normal(84, 8)
    yield Case("matmul_nbits4_default_zp_partial_bias",
               [node("MatMulNBits", ["a", "B", "scales", "", "", "bias"], ["y"], K=40, N=8,
                     bits=4, block_size=16)],
               {"a": normal(85, B, S, 40)}, [("y", F32, [B, S, 8])], weights)
    a = normal(90, B, S, H, scale=3.0)
    b8 = rng(91).integers(-127, 128, (H, 12)).astype(np.int8)
    yield Case("dynamic_quantize_matmul",
               [node("DynamicQuantizeMatMul", ["a", "b", "scale", "zp", "bias"], ["y"])],
               {"a": a}, [("y", F32, [B, S, 12])],
               {"b": b8, "scale": np.array(0.02, dtype=np.float32),
                "zp": np.array(3, dtype=np.int8), "bias": normal(92, 12)})
    yield Case("dynamic_quantize_matmul_per_column",
               [node("DynamicQuantizeMatMul", ["a", "b", "scale"], ["y"])],
               {"a": a}, [("y", F32, [B, S, 12])],
               {"b": b8, "scale": (0.01 + 0.02 * rng(93).random(12)).astype(np.float32)})
    yield Case("matmul_integer_to_float",
               [node("MatMulIntegerToFloat", ["a", "b", "sa", "sb", "za", "zb", "bias"], ["y"])],
               {"a": rng(94).integers(0, 256, (B, S, H)).astype(np.uint8)},
               [("y", F32, [B, S, 12])],
               {"b": b8, "sa": np.array(0.03, dtype=np.float32),
                "sb": (0.01 + 0.02 * rng(95).random(12)).astype(np.float32),
                "za": np.array(128, dtype=np.uint8),
                "zb": np.zeros(12, dtype=np.int8), "bias": normal(96, 12)})
    # Fed by DynamicQuantizeLinear (what ONNX Runtime's optimizer makes of
    # quantize_dynamic's MatMulInteger): tsc's int8 step by the range.
    yield Case("matmul_integer_to_float_dynamic",
               [helper.make_node("DynamicQuantizeLinear", ["a"], ["q", "sa", "za"]),
                node("MatMulIntegerToFloat", ["q", "b", "sa", "sb", "za", "", "bias"], ["y"])],
               {"a": a}, [("y", F32, [B, S, 12])],
               {"b": b8, "sb": (0.01 + 0.02 * rng(97).random(12)).astype(np.float32),
                "bias": normal(98, 12)})
    # The same with 7-bit weight codes (ONNX Runtime's reduce_range): on a
    # CPU without VNNI tsc runs them on oneDNN's u8 x s8 kernels, which sum
    # such products exactly (host_gemm_step.h, narrowWeight).
    yield Case("matmul_integer_to_float_dynamic_7bit",
               [helper.make_node("DynamicQuantizeLinear", ["a"], ["q", "sa", "za"]),
                node("MatMulIntegerToFloat", ["q", "b", "sa", "sb", "za", "", "bias"], ["y"])],
               {"a": a}, [("y", F32, [B, S, 12])],
               {"b": rng(99).integers(-64, 65, (H, 12)).astype(np.int8),
                "sb": (0.01 + 0.02 * rng(100).random(12)).astype(np.float32),
                "bias": normal(101, 12)})



def qlinear_cases():
    """QLinearAdd, QLinearMul and QLinearSoftmax (ONNX Runtime's QOperator
    models): u8 and s8 codes, broadcasting, an output without zero point, and the
    softmax scale ONNX Runtime's quantizer gives ([0, 1]: 1/255, whose
    floor(1 / scale) is 254); the codes against ONNX Runtime's exactly."""
    def codes(seed, dtype, *shape):
        lo, hi = (0, 256) if dtype == np.uint8 else (-128, 128)
        return rng(seed).integers(lo, hi, shape).astype(dtype)

    def params(seed, dtype, names):
        return {name: value for n in names for name, value in (
            (f"s{n}", np.array(0.01 + 0.05 * rng(seed + ord(n)).random(), np.float32)),
            (f"z{n}", np.array(rng(seed + ord(n)).integers(90, 130) if dtype == np.uint8
                               else rng(seed + ord(n)).integers(-20, 20), dtype)))}

    for op in ("QLinearAdd", "QLinearMul"):
        for dtype, elem in ((np.uint8, U8), (np.int8, I8)):
            suffix = "u8" if dtype == np.uint8 else "s8"
            yield Case(f"{op.lower()}_{suffix}",
                       [node(op, ["a", "sa", "za", "b", "sb", "zb", "sc", "zc"], ["c"])],
                       {"a": codes(110, dtype, B, S, H), "b": codes(111, dtype, B, S, H)},
                       [("c", elem, [B, S, H])], params(112, dtype, "abc"))
        # B broadcast along the rows, C's zero point absent (0). (ONNX
        # Runtime refuses an absent A or B zero point, which the schema
        # allows.)
        weights = params(113, np.uint8, "abc")
        del weights["zc"]
        yield Case(f"{op.lower()}_broadcast_no_zero_point",
                   [node(op, ["a", "sa", "za", "b", "sb", "zb", "sc"], ["c"])],
                   {"a": codes(114, np.uint8, B, S, H)}, [("c", U8, [B, S, H])],
                   dict(weights, b=codes(115, np.uint8, H)))
    for dtype, elem, zero in ((np.uint8, U8, 0), (np.int8, I8, -128)):
        suffix = "u8" if dtype == np.uint8 else "s8"
        yield Case(f"qlinear_softmax_{suffix}",
                   [node("QLinearSoftmax", ["x", "sx", "zx", "sy", "zy"], ["y"], axis=-1,
                         opset=13)],
                   {"x": codes(116, dtype, B, S, H)}, [("y", elem, [B, S, H])],
                   {"sx": np.array(0.05, np.float32), "zx": np.array(zero + 100, dtype),
                    "sy": np.array(1 / 255, np.float32), "zy": np.array(zero, dtype)})
    # QLinearMatMul (ai.onnx) by a constant weight, as quantize_static's
    # QOperator models have it: tsc rewrites it into an int8 GEMM step (its
    # codes must still be ONNX Runtime's): codes quantized from f32 here,
    # s8 weights per column, u8 output read back as f32; codes given as such
    # (another QLinear op's in a model) by a per-tensor weight; a u8 weight
    # with zero point 128 (B - 128 is an s8 weight). (ONNX Runtime's exact
    # mode, reference_main's option, has no s8-activation kernel.)
    sw = (0.004 + 0.004 * rng(118).random(12)).astype(np.float32)
    weights = {"sx": np.array(0.03, np.float32), "zx": np.array(118, np.uint8),
               "w": rng(119).integers(-127, 128, (H, 12)).astype(np.int8), "sw": sw,
               "zw": np.zeros(12, np.int8), "sy": np.array(0.05, np.float32),
               "zy": np.array(125, np.uint8)}
    yield Case("qlinear_matmul_const_weight",
               [helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
                helper.make_node("QLinearMatMul", ["xq", "sx", "zx", "w", "sw", "zw", "sy", "zy"],
                                 ["yq"]),
                helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["y"])],
               {"x": normal(120, B, S, H, scale=1.5)}, [("yq", U8, [B, S, 12]),
                                                      ("y", F32, [B, S, 12])], weights)
    yield Case("qlinear_matmul_const_weight_codes",
               [helper.make_node("QLinearMatMul", ["a", "sa", "za", "w", "sw", "zw", "sy", "zy"],
                                 ["y"])],
               {"a": codes(121, np.uint8, B, S, H)}, [("y", U8, [B, S, 12])],
               {"sa": np.array(0.02, np.float32), "za": np.array(131, np.uint8),
                "w": rng(122).integers(-128, 128, (H, 12)).astype(np.int8),
                "sw": np.array(0.003, np.float32), "zw": np.array(0, np.int8),
                "sy": np.array(0.04, np.float32), "zy": np.array(3, np.uint8)})
    yield Case("qlinear_matmul_const_u8_weight",
               [helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
                helper.make_node("QLinearMatMul", ["xq", "sx", "zx", "w", "sw", "zw", "sy", "zy"],
                                 ["y"])],
               {"x": normal(123, B, S, H, scale=1.5)}, [("y", U8, [B, S, 12])],
               dict(weights, w=rng(124).integers(0, 256, (H, 12)).astype(np.uint8),
                    sw=np.array(0.005, np.float32), zw=np.array(128, np.uint8)))
    # Both operands run-time codes (attention's Q·Kᵀ and P·V in a QOperator
    # model): tsc computes the product in f32, exact at this K.
    yield Case("qlinear_matmul_runtime_operands",
               [helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"],
                                 ["y"])],
               {"a": codes(125, np.uint8, B, S, H), "b": codes(126, np.uint8, B, H, S)},
               [("y", U8, [B, S, S])],
               {"sa": np.array(0.02, np.float32), "za": np.array(131, np.uint8),
                "sb": np.array(0.03, np.float32), "zb": np.array(128, np.uint8),
                "sy": np.array(0.25, np.float32), "zy": np.array(100, np.uint8)})
    # Over the middle axis (opset 13: that axis alone).
    yield Case("qlinear_softmax_axis1",
               [node("QLinearSoftmax", ["x", "sx", "zx", "sy", "zy"], ["y"], axis=1, opset=13)],
               {"x": codes(117, np.uint8, B, S, H)}, [("y", U8, [B, S, H])],
               {"sx": np.array(0.08, np.float32), "zx": np.array(128, np.uint8),
                "sy": np.array(1 / 255, np.float32), "zy": np.array(0, np.uint8)})


# --- standard recurrences: what the backend node tests do not cover ----------

def recurrent_cases():
    """RNN, GRU and LSTM (ai.onnx) variants the ONNX node tests leave out:
    sequence lengths shorter than the sequence (forward, reverse and
    bidirectional), linear_before_reset, clip, named activations with
    alphas, peepholes with initial states. (ONNX Runtime's CPU kernels
    refuse layout 1, which the node tests' *_batchwise cases cover.)"""
    seq, batch, size, hidden = 4, 3, 5, 6
    x = normal(80, seq, batch, size)
    lengths = np.array([4, 2, 1], np.int32)
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}

    def case(name, op, dirs=1, extra_inputs=(), **attrs):
        layout = 0
        g = gates[op]
        inputs = {"x": x if layout == 0 else np.ascontiguousarray(x.transpose(1, 0, 2))}
        weights = {"w": normal(81, dirs, g * hidden, size, scale=0.4),
                   "r": normal(82, dirs, g * hidden, hidden, scale=0.4),
                   "b": normal(83, dirs, 2 * g * hidden, scale=0.2)}
        names = ["x", "w", "r", "b"]
        for extra in extra_inputs:
            if extra == "lengths":
                inputs["lengths"] = lengths
                names.append("lengths")
            elif extra in ("h0", "c0"):
                shape = (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)
                while len(names) < (5 if extra == "h0" else 6):
                    names.append("")
                weights[extra] = normal(84 + len(names), *shape, scale=0.5)
                names.append(extra)
            elif extra == "p":
                while len(names) < 7:
                    names.append("")
                weights["p"] = normal(90, dirs, 3 * hidden, scale=0.3)
                names.append("p")
        y_shape = [seq, dirs, batch, hidden] if layout == 0 else [batch, seq, dirs, hidden]
        h_shape = [dirs, batch, hidden] if layout == 0 else [batch, dirs, hidden]
        outputs = [("y", F32, y_shape), ("y_h", F32, h_shape)]
        out_names = ["y", "y_h"]
        if op == "LSTM":
            outputs.append(("y_c", F32, h_shape))
            out_names.append("y_c")
        direction = {1: "forward", 2: "bidirectional"}[dirs]
        attrs.setdefault("direction", direction)
        return Case(name, [helper.make_node(op, names, out_names, hidden_size=hidden,
                                            layout=layout, **attrs)],
                    inputs, outputs, weights=weights, opset=14)

    for op in ("RNN", "GRU", "LSTM"):
        low = op.lower()
        yield case(f"{low}_lengths", op, extra_inputs=["lengths"])
        yield case(f"{low}_reverse_lengths", op, extra_inputs=["lengths"],
                   direction="reverse")
        yield case(f"{low}_bidirectional_lengths_initial", op, dirs=2,
                   extra_inputs=["lengths", "h0"])
        yield case(f"{low}_clip", op, clip=0.5)
    yield case("gru_linear_before_reset", "GRU", linear_before_reset=1,
               extra_inputs=["lengths"])
    yield case("rnn_activations", "RNN", dirs=2, activations=["Relu", "LeakyRelu"],
               activation_alpha=[0.1])
    yield case("gru_activations", "GRU", activations=["HardSigmoid", "Softsign"],
               activation_alpha=[0.3], activation_beta=[0.4])
    yield case("lstm_peepholes_initial", "LSTM", extra_inputs=["lengths", "h0", "c0", "p"])
    yield case("lstm_activations", "LSTM",
               activations=["Sigmoid", "ScaledTanh", "Affine"],
               activation_alpha=[0.9, 0.5], activation_beta=[1.1, 0.2])


CASES = [skip_norm_cases, activation_cases, attention_cases, multi_head_attention_cases,
         group_query_attention_cases, embedding_cases, rotary_cases, quantized_matmul_cases,
         qlinear_cases, recurrent_cases]


def ort_outputs(case, work):
    """(problem, {name: array}): ONNX Runtime's outputs for `case`, run in a
    process of its own (--reference), so that a crash in ONNX Runtime is a
    failed case, not a failed suite."""
    work.mkdir()
    onnx.save(case.model(), str(work / "model.onnx"))
    np.savez(work / "inputs.npz", **case.inputs)
    proc = subprocess.run([sys.executable, __file__, "--reference", str(work)],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode:
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        why = lines[-1] if lines else f"exit status {proc.returncode}"
        return f"ONNX Runtime: {why}", None
    with np.load(work / "expected.npz") as data:
        return None, {name: data[name] for name in data.files}


def reference_main(folder):
    """--reference FOLDER: ONNX Runtime on FOLDER/model.onnx and inputs.npz,
    its outputs written to FOLDER/expected.npz."""
    import onnxruntime as ort
    folder = pathlib.Path(folder)
    # ONNX Runtime's u8 x s8 kernels for a CPU without VNNI (AVX2, AVX-512
    # before VNNI) add pairs of products in saturating 16-bit sums (its
    # docs/quantization's "saturation" caveat): 348 of 512 MatMulInteger
    # outputs off on a Zen 3. This option makes its level-2 optimizer turn
    # a constant s8 weight into u8 (the u8 x u8 kernels widen to 16 bits
    # first: exact), so that the reference is the op's integer arithmetic
    # on every CPU; it changes nothing where the CPU has VNNI.
    options = ort.SessionOptions()
    options.add_session_config_entry("session.x64quantprecision", "1")
    session = ort.InferenceSession(str(folder / "model.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    with np.load(folder / "inputs.npz") as data:
        inputs = {name: data[name] for name in data.files}
    names = [o.name for o in session.get_outputs()]
    np.savez(folder / "expected.npz", **dict(zip(names, session.run(names, inputs))))
    return 0


def run_case(args, case, work):
    """(problem or None, details) for one case."""
    work.mkdir()
    model = case.model()
    path = work / "model.onnx"
    onnx.save(model, str(path))
    if case.reference:
        expected = case.reference(**case.inputs, **case.weights)
    else:
        problem, expected = ort_outputs(case.equivalent or case, work / "reference")
        if problem:
            return problem, ""
    proc = subprocess.run([args.tsc, str(path), "-o", str(work / "case.tscm"), *case.dims()],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode:
        return first_error("tsc", proc), proc.stderr
    run = [args.tsc_run, str(work / "case.tscm"), "--output-dir", str(work / "out")]
    for name, array in case.inputs.items():
        np.save(work / f"{name}.npy", array)
        run += ["--input", f"{name}={work / f'{name}.npy'}"]
    proc = subprocess.run(run, capture_output=True, text=True, timeout=300)
    if proc.returncode:
        return first_error("tsc-run", proc), proc.stderr
    problems = []
    for name, ref in expected.items():
        out = np.load(work / "out" / f"{sanitize(name)}.npy")
        if out.dtype != ref.dtype or out.shape != ref.shape:
            problems.append(f"output '{name}' is {out.dtype}{list(out.shape)}, expected "
                            f"{ref.dtype}{list(ref.shape)}")
        elif ref.dtype.kind != "f":
            if not np.array_equal(out, ref):
                problems.append(f"numerics: {int(np.count_nonzero(out != ref))} elements "
                                f"differ on output '{name}'")
        elif not rel_l2(out, ref) <= TOLERANCE:
            problems.append(f"numerics: rel L2 {rel_l2(out, ref):.1e} on output '{name}'")
    return (problems[0] if problems else None), "\n".join(problems)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--reference":
        return reference_main(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--xunit")
    parser.add_argument("--filter", default="")
    parser.add_argument("--write-exclusions", action="store_true")
    args = parser.parse_args()
    cases = [c for make in CASES for c in make() if args.filter in c.name]
    names = [c.name for c in cases]
    assert len(set(names)) == len(names), "duplicate case names"
    results = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = {pool.submit(run_case, args, c, pathlib.Path(tmp) / c.name): c.name
                   for c in cases}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
    if args.write_exclusions:
        count = manifest.write(MANIFEST, [
            "Contrib-op cases (run_contrib_tests.py) that fail for a known reason.",
            "Written by `run_contrib_tests.py --write-exclusions`; review by hand."], results)
        print(f"wrote {count} expected failures")
        return 0
    passed, failed, skipped, suite = manifest.report("onnx-contrib", results, MANIFEST)
    if args.xunit:
        ET.ElementTree(suite).write(args.xunit)
    print(f"onnx-contrib: {len(results)} cases: {passed} passed, {failed} failed, "
          f"{skipped} expected failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
