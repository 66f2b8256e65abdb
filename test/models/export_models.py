#!/usr/bin/env python3
"""Exports small BERT-, GPT-2- and Llama-style models to ONNX with torch.onnx.

Each architecture is written in plain torch.nn the way the reference
implementations are (decomposed or fused LayerNorm, erf or tanh GELU,
padding and causal masks, rotary embeddings, grouped-query attention with
fewer K/V heads than query heads) and exported at opsets 14 and 17 with
dynamic batch and sequence axes. Weights are random (seeded) with non-trivial
norm scales and biases. Outputs: the hidden state before the final norm and
after it. The modules are written to be scriptable (torch.jit.script) too:
sizes are attributes, not globals; export_torchscript.py saves them as
TorchScript archives.

Usage: export_models.py OUT_DIR      (writes OUT_DIR/<model>-opset<N>.onnx)
"""
import math
import pathlib
import sys

import torch
from torch import nn

HIDDEN, HEADS, KV_HEADS, LAYERS, VOCAB, MAX_POS, FFN = 32, 4, 2, 2, 64, 64, 64
# The models are float32; torch.finfo is not scriptable, so modules keep this
# as an attribute (as they keep the sizes above: TorchScript reads no globals).
NEG = torch.finfo(torch.float32).min


def randomize_norms(model):
    """Norm scales and biases away from 1 and 0, so tests see them."""
    gen = torch.Generator().manual_seed(1)
    for name, p in model.named_parameters():
        if "norm" in name or "ln" in name:
            with torch.no_grad():
                p.add_(0.1 * torch.randn(p.shape, generator=gen))


