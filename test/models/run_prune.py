#!/usr/bin/env python3
"""Pruned models against references rebuilt from the original weights.

The BERT-, GPT-2- and Llama-style exports of export_models.py (opset 17) and
all-MiniLM-L6-v2 (minilm.py) are compiled with each `--prune` spec of SPECS
and `--prune-report=FILE`. From the report and the ORIGINAL ONNX weights
alone (never the compiler's pruned weights) the test rebuilds each pruning:

- heads / ffn: for every pruned layer, the importance of each group is
  recomputed from the original weights (the product over the layer's
  projections of the L2 norm of the group's slice, docs/pruning.md) and the
  groups removed must be the floor(R * groups) smallest (per-layer specs);
  the reference zeroes the removed groups' slices of every projection (Q, K,
  V columns and output rows; up/gate columns and down rows), which computes
  exactly what the shrunk model computes.
- magnitude: the floor(R * count) smallest |w| over all the linear weights
  (numpy, as torch's global_unstructured) are zeroed; each weight's number
  of zeros must match the report's.
- 2:4: the 2 smallest |w| of every 4 along K are zeroed; the compiled
  weights (`tsc --emit=prune --print-weights`, small models) must equal
  this mask applied to the originals and satisfy the pattern.

- already pruned (ALREADY_PRUNED_FROM, every model): the masked reference
  of that spec's case (the removed groups' weights zeroed) is itself an
  already-pruned model; compiled with NO --prune, every layer that case
  pruned must be pruned again with `importance: zero consumers` and the
  same groups removed (but heads behind a merged QKV GEMM, which exact mode
  does not split: GPT-2's), the artifact smaller than the unpruned one, and the
  outputs equal ONNX Runtime's run of the masked model (rel L2 <= 1e-5).

- calibrated (`--calibration DIR`, CALIBRATED_SPEC, BERT-style and MiniLM):
  every structured record must say `importance: activations`, and the
  removed groups must be the smallest by the activation-aware score
  recomputed with ONNX Runtime on the ORIGINAL model and the same samples:
  per group, the L2 norm over all tokens of the group's channels of the
  consumer's (output projection's, down projection's) input times the L2
  norm of the group's slice of the consumer weight.

Each artifact runs at (batch, seq) = (2, 12) with a padded mask and every
output must match ONNX Runtime on the masked model at rel L2 <= 1e-5.
Each pruned artifact must also be smaller than the unpruned one when shapes
shrink (heads, ffn).

Usage: run_prune.py --tsc build/bin/tsc --tsc-run build/bin/tsc-run
                    [--xunit FILE] [--filter TEXT] [--keep DIR]
"""
import argparse
import json
import math
import pathlib
import re
import subprocess
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import onnx
from onnx import numpy_helper

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import calibration_set  # noqa: E402
import export_models  # noqa: E402
import minilm  # noqa: E402
from checks import Failure, first_error, run_artifact  # noqa: E402

SPECS = ("heads=0.5", "ffn=0.5", "heads=0.25,ffn=0.3", "ffn=0.3:global", "magnitude=0.3",
         "2:4")
# Ranked by activations measured on CALIBRATION_SAMPLES of calibration_set.py.
CALIBRATED_SPEC = "heads=0.5,ffn=0.5"
CALIBRATION_SAMPLES = 4
CALIBRATION_SIZE = (1, 16)
SIZE = (2, 12)
TOLERANCE = 1e-5
DIMS = ["--dim", "batch=1..4", "--dim", "seq=1..64"]


def group_slices(weight, entry, groups):
    """[(indices along entry's axis)] of each group of a structured record entry."""
    unit, offset = entry["unit"], entry["offset"]
    return [offset + g * unit + np.arange(unit) for g in range(groups)]


def check_structured(record, inits, ratio):
    """Recomputes the importance of a heads/ffn record from the original
    weights; returns a problem or None."""
    groups = record["groups"]
    score = np.ones(groups)
    for entry in record["weights"]:
        if entry["role"] == "bias":
            continue
        w = inits[entry["name"]].astype(np.float64)
        for g, idx in enumerate(group_slices(w, entry, groups)):
            score[g] *= np.linalg.norm(np.take(w, idx, axis=entry["axis"]))
    count = min(int(math.floor(ratio * groups)), groups - 1)
    expected = sorted(np.argsort(score, kind="stable")[:count].tolist())
    if expected != record["removed"]:
        return (f"{record['kind']} layer {record['layer']}: removed {record['removed']}, "
                f"the importance from the original weights gives {expected}")
    return None


