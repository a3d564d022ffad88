"""Attention weights, every pair: the n x n weight grid drawn as a heatmap.

Rows are queries (the token that is looking), columns are keys (the token
being looked at); both axes carry the token names, thinned out when crowded
and complete again when you zoom in. The colours run from 0 to 1 (viridis,
with a colour bar). A narrow "row sum" strip on the right shows that every
row adds up to 1; in the column-wise teaching mode a "column sum" strip
appears below and a note says the rows no longer add up to 1. Masked cells
are covered with a grey hatch, the selected pair is outlined, hovering a
cell shows its softmax arithmetic and clicking it selects that pair in every
panel. Wheel zooms, dragging pans, a double-click or "Reset view" shows all.
"""
from __future__ import annotations

import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import explain, views

from .. import style
from .base import Panel
from .lazy_axes import set_ticks
from .theming import TextPool, ThemedTextMixin

Qt = QtCore.Qt

#: A cell needs at least this many pixels (wide, tall) to hold its number.
NUMBER_MIN_PX = (30.0, 14.0)
#: Never write more cell numbers than this at once.
MAX_NUMBERS = 400
#: Token labels longer than this are shortened with an ellipsis.
LABEL_CHARS = 10
#: Colour of the masked-cell cover.
MASK_FILL = QtGui.QColor(200, 200, 200, 215)
MASK_HATCH = QtGui.QColor(95, 95, 95)


def short_token(tok: str, limit: int = LABEL_CHARS) -> str:
    tok = tok.replace("\n", " ")
    return tok if len(tok) <= limit else tok[: limit - 1] + "…"


