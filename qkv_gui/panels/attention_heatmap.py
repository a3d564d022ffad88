"""Attention weights, every pair: the n x m weight grid drawn as a heatmap, with a mask editor.

Rows are queries (the token that is looking), columns are keys (the token
being looked at; in cross-attention the keys come from the source sentence,
so the grid is n x m). Both axes carry the token names, thinned out when
crowded and complete again when you zoom in. The colours run from 0 to 1
(viridis, with a colour bar). A narrow "row sum" strip on the right shows
that every row adds up to 1; in the column-wise teaching mode a "column sum"
strip appears below and a note says the rows no longer add up to 1.

Masked cells are covered with light grey and a hatch that names the reason:
diagonal lines for the causal mask, upright lines for a padding key, a cross
for a cell blocked by hand. With masks, a "open keys" axis counts the keys
each row still shares its weight over; a row with no key left is marked in
red (its weights and output are 0). A small mode bar picks what a click does:
select a pair, block a cell, or mark a key as padding (a click on a key's
label works too); "Causal" switches the causal mask and "Clear" removes the
padding and blocked cells. Every edit is one undo step of the session.

The selected pair is outlined, hovering a cell shows its softmax arithmetic
(or why it is masked) and wheel zooms, dragging pans, a double-click or
"Reset view" shows all.
"""
from __future__ import annotations

import html
import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import explain, mask_view, views
from qkv_engine.attention import MASK_BLOCKED, MASK_CAUSAL, MASK_PADDING

from .. import style
from .base import Panel
from .lazy_axes import set_ticks
from .turned_axis import TurnableAxis, stand_upright
from .theming import TextPool, ThemedTextMixin

Qt = QtCore.Qt

#: A cell needs at least this many pixels (wide, tall) to hold its number.
NUMBER_MIN_PX = (30.0, 14.0)
#: Never write more cell numbers than this at once.
MAX_NUMBERS = 400
#: Token labels longer than this are shortened with an ellipsis.
LABEL_CHARS = 10
#: Colour of the masked-cell cover.
MASK_FILL = QtGui.QColor(226, 226, 226)  # opaque: a masked cell never shows the colour of 0
MASK_HATCH = QtGui.QColor(105, 105, 105)
#: The hatch of each mask reason: it carries the reason without colour.
MASK_PATTERN = {
    MASK_CAUSAL: Qt.BrushStyle.BDiagPattern,  # diagonal lines
    MASK_PADDING: Qt.BrushStyle.VerPattern,  # upright lines, like the column they cover
    MASK_BLOCKED: Qt.BrushStyle.DiagCrossPattern,  # a cross
}
#: A row with no key left: text and outline, and the fill of its row-sum cell.
WARN = "#B71C1C"
WARN_FILL = QtGui.QColor("#FDE3E3")
#: What a click on the grid does in each mode.
MODES = ("select", "block", "padding")
CROSS_CAUSAL_TIP = ("No causal mask in cross-attention: the two sentences have no shared order, "
                    "so every target token may look at every source token.")


def short_token(tok: str, limit: int = LABEL_CHARS) -> str:
    tok = tok.replace("\n", " ")
    return tok if len(tok) <= limit else tok[: limit - 1] + "…"