def consumer_inputs(model, records):
    """{consumer weight name: the ONNX tensor its GEMM multiplies} for the
    consumers of `records`."""
    wanted = {e["name"] for r in records for e in r["weights"] if e["role"] == "consumer"}
    found = {}
    for node in model.graph.node:
        if node.op_type in ("MatMul", "Gemm") and len(node.input) > 1 and \
                node.input[1] in wanted:
            found[node.input[1]] = node.input[0]
    missing = wanted - found.keys()
    if missing:
        raise Failure(f"no MatMul/Gemm reads the consumer weights {sorted(missing)}")
    return found


def channel_norms(path, tensors, samples, work):
    """{tensor: L2 norm of each channel of its last dim over every token of
    `samples`} computed by ONNX Runtime on the model at `path` with
    `tensors` as extra outputs (saved in `work`)."""
    model = onnx.load(str(path))
    for name in tensors:
        model.graph.output.append(onnx.helper.make_tensor_value_info(
            name, onnx.TensorProto.FLOAT, None))
    observed = work / "observed.onnx"
    onnx.save(model, str(observed))
    session = minilm.ort_session(observed)
    sums = {}
    for sample in samples:
        for name, value in zip(tensors, session.run(list(tensors), sample)):
            flat = value.astype(np.float64).reshape(-1, value.shape[-1])
            sums[name] = sums.get(name, 0.0) + (flat * flat).sum(axis=0)
    return {name: np.sqrt(total) for name, total in sums.items()}


def check_activation_importance(record, inits, ratio, inputs_of, norms):
    """The removed groups of `record` against the activation-aware score
    recomputed from ONNX Runtime's norms (ties within 1e-5 relative: the two
    runtimes' rounding may order them either way); a problem or None."""
    if record.get("importance") != "activations":
        return (f"{record['kind']} layer {record['layer']}: importance "
                f"{record.get('importance')}, expected activations with --calibration")
    groups = record["groups"]
    score = np.ones(groups)
    for entry in record["weights"]:
        if entry["role"] != "consumer":
            continue
        w = inits[entry["name"]].astype(np.float64)
        n = norms[inputs_of[entry["name"]]]
        for g, idx in enumerate(group_slices(w, entry, groups)):
            score[g] *= (np.linalg.norm(n[idx])
                         * np.linalg.norm(np.take(w, idx, axis=entry["axis"])))
    count = min(int(math.floor(ratio * groups)), groups - 1)
    removed = record["removed"]
    kept = [g for g in range(groups) if g not in removed]
    if len(removed) != count or (removed and kept and
                                 max(score[removed]) > min(score[kept]) * (1 + 1e-5)):
        expected = sorted(np.argsort(score, kind="stable")[:count].tolist())
        return (f"{record['kind']} layer {record['layer']}: removed {removed}, the "
                f"activation importance from ONNX Runtime gives {expected}")
    return None


def mask_structured(record, inits):
    for entry in record["weights"]:
        if entry["role"] == "bias" or not record["removed"]:
            continue
        w = inits[entry["name"]]
        unit, offset, axis = entry["unit"], entry["offset"], entry["axis"]
        idx = np.concatenate([offset + g * unit + np.arange(unit) for g in record["removed"]])
        index = [slice(None)] * w.ndim
        index[axis] = idx
        w[tuple(index)] = 0.0


def mask_magnitude(records, inits, ratio):
    """Global L1: the smallest floor(ratio * total) |w| over the records' weights."""
    names = [r["name"] for r in records]
    flat = np.concatenate([np.abs(inits[n]).ravel() for n in names])
    count = int(math.floor(ratio * flat.size))
    zero = np.zeros(flat.size, bool)
    zero[np.argsort(flat, kind="stable")[:count]] = True
    problems, start = [], 0
    for record, name in zip(records, names):
        w = inits[name]
        mask = zero[start:start + w.size].reshape(w.shape)
        start += w.size
        w[mask] = 0.0
        if int((w == 0).sum()) != record["zeros"]:
            problems.append(f"magnitude {name}: {record['zeros']} zeros reported, the "
                            f"reference has {int((w == 0).sum())}")
    return problems


