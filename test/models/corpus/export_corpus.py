#!/usr/bin/env python3
"""Exports the corpus of architectures.py the ways users export them.

For every architecture:
- `dynamo`: `torch.onnx.export(..., dynamo=True)` at its default opset, with
  `dynamic_shapes` naming the dims `batch` and `seq` (torch.export's Dim);
- `torchscript`: the TorchScript-based exporter (`dynamo=False`) at opset 17
  with `dynamic_axes` of the same names;
- `ort-optimized`: for the model types it knows, ONNX Runtime's transformer
  optimizer (`onnxruntime.transformers.optimizer.optimize_model`) applied to
  the TorchScript-based export, which adds `com.microsoft` ops.

Next to each model it writes the inputs of two shapes (padded attention masks
for text) and torch eager's outputs on them, and a `corpus.json` describing
everything; a route that fails to export is recorded with the exception.

The result is cached under ~/.cache/tsc/corpus/<key> (or --cache DIR): the key
hashes this script, architectures.py and the torch, transformers and
onnxruntime versions, so CI exports once per machine and version.

Usage (PyTorch 2.x environment): export_corpus.py [--cache DIR] [--force]
"""
import argparse
import hashlib
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile
import traceback
import warnings

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import architectures  # noqa: E402

# (batch, seq) of the two checked shapes; vision and speech models have a
# fixed sequence and vary the batch only.
TEXT_SIZES = ((1, 7), (3, 64))
FIXED_SIZES = ((1, None), (3, None))
EXAMPLE_BATCH, EXAMPLE_SEQ = 2, 16
TORCHSCRIPT_OPSET = 17


def cache_key():
    import onnxruntime
    import torch
    import transformers
    digest = hashlib.sha256()
    for source in (HERE / "export_corpus.py", HERE / "architectures.py"):
        digest.update(source.read_bytes())
    for version in (torch.__version__, transformers.__version__, onnxruntime.__version__):
        digest.update(version.encode())
    return digest.hexdigest()[:16]


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return pathlib.Path(base) / "tsc" / "corpus"


def dynamic_spec(arch, dynamo):
    """dynamic_shapes (torch.export Dims, in argument order) or dynamic_axes
    for the inputs."""
    import torch
    names = architectures.input_names(arch)
    if dynamo:
        batch = torch.export.Dim("batch", max=64)
        seq = torch.export.Dim("seq", max=architectures.POSITIONS)
        dims = {0: batch, 1: seq} if arch.modality == "text" else {0: batch}
        return tuple(dims for _ in names)
    dims = {0: "batch", 1: "seq"} if arch.modality == "text" else {0: "batch"}
    return {name: dims for name in names}


def export_route(arch, model, example, route, folder):
    """Exports `model` by `route` into folder/<arch>-<route>.onnx; returns the
    file name."""
    import torch
    names = architectures.input_names(arch)
    outputs = architectures.output_names()
    path = folder / f"{arch.name}-{route}.onnx"
    args = tuple(torch.from_numpy(example[n]) for n in names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if route == "dynamo":
            program = torch.onnx.export(model, args, dynamo=True, input_names=names,
                                        output_names=outputs,
                                        dynamic_shapes=dynamic_spec(arch, True))
            program.save(str(path))
        elif route == "torchscript":
            torch.onnx.export(model, args, str(path), dynamo=False,
                              opset_version=TORCHSCRIPT_OPSET, input_names=names,
                              output_names=outputs, dynamic_axes=dynamic_spec(arch, False))
        else:
            from onnxruntime.transformers.optimizer import optimize_model
            source = folder / f"{arch.name}-torchscript.onnx"
            optimized = optimize_model(str(source), model_type=arch.ort_model_type,
                                       num_heads=architectures.HEADS,
                                       hidden_size=architectures.HIDDEN)
            optimized.save_model_to_file(str(path))
    return path.name


def describe(error):
    """An exception's type and the last line of its message that names a
    cause, without terminal colours: the exporters' messages end with advice
    and start with which step failed."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))
    causes = [l.strip() for l in text.splitlines() if re.match(r"\s*<class '[\w.]+'>: ", l)]
    line = causes[-1] if causes else (text.splitlines() or [""])[0].strip()
    return f"{type(error).__name__}: {line}"


def reference(model, arch, inputs):
    import torch
    names = architectures.input_names(arch)
    with torch.no_grad():
        outs = model(*(torch.from_numpy(inputs[n]) for n in names))
    return [o.numpy() for o in outs]


def export_architecture(arch, folder):
    """Exports one architecture by every route and writes its data; returns
    its corpus.json entries."""
    import numpy as np
    model = architectures.build(arch)
    sizes = TEXT_SIZES if arch.modality == "text" else FIXED_SIZES
    data = []
    for k, (batch, seq) in enumerate(sizes):
        inputs = architectures.make_inputs(arch, batch, seq, seed=100 + k)
        files = {}
        for name, array in inputs.items():
            files[name] = f"{arch.name}-{k}-{name}.npy"
            np.save(folder / files[name], array)
        expected = {}
        for name, array in zip(architectures.output_names(), reference(model, arch, inputs)):
            expected[name] = f"{arch.name}-{k}-expected-{name}.npy"
            np.save(folder / expected[name], array)
        data.append({"batch": batch, "seq": seq, "inputs": files, "expected": expected})
    example = architectures.make_inputs(arch, EXAMPLE_BATCH, EXAMPLE_SEQ, seed=7)
    routes = ["dynamo", "torchscript"] + (["ort-optimized"] if arch.ort_model_type else [])
    entries = []
    for route in routes:
        entry = {"name": f"{arch.name}-{route}", "architecture": arch.name, "route": route,
                 "modality": arch.modality, "layers": architectures.LAYERS,
                 "gated_mlp": arch.gated_mlp, "norms": arch.norms,
                 "outputs": architectures.output_names(), "data": data}
        try:
            entry["model"] = export_route(arch, model, example, route, folder)
        except Exception as e:  # noqa: BLE001 - recorded as that route's failure
            entry["error"] = describe(e)
            entry["traceback"] = traceback.format_exc()
        entries.append(entry)
    return entries


def export_all(cache=None, force=False, log=print):
    """The folder holding the corpus (exported now unless cached)."""
    folder = pathlib.Path(cache or default_cache()) / cache_key()
    if (folder / "corpus.json").exists() and not force:
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    entries = []
    for arch in architectures.ARCHITECTURES:
        log(f"export: {arch.name}")
        try:
            entries += export_architecture(arch, work)
        except Exception as e:  # noqa: BLE001 - the model itself failed in torch
            entries.append({"name": arch.name, "architecture": arch.name, "route": "torch",
                            "error": describe(e),
                            "traceback": traceback.format_exc()})
    (work / "corpus.json").write_text(json.dumps(entries, indent=1))
    if folder.exists():
        shutil.rmtree(folder)
    os.replace(work, folder)
    return folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="cache folder (default ~/.cache/tsc/corpus)")
    parser.add_argument("--force", action="store_true", help="export even when cached")
    args = parser.parse_args()
    folder = export_all(args.cache, args.force)
    entries = json.loads((folder / "corpus.json").read_text())
    for e in entries:
        print(f"{e['name']:32} {e.get('model') or 'failed: ' + e['error']}")
    print(folder)


if __name__ == "__main__":
    main()
