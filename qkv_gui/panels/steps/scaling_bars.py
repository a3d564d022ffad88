"""6 · Why divide by √d_k: the selected query's scores before and after scaling, over the softmax curve.

Two charts side by side share one score axis: on the left the raw scores q·k
of query i against every key, on the right the same scores divided by
``result.divisor`` (√d_k, times the temperature). One horizontal bar per key; negative bars point left of the
zero line; masked keys (causal, padding or blocked by hand) are a hatched row
marked "masked", not a bar. One row per KEY: in cross-attention the keys are
the source sentence's tokens.
Behind the bars runs the softmax curve of the selected key j
(``qkv_engine.views.softmax_curve``): the weight key j would get for each
score, read on the right-hand axis, with its flat, saturated ends shaded
(``qkv_engine.saturation.flat_edges``). A dot marks where key j's raw and
scaled scores land on that curve. Clicking a row selects that key.

Words and numbers fit the charts' width: the title of the scaled chart is
shortened in a narrow panel ("÷ √2 = ÷ 1.414", "÷ 1.414"), and the score axes
space their numbers so they never run together (one key's tiny scores included).
With 30 or 40 keys the key names down the side are thinned to what fits.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: F401  (PySide6 before pyqtgraph)
import numpy as np
import pyqtgraph as pg

from qkv_engine import explain, saturation, views

from ...look import colours, style
from ..base import Panel
from ...drawing.plot_marks import Bars, SteadyBars, curve_path, dot_item, line_item, path_item, rect_item, reach
from ...drawing.lazy_axes import set_label, set_ticks, set_title, steady_range
from ..mask_words import mask_reason, no_keys, no_keys_note
from ...labels.changed_text import set_text
from ...labels.wrapped_label import WrappedLabel
from ..last_drawn import ShownFor
from ...labels.steady_box import steady_box
from ...drawing.text_label import TextLabel
from ..themed_text import ThemedTextMixin
from ...drawing.chart_view import chart_view

Qt = QtCore.Qt

CURVE_POINTS = 240
#: The curve is drawn through fewer of its points where it is nearly straight: off the true curve by at most
#: this many pixels, and never skipping more than CURVE_STRIDE points at once.
CURVE_TOLERANCE_PX = 0.05
CURVE_STRIDE = 8
BAR_HEIGHT = 0.62


def _step_125(span: float) -> float:
    """The smallest of 1, 2 or 5 times a power of ten that is at least ``span`` (steps whose numbers print
    exactly at the decimals they need: 0.025 would print as 0.03)."""
    power = 10.0 ** np.floor(np.log10(span))
    return float(next(f * power for f in (1.0, 2.0, 5.0, 10.0) if f * power >= span * (1 - 1e-12)))


def sparse_points(ys: np.ndarray, px_y: float) -> np.ndarray:
    """The places (indices) of the points of a curve sampled at even steps across to draw it through, so that
    the line through them leaves the line through all of them by at most CURVE_TOLERANCE_PX pixels (``px_y``:
    pixels per unit up): few where the curve is straight (a flat end of the softmax curve), all where it
    bends. A chord over m steps leaves the curve by at most m² / 8 times the largest second difference
    beside it; m is the largest such that this stays within the tolerance."""
    count = len(ys)
    if count <= 2 or not px_y > 0:
        return np.arange(count)
    y = np.asarray(ys, dtype=np.float64) * px_y
    bend = np.zeros(count)
    bend[1:-1] = np.abs(y[:-2] - 2.0 * y[1:-1] + y[2:])
    # the largest bend a chord through here may meet: blocks a stride and one long, each with its neighbours
    size = CURVE_STRIDE + 1
    blocks = -(-count // size)
    block_max = np.zeros(blocks * size)
    block_max[:count] = bend
    block_max = block_max.reshape(blocks, size).max(axis=1)
    near = block_max.copy()
    near[1:] = np.maximum(near[1:], block_max[:-1])
    near[:-1] = np.maximum(near[:-1], block_max[1:])
    near = np.repeat(near, size)[:count]
    # m^2 / 8 x bend <= tolerance / 2 (room for rounding), m from 1 to the stride
    near = np.maximum(near, 4.0 * CURVE_TOLERANCE_PX / CURVE_STRIDE ** 2)
    steps = np.maximum(np.floor(np.sqrt(4.0 * CURVE_TOLERANCE_PX / near)), 1.0)
    # a point every ``steps`` places: where the running sum of 1 / steps passes a whole number
    marks = np.floor(np.cumsum(1.0 / steps))
    keep = np.flatnonzero(np.diff(marks, prepend=-1.0) > 0)
    if keep[-1] != count - 1:
        keep = np.append(keep, count - 1)
    return keep


def _color(hex_str: str, alpha: int = 255) -> QtGui.QColor:
    c = QtGui.QColor(hex_str)
    c.setAlpha(alpha)
    return c


class _Chart:
    """One bar chart (raw or scaled) with the curve, flat zones and marker behind and on it."""

    def __init__(self, plot: pg.PlotItem, p: style.Palette, bar: str):
        """``bar``: the palette's role of the bars."""
        self.plot = plot
        self.vb = plot.getViewBox()
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(False, False)
        plot.hideButtons()
        plot.showAxis("right")
        plot.showGrid(x=True, alpha=0.12)
        for name in ("left", "bottom", "right"):
            plot.getAxis(name).enableAutoSIPrefix(False)
        # the flat ends of the curve, shaded from top to bottom (set by ``show_flat_ends``)
        self.flat_low, self.flat_high = (rect_item(plot, p.shade, z=-20) for _ in range(2))
        self.flat_labels = [TextLabel(text, anchor=(0.5, 0)) for text in ("flat:\nweight ≈ 0", "flat:\nweight ≈ 1")]
        for item in self.flat_labels:
            colours.paint(item, p, text="grey")
            plot.addItem(item, ignoreBounds=True)
        self.masked = Bars(x0=[], y=[], width=[], height=[], pen=pg.mkPen(None),
                           brush=pg.mkBrush(QtGui.QBrush(QtGui.QColor(p.hatch), Qt.BrushStyle.BDiagPattern)))
        plot.addItem(self.masked)
        self.curve = path_item(plot, pg.mkPen(p.curve, width=2, style=Qt.PenStyle.DashLine), z=-5)
        self.zero = line_item(plot, pg.mkPen(p.foreground, width=1))  # score 0, top to bottom
        self.bars = SteadyBars(along="x", x0=[], y=[], width=[], height=[], pen=pg.mkPen(None),
                               brush=pg.mkBrush(_color(p.colour(bar), 170)))
        plot.addItem(self.bars)
        self.chosen = Bars(x0=[], y=[], width=[], height=[], pen=pg.mkPen(p.selected, width=2),
                           brush=pg.mkBrush(p.colour(bar)))
        plot.addItem(self.chosen)
        self.guide = line_item(plot, pg.mkPen(p.selected, width=1, style=Qt.PenStyle.DotLine))
        self.marker = dot_item(plot, 10, pg.mkPen(p.selected, width=2), p.background)
        self.marker_label = TextLabel("", anchor=(0, 1))
        plot.addItem(self.marker_label, ignoreBounds=True)
        self._set = {}  # what was last given to each item (an edit gives most of them the same again)
        for item, roles in (
                (self.flat_low, {"brush": "shade"}), (self.flat_high, {"brush": "shade"}),
                (self.masked, {"brush": "hatch"}), (self.curve, {"pen": "curve"}), (self.zero, {"pen": "foreground"}),
                (self.bars, {"brush": (bar, 170)}), (self.chosen, {"pen": "selected", "brush": bar}),
                (self.guide, {"pen": "selected"}), (self.marker, {"pen": "selected", "brush": "background"}),
                (self.marker_label, {"text": "selected"})):
            colours.paint(item, p, **roles)

    def changed(self, name: str, *given) -> bool:
        """Whether ``given`` differs from what item ``name`` was last given (and keep it if so)."""
        if self._set.get(name) == given:
            return False
        self._set[name] = given
        return True

    def show_flat_ends(self, lo: float, hi: float, edges, rows: int) -> None:
        """Shade the flat ends (left of ``edges[0]``, right of ``edges[1]``) across every row, or hide them."""
        if not self.changed("flat", lo, hi, None if edges is None else tuple(edges), rows):
            return
        for item in (self.flat_low, self.flat_high):
            item.setVisible(edges is not None)
        if edges is None:
            for item in self.flat_labels:
                item.setVisible(False)
            return
        y0, y1 = reach(-0.5, rows - 0.5)
        self.flat_low.setRect(QtCore.QRectF(lo, y0, edges[0] - lo, y1 - y0))
        self.flat_high.setRect(QtCore.QRectF(edges[1], y0, hi - edges[1], y1 - y0))
        # "weight ≈ 0" where the curve lies flat at the bottom left, "≈ 1" at the top right
        for item, x, y, anchor in zip(self.flat_labels, (lo, hi), (-0.5, rows - 0.5), ((0, 1), (1, 0))):
            item.setAnchor(anchor)
            item.setPos(x, y)