def two_four(w, k_axis):
    """w with the 2 smallest |w| of every 4 along k_axis zeroed (ties: later ones)."""
    moved = np.moveaxis(w, k_axis, -1)
    runs = moved.reshape(*moved.shape[:-1], -1, 4)
    order = np.argsort(-np.abs(runs), axis=-1, kind="stable")
    keep = np.zeros(runs.shape, bool)
    np.put_along_axis(keep, order[..., :2], True, axis=-1)
    return np.moveaxis(np.where(keep, runs, 0.0).reshape(moved.shape), -1, k_axis).astype(w.dtype)


def has_two_four(w, k_axis):
    runs = np.moveaxis(w, k_axis, -1).reshape(-1, 4)
    return bool(((runs == 0).sum(axis=1) >= 2).all())


def emitted_weights(tsc, model, spec):
    """{blob name: float32 array} of `tsc --emit=prune --print-weights`."""
    proc = subprocess.run([tsc, str(model), f"--prune={spec}", "--emit=prune",
                           "--print-weights", *DIMS], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode:
        raise Failure(first_error("tsc --emit=prune", proc))
    blobs = {}
    for match in re.finditer(r'^\s*"?([^"\n]+?)"?: "0x([0-9A-Fa-f]+)"', proc.stdout, re.M):
        data = bytes.fromhex(match.group(2))[4:]  # after the alignment word
        blobs[match.group(1)] = np.frombuffer(data, np.float32)
    return blobs


def read_samples(folder):
    """The calibration samples of `folder` as input dicts, in tsc's order."""
    return [{f.stem: np.load(f) for f in sorted(d.iterdir())}
            for d in sorted(pathlib.Path(folder).iterdir())]


def check_case(args, name, path, vocab, spec, work, unpruned_size, calibration=None):
    """Problems of one model pruned by one spec ([] when it passes), ranked
    by activations on the samples of `calibration` when given."""
    work.mkdir(parents=True, exist_ok=True)
    artifact, report = work / "model.tscm", work / "prune.json"
    calibrate = ["--calibration", str(calibration)] if calibration else []
    proc = subprocess.run([args.tsc, str(path), f"--prune={spec}", f"--prune-report={report}",
                           *calibrate, "-o", str(artifact), *DIMS], capture_output=True,
                          text=True, timeout=900)
    if proc.returncode:
        return [first_error("tsc", proc)]
    records = json.loads(report.read_text())["records"]
    model = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i).copy() for i in model.graph.initializer}
    ratios = dict(s.split("=") for s in spec.split(",") if "=" in s)
    problems = []
    pruned = [r for r in records if r["status"] == "pruned"]
    for r in records:
        if r["status"] == "refused":
            problems.append(f"{r['kind']} layer {r['layer']} refused: {r['reason']}")
    structured = [r for r in pruned if r["kind"] in ("heads", "ffn")]
    if calibration:
        inputs_of = consumer_inputs(model, structured)
        norms = channel_norms(path, sorted(set(inputs_of.values())),
                              read_samples(calibration), work)
    for r in structured:
        missing = [e["name"] for e in r["weights"]
                   if e["role"] != "bias" and e["name"] not in inits]
        if missing:
            return problems + [f"{r['kind']} layer {r['layer']}: weights {missing} are not "
                               "initializers of the model"]
        ratio = ratios[r["kind"]]
        if calibration:
            problem = check_activation_importance(r, inits, float(ratio), inputs_of, norms)
        elif not ratio.endswith(":global"):
            problem = check_structured(r, inits, float(ratio))
        else:
            problem = None
        if problem:
            problems.append(problem)
        mask_structured(r, inits)
    kinds = {r["kind"] for r in structured}
    for kind in ("heads", "ffn"):
        if kind in ratios and not any(r["kind"] == kind for r in records):
            problems.append(f"--prune={spec}: no {kind} layer was found")
    if "magnitude" in ratios:
        problems += mask_magnitude([r for r in pruned if r["kind"] == "magnitude"], inits,
                                   float(ratios["magnitude"]))
    blobs = None
    for r in pruned:
        if r["kind"] != "2:4":
            continue
        inits[r["name"]] = two_four(inits[r["name"]], r["k_axis"])
        if not has_two_four(inits[r["name"]], r["k_axis"]):
            problems.append(f"2:4 reference of {r['name']} lacks the pattern")
        if path.stat().st_size > 4 << 20:
            continue  # MiniLM: its outputs check the weights
        blobs = blobs if blobs is not None else emitted_weights(args.tsc, path, spec)
        compiled = blobs.get(r["name"] + ".pruned")
        ref = inits[r["name"]]
        if compiled is None or compiled.size != ref.size:
            problems.append(f"2:4: no compiled weight {r['name']}.pruned in --emit=prune")
        elif not (np.array_equal(compiled.reshape(ref.shape), ref)
                  and has_two_four(compiled.reshape(ref.shape), r["k_axis"])):
            problems.append(f"2:4: compiled {r['name']} differs from the reference mask "
                            "or lacks the pattern")
    if "2:4" in spec and not any(r["kind"] == "2:4" for r in pruned):
        problems.append("--prune=2:4 pruned no weight")
    for init in model.graph.initializer:
        init.CopyFrom(numpy_helper.from_array(inits[init.name], init.name))
    masked = work / "masked.onnx"
    onnx.save(model, str(masked))
    session = minilm.ort_session(masked)
    names = [o.name for o in session.get_outputs()]
    inputs = minilm.make_inputs(*SIZE, vocab)
    refs = dict(zip(names, session.run(names, inputs)))
    output = run_artifact(args.tsc_run, artifact, inputs, work / "run")
    worst = 0.0
    for out_name, ref in refs.items():
        err = minilm.rel_l2(output(out_name), ref)
        worst = max(worst, err)
        if not err <= TOLERANCE:
            problems.append(f"output '{out_name}': rel L2 {err:.1e} > {TOLERANCE:.0e} "
                            "against the masked reference")
    if kinds and not artifact.stat().st_size < unpruned_size:
        problems.append(f"artifact {artifact.stat().st_size} bytes, not smaller than the "
                        f"unpruned {unpruned_size}")
    print(f"{name:<16} {spec:<22} max rel L2 {worst:.1e}, artifact "
          f"{artifact.stat().st_size / unpruned_size:.0%} of unpruned")
    return problems


