"""Where each slice of the softmax pie goes: shares, angles, and the unlabelled rest.

Angles are in degrees, in the usual maths sense: 0 points right (3 o'clock),
positive turns counter-clockwise, y points up. The pie starts at 12 o'clock
(90 degrees) and runs clockwise, so every span is negative or zero.

Each slice's share is its weight divided by the sum of the row it comes from.
In the correct (row-wise) softmax that sum is 1 and the share is the weight;
in the column-wise teaching-bug mode the row sum is not 1, and the pie shows
each weight's share of the actual sum.

With many keys most slices are slivers. ``small_slices`` picks those to be drawn
as one "others" slice; ``layout(row, order=...)`` then puts them side by side at
the end of the pie, so that together they make one slice.
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
    order: np.ndarray | None = None  # the keys clockwise from the start (None: token order)

    @property
    def n(self) -> int:
        return int(self.weights.size)


def layout(row, start_deg: float = START_DEG, order=None) -> PieLayout:
    """Slices for one row of weights, clockwise from ``start_deg``: in token order, or in ``order`` (every
    key once)."""
    w = np.asarray(row, dtype=np.float64).reshape(-1)
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("pie weights must be finite and non-negative")
    if order is not None:
        order = np.asarray(order, dtype=np.intp).reshape(-1)
        if sorted(order.tolist()) != list(range(w.size)):
            raise ValueError("pie order must name every key once")
    total = float(w.sum())
    shares = w / total if total > 0 else np.zeros_like(w)
    ranked = shares if order is None else shares[order]
    before_ranked = np.concatenate(([0.0], np.cumsum(ranked)[:-1])) if w.size else np.zeros(0)
    before = before_ranked.copy()
    if order is not None:
        before[order] = before_ranked
    start = start_deg - 360.0 * before
    span = -360.0 * shares
    mid = start + span / 2.0
    return PieLayout(w, total, shares, start, span, mid, order)


def small_slices(row, keep=(), min_share: float = 0.02, more_than: int = 12) -> np.ndarray:
    """The keys whose slices are drawn together as "others": when the row has more than ``more_than``
    non-zero weights, every non-zero one under ``min_share`` of the row's sum, except the keys in ``keep``
    (the selected key keeps its own slice). None when fewer than two would be grouped."""
    w = np.asarray(row, dtype=np.float64).reshape(-1)
    total = float(w.sum())
    nonzero = w > 0
    if total <= 0 or int(nonzero.sum()) <= more_than:
        return np.zeros(0, dtype=np.intp)
    small = nonzero & (w / total < min_share)
    small[[k for k in keep if 0 <= k < w.size]] = False
    found = np.flatnonzero(small)
    return found if found.size >= 2 else np.zeros(0, dtype=np.intp)


def others_last(n: int, grouped) -> np.ndarray:
    """An order for ``layout``: the keys not in ``grouped`` in token order, then the grouped ones."""
    mask = np.zeros(n, dtype=bool)
    mask[np.asarray(grouped, dtype=np.intp)] = True
    return np.concatenate([np.flatnonzero(~mask), np.flatnonzero(mask)])


def slice_at(pie: PieLayout, x: float, y: float, radius: float = 1.0, slack: float = 0.15):
    """Index of the slice under the point (x, y) of a pie of ``radius`` centred at 0, or None.

    Points up to ``slack`` x radius beyond the rim still count (a pulled-out slice).
    Slices with zero weight cannot be hit.
    """
    r = math.hypot(x, y)
    if pie.n == 0 or r > radius * (1.0 + slack) or pie.total <= 0:
        return None
    angle = math.degrees(math.atan2(y, x))
    order = np.arange(pie.n) if pie.order is None else pie.order
    span = pie.span[order]  # clockwise from the start of the pie
    # how far clockwise from the start of the pie, in [0, 360)
    turned = (float(pie.start[order[0]]) - angle) % 360.0
    ends = np.cumsum(-span)  # clockwise degrees where each slice ends
    idx = int(np.searchsorted(ends, turned, side="right"))
    nonzero = np.flatnonzero(span != 0.0)
    if idx >= pie.n or span[idx] == 0.0:  # rounding at the very end of the circle
        later = nonzero[nonzero >= idx]
        idx = int(later[0]) if later.size else int(nonzero[-1])
    return int(order[idx])


def rest(pie: PieLayout, labelled) -> tuple:
    """(count, share, weight) of the non-zero slices that carry no label."""
    labelled = np.asarray(labelled, dtype=bool).reshape(-1)
    mask = (~labelled) & (pie.weights > 0)
    return int(mask.sum()), float(pie.shares[mask].sum()), float(pie.weights[mask].sum())
