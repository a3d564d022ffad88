"""The inputs of one attention computation: tokens, embeddings X, grids W^Q, W^K, W^V, options.

Shapes (n tokens, h heads, d_k and d_v per head):
    x         n x d_model        one row per token (the queries' sentence)
    w_q       d_model x (h d_k)  query grid: head 1's columns, then head 2's, ...
    w_k       d_model x (h d_k)  key grid
    w_v       d_model x (h d_v)  value grid
    b_q       h d_k              query bias, added to every query (head 1's entries first)
    b_k       h d_k              key bias
    b_v       h d_v              value bias (all three are zeros unless given)
    w_o       (h d_v) x d_out    output grid that mixes the heads' outputs (None: no mixing,
                                 the output is the heads' outputs side by side)
    source_x  n_s x d_model      cross-attention only: the source sentence, which gives the
                                 keys and values (the queries still come from ``x``)

Masks: ``causal`` (a token sees itself and earlier tokens; self-attention only),
``padding`` (key tokens nobody may look at) and ``blocked`` (single query/key
cells switched off by hand).

Rotary positions (RoPE, as Llama and Qwen2 use): with ``rotary`` on, every query and key
is turned by angles that grow with its position before the dot product (``qkv_engine.rotary``):
pair (i, i + d_k/2) of a token at position p turns by p f_i. The speeds f_i are
``rope_frequencies`` (d_k/2 numbers, a trained model's own) or, when not given,
1 / rope_theta^(2i / d_k). ``positions`` are the query tokens' positions (None: 0 .. n-1);
keys of the source sentence in cross-attention sit at 0 .. m-1. d_k must be even.

Names: ``feature_names`` (one per embedding dimension, e.g. "animate") and
``q_names``, ``k_names``, ``v_names`` (one per column of W^Q, W^K, W^V, e.g.
"looks for animate"); an empty name shows as x1, q1, ... (``qkv_engine.feature_names``).
``new_tokens`` says what a newly typed word gets: seeded random features
("random") or, in designed examples, the features of the word it replaced, else
zeros ("replaced-or-zero").
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np

from .errors import ScenarioError
from .numbers import check_matrix, check_vector
from .new_words import replacement_rows
from .randomness import token_embedding, weight_grid
from .rotary import DEFAULT_THETA, inverse_frequencies
from .word_split import MAX_TOKENS, tokenize

SOFTMAX_OVER = ("keys", "queries")
MIN_TEMPERATURE = 1e-3
MAX_TEMPERATURE = 1e3
MAX_DIM = 1024
BIASES = ("b_q", "b_k", "b_v")
MAX_HEADS = 8
#: What a newly typed token gets: seeded random features, or (designed examples) the
#: features of the word it replaced, else zeros. New grid cells follow the same rule.
NEW_TOKENS = ("random", "replaced-or-zero")
#: The longest name of a feature or a q/k/v column.
MAX_NAME = 40


def _grid_name(kind: str, head: int) -> str:
    """The random-stream name of a head's grid: head 0 keeps the single-head names."""
    return kind if head == 0 else f"{kind}@{head + 1}"


def head_grids(kind: str, d_model: int, d: int, n_heads: int, seed: int) -> np.ndarray:
    """Seeded ``d_model x (n_heads d)`` grid: every head's block side by side."""
    return np.hstack([weight_grid(_grid_name(kind, h), d_model, d, seed) for h in range(n_heads)])


def _check_names(field: str, names, count: int) -> tuple:
    """``names`` as a tuple of ``count`` one-line strings (spaces trimmed); ``()`` means all empty."""
    if names is None or (not isinstance(names, str) and len(names) == 0):
        return ("",) * count
    if isinstance(names, str) or not all(isinstance(v, str) for v in names):
        raise ScenarioError(f"{field}: expected a list of names (text)")
    names = tuple(v.strip() for v in names)
    if len(names) != count:
        raise ScenarioError(f"{field}: expected {count} names, one per column, got {len(names)}")
    for c, v in enumerate(names):
        if len(v) > MAX_NAME or any(not ch.isprintable() for ch in v):
            raise ScenarioError(f"{field}[{c}]: a name is one line of at most {MAX_NAME} characters")
    return names


