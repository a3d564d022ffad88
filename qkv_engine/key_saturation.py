"""Where softmax goes flat for one key, counted over the KEYS of a row (m of them).

The same rule as ``qkv_engine.saturation.flat_edges``, written for rows of any
length: in cross-attention a row has m keys (the source sentence's tokens),
not n. For query i, key j's weight as a function of its own scaled score x is

    w(x) = e^x / (e^x + S),     S = sum of e^(s_m) over the other allowed keys m

and the flat ends are where the slope w (1 - w) falls below ``fraction`` x 1/4.
"""
from __future__ import annotations

import math

import numpy as np

from .attention import AttentionResult
from .saturation import FLAT_FRACTION


def log_others(result: AttentionResult, i: int, j: int) -> float | None:
    """log(S) over the other allowed keys of row i (m keys), or None when there are none."""
    row = np.asarray(result.scaled[i], dtype=np.float64)  # m scaled scores
    ok = np.asarray(result.allowed[i], dtype=bool).copy()
    ok[j] = False
    others = row[ok]
    if others.size == 0:
        return None
    top = float(others.max())
    return top + math.log(float(np.exp(others - top).sum()))


def flat_edges(result: AttentionResult, i: int, j: int, fraction: float = FLAT_FRACTION):
    """The scores ``(low, high)`` outside which key j's weight curve is flat, or None when key j is
    the only key query i may see (its weight is 1 whatever its score)."""
    if not 0.0 < fraction < 1.0:
        raise ValueError("fraction must be between 0 and 1")
    log_s = log_others(result, i, j)
    if log_s is None:
        return None
    root = math.sqrt(1.0 - fraction)
    w_low, w_high = (1.0 - root) / 2.0, (1.0 + root) / 2.0  # w (1 - w) = fraction / 4
    return log_s + math.log(w_low / (1.0 - w_low)), log_s + math.log(w_high / (1.0 - w_high))
