#!/usr/bin/env python3
"""Writes the external-data fixtures of external-data.test into a folder.

- blob.onnx: y = x @ weight + bias with weight [32, 8] (large enough to be a
  blob, not a literal) inside the model; blob/model.onnx the same model with
  both initializers in blob/weights.bin at unaligned offsets (3 and 1027, as
  a writer that packs tensors leaves them); x.npy and y.npy, an input and the
  output numpy computes for it.
- Side files that lie, each a copy of blob/ with one entry changed: an
  offset past the end of the file (outside/), a length other than the
  tensor's (length/), an offset that is not a number (offset-text/), a
  location outside the model's folder (escape/: ../blob/weights.bin, which
  exists) or absolute (absolute/), and a side file cut short in the bias
  (short/).
- llama/llama.onnx: test/models/llama_fp16.py's TINY decoder, fp16 weights in
  llama/llama.onnx.data; llama-embedded.onnx the same model with its weights
  inside; ids.npy and mask.npy, inputs of [2, 7] with a padded row, and
  logits.npy, ONNX Runtime's output for them.

Usage: make_external_fixtures.py OUT_DIR
"""
import pathlib
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "models"))
import llama_fp16  # noqa: E402


def external(array, name, location, offset):
    """A TensorProto of `array` whose data is at `offset` in `location`."""
    tensor = TensorProto(name=name, data_type=helper.np_dtype_to_tensor_dtype(array.dtype),
                         dims=array.shape, data_location=TensorProto.EXTERNAL)
    for key, value in (("location", location), ("offset", offset),
                       ("length", array.nbytes)):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, str(value)
    return tensor


def blob_model(initializers):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 32])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])
    nodes = [helper.make_node("MatMul", ["x", "weight"], ["h"], name="proj"),
             helper.make_node("Add", ["h", "bias"], ["y"], name="bias_add")]
    graph = helper.make_graph(nodes, "fixture", [x], [y], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def with_entry(model, tensor, key, value):
    """A copy of `model` with `key` of `tensor`'s external data set to `value`."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    for init in model.graph.initializer:
        if init.name == tensor:
            for entry in init.external_data:
                if entry.key == key:
                    entry.value = value
    return model


def blob_fixtures(out):
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((32, 8)).astype(np.float32)
    bias = rng.standard_normal(8).astype(np.float32)
    x = rng.standard_normal((2, 32)).astype(np.float32)
    np.save(out / "x.npy", x)
    np.save(out / "y.npy", (x.astype(np.float64) @ weight + bias).astype(np.float32))
    onnx.save(blob_model([numpy_helper.from_array(weight, "weight"),
                          numpy_helper.from_array(bias, "bias")]), out / "blob.onnx")

    data = b"\0" * 3 + weight.tobytes() + bias.tobytes()
    model = blob_model([external(weight, "weight", "weights.bin", 3),
                        external(bias, "bias", "weights.bin", 3 + weight.nbytes)])
    folders = {
        "blob": (model, data),
        "outside": (with_entry(model, "weight", "offset", "1000000"), data),
        "length": (with_entry(model, "weight", "length", "1000"), data),
        "offset-text": (with_entry(model, "weight", "offset", "12abc"), data),
        "escape": (with_entry(model, "weight", "location", "../blob/weights.bin"), data),
        "absolute": (with_entry(model, "weight", "location",
                                str((out / "blob" / "weights.bin").resolve())), data),
        "short": (model, data[:-4]),
    }
    for folder, (m, d) in folders.items():
        (out / folder).mkdir(exist_ok=True)
        onnx.save(m, out / folder / "model.onnx")
        (out / folder / "weights.bin").write_bytes(d)


def llama_fixtures(out):
    folder = out / "llama"
    folder.mkdir(exist_ok=True)
    path = folder / "llama.onnx"
    llama_fp16.build(llama_fp16.TINY, path)
    model = onnx.load(path)  # loads the external data into the tensors
    for init in model.graph.initializer:
        init.ClearField("external_data")
        init.data_location = TensorProto.DEFAULT
    onnx.save(model, out / "llama-embedded.onnx")

    import onnxruntime as ort
    rng = np.random.default_rng(0)
    ids = rng.integers(0, llama_fp16.TINY.vocab, (2, 7), dtype=np.int64)
    mask = np.ones((2, 7), np.int64)
    mask[1, 5:] = 0
    np.save(out / "ids.npy", ids)
    np.save(out / "mask.npy", mask)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (logits,) = session.run(["logits"], {"input_ids": ids, "attention_mask": mask})
    np.save(out / "logits.npy", logits)


def main():
    out = pathlib.Path(sys.argv[1])
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    blob_fixtures(out)
    llama_fixtures(out)


if __name__ == "__main__":
    main()
