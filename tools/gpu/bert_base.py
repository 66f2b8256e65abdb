"""A BERT-base-shaped encoder for the GPU benchmark, the same on both sides.

Hidden 768, 12 heads, FFN 3072, post-LN layers with exact GELU and a padding
mask, as BERT-base has them, without the embedding (its lookup costs nothing
next to the layers, and its 94 MB of weights would not fit the 64 MiB a GPU
check may carry). The weights and inputs come from a closed formula (sines of
the element index, in float64), not a random generator: tools/gpu/bundle.sh
exports and compiles the model here, tools/gpu/check.py rebuilds it there,
and both get the same numbers whatever torch's generators do.
"""
import math

import torch
from torch import nn

HIDDEN, HEADS, FFN = 768, 12, 3072


def pattern(shape, key, scale, offset=0.0):
    """offset + scale * sin(0.37 * (i + 1) * (1 + 0.011 * key)) over the
    elements' row-major index i, as float32."""
    n = math.prod(shape)
    i = torch.arange(1, n + 1, dtype=torch.float64)
    return (offset + scale * torch.sin(0.37 * i * (1 + 0.011 * key))).float().reshape(shape)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = (nn.Linear(HIDDEN, HIDDEN) for _ in range(3))
        self.out = nn.Linear(HIDDEN, HIDDEN)
        self.ln_attn = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.up, self.down = nn.Linear(HIDDEN, FFN), nn.Linear(FFN, HIDDEN)
        self.ln_ffn = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.scale = math.sqrt(HIDDEN // HEADS)

    def forward(self, x, additive_mask):
        b, s, _ = x.shape
        heads = lambda t: t.view(b, s, HEADS, -1).transpose(1, 2)
        q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        scores = q @ k.transpose(-1, -2) / self.scale + additive_mask
        context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, HIDDEN)
        x = self.ln_attn(x + self.out(context))
        return self.ln_ffn(x + self.down(nn.functional.gelu(self.up(x))))


class Encoder(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(Layer() for _ in range(layers))

    def forward(self, x, attention_mask):
        mask = attention_mask[:, None, None, :].to(x.dtype)
        additive = (1.0 - mask) * torch.finfo(x.dtype).min
        for layer in self.layers:
            x = layer(x, additive)
        return x


def build(layers=1):
    """The encoder with its formula weights (norm scales near 1)."""
    model = Encoder(layers).eval()
    with torch.no_grad():
        for key, (name, p) in enumerate(model.named_parameters()):
            if "ln_" in name and name.endswith("weight"):
                p.copy_(pattern(p.shape, key, 0.1, 1.0))
            else:
                p.copy_(pattern(p.shape, key, 0.03))
    return model


def inputs(batch, seq):
    """(x, attention_mask): hidden states from the formula; the last
    sequence's final quarter padded."""
    x = pattern((batch, seq, HIDDEN), 1000, 1.0)
    mask = torch.ones(batch, seq, dtype=torch.int64)
    mask[-1, seq - seq // 4:] = 0
    return x, mask


def export(out_dir, tsc, layers=1):
    """Exports the encoder to ONNX (dynamic batch and seq) and compiles it
    for sm_80 and sm_90 at batch 1..8, seq 1..128: out_dir/bert-base.tscm,
    and in fp16 (`--precision=fp16 --precision-io=storage`: fp16 weights,
    activations, input and output) out_dir/bert-base-fp16.tscm, and with
    dynamic int8 GEMMs (cuBLASLt's s8 GEMMs, f32 elsewhere)
    out_dir/bert-base-int8.tscm, and with fp8 GEMMs (cuBLASLt's e4m3 GEMMs,
    sm_90 only: sm_80 has no fp8) out_dir/bert-base-fp8.tscm."""
    import pathlib
    import subprocess
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path = out_dir / "bert-base.onnx"
    x, mask = inputs(2, 16)
    axes = {0: "batch", 1: "seq"}
    torch.onnx.export(build(layers), (x, mask), str(onnx_path), opset_version=17,
                      input_names=["x", "attention_mask"], output_names=["hidden"],
                      dynamic_axes={"x": axes, "attention_mask": axes, "hidden": axes})
    # fp16 with fp16 input and output, as torch.compile fp16 is called.
    for name, options in (("bert-base", ["--precision=fp32"]),
                          ("bert-base-fp16", ["--precision=fp16", "--precision-io=storage"]),
                          ("bert-base-int8", ["--quantize=dynamic-int8"]),
                          ("bert-base-fp8", ["--quantize=fp8"])):
        targets = "cuda:sm_90" if name.endswith("fp8") else "cuda:sm_80,cuda:sm_90"
        subprocess.run([tsc, str(onnx_path), f"--target={targets}",
                        "--dim", "batch=1..8", "--dim", "seq=1..128", *options,
                        "-o", str(out_dir / f"{name}.tscm")], check=True)
    onnx_path.unlink()


if __name__ == "__main__":
    import sys
    export(sys.argv[1], sys.argv[2])
