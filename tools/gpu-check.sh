#!/usr/bin/env bash
# The GPU check, on a machine with an NVIDIA GPU, the CUDA driver, CMake, a C++
# compiler and PyTorch, but no MLIR and no network (issue 7). It takes the
# tree and the bundle tools/gpu/bundle.sh made on a machine with the compiler:
#   1. builds runtime/ and tsc-run there as the standalone project;
#   2. runs the runtime's tests (fixtures from make_artifact.py);
#   3. runs every bundled artifact (node tests, models) on the GPU against its
#      expected outputs, and times the BERT-base-shaped encoder against
#      PyTorch eager and torch.compile (tools/gpu/check.py), printing one table.
#
# Usage: tools/gpu-check.sh [BUNDLE.tar.gz]   (default: gpu-bundle.tar.gz)
# Writes the table as Markdown to $OUT/gpu-check.md when OUT is set.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle=$(realpath "${1:-$root/gpu-bundle.tar.gz}")
work=${TSC_GPU_WORK:-$(mktemp -d)}
mkdir -p "$work"
python=${PYTHON:-python3}
start=$SECONDS

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root/runtime" -B "$work/build" ${generator[@]+"${generator[@]}"} -DCMAKE_BUILD_TYPE=Release \
  >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; exit 1; }
cmake --build "$work/build" -j "$(nproc)" >"$work/build.log" 2>&1 \
  || { tail -50 "$work/build.log"; exit 1; }
echo "gpu-check: runtime built in $((SECONDS - start)) s"
devices=$("$work/build/tsc-run" --list-devices 2>&1) || {
  echo "$devices"
  echo "gpu-check: tsc-run --list-devices failed"
  exit 1
}
echo "$devices"

mkdir -p "$work/fixtures" "$work/bundle"
cc -shared -fPIC -O1 "$root/test/runtime/Inputs/scale_kernel.c" -o "$work/fixtures/scale.so"
cc -shared -fPIC -O1 -DTSC_SCALE_BY_THREE "$root/test/runtime/Inputs/scale_kernel.c" \
  -o "$work/fixtures/scale3.so"
"$python" "$root/test/runtime/make_artifact.py" "$work/fixtures" --host-object "$work/fixtures/scale.so" \
  --second-host-object "$work/fixtures/scale3.so"
status=0
"$work/build/tsc-runtime-tests" "$work/fixtures" >"$work/runtime-tests.log" || status=1
echo "gpu-check: runtime tests: $(grep -c '^PASS' "$work/runtime-tests.log") passed," \
  "$(grep -c '^FAIL' "$work/runtime-tests.log") failed"
grep -B3 '^FAIL' "$work/runtime-tests.log" || true

if grep -q '^cuda: unavailable' <<<"$devices"; then
  echo "gpu-check: no usable GPU here (above): the artifacts and benchmarks did not run"
  exit 1
fi

tar -xzf "$bundle" -C "$work/bundle"
markdown=()
[[ -n "${OUT:-}" ]] && markdown=(--markdown "$OUT/gpu-check.md")
"$python" "$root/tools/gpu/check.py" --bundle "$work/bundle" --tsc-run "$work/build/tsc-run" \
  --runtime-lib "$work/build/libtsc_runtime.so" \
  ${markdown[@]+"${markdown[@]}"} || status=1
echo "gpu-check: $((SECONDS - start)) s in all"
exit $status
