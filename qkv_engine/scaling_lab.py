"""The √d_k lab: why attention divides its scores by √d_k, measured on random vectors.

For a chosen d_k, ``scaling_lab`` draws ``samples`` query/key pairs whose
d_k components are independent N(0, 1) numbers (numpy ``Generator`` seeded
with ``seed``, so the same seed gives the same numbers). Each raw score q·k
is a sum of d_k products of variance 1, so its variance is d_k; dividing by
√d_k brings it back to 1. The result holds

* the raw and scaled scores (pair s is query s with key s), their measured variances next to the predicted
  d_k and 1, and histograms of both on one shared set of bins;
* one softmax row: the first query against the first ``row_length`` keys,
  with and without scaling: its weights, largest weight, entropy (bits) and
  the largest entry, in absolute value, of the softmax Jacobian
  J = diag(p) - p pᵀ (how strongly the weights still respond to the scores:
  near 0 means learning stalls);
* a sweep over d_k = 1, 2, 4, ..., 512 of the same row quantities, each the
  mean over the ``samples // row_length`` rows the draws make (query r
  against keys r*L .. r*L+L-1; the lab's own row is row 0). It does not
  depend on the chosen d_k, so the curve stays put while the slider moves.

The vectors are drawn once per (seed, samples) at full length 512 and d_k
uses their first d_k components: moving the slider only adds or removes
components, and costs a dot product, not a new draw.

Every array in the result is read-only.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .errors import ScenarioError

MIN_DK, MAX_DK = 1, 512
DEFAULT_SAMPLES = 2000
DEFAULT_ROW_LENGTH = 16
MAX_SAMPLES = 20_000
MAX_SEED = 2 ** 31 - 1
#: The d_k values of the sweep: powers of two from 1 to 512.
SWEEP_DKS = tuple(2 ** i for i in range(10))
#: Number of histogram bins (shared by the raw and the scaled scores).
BINS = 48


def _frozen(a) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class RowStats:
    """What softmax does to one row of scores."""

    scores: np.ndarray  # row_length, the scores fed to softmax
    weights: np.ndarray  # row_length, softmax of the scores
    max_weight: float  # the largest weight
    entropy: float  # -sum p log2 p, in bits (0: all on one key; log2(row_length): even)
    max_jacobian: float  # largest |J_ab| of J = diag(p) - p p^T


@dataclass(frozen=True)
class Sweep:
    """Row quantities at each d_k of ``SWEEP_DKS``, each the mean over ``rows`` random rows."""

    d_k: np.ndarray
    rows: int
    raw_max_weight: np.ndarray
    scaled_max_weight: np.ndarray
    raw_entropy: np.ndarray
    scaled_entropy: np.ndarray
    raw_max_jacobian: np.ndarray
    scaled_max_jacobian: np.ndarray


@dataclass(frozen=True)
class LabResult:
    d_k: int
    samples: int
    row_length: int
    seed: int
    raw: np.ndarray  # samples, q·k
    scaled: np.ndarray  # samples, q·k / sqrt(d_k)
    raw_variance: float  # measured (sample variance, ddof=1)
    scaled_variance: float
    predicted_raw_variance: float  # d_k
    predicted_scaled_variance: float  # 1
    edges: np.ndarray  # BINS + 1, shared by both histograms
    raw_counts: np.ndarray  # BINS
    scaled_counts: np.ndarray  # BINS
    raw_row: RowStats
    scaled_row: RowStats
    sweep: Sweep

    @property
    def divisor(self) -> float:
        """√d_k, what the scaled scores are divided by."""
        return math.sqrt(self.d_k)

    def variance_standard_error(self, predicted: float) -> float:
        """Standard error of a sample variance of ``samples`` normal numbers with variance ``predicted``."""
        return predicted * math.sqrt(2.0 / (self.samples - 1))


# ----- softmax row quantities (vectorised over leading axes) --------------------------------------------
def softmax_rows(scores) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def entropy_bits(p) -> np.ndarray:
    """-sum p log2 p over the last axis, with 0 log 0 = 0."""
    p = np.asarray(p, dtype=np.float64)
    safe = np.where(p > 0, p, 1.0)
    return -(p * np.log2(safe)).sum(axis=-1)


def softmax_jacobian(p) -> np.ndarray:
    """J = diag(p) - p p^T for each row of ``p`` (shape ... x L x L)."""
    p = np.asarray(p, dtype=np.float64)
    eye = np.eye(p.shape[-1])
    return p[..., :, None] * eye - p[..., :, None] * p[..., None, :]


def max_abs_jacobian(p) -> np.ndarray:
    return np.abs(softmax_jacobian(p)).max(axis=(-2, -1))


def row_stats(scores) -> RowStats:
    p = softmax_rows(scores)
    return RowStats(
        scores=_frozen(scores),
        weights=_frozen(p),
        max_weight=float(p.max()),
        entropy=float(entropy_bits(p)),
        max_jacobian=float(max_abs_jacobian(p)),
    )


# ----- checks ------------------------------------------------------------------------------------------
def _check_int(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ScenarioError(f"{name}: expected a whole number from {low} to {high}, got {value!r}")
    value = int(value)
    if not low <= value <= high:
        raise ScenarioError(f"{name}: must be from {low} to {high}, got {value}")
    return value


@lru_cache(maxsize=4)
def _pool(seed: int, samples: int):
    """``samples`` query and key vectors of length ``MAX_DK`` (read-only); d_k uses the first d_k components.

    So growing d_k keeps every component already drawn: only new ones are added.
    """
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((samples, MAX_DK))
    k = rng.standard_normal((samples, MAX_DK))
    q.setflags(write=False)
    k.setflags(write=False)
    return q, k


def _sweep(q: np.ndarray, k: np.ndarray, row_length: int) -> Sweep:
    """Row quantities at each of ``SWEEP_DKS``: row r is query r against keys r*L .. r*L + L - 1."""
    rows = k.shape[0] // row_length
    cols = {key: [] for key in ("rmw", "smw", "re", "se", "rj", "sj")}
    for d in SWEEP_DKS:
        qs = q[:rows, :d]
        ks = k[: rows * row_length, :d].reshape(rows, row_length, d)
        raw = np.einsum("rd,rld->rl", qs, ks)
        for prefix, s in (("r", raw), ("s", raw / math.sqrt(d))):
            p = softmax_rows(s)
            cols[prefix + "mw"].append(p.max(axis=-1).mean())
            cols[prefix + "e"].append(entropy_bits(p).mean())
            cols[prefix + "j"].append(max_abs_jacobian(p).mean())
    return Sweep(
        d_k=_frozen(SWEEP_DKS), rows=rows,
        raw_max_weight=_frozen(cols["rmw"]), scaled_max_weight=_frozen(cols["smw"]),
        raw_entropy=_frozen(cols["re"]), scaled_entropy=_frozen(cols["se"]),
        raw_max_jacobian=_frozen(cols["rj"]), scaled_max_jacobian=_frozen(cols["sj"]),
    )


@lru_cache(maxsize=8)
def sweep(seed: int = 0, samples: int = DEFAULT_SAMPLES, row_length: int = DEFAULT_ROW_LENGTH) -> Sweep:
    """Mean largest weight, entropy and largest Jacobian entry at each of ``SWEEP_DKS``, over the
    ``samples // row_length`` rows the draws make (the lab's own row is the first of them)."""
    seed = _check_int("seed", seed, 0, MAX_SEED)
    samples = _check_int("samples", samples, 2, MAX_SAMPLES)
    row_length = _check_int("row_length", row_length, 2, samples)
    return _sweep(*_pool(seed, samples), row_length)


