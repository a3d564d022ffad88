"""1 · Tokens as numbers: every token's embedding x drawn as a strip of butter-yellow bars.

One group of bars per token (one bar per dial x1..xd), a zero line with
negative numbers hanging below it, the token's name under its strip, and the
selected query token's strip outlined. Clicking a strip makes that token the
query. Value labels appear on the bars when there is room; token names are
thinned out when the strips get narrow (up to 512 tokens).

In cross-attention a second row of strips shows the source sentence (the
tokens that give keys and values), on the same value scale, with the
selected key token outlined; clicking a source strip makes it the key.

The small helpers at the top (``GroupedBars``, ``thin_labels``, ``LabelPool``)
are shared with the values panel.
"""
from __future__ import annotations

import bisect

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from .. import style
from .base import Panel
from .lazy_axes import set_ticks, steady_range
from .masked import no_keys, no_keys_note
from .theming import ThemedTextMixin, adopt_text

#: A bar label needs about this many pixels of bar width to be drawn.
VALUE_LABEL_MIN_PX = 34
#: Outline of unselected bars (a darker butter yellow) when they are wide enough to show it.
BAR_EDGE = "#C9A227"
#: Never draw more value labels than this at once.
MAX_VALUE_LABELS = 96
#: In cross-attention (two rows of strips) numbers go on the bars only when a row is this tall (pixels).
LABELS_MIN_HEIGHT = 130


# ----- shared helpers ------------------------------------------------------------------------
def thin_labels(centres, widths_px, px_per_unit: float, keep=(), pad_px: float = 8.0) -> list:
    """Indices of labels (centred at ``centres``, in data units) that fit without overlapping.

    ``keep`` indices are placed first (e.g. the selected token), then the
    others from left to right, skipping any that would touch one already placed.
    """
    n = len(centres)
    lefts: list = []
    rights: list = []
    chosen = []
    order = [k for k in keep if 0 <= k < n]
    order += [k for k in range(n) if k not in set(order)]
    for k in order:
        c = centres[k] * px_per_unit
        half = widths_px[k] / 2 + pad_px / 2
        lo, hi = c - half, c + half
        pos = bisect.bisect_left(lefts, lo)
        if pos > 0 and rights[pos - 1] > lo:
            continue
        if pos < len(lefts) and lefts[pos] < hi:
            continue
        lefts.insert(pos, lo)
        rights.insert(pos, hi)
        chosen.append(k)
    return sorted(chosen)


class LabelPool:
    """TextItems made on demand and reused: ``take(count)`` shows that many, hides the rest."""

    def __init__(self, plot, color: str, anchor=(0.5, 1.0), bold: bool = False, z: float = 20):
        self.plot = plot
        self.color = color
        self.anchor = anchor
        self.bold = bold
        self.z = z
        self.scale = 1.0  # the panel's theme font scale: for items made between repaints, and label room
        self.items: list = []
        self.shown = 0

    def take(self, count: int) -> list:
        while len(self.items) < count:
            item = pg.TextItem("", color=self.color, anchor=self.anchor)
            if self.bold:
                font = item.textItem.font()
                font.setBold(True)
                item.setFont(font)
            adopt_text(item, self.scale)
            item.setZValue(self.z)
            self.plot.addItem(item, ignoreBounds=True)
            self.items.append(item)
        for idx, item in enumerate(self.items):
            item.setVisible(idx < count)
        self.shown = count
        return self.items[:count]

    def texts(self) -> list:
        return [item.textItem.toPlainText() for item in self.items[: self.shown]]


def place_value_labels(pool: LabelPool, xs, heights, ppu: float, decimals: int, rotate: bool = True) -> None:
    """Numbers at the bar tips: upright when bars are wide, turned on their side when narrower
    (if ``rotate``), none when the bars are narrower still."""
    count = len(heights)
    need = VALUE_LABEL_MIN_PX * pool.scale  # bigger text (slides, presenter mode) needs wider bars
    if count > MAX_VALUE_LABELS or ppu < need / (2.2 if rotate else 1.0):
        pool.take(0)
        return
    upright = ppu >= need
    for item, x, h in zip(pool.take(count), xs, heights):
        item.setText(style.fmt(h, decimals))
        item.setAngle(0 if upright else 90)
        if upright:
            item.setAnchor((0.5, 1.0) if h >= 0 else (0.5, 0.0))
        else:
            item.setAnchor((0.0, 0.5) if h >= 0 else (1.0, 0.5))
        item.setPos(float(x), float(h))


