"""Where softmax goes flat: the saturated ends of one key's weight curve.

For query i, key j's weight as a function of its own scaled score x (every
other unmasked score of the row fixed) is

    w(x) = e^x / (e^x + S),     S = sum of e^(s_m) over the other keys m

and its slope is dw/dx = w (1 - w), at most 1/4 (where w = 1/2). Far to the
left w is stuck near 0, far to the right near 1: there the slope, and so the
learning signal, all but vanishes. ``flat_edges`` gives the two scores where
the slope falls to a chosen fraction of its peak; ``slope`` gives w (1 - w).
"""
from __future__ import annotations

import math

import numpy as np

from .attention import AttentionResult

#: The slope counts as "flat" below this fraction of its peak value 1/4.
FLAT_FRACTION = 0.1


def _log_others(result: AttentionResult, i: int, j: int) -> float | None:
    """log(S) for key j of query i, or None when no other key is allowed. Row i has one entry per
    key (the source sentence's tokens in cross-attention)."""
    ok = np.asarray(result.allowed[i], dtype=bool).copy()
    ok[j] = False
    others = np.asarray(result.scaled[i], dtype=np.float64)[ok]
    if others.size == 0:
        return None
    top = float(others.max())
    return top + math.log(float(np.exp(others - top).sum()))


def flat_edges(result: AttentionResult, i: int, j: int, fraction: float = FLAT_FRACTION):
    """The scores ``(low, high)`` outside which key j's weight curve is flat.

    Below ``low`` the weight is stuck near 0, above ``high`` near 1; between
    them the slope w (1 - w) is at least ``fraction`` x 1/4. Returns None when
    key j is the only key the query may see: then its weight is 1 whatever
    its score, and the whole curve is flat.
    """
    if not 0.0 < fraction < 1.0:
        raise ValueError("fraction must be between 0 and 1")
    log_s = _log_others(result, i, j)
    if log_s is None:
        return None
    root = math.sqrt(1.0 - fraction)
    w_low, w_high = (1.0 - root) / 2.0, (1.0 + root) / 2.0  # w (1 - w) = fraction / 4
    logit = lambda w: math.log(w / (1.0 - w))  # noqa: E731
    return log_s + logit(w_low), log_s + logit(w_high)


def slope(result: AttentionResult, i: int, j: int, xs) -> np.ndarray:
    """dw/dx = w (1 - w) of key j's weight curve at each score in ``xs`` (0 where flat for good)."""
    xs = np.asarray(xs, dtype=np.float64)
    log_s = _log_others(result, i, j)
    if log_s is None:
        return np.zeros_like(xs)
    w = 1.0 / (1.0 + np.exp(np.clip(log_s - xs, -700.0, 700.0)))
    return w * (1.0 - w)
