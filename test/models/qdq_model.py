#!/usr/bin/env python3
"""Quantizes an ONNX model with ONNX Runtime's `quantize_static` (QDQ format),
or with `--dynamic` its `quantize_dynamic` (QOperator form).

Calibrates on COUNT samples of calibration_set.py's inputs (seeded token ids
with padding, (batch, seq) = (1, 64)) through ONNX Runtime's own calibration
(min-max, its default), and writes the QDQ model to OUT. ACTIVATIONS picks
the activation type: `u8` (QUInt8, ONNX Runtime's default, asymmetric with a
zero point) or `s8` (QInt8, its choice for x86-64 with VNNI, also with a zero
point); weights are s8 per output channel (`per_channel=True`, which ONNX
Runtime recommends for transformers) or per tensor with `--per-tensor`.

Runs under tools/torch-python: .venv's onnxruntime.quantization needs the
`packaging` module, which .venv-torch has (tools/requirements-torch.lock).

With `--dynamic`: `quantize_dynamic(MODEL, OUT, weight_type=QInt8)`, ONNX
Runtime's defaults otherwise (weights s8 per tensor; activations u8 per
tensor with a zero point computed at run time by DynamicQuantizeLinear,
multiplied by MatMulInteger); no calibration.

Usage: qdq_model.py MODEL OUT --vocab V [--activations u8|s8] [--count 8]
                    [--per-tensor] [--dynamic]
"""
import argparse
import pathlib
import sys

import onnxruntime
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_dynamic, quantize_static)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import calibration_set  # noqa: E402
import minilm  # noqa: E402


class Samples(CalibrationDataReader):
    """calibration_set.py's samples of the inputs the model takes."""

    def __init__(self, names, count, vocab):
        self.samples = iter([
            {k: v for k, v in minilm.make_inputs(1, 64, vocab, seed=calibration_set.SEED + i)
             .items() if k in names} for i in range(count)])

    def get_next(self):
        return next(self.samples, None)


def quantize(model, out, vocab, activations="u8", count=8, per_channel=True,
             quant_format=QuantFormat.QDQ):
    names = [i.name for i in onnxruntime.InferenceSession(
        str(model), providers=["CPUExecutionProvider"]).get_inputs()]
    quantize_static(str(model), str(out), Samples(names, count, vocab),
                    quant_format=quant_format,
                    activation_type=QuantType.QUInt8 if activations == "u8"
                    else QuantType.QInt8,
                    weight_type=QuantType.QInt8, per_channel=per_channel)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("--vocab", type=int, required=True)
    parser.add_argument("--activations", choices=("u8", "s8"), default="u8")
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--per-tensor", action="store_true")
    parser.add_argument("--dynamic", action="store_true")
    parser.add_argument("--qoperator", action="store_true",
                        help="quantize_static's QOperator form (QLinearMatMul, QLinearAdd, ...)")
    args = parser.parse_args()
    if args.dynamic:
        quantize_dynamic(args.model, args.out, weight_type=QuantType.QInt8)
        return
    quantize(args.model, args.out, args.vocab, args.activations, args.count,
             not args.per_tensor,
             QuantFormat.QOperator if args.qoperator else QuantFormat.QDQ)


if __name__ == "__main__":
    main()
