"""Heads side by side: every head's attention weights as a small heatmap, one per head.

Each head has its own W^Q, W^K and W^V blocks, so each head spreads its
attention in its own way. The small heatmaps share one colour scale (viridis,
in the session's colour-scale mode) and one colour bar. Each is a cell-grid
item (``items.CellGridItem``). Rows are query tokens (named on the left of
each row of heatmaps), columns are key tokens (named under each heatmap;
the source sentence's tokens in cross-attention), thinned when crowded.
The head that every other panel shows is framed in black and titled
"chosen"; the selected query/key cell is outlined in every head, masked
cells are hatched. Clicking a heatmap chooses that head and selects the
clicked query/key pair; hovering a cell shows its weight. The heatmaps are
arranged in the grid that gives them the most room (1 x 1 ... 2 x 4 or 4 x 2).
"""
from __future__ import annotations

import html
import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import MAX_HEADS, explain, views

from ...look import colours, style
from ...drawing.cell_grid import CellGridItem, Outline
from ...look.colour_tables import colour_map
from ...drawing.token_labels import nice_step, short_token
from ...labels.captions import info_label, note_label, show_texts
from ...labels.changed_text import set_tooltip
from ...drawing.colour_scale import bar_titles, show_on_bar
from ...drawing.turned_axis import TurnableAxis
from ..base import Panel
from ...drawing.lazy_axes import set_axis_title, set_ticks
from ..themed_text import ThemedTextMixin

Qt = QtCore.Qt

TICK_PT = 8.0
TITLE_PT = 9.0
#: Token names on the axes are shortened to this many characters.
LABEL_CHARS = 8
#: Pixels around the whole picture, between a heatmap's cells and its frame, and the largest cell drawn.
MARGIN = 4.0
FRAME_PAD = 4.0
MAX_CELL_PX = 120.0
BAR_MIN_PX = 180.0


def grid_shape(count: int, width: float, height: float, aspect=(1, 1), gap: float = 8.0,
               overhead=(48.0, 8.0)) -> tuple:
    """(rows, columns) for ``count`` heatmaps of ``aspect`` = (rows n, columns m) cells in a ``width`` x
    ``height`` area: the arrangement with the largest square cells, never with a whole empty row; ties go to
    fewer empty places. ``overhead`` = pixels each heatmap loses (tall, wide) to its title, axis and frame."""
    count = max(1, count)
    n, m = max(1, aspect[0]), max(1, aspect[1])
    best, best_key = (1, count), None
    for cols in range(1, count + 1):
        rows = math.ceil(count / cols)
        if rows * cols - count >= cols:
            continue
        cell = min(((width - (cols - 1) * gap) / cols - overhead[1]) / m,
                   ((height - (rows - 1) * gap) / rows - overhead[0]) / n)
        key = (round(cell, 3), -(rows * cols - count), -rows)
        if best_key is None or key > best_key:
            best, best_key = (rows, cols), key
    return best


class _HeadTitle(pg.LabelItem):
    """A head's title; clicking it chooses that head."""

    def __init__(self, h: int, panel: "HeadsGridPanel"):
        super().__init__("", size=f"{TITLE_PT:g}pt")
        self.h = h
        self.panel = panel

    def mouseClickEvent(self, ev):  # noqa: N802 (pyqtgraph naming)
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.panel.session.set_head(self.h)


class _HeadView:
    """One head's heatmap: title, view box, cell grid (colours, masks, frame, selected cell, numbers), key axis."""

    def __init__(self, h: int, panel: "HeadsGridPanel", tick_font: QtGui.QFont):
        self.h = h
        self.title = _HeadTitle(h, panel)
        # The title's width never widens its column: every column of heatmaps gets the same room.
        self.title.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        self.vb = pg.ViewBox(enableMouse=False, enableMenu=False, invertY=True, defaultPadding=0.0)
        self.vb.setMouseEnabled(False, False)
        self.image = CellGridItem("weights")
        self.vb.addItem(self.image)
        self.keyAxis = TurnableAxis("bottom")
        colours.paint(self.keyAxis, panel.colours, pen="muted", text="ink_key")
        self.keyAxis.setStyle(tickFont=tick_font, tickLength=-3)
        self.keyAxis.linkToView(self.vb)
        self.shape = None
        self.placed = False


