#!/usr/bin/env python3
"""tsc-run's errors: bad inputs and damaged artifacts are rejected with a
message, never a crash.

Compiles one model (by default a small one built here: int64 `input_ids` and
`attention_mask` of shape [batch, seq], a weight matrix, so the artifact has
PLAN, HOST and WGHT sections) with `--dim batch=1..4 --dim seq=1..64`, checks
that it runs on valid inputs, then runs tsc-run with
  (a) a wrong input name, (b) a float32 .npy for the int64 ids, (c) ids of
  the wrong rank, (d) seq 65, outside the compiled range,
  (e) truncated copies of the artifact,
  (f) copies with one bit flipped in the header, the section table, and the
      PLAN, HOST and WGHT sections (offsets from the header and section table,
      docs/artifact-format.md).
Each must exit with status 1 (not a signal) and a message naming what is
wrong: the input name; 'dtype'; 'rank'; the symbol 'seq'; 'truncated';
'checksum' or 'corrupt'.

Then what tsc-run tells when things go right (issue 26): `--version`;
`--info` as text and `--info --json` (parsed; its symbols, ranges, inputs and
outputs checked against what the model declares); `--bench N --json` (stdout
one JSON object with the percentiles, the run lines on stderr);
`--expected` against a NumPy computation of the small model (match, exit 0)
and against the same array with one element moved past the tolerance (exit
3, the message naming the element's index); and errors that name the option
that gave a path (`--input`, `--expected`, `--output-dir`).

Usage: run_errors.py --tsc build/bin/tsc --tsc-run build/bin/tsc-run
                     [--model MODEL.onnx] [--xunit FILE] [--keep DIR]
"""
import argparse
import pathlib
import struct
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from checks_report import Checks  # noqa: E402

HEADER = struct.Struct("<8sHHIQQ24sII")  # docs/artifact-format.md, 64 bytes
SECTION = struct.Struct("<4sIQQII")  # 32 bytes


def small_weights():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((1, 16)).astype(np.float32),
            rng.standard_normal(16).astype(np.float32))


