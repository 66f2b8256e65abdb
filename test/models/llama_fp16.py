#!/usr/bin/env python3
"""Writes a Llama-shaped fp16 decoder as ONNX with its weights as external data.

The graph is built with onnx.helper node by node as torch.onnx's exporter
writes export_models.py's Llama-style model at opset 17 (view as Shape /
Gather / Unsqueeze / Concat / Reshape, rotate_half as Slice / Neg / Concat,
the grouped-query repeat as Unsqueeze / Expand / Reshape, RMSNorm as Pow /
ReduceMean / Sqrt / Div), in half precision throughout as a model converted
with `.half()` is, the rotary angles computed in fp32 and cast as Hugging
Face's Llama does, and a language-model head. The weights (seeded random,
with norm scales away from 1) are never all in memory: each tensor is
generated in chunks and appended to the `.data` file, large ones at 64 KiB
aligned offsets as onnx's external-data writer places them.

TinyLlama-1.1B's shapes are the default (`CONFIG`); tests use `TINY`.

Usage: llama_fp16.py OUT.onnx [--layers N] [--tiny] [--seed N]
"""
import argparse
import dataclasses
import math
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

F16 = TensorProto.FLOAT16
I64 = TensorProto.INT64
F32 = TensorProto.FLOAT
NEG = float(np.finfo(np.float16).min)
ALIGN_THRESHOLD, ALIGNMENT = 1 << 20, 1 << 16  # as onnx.external_data_helper
CHUNK_ELEMENTS = 1 << 22


@dataclasses.dataclass(frozen=True)
class Config:
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    eps: float = 1e-5
    theta: float = 10000.0

    @property
    def head_dim(self):
        return self.hidden // self.heads


CONFIG = Config(hidden=2048, layers=22, heads=32, kv_heads=4, intermediate=5632, vocab=32000)
TINY = Config(hidden=64, layers=2, heads=4, kv_heads=2, intermediate=96, vocab=128)


class Builder:
    """Nodes named and numbered as torch.onnx names them; initializers as
    external data appended to one file."""

    def __init__(self, data_path, seed):
        self.nodes, self.initializers = [], []
        self.counts = {}
        self.data_path = data_path
        self.data = open(data_path, "wb")
        self.rng = np.random.default_rng(seed)
        self.weight_count = 0

    def name(self, scope, op):
        key = (scope, op)
        n = self.counts.get(key, 0)
        self.counts[key] = n + 1
        return f"{scope}/{op}" + (f"_{n}" if n else "")

    def node(self, scope, op, inputs, **attrs):
        name = self.name(scope, op)
        out = f"{name}_output_0"
        self.nodes.append(helper.make_node(op, list(inputs), [out], name=name, **attrs))
        return out

    def const(self, scope, value, dtype=None):
        array = np.array(value, dtype=dtype or (np.int64 if isinstance(value, (int, list))
                                                 else np.float16))
        return self.node(scope, "Constant", [], value=onnx.numpy_helper.from_array(array))

    def weight(self, name, shape, scale=None, offset=0.0):
        """A seeded random fp16 initializer [shape] stored externally;
        values offset + scale·N(0, 1) (scale defaults to 1/sqrt(fan-in))."""
        count = math.prod(shape)
        nbytes = count * 2
        position = self.data.tell()
        if nbytes > ALIGN_THRESHOLD:
            position = -(-position // ALIGNMENT) * ALIGNMENT
            self.data.write(b"\0" * (position - self.data.tell()))
        scale = scale if scale is not None else 1.0 / math.sqrt(shape[0])
        for start in range(0, count, CHUNK_ELEMENTS):
            n = min(CHUNK_ELEMENTS, count - start)
            chunk = self.rng.standard_normal(n, dtype=np.float32) * scale + offset
            self.data.write(chunk.astype("<f2").tobytes())
        tensor = TensorProto(name=name, data_type=F16, dims=shape)
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self.data_path.name), ("offset", position),
                           ("length", nbytes)):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, str(value)
        self.initializers.append(tensor)
        self.weight_count += count
        return name

    def matmul_weight(self, fan_in, fan_out):
        # torch.onnx names a transposed Linear weight after its first use.
        self.counts["matmul"] = self.counts.get("matmul", 0) + 1
        return self.weight(f"onnx::MatMul_{self.counts['matmul']}", [fan_in, fan_out])

    def dim(self, scope, x, index):
        shape = self.node(scope, "Shape", [x])
        return self.node(scope, "Gather", [shape, self.const(scope, index)], axis=0)

    def unsqueeze(self, scope, x, axis):
        return self.node(scope, "Unsqueeze", [x, self.const(scope, [axis])])


def rms_norm(b, scope, x, weight, eps):
    pow_ = b.node(scope, "Pow", [x, b.const(scope, 2.0)])
    mean = b.node(scope, "ReduceMean", [pow_], axes=[-1], keepdims=1)
    add = b.node(scope, "Add", [mean, b.const(scope, eps)])
    sqrt = b.node(scope, "Sqrt", [add])
    inv = b.node(scope, "Div", [b.const(scope, 1.0), sqrt])
    return b.node(scope, "Mul", [weight, b.node(scope, "Mul", [x, inv])])


