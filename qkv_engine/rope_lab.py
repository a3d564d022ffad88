"""Numbers for rotary positions (RoPE) as the q·k plane and the RoPE lab show them.

A query q at position m and a key k at position n are both turned (``qkv_engine.rotary``): pair i,
coordinates (i, i + d/2), turns by m f_i and n f_i. Their score is the sum of what each pair adds,

    part_i = q'_i k'_i + q'_{i+d/2} k'_{i+d/2}            (q', k' after the turn)

plus, for an odd d, the last coordinates' product (they have no partner and are never turned). Every
number here is worked out by turning the vectors (``rotary.rotate``), never by a shortcut formula, so the
lab shows what the model does:

    pair_parts(q_turned, k_turned)            d/2 parts of q'·k'
    chosen_pair(result, i, j, "most")         which pair the q·k plane draws ("most", "fastest", "slowest")
    pair_turn(result, i, j, p)                the turns of q and k in pair p (position, speed, angle)
    lab_curves(q, k, theta, m, n)             the score over the distance m - n, the same shifted, each
                                              pair's part, and the score along m at a fixed distance
    parse_theta("10000")                      θ typed by a user, or a ScenarioError saying what is wrong
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import rotary
from .errors import ScenarioError

#: What the q·k plane can draw: the pair that adds most (in size) to q·k, the fastest- or slowest-turning.
PAIR_CHOICES = ("most", "fastest", "slowest")
#: θ as a user may type it: above 1 (θ = 1 turns every pair at the same speed), at most this.
MAX_THETA = 1e9
#: The lab's positions run 0 .. MAX_POSITION.
MAX_POSITION = 64
#: The lab's second set of points: both positions moved on by this much (the same distances).
SHIFT = 20


def parse_theta(text) -> float:
    """θ from what a user typed: a number above 1 and at most ``MAX_THETA`` (spaces and thousands commas
    allowed). Raises ``ScenarioError`` with a sentence saying what is wrong."""
    raw = str(text).strip().replace(",", "").replace(" ", "").replace("\u202f", "").replace("_", "")
    try:
        theta = float(raw)
    except ValueError:
        raise ScenarioError(f"θ must be a number, such as 10000 (got '{str(text).strip()}')") from None
    if not math.isfinite(theta) or theta > MAX_THETA:
        raise ScenarioError(f"θ = {str(text).strip()} is too big: at most {MAX_THETA:,.0f} "
                            f"(Llama uses 10,000 or 500,000)")
    if theta <= 1.0:
        raise ScenarioError(f"θ must be above 1 (got {str(text).strip()}): with θ = 1 every pair turns at "
                            f"the same speed, and below 1 the slow pairs would be the fast ones")
    return theta


def pair_parts(q_turned, k_turned) -> np.ndarray:
    """d/2 numbers: what each pair (i, i + d/2) of the turned q and k adds to their dot product."""
    q = np.asarray(q_turned, dtype=np.float64)
    k = np.asarray(k_turned, dtype=np.float64)
    half = q.shape[-1] // 2
    return q[..., :half] * k[..., :half] + q[..., half:2 * half] * k[..., half:2 * half]


def chosen_pair(result, i: int, j: int, choice: str) -> int:
    """The pair (0-based) the q·k plane draws for query ``i`` and key ``j`` of a rotary ``result``: "most"
    the pair whose part of q·k is largest in size, "fastest" the one with the largest speed f_i, "slowest"
    the smallest."""
    if choice not in PAIR_CHOICES:
        raise ValueError(f"choice: one of {PAIR_CHOICES}, got {choice!r}")
    if choice == "most":
        return int(np.argmax(np.abs(pair_parts(result.q[i], result.k[j]))))
    f = np.asarray(result.scenario.frequencies)
    return int(np.argmax(f) if choice == "fastest" else np.argmin(f))


@dataclass(frozen=True)
class PairTurn:
    """One pair of a query and a key: where they sit, how fast the pair turns and by how much."""

    pair: int  # 0-based pair index: coordinates pair and pair + d/2
    partner: int  # pair + d/2
    speed: float  # f_i, radians per position
    query_position: int
    key_position: int
    query_angle: float  # radians: query_position x speed (as the engine turned it)
    key_angle: float
    q_before: tuple  # (q_i, q_{i+d/2}) before the turn
    q_after: tuple
    k_before: tuple
    k_after: tuple
    part: float  # what this pair adds to q·k


def pair_turn(result, i: int, j: int, pair: int) -> PairTurn:
    """Pair ``pair`` of query ``i`` and key ``j`` in a rotary ``result``, read from the result itself."""
    s = result.scenario
    half = s.d_k // 2
    if not 0 <= pair < half:
        raise ValueError(f"pair: 0 to {half - 1}, got {pair}")
    b = pair + half

    def two(a, row):
        return (float(a[row, pair]), float(a[row, b]))

    return PairTurn(
        pair=pair, partner=b, speed=float(np.asarray(s.frequencies)[pair]),
        query_position=int(s.query_positions[i]), key_position=int(s.key_positions[j]),
        query_angle=float(result.q_angles[i, pair]), key_angle=float(result.k_angles[j, pair]),
        q_before=two(result.q_unrotated, i), q_after=two(result.q, i),
        k_before=two(result.k_unrotated, j), k_after=two(result.k, j),
        part=float(pair_parts(result.q[i], result.k[j])[pair]),
    )


def _turned_scores(q: np.ndarray, k: np.ndarray, f: np.ndarray, m, n) -> tuple:
    """(scores, parts): q at positions ``m`` and k at positions ``n`` (equal-length arrays), turned as the
    engine turns them, then multiplied. scores: len(m); parts: d/2 x len(m)."""
    qs = rotary.rotate(np.tile(q, (len(m), 1)), rotary.angles(m, f))  # len x d
    ks = rotary.rotate(np.tile(k, (len(n), 1)), rotary.angles(n, f))
    scores = np.einsum("td,td->t", qs, ks)
    return scores, pair_parts(qs, ks).T


def score_at(q, k, frequencies, m: int, n: int) -> float:
    """q at position ``m`` and k at ``n`` (both before any turn), turned at ``frequencies``, then q·k."""
    q = np.asarray(q, dtype=np.float64).ravel()
    k = np.asarray(k, dtype=np.float64).ravel()
    scores, _ = _turned_scores(q, k, np.asarray(frequencies, dtype=np.float64), np.array([m]), np.array([n]))
    return float(scores[0])


@dataclass(frozen=True)
class LabCurves:
    """What the RoPE lab draws for one q and one k. Distances run -MAX_POSITION .. MAX_POSITION."""

    q: np.ndarray  # d, before any turn
    k: np.ndarray
    theta: float
    frequencies: np.ndarray  # d/2
    m: int  # the query's position
    n: int  # the key's position
    distances: np.ndarray  # the x of the curve: m - n
    scores: np.ndarray  # the key at n, the query at n + distance
    shifted: np.ndarray  # both SHIFT positions further on (the same distances): the same numbers
    shift: int
    parts: np.ndarray  # d/2 x len(distances): each pair's part of ``scores``
    along: np.ndarray  # query positions m' = distance .. distance + MAX_POSITION (key at m' - (m - n))
    along_scores: np.ndarray  # the score there: the same everywhere
    score: float  # the score at m and n
    unturned: float  # q·k without any turn (both at position 0)


def lab_curves(q, k, theta: float, m: int, n: int, max_position: int = MAX_POSITION,
               shift: int = SHIFT) -> LabCurves:
    """The RoPE lab's numbers for ``q`` and ``k`` (each d numbers, d >= 2) with speeds from ``theta``, the
    query at position ``m`` and the key at ``n``."""
    q = np.asarray(q, dtype=np.float64).ravel()
    k = np.asarray(k, dtype=np.float64).ravel()
    if q.shape != k.shape or q.size < 2:
        raise ScenarioError(f"q and k need the same length, at least 2 (got {q.size} and {k.size})")
    d = q.size
    f = rotary.inverse_frequencies(d - d % 2, theta).astype(np.float64)
    distances = np.arange(-max_position, max_position + 1)
    keys = np.full(distances.shape, n)
    scores, parts = _turned_scores(q, k, f, keys + distances, keys)
    shifted, _ = _turned_scores(q, k, f, keys + shift + distances, keys + shift)
    gap = m - n
    along = np.arange(0, max_position + 1) + max(gap, 0)
    along_scores, _ = _turned_scores(q, k, f, along, along - gap)
    now = score_at(q, k, f, m, n)
    out = dict(q=q, k=k, frequencies=f, distances=distances, scores=scores, shifted=shifted, parts=parts,
               along=along, along_scores=along_scores)
    for name, a in out.items():
        a = np.ascontiguousarray(a, dtype=np.float64)
        a.setflags(write=False)
        out[name] = a
    return LabCurves(theta=float(theta), m=int(m), n=int(n), shift=int(shift), score=now,
                     unturned=float(q @ k), **out)