def small_model(path):
    """out = (float(ids) * float(mask))[..., None] @ W + b, W 1x16, b 16."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    weight, bias = small_weights()
    dims = ["batch", "seq"]
    graph = helper.make_graph(
        [helper.make_node("Cast", ["input_ids"], ["ids_f"], to=TensorProto.FLOAT),
         helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["ids_f", "mask_f"], ["masked"]),
         helper.make_node("Unsqueeze", ["masked", "last_axis"], ["column"]),
         helper.make_node("MatMul", ["column", "weight"], ["projected"]),
         helper.make_node("Add", ["projected", "bias"], ["hidden"])],
        "errors",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, dims),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, dims)],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, dims + [16])],
        [numpy_helper.from_array(np.array([-1], np.int64), "last_axis"),
         numpy_helper.from_array(weight, "weight"),
         numpy_helper.from_array(bias, "bias")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              ir_version=8)  # readable by ONNX Runtime too
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def sections(blob):
    """{id: (offset, size)} from the header and section table."""
    magic, _, _, count, table, _, _, _, _ = HEADER.unpack_from(blob, 0)
    if magic != b"\x89TSCM\r\n\x1a":
        raise ValueError("not a tsc artifact (bad magic)")
    found = {}
    for i in range(count):
        sid, _, offset, size, _, _ = SECTION.unpack_from(blob, table + i * SECTION.size)
        found[sid.decode("ascii", "replace")] = (offset, size)
    return found, table, count


def flipped(blob, offset, bit=0):
    data = bytearray(blob)
    data[offset] ^= 1 << bit
    return bytes(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--model", help="an ONNX model with int64 inputs input_ids and "
                        "attention_mask [batch, seq] (default: a small one built here)")
    parser.add_argument("--xunit")
    parser.add_argument("--keep", help="work in this folder and keep it")
    args = parser.parse_args()

    checks = Checks("runtime-errors")
    record = checks.record

    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        model = pathlib.Path(args.model) if args.model else small_model(work / "small.onnx")
        artifact = work / "model.tscm"
        proc = subprocess.run([args.tsc, str(model), "-o", str(artifact), "--dim",
                               "batch=1..4", "--dim", "seq=1..64"],
                              capture_output=True, text=True)
        if proc.returncode:
            record("compile", f"tsc failed: {proc.stderr.strip().splitlines()[:1]}")
            return checks.finish(args.xunit)

        def npy(name, array):
            path = work / f"{name}.npy"
            np.save(path, array)
            return path

        ids = np.arange(1, 8, dtype=np.int64).reshape(1, 7)
        good = {"input_ids": npy("ids", ids),
                "attention_mask": npy("mask", np.ones((1, 7), np.int64))}

        def run(art, inputs):
            cmd = [args.tsc_run, str(art), "--output-dir", str(work / "out")]
            for name, path in inputs.items():
                cmd += ["--input", f"{name}={path}"]
            return subprocess.run(cmd, capture_output=True, text=True, timeout=120)

        def expect_error(name, art, inputs, *words):
            """Exit status 1 and a message with one of `words`."""
            proc = run(art, inputs)
            message = proc.stderr.strip()
            if proc.returncode < 0:
                problem = f"crashed with signal {-proc.returncode}"
            elif proc.returncode != 1:
                problem = f"exit status {proc.returncode}, expected 1 ({message[:200]!r})"
            elif not any(w in message for w in words):
                problem = (f"message {message[:300]!r} names none of "
                           + ", ".join(repr(w) for w in words))
            else:
                problem = None
                print(f"    {message.splitlines()[0] if message else ''}")
            record(name, problem)

        baseline = run(artifact, good)
        record("valid inputs run", None if baseline.returncode == 0 else
               f"exit status {baseline.returncode}: {baseline.stderr.strip()[:300]}")

        expect_error("wrong input name", artifact,
                     {"input_idz": good["input_ids"],
                      "attention_mask": good["attention_mask"]}, "input_idz")
        expect_error("wrong dtype", artifact,
                     dict(good, input_ids=npy("ids_f32", ids.astype(np.float32))), "dtype")
        expect_error("wrong rank", artifact,
                     dict(good, input_ids=npy("ids_rank3", ids.reshape(1, 7, 1))), "rank")
        long = np.ones((1, 65), np.int64)
        expect_error("seq outside the compiled range", artifact,
                     {"input_ids": npy("ids65", long), "attention_mask": npy("mask65", long)},
                     "seq")

        blob = artifact.read_bytes()
        try:
            found, table, count = sections(blob)
        except (ValueError, struct.error) as e:
            record("section table", f"cannot read the artifact's header: {e}")
            return checks.finish(args.xunit)
        damaged = {
            "truncated to half": blob[:len(blob) // 2],
            "truncated inside the header": blob[:32],
            "truncated by one byte": blob[:-1],
            "bit flipped in the header (producer)": flipped(blob, 40),
            "bit flipped in the header (file size)": flipped(blob, 24, 3),
            "bit flipped in the section table": flipped(blob, table + 8 + 32 * (count - 1), 6),
        }
        for sid in ("PLAN", "HOST", "WGHT"):
            if sid not in found:
                record(f"bit flipped in {sid}", f"the artifact has no {sid} section "
                       f"(sections: {', '.join(sorted(found))})")
                continue
            offset, size = found[sid]
            damaged[f"bit flipped in {sid}"] = flipped(blob, offset + size // 2, 5)
        for i, (name, data) in enumerate(damaged.items()):
            path = work / f"damaged-{i}.tscm"
            path.write_bytes(data)
            words = ("truncated",) if name.startswith("truncated") else ("checksum", "corrupt")
            if "file size" in name:  # a reader may compare sizes before checksums
                words += ("truncated",)
            expect_error(name, path, good, *words)
        if not args.model:
            tool_output(args, record, work, artifact, good, npy)
    return checks.finish(args.xunit)


def tool_output(args, record, work, artifact, good, npy):
    """--version, --info, --bench --json, --expected and option-naming errors."""
    import json

    def tsc_run(*extra):
        return subprocess.run([args.tsc_run, *map(str, extra)], capture_output=True,
                              text=True, timeout=120)

    def check(name, condition, problem):
        record(name, None if condition else problem)

    proc = tsc_run("--version")
    check("--version", proc.returncode == 0 and proc.stdout.startswith("tsc-run ")
          and "artifact format 1.0 to 1." in proc.stdout,
          f"exit {proc.returncode}: {proc.stdout!r} {proc.stderr!r}")

    proc = tsc_run(artifact, "--info")
    lines = proc.stdout.splitlines()
    check("--info text", proc.returncode == 0
          and "symbol batch: [1, 4]" in lines and "symbol seq: [1, 64]" in lines
          and "input input_ids: i64[batch, seq]" in lines
          and "output hidden: f32[batch, seq, 16]" in lines,
          f"exit {proc.returncode}: {proc.stdout!r} {proc.stderr!r}")

    proc = tsc_run(artifact, "--info", "--json")
    try:
        info = json.loads(proc.stdout)
        problem = None
        want = {"symbols": [{"name": "batch", "min": 1, "max": 4},
                            {"name": "seq", "min": 1, "max": 64}],
                "inputs": [{"name": "input_ids", "dtype": "i64", "dims": ["batch", "seq"]},
                           {"name": "attention_mask", "dtype": "i64",
                            "dims": ["batch", "seq"]}],
                "outputs": [{"name": "hidden", "dtype": "f32",
                             "dims": ["batch", "seq", 16]}],
                "target": "cpu"}
        for key, value in want.items():
            if info.get(key) != value:
                problem = f"{key}: {info.get(key)!r}, expected {value!r}"
        if not problem and not (info["weight_bytes"] >= 4 * 32 and info["arena_bytes"] > 0
                                and info["steps"]["kernels"] >= 1):
            problem = f"sizes or steps wrong: {info!r}"
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        problem = f"not the expected JSON ({e}): {proc.stdout[:300]!r} {proc.stderr[:300]!r}"
    record("--info --json", problem)

    run_args = [a for name, path in good.items() for a in ("--input", f"{name}={path}")]
    proc = tsc_run(artifact, "--bench", 5, "--warmup", 1, "--json", *run_args)
    try:
        bench = json.loads(proc.stdout)
        lat = bench["latency_ms"]
        ordered = lat["min"] <= lat["median"] <= lat["p90"] <= lat["p95"] <= lat["p99"] \
            <= lat["max"]
        problem = None if (bench["runs"] == 5 and ordered and lat["stddev"] >= 0
                           and bench["runs_per_second"] > 0
                           and "output hidden" in proc.stderr) else f"unexpected: {bench!r}"
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        problem = f"stdout is not one JSON object ({e}): {proc.stdout[:300]!r}"
    record("--bench --json", problem)

    # The small model in NumPy: hidden = (ids * mask)[..., None] @ W + b.
    weight, bias = small_weights()
    ids, mask = np.load(good["input_ids"]), np.load(good["attention_mask"])
    reference = ((ids * mask).astype(np.float32)[..., None] @ weight + bias).astype(np.float32)
    proc = tsc_run(artifact, *run_args, "--expected", f"hidden={npy('reference', reference)}")
    check("--expected match", proc.returncode == 0 and "expected hidden: match" in proc.stdout,
          f"exit {proc.returncode}: {proc.stderr.strip()[:300]!r}")
    off = reference.copy()
    off[0, 3, 5] += 1e-3 + 1e-2 * abs(off[0, 3, 5])
    proc = tsc_run(artifact, *run_args, "--expected", f"hidden={npy('off', off)}",
                   "--rtol", "1e-3", "--atol", "1e-4")
    check("--expected mismatch", proc.returncode == 3 and "[0, 3, 5]" in proc.stderr
          and "1 of 112 elements" in proc.stderr,
          f"exit {proc.returncode}: {proc.stderr.strip()[:300]!r}")
    proc = tsc_run(artifact, *run_args, "--expected",
                   f"hidden={npy('short', reference[:, :3])}")
    check("--expected wrong shape", proc.returncode == 3 and "shape" in proc.stderr,
          f"exit {proc.returncode}: {proc.stderr.strip()[:300]!r}")

    for name, extra, words in (
            ("--expected unknown output", ["--expected", f"hiddn={work / 'reference.npy'}"],
             ("hiddn", "outputs: hidden")),
            ("--expected missing file", ["--expected", f"hidden={work / 'absent.npy'}"],
             ("--expected hidden:", "absent.npy")),
            ("--input missing file", ["--input", f"input_ids={work / 'absent.npy'}"],
             ("--input input_ids:", "absent.npy")),
            ("--output-dir not creatable", ["--output-dir", "/proc/tsc-run-test"],
             ("--output-dir:", "/proc/tsc-run-test"))):
        proc = tsc_run(artifact, *extra)
        check(name, proc.returncode == 1 and all(w in proc.stderr for w in words),
              f"exit {proc.returncode}: {proc.stderr.strip()[:300]!r}")


if __name__ == "__main__":
    sys.exit(main())
