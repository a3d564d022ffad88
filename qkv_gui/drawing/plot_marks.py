"""Simple marks of a plot as plain Qt items: lines, shaded bands, single dots, arrow heads, short curves, and
two light items of our own: a bar chart (``Bars``) and a set of round dots (``Dots``).

pyqtgraph's own items for these (``InfiniteLine``, ``LinearRegionItem``, ``ScatterPlotItem``,
``PlotDataItem``, ``ArrowItem``, ``BarGraphItem``) are built for dragging, hovering and data handling, and
their Python code runs on every repaint and every edit (bounds, view changes, cached pictures, styles made
afresh). A panel that only draws them needs none of that: the Qt items here are drawn by Qt alone, and
``Bars`` and ``Dots`` keep what they work out until their numbers or the plot's scale change.

Each ``*_item`` function makes the item once, adds it to a pyqtgraph plot or ViewBox (never counted
in its auto-range) and returns it; the panel then moves it with Qt's own calls (``setLine``,
``setRect``, ``setPos``, ``setRotation``, ``setPath``). Lines that must look endless are given ends well
outside the range shown (``reach``); the ViewBox clips what sticks out.
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
import pyqtgraph as pg
from shiboken6 import wrapInstance

from ..look import colours

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


#: The options that place a chart's bars.
_PLACES = frozenset(("x", "y", "x0", "y0", "x1", "y1", "width", "height"))
#: Every option a chart of bars takes: its places, one pen and one brush (``pg.mkPen``/``pg.mkBrush`` specs).
_OPTIONS = _PLACES | {"pen", "brush"}
_NO_PEN = QtGui.QPen(QtCore.Qt.PenStyle.NoPen)


def _pen(spec) -> QtGui.QPen:
    """``pg.mkPen(spec)``, quicker for the two specs the panels give at every edit: a pen, or None."""
    if spec is None:
        return _NO_PEN
    return QtGui.QPen(spec) if isinstance(spec, QtGui.QPen) else pg.mkPen(spec)


def _pads(pen: QtGui.QPen) -> tuple:
    """(half the pen's width in data units, ... in pixels): what its outline adds around a bar (as
    ``pg.BarGraphItem`` counts it)."""
    if pen.style() == QtCore.Qt.PenStyle.NoPen:
        return 0.0, 0.5
    if pen.isCosmetic():
        return 0.0, (pen.widthF() or 1.0) * 0.5
    return pen.widthF() * 0.5, 0.5


def _edges(centre, start, end, size, axis: str, start_at_zero: bool):
    """(low, high) edges of the bars along one axis, read from its options as ``pg.BarGraphItem`` reads them: a
    start (``x0``), an end (``x1``) or a centre (``x``), and a size (``width``); or both ends. With a size alone
    the bars start at 0 when ``start_at_zero`` (heights: bars standing on the zero line)."""
    centre, start, end, size = (None if v is None else np.asarray(v, dtype=np.float64)
                                for v in (centre, start, end, size))
    if start is None:
        if size is not None and end is not None:
            start = end - size
        elif size is not None and centre is not None:
            start = centre - size / 2.0
        elif start_at_zero:
            start = np.zeros(())
        else:
            raise ValueError(f"Bars: give the {axis} places (a start, an end or a centre) and sizes, or both ends")
    if size is None:
        if end is None:
            raise ValueError(f"Bars: give the {axis} sizes or both ends")
        size = end - start
    return np.minimum(start, start + size), np.maximum(start, start + size)


def paints_pixels(p: QtGui.QPainter) -> bool:
    """Whether ``p`` paints pixels at its widget's own scale (the screen, a grab): a widget's still parts can
    then be copied from a picture drawn once; a figure (scaled, or vectors) has them drawn afresh."""
    t = p.deviceTransform()
    return p.paintEngine().type() == QtGui.QPaintEngine.Type.Raster and not t.isScaling() and not t.isRotating()


class _DataItem(pg.GraphicsObject):
    """A plot item whose extent is its data (``dataBounds``) and a margin in pixels (``pixelPadding``), as
    pyqtgraph's auto-range reads them; its bounding rectangle is worked out once per change (set ``_bounds`` to
    None, after ``prepareGeometryChange``) or change of the plot's scale, not each time Qt asks for it."""

    def __init__(self):
        super().__init__()
        self._bounds = None
        self._pixel = None  # (data units per pixel across, ... up) until the plot's scale changes

    def viewTransformChanged(self):  # noqa: N802
        self._bounds = self._pixel = None  # the margin's pixels are another size in data units now
        super().viewTransformChanged()

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802
        if self._bounds is None:
            self._bounds = QtCore.QRectF()
            (left, right), (bottom, top) = self.dataBounds(0), self.dataBounds(1)
            if left is not None:
                if self._pixel is None:
                    px, py = self.pixelVectors()  # (None before the plot is first shown: asked again later)
                    pixel = (0.0 if px is None else px.length(), 0.0 if py is None else py.length())
                    self._pixel = pixel if px is not None and py is not None else None
                else:
                    pixel = self._pixel
                pad = self.pixelPadding()
                px, py = pixel[0] * pad, pixel[1] * pad
                self._bounds = QtCore.QRectF(left - px, bottom - py, right - left + 2 * px, top - bottom + 2 * py)
        return QtCore.QRectF(self._bounds)