# The spec whose masked reference serves as an already-pruned model.
ALREADY_PRUNED_FROM = "heads=0.25,ffn=0.3"


def check_already_pruned(args, name, vocab, case_dir, work):
    """Problems ([] when it passes) of the masked model of `case_dir`'s case
    compiled without --prune: tsc-prune-heads/ffn's exact mode must find the
    same groups by their zero consumer weights."""
    work.mkdir(parents=True, exist_ok=True)
    masked = case_dir / "masked.onnx"
    # Exact mode leaves a merged QKV GEMM merged (its heads are not found):
    # layers whose producers are pieces of one weight are not expected.
    expected = [r for r in json.loads((case_dir / "prune.json").read_text())["records"]
                if r["status"] == "pruned" and r["kind"] in ("heads", "ffn")
                and len({w["name"] for w in r["weights"] if w["role"] == "producer"})
                == len([w for w in r["weights"] if w["role"] == "producer"])]
    artifact, report = work / "model.tscm", work / "prune.json"
    proc = subprocess.run([args.tsc, str(masked), f"--prune-report={report}",
                           "-o", str(artifact), *DIMS], capture_output=True, text=True,
                          timeout=900)
    if proc.returncode:
        return [first_error("tsc (already pruned)", proc)]
    records = [r for r in json.loads(report.read_text())["records"]
               if r["kind"] in ("heads", "ffn")]
    problems = []
    found = {(r["kind"], tuple(r["removed"])) for r in records
             if r["status"] == "pruned" and r["importance"] == "zero consumers"}
    for r in expected:
        if (r["kind"], tuple(r["removed"])) not in found:
            problems.append(f"{r['kind']} layer {r['layer']}: groups {r['removed']} zeroed "
                            "in the model were not removed without --prune")
    if len(records) != len(expected):
        problems.append(f"{len(records)} heads/ffn records without --prune, "
                        f"{len(expected)} pruned by {ALREADY_PRUNED_FROM}")
    unpruned = case_dir.parent / "unpruned.tscm"
    if expected and not artifact.stat().st_size < unpruned.stat().st_size:
        problems.append("the already-pruned artifact is not smaller than the unpruned one")
    session = minilm.ort_session(masked)
    names = [o.name for o in session.get_outputs()]
    inputs = minilm.make_inputs(*SIZE, vocab)
    output = run_artifact(args.tsc_run, artifact, inputs, work / "run")
    worst = 0.0
    for out_name, ref in zip(names, session.run(names, inputs)):
        err = minilm.rel_l2(output(out_name), ref)
        worst = max(worst, err)
        if not err <= TOLERANCE:
            problems.append(f"output '{out_name}': rel L2 {err:.1e} > {TOLERANCE:.0e} "
                            "against ONNX Runtime on the masked model")
    print(f"{name:<16} {'already pruned':<22} max rel L2 {worst:.1e}, "
          f"{len(found)} layers shrunk without --prune")
    return problems


