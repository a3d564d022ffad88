"""Bars from the zero line whose places stay while their lengths change: what an edit does to a bar chart.

``SteadyBars`` is a ``decorations.Bars`` (the same options, rectangles, looks, bounds and colour roles) with
one more call, ``set_lengths(values, **places)``: bar k reaches from 0 to ``values[k]``, upright (``along="y"``:
``places`` are ``x0`` and ``width``) or lying (``along="x"``: ``places`` are ``y`` and ``height``). When the
places and the number of bars are those of last time (one bar per token: the usual edit), only the lengths
are written into the bars' rectangles, the same numbers ``setOpts`` would work out, at a fraction of its
cost (it works out every edge of every bar again from the options); otherwise it is ``setOpts``.
"""
from __future__ import annotations

import numpy as np

from .decorations import Bars


class SteadyBars(Bars):
    """A bar chart standing on (``along="y"``) or lying along (``along="x"``) the zero line; see the module."""

    def __init__(self, along: str = "y", **opts):
        if along not in ("x", "y"):
            raise ValueError(f"SteadyBars: along must be 'x' or 'y', not {along!r}")
        self._along = along
        self._places = None  # the places given last time (compared by value)
        super().__init__(**opts)

    def setOpts(self, **opts):  # noqa: N802 (pyqtgraph naming)
        self._places = None  # set by hand: the next ``set_lengths`` sets every option again
        super().setOpts(**opts)

    def set_lengths(self, values, **places) -> None:
        """Bars from 0 to each of ``values`` at ``places`` (see the class)."""
        v = np.asarray(values, dtype=np.float64)
        last = self._places
        if (last is None or v.shape != (self._count,) or last.keys() != places.keys()
                or not all(_same(last[k], p) for k, p in places.items())):
            if self._along == "y":
                super().setOpts(**places, height=v)
            else:
                super().setOpts(**places, x0=np.minimum(v, 0.0), width=np.abs(v))
            self._places = places
            return
        rects = self._memory[:self._count]
        if self._along == "y":  # as ``Bars`` reads a height alone: from a start of 0
            end = 0.0 + v
            lo, hi = np.minimum(0.0, end), np.maximum(0.0, end)
            start, size = 1, 3
        else:  # as ``Bars`` reads a left edge and a width
            x0, width = np.minimum(v, 0.0), np.abs(v)
            end = x0 + width
            lo, hi = np.minimum(x0, end), np.maximum(x0, end)
            start, size = 0, 2
        length = hi - lo
        if not ((rects[:, start] != lo).any() or (rects[:, size] != length).any()):
            return  # the same bars: nothing to draw
        if self._along == "y":
            self.opts["height"] = v
        else:
            self.opts["x0"], self.opts["width"] = x0, width
        rects[:, start], rects[:, size] = lo, length
        if lo.size:
            data = list(self._data)
            data[2 * (start == 1)], data[2 * (start == 1) + 1] = float(lo.min()), float(hi.max())
            self._data = tuple(data)
        self.prepareGeometryChange()
        self._bounds = None
        self.update()
        self.informViewBoundsChanged()


def _same(a, b) -> bool:
    """Whether two places are the same: the same object, equal arrays, or equal numbers."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool((a == b).all())
    return type(a) is type(b) and a == b
