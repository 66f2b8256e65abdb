#!/usr/bin/env python3
"""The runtime under AddressSanitizer + UndefinedBehaviorSanitizer, and its
libFuzzer targets (issue 24).

Configures and builds a tree of its own (default build-sanitize/) from
runtime/ (the standalone runtime project) with clang, `-fsanitize=address,
undefined -fno-sanitize-recover=all` and TSC_RUNTIME_FUZZ=ON, which gives a
sanitized libtsc_runtime.so, tsc-run and tsc-runtime-tests, and three fuzz
targets (runtime/fuzz/): tsc-fuzz-artifact (tsc_model_load_from_memory with
checksums skipped and no code loaded), tsc-fuzz-npy (tsc-run's .npy reader)
and tsc-fuzz-options (tsc-run's option parser). The main build makes two
more (compiler/fuzz/): tsc-fuzz-onnx (a binary ONNX model through the
importer, conversion and the fuse phase) and tsc-fuzz-pt2 (a torch.export
archive likewise), their importer and converter sources instrumented.
Then, each one test case:

- `fuzz-<target>`: a fixed number of libFuzzer executions (RUNS below: about
  30 s each on a quiet 2-core machine; at most SECONDS seconds, where a
  loaded machine stops it earlier and says so) from seed 1, so that a run
  on one commit mutates the same inputs every time, from seeds made here (small
  models compiled by the main build's tsc, fp32 and int, with and without
  GEMM steps; .npy files of several dtypes and shapes; every ONNX backend
  node test's model; small .pt2 archives from make_pt2_seeds.py) plus the
  committed regressions (<sources>/regressions/<target>/); fails on any crash, leak,
  sanitizer report or timeout; prints the executions and their rate;
- `regressions-<target>`: every committed regression input, run once;
- `sanitized-runtime-tests`: tsc-runtime-tests on make_artifact.py's fixtures;
- `sanitized-runtime-errors`: test/models/run_errors.py with the sanitized
  tsc-run (damaged artifacts, wrong inputs);
- `sanitized-node-run`: the node tests whose name matches NODE_FILTER, compiled
  by the main build's tsc and run by the sanitized tsc-run against their
  expected outputs (a fixed sample: the full run is test/onnx-node's suite);
each clean only when no sanitizer reported anything (exit status and
"Sanitizer" in stderr are both checked).

Usage: run_sanitized.py --tsc build/bin/tsc [--build build-sanitize]
                        [--seconds 120] [--runs-scale 1] [--node-filter test_a] [--xunit FILE]
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test"))
from checks_report import Checks  # noqa: E402
# fuzz target: (folder of its sources, whether the main build makes it).
# The runtime's targets are built in the sanitized tree; the importers' in
# the main build (compiler/fuzz/CMakeLists.txt instruments their sources).
FUZZERS = {"artifact": ("runtime/fuzz", False), "npy": ("runtime/fuzz", False),
           "options": ("runtime/fuzz", False),
           "onnx": ("compiler/fuzz", True), "pt2": ("compiler/fuzz", True)}
# Executions per fuzz target: about 30 s each at the rates a quiet 2-core
# machine of the CI's kind reaches (docs/testing.md).
RUNS = {"artifact": 2_500_000, "npy": 2_400_000, "options": 1_300_000,
        "onnx": 30_000, "pt2": 20_000}
SANITIZE = "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
ENV = dict(os.environ,
           ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1",
           UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")


def build(tree):
    llvm = "/usr/lib/llvm-22"
    if not (tree / "build.ninja").exists():
        subprocess.run(
            ["cmake", "-G", "Ninja", "-S", str(ROOT / "runtime"), "-B", str(tree),
             "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DCMAKE_C_COMPILER=clang",
             "-DCMAKE_CXX_COMPILER=clang++", "-DCMAKE_C_COMPILER_LAUNCHER=ccache",
             "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", f"-DCMAKE_C_FLAGS={SANITIZE}",
             f"-DCMAKE_CXX_FLAGS={SANITIZE}",
             f"-DCMAKE_EXE_LINKER_FLAGS=--ld-path={llvm}/bin/ld.lld",
             f"-DCMAKE_SHARED_LINKER_FLAGS=--ld-path={llvm}/bin/ld.lld",
             "-DTSC_RUNTIME_FUZZ=ON", "-DTSC_RUNTIME_BUILD_TESTS=ON"],
            check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(tree)], check=True,
                   env=dict(os.environ, CCACHE_BASEDIR=str(ROOT), CCACHE_NOHASHDIR="1"))


def seeds(tsc, work):
    """Seed corpora: artifacts of small models, .npy files."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    art = work / "seeds-artifact"
    npy = work / "seeds-npy"
    art.mkdir()
    npy.mkdir()
    models = {
        # A GEMM step with a bias: PLAN gemm fields, WGHT.
        "linear": ([helper.make_node("MatMul", ["x", "w"], ["m"]),
                    helper.make_node("Add", ["m", "b"], ["y"])],
                   [numpy_helper.from_array(rng.standard_normal((8, 4)).astype(np.float32), "w"),
                    numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b")],
                   TensorProto.FLOAT, TensorProto.FLOAT),
        # Kernels only, symbols, an integer input.
        "gather": ([helper.make_node("Gather", ["t", "x"], ["g"], axis=0),
                    helper.make_node("Softmax", ["g"], ["y"], axis=-1)],
                   [numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "t")],
                   TensorProto.INT64, TensorProto.FLOAT),
    }
    for name, (nodes, inits, in_type, out_type) in models.items():
        graph = helper.make_graph(
            nodes, name, [helper.make_tensor_value_info("x", in_type, ["batch", 8])],
            [helper.make_tensor_value_info("y", out_type, None)], inits)
        path = work / f"{name}.onnx"
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                  str(path))
        for flags, suffix in (([], ""), (["--dim", "batch=1..4"], "-ranged")):
            subprocess.run([str(tsc), str(path), "-o", str(art / f"{name}{suffix}.tscm")]
                           + flags, check=True, capture_output=True)
    # An int8 GEMM step with a constant scale and a zero point (format 1.17):
    # a QDQ pair in tsc's IR, which tsc-quantize-qdq makes a step of.
    qdq = work / "qdq.mlir"
    qdq.write_text("""func.func @qdq(%x: tensor<2x16xf32>) -> tensor<2x4xf32> {
  %s = tsc.constant dense<0.0625> : tensor<f32>
  %z = tsc.constant dense<-3> : tensor<i8>
  %q = tsc.quantize %x, %s, %z : (tensor<2x16xf32>, tensor<f32>, tensor<i8>) -> tensor<2x16xi8>
  %xd = tsc.dequantize %q, %s, %z : (tensor<2x16xi8>, tensor<f32>, tensor<i8>) -> tensor<2x16xf32>
  %wq = tsc.constant dense<3> : tensor<16x4xi8>
  %ws = tsc.constant dense<[0.25, 0.125, 0.5, 1.0]> : tensor<4xf32>
  %wd = tsc.dequantize %wq, %ws axis = 1 : (tensor<16x4xi8>, tensor<4xf32>) -> tensor<16x4xf32>
  %b = tsc.constant dense<[1.0, -1.0, 0.5, 2.0]> : tensor<4xf32>
  %y = tsc.linear %xd, %wd, %b {weight_kn} : (tensor<2x16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
""")
    subprocess.run([str(tsc), str(qdq), "-o", str(art / "int8-zero-point.tscm")], check=True,
                   capture_output=True)
    # A weight-only GEMM step whose i4 weight has zero points per group
    # (format 1.18), as a MatMulNBits with zero points imports.
    wo = work / "weight-only-zp.mlir"
    wo.write_text("""func.func @wo(%x: tensor<2x32xf32>) -> tensor<2x4xf32> {
  %wq = tsc.constant dense<3> : tensor<4x32xi4>
  %ws = tsc.constant dense<0.25> : tensor<4x2xf32>
  %wz = tsc.constant dense<-2> : tensor<4x2xi4>
  %wd = tsc.dequantize %wq, %ws, %wz axis = 1 group_size = 16 : (tensor<4x32xi4>, tensor<4x2xf32>, tensor<4x2xi4>) -> tensor<4x32xf32>
  %y = tsc.linear %x, %wd : (tensor<2x32xf32>, tensor<4x32xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
""")
    subprocess.run([str(tsc), str(wo), "-o", str(art / "weight-only-zero-point.tscm")],
                   check=True, capture_output=True)
    # Int8 GEMM steps whose activation has multipliers (smoothing): by a
    # constant scale (format 1.21), and per row by max|x · m| (1.22).
    scales = {
        "static": ("%s = tsc.constant dense<0.0625> : tensor<f32>", "", "tensor<f32>"),
        "dynamic": ("""%a = tsc.abs %xs : tensor<2x16xf32>
  %r = tsc.reduce_max %a dims = [1] keepdim : (tensor<2x16xf32>) -> tensor<2x1xf32>
  %c = tsc.constant dense<1.270000e+02> : tensor<f32>
  %d = tsc.div %r, %c : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %t = tsc.constant dense<1.17549435E-38> : tensor<f32>
  %s = tsc.max %d, %t : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>""",
                    " axis = 1 group_size = 16", "tensor<2x1xf32>"),
    }
    for name, (scale, axis, scale_type) in scales.items():
        smoothed = work / f"{name}-smoothed.mlir"
        smoothed.write_text(f"""func.func @smoothed(%x: tensor<2x16xf32>) -> tensor<2x4xf32> {{
  %m = tsc.constant dense<[0.5, 2.0, 1.0, 0.25, 0.5, 2.0, 1.0, 0.25, 0.5, 2.0, 1.0, 0.25, 0.5, 2.0, 1.0, 0.25]> : tensor<16xf32>
  %xs = tsc.mul %x, %m : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  {scale}
  %q = tsc.quantize %xs, %s{axis} : (tensor<2x16xf32>, {scale_type}) -> tensor<2x16xi8>
  %xd = tsc.dequantize %q, %s{axis} : (tensor<2x16xi8>, {scale_type}) -> tensor<2x16xf32>
  %wq = tsc.constant dense<3> : tensor<16x4xi8>
  %ws = tsc.constant dense<[0.25, 0.125, 0.5, 1.0]> : tensor<4xf32>
  %wd = tsc.dequantize %wq, %ws axis = 1 : (tensor<16x4xi8>, tensor<4xf32>) -> tensor<16x4xf32>
  %y = tsc.linear %xd, %wd {{weight_kn}} : (tensor<2x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}}
""")
        subprocess.run([str(tsc), str(smoothed), "-o", str(art / f"{name}-smoothed.tscm")],
                       check=True, capture_output=True)
    # An int8 GEMM step quantizing by the range of its input (format 1.23):
    # ONNX Runtime's quantize_dynamic form as the importer writes it.
    ranged = work / "range.mlir"
    ranged.write_text("""func.func @range(%x: tensor<2x16xf32>) -> tensor<2x4xf32> {
  %zero = tsc.constant dense<0.0> : tensor<f32>
  %c255 = tsc.constant dense<255.0> : tensor<f32>
  %lo = tsc.reduce_min %x dims = [0, 1] : (tensor<2x16xf32>) -> tensor<f32>
  %hi = tsc.reduce_max %x dims = [0, 1] : (tensor<2x16xf32>) -> tensor<f32>
  %lo0 = tsc.min %lo, %zero : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %hi0 = tsc.max %hi, %zero : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %span = tsc.sub %hi0, %lo0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %s = tsc.div %span, %c255 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %neg = tsc.neg %lo0 : tensor<f32>
  %z = tsc.quantize %neg, %s : (tensor<f32>, tensor<f32>) -> tensor<ui8>
  %q = tsc.quantize %x, %s, %z : (tensor<2x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x16xui8>
  %qi = tsc.cast %q : tensor<2x16xui8> to tensor<2x16xi32>
  %zi = tsc.cast %z : tensor<ui8> to tensor<i32>
  %a = tsc.sub %qi, %zi : (tensor<2x16xi32>, tensor<i32>) -> tensor<2x16xi32>
  %w = tsc.constant dense<3> : tensor<16x4xi8>
  %wi = tsc.cast %w : tensor<16x4xi8> to tensor<16x4xi32>
  %p = tsc.matmul %a, %wi : (tensor<2x16xi32>, tensor<16x4xi32>) -> tensor<2x4xi32>
  %f = tsc.cast %p : tensor<2x4xi32> to tensor<2x4xf32>
  %ws = tsc.constant dense<0.25> : tensor<f32>
  %sw = tsc.mul %s, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %y = tsc.mul %f, %sw : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
""")
    subprocess.run([str(tsc), str(ranged), "-o", str(art / "int8-range.tscm")], check=True,
                   capture_output=True)
    # The ONNX importer: the small models above and every ONNX backend node
    # test's model (the pinned onnx package makes them; ~10 MB).
    onnx_seeds = work / "seeds-onnx"
    onnx_seeds.mkdir()
    for name in models:
        shutil.copy(work / f"{name}.onnx", onnx_seeds)
    import warnings
    from onnx.backend.test.loader import load_model_tests
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in load_model_tests(kind="node"):
            onnx.save(case.model, str(onnx_seeds / f"{case.name}.onnx"))
    # The .pt2 reader: small archives saved by torch.export (PyTorch 2
    # environment).
    pt2_seeds = work / "seeds-pt2"
    subprocess.run([str(ROOT / "tools" / "torch-python"),
                    str(ROOT / "test" / "reliability" / "make_pt2_seeds.py"),
                    str(pt2_seeds)], check=True, capture_output=True)
    for i, array in enumerate([np.ones((2, 3), np.float32), np.arange(5, dtype=np.int64),
                               np.zeros((1, 2, 2), np.float16), np.array(True),
                               np.ones((0, 4), np.uint8), np.full((3,), 7, np.int32)]):
        np.save(npy / f"seed{i}.npy", array)
    # tsc-run's command lines, arguments separated by NUL bytes.
    options = work / "seeds-options"
    options.mkdir()
    for i, line in enumerate([
            ["m.tscm", "--input", "x=a.npy", "--dim", "seq=4", "--output-dir", "out"],
            ["m.tscm", "--threads=2", "--bench", "5", "--warmup=0", "--int-range", "-3..7"],
            ["m.tscm", "--seed", "-1", "--cuda-device", "1", "--no-cuda-graphs",
             "--profile", "--timing"],
            ["--help"], ["--list-devices"]]):
        (options / f"seed{i}").write_bytes(b"\0".join(a.encode() for a in line))
    return {"artifact": art, "npy": npy, "onnx": onnx_seeds, "pt2": pt2_seeds,
            "options": options}


