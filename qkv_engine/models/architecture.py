"""Which models can run, read from config.json, and their tensors laid out one way for the forward pass.

Supported: BERT (``bert``: BERT, MiniLM and the like), DistilBERT (``distilbert``)
and GPT-2 (``gpt2``). Every layer's weights are stored for ``x @ W + b``:

    w_qkv   d x 3d     W^Q | W^K | W^V side by side; head h of each is columns h d_head .. (h + 1) d_head - 1
    b_qkv   3d         b^Q | b^K | b^V
    w_o     d x d      mixes the heads' outputs
    w_in    d x d_ff,  w_out  d_ff x d     the feed-forward block

BERT's and DistilBERT's ``nn.Linear`` weights are stored (out, in) and are
transposed here; GPT-2's ``Conv1D`` weights are already (in, out), and its
``c_attn`` already holds Q, K and V side by side.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ModelError
from .checkpoint import TensorFile

SUPPORTED = ("bert", "distilbert", "gpt2")
SUPPORTED_TEXT = "BERT (bert: BERT, MiniLM), DistilBERT (distilbert) and GPT-2 (gpt2)"
ACTIVATIONS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "gelu_fast", "relu", "silu", "swish")
_PREFIXES = {"bert": ("", "bert."), "distilbert": ("", "distilbert."), "gpt2": ("", "transformer.")}


@dataclass(frozen=True)
class Architecture:
    """What the forward pass needs to know from config.json."""

    model_type: str  # "bert", "distilbert" or "gpt2"
    family: str  # "bert" or "gpt2"
    n_layers: int
    n_heads: int
    d_model: int
    d_ff: int
    vocab_size: int
    max_tokens: int  # position embeddings
    eps: float  # LayerNorm epsilon
    activation: str
    pre_norm: bool  # GPT-2: LayerNorm before each block (and a final one); BERT: after
    causal: bool
    scale: bool  # scores divided by sqrt(d_head)
    layer_scaled: bool  # GPT-2's scale_attn_by_inverse_layer_idx: also divided by (layer + 1)
    token_types: bool  # BERT: token type 0's embedding is added

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads


@dataclass
class LayerWeights:
    w_qkv: np.ndarray
    b_qkv: np.ndarray
    w_o: np.ndarray
    b_o: np.ndarray
    ln_attn: tuple  # (gain, bias): BERT after attention; GPT-2 ln_1, before it
    w_in: np.ndarray
    b_in: np.ndarray
    w_out: np.ndarray
    b_out: np.ndarray
    ln_ffn: tuple  # BERT after the feed-forward block; GPT-2 ln_2, before it


@dataclass
class Weights:
    word: np.ndarray  # vocab x d
    position: np.ndarray  # max_tokens x d
    token_type: np.ndarray | None  # d: token type 0 (BERT)
    ln_embed: tuple | None  # BERT, DistilBERT: LayerNorm of the embeddings
    ln_final: tuple | None  # GPT-2: ln_f
    layers: list


# ----- config.json -> Architecture ------------------------------------------------------------------
def _whole(config: dict, folder: Path, *keys, default=None) -> int:
    for key in keys:
        if config.get(key) is not None:
            value = config[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ModelError(f"config.json in {folder}: {key} must be a whole number above 0, got {value!r}")
            return value
    if default is not None:
        return default
    raise ModelError(f"config.json in {folder} has no {keys[0]}: it does not describe a complete model")


def _positive(config: dict, folder: Path, key: str, default: float) -> float:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ModelError(f"config.json in {folder}: {key} must be a small positive number, got {value!r}")
    return float(value)


def model_type_of(config: dict, folder: Path) -> str:
    """The config's model_type, checked against what this app runs."""
    kind = config.get("model_type")
    if not isinstance(kind, str) or not kind:
        arch = " ".join(str(a) for a in config.get("architectures") or [])
        guess = [t for t, stem in (("distilbert", "DistilBert"), ("bert", "Bert"), ("gpt2", "GPT2"))
                 if arch.startswith(stem)]
        if not guess:
            raise ModelError(f"config.json in {folder} has no model_type: this app runs {SUPPORTED_TEXT} models")
        kind = guess[0]
    if kind not in SUPPORTED:
        raise ModelError(f"{folder} holds a '{kind}' model, which this app cannot run: it runs "
                         f"{SUPPORTED_TEXT} models")
    return kind