def place_pointer(pointer, g: "GroupedBars", k: int, top: float, ppu: float) -> None:
    """A name hanging from the top of group ``k``: centred over it, or flush with its inner edge when
    wider than the group (so it never runs off the plot)."""
    width = pointer.textItem.boundingRect().width()
    left, right = k * g.step - g.GAP / 2.0, (k + 1) * g.step - g.GAP / 2.0
    if width <= (right - left) * ppu:
        pointer.setAnchor((0.5, 0.0))
        pointer.setPos(g.centres[k], top)
    elif g.centres[k] <= (g.x_range[0] + g.x_range[1]) / 2:
        pointer.setAnchor((0.0, 0.0))
        pointer.setPos(max(left, g.x_range[0]), top)
    else:
        pointer.setAnchor((1.0, 0.0))
        pointer.setPos(min(right, g.x_range[1]), top)


def make_plot(parent: QtWidgets.QWidget) -> pg.PlotWidget:
    """A still (no pan/zoom, no menu) plot with a left value axis and a bottom name axis."""
    w = pg.PlotWidget(parent=parent, background=style.BACKGROUND, enableMenu=False)
    item = w.getPlotItem()
    item.setMenuEnabled(False)
    item.hideButtons()
    item.setMouseEnabled(x=False, y=False)
    item.getViewBox().setDefaultPadding(0.0)
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen(style.MUTED))
        axis.setTextPen(pg.mkPen(style.FOREGROUND))
    item.getAxis("bottom").setStyle(tickLength=0)
    item.getAxis("left").setWidth(38)
    item.showGrid(x=False, y=True, alpha=0.15)
    w.setMinimumSize(120, 90)
    return w


class GroupedBars:
    """Bars in groups, one group per token: ``layout(n, d)`` gives every bar's x."""

    GAP = 1.0  # empty space between two groups, in bar widths

    def __init__(self, n: int = 0, d: int = 1):
        self.layout(n, d)

    def layout(self, n: int, d: int) -> None:
        self.n, self.d = n, d
        self.step = d + self.GAP
        starts = np.arange(n, dtype=np.float64) * self.step  # left edge of each group
        self.lefts = (starts[:, None] + np.arange(d, dtype=np.float64)[None, :]).reshape(-1)  # n*d
        self.centres = starts + d / 2.0  # middle of each group
        self.x_range = (-self.GAP / 2.0, max(n * self.step - self.GAP / 2.0, 1.0))

    def group_at(self, x: float) -> int | None:
        """Which group a data x falls in (the gap after a group counts as that group)."""
        if self.n == 0:
            return None
        g = int(np.floor((x + self.GAP / 2.0) / self.step))
        return g if 0 <= g < self.n else None


def tick_metrics(plot: pg.PlotWidget, name: str = "bottom") -> QtGui.QFontMetricsF:
    """Metrics of an axis's tick labels as drawn now (the theme scales the tick font)."""
    axis = plot.getPlotItem().getAxis(name)
    return QtGui.QFontMetricsF(axis.style.get("tickFont") or axis.font())


def fit_value_axis(plot: pg.PlotWidget) -> None:
    """Make the left (value) axis wide enough for its numbers in the tick font as drawn now
    (a fixed width would hide them when the theme makes the text bigger)."""
    fm = tick_metrics(plot, "left")
    plot.getPlotItem().getAxis("left").setWidth(int(max(38.0, fm.horizontalAdvance("-0.00") + 12)))


def px_per_unit(plot: pg.PlotWidget, x_range) -> float:
    width = plot.getPlotItem().getViewBox().boundingRect().width()
    return max(width, 1.0) / max(x_range[1] - x_range[0], 1e-9)


def y_limits(values: np.ndarray, room: float = 0.1) -> tuple:
    """A y range holding 0 and every value, with ``room`` (a fraction) above and below."""
    finite = values[np.isfinite(values)] if values.size else values
    lo = min(0.0, float(finite.min())) if finite.size else 0.0
    hi = max(0.0, float(finite.max())) if finite.size else 0.0
    span = hi - lo
    if span == 0.0:
        return -1.0, 1.0
    return lo - room * span - (0.02 * span if lo < 0 else 0.0), hi + room * span


