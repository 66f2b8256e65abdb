#!/usr/bin/env python3
"""Calibration samples for `tsc --quantize=static-int8 --calibration DIR`.

Writes DIR/NNN/input_ids.npy and DIR/NNN/attention_mask.npy for COUNT samples
of token ids drawn from [1, VOCAB) with trailing padding (minilm.make_inputs,
seeds 10000 + i: none is an input the tests evaluate on, seeds 0 + ...);
write_sentences, samples of given sentences (MiniLM's vocabulary).

Usage: calibration_set.py DIR --count 32 --vocab 30522 [--batch 1] [--seq 128]
"""
import argparse
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import minilm  # noqa: E402

SEED = 10000


def write(folder, count, vocab, batch=1, seq=64, names=("input_ids", "attention_mask")):
    """Writes `count` samples of the inputs `names` into `folder` (created);
    returns it."""
    folder = pathlib.Path(folder)
    for i in range(count):
        sample = folder / f"{i:03d}"
        sample.mkdir(parents=True, exist_ok=True)
        for name, value in minilm.make_inputs(batch, seq, vocab, seed=SEED + i).items():
            if name in names:
                np.save(sample / f"{name}.npy", value)
    return folder


def write_sentences(folder, sentences):
    """Writes one sample per sentence of whole vocab.txt words (MiniLM's
    vocabulary: minilm.sentence_inputs) into `folder` (created): batch 1,
    its own length, no padding. Returns it."""
    folder = pathlib.Path(folder)
    for i, sentence in enumerate(sentences):
        sample = folder / f"{i:03d}"
        sample.mkdir(parents=True, exist_ok=True)
        for name, value in minilm.sentence_inputs([sentence]).items():
            np.save(sample / f"{name}.npy", value)
    return folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--count", type=int, default=32)
    parser.add_argument("--vocab", type=int, required=True)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--seq", type=int, default=64)
    args = parser.parse_args()
    write(args.dir, args.count, args.vocab, args.batch, args.seq)


if __name__ == "__main__":
    main()
