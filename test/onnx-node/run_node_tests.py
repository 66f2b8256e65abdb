#!/usr/bin/env python3
"""Import conformance over the ONNX backend node tests.

Every node test of the pinned `onnx` package (all 1884 of onnx 1.23.2) is
written to a file and compiled with `tsc --emit=graph`: it passes when tsc
converts the whole graph (no node left as tsc.foreign, every dynamic dim
bound). Cases listed in exclusions.txt are reported as skipped while they fail
for the recorded reason; a listed case that passes, or fails for another
reason, is a failure, so the manifest cannot go stale or hide a regression.
Every count is over all cases: a case whose ops tsc does not convert yet is
listed with those ops as its reason, and counts as not passed.

Run mode (--run) goes on to execute: every case that imports (its ops are
supported and exclusions.txt does not list it) is compiled to an artifact
(`tsc model.onnx -o case.tscm`, with `--dim` for the symbolic dims of its
inputs), run with `tsc-run` on the inputs of its first data set, and each
output is compared with the expected one: shapes and dtypes exactly; float
outputs by relative L2 `|out - ref|_2 / |ref|_2` over the finite reference
values, at most 1e-4 (1e-3 for float16, 1e-2 for bfloat16, which
tsc-run reads and writes as float32), with NaN and infinities in the same
places (max |out| <= 1e-6 where the reference is all zero); integer and bool
outputs exactly, and the 8-bit floats (which tsc-run reads and writes as
uint8 arrays of their bits) bit for bit. Its manifest is run-exclusions.txt, with the same rules.

With --gpu-loop-mapping the run mode compiles each case's host kernels with
the CUDA target's loop structure (tiles of 256 with bounds guards, one-
iteration launches, inner parallel loops sequential; `tsc
--gpu-loop-mapping`), so the outputs check that mapping's numerics without a
GPU (suite onnx-node-run-gpu-mapping, same manifest). With --half (tools/test.sh
gives it to that suite, to keep CI within its time) only the cases whose
name's CRC-32 is even run; the others are reported as skipped, saying so.

PTX mode (--ptx) compiles every case the run mode runs (that imports and is
not in run-exclusions.txt) into a CUDA artifact for sm_80 and sm_90
(`tsc model.onnx --target=cuda:sm_80,cuda:sm_90 -o model.tscm`): it passes
when ptxas accepted every kernel for both chips, the artifact's launches
match their kernels (test/target/cuda/ptx_check.py) and the runtime loads it
(`tsc-run --info`: its plan checks, which need no GPU). Without ptxas (no CUDA
toolkit) every case is skipped. With --split-chips (tools/test.sh, to keep CI
within its time) each case is built for one of the two chips, by the parity of
its name's CRC-32: every case's PTX is still assembled, each chip for a fixed
half of them; the run without it builds every case for both (docs/testing.md).
With --bundle DIR the artifacts are kept,
with their inputs and expected outputs, for the GPU check (tools/gpu/).

GPU mode (--gpu) compiles the same cases as CUDA artifacts at their data's
sizes and runs them with tsc-run on the GPU against their expected outputs,
as the run mode compares (test/target/cuda/gpu_run.py; a failing case is
rerun without CUDA graphs, step by step). Without a usable GPU (`tsc-run
--list-devices`) or without ptxas every case is skipped, with the reason.

Usage: run_node_tests.py --tsc build/bin/tsc [--xunit FILE] [--filter TEXT]
       run_node_tests.py --tsc build/bin/tsc --write-exclusions
       run_node_tests.py --tsc build/bin/tsc --run --tsc-run build/bin/tsc-run
                         [--xunit FILE] [--filter TEXT] [--write-exclusions]
       run_node_tests.py --tsc build/bin/tsc --ptx [--xunit FILE] [--filter TEXT]
                         [--split-chips | --bundle DIR]
       run_node_tests.py --tsc build/bin/tsc --gpu --tsc-run build/bin/tsc-run
                         [--xunit FILE] [--filter TEXT]
--write-exclusions rewrites the mode's manifest from the current failures,
with each reason derived from tsc's (or tsc-run's, or the comparison's)
message; failures it cannot explain as a known limitation are left out of the
file (they stay failures).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET
import zlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from manifest import exclusion_reason, load_exclusions, same_reason  # noqa: E402


def explain(case, stderr):
    """A reason to exclude `case`, from tsc's message, or None when the
    failure is not a known limitation."""
    # Ops without a converter first: other nodes' complaints follow from them.
    if re.search(r"unsupported ONNX op type\(s\):", stderr):
        ops = re.findall(r"^\s+([\w.:]+ \(opset \d+\)): \d+ node", stderr, re.M)
        return "unsupported ops: " + ", ".join(sorted(set(ops)))
    model = case.model
    graph_inputs = {i.name for i in model.graph.input} - \
        {t.name for t in model.graph.initializer}
    m = re.search(r"ONNX node '([^']*)' \((\w+), opset (\d+)\): input #(\d+) "
                  r"(must be a constant|\(a shape\) is not a constant)", stderr)
    if m:
        name, op, index = m.group(1), m.group(2), int(m.group(4))

        def all_nodes(graph):
            """The graph's nodes and those of its subgraphs (If branches,
            Loop and Scan bodies), which read the enclosing values."""
            for n in graph.node:
                yield n
                for attr in n.attribute:
                    if attr.HasField("g"):
                        yield from all_nodes(attr.g)

        nodes = list(all_nodes(model.graph))
        producers = {out: n for n in nodes for out in n.output}

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

        # The node the message names: by its name, or by tsc's `Op_K` for
        # the K-th node imported (subgraphs' nodes counted after theirs).
        named = [n for n in nodes if n.name and n.name == name]
        k = re.fullmatch(re.escape(op) + r"_(\d+)", name)
        if not named and k and int(k.group(1)) < len(nodes):
            named = [nodes[int(k.group(1))]]
        for node in named + nodes:
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
    m = re.search(r"ONNX node '[^']*' \((\w+), opset \d+\): (.*)", stderr)
    if m and any(k in m.group(2) for k in (
            "not supported", "must be a constant false")):
        return f"{m.group(1)}: {m.group(2)}"
    return None


def run_case(tsc, path):
    proc = subprocess.run([tsc, str(path), "--emit=graph", "-o", os.devnull],
                          capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stderr.strip()


# --- run mode ---------------------------------------------------------------

# Relative L2 bound per float dtype (docs/design.md, Numerics: fp32 at 1e-4).
TOLERANCE = {"float16": 1e-3, "bfloat16": 1e-2}
# The 8-bit floats of ml_dtypes, which tsc-run reads and writes as |u1 .npy
# holding their bits (docs/onnx.md); their outputs are compared bit for bit.
FLOAT8 = ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
          "float8_e8m0fnu", "float4_e2m1fn")
# The packed integers of ml_dtypes, which tsc-run reads and writes one element
# a byte: as int8 or uint8 values.
PACKED_INT = {"int4": np.int8, "int2": np.int8, "uint4": np.uint8, "uint2": np.uint8}


def as_npy(array):
    """`array` as tsc-run reads and writes it: bf16 as float32, the 8-bit
    floats as their bits."""
    if array.dtype.name == "bfloat16":
        return array.astype(np.float32)
    if array.dtype.name in FLOAT8:
        return array.view(np.uint8)
    if array.dtype.name in PACKED_INT:
        return array.astype(PACKED_INT[array.dtype.name])
    return array
DEFAULT_TOLERANCE = 1e-4
# Failures of run mode that are known limitations, by the text they contain.
RUN_LIMITATIONS = (
    r"no host lowering for '[\w.]+'",
    r"element type '?\w+'? has no host runtime representation yet",
    # The memory plan at the symbols' maxima: a size read from data is
    # bounded by 4096, and a product of three of them is planned at 2^36.
    r"a value of type '[^']+' would take 2\^63 bytes or more at the symbols' maxima",
)


def as_array(value):
    """A node test's tensor (an array, a NumPy scalar or a TensorProto) as an
    array."""
    import onnx
    from onnx import numpy_helper
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, np.generic):
        return np.asarray(value)
    if isinstance(value, onnx.TensorProto):
        return numpy_helper.to_array(value)
    raise ValueError(f"a {type(value).__name__}, not a tensor")


# Cases whose expected outputs onnx writes as hand-typed literals that do not
# follow from its inputs within 1e-4: test_averagepool_2d_ceil_last_window_
# starts_on_pad's y is [0.1511, 0.2841, 0.3572] where its inputs (also typed
# to 4 decimals) give sum / 9 = [0.151056, 0.284044, 0.357222], as
# onnx.reference and ONNX Runtime compute (rel L2 1.6e-4 from the literal;
# onnx's own backend runner checks at rtol 1e-3). Their reference is
# onnx.reference's output for the same inputs, used only when it agrees with
# the literal at onnx's tolerance (rtol 1e-3, atol 1e-7).
HAND_TYPED_OUTPUTS = {"test_averagepool_2d_ceil_last_window_starts_on_pad"}


def reference_outputs(case, inputs, literals):
    """onnx.reference's outputs of `case` for `inputs`, checked against the
    case's hand-typed `literals` at onnx's backend-test tolerance."""
    from onnx.reference import ReferenceEvaluator
    graph = case.model.graph
    initialized = {t.name for t in graph.initializer}
    names = [i.name for i in graph.input if i.name not in initialized]
    computed = ReferenceEvaluator(case.model).run(None, dict(zip(names, inputs)))
    for got, literal in zip(computed, literals):
        if not np.allclose(got, literal, rtol=1e-3, atol=1e-7):
            raise ValueError("onnx.reference disagrees with the hand-typed outputs")
    return [np.asarray(x, dtype=l.dtype) for x, l in zip(computed, literals)]


def test_data(case):
    """(inputs, outputs) of the case's data set 0 as lists of arrays: from
    test_data_set_0/{input,output}_*.pb where the case has a folder on disk,
    else from the data the case generator made; for HAND_TYPED_OUTPUTS the
    outputs are onnx.reference's."""
    inputs, outputs = stored_test_data(case)
    if case.name in HAND_TYPED_OUTPUTS:
        outputs = reference_outputs(case, inputs, outputs)
    return inputs, outputs