BUDGET_SPEC = "heads=0.5,ffn=0.5"


def calibration_error(original, masked, samples):
    """{output: rel L2 of the masked model against the original over all
    `samples` together} by ONNX Runtime."""
    ref, out = minilm.ort_session(original), minilm.ort_session(masked)
    names = [o.name for o in ref.get_outputs()]
    diff, norm = dict.fromkeys(names, 0.0), dict.fromkeys(names, 0.0)
    for sample in samples:
        for n, r, o in zip(names, ref.run(names, sample), out.run(names, sample)):
            diff[n] += float(((o.astype(np.float64) - r) ** 2).sum())
            norm[n] += float((r.astype(np.float64) ** 2).sum())
    return {n: math.sqrt(diff[n]) / max(math.sqrt(norm[n]), 1e-30) for n in names}


def check_budget(args, name, path, vocab, work, unpruned_size, calibration=None):
    """--prune=BUDGET_SPEC --max-error=E: with E = 1 the asked ratios are
    kept (scale 1) and their error e_full measured; with E = e_full / 4 the
    chosen ratios are smaller, the measured final error is within E, and
    the artifact is byte for byte the one `--prune=CHOSEN` writes, which
    check_case verifies against the masked-weights reference; an
    unreachable E (1e-12) fails with a message. With `calibration` the
    groups are ranked by activations and the errors measured on its
    samples: the reported final error must be ONNX Runtime's error of the
    masked model on them (within 1e-3 of itself). Problems ([] if none)."""
    work.mkdir(parents=True, exist_ok=True)
    calibrate = ["--calibration", str(calibration)] if calibration else []

    def budget_run(budget, artifact):
        report = work / f"budget-{budget}.json"
        proc = subprocess.run([args.tsc, str(path), f"--prune={BUDGET_SPEC}",
                               f"--max-error={budget}", f"--prune-report={report}",
                               *calibrate, "-o", str(artifact), *DIMS], capture_output=True,
                              text=True, timeout=900)
        if proc.returncode:
            raise Failure(first_error(f"tsc --max-error={budget}", proc))
        return json.loads(report.read_text())["error_budget"]

    loose = budget_run(1, work / "loose.tscm")
    problems = []
    if loose["scale"] != 1 or loose["chosen"] != BUDGET_SPEC:
        problems.append(f"--max-error=1 chose {loose['chosen']} (scale {loose['scale']})")
    e_full = max(loose["final_error"].values())
    budget = e_full / 4
    tight_artifact = work / "tight.tscm"
    tight = budget_run(f"{budget:.3e}", tight_artifact)
    final = max(tight["final_error"].values())
    if not tight["scale"] < 1:
        problems.append(f"E = {budget:.1e} kept the full ratios (error {e_full:.1e})")
    if not final <= budget:
        problems.append(f"final error {final:.1e} > the budget {budget:.1e}")
    if any(t["largest"] <= budget for t in tight["trials"] if t["scale"] > tight["scale"]):
        problems.append("a larger tried ratio was within the budget but not chosen")
    problems += check_case(args, name, path, vocab, tight["chosen"], work / "chosen",
                           unpruned_size, calibration)
    if (work / "chosen" / "model.tscm").read_bytes() != tight_artifact.read_bytes():
        problems.append(f"the --max-error artifact differs from --prune={tight['chosen']}'s")
    if calibration:
        if "calibration samples" not in tight["inputs"]:
            problems.append(f"--max-error with --calibration measured on {tight['inputs']}")
        ort = calibration_error(path, work / "chosen" / "masked.onnx",
                                read_samples(calibration))
        for out_name, err in tight["final_error"].items():
            if not abs(err - ort[out_name]) <= 1e-3 * ort[out_name]:
                problems.append(f"final error of '{out_name}' {err:.4e}, ONNX Runtime's on "
                                f"the calibration samples {ort[out_name]:.4e}")
        print(f"{name:<16} --max-error --calibration: E {budget:.1e} chose "
              f"{tight['chosen']}, error {final:.1e} on {tight['inputs']}")
        return problems
    proc = subprocess.run([args.tsc, str(path), f"--prune={BUDGET_SPEC}", "--max-error=1e-12",
                           "-o", str(work / "none.tscm"), *DIMS], capture_output=True,
                          text=True, timeout=900)
    if proc.returncode != 1 or "nothing to prune within it" not in proc.stderr:
        problems.append(f"--max-error=1e-12: exit {proc.returncode}, {first_error('tsc', proc)}")
    print(f"{name:<16} --max-error: {BUDGET_SPEC} error {e_full:.1e}; E {budget:.1e} chose "
          f"{tight['chosen']} ({tight['scale']:.4g} of it), error {final:.1e}, "
          f"{len(tight['trials'])} trials")
    return problems


