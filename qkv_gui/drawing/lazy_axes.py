"""Axis ticks, axis labels, plot titles and view ranges that are only set when they change; axes kept as
pixmaps.

pyqtgraph lays an axis out again from scratch (tick positions, text sizes: about
2 ms each) whenever its ticks, label or title are set, even to what it already
shows, and it replays the axis' drawing whenever anything near it is repainted.
A live edit changes numbers, rarely token names or titles, so the panels set
these through the functions here, and ``cache_axes`` keeps each axis' drawing
as a device pixmap that is redrawn only when the axis itself changes. (Exports
switch item caches off again, so slides still get vector axes.)
"""
from __future__ import annotations

import math
import weakref

from PySide6 import QtWidgets
import pyqtgraph as pg


def tidy_step(span: float) -> float:
    """The smallest of 1, 2, 2.5 or 5 times a power of ten that is at least ``span``."""
    power = 10.0 ** math.floor(math.log10(span))
    for factor in (1.0, 2.0, 2.5, 5.0, 10.0):
        if factor * power >= span * (1 - 1e-12):
            return factor * power
    return 10.0 * power


def steady_range(current, lo: float, hi: float, fill: float = 0.5) -> tuple:
    """A view range holding [lo, hi] that stays put while the numbers move inside it.

    ``current`` (the range shown now) is kept while it holds [lo, hi] and [lo, hi] fills at least ``fill``
    of it; otherwise [lo, hi] with both ends rounded outwards to a tidy step (a tenth of the span or so).
    An edit that nudges a number then moves the bars against an axis that keeps its ticks, its width and
    its cached drawing, which is both faster and easier to read than an axis that rescales every time.
    """
    lo, hi = float(lo), float(hi)
    if current is not None:
        c0, c1 = float(current[0]), float(current[1])
        if c0 <= lo and hi <= c1 and (hi - lo) >= fill * (c1 - c0):
            return c0, c1
    span = hi - lo
    if not (math.isfinite(lo) and math.isfinite(hi)) or span <= 0 or span < 1e-9 * max(abs(lo), abs(hi)):
        return lo, hi
    step = tidy_step(span / 10.0)
    new_lo, new_hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    # rounding can only widen; guard against float error at the ends
    return min(new_lo, lo), max(new_hi, hi)


def set_ticks(axis: pg.AxisItem, ticks) -> None:
    """``axis.setTicks(ticks)``, unless the axis already shows exactly these ticks."""
    if getattr(axis, "_tickLevels", None) != ticks:
        axis.setTicks(ticks)


#: ViewBox -> the (x, y) range last asked of it through ``set_range``.
_ASKED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def set_range(vb: pg.ViewBox, x_range, y_range=None) -> None:
    """``vb.setRange`` (no padding; ``y_range`` None: x alone), unless this is the range last asked of the
    view: pyqtgraph redoes its transforms and tells every item even for the same range. A range the user
    zoomed to stays until another one is asked for."""
    wanted = (tuple(x_range), None if y_range is None else tuple(y_range))
    if _ASKED.get(vb) == wanted:
        return
    _ASKED[vb] = wanted
    if y_range is None:
        vb.setXRange(*x_range, padding=0)
    else:
        vb.setRange(xRange=x_range, yRange=y_range, padding=0)


def set_axis_title(axis: pg.AxisItem, text: str | None, **style) -> None:
    """``axis.setLabel(text, **style)``, the title then placed for its new length. (pyqtgraph places an axis'
    title only when the axis is resized: a title of another length set afterwards sat off the axis' middle,
    its end cut off.)"""
    axis.setLabel(text, **style)
    axis.resizeEvent()


def set_label(axis: pg.AxisItem, text: str) -> None:
    """``axis.setLabel(text)`` (plain text, no units), unless that is the label already shown."""
    if axis.labelText == (text or "") and not axis.labelUnits and axis.label.isVisibleTo(axis) == bool(text):
        return
    set_axis_title(axis, text)


def set_plot_label(plot: pg.PlotItem, name: str, text: str) -> None:
    """``plot.setLabel(name, text)`` (which also shows that axis), unless nothing would change."""
    axis = plot.getAxis(name)
    if axis.isVisibleTo(plot) and axis.labelText == (text or "") and not axis.labelUnits \
            and axis.label.isVisibleTo(axis) == bool(text):
        return
    plot.setLabel(name, text)
    axis.resizeEvent()  # (placed for its new length: see ``set_axis_title``)


def set_title(plot: pg.PlotItem, title: str, **args) -> None:
    """``plot.setTitle(title, **args)``, unless the title already reads so."""
    label = plot.titleLabel
    if label.isVisibleTo(plot) and label.text == title and all(label.opts.get(k) == v for k, v in args.items()):
        return
    plot.setTitle(title, **args)


def cache_axes(widget: QtWidgets.QWidget) -> None:
    """Draw every axis in ``widget``'s graphics views from a device pixmap, remade when the axis changes."""
    for view in widget.findChildren(QtWidgets.QGraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            # not a colour bar's axes: they sit half a pixel off the grid, and a cached copy lands a pixel aside
            if isinstance(item, pg.AxisItem) and not isinstance(item.parentItem(), pg.ColorBarItem):
                item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