def mask_icon(kind: str, size: int = 16) -> QtGui.QIcon:
    """A small square in the look of a cell: the mode buttons double as the legend of the hatches."""
    pix = QtGui.QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    p = QtGui.QPainter(pix)
    cell = QtCore.QRectF(1.5, 1.5, size - 3, size - 3)
    open_colour = QtGui.QColor(style.colormap().map(0.45, mode="qcolor"))
    if kind == "select":
        p.fillRect(cell, open_colour)
        pen = QtGui.QPen(QtGui.QColor(style.SELECTED))
        pen.setWidthF(2.0)
        p.setPen(pen)
        p.drawRect(cell)
    elif kind == "causal":
        p.fillRect(cell, open_colour)
        tri = QtGui.QPolygonF([cell.topLeft(), cell.topRight(), cell.bottomRight()])
        path = QtGui.QPainterPath()
        path.addPolygon(tri)
        path.closeSubpath()
        p.fillPath(path, MASK_FILL)
        p.fillPath(path, QtGui.QBrush(MASK_HATCH, MASK_PATTERN[MASK_CAUSAL]))
        p.setPen(QtGui.QPen(MASK_HATCH))
        p.drawRect(cell)
    else:
        reason = MASK_BLOCKED if kind == "block" else MASK_PADDING
        p.fillRect(cell, MASK_FILL)
        p.fillRect(cell, QtGui.QBrush(MASK_HATCH, MASK_PATTERN[reason]))
        p.setPen(QtGui.QPen(MASK_HATCH))
        p.drawRect(cell)
    p.end()
    return QtGui.QIcon(pix)


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
        self.keys_upright = False  # the key names stand upright (too many to write across)
        self.y_tick_labels: list = []

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)

        top = QtWidgets.QHBoxLayout()
        top.setContentsMargins(4, 0, 0, 0)
        top.setSpacing(1)
        self.sumNote = QtWidgets.QLabel(body)
        self.sumNote.setObjectName("heatmapSumNote")
        self.sumNote.setWordWrap(True)
        top.addWidget(self.sumNote, 1)

        # The mask editor: what a click on the grid does, the causal switch and "Clear".
        self.mode = "select"
        bar_font = QtGui.QFont(self.font())
        bar_font.setPointSize(8)

        def tool(name, text, tip, kind=None, checkable=True):
            button = QtWidgets.QToolButton(body)
            button.setObjectName(name)
            button.setText(text)
            button.setToolTip(tip)
            button.setCheckable(checkable)
            button.setAutoRaise(True)
            button.setFont(bar_font)
            if kind is not None:
                button.setIcon(mask_icon(kind))
                button.setIconSize(QtCore.QSize(14, 14))
            top.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            return button

        self.modeButtons = {
            "select": tool("maskModeSelect", "Select",
                           "Select: click a cell to pick that query and key in every panel.", "select"),
            "block": tool("maskModeBlock", "Block",
                          "Block cells (cross hatch): click a cell to block it by hand; click it again to "
                          "open it.", "block"),
            "padding": tool("maskModePadding", "Padding",
                            "Padding (upright lines): click a cell or a key's name to mark that key as "
                            "padding. No query may look at a padding token.", "padding"),
        }
        self.modeGroup = QtWidgets.QButtonGroup(body)
        self.modeGroup.setExclusive(True)
        for name, button in self.modeButtons.items():
            self.modeGroup.addButton(button)
            button.clicked.connect(lambda _=False, m=name: self.set_mode(m))
        self.modeButtons["select"].setChecked(True)
        self.causalTip = ("Causal mask (diagonal lines): no token may look at a token that comes later. "
                          "Click to switch it on or off.")
        self.causalButton = tool("maskCausal", "Causal", self.causalTip, "causal")
        self.causalButton.clicked.connect(self._on_causal_clicked)
        self.clearButton = tool("maskClear", "Clear",
                                "Clear masks: open every padding key and blocked cell "
                                "(the causal option stays as it is).", checkable=False)
        self.clearButton.clicked.connect(lambda: self.session.clear_masks())

        self.resetButton = QtWidgets.QToolButton(body)
        self.resetButton.setObjectName("heatmapResetView")
        self.resetButton.setText("Reset view")
        self.resetButton.setToolTip("Show the whole grid again (or double-click the grid)")
        self.resetButton.setAutoRaise(True)
        self.resetButton.setFont(bar_font)
        self.resetButton.clicked.connect(self.reset_view)
        top.addSpacing(4)
        top.addWidget(self.resetButton, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)

        self.canvas = pg.GraphicsLayoutWidget(body)
        self.canvas.setObjectName("heatmapCanvas")
        self.canvas.ci.layout.setContentsMargins(2, 2, 4, 2)
        # key names stand upright when written across they would leave most columns unnamed
        self.plot = self.canvas.addPlot(axisItems={"bottom": TurnableAxis("bottom")}, enableMenu=False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.vb = self.plot.getViewBox()
        self.vb.invertY(True)
        self.vb.setDefaultPadding(0.0)
        tick_font = QtGui.QFont()
        tick_font.setPointSize(8)
        self._tick_font = tick_font
        self._metrics = QtGui.QFontMetricsF(tick_font)
        for name, role in (("left", "query"), ("bottom", "key")):
            axis = self.plot.getAxis(name)
            axis.setStyle(tickFont=tick_font, tickLength=-3, autoExpandTextSpace=True)
            axis.setTextPen(pg.mkPen(style.INK[role]))
            axis.label.setFont(tick_font)
        self._axis_titles = None
        # With masks: how many keys each row still shares its weight over.
        self.plot.showAxis("right")
        right = self.plot.getAxis("right")
        right.setStyle(tickFont=tick_font, tickLength=-3, autoExpandTextSpace=True)
        right.setTextPen(pg.mkPen(style.FOREGROUND))
        right.label.setFont(tick_font)
        right.setWidth(None)
        self.plot.hideAxis("right")
        self.openKeysShown = False
        self.open_key_labels: list = []
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
        self.colorbar.getAxis("left").label.setFont(tick_font)

        # Masked cells: a light grey cover with a dark hatch on top, so they never read as "small".
        # One hatch per reason (causal, padding, blocked by hand).
        self.maskFill = QtWidgets.QGraphicsPathItem()
        self.maskFill.setPen(QtGui.QPen(Qt.PenStyle.NoPen))
        self.maskFill.setBrush(QtGui.QBrush(MASK_FILL))
        self.maskFill.setZValue(5)
        self.plot.addItem(self.maskFill, ignoreBounds=True)
        self.maskHatches = {}
        for reason, pattern in MASK_PATTERN.items():
            item = QtWidgets.QGraphicsPathItem()
            item.setPen(QtGui.QPen(Qt.PenStyle.NoPen))
            item.setBrush(QtGui.QBrush(MASK_HATCH, pattern))
            item.setZValue(6)
            self.plot.addItem(item, ignoreBounds=True)
            self.maskHatches[reason] = item
        # Rows with no key left: their row-sum cell is filled and outlined in the warning colour.
        self.rowWarn = QtWidgets.QGraphicsPathItem()
        warn_pen = QtGui.QPen(QtGui.QColor(WARN))
        warn_pen.setWidthF(1.5)
        warn_pen.setCosmetic(True)
        self.rowWarn.setPen(warn_pen)
        self.rowWarn.setBrush(QtGui.QBrush(WARN_FILL))
        self.rowWarn.setZValue(7)
        self.plot.addItem(self.rowWarn, ignoreBounds=True)

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
        self.rowNotes = TextPool(self.plot, font=number_font, z=13)  # "no key left" across an empty row
        self.shown_row_notes: list = []  # [(row i, text)] drawn now

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
        """Width of a sum strip and the gap before it, in cell units, for a side of n cells."""
        width = max(0.75, 0.08 * n)
        return width, 0.3 * width

    def _column_mode(self, result) -> bool:
        return result.scenario.softmax_over != "keys"

    def _extent(self, result):
        n, m = result.n, result.n_keys
        sw, gap = self._strip(m)
        x1 = m + gap + sw
        if self._column_mode(result):
            sh, gap_y = self._strip(n)
            return x1, n + gap_y + sh
        return x1, n

    def reset_view(self) -> None:
        """Show the whole grid with its sum strips."""
        if self._result is None:
            return
        x1, y1 = self._extent(self._result)
        self.vb.setRange(xRange=(0, x1), yRange=(0, y1), padding=0.01)

    def hint_for(self, result) -> str | None:
        if result.n == 0:
            return self.empty_hint
        if result.n_keys == 0:
            return "Type a source sentence to see cross-attention."
        return None

    # ----- the mask editor ------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        """What a click on the grid does: "select" a pair, "block" a cell, or mark a key as "padding"."""
        if mode not in MODES:
            raise ValueError(f"mode: expected one of {MODES}, got {mode!r}")
        self.mode = mode
        self.modeButtons[mode].setChecked(True)
        viewport = self.canvas.viewport()
        if mode == "select":
            viewport.unsetCursor()
        else:
            viewport.setCursor(Qt.CursorShape.PointingHandCursor)

    def _on_causal_clicked(self, checked: bool) -> None:
        self.session.set_option(causal=bool(checked))

    def _sync_buttons(self, result) -> None:
        sc = result.scenario
        cross = sc.is_cross
        self.causalButton.setChecked(bool(sc.causal) and not cross)
        self.causalButton.setEnabled(not cross)
        self.causalButton.setToolTip(CROSS_CAUSAL_TIP if cross else self.causalTip)
        self.clearButton.setEnabled(bool(sc.padding or sc.blocked))

    # ----- filling ----------------------------------------------------------------------------------
    def show_result(self, result, selection):
        self._result = result
        self._selection = selection
        n, m = result.n, result.n_keys
        column_mode = self._column_mode(result)
        why = result.masked_by
        self._why = why
        self._open = mask_view.open_keys(result)
        self._empty_rows = np.flatnonzero(result.rows_without_keys)
        has_masks = bool(why.any())
        self._has_masks = has_masks

        self.image.setImage(result.weights, autoLevels=False, levels=(0.0, 1.0))
        self.image.setRect(QtCore.QRectF(0, 0, m, n))

        sw, gap = self._strip(m)
        row_sums = views.row_sums(result)
        self._row_sums = row_sums
        self.rowSumImage.setImage(row_sums.reshape(n, 1), autoLevels=False, levels=(0.0, 1.0))
        self.rowSumImage.setRect(QtCore.QRectF(m + gap, 0, sw, n))
        if column_mode:
            sh, gap_y = self._strip(n)
            col_sums = views.column_sums(result)
            self._col_sums = col_sums
            self.colSumImage.setImage(col_sums.reshape(1, m), autoLevels=False, levels=(0.0, 1.0))
            self.colSumImage.setRect(QtCore.QRectF(0, n + gap_y, m, sh))
            self.colSumImage.show()
        else:
            self._col_sums = None
            self.colSumImage.hide()
        self._note = self._sum_note(result, column_mode, has_masks, row_sums)
        self._apply_texts()

        self._update_mask(result, why)
        self._update_row_warn(result)
        self._update_selection(result, selection)
        self._update_axes(result, has_masks)
        self._sync_buttons(result)

        x1, y1 = self._extent(result)
        self.vb.setLimits(xMin=-0.05 * x1, xMax=1.05 * x1, yMin=-0.05 * y1, yMax=1.05 * y1,
                          minXRange=min(1.0, x1), minYRange=min(1.0, y1))
        self._measure_labels(result)
        view_key = (n, m, column_mode)
        if view_key != self._view_key:
            self._view_key = view_key
            self.reset_view()  # triggers _update_labels through sigRangeChanged
        self._update_labels()

        hover = self.hover_cell_ij
        if hover is not None and hover[0] < n and hover[1] < m:
            self.hover_cell(*hover)
        else:
            self._show_selected_info()

    def _sum_note(self, result, column_mode: bool, has_masks: bool, row_sums) -> tuple:
        """(wide, narrow) text above the grid: what the row sums say."""
        if column_mode:
            lo, hi = float(row_sums.min()), float(row_sums.max())
            return (
                f"<span style='color:{style.INK['key']}'><b>Softmax ran down the columns</b> (the classic bug): "
                f"columns add up to 1, the rows no longer do ({style.fmt(lo)} to {style.fmt(hi)}).</span>",
                f"<span style='color:{style.INK['key']}'><b>Column-wise softmax:</b> "
                f"rows no longer add up to 1.</span>",
            )
        empty = self._empty_rows
        if len(empty):
            if len(empty) == 1:
                tok = html.escape(short_token(result.tokens[int(empty[0])]))
                wide = (f"<b>Row '{tok}' has no key left.</b> All its weights are 0 and its output is the "
                        f"zero vector, so its row sum is 0, not 1.")
                narrow = f"<b>Row '{tok}' has no key left.</b>"
            else:
                wide = (f"<b>{len(empty)} rows have no key left.</b> All their weights are 0 and their outputs "
                        f"are zero vectors, so their row sums are 0, not 1.")
                narrow = f"<b>{len(empty)} rows have no key left.</b>"
            return tuple(f"<span style='color:{WARN}'>{t}</span>" for t in (wide, narrow))
        if has_masks:
            return ("Hatched cells are masked: their weight is exactly 0, not just small. "
                    "Each row shares its 1 over the keys left.",
                    "Masked: weight 0. Open keys add up to 1.")
        return ("Each row adds up to 1: all of a query's attention.", "Each row adds up to 1.")

    def _update_axes(self, result, has_masks: bool) -> None:
        """Axis titles (self- or cross-attention), the "open keys" axis, the head in the colour bar's title.
        The upright titles come in a long and a short form: the longest that fits the height is shown."""
        if result.scenario.is_cross:
            left = ("query i (target sentence)", "query i (target)", "query i")
            bottom = "key j (source sentence)"
        else:
            left = ("query i (row)", "query i")
            bottom = "key j (column)"
        bar = "weight" if result.n_heads <= 1 else f"weight, head {result.head + 1} of {result.n_heads}"
        right = (f"open keys (of {result.n_keys})", "open keys", "open") if has_masks else None
        key = (left, bottom, bar, right)
        if key == self._axis_titles:
            return
        self._axis_titles = key
        self._title_options = {"left": left, "right": right or ()}
        self._titles_shown = {}
        self.plot.getAxis("bottom").setLabel(bottom, color=style.INK["key"])
        self.colorbar.getAxis("left").setLabel(bar)
        self.openKeysShown = has_masks
        if has_masks:
            self.plot.showAxis("right")
        else:
            self.plot.hideAxis("right")
            self.open_key_labels = []
        self._fit_titles(max(1.0, self.vb.height()))

    def _fit_titles(self, h_px: float) -> None:
        """Give the upright axes the longest title that fits ``h_px`` pixels (the plot's height)."""
        colours = {"left": style.INK["query"], "right": style.FOREGROUND}
        for name, options in getattr(self, "_title_options", {}).items():
            if not options:
                continue
            axis = self.plot.getAxis(name)
            metrics = QtGui.QFontMetricsF(axis.label.font())
            text = next((t for t in options if metrics.horizontalAdvance(t) + 6 <= h_px), options[-1])
            if self._titles_shown.get(name) != text:
                self._titles_shown[name] = text
                axis.setLabel(text, color=colours[name])

    def _update_mask(self, result, why) -> None:
        key = (result.n, result.n_keys, why.tobytes() if why.any() else None)
        if key == self._mask_key:
            return
        self._mask_key = key

        def path_of(runs) -> QtGui.QPainterPath:
            """One closed rectangle per run, built from arrays in one go (fast for thousands of runs)."""
            if len(runs) == 0:
                return QtGui.QPainterPath()
            i, a, b = (runs[:, c].astype(np.float64) for c in range(3))
            xs = np.stack([a, b, b, a, a], axis=1).ravel()
            ys = np.stack([i, i, i + 1, i + 1, i], axis=1).ravel()
            connect = np.ones((len(runs), 5), dtype=bool)
            connect[:, -1] = False  # no line from one rectangle to the next
            return pg.arrayToQPath(xs, ys, connect=connect.ravel())

        self.maskFill.setPath(path_of(mask_view.mask_runs(why)))
        for reason, item in self.maskHatches.items():
            item.setPath(path_of(mask_view.mask_runs(why, reason)))

    def _update_row_warn(self, result) -> None:
        sw, gap = self._strip(result.n_keys)
        path = QtGui.QPainterPath()
        for i in self._empty_rows.tolist():
            path.addRect(QtCore.QRectF(result.n_keys + gap, float(i), sw, 1.0))
        self.rowWarn.setPath(path)

    def _update_selection(self, result, selection) -> None:
        n, m = result.n, result.n_keys
        i, j = selection.query, selection.key
        self.rowBand.setRect(QtCore.QRectF(0, i, m, 1))
        self.colBand.setRect(QtCore.QRectF(j, 0, 1, n))
        self.cellHalo.setRect(QtCore.QRectF(j, i, 1, 1))
        self.cellOutline.setRect(QtCore.QRectF(j, i, 1, 1))

    # ----- labels that depend on the zoom ---------------------------------------------------------
    def _visible(self, lo: float, hi: float, n: int):
        return max(0, int(math.floor(lo))), min(n, int(math.ceil(hi)))

    def _update_labels(self) -> None:
        result = self._result
        if result is None or result.n == 0 or result.n_keys == 0 or self._label_widths is None:
            return
        n, m = result.n, result.n_keys
        if len(self._label_widths) != m or len(self._open) != n:
            return  # mid-update: show_result measures the new labels and calls again
        (x0, x1), (y0, y1) = self.vb.viewRange()
        w_px = max(1.0, self.vb.width())
        h_px = max(1.0, self.vb.height())
        px_x = w_px / max(1e-9, x1 - x0)  # pixels per cell, across
        px_y = h_px / max(1e-9, y1 - y0)  # pixels per cell, down
        self._fit_titles(h_px)
        jx0, jx1 = self._visible(x0, x1, m)
        iy0, iy1 = self._visible(y0, y1, n)
        sw, gap = self._strip(m)
        column_mode = self._column_mode(result)
        line_h = self._metrics.height()

        # Token tick labels, thinned to a round step when they would overlap. Key names stand
        # upright when that names more columns than writing them across does.
        widest = float(self._label_widths[jx0:jx1].max()) if jx1 > jx0 else 0.0
        step_across = nice_step((widest + 8.0) / px_x)
        step_upright = nice_step((line_h + 2.0) / px_x)
        longest = max(float(self._label_widths.max()), self._metrics.horizontalAdvance("row sum"))
        span_y = max(1e-9, y1 - y0)

        def names(upright: bool, h: float) -> int:
            rows_step = nice_step((line_h + 2.0) * span_y / max(1.0, h))
            return -(-(jx1 - jx0) // (step_upright if upright else step_across)) + -(-(iy1 - iy0) // rows_step)

        turned = stand_upright(self.plot.getAxis("bottom"), h_px, longest, names)
        self.keys_upright = turned
        step_x = step_upright if turned else step_across
        step_y = nice_step((line_h + 2.0) / px_y)
        sum_label_x = m + gap + sw / 2
        xt = []
        for j in range((jx0 // step_x) * step_x, jx1, step_x):
            if j < jx0:
                continue
            needs = line_h + 2 if turned else (self._label_widths[j] + 50) / 2
            if abs((j + 0.5 - sum_label_x) * px_x) < needs:
                continue  # leave room for the "row sum" label
            xt.append((j + 0.5, self._x_labels[j]))
        sum_word = "row sum" if turned or sw * px_x >= self._metrics.horizontalAdvance("row sum") + 4 else "sum"
        xt.append((sum_label_x, sum_word))
        rows = [i for i in range((iy0 // step_y) * step_y, iy1, step_y) if i >= iy0]
        yt = [(i + 0.5, short_token(result.tokens[i])) for i in rows]
        if column_mode:
            sh, gap_y = self._strip(n)
            sum_label_y = n + gap_y + sh / 2
            yt = [t for t in yt if abs((t[0] - sum_label_y) * px_y) > line_h]
            yt.append((sum_label_y, "column sum" if self.plot.getAxis("left").width() > 60 else "col sum"))
        self.x_tick_labels, self.y_tick_labels = xt, yt
        self.x_step, self.y_step = step_x, step_y
        set_ticks(self.plot.getAxis("bottom"), [xt, []])
        set_ticks(self.plot.getAxis("left"), [yt, []])
        if self.openKeysShown:
            self.open_key_labels = [(i + 0.5, str(int(self._open[i]))) for i in rows]
            set_ticks(self.plot.getAxis("right"), [self.open_key_labels, []])

        # Numbers inside the cells, only when the cells are big enough.
        weights = result.weights
        allowed = result.allowed
        number_px = (max(NUMBER_MIN_PX[0], self._metrics.horizontalAdvance("0.00") + 2),
                     max(NUMBER_MIN_PX[1], line_h))
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

        # The sums, written in their strips when there is room; a row with no key left says 0 in red.
        empty = set(self._empty_rows.tolist())
        strip_fits = sw * px_x >= number_px[0] and px_y >= number_px[1]
        if strip_fits:
            items = self.rowSumTexts.take(len(rows))
            for item, i in zip(items, rows):
                s = float(self._row_sums[i])
                if i in empty:
                    item.setText("0", color=WARN)
                else:
                    item.setText(style.fmt(s, 2), color="#FFFFFF" if s < 0.55 else "#111111")
                item.setPos(m + gap + sw / 2, i + 0.5)
        else:
            self.rowSumTexts.take(0)
        if column_mode:
            sh, gap_y = self._strip(n)
        if column_mode and sh * px_y >= number_px[1] and px_x >= number_px[0]:
            cols = [j for j in range((jx0 // step_x) * step_x, jx1, step_x) if j >= jx0]
            items = self.colSumTexts.take(len(cols))
            for item, j in zip(items, cols):
                s = float(self._col_sums[j])
                item.setText(style.fmt(s, 2), color="#FFFFFF" if s < 0.55 else "#111111")
                item.setPos(j + 0.5, n + gap_y + sh / 2)
        else:
            self.colSumTexts.take(0)

        # Across a row with no key left, when it is tall enough: what happened to it.
        notes = []
        if empty and px_y >= line_h + 2:
            lo, hi = max(0.0, x0), min(float(m), x1)
            room = (hi - lo) * px_x
            for i in sorted(empty):
                if not (iy0 <= i < iy1) or len(notes) >= 40:
                    continue
                for text in ("no key left: weights 0, output 0", "no key left", "none left"):
                    if self._metrics.horizontalAdvance(text) + 10 <= room:
                        notes.append((i, text))
                        break
        items = self.rowNotes.take(len(notes))
        for item, (i, text) in zip(items, notes):
            item.fill = pg.mkBrush(255, 255, 255, 235)
            item.border = pg.mkPen(WARN)
            item.setText(text, color=WARN)
            item.setPos((max(0.0, x0) + min(float(m), x1)) / 2, i + 0.5)
        self.shown_row_notes = notes

    # ----- mouse --------------------------------------------------------------------------------------
    def cell_at(self, scene_pos) -> tuple | None:
        """The (query i, key j) cell under a scene position, or None outside the grid."""
        result = self._result
        if result is None or result.n == 0 or result.n_keys == 0:
            return None
        if not self.vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = self.vb.mapSceneToView(scene_pos)
        x, y = p.x(), p.y()
        if not (0 <= x < result.n_keys and 0 <= y < result.n):
            return None
        return int(y), int(x)

    def scene_pos_of(self, i: int, j: int) -> QtCore.QPointF:
        """The scene position of the centre of cell (i, j)."""
        return self.vb.mapViewToScene(QtCore.QPointF(j + 0.5, i + 0.5))

    def key_label_at(self, scene_pos) -> int | None:
        """The key j whose name (on the bottom axis) is under a scene position, or None."""
        result = self._result
        if result is None or result.n_keys == 0:
            return None
        if not self.plot.getAxis("bottom").sceneBoundingRect().contains(scene_pos):
            return None
        x = self.vb.mapSceneToView(scene_pos).x()
        return int(x) if 0 <= x < result.n_keys else None

    def scene_pos_of_key_label(self, j: int) -> QtCore.QPointF:
        """A scene position on key j's name, below the grid."""
        axis = self.plot.getAxis("bottom").sceneBoundingRect()
        x = self.vb.mapViewToScene(QtCore.QPointF(j + 0.5, 0)).x()
        return QtCore.QPointF(x, axis.top() + min(8.0, axis.height() / 2))

    def _cell_text(self, i: int, j: int) -> str:
        """The softmax arithmetic of an open cell, or why a masked cell is masked."""
        result = self._result
        if result.allowed[i, j]:
            return explain.weight(result, i, j).text
        text = explain.scaled(result, i, j).text + "."
        if not result.allowed[i].any():
            text += " " + mask_view.row_note(result, i)
        return text

    def hover_cell(self, i: int, j: int) -> None:
        """Show cell (i, j)'s value and softmax arithmetic, as when the mouse rests on it."""
        self.hover_cell_ij = (i, j)
        self.hover_text = self._cell_text(i, j)
        self._set_info(i, j, self.hover_text, prefix="Under the mouse")

    def _show_selected_info(self) -> None:
        result, sel = self._result, self._selection
        if result is None or sel is None or result.n == 0 or result.n_keys == 0:
            return
        self._set_info(sel.query, sel.key, self._cell_text(sel.query, sel.key), prefix="Selected")

    def _set_info(self, i: int, j: int, text: str, prefix: str) -> None:
        result = self._result
        w = float(result.weights[i, j])
        tag = "" if result.allowed[i, j] else f" (masked: {mask_view.REASON_NAME[int(self._why[i, j])]})"
        head = (f"{prefix}: query {i + 1} '{result.tokens[i]}' → key {j + 1} '{result.key_tokens[j]}', "
                f"weight {style.fmt(w, 4)}{tag}")
        lines = [head, text]
        row_open = result.allowed[i]
        if row_open.any() and not row_open.all():
            lines.append(f"Row '{result.tokens[i]}': {mask_view.row_note(result, i)}")
        self._info = ("\n".join(lines), head)
        self.canvas.setToolTip("\n".join(lines))
        self._apply_texts()

    def _apply_texts(self) -> None:
        """Full sentences when the panel is wide; one short line each when it is narrow
        (the arithmetic stays in the tooltip). Narrow, the mode buttons show only their icons."""
        narrow = 0 < self.width() < 480
        if narrow != getattr(self, "_narrow", None):
            self._narrow = narrow
            look = (Qt.ToolButtonStyle.ToolButtonIconOnly if narrow
                    else Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            for button in (*self.modeButtons.values(), self.causalButton):
                button.setToolButtonStyle(look)
            self.resetButton.setText("Reset" if narrow else "Reset view")
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
        for pool in (self.numbers, self.rowSumTexts, self.colSumTexts, self.rowNotes):
            pool.scale = theme.font_scale
        self._measure_labels(getattr(self, "_result", None))

    def _measure_labels(self, result) -> None:
        """The key names as shown (padding keys marked) and their widths in the tick font as drawn now
        (the theme scales it)."""
        if result is None:
            return
        font = self.plot.getAxis("bottom").style.get("tickFont") or self._tick_font
        padding = result.scenario.padding
        key = (result.key_tokens, padding, font.pointSizeF())
        if key == getattr(self, "_measured", None):
            return
        self._measured = key
        self._metrics = QtGui.QFontMetricsF(font)
        half = int(math.ceil(self._metrics.height() / 2))  # the colour bar's top and bottom numbers stick out
        self.canvas.ci.layout.setContentsMargins(2, max(2, half), 4, max(2, half - 4))
        pad = set(padding)
        self._x_labels = [short_token(t) + (" (pad)" if j in pad else "") for j, t in enumerate(result.key_tokens)]
        self._label_widths = np.array([self._metrics.horizontalAdvance(t) for t in self._x_labels])

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
        pos = ev.scenePos()
        cell = self.cell_at(pos)
        if cell is not None:
            i, j = cell
            if self.mode == "block":
                self.session.toggle_blocked(i, j)
            elif self.mode == "padding":
                self.session.toggle_padding(j)
            else:
                self.session.select(query=i, key=j)
            return
        j = self.key_label_at(pos)
        if j is not None:
            if self.mode == "padding":
                self.session.toggle_padding(j)
            elif self.mode == "select":
                self.session.select(key=j)
