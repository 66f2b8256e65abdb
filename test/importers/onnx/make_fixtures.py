#!/usr/bin/env python3
"""Writes the binary ONNX fixtures the importer tests need into a folder:
what textual ONNX cannot say (node names, external data, the ONNX parser
predating the 8- and 2-bit types) and
broken files (truncated, missing side file).

Usage: make_fixtures.py OUT_DIR
"""
import copy
import pathlib
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


FLOAT8 = (("f8e4m3fn", TensorProto.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn),
          ("f8e4m3fnuz", TensorProto.FLOAT8E4M3FNUZ, ml_dtypes.float8_e4m3fnuz),
          ("f8e5m2", TensorProto.FLOAT8E5M2, ml_dtypes.float8_e5m2),
          ("f8e5m2fnuz", TensorProto.FLOAT8E5M2FNUZ, ml_dtypes.float8_e5m2fnuz),
          ("f8e8m0", TensorProto.FLOAT8E8M0, ml_dtypes.float8_e8m0fnu))


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "fixture", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])

    # Named nodes and a weight of 16 known values.
    weight = numpy_helper.from_array(
        np.arange(16, dtype=np.float32).reshape(4, 4) / 8, name="weight")
    named = model([helper.make_node("MatMul", ["x", "weight"], ["h"], name="proj"),
                   helper.make_node("Relu", ["h"], ["y"], name="act")],
                  [x], [y], [weight])
    onnx.save(named, out / "named.onnx")

    # The same model with the weight in a side file, and a copy whose side
    # file is missing.
    external = out / "external"
    external.mkdir(exist_ok=True)
    onnx.save(copy.deepcopy(named), external / "model.onnx", save_as_external_data=True,
              all_tensors_to_one_file=True, location="weights.bin",
              size_threshold=0)
    missing = out / "missing"
    missing.mkdir(exist_ok=True)
    onnx.save(copy.deepcopy(named), missing / "model.onnx", save_as_external_data=True,
              all_tensors_to_one_file=True, location="gone.bin", size_threshold=0)
    (missing / "gone.bin").unlink()

    # Cut in the middle of the weight's data.
    data = (out / "named.onnx").read_bytes()
    (out / "truncated.onnx").write_bytes(data[: len(data) // 2])

    # An input of an element type tsc does not support.
    c64 = helper.make_tensor_value_info("x", TensorProto.COMPLEX64, [4])
    c64_out = helper.make_tensor_value_info("y", TensorProto.COMPLEX64, [4])
    onnx.save(model([helper.make_node("Identity", ["x"], ["y"])], [c64], [c64_out],
                    opset=25), out / "complex64.onnx")

    # A packed type (four 2-bit elements a byte): an input of 5 elements, an
    # initializer in raw bytes (2 of them) and one in int32_data (one packed
    # byte an entry); then one whose int32_data is a byte short.
    u2 = helper.make_tensor_value_info("x", TensorProto.UINT2, [5])
    u2_outs = [helper.make_tensor_value_info(n, TensorProto.UINT2, [5]) for n in "ywv"]
    raw = helper.make_tensor("w", TensorProto.UINT2, [5], b"\xe4\x01", raw=True)
    typed = helper.make_tensor("v", TensorProto.UINT2, [5], [0, 1, 2, 3, 1])
    assert list(typed.int32_data) == [0xE4, 0x01]
    onnx.save(model([helper.make_node("Identity", ["x"], ["y"])], [u2], u2_outs,
                    [raw, typed], opset=25), out / "uint2.onnx")
    del typed.int32_data[1]
    onnx.save(model([helper.make_node("Identity", ["x"], ["y"])], [u2], u2_outs,
                    [raw, typed], opset=25), out / "uint2-short.onnx")

    # The 8-bit floats: an input, an initializer in raw bytes and one in
    # int32_data (ONNX's typed field for them), and Casts.
    for name, onnx_type, dtype in FLOAT8:
        # E8M0 holds powers of two only, with neither sign nor zero.
        values = np.array([1.0, 0.25, 2.0, 8.0] if name == "f8e8m0"
                          else [1.5, -0.25, 0.0, 2.0], dtype=dtype)
        raw = numpy_helper.from_array(values, name="raw")
        typed = onnx.TensorProto(name="typed", data_type=onnx_type, dims=[4])
        typed.int32_data.extend(values.view(np.uint8).tolist())
        x8 = helper.make_tensor_value_info("x", onnx_type, [4])
        y32 = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
        nodes = [helper.make_node("Cast", ["raw"], ["raw_f"], to=TensorProto.FLOAT),
                 helper.make_node("Cast", ["typed"], ["typed_f"], to=TensorProto.FLOAT),
                 helper.make_node("Add", ["raw_f", "typed_f"], ["w"]),
                 helper.make_node("Cast", ["x"], ["x_f"], to=TensorProto.FLOAT),
                 helper.make_node("Add", ["x_f", "w"], ["y"])]
        onnx.save(model(nodes, [x8], [y32], [raw, typed], opset=25),
                  out / f"{name}.onnx")
        # raw_data one byte short of the shape's.
        short = copy.deepcopy(raw)
        short.raw_data = short.raw_data[:-1]
        onnx.save(model([helper.make_node("Cast", ["raw"], ["y"], to=TensorProto.FLOAT)],
                        [], [y32], [short], opset=25), out / f"{name}-short.onnx")

    # What the converters make of the 8-bit floats' attributes: saturate,
    # round_mode, output_dtype, and a precision tsc does not support.
    x32 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    scale = numpy_helper.from_array(np.array(0.5, dtype=np.float32), name="s")
    like = numpy_helper.from_array(np.zeros(1, dtype=ml_dtypes.float8_e5m2), name="like")
    outputs = [helper.make_tensor_value_info("q", TensorProto.FLOAT8E4M3FN, [4]),
               helper.make_tensor_value_info("d", TensorProto.FLOAT, [4]),
               helper.make_tensor_value_info("e", TensorProto.FLOAT8E8M0, [4]),
               helper.make_tensor_value_info("c", TensorProto.FLOAT8E5M2, [4])]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s"], ["q"],
                              output_dtype=TensorProto.FLOAT8E4M3FN, saturate=0),
             helper.make_node("DequantizeLinear", ["q", "s"], ["d"]),
             helper.make_node("Cast", ["x"], ["e"], to=TensorProto.FLOAT8E8M0,
                              round_mode="nearest", saturate=0),
             helper.make_node("CastLike", ["x", "like"], ["c"])]
    onnx.save(model(nodes, [x32], outputs, [scale, like], opset=25), out / "float8-ops.onnx")
    q8 = helper.make_tensor_value_info("q", TensorProto.UINT8, [4])
    onnx.save(model([helper.make_node("QuantizeLinear", ["x", "s"], ["q"], name="quant",
                                      precision=TensorProto.FLOAT16)],
                    [x32], [q8], [scale], opset=25), out / "precision.onnx")

    # Nodes as PyTorch's dynamo exporter names them (no layer in the name),
    # with the module scopes it records in their metadata: two layers of
    # MatMul + Relu.
    nodes, h = [], "x"
    for layer in range(2):
        scopes = ["", "model", f"model.layers.{layer}", f"model.layers.{layer}.mlp"]
        for op, inputs, fx in (("MatMul", [h, "weight"], "linear"), ("Relu", None, "relu")):
            k = len(nodes)
            node = helper.make_node(op, inputs or [f"t{k - 1}"], [f"t{k}"], name=f"node_{fx}_{k}")
            helper.set_metadata_props(node, {
                "pkg.torch.onnx.name_scopes": repr(scopes + [f"{fx}_{k}"])})
            nodes.append(node)
        h = f"t{len(nodes) - 1}"
    nodes[-1].output[0] = "y"
    onnx.save(model(nodes, [x], [y], [weight]), out / "scoped.onnx")


if __name__ == "__main__":
    main()
