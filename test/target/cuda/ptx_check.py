"""CUDA device code of a model, checked by ptxas: shared by the node-test
and model suites.

check(tsc, model, out_dir, extra) runs
    tsc MODEL --target=cuda:sm_80,cuda:sm_90 --emit=ptx -o OUT_DIR [EXTRA...]
and requires, for each chip, tsc's line `<chip>: N kernel modules, ... (ptxas
accepted all)` and N .ptx and N .cubin files in OUT_DIR/<chip>/. tsc runs
ptxas itself (CUDA toolkit: $CUDA_HOME, /usr/local/cuda or PATH); without
one, callers report their cases as skipped.
"""
import os
import pathlib
import re
import shutil
import subprocess

CHIPS = ("sm_80", "sm_90")


def find_ptxas():
    """ptxas where tsc looks for it, or None."""
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_ROOT"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "ptxas"), os.X_OK):
            return os.path.join(root, "bin", "ptxas")
    return shutil.which("ptxas")


def first_error(stderr):
    lines = [l for l in stderr.splitlines() if "error" in l]
    return (lines or stderr.splitlines() or ["(no message)"])[0]


def check(tsc, model, out_dir, extra=()):
    """(summary, problem): summary like 'sm_80 22, sm_90 22 modules' when
    ptxas accepted every module for both chips, else problem says why."""
    targets = ",".join(f"cuda:{chip}" for chip in CHIPS)
    cmd = [str(tsc), str(model), f"--target={targets}", "--emit=ptx", "-o", str(out_dir),
           *extra]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired as e:
        return None, f"tsc timed out after {e.timeout} s"
    if proc.returncode:
        return None, f"tsc --emit=ptx: {first_error(proc.stderr)}"
    counts = []
    for chip in CHIPS:
        line = re.search(rf"^{chip}: (\d+) kernel modules.*$", proc.stdout, re.M)
        if not line or "ptxas accepted all" not in line.group(0):
            return None, f"{chip}: tsc printed no 'ptxas accepted all' line"
        n = int(line.group(1))
        folder = pathlib.Path(out_dir) / chip
        ptx, sass = len(list(folder.glob("*.ptx"))), len(list(folder.glob("*.cubin")))
        if ptx != n or sass != n:
            return None, f"{chip}: {n} modules reported, {ptx} .ptx and {sass} .cubin written"
        counts.append(f"{chip} {n}")
    return ", ".join(counts) + " modules", None
