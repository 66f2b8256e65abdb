#!/usr/bin/env python3
"""End-to-end numerics of TorchScript archives: tsc + tsc-run against PyTorch
and against the same model's ONNX export.

Saves the BERT-, GPT-2- and Llama-style models of export_models.py traced and
scripted (export_torchscript.py; the weights are those of the opset-17 ONNX
export), and all-MiniLM-L6-v2 with its published weights traced (compared
with its opset-14 ONNX export), and, per archive:
  - checks the archive in PyTorch against ONNX Runtime on the opset-17 ONNX
    export (the fixture: same weights, same math);
  - compiles it with
      tsc ARCHIVE --input input_ids=i64[batch,seq]
                  --input attention_mask=i64[batch,seq]
                  --dim batch=1..4 --dim seq=1..64 -o ART --report
    checking symbols, fusion and plan as run_models.py does for ONNX
    (run_models.compile_with_report, check_fusion; a fusion failure is
    reported and the numerics below still checked);
  - checks that its plan (`plan:` and `layers:` lines of --report) has as
    many steps, kernels, GEMM library calls and copies, layers and kernels
    per layer as the opset-17 ONNX export compiled with the same --dim;
  - runs the artifact with tsc-run at (batch, seq) = (1, 5) and (3, 17),
    token ids and masks with trailing padding from minilm.make_inputs, and
    compares every output (`output_0`, `output_1`, in the order forward
    returns them) with the archive run by torch.jit.load and with the ONNX
    artifact's outputs: same shape and dtype, relative L2
    |out - ref|_2 / |ref|_2 at most 1e-4.
Half precision: the scripted Llama-style archive compiled with
`--precision=fp16` against torch's fp32 outputs, relative L2 at most 3e-3
(case `llama-scripted-fp16`).
Error cases: tsc on `truncated.pt` (half an archive), on `newer-op.pt`
(calls an op unknown to every libtorch, as an archive of a newer PyTorch
would) and on
`bert-traced.pt` without --input must exit with a positive status (not a
signal) and a message naming, respectively, the file and the damage; the file
and the op; `--input`.

The corpus architectures traced and saved by the pinned PyTorch 2.x with sdpa
and eager attention (cases `ts-<arch>-<attention>` and `...-plan`, see
torchscript_corpus.py; expected failures in torchscript-expected-failures.txt).

When tsc says it was "built without TorchScript", every case above is reported
skipped and the script exits 0. Prints per archive the plan line and the
largest relative L2 against PyTorch and against the ONNX artifact.

Usage: run_torchscript.py --tsc build/bin/tsc --tsc-run build/bin/tsc-run [--write-exclusions]
                          [--xunit FILE] [--only TEXT] [--keep DIR]
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import export_models  # noqa: E402
import export_torchscript  # noqa: E402
import minilm  # noqa: E402
import run_models  # noqa: E402
import torchscript_corpus  # noqa: E402
from run_models import DIMS, TOLERANCE, Failure  # noqa: E402
from torchscript_corpus import plan_counts  # noqa: E402

import torch  # noqa: E402

SIZES = ((1, 5), (3, 17))
INPUTS = ["--input", "input_ids=i64[batch,seq]", "--input", "attention_mask=i64[batch,seq]"]
NOT_BUILT = "built without TorchScript"
# The plan's counts that must equal the ONNX export's (views may differ).
PLAN_COUNTS = ("steps", "kernels", "GEMM library calls", "copies")


def compare_plans(ts, onnx):
    """Problems where the TorchScript plan's counts differ from ONNX's."""
    keys = PLAN_COUNTS + ("layers", "kernels per layer")
    problems = []
    missing = [k for k in keys if k not in ts]
    if missing:
        problems.append(f"--report lacks {', '.join(missing)}")
    diffs = [f"{k} {ts[k]} (ONNX {onnx.get(k, '?')})" for k in keys
             if k in ts and ts[k] != onnx.get(k)]
    if diffs:
        problems.append("plan differs from the ONNX export's: " + ", ".join(diffs))
    return problems


def compare(where, out, ref, what):
    """(rel L2, problem or None) of array `out` against `ref`."""
    if out.dtype != ref.dtype or out.shape != ref.shape:
        return None, (f"{where}: {out.dtype}{list(out.shape)}, {what} has "
                      f"{ref.dtype}{list(ref.shape)}")
    err = minilm.rel_l2(out, ref)
    if not err <= TOLERANCE:  # also catches NaN
        return err, f"{where}: rel L2 {err:.1e} against {what} > {TOLERANCE:.0e}"
    return err, None


# Layers of each model, for the fusion check (export_models' models have
# export_models.LAYERS).
LAYERS = {"minilm": 6}


class OnnxReference:
    """The ONNX export of a model (opset 17; MiniLM's opset-14 export as
    run_models checks it), compiled once: its plan counts, and its artifact's
    and ONNX Runtime's outputs per size."""

    def __init__(self, args, name, work):
        work.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "minilm":
                self.path = minilm.export(minilm.minilm()[0], work / "minilm-opset14.onnx")
            else:
                self.path = export_models.export(name, 17, work)
        self.session = minilm.ort_session(self.path)
        self.names = [o.name for o in self.session.get_outputs()]
        self.artifact = work / f"{name}-onnx.tscm"
        self.work, self.tsc_run = work, args.tsc_run
        proc = subprocess.run([args.tsc, str(self.path), "-o", str(self.artifact), "--report"]
                              + DIMS, capture_output=True, text=True, timeout=1200)
        if proc.returncode:
            raise Failure("ONNX export: " + run_models.first_error("tsc", proc))
        self.plan = plan_counts(proc.stdout)
        self.cache = {}

    def ort_outputs(self, inputs):
        """[ONNX Runtime's outputs] in the export's order."""
        return self.session.run(self.names, inputs)

    def artifact_outputs(self, batch, seq, inputs):
        """[the ONNX artifact's outputs] in the export's order (run once per size)."""
        if (batch, seq) not in self.cache:
            try:
                out = run_models.run_artifact(self.tsc_run, self.artifact, inputs,
                                              self.work / f"b{batch}s{seq}")
                self.cache[(batch, seq)] = [out(n) for n in self.names]
            except (Failure, OSError) as e:
                raise Failure(f"ONNX artifact at (batch {batch}, seq {seq}): {e}") from e
        return self.cache[(batch, seq)]


