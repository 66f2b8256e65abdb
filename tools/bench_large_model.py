#!/usr/bin/env python3
"""Compile time and memory of tsc on models of the sizes people have.

`--model llama` (default): TinyLlama-1.1B's shapes (hidden 2048, 22 layers,
32 query heads over 4 K/V heads, intermediate 5632, vocab 32000; RMSNorm,
rotary, SwiGLU, a language-model head) written as ONNX with seeded random
fp16 weights in an external-data file (test/models/llama_fp16.py: the
weights are generated in chunks and never held in memory).
`--model bert-large`: a BERT-large-shaped encoder (24 layers, hidden 1024,
16 heads, intermediate 4096; test/models/minilm.py's definition, seeded
random fp32 weights) exported by torch.onnx with its weights inside the
protobuf.
Then, each in its own child process:
  tsc      MODEL.onnx -o MODEL.tscm --dim batch=1..BATCH --dim seq=1..MAX_SEQ
           (wall time and peak RSS, from wait4)
  tsc-run  MODEL.tscm --timing --threads N on token ids of [BATCH, SEQ]
           (the runtime's load time and first-run latency, and its peak RSS)
and prints one table with the weight bytes and peak RSS / weight bytes.
With --twice, compiles a second time and compares the artifacts' bytes.
Not a test: it fails only when it cannot measure. Generated files go to a
temporary folder, or to --keep DIR (where an existing model of the same
configuration is reused).

Usage: tools/bench_large_model.py [--model llama|bert-large] [--layers N]
                                  [--batch 1] [--seq 16] [--max-seq 128]
                                  [--threads N] [--twice] [--keep DIR]
                                  [--tsc build/bin/tsc] [--tsc-run build/bin/tsc-run]
"""
import argparse
import dataclasses
import hashlib
import json
import os
import pathlib
import re
import shlex
import shutil
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "test" / "models"))
import llama_fp16  # noqa: E402
from bench_cpu import cpu_model, first_line, measured  # noqa: E402

MIB = 1 << 20


def meminfo(key):
    """A /proc/meminfo figure in MiB (None where there is none)."""
    try:
        for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


BERT_LARGE = {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
              "intermediate_size": 4096}


def write_model(args, work):
    """Writes the model into `work`; returns (path, weight bytes, vocab)."""
    if args.model == "llama":
        config = dataclasses.replace(llama_fp16.CONFIG, layers=args.layers)
        path = work / "llama.onnx"
        return path, 2 * llama_fp16.build(config, path, args.seed), config.vocab
    import warnings

    import minilm
    import onnx
    config = {**minilm.BERT_BASE, **BERT_LARGE}
    if args.layers:
        config["num_hidden_layers"] = args.layers
    path = work / "bert-large.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        minilm.export(minilm.random_bert(config, args.seed), path)
    graph = onnx.load(path).graph
    count = sum(onnx.numpy_helper.to_array(t).nbytes for t in graph.initializer)
    return path, count, config["vocab_size"]


def generate(args, work):
    """The model in `work` (reused when a stamp says it has this
    configuration): (path, weight bytes, vocab)."""
    stamp = work / f"{args.model}.json"
    wanted = json.dumps({"model": args.model, "layers": args.layers, "seed": args.seed},
                        sort_keys=True)
    found = json.loads(stamp.read_text()) if stamp.exists() else {}
    if found.get("key") == wanted and pathlib.Path(found["model"][0]).exists():
        path, count, vocab = found["model"]
        print(f"reusing {path} ({count} weight bytes)")
        return pathlib.Path(path), count, vocab
    start = time.perf_counter()
    path, count, vocab = write_model(args, work)
    stamp.write_text(json.dumps({"key": wanted, "model": [str(path), count, vocab]}))
    print(f"wrote {path}: {count} weight bytes in {time.perf_counter() - start:.1f} s")
    return path, count, vocab


def compile_model(args, model, artifact):
    cmd = [args.tsc, str(model), "-o", str(artifact), "--dim", f"batch=1..{args.batch}",
           "--dim", f"seq=1..{args.max_seq}"]
    print("$ " + shlex.join(cmd), flush=True)
    start = time.perf_counter()
    rc, _, err, rss = measured(cmd)
    seconds = time.perf_counter() - start
    if rc:
        raise RuntimeError(first_line("tsc", rc, err))
    digest = hashlib.sha256()
    with open(artifact, "rb") as f:
        for block in iter(lambda: f.read(1 << 24), b""):
            digest.update(block)
    print(f"  {seconds:.1f} s, peak RSS {rss:.0f} MiB, {artifact.stat().st_size} bytes, "
          f"sha256 {digest.hexdigest()[:16]}", flush=True)
    return {"seconds": seconds, "rss": rss, "bytes": artifact.stat().st_size,
            "sha256": digest.hexdigest()}


