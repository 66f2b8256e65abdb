#!/usr/bin/env python3
"""Saves the BERT-, GPT-2- and Llama-style models of export_models.py as
TorchScript archives, and two archives that must not load.

Each model is built as `export_models.export(name, 17, ...)` builds it (same
seed, same randomized norms, so its weights are those of the opset-17 ONNX
export) and saved with torch.jit.save twice: `<name>-traced.pt`
(torch.jit.trace on int64 input_ids and attention_mask [2, 8], one row
padded) and `<name>-scripted.pt` (torch.jit.script). Each archive is loaded
back with torch.jit.load and run at (batch, seq) = (3, 13) and (1, 5), sizes
the trace did not see: its outputs must match the eager model's within
relative L2 1e-6 (a trace that baked a size in fails here).

all-MiniLM-L6-v2 (minilm.py: the published weights in plain torch.nn) is
saved traced too, `minilm-traced.pt` (its modules are not scriptable as
written), and checked the same way.

The archives that must not load (in torch 1.13 and in tsc):
  truncated.pt   the first half of bert-traced.pt;
  newer-op.pt    bert-traced.pt with its first attention's
                 `torch.matmul(torch.softmax(scores, -1), v)` replaced by
                 `torch._op_of_a_newer_pytorch(q, k, v, additive_mask)`, as
                 an archive of a PyTorch newer than tsc's libtorch calls an
                 op unknown to it (every other zip entry is unchanged).

Usage: export_torchscript.py OUT_DIR    (writes and checks the archives above)
"""
import io
import pathlib
import re
import sys
import warnings
import zipfile

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import export_models  # noqa: E402
import minilm  # noqa: E402

FLAVOURS = ("traced", "scripted")
CHECK_SIZES = ((3, 13), (1, 5))
CHECK_TOLERANCE = 1e-6
# An op no PyTorch has: what tsc's libtorch sees in an archive saved by a
# PyTorch newer than itself.
NEWER_OP = "_op_of_a_newer_pytorch"


def build(name):
    """(eager model, example inputs) of model `name`: export_models' or
    all-MiniLM-L6-v2."""
    if name == "minilm":
        model, _ = minilm.minilm()
        example = minilm.make_inputs(2, 8, export_models.VOCAB)
        return model.eval(), tuple(torch.from_numpy(example[k])
                                   for k in ("input_ids", "attention_mask"))
    return export_models.build(name, 17)


def save(name, flavour, out_dir):
    """Writes OUT_DIR/<name>-<flavour>.pt; returns (path, eager model)."""
    model, example = build(name)
    with warnings.catch_warnings():
        # The tracer warns about sizes it turns into constants; the head
        # size (Llama's math.sqrt(d)) is one and is meant to be.
        warnings.simplefilter("ignore")
        module = (torch.jit.trace(model, example) if flavour == "traced"
                  else torch.jit.script(model))
    path = pathlib.Path(out_dir) / f"{name}-{flavour}.pt"
    torch.jit.save(module, str(path))
    return path, model


def torch_outputs(module, inputs):
    """[array] of `module` on minilm.make_inputs-style numpy inputs."""
    with torch.no_grad():
        out = module(*(torch.from_numpy(inputs[k]) for k in ("input_ids", "attention_mask")))
    return [t.numpy() for t in out]


def check_archive(path, model):
    """Largest rel L2 of the loaded archive against the eager model at
    CHECK_SIZES; raises ValueError above CHECK_TOLERANCE."""
    module = torch.jit.load(str(path))
    worst = 0.0
    for batch, seq in CHECK_SIZES:
        inputs = minilm.make_inputs(batch, seq, export_models.VOCAB)
        got, want = torch_outputs(module, inputs), torch_outputs(model, inputs)
        for i, (g, w) in enumerate(zip(got, want)):
            if g.shape != w.shape:
                raise ValueError(f"{path.name}: output {i} at (batch {batch}, seq {seq}) has "
                                 f"shape {list(g.shape)}, eager {list(w.shape)}")
            err = minilm.rel_l2(g, w)
            if not err <= CHECK_TOLERANCE:
                raise ValueError(f"{path.name}: output {i} at (batch {batch}, seq {seq}) "
                                 f"differs from eager: rel L2 {err:.1e}")
            worst = max(worst, err)
    return worst


