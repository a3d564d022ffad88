"""Scaled dot-product attention, step by step, as pure functions.

One head (``compute``), n queries and m keys (m = n for self-attention; for
cross-attention the keys and values come from the source sentence X_s):

    Q = X W^Q + b^Q      n x d_k    (b^Q added to every row; biases are 0 unless given)
    K = X_s W^K + b^K    m x d_k    (X_s = X in self-attention)
    V = X_s W^V + b^V    m x d_v
    rotary positions (when the scenario has them on): Q and K turned by their tokens'
    positions (``qkv_engine.rotary``); the result keeps both: ``q``, ``k`` after the
    turn (what the dot product uses), ``q_unrotated``, ``k_unrotated`` before it
    (X W + b). Without rotary positions they are the same arrays.
    S = Q K^T            n x m      raw scores: S[i, j] = q_i . k_j
    Z = S / (sqrt(d_k) * T), masked entries set to -inf
    A = softmax(Z)       rows (over keys) by default; columns in the teaching-bug mode
    O = A V              n x d_v    output: token i's new vector

A row whose keys are all masked has nothing to share its weight over: its
weights are all 0 and its output is the zero vector (never NaN).

Many heads (``compute_heads``): every head h runs the above with its own
blocks W^Q_h, W^K_h, W^V_h; then

    C = [O_1 O_2 ... O_h]   n x (h d_v)   the heads' outputs side by side
    Y = C W^O               n x d_out     (Y = C when there is no W^O)
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from . import rotary
from .scenario import Scenario


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    The largest entry is subtracted before exponentiating, so no finite input
    overflows. ``-inf`` entries (masked) get weight exactly 0; a slice that
    is entirely ``-inf`` gets all zeros rather than NaN.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return x.copy()
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m)
    total = np.sum(e, axis=axis, keepdims=True)
    return e / np.where(total == 0.0, 1.0, total)


class _Sentences:
    """Token names and counts, read from ``self.scenario`` (shared by the one-head and many-head results)."""

    @property
    def tokens(self) -> tuple:
        """The query tokens (rows)."""
        return self.scenario.tokens

    @property
    def key_tokens(self) -> tuple:
        """The key and value tokens (columns): the source sentence's in cross-attention."""
        return self.scenario.key_tokens

    @property
    def n(self) -> int:
        """How many queries (rows)."""
        return self.scenario.n

    @property
    def n_keys(self) -> int:
        """How many keys (columns)."""
        return self.scenario.n_keys


@dataclass(frozen=True, eq=False)
class AttentionResult(_Sentences):
    """Every intermediate of one attention computation, as read-only float64 arrays."""

    scenario: Scenario
    q: np.ndarray  # n x d_k: what enters the dot product (after the rotary turn, when the scenario has one)
    k: np.ndarray  # n x d_k
    v: np.ndarray  # n x d_v
    scores: np.ndarray  # n x n, raw Q K^T
    scaled: np.ndarray  # n x n, after / sqrt(d_k), / temperature and the mask (-inf where masked)
    weights: np.ndarray  # n x n, softmax as chosen; masked entries exactly 0
    output: np.ndarray  # n x d_v, weights @ V
    allowed: np.ndarray  # n x m bool, False where a mask blocks query i from key j
    divisor: float  # what every raw score was divided by: sqrt(d_k) (if scaling) x temperature
    head: int = 0  # which head this is (0 .. n_heads - 1)
    n_heads: int = 1  # how many heads the whole scenario has
    q_unrotated: np.ndarray | None = None  # n x d_k: X W^Q + b^Q before the rotary turn (q itself without one)
    k_unrotated: np.ndarray | None = None  # m x d_k: X_s W^K + b^K before the turn

    def __post_init__(self):
        if self.q_unrotated is None:
            object.__setattr__(self, "q_unrotated", self.q)
        if self.k_unrotated is None:
            object.__setattr__(self, "k_unrotated", self.k)

    @functools.cached_property
    def q_angles(self) -> np.ndarray:
        """n x d_k/2: the angle each query's pair i is turned by (position x f_i); zeros without rotary."""
        return _angles(self.scenario, self.scenario.query_positions)

    @functools.cached_property
    def k_angles(self) -> np.ndarray:
        """m x d_k/2: the angle each key's pair i is turned by; zeros without rotary."""
        return _angles(self.scenario, self.scenario.key_positions)

    @functools.cached_property
    def rows_without_keys(self) -> np.ndarray:
        """n bool: query rows whose keys are all masked (weights all 0, output 0). Worked out once per
        result (several panels ask at each edit)."""
        rows = ~self.allowed.any(axis=1)
        rows.setflags(write=False)
        return rows

    @functools.cached_property
    def masked_by(self) -> np.ndarray:
        """n x m int8: why each cell is masked: 0 open, 1 causal, 2 padding, 3 blocked by hand
        (the first reason that applies, in that order). Worked out once per result."""
        why = mask_reasons(self.scenario)
        why.setflags(write=False)
        return why

    @property
    def softmax_axis(self) -> int:
        return 1 if self.scenario.softmax_over == "keys" else 0


