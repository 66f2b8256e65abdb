#!/usr/bin/env python3
"""End-to-end numerics of torch.export archives (.pt2): tsc + tsc-run against
torch eager.

For the corpus architectures that compile from .pt2 (DEFAULT_MODELS: BERT-,
GPT-2- and Llama-style ones among them; corpus/architectures.py: tiny seeded
Hugging Face configurations whose wrapped forward returns the last hidden
state and the one after the first layer), or those named with --only:
  - exports the model with `torch.export.export(..., dynamic_shapes=...)`,
    batch and sequence dynamic (Dim `batch` in [1, 8], `seq` in [1, 64]),
    and saves it with `torch.export.save`;
  - compiles it with `tsc MODEL.pt2 -o ART --report` and nothing else: the
    inputs, their dtypes and their symbolic dims come from the archive. The
    symbols must be the archive's two range constraints with their ranges;
    the fuse phase's promise is checked as for ONNX (checks.check_fusion:
    one tsc.attention per layer, norms and GELU fused, at most 8 kernels +
    library calls per layer, 9 with a gated MLP) as case NAME-fusion, and
    the numerics below are checked either way (case NAME);
  - runs the artifact with tsc-run at (batch, seq) = (1, 7) and (3, 64),
    token ids and attention masks with trailing padding in every other row
    (architectures.make_inputs), and compares both outputs (`output_0`,
    `output_1`) with torch eager on the same inputs: same shape, relative L2
    |out - ref|_2 / |ref|_2 at most 1e-4.
Prints per model the plan line and the largest relative L2. Cases listed in
torch-export-expected-failures.txt (`NAME reason`, with comments saying why)
are reported skipped while they fail for exactly that reason; one that passes
or fails otherwise fails the suite (test/manifest.py).

Usage (PyTorch 2.x environment):
  tools/torch-python test/models/run_torch_export.py --tsc build/bin/tsc
      --tsc-run build/bin/tsc-run [--only NAME,...] [--xunit FILE] [--keep DIR]
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "corpus"))
sys.path.insert(0, str(HERE.parent))
import architectures  # noqa: E402
import checks  # noqa: E402
import manifest  # noqa: E402
from checks import Failure  # noqa: E402

MANIFEST = HERE / "torch-export-expected-failures.txt"
TOLERANCE = 1e-4
SIZES = ((1, 7), (3, 64))
BATCH_MAX = 8
# Every corpus architecture.
DEFAULT_MODELS = tuple(a.name for a in architectures.ARCHITECTURES)


def export(arch, model, path):
    """Saves `model` exported with dynamic batch and sequence to `path`;
    returns {symbol: [min, max]} of the archive's range constraints."""
    import torch
    names = architectures.input_names(arch)
    example = architectures.make_inputs(arch, 2, 16, seed=7)
    args = tuple(torch.from_numpy(example[n]) for n in names)
    batch = torch.export.Dim("batch", min=1, max=BATCH_MAX)
    seq = torch.export.Dim("seq", min=1, max=architectures.POSITIONS)
    # Vision and speech models have a fixed sequence: the batch only.
    dims = {0: batch, 1: seq} if arch.modality == "text" else {0: batch}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.export.export(model, args, dynamic_shapes=tuple(dims for _ in names))
        torch.export.save(program, str(path))
    with zipfile.ZipFile(path) as archive:
        name = next(n for n in archive.namelist() if n.endswith("/models/model.json"))
        ranges = json.loads(archive.read(name))["range_constraints"]
    return {s: [r["min_val"], r["max_val"]] for s, r in ranges.items()}


