#!/usr/bin/env python3
"""Import conformance over the ONNX backend node tests.

Every node test of the pinned `onnx` package whose graph uses only the ops
tsc's ONNX importer supports is written to a file and compiled with
`tsc --emit=graph`: it passes when tsc converts the whole graph (no node left
as tsc.foreign, every dynamic dim bound). Cases listed in exclusions.txt are
reported as skipped while they fail for the recorded reason; a listed case
that passes, or fails for another reason, is a failure, so the manifest
cannot go stale or hide a regression.

Usage: run_node_tests.py --tsc build/bin/tsc [--xunit FILE] [--filter TEXT]
       run_node_tests.py --tsc build/bin/tsc --write-exclusions
The second form rewrites exclusions.txt from the current failures, with each
reason derived from tsc's message; failures it cannot explain as a known
limitation are left out of the file (they stay failures).
"""
import argparse
import concurrent.futures
import fnmatch
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET

# The op set of the importer (issue 4), by ONNX op type.
SUPPORTED_OPS = set("""
Add Sub Mul Div Pow Sqrt Reciprocal Neg Abs Exp Log Erf Tanh Sigmoid Relu Gelu
Softmax LogSoftmax LayerNormalization RMSNormalization ReduceMean ReduceSum
ReduceMax ReduceMin MatMul Gemm Reshape Transpose Gather Concat Slice Split
Squeeze Unsqueeze Expand Where Cast CastLike Shape Size ConstantOfShape
Constant Identity Dropout Equal Less Greater Not And Or Range Trilu Clip Min
Max Sin Cos Einsum Attention RotaryEmbedding QuantizeLinear DequantizeLinear
DynamicQuantizeLinear MatMulInteger
""".split())

HERE = pathlib.Path(__file__).resolve().parent


def load_exclusions(path):
    """`pattern reason` per line; lines starting with `#` are comments
    (reasons may contain `#`). Patterns are fnmatch globs."""
    exclusions = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, _, reason = line.partition(" ")
        exclusions.append((pattern, reason.strip()))
    return exclusions


def exclusion_reason(name, exclusions):
    for pattern, reason in exclusions:
        if fnmatch.fnmatchcase(name, pattern):
            return reason
    return None


def explain(case, stderr):
    """A reason to exclude `case`, from tsc's message, or None when the
    failure is not a known limitation."""
    model = case.model
    graph_inputs = {i.name for i in model.graph.input} - \
        {t.name for t in model.graph.initializer}
    m = re.search(r"ONNX node '[^']*' \((\w+), opset (\d+)\): input #(\d+) "
                  r"(must be a constant|\(a shape\) is not a constant)", stderr)
    if m:
        op, index = m.group(1), int(m.group(3))
        producers = {out: n for n in model.graph.node for out in n.output}

        def runtime_source(name, seen=()):
            """The graph input `name` is computed from, if any."""
            if name in graph_inputs:
                return name
            node = producers.get(name)
            if node is None or name in seen:
                return None
            for i in node.input:
                found = runtime_source(i, seen + (name,))
                if found:
                    return found
            return None

        for node in model.graph.node:
            if node.op_type == op and index < len(node.input):
                source = runtime_source(node.input[index])
                if source:
                    return (f"{op} input #{index} depends on the run-time graph "
                            f"input '{source}'; tsc fixes shapes and axes at "
                            "compile time")
        return None
    m = re.search(r"has element type (\w+) \((\d+)\), which tsc does not support",
                  stderr)
    if m:
        return f"element type {m.group(1)} ({m.group(2)}) is not supported"
    if "is not a tensor (sequences, maps and optionals" in stderr:
        return "sequence/optional inputs are not supported"
    m = re.search(r"unsupported ONNX op type\(s\):\s*\n\s*(\w+) \(opset (\d+)\)",
                  stderr)
    if m:
        return (f"{m.group(1)} at opset {m.group(2)}: tsc converts this op "
                "only from a later opset")
    m = re.search(r"ONNX node '[^']*' \((\w+), opset \d+\): (.*)", stderr)
    if m and any(k in m.group(2) for k in (
            "not supported", "must be a constant false")):
        return f"{m.group(1)}: {m.group(2)}"
    return None


def run_case(tsc, path):
    proc = subprocess.run([tsc, str(path), "--emit=graph", "-o", os.devnull],
                          capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stderr.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--xunit")
    parser.add_argument("--filter", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--write-exclusions", action="store_true")
    args = parser.parse_args()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from onnx.backend.test.loader import load_model_tests
        import onnx
        cases = load_model_tests(kind="node")
    exclusions = load_exclusions(HERE / "exclusions.txt")

    selected = [c for c in cases
                if args.filter in c.name
                and {n.op_type for n in c.model.graph.node} <= SUPPORTED_OPS]
    results = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {}
        for case in selected:
            path = pathlib.Path(tmp) / f"{case.name}.onnx"
            onnx.save(case.model, str(path))
            futures[pool.submit(run_case, args.tsc, path)] = case.name
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()

    if args.write_exclusions:
        by_name = {c.name: c for c in selected}
        lines = ["# ONNX backend node tests that use only supported ops but that tsc",
                 "# does not import, with the reason. Written by",
                 "# `run_node_tests.py --write-exclusions`; review changes by hand.",
                 "# A listed case that passes or fails for another reason fails the suite."]
        unexplained = []
        for name in sorted(results):
            rc, stderr = results[name]
            if rc == 0:
                continue
            reason = explain(by_name[name], stderr)
            if reason:
                lines.append(f"{name} {reason}")
            else:
                unexplained.append(f"{name}: {stderr.splitlines()[0] if stderr else rc}")
        (HERE / "exclusions.txt").write_text("\n".join(lines) + "\n")
        print(f"wrote {len(lines) - 4} exclusions; {len(unexplained)} failures "
              "unexplained:")
        print("\n".join(unexplained))
        return 0

    suite = ET.Element("testsuite", name="onnx-node")
    passed = failed = skipped = 0
    by_name = {c.name: c for c in selected}
    for name in sorted(results):
        rc, stderr = results[name]
        reason = exclusion_reason(name, exclusions)
        case = ET.SubElement(suite, "testcase", classname="onnx-node", name=name)
        if reason is not None and rc != 0 and explain(by_name[name], stderr) != reason:
            # Still failing, but no longer for the recorded reason.
            now = explain(by_name[name], stderr) or (stderr.splitlines() or ["?"])[0]
            ET.SubElement(case, "failure",
                          message=f"excluded because {reason}, but now: {now}")
            print(f"FAIL: {name}: excluded because {reason}, but now: {now}")
            failed += 1
        elif reason is not None and rc != 0:
            ET.SubElement(case, "skipped", message=reason)
            skipped += 1
        elif reason is not None:
            ET.SubElement(case, "failure",
                          message="excluded in exclusions.txt but passes now")
            print(f"FAIL: {name}: excluded ({reason}) but passes now")
            failed += 1
        elif rc != 0:
            first = stderr.splitlines()[0] if stderr else f"exit status {rc}"
            ET.SubElement(case, "failure", message=first).text = stderr
            print(f"FAIL: {name}: {first}")
            failed += 1
        else:
            passed += 1
    suite.set("tests", str(len(results)))
    suite.set("failures", str(failed))
    suite.set("skipped", str(skipped))
    if args.xunit:
        ET.ElementTree(suite).write(args.xunit)
    print(f"onnx-node: {len(selected)} node tests of {len(cases)} use only "
          f"supported ops; {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
