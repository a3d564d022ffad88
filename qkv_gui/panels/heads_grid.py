"""Heads side by side: every head's attention weights as a small heatmap, one per head.

Each head has its own W^Q, W^K and W^V blocks, so each head spreads its
attention in its own way. The small heatmaps share one colour scale (0 to 1,
viridis) and one colour bar. Rows are query tokens (named on the left of
each row of heatmaps), columns are key tokens (named under each heatmap;
the source sentence's tokens in cross-attention), thinned when crowded.
The head that every other panel shows is framed in black and titled
"chosen"; the selected query/key cell is outlined in every head, masked
cells are hatched. Clicking a heatmap chooses that head and selects the
clicked query/key pair; hovering a cell shows its weight. The heatmaps are
arranged in the grid that gives them the most room (1 x 1 ... 2 x 4 or 4 x 2).
"""
from __future__ import annotations

import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import explain
from qkv_engine.scenario import MAX_HEADS

from .. import style
from .attention_heatmap import nice_step, short_token
from .turned_axis import TurnableAxis
from .base import Panel
from .theming import TextPool, ThemedTextMixin

Qt = QtCore.Qt

TICK_PT = 8.0
TITLE_PT = 9.0
#: Token names on the axes are shortened to this many characters.
LABEL_CHARS = 8
#: A cell needs this many pixels (wide, tall) to hold its number; at most this many numbers per head.
NUMBER_MIN_PX = (30.0, 15.0)
MAX_NUMBERS = 100
#: Pixels around the whole picture, between a heatmap's cells and its frame, and the largest cell drawn.
MARGIN = 4.0
FRAME_PAD = 4.0
MAX_CELL_PX = 120.0
BAR_MIN_PX = 180.0
MASK_FILL = QtGui.QColor(200, 200, 200, 215)
MASK_HATCH = QtGui.QColor(95, 95, 95)


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


def _pen(color, width: float, style_=None) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(color))
    pen.setWidthF(width)
    pen.setCosmetic(True)
    if style_ is not None:
        pen.setStyle(style_)
    return pen