def _with_its_width(axis: pg.AxisItem) -> None:
    """Have a shown axis work out its width again. pyqtgraph gives a hidden axis no width, and these axes are
    hidden until first placed: one placed so came out 0 pixels wide and grew only while it was first drawn,
    keeping a drawing without its names or numbers (a dock opened narrow at 1024 x 768 showed none until it
    was resized)."""
    axis.setWidth(axis.fixedWidth)


class HeadsGridPanel(ThemedTextMixin, Panel):
    object_name = "headsPanel"
    title = "Heads side by side"
    follows_colours = True

    dock_size = (560, 480)  # a dock opens wide enough for the pictures to be read

    # ----- building ---------------------------------------------------------------------------------
    def build(self, body):
        self._full = None
        self._selection = None
        self._grid = None  # (rows, cols, count) placed now
        self._mask_key = None
        self.hover_cell_hij = None  # (head, i, j) under the mouse, or None
        self.hover_text = ""
        self.x_tick_labels: list = []
        self.y_tick_labels: list = []
        self.keys_upright = False  # key names stand upright (too narrow columns to write them across)
        self._col_widths = np.zeros(0)
        self._measured = None  # (query names, key names, font size) the names were last measured for
        self._placed_key = None  # (heads, sizes, text size, ...) the heatmaps were last placed for
        self._block = None  # (a heatmap's width, the gap beside it) in pixels, once placed
        self._title_metrics: QtGui.QFontMetricsF | None = None  # the heads' titles' font, once measured
        self._note = None  # the note: (wide, narrow) wordings
        self._info = None  # the line about a cell: (wide, narrow) wordings

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        self.note = note_label(body, "headsNote")
        layout.addWidget(self.note)

        # No layout object in the scene: ``_layout`` places every item for the canvas size now, on every
        # resize, so the heads always share the room equally (a grid layout kept stale column widths).
        self.canvas = pg.GraphicsView(body)
        self.canvas.setObjectName("headsCanvas")
        self.canvas.setMinimumSize(120, 90)
        layout.addWidget(self.canvas, 1)

        self.info = info_label(body, "headsInfo", self.colours)
        layout.addWidget(self.info)

        tick_font = QtGui.QFont()
        tick_font.setPointSizeF(TICK_PT)
        self._tick_font = tick_font
        self.views = [_HeadView(h, self, tick_font) for h in range(MAX_HEADS)]
        self.images = [v.image for v in self.views]
        for v in self.views:
            v.image.cellHovered.connect(lambda i, j, h=v.h: self.hover_cell(h, i, j))
            v.image.cellLeft.connect(self._on_cell_left)
            v.image.cellClicked.connect(lambda i, j, h=v.h: self._on_cell_clicked(h, i, j))
        # Query names: one axis at the left of each row of heatmaps (the rows are the same tokens in every head).
        self.queryAxes = []
        for _ in range(MAX_HEADS):
            axis = pg.AxisItem("left")
            colours.paint(axis, self.colours, pen="muted", text="ink_query")
            axis.setSizePolicy(QtWidgets.QSizePolicy.Policy.Fixed, QtWidgets.QSizePolicy.Policy.Expanding)
            axis.setStyle(tickFont=tick_font, tickLength=-3)
            self.queryAxes.append(axis)
        self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=colour_map("weights", self.colours),
                                        interactive=False, width=10, label="weight", colorMapMenu=False)
        colours.paint(self.colorbar, self.colours, table="weights")
        self.colorbar.getAxis("right").setStyle(tickFont=tick_font, hideOverlappingLabels=False)
        self._metrics = QtGui.QFontMetricsF(tick_font)
        for item in (*self.queryAxes, self.colorbar,
                     *(part for v in self.views for part in (v.title, v.vb, v.keyAxis))):
            self.canvas.addItem(item)
            item.hide()

        self.canvas.sigDeviceRangeChanged.connect(lambda *_: self._relayout())
        self.listen(self.session.headChanged, self._on_head_changed)
        self.listen(self.session.colourScaleChanged, self._on_change)

    # ----- the grid of heatmaps ---------------------------------------------------------------------
    def _room(self) -> dict:
        """Pixels the text around the heatmaps needs, for the fonts the theme gives now."""
        fm = self._metrics
        scale = self.theme.font_scale
        title_font = QtGui.QFont(self._tick_font)
        title_font.setPointSizeF(TITLE_PT * scale)
        title_font.setBold(True)
        self._title_metrics = QtGui.QFontMetricsF(title_font)
        cb = self.colorbar.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
        return {
            "query": float(self.queryAxes[0].width() if self.queryAxes[0].fixedWidth is None
                           else self.queryAxes[0].fixedWidth),
            "key": math.ceil(fm.height() + 6),
            "title": math.ceil(self._title_metrics.height() + 4),
            "bar": max(40.0, cb + 4.0),
            "gap": max(8.0, round(0.8 * fm.height())),
        }

    def _place(self, count: int) -> None:
        """Put ``count`` heatmaps (same size, square cells) in the grid that gives them the most room in the
        canvas as it is now, centred, with the query names left of each row and one colour bar at the right."""
        full = self._full
        if full is None:
            return
        n, m = full.heads[0].n, full.heads[0].n_keys
        rect = self.canvas.viewport().rect()
        # an edit that changes only numbers leaves the places as they are (placing costs the axes their cache)
        key = (count, n, m, rect.width(), rect.height(), self.theme.font_scale, tuple(self._col_widths.tolist()),
               self.queryAxes[0].fixedWidth)
        if key == self._placed_key:
            return
        self._placed_key = key
        width, height = float(max(1, rect.width())), float(max(1, rect.height()))
        self.colorbar.show()  # before its room is measured
        _with_its_width(self.colorbar.getAxis("right"))
        room = self._room()
        gap, pad = room["gap"], FRAME_PAD
        outer_w = width - 2 * MARGIN - room["query"] - room["bar"] - gap
        outer_h = height - 2 * MARGIN

        def arrange(key_room: float) -> tuple:
            extra = (room["title"] + key_room + 2 * pad, 2 * pad)
            rows_, cols_ = grid_shape(count, outer_w, outer_h, aspect=(n, m), gap=gap, overhead=extra)
            cell_w = ((outer_w - (cols_ - 1) * gap) / cols_ - 2 * pad) / max(1, m)
            cell_h = ((outer_h - (rows_ - 1) * gap) / rows_ - room["title"] - key_room - 2 * pad) / max(1, n)
            return rows_, cols_, max(0.02, min(cell_w, cell_h, MAX_CELL_PX))

        # Key names stand upright under narrow columns when that names more keys and queries in all
        # (upright names need a taller strip, which makes the cells smaller).
        rows, cols, cell = arrange(room["key"])
        upright = False
        if m > 1 and len(self._col_widths) == m:
            longest = float(self._col_widths.max())
            tall = self.views[0].keyAxis.upright_height(longest)
            up_rows, up_cols, up_cell = arrange(tall)
            if self._names_shown(n, m, up_cell, True) > self._names_shown(n, m, cell, False):
                rows, cols, cell, upright = up_rows, up_cols, up_cell, True
                room["key"] = tall
        self.keys_upright = upright
        bw, bh = m * cell + 2 * pad, n * cell + 2 * pad
        row_h = room["title"] + bh + room["key"]
        total_w = room["query"] + cols * bw + (cols - 1) * gap + gap + room["bar"]
        total_h = rows * row_h + (rows - 1) * gap
        x0 = max(MARGIN, (width - total_w) / 2)
        y0 = max(MARGIN, (height - total_h) / 2)
        for v in self.views:
            v.placed = False
        for idx in range(count):
            r, c = divmod(idx, cols)
            v = self.views[idx]
            x = x0 + room["query"] + c * (bw + gap)
            y = y0 + r * (row_h + gap)
            v.title.setGeometry(QtCore.QRectF(x - gap / 2, y, bw + gap, room["title"]))
            v.vb.setGeometry(QtCore.QRectF(x, y + room["title"], bw, bh))
            v.vb.setRange(xRange=(-pad / cell, m + pad / cell), yRange=(-pad / cell, n + pad / cell), padding=0.0)
            v.keyAxis.show()  # before its height is set (_with_its_width)
            if upright:
                v.keyAxis.set_turned(True, float(self._col_widths.max()))
            else:
                v.keyAxis.set_turned(False)
                v.keyAxis.setHeight(int(room["key"]))
            v.keyAxis.setGeometry(QtCore.QRectF(x, y + room["title"] + bh, bw, room["key"]))
            v.placed = True
        for r in range(rows):
            axis = self.queryAxes[r]
            axis.show()  # before it is placed
            _with_its_width(axis)
            vb = self.views[r * cols].vb
            if axis.linkedView() is not vb:
                axis.linkToView(vb)
            axis.linkedViewChanged(vb)  # the range the view has now, even if it was set before the link
            axis.setGeometry(QtCore.QRectF(x0, y0 + r * (row_h + gap) + room["title"], room["query"], bh))
        bar_x = x0 + room["query"] + cols * bw + (cols - 1) * gap + gap
        # The colour bar beside the heatmaps, never shorter than its ticks need (one small heatmap).
        bar_h = max(total_h - room["title"] - room["key"], min(BAR_MIN_PX, outer_h))
        bar_top = min(max(MARGIN, y0 + room["title"] + (total_h - room["title"] - room["key"] - bar_h) / 2),
                      height - MARGIN - bar_h)
        self.colorbar.setGeometry(QtCore.QRectF(bar_x, max(MARGIN, bar_top), room["bar"], max(40.0, bar_h)))
        for h, v in enumerate(self.views):
            for item in (v.title, v.vb, v.keyAxis):
                item.setVisible(v.placed)
        for r, axis in enumerate(self.queryAxes):
            axis.setVisible(r < rows)
        self.colorbar.show()
        self._grid = (rows, cols, count)
        self._block = (bw, gap)

    def _key_step(self, cell: float, upright: bool) -> int:
        """Every how many keys a name fits under cells ``cell`` pixels wide, across or upright."""
        need = self._metrics.height() + 2.0 if upright else float(self._col_widths.max()) + 6.0
        return nice_step(need / max(1e-9, cell))

    def _names_shown(self, n: int, m: int, cell: float, upright: bool) -> int:
        """How many key and query names one heatmap shows with square cells ``cell`` pixels wide."""
        query_step = nice_step((self._metrics.height() + 1.0) / max(1e-9, cell))
        return -(-m // self._key_step(cell, upright)) + -(-n // query_step)

    def _relayout(self) -> None:
        """The canvas changed size (or the text did): place everything again, then the labels and titles."""
        if self._full is None or self.showing_hint():
            return
        self._place(self._full.n_heads)
        self._show_chosen()
        self._update_labels()

    def text_scaled(self) -> None:
        self._measured = None
        if self._full is not None and self.session.result.n:
            self._measure(self.session.result)
            self._relayout()

    def placed_grid(self) -> tuple | None:
        """(rows, columns) of the heatmaps as placed now."""
        return None if self._grid is None else self._grid[:2]

    # ----- filling ----------------------------------------------------------------------------------
    def hint_for(self, result):
        if result.n == 0:
            return self.empty_hint
        if result.n_keys == 0:
            return "Type a source sentence to see what each head looks at."
        return None

    def show_result(self, result, selection):
        full = self.session.full_result
        self._full = full
        self._selection = selection
        count = full.n_heads
        n = result.n
        self._measure(result)
        self._place(count)
        # one colour scale for every head (the session's mode), on one bar
        levels = views.colour_levels(np.stack([full.heads[h].weights for h in range(count)]), self.session.colour_scale)
        self._levels = levels
        high = np.broadcast_to(levels.high, (count, n, 1)) if levels.mode == "row" else [levels.high] * count
        why = result.masked_by if result.masked_by.any() else None  # the same masks in every head
        cell = Outline(QtCore.QRectF(selection.key, selection.query, 1, 1), self.colours.selected, 2.0, halo=True)
        for h, v in enumerate(self.views[:count]):
            v.image.setData(full.heads[h].weights, (0.0, high[h]), masked_by=why)
            v.image.set_outlines({"cell": cell})
        show_on_bar(self.colorbar, levels)
        self._fit_bar_title()
        self._show_chosen()
        self._update_labels()

        doc = self.session.model_doc
        if doc is not None:  # a trained model: the head every panel shows (the model view has them all)
            info = doc.model.info
            which = info.which_head(self.session.model_layer, self.session.model_head)
            self._note = (f"A trained model: this is the head every panel shows, {which}. The model view shows all "
                          f"{info.n_heads} heads of its {info.n_layers} layers side by side: click one there to show "
                          "it here.", f"{which.capitalize()}; the model view shows every head.")
        elif count == 1:
            self._note = ("There is one head. Raise “Heads” in the inputs panel to split attention into "
                          "several heads and see them side by side.",
                          "One head. Raise “Heads” in the inputs panel for more.")
        else:
            self._note = (f"{count} heads. Each head has its own W<sup>Q</sup>, W<sup>K</sup> and W<sup>V</sup>, "
                          "so each one spreads its attention its own way. Click a head to show it in every panel.",
                          f"{count} heads, each with its own W<sup>Q</sup>, W<sup>K</sup>, W<sup>V</sup>. "
                          "Click one to choose it.")
        hov = next(((v.h, *v.image.hovered) for v in self.views[:count] if v.image.hovered is not None), None)
        if hov is not None:
            self.hover_cell(*hov)
        else:
            self.hover_cell_hij = None
            self.hover_text = ""
            self._show_selected_info()

    def _fit_bar_title(self) -> None:
        """The colour bar's title for the colour scale: the longest that fits the bar's height."""
        axis = self.colorbar.getAxis("left")
        metrics = QtGui.QFontMetricsF(axis.label.font())
        titles = bar_titles(self._levels)
        text = next((t for t in titles if metrics.horizontalAdvance(t) + 6 <= self.colorbar.height()), titles[-1])
        if axis.labelText != text:
            set_axis_title(axis, text)

    def _show_chosen(self) -> None:
        """Frame and title the chosen head; the others get a thin grey frame."""
        full = self._full
        if full is None:
            return
        chosen = self.session.head
        size = f"{TITLE_PT * self.theme.font_scale:g}pt"
        room = self._block
        fm = self._title_metrics
        for h, v in enumerate(self.views[:full.n_heads]):
            n, m = v.image.values.shape
            if h == chosen and full.n_heads > 1:
                words, color = (f"head {h + 1} · chosen", f"head {h + 1} ✓", f"{h + 1} ✓"), self.colours.selected
                frame = Outline(QtCore.QRectF(0, 0, m, n), self.colours.selected, 4.0)
            else:
                words, color = (f"head {h + 1}", f"h{h + 1}", f"{h + 1}"), self.colours.quiet_text
                frame = Outline(QtCore.QRectF(0, 0, m, n), self.colours.muted, 1.0)
            v.image.set_outlines({"frame": frame})
            text = words[-1]
            for w in words:  # the longest that fits over its heatmap
                if room is None or fm is None or fm.horizontalAdvance(w) + 4 <= room[0] + room[1]:
                    text = w
                    break
            if h == chosen and full.n_heads > 1:
                text = f"<b>{text}</b>"
            if (text, size, color) == getattr(v.title, "shown", None):
                continue
            v.title.shown = (text, size, color)
            v.title.setText(text, size=size, color=color)
            v.title.setMinimumSize(0, 0)  # placed by _place, never pushed wider by its text
        self.chosen_head = chosen

    def _on_head_changed(self, _head: int) -> None:
        if self.isVisible() and self._full is not None and self._full is self.session.full_result:
            self._show_chosen()

    # ----- token names on the axes ------------------------------------------------------------------
    def _measure(self, result) -> None:
        font = self.queryAxes[0].style.get("tickFont") or self._tick_font
        key = (result.tokens, result.key_tokens, font.pointSizeF())
        if key == self._measured:
            return
        self._measured = key
        self._metrics = QtGui.QFontMetricsF(font)
        fm = self._metrics
        self._row_names = [short_token(t, LABEL_CHARS) for t in result.tokens]
        self._col_names = [short_token(t, LABEL_CHARS) for t in result.key_tokens]
        self._col_widths = np.array([fm.horizontalAdvance(t) for t in self._col_names] or [0.0])
        widest_row = max((fm.horizontalAdvance(t) for t in self._row_names), default=10.0)
        for axis in self.queryAxes:
            axis.setWidth(int(math.ceil(widest_row + 8)))

    def _update_labels(self) -> None:
        full = self._full
        if full is None or self._grid is None or self._measured is None:
            return
        result = full.heads[0]
        n, m = result.n, result.n_keys
        if n == 0 or m == 0 or len(self._row_names) != n or len(self._col_names) != m:
            return
        vb = self.views[0].vb
        (x0, x1), (y0, y1) = vb.viewRange()
        px_x = max(1.0, vb.width()) / max(1e-9, x1 - x0)
        px_y = max(1.0, vb.height()) / max(1e-9, y1 - y0)
        fm = self._metrics
        step_x = self._key_step(px_x, self.keys_upright)
        step_y = nice_step((fm.height() + 1.0) / px_y)
        xt = [(j + 0.5, self._col_names[j]) for j in range(0, m, step_x)]
        yt = [(i + 0.5, self._row_names[i]) for i in range(0, n, step_y)]
        self.x_tick_labels, self.y_tick_labels = xt, yt
        rows, cols, count = self._grid
        for v in self.views[:count]:
            set_ticks(v.keyAxis, [xt, []])
        for axis in self.queryAxes[:rows]:
            set_ticks(axis, [yt, []])

    @property
    def shown_numbers(self) -> int:
        """How many cell numbers the heads write now."""
        count = 0 if self._grid is None else self._grid[2]
        return sum(v.image.shown_numbers for v in self.views[:count])

    # ----- mouse --------------------------------------------------------------------------------------
    def scene_pos_of(self, h: int, i: int, j: int) -> QtCore.QPointF:
        """The scene position of the centre of cell (i, j) of head h."""
        return self.views[h].image.scene_pos_of(i, j)

    def hover_cell(self, h: int, i: int, j: int) -> None:
        """Show head h's weight of cell (i, j), as when the mouse rests on it."""
        self.hover_cell_hij = (h, i, j)
        result = self._full.heads[h]
        ex = explain.weight(result, i, j)
        self.hover_text = ex.text
        self._set_info(h, i, j, "Under the mouse", ex.text)

    def _show_selected_info(self) -> None:
        full, sel = self._full, self._selection
        if full is None or sel is None:
            return
        h = self.session.head
        self._set_info(h, sel.query, sel.key, "Selected", explain.weight(full.heads[h], sel.query, sel.key).text)

    def _set_info(self, h: int, i: int, j: int, prefix: str, arithmetic: str) -> None:
        result = self._full.heads[h]
        w = float(result.weights[i, j])
        qi, kj = self.colours.ink["query"], self.colours.ink["key"]
        masked = "" if result.allowed[i, j] else " (masked)"
        line = (f"{prefix}: head {h + 1}, <span style='color:{qi}'>query {i + 1} ‘{html.escape(result.tokens[i])}’</span> → "
                f"<span style='color:{kj}'>key {j + 1} ‘{html.escape(result.key_tokens[j])}’</span>: weight "
                f"<b>{style.fmt(w, 4)}</b>{masked}")
        scale = {"absolute": "0 to 1", "auto": "0 to the largest", "row": "each row to its largest"}[self._levels.mode]
        legend = f"Rows: queries (the token looking). Columns: keys (the token looked at). Colour: weight, {scale}."
        self._info = (f"{line}<br>{legend}", line)
        set_tooltip(self.canvas, f"head {h + 1}: {arithmetic}")
        self._apply_texts()

    def _apply_texts(self) -> None:
        show_texts(self.width(), ((self.note, self._note), (self.info, self._info)))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._apply_texts()
        if self._full is not None and self.isVisible():
            self._relayout()

    def theme_changed(self, theme) -> None:
        for v in self.views:
            v.image.set_theme_scale(theme.font_scale, theme.line_scale)
        self._measured = None  # the room for the names changes with the text size

    def _on_cell_left(self) -> None:
        """The mouse has left a head's cells: unless it is on another head's now, the info line tells of
        the selected pair again."""
        if self.hover_cell_hij is None or any(v.image.hovered is not None for v in self.views):
            return
        self.hover_cell_hij = None
        self.hover_text = ""
        self._show_selected_info()

    def _on_cell_clicked(self, h: int, i: int, j: int) -> None:
        """A click on a head's cell chooses that head and selects the pair."""
        self.session.set_head(h)
        self.session.select(query=i, key=j)
