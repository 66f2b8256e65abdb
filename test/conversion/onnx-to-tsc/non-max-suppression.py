"""Inputs for non-max-suppression.onnxtxt, and its outputs checked against onnx's reference.

inputs DIR IOU SCORE LIMIT: seeded boxes (corners in either order, overlapping
clusters, scores with ties) and the thresholds; check DIR MODEL: the outputs in
DIR/out against onnx.reference.ReferenceEvaluator on the same model and inputs.
"""
import pathlib
import sys

import numpy as np


def make_inputs(d, iou, score, limit):
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(19)
    # Clusters of boxes around 4 centers, so that IoUs straddle the threshold.
    centers = rng.uniform(0, 10, size=(2, 4, 2))[:, rng.integers(0, 4, 12)]
    low = centers + rng.normal(0, 0.6, size=(2, 12, 2))
    high = low + rng.uniform(1, 3, size=(2, 12, 2))
    boxes = np.concatenate([low, high], axis=2).astype(np.float32)
    flip = rng.random((2, 12)) < 0.4  # [y2, x2, y1, x1]: either corner first
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    scores = rng.choice([0.1, 0.25, 0.4, 0.6, 0.75, 0.9], size=(2, 3, 12)).astype(np.float32)
    np.save(d / "boxes.npy", boxes)
    np.save(d / "scores.npy", scores)
    np.save(d / "limit.npy", np.array([limit], dtype=np.int64))
    np.save(d / "iou.npy", np.array([iou], dtype=np.float32))
    np.save(d / "score.npy", np.array([score], dtype=np.float32))


def check(d, model_path):
    import onnx
    from onnx.reference import ReferenceEvaluator

    text = "\n".join(line for line in open(model_path) if not line.startswith("#"))
    session = ReferenceEvaluator(onnx.parser.parse_model(text))
    feeds = {n: np.load(d / f"{n}.npy") for n in ["boxes", "scores", "limit", "iou", "score"]}
    for name, want in zip(["selected", "centered"], session.run(None, feeds)):
        got = np.load(d / "out" / f"{name}.npy")
        assert got.shape == want.shape and (got == want).all(), (name, got, want)
        print("MATCH", name, want.shape[0])


if sys.argv[1] == "inputs":
    make_inputs(pathlib.Path(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
else:
    check(pathlib.Path(sys.argv[2]), sys.argv[3])
