"""Scaled dot-product attention, step by step, as one pure function.

    Q = X W^Q            n x d_k
    K = X W^K            n x d_k
    V = X W^V            n x d_v
    S = Q K^T            n x n      raw scores: S[i, j] = q_i . k_j
    Z = S / (sqrt(d_k) * T), masked entries set to -inf
    A = softmax(Z)       rows (over keys) by default; columns in the teaching-bug mode
    O = A V              n x d_v    output: token i's new vector
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

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


@dataclass(frozen=True, eq=False)
class AttentionResult:
    """Every intermediate of one attention computation, as read-only float64 arrays."""

    scenario: Scenario
    q: np.ndarray  # n x d_k
    k: np.ndarray  # n x d_k
    v: np.ndarray  # n x d_v
    scores: np.ndarray  # n x n, raw Q K^T
    scaled: np.ndarray  # n x n, after / sqrt(d_k), / temperature and the mask (-inf where masked)
    weights: np.ndarray  # n x n, softmax as chosen; masked entries exactly 0
    output: np.ndarray  # n x d_v, weights @ V
    allowed: np.ndarray  # n x n bool, False where the mask blocks query i from key j
    divisor: float  # what every raw score was divided by: sqrt(d_k) (if scaling) x temperature

    @property
    def tokens(self) -> tuple:
        return self.scenario.tokens

    @property
    def n(self) -> int:
        return self.scenario.n

    @property
    def softmax_axis(self) -> int:
        return 1 if self.scenario.softmax_over == "keys" else 0


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=np.float64) if a.dtype != bool else np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


def compute(scenario: Scenario) -> AttentionResult:
    """Run attention on ``scenario`` and return every intermediate."""
    s = scenario
    n = s.n
    q = s.x @ s.w_q  # n x d_k
    k = s.x @ s.w_k  # n x d_k
    v = s.x @ s.w_v  # n x d_v
    scores = q @ k.T  # n x n
    divisor = (math.sqrt(s.d_k) if s.scale else 1.0) * s.temperature
    allowed = np.ones((n, n), dtype=bool)
    if s.causal:
        allowed = np.tril(allowed)  # query i sees keys j <= i
    scaled = np.where(allowed, scores / divisor, -np.inf)
    axis = 1 if s.softmax_over == "keys" else 0
    weights = softmax(scaled, axis=axis)
    weights = np.where(allowed, weights, 0.0)
    output = weights @ v  # n x d_v
    return AttentionResult(
        scenario=s,
        q=_frozen(q),
        k=_frozen(k),
        v=_frozen(v),
        scores=_frozen(scores),
        scaled=_frozen(scaled),
        weights=_frozen(weights),
        output=_frozen(output.reshape(n, s.d_v)),
        allowed=_frozen(allowed),
        divisor=divisor,
    )
