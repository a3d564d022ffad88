"""1 · Tokens as numbers: every token's embedding x drawn as a strip of butter-yellow bars.

One group of bars per token (one bar per dial x1..xd), a zero line with
negative numbers hanging below it, the token's name under its strip, and the
selected query token's strip outlined. Clicking a strip makes that token the
query. Value labels appear on the bars when there is room; token names are
thinned out when the strips get narrow (up to 512 tokens).

In cross-attention a second row of strips shows the source sentence (the
tokens that give keys and values), on the same value scale, with the
selected key token outlined; clicking a source strip makes it the key.

The bars, names and numbers are laid out by ``grouped_bars``, shared with the
values panel.
"""
from __future__ import annotations

import html

import numpy as np
from PySide6 import QtCore, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from .. import style
from .base import Panel
from .decorations import Bars, line_item, reach
from .grouped_bars import (MAX_VALUE_LABELS, GroupedBars, TextWidths, bar_edge, fit_value_axis, make_plot,
                           place_pointer, place_value_labels, pointer_label, px_per_unit, thin_labels, tick_font,
                           value_pool, y_limits)
from .lazy_axes import set_ticks, steady_range
from .masked import no_keys, no_keys_note
from .steady_label import steady_box
from .theming import ThemedTextMixin

#: In cross-attention (two rows of strips) numbers go on the bars only when a row is this tall (pixels).
LABELS_MIN_HEIGHT = 130