def check_archive(args, name, archive, reference, work):
    """Returns (plan summary, {'torch' | 'onnx': max rel L2}, problems)."""
    work.mkdir(parents=True, exist_ok=True)
    module = torch.jit.load(str(archive))
    worst, problems = {}, []

    # The fixture first: the archive must be the ONNX export's model.
    for batch, seq in SIZES:
        inputs = minilm.make_inputs(batch, seq, export_models.VOCAB)
        outs = export_torchscript.torch_outputs(module, inputs)
        for i, (out, ref) in enumerate(zip(outs, reference.ort_outputs(inputs))):
            _, problem = compare(f"fixture: torch output {i} at (batch {batch}, seq {seq})",
                                 out, ref, "ONNX Runtime on the ONNX export")
            if problem:
                raise Failure(problem)

    artifact = work / f"{archive.stem}.tscm"
    fused, report = run_models.compile_with_report(args.tsc, archive, artifact, INPUTS)
    try:
        per_layer = run_models.check_fusion(LAYERS.get(name, export_models.LAYERS), fused,
                                            report, budget=9 if name.startswith("llama") else 8)
    except Failure as e:  # reported; the numerics are still worth checking
        problems.append(str(e))
        per_layer = "fusion failed"
    summary = f"{run_models.plan_line(report).split(';')[0]}; {per_layer}"
    problems += compare_plans(plan_counts(report), reference.plan)
    for batch, seq in SIZES:
        inputs = minilm.make_inputs(batch, seq, export_models.VOCAB)
        refs = export_torchscript.torch_outputs(module, inputs)
        onnx_outs = reference.artifact_outputs(batch, seq, inputs)
        try:
            output = run_models.run_artifact(args.tsc_run, artifact, inputs,
                                             work / f"b{batch}s{seq}")
        except Failure as e:
            problems.append(f"(batch {batch}, seq {seq}): {e}")
            continue
        for i, (ref, onnx_out) in enumerate(zip(refs, onnx_outs)):
            where = f"output_{i} at (batch {batch}, seq {seq})"
            try:
                out = output(f"output_{i}")
            except OSError:
                problems.append(f"{where}: tsc-run wrote no file")
                continue
            for key, expected, what in (("torch", ref, "torch.jit.load"),
                                        ("onnx", onnx_out, "the ONNX artifact")):
                err, problem = compare(where, out, expected, what)
                if err is not None:
                    worst[key] = max(worst.get(key, 0.0), err)
                if problem:
                    problems.append(problem)
    return summary, worst, problems


