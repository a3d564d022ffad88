"""Model view: every layer and head of a trained model at once, as a grid of small weight maps.

Rows are layers ("layer 1" at the top), columns are heads; each tile is that head's n x n attention
weights (rows: queries, columns: keys), like BertViz's model view. All tiles are ONE cell-grid item: the
weights are tiled into one array with empty (NaN) gaps between the tiles. Each tile is coloured by the
session's colour scale, "auto" meaning each tile from 0 to its own largest weight, so that every head's
pattern shows; masked cells get the mask look of every grid. The head the other panels show is outlined,
with the selected query's row; a knocked-out head is veiled and crossed.

Hovering a tile says where the selected query looks most in that head ("layer 3, head 5: 'it' looks most
at 'animal' (0.41)"); clicking a tile steps into that head (``headClicked(layer, head)``, 0-based, and
``session.select_model_head``). The panel reads ``session.model_view_data`` (None: no model is open, and
a hint says so) and follows ``session.modelViewChanged``.
"""
from __future__ import annotations

import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import mask_view, views

from ...look import colours, style
from ..base import Panel
from ...drawing.cell_grid import CellGridItem, Outline
from ...drawing.token_labels import label_step, short_token
from ...labels.captions import info_label, note_label, show_texts
from ...drawing.colour_scale import NAMES as SCALE_NAMES
from ...drawing.lazy_axes import set_ticks
from ..themed_text import ThemedTextMixin

Qt = QtCore.Qt
#: A tile is drawn with at most this many cells a side: a longer sentence's tiles show block maxima.
MAX_TILE_CELLS = 48

TICK_PT = 8.0
#: Empty cells between two tiles: about a sixth of a tile, at least one.
GAP_PART = 6


def tile_gap(n: int) -> int:
    """Empty cells between two tiles of n x n cells."""
    return max(1, int(math.ceil(n / GAP_PART)))


