"""Embeddings of a real model's size as colour strips: one row of coloured cells per token (hundreds of
numbers each), red below zero, white at zero, blue above, on one scale shared by every token, with a
colour bar that says the scale. The scale ends where 98 % of the numbers do (``views.diverging_limit``):
the few larger ones (a real model has some) get the end colours rather than leaving every cell pale.

The token names run down the left (as many as fit, the selected token's always), a few dimensions are
named along the bottom (x1, x100, ...), and the selected token's row is outlined. In cross-attention the
source sentence's rows follow below an empty row, the selected key's row outlined in the key's colour.
Clicking a row picks that token; hovering a cell names it in the tooltip ("'it' · x17 = 1.93").

The embedding panel uses this when bars would be too thin to read (``strip_mode``).
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets  # noqa: F401  (PySide6 before pyqtgraph)
import pyqtgraph as pg

from qkv_engine import feature_names, views

from ...look import colours, style
from ...labels.changed_text import set_tooltip
from ...drawing.cell_grid import CellGridItem, Outline
from ...look.colour_tables import colour_map
from ...drawing.token_labels import label_step, nice_step, short_token
from ...drawing.colour_scale import place_bar
from ...drawing.lazy_axes import set_label, set_ticks, steady_range

#: Embeddings with more dimensions than this are drawn as strips.
MAX_BAR_DIMS = 16
#: ... and so are those whose bars would number more than this (n x d_model, with d_model of 8 or more).
MAX_BARS = 400


def strip_mode(n: int, d: int) -> bool:
    """Whether n tokens of d numbers each are drawn as colour strips rather than bars."""
    return d > MAX_BAR_DIMS or (d >= 8 and n * d > MAX_BARS)


class StripView(QtCore.QObject):
    """The strips of one or two sentences in one plot; see the module's docstring."""

    clicked = QtCore.Signal(str, int)  # ("query" or "key", token index)

    def __init__(self, parent: QtWidgets.QWidget, palette: style.Palette = style.STANDARD):
        super().__init__(parent)
        self.palette = palette  # the panel's; its ``colours_changed`` sets a new one
        self.plot = pg.PlotWidget(parent=parent, background=palette.background, enableMenu=False)
        self.plot.setObjectName("embeddingStrips")
        self.plot.setMinimumSize(120, 90)
        pi = self.plot.getPlotItem()
        pi.setMenuEnabled(False)
        pi.hideButtons()
        pi.setMouseEnabled(x=False, y=False)
        pi.invertY(True)
        self.vb = pi.getViewBox()
        self.vb.setDefaultPadding(0.0)
        for name in ("left", "bottom"):
            axis = pi.getAxis(name)
            colours.paint(axis, palette, pen="muted", text="foreground", label="foreground")
            axis.setStyle(tickLength=0)
        self.grid = CellGridItem("signed")
        self.grid.set_colours(palette)
        self.grid.numbers = False  # hundreds of cells a row: colour alone, the numbers are in the caption
        pi.addItem(self.grid)
        self.bar = pg.ColorBarItem(values=(-1.0, 1.0), colorMap=colour_map("signed", palette),
                                   interactive=False, width=10, label="x", pen=palette.foreground, colorMapMenu=False)
        colours.paint(self.bar, palette, table="signed")
        place_bar(self.bar, pi)
        self.grid.cellClicked.connect(self._on_click)
        self.grid.cellHovered.connect(self._on_hover)
        self.grid.cellLeft.connect(lambda: set_tooltip(self.plot, self._tip))
        self.vb.sigResized.connect(lambda *_: self._place_names())
        self.level = None  # the colour scale's ends as shown (-L, L), kept while the numbers fit
        self.scenario = None
        self.rows: list = []  # (role, token index) of each row drawn; ("gap", -1) for the empty row
        self.ticks: list = []
        self.sel = (0, 0)
        self._tip = ""

    def setVisible(self, on: bool) -> None:  # noqa: N802 (Qt naming)
        self.plot.setVisible(on)

    def show(self, scenario, query: int, key: int) -> None:
        """Draw every token's x (and the source's in cross-attention); outline the query's (and key's) row."""
        s = scenario
        self.scenario, self.sel = s, (query, key)
        x = np.asarray(s.x, dtype=np.float64)
        self.rows = [("query", m) for m in range(s.n)]
        if s.is_cross:
            gap = np.full((1, s.d_model), np.nan)  # an empty row between the two sentences
            x = np.vstack([x, gap, np.asarray(s.source_x, dtype=np.float64)])
            self.rows += [("gap", -1)] + [("key", m) for m in range(s.n_keys)]
        level = views.diverging_limit(x)
        self.level = steady_range(self.level, -level, level)
        top = max(-self.level[0], self.level[1])
        self.grid.setData(x, levels=(-top, top))
        if tuple(self.bar.levels()) != (-top, top):
            self.bar.setLevels((-top, top))
        p = self.palette
        outlines = {"query": Outline(QtCore.QRectF(0, query, s.d_model, 1), p.selected, 2.2, halo=True)}
        if s.is_cross:
            outlines["key"] = Outline(QtCore.QRectF(0, s.n + 1 + key, s.d_model, 1), p.ink["key"], 2.2, halo=True)
        self.grid.set_outlines(outlines)
        rows, d = x.shape
        self.vb.setRange(xRange=(0, d), yRange=(0, rows), padding=0)
        step = nice_step(d / 5.0)
        marks = sorted({0, *range(step - 1, d, step)})
        if d - 1 - marks[-1] > step / 2:
            marks.append(d - 1)
        set_ticks(self.plot.getPlotItem().getAxis("bottom"), [[(m + 0.5, f"x{m + 1}") for m in marks], []])
        set_label(self.plot.getPlotItem().getAxis("bottom"), f"{d} numbers per token")
        self._tip = (f"Each row is one token's {d} numbers, x1 to x{d}, left to right: red below 0, blue above.\n"
                     f"Numbers beyond ±{style.fmt(top, 2)} get the darkest colours.\n"
                     "Click a row to pick that token. Point at a cell to read it.")
        set_tooltip(self.plot, self._tip)
        self._place_names()

    def _place_names(self) -> None:
        """Token names down the left: as many as fit the height, the selected tokens' always."""
        s = self.scenario
        if s is None or not self.rows:
            return
        pi = self.plot.getPlotItem()
        fm = QtGui.QFontMetricsF(pi.getAxis("left").style.get("tickFont") or QtGui.QFont())
        room = int(np.ceil(fm.height() / 2))  # the first and last names reach half a line past the cells
        if pi.layout.getContentsMargins()[1] != room:
            pi.layout.setContentsMargins(0, room, 0, 0)
        rows = len(self.rows)
        px = max(1.0, self.vb.height()) / rows
        step = label_step((fm.height() + 1.0) / px)
        chosen = {self.row_of("query", self.sel[0])}
        if s.is_cross:
            chosen.add(self.row_of("key", self.sel[1]))
        shown = set(range(0, rows, step))
        for r in chosen:  # the selected rows, and no name too close to them
            shown -= {m for m in range(r - step + 1, r + step)}
        shown |= chosen
        ticks = []
        for r in sorted(shown):
            role, m = self.rows[r]
            if role == "gap":
                continue
            tokens = s.tokens if role == "query" else s.key_tokens
            ticks.append((r + 0.5, short_token(tokens[m])))
        self.ticks = ticks
        set_ticks(self.plot.getPlotItem().getAxis("left"), [ticks, []])

    def row_of(self, role: str, m: int) -> int:
        return m if role == "query" else self.scenario.n + 1 + m

    def _on_click(self, r: int, _c: int) -> None:
        if 0 <= r < len(self.rows) and self.rows[r][0] != "gap":
            self.clicked.emit(*self.rows[r])

    def _on_hover(self, r: int, c: int) -> None:
        s = self.scenario
        if s is None or not (0 <= r < len(self.rows)) or self.rows[r][0] == "gap":
            return
        role, m = self.rows[r]
        tokens = s.tokens if role == "query" else s.key_tokens
        value = float(self.grid.values[r, c])
        set_tooltip(self.plot, f"'{tokens[m]}' · {feature_names.header(s, 'x', c)} = {style.fmt(value, 2)}")

    def row_point(self, role: str, m: int) -> QtCore.QPoint:
        """Viewport position of the middle of a token's row (for clicking it in tests)."""
        r = self.row_of(role, m)
        d = self.grid.values.shape[1]
        scene = self.vb.mapViewToScene(QtCore.QPointF(d / 2.0, r + 0.5))
        return self.plot.mapFromScene(scene)

    def drawn(self) -> dict:
        return {"values": np.array(self.grid.values), "levels": (self.grid.low, self.grid.high),
                "outlines": {k: o.rect for k, o in self.grid.outlines.items()}, "ticks": list(self.ticks),
                "rows": list(self.rows)}
