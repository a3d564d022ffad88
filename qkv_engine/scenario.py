"""The inputs of one attention computation: tokens, embeddings X, grids W^Q, W^K, W^V, options.

Shapes (n tokens):
    x    n x d_model     one row per token
    w_q  d_model x d_k   query grid
    w_k  d_model x d_k   key grid
    w_v  d_model x d_v   value grid
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np

from .errors import ScenarioError
from .numbers import check_matrix
from .randomness import token_embedding, weight_grid
from .tokenize import MAX_TOKENS, tokenize

SOFTMAX_OVER = ("keys", "queries")
MIN_TEMPERATURE = 1e-3
MAX_TEMPERATURE = 1e3
MAX_DIM = 512


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
        w_q = check_matrix("w_q", self.w_q, (d_model, None))
        d_k = w_q.shape[1]
        if d_k < 1:
            raise ScenarioError("w_q: d_k must be at least 1")
        w_k = check_matrix("w_k", self.w_k, (d_model, d_k))
        w_v = check_matrix("w_v", self.w_v, (d_model, None))
        if w_v.shape[1] < 1:
            raise ScenarioError("w_v: d_v must be at least 1")
        for name, dim in (("d_model", d_model), ("d_k", d_k), ("d_v", w_v.shape[1])):
            if dim > MAX_DIM:
                raise ScenarioError(f"{name}: {dim} is above the limit of {MAX_DIM}")
        for name, a in (("x", x), ("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
            object.__setattr__(self, name, a)
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

    # ----- sizes -------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def d_model(self) -> int:
        return self.x.shape[1]

    @property
    def d_k(self) -> int:
        return self.w_q.shape[1]

    @property
    def d_v(self) -> int:
        return self.w_v.shape[1]

    def __eq__(self, other):
        if not isinstance(other, Scenario):
            return NotImplemented
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if isinstance(a, np.ndarray):
                if a.shape != b.shape or not np.array_equal(a, b):
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
            if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or not 1 <= dim <= MAX_DIM:
                raise ScenarioError(f"{name}: must be a whole number from 1 to {MAX_DIM}, got {dim!r}")
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

    def with_text(self, text: str) -> "Scenario":
        """Re-tokenise ``text``, keeping the embedding row of every token text
        that already appears; new token texts get their seeded embedding."""
        toks = tokenize(text)
        dropped = max(0, len(toks) - MAX_TOKENS)
        toks = toks[:MAX_TOKENS]
        known: dict[str, np.ndarray] = {}
        for tok, row in zip(self.tokens, self.x):
            known.setdefault(tok, row)
        rows = [known[t.text] if t.text in known else token_embedding(t.text, self.d_model, self.seed) for t in toks]
        x = np.array(rows).reshape(len(toks), self.d_model)
        return replace(
            self,
            tokens=tuple(t.text for t in toks),
            x=x,
            text=text,
            spans=tuple((t.start, t.end) for t in toks),
            dropped=dropped,
        )

    def with_cell(self, matrix: str, row: int, col: int, value: float) -> "Scenario":
        """A copy with one entry of ``x``, ``w_q``, ``w_k`` or ``w_v`` changed."""
        if matrix not in ("x", "w_q", "w_k", "w_v"):
            raise ScenarioError(f"{matrix}: not an editable grid")
        a = np.array(getattr(self, matrix))
        if not (0 <= row < a.shape[0] and 0 <= col < a.shape[1]):
            raise ScenarioError(f"{matrix}[{row}][{col}]: outside the {a.shape[0]} x {a.shape[1]} grid")
        a[row, col] = value
        return replace(self, **{matrix: a})

    def with_dims(self, d_model: int | None = None, d_k: int | None = None, d_v: int | None = None) -> "Scenario":
        """Resize the grids, keeping every value that still fits; new cells
        are filled from the seed (the same values ``from_sentence`` would draw)."""
        d_model = self.d_model if d_model is None else d_model
        d_k = self.d_k if d_k is None else d_k
        d_v = self.d_v if d_v is None else d_v
        for name, dim in (("d_model", d_model), ("d_k", d_k), ("d_v", d_v)):
            if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or not 1 <= dim <= MAX_DIM:
                raise ScenarioError(f"{name}: must be a whole number from 1 to {MAX_DIM}, got {dim!r}")

        def fit(old: np.ndarray, fresh: np.ndarray) -> np.ndarray:
            r, c = min(old.shape[0], fresh.shape[0]), min(old.shape[1], fresh.shape[1])
            fresh[:r, :c] = old[:r, :c]
            return fresh

        x = np.array([token_embedding(t, d_model, self.seed) for t in self.tokens]).reshape(self.n, d_model)
        return replace(
            self,
            x=fit(self.x, x),
            w_q=fit(self.w_q, weight_grid("q", d_model, d_k, self.seed)),
            w_k=fit(self.w_k, weight_grid("k", d_model, d_k, self.seed)),
            w_v=fit(self.w_v, weight_grid("v", d_model, d_v, self.seed)),
        )

    def reseeded(self, seed: int) -> "Scenario":
        """Redraw every embedding and grid from a new seed, keeping tokens and options."""
        x = np.array([token_embedding(t, self.d_model, seed) for t in self.tokens]).reshape(self.n, self.d_model)
        return replace(
            self,
            seed=seed,
            x=x,
            w_q=weight_grid("q", self.d_model, self.d_k, seed),
            w_k=weight_grid("k", self.d_model, self.d_k, seed),
            w_v=weight_grid("v", self.d_model, self.d_v, seed),
        )
