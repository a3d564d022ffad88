"""8 · Values, mixed by the weights: every value vector scaled by its weight, and their sum.

Left: for the selected query i, each token j's value vector v_j as mint bars,
drawn faintly at full size with the part that query i takes (weight a_ij x
v_j) solid in front; under each group the token, and at the foot of the group its
weight in percent (written in the plot, so the axis does not change with every edit).
Right: the output for query i (the sum of the solid bars) on the same scale.
Below: the worked arithmetic of one output coordinate (the one under the
mouse, else the first). Clicking a token's bars makes it the key.

A real model's values have 32 to 64 numbers each: too many bars to read. Then
the left chart shows one coordinate c (at first the output's largest): one bar
per token, v_j[c] faint and a_ij v_j[c] solid, and the output chart shows all
of the output, coordinate c marked; pointing at another output bar shows that
one. The numbers over the bars sit at the tip of the faint bar (never across a
bar's edge). Output coordinates are named by the scenario's value names when it
has them, shortened to what fits ("out1 · animate", "animate", "out1", "1").

One group per KEY: in cross-attention the values come from the source
sentence's tokens. A masked key's group is covered by grey hatching and named
"masked": the query takes nothing from it. When every key is masked the
caption says so, and the output is the zero vector.
"""
from __future__ import annotations

import html

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import explain, feature_names, views

from ...look import colours, style
from ...labels.changed_text import set_text, set_tooltip
from ..base import Panel
from ...drawing.plot_marks import Bars, SteadyBars, line_item, reach
from ...drawing.grouped_bars import MAX_VALUE_LABELS, GroupedBars, TextWidths, bar_edge, fit_value_axis, make_plot, place_pointer, place_value_labels, pointer_label, px_per_unit, thin_labels, tick_font, value_pool, y_limits
from ...drawing.lazy_axes import set_range, set_ticks, steady_range
from ..mask_words import no_keys, no_keys_note
from ...labels.wrapped_label import WrappedLabel
from ...labels.steady_box import steady_box
from ...drawing.text_label import MARGIN
from ..themed_text import ThemedTextMixin
from ...drawing.text_pool import TextPool

#: The unscaled value, drawn faintly behind the scaled one.
FAINT_ALPHA = 70


def one_coordinate(n: int, d_v: int) -> bool:
    """Whether n tokens' values of d_v numbers are shown one coordinate at a time (too many bars otherwise)."""
    return d_v > 8 or (d_v >= 6 and n * d_v > 200)


