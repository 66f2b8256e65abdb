"""The tsc Python package (python/, built into build/python): load and run
artifacts with numpy and torch tensors, errors as exceptions naming what is
wrong, and tsc.compile from a torch.nn.Module against torch eager.

Run by tools/test.sh (suite `python`) as
  PYTHONPATH=build/python tools/torch-python -m pytest test/python
with TSC_COMPILER=build/bin/tsc. Tolerances: relative L2 per output,
|out - ref|_2 / |ref|_2 in float64, at most 1e-4 in fp32 (docs/design.md,
Numerics) and 2.5e-2 for bf16 storage (docs/precision.md's bf16 bound).
"""
import json
import pathlib
import sys
import warnings

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

import tsc

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "models" / "corpus"))
import architectures  # noqa: E402

FP32 = 1e-4


def rel_l2(out, ref):
    out = np.asarray(out, np.float64)
    ref = np.asarray(ref, np.float64)
    return np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30)


@pytest.fixture(scope="module")
def linear(tmp_path_factory):
    """y = gelu(x @ w + b) with x [batch, 8], and its weights."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]),
         helper.make_node("Add", ["m", "b"], ["a"]),
         helper.make_node("Gelu", ["a"], ["y"])], "linear",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    path = tmp_path_factory.mktemp("linear") / "linear.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]),
              str(path))
    return path, w, b


def reference(x, w, b):
    a = torch.from_numpy(x.astype(np.float64) @ w + b)
    return torch.nn.functional.gelu(a).numpy()


def test_compile_file_and_run_numpy(linear, tmp_path):
    path, w, b = linear
    artifact = tmp_path / "linear.tscm"
    model = tsc.compile_file(path, path=artifact, dim=["batch=1..8"], threads=1)
    assert artifact.is_file()
    assert model.inputs == [{"name": "x", "dtype": "f32", "shape": ["batch", 8]}]
    assert model.symbols == [("batch", 1, 8)]
    for batch in (1, 5):
        x = np.random.default_rng(batch).standard_normal((batch, 8)).astype(np.float32)
        (y,) = model(x)
        assert isinstance(y, np.ndarray) and y.dtype == np.float32
        assert y.shape == (batch, 4)
        assert rel_l2(y, reference(x, w, b)) <= FP32
        # run() by name gives the same.
        assert np.array_equal(model.run({"x": x})["y"], y)


def test_load_torch_in_torch_out(linear, tmp_path):
    path, w, b = linear
    artifact = tmp_path / "linear.tscm"
    tsc.compile_file(path, path=artifact, dim=["batch=1..8"])
    model = tsc.load(str(artifact), threads=1)
    x = torch.randn(3, 8)
    (y,) = model(x)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float32
    assert rel_l2(y.numpy(), reference(x.numpy(), w, b)) <= FP32
    # A non-contiguous input is taken (copied once) and gives the same.
    xt = torch.randn(8, 3).t()
    assert not xt.is_contiguous()
    assert rel_l2(model(xt)[0].numpy(), reference(xt.numpy(), w, b)) <= FP32


def test_outputs_outlive_later_runs(linear, tmp_path):
    path, _, _ = linear
    model = tsc.compile_file(path, dim=["batch=1..8"], threads=1)
    x1 = np.ones((2, 8), np.float32)
    (y1,) = model(x1)
    kept = y1.copy()
    model(np.full((2, 8), -3.0, np.float32))
    assert np.array_equal(y1, kept)


def test_errors_name_what_is_wrong(linear, tmp_path):
    path, _, _ = linear
    model = tsc.compile_file(path, dim=["batch=1..8"], threads=1)
    with pytest.raises(TypeError, match=r"input 'x' must be f32 .* not float64"):
        model(np.ones((2, 8), np.float64))
    with pytest.raises(tsc.Error, match=r"input 'x' dim 0 \(batch\) is 9, outside \[1, 8\]") as e:
        model(np.ones((9, 8), np.float32))
    assert e.value.code == "OUT_OF_RANGE"
    with pytest.raises(tsc.Error, match="input 'x' dim 1 is 7, expected 8"):
        model(np.ones((2, 7), np.float32))
    with pytest.raises(tsc.Error, match="no input named 'z'") as e:
        model.run({"z": np.ones((2, 8), np.float32)})
    assert e.value.code == "INVALID_ARGUMENT"
    with pytest.raises(TypeError, match=r"takes 1 inputs \(x\), not 2"):
        model(np.ones((2, 8), np.float32), np.ones((2, 8), np.float32))
    missing = tmp_path / "missing.tscm"
    with pytest.raises(tsc.Error, match="missing.tscm") as e:
        tsc.load(str(missing))
    assert e.value.code == "NOT_FOUND"
    good = tmp_path / "good.tscm"
    tsc.compile_file(path, path=good, dim=["batch=1..8"])
    truncated = tmp_path / "truncated.tscm"
    truncated.write_bytes(good.read_bytes()[:200])
    with pytest.raises(tsc.Error, match="truncated.tscm"):
        tsc.load(str(truncated))


def test_compile_errors_carry_the_compilers_message(tmp_path):
    graph = helper.make_graph(
        [helper.make_node("NoSuchOp", ["x"], ["y"], domain="example.custom")], "bad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    path = tmp_path / "bad.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20),
                                                      helper.make_opsetid("example.custom", 1)]),
              str(path))
    with pytest.raises(tsc.CompileError, match="NoSuchOp"):
        tsc.compile_file(path)
    with pytest.raises(tsc.CompileError, match="no-such-flag"):
        tsc.compile_file(path, no_such_flag=True)


def compile_and_check(name, precision="fp32", bound=FP32, **options):
    """tsc.compile of a corpus architecture with dynamic batch and sequence,
    run at two shapes with padded masks against torch eager."""
    arch = next(a for a in architectures.ARCHITECTURES if a.name == name)
    module = architectures.build(arch)
    names = architectures.input_names(arch)
    example = architectures.make_inputs(arch, 2, 16, seed=7)
    batch = torch.export.Dim("batch", min=1, max=4)
    seq = torch.export.Dim("seq", min=1, max=architectures.POSITIONS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = tsc.compile(module, [torch.from_numpy(example[n]) for n in names],
                            dynamic_shapes=tuple({0: batch, 1: seq} for _ in names),
                            precision=precision, threads=1, **options)
    # Batch and sequence are the Dims, by name and range.
    assert [i["shape"] for i in model.inputs] == [["batch", "seq"]] * len(names)
    assert sorted(model.symbols) == [("batch", 1, 4), ("seq", 1, architectures.POSITIONS)]
    for b, s in ((1, 7), (3, 64)):
        inputs = [torch.from_numpy(a) for a in
                  architectures.make_inputs(arch, b, s, seed=b).values()]
        with torch.no_grad():
            expected = module(*inputs)
        got = model(*inputs)
        assert len(got) == len(expected)
        for out, ref in zip(got, expected):
            assert isinstance(out, torch.Tensor) and out.shape == ref.shape
            assert rel_l2(out.float().numpy(), ref.numpy()) <= bound, (b, s)
    return model


def test_compile_bert_matches_eager():
    compile_and_check("bert")


def test_compile_llama_matches_eager():
    compile_and_check("llama")


def test_compile_bf16_storage_gives_bf16_tensors():
    model = compile_and_check("bert", precision="bf16", bound=2.5e-2,
                              precision_io="storage")
    assert model.outputs[0]["dtype"] == "bf16"


@pytest.mark.parametrize("names, message", [
    ({"SYMBOL": "1batch"}, "is not an identifier"),
    ({"s999999": "batch"}, "range_constraints do not have"),
    ({"SYMBOL": "batch", "OTHER": "batch"}, "to two symbols"),
])
def test_bad_dim_names_are_refused(tmp_path, names, message):
    """extra/tsc_dim_names.json as tsc.compile writes it, but wrong."""
    class Double(torch.nn.Module):
        def forward(self, x, y):
            return x * 2, y + 1
    batch, rows = torch.export.Dim("batch", min=1, max=8), torch.export.Dim("rows", min=1, max=8)
    program = torch.export.export(Double(), (torch.ones(2, 3), torch.ones(4, 3)),
                                  dynamic_shapes=({0: batch}, {0: rows}))
    symbols = sorted(str(s) for s in program.range_constraints)
    text = json.dumps(names).replace("SYMBOL", symbols[0]).replace("OTHER", symbols[1])
    archive = tmp_path / "double.pt2"
    torch.export.save(program, str(archive), extra_files={"tsc_dim_names.json": text})
    with pytest.raises(tsc.CompileError, match=message):
        tsc.compile_file(archive)
