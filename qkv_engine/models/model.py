"""A trained model opened from its folder: tokenize, run every layer and head, step into one head.

    model = load_model("/path/to/all-MiniLM-L6-v2")
    trace = model.run("The animal didn't cross the street because it was too tired")
    trace.weights[layer, head]            # n x n attention weights of that head
    scenario = model.head_scenario(trace, layer, head)
    compute(scenario)                      # that head's q, k, v, scores, weights, output, as in the trace
    model.predict(trace, position=-1, k=5) # the next (or masked) token: [(shown text, id, probability), ...]

Nothing is downloaded and nothing is unpickled. Layers and heads count from 0.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import rotary
from ..errors import ModelError
from ..scenario import Scenario
from . import forward
from .architecture import Architecture, architecture, load_weights
from .checkpoint import TensorFile, model_folder, read_config, weight_files, weight_map
from .edits import ModelEdits
from .tokenizer import load_tokenizer

#: Folder names that say nothing about the model in them.
_GENERIC = re.compile(r"^(model|models|checkpoint|checkpoints|checkpoint-\d+|weights|snapshot|output|outputs|final|"
                      r"hf|huggingface|export|[0-9a-f]{40})$", re.IGNORECASE)


#: How tokenizers show a word they do not know.
UNKNOWN_TOKENS = ("[UNK]", "<unk>")

#: The most memory one run may keep, in bytes (forward.run_bytes): every head's n x n weights grow with the
#: square of the sentence, so a long paste into a model of many heads and a long max_tokens (SmolLM2: 270 heads,
#: 8192 tokens, 72 GB) would fill a classroom laptop's memory. A sentence is cut at the tokens that fit.
RUN_MEMORY = 1 << 30


def _readable_bytes(size: int) -> str:
    """1 GB, 300 MB, 50 KB: ``size`` bytes in the largest unit it fills."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size / 1024:.3g} KB"


def token_limit(arch: Architecture, memory: int | None = None) -> int:
    """The most tokens a run of ``arch`` takes: its max_tokens, or fewer when a run on more would keep more
    than ``memory`` bytes (RUN_MEMORY)."""
    memory = RUN_MEMORY if memory is None else memory
    low, high = 1, arch.max_tokens  # run_bytes grows with n: the largest n that fits, by halving
    if forward.run_bytes(arch, high) <= memory:
        return high
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if forward.run_bytes(arch, mid) <= memory else (low, mid - 1)
    return low


#: A model's kind as people write it, by config.json's model_type (else its family).
KIND_NAMES = {"bert": "BERT", "distilbert": "DistilBERT", "gpt2": "GPT-2", "llama": "Llama", "mistral": "Mistral",
              "qwen2": "Qwen2"}


def group_words(n_heads: int, kv_heads: int) -> str:
    """'4 query heads, 2 key/value heads: each key/value head serves 2 query heads' (grouped-query attention)."""
    share = n_heads // kv_heads
    if kv_heads == 1:
        return f"{n_heads} query heads, 1 key/value head: it serves all {n_heads} query heads"
    return f"{n_heads} query heads, {kv_heads} key/value heads: each key/value head serves {share} query heads"