def architecture(config: dict, folder: Path) -> Architecture:
    kind = model_type_of(config, folder)
    if kind == "gpt2":
        d = _whole(config, folder, "n_embd", "hidden_size")
        arch = dict(
            family="gpt2", n_layers=_whole(config, folder, "n_layer", "num_hidden_layers"),
            n_heads=_whole(config, folder, "n_head", "num_attention_heads"), d_model=d,
            d_ff=_whole(config, folder, "n_inner", default=4 * d), vocab_size=_whole(config, folder, "vocab_size"),
            max_tokens=_whole(config, folder, "n_positions", "n_ctx", "max_position_embeddings"),
            eps=_positive(config, folder, "layer_norm_epsilon", 1e-5),
            activation=config.get("activation_function", "gelu_new"), pre_norm=True, causal=True,
            scale=bool(config.get("scale_attn_weights", True)),
            layer_scaled=bool(config.get("scale_attn_by_inverse_layer_idx", False)), token_types=False)
    elif kind == "distilbert":
        d = _whole(config, folder, "dim", "hidden_size")
        arch = dict(
            family="bert", n_layers=_whole(config, folder, "n_layers", "num_hidden_layers"),
            n_heads=_whole(config, folder, "n_heads", "num_attention_heads"), d_model=d,
            d_ff=_whole(config, folder, "hidden_dim", "intermediate_size"),
            vocab_size=_whole(config, folder, "vocab_size"),
            max_tokens=_whole(config, folder, "max_position_embeddings", default=512),
            eps=1e-12,  # fixed in DistilBERT's code, not in its config
            activation=config.get("activation", "gelu"), pre_norm=False, causal=False, scale=True,
            layer_scaled=False, token_types=False)
    else:
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise ModelError(f"{folder} holds a BERT model with '{config['position_embedding_type']}' position "
                             f"embeddings: only absolute ones are supported")
        if config.get("is_decoder"):
            raise ModelError(f"{folder} holds a BERT decoder (is_decoder), which this app cannot run")
        arch = dict(
            family="bert", n_layers=_whole(config, folder, "num_hidden_layers"),
            n_heads=_whole(config, folder, "num_attention_heads"), d_model=_whole(config, folder, "hidden_size"),
            d_ff=_whole(config, folder, "intermediate_size"), vocab_size=_whole(config, folder, "vocab_size"),
            max_tokens=_whole(config, folder, "max_position_embeddings", default=512),
            eps=_positive(config, folder, "layer_norm_eps", 1e-12),
            activation=config.get("hidden_act", "gelu"), pre_norm=False, causal=False, scale=True,
            layer_scaled=False, token_types=_whole(config, folder, "type_vocab_size", default=2) > 0)
    if arch["activation"] not in ACTIVATIONS:
        raise ModelError(f"config.json in {folder}: the activation {arch['activation']!r} is not supported "
                         f"(supported: {', '.join(ACTIVATIONS)})")
    if arch["d_model"] % arch["n_heads"]:
        raise ModelError(f"config.json in {folder}: {arch['d_model']} numbers per token do not split into "
                         f"{arch['n_heads']} heads")
    return Architecture(model_type=kind, **arch)


# ----- tensors -> Weights ---------------------------------------------------------------------------------
def _layer_names(arch: Architecture, i: int) -> dict:
    """(checkpoint name, expected shape, transpose) of each part of layer ``i``, bias names included."""
    d, f = arch.d_model, arch.d_ff
    if arch.model_type == "gpt2":
        p = f"h.{i}."
        return {
            "w_qkv": (p + "attn.c_attn.weight", (d, 3 * d), False), "b_qkv": (p + "attn.c_attn.bias", (3 * d,), False),
            "w_o": (p + "attn.c_proj.weight", (d, d), False), "b_o": (p + "attn.c_proj.bias", (d,), False),
            "ln_attn": p + "ln_1", "ln_ffn": p + "ln_2",
            "w_in": (p + "mlp.c_fc.weight", (d, f), False), "b_in": (p + "mlp.c_fc.bias", (f,), False),
            "w_out": (p + "mlp.c_proj.weight", (f, d), False), "b_out": (p + "mlp.c_proj.bias", (d,), False),
        }
    if arch.model_type == "distilbert":
        p = f"transformer.layer.{i}."
        q, k, v, o = (p + "attention.q_lin", p + "attention.k_lin", p + "attention.v_lin", p + "attention.out_lin")
        ln_attn, ln_ffn, lin_in, lin_out = p + "sa_layer_norm", p + "output_layer_norm", p + "ffn.lin1", p + "ffn.lin2"
    else:
        p = f"encoder.layer.{i}."
        q, k, v = (p + "attention.self.query", p + "attention.self.key", p + "attention.self.value")
        o, ln_attn = p + "attention.output.dense", p + "attention.output.LayerNorm"
        lin_in, lin_out, ln_ffn = p + "intermediate.dense", p + "output.dense", p + "output.LayerNorm"
    return {
        "w_qkv": ([q + ".weight", k + ".weight", v + ".weight"], (d, d), True),
        "b_qkv": ([q + ".bias", k + ".bias", v + ".bias"], (d,), False),
        "w_o": (o + ".weight", (d, d), True), "b_o": (o + ".bias", (d,), False),
        "ln_attn": ln_attn, "ln_ffn": ln_ffn,
        "w_in": (lin_in + ".weight", (f, d), True), "b_in": (lin_in + ".bias", (f,), False),
        "w_out": (lin_out + ".weight", (d, f), True), "b_out": (lin_out + ".bias", (d,), False),
    }