def nice_step(raw: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... that is at least ``raw``."""
    if raw <= 1:
        return 1
    mag = 10 ** int(math.floor(math.log10(raw)))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return int(m * mag)
    return int(10 * mag)


class HeatmapPanel(ThemedTextMixin, Panel):
    object_name = "heatmapPanel"
    title = "Attention weights, every pair"

    # ----- building -------------------------------------------------------------------------
    def build(self, body):
        self._result = None
        self._selection = None
        self._mask_key = None
        self._view_key = None
        self._label_widths = None
        self.hover_cell_ij = None  # (i, j) under the mouse, or None
        self.hover_text = ""  # explain.weight(...).text of the cell under the mouse
        self.shown_numbers = 0  # how many cell numbers are written now
        self.x_tick_labels: list = []  # [(position, text)] on the key axis now
        self.y_tick_labels: list = []

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)

        top = QtWidgets.QHBoxLayout()
        top.setContentsMargins(4, 0, 0, 0)
        self.sumNote = QtWidgets.QLabel(body)
        self.sumNote.setObjectName("heatmapSumNote")
        self.sumNote.setWordWrap(True)
        top.addWidget(self.sumNote, 1)
        self.resetButton = QtWidgets.QToolButton(body)
        self.resetButton.setObjectName("heatmapResetView")
        self.resetButton.setText("Reset view")
        self.resetButton.setToolTip("Show the whole grid again (or double-click the grid)")
        self.resetButton.setAutoRaise(True)
        self.resetButton.clicked.connect(self.reset_view)
        top.addWidget(self.resetButton, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)

        self.canvas = pg.GraphicsLayoutWidget(body)
        self.canvas.setObjectName("heatmapCanvas")
        self.canvas.ci.layout.setContentsMargins(2, 2, 4, 2)
        self.plot = self.canvas.addPlot()
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.vb = self.plot.getViewBox()
        self.vb.invertY(True)
        self.vb.setDefaultPadding(0.0)
        tick_font = QtGui.QFont()
        tick_font.setPointSize(8)
        self._tick_font = tick_font
        self._metrics = QtGui.QFontMetricsF(tick_font)
        for name, role, text in (("left", "query", "query i (row)"), ("bottom", "key", "key j (column)")):
            axis = self.plot.getAxis(name)
            axis.setStyle(tickFont=tick_font, tickLength=-3, autoExpandTextSpace=True)
            axis.setTextPen(pg.mkPen(style.INK[role]))
            axis.setLabel(text, color=style.INK[role])  # no size in the HTML: the label's font follows the theme
            axis.label.setFont(tick_font)
        self.plot.getAxis("left").setWidth(None)

        cmap = style.colormap()
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        # Narrow strips for the sums, coloured on the same 0..1 scale as the weights.
        self.rowSumImage = pg.ImageItem(axisOrder="row-major")
        self.colSumImage = pg.ImageItem(axisOrder="row-major")
        for item in (self.image, self.rowSumImage, self.colSumImage):
            item.setLevels((0.0, 1.0))
        self.plot.addItem(self.rowSumImage)
        self.plot.addItem(self.colSumImage)
        self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=cmap, interactive=False, width=10,
                                        label="weight", pen=style.FOREGROUND, colorMapMenu=False)
        self.colorbar.setImageItem([self.image, self.rowSumImage, self.colSumImage], insert_in=self.plot)
        self.colorbar.getAxis("right").setStyle(tickFont=tick_font)

        # Masked cells: a light grey cover with a dark hatch on top, so they never read as "small".
        self.maskFill = QtWidgets.QGraphicsPathItem()
        self.maskFill.setPen(QtGui.QPen(Qt.PenStyle.NoPen))
        self.maskFill.setBrush(QtGui.QBrush(MASK_FILL))
        self.maskHatch = QtWidgets.QGraphicsPathItem()
        self.maskHatch.setPen(QtGui.QPen(Qt.PenStyle.NoPen))
        self.maskHatch.setBrush(QtGui.QBrush(MASK_HATCH, Qt.BrushStyle.BDiagPattern))
        for z, item in ((5, self.maskFill), (6, self.maskHatch)):
            item.setZValue(z)
            self.plot.addItem(item, ignoreBounds=True)

        # The selected query row, key column and cell.
        def rect_item(color, width, z, dash=False):
            pen = QtGui.QPen(QtGui.QColor(color))
            pen.setWidthF(width)
            pen.setCosmetic(True)
            if dash:
                pen.setStyle(Qt.PenStyle.DashLine)
            item = QtWidgets.QGraphicsRectItem()
            item.setPen(pen)
            item.setBrush(QtGui.QBrush(Qt.BrushStyle.NoBrush))
            item.setZValue(z)
            self.plot.addItem(item, ignoreBounds=True)
            return item

        self.rowBand = rect_item(style.INK["query"], 1.5, 8, dash=True)
        self.colBand = rect_item(style.INK["key"], 1.5, 8, dash=True)
        self.cellHalo = rect_item("#FFFFFF", 5.0, 9)
        self.cellOutline = rect_item(style.SELECTED, 2.5, 10)

        number_font = QtGui.QFont()
        number_font.setPointSize(8)
        self.numbers = TextPool(self.plot, font=number_font, z=12)
        self.rowSumTexts = TextPool(self.plot, font=number_font, z=12)
        self.colSumTexts = TextPool(self.plot, font=number_font, z=12)

        layout.addWidget(self.canvas, 1)

        self.info = QtWidgets.QLabel(body)
        self.info.setObjectName("heatmapInfo")
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        f = self.info.font()
        f.setPointSize(8)
        self.info.setFont(f)
        self.info.setStyleSheet("color: #333; padding: 0 4px;")
        layout.addWidget(self.info)

        scene = self.canvas.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)
        self.vb.sigRangeChanged.connect(lambda *_: self._update_labels())
        self.vb.sigResized.connect(lambda *_: self._update_labels())

    # ----- geometry of the picture ------------------------------------------------------------
    def _strip(self, n: int):
        """Width of a sum strip and the gap before it, in cell units."""
        width = max(0.75, 0.08 * n)
        return width, 0.3 * width

    def _column_mode(self, result) -> bool:
        return result.scenario.softmax_over != "keys"

    def _extent(self, result):
        n = result.n
        sw, gap = self._strip(n)
        x1 = n + gap + sw
        y1 = n + gap + sw if self._column_mode(result) else n
        return x1, y1

    def reset_view(self) -> None:
        """Show the whole grid with its sum strips."""
        if self._result is None:
            return
        x1, y1 = self._extent(self._result)
        self.vb.setRange(xRange=(0, x1), yRange=(0, y1), padding=0.01)

    # ----- filling ----------------------------------------------------------------------------------
    def show_result(self, result, selection):
        self._result = result
        self._selection = selection
        n = result.n
        column_mode = self._column_mode(result)

        self.image.setImage(result.weights, autoLevels=False, levels=(0.0, 1.0))
        self.image.setRect(QtCore.QRectF(0, 0, n, n))

        sw, gap = self._strip(n)
        row_sums = views.row_sums(result)
        self._row_sums = row_sums
        self.rowSumImage.setImage(row_sums.reshape(n, 1), autoLevels=False, levels=(0.0, 1.0))
        self.rowSumImage.setRect(QtCore.QRectF(n + gap, 0, sw, n))
        if column_mode:
            col_sums = views.column_sums(result)
            self._col_sums = col_sums
            self.colSumImage.setImage(col_sums.reshape(1, n), autoLevels=False, levels=(0.0, 1.0))
            self.colSumImage.setRect(QtCore.QRectF(0, n + gap, n, sw))
            self.colSumImage.show()
            lo, hi = float(row_sums.min()), float(row_sums.max())
            self._note = (
                f"<span style='color:{style.INK['key']}'><b>Softmax ran down the columns</b> (the classic bug): "
                f"columns add up to 1, the rows no longer do ({style.fmt(lo)} to {style.fmt(hi)}).</span>",
                f"<span style='color:{style.INK['key']}'><b>Column-wise softmax:</b> "
                f"rows no longer add up to 1.</span>",
            )
        else:
            self._col_sums = None
            self.colSumImage.hide()
            self._note = ("Each row adds up to 1: all of a query's attention.", "Each row adds up to 1.")
        self._apply_texts()

        self._update_mask(result)
        self._update_selection(result, selection)

        x1, y1 = self._extent(result)
        self.vb.setLimits(xMin=-0.05 * x1, xMax=1.05 * x1, yMin=-0.05 * y1, yMax=1.05 * y1,
                          minXRange=min(1.0, x1), minYRange=min(1.0, y1))
        self._measure_labels(result)
        view_key = (n, column_mode)
        if view_key != self._view_key:
            self._view_key = view_key
            self.reset_view()  # triggers _update_labels through sigRangeChanged
        self._update_labels()

        if self.hover_cell_ij is not None and max(self.hover_cell_ij) < n:
            self.hover_cell(*self.hover_cell_ij)
        else:
            self._show_selected_info()

    def _update_mask(self, result) -> None:
        blocked = ~result.allowed
        key = (result.n, blocked.tobytes()) if blocked.any() else (result.n, None)
        if key == self._mask_key:
            return
        self._mask_key = key
        path = QtGui.QPainterPath()
        if blocked.any():
            for i in np.flatnonzero(blocked.any(axis=1)):
                row = blocked[i].astype(np.int8)
                edges = np.flatnonzero(np.diff(np.concatenate(([0], row, [0]))))
                for a, b in zip(edges[::2], edges[1::2]):
                    path.addRect(QtCore.QRectF(float(a), float(i), float(b - a), 1.0))
            path = path.simplified()
        self.maskFill.setPath(path)
        self.maskHatch.setPath(path)

    def _update_selection(self, result, selection) -> None:
        n = result.n
        i, j = selection.query, selection.key
        self.rowBand.setRect(QtCore.QRectF(0, i, n, 1))
        self.colBand.setRect(QtCore.QRectF(j, 0, 1, n))
        self.cellHalo.setRect(QtCore.QRectF(j, i, 1, 1))
        self.cellOutline.setRect(QtCore.QRectF(j, i, 1, 1))

    # ----- labels that depend on the zoom ---------------------------------------------------------
    def _visible(self, lo: float, hi: float, n: int):
        return max(0, int(math.floor(lo))), min(n, int(math.ceil(hi)))

    def _update_labels(self) -> None:
        result = self._result
        if result is None or result.n == 0 or self._label_widths is None:
            return
        n = result.n
        (x0, x1), (y0, y1) = self.vb.viewRange()
        w_px = max(1.0, self.vb.width())
        h_px = max(1.0, self.vb.height())
        px_x = w_px / max(1e-9, x1 - x0)  # pixels per cell, across
        px_y = h_px / max(1e-9, y1 - y0)  # pixels per cell, down
        jx0, jx1 = self._visible(x0, x1, n)
        iy0, iy1 = self._visible(y0, y1, n)
        sw, gap = self._strip(n)
        column_mode = self._column_mode(result)
        tokens = result.tokens

        # Token tick labels, thinned to a round step when they would overlap.
        widest = float(self._label_widths[jx0:jx1].max()) if jx1 > jx0 else 0.0
        step_x = nice_step((widest + 8.0) / px_x)
        step_y = nice_step((self._metrics.height() + 2.0) / px_y)
        sum_label_x = n + gap + sw / 2
        xt = []
        for j in range((jx0 // step_x) * step_x, jx1, step_x):
            if j < jx0:
                continue
            if abs((j + 0.5 - sum_label_x) * px_x) < (self._label_widths[j] + 50) / 2:
                continue  # leave room for the "row sum" label
            xt.append((j + 0.5, short_token(tokens[j])))
        sum_word = "row sum" if sw * px_x >= self._metrics.horizontalAdvance("row sum") + 4 else "sum"
        xt.append((sum_label_x, sum_word))
        yt = [(i + 0.5, short_token(tokens[i])) for i in range((iy0 // step_y) * step_y, iy1, step_y) if i >= iy0]
        if column_mode:
            sum_label_y = n + gap + sw / 2
            yt = [t for t in yt if abs((t[0] - sum_label_y) * px_y) > self._metrics.height()]
            yt.append((sum_label_y, "column sum" if self.plot.getAxis("left").width() > 60 else "col sum"))
        self.x_tick_labels, self.y_tick_labels = xt, yt
        self.x_step, self.y_step = step_x, step_y
        set_ticks(self.plot.getAxis("bottom"), [xt, []])
        set_ticks(self.plot.getAxis("left"), [yt, []])

        # Numbers inside the cells, only when the cells are big enough.
        weights = result.weights
        allowed = result.allowed
        number_px = (max(NUMBER_MIN_PX[0], self._metrics.horizontalAdvance("0.00") + 2),
                     max(NUMBER_MIN_PX[1], self._metrics.height()))
        fits = px_x >= number_px[0] and px_y >= number_px[1]
        count = (jx1 - jx0) * (iy1 - iy0)
        if fits and count <= MAX_NUMBERS:
            cells = [(i, j) for i in range(iy0, iy1) for j in range(jx0, jx1) if allowed[i, j]]
            items = self.numbers.take(len(cells))
            for item, (i, j) in zip(items, cells):
                w = float(weights[i, j])
                item.setText(style.fmt(w, 2), color="#FFFFFF" if w < 0.55 else "#111111")
                item.setPos(j + 0.5, i + 0.5)
            self.shown_numbers = len(cells)
        else:
            self.numbers.take(0)
            self.shown_numbers = 0

        # The sums, written in their strips when there is room.
        strip_fits = sw * px_x >= number_px[0] and px_y >= number_px[1]
        if strip_fits:
            rows = list(range(iy0, iy1, step_y))
            items = self.rowSumTexts.take(len(rows))
            for item, i in zip(items, rows):
                s = float(self._row_sums[i])
                item.setText(style.fmt(s, 2), color="#FFFFFF" if s < 0.55 else "#111111")
                item.setPos(n + gap + sw / 2, i + 0.5)
        else:
            self.rowSumTexts.take(0)
        if column_mode and sw * px_y >= number_px[1] and px_x >= number_px[0]:
            cols = list(range(jx0, jx1, step_x))
            items = self.colSumTexts.take(len(cols))
            for item, j in zip(items, cols):
                s = float(self._col_sums[j])
                item.setText(style.fmt(s, 2), color="#FFFFFF" if s < 0.55 else "#111111")
                item.setPos(j + 0.5, n + gap + sw / 2)
        else:
            self.colSumTexts.take(0)

    # ----- mouse --------------------------------------------------------------------------------------
    def cell_at(self, scene_pos) -> tuple | None:
        """The (query i, key j) cell under a scene position, or None outside the grid."""
        result = self._result
        if result is None or result.n == 0:
            return None
        if not self.vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = self.vb.mapSceneToView(scene_pos)
        x, y = p.x(), p.y()
        if not (0 <= x < result.n and 0 <= y < result.n):
            return None
        return int(y), int(x)

    def scene_pos_of(self, i: int, j: int) -> QtCore.QPointF:
        """The scene position of the centre of cell (i, j)."""
        return self.vb.mapViewToScene(QtCore.QPointF(j + 0.5, i + 0.5))

    def hover_cell(self, i: int, j: int) -> None:
        """Show cell (i, j)'s value and softmax arithmetic, as when the mouse rests on it."""
        result = self._result
        ex = explain.weight(result, i, j)
        self.hover_cell_ij = (i, j)
        self.hover_text = ex.text
        self._set_info(i, j, ex.text, prefix="Under the mouse")

    def _show_selected_info(self) -> None:
        result, sel = self._result, self._selection
        if result is None or sel is None or result.n == 0:
            return
        ex = explain.weight(result, sel.query, sel.key)
        self._set_info(sel.query, sel.key, ex.text, prefix="Selected")

    def _set_info(self, i: int, j: int, text: str, prefix: str) -> None:
        result = self._result
        tokens = result.tokens
        w = float(result.weights[i, j])
        head = (f"{prefix}: query {i + 1} '{tokens[i]}' → key {j + 1} '{tokens[j]}', weight "
                f"{style.fmt(w, 4)}" + ("" if result.allowed[i, j] else " (masked)"))
        self._info = (f"{head}\n{text}", head)
        self.canvas.setToolTip(f"{head}\n{text}")
        self._apply_texts()

    def _apply_texts(self) -> None:
        """Full sentences when the panel is wide; one short line each when it is narrow
        (the arithmetic stays in the tooltip)."""
        narrow = 0 < self.width() < 480
        note = getattr(self, "_note", None)
        if note is not None:
            self.sumNote.setText(note[1] if narrow else note[0])
        info = getattr(self, "_info", None)
        if info is not None:
            self.info.setText(info[1] if narrow else info[0])

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._apply_texts()

    def theme_changed(self, theme) -> None:
        for pool in (self.numbers, self.rowSumTexts, self.colSumTexts):
            pool.scale = theme.font_scale
        self._measure_labels(getattr(self, "_result", None))

    def _measure_labels(self, result) -> None:
        """Widths of the token names in the tick font as drawn now (the theme scales it)."""
        if result is None:
            return
        font = self.plot.getAxis("bottom").style.get("tickFont") or self._tick_font
        key = (result.tokens, font.pointSizeF())
        if key == getattr(self, "_measured", None):
            return
        self._measured = key
        self._metrics = QtGui.QFontMetricsF(font)
        half = int(math.ceil(self._metrics.height() / 2))  # the colour bar's top and bottom numbers stick out
        self.canvas.ci.layout.setContentsMargins(2, max(2, half), 4, max(2, half - 4))
        self._label_widths = np.array([self._metrics.horizontalAdvance(short_token(t)) for t in result.tokens])

    def _on_mouse_moved(self, scene_pos) -> None:
        cell = self.cell_at(scene_pos)
        if cell is None:
            if self.hover_cell_ij is not None:
                self.hover_cell_ij = None
                self.hover_text = ""
                self._show_selected_info()
            return
        if cell != self.hover_cell_ij:
            self.hover_cell(*cell)

    def _on_mouse_clicked(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        if ev.double():
            self.reset_view()
            return
        cell = self.cell_at(ev.scenePos())
        if cell is not None:
            self.session.select(query=cell[0], key=cell[1])
