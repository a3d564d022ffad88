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

A real model's hundreds of numbers per token would be hundreds of hair-thin
bars: then every token is a colour strip instead (``embedding_strips``), and
the caption names the selected token's largest numbers ("x7 = -3.49, x224 =
1.52, ... and 380 more"). When the dimensions have names (designed examples),
the caption and the axis say which bar is which feature.
"""
from __future__ import annotations

import html

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import feature_names, views

from ...look import colours, style
from ...labels.changed_text import set_text, set_tooltip
from ..base import Panel
from .embedding_strips import StripView, strip_mode
from ...drawing.plot_marks import Bars, line_item, reach
from ...drawing.grouped_bars import MAX_VALUE_LABELS, GroupedBars, TextWidths, bar_edge, fit_value_axis, make_plot, place_pointer, place_value_labels, pointer_label, px_per_unit, thin_labels, tick_font, label_room, value_pool, y_limits
from ...drawing.lazy_axes import set_label, set_range, set_ticks, steady_range
from ..mask_words import no_keys, no_keys_note
from ...labels.wrapped_label import WrappedLabel
from ..last_drawn import ShownFor
from ...labels.steady_box import steady_box
from ..themed_text import ThemedTextMixin

#: In cross-attention (two rows of strips) numbers go on the bars only when a row is this tall (pixels).
LABELS_MIN_HEIGHT = 130
#: As colour strips, the caption names this many of the selected token's largest numbers (fewer in a panel
#: narrower than ``NARROW`` pixels).
LARGEST_NAMED = 4
NARROW = 400


class _Strips:
    """The items of one sentence's strips, made once: the selected token's band, the zero line, every
    embedding bar, the selected token's bars outlined, its name above them and the value labels."""

    def __init__(self, plot: pg.PlotWidget, palette: style.Palette, band: str, accent: str):
        """``band`` and ``accent``: the palette's roles of the selected token's band and of its outline and
        name."""
        pi = plot.getPlotItem()
        self.plot, self.vb = plot, pi.getViewBox()
        self.palette = palette  # the panel's; its ``colours_changed`` sets a new one
        self.band = QtWidgets.QGraphicsRectItem()
        self.band.setBrush(pg.mkBrush(palette.colour(band)))
        pen = pg.mkPen(palette.colour(accent), width=1.5, style=QtCore.Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.band.setPen(pen)
        colours.paint(self.band, palette, pen=accent, brush=band)
        self.band.setZValue(-5)
        pi.addItem(self.band, ignoreBounds=True)
        self.zero = line_item(pi, pg.mkPen(palette.foreground, width=1), z=5)
        colours.paint(self.zero, palette, pen="foreground")
        self.bars = Bars(x0=[], height=[], width=1.0, brush=palette.fill["x"], pen=None)
        colours.paint(self.bars, palette, brush="fill_x")  # (its outline: ``bar_edge`` on every repaint)
        pi.addItem(self.bars)
        self.chosen = Bars(x0=[], height=[], width=1.0, brush=palette.fill["x"],
                           pen=pg.mkPen(palette.selected, width=2.5))
        colours.paint(self.chosen, palette, pen="selected", brush="fill_x")
        self.chosen.setZValue(3)
        pi.addItem(self.chosen)
        self.pointer = pointer_label(pi, palette, accent)
        self.values = value_pool(pi, "ink_x")
        self.groups = GroupedBars()
        self.widths = TextWidths()
        self.edge = None  # the bars' outline now (none when they are narrow)
        self.ticks: list = []
        self._chosen = self._names_key = None  # as last drawn
        self._shown: list = []

    def show(self, x: np.ndarray, k: int, y_range, pointer: str, ppu: float) -> None:
        """Bars of the embeddings ``x`` (tokens x dials), token ``k``'s strip outlined and named."""
        n, d = x.shape
        g = self.groups
        g.layout(n, d)
        self.edge = bar_edge(self.palette.edge["x"], ppu)
        self.bars.setOpts(x0=g.lefts, height=x.reshape(-1), width=1.0, pen=self.edge)
        chosen = (k, x[k].tobytes(), g.shape)
        if chosen != self._chosen:  # (an edit of another token leaves the outlined strip as it is)
            self._chosen = chosen
            self.chosen.setOpts(x0=g.lefts[k * d:(k + 1) * d], height=np.array(x[k]), width=1.0)
        set_range(self.vb, g.x_range, y_range)
        lo, hi = y_range
        left, right = reach(*g.x_range)
        self.zero.setLine(left, 0.0, right, 0.0)
        self.band.setRect(QtCore.QRectF(k * g.step - g.GAP / 2.0, lo, g.step, hi - lo))
        self.pointer.setText(pointer)

    def place_labels(self, x: np.ndarray, names, k: int, top: float, numbers: bool) -> None:
        """Token names on the axis and numbers on the bars, thinned to what fits the width."""
        g = self.groups
        ppu = px_per_unit(self.plot, g.x_range)
        font = tick_font(self.plot)
        key = (names, font, ppu, k, g.shape)  # (fonts compared, not their keys: faster)
        if key != self._names_key:  # thinned again only for new names, a new width or another token
            self._names_key = key
            self._shown = thin_labels(g.centres, self.widths(font, names), ppu, keep=(k,))
            self.ticks = [(float(g.centres[m]), names[m]) for m in self._shown]
            set_ticks(self.plot.getPlotItem().getAxis("bottom"), [self.ticks])
        place_value_labels(self.values, g.lefts + 0.5, x.reshape(-1), ppu if numbers else 0.0, 2)
        edge = bar_edge(self.palette.edge["x"], ppu)
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
    follows_colours = True

    def build(self, body):
        self._result = None
        self._query = 0
        self._narrow = False
        self._features = None
        self._selection = None
        self._wanted = None  # (result, (plot height, numbers' scale), the range it wants)
        self._feature_key = None
        self._shown_for = ShownFor()  # what it last drew
        self._y_range = (-1.0, 1.0)
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        self.caption = WrappedLabel(body)
        self.caption.setObjectName("embeddingCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(QtCore.Qt.TextFormat.RichText)
        layout.addWidget(steady_box(self.caption))
        self.target_label = _sentence_label(body, "embeddingTargetLabel", "target (queries)", "query", self.colours)
        layout.addWidget(self.target_label)
        self.plot = make_plot(body, self.colours)
        self.plot.setObjectName("embeddingPlot")
        layout.addWidget(self.plot, 1)
        self.source_label = _sentence_label(body, "embeddingSourceLabel", "source (keys and values)", "key",
                                            self.colours)
        layout.addWidget(self.source_label)
        self.source = SourceStrips(body, self.colours)
        self.source.plot.setObjectName("embeddingSourcePlot")
        layout.addWidget(self.source.plot, 1)
        self.source.clicked.connect(lambda j: self.session.select(key=j))
        self.strip_view = StripView(body, self.colours)
        layout.addWidget(self.strip_view.plot, 1)
        self.strip_view.clicked.connect(lambda role, m: self.session.select(**{role: m}))
        self.strip_view.setVisible(False)
        self.as_strips = False
        for w in (self.target_label, self.source_label, self.source.plot):
            w.setVisible(False)
        self.strips = _Strips(self.plot, self.colours, "pale_x", "selected")
        self.vb = self.strips.vb
        self.vb.sigResized.connect(lambda *_: self._place_labels())
        self.plot.getPlotItem().scene().sigMouseClicked.connect(self._clicked)

    @property
    def y_range(self) -> tuple:
        """The values' range the bars are drawn in (kept while the numbers fit)."""
        return self._y_range

    @y_range.setter
    def y_range(self, value: tuple) -> None:
        """A range handed to the panel from outside: drawn at the next refresh, whatever the result holds."""
        self._y_range = value
        self._shown_for.forget()

    # ----- drawing --------------------------------------------------------------------------
    def show_result(self, result, selection):
        x = result.scenario.x  # n x d_model
        n, d = x.shape
        i = selection.query
        self._result, self._query, self._selection = result, i, selection
        s = result.scenario
        cross = s.is_cross
        # what the panel shows is worked out from these alone: an edit of the weights (or anything else that
        # leaves the embeddings, names, selection and masks of the query as they are) draws nothing again
        if self._shown_for.same((x, s.source_x), (
                result.tokens, result.key_tokens, s.feature_names, cross, i, selection.key if cross else None,
                no_keys(result, i),
                self.colours, self.theme, self.width(), self.height())):
            return
        strips = strip_mode(max(n, result.n_keys), d)
        self.as_strips = strips
        for w in (self.plot, self.target_label, self.source_label, self.source.plot):
            wanted = not strips and (w is self.plot or cross)
            if w.isHidden() == wanted:
                w.setVisible(wanted)
        self.strip_view.setVisible(strips)
        if strips:
            self.strip_view.show(s, i, selection.key)
        else:
            self._show_bars(result, selection)
        set_text(self.caption, self._caption(result, selection, strips))

    def _named_count(self) -> int:
        """How many of a token's largest numbers the caption names: fewer in a narrow panel (with a margin
        either side of ``NARROW``, so that a caption that lets the grid drop its scroll bar does not switch
        back and forth)."""
        margin = 24 if self._narrow else -24
        self._narrow = self.width() < NARROW + margin
        return 2 if self._narrow else LARGEST_NAMED

    def resizeEvent(self, event):
        super().resizeEvent(event)
        was = self._narrow
        if self.as_strips and self._result is not None and self._named_count() and self._narrow != was:
            set_text(self.caption, self._caption(self._result, self._selection, True))  # more or fewer named

    def _show_bars(self, result, selection) -> None:
        s = result.scenario
        x, i = s.x, selection.query
        n, d = x.shape
        self._y_range = steady_range(self._y_range, *self._wanted_range(result))
        self.strips.groups.layout(n, d)
        self.strips.show(x, i, self.y_range, f"query: {result.tokens[i]}",
                         px_per_unit(self.plot, self.strips.groups.x_range))
        if s.is_cross:
            self.source.show(s.source_x, result.key_tokens, selection.key, self.y_range)
        names = (s.feature_names, d)
        if names != self._feature_key:  # the dials' names and the tool tip change only with them
            self._feature_key = names
            named = feature_names.any_named(s, "x")
            self._features = [feature_names.plain(s, "x", c) for c in range(d)] if named else None
            set_tooltip(self.plot, f"Each token is a row of {d} numbers: one bar per dial, x1 to x{d}, left to right"
                                 + (" (" + ", ".join(feature_names.header_names(s, "x")) + ")" if named else "")
                                 + ".\nBars below the line are negative. Click a token's strip to make it the query.")
        self._place_labels()

    def _numbers(self, s, row, strips: bool) -> str:
        """A token's numbers for the caption: all of them (named when the dimensions have names), or its
        largest few and how many more."""
        d = len(row)
        if strips:
            order, left = views.largest_entries(row, self._named_count())
            named = ", ".join(f"{html.escape(feature_names.header(s, 'x', int(c)))} = {style.fmt(row[c], 2)}"
                              for c in order.tolist())
            return f"{d} numbers, the largest {named}" + (f" and {left} more" if left else "")
        if feature_names.any_named(s, "x"):
            return "x = [" + ", ".join(f"{html.escape(feature_names.plain(s, 'x', c))} {style.fmt(row[c], 2)}"
                                       for c in range(min(d, 8))) + (", …" if d > 8 else "") + "]"
        return "x = [" + ", ".join(style.fmt(v, 2) for v in row[:8].tolist()) + (", …" if d > 8 else "") + "]"

    def _caption(self, result, selection, strips: bool) -> str:
        s = result.scenario
        i = selection.query
        n = result.n
        ink = self.colours.ink["x"]
        dials = self._numbers(s, s.x[i], strips)
        caption = f"<b style='color:{ink}'>{html.escape(result.tokens[i])}</b> (token {i + 1} of {n}): {dials}"
        if s.is_cross:
            j = selection.key
            kdials = self._numbers(s, s.source_x[j], strips)
            qink, kink = self.colours.ink["query"], self.colours.ink["key"]
            caption = (f"Query <b style='color:{qink}'>{html.escape(result.tokens[i])}</b> "
                       f"(target token {i + 1} of {n}): {dials}<br>"
                       f"Key <b style='color:{kink}'>{html.escape(result.key_tokens[j])}</b> "
                       f"(source token {j + 1} of {result.n_keys}): {kdials}")
        if no_keys(result, i):
            caption += f"<br><i>{html.escape(no_keys_note(result, i))}</i>"
        return caption

    def _wanted_range(self, result) -> tuple:
        """The values' range with room above and below, and room for the numbers at the bars' tips (worked out
        once per result, plot height and size of the numbers)."""
        room = (self.vb.height(), self.strips.values.scale)
        if self._wanted is None or self._wanted[0] is not result or self._wanted[1] != room:
            self._wanted = (result, room, self._range_for(result))
        return self._wanted[2]

    def _range_for(self, result) -> tuple:
        s = result.scenario
        n, d = s.x.shape
        both = np.concatenate([s.x.reshape(-1), s.source_x.reshape(-1)]) if s.is_cross else s.x.reshape(-1)
        lo, hi = y_limits(both, room=0.24 if n * d <= MAX_VALUE_LABELS else 0.12)
        if n * d <= MAX_VALUE_LABELS:
            lo, hi = label_room(lo, hi, both, self.vb.height(), self.strips.values, 2)
        return lo, hi

    def _place_labels(self) -> None:
        """Token names on the axis and numbers on the bars, thinned to what fits the width."""
        result = self._result
        if result is None or result.n == 0 or self.as_strips or self.strips.groups.shape != result.scenario.x.shape:
            return  # nothing drawn as bars (yet): ``_show_bars`` places them
        lo, hi = self._wanted_range(result)
        if lo < self.y_range[0] or hi > self.y_range[1]:  # a shorter view: the numbers need more room
            self._show_bars(result, self._selection)
            return
        low = result.scenario.is_cross and self.vb.height() < LABELS_MIN_HEIGHT  # two short rows: no numbers
        self.strips.place_labels(result.scenario.x, result.tokens, self._query, self.y_range[1], not low)
        self._name_bars()

    def _name_bars(self) -> None:
        """With named dimensions, the axis says which bar of every group is which feature (the longest
        wording that fits the plot's width, else nothing: the caption says it too)."""
        axis = self.plot.getPlotItem().getAxis("bottom")
        text = ""
        if self._features:
            names = ", ".join(self._features)
            fm = QtGui.QFontMetricsF(axis.label.font())
            room = self.vb.width() - 8
            text = next((t for t in (f"bars in each group, left to right: {names}", f"each group: {names}", names)
                         if fm.horizontalAdvance(t) <= room), "")
        if text != axis.labelText:
            set_label(axis, text)
            axis.resizeEvent()  # centres the new wording (pyqtgraph does so only when the axis changes size)

    def colours_changed(self, palette) -> None:
        self.strips.palette = self.source.strips.palette = self.strip_view.palette = palette

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
            "strips": self.strip_view.drawn() if self.as_strips else None,
        })
        return drawn

    def strip_point(self, i: int) -> QtCore.QPoint:
        """Widget (viewport) position of the middle of token ``i``'s strip, a little above the line."""
        return self.strips.strip_point(i, self.y_range)


def _sentence_label(parent, name: str, text: str, role: str, palette: style.Palette) -> QtWidgets.QLabel:
    """A one-line name over a row of strips ("target (queries)", "source (keys and values)")."""
    label = QtWidgets.QLabel(text, parent)
    label.setObjectName(name)
    colours.sheet(label, f"color: $ink_{role}; font-weight: bold;", palette)
    return label


class SourceStrips(QtCore.QObject):
    """The source sentence's embeddings (cross-attention): one strip per key token, the selected
    key's strip outlined and named, clicks report the key token under the mouse."""

    clicked = QtCore.Signal(int)

    def __init__(self, parent, palette: style.Palette):
        super().__init__(parent)
        self.plot = make_plot(parent, palette)
        self.strips = _Strips(self.plot, palette, "pale_key", "ink_key")
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
        set_tooltip(self.plot, "The source sentence: its tokens give the keys and values.\n"
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
