#!/usr/bin/env python3
"""Small TorchScript archives for the importer's lit tests.

Usage: make_archives.py OUT_DIR   writes, with the torch that runs it (lit runs
it with Debian's 1.13 and with .venv-torch's 2.x: tsc reads both):
  tiny-scripted.pt / tiny-traced.pt  two blocks (linear, tanh GELU, residual,
                    LayerNorm) in a ModuleList, then a split unpacked into
                    two halves and a view built from x.size()
  branch.pt         forward branches on a tensor's value (prim::If)
  int-input.pt      forward takes an int besides the tensor
  newer-op.pt       tiny-scripted.pt calling aten::_op_of_a_newer_pytorch, as
                    an archive saved by a PyTorch newer than tsc's libtorch
                    would call an op it does not know
  sdpa-traced.pt    (torch 2 only) a trace calling
                    aten::scaled_dot_product_attention with a padded mask
  truncated.pt      the first half of tiny-scripted.pt
  not-a-zip.pt      a text file
"""
import pathlib
import re
import sys
import warnings

import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "models"))
import export_torchscript  # noqa: E402  (rewritten(): edits an archive's code)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        return self.norm(x + nn.functional.gelu(self.proj(x), approximate="tanh"))


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])

    def forward(self, x):
        b, s, d = x.size()
        for block in self.blocks:
            x = block(x)
        first, second = x.split(4, dim=-1)
        return first * second, x.view(b, s * d)


class Attention(nn.Module):
    """PyTorch 2's fused attention, as transformers' sdpa attention calls it."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, x, mask):
        b, s, _ = x.size()
        q, k, v = self.qkv(x).view(b, s, 3, 2, 4).permute(2, 0, 3, 1, 4).unbind(0)
        additive = (1.0 - mask[:, None, None, :].to(x.dtype)) * -1e9
        out = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=additive)
        return out.transpose(1, 2).reshape(b, s, 8)


class FrozenIndex(nn.Module):
    """Indexes with a tensor made in forward, as Falcon's rotary embedding
    does: tracing records it as a constant and freezing folds aten::index's
    indices into a prim::Constant of type List[Optional[Tensor]]."""

    def forward(self, x):
        return x[:, torch.tensor([2, 0, 1])] * 2.0


class Branch(nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            return x * 2.0
        return x


class IntInput(nn.Module):
    def forward(self, x, n: int):
        return x * n


def main():
    # torch 2 deprecates torch.jit; the archives are what is tested.
    warnings.filterwarnings("ignore", category=FutureWarning)
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    tiny = Tiny().eval()
    torch.jit.script(tiny).save(str(out / "tiny-scripted.pt"))
    torch.jit.trace(tiny, torch.randn(2, 3, 8)).save(str(out / "tiny-traced.pt"))
    torch.jit.trace(FrozenIndex(), torch.randn(2, 3, 8)).save(str(out / "frozen-index.pt"))
    torch.jit.script(Branch()).save(str(out / "branch.pt"))
    torch.jit.script(IntInput()).save(str(out / "int-input.pt"))

    if hasattr(nn.functional, "scaled_dot_product_attention"):
        mask = torch.ones(2, 3, dtype=torch.int64)
        mask[1, 2] = 0
        torch.jit.trace(Attention().eval(), (torch.randn(2, 3, 8), mask)).save(
            str(out / "sdpa-traced.pt"))

    good = out / "tiny-scripted.pt"
    pattern = re.compile(r"torch\.layer_norm\(")
    def edit(name, data):
        if re.search(r"/code/__torch__/.*\.py$", name) and pattern.search(data.decode()):
            return pattern.sub("torch._op_of_a_newer_pytorch(", data.decode()).encode()
        return data
    (out / "newer-op.pt").write_bytes(export_torchscript.rewritten(good, edit))
    blob = good.read_bytes()
    (out / "truncated.pt").write_bytes(blob[:len(blob) // 2])
    (out / "not-a-zip.pt").write_text("not a TorchScript archive\n")


if __name__ == "__main__":
    main()