class ScalingPanel(ThemedTextMixin, Panel):
    object_name = "scalingPanel"
    title = "6 · Why divide by √d_k"
    follows_colours = True

    def build(self, body):
        self._drawn = {}
        self._rows = 0
        self._x_range = None  # the score axis as shown (kept while the scores fit)
        self._title_pt = 9.0
        self._shown_result = None  # the result the bars show (a resize before the next edit redraws it)
        self._curve = None  # (xs, ys, rows) of the softmax curve shown, or None
        self._wordings = ()  # the scaled chart's title, longest wording first
        self._title = ""  # ... the wording shown
        self._titles_for = None  # (wordings, width, text size, axes' widths) the titles were laid out for
        self._bar_places = None  # (keys, masked keys) the bars' rows were laid out for
        self._shown = ShownFor()  # what the drawing was made from (the same again: nothing to draw)
        self._ticks_for = None  # what the key names down the side were chosen for
        self._tick_names: list = []  # ... and the names chosen
        self._rows_ok = self._heights = None  # ... the rows and heights of the bars of unmasked keys
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(2)
        self.view = chart_view(body, "scalingCharts", spacing=2, min_height=150)
        layout.addWidget(self.view, 1)
        self.raw = _Chart(self.view.addPlot(row=0, col=0, enableMenu=False), self.colours, "fill_weight")
        self.scaled = _Chart(self.view.addPlot(row=0, col=1, enableMenu=False), self.colours, "fill_weight")
        self.scaled.plot.setXLink(self.raw.plot)  # one score scale: the scaled bars look as small as they are
        self.scaled.plot.setYLink(self.raw.plot)  # one row per key, side by side
        self.raw.plot.hideAxis("right")
        self.scaled.plot.getAxis("left").setStyle(showValues=False)
        self.scaled.plot.getAxis("left").setWidth(4)
        self.view.scene().sigMouseClicked.connect(self._on_click)
        # the boxes that only hold the charts paint nothing: Qt need not ask them their bounds or call their
        # (Python) paint at each repaint
        for item in (self.view.ci, *(part for chart in (self.raw, self.scaled)
                                     for part in (chart.plot, chart.plot.getViewBox(), chart.plot.titleLabel))):
            item.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        for chart in (self.raw, self.scaled):
            chart.plot.getViewBox().sigResized.connect(self._on_chart_resized)

        self.worked = WrappedLabel(body)
        self.worked.setObjectName("scalingWorked")
        self.worked.setTextFormat(Qt.TextFormat.PlainText)
        self.worked.setWordWrap(True)
        self.worked.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
        layout.addWidget(steady_box(self.worked))
        self.message = QtWidgets.QLabel(body)
        self.message.setObjectName("scalingMessage")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        colours.sheet(self.message, "color: $soft_text; font-style: italic;", self.colours)
        self.message.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
        layout.addWidget(steady_box(self.message))
        self._base_fonts()

    def theme_changed(self, theme) -> None:
        self._title_pt = style.BASE_POINT_SIZE * theme.font_scale  # chart titles are HTML with their own size

    def _base_fonts(self) -> None:
        """Fonts at theme scale 1; the generic theme scaling (``Panel.set_theme``) multiplies them once."""
        font = QtGui.QFont(self.font())
        font.setPointSizeF(style.BASE_POINT_SIZE)
        self.body.setFont(font)
        for widget in (self.worked, self.message):
            widget.setFont(font)  # labels with a style sheet do not take the parent's font
        small = QtGui.QFont(font)
        small.setPointSizeF(font.pointSizeF() * 0.85)
        self._title_pt = style.BASE_POINT_SIZE
        for chart in (self.raw, self.scaled):
            for name in ("left", "bottom", "right"):
                chart.plot.getAxis(name).setStyle(tickFont=small)
                chart.plot.getAxis(name).label.setFont(small)
            chart.marker_label.setFont(small)
            for item in chart.flat_labels:
                item.setFont(small)

    def _on_chart_resized(self, *_):
        shown = self._shown_result  # the result the bars show, not a newer one
        if self._drawn and shown is not None and shown.n and not self.showing_hint():
            self._write_titles()  # the view has its new width now (the panel hears of a resize before it)
            self._set_ticks(shown)  # as many key names as fit the new height
            self._space_numbers()
            self._draw_curve()  # through as many of its points as the new size needs
        self._fit_labels()

    def _draw_curve(self) -> None:
        """The curve in both charts (one path: they share their ranges), through the points its size on screen
        needs; made again only when the curve or the charts' size changed."""
        if self._curve is None:
            return
        xs, ys, n = self._curve
        tall = max(self.raw.vb.height(), self.scaled.vb.height())
        px_y = tall / max(n * 1.04, 1e-12)  # pixels per row (the rows' range has 2 % padding each side)
        if self.raw.changed("curve", xs.tobytes(), ys.tobytes(), px_y):
            keep = sparse_points(ys, px_y)
            path = curve_path(xs[keep], ys[keep])
            for chart in (self.raw, self.scaled):
                chart.curve.setPath(path)

    def _fit_labels(self, *_):
        """Text on the charts only where there is room for it: inside the chart, not on each other or on
        the dot. The marker's label goes to whichever side of the dot has room; the shading and the dot stay.
        Nothing is placed again when the charts, their ranges and the labels' places and words are as
        they were."""
        for chart, name in ((self.raw, "raw"), (self.scaled, "scaled")):
            vb = chart.vb
            vb.updateMatrix()  # (the view's transform follows a new range only when asked)
            to_scene = vb.childTransform() * vb.sceneTransform()
            box = vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
            marker = self._drawn.get(f"{name}_marker")
            label = chart.marker_label
            edges = self._drawn.get("edges")
            # (the flat ends' labels and shading are placed from what ``show_flat_ends`` was last given)
            flats = chart._set.get("flat") if edges is not None else None
            if not chart.changed("labels", to_scene, box, marker is not None, label.pos(), label.text(),
                                 label.font(), flats, chart.flat_labels[0].font()):
                continue
            placed = []
            shown = False
            if marker is not None:
                # the dot itself (drawn the same size in pixels whatever the scale): no label on it
                centre = to_scene.map(chart.marker.pos())
                r = chart.marker.rect().width() / 2 + chart.marker.pen().widthF()
                placed.append(QtCore.QRectF(centre.x() - r, centre.y() - r, 2 * r, 2 * r))
                at, size = to_scene.map(label.pos()), label.box_size()  # (as ``label.scene_rect`` places it)
                x, y, w, h = at.x(), at.y(), size.width(), size.height()
                for anchor in ((0, 1), (1, 1), (0, 0), (1, 0)):
                    rect = QtCore.QRectF(x - anchor[0] * w, y - anchor[1] * h, w, h)
                    if box.contains(rect):
                        label.setAnchor(anchor)
                        shown = True
                        placed.append(rect)
                        break
                else:
                    label.setAnchor((1, 0))  # the last tried, as before
            label.setVisible(shown)
            for item, region in zip(chart.flat_labels, (chart.flat_low, chart.flat_high)):
                fits = False
                if edges is not None:
                    rect = item.scene_rect(to_scene)
                    lo, hi = region.rect().left(), region.rect().right()
                    left, right = to_scene.map(QtCore.QPointF(lo, 0)).x(), to_scene.map(QtCore.QPointF(hi, 0)).x()
                    in_shade = rect.left() >= left - 8 and rect.right() <= right + 8  # on its grey end, not on the bars
                    fits = in_shade and box.contains(rect) and not any(rect.intersects(r) for r in placed)
                    if fits:
                        placed.append(rect)
                item.setVisible(fits)

    # ----- clicks --------------------------------------------------------------------------------
    def key_at(self, scene_pos) -> int | None:
        """The key whose row is under ``scene_pos`` in either chart, or None."""
        n = self._rows
        for chart in (self.raw, self.scaled):
            vb = chart.plot.getViewBox()
            if vb.sceneBoundingRect().contains(scene_pos):
                y = vb.mapSceneToView(scene_pos).y()
                row = int(round(y))
                if 0 <= row < n and abs(y - row) <= 0.5:
                    return n - 1 - row
        return None

    def _on_click(self, ev):
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        j = self.key_at(ev.scenePos())
        if j is not None:
            self.session.select(key=j)

    # ----- drawing ---------------------------------------------------------------------------------
    def _set_ticks(self, result) -> None:
        n = result.n_keys
        i = self._drawn.get("query", 0)
        if not (0 <= i < result.n and 0 <= self._drawn.get("key", 0) < n):
            return  # the drawing is being replaced; show_result sets the ticks again
        h = max(40.0, self.raw.vb.height())
        font = self.raw.plot.getAxis("left").style.get("tickFont") or self.font()
        j = self._drawn.get("key", 0)
        wanted = (result.key_tokens, result.allowed[i].tobytes(), i, j, h, QtGui.QFont(font))
        if wanted == self._ticks_for:  # the same names in the same room: the same ticks (the usual edit)
            self._drawn["ticks"] = list(self._tick_names)
            return
        self._ticks_for = wanted
        lh = QtGui.QFontMetricsF(font).height()
        step = max(1, int(np.ceil(n * lh / h)))
        shown = set(range(0, n, step)) | {j}
        if step > 1:  # keep neighbours of j from crowding its label
            shown -= {m for m in range(j - step + 1, j + step) if m != j}
        ticks = []
        for m in sorted(shown):
            name = result.key_tokens[m]
            if len(name) > 10:
                name = name[:9] + "…"
            if not result.allowed[i, m]:
                name += " (masked)"
            ticks.append((n - 1 - m, name))
        for chart in (self.raw, self.scaled):
            set_ticks(chart.plot.getAxis("left"), [ticks, []])
        self._tick_names = [name for _, name in ticks]
        self._drawn["ticks"] = list(self._tick_names)

    def show_result(self, result, selection):
        self._shown_result = result
        i, j = selection.query, selection.key
        n = result.n_keys  # one row per key
        self._rows = n
        raw = np.asarray(result.scores[i], dtype=np.float64)
        scaled = np.asarray(result.scaled[i], dtype=np.float64)
        allowed = np.asarray(result.allowed[i], dtype=bool)
        s = result.scenario
        # everything drawn comes from these (a number of W^V, say, changes none of them: nothing to do)
        if self._shown.same((raw, scaled, allowed, np.asarray(result.masked_by[i])),
                            (i, j, result.tokens[i], result.key_tokens, no_keys(result, i), result.divisor, s.scale,
                             s.temperature, s.d_k, self.theme, self.colours, self._title_pt, self.view.size())):
            return
        rows = (n - 1 - np.arange(n)).astype(np.float64)  # key 0 at the top
        finite = np.concatenate([raw[allowed], scaled[allowed]])
        edges = saturation.flat_edges(result, i, j) if allowed[j] else None

        lo = float(min(0.0, finite.min())) if finite.size else -1.0
        hi = float(max(0.0, finite.max())) if finite.size else 1.0
        if edges is not None:  # show a stretch of each flat end, so it reads as flat
            stretch = 0.35 * (edges[1] - edges[0])
            lo, hi = min(lo, edges[0] - stretch), max(hi, edges[1] + stretch)
        if hi - lo < 1e-9:
            lo, hi = lo - 1.0, hi + 1.0
        margin = 0.06 * (hi - lo)
        self._x_range = lo, hi = steady_range(self._x_range, lo - margin, hi + margin)

        xs = np.linspace(lo, hi, CURVE_POINTS)
        # the curve, and where key j's raw and scaled scores land on it (its last two points): one call
        curve_w = at = None
        if allowed[j]:
            curve_w = views.softmax_curve(result, i, j, np.concatenate([xs, [raw[j], scaled[j]]]))
            curve_w, at = curve_w[:-2], curve_w[-2:]
        div = explain.trimmed(result.divisor, 3)
        if s.scale and s.temperature != 1.0:
            wordings = (f"÷ (√{s.d_k} × T {explain.trimmed(s.temperature, 3)}) = ÷ {div}", f"÷ {div}")
        elif s.scale:
            wordings = (f"÷ √d_k = ÷ √{s.d_k} = ÷ {div}", f"÷ √{s.d_k} = ÷ {div}", f"÷ {div}")
        elif s.temperature != 1.0:
            wordings = (f"÷ T = ÷ {div} (√d_k scaling is off)", f"÷ T = ÷ {div}", f"÷ {div}")
        else:
            wordings = ("÷ 1 (√d_k scaling is off)", "÷ 1 (no √d_k)", "÷ 1")
        self._wordings = wordings
        titles = ("raw q·k", wordings[0])

        drawn = {"query": i, "key": j, "divisor": result.divisor, "titles": titles, "edges": edges,
                 "x_range": (lo, hi), "masked": [int(m) for m in np.flatnonzero(~allowed)]}
        masked = ~allowed
        n_masked = int(masked.sum())
        places = (n, masked.tobytes())
        if places != self._bar_places:  # the rows of the bars (the same unless keys or masks change)
            self._bar_places = places
            self._rows_ok, self._heights = rows[allowed], np.full(n - n_masked, BAR_HEIGHT)
        rows_ok, heights = self._rows_ok, self._heights
        # the curve: weight w on the right axis, drawn over the rows: w = 0 at the bottom, 1 at the top
        curve_ys = None if curve_w is None else -0.5 + n * curve_w
        self._curve = None if curve_ys is None else (xs, curve_ys, n)
        self._draw_curve()
        for k, (chart, values, name) in enumerate(((self.raw, raw, "raw"), (self.scaled, scaled, "scaled"))):
            plot = chart.plot
            ok = allowed
            vals = np.where(ok, values, 0.0)
            chart.bars.set_lengths(values[ok], y=rows_ok, height=heights)
            if ok[j]:
                if chart.changed("chosen", float(vals[j]), float(rows[j])):
                    chart.chosen.setOpts(x0=[min(vals[j], 0.0)], width=[abs(vals[j])], y=[rows[j]],
                                         height=[BAR_HEIGHT])
                chart.chosen.setVisible(True)
            else:
                chart.chosen.setVisible(False)
            if chart.changed("masked", masked.tobytes(), lo, hi, n):
                chart.masked.setOpts(x0=np.full(n_masked, lo), width=np.full(n_masked, hi - lo), y=rows[masked],
                                     height=np.full(n_masked, 0.9))
            chart.curve.setVisible(curve_ys is not None)
            chart.show_flat_ends(lo, hi, edges, n)
            if chart.changed("rows", n):
                left, right = reach(-0.5, n - 0.5)
                chart.zero.setLine(0.0, left, 0.0, right)
                ax = plot.getAxis("right")
                set_ticks(ax, [[(-0.5, "0"), (-0.5 + n * 0.5, "0.5"), (-0.5 + n, "1")], []])
                set_label(ax, "weight" if n > 0 else "")
                plot.setYRange(-0.5, n - 0.5, padding=0.02)
            if at is not None:
                x, w_at = float(values[j]), float(at[k])
                y = -0.5 + n * w_at
                chart.marker.setPos(x, y)
                chart.guide.setLine(x, float(rows[j]), x, y)
                chart.marker_label.setText(f"weight {explain.fixed(w_at, 2)}")
                chart.marker_label.setPos(x, y)  # (its anchor: the side with room, ``_fit_labels``)
                for item in (chart.marker, chart.guide):
                    item.setVisible(True)
                drawn[f"{name}_marker"] = (x, w_at)
            else:
                for item in (chart.marker, chart.guide, chart.marker_label):
                    item.setVisible(False)
                drawn[f"{name}_marker"] = None
            drawn[f"{name}_bars"] = (np.flatnonzero(ok), values)  # made a {key: value} dict by drawn()
        if self.raw.changed("x_range", lo, hi):
            self.raw.plot.setXRange(lo, hi, padding=0)
        drawn["curve"] = (xs, curve_w)

        # words: the worked division and what the picture shows
        ex = explain.scaled(result, i, j)
        worked = f"'{result.key_tokens[j]}': {ex.text}"
        set_text(self.worked, worked)
        message = self._message(result, i, j, edges, raw[j], scaled[j], allowed)
        set_text(self.message, message)
        drawn["worked"] = worked
        drawn["message"] = message
        self._drawn = drawn
        self._write_titles()
        drawn["titles"] = ("raw q·k", self._title or titles[1])
        self._set_ticks(result)
        self._space_numbers()
        self._fit_labels()

    def _write_titles(self) -> None:
        """The charts' titles; the scaled one in the longest wording with which both charts fit the view's
        width (a wider title would hold the charts past the panel's edge)."""
        wordings = self._wordings
        if not wordings:
            return
        room = self.view.width()
        # the axes' widths too: an axis measures its numbers and names when first drawn and may widen then, after
        # the titles were chosen (a panel first shown 365 pixels wide kept a title that cut the weight axis)
        axes = tuple(chart.plot.getAxis(side).width()
                     for chart in (self.raw, self.scaled) for side in ("left", "right"))
        key = (wordings, room, self._title_pt, axes)
        if key == self._titles_for:
            return  # the same words in the same width: nothing to lay out again (the usual edit)
        self._titles_for = key
        before = self.scaled.plot.titleLabel.text
        set_title(self.raw.plot, "raw q·k", size=f"{self._title_pt:.0f}pt")
        Min = QtCore.Qt.SizeHint.MinimumSize
        for title in wordings:
            set_title(self.scaled.plot, title, size=f"{self._title_pt:.0f}pt")
            self.view.ci.layout.invalidate()
            if self.view.ci.effectiveSizeHint(Min).width() <= room:
                break
        self._title = title
        if self._drawn:
            self._drawn["titles"] = ("raw q·k", title)
        if self.scaled.plot.titleLabel.text != before:
            # the charts were held as wide as the old title needed: lay them out again in the view's width
            self.view.ci.setGeometry(self.view.range)

    def _space_numbers(self) -> None:
        """Numbers along each score axis far enough apart to read: a tidy step whose numbers fit the chart's
        width (pyqtgraph's own choice let 0.02 and 0.04 run together in a narrow chart). The same range, width
        and font as last time keep the step."""
        lo, hi = self._drawn.get("x_range", (0.0, 1.0))
        if not hi > lo:
            return
        for chart in (self.raw, self.scaled):
            axis = chart.plot.getAxis("bottom")
            font = axis.style.get("tickFont") or self.font()
            width = max(1.0, chart.vb.width())
            if not chart.changed("spacing", lo, hi, width, font):
                continue
            fm = QtGui.QFontMetricsF(font)
            step = _step_125((hi - lo) / 4.0)
            for _ in range(3):  # the numbers' width depends on the step (its decimals): settle both
                decimals = max(0, -int(np.floor(np.log10(step) + 1e-9)))
                widest = max(fm.horizontalAdvance(f"{v:.{decimals}f}") for v in (lo, hi, -step)) + 12
                step = _step_125(max((hi - lo) * widest / width, 1e-12))
            if getattr(axis, "_qkv_step", None) != step:
                axis._qkv_step = step
                axis.setTickSpacing(levels=[(step, 0.0)])

    @staticmethod
    def _message(result, i, j, edges, raw_j, scaled_j, allowed) -> str:
        """One short line: where key j's score lands on the curve, before and after dividing."""
        if no_keys(result, i):
            return no_keys_note(result, i)
        if not allowed[j]:
            return f"This key is masked ({mask_reason(result, i, j)}): its weight is 0 whatever its score."
        if edges is None:
            return "Only one key to look at: it gets all the weight, whatever its score."
        raw_flat = raw_j < edges[0] or raw_j > edges[1]
        scaled_flat = scaled_j < edges[0] or scaled_j > edges[1]
        if result.divisor == 1.0:
            return "Scaling is off. Scores in the grey flat ends barely move the weight: learning stalls."
        if raw_flat and not scaled_flat:
            return "Raw, this score sits on a flat end, where learning stalls; scaled, it is back on the slope."
        if raw_flat and scaled_flat:
            return "Even scaled, this score sits on a flat end, where learning stalls."
        if scaled_flat:
            return "The divisor is below 1, so dividing pushes this score onto a flat end: learning stalls."
        return "Both on the slope here. Bigger raw scores would reach the grey flat ends, where learning stalls."

    # ----- read-only view for tests --------------------------------------------------------------
    def drawn(self) -> dict:
        """What is on screen: bar values per key (raw and scaled), masked keys, curve, markers, texts."""
        drawn = dict(self._drawn)
        for name in ("raw_bars", "scaled_bars"):
            if name in drawn:
                keys, values = drawn[name]
                drawn[name] = {int(m): float(values[m]) for m in keys}
        return drawn