def export_all(out, only):
    models = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in export_models.MODELS:
            if only in f"{name}-opset17":
                models.append((f"{name}-opset17", export_models.export(name, 17, out),
                               export_models.VOCAB))
        if only in "minilm-opset14":
            model, config = minilm.minilm()
            models.append(("minilm-opset14", minilm.export(model, out / "minilm-opset14.onnx"),
                           config["vocab_size"]))
    return models


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--xunit")
    parser.add_argument("--filter", default="", help="only models whose name contains this")
    parser.add_argument("--keep", help="export and compile into this folder and keep it")
    args = parser.parse_args()
    suite = ET.Element("testsuite", name="prune")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(args.keep or tmp)
        out.mkdir(parents=True, exist_ok=True)
        for name, path, vocab in export_all(out, args.filter):
            base = out / name / "unpruned.tscm"
            base.parent.mkdir(parents=True, exist_ok=True)
            proc = subprocess.run([args.tsc, str(path), "-o", str(base), *DIMS],
                                  capture_output=True, text=True, timeout=900)
            # The error budget's search: one small model (each search
            # compiles the model about five times), on random inputs and
            # on calibration samples.
            budget = ("max-error", "max-error-calibrated") if name == "bert-opset17" else ()
            calibrated = (f"{CALIBRATED_SPEC}-calibrated",) \
                if name in ("bert-opset17", "minilm-opset14") else ()
            calibration = calibration_set.write(out / name / "calibration",
                                                CALIBRATION_SAMPLES, vocab, *CALIBRATION_SIZE)
            for spec in SPECS + calibrated + budget + ("already-pruned",):
                case_name = f"{name}-{spec}"
                try:
                    if proc.returncode:
                        raise Failure(first_error("tsc (unpruned)", proc))
                    if spec == "already-pruned":
                        problems = check_already_pruned(
                            args, name, vocab,
                            out / name / re.sub(r"[^\w.=-]", "_", ALREADY_PRUNED_FROM),
                            out / name / spec)
                    elif spec.startswith("max-error"):
                        problems = check_budget(
                            args, name, path, vocab, out / name / spec, base.stat().st_size,
                            calibration if spec.endswith("calibrated") else None)
                    elif spec.endswith("-calibrated"):
                        problems = check_case(args, name, path, vocab, CALIBRATED_SPEC,
                                              out / name / spec.replace(",", "_"),
                                              base.stat().st_size, calibration)
                    else:
                        problems = check_case(args, name, path, vocab, spec,
                                              out / name / re.sub(r"[^\w.=-]", "_", spec),
                                              base.stat().st_size)
                except Exception as e:  # noqa: BLE001 - one case's failure, reported
                    problems = [f"{type(e).__name__}: {e}"]
                case = ET.SubElement(suite, "testcase", classname="prune", name=case_name)
                if problems:
                    failed += 1
                    ET.SubElement(case, "failure", message=problems[0]).text = \
                        "\n".join(problems)
                    print(f"FAIL: {case_name}: {problems[0]}")
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failed))
    if args.xunit:
        ET.ElementTree(suite).write(args.xunit)
    print(f"prune: {len(suite)} checks, {len(suite) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
