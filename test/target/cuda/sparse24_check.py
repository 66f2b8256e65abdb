"""Decodes the 2:4 sparse GEMMs of a CUDA artifact (format 1.14, GEMM flags
bit 1) without the runtime: the WGHT size, each sparse step's B in the
neutral compressed form of docs/artifact-format.md ("2:4 compressed
weights"), its first two output channels' kept values and index codes, and
that every group's two indices are distinct and ascending. Given a second
artifact of the same model compiled dense (the pruned weights stored as
they are), the expanded weight must equal that artifact's weight byte for
byte.

    sparse24_check.py SPARSE.tscm [DENSE.tscm]
"""
import pathlib
import struct
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from ptx_check import decode_plan, sections, show_expr  # noqa: E402

GEMM_SPARSE24 = 2
NUMPY = {1: np.float32, 2: np.float16}


def load(path):
    parts = sections(pathlib.Path(path).read_bytes())
    plan = decode_plan(parts["PLAN"], parts["version"][1])
    return plan, parts.get("WGHT", b"")


def gemms(plan):
    """(step index, fields) of the GEMM steps."""
    return [(i, s["fields"]) for i, (kind, s) in enumerate(plan["steps"]) if kind in (2, 4)]


def constant(plan, e):
    return int(show_expr(plan["exprs"][e], plan["symbols"]))


def expand(packed, n, k, dtype):
    """The K x N matrix (row-major) of the neutral form, and the codes."""
    values = np.frombuffer(packed, dtype=dtype, count=n * k // 2).reshape(n, k // 4, 2)
    code_bytes = np.frombuffer(packed, dtype=np.uint8, offset=n * k // 2 * values.itemsize)
    codes = np.stack([code_bytes & 0xF, code_bytes >> 4], axis=1).reshape(-1)[: n * k // 4]
    codes = codes.reshape(n, k // 4)
    first, second = codes & 3, codes >> 2
    if np.any(first >= second):
        raise ValueError("a group's indices are not distinct and ascending")
    dense = np.zeros((n, k), dtype=dtype)
    rows = np.arange(n)[:, None]
    groups = np.arange(k // 4)[None, :] * 4
    dense[rows, groups + first] = values[:, :, 0]
    dense[rows, groups + second] = values[:, :, 1]
    return dense.T, code_bytes


def main():
    plan, weights = load(sys.argv[1])
    dense_plan, dense_weights = load(sys.argv[2]) if len(sys.argv) > 2 else (None, None)
    print(f"WGHT {len(weights)} bytes")
    found = False
    for step, f in gemms(plan):
        if not f[6] & GEMM_SPARSE24:
            continue
        found = True
        b, trans_b = f[1], f[5]
        n, k = constant(plan, f[9]), constant(plan, f[10])
        dtype_code, _, _, (offset, size) = plan["values"][b]
        dtype = NUMPY[dtype_code]
        item = np.dtype(dtype).itemsize
        print(f"gemm step {step} (2:4): B v{b} {k}x{n} ({'N x K' if trans_b else 'K x N'}) "
              f"{np.dtype(dtype).name.replace('float', 'f')}, {size} bytes (dense {n * k * item})")
        packed = weights[offset:offset + size]
        matrix, codes = expand(packed, n, k, dtype)
        values = np.frombuffer(packed, dtype=dtype, count=n * k // 2).reshape(n, k // 2)
        for channel in range(min(n, 2)):
            kept = " ".join(f"{float(v):.2g}" for v in values[channel])
            row_codes = codes[channel * k // 8:(channel + 1) * k // 8]
            print(f"channel {channel}: {kept} codes {' '.join(f'{c:02x}' for c in row_codes)}")
        if dense_plan is None:
            continue
        _, dense_f = gemms(dense_plan)[[s for s, _ in gemms(dense_plan)].index(step)]
        _, _, _, (d_offset, d_size) = dense_plan["values"][dense_f[1]]
        reference = np.frombuffer(dense_weights[d_offset:d_offset + d_size], dtype=dtype)
        reference = reference.reshape((n, k) if trans_b else (k, n))
        same = np.array_equal(matrix.T if trans_b else matrix, reference)
        print("every group 2:4; expanded, " + ("equal to" if same else "DIFFERENT from")
              + " the dense artifact's weight")
        if not same:
            sys.exit(1)
    if not found:
        print("no 2:4 GEMM")


if __name__ == "__main__":
    main()