@dataclass(frozen=True)
class ModelInfo:
    """What a model is, for the GUI: sizes, family, and (RoPE models) its rotation."""

    family: str  # "bert" | "gpt2" | "llama" (llama, mistral, qwen2)
    name: str  # readable (see model_name)
    path: Path  # the folder
    n_layers: int
    n_heads: int
    d_model: int
    d_head: int
    max_tokens: int  # max_position_embeddings / n_positions
    causal: bool  # GPT-2: a token sees only itself and the tokens before it
    config_sha256: str
    model_type: str = ""  # config.json's model_type: "bert", "distilbert", "gpt2", "llama", "mistral", "qwen2"
    n_kv_heads: int = 0  # key/value heads; fewer than n_heads in grouped-query models (0: as many as n_heads)
    has_output_head: bool = False  # the trace carries logits and ``predict`` works
    rotary: bool = False  # queries and keys are turned by their positions (RoPE)
    rope_theta: float = 0.0  # RoPE's base theta (0 without rotary positions)
    rope_type: str = ""  # "default", "linear" or "llama3" (scaled speeds); "" without rotary positions
    rope_frequencies: tuple = ()  # d_head/2 speeds f_i (scaling applied): pair i of position p turns by p f_i
    #: the most tokens a run takes: max_tokens, or fewer when every head's weights for more would pass RUN_MEMORY
    #: (0: max_tokens)
    kept_tokens: int = 0

    @property
    def token_limit(self) -> int:
        return self.kept_tokens or self.max_tokens

    @property
    def kind(self) -> str:
        """The model's kind as people write it: "Qwen2", "Llama", "GPT-2" (KIND_NAMES)."""
        kind = self.model_type or self.family
        return KIND_NAMES.get(kind, kind)

    @property
    def shared_heads(self) -> str:
        """How grouped-query attention shares key/value heads, in words (group_words; "" when every head has its
        own)."""
        kv = self.n_kv_heads
        return group_words(self.n_heads, kv) if kv and kv != self.n_heads else ""

    def which_head(self, layer: int, head: int) -> str:
        """'layer 2, head 4 of 8' for 0-based ``layer`` and ``head``."""
        return f"layer {layer + 1}, head {head + 1} of {self.n_heads}"

    @property
    def limit_reason(self) -> str:
        """Why a run keeps at most token_limit tokens, in words for the status line."""
        if self.token_limit < self.max_tokens:
            return (f"every head's attention for more would take over {_readable_bytes(RUN_MEMORY)} of memory "
                    f"(the model itself reads up to {self.max_tokens})")
        return f"this model reads at most {self.max_tokens}"

    @property
    def kv_heads(self) -> int:
        return self.n_kv_heads or self.n_heads

    def kv_head(self, head: int) -> int:
        """The key/value head query head ``head`` reads: head // (n_heads / n_kv_heads)."""
        return head // (self.n_heads // self.kv_heads)


def cache_repo_name(folder: Path) -> str | None:
    """``ORG/NAME`` for a snapshot folder of the Hugging Face cache (models--ORG--NAME/snapshots/REV)."""
    parts = folder.parts
    if len(parts) >= 3 and parts[-2] == "snapshots" and parts[-3].startswith("models--"):
        return "/".join(parts[-3].split("--")[1:]) or None
    return None


def model_name(folder: Path, config: dict) -> str:
    """A readable name: the Hugging Face cache's repository name; else the folder's own name unless it
    is a generic one ("model", a hash); else the tail of config.json's ``_name_or_path``; else the folder name.
    (``_name_or_path`` often names the model a checkpoint was trained from, not the checkpoint itself.)"""
    repo = cache_repo_name(folder)
    if repo:
        return repo
    if folder.name and not _GENERIC.match(folder.name):
        return folder.name
    given = config.get("_name_or_path")
    if isinstance(given, str) and given.strip():
        tail = re.split(r"[\\/]", given.strip().rstrip("/\\"))[-1]
        if tail:
            return tail
    return folder.name or str(folder)


