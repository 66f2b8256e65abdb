#!/usr/bin/env python3
"""The Hugging Face corpus: models people have, exported the ways they export.

Every architecture of corpus/architectures.py (tiny seeded configurations of
`transformers` models: encoders, decoders with grouped-query attention,
rotary, ALiBi or learned positions, encoder parts of encoder-decoder models,
vision and speech encoders) is exported by current PyTorch by each route of
corpus/export_corpus.py (the dynamo exporter, the TorchScript-based exporter
at opset 17, ONNX Runtime's transformer optimizer for the model types it
knows). Each export is compiled by tsc once, with symbolic batch (and seq for
text; `--dim batch=1..4 --dim seq=1..64`), and gives two test cases:

- `<arch>-<route>`: it compiles, and runs at two shapes (text: (1, 7) and
  (3, 64) with trailing padding in the mask; vision and speech: batch 1 and
  3) with every output (the last hidden state and the one after the first
  layer) matching torch eager's at relative L2 <= 1e-4, shapes and dtypes
  exactly;
- `<arch>-<route>-fusion`: the fused graph has one tsc.attention per layer
  and one op per norm, and the plan at most 8 kernels + library calls per
  layer (9 with a gated MLP), as run_models.py checks for the project's own
  models.

Cases listed in corpus/expected-failures.txt are reported as skipped while
they fail for exactly the recorded reason; one that passes, or fails for
another reason, fails the suite (the node tests' rules). A route PyTorch
itself cannot export is such a case, with the exporter's error as reason.

Prints a table (architecture, route, ONNX nodes, tsc ops after the graph
phase, steps per layer, largest rel L2), and writes it with --table FILE.

Run with the PyTorch 2 environment: tools/torch-python test/models/run_corpus.py
Usage: run_corpus.py --tsc build/bin/tsc --tsc-run build/bin/tsc-run [--xunit FILE]
                     [--filter TEXT] [--cache DIR] [--write-exclusions] [--table FILE]
"""
import argparse
import concurrent.futures
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "corpus"))
sys.path.insert(0, str(HERE.parent))
import manifest  # noqa: E402
from checks import (Failure, check_fusion, compile_with_report, first_error,  # noqa: E402
                    rel_l2, run_artifact)

MANIFEST = HERE / "corpus" / "expected-failures.txt"
TOLERANCE = 1e-4
TEXT_DIMS = ["--dim", "batch=1..4", "--dim", "seq=1..64"]
FIXED_DIMS = ["--dim", "batch=1..4"]
# Declarations and constants are not computation.
NOT_OPS = {"constant", "symbol", "bind_shape", "dim", "none"}


def reason_of(message):
    """The manifest's reason for a failure message: unsupported ops listed by
    name (the order tsc prints them in does not matter), the rest as it is."""
    ops = re.findall(r"^\s+([\w.:]+) \(opset \d+\): \d+ node", message, re.M)
    if ops:
        return "unsupported ops: " + ", ".join(sorted(set(ops)))
    return message.splitlines()[0] if message else message


def tsc_failure(tool, proc):
    """A Failure carrying tsc's whole stderr when it lists unsupported ops
    (reason_of reads them), else its first error."""
    if "unsupported ONNX op type(s)" in proc.stderr:
        return Failure(proc.stderr.strip())
    return Failure(first_error(tool, proc))


def count_ops(ir):
    return sum(1 for op in re.findall(r"= tsc\.(\w+)", ir) if op not in NOT_OPS)


def onnx_nodes(path):
    import onnx
    return len(onnx.load(str(path), load_external_data=False).graph.node)


