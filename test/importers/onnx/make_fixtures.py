#!/usr/bin/env python3
"""Writes the binary ONNX fixtures the importer tests need into a folder:
what textual ONNX cannot say (node names, external data, float8 types) and
broken files (truncated, missing side file).

Usage: make_fixtures.py OUT_DIR
"""
import copy
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


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
    f8 = helper.make_tensor_value_info("x", TensorProto.FLOAT8E4M3FN, [4])
    f8_out = helper.make_tensor_value_info("y", TensorProto.FLOAT8E4M3FN, [4])
    onnx.save(model([helper.make_node("Identity", ["x"], ["y"])], [f8], [f8_out],
                    opset=21), out / "float8.onnx")

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