def split_heads(b, scope, x, heads):
    """x.view(b, s, heads, -1).transpose(1, 2)"""
    batch = b.unsqueeze(scope, b.dim(scope, x, 0), 0)
    seq = b.unsqueeze(scope, b.dim(scope, x, 1), 0)
    shape = b.node(scope, "Concat", [batch, seq, b.const(scope, [heads]), b.const(scope, [-1])],
                   axis=0)
    return b.node(scope, "Transpose", [b.node(scope, "Reshape", [x, shape], allowzero=0)],
                  perm=[0, 2, 1, 3])


def rotary(b, scope, x, cos, sin):
    """x * cos + rotate_half(x) * sin"""
    x_cos = b.node(scope, "Mul", [x, cos])
    half = b.node(scope, "Div", [b.dim(scope, x, 3), b.const(scope, 2)])
    half = b.node(scope, "Cast", [b.node(scope, "Cast", [half], to=I64)], to=I64)
    second = b.node(scope, "Slice", [x, b.unsqueeze(scope, half, 0),
                                     b.const(scope, [2**63 - 1]), b.const(scope, [3]),
                                     b.const(scope, [1])])
    first = b.node(scope, "Slice", [x, b.const(scope, [0]), b.unsqueeze(scope, half, 0),
                                    b.const(scope, [3]), b.const(scope, [1])])
    rotated = b.node(scope, "Concat", [b.node(scope, "Neg", [second]), first], axis=-1)
    return b.node(scope, "Add", [x_cos, b.node(scope, "Mul", [rotated, sin])])


def repeat_kv(b, scope, x, dims, rep):
    """x[:, :, None].expand(b, kvh, rep, s, d).reshape(b, kvh * rep, s, d)
    with (b, kvh, s, d) = `dims` (0-d sizes)."""
    batch, kvh, seq, d = dims
    expanded = b.unsqueeze(scope, x, 2)
    shape = b.node(scope, "Concat", [b.unsqueeze(scope, batch, 0), b.unsqueeze(scope, kvh, 0),
                                     b.const(scope, [rep]), b.unsqueeze(scope, seq, 0),
                                     b.unsqueeze(scope, d, 0)], axis=0)
    shape = b.node(scope, "Reshape", [shape, b.const(scope, [-1])], allowzero=0)
    ones = b.node(scope, "ConstantOfShape", [b.node(scope, "Shape", [shape])],
                  value=onnx.numpy_helper.from_array(np.array([1], np.int64)))
    minus = b.node(scope, "Mul", [ones, b.const(scope, -1)])
    shape = b.node(scope, "Where", [b.node(scope, "Equal", [shape, minus]), ones, shape])
    expanded = b.node(scope, "Expand", [expanded, shape])
    heads = b.node(scope, "Mul", [kvh, b.const(scope, rep)])
    out_shape = b.node(scope, "Concat", [b.unsqueeze(scope, batch, 0), b.unsqueeze(scope, heads, 0),
                                         b.unsqueeze(scope, seq, 0), b.unsqueeze(scope, d, 0)],
                       axis=0)
    return b.node(scope, "Reshape", [expanded, out_shape], allowzero=0)


def layer(b, c, i, x, cos, sin, mask):
    scope = f"/layers.{i}"
    norm_in = b.weight(f"layers.{i}.input_norm.weight", [c.hidden], scale=0.1, offset=1.0)
    h = rms_norm(b, f"{scope}/input_norm", x, norm_in, c.eps)
    kv = c.kv_heads * c.head_dim
    projections = {}
    for proj, width in (("q_proj", c.hidden), ("k_proj", kv), ("v_proj", kv)):
        projections[proj] = b.node(f"{scope}/{proj}", "MatMul",
                                   [h, b.matmul_weight(c.hidden, width)])
    q = split_heads(b, scope, projections["q_proj"], c.heads)
    k = split_heads(b, scope, projections["k_proj"], c.kv_heads)
    v = split_heads(b, scope, projections["v_proj"], c.kv_heads)
    q = rotary(b, scope, q, cos, sin)
    k = rotary(b, scope, k, cos, sin)
    dims = [b.dim(scope, k, d) for d in range(4)]
    rep = c.heads // c.kv_heads
    k = repeat_kv(b, scope, k, dims, rep)
    v = repeat_kv(b, scope, v, dims, rep)
    scores = b.node(scope, "MatMul", [q, b.node(scope, "Transpose", [k], perm=[0, 1, 3, 2])])
    scores = b.node(scope, "Div", [scores, b.const(scope, math.sqrt(c.head_dim))])
    probs = b.node(scope, "Softmax", [b.node(scope, "Add", [scores, mask])], axis=-1)
    attn = b.node(scope, "MatMul", [probs, v])
    batch, seq, heads, d = (b.dim(scope, attn, j) for j in range(4))
    attn = b.node(scope, "Transpose", [attn], perm=[0, 2, 1, 3])
    width = b.node(scope, "Mul", [seq, d])
    shape = b.node(scope, "Concat", [b.unsqueeze(scope, batch, 0), b.unsqueeze(scope, heads, 0),
                                     b.unsqueeze(scope, width, 0)], axis=0)
    attn = b.node(scope, "Reshape", [attn, shape], allowzero=0)
    out = b.node(f"{scope}/o_proj", "MatMul", [attn, b.matmul_weight(c.hidden, c.hidden)])
    x = b.node(scope, "Add", [x, out])
    norm_post = b.weight(f"layers.{i}.post_norm.weight", [c.hidden], scale=0.1, offset=1.0)
    h = rms_norm(b, f"{scope}/post_norm", x, norm_post, c.eps)
    gate = b.node(f"{scope}/gate_proj", "MatMul", [h, b.matmul_weight(c.hidden, c.intermediate)])
    gated = b.node(scope, "Mul", [gate, b.node(scope, "Sigmoid", [gate])])
    up = b.node(f"{scope}/up_proj", "MatMul", [h, b.matmul_weight(c.hidden, c.intermediate)])
    down = b.node(f"{scope}/down_proj", "MatMul",
                  [b.node(scope, "Mul", [gated, up]), b.matmul_weight(c.intermediate, c.hidden)])
    return b.node(scope, "Add", [x, down])


