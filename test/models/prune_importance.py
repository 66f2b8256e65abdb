#!/usr/bin/env python3
"""Weight against activation-aware (calibration) importance for structured
pruning, measured on all-MiniLM-L6-v2 (docs/pruning.md).

all-MiniLM-L6-v2 is compiled with each --prune spec of SPECS three ways:
ranked by the weights (no --calibration), by activations on 16 samples of
random token ids (calibration_set.py, seq 64), and by activations on 16
English sentences (CALIBRATION_SENTENCES). Each artifact runs on held-out
inputs, 4 rows of random token ids at seq 64 (other seeds, padded rows) and
8 other sentences, and the relative L2 of each output against ONNX Runtime
on the unpruned model is printed, with the mean cosine similarity of the
sentence embeddings to the unpruned ones. A measurement, not a test: it
prints figures and checks nothing.

Usage: prune_importance.py --tsc build/bin/tsc --tsc-run build/bin/tsc-run [--keep DIR]
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import calibration_set  # noqa: E402
import minilm  # noqa: E402
from checks import Failure, first_error, rel_l2, run_artifact  # noqa: E402

SPECS = ("heads=0.25,ffn=0.25", "heads=0.5", "ffn=0.5", "heads=0.5,ffn=0.5")
DIMS = ["--dim", "batch=1..8", "--dim", "seq=1..64"]
CALIBRATION_SENTENCES = [
    "a cat sits on the mat", "the dog runs in the park", "she reads a book at night",
    "we went to the market on sunday", "the children play in the garden",
    "he drinks coffee every morning", "the train was late again today",
    "my brother works at a bank in the city", "the weather is cold and wet",
    "they watched a movie after dinner", "the river flows through the old town",
    "i lost my keys in the house", "the team won the game last week",
    "she plays the piano very well", "the shop closes at six", "we need more water",
]
EVALUATION_SENTENCES = [
    "a kitten rests on the rug", "the stock market fell sharply today",
    "he walks to school with his sister", "the food at the restaurant was good",
    "the doctor said i should sleep more", "the music was loud at the party",
    "our teacher gave us a difficult test", "the sun rises over the hills",
]


def compile_model(args, model, spec, calibration, artifact):
    extra = ["--calibration", str(calibration)] if calibration else []
    proc = subprocess.run([args.tsc, str(model), f"--prune={spec}", *extra, "-o", str(artifact),
                           *DIMS], capture_output=True, text=True, timeout=900)
    if proc.returncode:
        raise Failure(first_error("tsc", proc))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--keep")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(args.keep or tmp)
        out.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, config = minilm.minilm()
            path = minilm.export(model, out / "minilm.onnx")
        vocab = config["vocab_size"]
        sources = {
            "weights": None,
            "random ids": calibration_set.write(out / "calib-random", 16, vocab, 1, 64),
            "sentences": calibration_set.write_sentences(out / "calib-sentences",
                                                        CALIBRATION_SENTENCES),
        }
        evaluations = {"random ids": minilm.make_inputs(4, 64, vocab, seed=20000),
                       "sentences": minilm.sentence_inputs(EVALUATION_SENTENCES)}
        session = minilm.ort_session(path)
        names = [o.name for o in session.get_outputs()]
        refs = {k: dict(zip(names, session.run(names, v))) for k, v in evaluations.items()}
        print("| spec | importance | held-out inputs | rel L2 last_hidden_state | "
              "rel L2 sentence_embedding | mean cosine to unpruned |")
        print("| --- | --- | --- | --- | --- | --- |")
        for spec in SPECS:
            for source, calibration in sources.items():
                artifact = out / f"{spec}-{source}.tscm".replace(" ", "_").replace(",", "_")
                compile_model(args, path, spec, calibration, artifact)
                importance = "weights" if calibration is None else f"activations ({source})"
                for evaluation, inputs in evaluations.items():
                    output = run_artifact(args.tsc_run, artifact, inputs,
                                          out / "run" / artifact.stem / evaluation.replace(" ", "_"))
                    ref = refs[evaluation]
                    emb, ref_emb = output("sentence_embedding"), ref["sentence_embedding"]
                    cosine = float(np.mean(np.sum(emb * ref_emb, axis=1) / (
                        np.linalg.norm(emb, axis=1) * np.linalg.norm(ref_emb, axis=1))))
                    print(f"| `{spec}` | {importance} | {evaluation} | "
                          f"{rel_l2(output('last_hidden_state'), ref['last_hidden_state']):.3f} | "
                          f"{rel_l2(emb, ref_emb):.3f} | {cosine:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
