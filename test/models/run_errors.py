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


def small_model(path):
    """out = (float(ids) * float(mask))[..., None] @ W + b, W 1x16, b 16."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
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
         numpy_helper.from_array(rng.standard_normal((1, 16)).astype(np.float32), "weight"),
         numpy_helper.from_array(rng.standard_normal(16).astype(np.float32), "bias")])
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
    return checks.finish(args.xunit)


if __name__ == "__main__":
    sys.exit(main())