def _embedding_names(arch: Architecture) -> dict:
    d = arch.d_model
    if arch.model_type == "gpt2":
        return {"word": ("wte.weight", (arch.vocab_size, d)), "position": ("wpe.weight", (arch.max_tokens, d)),
                "ln_final": "ln_f"}
    names = {"word": ("embeddings.word_embeddings.weight", (arch.vocab_size, d)),
             "position": ("embeddings.position_embeddings.weight", (arch.max_tokens, d)),
             "ln_embed": "embeddings.LayerNorm"}
    if arch.token_types:
        names["token_type"] = ("embeddings.token_type_embeddings.weight", (None, d))
    return names


class _Reader:
    """Finds tensors by name (with the family's optional prefix), checks their shapes, reads them."""

    def __init__(self, arch: Architecture, tensors: TensorFile, folder: Path):
        self.tensors, self.folder, self.arch = tensors, folder, arch
        names = set(tensors.names())
        word = _embedding_names(arch)["word"][0]
        self.prefix = next((p for p in _PREFIXES[arch.model_type] if p + word in names), "")
        self.names = names
        self.wanted: dict[str, str] = {}  # our name -> checkpoint name

    def find(self, name: str, shape: tuple) -> str:
        full = self.prefix + name
        if full not in self.names:
            # old checkpoints call LayerNorm's weight and bias gamma and beta
            alt = full.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")
            if alt not in self.names:
                raise ModelError(f"model.safetensors in {self.folder} has no tensor '{full}': it is not a complete "
                                 f"{self.arch.model_type} model, or it does not match config.json")
            full = alt
        got = self.tensors.shape(full)
        if len(got) != len(shape) or any(want is not None and g != want for g, want in zip(got, shape)):
            want_text = "(" + ", ".join("any" if w is None else str(w) for w in shape) + ")"
            raise ModelError(f"model.safetensors in {self.folder}: '{full}' has shape {tuple(got)}, but config.json "
                             f"implies {want_text}")
        return full


@dataclass(frozen=True)
class _Part:
    """Where one array of Weights comes from: checkpoint names (several are put side by side), transposed?"""

    names: tuple
    transpose: bool = False
    norm: bool = False  # a LayerNorm: (weight, bias), kept as a pair


def _plan(r: _Reader, spec) -> _Part:
    if isinstance(spec, str):  # a LayerNorm's prefix
        d = (r.arch.d_model,)
        return _Part((r.find(spec + ".weight", d), r.find(spec + ".bias", d)), norm=True)
    name, shape, *rest = spec
    names = name if isinstance(name, list) else [name]
    return _Part(tuple(r.find(n, shape) for n in names), bool(rest and rest[0]))


def load_weights(arch: Architecture, tensors: TensorFile, folder: Path) -> Weights:
    """Check every tensor the forward pass needs (name and shape) before reading any, then read them."""
    r = _Reader(arch, tensors, folder)
    embeddings = {key: _plan(r, spec) for key, spec in _embedding_names(arch).items()}
    layers = [{key: _plan(r, spec) for key, spec in _layer_names(arch, i).items()} for i in range(arch.n_layers)]
    parts = list(embeddings.values()) + [p for layer in layers for p in layer.values()]
    data = tensors.read(sorted({n for p in parts for n in p.names}))

    def build(part: _Part):
        arrays = [data[n].T if part.transpose else data[n] for n in part.names]
        if part.norm:
            return tuple(arrays)
        # BERT's separate query, key and value weights go side by side, as GPT-2 stores them
        return np.ascontiguousarray(arrays[0] if len(arrays) == 1 else np.concatenate(arrays, axis=-1))

    built = {key: build(part) for key, part in embeddings.items()}
    return Weights(
        word=built["word"], position=built["position"],
        token_type=built["token_type"][0].copy() if "token_type" in built else None,
        ln_embed=built.get("ln_embed"), ln_final=built.get("ln_final"),
        layers=[LayerWeights(**{key: build(part) for key, part in layer.items()}) for layer in layers],
    )
