"""Where each slice of the softmax pie goes: shares, angles, and the unlabelled rest.

Angles are in degrees, in the usual maths sense: 0 points right (3 o'clock),
positive turns counter-clockwise, y points up. The pie starts at 12 o'clock
(90 degrees) and runs clockwise, so every span is negative or zero.

Each slice's share is its weight divided by the sum of the row it comes from.
In the correct (row-wise) softmax that sum is 1 and the share is the weight;
in the column-wise teaching-bug mode the row sum is not 1, and the pie shows
each weight's share of the actual sum.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

START_DEG = 90.0  # 12 o'clock


@dataclass(frozen=True, eq=False)
class PieLayout:
    weights: np.ndarray  # n, the row as given
    total: float  # sum of the row
    shares: np.ndarray  # n, weight / total (all 0 when total is 0)
    start: np.ndarray  # n, degrees where each slice begins
    span: np.ndarray  # n, degrees (<= 0: clockwise); 0 for a zero weight
    mid: np.ndarray  # n, degrees of each slice's middle

    @property
    def n(self) -> int:
        return int(self.weights.size)


def layout(row, start_deg: float = START_DEG) -> PieLayout:
    """Slices for one row of weights, in token order, clockwise from ``start_deg``."""
    w = np.asarray(row, dtype=np.float64).reshape(-1)
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("pie weights must be finite and non-negative")
    total = float(w.sum())
    shares = w / total if total > 0 else np.zeros_like(w)
    before = np.concatenate(([0.0], np.cumsum(shares)[:-1])) if w.size else np.zeros(0)
    start = start_deg - 360.0 * before
    span = -360.0 * shares
    mid = start + span / 2.0
    return PieLayout(w, total, shares, start, span, mid)


def slice_at(pie: PieLayout, x: float, y: float, radius: float = 1.0, slack: float = 0.15):
    """Index of the slice under the point (x, y) of a pie of ``radius`` centred at 0, or None.

    Points up to ``slack`` x radius beyond the rim still count (a pulled-out slice).
    Slices with zero weight cannot be hit.
    """
    r = math.hypot(x, y)
    if pie.n == 0 or r > radius * (1.0 + slack) or pie.total <= 0:
        return None
    angle = math.degrees(math.atan2(y, x))
    # how far clockwise from the start of the pie, in [0, 360)
    turned = (float(pie.start[0]) - angle) % 360.0 if pie.n else 0.0
    ends = np.cumsum(-pie.span)  # clockwise degrees where each slice ends
    idx = int(np.searchsorted(ends, turned, side="right"))
    nonzero = np.flatnonzero(pie.span != 0.0)
    if idx >= pie.n or pie.span[idx] == 0.0:  # rounding at the very end of the circle
        later = nonzero[nonzero >= idx]
        idx = int(later[0]) if later.size else int(nonzero[-1])
    return idx


def rest(pie: PieLayout, labelled) -> tuple:
    """(count, share, weight) of the non-zero slices that carry no label."""
    labelled = np.asarray(labelled, dtype=bool).reshape(-1)
    mask = (~labelled) & (pie.weights > 0)
    return int(mask.sum()), float(pie.shares[mask].sum()), float(pie.weights[mask].sum())