class DecomposedLayerNorm(nn.Module):
    """LayerNorm written out, as older exporters and custom code emit it."""

    def __init__(self, dim, eps=1e-12):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = (x - mean).pow(2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias


def split_heads(x, heads: int):
    b, s, _ = x.shape
    return x.view(b, s, heads, -1).transpose(1, 2)


def merge_heads(x):
    b, h, s, d = x.shape
    return x.transpose(1, 2).reshape(b, s, h * d)


# --- BERT: post-LN encoder, padding mask, erf GELU --------------------------

class BertLayer(nn.Module):
    def __init__(self, norm):
        super().__init__()
        self.query, self.key, self.value = (nn.Linear(HIDDEN, HIDDEN) for _ in range(3))
        self.heads, self.scale = HEADS, math.sqrt(HIDDEN // HEADS)
        self.out = nn.Linear(HIDDEN, HIDDEN)
        self.ln_attn = norm(HIDDEN)
        self.up, self.down = nn.Linear(HIDDEN, FFN), nn.Linear(FFN, HIDDEN)
        self.ln_ffn = norm(HIDDEN)
        self.gelu = nn.GELU()

    def forward(self, x, additive_mask):
        q = split_heads(self.query(x), self.heads)
        k = split_heads(self.key(x), self.heads)
        v = split_heads(self.value(x), self.heads)
        scores = q @ k.transpose(-1, -2) / self.scale + additive_mask
        context = merge_heads(scores.softmax(-1) @ v)
        x = self.ln_attn(x + self.out(context))
        return self.ln_ffn(x + self.down(self.gelu(self.up(x))))


class Bert(nn.Module):
    def __init__(self, fused_norm):
        super().__init__()
        norm = (lambda d: nn.LayerNorm(d, eps=1e-12)) if fused_norm else DecomposedLayerNorm
        self.words = nn.Embedding(VOCAB, HIDDEN)
        self.positions = nn.Embedding(MAX_POS, HIDDEN)
        self.token_types = nn.Embedding(2, HIDDEN)
        self.ln_embed = norm(HIDDEN)
        self.layers = nn.ModuleList(BertLayer(norm) for _ in range(LAYERS))
        self.register_buffer("position_ids", torch.arange(MAX_POS).unsqueeze(0))
        self.neg = NEG

    def forward(self, input_ids, attention_mask):
        seq = input_ids.shape[1]
        positions = self.position_ids[:, :seq]
        x = self.words(input_ids) + self.positions(positions) + \
            self.token_types(torch.zeros_like(input_ids))
        x = self.ln_embed(x)
        mask = attention_mask[:, None, None, :].to(x.dtype)
        additive = (1.0 - mask) * self.neg
        for layer in self.layers:
            x = layer(x, additive)
        return x, x.mean(1)


# --- GPT-2: pre-LN decoder, learned positions, causal buffer, tanh GELU ----

class Gpt2Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(HIDDEN)
        self.c_attn = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.c_proj = nn.Linear(HIDDEN, HIDDEN)
        self.ln_2 = nn.LayerNorm(HIDDEN)
        self.c_fc, self.mlp_proj = nn.Linear(HIDDEN, FFN), nn.Linear(FFN, HIDDEN)
        self.register_buffer("bias", torch.tril(torch.ones(MAX_POS, MAX_POS, dtype=torch.bool))
                             .view(1, 1, MAX_POS, MAX_POS))
        self.hidden, self.heads = HIDDEN, HEADS
        self.scale, self.neg = math.sqrt(HIDDEN // HEADS), NEG

    def forward(self, x, additive_mask):
        q, k, v = self.c_attn(self.ln_1(x)).split(self.hidden, dim=2)
        q, k, v = (split_heads(q, self.heads), split_heads(k, self.heads),
                   split_heads(v, self.heads))
        scores = q @ k.transpose(-1, -2) / self.scale
        s = scores.shape[-1]
        causal = self.bias[:, :, :s, :s]
        scores = torch.where(causal, scores, torch.tensor(self.neg))
        scores = scores + additive_mask
        x = x + self.c_proj(merge_heads(scores.softmax(-1) @ v))
        h = self.c_fc(self.ln_2(x))
        # GPT-2's "new GELU": the tanh approximation, written out.
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        return x + self.mlp_proj(h)


class Gpt2(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, HIDDEN)
        self.wpe = nn.Embedding(MAX_POS, HIDDEN)
        self.blocks = nn.ModuleList(Gpt2Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(HIDDEN)
        self.neg = NEG

    def forward(self, input_ids, attention_mask):
        seq = input_ids.shape[1]
        positions = torch.arange(0, seq, dtype=torch.long).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(positions)
        mask = attention_mask[:, None, None, :].to(x.dtype)
        additive = (1.0 - mask) * self.neg
        for block in self.blocks:
            x = block(x, additive)
        return x, self.ln_f(x)


# --- Llama: RMSNorm, rotary embeddings, grouped-query attention, SwiGLU ----

class RmsNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaLayer(nn.Module):
    def __init__(self):
        super().__init__()
        d = HIDDEN // HEADS
        self.input_norm = RmsNorm(HIDDEN)
        self.q_proj = nn.Linear(HIDDEN, HEADS * d, bias=False)
        self.k_proj = nn.Linear(HIDDEN, KV_HEADS * d, bias=False)
        self.v_proj = nn.Linear(HIDDEN, KV_HEADS * d, bias=False)
        self.o_proj = nn.Linear(HEADS * d, HIDDEN, bias=False)
        self.post_norm = RmsNorm(HIDDEN)
        self.gate = nn.Linear(HIDDEN, FFN, bias=False)
        self.up = nn.Linear(HIDDEN, FFN, bias=False)
        self.down = nn.Linear(FFN, HIDDEN, bias=False)
        self.heads, self.kv_heads = HEADS, KV_HEADS

    def forward(self, x, cos, sin, mask):
        h = self.input_norm(x)
        q = split_heads(self.q_proj(h), self.heads)
        k = split_heads(self.k_proj(h), self.kv_heads)
        v = split_heads(self.v_proj(h), self.kv_heads)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        # Repeat each K/V head for its group of query heads.
        b, kvh, s, d = k.shape
        rep = self.heads // self.kv_heads
        k = k[:, :, None].expand(b, kvh, rep, s, d).reshape(b, kvh * rep, s, d)
        v = v[:, :, None].expand(b, kvh, rep, s, d).reshape(b, kvh * rep, s, d)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d) + mask
        x = x + self.o_proj(merge_heads(scores.softmax(-1) @ v))
        h = self.post_norm(x)
        gated = self.gate(h)
        return x + self.down(gated * torch.sigmoid(gated) * self.up(h))


class Llama(nn.Module):
    def __init__(self):
        super().__init__()
        d = HIDDEN // HEADS
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList(LlamaLayer() for _ in range(LAYERS))
        self.norm = RmsNorm(HIDDEN)
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d)))
        self.neg = NEG

    def forward(self, input_ids, attention_mask):
        b, s = input_ids.shape
        x = self.embed(input_ids)
        positions = torch.arange(s).unsqueeze(0).float()
        freqs = positions[..., None] * self.inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[:, None], emb.sin()[:, None]
        neg = self.neg
        causal = torch.full((s, s), neg).triu(1)[None, None]
        padding = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * neg
        mask = causal + padding
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return x, self.norm(x)


MODELS = {
    "bert": lambda opset: Bert(fused_norm=opset >= 17),
    "gpt2": lambda opset: Gpt2(),
    "llama": lambda opset: Llama(),
}


def build(name, opset):
    """(model, (input_ids, attention_mask)): the seeded model `export` exports
    (the same weights every call) and its example inputs, [2, 8] each."""
    torch.manual_seed(0)
    model = MODELS[name](opset).eval()
    randomize_norms(model)
    ids = torch.randint(0, VOCAB, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, 6:] = 0  # a padded sequence
    return model, (ids, mask)


def export(name, opset, out_dir):
    model, (ids, mask) = build(name, opset)
    path = out_dir / f"{name}-opset{opset}.onnx"
    axes = {0: "batch", 1: "seq"}
    torch.onnx.export(
        model, (ids, mask), str(path), opset_version=opset,
        input_names=["input_ids", "attention_mask"],
        output_names=["hidden", "output"],
        dynamic_axes={"input_ids": axes, "attention_mask": axes, "hidden": axes,
                      "output": {0: "batch"} if name == "bert" else axes})
    return path


def main():
    out_dir = pathlib.Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in MODELS:
        for opset in (14, 17):
            print(export(name, opset, out_dir))


if __name__ == "__main__":
    main()
