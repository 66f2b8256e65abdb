#!/usr/bin/env python3
"""Hostile input: tsc and tsc-run reject malformed models, options and files
with a message naming what is wrong, and never crash, hang or write an
artifact the runtime refuses (issue 24).

Two parts, all files built here in a temporary folder (nothing downloaded or
committed):

1. Cases, each with the exit status and the words its message must contain:
   models whose structure breaks ONNX's IR (no outputs, an output listed
   twice, two producers of one tensor, a declared output type the graph does
   not compute, negative dims), whose tensors lie about their size (raw_data
   shorter or longer than the dims say, an external-data length of 2^40),
   whose nodes lack what their op needs (a node retyped to Scan without its
   body, an axis of 2^63-1: these crashed libonnx's shape inference), whose
   external data points outside the model's folder (`..`, an absolute path,
   a symbolic link); and tsc-run given a thread count of 100000, a .npy
   whose header claims 3.2 GB or more than 2^64 bytes, trailing bytes after
   a .npy's data, a --dim outside the compiled range, a --dim that a given
   input contradicts; and a compiled artifact whose PLAN is edited with the
   checksums recomputed (a value's dtype, a kernel's buffer index, a dim
   expression), which tsc-run must refuse naming the value and the kernel.

2. A mutation smoke run: MUTANTS mutants (fixed seed) of two small models
   built here, mutated at the protobuf level (op types, attributes, dims,
   data types, raw_data lengths, node inputs and outputs, graph outputs) and
   at the byte level (flips, truncations, splices). tsc compiles each with a
   time limit: it must exit 0 or 1, never by a signal or the limit, and say
   why when it exits 1. An artifact it writes must then load and run in
   tsc-run (random inputs) or be refused with exit 1: never a crash.

Each case and each mutant is one test in the xUnit report.

Usage: run_reliability.py --tsc build/bin/tsc --tsc-run build/bin/tsc-run
                          [--mutants 240] [--seed 24] [--jobs 2] [--xunit FILE]
                          [--keep DIR]
"""
import argparse
import concurrent.futures
import os
import pathlib
import random
import struct
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from checks_report import Checks  # noqa: E402
import plan_edit  # noqa: E402

TIME_LIMIT = 60  # seconds per tsc or tsc-run process


def save(path, nodes, inits=(), inputs=None, outputs=None, opset=17):
    inputs = inputs if inputs is not None else [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])]
    outputs = outputs if outputs is not None else [
        helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])]
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=8)
    path.write_bytes(model.SerializeToString())
    return path


def external_model(folder, name, location, length=None):
    """y = x + b, with b's 32 bytes stored externally at `location`."""
    b = numpy_helper.from_array(np.ones((2, 4), np.float32), "b")
    b.ClearField("raw_data")
    b.data_location = TensorProto.EXTERNAL
    entries = {"location": location}
    if length is not None:
        entries["length"] = str(length)
    for key, value in entries.items():
        b.external_data.add(key=key, value=value)
    return save(folder / name, [helper.make_node("Add", ["x", "b"], ["y"])], [b])


