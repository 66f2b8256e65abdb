"""numpy and torch tensors to and from what tsc._tsc takes and gives.

tsc._tsc takes C-contiguous buffers and gives buffers over the runtime's
memory (tsc._tsc.Tensor); here they become numpy arrays or torch tensors,
without copies where the layout allows. Types numpy lacks cross as unsigned
integers of their width: bf16 as uint16 (torch.bfloat16, or ml_dtypes'
bfloat16 for numpy callers who have it), the 8-bit floats as uint8."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

NUMPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
         "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
         "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
         "bool": np.bool_, "bf16": np.uint16, "f8e4m3fn": np.uint8,
         "f8e4m3fnuz": np.uint8, "f8e5m2": np.uint8, "f8e5m2fnuz": np.uint8,
         "f8e8m0": np.uint8}
TORCH = {"bf16": "bfloat16", "f8e4m3fn": "float8_e4m3fn",
         "f8e5m2": "float8_e5m2", "f8e4m3fnuz": "float8_e4m3fnuz",
         "f8e5m2fnuz": "float8_e5m2fnuz"}


def _is_torch(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "torch"


def to_arrays(inputs: Dict[str, Any], specs: List[Dict[str, Any]]
              ) -> Tuple[Dict[str, np.ndarray], bool]:
    """{name: C-contiguous numpy array of the input's dtype}, and whether any
    input was a torch tensor. A wrong dtype is a TypeError naming the input
    (no silent conversion: a float64 array for an f32 input is a mistake the
    caller should see); names and shapes are the runtime's to check."""
    dtypes = {s["name"]: s["dtype"] for s in specs}
    arrays, as_torch = {}, False
    for name, value in inputs.items():
        want = dtypes.get(name)
        if _is_torch(value):
            as_torch = True
            import torch
            tensor = value.detach()
            if tensor.device.type != "cpu":
                raise ValueError(f"input '{name}' is on {tensor.device}; the "
                                 "Python package passes CPU tensors")
            if want in TORCH and tensor.dtype == getattr(torch, TORCH[want]):
                tensor = tensor.view(torch.uint16 if want == "bf16" else torch.uint8)
            array = tensor.contiguous().numpy()
        else:
            array = np.asarray(value)
            if want in TORCH and array.dtype.name == TORCH[want]:  # ml_dtypes
                array = array.view(NUMPY[want])
        if want in NUMPY and array.dtype != NUMPY[want]:
            raise TypeError(f"input '{name}' must be {want} "
                            f"(numpy {np.dtype(NUMPY[want]).name}), "
                            f"not {array.dtype.name}")
        arrays[name] = np.ascontiguousarray(array)
    return arrays, as_torch


def from_tensor(tensor: Any, as_torch: bool) -> Any:
    """An output (tsc._tsc.Tensor) as a numpy array or torch tensor viewing
    the runtime's memory; the view keeps the tensor alive."""
    array = np.asarray(tensor)
    if tensor.dtype == "bool":
        array = array.view(np.bool_)
    if not as_torch:
        return array
    import torch
    result = torch.from_numpy(array)
    if tensor.dtype in TORCH:
        result = result.view(getattr(torch, TORCH[tensor.dtype]))
    return result
