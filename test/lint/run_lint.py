#!/usr/bin/env python3
"""The house rules a reviewer should not have to check by eye (issue 25):

1. Format: every C/C++ line changed since the commit in tools/lint-base is
   as clang-format-22 (the repository's .clang-format) writes it. Lines
   nobody touched since then are left alone, so history stays readable.
2. Tidy: every C++ file changed since that commit passes clang-tidy-22 with
   the repository's .clang-tidy (a focused set of bug-finding checks; any
   finding is an error). Files not in build/compile_commands.json (headers,
   sources of other builds) are checked through the files that include them.
3. Docs: every pass tsc-opt registers has a row in the pass table of
   docs/dialect.md, and every row names a registered pass.
4. Shape (whole tree, not only changed files): no C/C++ file in compiler/
   is longer than 700 lines (split it along a seam), and no `isa<...>` in
   compiler/, passes/ or dialects/ lists five or more tsc ops (op knowledge
   belongs in the dialect: a trait or an interface).

Each file and each docs rule is one check in the xUnit report.

Usage: run_lint.py --tsc-opt build/bin/tsc-opt [--build build] [--base REV]
                   [--jobs 2] [--xunit FILE]
"""
import argparse
import concurrent.futures
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test"))
from checks_report import Checks  # noqa: E402

LLVM_BIN = pathlib.Path("/usr/lib/llvm-22/bin")
SOURCES = ("*.cpp", "*.h", "*.c")


def git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True,
                          capture_output=True, text=True).stdout


def lint_base():
    """The first commit of tools/lint-base that is not a comment."""
    for line in (ROOT / "tools/lint-base").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line
    raise SystemExit("lint: tools/lint-base names no commit")


def changed_files(base):
    """C/C++ files added or modified since `base`, committed or not."""
    out = git("diff", "--name-only", "--diff-filter=ACMR", base, "--", *SOURCES)
    return [f for f in out.splitlines() if (ROOT / f).is_file()]


def format_problems(base, files):
    """{file: problem} for the files whose lines changed since `base` are
    not as clang-format-22 writes them. One git-clang-format run: it keeps a
    temporary index in .git and cannot run twice at once."""
    if not files:
        return {}
    result = subprocess.run(
        [str(LLVM_BIN / "git-clang-format"),
         "--binary", str(LLVM_BIN / "clang-format"), "--diff", base, "--", *files],
        cwd=ROOT, capture_output=True, text=True)
    if result.returncode not in (0, 1) or result.stderr.strip():
        raise SystemExit(f"lint: git-clang-format failed: {result.stderr.strip()}")
    problems, current = {}, None
    for line in result.stdout.splitlines(keepends=True):
        header = re.match(r"diff --git a/(\S+) b/", line)
        if header:
            current = header.group(1)
            problems[current] = ""
        if current:
            problems[current] += line
    fix = f"git clang-format --binary {LLVM_BIN}/clang-format {base[:12]}"
    return {f: f"changed lines differ from clang-format-22 (fix: {fix}):\n{d}"
            for f, d in problems.items()}


def tidy_problem(build, path):
    result = subprocess.run(
        [str(LLVM_BIN / "clang-tidy"), "-p", str(build), "--quiet",
         str(ROOT / path)], capture_output=True, text=True)
    findings = [l for l in result.stdout.splitlines()
                if re.search(r": (warning|error): ", l)]
    if result.returncode == 0 and not findings:
        return None
    return "\n".join(findings) or result.stderr.strip()[-2000:]


def registered_passes(tsc_opt):
    help_text = subprocess.run([tsc_opt, "--help"], check=True,
                               capture_output=True, text=True).stdout
    return set(re.findall(r"^\s+--(tsc-[\w-]+)\s+-", help_text, re.M))


def documented_passes():
    text = (ROOT / "docs/dialect.md").read_text()
    table = text.split("## Passes", 1)[1]
    return set(re.findall(r"^\| `(tsc-[\w-]+)[^`]*` \|", table, re.M))


MAX_LINES = 700
# Five or more tsc ops (unqualified or tsc::; upstream dialects' ops are
# theirs to classify).
TSC_OP = r"(?:tsc::)?[A-Z]\w*Op"
LONG_ISA = re.compile(rf"\bisa(?:_and_nonnull)?<\s*(?:{TSC_OP}\s*,\s*){{4,}}{TSC_OP}\s*>")


def tracked(*folders):
    out = git("ls-files", "--", *(f"{d}/{p}" for d in folders for p in SOURCES))
    return [f for f in out.splitlines() if (ROOT / f).is_file()]


def shape_problems():
    """{rule: problem} for the file-length and isa<>-list rules."""
    long_files = []
    for f in tracked("compiler"):
        n = len((ROOT / f).read_text(errors="replace").splitlines())
        if n > MAX_LINES:
            long_files.append(f"{f} ({n} lines)")
    lists = []
    for f in tracked("compiler", "passes", "dialects"):
        text = (ROOT / f).read_text(errors="replace")
        for m in LONG_ISA.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            lists.append(f"{f}:{line}: {' '.join(m.group(0).split())}")
    return {
        f"shape: no file in compiler/ over {MAX_LINES} lines":
            long_files and "split along a seam: " + ", ".join(long_files),
        "shape: no isa<> of five or more tsc ops":
            lists and "use a trait or an interface: " + "; ".join(lists),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsc-opt", required=True)
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--base", help="commit to compare with "
                        "(default: tools/lint-base)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--xunit")
    args = parser.parse_args()

    checks = Checks("lint")
    base = args.base or lint_base()
    files = changed_files(base)
    database = pathlib.Path(args.build) / "compile_commands.json"
    compiled = {str(pathlib.Path(e["file"]).resolve())
                for e in json.loads(database.read_text())}
    tidied = [f for f in files if str((ROOT / f).resolve()) in compiled]
    print(f"lint: {len(files)} C/C++ files changed since {base[:12]}, "
          f"{len(tidied)} of them compiled in {args.build}")

    formats = format_problems(base, files)
    for f in files:
        checks.record(f"format: {f}", formats.get(f), quiet=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        tidies = {f: pool.submit(tidy_problem, args.build, f) for f in tidied}
        for f, future in tidies.items():
            checks.record(f"tidy: {f}", future.result(), quiet=True)

    registered, documented = registered_passes(args.tsc_opt), documented_passes()
    missing = sorted(registered - documented)
    checks.record("docs: every registered pass in docs/dialect.md",
                  missing and "no row in the pass table for " + ", ".join(missing))
    stale = sorted(documented - registered)
    checks.record("docs: every pass in docs/dialect.md is registered",
                  stale and "the pass table names unregistered " + ", ".join(stale))
    for rule, problem in shape_problems().items():
        checks.record(rule, problem)
    return checks.finish(args.xunit)


if __name__ == "__main__":
    sys.exit(main())
