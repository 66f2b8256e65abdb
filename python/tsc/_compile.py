"""tsc.compile: torch.export -> .pt2 -> the tsc compiler -> a loaded model."""
from __future__ import annotations

import inspect
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
from typing import Any, Optional, Sequence

__all__ = ["CompileError", "compile", "compile_file", "compiler_path"]


class CompileError(RuntimeError):
    """The compiler refused the model; the message is the compiler's."""


def compiler_path() -> str:
    """The `tsc` executable: $TSC_COMPILER, else the build tree's bin/tsc
    beside this package (build/python/tsc -> build/bin/tsc), else `tsc` on
    PATH."""
    if os.environ.get("TSC_COMPILER"):
        return os.environ["TSC_COMPILER"]
    beside = pathlib.Path(__file__).resolve().parents[2] / "bin" / "tsc"
    if beside.is_file():
        return str(beside)
    found = shutil.which("tsc")
    if not found:
        raise CompileError("the tsc compiler was not found: set TSC_COMPILER "
                           "or put tsc on PATH")
    return found


def _flags(options: dict) -> list:
    """Keyword options as tsc flags, one to one: `emit_x=True` is `--emit-x`,
    `dim=["seq=1..64", ...]` repeats `--dim`, `report=False` is left out."""
    flags = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            flags += [f"{flag}={v}" for v in value]
        else:
            flags.append(f"{flag}={value}")
    return flags


def compile_file(model_path: str, path: Optional[str] = None, threads: int = 0,
                 device: int = 0, **options: Any):
    """Compiles the model file at `model_path` (.onnx, .pt2, .pt) with the
    flags `options` map to (see `_flags`) and loads it. `path` keeps the
    artifact there; without it the artifact lives in a temporary folder for
    as long as it takes to load it."""
    from . import load
    with tempfile.TemporaryDirectory(prefix="tsc-") as tmp:
        out = str(path) if path else os.path.join(tmp, "model.tscm")
        cmd = [compiler_path(), str(model_path), "-o", out] + _flags(options)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(proc.stderr.strip() or
                               f"tsc exited with status {proc.returncode}")
        # The runtime maps the artifact: once loaded, the file may go.
        return load(out, threads=threads, device=device)


def _dim_names(module: Any, program: Any, dynamic_shapes: Any) -> dict:
    """{torch's symbol (`s23`): the torch.export.Dim's name} for each input
    dim that `dynamic_shapes` makes a Dim (derived dims, e.g. 2 * batch, are
    expressions, not symbols, and keep no name)."""
    if not dynamic_shapes:
        return {}
    nodes = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    inputs = [nodes[name] for name in program.graph_signature.user_inputs]
    if isinstance(dynamic_shapes, dict):
        params = inspect.signature(module.forward).parameters
        specs = [dynamic_shapes.get(p) for p in params]
    else:
        specs = list(dynamic_shapes)
    names = {}
    for node, spec in zip(inputs, specs):
        if not spec:
            continue
        shape = node.meta["val"].shape
        for d, dim in (spec.items() if isinstance(spec, dict) else enumerate(spec)):
            name = getattr(dim, "__name__", None)
            size = shape[d] if d < len(shape) else None
            expr = getattr(getattr(size, "node", None), "expr", None)
            if name and expr is not None and expr.is_Symbol:
                names[str(expr)] = name
    return names


def compile(module: Any, example_inputs: Sequence[Any],
            dynamic_shapes: Any = None, target: str = "cpu",
            precision: str = "fp32", path: Optional[str] = None,
            threads: int = 0, device: int = 0, **options: Any):
    """Compiles a torch.nn.Module ahead of time and loads it.

    `torch.export.export(module, tuple(example_inputs), dynamic_shapes=...)`
    captures the graph (dims that `dynamic_shapes` names become symbols with
    their ranges, as `torch.export.Dim` gives them); the archive goes through
    the tsc compiler with `--target`, `--precision` and `options` as flags
    (the symbols take the Dims' names, so `dim=["batch=1..4"]` narrows one);
    the result is a tsc.Model whose outputs match `module(*example_inputs)`
    (torch tensors in, torch tensors out)."""
    import torch
    program = torch.export.export(module, tuple(example_inputs),
                                  dynamic_shapes=dynamic_shapes)
    names = _dim_names(module, program, dynamic_shapes)
    with tempfile.TemporaryDirectory(prefix="tsc-") as tmp:
        archive = os.path.join(tmp, "model.pt2")
        # The archive keeps no Dim names; tsc reads them from this extra file.
        torch.export.save(program, archive,
                          extra_files={"tsc_dim_names.json": json.dumps(names)})
        return compile_file(archive, path=path, threads=threads, device=device,
                            target=target, precision=precision, **options)
