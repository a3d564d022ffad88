"""The dot product q·k term by term, as BertViz's neuron view shows it: three rows of coloured cells, one
cell per coordinate d, the query q (lavender name), the key k (coral name) and their products q_d k_d, red
below zero and blue above (q and k on one scale, the products on their own). The products that add up to
most of the score are outlined: the same largest terms the worked sum under the plane names.

Pointing at a cell names it ("d7: q7 = 2.50, k7 = -0.88, q7 k7 = -2.21"). The numbers come from the
engine (``qkv_engine.explain.score``: its terms, and ``largest`` for the outlined ones); this widget only
paints them, once per change, with no item per cell.
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import explain, views

from ...look import style
from ...look.colour_tables import table

Qt = QtCore.Qt

#: Height of one row of cells, in pixels (times the font's height / 14, so it grows with the theme's text).
ROW_PX = 9.0


class DotTerms(QtWidgets.QWidget):
    """The three rows; ``set_terms(q, k, products, largest)`` with numbers from the engine."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("qkPlaneTerms")
        self.setMouseTracking(True)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)
        self.q = self.k = self.products = np.zeros(0)
        self.largest: list = []
        self.names = ("q", "k", "q·k terms")
        self.colours = style.STANDARD  # its colours (the panel's palette)
        self._colours = table("signed", self.colours)

    def set_colours(self, palette: style.Palette) -> None:
        self.colours = palette
        self._colours = table("signed", palette)
        self.update()

    def set_terms(self, q, k, products, largest) -> None:
        self.q, self.k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
        self.products = np.asarray(products, dtype=np.float64)
        self.largest = list(largest)
        self.update()

    # ----- geometry -----------------------------------------------------------------------------------------
    def _row_h(self) -> float:
        return max(ROW_PX, ROW_PX * QtGui.QFontMetricsF(self.font()).height() / 14.0)

    def _label_w(self) -> float:
        fm = QtGui.QFontMetricsF(self.font())
        return max(fm.horizontalAdvance(n) for n in self.names) + 6

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        return QtCore.QSize(200, int(3 * self._row_h() + 2 * 2 + 2))

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(60, self.sizeHint().height())

    def _cells(self):
        """(left, cell width, row height) of the cells in widget pixels."""
        left = self._label_w()
        d = max(1, self.products.size)
        return left, max(0.5, (self.width() - left - 2) / d), self._row_h()

    def coordinate_at(self, x: float) -> int | None:
        left, cw, _ = self._cells()
        d = int((x - left) // cw) if x >= left else -1
        return d if 0 <= d < self.products.size else None

    # ----- painting -------------------------------------------------------------------------------------------
    def _colour_rows(self) -> list:
        """Each row's cells as colours: q and k on one diverging scale, the products on their own."""
        qk = views.diverging_limit(np.concatenate([self.q, self.k]), share=1.0)
        terms = views.diverging_limit(self.products, share=1.0)
        rows = []
        for values, top in ((self.q, qk), (self.k, qk), (self.products, terms)):
            index = np.clip(np.rint((values / top + 1.0) * 127.5), 0, 255).astype(int)
            rows.append([QtGui.QColor(*(int(c) for c in self._colours[m][:3])) for m in index.tolist()])
        return rows

    def paintEvent(self, event):  # noqa: N802
        if self.products.size == 0:
            return
        p = QtGui.QPainter(self)
        left, cw, rh = self._cells()
        pal = self.colours
        ink = (pal.ink["query"], pal.ink["key"], pal.foreground)
        for r, (colours, name) in enumerate(zip(self._colour_rows(), self.names)):
            y = 1 + r * (rh + 2)
            p.setPen(QtGui.QColor(ink[r]))
            p.drawText(QtCore.QRectF(0, y - 3, left - 4, rh + 6),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), name)
            p.setPen(Qt.PenStyle.NoPen)
            for d, colour in enumerate(colours):
                p.fillRect(QtCore.QRectF(left + d * cw, y, cw + 0.5, rh), colour)
        p.setPen(QtGui.QPen(QtGui.QColor(pal.muted), 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QtCore.QRectF(left, 1, cw * self.products.size, 3 * rh + 4))
        y = 1 + 2 * (rh + 2)
        p.setPen(QtGui.QPen(QtGui.QColor(pal.selected), 1.5))
        for d in self.largest:  # the terms the worked sum names
            p.drawRect(QtCore.QRectF(left + d * cw, y - 1, max(cw, 2.0), rh + 2))
        p.end()

    def mouseMoveEvent(self, event):  # noqa: N802
        d = self.coordinate_at(event.position().x())
        if d is None:
            self.setToolTip("The score q·k adds up one product per coordinate: q_d × k_d.\n"
                            "Outlined: the products the sum below names (the largest).")
        else:
            fmt = lambda v: explain.fixed(float(v), 2)  # noqa: E731
            self.setToolTip(f"d{d + 1}: q{d + 1} = {fmt(self.q[d])}, k{d + 1} = {fmt(self.k[d])}, "
                            f"q{d + 1} k{d + 1} = {fmt(self.products[d])}")
        super().mouseMoveEvent(event)