def _strip_items(pi: pg.PlotItem, band_fill: str, accent: str):
    """The items of one sentence's strips, made once: the selected token's band, the zero line, every
    embedding bar, the selected token's bars outlined, its name above them and the value labels."""
    band = QtWidgets.QGraphicsRectItem()
    band.setBrush(pg.mkBrush(band_fill))
    pen = pg.mkPen(accent, width=1.5, style=QtCore.Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    band.setPen(pen)
    band.setZValue(-5)
    pi.addItem(band, ignoreBounds=True)
    zero = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen(style.FOREGROUND, width=1))
    zero.setZValue(5)
    pi.addItem(zero, ignoreBounds=True)
    bars = pg.BarGraphItem(x0=[], height=[], width=1.0, brush=style.FILL["x"], pen=None)
    pi.addItem(bars)
    chosen = pg.BarGraphItem(x0=[], height=[], width=1.0, brush=style.FILL["x"],
                             pen=pg.mkPen(style.SELECTED, width=2.5))
    chosen.setZValue(3)
    pi.addItem(chosen)
    pointer = pg.TextItem("", color=accent, anchor=(0.5, 0.0))
    font = pointer.textItem.font()
    font.setBold(True)
    pointer.setFont(font)
    pointer.setZValue(30)
    pi.addItem(pointer, ignoreBounds=True)
    return band, bars, chosen, pointer, LabelPool(pi, style.INK["x"], anchor=(0.5, 1.0))