class _HeadView:
    """One head's heatmap: title, view box, image, mask cover, frame, selected cell, numbers, key axis."""

    def __init__(self, h: int, tick_font: QtGui.QFont, number_font: QtGui.QFont, lut):
        self.h = h
        self.title = pg.LabelItem("", size=f"{TITLE_PT:g}pt")
        # The title's width never widens its column: every column of heatmaps gets the same room.
        self.title.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        self.vb = pg.ViewBox(enableMouse=False, enableMenu=False, invertY=True, defaultPadding=0.0)
        self.vb.setMouseEnabled(False, False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setLookupTable(lut)
        self.image.setLevels((0.0, 1.0))
        self.vb.addItem(self.image)
        self.maskFill = QtWidgets.QGraphicsPathItem()
        self.maskFill.setPen(QtGui.QPen(Qt.PenStyle.NoPen))
        self.maskFill.setBrush(QtGui.QBrush(MASK_FILL))
        self.maskHatch = QtWidgets.QGraphicsPathItem()
        self.maskHatch.setPen(QtGui.QPen(Qt.PenStyle.NoPen))
        self.maskHatch.setBrush(QtGui.QBrush(MASK_HATCH, Qt.BrushStyle.BDiagPattern))
        self.frame = QtWidgets.QGraphicsRectItem()
        self.frame.setBrush(QtGui.QBrush(Qt.BrushStyle.NoBrush))
        self.cellHalo = QtWidgets.QGraphicsRectItem()
        self.cellHalo.setPen(_pen("#FFFFFF", 4.0))
        self.cellOutline = QtWidgets.QGraphicsRectItem()
        self.cellOutline.setPen(_pen(style.SELECTED, 2.0))
        for z, item in ((5, self.maskFill), (6, self.maskHatch), (9, self.cellHalo), (10, self.cellOutline),
                        (11, self.frame)):
            item.setZValue(z)
            self.vb.addItem(item, ignoreBounds=True)
        self.numbers = TextPool(self.vb, font=number_font, z=12)
        self.keyAxis = TurnableAxis("bottom", textPen=style.INK["key"], pen=style.MUTED)
        self.keyAxis.setStyle(tickFont=tick_font, tickLength=-3)
        self.keyAxis.linkToView(self.vb)
        self.shape = None
        self.placed = False


class HeadsGridPanel(ThemedTextMixin, Panel):
    object_name = "headsPanel"
    title = "Heads side by side"

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(560, 480)  # a dock opens wide enough for the pictures to be read

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

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        self.note = QtWidgets.QLabel(body)
        self.note.setObjectName("headsNote")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("padding: 0 4px;")
        layout.addWidget(self.note)

        # No layout object in the scene: ``_layout`` places every item for the canvas size now, on every
        # resize, so the heads always share the room equally (a grid layout kept stale column widths).
        self.canvas = pg.GraphicsView(body)
        self.canvas.setObjectName("headsCanvas")
        self.canvas.setMinimumSize(120, 90)
        layout.addWidget(self.canvas, 1)

        self.info = QtWidgets.QLabel(body)
        self.info.setObjectName("headsInfo")
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        f = self.info.font()
        f.setPointSize(8)
        self.info.setFont(f)
        self.info.setStyleSheet("color: #333; padding: 0 4px;")
        layout.addWidget(self.info)

        tick_font = QtGui.QFont()
        tick_font.setPointSizeF(TICK_PT)
        self._tick_font = tick_font
        number_font = QtGui.QFont()
        number_font.setPointSizeF(TICK_PT)
        lut = style.colormap().getLookupTable(nPts=256)
        self.views = [_HeadView(h, tick_font, number_font, lut) for h in range(MAX_HEADS)]
        self.images = [v.image for v in self.views]
        # Query names: one axis at the left of each row of heatmaps (the rows are the same tokens in every head).
        self.queryAxes = []
        for _ in range(MAX_HEADS):
            axis = pg.AxisItem("left", textPen=style.INK["query"], pen=style.MUTED)
            axis.setSizePolicy(QtWidgets.QSizePolicy.Policy.Fixed, QtWidgets.QSizePolicy.Policy.Expanding)
            axis.setStyle(tickFont=tick_font, tickLength=-3)
            self.queryAxes.append(axis)
        self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=style.colormap(), interactive=False, width=10,
                                        label="weight", pen=style.FOREGROUND, colorMapMenu=False)
        self.colorbar.getAxis("right").setStyle(tickFont=tick_font)
        self.colorbar.setImageItem(self.images)
        self._metrics = QtGui.QFontMetricsF(tick_font)
        for item in (*self.queryAxes, self.colorbar,
                     *(part for v in self.views for part in (v.title, v.vb, v.keyAxis))):
            self.canvas.addItem(item)
            item.hide()

        scene = self.canvas.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)
        self.canvas.sigDeviceRangeChanged.connect(lambda *_: self._relayout())
        self.listen(self.session.headChanged, self._on_head_changed)

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
        width, height = float(max(1, rect.width())), float(max(1, rect.height()))
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
            if upright:
                v.keyAxis.set_turned(True, float(self._col_widths.max()))
            else:
                v.keyAxis.set_turned(False)
                v.keyAxis.setHeight(int(room["key"]))
            v.keyAxis.setGeometry(QtCore.QRectF(x, y + room["title"] + bh, bw, room["key"]))
            v.placed = True
        for r in range(rows):
            axis = self.queryAxes[r]
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
        n, m = result.n, result.n_keys
        self._measure(result)
        self._place(count)
        for h, v in enumerate(self.views[:count]):
            v.image.setImage(full.heads[h].weights, autoLevels=False, levels=(0.0, 1.0))
            if v.shape != (n, m):
                v.shape = (n, m)
                v.image.setRect(QtCore.QRectF(0, 0, m, n))
            v.cellHalo.setRect(QtCore.QRectF(selection.key, selection.query, 1, 1))
            v.cellOutline.setRect(QtCore.QRectF(selection.key, selection.query, 1, 1))
            v.frame.setRect(QtCore.QRectF(0, 0, m, n))
        self._update_mask(result, count)
        self._show_chosen()
        self._update_labels()

        if count == 1:
            self._note = ("There is one head. Raise “Heads” in the inputs panel to split attention into "
                          "several heads and see them side by side.",
                          "One head. Raise “Heads” in the inputs panel for more.")
        else:
            self._note = (f"{count} heads. Each head has its own W<sup>Q</sup>, W<sup>K</sup> and W<sup>V</sup>, "
                          "so each one spreads its attention its own way. Click a head to show it in every panel.",
                          f"{count} heads, each with its own W<sup>Q</sup>, W<sup>K</sup>, W<sup>V</sup>. "
                          "Click one to choose it.")
        hov = self.hover_cell_hij
        if hov is not None and hov[0] < count and hov[1] < n and hov[2] < m:
            self.hover_cell(*hov)
        else:
            self.hover_cell_hij = None
            self._show_selected_info()

    def _update_mask(self, result, count: int) -> None:
        blocked = ~result.allowed
        key = (blocked.shape, blocked.tobytes()) if blocked.any() else (blocked.shape, None)
        if key != self._mask_key:
            self._mask_key = key
            path = QtGui.QPainterPath()
            for i in np.flatnonzero(blocked.any(axis=1)):
                row = blocked[i].astype(np.int8)
                edges = np.flatnonzero(np.diff(np.concatenate(([0], row, [0]))))
                for a, b in zip(edges[::2], edges[1::2]):
                    path.addRect(QtCore.QRectF(float(a), float(i), float(b - a), 1.0))
            self._mask_path = path.simplified() if blocked.any() else path
            for v in self.views:
                v.maskFill.setPath(self._mask_path)
                v.maskHatch.setPath(self._mask_path)

    def _show_chosen(self) -> None:
        """Frame and title the chosen head; the others get a thin grey frame."""
        full = self._full
        if full is None:
            return
        chosen = self.session.head
        size = f"{TITLE_PT * self.theme.font_scale:g}pt"
        room = getattr(self, "_block", None)
        fm = getattr(self, "_title_metrics", None)
        for h, v in enumerate(self.views[:full.n_heads]):
            if h == chosen and full.n_heads > 1:
                words, color = (f"head {h + 1} · chosen", f"head {h + 1} ✓", f"{h + 1} ✓"), style.SELECTED
                v.frame.setPen(_pen(style.SELECTED, 4.0))
            else:
                words, color = (f"head {h + 1}", f"h{h + 1}", f"{h + 1}"), "#555555"
                v.frame.setPen(_pen(style.MUTED, 1.0))
            text = words[-1]
            for w in words:  # the longest that fits over its heatmap
                if room is None or fm is None or fm.horizontalAdvance(w) + 4 <= room[0] + room[1]:
                    text = w
                    break
            if h == chosen and full.n_heads > 1:
                text = f"<b>{text}</b>"
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
        if key == getattr(self, "_measured", None):
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
        if full is None or self._grid is None or getattr(self, "_measured", None) is None:
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
            v.keyAxis.setTicks([xt, []])
        for axis in self.queryAxes[:rows]:
            axis.setTicks([yt, []])
        # Numbers in the cells when they fit.
        number_w = fm.horizontalAdvance("0.00") + 6  # the numbers are written in the names' font
        fits = (px_x >= max(NUMBER_MIN_PX[0], number_w) and px_y >= max(NUMBER_MIN_PX[1], fm.height())
                and n * m <= MAX_NUMBERS)
        self.shown_numbers = 0
        for h, v in enumerate(self.views[:count]):
            if not fits:
                v.numbers.take(0)
                continue
            weights, allowed = full.heads[h].weights, full.heads[h].allowed
            cells = [(i, j) for i in range(n) for j in range(m) if allowed[i, j]]
            for item, (i, j) in zip(v.numbers.take(len(cells)), cells):
                w = float(weights[i, j])
                item.setText(style.fmt(w, 2), color="#FFFFFF" if w < 0.55 else "#111111")
                item.setPos(j + 0.5, i + 0.5)
            self.shown_numbers += len(cells)

    # ----- mouse --------------------------------------------------------------------------------------
    def cell_at(self, scene_pos) -> tuple | None:
        """(head, query i, key j) under a scene position, or None; a head's title counts as that head."""
        full = self._full
        if full is None or self._grid is None:
            return None
        for h, v in enumerate(self.views[:full.n_heads]):
            if v.title.sceneBoundingRect().contains(scene_pos):
                return h, None, None
            if not v.vb.sceneBoundingRect().contains(scene_pos):
                continue
            p = v.vb.mapSceneToView(scene_pos)
            n, m = full.heads[h].n, full.heads[h].n_keys
            if 0 <= p.x() < m and 0 <= p.y() < n:
                return h, int(p.y()), int(p.x())
            return h, None, None
        return None

    def scene_pos_of(self, h: int, i: int, j: int) -> QtCore.QPointF:
        """The scene position of the centre of cell (i, j) of head h."""
        return self.views[h].vb.mapViewToScene(QtCore.QPointF(j + 0.5, i + 0.5))

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
        qi, kj = style.INK["query"], style.INK["key"]
        masked = "" if result.allowed[i, j] else " (masked)"
        line = (f"{prefix}: head {h + 1}, <span style='color:{qi}'>query {i + 1} ‘{result.tokens[i]}’</span> → "
                f"<span style='color:{kj}'>key {j + 1} ‘{result.key_tokens[j]}’</span>: weight "
                f"<b>{style.fmt(w, 4)}</b>{masked}")
        legend = "Rows: queries (the token looking). Columns: keys (the token looked at). Colour: weight, 0 to 1."
        self._info = (f"{line}<br>{legend}", line)
        self.canvas.setToolTip(f"head {h + 1}: {arithmetic}")
        self._apply_texts()

    def _apply_texts(self) -> None:
        narrow = 0 < self.width() < 480
        for label, attr in ((self.note, "_note"), (self.info, "_info")):
            texts = getattr(self, attr, None)
            if texts is not None:
                label.setText(texts[1] if narrow else texts[0])

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._apply_texts()
        if self._full is not None and self.isVisible():
            self._relayout()

    def theme_changed(self, theme) -> None:
        for v in self.views:
            v.numbers.scale = theme.font_scale
        self._measured = None  # the room for the names changes with the text size

    def _on_mouse_moved(self, scene_pos) -> None:
        hit = self.cell_at(scene_pos)
        if hit is None or hit[1] is None:
            if self.hover_cell_hij is not None:
                self.hover_cell_hij = None
                self.hover_text = ""
                self._show_selected_info()
            return
        if hit != self.hover_cell_hij:
            self.hover_cell(*hit)

    def _on_mouse_clicked(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        hit = self.cell_at(ev.scenePos())
        if hit is None:
            return
        h, i, j = hit
        self.session.set_head(h)
        if i is not None:
            self.session.select(query=i, key=j)
