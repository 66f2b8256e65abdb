"""What the model suites share: running tsc and tsc-run on a model and
checking its fusion and outputs. Needs numpy only, so that suites in the
PyTorch 1.13 and 2.x environments both use it."""
import re
import subprocess

import numpy as np

DIMS = ["--dim", "batch=1..4", "--dim", "seq=1..64"]


class Failure(Exception):
    """A model's check failed; the message says why."""


def first_error(tool, proc):
    if proc.returncode < 0:
        return f"{tool} crashed (signal {-proc.returncode})"
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    line = next((l for l in lines if "error:" in l), lines[0] if lines else "")
    line = re.sub(r"^.*?error:\s*", "", line).strip()
    return f"{tool}: {line or f'exit status {proc.returncode} without a message'}"


def sanitize(name):
    """tsc-run's file name for an output."""
    out = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    return "_" + out if out in ("", ".", "..") else out


def check_fusion(layers, fused, report, budget=8, norms=None):
    """The fuse phase's promise for a transformer (issue 6): every attention
    block one tsc.attention with its head transposes (rank 4 and up)
    absorbed, every norm (`norms` of them, default 2 per layer and one more)
    and GELU one op, and at most `budget` kernels + library calls per layer
    in the plan (8; 9 for a gated MLP, whose rotary embedding and gate add
    work)."""
    ops = re.findall(r"= tsc\.(\w+)", fused)
    count = lambda op: ops.count(op)
    # Head transposes move dims of tensors that keep heads apart ([B, S, H,
    # D] and [B, H, S, D], rank 4, or 5 with a fused QKV or grouped-query
    # split): attention absorbs them. A transpose of rank 3 or less (a
    # convolution's channels-first output for the next convolution, a
    # relative position bias gathered as [S, S, H] and read as [H, S, S])
    # is layout work outside attention: the plan counts it as a kernel in
    # the budget below, but it is not an unfused attention transpose.
    transposes = re.findall(r"= tsc\.transpose .*?: \(tensor<([^>]*)>\)", fused)
    head_transposes = sum(1 for t in transposes if t.count("x") >= 4)
    norms = 2 * layers + 1 if norms is None else norms
    problems = []
    if count("attention") != layers:
        problems.append(f"{count('attention')} tsc.attention for {layers} layers")
    found = count("layer_norm") + count("rms_norm")
    if found != norms:
        problems.append(f"{found} norm ops, expected {norms}")
    # (A square root may remain: MiniLM's sentence embedding is L2-normalized.)
    leftovers = {op: count(op) for op in ("softmax", "erf", "tanh", "sigmoid") if count(op)}
    if head_transposes:
        leftovers["transpose"] = head_transposes
    if leftovers:
        problems.append(f"unfused ops left: {leftovers}")
    m = re.search(r"^layers: (\d+), at most (\d+) kernels", report, re.M)
    if not m:
        problems.append("no 'layers:' line in tsc --report")
    elif int(m.group(1)) != layers or int(m.group(2)) > budget:
        problems.append(f"plan: {m.group(1)} layers with at most {m.group(2)} kernels + "
                        f"library calls each; expected {layers} with at most {budget}")
    if problems:
        raise Failure("fusion: " + "; ".join(problems))
    return f"{int(m.group(2))} per layer"


def compile_with_report(tsc, path, artifact, options=(), symbols=("batch", "seq"),
                        dims=DIMS):
    """Compiles `path` to `artifact` with `dims` after checking that its
    symbols are `symbols`; returns the output of --emit=fuse and of --report.
    `options` go on every tsc command line (a TorchScript archive's --input)."""
    options = list(options)
    graph = subprocess.run([tsc, str(path), "--emit=graph"] + options, capture_output=True,
                           text=True)
    if graph.returncode:
        raise Failure(first_error("tsc --emit=graph", graph))
    found = sorted(set(re.findall(r'tsc\.symbol "(\w+)"', graph.stdout)))
    if found != sorted(symbols):
        raise Failure(f"symbols are {found}, expected {' and '.join(symbols)}")
    fused = subprocess.run([tsc, str(path), "--emit=fuse"] + options, capture_output=True,
                           text=True)
    if fused.returncode:
        raise Failure(first_error("tsc --emit=fuse", fused))
    proc = subprocess.run([tsc, str(path), "-o", str(artifact), "--report"] + list(dims) + options,
                          capture_output=True, text=True, timeout=1200)
    if proc.returncode:
        missing = sorted(set(re.findall(r"no host lowering for '([\w.]+)'", proc.stderr)))
        if len(missing) > 1:
            raise Failure(f"tsc: no host lowering for {', '.join(missing)}")
        raise Failure(first_error("tsc", proc))
    return fused.stdout, proc.stdout


def plan_line(report):
    """The `plan:` line of tsc --report, without its label."""
    plan = next((l for l in report.splitlines() if l.startswith("plan:")), "")
    return plan[len("plan:"):].strip() or "(no plan line in --report)"


def run_artifact(tsc_run, artifact, inputs, work):
    """{output name: array} from one tsc-run of `artifact` on `inputs`."""
    args = [tsc_run, str(artifact), "--output-dir", str(work / "out")]
    work.mkdir(parents=True, exist_ok=True)
    for name, array in inputs.items():
        np.save(work / f"{name}.npy", array)
        args += ["--input", f"{name}={work / f'{name}.npy'}"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if proc.returncode:
        raise Failure(first_error("tsc-run", proc))
    return lambda name: np.load(work / "out" / f"{sanitize(name)}.npy")


def rel_l2(out, ref):
    """|out - ref|_2 / |ref|_2 in float64 (docs/design.md, Numerics); the largest
    |out| when the reference is zero."""
    o, r = np.asarray(out, np.float64), np.asarray(ref, np.float64)
    norm = np.linalg.norm(r)
    if norm == 0:
        return float(np.abs(o).max(initial=0.0))
    return float(np.linalg.norm(o - r) / norm)
