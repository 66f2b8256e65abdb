"""CUDA artifacts of the quantize modes (docs/quantization-cuda.md, "CUDA"):
dynamic_int8.py's FFN block compiled with --target=cuda:sm_80,cuda:sm_90 in
each mode (dynamic and static int8 also smoothed; fp8 for sm_89 and sm_90, the chips with
fp8 tensor cores), and range_int8.py's block in ONNX Runtime's quantize_dynamic
form as it is, every artifact checked by ptx_check.check (ptxas's SASS and the
PTX per chip, each launch's arguments against its kernel's parameters, the
int8 GEMMs' form, and the runtime's loader through tsc-run --info); then
the steps of each, one line a step, for FileCheck.

Usage: quantized_cuda.py OUT_DIR TSC
"""

import pathlib
import sys

import numpy as np
import onnx

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "runtime"))
import ptx_check  # noqa: E402
import range_int8  # noqa: E402
from dynamic_int8 import build_model  # noqa: E402
from static_int8 import make_feeds  # noqa: E402

MODES = {
    "dynamic-int8": ["--quantize=dynamic-int8"],
    "dynamic-int8-smoothed": ["--quantize=dynamic-int8", "--calibration", "{calibration}",
                              "--smoothing=0.5"],
    "static-int8": ["--quantize=static-int8", "--calibration", "{calibration}",
                    "--smoothing=off"],
    "static-int8-smoothed": ["--quantize=static-int8", "--calibration", "{calibration}",
                             "--smoothing=0.5"],
    "weight-int8": ["--quantize=weight-int8"],
    "weight-int4": ["--quantize=weight-int4:group=32:zero-points"],
    "fp8": ["--quantize=fp8"],
    "fp8-static": ["--quantize=fp8", "--calibration", "{calibration}"],
}
CHIPS = {"fp8": ("sm_89", "sm_90"), "fp8-static": ("sm_89", "sm_90")}


def main():
    out, tsc = pathlib.Path(sys.argv[1]), sys.argv[2]
    out.mkdir(parents=True, exist_ok=True)
    model, _ = build_model(np.random.default_rng(22))
    onnx.save(model, out / "model.onnx")
    calibration = out / "calibration"
    for i in range(2):
        (calibration / f"{i}").mkdir(parents=True, exist_ok=True)
        for key, value in make_feeds(np.random.default_rng(100 + i)).items():
            np.save(calibration / f"{i}" / f"{key}.npy", value)
    failed = 0
    for mode, flags in MODES.items():
        flags = [f.format(calibration=calibration) for f in flags]
        summary, problem = ptx_check.check(tsc, out / "model.onnx", out / mode,
                                           [*flags, "--dim", "batch=1..4", "--dim", "seq=1..64"],
                                           CHIPS.get(mode, ptx_check.CHIPS))
        print(f"{mode}: {problem and 'FAIL ' + problem or summary}")
        failed += bool(problem)
        if not problem:
            ptx_check.dump(out / mode / "model.tscm", steps_only=True)
    # ONNX Runtime's quantize_dynamic form (range_int8.py's block): each
    # product re-quantized to s8 by the run's zero point for cuBLASLt.
    onnx.save(range_int8.build_model(np.random.default_rng(23)), out / "range.onnx")
    summary, problem = ptx_check.check(tsc, out / "range.onnx", out / "range", [])
    print(f"ort-dynamic: {problem and 'FAIL ' + problem or summary}")
    failed += bool(problem)
    if not problem:
        ptx_check.dump(out / "range" / "model.tscm", steps_only=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
