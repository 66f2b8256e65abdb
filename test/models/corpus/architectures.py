"""The corpus of Hugging Face architectures tsc must compile (issue 19).

Each entry builds a tiny, seeded configuration of a `transformers` model (no
download: the configuration is written here, the weights are random) and
wraps it so that export sees plain tensors in and out. Every parameter is
drawn again after construction so that norms have non-trivial scales and
biases (Hugging Face initializes them to 1 and 0, which would hide a missing
scale or bias).

The wrapped model returns the final hidden states and those after the first
layer (before any final norm), so both the layers and the final norm are
checked.

Needs PyTorch 2.x and transformers (the .venv-torch environment).
"""
import dataclasses

VOCAB = 128
HIDDEN = 32
HEADS = 4
LAYERS = 2
FFN = 64
POSITIONS = 64
# Vision: 32x32 images in 8x8 patches (16 patches + CLS).
IMAGE = 32
PATCH = 8
# Speech: Whisper's encoder needs exactly 2 * max_source_positions frames.
MELS = 16
SOURCE_POSITIONS = 16


@dataclasses.dataclass(frozen=True)
class Architecture:
    name: str
    # "text" (input_ids, attention_mask), "vision" (pixel_values) or
    # "speech" (input_features).
    modality: str
    # Builds the torch.nn.Module (imports transformers lazily).
    build: object
    # ONNX Runtime transformer optimizer model type, or None.
    ort_model_type: object = None
    # The MLP has a gate (SwiGLU/GeGLU): one more step per layer.
    gated_mlp: bool = False
    # Causal self-attention (decoders).
    causal: bool = False
    # Norm ops after fusion: two per layer and one more (BERT's on the
    # embeddings, a pre-norm model's final one).
    norms: int = 2 * LAYERS + 1


def _randomize(model, seed):
    """Every parameter drawn again: matrices N(0, 0.08), 1-D scales around 1,
    biases and the rest around 0."""
    import torch
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            noise = torch.randn(p.shape, generator=generator, dtype=torch.float32)
            if p.dim() >= 2:
                p.copy_(0.08 * noise)
            elif name.endswith("weight") or name.endswith("scale"):
                p.copy_(1.0 + 0.1 * noise)
            else:
                p.copy_(0.1 * noise)
    return model


