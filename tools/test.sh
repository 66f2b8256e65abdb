#!/usr/bin/env bash
# Runs every tsc test suite against build/ (brought up to date first), prints
# each suite's time and counts, and ends with one line
#   N passed, N failed, N skipped
# summing all suites. Exits non-zero if any test failed or a suite broke.
#
# Environment: TSC_BUILD_DIR (default build/). Extra arguments go to lit,
# e.g. tools/test.sh --filter canonicalize.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TSC_BUILD_DIR:-$root/build}
lit=/usr/lib/llvm-22/bin/lit

if [ ! -f "$build/build.ninja" ]; then
  echo "test: $build is not configured; run tools/setup.sh first" >&2
  exit 1
fi
CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1 cmake --build "$build" || exit 1

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

# name | lit suite directory
suites=(
  "regression|$build/test"
  "unit|$build/test/unit"
)

status=0
# suite NAME COMMAND...: runs one suite with its xUnit report, prints its
# time; a failure fails the run.
suite() {
  local name=$1 start=$SECONDS
  shift
  "$@" --xunit "$results/$name.xml" || status=1
  echo "test: suite '$name' took $((SECONDS - start))s"
}

for entry in "${suites[@]}"; do
  name=${entry%%|*}
  dir=${entry#*|}
  start=$SECONDS
  "$lit" -sv --xunit-xml-output "$results/$name.xml" "$@" "$dir" || status=1
  echo "test: suite '$name' took $((SECONDS - start))s"
done

# House rules on what changed since tools/lint-base: clang-format-22 on the
# changed lines, clang-tidy-22 (.clang-tidy) on the changed files, and the
# pass table in docs/dialect.md against the registered passes.
suite lint "$root/.venv/bin/python" "$root/test/lint/run_lint.py" \
  --tsc-opt "$build/bin/tsc-opt" --build "$build"

# Import conformance over the ONNX backend node tests (pinned onnx package).
suite onnx-node "$root/.venv/bin/python" "$root/test/onnx-node/run_node_tests.py" \
  --tsc "$build/bin/tsc"
# docs/onnx-ops.md is generated from the node tests' manifests; stale fails.
"$root/.venv/bin/python" "$root/test/onnx-node/op_table.py" --check || status=1

# ONNX Runtime's contrib ops (com.microsoft), each in small models, against
# ONNX Runtime's own outputs.
suite onnx-contrib "$root/.venv/bin/python" "$root/test/onnx-contrib/run_contrib_tests.py" \
  --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"

# BERT-, GPT-2- and Llama-style exports (torch.onnx) through the graph phase.
suite onnx-models "$root/.venv/bin/python" "$root/test/models/check_models.py" \
  --tsc "$build/bin/tsc"

# End to end on the host CPU: every node test that imports, compiled to an
# artifact and run by tsc-run against its expected outputs.
suite onnx-node-run "$root/.venv/bin/python" "$root/test/onnx-node/run_node_tests.py" --run \
  --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"

# The same cases with the CUDA target's loop mapping (tiles, guards,
# one-iteration launches) compiled for the host: its numerics without a GPU.
# A fixed half (the CRC-32 of the name even; the others reported skipped), to
# keep CI within 30 minutes; all of them: the same command without --half
# (docs/testing.md).
suite onnx-node-run-gpu-mapping "$root/.venv/bin/python" "$root/test/onnx-node/run_node_tests.py" --run --gpu-loop-mapping \
  --half --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"

# CUDA device code of every node test that runs on the host, each kernel
# module assembled by ptxas; skipped without a CUDA toolkit. Each case for one
# chip, sm_80 or sm_90 by its name's CRC-32 (a fixed half each, to keep CI
# within 30 minutes); both chips for every case: the same command without
# --split-chips (docs/testing.md).
suite onnx-node-ptx "$root/.venv/bin/python" "$root/test/onnx-node/run_node_tests.py" --ptx \
  --split-chips --tsc "$build/bin/tsc"

# The same cases' CUDA artifacts run on the GPU against their expected
# outputs; skipped, and counted as skipped, where tsc-run finds no GPU.
suite onnx-node-gpu "$root/.venv/bin/python" "$root/test/onnx-node/run_node_tests.py" --gpu \
  --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"

# The exported models and all-MiniLM-L6-v2 against ONNX Runtime (and their
# CUDA device code through ptxas, and on the GPU where there is one), then
# tsc-run's errors on bad inputs and damaged artifacts.
suite models-run "$root/.venv/bin/python" "$root/test/models/run_models.py" \
  --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"
# The BERT/GPT-2/Llama-style exports and all-MiniLM-L6-v2 pruned by each
# --prune spec against ONNX Runtime on the original weights masked as the
# report says (docs/pruning.md).
suite prune "$root/.venv/bin/python" "$root/test/models/run_prune.py" \
  --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"
# The same three model styles as TorchScript archives (traced and scripted)
# against PyTorch and against their ONNX exports, and the corpus
# architectures traced by PyTorch 2 (cached in ~/.cache/tsc/torchscript-corpus)
# against torch eager; skipped, and counted as skipped, when tsc was built
# without libtorch.
suite torchscript-run "$root/.venv/bin/python" "$root/test/models/run_torchscript.py" \
  --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"
# Hugging Face architectures exported by PyTorch 2 (dynamo, TorchScript-based,
# ONNX Runtime's optimizer) against torch eager, with their fusion; exports
# are cached in ~/.cache/tsc/corpus.
suite corpus "$root/tools/torch-python" "$root/test/models/run_corpus.py" \
  --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"
# The BERT-, GPT-2- and Llama-style corpus models exported by torch.export
# with dynamic batch and sequence, compiled from their .pt2 archives (no
# --input) and run at two shapes against torch eager.
suite torch-export "$root/tools/torch-python" "$root/test/models/run_torch_export.py" \
  --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"
# The Python package (build/python/tsc): load and run with numpy and torch,
# errors as exceptions, tsc.compile of BERT- and Llama-style modules against
# torch eager.
suite python "$root/tools/torch-python" "$root/test/python/run_tests.py" --build "$build"
suite runtime-errors "$root/.venv/bin/python" "$root/test/models/run_errors.py" \
  --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"

# Hostile models, options and files (issue 24): each case its error, and a
# fixed-seed mutation smoke run of 240 mutants (no signal, no hang, no
# artifact the runtime crashes on). Longer runs: --mutants N --seed S.
suite reliability "$root/.venv/bin/python" "$root/test/reliability/run_reliability.py" \
  --tsc "$build/bin/tsc" --tsc-run "$build/bin/tsc-run"

# The runtime under ASan + UBSan (its own tree, build-sanitize/, from
# runtime/): libFuzzer on the artifact loader and the .npy reader, and the
# main build's fuzzers of the ONNX and .pt2 importers (30 s each; longer runs
# in docs/testing.md), the runtime's unit tests, tsc-run's error
# suite and a fixed sample of node tests run by the sanitized tsc-run.
suite sanitized "$root/.venv/bin/python" "$root/test/reliability/run_sanitized.py" \
  --tsc "$build/bin/tsc" --seconds 60 --node-filter test_reduce

# Count test cases from the xUnit reports (stdlib only).
/usr/bin/python3 - "$results" <<'PY' || status=1
import pathlib, sys, xml.etree.ElementTree as ET

passed = failed = skipped = 0
for report in sorted(pathlib.Path(sys.argv[1]).glob("*.xml")):
    p = f = s = 0
    for case in ET.parse(report).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            f += 1
        elif case.find("skipped") is not None:
            s += 1
        else:
            p += 1
    print(f"test: suite '{report.stem}': {p} passed, {f} failed, {s} skipped")
    passed, failed, skipped = passed + p, failed + f, skipped + s
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed + failed == 0 else 0)
PY
exit $status
