#!/usr/bin/env python3
"""Saves the corpus of architectures.py as TorchScript archives, the way
users of current PyTorch and transformers make them.

For every architecture, `torch.jit.trace` of the wrapped model (no_grad, on
int64 input_ids and a padded attention_mask [2, 16], or the image or mel
features of batch 2) saved by `torch.jit.save` as `<arch>-<attention>.pt`:
- attention `sdpa` and `eager` (`set_attn_implementation`) for the models
  whose attention transformers can switch: sdpa traces to
  aten::scaled_dot_product_attention, eager to matmul + softmax;
- attention `default` for the others (MPNet, DeBERTa-v2, Falcon, Bloom:
  their own attention code).
transformers 5 has no `torchscript=True` configuration flag any more (its
sources no longer read it); the wrapper already returns plain tensors.

Next to the archives it writes the inputs of the two shapes export_corpus.py
checks (padded masks for text) and torch eager's outputs on them (the model
before tracing, with the same attention), the ONNX export of the same model
that export_corpus.py made (for the plan comparison: its `dynamo` route, else
its TorchScript-based one), and
`corpus.json`; a model that does not trace is recorded with PyTorch's error.

Cached under ~/.cache/tsc/torchscript-corpus/<key> (or --cache DIR), the key
hashing this script, architectures.py, export_corpus.py and the torch and
transformers versions.

Usage (PyTorch 2.x environment): trace_corpus.py [--cache DIR] [--force]
  (prints the folder on its last line)
"""
import argparse
import hashlib
import json
import os
import pathlib
import shutil
import sys
import tempfile
import traceback
import warnings

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import architectures  # noqa: E402
import export_corpus  # noqa: E402

SDPA = "aten::scaled_dot_product_attention"


def cache_key():
    import torch
    import transformers
    digest = hashlib.sha256()
    for source in ("trace_corpus.py", "architectures.py", "export_corpus.py"):
        digest.update((HERE / source).read_bytes())
    for version in (torch.__version__, transformers.__version__):
        digest.update(version.encode())
    return digest.hexdigest()[:16]


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return pathlib.Path(base) / "tsc" / "torchscript-corpus"


def describe(error):
    """An exception's type and the first line of its message that says
    something (torch.jit's messages start with an empty line)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def onnx_export(arch, onnx_folder):
    """export_corpus.py's ONNX export of the same model: the dynamo route's,
    else the TorchScript-based route's (T5's dynamo export fails), or None."""
    for route in ("dynamo", "torchscript"):
        path = onnx_folder / f"{arch.name}-{route}.onnx"
        if path.exists():
            return str(path)
    return None


def attentions(model):
    """The attention implementations the wrapped model can be traced with."""
    if type(model.model)._can_set_attn_implementation():
        return ["sdpa", "eager"]
    return ["default"]


def trace_architecture(arch, folder, onnx_folder):
    """Traces one architecture with each of its attentions and writes its
    data; returns its corpus.json entries."""
    import numpy as np
    import torch
    names = architectures.input_names(arch)
    example = architectures.make_inputs(arch, export_corpus.EXAMPLE_BATCH,
                                        export_corpus.EXAMPLE_SEQ, seed=7)
    sizes = export_corpus.TEXT_SIZES if arch.modality == "text" else export_corpus.FIXED_SIZES
    entries = []
    for attention in attentions(architectures.build(arch)):
        name = f"{arch.name}-{attention}"
        entry = {"name": name, "architecture": arch.name, "attention": attention,
                 "modality": arch.modality, "inputs": names, "layers": architectures.LAYERS,
                 "gated_mlp": arch.gated_mlp, "norms": arch.norms,
                 "onnx": onnx_export(arch, onnx_folder)}
        entries.append(entry)
        model = architectures.build(arch)
        if attention != "default":
            model.model.set_attn_implementation(attention)
        try:
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                traced = torch.jit.trace(model, tuple(torch.from_numpy(example[n])
                                                      for n in names), check_trace=False)
            traced.save(str(folder / f"{name}.pt"))
        except Exception as e:  # noqa: BLE001 - recorded as the model's failure
            entry["error"] = describe(e)
            entry["traceback"] = traceback.format_exc()
            continue
        entry["model"] = f"{name}.pt"
        entry["sdpa"] = any(n.kind() == SDPA for n in traced.inlined_graph.nodes())
        entry["data"] = []
        for k, (batch, seq) in enumerate(sizes):
            inputs = architectures.make_inputs(arch, batch, seq, seed=100 + k)
            files, expected = {}, {}
            for input_name, array in inputs.items():
                files[input_name] = f"{name}-{k}-{input_name}.npy"
                np.save(folder / files[input_name], array)
            outputs = export_corpus.reference(model, arch, inputs)
            for output, array in zip(architectures.output_names(), outputs):
                expected[output] = f"{name}-{k}-expected-{output}.npy"
                np.save(folder / expected[output], array)
            entry["data"].append({"batch": batch, "seq": seq, "inputs": files,
                                  "expected": expected})
    return entries


def trace_all(cache=None, force=False, log=print):
    """The folder holding the archives (traced now unless cached)."""
    folder = pathlib.Path(cache or default_cache()) / cache_key()
    if (folder / "corpus.json").exists() and not force:
        return folder
    onnx_folder = export_corpus.export_all(log=log)
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    entries = []
    for arch in architectures.ARCHITECTURES:
        log(f"trace: {arch.name}")
        entries += trace_architecture(arch, work, onnx_folder)
    (work / "corpus.json").write_text(json.dumps(entries, indent=1))
    if folder.exists():
        shutil.rmtree(folder)
    os.replace(work, folder)
    return folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="cache folder (default ~/.cache/tsc/torchscript-corpus)")
    parser.add_argument("--force", action="store_true", help="trace even when cached")
    args = parser.parse_args()
    folder = trace_all(args.cache, args.force, log=lambda m: print(m, file=sys.stderr))
    print(folder)


if __name__ == "__main__":
    main()
