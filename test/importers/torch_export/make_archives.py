#!/usr/bin/env python3
"""Writes the torch.export archives of the .pt2 importer's lit tests into DIR.

- mlp.pt2: a 2-layer MLP (Linear 4->8, ReLU, Linear 8->3, times a buffer)
  exported with a dynamic batch `Dim("batch", min=1, max=64)` and saved by
  torch.export.save. The archive does not record the Dim's name (its symbol
  is `s<N>`): the symbol is renamed `batch` in model.json so that tests can
  name it. x.npy (batch 5) and y.npy (torch eager's output) go with it.
- sym.pt2: shape arithmetic on the symbolic batch (`x.shape[0] * 2`: the
  nodes sym_size.int and Python's operator.mul) feeding a reshape and an
  arange; sym-x.npy (batch 5) and sym-y.npy (torch eager's output).
- unknown-ops.pt2: a model whose submodules call ops tsc has no converter
  for (roll in `blocks.0`, flip in `head`).
- Damaged copies of mlp.pt2: truncated.pt2 (its first half),
  not-a-zip.pt2 (text), no-model.pt2 (no models/model.json),
  missing-weight.pt2 (the entry of `l1.weight` left out),
  short-weight.pt2 (that entry 8 bytes short), schema-99.pt2 (schema
  version 99.0), deep.pt2 (model.json nesting 100,000 lists deep).

Usage (PyTorch 2.x environment): make_archives.py DIR
"""
import json
import pathlib
import re
import sys
import warnings
import zipfile

import numpy as np
import torch


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(4, 8)
        self.l2 = torch.nn.Linear(8, 3)
        self.register_buffer("scale", torch.tensor([2.0]))

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x))) * self.scale


class SymOps(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0] * 2
        return torch.relu(x.reshape(n, 2)) + torch.arange(n).unsqueeze(1)


class Block(torch.nn.Module):
    def forward(self, x):
        return torch.roll(x, shifts=1, dims=1)


class Head(torch.nn.Module):
    def forward(self, x):
        return torch.flip(x, dims=[1])


class UnknownOps(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([Block()])
        self.head = Head()

    def forward(self, x):
        return self.head(self.blocks[0](x) + 1.0)


def save(model, args, path, dynamic_shapes=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.export.export(model, args, dynamic_shapes=dynamic_shapes)
        torch.export.save(program, str(path))


def rewrite(source, target, edit):
    """Copies the archive `source` to `target` (entries stored, as
    torch.export.save writes them) with `edit(entries)` applied to the dict
    {name: bytes}."""
    with zipfile.ZipFile(source) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    edit(entries)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)


def model_json(entries):
    return next(n for n in entries if n.endswith("/models/model.json"))


def weight_entry(entries, fqn):
    config = next(n for n in entries if n.endswith("model_weights_config.json"))
    path = json.loads(entries[config])["config"][fqn]["path_name"]
    return config.rsplit("/", 1)[0] + "/" + path


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)

    mlp = Mlp().eval()
    x = torch.randn(5, 4)
    np.save(out / "x.npy", x.numpy())
    with torch.no_grad():
        np.save(out / "y.npy", mlp(x).numpy())
    batch = torch.export.Dim("batch", min=1, max=64)
    save(mlp, (torch.randn(2, 4),), out / "exported.pt2", {"x": {0: batch}})

    def rename_symbol(entries):
        name = model_json(entries)
        text = entries[name].decode()
        symbols = json.loads(text)["range_constraints"]
        assert len(symbols) == 1, symbols
        symbol = next(iter(symbols))
        entries[name] = re.sub(rf"\b{symbol}\b", "batch", text).encode()

    rewrite(out / "exported.pt2", out / "mlp.pt2", rename_symbol)
    data = (out / "mlp.pt2").read_bytes()
    (out / "truncated.pt2").write_bytes(data[: len(data) // 2])
    (out / "not-a-zip.pt2").write_text("this is not a zip file\n")

    def drop_model(entries):
        del entries[model_json(entries)]

    def drop_weight(entries):
        del entries[weight_entry(entries, "l1.weight")]

    def shorten_weight(entries):
        name = weight_entry(entries, "l1.weight")
        entries[name] = entries[name][:-8]

    def bump_schema(entries):
        name = model_json(entries)
        program = json.loads(entries[name])
        program["schema_version"] = {"major": 99, "minor": 0}
        entries[name] = json.dumps(program).encode()

    def nest_deeply(entries):
        entries[model_json(entries)] = b"[" * 100000 + b"]" * 100000

    rewrite(out / "mlp.pt2", out / "deep.pt2", nest_deeply)
    rewrite(out / "mlp.pt2", out / "no-model.pt2", drop_model)
    rewrite(out / "mlp.pt2", out / "missing-weight.pt2", drop_weight)
    rewrite(out / "mlp.pt2", out / "short-weight.pt2", shorten_weight)
    rewrite(out / "mlp.pt2", out / "schema-99.pt2", bump_schema)

    sym_x = torch.randn(5, 4)
    np.save(out / "sym-x.npy", sym_x.numpy())
    np.save(out / "sym-y.npy", SymOps()(sym_x).numpy())
    save(SymOps(), (torch.randn(3, 4),), out / "sym.pt2",
         {"x": {0: torch.export.Dim("batch", min=1, max=16)}})
    save(UnknownOps().eval(), (torch.randn(2, 6),), out / "unknown-ops.pt2")


if __name__ == "__main__":
    main()