def _angles(s: Scenario, positions: tuple) -> np.ndarray:
    if not s.rotary:
        a = np.zeros((len(positions), s.d_k // 2))
    else:
        a = rotary.angles(positions, s.frequencies).astype(np.float64)
    a.setflags(write=False)
    return a


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=np.float64) if a.dtype != bool else np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


MASK_OPEN, MASK_CAUSAL, MASK_PADDING, MASK_BLOCKED = 0, 1, 2, 3


def mask_reasons(s: Scenario) -> np.ndarray:
    """n x m int8: 0 where query i may look at key j, else the first reason it may not
    (1 causal: key j comes later; 2 padding: key j is padding; 3 blocked by hand).

    Causal applies to self-attention only: two different sentences have no shared order.
    """
    n, m = s.n, s.n_keys
    why = np.zeros((n, m), dtype=np.int8)
    if s.blocked:
        rows, cols = np.array(s.blocked, dtype=np.intp).reshape(-1, 2).T
        why[rows, cols] = MASK_BLOCKED
    if s.padding:
        why[:, list(s.padding)] = MASK_PADDING
    if s.causal and not s.is_cross:
        why[np.triu(np.ones((n, m), dtype=bool), k=1)] = MASK_CAUSAL
    return why


def _one_head(s: Scenario, head: int, n_heads: int) -> AttentionResult:
    n, m = s.n, s.n_keys
    q_raw = s.x @ s.w_q + s.b_q  # n x d_k
    k_raw = s.key_x @ s.w_k + s.b_k  # m x d_k
    v = s.key_x @ s.w_v + s.b_v  # m x d_v
    q, k = q_raw, k_raw
    if s.rotary:  # each pair (i, i + d_k/2) turned by position x f_i
        q = rotary.rotate(q_raw.reshape(n, s.d_k), rotary.angles(s.query_positions, s.frequencies))
        k = rotary.rotate(k_raw.reshape(m, s.d_k), rotary.angles(s.key_positions, s.frequencies))
    scores = q @ k.T  # n x m
    divisor = (math.sqrt(s.d_k) if s.scale else 1.0) * s.temperature
    allowed = mask_reasons(s) == MASK_OPEN
    scaled = np.where(allowed, scores / divisor, -np.inf)
    axis = 1 if s.softmax_over == "keys" else 0
    weights = softmax(scaled, axis=axis)  # an all-masked row (or column) comes out all 0
    weights = np.where(allowed, weights, 0.0)
    output = weights @ v  # n x d_v
    return AttentionResult(
        scenario=s,
        q=_frozen(q.reshape(n, s.d_k)),
        k=_frozen(k.reshape(m, s.d_k)),
        q_unrotated=_frozen(q_raw.reshape(n, s.d_k)) if s.rotary else None,
        k_unrotated=_frozen(k_raw.reshape(m, s.d_k)) if s.rotary else None,
        v=_frozen(v.reshape(m, s.d_v)),
        scores=_frozen(scores.reshape(n, m)),
        scaled=_frozen(scaled.reshape(n, m)),
        weights=_frozen(weights.reshape(n, m)),
        output=_frozen(output.reshape(n, s.d_v)),
        allowed=_frozen(allowed.reshape(n, m)),
        divisor=divisor,
        head=head,
        n_heads=n_heads,
    )


def compute(scenario: Scenario, head: int = 0) -> AttentionResult:
    """Run attention on ``scenario`` (head ``head`` of it, when it has several) and return every
    intermediate. ``result.scenario`` is that head alone, as a one-head scenario."""
    return _one_head(scenario.head(head), head, scenario.n_heads)


@dataclass(frozen=True, eq=False)
class MultiHeadResult(_Sentences):
    """Every head's AttentionResult, their outputs side by side, and the mixed output."""

    scenario: Scenario
    heads: tuple  # AttentionResult per head
    concat: np.ndarray  # n x (h d_v): head 1's output, then head 2's, ...
    projected: np.ndarray  # n x d_out: concat @ W^O (concat itself when there is no W^O)

    @property
    def n_heads(self) -> int:
        return len(self.heads)


def compute_heads(scenario: Scenario) -> MultiHeadResult:
    """Run every head of ``scenario``, then concatenate and project their outputs."""
    s = scenario
    heads = tuple(compute(s, h) for h in range(s.n_heads))
    concat = np.hstack([r.output for r in heads]).reshape(s.n, s.n_heads * s.d_v)
    projected = concat if s.w_o is None else concat @ s.w_o  # n x d_out
    return MultiHeadResult(scenario=s, heads=heads, concat=_frozen(concat),
                           projected=_frozen(projected.reshape(s.n, s.d_out)))