def shared_edges(raw, scaled, bins: int = BINS) -> np.ndarray:
    """``bins`` equal bins, symmetric about 0, covering every raw and scaled score."""
    top = max(float(np.abs(raw).max(initial=0.0)), float(np.abs(scaled).max(initial=0.0)), 1e-9)
    return np.linspace(-top * 1.02, top * 1.02, bins + 1)


def scaling_lab(d_k: int, samples: int = DEFAULT_SAMPLES, row_length: int = DEFAULT_ROW_LENGTH,
                seed: int = 0) -> LabResult:
    """Draw ``samples`` random q, k pairs of length ``d_k`` and measure what scaling by √d_k does."""
    d_k = _check_int("d_k", d_k, MIN_DK, MAX_DK)
    samples = _check_int("samples", samples, 2, MAX_SAMPLES)
    row_length = _check_int("row_length", row_length, 2, samples)
    seed = _check_int("seed", seed, 0, MAX_SEED)
    pool_q, pool_k = _pool(seed, samples)
    q, k = pool_q[:, :d_k], pool_k[:, :d_k]
    raw = np.einsum("sd,sd->s", q, k)
    divisor = math.sqrt(d_k)
    scaled = raw / divisor
    edges = shared_edges(raw, scaled)
    raw_counts, _ = np.histogram(raw, edges)
    scaled_counts, _ = np.histogram(scaled, edges)
    # One softmax row: query 1 against keys 1..row_length.
    row = k[:row_length] @ q[0]
    return LabResult(
        d_k=d_k, samples=samples, row_length=row_length, seed=seed,
        raw=_frozen(raw), scaled=_frozen(scaled),
        raw_variance=float(raw.var(ddof=1)), scaled_variance=float(scaled.var(ddof=1)),
        predicted_raw_variance=float(d_k), predicted_scaled_variance=1.0,
        edges=_frozen(edges), raw_counts=_frozen(raw_counts), scaled_counts=_frozen(scaled_counts),
        raw_row=row_stats(row), scaled_row=row_stats(row / divisor),
        sweep=sweep(seed, samples, row_length),
    )