def _wrap(make, modality):
    """The model `make()` builds, called with the modality's inputs as keyword
    arguments and returning (last hidden state, hidden state after the first
    layer). The forward signature names the inputs, as export needs."""
    import torch

    class Wrapped(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = make()

        def outputs(self, **inputs):
            out = self.model(**inputs, output_hidden_states=True, return_dict=True)
            return out.last_hidden_state, out.hidden_states[1]

    class Text(Wrapped):
        def forward(self, input_ids, attention_mask):
            return self.outputs(input_ids=input_ids, attention_mask=attention_mask)

    class Vision(Wrapped):
        def forward(self, pixel_values):
            return self.outputs(pixel_values=pixel_values)

    class Speech(Wrapped):
        def forward(self, input_features):
            return self.outputs(input_features=input_features)

    return {"text": Text, "vision": Vision, "speech": Speech}[modality]()


def _text_model(make):
    return _wrap(make, "text")


def _common():
    return dict(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                num_attention_heads=HEADS, intermediate_size=FFN,
                max_position_embeddings=POSITIONS)


def _decoder(config_cls, model_cls, **extra):
    import transformers as T
    kw = _common()
    kw.update(extra)
    config = getattr(T, config_cls)(**kw)
    return getattr(T, model_cls)(config)


def bert():
    import transformers as T
    return _text_model(lambda: T.BertModel(T.BertConfig(**_common()), add_pooling_layer=False))


def albert():
    import transformers as T
    return _text_model(lambda: T.AlbertModel(
        T.AlbertConfig(**_common(), embedding_size=16), add_pooling_layer=False))


def electra():
    import transformers as T
    return _text_model(lambda: T.ElectraModel(T.ElectraConfig(**_common(), embedding_size=16)))


def mpnet():
    import transformers as T
    # Positions start after the padding index (RoBERTa's numbering): two more.
    config = T.MPNetConfig(**dict(_common(), max_position_embeddings=POSITIONS + 2))
    return _text_model(lambda: T.MPNetModel(config, add_pooling_layer=False))


def deberta_v2():
    import transformers as T
    config = T.DebertaV2Config(**_common(), relative_attention=True, position_buckets=16,
                               max_relative_positions=POSITIONS,
                               pos_att_type=["p2c", "c2p"], type_vocab_size=0)
    return _text_model(lambda: T.DebertaV2Model(config))


def gpt2():
    import transformers as T
    config = T.GPT2Config(vocab_size=VOCAB, n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS,
                          n_inner=FFN, n_positions=POSITIONS, bos_token_id=0,
                          eos_token_id=0)
    return _text_model(lambda: T.GPT2Model(config))


def gpt_neox():
    return _text_model(lambda: _decoder("GPTNeoXConfig", "GPTNeoXModel", rotary_pct=0.5))


def llama():
    return _text_model(lambda: _decoder("LlamaConfig", "LlamaModel", num_key_value_heads=2))


def mistral():
    return _text_model(lambda: _decoder("MistralConfig", "MistralModel", num_key_value_heads=2,
                                        sliding_window=None))


def phi3():
    return _text_model(lambda: _decoder("Phi3Config", "Phi3Model", num_key_value_heads=2,
                                        pad_token_id=0, bos_token_id=1, eos_token_id=2))


def gemma():
    return _text_model(lambda: _decoder("GemmaConfig", "GemmaModel", num_key_value_heads=1,
                                        head_dim=HIDDEN // HEADS))


def qwen2():
    return _text_model(lambda: _decoder("Qwen2Config", "Qwen2Model", num_key_value_heads=2))


def falcon():
    import transformers as T
    config = T.FalconConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                            num_attention_heads=HEADS, new_decoder_architecture=True,
                            num_kv_heads=2, parallel_attn=True, bias=False)
    return _text_model(lambda: T.FalconModel(config))


def bloom():
    import transformers as T
    config = T.BloomConfig(vocab_size=VOCAB, hidden_size=HIDDEN, n_layer=LAYERS, n_head=HEADS)
    return _text_model(lambda: T.BloomModel(config))


def bart_encoder():
    import transformers as T
    config = T.BartConfig(vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=LAYERS,
                          decoder_layers=LAYERS, encoder_attention_heads=HEADS,
                          decoder_attention_heads=HEADS, encoder_ffn_dim=FFN,
                          decoder_ffn_dim=FFN, max_position_embeddings=POSITIONS)
    return _text_model(lambda: T.BartModel(config).get_encoder())


def t5_encoder():
    import transformers as T
    config = T.T5Config(vocab_size=VOCAB, d_model=HIDDEN, d_kv=HIDDEN // HEADS, d_ff=FFN,
                        num_layers=LAYERS, num_heads=HEADS, relative_attention_num_buckets=8,
                        relative_attention_max_distance=POSITIONS, feed_forward_proj="gated-gelu")
    return _text_model(lambda: T.T5EncoderModel(config))


def vit():
    import transformers as T
    config = T.ViTConfig(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                         intermediate_size=FFN, image_size=IMAGE, patch_size=PATCH,
                         num_channels=3)
    return _wrap(lambda: T.ViTModel(config, add_pooling_layer=False), "vision")


def whisper_encoder():
    import transformers as T
    config = T.WhisperConfig(vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=LAYERS,
                             decoder_layers=LAYERS, encoder_attention_heads=HEADS,
                             decoder_attention_heads=HEADS, encoder_ffn_dim=FFN,
                             decoder_ffn_dim=FFN, num_mel_bins=MELS,
                             max_source_positions=SOURCE_POSITIONS,
                             max_target_positions=POSITIONS, pad_token_id=0,
                             bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    return _wrap(lambda: T.WhisperModel(config).get_encoder(), "speech")


ARCHITECTURES = [
    Architecture("bert", "text", bert, ort_model_type="bert"),
    Architecture("albert", "text", albert, ort_model_type="bert"),
    Architecture("electra", "text", electra, ort_model_type="bert"),
    Architecture("mpnet", "text", mpnet),
    Architecture("deberta-v2", "text", deberta_v2),
    Architecture("gpt2", "text", gpt2, ort_model_type="gpt2", causal=True),
    Architecture("gpt-neox", "text", gpt_neox, ort_model_type="gpt_neox", causal=True),
    Architecture("llama", "text", llama, gated_mlp=True, causal=True),
    Architecture("mistral", "text", mistral, gated_mlp=True, causal=True),
    Architecture("phi3", "text", phi3, gated_mlp=True, causal=True),
    Architecture("gemma", "text", gemma, gated_mlp=True, causal=True),
    Architecture("qwen2", "text", qwen2, gated_mlp=True, causal=True),
    Architecture("falcon", "text", falcon, causal=True),
    Architecture("bloom", "text", bloom, causal=True, norms=2 * LAYERS + 2),
    Architecture("bart-encoder", "text", bart_encoder, ort_model_type="bart"),
    Architecture("t5-encoder", "text", t5_encoder, ort_model_type="t5", gated_mlp=True),
    Architecture("vit", "vision", vit, ort_model_type="vit"),
    Architecture("whisper-encoder", "speech", whisper_encoder),
]


def build(arch, seed=0):
    """The architecture's wrapped model in eval mode, weights seeded."""
    import torch
    torch.manual_seed(seed)
    model = arch.build()
    return _randomize(model, seed).eval()


def input_names(arch):
    return {"text": ["input_ids", "attention_mask"], "vision": ["pixel_values"],
            "speech": ["input_features"]}[arch.modality]


def make_inputs(arch, batch, seq, seed):
    """Deterministic inputs as numpy arrays: token ids and a mask with
    trailing padding in every other row but the first (a row keeps at least
    one token); images and mel features from a seeded normal."""
    import numpy as np
    rng = np.random.default_rng(seed)
    if arch.modality == "text":
        ids = rng.integers(0, VOCAB, size=(batch, seq), dtype=np.int64)
        mask = np.ones((batch, seq), dtype=np.int64)
        for row in range(1, batch, 2):
            mask[row, max(1, seq - seq // 3 - row):] = 0
        return {"input_ids": ids, "attention_mask": mask}
    if arch.modality == "vision":
        return {"pixel_values": rng.standard_normal((batch, 3, IMAGE, IMAGE)).astype(np.float32)}
    return {"input_features": rng.standard_normal(
        (batch, MELS, 2 * SOURCE_POSITIONS)).astype(np.float32)}


def output_names():
    return ["last_hidden_state", "layer1_hidden_state"]
