"""Compare A / B: the pinned weights (A), the current weights (B) and their difference B − A, side by side.

"Pin as A" keeps the weights shown now; change anything (a word, a number, an
option) and B follows. A and B are drawn like the main heatmap (viridis, in the
session's colour scale, one shared colour bar); B − A uses a diverging map centred on 0 (blue:
less attention than in A, white: no change, red: more), with symmetric
limits ± the largest change and its own colour bar. Below, the largest
changes are listed with their signs ("'sat' → 'cat': 0.24 → 0.31 (+0.07)"),
so the direction of a change never depends on colour alone; when the cells
are big enough every cell carries its number too.

Hovering a cell shows A, B and B − A for it; clicking selects that query and
key in every panel. With nothing pinned, or when A and B have different
shapes, a short hint says what to do. The numbers come from
``qkv_engine.compare``.
"""
from __future__ import annotations

import html
import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import compare, views

from ...look import colours, style
from ...drawing.cell_grid import CellGridItem, Outline
from ...look.colour_tables import colour_map
from ...drawing.token_labels import nice_step, short_token
from ...labels.kept_focus import set_enabled
from ...drawing.colour_scale import bar_titles, place_bar, show_on_bar
from ...drawing.lazy_axes import set_axis_title
from ...drawing.turned_axis import TurnableAxis, stand_upright
from ..base import Panel
from ..themed_text import ThemedTextMixin
from ...drawing.text_pool import scaled_metrics

Qt = QtCore.Qt

#: How many of the largest changes are listed.
MAX_LISTED = 5
MIN_CANVAS_HEIGHT = 160
NOTHING_PINNED = ("Nothing is pinned yet. Pin the current weights as A, then change something: "
                  "a word, a number or an option. B follows your change, and B − A shows what moved.")
NAMES = ("a", "b", "diff")
TITLES = {"a": "A (pinned)", "b": "B (now)", "diff": "B − A"}


def signed(v: float, decimals: int) -> str:
    """'+0.07', '−0.03' or '0.00' (a true minus sign; never '−0.00')."""
    text = style.fmt(abs(v), decimals)
    if float(text) == 0.0:
        return text
    return ("+" if v > 0 else "\u2212") + text


def decimals_for(values) -> int:
    """2 decimals, or more (up to 4) when the smallest non-zero size would round to 0."""
    sizes = [abs(v) for v in values if abs(v) > 0]
    if not sizes:
        return 2
    smallest = min(sizes)
    for d in (2, 3):
        if smallest >= 0.5 * 10 ** -d:
            return d
    return 4


