"""Checks a run of attention-amx.mlir's model compiled with bf16 products
against a numpy model of what they compute: Q, K and V rounded to bf16
(round to nearest even), S = (Q·Kᵀ)·scale in f32, P = exp(S - rowmax S)
rounded to bf16, O = (P·V) / rowsum P. One block of keys (seq <= 128) has
the row max of the whole row, so the model needs no online softmax.

usage: bf16_attention_reference.py inputs DIR BATCH SEQ SEED [gqa]
       bf16_attention_reference.py check DIR ATOL [gqa]
The first writes DIR/q.npy, k.npy and v.npy ([BATCH, 2, SEQ, 64]: Q
uniform in [-3, 3), so that some rows' softmax is peaked, K and V in
[-1, 1)); the second reads them and DIR/o.npy (tsc-run --output-dir).
With `gqa`: attention-gqa-causal.mlir's layout, Q [BATCH, SEQ, 4, 32] and
K, V [BATCH, SEQ, 2, 32] ([B, S, H, D]; query head h reads K/V head h / 2),
causal (query i sees keys 0..i).
"""
import sys

import numpy as np


def bf16(x):
    """x (f32) rounded to the nearest bf16, ties to even, as f32."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32)


def main():
    if sys.argv[1] == "inputs":
        folder, batch, seq, seed = sys.argv[2], *map(int, sys.argv[3:6])
        gqa = sys.argv[6:] == ["gqa"]
        rng = np.random.default_rng(seed)
        shapes = ({"q": (batch, seq, 4, 32), "k": (batch, seq, 2, 32), "v": (batch, seq, 2, 32)}
                  if gqa else dict.fromkeys("qkv", (batch, 2, seq, 64)))
        for name, bound in (("q", 3.0), ("k", 1.0), ("v", 1.0)):
            np.save(f"{folder}/{name}.npy",
                    rng.uniform(-bound, bound, shapes[name]).astype(np.float32))
        return
    folder, atol = sys.argv[2], float(sys.argv[3])
    gqa = sys.argv[4:] == ["gqa"]
    q, k, v, o = (np.load(f"{folder}/{n}.npy") for n in ("q", "k", "v", "o"))
    if gqa:
        # [B, S, H, D] to [B, H, S, D], K and V heads repeated for their
        # query heads.
        q, k, v, o = (np.swapaxes(x, 1, 2) for x in (q, k, v, o))
        k, v = (np.repeat(x, q.shape[1] // x.shape[1], axis=1) for x in (k, v))
    seq = q.shape[2]
    causal = np.tril(np.ones((seq, k.shape[2]), bool)) if gqa else True
    scale = np.float32(1.0 / np.sqrt(q.shape[-1]))
    s = (bf16(q).astype(np.float64) @ np.swapaxes(bf16(k), -1, -2).astype(np.float64))
    s = np.where(causal, s.astype(np.float32) * scale, -np.inf).astype(np.float32)
    p = bf16(np.exp(s - s.max(axis=-1, keepdims=True)))
    expected = (p.astype(np.float64) @ bf16(v).astype(np.float64)) / p.sum(-1, keepdims=True,
                                                                            dtype=np.float64)
    # The same model without the rounding, to show the check can tell.
    s32 = np.where(causal, (q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64))
                   * scale, -np.inf)
    p32 = np.exp(s32 - s32.max(axis=-1, keepdims=True))
    unrounded = (p32 @ v.astype(np.float64)) / p32.sum(-1, keepdims=True)
    error = float(np.abs(o - expected).max())
    print(f"max |o - bf16 model| {error:.3g} (atol {atol:g}); "
          f"the f32 model differs from it by {float(np.abs(unrounded - expected).max()):.3g}")
    sys.exit(0 if error <= atol else 1)


if __name__ == "__main__":
    main()
