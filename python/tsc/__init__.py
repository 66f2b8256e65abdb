"""tsc: compile transformer models ahead of time and run them.

    import tsc, torch
    m = tsc.compile(model, (ids, mask))          # torch.export -> tsc -> loaded
    out = m(ids, mask)                            # torch in, torch out

    m = tsc.load("model.tscm", threads=4)         # an artifact compiled by `tsc`
    out = m.run({"input_ids": ids_np})            # numpy in, {name: numpy} out

The artifact runs in tsc's runtime library (C API, no Python needed); this
package is its front door for Python users. Errors from the runtime raise
tsc.Error (its `code` is the status code's name, e.g. "INVALID_ARGUMENT");
errors from the compiler raise tsc.CompileError with the compiler's message.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _tensors
from ._compile import CompileError, compile, compile_file, compiler_path
from ._tsc import Error, api_version
from ._tsc import Model as _Model
from ._tsc import Session as _Session

__all__ = ["Model", "Error", "CompileError", "load", "compile", "compile_file",
           "compiler_path", "api_version"]


class Model:
    """A loaded artifact and one session of it (one run at a time).

    Call it with the inputs in the model's order (`model(*tensors)`), or
    `model.run({name: tensor})`. numpy arrays give numpy arrays back; torch
    tensors give torch tensors back (no copy of C-contiguous CPU inputs, none
    of outputs)."""

    def __init__(self, path: str, threads: int = 0, device: int = 0,
                 cuda_graphs: bool = True, profile: bool = False):
        self.path = str(path)
        self._model = _Model(self.path)
        self._session = _Session(self._model, threads=threads, device=device,
                                 cuda_graphs=cuda_graphs, profile=profile)

    @property
    def inputs(self) -> List[Dict[str, Any]]:
        """[{name, dtype, shape}]; a symbolic dim is the symbol's name."""
        return self._model.inputs

    @property
    def outputs(self) -> List[Dict[str, Any]]:
        return self._model.outputs

    @property
    def symbols(self) -> List[Tuple[str, int, int]]:
        """(name, min, max) of each symbolic dim."""
        return self._model.symbols

    @property
    def target(self) -> str:
        return self._model.target

    @property
    def gemm_library(self) -> Optional[str]:
        """The host GEMM library and ISA this session uses (None without)."""
        return self._session.gemm_library

    def run(self, inputs: Dict[str, Any]) -> Dict[str, Any]:
        """Runs on {name: array or tensor}; returns {name: output}."""
        arrays, as_torch = _tensors.to_arrays(inputs, self._model.inputs)
        results = self._session.run(arrays)
        return {name: _tensors.from_tensor(tensor, as_torch)
                for name, tensor in results}

    def __call__(self, *tensors: Any) -> Tuple[Any, ...]:
        """Runs on the inputs in the model's order; returns the outputs in
        its order."""
        names = [i["name"] for i in self._model.inputs]
        if len(tensors) != len(names):
            raise TypeError(f"the model takes {len(names)} inputs "
                            f"({', '.join(names)}), not {len(tensors)}")
        return tuple(self.run(dict(zip(names, tensors))).values())

    def __repr__(self) -> str:
        def sig(entries):
            return ", ".join(f"{e['name']}: {e['dtype']}{list(e['shape'])}"
                             for e in entries)
        return (f"tsc.Model({self.path!r}, target={self.target!r}, "
                f"inputs=({sig(self.inputs)}), outputs=({sig(self.outputs)}))")


def load(path: str, threads: int = 0, device: int = 0, cuda_graphs: bool = True,
         profile: bool = False) -> Model:
    """Loads the artifact at `path` (written by `tsc ... -o path`) with a
    session of `threads` host threads (0: all cores) or on CUDA `device`."""
    return Model(path, threads=threads, device=device, cuda_graphs=cuda_graphs,
                 profile=profile)