def model_cases(work):
    """(name, model path, words) for models tsc must refuse with exit 1."""
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])
    relu = helper.make_node("Relu", ["x"], ["y"])
    cases = []

    def case(name, words, nodes, inits=(), **kw):
        cases.append((name, save(work / f"{name}.onnx", nodes, inits, **kw), words))

    case("node retyped to Scan without its body", ["Scan", "body"],
         [helper.make_node("Scan", ["x"], ["y"])])
    case("LayerNormalization axis 2^63-1", ["LayerNormalization", "axis"],
         [helper.make_node("LayerNormalization", ["x", "s"], ["y"], axis=2**63 - 1)],
         [numpy_helper.from_array(np.ones(4, np.float32), "s")])
    short = numpy_helper.from_array(np.arange(4, dtype=np.int64), "shape")
    short.raw_data = short.raw_data[:9]
    case("raw_data shorter than its dims", ["'shape'", "9 bytes"],
         [helper.make_node("Reshape", ["x", "shape"], ["y"])], [short])
    long = numpy_helper.from_array(np.arange(4, dtype=np.int64), "shape")
    long.raw_data = b"\0" * 41
    case("raw_data of 41 bytes for INT64[4]", ["'shape'", "41 bytes"],
         [helper.make_node("Reshape", ["x", "shape"], ["y"])], [long])
    case("no graph outputs", ["no outputs"], [relu], outputs=[])
    case("graph output listed twice", ["'y'", "twice"], [relu], outputs=[y, y])
    case("two nodes write one tensor", ["'y'", "Neg", "Relu"],
         [relu, helper.make_node("Neg", ["x"], ["y"])])
    case("initializer and node write one tensor", ["'y'", "initializer"],
         [relu], [numpy_helper.from_array(np.ones((2, 4), np.float32), "y")])
    case("declared output dtype differs", ["'y'", "declared", "i64"], [relu],
         outputs=[helper.make_tensor_value_info("y", TensorProto.INT64, [2, 4])])
    case("declared output dim differs", ["'y'", "declared", "3x4"], [relu],
         outputs=[helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])])
    case("negative input dim", ["'x'", "-3"], [relu],
         inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [-3, 4])])

    # External data: the folder holds the model; a secret lies beside it.
    folder = work / "external"
    (folder / "sub").mkdir(parents=True, exist_ok=True)
    (work / "secret.bin").write_bytes(b"S" * 32)
    (folder / "weights.bin").write_bytes(b"\0" * 32)
    link = folder / "link.bin"
    if not link.exists():
        link.symlink_to(work / "secret.bin")
    for name, location, words in [
            ("external data at ../secret.bin", "../secret.bin", ["'b'", "../secret.bin"]),
            ("external data at ../../../../etc/passwd", "../../../../etc/passwd",
             ["'b'", "passwd"]),
            ("external data at an absolute path", str(work / "secret.bin"),
             ["'b'", "secret.bin"]),
            ("external data through a symbolic link", "link.bin", ["'b'", "outside"])]:
        cases.append((name, external_model(folder, name.replace(" ", "_").replace("/", "")
                                           + ".onnx", location), words))
    cases.append(("external data length 2^40",
                  external_model(folder, "length.onnx", "weights.bin", 2**40),
                  ["'b'", "1099511627776", "32 bytes"]))
    return cases


