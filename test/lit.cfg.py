# lit configuration of tsc's regression tests: .mlir files run through
# tsc-opt / tsc and checked with FileCheck.
import os
import platform

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "tsc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtxt", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tsc_obj_root, "test")
# unit/ is its own suite (GoogleTest); examples are inputs, not tests.
config.excludes = ["unit", "Inputs", "examples", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%tsc_src_root", config.tsc_src_root))
config.substitutions.append(("%tsc_obj_root", config.tsc_obj_root))
# The project's Python environment (tools/setup.sh), for fixture scripts.
config.substitutions.append(("%python", config.tsc_python))
# PyTorch 2 (tools/torch-python over the .venv-torch environment setup.sh
# makes), for fixtures written by torch.export.
if os.path.exists(os.path.join(config.tsc_src_root, ".venv-torch", "bin", "python")):
    config.available_features.add("torch2")
    config.substitutions.append(
        ("%torch_python", os.path.join(config.tsc_src_root, "tools", "torch-python")))
# tsc reads TorchScript archives only when built with libtorch.
if config.tsc_torchscript:
    config.available_features.add("torchscript")
# tsc assembles CUDA device code with ptxas when a CUDA toolkit is there.
for _root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_ROOT"), "/usr/local/cuda"):
    if _root and os.access(os.path.join(_root, "bin", "ptxas"), os.X_OK):
        config.available_features.add("ptxas")
        break
# The toolkit's headers, to check the runtime's own declarations of the CUDA
# C ABI against (%cuda_include).
for _root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
    if _root and os.path.exists(os.path.join(_root, "include", "cublasLt.h")):
        config.available_features.add("cuda-headers")
        config.substitutions.append(("%cuda_include", os.path.join(_root, "include")))
        break
# A CUDA driver this process can load (a GPU machine's); tests of what
# happens without one say UNSUPPORTED: cuda-driver.
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
# The runtime's per-ISA clones (test/runtime/vector-clones.test) exist on
# x86-64 hosts only.
if platform.machine() == "x86_64":
    config.available_features.add("x86_64")
# AMX (tiles, bf16 products) and AVX-512 on this CPU: artifacts compiled
# with --cpu=x86-64-v4+amx run here.
try:
    with open("/proc/cpuinfo") as _cpuinfo:
        _flags = next((l.split(":", 1)[1].split() for l in _cpuinfo
                       if l.startswith("flags")), [])
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl", "amx_tile",
            "amx_bf16"} <= set(_flags):
        config.available_features.add("amx")
    # AVX-512 as oneDNN's avx512_core needs it: its brgemm kernels (blocked
    # weights) instead of AVX2's gemm:jit.
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= set(_flags):
        config.available_features.add("avx512")
    # AVX512_BF16 (vdpbf16ps): artifacts for --cpu=x86-64-v4+bf16 run here.
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_bf16"} <= set(_flags):
        config.available_features.add("avx512bf16")
except OSError:
    pass
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    [ToolSubst("tsc-opt", unresolved="fatal"), ToolSubst("tsc", unresolved="fatal"),
     ToolSubst("tsc-run", unresolved="fatal"),
     ToolSubst("tsc-runtime-tests", unresolved="fatal")],
    [config.tsc_tools_dir])
