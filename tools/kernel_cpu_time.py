#!/usr/bin/env python3
"""CPU time per kernel of a host artifact, from perf's cpu-clock samples.

`tsc-run --profile` times kernels by the wall clock, which on a machine
shared with other work measures the other work too. perf samples a thread
only while it runs, so samples / frequency is CPU time whatever the load.
Runs `perf record -e cpu-clock -F FREQ -- tsc-run ARTIFACT --bench RUNS
--threads 1 ...`, attributes the samples in the artifact's kernels (its
embedded shared object, read from the artifact) to kernel names, those in
oneDNN (its JIT code and libdnnl) to `gemm`, and prints CPU ms per run of
each (warm-up runs included in the count) with its share of the total.

With --gemm-shapes, the GEMMs' CPU time is split per shape (M x K x N and
the epilogue's post-ops) by the share of oneDNN's own execution times
(ONEDNN_VERBOSE=1, a second run of the same command, warm-up runs left
out), each with its GFLOP/s: where in the GEMMs the time goes, and how far
each shape is from the CPU's peak.

Usage: tools/kernel_cpu_time.py ARTIFACT --tsc-run build/bin/tsc-run
           [--runs 30] [--warmup 3] [--freq 4000] [--gemm-shapes]
           --input NAME=FILE.npy ...
Needs perf (Debian linux-perf). Not a test.
"""
import argparse
import bisect
import collections
import os
import re
import struct
import subprocess
import sys
import tempfile


def kernel_symbols(artifact):
    """(address, name) of the functions of the artifact's shared object."""
    data = open(artifact, "rb").read()
    start = data.find(b"\x7fELF")
    if start < 0:
        sys.exit(f"{artifact}: no host shared object in the artifact")
    shoff = struct.unpack_from("<Q", data, start + 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, start + 0x3A)
    with tempfile.NamedTemporaryFile(suffix=".so") as so:
        so.write(data[start:start + shoff + shentsize * shnum])
        so.flush()
        lines = subprocess.run(["nm", so.name], check=True, capture_output=True,
                               text=True).stdout.splitlines()
        loads = subprocess.run(["readelf", "-lW", so.name], check=True,
                               capture_output=True, text=True).stdout
    # perf gives addresses in the memfd mapping as file offsets.
    text = [l.split() for l in loads.splitlines() if "LOAD" in l and "R E" in l][0]
    delta = int(text[2], 16) - int(text[1], 16)
    symbols = sorted((int(p[0], 16), p[2]) for p in map(str.split, lines)
                     if len(p) == 3 and p[1] in "tT")
    return symbols, delta


def gemm_shares(run, runs, warmup):
    """{"MxKxN post-ops": (share of the GEMMs' time, calls per run, flop)}
    from oneDNN's verbose execution lines of `run` (warm-up runs left out)."""
    env = dict(os.environ, ONEDNN_VERBOSE="1")
    out = subprocess.run(run, check=True, capture_output=True, text=True, env=env)
    lines = [l for l in (out.stdout + out.stderr).splitlines()
             if l.startswith("onednn_verbose,exec,cpu,matmul")]
    lines = lines[len(lines) * warmup // (runs + warmup):]
    times, calls, flop = collections.Counter(), collections.Counter(), {}
    for line in lines:
        fields = line.split(",")
        # src:wei:dst dims, 2-D (MxK:KxN:MxN) or 3-D (BxMxK:...)
        src, wei = (f.split("x") for f in fields[-2].split(":")[:2])
        batch = int(src[0]) if len(src) == 3 else 1
        m, k, n = int(src[-2]), int(src[-1]), int(wei[-1])
        posts = re.findall(r"eltwise_(\w+)|(sum)|binary_(\w+)", line)
        post = "+".join(x for p in posts for x in p if x)
        key = (f"{batch}x" if batch > 1 else "") + f"{m}x{k}x{n}" + (f" {post}" if post else "")
        times[key] += float(fields[-1])
        calls[key] += 1
        flop[key] = 2 * batch * m * k * n
    total = sum(times.values()) or 1
    measured = max(runs, 1)
    return {key: (t / total, calls[key] / measured, flop[key]) for key, t in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artifact")
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--freq", type=int, default=4000)
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--gemm-shapes", action="store_true",
                        help="split the GEMMs' time per shape (ONEDNN_VERBOSE)")
    args = parser.parse_args()

    symbols, delta = kernel_symbols(args.artifact)
    addresses = [a for a, _ in symbols]
    with tempfile.TemporaryDirectory() as tmp:
        data = f"{tmp}/perf.data"
        run = [args.tsc_run, args.artifact, "--bench", str(args.runs), "--warmup",
               str(args.warmup), "--threads", "1"]
        for i in args.input:
            run += ["--input", i]
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(args.freq),
                        "-o", data, "--"] + run, check=True, stdout=subprocess.DEVNULL)
        report = subprocess.run(["perf", "report", "-i", data, "-n", "--no-children",
                                 "--sort", "dso,sym", "-g", "none", "-t", "|"],
                                check=True, capture_output=True, text=True).stdout
    samples = collections.Counter()
    for line in report.splitlines():
        fields = [f.strip() for f in line.split("|")]
        if line.startswith("#") or len(fields) != 4 or not fields[1].isdigit():
            continue
        count, dso, symbol = int(fields[1]), fields[2], fields[3]
        if "tsc-host" in dso:
            # Unresolved: a file offset in the memfd mapping.
            ip = int(symbol.split()[-1], 16) + delta
            i = bisect.bisect_right(addresses, ip) - 1
            name = symbols[i][1] if i >= 0 else "?"
            # tsc_kernel_12_layer_norm..omp_par.3 -> layer_norm
            name = re.sub(r"^tsc_kernel_\d+_", "", name).split("..")[0]
            samples[name] += count
        elif "JIT" in dso or "dnnl" in dso:
            samples["gemm"] += count
        else:
            samples["(runtime, libraries, kernel)"] += count
    total = sum(samples.values())
    runs = args.runs + args.warmup
    print(f"{args.artifact}: {total / args.freq * 1000 / runs:.2f} CPU ms per run "
          f"({runs} runs, {total} samples at {args.freq} Hz)")
    for name, count in samples.most_common():
        print(f"  {count / args.freq * 1000 / runs:9.3f} ms {100 * count / total:5.1f} %  {name}")
    if args.gemm_shapes and samples["gemm"]:
        gemm_ms = samples["gemm"] / args.freq * 1000 / runs
        print("GEMMs per shape (CPU ms per run, calls per run, GFLOP/s):")
        shares = gemm_shares(run, args.runs, args.warmup)
        for key, (share, calls, flop) in sorted(shares.items(), key=lambda x: -x[1][0]):
            ms = gemm_ms * share
            print(f"  {ms:9.3f} ms  {calls:4.0f} x  {flop * calls / ms / 1e6:6.1f} GFLOP/s  {key}")


if __name__ == "__main__":
    main()