class ValuesPanel(ThemedTextMixin, Panel):
    object_name = "valuesPanel"
    title = "8 · Values, mixed by the weights"
    follows_colours = True

    def build(self, body):
        self._result = None
        self._sel = (0, 0)
        self._coord = 0
        self._ticks: list = []
        self._weight_labels: list = []
        self._out_ticks: list = []
        self._masked = np.zeros(0, dtype=int)
        self._parts = np.zeros((0, 1))
        self._out = np.zeros(0)
        self._shown_v = np.zeros((0, 1))  # the values as drawn (every coordinate, or the one shown)
        self._one = False  # one coordinate at a time (a real model's size)
        self._pointed = False  # someone chose the coordinate (by pointing at an output bar)
        self._shape = None
        self._selection = None
        self.y_range = (-1.0, 1.0)
        self.out_x_range = (-0.25, 1.25)
        self._wide = None  # whether the bars are wide enough for outlines, as drawn
        # text widths remembered per font: the names', the weights' and the coordinates' (one for all would
        # forget each font's widths whenever it measures in another)
        self._widths = TextWidths()  # (of the names, the outputs' names and the weights, in their fonts)
        # what was last given to the bars, the views and the labels (an edit mostly changes some numbers only)
        self._bar_pens: dict = {}  # bars -> the pen given last (``_set_pen``)
        self._cover = None
        self._solid_lefts = self._out_lefts = None
        self._row_key, self._row_px = None, 0.0
        self._tip_what = None
        self._names_key = self._out_key = self._weight_font_key = None
        self._weights_laid = None  # what the weights' places were worked out for (``_place_weights``)
        self._weights_at: tuple = ((), [])  # ... the texts' places and which of them fit
        self._weight_font = None
        self._shown_names: list = []
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        self.caption = WrappedLabel(body)
        self.caption.setObjectName("valuesCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(QtCore.Qt.TextFormat.RichText)
        layout.addWidget(steady_box(self.caption))
        row = QtWidgets.QHBoxLayout()
        row.setSpacing(2)
        pal = self.colours
        self.plot = make_plot(body, pal)
        self.plot.setObjectName("valuesPlot")
        self.out_plot = make_plot(body, pal)
        self.out_plot.setObjectName("outputPlot")
        self.out_plot.setMinimumWidth(96)
        row.addWidget(self.plot, 3)
        row.addWidget(self.out_plot, 1)
        layout.addLayout(row, 1)
        self.worked = WrappedLabel(body)
        self.worked.setObjectName("valuesWorked")
        self.worked.setTextFormat(QtCore.Qt.TextFormat.PlainText)  # a token such as <s> is text, not a tag
        self.worked.setWordWrap(True)
        self.worked.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.worked.font()
        font.setPointSizeF(max(7.5, font.pointSizeF() - 1))
        self.worked.setFont(font)
        layout.addWidget(steady_box(self.worked))

        pi, po = self.plot.getPlotItem(), self.out_plot.getPlotItem()
        self.vb, self.out_vb = pi.getViewBox(), po.getViewBox()
        po.setYLink(pi)
        po.getAxis("left").setWidth(8)
        po.getAxis("left").setStyle(showValues=False)

        mint = QtGui.QColor(pal.fill["value"])
        faint = QtGui.QColor(mint)
        faint.setAlpha(FAINT_ALPHA)
        self.band = QtWidgets.QGraphicsRectItem()
        self.band.setBrush(pg.mkBrush(pal.pale["key"]))
        self.band.setPen(pg.mkPen(pal.ink["key"], width=1.5, style=QtCore.Qt.PenStyle.DashLine))
        colours.paint(self.band, pal, pen="ink_key", brush="pale_key")
        self.band.setZValue(-5)
        pi.addItem(self.band, ignoreBounds=True)
        self.pointer = pointer_label(pi, pal, "ink_key")  # the key's name on its band
        self.zeros = [line_item(plot, pg.mkPen(pal.foreground, width=1), z=5) for plot in (pi, po)]
        for zero in self.zeros:
            colours.paint(zero, pal, pen="foreground")
        self.faint_pen = self._faint_pen(pal)
        self.faint = SteadyBars(x0=[], height=[], width=1.0, brush=pg.mkBrush(faint), pen=None)
        colours.paint(self.faint, pal, brush=("fill_value", FAINT_ALPHA))  # (its outline: on every repaint)
        pi.addItem(self.faint)
        self.scaled = SteadyBars(x0=[], height=[], width=0.7, brush=pg.mkBrush(mint), pen=None)
        colours.paint(self.scaled, pal, brush="fill_value")
        self.scaled.setZValue(2)
        pi.addItem(self.scaled)
        self.chosen = SteadyBars(x0=[], height=[], width=0.7, brush=pg.mkBrush(mint),
                           pen=pg.mkPen(pal.selected, width=2))
        colours.paint(self.chosen, pal, pen="selected", brush="fill_value")
        self.chosen.setZValue(3)
        pi.addItem(self.chosen)
        self.scaled_labels = value_pool(pi, "ink_value")
        self.weights = TextPool(pi, anchor=(0.5, 1.0), role="ink_weight", z=25)  # at each group's foot
        self.masked_cover = Bars(x0=[], y0=[], width=[], height=[], pen=pg.mkPen(None),
                                 brush=pg.mkBrush(QtGui.QBrush(QtGui.QColor(pal.hatch),
                                                               QtCore.Qt.BrushStyle.BDiagPattern)))
        colours.paint(self.masked_cover, pal, brush="hatch")
        self.masked_cover.setZValue(4)
        pi.addItem(self.masked_cover)

        self.hover_band = QtWidgets.QGraphicsRectItem()
        self.hover_band.setBrush(pg.mkBrush(pal.hover_bg))
        self.hover_band.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
        colours.paint(self.hover_band, pal, brush="hover_bg")
        self.hover_band.setZValue(-5)
        po.addItem(self.hover_band, ignoreBounds=True)
        self.out_bars = SteadyBars(x0=[], height=[], width=0.8, brush=pg.mkBrush(pal.fill["output"]),
                             pen=pg.mkPen(pal.edge["output"], width=2))
        colours.paint(self.out_bars, pal, pen="edge_output", brush="fill_output")
        po.addItem(self.out_bars)
        self.out_labels = value_pool(po, "ink_output")

        self.groups = GroupedBars()
        self.vb.sigResized.connect(lambda *_: self._place_labels())
        self.out_vb.sigResized.connect(lambda *_: self._place_labels())
        pi.scene().sigMouseClicked.connect(self._clicked)
        pi.scene().sigMouseMoved.connect(lambda pos: self._hovered(pos, self.plot))
        po.scene().sigMouseMoved.connect(lambda pos: self._hovered(pos, self.out_plot))

    @staticmethod
    def _faint_pen(palette) -> QtGui.QPen:
        """The dotted outline of the faint bars (when they are wide enough for one)."""
        return pg.mkPen(palette.ink["value"], width=1, style=QtCore.Qt.PenStyle.DotLine)

    def colours_changed(self, palette) -> None:
        self.faint_pen = self._faint_pen(palette)

    def theme_changed(self, theme) -> None:
        for pool in (self.scaled_labels, self.out_labels, self.weights):
            pool.scale = theme.font_scale
        fit_value_axis(self.plot)

    # ----- drawing ----------------------------------------------------------------------------
    def _weights_row(self, span: float) -> float:
        """How far (in data units) the range reaches below the bars to leave room for the row of weights."""
        font = self.weights.font or QtGui.QFont()
        key = (font.key(), self.weights.scale)
        if key != self._row_key:  # measured once per font and theme scale
            self._row_key = key
            self._row_px = QtGui.QFontMetricsF(font).height() * self.weights.scale + 2 * MARGIN
        row_px = self._row_px
        plot_px = self.vb.height()
        if plot_px < 3 * row_px:
            return 0.0
        return span * row_px / (plot_px - row_px)

    def _set_pen(self, bars: Bars, pen) -> None:
        """``bars.setOpts(pen=pen)`` unless it is the pen it was given last time (it changes with the bars'
        width on screen and with the palette, not with the numbers)."""
        last = self._bar_pens.get(bars, _UNSET)
        if last is not _UNSET and (last is pen or (last is not None and pen is not None and last == pen)):
            return
        self._bar_pens[bars] = pen
        bars.setOpts(pen=pen)

    def show_result(self, result, selection):
        i, j = selection.query, selection.key
        self._result, self._sel, self._selection = result, (i, j), selection
        v = result.v  # n x d_v
        n, d = v.shape
        out = result.output[i]  # d_v
        one = one_coordinate(n, d)
        if (n, d) != self._shape:  # a new size: the first coordinate, until someone points at another
            self._shape = (n, d)
            self._coord, self._pointed = 0, False
        if one and not self._pointed:  # one at a time: the output's largest, until someone points at another
            self._coord = int(views.largest_entries(out, 1)[0][0])
        self._one = one
        self._coord = min(self._coord, d - 1)
        c = self._coord
        parts = views.weighted_values(result, i)  # n x d_v: row j = a_ij v_j
        if one:  # the left chart shows coordinate c alone
            v, parts = v[:, c:c + 1], parts[:, c:c + 1]
        dg = v.shape[1]  # bars per group
        g = self.groups
        if g.shape != (n, dg) or self._solid_lefts is None:
            g.layout(n, dg)
            self._solid_lefts = g.lefts + 0.15
            self._out_lefts = None
        self._parts, self._out, self._shown_v = parts, out, v
        room = 0.24 if n * dg <= MAX_VALUE_LABELS else 0.12
        lo, hi = y_limits(np.concatenate([v.reshape(-1), out]), room=room)
        self.y_range = steady_range(self.y_range, lo - self._weights_row(hi - lo), hi)
        ppu = px_per_unit(self.plot, g.x_range)
        self._wide = ppu >= 5
        self._set_pen(self.faint, self.faint_pen if self._wide else None)
        self._set_pen(self.scaled, bar_edge(self.colours.ink["value"], ppu))
        self.faint.set_lengths(v.reshape(-1), x0=g.lefts, width=1.0)
        self.scaled.set_lengths(parts.reshape(-1), x0=self._solid_lefts, width=0.7)
        self.chosen.set_lengths(parts[j], x0=self._solid_lefts[j * dg:(j + 1) * dg], width=0.7)
        set_range(self.vb, g.x_range, self.y_range)
        lo, hi = self.y_range
        left, right = reach(*g.x_range)
        self.zeros[0].setLine(left, 0.0, right, 0.0)
        self.band.setRect(QtCore.QRectF(j * g.step - g.GAP / 2.0, lo, g.step, hi - lo))
        self.pointer.setText(f"key: {result.key_tokens[j]}")
        masked = np.flatnonzero(~np.asarray(result.allowed[i], dtype=bool))
        self._masked = masked
        cover = (masked.tobytes(), g.step, dg, lo, hi)
        if cover != self._cover:  # the same keys masked in the same range: nothing to move
            self._cover = cover
            self.masked_cover.setOpts(x0=masked * g.step - 0.1, y0=np.full(masked.size, lo),
                                      width=np.full(masked.size, dg + 0.2), height=np.full(masked.size, hi - lo))
            self.masked_cover.setVisible(bool(masked.size))  # (none: nothing for the view to ask about)
        if self._out_lefts is None or self._out_lefts.size != d:
            self._out_lefts = np.arange(d, dtype=float) + 0.1
        self.out_bars.set_lengths(out, x0=self._out_lefts, width=0.8)
        self.out_x_range = (-0.25, d + 0.25)
        set_range(self.out_vb, self.out_x_range)
        left, right = reach(*self.out_x_range)
        self.zeros[1].setLine(left, 0.0, right, 0.0)

        qink, vink = self.colours.ink["query"], self.colours.ink["output"]
        coords = ", ".join(style.fmt(c, 2) for c in out[:8].tolist()) + (", …" if d > 8 else "")
        every = "every source token" if result.scenario.is_cross else "every token"
        name = html.escape(feature_names.header(result.scenario, "out", c))
        if one:
            caption = (f"Query <b style='color:{qink}'>{html.escape(result.tokens[i])}</b>: its "
                       f"<b style='color:{vink}'>output</b> has {d} numbers [{coords}]. Shown: <b>{name}</b> = "
                       f"{style.fmt(out[c], 2)}, weight × value from {every} (point at an output bar for another)")
        else:
            caption = (f"Query <b style='color:{qink}'>{html.escape(result.tokens[i])}</b> takes weight × value "
                       f"from {every}; the sum is its <b style='color:{vink}'>output</b> [{coords}]")
        if no_keys(result, i):
            caption = f"<b>{html.escape(no_keys_note(result, i))}</b> Output [{coords}]"
        set_text(self.caption, caption)
        what = f"its coordinate {name}" if one else "v"
        if what != self._tip_what:  # (the tool tips' words change only with the coordinate shown)
            self._tip_what = what
            set_tooltip(
                self.plot,
                f"Faint bars: each token's value ({what}). Solid bars: the part the query takes (weight × value).\n"
                "Under each group: the token, and at its foot its weight. Click a token's bars to make it the key.")
            set_tooltip(self.out_plot, "The output is the sum of all the solid bars, coordinate by coordinate.\n"
                                       "Point at a bar to see its sum worked out below.")
        self._place_labels(ppu)
        self._write_worked()

    def _place_labels(self, ppu: float | None = None) -> None:
        """Names, weights, numbers and the pointer where they fit (``ppu``: the plot's pixels per bar, when
        known)."""
        result = self._result
        if result is None or result.n == 0:
            return
        i, j = self._sel
        g = self.groups
        if ppu is None:
            ppu = px_per_unit(self.plot, g.x_range)
        names = result.key_tokens
        font = tick_font(self.plot)
        key = (names, font, ppu, j, g.shape)  # (fonts compared, not their keys: faster)
        if key != self._names_key:  # the names thinned again only for new names, a new width or another key
            self._names_key = key
            self._shown_names = thin_labels(g.centres, self._widths(font, names), ppu, keep=(j,))
            self._ticks = [(float(g.centres[k]), names[k]) for k in self._shown_names]
            set_ticks(self.plot.getPlotItem().getAxis("bottom"), [self._ticks])
        shown = self._shown_names
        self._place_weights(result, i, j, ppu, shown)
        place_pointer(self.pointer, g, j, self.y_range[1], ppu)
        solid = self._parts.reshape(-1)
        # each number at the tip of the faint bar (the value itself), which is at least as long as the solid
        place_value_labels(self.scaled_labels, g.lefts + 0.5, solid, ppu, 2, at=self._shown_v.reshape(-1))
        self.pointer.setVisible(self.scaled_labels.shown == 0)  # numbers on the bars leave it no room
        wide = ppu >= 5
        if wide != self._wide:  # a resize made the bars wide or narrow
            self._wide = wide
            self._set_pen(self.faint, self.faint_pen if wide else None)
            self._set_pen(self.scaled, bar_edge(self.colours.ink["value"], ppu))

        d = self._out.size
        oppu = px_per_unit(self.out_plot, self.out_x_range)
        s = result.scenario
        font = tick_font(self.out_plot)
        key = (s.v_names, s.n_heads, s.d_v, d, font, oppu, self._coord)
        if key != self._out_key:  # the coordinates named again only when their names, width or the one shown change
            self._out_key = key
            wordings = [[feature_names.header(s, "out", c) for c in range(d)],
                        [feature_names.plain(s, "out", c) for c in range(d)], [f"out{c + 1}" for c in range(d)],
                        [f"{c + 1}" for c in range(d)]]
            for names in wordings:  # the first wording naming every coordinate, else the shortest thinned
                oshown = thin_labels(np.arange(d) + 0.5, self._widths(font, names), oppu, keep=(self._coord,),
                                     pad_px=4)
                if len(oshown) == d:
                    break
            self._out_ticks = [(c + 0.5, names[c]) for c in oshown]
            set_ticks(self.out_plot.getPlotItem().getAxis("bottom"), [self._out_ticks])
        if d <= MAX_VALUE_LABELS:
            place_value_labels(self.out_labels, np.arange(d) + 0.5, self._out, oppu, 2, rotate=False)
        else:
            self.out_labels.take(0)

    def _place_weights(self, result, i: int, j: int, ppu: float, named: list) -> None:
        """The weight (or "masked") of each key ``named`` on the axis, at the foot of its group where it fits;
        flush with the plot's edge at either end rather than sticking out."""
        g = self.groups
        allowed = np.asarray(result.allowed[i], dtype=bool)
        percents = 100.0 * np.asarray(result.weights[i], dtype=np.float64)
        texts = [f"{explain.fixed(float(percents[k]), 1)}%" if allowed[k] else "masked" for k in named]
        key = ((self.weights.font or QtGui.QFont()).key(), self.weights.scale)
        if key != self._weight_font_key:
            self._weight_font_key = key
            font = QtGui.QFont(self.weights.font or QtGui.QFont())
            font.setPointSizeF((font.pointSizeF() if font.pointSizeF() > 0 else 9.0) * self.weights.scale)
            self._weight_font = font
        widths = self._widths(self._weight_font, texts)
        room = self._weights_row(1.0) > 0.0
        lo = self.y_range[0]
        x0, x1 = g.x_range
        laid = (named, widths, ppu, room, j, x0, x1, g.centres.tobytes())
        if laid != self._weights_laid:  # new widths (mostly the same: digits are as wide as each other)
            self._weights_laid = laid
            keep = [named.index(j)] if j in named else []
            # where each text's middle goes: under its group, moved in from the plot's edge when it would stick
            # out (thinned at those places, so a moved text never lands on its neighbour)
            halves = [(w / 2 + MARGIN) / max(ppu, 1e-9) for w in widths]
            mids = [min(max(float(g.centres[k]), x0 + h), x1 - h) for k, h in zip(named, halves)]
            fits = thin_labels(np.array(mids), widths, ppu, keep=keep) if room and named else []
            self._weights_at = (mids, fits)
        mids, fits = self._weights_at
        self._weight_labels = []
        for item, n in zip(self.weights.take(len(fits)), fits):
            item.setAnchor((0.5, 1.0))
            item.setPos(mids[n], lo)
            item.setText(texts[n])
            self._weight_labels.append((float(g.centres[named[n]]), texts[n]))

    def _write_worked(self) -> None:
        result = self._result
        if result is None or result.n == 0:
            return
        i, _ = self._sel
        c = self._coord
        lo, hi = self.y_range
        self.hover_band.setRect(QtCore.QRectF(c, lo, 1.0, hi - lo))
        ex = explain.output(result, i, c, decimals=worked_decimals(result.n_keys))
        set_text(self.worked, ex.text)
        set_tooltip(self.worked, f"{ex.formula}\n(a = the query's weight on each token, v = that token's value)")

    # ----- mouse ------------------------------------------------------------------------------
    def _coord_at(self, scene_pos, plot) -> int | None:
        result = self._result
        if result is None or result.n == 0:
            return None
        pi = plot.getPlotItem()
        if not pi.vb.sceneBoundingRect().contains(scene_pos):
            return None
        x = pi.vb.mapSceneToView(scene_pos).x()
        d = result.v.shape[1]
        if plot is self.out_plot:
            c = int(np.floor(x))
        elif self._one:  # the left chart shows one coordinate: pointing at it changes nothing
            return None
        else:
            grp = self.groups.group_at(x)
            if grp is None:
                return None
            c = int(np.floor(x - grp * self.groups.step))
        return c if 0 <= c < d else None

    def _hovered(self, scene_pos, plot) -> None:
        c = self._coord_at(scene_pos, plot)
        if c is not None and c != self._coord:
            self.set_coordinate(c)

    def set_coordinate(self, c: int) -> None:
        """Show the worked sum of output coordinate ``c`` (what hovering a bar does); one coordinate at a
        time, the left chart shows that one."""
        self._coord = int(c)
        self._pointed = True
        if self._one and self._selection is not None:
            self.show_result(self._result, self._selection)
            return
        self._write_worked()
        self._place_labels()

    def _clicked(self, ev) -> None:
        if ev.button() != QtCore.Qt.MouseButton.LeftButton or self._result is None or self._result.n == 0:
            return
        if not self.vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        grp = self.groups.group_at(self.vb.mapSceneToView(ev.scenePos()).x())
        if grp is not None:
            ev.accept()
            self.session.select(key=grp)

    # ----- for tests --------------------------------------------------------------------------
    def drawn(self) -> dict:
        """What is on screen: faint (v), solid (weight × v) and output bar heights, labels, worked text."""
        return {
            "faint": np.array(self.faint.opts["height"], dtype=float),
            "solid": np.array(self.scaled.opts["height"], dtype=float),
            "solid_lefts": np.array(self.scaled.opts["x0"], dtype=float),
            "selected": np.array(self.chosen.opts["height"], dtype=float),
            "output": np.array(self.out_bars.opts["height"], dtype=float),
            "band": self.band.rect(),
            "ticks": list(self._ticks),
            "weights": list(self._weight_labels),
            "out_ticks": list(self._out_ticks),
            "value_labels": self.scaled_labels.texts(),
            "output_labels": self.out_labels.texts(),
            "worked": self.worked.text(),
            "coordinate": self._coord,
            "caption": self.caption.text(),
            "masked": [int(k) for k in self._masked],
            "pointer": self.pointer.text() if self.pointer.isVisible() else "",
            "one_coordinate": self._one,
        }

    def group_point(self, j: int) -> QtCore.QPoint:
        """Viewport position inside token ``j``'s group of bars (for clicking in tests)."""
        lo, hi = self.y_range
        scene = self.vb.mapViewToScene(QtCore.QPointF(float(self.groups.centres[j]), (lo + hi) / 2))
        return self.plot.mapFromScene(scene)

    def output_point(self, c: int) -> QtCore.QPoint:
        lo, hi = self.y_range
        scene = self.out_vb.mapViewToScene(QtCore.QPointF(c + 0.5, (lo + hi) / 2))
        return self.out_plot.mapFromScene(scene)


#: No pen given yet (``ValuesPanel._set_pen``).
_UNSET = object()


def worked_decimals(n: int) -> int:
    """Two decimals for a few tokens; three when there are so many that weights fall below 0.01."""
    return 2 if n <= 20 else 3
