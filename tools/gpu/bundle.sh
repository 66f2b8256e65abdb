#!/usr/bin/env bash
# Builds what the GPU check (tools/gpu-check.sh) runs on a machine with a GPU
# but no MLIR: CUDA artifacts (sm_80, sm_90) of every runnable ONNX node test
# and of the BERT-, GPT-2- and Llama-style models, with inputs and
# expected outputs, the BERT-base-shaped benchmark encoder
# (tools/gpu/bert_base.py) and the kernel benchmarks (tools/gpu/kernels.py).
# Needs tools/setup.sh's build and a CUDA toolkit.
#
# Usage: tools/gpu/bundle.sh [OUT.tar.gz]   (default: gpu-bundle.tar.gz, which
#        .gitignore lists; carry it to the GPU machine with the tree)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(realpath -m "${1:-$root/gpu-bundle.tar.gz}")
python="$root/.venv/bin/python"
tsc="$root/build/bin/tsc"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" "$root/test/onnx-node/run_node_tests.py" --ptx --tsc "$tsc" --bundle "$work"
"$python" "$root/test/models/run_models.py" --filter opset17 --tsc "$tsc" \
  --tsc-run "$root/build/bin/tsc-run" --bundle "$work" >/dev/null
"$python" "$root/tools/gpu/bert_base.py" "$work/bench" "$tsc"
"$python" "$root/tools/gpu/kernels.py" "$work/bench" "$tsc"
tar -czf "$out" -C "$work" .
echo "gpu bundle: $out ($(du -h "$out" | cut -f1); $(ls "$work/node" | wc -l) node tests," \
  "$(ls "$work/models" | wc -l) models, the BERT-base-shaped encoder, kernel benchmarks)"