# ----- the panel -------------------------------------------------------------------------------
class EmbeddingPanel(ThemedTextMixin, Panel):
    object_name = "embeddingPanel"
    title = "1 · Tokens as numbers"

    def build(self, body):
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        self.caption = QtWidgets.QLabel(body)
        self.caption.setObjectName("embeddingCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(QtCore.Qt.TextFormat.RichText)
        layout.addWidget(self.caption)
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
        pi = self.plot.getPlotItem()
        self.vb = pi.getViewBox()

        self.band, self.bars, self.chosen, self.pointer, self.values = _strip_items(
            pi, "#FFF3C4", style.SELECTED)

        self.groups = GroupedBars()
        self._result = None
        self._query = 0
        self._ticks: list = []
        self.vb.sigResized.connect(lambda *_: self._place_labels())
        pi.scene().sigMouseClicked.connect(self._clicked)

    # ----- drawing --------------------------------------------------------------------------
    def show_result(self, result, selection):
        x = result.scenario.x  # n x d_model
        n, d = x.shape
        i = selection.query
        self._result, self._query = result, i
        self.groups.layout(n, d)
        g = self.groups
        heights = x.reshape(-1)
        self.bars.setOpts(x0=g.lefts, height=heights, width=1.0)
        self.chosen.setOpts(x0=g.lefts[i * d:(i + 1) * d], height=np.array(x[i]), width=1.0)
        cross = result.scenario.is_cross
        both = np.concatenate([heights, result.scenario.source_x.reshape(-1)]) if cross else heights
        self.y_range = steady_range(getattr(self, "y_range", None),
                                    *y_limits(both, room=0.24 if n * d <= MAX_VALUE_LABELS else 0.12))
        self.vb.setRange(xRange=g.x_range, yRange=self.y_range, padding=0)
        lo, hi = self.y_range
        self.band.setRect(QtCore.QRectF(i * g.step - g.GAP / 2.0, lo, g.step, hi - lo))
        self.pointer.setText(f"query: {result.tokens[i]}")
        self.pointer.setPos(g.centres[i], hi)

        ink = style.INK["x"]
        dials = ", ".join(style.fmt(v, 2) for v in x[i][:8]) + (", …" if d > 8 else "")
        caption = f"<b style='color:{ink}'>{_html(result.tokens[i])}</b> (token {i + 1} of {n}): x = [{dials}]"
        for w in (self.target_label, self.source_label, self.source.plot):
            w.setVisible(cross)
        if cross:
            j = selection.key
            sx = result.scenario.source_x
            kdials = ", ".join(style.fmt(v, 2) for v in sx[j][:8]) + (", …" if d > 8 else "")
            qink, kink = style.INK["query"], style.INK["key"]
            caption = (f"Query <b style='color:{qink}'>{_html(result.tokens[i])}</b> (target token {i + 1} of {n}): "
                       f"x = [{dials}]<br>Key <b style='color:{kink}'>{_html(result.key_tokens[j])}</b> "
                       f"(source token {j + 1} of {result.n_keys}): x = [{kdials}]")
            self.source.show(sx, result.key_tokens, j, self.y_range)
        if no_keys(result, i):
            caption += f"<br><i>{_html(no_keys_note(result, i))}</i>"
        self.caption.setText(caption)
        self.plot.setToolTip(
            f"Each token is a row of {d} numbers: one bar per dial, x1 to x{d}, left to right.\n"
            f"Bars below the line are negative. Click a token's strip to make it the query."
        )
        self._place_labels()

    def _place_labels(self) -> None:
        """Token names on the axis and numbers on the bars, thinned to what fits the width."""
        result = self._result
        if result is None or result.n == 0:
            return
        g = self.groups
        ppu = px_per_unit(self.plot, g.x_range)
        names = result.tokens
        axis = self.plot.getPlotItem().getAxis("bottom")
        key = (QtGui.QFont(axis.style.get("tickFont") or axis.font()).key(), tuple(names))
        if getattr(self, "_name_widths", (None,))[0] != key:  # names and font rarely change between edits
            fm = tick_metrics(self.plot)
            self._name_widths = (key, [fm.horizontalAdvance(t) for t in names])
        widths = self._name_widths[1]
        shown = thin_labels(g.centres, widths, ppu, keep=(self._query,))
        self._ticks = [(float(g.centres[k]), names[k]) for k in shown]
        set_ticks(self.plot.getPlotItem().getAxis("bottom"), [self._ticks])

        x = result.scenario.x
        heights = x.reshape(-1)
        low = result.scenario.is_cross and self.vb.height() < LABELS_MIN_HEIGHT  # two short rows: no numbers
        place_value_labels(self.values, g.lefts + 0.5, heights, 0.0 if low else ppu, 2)
        self.bars.setOpts(pen=pg.mkPen(BAR_EDGE, width=1) if ppu >= 5 else None)
        self._place_pointer(ppu)

    def _place_pointer(self, ppu: float) -> None:
        """"query: name" centred over the chosen strip, or flush with its inner edge when wider than the strip
        (so it never runs off the plot)."""
        g, i = self.groups, self._query
        width = self.pointer.textItem.boundingRect().width()
        left, right = i * g.step - g.GAP / 2.0, (i + 1) * g.step - g.GAP / 2.0
        hi = self.y_range[1]
        if width <= (right - left) * ppu:
            self.pointer.setAnchor((0.5, 0.0))
            self.pointer.setPos(g.centres[i], hi)
        elif g.centres[i] <= (g.x_range[0] + g.x_range[1]) / 2:
            self.pointer.setAnchor((0.0, 0.0))
            self.pointer.setPos(max(left, g.x_range[0]), hi)
        else:
            self.pointer.setAnchor((1.0, 0.0))
            self.pointer.setPos(min(right, g.x_range[1]), hi)

    def theme_changed(self, theme) -> None:
        self.values.scale = theme.font_scale
        self.source.values.scale = theme.font_scale
        fit_value_axis(self.plot)
        fit_value_axis(self.source.plot)

    # ----- clicks ---------------------------------------------------------------------------
    def _clicked(self, ev) -> None:
        if ev.button() != QtCore.Qt.MouseButton.LeftButton or self._result is None or self._result.n == 0:
            return
        pi = self.plot.getPlotItem()
        pos = ev.scenePos()
        if not pi.sceneBoundingRect().contains(pos):
            return
        g = self.groups.group_at(self.vb.mapSceneToView(pos).x())
        if g is not None:
            ev.accept()
            self.session.select(query=g)

    # ----- for tests --------------------------------------------------------------------------
    def drawn(self) -> dict:
        """What is on screen now: bar lefts/heights (n*d), the outlined strip, names and numbers shown."""
        return {
            "lefts": np.array(self.bars.opts["x0"], dtype=float),
            "heights": np.array(self.bars.opts["height"], dtype=float),
            "selected_heights": np.array(self.chosen.opts["height"], dtype=float),
            "selected_lefts": np.array(self.chosen.opts["x0"], dtype=float),
            "band": self.band.rect(),
            "ticks": list(self._ticks),
            "value_labels": self.values.texts(),
            "pointer": self.pointer.textItem.toPlainText(),
            "caption": self.caption.text(),
            "y_range": self.y_range,
            "source": None if self.source.plot.isHidden() else self.source.drawn(),
            "labels": [w.text() for w in (self.target_label, self.source_label) if not w.isHidden()],
        }

    def strip_point(self, i: int) -> QtCore.QPoint:
        """Widget (viewport) position of the middle of token ``i``'s strip, a little above the line."""
        lo, hi = self.y_range
        scene = self.vb.mapViewToScene(QtCore.QPointF(float(self.groups.centres[i]), (hi + lo) / 2))
        return self.plot.mapFromScene(scene)


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
        pi = self.plot.getPlotItem()
        self.vb = pi.getViewBox()
        self.band, self.bars, self.chosen, self.pointer, self.values = _strip_items(
            pi, "#FFF1EC", style.INK["key"])
        self.groups = GroupedBars()
        self.x = np.zeros((0, 1))
        self.tokens = ()
        self.key = 0
        self.y_range = (-1.0, 1.0)
        self.ticks: list = []
        self.vb.sigResized.connect(lambda *_: self.place_labels())
        pi.scene().sigMouseClicked.connect(self._clicked)

    def show(self, x, tokens, j: int, y_range) -> None:
        m, d = x.shape
        self.x, self.tokens, self.key, self.y_range = x, tokens, j, y_range
        self.groups.layout(m, d)
        g = self.groups
        self.bars.setOpts(x0=g.lefts, height=x.reshape(-1), width=1.0)
        self.chosen.setOpts(x0=g.lefts[j * d:(j + 1) * d], height=np.array(x[j]), width=1.0)
        self.vb.setRange(xRange=g.x_range, yRange=y_range, padding=0)
        lo, hi = y_range
        self.band.setRect(QtCore.QRectF(j * g.step - g.GAP / 2.0, lo, g.step, hi - lo))
        self.pointer.setText(f"key: {tokens[j]}")
        self.plot.setToolTip("The source sentence: its tokens give the keys and values.\n"
                             "Click a token's strip to make it the key.")
        self.place_labels()

    def place_labels(self) -> None:
        if not self.tokens:
            return
        g = self.groups
        ppu = px_per_unit(self.plot, g.x_range)
        fm = tick_metrics(self.plot)
        widths = [fm.horizontalAdvance(t) for t in self.tokens]
        shown = thin_labels(g.centres, widths, ppu, keep=(self.key,))
        self.ticks = [(float(g.centres[k]), self.tokens[k]) for k in shown]
        self.plot.getPlotItem().getAxis("bottom").setTicks([self.ticks])
        low = self.vb.height() < LABELS_MIN_HEIGHT
        place_value_labels(self.values, g.lefts + 0.5, self.x.reshape(-1), 0.0 if low else ppu, 2)
        self.bars.setOpts(pen=pg.mkPen(BAR_EDGE, width=1) if ppu >= 5 else None)
        place_pointer(self.pointer, g, self.key, self.y_range[1], ppu)  # the key's name over its strip

    def _clicked(self, ev) -> None:
        if ev.button() != QtCore.Qt.MouseButton.LeftButton or not self.tokens:
            return
        pos = ev.scenePos()
        if not self.plot.getPlotItem().sceneBoundingRect().contains(pos):
            return
        g = self.groups.group_at(self.vb.mapSceneToView(pos).x())
        if g is not None:
            ev.accept()
            self.clicked.emit(g)

    def strip_point(self, j: int) -> QtCore.QPoint:
        lo, hi = self.y_range
        scene = self.vb.mapViewToScene(QtCore.QPointF(float(self.groups.centres[j]), (hi + lo) / 2))
        return self.plot.mapFromScene(scene)

    def drawn(self) -> dict:
        return {
            "heights": np.array(self.bars.opts["height"], dtype=float),
            "selected_heights": np.array(self.chosen.opts["height"], dtype=float),
            "band": self.band.rect(),
            "ticks": list(self.ticks),
            "value_labels": self.values.texts(),
            "pointer": self.pointer.textItem.toPlainText(),
        }


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
