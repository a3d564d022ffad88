"""Which models can run, read from config.json, and their tensors laid out one way for the forward pass.

Supported: BERT (``bert``: BERT, MiniLM and the like), DistilBERT (``distilbert``), GPT-2
(``gpt2``) and the Llama family (``llama``, ``mistral``, ``qwen2``: see llama_family.py).
Every layer's weights are stored for ``x @ W + b``, H query heads and KV key/value heads
(KV = H except in grouped-query models) of d_head numbers each:

    w_qkv   d x (H + 2 KV) d_head   W^Q | W^K | W^V side by side; query head h is columns
                                    h d_head .. (h + 1) d_head - 1, key head g starts at H d_head + g d_head
    b_qkv   (H + 2 KV) d_head       b^Q | b^K | b^V  (None: the model has no such biases)
    w_o     H d_head x d            mixes the heads' outputs
    w_in    d x d_ff (Llama: d x 2 d_ff, gate | up),  w_out  d_ff x d     the feed-forward block

BERT's, DistilBERT's and Llama's ``nn.Linear`` weights are stored (out, in) and are
transposed here; GPT-2's ``Conv1D`` weights are already (in, out), and its ``c_attn``
already holds Q, K and V side by side. Weights keep the checkpoint's width (float16, or
bfloat16 as its raw 16 bits) when a float32 copy would be large: ``widths.float32`` widens them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..errors import ModelError
from .checkpoint import TensorFile
from .config_values import small_positive as _positive
from .config_values import whole as _whole
from .llama_family import FAMILIES as LLAMA_TYPES
from .llama_family import llama_architecture, llama_embedding_names, llama_layer_names
from .memory import aligned_start, allocation, line_padded
from .widths import WIDEN_LIMIT, float32

SUPPORTED = ("bert", "distilbert", "gpt2", "llama", "mistral", "qwen2")
SUPPORTED_TEXT = ("BERT (bert: BERT, MiniLM), DistilBERT (distilbert), GPT-2 (gpt2), Llama (llama: Llama 2 and 3, "
                  "TinyLlama, SmolLM), Mistral (mistral) and Qwen2 (qwen2)")
ACTIVATIONS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "gelu_fast", "relu", "silu", "swish")
_PREFIXES = {"bert": ("", "bert."), "distilbert": ("", "distilbert."), "gpt2": ("", "transformer."),
             "llama": ("model.", "")}


@dataclass(frozen=True)
class Architecture:
    """What the forward pass needs to know from config.json."""

    model_type: str  # "bert", "distilbert", "gpt2", "llama", "mistral" or "qwen2"
    family: str  # "bert", "gpt2" or "llama" (llama, mistral and qwen2)
    n_layers: int
    n_heads: int
    d_model: int
    d_ff: int
    vocab_size: int
    max_tokens: int  # position embeddings
    eps: float  # LayerNorm / RMSNorm epsilon
    activation: str
    pre_norm: bool  # GPT-2: LayerNorm before each block (and a final one); BERT: after
    causal: bool
    scale: bool  # scores divided by sqrt(d_head)
    layer_scaled: bool  # GPT-2's scale_attn_by_inverse_layer_idx: also divided by (layer + 1)
    token_types: bool  # BERT: token type 0's embedding is added
    # The Llama family (defaults: BERT and GPT-2).
    n_kv_heads: int = 0  # key/value heads (grouped-query attention); 0: one per query head
    head_dim: int = 0  # numbers per head when config.json gives them; 0: d_model / n_heads
    norm: str = "layer"  # "layer": LayerNorm (gain, bias); "rms": RMSNorm (gain only)
    gated: bool = False  # feed-forward down(silu(gate(x)) * up(x)) instead of act(x W_in) W_out
    rope: object = None  # rope_config.Rope: rotary positions; None: learned position embeddings
    sliding_window: int | None = None  # Mistral: keys further back than this are hidden (refused)
    qkv_bias: bool = True
    o_bias: bool = True
    mlp_bias: bool = True
    tied: bool = True  # the output head reuses the word embeddings

    @property
    def d_head(self) -> int:
        return self.head_dim or self.d_model // self.n_heads

    @property
    def kv_heads(self) -> int:
        return self.n_kv_heads or self.n_heads

    @property
    def group(self) -> int:
        """Query heads per key/value head."""
        return self.n_heads // self.kv_heads

    def kv_head(self, head: int) -> int:
        """The key/value head query head ``head`` reads (transformers' ``repeat_kv`` order)."""
        return head // self.group

    def qkv_column(self, part: str, head: int, col: int) -> int:
        """The column of w_qkv that holds column ``col`` of query head ``head``'s W^Q, W^K or W^V
        (``part`` "q", "k", "v"); a query head's W^K and W^V are its key/value head's."""
        dh, H = self.d_head, self.n_heads
        if part == "q":
            return head * dh + col
        start = H * dh if part == "k" else (H + self.kv_heads) * dh
        return start + self.kv_head(head) * dh + col


@dataclass
class LayerWeights:
    """One layer's arrays (see the module docstring); a bias is None when the model has none."""

    w_qkv: np.ndarray
    b_qkv: np.ndarray | None
    w_o: np.ndarray
    b_o: np.ndarray | None
    ln_attn: tuple  # (gain, bias): BERT after attention; GPT-2 ln_1 and Llama input_layernorm before it (bias None)
    w_in: np.ndarray
    b_in: np.ndarray | None
    w_out: np.ndarray
    b_out: np.ndarray | None
    ln_ffn: tuple  # BERT after the feed-forward block; GPT-2 ln_2, Llama post_attention_layernorm, before it
    #: BERT and GPT-2: each product's weights and bias as one out x (in + 1) array [W^T | b] (a zero column where
    #: the model has no bias), of which the w_ and b_ arrays above are views ("qkv", "o", "in", "out"): the
    #: forward pass multiplies it by its input with a row of ones under it, and the bias is added on the way.
    #: Empty for the Llama family.
    joined: dict = field(default_factory=dict)


#: The products whose weights and bias are joined (LayerWeights.joined).
_JOINED = ("qkv", "o", "in", "out")


def join_biases(layer: LayerWeights, empty=np.empty) -> LayerWeights:
    """``layer`` with each product's weights and bias in one array (LayerWeights.joined), in their stored width;
    ``empty(shape, dtype)`` gives the arrays (JoinedStore.empty: carved out of one allocation)."""
    parts, joined = {}, {}
    for name in _JOINED:
        w, b = getattr(layer, "w_" + name), getattr(layer, "b_" + name)
        both = empty((w.shape[1], w.shape[0] + 1), w.dtype)
        both[:, :-1] = w.T
        both[:, -1] = 0 if b is None else b
        joined[name] = both
        parts["w_" + name], parts["b_" + name] = both[:, :-1].T, None if b is None else both[:, -1]
    return replace(layer, **parts, joined=joined)


class JoinedStore:
    """Every layer's joined arrays carved out of one block of memory (memory.allocation, which maps a block of a
    few MB or more in huge pages), made when the first layer is joined (the layers all have its shapes and width),
    each array starting on a 64-byte line. The matrix products then read the weights with far fewer page-table
    lookups. An array the block has no room left for (of a layer larger than the first) gets an allocation of its
    own."""

    def __init__(self, n_layers: int):
        self.n_layers = n_layers
        self.block = None
        self.at = 0

    def join(self, layer: LayerWeights) -> LayerWeights:
        if self.block is None:
            dtype = layer.w_qkv.dtype
            per_layer = sum(line_padded(w.shape[1] * (w.shape[0] + 1), dtype.itemsize)
                            for w in (getattr(layer, "w_" + name) for name in _JOINED))
            size = per_layer * self.n_layers
            self.block = aligned_start(allocation(size, dtype), size)
        return join_biases(layer, self.empty)

    def empty(self, shape: tuple, dtype) -> np.ndarray:
        size = shape[0] * shape[1]
        if dtype != self.block.dtype or self.at + size > self.block.size:
            return np.empty(shape, dtype)
        array = self.block[self.at:self.at + size].reshape(shape)
        self.at += line_padded(size, self.block.itemsize)
        return array


@dataclass
class OutputHead:
    """From the last hidden state h to one score per vocabulary token:

        BERT:   logits = LN(act(h W_t + b_t)) E^T + b      (the masked-LM head; E: decoder, often the word embeddings)
        others: logits = h E^T                            (GPT-2: E = wte; Llama: lm_head or the embeddings)"""

    decoder: np.ndarray  # vocab x d, possibly in the checkpoint's width
    bias: np.ndarray | None = None  # vocab
    transform: tuple | None = None  # (W_t d x d, b_t d)
    ln: tuple | None = None  # (gain, bias)


@dataclass
class Weights:
    word: np.ndarray  # vocab x d
    position: np.ndarray | None  # max_tokens x d; None with rotary positions
    token_type: np.ndarray | None  # d: token type 0 (BERT)
    ln_embed: tuple | None  # BERT, DistilBERT: LayerNorm of the embeddings
    ln_final: tuple | None  # GPT-2: ln_f; Llama: norm (gain, None)
    layers: list
    output: OutputHead | None = None  # None: the checkpoint has no output head (a sentence-embedding export)


# ----- config.json -> Architecture ------------------------------------------------------------------
def model_type_of(config: dict, folder: Path) -> str:
    """The config's model_type, checked against what this app runs."""
    kind = config.get("model_type")
    if not isinstance(kind, str) or not kind:
        arch = " ".join(str(a) for a in config.get("architectures") or [])
        guess = [t for t, stem in (("distilbert", "DistilBert"), ("bert", "Bert"), ("gpt2", "GPT2"),
                                   ("llama", "Llama"), ("mistral", "Mistral"), ("qwen2", "Qwen2For"))
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
    if kind in LLAMA_TYPES:
        arch = llama_architecture(kind, config, folder)
        if not arch["gated"] or arch["activation"] not in ("silu", "swish"):
            raise ModelError(f"config.json in {folder}: the activation {arch['activation']!r} is not supported "
                             f"in a {kind} model (supported: silu)")
        return Architecture(model_type=kind, **arch)
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
    arch["tied"] = bool(config.get("tie_word_embeddings", True))  # the output head reuses the word embeddings
    if arch["d_model"] % arch["n_heads"]:
        raise ModelError(f"config.json in {folder}: {arch['d_model']} numbers per token do not split into "
                         f"{arch['n_heads']} heads")
    return Architecture(model_type=kind, **arch)


# ----- tensors -> Weights ---------------------------------------------------------------------------------
def _layer_names(arch: Architecture, i: int) -> dict:
    """(checkpoint name, expected shape, transpose) of each part of layer ``i``, bias names included."""
    d, f = arch.d_model, arch.d_ff
    if arch.family == "llama":
        return llama_layer_names(arch, i)
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
    if arch.family == "llama":
        return llama_embedding_names(arch)
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
        self.prefix = next((p for p in _PREFIXES.get(arch.model_type, _PREFIXES[arch.family]) if p + word in names),
                           "")
        self.names = names
        self.wanted: dict[str, str] = {}  # our name -> checkpoint name

    def find(self, name: str, shape: tuple, bare: bool = False) -> str:
        """The checkpoint name of ``name`` (with the family's prefix unless ``bare``), its shape checked."""
        full = name if bare else self.prefix + name
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
            raise ModelError(f"{self.tensors.label} in {self.folder}: '{full}' has shape {tuple(got)}, but "
                             f"config.json implies {want_text}")
        return full


@dataclass(frozen=True)
class _Part:
    """Where one array of Weights comes from: checkpoint names (several are put side by side), transposed?"""

    names: tuple
    transpose: bool = False
    norm: bool = False  # a norm: (gain, bias) kept as a pair; an RMSNorm's bias is None


def _plan(r: _Reader, spec, bare: bool = False) -> _Part:
    if isinstance(spec, str):  # a norm's prefix
        d = (r.arch.d_model,)
        if r.arch.norm == "rms":
            return _Part((r.find(spec + ".weight", d),), norm=True)
        return _Part((r.find(spec + ".weight", d), r.find(spec + ".bias", d)), norm=True)
    name, shape, *rest = spec
    names = name if isinstance(name, list) else [name]
    shapes = shape if isinstance(shape, list) else [shape] * len(names)
    return _Part(tuple(r.find(n, sh, bare) for n, sh in zip(names, shapes)), bool(rest and rest[0]))


def _output_plan(r: _Reader) -> dict | None:
    """Where the output head's parts are (see OutputHead), or None when the checkpoint has none."""
    arch, d, vocab = r.arch, r.arch.d_model, r.arch.vocab_size
    word = _plan(r, _embedding_names(arch)["word"])
    if arch.family == "gpt2":
        return {"decoder": word}
    if arch.family == "llama":
        untied = not arch.tied and "lm_head.weight" in r.names
        return {"decoder": _plan(r, ("lm_head.weight", (vocab, d)), bare=True) if untied else word}
    names = _MLM_HEADS[arch.model_type]
    if names["transform"] + ".weight" not in r.names:
        return None  # a sentence-embedding export (MiniLM) or a bare encoder
    t, ln = names["transform"], names["ln"]
    plan = {"transform": (_plan(r, (t + ".weight", (d, d), True), bare=True), _plan(r, (t + ".bias", (d,)), bare=True)),
            "ln": _Part((r.find(ln + ".weight", (d,), True), r.find(ln + ".bias", (d,), True)), norm=True),
            "bias": _plan(r, (next((b for b in names["bias"] if b in r.names), names["bias"][0]), (vocab,)), bare=True),
            "decoder": word}
    if not arch.tied and names["decoder"] in r.names:
        plan["decoder"] = _plan(r, (names["decoder"], (vocab, d)), bare=True)
    return plan


#: The masked-LM heads' tensors (no prefix: they sit beside ``bert.`` / ``distilbert.``).
_MLM_HEADS = {
    "bert": {"transform": "cls.predictions.transform.dense", "ln": "cls.predictions.transform.LayerNorm",
             "bias": ("cls.predictions.bias", "cls.predictions.decoder.bias"),
             "decoder": "cls.predictions.decoder.weight"},
    "distilbert": {"transform": "vocab_transform", "ln": "vocab_layer_norm", "bias": ("vocab_projector.bias",),
                   "decoder": "vocab_projector.weight"},
}


def _all_parts(value) -> list:
    if isinstance(value, _Part):
        return [value]
    if isinstance(value, dict):
        return [p for v in value.values() for p in _all_parts(v)]
    if isinstance(value, (tuple, list)):
        return [p for v in value for p in _all_parts(v)]
    return []


def _builder(data: dict, keep_width: bool):
    """Builds one array (or norm pair) of Weights from the tensors read, float32 unless ``keep_width``."""
    def build(part):
        if isinstance(part, tuple):
            return tuple(build(p) for p in part)
        arrays = [data[n] for n in part.names]
        if not keep_width:
            arrays = [float32(a) for a in arrays]
        if part.norm:  # norms are small: always float32
            return tuple(float32(a) for a in arrays) + ((None,) if len(arrays) == 1 else ())
        if part.transpose:
            # an nn.Linear weight (out x in) keeps its own layout and is used as its transpose, an in x out view
            # (F-ordered): BLAS multiplies by it quicker than by an in x out copy (a sixth of a forward pass
            # at 16 tokens, the same sums), and nothing is copied. Several (query, key, value) are stacked.
            return np.ascontiguousarray(arrays[0] if len(arrays) == 1 else np.concatenate(arrays, axis=0)).T
        # separate query, key and value weights (and gate, up) go side by side, as GPT-2 stores them
        return np.ascontiguousarray(arrays[0] if len(arrays) == 1 else np.concatenate(arrays, axis=-1))
    return build


def load_weights(arch: Architecture, tensors: TensorFile, folder: Path) -> Weights:
    """Check every tensor the forward pass needs (name and shape) before reading any, then read them layer
    by layer. Weights stay in the checkpoint's width (float16, bfloat16 bits) when float32 copies of them all
    would pass WIDEN_LIMIT bytes; the forward pass widens one layer at a time then."""
    r = _Reader(arch, tensors, folder)
    embeddings = {key: _plan(r, spec) for key, spec in _embedding_names(arch).items()}
    layers = [{key: _plan(r, spec) for key, spec in _layer_names(arch, i).items()} for i in range(arch.n_layers)]
    output = _output_plan(r)
    every = {n for p in _all_parts([embeddings, layers, output]) for n in p.names}
    keep_width = 4 * sum(int(np.prod(tensors.shape(n), dtype=np.int64)) for n in every) > WIDEN_LIMIT

    def read(plan) -> dict:
        names = sorted({n for p in _all_parts(plan) for n in p.names})
        build = _builder(tensors.read(names, keep_width=keep_width), keep_width)
        return {key: build(part) for key, part in plan.items()}

    joined = arch.rope is None and arch.kv_heads == arch.n_heads
    join = JoinedStore(arch.n_layers).join if joined else (lambda layer: layer)
    built = read(embeddings)
    head = None
    if output is not None:
        tied = output["decoder"] == embeddings["word"]
        head = read({k: v for k, v in output.items() if not (tied and k == "decoder")})
        if tied:
            head["decoder"] = built["word"]  # one array for both
    return Weights(
        word=built["word"], position=built.get("position"),
        token_type=built["token_type"][0].copy() if "token_type" in built else None,
        ln_embed=built.get("ln_embed"), ln_final=built.get("ln_final"),
        layers=[join(LayerWeights(**{"b_qkv": None, "b_o": None, "b_in": None, "b_out": None, **read(layer)}))
                for layer in layers],
        output=OutputHead(**head) if head is not None else None,
    )