def expect_error(tsc, archive, options, must_name, work):
    """None when `tsc ARCHIVE OPTIONS` exits with a positive status and a
    message matching every regex of `must_name`, else the problem."""
    proc = subprocess.run([tsc, str(archive)] + options, capture_output=True, text=True,
                          timeout=300, cwd=work)
    message = proc.stderr.strip()
    if proc.returncode < 0:
        return f"tsc crashed (signal {-proc.returncode}): {message[-300:]!r}"
    if proc.returncode == 0:
        return "tsc exited with status 0"
    missing = [w for w in must_name if not re.search(w, message)]
    if missing:
        return f"message {message[:400]!r} does not match {', '.join(map(repr, missing))}"
    print(f"    {message.splitlines()[0]}")
    return None


def error_cases(args, base, work):
    """{case: problem or None} for the archives that must be rejected."""
    bad = export_torchscript.bad_archives(base, work)
    compile_args = INPUTS + DIMS + ["-o", str(work / "rejected.tscm")]
    cases = {
        "error-truncated": lambda: expect_error(
            args.tsc, bad["truncated"], compile_args,
            [re.escape(bad["truncated"].name),
             r"(?i)central directory|zip archive|truncated|corrupt"], work),
        "error-newer-op": lambda: expect_error(
            args.tsc, bad["newer-op"], compile_args,
            [re.escape(bad["newer-op"].name),
             r"(?<!\w)" + export_torchscript.NEWER_OP], work),
        "error-no-input": lambda: expect_error(
            args.tsc, base, ["-o", str(work / "rejected.tscm")], [r"--input"], work),
    }
    return {case: check for case, check in cases.items() if args.only in case}


