"""Simple decorations of a plot as plain Qt items: lines, shaded bands, single dots and short curves.

pyqtgraph's own items for these (``InfiniteLine``, ``LinearRegionItem``, a one-point
``ScatterPlotItem``, a ``PlotDataItem``) are built for dragging, hovering and data handling, and
their Python code runs on every repaint (bounds, view changes, cached pictures). A panel that only
draws them needs none of that: the Qt items here are drawn by Qt alone.

Each ``*_item`` function makes the item once, adds it to a pyqtgraph plot or ViewBox (never counted
in its auto-range) and returns it; the panel then moves it with Qt's own calls (``setLine``,
``setRect``, ``setPos``, ``setPath``). Lines that must look endless are given ends well outside the
range shown (``reach``); the ViewBox clips what sticks out.
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
import pyqtgraph as pg

Flag = QtWidgets.QGraphicsItem.GraphicsItemFlag


def cosmetic(pen) -> QtGui.QPen:
    """``pen`` (anything ``pg.mkPen`` takes) as a pen whose width is in screen pixels."""
    pen = QtGui.QPen(pg.mkPen(pen))
    pen.setCosmetic(True)
    return pen


def _add(plot, item, z: float):
    item.setZValue(z)
    plot.addItem(item, ignoreBounds=True)
    return item


def line_item(plot, pen, z: float = 0.0) -> QtWidgets.QGraphicsLineItem:
    """A straight line in data coordinates (set its ends with ``setLine(x0, y0, x1, y1)``)."""
    item = QtWidgets.QGraphicsLineItem()
    item.setPen(cosmetic(pen))
    return _add(plot, item, z)


def rect_item(plot, brush, pen=None, z: float = 0.0) -> QtWidgets.QGraphicsRectItem:
    """A rectangle in data coordinates (set it with ``setRect``), filled with ``brush``."""
    item = QtWidgets.QGraphicsRectItem()
    item.setBrush(pg.mkBrush(brush))
    item.setPen(cosmetic(pen) if pen is not None else QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
    return _add(plot, item, z)


def path_item(plot, pen, z: float = 0.0) -> QtWidgets.QGraphicsPathItem:
    """A curve or a set of segments in data coordinates (see ``curve_path`` and ``segments_path``)."""
    item = QtWidgets.QGraphicsPathItem()
    item.setPen(cosmetic(pen))
    return _add(plot, item, z)


def dot_item(plot, size: float, pen, brush, z: float = 0.0) -> QtWidgets.QGraphicsEllipseItem:
    """A round dot ``size`` pixels across whatever the plot's scale, centred on its position (``setPos``)."""
    r = size / 2.0
    item = QtWidgets.QGraphicsEllipseItem(-r, -r, 2 * r, 2 * r)
    item.setFlag(Flag.ItemIgnoresTransformations, True)
    item.setPen(cosmetic(pen))
    item.setBrush(pg.mkBrush(brush))
    return _add(plot, item, z)


#: The options of a bar chart that only place its bars (``Bars.setOpts`` skips them when they are unchanged).
_PLACES = frozenset(("x", "y", "x0", "y0", "x1", "y1", "width", "height"))


def _copy(value):
    """A bar option as it was given (an array of the numbers, or None), kept to compare the next one with."""
    return None if value is None else np.array(value, dtype=np.float64)


def _same(new, kept) -> bool:
    """Whether a bar option (None, a number, a list or an array) holds the numbers ``kept`` (``_copy``)."""
    if new is None or kept is None:
        return new is None and kept is None
    new = np.asarray(new, dtype=np.float64)
    return new.shape == kept.shape and bool(np.array_equal(new, kept))


class Bars(pg.BarGraphItem):
    """``pg.BarGraphItem`` that remembers its bounding rectangle until its bars or the plot's scale change
    (pyqtgraph works it out afresh, pixel padding and all, each of the twenty or so times Qt asks for it
    in an edit), and that leaves bars where they are when an edit gives them the same places (a repaint
    saved)."""

    def __init__(self, **opts):
        self._bounds = None
        self._places = {}  # the places last given (copies: a caller may change its arrays afterwards)
        super().__init__(**opts)

    def setOpts(self, **opts):  # noqa: N802 (pyqtgraph naming)
        if opts.keys() <= _PLACES and all(k in self._places and _same(v, self._places[k]) for k, v in opts.items()):
            return
        self._bounds = None
        super().setOpts(**opts)
        self._places.update((k, _copy(v)) for k, v in opts.items() if k in _PLACES)

    def viewTransformChanged(self):  # noqa: N802
        self._bounds = None
        super().viewTransformChanged()

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802
        if self._bounds is None:
            self._bounds = super().boundingRect()
        return QtCore.QRectF(self._bounds)


def curve_path(xs, ys) -> QtGui.QPainterPath:
    """The polyline through the points (xs[k], ys[k])."""
    return pg.arrayToQPath(np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64))


def segments_path(starts, ends) -> QtGui.QPainterPath:
    """One straight segment from each row of ``starts`` (k x 2) to the same row of ``ends``."""
    starts, ends = np.asarray(starts, dtype=np.float64), np.asarray(ends, dtype=np.float64)
    if len(starts) == 0:
        return QtGui.QPainterPath()
    xs = np.column_stack([starts[:, 0], ends[:, 0]]).reshape(-1)
    ys = np.column_stack([starts[:, 1], ends[:, 1]]).reshape(-1)
    return pg.arrayToQPath(xs, ys, connect="pairs")


def reach(lo: float, hi: float) -> tuple:
    """Ends well outside [lo, hi], for a line that must look endless across that range."""
    span = max(hi - lo, 1e-9)
    return lo - 10.0 * span, hi + 10.0 * span
