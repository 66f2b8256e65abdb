#!/usr/bin/env bash
# Sets up and builds tsc on Debian 12: installs the Debian packages the build and
# tests need (idempotent: apt runs only when something is missing), creates the
# Python virtual environments .venv (tools/requirements.lock, with Debian's
# torch 1.13) and .venv-torch (tools/requirements-torch.lock, PyTorch 2), then
# configures and builds build/ with CMake + Ninja, clang, lld and ccache.
#
# Environment: TSC_BUILD_DIR (default build/), TSC_BUILD_TYPE (default Release).
set -euo pipefail

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
packages=(
  build-essential cmake ninja-build ccache clang lld-22 python3 python3-venv
  python3-numpy python3-torch libdnnl-dev libomp5-14
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  protobuf-compiler libprotobuf-dev libonnx-dev libgtest-dev libtorch-dev
  libminizip-dev libclang-rt-14-dev
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

# --- Python virtual environment -----------------------------------------------
# Debian's python3 (not a pyenv one first on PATH) so that Debian's python3-*
# packages stay usable from the environment.
lock=$root/tools/requirements.lock
stamp=$root/.venv/.lock-installed
if [ ! -x "$root/.venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$root/.venv"
fi
if ! cmp -s "$lock" "$stamp"; then
  "$root/.venv/bin/python" -m pip install -q --disable-pip-version-check \
    --require-hashes --no-deps -r "$lock"
  cp "$lock" "$stamp"
fi
phase "python environment"

# The PyTorch 2 environment (.venv-torch, tools/requirements-torch.lock): its
# own interpreter environment without Debian's packages, because it holds
# numpy 2 and PyTorch 2.15 (the corpus of Hugging Face architectures).
# tools/torch-python runs it.
torch_lock=$root/tools/requirements-torch.lock
torch_stamp=$root/.venv-torch/.lock-installed
if [ ! -x "$root/.venv-torch/bin/python" ]; then
  /usr/bin/python3 -m venv "$root/.venv-torch"
fi
if ! cmp -s "$torch_lock" "$torch_stamp"; then
  "$root/.venv-torch/bin/python" -m pip install -q --disable-pip-version-check \
    --require-hashes --no-deps -r "$torch_lock"
  cp "$torch_lock" "$torch_stamp"
fi
phase "pytorch 2 environment"

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
