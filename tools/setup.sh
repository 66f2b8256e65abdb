#!/usr/bin/env bash
# Sets up and builds tsc on Debian 12: installs the Debian packages the build and
# tests need (idempotent: apt runs only when something is missing), creates the
# Python virtual environments .venv (tools/requirements.lock, with Debian's
# torch 1.13) and .venv-torch (tools/requirements-torch.lock, PyTorch 2), then
# configures and builds build/ with CMake + Ninja, clang, lld and ccache.
#
# Usage: tools/setup.sh [--bench]
#   --bench  also creates .venv-bench (tools/requirements-bench.lock): the
#            benchmark-only peers of tools/bench_cpu.py (OpenVINO, IREE), which the
#            tests do not need; opt-in so that CI does not download them.
#
# Environment: TSC_BUILD_DIR (default build/), TSC_BUILD_TYPE (default Release).
set -euo pipefail

bench=0
for arg in "$@"; do
  case $arg in
    --bench) bench=1 ;;
    *) echo "setup: unknown option $arg (usage: tools/setup.sh [--bench])" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TSC_BUILD_DIR:-$root/build}
build_type=${TSC_BUILD_TYPE:-Release}
llvm=/usr/lib/llvm-22

phase_start=$SECONDS
phase() { # phase NAME: prints the time the previous phase took
  printf 'setup: %-28s %4ds\n' "$1" $((SECONDS - phase_start))
  phase_start=$SECONDS
}

# --- Debian packages ----------------------------------------------------------
# python3-torch (1.13) makes the 1.13 TorchScript archives the tests read; the
# TorchScript importer is built against the libtorch of .venv-torch's wheel.
# graphviz renders tsc --emit=dot in a test.
packages=(
  build-essential cmake ninja-build ccache clang lld-22 python3 python3-venv
  python3-numpy python3-torch libdnnl-dev libomp5-14
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  protobuf-compiler libprotobuf-dev libonnx-dev libgtest-dev
  libminizip-dev libclang-rt-14-dev clang-format-22 clang-tidy-22
  python3-dev pybind11-dev libssl-dev openssl graphviz
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
phase "debian packages"

# --- Python virtual environments --------------------------------------------
# venv_from_lock DIR LOCK [VENV OPTIONS]: creates the environment DIR with
# Debian's python3 (not a pyenv one first on PATH) and installs LOCK into it
# with hashes and without dependencies, again only when LOCK changed.
venv_from_lock() {
  local dir=$1 lock=$2
  shift 2
  if [ ! -x "$dir/bin/python" ]; then
    /usr/bin/python3 -m venv "$@" "$dir"
  fi
  if ! cmp -s "$lock" "$dir/.lock-installed"; then
    "$dir/bin/python" -m pip install -q --disable-pip-version-check \
      --require-hashes --no-deps -r "$lock"
    cp "$lock" "$dir/.lock-installed"
  fi
}

# .venv (tools/requirements.lock): with Debian's python3-* packages.
venv_from_lock "$root/.venv" "$root/tools/requirements.lock" --system-site-packages
phase "python environment"

# The PyTorch 2 environment (.venv-torch, tools/requirements-torch.lock): its
# own interpreter environment without Debian's packages, because it holds
# numpy 2 and PyTorch 2.15 (the corpus of Hugging Face architectures).
# tools/torch-python runs it.
venv_from_lock "$root/.venv-torch" "$root/tools/requirements-torch.lock"
phase "pytorch 2 environment"

# Benchmark peers (--bench): .venv-bench (tools/requirements-bench.lock),
# OpenVINO, IREE and NNCF for tools/bench_cpu.py, which runs each peer in its
# own child process, this one with this environment's python. Its own numpy
# and nothing of Debian's: NNCF initializes a PyTorch backend when it finds
# one, and Debian's PyTorch 1.13 is too old for it. (An environment made with
# Debian's packages, as before 2026-12-06, is made anew.)
if ((bench)); then
  if grep -qs "include-system-site-packages = true" "$root/.venv-bench/pyvenv.cfg"; then
    rm -rf "$root/.venv-bench"
  fi
  venv_from_lock "$root/.venv-bench" "$root/tools/requirements-bench.lock"
  phase "benchmark environment"
fi

# --- Configure and build ------------------------------------------------------
# ccache: paths relative to the checkout, so a clone elsewhere (CI) hits too.
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE="$build_type" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DCMAKE_EXE_LINKER_FLAGS="--ld-path=$llvm/bin/ld.lld" \
    -DCMAKE_SHARED_LINKER_FLAGS="--ld-path=$llvm/bin/ld.lld" \
    -DCMAKE_MODULE_LINKER_FLAGS="--ld-path=$llvm/bin/ld.lld" \
    -DTSC_LLVM_PREFIX="$llvm"
fi
phase "configure"
cmake --build "$build"
phase "build"