class Bars(_DataItem):
    """A bar chart: rectangles in data coordinates, all in one pen and one brush, drawn by one
    ``QPainter.drawRects`` call.

    It takes ``pg.BarGraphItem``'s options and keeps them in ``opts`` as given: ``x`` (centres), ``x0``
    (left edges), ``x1`` (right edges), ``width``; ``y``, ``y0``, ``y1``, ``height`` (bars stand on 0 when
    only heights are given); ``pen`` and ``brush`` (anything ``pg.mkPen``/``pg.mkBrush`` take; a pen is
    cosmetic, its width in pixels, as pyqtgraph makes them). The rectangles are worked out once per change of
    places; the bounding rectangle (the bars, and half the pen's width in pixels around them) once per change of
    places, pen or the plot's scale. An edit that gives the same places, pen and brush does nothing at all.
    The plot's auto-range counts the bars as it counts a ``BarGraphItem`` (``dataBounds``, ``pixelPadding``).
    """

    def apply_colours(self, c: dict) -> None:
        """Take the colours of the roles ``colours.paint`` gave the bars (QColors by role name): pen, brush."""
        opts = {}
        if "pen" in c:
            opts["pen"] = colours.recoloured_pen(pg.mkPen(self.opts.get("pen")), c["pen"])
        if "brush" in c:
            opts["brush"] = colours.recoloured_brush(pg.mkBrush(self.opts.get("brush")), c["brush"])
        self.setOpts(**opts)

    def __init__(self, **opts):
        super().__init__()
        self.opts = dict.fromkeys(sorted(_OPTIONS))
        # x, y, width, height of each bar in the first ``_count`` rows of ``_memory``, as Qt's QRectF array
        # lies in memory (``_first``: its first QRectF, what ``drawRects`` takes with the count)
        self._memory, self._first, self._count = np.zeros((0, 4)), None, 0
        self._data = None  # (left, right, bottom, top) of all the bars, or None when there are none
        self._pen = self._brush = None
        self._pads = (0.0, 0.5)  # what the pen adds around the bars: (in data units, in pixels)
        opts.setdefault("pen", pg.getConfigOption("foreground"))
        opts.setdefault("brush", (128, 128, 128))
        self.setOpts(**opts)

    def setOpts(self, **opts):  # noqa: N802 (pyqtgraph naming)
        unknown = opts.keys() - _OPTIONS
        if unknown:
            raise TypeError(f"Bars: unknown option(s) {', '.join(sorted(unknown))}")
        self.opts.update(opts)
        pen = _pen(opts["pen"]) if "pen" in opts else self._pen
        brush = pg.mkBrush(opts["brush"]) if "brush" in opts else self._brush
        restyled = pen != self._pen or brush != self._brush
        rects, extent = self._worked_out() if opts.keys() & _PLACES else (None, None)
        shown = self._memory[:self._count]
        moved = rects is not None and not (rects.shape == shown.shape and bool((rects == shown).all()))
        if not moved and not restyled:
            return  # the same bars again (the usual edit of another panel's numbers): nothing to draw
        self._pen, self._brush = pen, brush
        self._pads = _pads(pen)
        if moved:
            n = len(rects)
            if n > len(self._memory):  # room for them (and as many again), and Qt's view of it
                self._memory = np.empty((2 * n, 4))
                self._first = wrapInstance(self._memory.__array_interface__["data"][0], QtCore.QRectF)
            self._memory[:n] = rects
            self._count = n
            self._data = extent
        self.prepareGeometryChange()
        self._bounds = None
        self.update()
        self.informViewBoundsChanged()  # (the plot's auto-range, when it has one, counts the bars afresh)

    def _worked_out(self) -> tuple:
        """The bars' rectangles from the options, one row (x, y, width, height) per bar, and their extent
        (left, right, bottom, top), or None when there are no bars."""
        o = self.opts
        x0, x1 = _edges(o["x"], o["x0"], o["x1"], o["width"], "x", start_at_zero=False)
        y0, y1 = _edges(o["y"], o["y0"], o["y1"], o["height"], "y", start_at_zero=True)
        if x0.size == 0 or y0.size == 0:
            return np.zeros((0, 4)), None
        rects = np.empty((max(x0.size, y0.size), 4))
        rects[:, 0], rects[:, 1], rects[:, 2], rects[:, 3] = x0, y0, x1 - x0, y1 - y0
        return rects, (float(x0.min()), float(x1.max()), float(y0.min()), float(y1.max()))

    def rects(self) -> np.ndarray:
        """The bars as drawn: one row (x, y, width, height) per bar, in data coordinates (a copy)."""
        return self._memory[:self._count].copy()

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):  # noqa: N802 (pyqtgraph naming)
        if self._data is None:
            return None, None
        pad = self._pads[0]
        return self._data[2 * ax] - pad, self._data[2 * ax + 1] + pad

    def pixelPadding(self) -> float:  # noqa: N802
        return self._pads[1]

    def paint(self, painter, *args):
        if self._count:
            painter.setPen(self._pen)
            painter.setBrush(self._brush)
            painter.drawRects(self._first, self._count)