class CompareHeatmapsPanel(ThemedTextMixin, Panel):
    object_name = "comparePanel"
    title = "Compare A / B"
    follows_colours = True
    follows_pinned = True  # repaints on session.pinnedChanged (figure export disconnects it too)

    # ----- building -------------------------------------------------------------------------------
    def build(self, body):
        self._result = None
        self._pinned = None
        self._cmp = None
        self._selection = None
        self.hover_cell_ij = None
        self.hover_text = ""
        self.tick_labels = {name: ([], []) for name in NAMES}  # plot -> (x ticks, y ticks) shown now
        self.keys_upright = {name: False for name in NAMES}  # plot -> key names stand upright now
        self._fit_pending = False
        self._overhead: float | None = None  # titles, axes and margins around the grids, once laid out

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(3)

        top = QtWidgets.QHBoxLayout()
        top.setSpacing(6)
        self.pinButton = QtWidgets.QPushButton("Pin as A", body)
        self.pinButton.setObjectName("pinButton")
        self.pinButton.setToolTip("Keep the weights shown now as A; then change something and compare")
        self.unpinButton = QtWidgets.QPushButton("Unpin", body)
        self.unpinButton.setObjectName("unpinButton")
        self.unpinButton.setToolTip("Forget A")
        self.status = QtWidgets.QLabel(body)
        self.status.setObjectName("compareStatus")
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        top.addWidget(self.pinButton)
        top.addWidget(self.unpinButton)
        top.addWidget(self.status, 1)
        layout.addLayout(top)

        self.pages = QtWidgets.QStackedWidget(body)
        self.picture = QtWidgets.QWidget()
        picture = QtWidgets.QVBoxLayout(self.picture)
        picture.setContentsMargins(0, 0, 0, 0)
        picture.setSpacing(3)
        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setObjectName("compareCanvas")
        self.canvas.ci.layout.setContentsMargins(2, 8, 4, 2)
        self.canvas.ci.layout.setHorizontalSpacing(6)
        self.message = QtWidgets.QLabel()
        self.message.setObjectName("compareHint")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        colours.sheet(self.message, "color: $quiet_text; padding: 12px;", self.colours)
        self.pages.addWidget(self.picture)
        self.pages.addWidget(self.message)
        layout.addWidget(self.pages, 1)
        picture.addWidget(self.canvas, 1)

        self.changes_label = QtWidgets.QLabel(body)
        self.changes_label.setObjectName("compareChanges")
        self.changes_label.setTextFormat(Qt.TextFormat.RichText)
        self.changes_label.setWordWrap(True)
        self.changes_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                         QtWidgets.QSizePolicy.Policy.Minimum)
        picture.addWidget(self.changes_label)
        self.info = QtWidgets.QLabel(body)
        self.info.setObjectName("compareInfo")
        self.info.setWordWrap(True)
        colours.sheet(self.info, "color: $soft_text;", self.colours)
        self.info.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
        picture.addWidget(self.info)
        picture.addStretch(0)

        tick_font = QtGui.QFont()
        tick_font.setPointSize(8)
        self._tick_font = tick_font
        self.plots, self.images = {}, {}
        for col, name in enumerate(NAMES):
            # key names stand upright under narrow columns (more of them fit)
            plot = self.canvas.addPlot(row=0, col=col, axisItems={"bottom": TurnableAxis("bottom")},
                                       enableMenu=False)
            plot.setMenuEnabled(False)
            plot.setMouseEnabled(False, False)
            plot.hideButtons()
            plot.titleLabel.opts.pop("size", None)  # no size in the HTML: the title's font follows the theme
            plot.setTitle(TITLES[name])
            title_font = QtGui.QFont()
            title_font.setPointSizeF(style.BASE_POINT_SIZE)
            plot.titleLabel.item.setFont(title_font)
            vb = plot.getViewBox()
            vb.invertY(True)
            vb.setDefaultPadding(0.0)
            for axis_name in ("left", "bottom"):
                axis = plot.getAxis(axis_name)
                axis.setStyle(tickFont=tick_font, tickLength=-3, autoExpandTextSpace=True, hideOverlappingLabels=False)
            colours.paint(plot.getAxis("bottom"), self.colours, pen="foreground", text="ink_key")
            colours.paint(plot.getAxis("left"), self.colours, pen="foreground", text="ink_query")
            plot.getAxis("bottom").setLabel("key", color=self.colours.ink["key"])
            plot.getAxis("bottom").label.setFont(tick_font)
            # B − A: a diverging map centred on 0 (blue: less attention than in A, red: more)
            image = CellGridItem("diff" if name == "diff" else "weights")
            plot.addItem(image)
            image.cellHovered.connect(self.hover_cell)
            image.cellLeft.connect(lambda image=image: self._on_cell_left(image))
            image.cellClicked.connect(lambda i, j: self.session.select(query=i, key=j))
            self.plots[name], self.images[name] = plot, image
        left = self.plots["a"].getAxis("left")
        left.setLabel("query", color=self.colours.ink["query"])
        left.label.setFont(tick_font)
        self.plots["diff"].hideAxis("left")
        self.stacked = False  # True: A, B and B − A one under the other (a tall, narrow panel)

        self.weight_bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=colour_map("weights", self.colours),
                                          interactive=False, width=10, label="weight", colorMapMenu=False)
        colours.paint(self.weight_bar, self.colours, table="weights")
        place_bar(self.weight_bar, self.plots["b"])
        self.diff_bar = pg.ColorBarItem(values=(-1.0, 1.0), colorMap=colour_map("diff", self.colours),
                                        interactive=False, width=10, label="B − A", colorMapMenu=False)
        colours.paint(self.diff_bar, self.colours, table="diff")
        place_bar(self.diff_bar, self.plots["diff"])
        for bar in (self.weight_bar, self.diff_bar):
            bar.axis.setStyle(tickFont=tick_font, hideOverlappingLabels=False)  # keep the numbers at the ends
            bar.axis.setWidth(None)  # as wide as its numbers ("−0.078" does not fit the default 45 px)
            bar.axis.label.setFont(tick_font)

        font = QtGui.QFont(self.font())
        font.setPointSizeF(style.BASE_POINT_SIZE)
        body.setFont(font)
        for w in (self.message, self.info):
            w.setFont(font)  # labels with a style sheet do not take the parent's font

        self.pinButton.clicked.connect(lambda: self.session.pin())
        self.unpinButton.clicked.connect(lambda: self.session.unpin())
        self.listen(self.session.pinnedChanged, self._on_change)
        self.listen(self.session.colourScaleChanged, self._on_change)
        for plot in self.plots.values():
            plot.getViewBox().sigResized.connect(lambda *_: self._update_labels())

    # ----- Panel hooks ------------------------------------------------------------------------------
    def hint_for(self, result) -> str | None:
        return None  # the buttons stay; hints are shown inside the panel (see show_result)

    def show_result(self, result, selection) -> None:
        self._result = result
        self._selection = selection
        pinned = self.session.pinned
        self._pinned = pinned
        set_enabled(self.unpinButton, pinned is not None, keep=self.pinButton)  # (its own click greys it out)
        set_enabled(self.pinButton, result.n > 0)
        self.pinButton.setText("Pin again as A" if pinned is not None else "Pin as A")
        if pinned is None:
            self._cmp = None
            self.status.setText("A: nothing pinned.")
            self._show_message(NOTHING_PINNED)
            return
        self.status.setText(f"A: \u201c{self._sentence(pinned)}\u201d (pinned).  B: now.")
        cmp = compare.compare(pinned, result, k=MAX_LISTED)
        self._cmp = cmp
        if not cmp.comparable:
            self._show_message(cmp.reason)
            return
        if result.n == 0:
            self._show_message("Type a sentence to compare.")
            return
        self.pages.setCurrentWidget(self.picture)
        rows, cols = cmp.a_shape
        # A and B share one colour scale (the session's mode), shown on one bar
        a_w, b_w = np.asarray(pinned.weights), np.asarray(result.weights)
        levels = views.colour_levels(np.stack([a_w, b_w]), self.session.colour_scale)
        high = np.broadcast_to(levels.high, (2, rows, 1) if levels.mode == "row" else ())
        self._levels = levels
        self.images["a"].setData(a_w, (0.0, high[0] if high.ndim else levels.high), masked_by=self._mask(pinned))
        self.images["b"].setData(b_w, (0.0, high[1] if high.ndim else levels.high), masked_by=self._mask(result))
        limit = cmp.limit
        d = 2 if limit >= 0.095 else 3
        self.images["diff"].fmt = lambda v, d=d: signed(v, d)
        self.images["diff"].setData(cmp.difference, (-limit, limit))
        self.diff_bar.setLevels((-limit, limit))
        end = limit * (1.0 - 1e-9)  # a hair inside: a tick exactly at the end can round off the axis
        self.diff_bar.axis.setTicks([[(-end, signed(-limit, d)), (0.0, "0"), (end, signed(limit, d))], []])
        show_on_bar(self.weight_bar, levels)
        if levels.mode == "absolute":
            self.weight_bar.axis.setTicks([[(0.0, "0"), (0.5, "0.5"), (1.0, "1")], []])
        self._fit_bar_title()
        i, j = selection.query, selection.key
        for name in NAMES:
            self.images[name].set_outlines({"cell": Outline(QtCore.QRectF(j, i, 1, 1), self.colours.selected, 2.5,
                                                            halo=True)})
        self._left_axes()
        self._bottom_axes()
        self.changes_label.setText(self.changes_html(cmp))
        self._update_labels()
        hovered = next((g.hovered for g in self.images.values() if g.hovered is not None), None)
        if hovered is not None:
            self.hover_cell(*hovered)
        else:
            self.hover_cell_ij = None
            self.hover_text = ""
            self._show_cell_info(i, j, "Selected")

    @staticmethod
    def _mask(result):
        """The mask reasons of a result's weights (None when nothing is masked)."""
        why = result.masked_by
        return why if why.any() else None

    def _fit_bar_title(self) -> None:
        """The weight bar's title for the colour scale: the longest that fits the bar's height."""
        axis = self.weight_bar.getAxis("left")
        room = self.weight_bar.height()
        metrics = QtGui.QFontMetricsF(axis.label.font())
        titles = bar_titles(self._levels)
        text = next((t for t in titles if metrics.horizontalAdvance(t) + 6 <= room), titles[-1])
        if axis.labelText != text:
            set_axis_title(axis, text)

    def _bottom_axes(self) -> None:
        """Key names under each grid side by side; one under the other, under the last (B − A) only, as the three
        share their keys (and under A too when its keys differ from B's): in a low dock the names and "key" took
        half of each small grid's height."""
        result, pinned = self._result, self._pinned
        differ = (pinned is not None and result is not None
                  and tuple(compare.key_tokens(result)) != tuple(compare.key_tokens(pinned)))
        for name in NAMES:
            if not self.stacked or name == "diff" or (name == "a" and differ):
                self.plots[name].showAxis("bottom")
            else:
                self.plots[name].hideAxis("bottom")

    def _left_axes(self) -> None:
        """Row labels on A; on B when its tokens differ from A's; on every grid when they are stacked."""
        result, pinned = self._result, self._pinned
        differ = pinned is not None and result is not None and tuple(result.tokens) != tuple(pinned.tokens)
        for name, show in (("b", differ or self.stacked), ("diff", self.stacked)):
            if show:
                self.plots[name].showAxis("left")
                axis = self.plots[name].getAxis("left")
                if axis.labelText != "query" or axis.labelStyle.get("color") != self.colours.ink["query"]:
                    axis.setLabel("query", color=self.colours.ink["query"])
                    axis.label.setFont(self._tick_font)
            else:
                self.plots[name].hideAxis("left")

    def _arrange(self) -> None:
        """Side by side, or one under the other when the panel is much taller than wide."""
        stacked = self.height() > 1.3 * self.width()
        if stacked == self.stacked:
            return
        self.stacked = stacked
        ci = self.canvas.ci
        for plot in self.plots.values():
            ci.removeItem(plot)
        for k, name in enumerate(NAMES):
            ci.addItem(self.plots[name], row=k if stacked else 0, col=0 if stacked else k)
        self._left_axes()
        self._bottom_axes()
        self.canvas.setMaximumHeight(16777215)

    def resizeEvent(self, event):
        self._arrange()
        super().resizeEvent(event)

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.pages.setCurrentWidget(self.message)
        self.canvas.setToolTip("")

    @staticmethod
    def _sentence(result) -> str:
        s = result.scenario
        text = s.text if getattr(s, "text", None) is not None else " ".join(result.tokens)
        text = " ".join(text.split())
        return text if len(text) <= 40 else text[:39] + "…"

    def showing_message(self) -> bool:
        return self.pages.currentWidget() is self.message

    # ----- the list of changes ------------------------------------------------------------------------
    def change_lines(self, cmp) -> list:
        """The listed changes as plain text lines, largest first."""
        d = decimals_for([c.delta for c in cmp.changes])
        return [f"'{short_token(c.query_token)}' \u2192 '{short_token(c.key_token)}': "
                f"{style.fmt(c.a, d)} \u2192 {style.fmt(c.b, d)} ({signed(c.delta, d)})" for c in cmp.changes]

    def changes_html(self, cmp) -> str:
        if not cmp.changes:
            doc, layer = self.session.model_doc, self.session.model_layer
            if doc is not None and any(at >= layer for at, _head in doc.edits.output_edits()):
                return ("A and B have the same weights here. Knocking out a head sets its output to zero. Its "
                        "weights were worked out before that, so the weights in its layer stay the same. Look at "
                        "a later layer, or at the prediction, to see what changed.")
            return "A and B have the same weights: nothing has changed yet."
        lines = []
        for c, text in zip(cmp.changes, self.change_lines(cmp)):
            ink = self.colours.up_ink if c.delta > 0 else self.colours.down_ink
            head, _sep, tail = text.rpartition(" (")
            head, tail = html.escape(head, quote=False), html.escape(tail, quote=False)
            lines.append(f"{head} <span style='color:{ink}'><b>({tail}</b></span>")
        more = "more attention: +, red" if any(c.delta > 0 for c in cmp.changes) else ""
        less = "less: \u2212, blue" if any(c.delta < 0 for c in cmp.changes) else ""
        key = "; ".join(t for t in (more, less) if t)
        return (f"<b>Largest changes</b> <span style='color:{self.colours.quiet_text}'>(query \u2192 key: A \u2192 B; "
                f"{key})</span><br>"
                + "<br>".join(lines))

    # ----- labels and numbers that depend on the size -------------------------------------------------
    @staticmethod
    def _keys_upright(axis: TurnableAxis, w_px: float, h_px: float, rows: int, cols: int, widest: float,
                      line: float) -> bool:
        """Key names stand upright when that names more keys and queries in all (square cells: a
        shorter plot makes them smaller)."""
        def names(upright: bool, h: float) -> int:
            px = max(1e-9, min(w_px / cols, max(1.0, h) / rows))
            key_step = nice_step(((line + 2.0) if upright else (widest + 6.0)) / px)
            return -(-cols // key_step) + -(-rows // nice_step((line + 1.0) / px))

        return stand_upright(axis, h_px, widest, names)

    def _update_labels(self) -> None:
        cmp, result, pinned = self._cmp, self._result, self._pinned
        if cmp is None or not cmp.comparable or result is None or result.n == 0 or self.showing_message():
            return
        rows, cols = cmp.a_shape
        metrics = scaled_metrics(self._tick_font, self.theme.font_scale)
        labels = {"a": (tuple(pinned.tokens), compare.key_tokens(pinned)), "b": (tuple(result.tokens), compare.key_tokens(result)),
                  "diff": (tuple(result.tokens), compare.key_tokens(result))}
        for name in NAMES:
            plot = self.plots[name]
            vb = plot.getViewBox()
            # Square cells, the grid in the top left corner of its box (so the three grids line up).
            w_px, h_px = max(1.0, vb.width()), max(1.0, vb.height())
            px = min(w_px / cols, h_px / rows)
            vb.setRange(xRange=(0, w_px / px), yRange=(0, h_px / px), padding=0)
            px_x = px_y = px
            row_toks, col_toks = labels[name]
            col_texts = [short_token(t) for t in col_toks]
            widest = max(metrics.horizontalAdvance(t) for t in col_texts)
            upright = self._keys_upright(plot.getAxis("bottom"), w_px, h_px, rows, cols, widest, metrics.height())
            self.keys_upright[name] = upright
            step_x = nice_step(((metrics.height() + 2.0) if upright else (widest + 6.0)) / px_x)
            step_y = nice_step((metrics.height() + 1.0) / px_y)
            xt = [(j + 0.5, col_texts[j]) for j in range(0, cols, step_x)]
            yt = [(i + 0.5, short_token(row_toks[i])) for i in range(0, rows, step_y)]
            plot.getAxis("bottom").setTicks([xt, []])
            plot.getAxis("left").setTicks([yt, []])
            self.tick_labels[name] = (xt, yt)

        if not self._fit_pending:  # later: a resize inside the scene's own layout pass would be undone by it
            self._fit_pending = True
            QtCore.QTimer.singleShot(0, self, self._fit_height)

    @property
    def shown_numbers(self) -> int:
        """How many cell numbers the three grids write now."""
        return sum(image.shown_numbers for image in self.images.values()) if self._cmp is not None else 0

    def _fit_height(self) -> None:
        """Make the canvas just tall enough for square cells, so the list sits right under the grids."""
        self._fit_pending = False
        cmp = self._cmp
        if cmp is None or not cmp.comparable or self.showing_message():
            return
        rows, cols = cmp.a_shape
        vb = self.plots["a"].getViewBox()
        w = min(p.getViewBox().width() for p in self.plots.values())  # the narrowest grid sets the size
        h = vb.height()
        if w < 10:
            return
        count = 3 if self.stacked else 1  # grids one above the other
        if h >= 20:  # titles, axes and margins around the grids, as laid out now
            self._overhead = self.canvas.height() - count * h
        overhead = 140 * count if self._overhead is None else self._overhead
        want = int(math.ceil(count * w * rows / cols + overhead))
        want = max(MIN_CANVAS_HEIGHT, want)
        if abs(self.canvas.maximumHeight() - want) > 2:
            self.canvas.setMaximumHeight(want)

    def theme_changed(self, theme) -> None:
        for image in self.images.values():
            image.set_theme_scale(theme.font_scale, theme.line_scale)

    def text_scaled(self) -> None:
        self._update_labels()

    # ----- mouse ----------------------------------------------------------------------------------------
    def scene_pos_of(self, name: str, i: int, j: int) -> QtCore.QPointF:
        """The scene position of the centre of cell (i, j) in grid ``name`` ('a', 'b' or 'diff')."""
        return self.images[name].scene_pos_of(i, j)

    def cell_text(self, i: int, j: int) -> str:
        """A, B and B − A of one cell, in words."""
        cmp, result, pinned = self._cmp, self._result, self._pinned
        a, b, d = float(pinned.weights[i, j]), float(result.weights[i, j]), float(cmp.difference[i, j])
        dec = max(3, decimals_for([d]))
        return (f"query {i + 1} '{result.tokens[i]}' \u2192 key {j + 1} '{compare.key_tokens(result)[j]}': "
                f"A {style.fmt(a, dec)}, B {style.fmt(b, dec)}, B \u2212 A {signed(d, dec)}")

    def hover_cell(self, i: int, j: int) -> None:
        self.hover_cell_ij = (i, j)
        self.hover_text = self.cell_text(i, j)
        self._show_cell_info(i, j, "Under the mouse")

    def _show_cell_info(self, i: int, j: int, prefix: str) -> None:
        text = f"{prefix}: {self.cell_text(i, j)}"
        self.info.setText(text)
        self.canvas.setToolTip(text)

    def _on_cell_left(self, image) -> None:
        """The mouse has left the cells of ``image``: unless it is on another grid's cell now, the info line
        tells of the selected pair again."""
        if self.hover_cell_ij is None or any(g.hovered is not None for g in self.images.values()):
            return
        self.hover_cell_ij = None
        self.hover_text = ""
        if self._selection is not None and self._cmp is not None and self._cmp.comparable:
            self._show_cell_info(self._selection.query, self._selection.key, "Selected")