def check_symbols(tsc, path, ranges):
    """The imported module declares exactly the archive's symbols, with the
    archive's ranges."""
    proc = subprocess.run([tsc, str(path), "--emit=import"], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode:
        raise Failure(checks.first_error("tsc --emit=import", proc))
    found = {m[0]: [int(m[1]), int(m[2])]
             for m in re.findall(r'tsc\.symbol "(\w+)" \[(\d+), (\d+)\]', proc.stdout)}
    if found != ranges:
        raise Failure(f"symbols {found}, expected the archive's {ranges}")


def check_model(args, arch, work):
    """Exports, compiles and runs one architecture; returns (plan line,
    largest rel L2, fusion problem or None)."""
    import torch
    work.mkdir(parents=True, exist_ok=True)
    model = architectures.build(arch)
    path = work / f"{arch.name}.pt2"
    ranges = export(arch, model, path)
    check_symbols(args.tsc, path, ranges)
    artifact = work / f"{arch.name}.tscm"
    budget = 9 if arch.gated_mlp else 8
    fusion = None
    try:
        fused, report = checks.compile_with_report(args.tsc, path, artifact,
                                                   symbols=sorted(ranges), dims=())
        checks.check_fusion(architectures.LAYERS, fused, report, budget, arch.norms)
    except Failure as e:
        if not artifact.exists():
            raise
        fusion = str(e)
        report = subprocess.run([args.tsc, str(path), "--report", "-o", str(artifact)],
                                capture_output=True, text=True, timeout=1200).stdout
    worst = 0.0
    sizes = SIZES if arch.modality == "text" else tuple((b, None) for b, _ in SIZES)
    for k, (batch, seq) in enumerate(sizes):
        inputs = architectures.make_inputs(arch, batch, seq, seed=100 + k)
        names = architectures.input_names(arch)
        with torch.no_grad():
            refs = model(*(torch.from_numpy(inputs[n]) for n in names))
        output = checks.run_artifact(args.tsc_run, artifact, inputs, work / f"run-{k}")
        for i, ref in enumerate(refs):
            out = output(f"output_{i}")
            ref = ref.numpy()
            if out.shape != ref.shape:
                raise Failure(f"output_{i} at batch {batch}, seq {seq}: shape "
                              f"{out.shape}, expected {ref.shape}")
            err = checks.rel_l2(out, ref)
            worst = max(worst, err)
            if not err <= TOLERANCE:  # NaN too
                raise Failure(f"output_{i} at batch {batch}, seq {seq}: rel L2 "
                              f"{err:.1e} > {TOLERANCE:.0e}")
    return checks.plan_line(report), worst, fusion


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--xunit")
    parser.add_argument("--only", default=",".join(DEFAULT_MODELS),
                        help="comma-separated corpus architectures (default: %(default)s)")
    parser.add_argument("--keep", help="export and compile into this folder and keep it")
    args = parser.parse_args()
    args.tsc, args.tsc_run = (str(pathlib.Path(p).resolve()) for p in (args.tsc, args.tsc_run))
    wanted = [n for n in args.only.split(",") if n]
    known = {a.name: a for a in architectures.ARCHITECTURES}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        parser.error(f"unknown architectures {unknown} (known: {sorted(known)})")

    results = {}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(args.keep or tmp)
        for name in wanted:
            try:
                plan, worst, fusion = check_model(args, known[name], out / name)
                rows.append((name, plan, f"{worst:.1e}"))
                results[name] = (None, "")
                results[f"{name}-fusion"] = (fusion, fusion or "")
            except Exception as e:  # noqa: BLE001 - one model's failure, reported
                problem = str(e) if isinstance(e, Failure) else f"{type(e).__name__}: {e}"
                rows.append((name, "-", "-"))
                results[name] = results[f"{name}-fusion"] = (problem, problem)
            print(f"{name}: {'ok' if results[name][0] is None else 'failed'}", flush=True)
    passed, failed, skipped, suite = manifest.report("torch-export", results, MANIFEST)
    print(f"\n{'model':<15} {'plan (tsc --report)':<70} max rel L2 vs torch eager")
    for name, plan, err in rows:
        print(f"{name:<15} {plan:<70} {err}")
    if args.xunit:
        ET.ElementTree(suite).write(args.xunit)
    print(f"torch-export: {len(results)} checks, {passed} passed, {failed} failed, "
          f"{skipped} expected failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