class ModelViewPanel(ThemedTextMixin, Panel):
    object_name = "modelViewPanel"
    title = "Model view: every layer and head"
    follows_colours = True
    empty_hint = "Open a trained model (File → Open model…) to see every layer and head of it here."
    headClicked = QtCore.Signal(int, int)  # (layer, head), 0-based: a tile was clicked

    dock_size = (560, 420)

    # ----- building ---------------------------------------------------------------------------------
    def build(self, body):
        self._data = None
        self._shape = None  # (L, H, n, m, gap) drawn now (n, m: cells a tile side, after shrinking)
        self._factor = 1  # how many tokens a drawn cell stands for (long sentences are shrunk)
        self._built = None  # what the tiles were drawn from: (weights, allowed, colour scale)
        self.hover_tile = None  # (layer, head) under the mouse, or None
        self.hover_text = ""
        self.layer_labels: list = []  # [(position, text)] on the layer axis now
        self.head_labels: list = []
        self._note = None  # the note: (wide, narrow) wordings
        self._info = None  # the line about a head: (wide, narrow) wordings

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        self.note = note_label(body, "modelViewNote")
        layout.addWidget(self.note)

        self.canvas = pg.GraphicsLayoutWidget(body)
        self.canvas.setObjectName("modelViewCanvas")
        self.canvas.ci.layout.setContentsMargins(2, 2, 6, 2)
        self.plot = self.canvas.addPlot(enableMenu=False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setMouseEnabled(False, False)
        self.vb = self.plot.getViewBox()
        self.vb.invertY(True)
        self.vb.setDefaultPadding(0.0)
        tick_font = QtGui.QFont()
        tick_font.setPointSizeF(TICK_PT)
        self._metrics = QtGui.QFontMetricsF(tick_font)
        self.plot.hideAxis("bottom")
        self.plot.showAxis("top")
        for name in ("left", "top"):
            axis = self.plot.getAxis(name)
            axis.setStyle(tickFont=tick_font, tickLength=0, autoExpandTextSpace=True)
            axis.setPen(pg.mkPen(None))
            colours.paint(axis, self.colours, text="foreground")
        self.grid = CellGridItem("weights")
        self.plot.addItem(self.grid)
        self.grid.cellHovered.connect(self._on_hover)
        self.grid.cellLeft.connect(self._on_left)
        self.grid.cellClicked.connect(self._on_click)
        layout.addWidget(self.canvas, 1)

        self.info = info_label(body, "modelViewInfo", self.colours)
        layout.addWidget(self.info)

        self.listen(self.session.modelViewChanged, self._on_change)
        self.listen(self.session.colourScaleChanged, self._on_change)
        self.vb.sigResized.connect(lambda *_: self._fit())

    # ----- filling ----------------------------------------------------------------------------------
    def hint_for(self, result) -> str | None:
        data = self.session.model_view_data
        if data is None:
            return self.empty_hint
        if np.asarray(data.weights).size == 0:
            return "Type a sentence to see every layer and head."
        return None

    def show_result(self, result, selection) -> None:
        data = self.session.model_view_data
        self._data = data
        mode = self.session.colour_scale
        built = (id(data.weights), id(data.allowed), mode)
        if built != self._built:  # a new trace or colour scale: draw the tiles again (a new head needs not)
            self._built = built
            self._build_tiles(data, mode)
        L, H, n, m, gap = self._shape
        self.grid.set_veils([self.tile_rect(l, h) for l, h in sorted(data.knocked_out) if l < L and h < H])
        self.query = min(selection.query, len(data.tokens) - 1)
        layer, head = self._current()
        current = self.tile_rect(layer, head)
        row = QtCore.QRectF(current.left(), current.top() + self.query // self._factor, m, 1)
        self.grid.set_outlines({
            "query": Outline(row, self.colours.ink["query"], 1.5, dashed=True),
            "current": Outline(current, self.colours.selected, 2.5, halo=True),
        })
        self._fit()
        scale = {"auto": "each tile from 0 to its own largest weight", "absolute": "0 to 1 in every tile",
                 "row": "each row to its own largest weight"}[mode]
        self._note = (f"{L} layers × {H} heads. Each tile: one head's weights (rows: queries, columns: keys), "
                      f"colours {scale}. Click a tile to step into that head.",
                      f"{L} × {H} heads; colours: {SCALE_NAMES[mode]}. Click one to step in.")
        self._apply_texts()
        if self.grid.hovered is not None:
            self._on_hover(*self.grid.hovered)
        else:
            self.hover_tile = None
            self.hover_text = ""
            self._show_current()

    def _build_tiles(self, data, mode: str) -> None:
        """Every head's weights tiled into one grid; tiles of a long sentence shrunk to at most
        ``MAX_TILE_CELLS`` cells a side, each cell the largest weight of its block."""
        weights = np.asarray(data.weights, dtype=np.float64)
        L, H, n, m = weights.shape
        self._factor = factor = max(1, -(-max(n, m) // MAX_TILE_CELLS))
        allowed = np.asarray(data.allowed, dtype=bool)
        if factor > 1:
            weights = views.pooled(np.where(allowed, weights, 0.0), factor)
            allowed = views.pooled(allowed.astype(np.float64), factor, fill=0.0) > 0
        n, m = weights.shape[2:]
        gap = tile_gap(max(n, m))
        self._shape = (L, H, n, m, gap)
        # auto: each tile from 0 to its own largest weight (every head's pattern shows)
        levels = views.colour_levels(weights, mode, per_matrix=True)
        high = views.tile_grid(np.broadcast_to(levels.high, weights.shape), gap, fill=1.0)
        why = mask_view.reasons_from_allowed(allowed)
        masked = views.tile_grid(np.broadcast_to(why, weights.shape), gap, fill=0).astype(np.int8)
        self.grid.setData(views.tile_grid(weights, gap), (0.0, high), masked_by=masked if why.any() else None)

    def _current(self) -> tuple:
        L, H = np.asarray(self._data.weights).shape[:2]
        return min(max(0, int(self._data.layer)), L - 1), min(max(0, int(self._data.head)), H - 1)

    # ----- tiles --------------------------------------------------------------------------------------
    def tile_rect(self, layer: int, head: int) -> QtCore.QRectF:
        """Where tile (layer, head) lies, in cells of the grid."""
        _L, _H, n, m, gap = self._shape
        return QtCore.QRectF(head * (m + gap), layer * (n + gap), m, n)

    def tile_at(self, i: int, j: int) -> tuple | None:
        """(layer, head, query row, key column) of grid cell (i, j), or None in a gap."""
        L, H, n, m, gap = self._shape
        layer, row = divmod(i, n + gap)
        head, col = divmod(j, m + gap)
        if row >= n or col >= m or layer >= L or head >= H:
            return None
        return layer, head, row, col

    def scene_pos_of_tile(self, layer: int, head: int) -> QtCore.QPointF:
        """The scene position of the middle of tile (layer, head)."""
        return self.grid.mapToScene(self.tile_rect(layer, head).center())

    def tile_words(self, layer: int, head: int) -> str:
        """'layer 3, head 5: 'it' looks most at 'animal' (0.41)' for the selected query."""
        data, i = self._data, self.query
        keys, top = views.most_attended(np.asarray(data.weights)[layer:layer + 1, head:head + 1], i)
        j, w = int(keys[0, 0]), float(top[0, 0])
        text = (f"layer {layer + 1}, head {head + 1}: '{short_token(data.tokens[i])}' looks most at "
                f"'{short_token(data.tokens[j])}' ({style.fmt(w, 2)})")
        if (layer, head) in data.knocked_out:
            text += " (knocked out: its output is set to zero)"
        return text

    def linking_words(self) -> str:
        """Which heads give the selected key the most weight from the selected query."""
        data, i = self._data, self.query
        j = min(self.session.selection.key, len(data.tokens) - 1)
        best = views.strongest_heads(data.weights, i, j)
        where = ", ".join(f"layer {l + 1} head {h + 1} ({style.fmt(w, 2)})" for l, h, w in best)
        return (f"'{short_token(data.tokens[i])}' \u2192 '{short_token(data.tokens[j])}' is strongest in {where}.")

    # ----- names of layers and heads ---------------------------------------------------------------
    def _fit(self) -> None:
        """Square cells, as large as the view allows, the grid in its top left corner (by the names)."""
        if self._shape is None:
            return
        rows, cols = self.grid.values.shape
        w_px, h_px = max(1.0, self.vb.width()), max(1.0, self.vb.height())
        px = min(w_px / cols, h_px / rows)
        self.vb.setRange(xRange=(0, w_px / px), yRange=(0, h_px / px), padding=0)
        self._update_labels()

    def _update_labels(self) -> None:
        if self._shape is None or self._data is None:
            return
        L, H, n, m, gap = self._shape
        px_x, px_y = self.grid.cell_px()
        if px_x <= 0 or px_y <= 0:
            return
        fm = self._metrics
        tile_w, tile_h = (m + gap) * px_x, (n + gap) * px_y
        # the longest names that fit a tile's width (heads) or height (layers), thinned when even the shortest
        # do not
        head_forms = [lambda h: f"head {h}", lambda h: f"h{h}", lambda h: f"{h}"]
        form = next((f for f in head_forms if fm.horizontalAdvance(f(H)) + 4 <= tile_w), head_forms[-1])
        step = label_step((fm.horizontalAdvance(form(H)) + 4) / tile_w)
        self.head_labels = [(h * (m + gap) + m / 2, form(h + 1)) for h in range(0, H, step)]
        layer_step = label_step((fm.height() + 1) / tile_h)
        self.layer_labels = [(l * (n + gap) + n / 2, f"layer {l + 1}") for l in range(0, L, layer_step)]
        set_ticks(self.plot.getAxis("top"), [self.head_labels, []])
        set_ticks(self.plot.getAxis("left"), [self.layer_labels, []])

    # ----- words and the mouse ---------------------------------------------------------------------
    def _show_current(self) -> None:
        layer, head = self._current()
        text = self.tile_words(layer, head)
        linking = self.linking_words()
        self._info = (f"Shown in every panel: {text}.\n{linking}", f"{text}\n{linking}")
        self.canvas.setToolTip(text)
        self._apply_texts()

    def _on_hover(self, i: int, j: int) -> None:
        tile = self.tile_at(i, j)
        if tile is None:
            return
        layer, head = tile[:2]
        self.hover_tile = (layer, head)
        self.hover_text = self.tile_words(layer, head)
        self._info = (f"Under the mouse: {self.hover_text}. Click to step into this head.", self.hover_text)
        self.canvas.setToolTip(self.hover_text)
        self._apply_texts()

    def _on_left(self) -> None:
        self.hover_tile = None
        self.hover_text = ""
        if self._data is not None and not self.showing_hint():
            self._show_current()

    def _on_click(self, i: int, j: int) -> None:
        tile = self.tile_at(i, j)
        if tile is None:
            return
        layer, head = tile[:2]
        self.headClicked.emit(layer, head)
        self.session.select_model_head(layer, head)

    def _apply_texts(self) -> None:
        show_texts(self.width(), ((self.note, self._note), (self.info, self._info)))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._apply_texts()

    def theme_changed(self, theme) -> None:
        self.grid.set_theme_scale(theme.font_scale, theme.line_scale)
        font = QtGui.QFont()
        font.setPointSizeF(TICK_PT * theme.font_scale)
        self._metrics = QtGui.QFontMetricsF(font)
