#!/usr/bin/env python3
"""End-to-end import of the exported BERT-, GPT-2- and Llama-style models.

Exports the models with export_models.py (torch.onnx, opsets 14 and 17,
dynamic batch and sequence), compiles each with `tsc --emit=import`,
`--emit=graph` and `--emit=fuse`, and checks the graph contract: no
tsc.foreign left, the only symbols are `batch` and `seq`, the shape
subgraphs folded away, and after the fuse phase no decomposed norm,
activation or attention left. Prints the op counts. Then compiles damaged
copies of one export: each must be rejected with a message, never crash.

Usage: check_models.py --tsc build/bin/tsc [--xunit FILE] [--keep DIR]
"""
import argparse
import collections
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
# Ops that only compute shapes; after the graph phase none may be left
# operating on small integer tensors.
SHAPE_OPS = ("tsc.shape_of", "tensor.from_elements")
# What the fuse phase must have absorbed into layer_norm, rms_norm, gelu,
# silu and attention: every norm, activation and attention of these models.
DECOMPOSED = ("tsc.sqrt", "tsc.rsqrt", "tsc.erf", "tsc.tanh", "tsc.sigmoid", "tsc.pow",
              "tsc.softmax")


def ops(text):
    """Op counts in printed IR, without declarations and constants."""
    counts = collections.Counter(re.findall(r"= ((?:tsc|arith|tensor)\.\w+)", text))
    for skip in ("tsc.symbol", "tsc.constant", "arith.constant", "tsc.none"):
        counts.pop(skip, None)
    return counts


def check(tsc, path):
    """Returns (problems, nodes imported, ops after the graph phase, ops
    after the fuse phase)."""
    imported = subprocess.run([tsc, str(path), "--emit=import"],
                              capture_output=True, text=True)
    if imported.returncode:
        return [f"import failed: {imported.stderr.strip()}"], 0, {}, {}
    graph = subprocess.run([tsc, str(path), "--emit=graph"],
                           capture_output=True, text=True)
    if graph.returncode:
        return [f"graph phase failed: {graph.stderr.strip()}"], 0, {}, {}
    problems = []
    nodes = imported.stdout.count("tsc.foreign")
    after = ops(graph.stdout)
    if "tsc.foreign" in graph.stdout:
        problems.append("tsc.foreign left after the graph phase")
    symbols = sorted(set(re.findall(r'tsc\.symbol "(\w+)"', graph.stdout)))
    if symbols != ["batch", "seq"]:
        problems.append(f"symbols are {symbols}, expected batch and seq")
    for op in SHAPE_OPS:
        if after.get(op):
            problems.append(f"{after[op]} {op} left: shape arithmetic not folded")
    fused = subprocess.run([tsc, str(path), "--emit=fuse"],
                           capture_output=True, text=True)
    if fused.returncode:
        return problems + [f"fuse phase failed: {fused.stderr.strip()}"], nodes, after, {}
    after_fuse = ops(fused.stdout)
    for op in DECOMPOSED:
        if after_fuse.get(op):
            problems.append(f"{after_fuse[op]} {op} left after the fuse phase")
    return problems, nodes, after, after_fuse


def damaged_copies(path, out_dir, count=24):
    """Deterministically truncated and bit-flipped copies of `path`."""
    data = path.read_bytes()
    rng = random.Random(path.name)
    for i in range(count):
        blob = bytearray(data)
        if i % 2 == 0:
            blob = blob[: rng.randrange(1, len(blob))]
        else:
            for _ in range(8):
                blob[rng.randrange(len(blob))] ^= 1 << rng.randrange(8)
        damaged = out_dir / f"{path.stem}-damaged{i}.onnx"
        damaged.write_bytes(bytes(blob))
        yield damaged


def check_damaged(tsc, path, out_dir):
    """Damaged models must be rejected (or, if the damage is harmless,
    compiled): exit status 0 or 1, never a crash."""
    problems = []
    for damaged in damaged_copies(path, out_dir):
        run = subprocess.run([tsc, str(damaged), "--emit=fuse", "-o", os.devnull],
                             capture_output=True)
        if run.returncode not in (0, 1):
            problems.append(f"{damaged.name}: exit status {run.returncode}")
        elif run.returncode == 1 and not run.stderr.strip():
            problems.append(f"{damaged.name}: rejected without a message")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--xunit")
    parser.add_argument("--keep", help="export into this folder and keep it")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(args.keep or tmp)
        export = subprocess.run([sys.executable, str(HERE / "export_models.py"), str(out)],
                                capture_output=True, text=True)
        suite = ET.Element("testsuite", name="onnx-models")
        if export.returncode:
            case = ET.SubElement(suite, "testcase", classname="onnx-models", name="export")
            ET.SubElement(case, "failure", message="export failed").text = export.stderr
            print(export.stderr)
            failed = 1
        else:
            failed = 0
            print(f"{'model':<16} {'ONNX nodes':>10} {'graph':>6} {'fuse':>5}   ops after the fuse phase")
            for path in sorted(out.glob("*.onnx")):
                problems, nodes, after, after_fuse = check(args.tsc, path)
                case = ET.SubElement(suite, "testcase", classname="onnx-models",
                                     name=path.stem)
                if problems:
                    failed += 1
                    ET.SubElement(case, "failure", message=problems[0]).text = \
                        "\n".join(problems)
                    print(f"FAIL: {path.stem}: " + "; ".join(problems))
                    continue
                summary = ", ".join(f"{n} {op.split('.', 1)[1]}"
                                    for op, n in after_fuse.most_common())
                print(f"{path.stem:<16} {nodes:>10} {sum(after.values()):>6} "
                      f"{sum(after_fuse.values()):>5}   {summary}")
            # Truncated and bit-flipped copies of one export: errors, no crashes.
            model = out / "gpt2-opset17.onnx"
            if model.exists():
                damaged_dir = out / "damaged"
                damaged_dir.mkdir(exist_ok=True)
                problems = check_damaged(args.tsc, model, damaged_dir)
                case = ET.SubElement(suite, "testcase", classname="onnx-models",
                                     name="damaged-models")
                if problems:
                    failed += 1
                    ET.SubElement(case, "failure", message=problems[0]).text = \
                        "\n".join(problems)
                    print("FAIL: damaged-models: " + "; ".join(problems))
                else:
                    print("damaged-models: 24 truncated or bit-flipped copies, "
                          "each compiled or rejected with a message")
        if args.xunit:
            ET.ElementTree(suite).write(args.xunit)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