def stored_test_data(case):
    """test_data's arrays as the case stores them."""
    import onnx
    folder = pathlib.Path(case.model_dir or "/nonexistent") / "test_data_set_0"
    if not folder.is_dir():
        inputs, outputs = case.data_sets[0]
        return [as_array(x) for x in inputs], [as_array(x) for x in outputs]

    def read(kind):
        files = sorted(folder.glob(f"{kind}_*.pb"),
                       key=lambda f: int(f.stem.split("_")[-1]))
        tensors = []
        for f in files:
            tensor = onnx.TensorProto()
            tensor.ParseFromString(f.read_bytes())
            tensors.append(as_array(tensor))
        return tensors
    return read("input"), read("output")


def sanitize(name):
    """tsc-run's file name for an output."""
    out = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    return "_" + out if out in ("", ".", "..") else out


def short(err):
    """1 significant digit: 3.2e-02 -> '3e-2'."""
    return re.sub(r"e([-+])0*(\d)", r"e\1\2", f"{err:.0e}")


def compare(out, ref, name, ref_dtype=None):
    """None when `out` matches the reference `ref`, else the problem.
    `ref_dtype` names the reference's original dtype when `ref` was stored
    as another (bfloat16 as float32), for its tolerance."""
    tolerance = TOLERANCE.get(ref_dtype or ref.dtype.name, DEFAULT_TOLERANCE)
    if ref.dtype.name == "bfloat16" and out.dtype == np.float32:
        ref = ref.astype(np.float32)  # tsc-run writes bf16 as <f4
    if ref.dtype.name in FLOAT8 and out.dtype == np.uint8:
        ref = ref.view(np.uint8)  # and 8-bit and 4-bit floats as their bits
    if ref.dtype.name in PACKED_INT and out.dtype == PACKED_INT[ref.dtype.name]:
        ref = ref.astype(out.dtype)  # and packed integers a byte each
    if out.dtype != ref.dtype:
        return f"dtype: output '{name}' is {out.dtype}, expected {ref.dtype}"
    if out.shape != ref.shape:
        return f"shape: output '{name}' is {list(out.shape)}, expected {list(ref.shape)}"
    if ref.dtype.kind not in "fc":
        differ = int(np.count_nonzero(out != ref))
        if differ:
            return f"numerics: {differ} of {ref.size} elements differ on output '{name}'"
        return None
    o, r = out.astype(np.complex128 if ref.dtype.kind == "c" else np.float64), \
        ref.astype(np.complex128 if ref.dtype.kind == "c" else np.float64)
    finite = np.isfinite(r)
    if not (np.array_equal(np.isnan(o), np.isnan(r))
            and np.array_equal(o[np.isinf(r)], r[np.isinf(r)])
            and np.isfinite(o[finite]).all()):
        return f"numerics: non-finite values differ on output '{name}'"
    o, r = o[finite], r[finite]
    norm = np.linalg.norm(r)
    if norm == 0:
        peak = float(np.abs(o).max(initial=0))
        return (f"numerics: max |out| {short(peak)} where the reference is zero "
                f"on output '{name}'") if peak > 1e-6 else None
    err = float(np.linalg.norm(o - r) / norm)
    if err > tolerance:
        return f"numerics: rel L2 {short(err)} on output '{name}'"
    return None