class SteadyBars(Bars):
    """A bar chart standing on (``along="y"``) or lying along (``along="x"``) the zero line whose places stay
    while its lengths change (what an edit does to a bar chart): ``set_lengths(values, **places)`` puts bar k
    from 0 to ``values[k]`` (upright: ``places`` are ``x0`` and ``width``; lying: ``y`` and ``height``). With the
    places and the number of bars of last time, only the lengths are written into the rectangles (the same
    numbers ``setOpts`` works out, at a fraction of its cost); otherwise it is ``setOpts``."""

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
                or not all(_same_place(last[k], p) for k, p in places.items())):
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


def _same_place(a, b) -> bool:
    """Whether two places are the same: the same object, or equal numbers (arrays or single ones)."""
    return a is b or bool(np.array_equal(a, b))


class _SmoothPath(QtWidgets.QGraphicsPathItem):
    """A path item drawn with smooth (antialiased) edges whatever the view's own setting."""

    def paint(self, painter, option, widget=None):
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        super().paint(painter, option, widget)


def arrow_head_item(plot, length: float, tip_angle: float, pen, brush, z: float = 0.0) -> QtWidgets.QGraphicsPathItem:
    """A smooth-edged arrow head ``length`` pixels long whatever the plot's scale, its tip on its position
    (``setPos``). It points left; ``setRotation(a)`` turns it ``a`` degrees clockwise on screen (180 minus the
    direction in the plot, counter-clockwise from pointing right, for a plot whose y goes up)."""
    item = _SmoothPath(pg.functions.makeArrowPath(headLen=length, tipAngle=tip_angle, tailLen=None))
    item.setFlag(Flag.ItemIgnoresTransformations, True)
    item.setPen(cosmetic(pen))
    item.setBrush(pg.mkBrush(brush))
    return _add(plot, item, z)


#: The size of one ``QPainter.PixmapFragment``: ten doubles.
_FRAGMENT_BYTES = 10 * 8