def run_model(args, vocab, artifact, work):
    rng = np.random.default_rng(0)
    ids, mask = work / "input_ids.npy", work / "attention_mask.npy"
    np.save(ids, rng.integers(1, vocab, (args.batch, args.seq), dtype=np.int64))
    np.save(mask, np.ones((args.batch, args.seq), np.int64))
    out = work / "outputs"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [args.tsc_run, str(artifact), "--input", f"input_ids={ids}", "--input",
           f"attention_mask={mask}", "--threads", str(args.threads), "--timing",
           "--output-dir", str(out)]
    print("$ " + shlex.join(cmd), flush=True)
    rc, stdout, err, rss = measured(cmd)
    m = re.search(r"timing ms: load ([\d.]+)\s+session ([\d.]+)\s+first run ([\d.]+)", stdout)
    if rc or not m:
        raise RuntimeError(first_line("tsc-run", rc, err) if rc else
                           "no 'timing ms:' line in tsc-run's output")
    outputs = sorted(out.glob("*.npy"))
    if not outputs or not all(np.isfinite(np.load(f).astype(np.float32)).all() for f in outputs):
        raise RuntimeError("tsc-run wrote no outputs, or outputs with non-finite values")
    return {"load_ms": float(m.group(1)), "session_ms": float(m.group(2)),
            "first_ms": float(m.group(3)), "rss": rss}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", default=str(ROOT / "build" / "bin" / "tsc"))
    parser.add_argument("--tsc-run", default=str(ROOT / "build" / "bin" / "tsc-run"))
    parser.add_argument("--model", choices=("llama", "bert-large"), default="llama")
    parser.add_argument("--layers", type=int,
                        help="layers (default: the model's: TinyLlama's 22, BERT-large's 24)")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--seq", type=int, default=16, help="sequence length of the run")
    parser.add_argument("--max-seq", type=int, default=128, help="seq range compiled for")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--twice", action="store_true",
                        help="compile twice and check that the artifacts are identical")
    parser.add_argument("--keep", help="write the model and artifact here and keep them")
    args = parser.parse_args()
    if args.seq > args.max_seq:
        parser.error("--seq must be at most --max-seq")
    if args.model == "llama" and not args.layers:
        args.layers = llama_fp16.CONFIG.layers

    print("command: " + shlex.join([sys.executable] + sys.argv))
    print(f"cpu: {cpu_model()}, {os.cpu_count()} logical cores; threads {args.threads}")
    print(f"memory: {meminfo('MemTotal'):.0f} MiB, {meminfo('MemAvailable'):.0f} MiB available; "
          f"load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        model, weight_bytes, vocab = generate(args, work)
        artifact = model.with_suffix(".tscm")
        compiled = compile_model(args, model, artifact)
        notes = []
        if args.twice:
            again = compile_model(args, model, artifact.with_name("again.tscm"))
            same = again["sha256"] == compiled["sha256"]
            notes.append("two compiles gave " + ("byte-identical artifacts" if same else
                                                  "DIFFERENT artifacts"))
            compiled["rss"] = max(compiled["rss"], again["rss"])
            artifact.with_name("again.tscm").unlink()
            if not same:
                print("\n".join(notes))
                return 1
        ran = run_model(args, vocab, artifact, work)

    name = f"{args.model}, {args.layers} layers" if args.layers else args.model
    print()
    head = (f"{'model':<22} {'weight MiB':>10} {'compile s':>9} "
            f"{'peak RSS MiB':>12} {'RSS/weights':>11} {'artifact MiB':>12} "
            f"{'load ms':>8} {'first run ms':>12} {'run RSS MiB':>11}")
    print(head)
    print("-" * len(head))
    print(f"{name:<22} {weight_bytes / MIB:>10.0f} "
          f"{compiled['seconds']:>9.1f} {compiled['rss']:>12.0f} "
          f"{compiled['rss'] * MIB / weight_bytes:>11.2f} {compiled['bytes'] / MIB:>12.0f} "
          f"{ran['load_ms']:>8.0f} {ran['first_ms']:>12.0f} {ran['rss']:>11.0f}")
    for note in notes:
        print(f"note: {note}")
    print(f"compiled with --dim batch=1..{args.batch} --dim seq=1..{args.max_seq}; run at batch "
          f"{args.batch}, seq {args.seq}, {args.threads} threads; peak RSS from wait4 of each "
          "process (it counts the pages of mapped files that were read)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