def build(config, path, seed=0):
    """Writes `path` (.onnx) and `path`.data; returns the number of weight
    elements (all fp16)."""
    path = pathlib.Path(path)
    c = config
    b = Builder(path.with_name(path.name + ".data"), seed)
    embed = b.weight("embed_tokens.weight", [c.vocab, c.hidden], scale=0.02)
    inv_freq = onnx.numpy_helper.from_array(
        (1.0 / c.theta ** (np.arange(0, c.head_dim, 2, dtype=np.float32) / c.head_dim))
        .astype(np.float32), "inv_freq")
    top = ""
    one = b.const(top, 1)
    seq = b.dim(top, "input_ids", 1)
    x = b.node("/embed_tokens", "Gather", [embed, "input_ids"])
    # Rotary angles in fp32, cos and sin cast to the model's dtype.
    positions = b.node(top, "Range", [b.const(top, 0), b.node(top, "Cast", [seq], to=I64),
                                      b.const(top, 1)])
    positions = b.node(top, "Cast", [b.unsqueeze(top, positions, 0)], to=F32)
    freqs = b.node(top, "Mul", [b.unsqueeze(top, positions, 2), "inv_freq"])
    emb = b.node(top, "Concat", [freqs, freqs], axis=-1)
    cos = b.node(top, "Cast", [b.unsqueeze(top, b.node(top, "Cos", [emb]), 1)], to=F16)
    sin = b.node(top, "Cast", [b.unsqueeze(top, b.node(top, "Sin", [emb]), 1)], to=F16)
    # Causal mask (triu of the fp16 minimum) plus the padding mask.
    size = b.node(top, "Concat", [b.unsqueeze(top, seq, 0), b.unsqueeze(top, seq, 0)], axis=0)
    full = b.node(top, "ConstantOfShape", [size],
                  value=onnx.numpy_helper.from_array(np.array([NEG], np.float16)))
    causal = b.unsqueeze(top, b.unsqueeze(top, b.node(top, "Trilu", [full, one], upper=1), 0), 1)
    padding = b.unsqueeze(top, b.unsqueeze(top, "attention_mask", 1), 2)
    padding = b.node(top, "Sub", [b.const(top, 1.0), b.node(top, "Cast", [padding], to=F16)])
    mask = b.node(top, "Add", [causal, b.node(top, "Mul", [padding, b.const(top, NEG)])])
    for i in range(c.layers):
        x = layer(b, c, i, x, cos, sin, mask)
    norm = b.weight("norm.weight", [c.hidden], scale=0.1, offset=1.0)
    h = rms_norm(b, "/norm", x, norm, c.eps)
    b.nodes.append(helper.make_node("MatMul", [h, b.matmul_weight(c.hidden, c.vocab)],
                                    ["logits"], name="/lm_head/MatMul"))
    b.data.close()

    dims = ["batch", "seq"]
    graph = helper.make_graph(
        b.nodes, "main_graph",
        [helper.make_tensor_value_info(n, I64, dims) for n in ("input_ids", "attention_mask")],
        [helper.make_tensor_value_info("logits", F16, dims + [c.vocab])],
        initializer=b.initializers + [inv_freq])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="llama_fp16.py")
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return b.weight_count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--layers", type=int)
    parser.add_argument("--tiny", action="store_true", help="the test size (TINY)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = TINY if args.tiny else CONFIG
    if args.layers:
        config = dataclasses.replace(config, layers=args.layers)
    count = build(config, args.out, args.seed)
    print(f"{args.out}: {count} fp16 weights ({count * 2} bytes) in {args.out}.data")


if __name__ == "__main__":
    sys.exit(main())