def _fit_names(old: tuple, count: int) -> tuple:
    """The first ``count`` names of ``old``, padded with empty names."""
    return tuple(old[:count]) + ("",) * max(0, count - len(old))


def _zeros(length: int) -> np.ndarray:
    z = np.zeros(length)
    z.setflags(write=False)
    return z


def _check_int(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ScenarioError(f"{name}: must be a whole number from {low} to {high}, got {value!r}")
    return int(value)


@dataclass(frozen=True, eq=False)
class Scenario:
    """Frozen inputs. Arrays are stored as read-only float64 copies."""

    tokens: tuple
    x: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    scale: bool = True  # divide scores by sqrt(d_k)
    causal: bool = False  # token i may only look at tokens j <= i
    temperature: float = 1.0  # scores are divided by this before softmax
    softmax_over: str = "keys"  # "keys": row-wise (correct); "queries": column-wise (the classic bug)
    # Where the tokens came from (None when built from raw arrays).
    text: str | None = None
    spans: tuple | None = None  # (start, end) of each token in ``text``
    seed: int = 0  # used to fill new embeddings and grid cells
    dropped: int = 0  # tokens of ``text`` beyond MAX_TOKENS that were left out
    # Masks beyond causal.
    padding: tuple = ()  # indices of key tokens marked as padding: no query may look at them
    blocked: tuple = ()  # (query i, key j) cells blocked by hand
    # Multi-head attention.
    n_heads: int = 1
    w_o: np.ndarray | None = None
    # Cross-attention: a second sentence gives the keys and values (None: self-attention).
    source_tokens: tuple | None = None
    source_x: np.ndarray | None = None
    source_text: str | None = None
    source_spans: tuple | None = None
    source_dropped: int = 0
    # Names of the embedding dimensions and of the q/k/v columns ("" shows as x1, q1, ...).
    feature_names: tuple = ()  # d_model names
    q_names: tuple = ()  # one per column of W^Q (every head's)
    k_names: tuple = ()  # one per column of W^K
    v_names: tuple = ()  # one per column of W^V
    new_tokens: str = "random"  # see NEW_TOKENS
    # Biases: q = x W^Q + b^Q, k = x_s W^K + b^K, v = x_s W^V + b^V (None: zeros).
    b_q: np.ndarray | None = None
    b_k: np.ndarray | None = None
    b_v: np.ndarray | None = None
    # Rotary positions (see the module docstring).
    rotary: bool = False
    rope_theta: float = DEFAULT_THETA
    rope_frequencies: np.ndarray | None = None  # d_k / 2 speeds; None: from rope_theta
    positions: tuple | None = None  # the query tokens' positions; None: 0 .. n-1

    def __post_init__(self):
        tokens = self.tokens
        if isinstance(tokens, str) or not all(isinstance(t, str) for t in tokens):
            raise ScenarioError("tokens: expected a list of strings")
        tokens = tuple(tokens)
        object.__setattr__(self, "tokens", tokens)
        n = len(tokens)
        x = check_matrix("x", self.x, (n, None))
        d_model = x.shape[1]
        if d_model < 1:
            raise ScenarioError("x: d_model must be at least 1")
        heads = _check_int("n_heads", self.n_heads, 1, MAX_HEADS)
        object.__setattr__(self, "n_heads", heads)
        w_q = check_matrix("w_q", self.w_q, (d_model, None))
        if w_q.shape[1] < 1 or w_q.shape[1] % heads:
            raise ScenarioError(f"w_q: its {w_q.shape[1]} columns do not split into {heads} heads of d_k >= 1 each")
        d_k = w_q.shape[1] // heads
        w_k = check_matrix("w_k", self.w_k, (d_model, w_q.shape[1]))
        w_v = check_matrix("w_v", self.w_v, (d_model, None))
        if w_v.shape[1] < 1 or w_v.shape[1] % heads:
            raise ScenarioError(f"w_v: its {w_v.shape[1]} columns do not split into {heads} heads of d_v >= 1 each")
        for name, dim in (("d_model", d_model), ("d_k", d_k), ("d_v", w_v.shape[1] // heads)):
            if dim > MAX_DIM:
                raise ScenarioError(f"{name}: {dim} is above the limit of {MAX_DIM}")
        for name, a in (("x", x), ("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
            object.__setattr__(self, name, a)
        for name, grid in (("b_q", w_q), ("b_k", w_k), ("b_v", w_v)):
            b = getattr(self, name)
            object.__setattr__(self, name, _zeros(grid.shape[1]) if b is None else check_vector(name, b, grid.shape[1]))
        if self.w_o is not None:
            w_o = check_matrix("w_o", self.w_o, (w_v.shape[1], None))
            if not 1 <= w_o.shape[1] <= MAX_DIM:
                raise ScenarioError(f"w_o: the output size must be 1 to {MAX_DIM}, got {w_o.shape[1]}")
            object.__setattr__(self, "w_o", w_o)
        # the source sentence (cross-attention)
        if self.source_tokens is not None:
            st = self.source_tokens
            if isinstance(st, str) or not all(isinstance(t, str) for t in st):
                raise ScenarioError("source_tokens: expected a list of strings")
            st = tuple(st)
            object.__setattr__(self, "source_tokens", st)
            if self.source_x is None:
                raise ScenarioError("source_x: missing (the source sentence needs its embeddings)")
            sx = check_matrix("source_x", self.source_x, (len(st), d_model))
            object.__setattr__(self, "source_x", sx)
            if self.source_spans is not None:
                sp = tuple((int(a), int(b)) for a, b in self.source_spans)
                if len(sp) != len(st):
                    raise ScenarioError(f"source_spans: expected {len(st)} spans, one per source token")
                object.__setattr__(self, "source_spans", sp)
            if self.source_text is not None and not isinstance(self.source_text, str):
                raise ScenarioError("source_text: expected a string")
        elif self.source_x is not None:
            raise ScenarioError("source_x: given without source_tokens")
        n_keys = len(self.source_tokens) if self.source_tokens is not None else n
        try:
            pad = tuple(sorted({int(p) for p in self.padding}))
        except (TypeError, ValueError):
            raise ScenarioError("padding: expected a list of token numbers") from None
        if pad and not (0 <= pad[0] and pad[-1] < n_keys):
            raise ScenarioError(f"padding: token numbers must be 0 to {n_keys - 1}")
        object.__setattr__(self, "padding", pad)
        try:
            blocked = tuple(sorted({(int(i), int(j)) for i, j in self.blocked}))
        except (TypeError, ValueError):
            raise ScenarioError("blocked: expected a list of (query, key) pairs") from None
        for i, j in blocked:
            if not (0 <= i < n and 0 <= j < n_keys):
                raise ScenarioError(f"blocked: cell ({i}, {j}) is outside the {n} x {n_keys} weights")
        object.__setattr__(self, "blocked", blocked)
        for name in ("scale", "causal"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise ScenarioError(f"{name}: expected true or false, got {value!r}")
            object.__setattr__(self, name, bool(value))
        try:
            t = float(self.temperature)
        except (TypeError, ValueError):
            raise ScenarioError(f"temperature: expected a number, got {self.temperature!r}") from None
        if not math.isfinite(t) or t <= 0:
            raise ScenarioError(f"temperature: must be a positive number, got {self.temperature!r}")
        if not MIN_TEMPERATURE <= t <= MAX_TEMPERATURE:
            raise ScenarioError(
                f"temperature: {t:g} is outside the range {MIN_TEMPERATURE:g} to {MAX_TEMPERATURE:g}"
            )
        object.__setattr__(self, "temperature", t)
        if self.softmax_over not in SOFTMAX_OVER:
            raise ScenarioError(f"softmax_over: expected 'keys' or 'queries', got {self.softmax_over!r}")
        if self.spans is not None:
            spans = tuple((int(a), int(b)) for a, b in self.spans)
            if len(spans) != n:
                raise ScenarioError(f"spans: expected {n} spans, one per token, got {len(spans)}")
            object.__setattr__(self, "spans", spans)
        if self.text is not None and not isinstance(self.text, str):
            raise ScenarioError("text: expected a string")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)):
            raise ScenarioError(f"seed: expected a whole number, got {self.seed!r}")
        object.__setattr__(self, "seed", int(self.seed))
        self._check_names_and_new_tokens()
        self._check_rotary()

    def _check_rotary(self) -> None:
        if not isinstance(self.rotary, (bool, np.bool_)):
            raise ScenarioError(f"rotary: expected true or false, got {self.rotary!r}")
        object.__setattr__(self, "rotary", bool(self.rotary))
        try:
            theta = float(self.rope_theta)
        except (TypeError, ValueError):
            raise ScenarioError(f"rope_theta: expected a number, got {self.rope_theta!r}") from None
        if isinstance(self.rope_theta, bool) or not (math.isfinite(theta) and theta > 1.0):
            raise ScenarioError(f"rope_theta: must be a number above 1, got {self.rope_theta!r}")
        object.__setattr__(self, "rope_theta", theta)
        if self.rope_frequencies is not None:
            f = check_vector("rope_frequencies", self.rope_frequencies, self.d_k // 2)
            if not (np.all(f > 0) and np.all(np.isfinite(f))):
                raise ScenarioError("rope_frequencies: every speed must be a positive number")
            object.__setattr__(self, "rope_frequencies", f)
        if self.positions is not None:
            try:
                pos = tuple(int(p) for p in self.positions)
            except (TypeError, ValueError):
                raise ScenarioError("positions: expected one whole number per token") from None
            if len(pos) != self.n or any(p < 0 for p in pos):
                raise ScenarioError(f"positions: expected {self.n} whole numbers, 0 or more, one per token")
            object.__setattr__(self, "positions", pos)
        if self.rotary and self.d_k % 2:
            raise ScenarioError(f"rotary positions turn pairs of numbers: d_k must be even, got {self.d_k}")

    def _check_names_and_new_tokens(self) -> None:
        for field, count in (("feature_names", self.d_model), ("q_names", self.w_q.shape[1]),
                             ("k_names", self.w_k.shape[1]), ("v_names", self.w_v.shape[1])):
            object.__setattr__(self, field, _check_names(field, getattr(self, field), count))
        if self.new_tokens not in NEW_TOKENS:
            raise ScenarioError(f"new_tokens: expected one of {', '.join(NEW_TOKENS)}, got {self.new_tokens!r}")

    # ----- sizes -------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def d_model(self) -> int:
        return self.x.shape[1]

    @property
    def d_k(self) -> int:
        """Per head."""
        return self.w_q.shape[1] // self.n_heads

    @property
    def d_v(self) -> int:
        """Per head."""
        return self.w_v.shape[1] // self.n_heads

    @property
    def d_out(self) -> int:
        """Width of the final output: W^O's columns, or all heads' d_v side by side."""
        return self.w_v.shape[1] if self.w_o is None else self.w_o.shape[1]

    @property
    def is_cross(self) -> bool:
        return self.source_tokens is not None

    @property
    def key_tokens(self) -> tuple:
        """The tokens that give keys and values: the source sentence's, or the sentence's own."""
        return self.source_tokens if self.source_tokens is not None else self.tokens

    @property
    def key_x(self) -> np.ndarray:
        return self.source_x if self.source_x is not None else self.x

    @property
    def n_keys(self) -> int:
        return len(self.key_tokens)

    def head(self, h: int) -> "Scenario":
        """Head ``h`` alone, as a one-head scenario (its blocks of W^Q, W^K, W^V; no W^O)."""
        _check_int("head", h, 0, self.n_heads - 1)
        if self.n_heads == 1 and self.w_o is None:
            return self
        dk, dv = self.d_k, self.d_v
        return replace(self, n_heads=1, w_o=None,
                       w_q=self.w_q[:, h * dk:(h + 1) * dk], w_k=self.w_k[:, h * dk:(h + 1) * dk],
                       w_v=self.w_v[:, h * dv:(h + 1) * dv],
                       q_names=self.q_names[h * dk:(h + 1) * dk], k_names=self.k_names[h * dk:(h + 1) * dk],
                       v_names=self.v_names[h * dv:(h + 1) * dv],
                       b_q=self.b_q[h * dk:(h + 1) * dk], b_k=self.b_k[h * dk:(h + 1) * dk],
                       b_v=self.b_v[h * dv:(h + 1) * dv])

    @property
    def frequencies(self) -> np.ndarray:
        """d_k/2 rotation speeds f_i: ``rope_frequencies`` or 1 / rope_theta^(2i / d_k) (float64)."""
        if self.rope_frequencies is not None:
            return self.rope_frequencies
        if self.d_k < 2:
            return np.zeros(0)
        return inverse_frequencies(self.d_k - self.d_k % 2, self.rope_theta).astype(np.float64)

    @property
    def query_positions(self) -> tuple:
        """Each query token's position (0 .. n-1 unless ``positions`` says otherwise)."""
        return self.positions if self.positions is not None else tuple(range(self.n))

    @property
    def key_positions(self) -> tuple:
        """Each key token's position: the queries' own in self-attention, 0 .. m-1 for a source sentence."""
        return tuple(range(self.n_keys)) if self.is_cross else self.query_positions

    @property
    def has_bias(self) -> bool:
        """True when any bias entry is not zero."""
        return bool(self.b_q.any() or self.b_k.any() or self.b_v.any())

    def __eq__(self, other):
        if not isinstance(other, Scenario):
            return NotImplemented
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):  # an array, or an array against None
                if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape \
                        or not np.array_equal(a, b):
                    return False
            elif a != b:
                return False
        return True

    __hash__ = None

    # ----- building ----------------------------------------------------------
    @classmethod
    def from_sentence(cls, text: str, d_model: int = 4, d_k: int = 2, d_v: int = 3, seed: int = 0, **options):
        """Tokenise ``text`` and draw embeddings and grids from ``seed``.

        Each distinct token text gets one embedding row (the same wherever it
        appears); grids are drawn from the seed. Only the first MAX_TOKENS
        tokens are kept; ``dropped`` counts the rest.
        """
        if not isinstance(text, str):
            raise ScenarioError("text: expected a string")
        for name, dim in (("d_model", d_model), ("d_k", d_k), ("d_v", d_v)):
            _check_int(name, dim, 1, MAX_DIM)
        toks = tokenize(text)
        dropped = max(0, len(toks) - MAX_TOKENS)
        toks = toks[:MAX_TOKENS]
        x = np.array([token_embedding(t.text, d_model, seed) for t in toks]).reshape(len(toks), d_model)
        return cls(
            tokens=tuple(t.text for t in toks),
            x=x,
            w_q=weight_grid("q", d_model, d_k, seed),
            w_k=weight_grid("k", d_model, d_k, seed),
            w_v=weight_grid("v", d_model, d_v, seed),
            text=text,
            spans=tuple((t.start, t.end) for t in toks),
            seed=seed,
            dropped=dropped,
            **options,
        )

    def with_options(self, **changes) -> "Scenario":
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def _known_rows(self) -> dict:
        """Token text -> embedding row, from the sentence and then the source sentence."""
        known: dict[str, np.ndarray] = {}
        for tok, row in zip(self.tokens, self.x):
            known.setdefault(tok, row)
        if self.source_tokens is not None:
            for tok, row in zip(self.source_tokens, self.source_x):
                known.setdefault(tok, row)
        return known

    def _rows_for(self, texts, known: dict, old_tokens: tuple = (), old_x=None) -> np.ndarray:
        """Rows for token ``texts``: a known text keeps its row; a new one gets its seeded row, or in
        "replaced-or-zero" mode the row of the old token it was typed over, else zeros."""
        if self.new_tokens == "replaced-or-zero" and len(old_tokens):
            known = {**replacement_rows(old_tokens, old_x, tuple(texts)), **known}
        rows = [known[t] if t in known else self._new_row(t, self.d_model, self.seed) for t in texts]
        return np.array(rows).reshape(len(rows), self.d_model)

    def _new_row(self, text: str, d_model: int, seed: int) -> np.ndarray:
        """A fresh embedding row: seeded, or zeros in "replaced-or-zero" mode."""
        if self.new_tokens == "replaced-or-zero":
            return np.zeros(d_model)
        return token_embedding(text, d_model, seed)

    def _new_grid(self, name: str, rows: int, cols: int, seed: int) -> np.ndarray:
        """A fresh grid block: seeded, or zeros in "replaced-or-zero" mode."""
        if self.new_tokens == "replaced-or-zero":
            return np.zeros((rows, cols))
        return weight_grid(name, rows, cols, seed)

    def _masks_within(self, queries: tuple, keys: tuple) -> dict:
        """padding and blocked for new query and key tokens: an entry stays only where its
        tokens are still there, at the same place, with the same text."""
        old_q, old_k = self.tokens, self.key_tokens

        def same(new, old, i):
            return i < len(new) and i < len(old) and new[i] == old[i]

        return {
            "padding": tuple(p for p in self.padding if same(keys, old_k, p)),
            "blocked": tuple((i, j) for i, j in self.blocked if same(queries, old_q, i) and same(keys, old_k, j)),
        }

    def with_text(self, text: str) -> "Scenario":
        """Re-tokenise ``text``, keeping the embedding row of every token text
        that already appears; new token texts get their seeded embedding (in
        "replaced-or-zero" mode: the row of the word they replaced, else zeros;
        ``new_words.describe`` says which). A padding mark or blocked cell stays
        only where its tokens are unchanged."""
        toks = tokenize(text)
        dropped = max(0, len(toks) - MAX_TOKENS)
        toks = toks[:MAX_TOKENS]
        x = self._rows_for([t.text for t in toks], self._known_rows(), self.tokens, self.x)
        tokens = tuple(t.text for t in toks)
        return replace(
            self,
            tokens=tokens,
            x=x,
            text=text,
            spans=tuple((t.start, t.end) for t in toks),
            dropped=dropped,
            positions=None,
            **self._masks_within(tokens, self.key_tokens if self.is_cross else tokens),
        )

    def with_source(self, text: str | None) -> "Scenario":
        """Cross-attention with ``text`` as the source sentence (its tokens give keys and values);
        ``None`` goes back to self-attention. Known token texts keep their embedding rows."""
        if text is None:
            return replace(self, source_tokens=None, source_x=None, source_text=None, source_spans=None,
                           source_dropped=0, **self._masks_within(self.tokens, self.tokens))
        if not isinstance(text, str):
            raise ScenarioError("source text: expected a string")
        toks = tokenize(text)
        dropped = max(0, len(toks) - MAX_TOKENS)
        toks = toks[:MAX_TOKENS]
        sx = self._rows_for([t.text for t in toks], self._known_rows(), self.source_tokens or (), self.source_x)
        return replace(
            self,
            source_tokens=tuple(t.text for t in toks),
            source_x=sx,
            source_text=text,
            source_spans=tuple((t.start, t.end) for t in toks),
            source_dropped=dropped,
            **self._masks_within(self.tokens, tuple(t.text for t in toks)),
        )

    def with_padding(self, key: int, on: bool = True) -> "Scenario":
        """Mark key token ``key`` as padding (``on``) or as a real token again."""
        _check_int("padding token", key, 0, max(0, self.n_keys - 1))
        pad = set(self.padding)
        (pad.add if on else pad.discard)(int(key))
        return replace(self, padding=tuple(sorted(pad)))

    def with_blocked(self, query: int, key: int, on: bool = True) -> "Scenario":
        """Block (``on``) or unblock the single cell query ``query`` -> key ``key``."""
        _check_int("query", query, 0, max(0, self.n - 1))
        _check_int("key", key, 0, max(0, self.n_keys - 1))
        cells = set(self.blocked)
        (cells.add if on else cells.discard)((int(query), int(key)))
        return replace(self, blocked=tuple(sorted(cells)))

    def without_masks(self) -> "Scenario":
        """No padding and no blocked cells (causal is an option and stays as it is)."""
        return replace(self, padding=(), blocked=())

    def with_cell(self, matrix: str, row: int, col: int, value: float) -> "Scenario":
        """A copy with one entry of ``x``, ``w_q``, ``w_k``, ``w_v``, ``w_o``, ``source_x`` or a bias
        changed. A bias (``b_q``, ``b_k``, ``b_v``) is a grid of one row: ``row`` is 0."""
        editable = ("x", "w_q", "w_k", "w_v", "w_o", "source_x") + BIASES
        if matrix not in editable or getattr(self, matrix) is None:
            raise ScenarioError(f"{matrix}: not an editable grid")
        a = np.array(getattr(self, matrix))
        grid = a.reshape(1, -1) if a.ndim == 1 else a
        if not (0 <= row < grid.shape[0] and 0 <= col < grid.shape[1]):
            raise ScenarioError(f"{matrix}[{row}][{col}]: outside the {grid.shape[0]} x {grid.shape[1]} grid")
        grid[row, col] = value
        return replace(self, **{matrix: a})

    def with_feature_name(self, dim: int, name: str) -> "Scenario":
        """A copy where embedding dimension ``dim`` (0-based) is called ``name`` ("" for none)."""
        _check_int("feature", dim, 0, self.d_model - 1)
        if not isinstance(name, str):
            raise ScenarioError(f"feature name: expected text, got {name!r}")
        names = list(self.feature_names)
        names[dim] = name
        return replace(self, feature_names=tuple(names))

    def with_column_name(self, which: str, col: int, name: str) -> "Scenario":
        """A copy where column ``col`` of W^Q, W^K or W^V (``which`` = "q", "k", "v"; every head's
        columns counted together) is called ``name``, e.g. "looks for animate" ("" for none)."""
        if which not in ("q", "k", "v"):
            raise ScenarioError(f"which: expected 'q', 'k' or 'v', got {which!r}")
        names = list(getattr(self, which + "_names"))
        _check_int(f"{which} column", col, 0, len(names) - 1)
        if not isinstance(name, str):
            raise ScenarioError(f"{which} column name: expected text, got {name!r}")
        names[col] = name
        return replace(self, **{which + "_names": tuple(names)})

    def _grids(self, d_model: int, d_k: int, d_v: int, n_heads: int, seed: int, keep: bool) -> dict:
        """W^Q, W^K, W^V (and W^O) for these sizes, drawn from ``seed``; with ``keep``, every
        value of the current grids that still fits stays (head by head), new cells follow
        ``new_tokens`` (zeros in a designed example), and so do the column names. The biases b^Q,
        b^K, b^V keep every entry that still fits whatever ``keep`` says; new entries are 0."""
        fresh_grid = self._new_grid if keep else weight_grid

        def fit(old: np.ndarray, fresh: np.ndarray) -> np.ndarray:
            r, c = min(old.shape[0], fresh.shape[0]), min(old.shape[1], fresh.shape[1])
            fresh[:r, :c] = old[:r, :c]
            return fresh

        out = {}
        for kind, d, old_d in (("q", d_k, self.d_k), ("k", d_k, self.d_k), ("v", d_v, self.d_v)):
            old = getattr(self, "w_" + kind)
            old_b = getattr(self, "b_" + kind)
            blocks, biases = [], []
            for h in range(n_heads):
                fresh = fresh_grid(_grid_name(kind, h), d_model, d, seed)
                bias = np.zeros(d)
                if h < self.n_heads:  # biases are never drawn from the seed: they stay, new entries 0
                    kept = old_b[h * old_d:(h + 1) * old_d][:d]
                    bias[:len(kept)] = kept
                if keep and h < self.n_heads:
                    fresh = fit(old[:, h * old_d:(h + 1) * old_d], fresh)
                blocks.append(fresh)
                biases.append(bias)
            out["w_" + kind] = np.hstack(blocks)
            out["b_" + kind] = np.concatenate(biases)
        if n_heads == 1 and (self.w_o is None or not keep):
            out["w_o"] = None
        else:
            d_out = self.d_out if (keep and self.w_o is not None) else d_model
            blocks = []
            for h in range(n_heads):
                fresh = fresh_grid(_grid_name("o", h), d_v, d_out, seed)
                if keep and self.w_o is not None and h < self.n_heads:
                    fresh = fit(self.w_o[h * self.d_v:(h + 1) * self.d_v], fresh)
                blocks.append(fresh)
            out["w_o"] = np.vstack(blocks)
        for kind, d, old_d in (("q", d_k, self.d_k), ("k", d_k, self.d_k), ("v", d_v, self.d_v)):
            old = getattr(self, kind + "_names")
            out[kind + "_names"] = sum((_fit_names(old[h * old_d:(h + 1) * old_d] if h < self.n_heads else (), d)
                                        for h in range(n_heads)), ())
        return out

    def with_dims(self, d_model: int | None = None, d_k: int | None = None, d_v: int | None = None) -> "Scenario":
        """Resize the grids (d_k and d_v per head), keeping every value and name that still fits; new
        cells are filled from the seed (the same values ``from_sentence`` would draw), or with zeros
        in "replaced-or-zero" mode."""
        d_model = self.d_model if d_model is None else d_model
        d_k = self.d_k if d_k is None else d_k
        d_v = self.d_v if d_v is None else d_v
        for name, dim in (("d_model", d_model), ("d_k", d_k), ("d_v", d_v)):
            _check_int(name, dim, 1, MAX_DIM)

        def fit(old: np.ndarray, fresh: np.ndarray) -> np.ndarray:
            r, c = min(old.shape[0], fresh.shape[0]), min(old.shape[1], fresh.shape[1])
            fresh[:r, :c] = old[:r, :c]
            return fresh

        x = np.array([self._new_row(t, d_model, self.seed) for t in self.tokens]).reshape(self.n, d_model)
        changes = {"x": fit(self.x, x), "feature_names": _fit_names(self.feature_names, d_model)}
        if self.is_cross:
            sx = np.array([self._new_row(t, d_model, self.seed) for t in self.source_tokens])
            changes["source_x"] = fit(self.source_x, sx.reshape(len(self.source_tokens), d_model))
        changes.update(self._grids(d_model, d_k, d_v, self.n_heads, self.seed, keep=True))
        return replace(self, **changes)

    def with_heads(self, n_heads: int) -> "Scenario":
        """Split attention into ``n_heads`` heads, each with its own W^Q, W^K, W^V blocks of the
        current per-head d_k and d_v. Heads that stay keep their grids and column names; new ones
        are drawn from the seed (zeros in "replaced-or-zero" mode). More than one head gets an
        output grid W^O ((n_heads d_v) x d_model); one head has none (its output is the head's
        output)."""
        n_heads = _check_int("heads", n_heads, 1, MAX_HEADS)
        grids = self._grids(self.d_model, self.d_k, self.d_v, n_heads, self.seed, keep=True)
        if n_heads == 1:
            grids["w_o"] = None
        return replace(self, n_heads=n_heads, **grids)

    def reseeded(self, seed: int) -> "Scenario":
        """Redraw every embedding and grid from a new seed, keeping tokens, heads, masks, biases, names
        and options. The numbers are random now, so new words get random features too."""
        x = np.array([token_embedding(t, self.d_model, seed) for t in self.tokens]).reshape(self.n, self.d_model)
        changes = {"seed": seed, "x": x, "new_tokens": "random"}
        if self.is_cross:
            sx = np.array([token_embedding(t, self.d_model, seed) for t in self.source_tokens])
            changes["source_x"] = sx.reshape(len(self.source_tokens), self.d_model)
        changes.update(self._grids(self.d_model, self.d_k, self.d_v, self.n_heads, seed, keep=False))
        if self.n_heads == 1 and self.w_o is not None:
            changes["w_o"] = weight_grid("o", self.d_v, self.d_out, seed)
        return replace(self, **changes)
