"""The one look of a masked cell, everywhere: a light grey cover and a dark hatch that names the reason.

Diagonal lines for the causal mask, upright lines for a padding key, a cross for a cell blocked by hand.
The cover is opaque, so a masked cell never shows the colour of 0 (it is not "small", it is not there).
``mask_icon`` draws the same look in a small square, for buttons and legends. The cover and the hatch
take their colours from the palette (``mask_fill``, ``mask_hatch``); ``MASK_FILL`` and ``MASK_HATCH`` are
the standard palette's.
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui
import pyqtgraph as pg

from qkv_engine import MASK_BLOCKED, MASK_CAUSAL, MASK_PADDING, mask_view

from . import style

Qt = QtCore.Qt

MASK_FILL = QtGui.QColor(style.STANDARD.mask_fill)
MASK_HATCH = QtGui.QColor(style.STANDARD.mask_hatch)
#: The hatch of each mask reason: it carries the reason without colour.
MASK_PATTERN = {
    MASK_CAUSAL: Qt.BrushStyle.BDiagPattern,  # diagonal lines
    MASK_PADDING: Qt.BrushStyle.VerPattern,  # upright lines, like the column they cover
    MASK_BLOCKED: Qt.BrushStyle.DiagCrossPattern,  # a cross
}


def runs_path(runs: np.ndarray, x0: float = 0.0, y0: float = 0.0) -> QtGui.QPainterPath:
    """One closed rectangle per run (row i, columns a..b), built from arrays in one go (fast for thousands)."""
    if len(runs) == 0:
        return QtGui.QPainterPath()
    i, a, b = (runs[:, c].astype(np.float64) for c in range(3))
    xs = np.stack([a, b, b, a, a], axis=1).ravel() + x0
    ys = np.stack([i, i, i + 1, i + 1, i], axis=1).ravel() + y0
    connect = np.ones((len(runs), 5), dtype=bool)
    connect[:, -1] = False  # no line from one rectangle to the next
    return pg.arrayToQPath(xs, ys, connect=connect.ravel())


def mask_paths(masked_by) -> tuple:
    """(cover path, {reason: hatch path}, {reason: runs}) of an n x m grid of mask reasons, in cell units."""
    runs = {r: mask_view.mask_runs(masked_by, r) for r in MASK_PATTERN}
    return runs_path(mask_view.mask_runs(masked_by)), {r: runs_path(rr) for r, rr in runs.items()}, runs


#: Vector files get the hatches as lines this many pixels apart (SVG and PDF readers draw Qt's pattern brushes
#: as flat grey or not at all, and Qt's SVG writer drops clipping).
HATCH_STEP = 8.0


def mask_colours(palette: style.Palette | None = None) -> tuple:
    """(cover, hatch) QColors of a palette (default: the one in use)."""
    pal = palette or style.current()
    return QtGui.QColor(pal.mask_fill), QtGui.QColor(pal.mask_hatch)


def paint_mask(p: QtGui.QPainter, cover: QtGui.QPainterPath, hatches: dict, runs: dict | None = None,
               device: QtGui.QTransform | None = None, palette: style.Palette | None = None) -> None:
    """Cover, then hatch, with the painter in cell units (hatch patterns stay a few pixels wide). With
    ``device`` (cell units -> pixels of the view, for a vector file) the hatches are drawn as lines cut to
    each run of masked cells. Colours from ``palette`` (default: the one in use)."""
    if cover.isEmpty():
        return
    fill, hatch = mask_colours(palette)
    p.fillPath(cover, fill)
    for reason, path in hatches.items():
        if path.isEmpty():
            continue
        if device is None:
            p.fillPath(path, QtGui.QBrush(hatch, MASK_PATTERN[reason]))
        else:
            _hatch_lines(p, runs[reason], reason, device, hatch)


def _hatch_lines(p: QtGui.QPainter, runs: np.ndarray, reason: int, device: QtGui.QTransform,
                 hatch: QtGui.QColor) -> None:
    """The hatch of ``reason`` as lines HATCH_STEP view pixels apart over each run (row i, columns a..b),
    every line cut to its run's rectangle; one phase for all runs, so neighbouring runs join up."""
    p.save()
    p.setTransform(device.inverted()[0] * p.transform())  # draw in view pixels
    pen = QtGui.QPen(hatch)
    pen.setWidthF(1.0)
    p.setPen(pen)
    lines = []
    step = HATCH_STEP
    for i, a, b in runs.tolist():
        box = device.mapRect(QtCore.QRectF(a, i, b - a, 1))
        x0, y0, x1, y1 = box.left(), box.top(), box.right(), box.bottom()
        if reason == MASK_PADDING:  # upright lines: x = c
            for c in np.arange(np.ceil(x0 / step) * step, x1, step):
                lines.append(QtCore.QLineF(c, y0, c, y1))
            continue
        for c in np.arange(np.ceil((x0 + y0) / step) * step, x1 + y1, step):  # rising lines: x + y = c
            xa, xb = max(x0, c - y1), min(x1, c - y0)
            if xb > xa:
                lines.append(QtCore.QLineF(xa, c - xa, xb, c - xb))
        if reason == MASK_BLOCKED:
            for c in np.arange(np.ceil((x0 - y1) / step) * step, x1 - y0, step):  # falling lines: x - y = c
                xa, xb = max(x0, c + y0), min(x1, c + y1)
                if xb > xa:
                    lines.append(QtCore.QLineF(xa, xa - c, xb, xb - c))
    if lines:
        p.drawLines(lines)
    p.restore()


def mask_icon(kind: str, size: int = 16, palette: style.Palette | None = None) -> QtGui.QIcon:
    """A small square in the look of a cell: "select" (an outlined open cell), "causal" (a masked corner),
    "block" or "padding" (a masked cell); mode buttons double as the legend of the hatches. In ``palette``
    (default: the one in use)."""
    pal = palette or style.current()
    pix = QtGui.QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    p = QtGui.QPainter(pix)
    cell = QtCore.QRectF(1.5, 1.5, size - 3, size - 3)
    open_colour = QtGui.QColor(pg.colormap.get(pal.weights_map).map(0.45, mode="qcolor"))
    if kind == "select":
        p.fillRect(cell, open_colour)
        pen = QtGui.QPen(QtGui.QColor(pal.selected))
        pen.setWidthF(2.0)
        p.setPen(pen)
        p.drawRect(cell)
    else:
        path = QtGui.QPainterPath()
        if kind == "causal":
            p.fillRect(cell, open_colour)
            path.addPolygon(QtGui.QPolygonF([cell.topLeft(), cell.topRight(), cell.bottomRight()]))
            path.closeSubpath()
            reason = MASK_CAUSAL
        else:
            path.addRect(cell)
            reason = MASK_BLOCKED if kind == "block" else MASK_PADDING
        paint_mask(p, path, {reason: path}, palette=pal)
        p.setPen(QtGui.QPen(mask_colours(pal)[1]))
        p.drawRect(cell)
    p.end()
    return QtGui.QIcon(pix)