def check_export(args, entry, corpus, work):
    """Returns {case name: (problem or None, details)} and the table row."""
    name = entry["name"]
    row = {"architecture": entry["architecture"], "route": entry["route"], "nodes": "",
           "ops": "", "per_layer": "", "rel_l2": ""}
    if entry.get("error"):
        problem = f"PyTorch's exporter fails: {entry['error']}"
        return {name: (problem, entry.get("traceback", "")),
                f"{name}-fusion": (problem, "")}, row
    model = corpus / entry["model"]
    row["nodes"] = onnx_nodes(model)
    text = entry["modality"] == "text"
    symbols = ("batch", "seq") if text else ("batch",)
    work.mkdir(parents=True)
    artifact = work / f"{name}.tscm"
    graph = subprocess.run([args.tsc, str(model), "--emit=graph"], capture_output=True, text=True,
                           timeout=600)
    if graph.returncode:
        failure = tsc_failure("tsc --emit=graph", graph)
        return {name: (str(failure), graph.stderr), f"{name}-fusion": (str(failure), "")}, row
    row["ops"] = count_ops(graph.stdout)
    try:
        fused, report = compile_with_report(args.tsc, model, artifact, symbols=symbols,
                                            dims=TEXT_DIMS if text else FIXED_DIMS)
    except Failure as e:
        return {name: (str(e), ""), f"{name}-fusion": (str(e), "")}, row
    results = {}
    try:
        budget = 9 if entry["gated_mlp"] else 8
        row["per_layer"] = check_fusion(entry["layers"], fused, report, budget=budget,
                                        norms=entry["norms"]).split()[0]
        results[f"{name}-fusion"] = (None, "")
    except Failure as e:
        results[f"{name}-fusion"] = (str(e), report)
        m = re.search(r"^layers: \d+, at most (\d+) kernels", report, re.M)
        row["per_layer"] = m.group(1) if m else "?"
    problems, worst = [], 0.0
    for k, size in enumerate(entry["data"]):
        where = f"batch {size['batch']}" + (f", seq {size['seq']}" if size["seq"] else "")
        inputs = {n: np.load(corpus / f) for n, f in size["inputs"].items()}
        try:
            output = run_artifact(args.tsc_run, artifact, inputs, work / f"size{k}")
        except Failure as e:
            problems.append(f"({where}): {e}")
            continue
        for out_name, expected in size["expected"].items():
            ref = np.load(corpus / expected)
            try:
                out = output(out_name)
            except OSError:
                problems.append(f"({where}): tsc-run wrote no file for output '{out_name}'")
                continue
            if out.dtype != ref.dtype or out.shape != ref.shape:
                problems.append(f"({where}): output '{out_name}' is {out.dtype}{list(out.shape)}, "
                                f"expected {ref.dtype}{list(ref.shape)}")
                continue
            err = rel_l2(out, ref)
            worst = max(worst, err)
            if not err <= TOLERANCE:  # also NaN
                problems.append(f"numerics: rel L2 {err:.1e} > {TOLERANCE:.0e} on output "
                                f"'{out_name}' ({where})")
    row["rel_l2"] = f"{worst:.1e}"
    results[name] = (problems[0] if problems else None, "\n".join(problems))
    return results, row


def table(rows):
    lines = ["| architecture | route | ONNX nodes | tsc ops after `graph` | steps per layer | "
             "max rel L2 |", "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['architecture']} | {r['route']} | {r['nodes']} | {r['ops']} | "
                     f"{r['per_layer']} | {r['rel_l2']} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--xunit")
    parser.add_argument("--filter", default="")
    parser.add_argument("--cache", help="export cache (default ~/.cache/tsc/corpus)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--write-exclusions", action="store_true",
                        help="rewrite expected-failures.txt from the current failures")
    parser.add_argument("--table", help="write the results table (markdown) to this file")
    args = parser.parse_args()

    import export_corpus
    corpus = export_corpus.export_all(args.cache)
    entries = [e for e in json.loads((corpus / "corpus.json").read_text())
               if args.filter in e["name"]]
    results, rows = {}, {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(check_export, args, e, corpus, pathlib.Path(tmp) / e["name"]):
                   e["name"] for e in entries}
        for future in concurrent.futures.as_completed(futures):
            cases, row = future.result()
            results.update(cases)
            rows[futures[future]] = row
    ordered = [rows[e["name"]] for e in entries]
    print(table(ordered))
    if args.table:
        pathlib.Path(args.table).write_text(table(ordered) + "\n")

    if args.write_exclusions:
        count = manifest.write(MANIFEST, [
            "Corpus cases (run_corpus.py) that fail for a known reason: NAME reason.",
            "Written by `run_corpus.py --write-exclusions`; review changes by hand.",
            "A listed case that passes or fails for another reason fails the suite."],
            results, reason_of)
        print(f"wrote {count} expected failures")
        return 0
    passed, failed, skipped, suite = manifest.report("corpus", results, MANIFEST, reason_of)
    if args.xunit:
        ET.ElementTree(suite).write(args.xunit)
    print(f"corpus: {len(entries)} exports of {len({e['architecture'] for e in entries})} "
          f"architectures, {len(results)} cases: {passed} passed, {failed} failed, "
          f"{skipped} expected failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