class _Strips:
    """The items of one sentence's strips, made once: the selected token's band, the zero line, every
    embedding bar, the selected token's bars outlined, its name above them and the value labels."""

    def __init__(self, plot: pg.PlotWidget, band_fill: str, accent: str):
        pi = plot.getPlotItem()
        self.plot, self.vb = plot, pi.getViewBox()
        self.band = QtWidgets.QGraphicsRectItem()
        self.band.setBrush(pg.mkBrush(band_fill))
        pen = pg.mkPen(accent, width=1.5, style=QtCore.Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.band.setPen(pen)
        self.band.setZValue(-5)
        pi.addItem(self.band, ignoreBounds=True)
        self.zero = line_item(pi, pg.mkPen(style.FOREGROUND, width=1), z=5)
        self.bars = Bars(x0=[], height=[], width=1.0, brush=style.FILL["x"], pen=None)
        pi.addItem(self.bars)
        self.chosen = Bars(x0=[], height=[], width=1.0, brush=style.FILL["x"],
                                      pen=pg.mkPen(style.SELECTED, width=2.5))
        self.chosen.setZValue(3)
        pi.addItem(self.chosen)
        self.pointer = pointer_label(pi, accent)
        self.values = value_pool(pi, style.INK["x"])
        self.groups = GroupedBars()
        self.widths = TextWidths()
        self.edge = None  # the bars' outline now (none when they are narrow)
        self.ticks: list = []

    def show(self, x: np.ndarray, k: int, y_range, pointer: str, ppu: float) -> None:
        """Bars of the embeddings ``x`` (tokens x dials), token ``k``'s strip outlined and named."""
        n, d = x.shape
        g = self.groups
        g.layout(n, d)
        self.edge = bar_edge(style.EDGE["x"], ppu)
        self.bars.setOpts(x0=g.lefts, height=x.reshape(-1), width=1.0, pen=self.edge)
        self.chosen.setOpts(x0=g.lefts[k * d:(k + 1) * d], height=np.array(x[k]), width=1.0)
        self.vb.setRange(xRange=g.x_range, yRange=y_range, padding=0)
        lo, hi = y_range
        left, right = reach(*g.x_range)
        self.zero.setLine(left, 0.0, right, 0.0)
        self.band.setRect(QtCore.QRectF(k * g.step - g.GAP / 2.0, lo, g.step, hi - lo))
        self.pointer.setText(pointer)

    def place_labels(self, x: np.ndarray, names, k: int, top: float, numbers: bool) -> None:
        """Token names on the axis and numbers on the bars, thinned to what fits the width."""
        g = self.groups
        ppu = px_per_unit(self.plot, g.x_range)
        widths = self.widths(tick_font(self.plot), names)
        shown = thin_labels(g.centres, widths, ppu, keep=(k,))
        self.ticks = [(float(g.centres[m]), names[m]) for m in shown]
        set_ticks(self.plot.getPlotItem().getAxis("bottom"), [self.ticks])
        place_value_labels(self.values, g.lefts + 0.5, x.reshape(-1), ppu if numbers else 0.0, 2)
        edge = bar_edge(style.EDGE["x"], ppu)
        if (edge is None) != (self.edge is None):  # a resize made the bars wide or narrow
            self.edge = edge
            self.bars.setOpts(pen=edge)
        place_pointer(self.pointer, g, k, top, ppu)

    def drawn(self) -> dict:
        return {
            "heights": np.array(self.bars.opts["height"], dtype=float),
            "selected_heights": np.array(self.chosen.opts["height"], dtype=float),
            "band": self.band.rect(),
            "ticks": list(self.ticks),
            "value_labels": self.values.texts(),
            "pointer": self.pointer.text(),
        }

    def strip_point(self, k: int, y_range) -> QtCore.QPoint:
        """Widget (viewport) position of the middle of token ``k``'s strip."""
        lo, hi = y_range
        scene = self.vb.mapViewToScene(QtCore.QPointF(float(self.groups.centres[k]), (hi + lo) / 2))
        return self.plot.mapFromScene(scene)

    def group_clicked(self, ev) -> int | None:
        """The token whose strip a left click fell on, or None."""
        if ev.button() != QtCore.Qt.MouseButton.LeftButton:
            return None
        pos = ev.scenePos()
        if not self.plot.getPlotItem().sceneBoundingRect().contains(pos):
            return None
        return self.groups.group_at(self.vb.mapSceneToView(pos).x())


# ----- the panel -------------------------------------------------------------------------------
class EmbeddingPanel(ThemedTextMixin, Panel):
    object_name = "embeddingPanel"
    title = "1 · Tokens as numbers"

    def build(self, body):
        self._result = None
        self._query = 0
        self.y_range = (-1.0, 1.0)
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        self.caption = QtWidgets.QLabel(body)
        self.caption.setObjectName("embeddingCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(QtCore.Qt.TextFormat.RichText)
        layout.addWidget(steady_box(self.caption))
        self.target_label = _sentence_label(body, "embeddingTargetLabel", "target (queries)", "query")
        layout.addWidget(self.target_label)
        self.plot = make_plot(body)
        self.plot.setObjectName("embeddingPlot")
        layout.addWidget(self.plot, 1)
        self.source_label = _sentence_label(body, "embeddingSourceLabel", "source (keys and values)", "key")
        layout.addWidget(self.source_label)
        self.source = SourceStrips(body)
        self.source.plot.setObjectName("embeddingSourcePlot")
        layout.addWidget(self.source.plot, 1)
        self.source.clicked.connect(lambda j: self.session.select(key=j))
        for w in (self.target_label, self.source_label, self.source.plot):
            w.setVisible(False)
        self.strips = _Strips(self.plot, style.PALE["x"], style.SELECTED)
        self.vb = self.strips.vb
        self.vb.sigResized.connect(lambda *_: self._place_labels())
        self.plot.getPlotItem().scene().sigMouseClicked.connect(self._clicked)

    # ----- drawing --------------------------------------------------------------------------
    def show_result(self, result, selection):
        x = result.scenario.x  # n x d_model
        n, d = x.shape
        i = selection.query
        self._result, self._query = result, i
        cross = result.scenario.is_cross
        both = np.concatenate([x.reshape(-1), result.scenario.source_x.reshape(-1)]) if cross else x
        self.y_range = steady_range(self.y_range, *y_limits(both, room=0.24 if n * d <= MAX_VALUE_LABELS else 0.12))
        self.strips.groups.layout(n, d)
        self.strips.show(x, i, self.y_range, f"query: {result.tokens[i]}",
                         px_per_unit(self.plot, self.strips.groups.x_range))

        ink = style.INK["x"]
        dials = ", ".join(style.fmt(v, 2) for v in x[i][:8].tolist()) + (", …" if d > 8 else "")
        caption = f"<b style='color:{ink}'>{html.escape(result.tokens[i])}</b> (token {i + 1} of {n}): x = [{dials}]"
        for w in (self.target_label, self.source_label, self.source.plot):
            if w.isHidden() == cross:
                w.setVisible(cross)
        if cross:
            j = selection.key
            sx = result.scenario.source_x
            kdials = ", ".join(style.fmt(v, 2) for v in sx[j][:8].tolist()) + (", …" if d > 8 else "")
            qink, kink = style.INK["query"], style.INK["key"]
            caption = (f"Query <b style='color:{qink}'>{html.escape(result.tokens[i])}</b> "
                       f"(target token {i + 1} of {n}): x = [{dials}]<br>"
                       f"Key <b style='color:{kink}'>{html.escape(result.key_tokens[j])}</b> "
                       f"(source token {j + 1} of {result.n_keys}): x = [{kdials}]")
            self.source.show(sx, result.key_tokens, j, self.y_range)
        if no_keys(result, i):
            caption += f"<br><i>{html.escape(no_keys_note(result, i))}</i>"
        self.caption.setText(caption)
        self.plot.setToolTip(f"Each token is a row of {d} numbers: one bar per dial, x1 to x{d}, left to right.\n"
                             f"Bars below the line are negative. Click a token's strip to make it the query.")
        self._place_labels()

    def _place_labels(self) -> None:
        """Token names on the axis and numbers on the bars, thinned to what fits the width."""
        result = self._result
        if result is None or result.n == 0:
            return
        low = result.scenario.is_cross and self.vb.height() < LABELS_MIN_HEIGHT  # two short rows: no numbers
        self.strips.place_labels(result.scenario.x, result.tokens, self._query, self.y_range[1], not low)

    def theme_changed(self, theme) -> None:
        self.strips.values.scale = theme.font_scale
        self.source.strips.values.scale = theme.font_scale
        fit_value_axis(self.plot)
        fit_value_axis(self.source.plot)

    # ----- clicks ---------------------------------------------------------------------------
    def _clicked(self, ev) -> None:
        if self._result is None or self._result.n == 0:
            return
        g = self.strips.group_clicked(ev)
        if g is not None:
            ev.accept()
            self.session.select(query=g)

    # ----- for tests --------------------------------------------------------------------------
    def drawn(self) -> dict:
        """What is on screen now: bar lefts/heights (n*d), the outlined strip, names and numbers shown."""
        strips = self.strips
        drawn = strips.drawn()
        drawn.update({
            "lefts": np.array(strips.bars.opts["x0"], dtype=float),
            "selected_lefts": np.array(strips.chosen.opts["x0"], dtype=float),
            "caption": self.caption.text(),
            "y_range": self.y_range,
            "source": None if self.source.plot.isHidden() else self.source.drawn(),
            "labels": [w.text() for w in (self.target_label, self.source_label) if not w.isHidden()],
        })
        return drawn

    def strip_point(self, i: int) -> QtCore.QPoint:
        """Widget (viewport) position of the middle of token ``i``'s strip, a little above the line."""
        return self.strips.strip_point(i, self.y_range)


def _sentence_label(parent, name: str, text: str, role: str) -> QtWidgets.QLabel:
    """A one-line name over a row of strips ("target (queries)", "source (keys and values)")."""
    label = QtWidgets.QLabel(text, parent)
    label.setObjectName(name)
    label.setStyleSheet(f"color: {style.INK[role]}; font-weight: bold;")
    return label


class SourceStrips(QtCore.QObject):
    """The source sentence's embeddings (cross-attention): one strip per key token, the selected
    key's strip outlined and named, clicks report the key token under the mouse."""

    clicked = QtCore.Signal(int)

    def __init__(self, parent):
        super().__init__(parent)
        self.plot = make_plot(parent)
        self.strips = _Strips(self.plot, style.PALE["key"], style.INK["key"])
        self.x = np.zeros((0, 1))
        self.tokens = ()
        self.key = 0
        self.y_range = (-1.0, 1.0)
        self.strips.vb.sigResized.connect(lambda *_: self.place_labels())
        self.plot.getPlotItem().scene().sigMouseClicked.connect(self._clicked)

    def show(self, x, tokens, j: int, y_range) -> None:
        self.x, self.tokens, self.key, self.y_range = x, tokens, j, y_range
        self.strips.groups.layout(*x.shape)
        self.strips.show(x, j, y_range, f"key: {tokens[j]}", px_per_unit(self.plot, self.strips.groups.x_range))
        self.plot.setToolTip("The source sentence: its tokens give the keys and values.\n"
                             "Click a token's strip to make it the key.")
        self.place_labels()

    def place_labels(self) -> None:
        if not self.tokens:
            return
        low = self.strips.vb.height() < LABELS_MIN_HEIGHT
        self.strips.place_labels(self.x, self.tokens, self.key, self.y_range[1], not low)

    def _clicked(self, ev) -> None:
        if not self.tokens:
            return
        g = self.strips.group_clicked(ev)
        if g is not None:
            ev.accept()
            self.clicked.emit(g)

    def strip_point(self, j: int) -> QtCore.QPoint:
        return self.strips.strip_point(j, self.y_range)

    def drawn(self) -> dict:
        return self.strips.drawn()