def write_suite(suite, tests, failed, skipped, xunit):
    """Sets the xunit suite's counts and writes it to `xunit` when given."""
    suite.set("tests", str(tests))
    suite.set("failures", str(failed))
    suite.set("skipped", str(skipped))
    if xunit:
        ET.ElementTree(suite).write(xunit)


def first_error(tool, stderr, rc):
    """`tool: message` from the first error line, without the file path."""
    if rc < 0:
        return f"{tool} crashed (signal {-rc})"
    lines = stderr.splitlines()
    line = next((l for l in lines if "error:" in l), lines[0] if lines else "")
    line = re.sub(r"^.*?error:\s*", "", line).strip()
    line = re.sub(r"(?<![\w'])/\S*?: ", "", line)  # file paths differ between runs
    return f"{tool}: {line or f'exit status {rc} without a message'}"


def prepare_case(case, work):
    """Writes the case's model and data set 0's inputs into `work`. Returns
    (problem, inputs, outputs, dims, run_args): the graph's inputs and
    outputs, `--dim NAME=1..N` for the symbolic dims at the data's sizes, and
    tsc-run's `--input` arguments; problem is None unless the data is
    unusable."""
    import onnx
    graph = case.model.graph
    initialized = {t.name for t in graph.initializer}
    graph_inputs = [i for i in graph.input if i.name not in initialized]
    try:
        inputs, outputs = test_data(case)
    except Exception as e:  # noqa: BLE001 - reported as the case's failure
        return f"test data: {e}", None, None, None, None
    if len(inputs) != len(graph_inputs) or len(outputs) != len(graph.output):
        return (f"test data: {len(inputs)} inputs and {len(outputs)} outputs for "
                f"{len(graph_inputs)} and {len(graph.output)} in the graph"), None, None, None, None
    onnx.save(case.model, str(work / "model.onnx"))
    symbols = {}
    run_args = []
    for k, (info, array) in enumerate(zip(graph_inputs, inputs)):
        for dim, size in zip(info.type.tensor_type.shape.dim, array.shape):
            if dim.dim_param:
                symbols[dim.dim_param] = max(symbols.get(dim.dim_param, 1), size)
        np.save(work / f"input_{k}.npy", as_npy(array))
        run_args += ["--input", f"{info.name}=input_{k}.npy"]
    dims = []
    for name, size in sorted(symbols.items()):
        dims += ["--dim", f"{name}=1..{size}"]
    return None, inputs, outputs, dims, run_args