def precision_cases(args, archives, work):
    """{case name: check} for half precision from TorchScript: the scripted
    Llama-style archive compiled with --precision=fp16 (the same phase as for
    ONNX), run at the larger size against torch.jit.load's fp32 outputs
    within run_models.PRECISIONS["fp16"]. A check returns None or the
    problem."""
    archive = archives.get(("llama", "scripted"))
    if not archive:
        return {}

    def check():
        artifact = work / "llama-scripted-fp16.tscm"
        proc = subprocess.run([args.tsc, str(archive), "-o", str(artifact), "--precision=fp16"]
                              + INPUTS + DIMS, capture_output=True, text=True, timeout=1200)
        if proc.returncode:
            return "tsc --precision=fp16: " + run_models.first_error("tsc", proc)
        batch, seq = SIZES[-1]
        inputs = minilm.make_inputs(batch, seq, export_models.VOCAB)
        refs = export_torchscript.torch_outputs(torch.jit.load(str(archive)), inputs)
        try:
            output = run_models.run_artifact(args.tsc_run, artifact, inputs,
                                             work / "llama-scripted-fp16")
        except Failure as e:
            return str(e)
        bound = run_models.PRECISIONS["fp16"]
        for i, ref in enumerate(refs):
            err = minilm.rel_l2(output(f"output_{i}"), ref)
            print(f"llama-scripted-fp16: output_{i} rel L2 {err:.1e} against torch (fp32)")
            if not err <= bound:  # NaN too
                return f"output_{i}: rel L2 {err:.1e} > {bound:.1e}"
        return None

    return {"llama-scripted-fp16": check}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc", required=True)
    parser.add_argument("--tsc-run", required=True)
    parser.add_argument("--xunit")
    parser.add_argument("--only", default="", help="only cases whose name contains this")
    parser.add_argument("--keep", help="export and compile into this folder and keep it")
    parser.add_argument("--write-exclusions", action="store_true",
                        help="rewrite torchscript-expected-failures.txt from the corpus "
                        "archives' failures")
    args = parser.parse_args()
    # The error cases run tsc in a scratch folder.
    args.tsc, args.tsc_run = (str(pathlib.Path(p).resolve()) for p in (args.tsc, args.tsc_run))

    suite = ET.Element("testsuite", name="torchscript-run")
    failed = skipped = 0

    def record(case_name, problems, details=""):
        nonlocal failed
        case = ET.SubElement(suite, "testcase", classname="torchscript-run", name=case_name)
        if problems:
            failed += 1
            ET.SubElement(case, "failure", message=problems[0]).text = \
                details or "\n".join(problems)
            print(f"FAIL: {case_name}: {problems[0]}")
        else:
            print(f"ok: {case_name}")

    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(args.keep or tmp)
        out.mkdir(parents=True, exist_ok=True)
        try:
            archives = export_torchscript.export_all(out, args.only)
            base = archives.get(("bert", "traced")) or \
                export_torchscript.save("bert", "traced", out)[0]
        except Exception as e:  # noqa: BLE001 - the export is a test case too
            record("export", [f"export failed: {type(e).__name__}: {e}"])
            archives, base = {}, None
        errors = error_cases(args, base, out) if base else {}
        errors.update(precision_cases(args, archives, out))
        cases = [f"{n}-{f}" for n, f in archives] + list(errors)

        probe = subprocess.run([args.tsc, str(base or "probe.pt"), "--emit=import"] + INPUTS,
                               capture_output=True, text=True, timeout=300)
        built = NOT_BUILT not in probe.stderr
        if not built:
            reason = probe.stderr.strip().splitlines()[0]
            for case_name in cases:
                case = ET.SubElement(suite, "testcase", classname="torchscript-run",
                                     name=case_name)
                ET.SubElement(case, "skipped", message=reason)
                skipped += 1
            print(f"skipped {len(cases)} cases: {reason}")
            cases, archives, errors = [], {}, {}

        references, rows = {}, []
        for (name, flavour), archive in archives.items():
            case_name = f"{name}-{flavour}"
            try:
                if name not in references:
                    try:
                        references[name] = OnnxReference(args, name, out / f"{name}-onnx")
                    except Failure as e:
                        references[name] = e
                if isinstance(references[name], Failure):
                    raise references[name]
                plan, worst, problems = check_archive(args, name, archive, references[name],
                                                      out / case_name)
            except Exception as e:  # noqa: BLE001 - one archive's failure, reported
                message = str(e) if isinstance(e, Failure) else f"{type(e).__name__}: {e}"
                record(case_name, [message])
                rows.append((case_name, "-", "-", "-"))
                continue
            rows.append((case_name, plan, *(f"{worst[k]:.1e}" if k in worst else "-"
                                             for k in ("torch", "onnx"))))
            record(case_name, problems)
        for case_name, check in errors.items():
            problem = check()
            record(case_name, [problem] if problem else [])
        if built:
            _, corpus_failed, corpus_skipped, corpus_suite, corpus_table = \
                torchscript_corpus.run(args, out, args.only, args.write_exclusions)
            suite.extend(list(corpus_suite))
            failed += corpus_failed
            skipped += corpus_skipped
            print("\n" + "\n".join(corpus_table))
        if rows:
            print(f"\n{'archive':<16} {'plan (tsc --report)':<68} "
                  f"{'max rel L2 vs torch':<20} vs ONNX artifact")
            for case_name, plan, torch_err, onnx_err in rows:
                print(f"{case_name:<16} {plan:<68} {torch_err:<20} {onnx_err}")
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failed))
    suite.set("skipped", str(skipped))
    if args.xunit:
        ET.ElementTree(suite).write(args.xunit)
    print(f"torchscript-run: {len(suite)} checks, {len(suite) - failed - skipped} passed, "
          f"{failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
