#!/usr/bin/env python3
"""Seed archives for the .pt2 fuzzer (compiler/fuzz/pt2_fuzzer.cpp): small
models saved by torch.export.save into OUT_DIR, each covering a part of the
reader: weights and buffers, a dynamic dim with its range, integer inputs,
scaled_dot_product_attention, layer norm, GELU. Nothing is downloaded.

Usage (PyTorch 2 environment):
  tools/torch-python test/reliability/make_pt2_seeds.py OUT_DIR
"""
import pathlib
import sys

import torch
from torch.export import Dim


class Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)
        self.register_buffer("scale", torch.full((4,), 0.5))

    def forward(self, x):
        return torch.nn.functional.gelu(self.fc(x)) * self.scale


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(16, 8)
        self.qkv = torch.nn.Linear(8, 24)
        self.norm = torch.nn.LayerNorm(8)

    def forward(self, ids):
        h = self.embed(ids)
        q, k, v = self.qkv(h).view(ids.shape[0], ids.shape[1], 3, 2, 4).unbind(2)
        o = torch.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.norm(h + o.transpose(1, 2).reshape(h.shape))


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    batch, seq = Dim("batch", min=1, max=8), Dim("seq", min=1, max=32)
    cases = {
        "linear": (Linear(), (torch.randn(2, 8),), {"x": {0: batch}}),
        "linear-static": (Linear(), (torch.randn(3, 8),), None),
        "attention": (Attention(), (torch.randint(0, 16, (2, 5)),),
                      {"ids": {0: batch, 1: seq}}),
    }
    for name, (model, args, shapes) in cases.items():
        program = torch.export.export(model.eval(), args, dynamic_shapes=shapes)
        torch.export.save(program, str(out / f"{name}.pt2"))


if __name__ == "__main__":
    main()