def sanitizer_problem(proc):
    text = proc.stderr
    if proc.returncode < 0:
        return f"killed by signal {-proc.returncode}: {text[-1500:]}"
    if "Sanitizer" in text or "runtime error:" in text:
        return f"sanitizer report: {text[-3000:]}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True, help="the main build's tsc (makes seeds)")
    parser.add_argument("--build", default=str(ROOT / "build-sanitize"))
    parser.add_argument("--seconds", type=int, default=120,
                        help="time limit of each fuzz target (it stops earlier at its RUNS)")
    parser.add_argument("--runs-scale", type=float, default=1.0,
                        help="multiply each fuzz target's fixed execution count")
    parser.add_argument("--node-filter", default="test_a")
    parser.add_argument("--xunit")
    args = parser.parse_args()

    checks = Checks("sanitized")
    record = checks.record

    tree = pathlib.Path(args.build)
    try:
        build(tree)
    except subprocess.CalledProcessError as e:
        record("build", f"the sanitized build failed: {e}")
        return checks.finish(args.xunit)
    record("build", None, str(tree))

    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        corpora = seeds(pathlib.Path(args.tsc), work)
        for target, (sources, in_main_build) in FUZZERS.items():
            fuzzer = (pathlib.Path(args.tsc).parent if in_main_build else tree) / \
                f"tsc-fuzz-{target}"
            regressions = ROOT / sources / "regressions" / target
            found = sorted(regressions.glob("*")) if regressions.is_dir() else []
            if found:
                proc = subprocess.run([str(fuzzer)] + [str(p) for p in found],
                                      capture_output=True, text=True, env=ENV)
                record(f"regressions-{target}",
                       sanitizer_problem(proc) or (f"exit status {proc.returncode}: "
                                                   f"{proc.stderr[-1500:]}"
                                                   if proc.returncode else None),
                       f"{len(found)} inputs")
            corpus = work / f"corpus-{target}"
            shutil.copytree(corpora[target], corpus)
            artifacts = work / f"crashes-{target}"
            artifacts.mkdir()
            proc = subprocess.run(
                [str(fuzzer), str(corpus), f"-runs={int(RUNS[target] * args.runs_scale)}",
                 f"-max_total_time={args.seconds}",
                 "-timeout=10", "-rss_limit_mb=4096", "-max_len=65536", "-keep_seed=1",
                 "-seed=1",
                 f"-artifact_prefix={artifacts}/", "-print_final_stats=1"],
                capture_output=True, text=True, env=ENV)
            runs = re.search(r"stat::number_of_executed_units:\s*(\d+)", proc.stderr)
            rate = re.search(r"stat::average_exec_per_sec:\s*(\d+)", proc.stderr)
            executed = int(runs.group(1)) if runs else 0
            wanted = int(RUNS[target] * args.runs_scale)
            note = (f"{executed} executions ({rate.group(1) if rate else '?'}/s)"
                    + ("" if executed >= wanted else
                       f", stopped by the {args.seconds} s limit before {wanted}"))
            crashes = sorted(p.name for p in artifacts.iterdir())
            problem = None
            if proc.returncode or crashes:
                # The work folder goes with the run: keep the inputs, and say
                # how to replay them (the stack may be cut off below).
                kept = tree / "fuzz-crashes" / target
                kept.mkdir(parents=True, exist_ok=True)
                for name in crashes:
                    shutil.copy(artifacts / name, kept / name)
                problem = (f"exit status {proc.returncode}, inputs {crashes} kept in {kept} "
                           f"(replay: {fuzzer} {kept}/<input>; copy them to "
                           f"{sources}/regressions/{target}/): {proc.stderr[-3000:]}")
            record(f"fuzz-{target}", problem, note)

        tests = tree / "tsc-runtime-tests"
        fixtures = work / "fixtures"
        fixtures.mkdir()
        kernel = ROOT / "test" / "runtime" / "Inputs" / "scale_kernel.c"
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", str(kernel), "-o",
                        str(fixtures / "scale.so")], check=True)
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-DTSC_SCALE_BY_THREE", str(kernel),
                        "-o", str(fixtures / "scale3.so")], check=True)
        subprocess.run([sys.executable, str(ROOT / "test" / "runtime" / "make_artifact.py"),
                        str(fixtures), "--host-object", str(fixtures / "scale.so"),
                        "--second-host-object", str(fixtures / "scale3.so")], check=True)
        proc = subprocess.run([str(tests), str(fixtures)], capture_output=True, text=True,
                              env=ENV)
        fails = [l for l in proc.stdout.splitlines() if l.startswith("FAIL")]
        record("sanitized-runtime-tests",
               sanitizer_problem(proc) or (f"exit {proc.returncode}, {fails[:5]}"
                                           if proc.returncode or fails else None),
               f"{proc.stdout.count('PASS')} passed")

        runs = [("sanitized-runtime-errors",
                 [sys.executable, str(ROOT / "test" / "models" / "run_errors.py"),
                  "--tsc", args.tsc, "--tsc-run", str(tree / "tsc-run")]),
                ("sanitized-node-run",
                 [sys.executable, str(ROOT / "test" / "onnx-node" / "run_node_tests.py"),
                  "--run", "--tsc", args.tsc, "--tsc-run", str(tree / "tsc-run"),
                  "--filter", args.node_filter])]
        for name, cmd in runs:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
            # The suites report their own failures; a sanitizer report in a
            # child's stderr shows up in theirs.
            problem = sanitizer_problem(proc) or (
                f"exit status {proc.returncode}: {(proc.stdout + proc.stderr)[-3000:]}"
                if proc.returncode else None)
            if not problem and "Sanitizer" in proc.stdout:
                problem = f"sanitizer report: {proc.stdout[-3000:]}"
            record(name, problem, (proc.stdout.strip().splitlines() or [""])[-1])
    return checks.finish(args.xunit)


if __name__ == "__main__":
    sys.exit(main())
