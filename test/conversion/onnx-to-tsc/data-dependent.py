"""Checks data-dependent.onnxtxt's outputs in DIR/RUN against numpy for the inputs named."""
import sys

import numpy as np


def unsorted_unique(m):
    """Unique rows of m in order of first occurrence (Unique with sorted=0)."""
    _, first, inverse, counts = np.unique(m, axis=0, return_index=True,
                                          return_inverse=True, return_counts=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return m[first[order]], first[order], rank[inverse.reshape(-1)], counts[order]


d, run, x, c, v, m = sys.argv[1:]
load = lambda name: np.load(f"{d}/{name}.npy")
out = lambda name: np.load(f"{d}/{run}/{name}.npy")
x, c, v, m = load(x), load(c), load(v), load(m)
assert (out("nz") == np.array(np.nonzero(x))).all(), out("nz")
assert (out("picked") == np.compress(c, x, axis=1)).all(), out("picked")
expected = np.unique(v, return_index=True, return_inverse=True, return_counts=True)
for name, want in zip(["values", "first", "inverse", "counts"], expected):
    assert (out(name) == want).all(), (name, out(name), want)
for name, want in zip(["rows", "rows_first", "rows_inverse", "rows_counts"], unsorted_unique(m)):
    assert (out(name) == want).all(), (name, out(name), want)
print("MATCH")