def run_case_run(tsc, tsc_run, case, work, extra=()):
    """Compiles, runs and checks one case in folder `work`. Returns
    (message, details): message None when the case passes."""
    work.mkdir()
    graph = case.model.graph
    problem, inputs, outputs, dims, run_args = prepare_case(case, work)
    if problem:
        return problem, ""
    model, artifact = work / "model.onnx", work / "case.tscm"
    compile_cmd = [tsc, str(model), "-o", str(artifact), *extra, *dims]
    try:
        proc = subprocess.run(compile_cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode:
            return first_error("tsc", proc.stderr, proc.returncode), proc.stderr
        out_dir = work / "out"
        # The inputs are named relative to the case's folder.
        proc = subprocess.run([os.path.abspath(tsc_run), str(artifact), "--output-dir", str(out_dir),
                               "--threads", "1"] + run_args,
                              capture_output=True, text=True, timeout=300, cwd=work)
        if proc.returncode:
            return first_error("tsc-run", proc.stderr, proc.returncode), proc.stderr
    except subprocess.TimeoutExpired as e:
        return f"{pathlib.Path(e.cmd[0]).name} timed out after {e.timeout} s", ""
    problems = []
    for info, ref in zip(graph.output, outputs):
        path = out_dir / f"{sanitize(info.name)}.npy"
        if not path.exists():
            problems.append(f"tsc-run wrote no file for output '{info.name}'")
            continue
        problem = compare(np.load(path), ref, info.name)
        if problem:
            problems.append(problem)
    return (problems[0] if problems else None), "\n".join(problems)


def explain_run(case, message, details):
    """A reason to exclude `case` from run mode, from its failure message, or
    None when the failure is not a known limitation."""
    if message.startswith("tsc:"):
        reason = explain(case, details)
        if reason:
            return reason
    for pattern in RUN_LIMITATIONS:
        m = re.search(pattern, message)
        if m:
            return m.group(0)
    if message.startswith("numerics:"):
        return message
    m = re.match(r"(tsc|tsc-run): (?:'[^']*': )?(.*)", message)
    if m and "not supported" in m.group(2):
        return m.group(2)
    return None


def reason_group(reason):
    return "numerics (rel L2 or mismatched elements)" \
        if reason.startswith("numerics:") else reason


HALF_REASON = ("not run in CI's fixed half (--half: the CRC-32 of its name is odd); "
               "the same command without --half runs it")


def run_mode(args, cases, selected):
    """--run: compile, execute and check every case that imports."""
    manifest = HERE / "run-exclusions.txt"
    exclusions = load_exclusions(manifest) if manifest.exists() else []
    imported = load_exclusions(HERE / "exclusions.txt")
    runnable = [c for c in selected if exclusion_reason(c.name, imported) is None]
    by_name = {c.name: c for c in runnable}
    # --half: the cases whose name's CRC-32 is odd are not run, and are
    # reported as skipped (CI's fixed half; the run without it runs all).
    left_out = {c.name for c in runnable if args.half and zlib.crc32(c.name.encode()) % 2}
    results = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(args.jobs or 2) as pool:
        extra = ["--gpu-loop-mapping"] if args.gpu_loop_mapping else []
        futures = {pool.submit(run_case_run, args.tsc, args.tsc_run, case,
                               pathlib.Path(tmp) / case.name, extra): case.name
                   for case in runnable if case.name not in left_out}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()

    if args.write_exclusions:
        lines = ["# ONNX backend node tests that tsc imports but that do not yet compile,",
                 "# run or match their expected outputs (run_node_tests.py --run), with",
                 "# the reason. Written by `run_node_tests.py --run --write-exclusions`;",
                 "# review changes by hand. A listed case that passes or fails for",
                 "# another reason fails the suite."]
        unexplained = []
        for name in sorted(results):
            message, details = results[name]
            if message is None:
                continue
            reason = explain_run(by_name[name], message, details)
            if reason:
                lines.append(f"{name} {reason}")
            else:
                unexplained.append(f"{name}: {message}")
        manifest.write_text("\n".join(lines) + "\n")
        print(f"wrote {len(lines) - 5} run exclusions; {len(unexplained)} failures "
              "unexplained:")
        print("\n".join(unexplained))
        return 0

    suite_name = "onnx-node-run-gpu-mapping" if args.gpu_loop_mapping else "onnx-node-run"
    suite = ET.Element("testsuite", name=suite_name)
    passed = failed = skipped = 0
    skipped_by, failed_by = collections.Counter(), collections.Counter()
    for name in sorted(left_out):
        case = ET.SubElement(suite, "testcase", classname=suite_name, name=name)
        ET.SubElement(case, "skipped", message=HALF_REASON)
        skipped += 1
        skipped_by[HALF_REASON] += 1
    for name in sorted(results):
        message, details = results[name]
        reason = exclusion_reason(name, exclusions)
        case = ET.SubElement(suite, "testcase", classname=suite_name, name=name)
        now = explain_run(by_name[name], message, details) if message else None
        if reason is not None and message is not None and not same_reason(reason, now):
            text = f"excluded because {reason}, but now: {now or message}"
            ET.SubElement(case, "failure", message=text).text = details
            print(f"FAIL: {name}: {text}")
            failed += 1
            failed_by[reason_group(now or message)] += 1
        elif reason is not None and message is not None:
            ET.SubElement(case, "skipped", message=reason)
            skipped += 1
            skipped_by[reason_group(reason)] += 1
        elif reason is not None:
            ET.SubElement(case, "failure",
                          message="excluded in run-exclusions.txt but passes now")
            print(f"FAIL: {name}: excluded ({reason}) but passes now")
            failed += 1
            failed_by["passes but is excluded"] += 1
        elif message is not None:
            ET.SubElement(case, "failure", message=message).text = details
            print(f"FAIL: {name}: {message}")
            failed += 1
            failed_by[reason_group(
                now or re.sub(r"^([\w-]+): '[^']*': ", r"\1: ", message))] += 1
        else:
            passed += 1
    write_suite(suite, len(results) + len(left_out), failed, skipped, args.xunit)
    for title, counts in (("excluded", skipped_by), ("failed", failed_by)):
        if counts:
            print(f"{title}, by reason:")
            for reason, n in counts.most_common():
                print(f"  {n:5}  {reason}")
    print(f"{suite_name}: {len(runnable)} node tests of {len(cases)} import; "
          f"{passed} passed, {failed} failed, {skipped} excluded")
    print(f"{suite_name}: all node tests: {passed}/{len(cases)} passed")
    return 1 if failed else 0


sys.path.insert(0, str(HERE.parent / "target" / "cuda"))
import gpu_run  # noqa: E402
import ptx_check  # noqa: E402


def case_chips(case_name, split):
    """The chips a case's CUDA artifact is built for: both of
    ptx_check.CHIPS, or with `split` one of them, by the parity of the CRC-32
    of the case's name (a fixed half of the cases per chip, the same on every
    run and unchanged when other cases come or go)."""
    if not split:
        return ptx_check.CHIPS
    return (ptx_check.CHIPS[zlib.crc32(case_name.encode()) % len(ptx_check.CHIPS)],)


def ptx_case(tsc, case, work, bundle=None, chips=ptx_check.CHIPS):
    """A CUDA artifact of one case for `chips`, checked (ptx_check.check).
    Returns (message, details): message None when it passes. With `bundle`, the
    artifact is compiled at the case's data sizes and kept in
    bundle/<case>/ with data set 0's inputs, the expected outputs and
    case.json (tsc-run's arguments, the outputs' files and dtypes; tolerance
    null: compare()'s per dtype), for tools/gpu/check.py to run on a GPU."""
    import onnx
    if bundle is None:
        work.mkdir()
        model = work / "model.onnx"
        onnx.save(case.model, str(model))
        _, problem = ptx_check.check(tsc, model, work / "ptx", chips=chips)
        return problem, problem or ""
    folder = bundle / case.name
    folder.mkdir(parents=True)
    problem, _, outputs, dims, run_args = prepare_case(case, folder)
    if problem:
        return problem, ""
    _, problem = ptx_check.check(tsc, folder / "model.onnx", folder, dims)
    (folder / "model.onnx").unlink()
    described = []
    for k, (info, ref) in enumerate(zip(case.model.graph.output, outputs)):
        dtype = ref.dtype.name
        np.save(folder / f"expected_{k}.npy", as_npy(ref))
        described.append({"name": info.name, "file": sanitize(info.name) + ".npy",
                          "expected": f"expected_{k}.npy", "dtype": dtype})
    (folder / "case.json").write_text(json.dumps(
        {"tolerance": None, "runs": [{"run_args": run_args, "outputs": described}]}))
    return problem, problem or ""


def runnable_cases(selected):
    """The cases the run mode runs: they import, and run-exclusions.txt does
    not list them."""
    imported = load_exclusions(HERE / "exclusions.txt")
    not_run = load_exclusions(HERE / "run-exclusions.txt")
    return [c for c in selected if exclusion_reason(c.name, imported) is None
            and exclusion_reason(c.name, not_run) is None]


def device_suite(args, name, runnable, skip_reason, check, workers=None):
    """Suite `name` over the runnable cases: each case skipped with
    `skip_reason` when there is one, else `check(case, tmp)` (a temporary
    folder of the suite's), which returns (message, details), message None
    when it passes; cases run in parallel (`workers`, default --jobs or all
    cores). Returns (passed, failed, skipped)."""
    suite = ET.Element("testsuite", name=name)
    results = {}
    if skip_reason is None:
        with tempfile.TemporaryDirectory() as tmp, \
                concurrent.futures.ThreadPoolExecutor(
                    workers or args.jobs or os.cpu_count() or 2) as pool:
            futures = {pool.submit(check, case, pathlib.Path(tmp)): case.name
                       for case in runnable}
            for future in concurrent.futures.as_completed(futures):
                results[futures[future]] = future.result()
    passed = failed = skipped = 0
    for case_name in sorted(c.name for c in runnable):
        case = ET.SubElement(suite, "testcase", classname=name, name=case_name)
        if skip_reason is not None:
            ET.SubElement(case, "skipped", message=skip_reason)
            skipped += 1
            continue
        message, details = results[case_name]
        if message:
            ET.SubElement(case, "failure", message=message).text = details
            print(f"FAIL: {case_name}: {message}")
            failed += 1
        else:
            passed += 1
    write_suite(suite, len(runnable), failed, skipped, args.xunit)
    return passed, failed, skipped


def gpu_mode(args, selected):
    """--gpu: every case the run mode runs, as a CUDA artifact on the GPU."""
    runnable = runnable_cases(selected)
    reason = None if ptx_check.find_ptxas() else "no ptxas (CUDA toolkit) on this machine"
    if reason is None and (why := gpu_run.unavailable(args.tsc_run)):
        reason = f"no usable GPU: {why}"

    def on_gpu(case, tmp):
        problem, details = ptx_case(args.tsc, case, None, tmp)
        if problem:
            return problem, details
        problem = gpu_run.run_case(args.tsc_run, tmp / case.name, compare)
        return problem, problem or ""
    # (A CUDA context per running case: at most 4 on the one GPU.)
    passed, failed, skipped = device_suite(args, "onnx-node-gpu", runnable, reason, on_gpu,
                                           workers=args.jobs or min(os.cpu_count() or 2, 4))
    print(f"onnx-node-gpu: {len(runnable)} node tests that run on the host, as CUDA "
          f"artifacts on the GPU: {passed} passed, {failed} failed, {skipped} skipped"
          + (f" ({reason})" if reason else ""))
    return 1 if failed else 0


def ptx_mode(args, cases, selected):
    """--ptx: device code for every case the run mode runs."""
    runnable = runnable_cases(selected)
    ptxas = ptx_check.find_ptxas()
    bundle = pathlib.Path(args.bundle) / "node" if args.bundle else None
    split = args.split_chips and bundle is None
    passed, failed, skipped = device_suite(
        args, "onnx-node-ptx", runnable,
        None if ptxas else "no ptxas (CUDA toolkit) on this machine",
        lambda case, tmp: ptx_case(args.tsc, case, tmp / case.name, bundle,
                                   case_chips(case.name, split)))
    chips = (" or ".join(ptx_check.CHIPS) + " (one per case, by its name's CRC-32)"
             if split else ", ".join(ptx_check.CHIPS))
    print(f"onnx-node-ptx: {len(runnable)} node tests that run on the host; "
          f"CUDA artifacts for {chips} (SASS by ptxas, launches "
          f"matching their kernels, loaded by the runtime) for {passed}, "
          f"{failed} failed, {skipped} skipped" + ("" if ptxas else " (no ptxas)"))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--xunit")
    parser.add_argument("--filter", default="")
    parser.add_argument("--jobs", type=int,
                        help="parallel cases (default: all cores; 2 with --run)")
    parser.add_argument("--write-exclusions", action="store_true")
    parser.add_argument("--run", action="store_true",
                        help="compile to artifacts, run them and check the outputs")
    parser.add_argument("--tsc-run", help="the tsc-run binary (with --run)")
    parser.add_argument("--gpu-loop-mapping", action="store_true",
                        help="with --run: host kernels with the CUDA target's loop mapping")
    parser.add_argument("--ptx", action="store_true",
                        help="compile a CUDA artifact for every runnable case and "
                             "check its device code")
    parser.add_argument("--half", action="store_true",
                        help="with --run: run the cases whose name's CRC-32 is even, "
                             "the others reported skipped")
    parser.add_argument("--split-chips", action="store_true",
                        help="with --ptx: each case for one chip, half the cases each")
    parser.add_argument("--bundle",
                        help="with --ptx: keep each case's artifact, inputs and "
                             "expected outputs in BUNDLE/node/<case>/ (tools/gpu/)")
    parser.add_argument("--gpu", action="store_true",
                        help="run every runnable case's CUDA artifact on the GPU "
                             "(skipped without one)")
    args = parser.parse_args()
    if (args.run or args.gpu) and not args.tsc_run:
        parser.error("--run and --gpu need --tsc-run")
    if args.half and (not args.run or args.write_exclusions):
        parser.error("--half goes with --run, and not with --write-exclusions")
    if args.gpu_loop_mapping and (not args.run or args.write_exclusions):
        parser.error("--gpu-loop-mapping goes with --run, and uses the run manifest as it is")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from onnx.backend.test.loader import load_model_tests
        import onnx
        cases = load_model_tests(kind="node")
    exclusions = load_exclusions(HERE / "exclusions.txt")

    selected = [c for c in cases if args.filter in c.name]
    if args.run:
        return run_mode(args, cases, selected)
    if args.ptx:
        return ptx_mode(args, cases, selected)
    if args.gpu:
        return gpu_mode(args, selected)
    results = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(args.jobs or os.cpu_count() or 2) as pool:
        futures = {}
        for case in selected:
            path = pathlib.Path(tmp) / f"{case.name}.onnx"
            onnx.save(case.model, str(path))
            futures[pool.submit(run_case, args.tsc, path)] = case.name
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()

    if args.write_exclusions:
        by_name = {c.name: c for c in selected}
        lines = ["# ONNX backend node tests that tsc does not import, with the reason",
                 "# (ops it does not convert yet among them). Written by",
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
    skipped_by, unsupported_by = collections.Counter(), collections.Counter()
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
            if reason.startswith("unsupported ops: "):
                for op in re.findall(r"([\w.:]+) \(opset", reason):
                    unsupported_by[op] += 1
            else:
                skipped_by[reason_group(reason)] += 1
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
    write_suite(suite, len(results), failed, skipped, args.xunit)
    if skipped_by:
        print("excluded, by reason:")
        for reason, n in skipped_by.most_common():
            print(f"  {n:5}  {reason}")
    if unsupported_by:
        print("excluded for unsupported ops, cases per op:")
        print("  " + ", ".join(f"{op} {n}" for op, n in unsupported_by.most_common()))
    print(f"onnx-node: {len(selected)} node tests of {len(cases)}: {passed} import, "
          f"{failed} failed, {skipped} excluded")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