def run(cmd):
    """(status, stderr); status None when the time limit killed it."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              timeout=TIME_LIMIT)
    except subprocess.TimeoutExpired:
        return None, f"no exit after {TIME_LIMIT} s"
    return proc.returncode, proc.stderr.strip()


def judge(status, message, want_status, words):
    """None when the outcome is as wanted, else what went wrong."""
    if status is None:
        return f"hung: {message}"
    if status < 0:
        return f"killed by signal {-status}: {message[-300:]!r}"
    if status != want_status:
        return f"exit status {status}, expected {want_status}: {message[:300]!r}"
    missing = [w for w in words if w not in message]
    if missing:
        return f"message {message[:300]!r} lacks {missing}"
    return None


def runtime_cases(args, work):
    """(name, command, words) for tsc-run misuse; all must exit 1."""
    model = save(work / "add.onnx", [helper.make_node("Add", ["x", "x"], ["y"])],
                 inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                       ["batch", 4])],
                 outputs=[helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                        ["batch", 4])])
    artifact = work / "add.tscm"
    status, message = run([args.tsc, str(model), "-o", str(artifact),
                           "--dim", "batch=1..16"])
    if status != 0:
        raise RuntimeError(f"cannot compile the tsc-run fixture: {message}")
    good = work / "x.npy"
    np.save(good, np.ones((2, 4), np.float32))
    data = good.read_bytes()
    (work / "trailing.npy").write_bytes(data + b"junk")

    def claimed(name, shape):
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (shape,)
        header = header.ljust(117) + "\n"
        path = work / name
        path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little")
                         + header.encode() + b"\0" * 32)
        return path

    big = claimed("big.npy", (2, 400000000))
    huge = claimed("huge.npy", (4000000000, 4000000000))
    base = [args.tsc_run, str(artifact), "--output-dir", str(work / "out")]
    return [
        ("tsc-run --threads 100000", base + ["--threads", "100000"], ["thread"]),
        ("npy header claiming 3.2 GB", base + ["--input", f"x={big}"],
         ["big.npy", "truncated"]),
        ("npy header claiming more than 2^64 bytes", base + ["--input", f"x={huge}"],
         ["huge.npy", "too large"]),
        ("npy with bytes after its data", base + ["--input", f"x={work / 'trailing.npy'}"],
         ["trailing.npy", "4 bytes after"]),
        ("--dim outside the compiled range", base + ["--dim", "batch=100000000"],
         ["--dim batch", "[1, 16]"]),
        ("--dim contradicted by a given input",
         base + ["--dim", "batch=3", "--input", f"x={good}"], ["--dim batch=3", "'x'"]),
    ]


def artifact_cases(args, work):
    """(name, command, words) for artifacts whose PLAN was edited with the
    checksums recomputed, so that the loader's cross-checks must refuse
    them (exit 1) with a message naming the value and the kernel; first,
    the unedited artifact, which must run (exit 0)."""
    vec = ["batch", 4]
    model = save(work / "mul.onnx",
                 [helper.make_node("Mul", ["x", "z"], ["m"]),
                  helper.make_node("Relu", ["m"], ["y"])],
                 inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, vec),
                         helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 1])],
                 outputs=[helper.make_tensor_value_info("y", TensorProto.FLOAT, vec)])
    artifact = work / "mul.tscm"
    status, message = run([args.tsc, str(model), "-o", str(artifact), "--dim", "batch=1..16"])
    if status != 0:
        raise RuntimeError(f"cannot compile the edited-artifact fixture: {message}")
    data = artifact.read_bytes()
    plan = plan_edit.Plan(data)
    name, buffers = plan.kernels[0]
    x, z = (dict(plan.inputs)[n] for n in ("x", "z"))
    if plan.buffer(0, 0) != x:
        raise RuntimeError(f"kernel '{name}' does not take x first")
    cases = [("edited artifact: unedited, runs", [args.tsc_run, str(artifact)], None)]

    def edited(title, edit, words):
        p = plan_edit.Plan(data)
        edit(p)
        path = work / (title.replace(" ", "-") + ".tscm")
        path.write_bytes(p.artifact_bytes())
        cases.append((f"edited artifact: {title}", [args.tsc_run, str(path)],
                      [f"kernel '{name}'"] + words))

    # z's dtype f32 -> f16: the kernel would read twice the bytes bound.
    edited("value dtype", lambda p: p.set_u8(p.values[z][0], 2),
           [f"value {z} (input 'z')", "dtype is f16", "expects f32"])
    # The kernel's x buffer is z instead: [batch, 1] where it reads [batch, 4].
    edited("kernel buffer index", lambda p: p.set_u32(buffers[0], z),
           [f"value {z} (input 'z')", "buffer 0", "[batch, 1]", "[batch, 4]"])
    # The expression x's last dim uses pushes 5: every value of that dim
    # grows, the kernel's code still computes with 4.
    four = struct.unpack_from("<I", plan.bytes, plan.values[x][1][1])[0]
    edited("dim expression", lambda p: p.set_const(four, 5),
           [f"value {x} (input 'x')", "[batch, 5]", "[batch, 4]"])
    return cases


# Mutation smoke -------------------------------------------------------------

OP_TYPES = ["Scan", "Loop", "If", "LayerNormalization", "Reshape", "Gather", "Conv",
            "Attention", "Einsum", "TopK", "Split", "Resize", "Pad", "Slice", "Cast",
            "MatMul", "Softmax", "NonZero", "Expand", "Unknown_Op"]
EXTREMES = [0, -1, 1, 2**31 - 1, -2**31, 2**63 - 1, -2**63, 7]
DTYPES = [0, 1, 2, 7, 8, 9, 10, 11, 13, 16, 17, 19, 21, 22, 23, 25, 99]


def seed_models(work):
    """Two small models to mutate: a Reshape/MatMul/Add chain with symbolic
    dims, and a LayerNorm/Softmax/Gather mix with int64 indices."""
    rng = np.random.default_rng(0)
    a = save(work / "seed-a.onnx",
             [helper.make_node("Reshape", ["x", "shape"], ["r"]),
              helper.make_node("MatMul", ["r", "w"], ["m"]),
              helper.make_node("Add", ["m", "b"], ["y"])],
             [numpy_helper.from_array(np.array([-1, 4], np.int64), "shape"),
              numpy_helper.from_array(rng.standard_normal((4, 8)).astype(np.float32), "w"),
              numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")],
             inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2, 2])],
             outputs=[helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])])
    b = save(work / "seed-b.onnx",
             [helper.make_node("Gather", ["table", "ids"], ["e"], axis=0),
              helper.make_node("LayerNormalization", ["e", "g", "beta"], ["n"], axis=-1,
                               epsilon=1e-5),
              helper.make_node("Softmax", ["n"], ["s"], axis=-1),
              helper.make_node("Transpose", ["s"], ["y"], perm=[1, 0, 2])],
             [numpy_helper.from_array(rng.standard_normal((10, 6)).astype(np.float32), "table"),
              numpy_helper.from_array(np.ones(6, np.float32), "g"),
              numpy_helper.from_array(np.zeros(6, np.float32), "beta")],
             inputs=[helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"])],
             outputs=[helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                    ["seq", "batch", 6])])
    return [a, b]


def mutate(data, rng):
    """One protobuf-level or byte-level mutation of the serialized model."""
    if rng.random() < 0.3:
        blob = bytearray(data)
        kind = rng.choice(["flip", "truncate", "splice", "zero"])
        if kind == "flip":
            for _ in range(rng.randint(1, 8)):
                blob[rng.randrange(len(blob))] ^= 1 << rng.randrange(8)
        elif kind == "truncate":
            del blob[rng.randrange(1, len(blob)):]
        elif kind == "splice":
            i, j = sorted(rng.sample(range(len(blob)), 2))
            blob[i:i] = blob[j:j + rng.randint(1, 64)]
        else:
            i = rng.randrange(len(blob))
            blob[i:i + rng.randint(1, 16)] = b"\0" * min(16, len(blob) - i)
        return bytes(blob), f"bytes:{kind}"
    model = onnx.ModelProto()
    model.ParseFromString(data)
    graph = model.graph
    kind = rng.choice(["op_type", "attribute", "drop_attribute", "dims", "dtype",
                       "raw_data", "node_input", "node_output", "graph_output",
                       "input_dims", "opset", "drop_node"])
    node = rng.choice(graph.node)
    if kind == "op_type":
        node.op_type = rng.choice(OP_TYPES)
    elif kind == "attribute":
        name = rng.choice(["axis", "perm", "epsilon", "to", "keepdims", "body", "k"])
        node.attribute.append(helper.make_attribute(
            name, rng.choice(EXTREMES) if name != "perm"
            else [rng.choice(EXTREMES) for _ in range(rng.randint(1, 4))]))
    elif kind == "drop_attribute" and node.attribute:
        del node.attribute[rng.randrange(len(node.attribute))]
    elif kind in ("dims", "dtype", "raw_data") and graph.initializer:
        init = rng.choice(graph.initializer)
        if kind == "dims":
            init.dims[:] = [rng.choice(EXTREMES + [3, 4]) for _ in range(rng.randint(0, 3))]
        elif kind == "dtype":
            init.data_type = rng.choice(DTYPES)
        else:
            init.raw_data = init.raw_data[:rng.randrange(len(init.raw_data) + 1)] \
                + bytes(rng.randint(0, 9))
    elif kind == "node_input" and node.input:
        node.input[rng.randrange(len(node.input))] = rng.choice(
            ["", "missing", node.output[0], graph.input[0].name])
    elif kind == "node_output":
        node.output[0] = rng.choice(["", graph.input[0].name, graph.node[0].output[0]])
    elif kind == "graph_output":
        graph.output[0].name = rng.choice(["", "missing", graph.input[0].name])
    elif kind == "input_dims":
        dims = graph.input[0].type.tensor_type.shape.dim
        dims[rng.randrange(len(dims))].dim_value = rng.choice(EXTREMES)
    elif kind == "opset":
        model.opset_import[0].version = rng.choice([1, 6, 11, 13, 20, 28, 29, 10**6])
    elif kind == "drop_node":
        del graph.node[rng.randrange(len(graph.node))]
    return model.SerializeToString(), f"proto:{kind}"


def try_mutant(args, path):
    """(problem, compiled): problem None when tsc (and tsc-run on its
    artifact) behaved; compiled when tsc wrote an artifact."""
    artifact = path.with_suffix(".tscm")
    status, message = run([args.tsc, str(path), "-o", str(artifact),
                           "--dim", "batch=1..4", "--dim", "seq=1..8"])
    problem = judge(status, message, status if status in (0, 1) else 1, [])
    if problem:
        return f"tsc: {problem}", False
    if status == 1:
        if "error" not in message:
            return f"tsc: exit 1 without an error message: {message[:200]!r}", False
        return None, False
    status, message = run([args.tsc_run, str(artifact), "--output-dir",
                           str(path.with_suffix(".out"))])
    problem = judge(status, message, status if status in (0, 1) else 1, [])
    return (f"tsc-run on its artifact: {problem}" if problem else None), True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--mutants", type=int, default=240)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--xunit")
    parser.add_argument("--keep", help="work in this folder and keep it")
    args = parser.parse_args()

    checks = Checks("reliability")
    record = checks.record

    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        for name, path, words in model_cases(work):
            status, message = run([args.tsc, str(path), "-o", str(path.with_suffix(".tscm"))])
            record(name, judge(status, message, 1, [path.name] + words))
        for name, cmd, words in runtime_cases(args, work):
            status, message = run(cmd)
            record(name, judge(status, message, 1, words))
        for name, cmd, words in artifact_cases(args, work):
            status, message = run(cmd)
            record(name, judge(status, message, 0 if words is None else 1, words or []))

        # An input with an initializer of its name: compiled as the constant,
        # with a warning, and the artifact runs without that input.
        path = save(work / "default.onnx", [helper.make_node("Add", ["x", "b"], ["y"])],
                    [numpy_helper.from_array(np.ones((2, 4), np.float32), "b")],
                    inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4]),
                            helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 4])])
        status, message = run([args.tsc, str(path), "-o", str(work / "default.tscm")])
        problem = judge(status, message, 0, ["warning", "'b'"])
        if not problem:
            status, message = run([args.tsc_run, str(work / "default.tscm"),
                                   "--input", f"x={work / 'x.npy'}",
                                   "--output-dir", str(work / "default-out")])
            problem = judge(status, message, 0, [])
        record("input with an initializer of its name", problem)

        rng = random.Random(args.seed)
        seeds = [p.read_bytes() for p in seed_models(work)]
        mutants = []
        for i in range(args.mutants):
            data, kind = mutate(seeds[i % len(seeds)], rng)
            path = work / f"mutant-{i:04d}.onnx"
            path.write_bytes(data)
            mutants.append((f"mutant {i:04d} ({kind})", path))
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(lambda m: try_mutant(args, m[1]), mutants))
        for (name, _), (problem, _) in zip(mutants, outcomes):
            record(name, problem, quiet=True)
        print(f"mutants: {args.mutants} (seed {args.seed}), "
              f"{sum(1 for _, c in outcomes if c)} compiled and ran or were refused by "
              f"tsc-run, {sum(1 for p, _ in outcomes if p)} misbehaved")

    return checks.finish(args.xunit)


if __name__ == "__main__":
    sys.exit(main())