def export_all(out_dir, only=""):
    """{(name, flavour): path} of the archives whose `<name>-<flavour>`
    contains `only`, each checked against its eager model."""
    archives = {}
    flavours = {name: FLAVOURS for name in export_models.MODELS}
    flavours["minilm"] = ("traced",)
    for name, kinds in flavours.items():
        for flavour in kinds:
            if only in f"{name}-{flavour}":
                path, model = save(name, flavour, out_dir)
                check_archive(path, model)
                archives[(name, flavour)] = path
    return archives


def truncated(good, out_dir):
    path = pathlib.Path(out_dir) / "truncated.pt"
    blob = pathlib.Path(good).read_bytes()
    path.write_bytes(blob[:len(blob) // 2])
    return path


def rewritten(good, edit):
    """The bytes of archive `good` with each entry's data replaced by
    edit(name, data), entries in order, each with its compression."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(buffer, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, edit(info.filename, src.read(info)),
                         compress_type=info.compress_type)
    return buffer.getvalue()


def newer_op(good, out_dir):
    """A copy of the traced BERT archive `good` whose first attention calls
    torch.<NEWER_OP> (the code's debug_pkl is kept)."""
    pattern = re.compile(r"torch\.matmul\(torch\.softmax\(scores, -1\), v\)")
    replaced = []

    def edit(name, data):
        if (replaced or not re.search(r"/code/__torch__/.*\.py$", name)
                or not pattern.search(data.decode())):
            return data
        replaced.append(name)
        return pattern.sub(f"torch.{NEWER_OP}(q, k, v, additive_mask)", data.decode(),
                           count=1).encode()

    blob = rewritten(good, edit)
    if not replaced:
        raise ValueError(f"{good}: no `torch.matmul(torch.softmax(scores, -1), v)` in its code")
    path = pathlib.Path(out_dir) / "newer-op.pt"
    path.write_bytes(blob)
    return path


def bad_archives(good, out_dir):
    """{case: path} of the archives that must not load, made from the traced
    BERT archive `good`."""
    return {"truncated": truncated(good, out_dir), "newer-op": newer_op(good, out_dir)}


def load_error(path):
    """torch.jit.load's exception for `path` as 'Type: first line', or None
    when it loads."""
    try:
        torch.jit.load(str(path))
    except Exception as e:  # noqa: BLE001 - any exception is the answer
        lines = [l for l in str(e).splitlines() if l.strip()]
        return f"{type(e).__name__}: {lines[0] if lines else ''}"
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[-1].strip())
    out_dir = pathlib.Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    status = 0
    archives = {}
    for name in export_models.MODELS:
        for flavour in FLAVOURS:
            path, model = save(name, flavour, out_dir)
            archives[(name, flavour)] = path
            try:
                worst = check_archive(path, model)
                print(f"{path} ({path.stat().st_size // 1024} KiB): max rel L2 vs eager "
                      f"{worst:.1e} at (batch, seq) {CHECK_SIZES}")
            except ValueError as e:
                print(f"FAIL: {e}")
                status = 1
    # The zip rewrite alone must not break an archive.
    good = archives[("bert", "traced")]
    copy = out_dir / "rewritten.pt"
    copy.write_bytes(rewritten(good, lambda name, data: data))
    if load_error(copy):
        print(f"FAIL: {copy}, {good} rewritten unchanged, does not load: {load_error(copy)}")
        status = 1
    copy.unlink()
    for case, path in bad_archives(good, out_dir).items():
        error = load_error(path)
        if error is None:
            print(f"FAIL: {path} ({case}) loads")
            status = 1
        else:
            print(f"{path}: torch.jit.load fails: {error}")
    return status


if __name__ == "__main__":
    sys.exit(main())