def _frozen(a: np.ndarray) -> np.ndarray:
    """``a`` made read-only, in the layout it has (a run of a few tokens keeps some arrays token-minor)."""
    a = np.asarray(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class ModelTrace:
    """Every layer's and head's numbers for one sentence (read-only float32 arrays; counts from 0)."""

    info: ModelInfo
    text: str
    tokens: tuple  # as shown ("[CLS]", "the", "##s"; GPT-2's space as "␣")
    ids: tuple
    spans: tuple  # (start, end) of each token in text; (0, 0) for [CLS] and [SEP]
    dropped: int  # tokens past the model's token_limit (ModelInfo), left out
    edits: ModelEdits
    attn_input: np.ndarray  # L x n x d: what enters each layer's attention (BERT: hidden state; GPT-2: ln_1 output;
    #                         Llama: input_layernorm output)
    q: np.ndarray  # L x H x n x d_head, biases included: what enters the dot product (RoPE: after the turn)
    k: np.ndarray  # per query head: in grouped-query models each key/value head repeated for the heads reading it
    v: np.ndarray
    context: np.ndarray  # L x H x n x d_head: weights @ v, zero for a knocked-out head
    weights: np.ndarray  # L x H x n x n
    hidden: np.ndarray  # (L + 1) x n x d, as the transformers library's hidden_states
    allowed: np.ndarray  # n x n bool: False where the causal mask hides key j from query i
    q_unrotated: np.ndarray | None = None  # L x H x n x d_head: a W^Q + b^Q before the RoPE turn (q without RoPE)
    k_unrotated: np.ndarray | None = None
    #: the output head: n x d last hidden states -> n x vocab logits (forward.logits), or None (no head)
    output_head: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        rotary.fill_unrotated(self)

    @functools.cached_property
    def scores(self) -> np.ndarray:
        """L x H x n x n: raw q.k, before scaling (worked out from q and k when first asked for, by the same
        product the forward pass used: a run does not keep a second n x n array per head)."""
        return _frozen(np.matmul(self.q, np.swapaxes(self.k, -1, -2)))

    @functools.cached_property
    def logits(self) -> np.ndarray | None:
        """n x vocab float32: the next-token scores at each position (BERT: the masked-token scores), from the
        last hidden state; None when the checkpoint has no output head. Worked out when first asked for: with a
        large vocabulary the head costs as much as the layers, and a panel or a knock-out needs one row
        (``logits_at``)."""
        if self.output_head is None:
            return None
        return _frozen(self.output_head(self.hidden[-1]))

    def logits_at(self, position: int) -> np.ndarray | None:
        """The logits at one position (vocab float32): ``logits[position]`` to float32 rounding (one row is a
        different product for BLAS than all of them), and always worked out the same way, so that every single
        position's numbers (a prediction, a pinned word, a knock-out's effect) agree to the bit."""
        if self.output_head is None:
            return None
        position = range(self.n)[position]  # a negative position counts from the end
        return self.output_head(self.hidden[-1][position:position + 1])[0]

    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def unknown(self) -> tuple:
        """The words of the text the tokenizer did not know (shown as ``[UNK]`` or ``<unk>``), in order."""
        return tuple(self.text[start:end] for token, (start, end) in zip(self.tokens, self.spans)
                     if token in UNKNOWN_TOKENS and end > start)

    @property
    def n_layers(self) -> int:
        return self.info.n_layers

    @property
    def n_heads(self) -> int:
        return self.info.n_heads

    def knocked_out(self, layer: int, head: int) -> bool:
        return (layer, head) in self.edits.knocked_out


_PART = {"q": 0, "k": 1, "v": 2}


class Model:
    """A checkpoint in memory (float32), its tokenizer and its config."""

    def __init__(self, info: ModelInfo, arch: Architecture, weights, tokenizer):
        self.info = info
        self.arch = arch
        self._weights = weights
        self._tokenizer = tokenizer
        self._blocks = forward.RunBlocks()  # the memory of its runs, for later runs when their traces are gone
        self._wide = forward.Widened()  # where its weights are widened, when they are kept narrow

    def __repr__(self) -> str:
        return f"<Model {self.info.name!r}: {self.info.model_type}, {self.info.n_layers} layers x {self.info.n_heads} heads>"

    # ----- text -------------------------------------------------------------------------------------
    def tokenize(self, text: str) -> tuple[tuple, tuple, tuple, int]:
        """(tokens as shown, ids, spans, dropped): see ModelTrace."""
        return self._tokenizer(text)

    # ----- edits --------------------------------------------------------------------------------------
    def _check(self, what: str, value: int, size: int, unit: str) -> None:
        if value >= size:
            raise ModelError(f"edit: {what} {value + 1} is past the model's {size} {unit}")

    def _layer_edits(self, edits: ModelEdits) -> dict:
        """ModelEdits in the forward pass's layout: layer -> LayerEdits, checked against the model's sizes."""
        if not isinstance(edits, ModelEdits):
            raise ModelError("edits: expected a ModelEdits")
        a = self.arch
        d, dh = a.d_model, a.d_head
        out: dict[int, forward.LayerEdits] = {}
        # a query head's W^K, W^V and biases b^K, b^V are its key/value head's: in grouped-query models
        # an edit there changes every query head of that group

        def at(layer):
            self._check("layer", layer, a.n_layers, "layers")
            return out.setdefault(layer, forward.LayerEdits([], [], []))

        for layer, head, name, row, col, value in edits.weights:
            le = at(layer)
            self._check("head", head, a.n_heads, "heads")
            self._check("column", col, dh, "columns of a head")
            index = a.qkv_column(name[-1], head, col)
            if name.startswith("b_"):
                le.qkv.append((-1, index, value))
            else:
                self._check("row", row, d, "rows")
                le.qkv.append((row, index, value))
        for layer, token, dim, value in edits.inputs:
            le = at(layer)
            self._check("number", dim, d, "numbers per token")
            le.inputs.append((token, dim, value))
        for layer, head in sorted(edits.knocked_out):
            le = at(layer)
            self._check("head", head, a.n_heads, "heads")
            le.knocked.append(head)
        for layer, head, vector in edits.fixed_outputs:
            le = at(layer)
            self._check("head", head, a.n_heads, "heads")
            if len(vector) != dh:
                raise ModelError(f"edit: a fixed output of a head has {dh} numbers, got {len(vector)}")
            le.fixed.append((head, np.asarray(vector, dtype=np.float32)))
        return out

    # ----- running -----------------------------------------------------------------------------------
    def run(self, text: str, edits: ModelEdits = ModelEdits(), reuse: ModelTrace | None = None) -> ModelTrace:
        """The whole model on ``text`` (cut at info.token_limit tokens), with ``edits`` applied.

        ``reuse``: an earlier trace of this model; when it read the same text, the layers below the first
        one whose edits changed are taken from it (an edit of layer 5's weights runs layers 5 and 6 only).
        The numbers are the same as a whole run's."""
        layer_edits = self._layer_edits(edits)
        tokens, ids, spans, dropped = self.tokenize(text)
        id_array = np.array(ids, dtype=np.int64)
        if len(ids) and int(id_array.max()) >= self.arch.vocab_size:
            raise ModelError(f"the tokenizer gave token number {int(id_array.max())}, but the model has only "
                             f"{self.arch.vocab_size} tokens: its tokenizer and weights do not match")
        start = self.resume_layer(text, edits, reuse)
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                f = forward.run(self.arch, self._weights, id_array, layer_edits, start, reuse, self._blocks, self._wide)
        except MemoryError:
            need = _readable_bytes(forward.run_bytes(self.arch, len(ids)))
            raise ModelError(f"this computer has no free memory for a run of {len(ids)} tokens (it needs {need}): "
                             f"use a shorter sentence, or close other programs") from None
        # a number that overflowed anywhere reaches the last hidden state (each layer adds to it, or normalises
        # it, where inf and nan stay), so the last one is checked
        if not np.isfinite(f.hidden[-1]).all():
            raise ModelError(f"the model '{self.info.name}' produced numbers too large to compute with "
                             f"(an edit or the checkpoint's weights overflow float32)")
        return ModelTrace(
            info=self.info, text=text, tokens=tokens, ids=ids, spans=spans, dropped=dropped, edits=edits,
            attn_input=_frozen(f.attn_input), q=_frozen(f.q), k=_frozen(f.k), v=_frozen(f.v),
            context=_frozen(f.context), weights=_frozen(f.weights),
            hidden=_frozen(f.hidden), allowed=_frozen(f.allowed),
            q_unrotated=None if f.q_unrotated is None else _frozen(f.q_unrotated),
            k_unrotated=None if f.k_unrotated is None else _frozen(f.k_unrotated),
            output_head=None if self._weights.output is None else functools.partial(
                forward.logits, self.arch, self._weights.output, wide=self._wide),
        )

    def resume_layer(self, text: str, edits: ModelEdits, reuse: ModelTrace | None) -> int:
        """The layer ``run(text, edits, reuse)`` starts from (0: it runs every layer)."""
        if not (isinstance(reuse, ModelTrace) and reuse.info == self.info and reuse.text == text and reuse.ids):
            return 0
        return forward.resume_from(self.arch, self._layer_edits(reuse.edits), self._layer_edits(edits))

    # ----- one head --------------------------------------------------------------------------------------
    def _check_head(self, layer: int, head: int) -> None:
        for what, value, size in (("layer", layer, self.arch.n_layers), ("head", head, self.arch.n_heads)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < size:
                raise ModelError(f"{what} {value!r}: the model has {size} {what}s (counted from 0 here)")

    def head_weights(self, layer: int, head: int, edits: ModelEdits = ModelEdits()) -> dict:
        """That head's w_q, w_k, w_v (d_model x d_head) and b_q, b_k, b_v (d_head), float64, edits applied.
        W^K, W^V, b^K, b^V are those of the key/value head that query head ``head`` reads (grouped-query
        models share them between the query heads of a group); biases are zeros when the model has none."""
        self._check_head(layer, head)
        le = self._layer_edits(edits).get(int(layer))
        w, b = forward.edited_qkv(self._weights.layers[layer], le)
        dh = self.arch.d_head
        out = {}
        for kind in _PART:
            first = self.arch.qkv_column(kind, int(head), 0)
            cols = slice(first, first + dh)
            out["w_" + kind] = np.array(w[:, cols], dtype=np.float64)
            out["b_" + kind] = np.zeros(dh) if b is None else np.array(b[cols], dtype=np.float64)
        return out

    def head_scenario(self, trace: ModelTrace, layer: int, head: int) -> Scenario:
        """Head ``head`` of layer ``layer`` as a one-head Scenario: the tokens, x = what enters that layer's
        attention, the head's slices of W^Q, W^K, W^V and its biases (edits applied; W^K, W^V from the key/value
        head it reads), the causal mask of GPT-2 and Llama, and a RoPE model's rotation (its speeds, positions
        0 .. n-1).
        ``compute`` on it gives the trace's q, k, v, scores and weights for that head, and its output is
        the trace's context (unless the head is knocked out: then the trace's context is zero)."""
        if not isinstance(trace, ModelTrace) or trace.info != self.info:
            raise ModelError("this trace comes from another model: run the sentence again")
        self._check_head(layer, head)
        grids = self.head_weights(layer, head, trace.edits)
        divisor = forward.divisor(self.arch, int(layer))
        scale = self.arch.scale
        temperature = divisor / math.sqrt(self.arch.d_head) if scale else divisor
        rope = self.arch.rope
        rotation = {} if rope is None else dict(
            rotary=True, rope_theta=rope.theta, rope_frequencies=rope.frequencies.astype(np.float64))
        return Scenario(
            tokens=trace.tokens, x=np.asarray(trace.attn_input[layer], dtype=np.float64), **grids,
            scale=scale, causal=self.arch.causal, temperature=float(temperature),
            text=trace.text, spans=trace.spans, dropped=trace.dropped, **rotation,
        )

    # ----- the output ------------------------------------------------------------------------------------
    def predict(self, trace: ModelTrace, position: int, k: int = 5) -> list[tuple[str, int, float]]:
        """The ``k`` most likely tokens at token ``position`` (negative counts from the end), most likely
        first, as (token as shown, token id, probability): GPT-2 and Llama the next token after ``position``,
        BERT the token at ``position`` (a [MASK]). ModelError when the model has no output head."""
        if not isinstance(trace, ModelTrace) or trace.info != self.info:
            raise ModelError("this trace comes from another model: run the sentence again")
        if trace.output_head is None:
            raise ModelError(f"the model '{self.info.name}' has no output head (its checkpoint holds only the "
                             f"layers): it cannot predict tokens")
        n = trace.n
        if isinstance(position, bool) or not isinstance(position, (int, np.integer)) or not -n <= position < n:
            raise ModelError(f"position {position!r}: the sentence has {n} tokens (counted from 0 here)")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ModelError(f"k must be a whole number above 0, got {k!r}")
        z = trace.logits_at(int(position)).astype(np.float64)
        p = np.exp(z - z.max())
        p /= p.sum()
        k = min(int(k), p.size)
        top = np.argpartition(-p, k - 1)[:k]
        top = top[np.lexsort((top, -p[top]))]  # most likely first; ties by id
        return [(self._tokenizer.shown(int(i)), int(i), float(p[i])) for i in top]


def load_model(path) -> Model:
    """Open the model in folder ``path`` (config.json, model.safetensors, tokenizer files).
    Every problem is a ModelError with one line saying what is wrong and where."""
    folder = model_folder(path)
    files = weight_files(folder)  # says what is there instead (a pickle, nothing at all) before anything else
    config, sha = read_config(folder)
    arch = architecture(config, folder)
    kept = token_limit(arch)
    tokenizer = load_tokenizer(folder, arch.family, kept)
    tensors = TensorFile(files, weight_map(folder))
    try:
        weights = load_weights(arch, tensors, folder)
    except MemoryError:
        size = sum(math.prod(tensors.shape(name)) for name in tensors.names()) * 2  # in 16 bits, as kept if large
        raise ModelError(f"the model in {folder} does not fit in this computer's free memory (its weights take "
                         f"at least {_readable_bytes(size)}): close other programs, or open a smaller model") from None
    rope = arch.rope
    info = ModelInfo(
        family=arch.family, name=model_name(folder, config), path=folder, n_layers=arch.n_layers,
        n_heads=arch.n_heads, d_model=arch.d_model, d_head=arch.d_head, max_tokens=arch.max_tokens,
        causal=arch.causal, config_sha256=sha, model_type=arch.model_type, n_kv_heads=arch.kv_heads,
        has_output_head=weights.output is not None, rotary=rope is not None,
        rope_theta=rope.theta if rope is not None else 0.0, rope_type=rope.kind if rope is not None else "",
        rope_frequencies=tuple(float(f) for f in rope.frequencies) if rope is not None else (), kept_tokens=kept,
    )
    return Model(info, arch, weights, tokenizer)