class Dots(_DataItem):
    """Round dots ``size`` pixels across whatever the plot's scale, at points in data coordinates: one pen, a
    brush per dot, drawn in order. The dot under the mouse is drawn ``hover_size`` pixels across; a left
    click on a dot emits ``clicked`` with that dot's number (``set_dots``'s ``data``). The plot's auto-range
    counts the dots (``dataBounds``, ``pixelPadding``).

    On screen each look (size, pen, brush) is drawn once into a small picture (``pg``'s own ``renderSymbol``,
    as a ``ScatterPlotItem`` draws its spots); a repaint copies it to every dot of that look with one
    ``drawPixmapFragments`` call per run of dots that look the same. In a figure (pyqtgraph's export mode, an
    SVG or a PDF) the dots are circles drawn in the figure's own units, as large as the figure is scaled."""

    clicked = QtCore.Signal(int)

    def __init__(self, hover_size: float | None = None):
        super().__init__()
        self.hover_size = hover_size
        self._pos = np.zeros((0, 2))
        self._numbers = np.zeros(0, dtype=int)
        self._size = 10.0
        self._pen = QtGui.QPen(QtCore.Qt.PenStyle.NoPen)
        self._brushes: list = []
        self._runs: list = []  # (first, last + 1, brush) of each run of dots with the same brush
        self._hovered = None  # the index of the dot under the mouse
        self._pictures: dict = {}  # (size, brush's colour and pattern, pixel ratio) -> the dot drawn in them
        # the fragments drawPixmapFragments takes, one row per dot (x, y, source rectangle, scales, turn,
        # opacity), and the address of the first
        self._fragments, self._address = np.zeros((0, 10)), 0

    def set_dots(self, pos, size: float, pen, brushes, data=None) -> None:
        """Dots at ``pos`` (n x 2), ``size`` pixels across, outlined by ``pen`` and filled by ``brushes`` (one
        per dot), numbered by ``data`` (default 0..n-1). The same dots again do nothing."""
        pos = np.array(pos, dtype=np.float64).reshape(-1, 2)
        numbers = np.arange(len(pos)) if data is None else np.array(data, dtype=int).reshape(-1)
        pen = pg.mkPen(pen)
        brushes = [b if isinstance(b, QtGui.QBrush) else pg.mkBrush(b) for b in brushes]  # (shared ones stay shared)
        if len(brushes) != len(pos) or len(numbers) != len(pos):
            raise ValueError("Dots: give one brush and one number per dot")
        if (np.array_equal(pos, self._pos) and np.array_equal(numbers, self._numbers) and size == self._size
                and pen == self._pen and brushes == self._brushes):
            return
        moved = not np.array_equal(pos, self._pos) or size != self._size
        if pen != self._pen or size != self._size:
            self._pictures = {}
        self._pos, self._numbers, self._size, self._pen, self._brushes = pos, numbers, float(size), pen, brushes
        self._runs = []
        for k, brush in enumerate(brushes):
            if self._runs and self._runs[-1][2] == brush:
                self._runs[-1][1] = k + 1
            else:
                self._runs.append([k, k + 1, brush])
        if len(pos) > len(self._fragments):
            self._fragments = np.zeros((2 * len(pos), 10))
            self._address = self._fragments.__array_interface__["data"][0]
        if self._hovered is not None and self._hovered >= len(pos):
            self._hovered = None
        if moved:
            self.prepareGeometryChange()
            self._bounds = None
            self.informViewBoundsChanged()
        self.update()

    def positions(self) -> np.ndarray:
        """The dots' places, in data coordinates (a copy)."""
        return self._pos.copy()

    def _radius(self, k: int) -> float:
        return (self.hover_size if k == self._hovered and self.hover_size else self._size) / 2.0

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):  # noqa: N802 (pyqtgraph naming)
        if not len(self._pos):
            return None, None
        return float(self._pos[:, ax].min()), float(self._pos[:, ax].max())

    def pixelPadding(self) -> float:  # noqa: N802
        return max(self._size, self.hover_size or 0.0) / 2.0 + max(1.0, self._pen.widthF())

    @staticmethod
    def _mapped(transform: QtGui.QTransform, pos: np.ndarray) -> np.ndarray:
        t = transform
        x, y = pos[:, 0], pos[:, 1]
        return np.column_stack([t.m11() * x + t.m21() * y + t.dx(), t.m12() * x + t.m22() * y + t.dy()])

    def _picture(self, size: float, brush: QtGui.QBrush, ratio: float) -> QtGui.QPixmap:
        """One dot ``size`` pixels across in the pen and ``brush``, drawn for a screen of this pixel ratio."""
        key = (size, brush.color().rgba(), int(brush.style().value), ratio)
        picture = self._pictures.get(key)
        if picture is None:
            image = pg.graphicsItems.ScatterPlotItem.renderSymbol("o", size, self._pen, brush, dpr=ratio)
            picture = self._pictures[key] = QtGui.QPixmap.fromImage(image)
        return picture

    def paint(self, painter, option, widget=None):
        n = len(self._pos)
        if not n:
            return
        at = np.clip(self._mapped(painter.transform(), self._pos), -2 ** 30, 2 ** 30)  # in pixels: fixed sizes there
        runs = self._runs
        h = self._hovered
        if h is not None and self.hover_size:  # the dot under the mouse: a run of its own, drawn larger
            runs = [part for first, last, brush in runs for part in (
                ((first, h, brush), (h, h + 1, brush, self.hover_size), (h + 1, last, brush))
                if first <= h < last else ((first, last, brush),)) if part[1] > part[0]]
        painter.save()
        painter.resetTransform()
        exporting = self._exportOpts  # (pyqtgraph's export mode: the app's figures set it, with their scale)
        if exporting or painter.paintEngine().type() != QtGui.QPaintEngine.Type.Raster:  # a figure: as shapes
            scale = exporting.get("resolutionScale", 1.0) if exporting else 1.0
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing,
                                  exporting.get("antialias", True) if exporting else True)
            painter.setPen(self._pen)
            for first, last, brush, *size in runs:
                painter.setBrush(brush)
                r = scale * (size[0] if size else self._size) / 2.0
                for x, y in at[first:last].tolist():
                    painter.drawEllipse(QtCore.QPointF(x, y), r, r)
        else:  # pixels (the screen, a PNG): one small picture per look, copied to its dots
            ratio = widget.devicePixelRatioF() if widget is not None else 1.0
            frags = self._fragments[:n]
            frags[:, 0:2] = at
            frags[:, 2:4] = 0.0
            frags[:, 6:10] = (1 / ratio, 1 / ratio, 0.0, 1.0)
            for first, last, brush, *size in runs:
                picture = self._picture(size[0] if size else self._size, brush, ratio)
                frags[first:last, 4:6] = (picture.width(), picture.height())
                first_fragment = wrapInstance(self._address + first * _FRAGMENT_BYTES, QtGui.QPainter.PixmapFragment)
                painter.drawPixmapFragments(first_fragment, last - first, picture)
        painter.restore()

    def dot_at(self, scene_pos) -> int | None:
        """The index of the dot drawn at ``scene_pos`` (the top one where dots overlap), or None."""
        if not len(self._pos):
            return None
        at = self._mapped(self.sceneTransform(), self._pos)
        reach = np.array([self._radius(k) for k in range(len(at))]) + 1.0
        hits = np.flatnonzero(np.hypot(at[:, 0] - scene_pos.x(), at[:, 1] - scene_pos.y()) <= reach)
        return int(hits[-1]) if len(hits) else None

    def hoverEvent(self, ev):  # noqa: N802 (pyqtgraph's hover events)
        k = None if ev.isExit() else self.dot_at(ev.scenePos())
        if k is not None:
            ev.acceptClicks(QtCore.Qt.MouseButton.LeftButton)
        if k != self._hovered:
            self._hovered = k
            self.update()

    def mouseClickEvent(self, ev):  # noqa: N802 (pyqtgraph's click events)
        k = self.dot_at(ev.scenePos()) if ev.button() == QtCore.Qt.MouseButton.LeftButton else None
        if k is None:
            ev.ignore()
            return
        ev.accept()
        self.clicked.emit(int(self._numbers[k]))


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
