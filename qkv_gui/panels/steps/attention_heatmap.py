"""Attention weights, every pair: the n x m weight grid drawn as a heatmap, with a mask editor.

Rows are queries (the token that is looking), columns are keys (the token
being looked at; in cross-attention the keys come from the source sentence,
so the grid is n x m). Both axes carry the token names, in a smaller font
when that names them all, else thinned out (hovering a cell names its row and
column) and complete again when you zoom in. The colours (viridis, with a
colour bar) follow the session's colour scale, chosen here: 0 to 1, auto (0
to the largest weight shown) or per row, and the colour bar says which. A
narrow "row sum" strip on the right shows that every row adds up to 1; in
the column-wise teaching mode a "column sum" strip appears below and a note
says the rows no longer add up to 1.

The grid and the strips are cell-grid items (``items.CellGridItem``).
Masked cells are covered with light grey and a hatch that names the reason:
diagonal lines for the causal mask, upright lines for a padding key, a cross
for a cell blocked by hand. With masks, a "open keys" axis counts the keys
each row still shares its weight over; a row with no key left is marked in
red (its weights and output are 0). A small mode bar picks what a click does:
select a pair, block a cell, or mark a key as padding (a click on a key's
label works too); "Causal" switches the causal mask and "Clear" removes the
padding and blocked cells. Every edit is one undo step of the session. A new
sentence or preset puts the click back to "select".

With a trained model open and the session's word view on ("Whole words, not pieces" in the Trained model
box), the grid shows words instead of pieces: ``qkv_engine.word_weights`` of the head's weights (attention
to a word is the sum over its pieces, from a word the mean; the note above the grid says so, WORD_RULE), a
cell hatched when no piece of its row may look at any piece of its column. The selection stays in pieces:
a word is drawn selected when it holds the selected piece, and clicking a word selects its first piece.

The selected pair is outlined; the cells the training target asks for ("Learn the weights") get a
dashed outline in the target colour. Hovering a cell shows its softmax arithmetic
(or why it is masked) and wheel zooms, dragging pans, a double-click or
"Reset view" shows all.
"""
from __future__ import annotations

import html
import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import WORD_RULE, explain, mask_view, views, word_mask, word_weights

from ...look import colours, style
from ...labels.changed_text import set_text, set_tooltip
from ...labels.kept_focus import set_enabled
from ..base import _BASE_FONT, Panel
from ...state.session import Selection
from ...drawing.cell_grid import CellGridItem, Outline
from ...look.colour_tables import colour_map
from ...drawing.token_labels import label_step, short_token
from ...look.mask_look import mask_icon
from ...labels.captions import info_label
from ...drawing.colour_scale import ColourScaleButton, bar_titles, place_bar, show_on_bar
from ...drawing.target_look import show_target
from ...drawing.lazy_axes import set_axis_title, set_ticks
from ...labels.steady_box import steady_box
from ...drawing.turned_axis import TurnableAxis, stand_upright
from ..themed_text import ThemedTextMixin
from ...drawing.text_pool import TextPool

Qt = QtCore.Qt

#: Point size of the token names; they may shrink down to TICK_MIN_PT when that names every token.
TICK_PT = 8.0
TICK_MIN_PT = 6.5
#: Row sums that differ by less than this are the same sums on screen (their strip is not coloured again).
SUM_TOLERANCE = 1e-12
#: What a click on the grid does in each mode.
MODES = ("select", "block", "padding")
WORDS_NOTE = ("<i>Words, not pieces:</i> " + WORD_RULE + " Clicking a word selects its first piece.",
              "<i>Words:</i> to a word = sum of its pieces, from a word = mean.")


class WordResult:
    """A head's AttentionResult seen in words (the heatmap's word view): what the heatmap reads of a result,
    with ``weights = word_weights(result.weights, words)`` (m x m), the words' texts as the tokens, and a
    word cell open when any piece of its row may look at any piece of its column."""

    def __init__(self, result, words):
        self.pieces = result
        self.words = words
        self.scenario = result.scenario
        self.head, self.n_heads = result.head, result.n_heads
        self.weights = word_weights(result.weights, self.words)
        self.allowed = word_mask(result.allowed, self.words)
        self.masked_by = mask_view.reasons_from_allowed(self.allowed)
        self.rows_without_keys = ~self.allowed.any(axis=1)
        self.tokens = self.key_tokens = tuple(w.text for w in self.words)
        self.n = self.n_keys = len(self.words)

    def word_of(self, piece: int) -> int:
        return next((a for a, w in enumerate(self.words) if piece in w.pieces), 0)

    def selection(self, selection) -> Selection:
        """The word cell that holds the selected pieces."""
        return Selection(self.word_of(selection.query), self.word_of(selection.key))

    def cell_text(self, a: int, b: int) -> str:
        """How cell (a, b) is made from the pieces, in a sentence."""
        wa, wb = self.words[a], self.words[b]

        def pieces(w) -> str:
            return " + ".join(f"'{self.pieces.tokens[i]}'" for i in w.pieces)
        return (f"Word '{wa.text}' ({pieces(wa)}) looks at word '{wb.text}' ({pieces(wb)}) with weight "
                f"{style.fmt(self.weights[a, b], 4)}: the sum of the weights to the {len(wb.pieces)} "
                f"piece{'s' if len(wb.pieces) != 1 else ''} of '{wb.text}', averaged over the "
                f"{len(wa.pieces)} piece{'s' if len(wa.pieces) != 1 else ''} of '{wa.text}'.")


CROSS_CAUSAL_TIP = ("No causal mask in cross-attention: the two sentences have no shared order, "
                    "so every target token may look at every source token.")


class HeatmapPanel(ThemedTextMixin, Panel):
    object_name = "heatmapPanel"
    title = "Attention weights, every pair"
    follows_colours = True

    # ----- building -------------------------------------------------------------------------
    def build(self, body):
        self._result = None
        self._in_words = None  # the result in words (WordResult) while the word view is on
        self._selection = None
        self._view_key = None
        self._label_widths = None
        self._levels = None  # views.ColourLevels of the weights shown
        self._tick_pt = TICK_PT  # the names' point size now (at theme scale 1)
        self._rects = None  # the rectangles the images were last placed in
        self._note = None  # the sums note: (wide, narrow) wordings
        self._info = None  # the line about a cell: (wide, narrow) wordings; wide None until first shown
        self._info_full = None  # makes the wide wording
        self._narrow = None  # (narrow, fairly narrow): the width the texts and buttons were last set for
        self._measured = None  # (key names, padding, font size) the key names were last measured for
        self._title_options: dict = {}  # axis -> the titles it may show, longest first
        self._titles_shown: dict = {}  # axis -> the title it shows
        self._titles_fitted = None  # what the titles shown were fitted to
        self._labels_placed = None  # what the names and notes on the grid were last placed for
        self._sums_shown = None  # (row sums, top level) the row-sum strip shows
        self._limits = None  # the zoom limits set on the view
        sc = self.session.scenario
        # (tokens, key tokens, preset): a new one puts the click back to "select"
        self._document = (sc.tokens, sc.key_tokens, self.session.preset_name)
        self.hover_cell_ij = None  # (i, j) under the mouse, or None
        self.hover_text = ""  # explain.weight(...).text of the cell under the mouse
        self.x_tick_labels: list = []  # [(position, text)] on the key axis now
        self.keys_upright = False  # the key names stand upright (too many to write across)
        self.y_tick_labels: list = []

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)

        top = QtWidgets.QHBoxLayout()
        top.setContentsMargins(4, 0, 0, 0)
        top.setSpacing(1)
        # The note has a line of its own under the buttons: beside them it wrapped a word a line.
        self.sumNote = QtWidgets.QLabel(body)
        self.sumNote.setObjectName("heatmapSumNote")
        self.sumNote.setWordWrap(True)
        self.sumNote.setContentsMargins(4, 0, 4, 0)

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
                button.setIcon(mask_icon(kind, palette=self.colours))
                button.setIconSize(QtCore.QSize(14, 14))
                button.setProperty("qkvMaskIcon", kind)
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

        self.colourScaleButton = ColourScaleButton(self.session, body, bar_font)
        top.addSpacing(4)
        top.addWidget(self.colourScaleButton, 0, Qt.AlignmentFlag.AlignTop)

        self.resetButton = QtWidgets.QToolButton(body)
        self.resetButton.setObjectName("heatmapResetView")
        self.resetButton.setText("Reset view")
        self.resetButton.setToolTip("Show the whole grid again (or double-click the grid)")
        self.resetButton.setAutoRaise(True)
        self.resetButton.setFont(bar_font)
        self.resetButton.clicked.connect(self.reset_view)
        top.addSpacing(4)
        top.addWidget(self.resetButton, 0, Qt.AlignmentFlag.AlignTop)
        top.addStretch(1)
        layout.addLayout(top)
        layout.addWidget(steady_box(self.sumNote))

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
        tick_font.setPointSizeF(TICK_PT)
        self._tick_font = tick_font
        self._metrics = QtGui.QFontMetricsF(tick_font)
        for name, role in (("left", "query"), ("bottom", "key")):
            axis = self.plot.getAxis(name)
            axis.setStyle(tickFont=tick_font, tickLength=-3, autoExpandTextSpace=True)
            colours.paint(axis, self.colours, pen="foreground", text=f"ink_{role}")
            axis.label.setFont(tick_font)
        self._axis_titles = None
        # With masks: how many keys each row still shares its weight over.
        self.plot.showAxis("right")
        right = self.plot.getAxis("right")
        right.setStyle(tickFont=tick_font, tickLength=-3, autoExpandTextSpace=True)
        colours.paint(right, self.colours, pen="foreground", text="foreground")
        right.label.setFont(tick_font)
        right.setWidth(None)
        self.plot.hideAxis("right")
        self.openKeysShown = False
        self.open_key_labels: list = []
        self.plot.getAxis("left").setWidth(None)

        # The weights, and narrow strips for the sums coloured on the same scale, as cell grids. Masked cells
        # get the one mask look of the grids (grey, a hatch per reason), so they never read as "small".
        self.image = CellGridItem("weights")
        self.rowSumImage = CellGridItem("weights")
        self.colSumImage = CellGridItem("weights")
        for item in (self.image, self.rowSumImage, self.colSumImage):
            self.plot.addItem(item)
        self.image.cellHovered.connect(self.hover_cell)
        self.image.cellLeft.connect(self._on_cell_left)
        self.image.cellClicked.connect(self._on_cell_clicked)
        self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=colour_map("weights", self.colours),
                                        interactive=False, width=10, label="weight", colorMapMenu=False)
        colours.paint(self.colorbar, self.colours, table="weights")
        place_bar(self.colorbar, self.plot)
        self.colorbar.getAxis("right").setStyle(tickFont=tick_font, hideOverlappingLabels=False)
        self.colorbar.getAxis("left").label.setFont(tick_font)

        # Rows with no key left: their row-sum cell is filled and outlined in the warning colour, with a red 0.
        self.rowWarn = QtWidgets.QGraphicsPathItem()
        warn_pen = QtGui.QPen()
        warn_pen.setWidthF(1.5)
        warn_pen.setCosmetic(True)
        self.rowWarn.setPen(warn_pen)
        colours.paint(self.rowWarn, self.colours, pen="no_keys_ink", brush="no_keys_fill")
        self.rowWarn.setZValue(7)
        self.plot.addItem(self.rowWarn, ignoreBounds=True)

        number_font = QtGui.QFont()
        number_font.setPointSize(8)
        self.rowWarnTexts = TextPool(self.plot, font=number_font, z=12)
        self.rowNotes = TextPool(self.plot, font=number_font, z=13)  # "no key left" across an empty row
        self.shown_row_notes: list = []  # [(row i, text)] drawn now

        layout.addWidget(self.canvas, 1)

        self.info = info_label(body, "heatmapInfo")
        self.info.setTextFormat(Qt.TextFormat.PlainText)  # a token such as <s> is text, not a tag
        layout.addWidget(steady_box(self.info))  # its weight changes at each edit; its size seldom

        # clicks on the cells come from the grid; the scene tells of double-clicks (show all) and key names
        self.canvas.scene().sigMouseClicked.connect(self._on_scene_clicked)
        self.canvas.viewport().installEventFilter(self)  # (the grid's tooltip is written out when asked for)
        self.listen(self.session.colourScaleChanged, self._on_change)
        self.listen(self.session.scenarioChanged, self._on_scenario_changed)
        self.listen(self.session.trainTargetChanged, self._on_target)
        self.listen(self.session.wordViewChanged, self._on_change)
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
        # (Qt's setChecked and setEnabled do nothing for the state a button has; a button the user toggled
        # is set back to the session's choice here)
        self.causalButton.setChecked(bool(sc.causal) and not cross)
        set_enabled(self.causalButton, not cross)
        set_tooltip(self.causalButton, CROSS_CAUSAL_TIP if cross else self.causalTip)
        set_enabled(self.clearButton, bool(sc.padding or sc.blocked))  # (its own click greys it out)

    # ----- filling ----------------------------------------------------------------------------------
    def _words_of(self, result):
        """The result in words when the session's word view is on for this model's sentence, else None."""
        words = self.session.words_shown
        if words is None or result.scenario.is_cross or tuple(self.session.model_trace.tokens) != result.tokens:
            self._in_words = None
            return None
        kept = self._in_words  # made once per result and words: a new selection keeps it
        if kept is None or kept.pieces is not result or kept.words is not words:
            kept = self._in_words = WordResult(result, words)
        return kept

    def show_result(self, result, selection):
        in_words = self._words_of(result)
        if in_words is not None:
            result, selection = in_words, in_words.selection(selection)
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

        levels = views.colour_levels(result.weights, self.session.colour_scale)
        self._levels = levels
        self.image.setData(result.weights, (0.0, levels.high), masked_by=why if has_masks else None)

        # The sums, on the weights' scale (a row with no key left is covered in red, with a red 0, on top).
        sw, gap = self._strip(m)
        row_sums = views.row_sums(result)
        self._row_sums = row_sums
        # most edits leave every row adding up to 1 (give or take the last bit): the strip is coloured again
        # only when a sum moves by more than any colour or number shown could tell
        sums = (row_sums, levels.high)
        if (self._sums_shown is None or not np.array_equal(self._sums_shown[1], sums[1])
                or self._sums_shown[0].shape != row_sums.shape
                or not np.allclose(self._sums_shown[0], row_sums, rtol=0.0, atol=SUM_TOLERANCE)):
            self._sums_shown = sums
            self.rowSumImage.setData(row_sums.reshape(n, 1), (0.0, levels.high))
        if column_mode:
            sh, gap_y = self._strip(n)
            col_sums = views.column_sums(result)
            self._col_sums = col_sums
            self.colSumImage.setData(col_sums.reshape(1, m), (0.0, levels.high if levels.mode != "row" else 1.0))
            self.colSumImage.show()
        else:
            self._col_sums = None
            self.colSumImage.hide()
        rects = (QtCore.QRectF(0, 0, m, n), QtCore.QRectF(m + gap, 0, sw, n),
                 QtCore.QRectF(0, n + gap_y, m, sh) if column_mode else None)
        if rects != self._rects:
            self._rects = rects
            self.image.setRect(rects[0])
            self.rowSumImage.setRect(rects[1])
            if column_mode:
                self.colSumImage.setRect(rects[2])
        self._note = self._sum_note(result, column_mode, has_masks, row_sums)  # set with the info line below
        if in_words is not None:
            self._note = tuple(f"{note}<br>{words}" for note, words in zip(self._note, WORDS_NOTE))

        self._update_row_warn(result)
        self._update_selection(result, selection)
        show_target(self.image, self.session.train_target if in_words is None else None)
        self._update_axes(result, has_masks)
        self._sync_buttons(result)

        x1, y1 = self._extent(result)
        if (x1, y1) != self._limits:
            self._limits = (x1, y1)
            self.vb.setLimits(xMin=-0.05 * x1, xMax=1.05 * x1, yMin=-0.05 * y1, yMax=1.05 * y1,
                              minXRange=min(1.0, x1), minYRange=min(1.0, y1))
        self._measure_labels(result)
        view_key = (n, m, column_mode)
        if view_key != self._view_key:
            self._view_key = view_key
            self.reset_view()  # triggers _update_labels through sigRangeChanged
        self._update_labels()

        hover = self.image.hovered  # the cell under the mouse now, if any (never one it has left)
        if hover is not None:
            self.hover_cell(*hover)
        else:
            self.hover_cell_ij = None
            self.hover_text = ""
            self._show_selected_info()

    def _sum_note(self, result, column_mode: bool, has_masks: bool, row_sums) -> tuple:
        """(wide, narrow) text above the grid: what the row sums say."""
        if column_mode:
            lo, hi = float(row_sums.min()), float(row_sums.max())
            key_ink = self.colours.ink["key"]
            return (
                f"<span style='color:{key_ink}'><b>Softmax ran down the columns</b> (the classic bug): "
                f"columns add up to 1, the rows no longer do ({style.fmt(lo)} to {style.fmt(hi)}).</span>",
                f"<span style='color:{key_ink}'><b>Column-wise softmax:</b> "
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
            return tuple(f"<span style='color:{self.colours.no_keys_ink}'>{t}</span>" for t in (wide, narrow))
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
        titles = bar_titles(self._levels)
        if result.n_heads > 1:
            head = f", head {result.head + 1} of {result.n_heads}"
            titles = (titles[0] + head, titles[-2] + head, titles[0], *titles[-2:])
        show_on_bar(self.colorbar, self._levels)
        right = (f"open keys (of {result.n_keys})", "open keys", "open") if has_masks else None
        key = (left, bottom, titles, right)
        if key == self._axis_titles:
            return
        self._axis_titles = key
        self._title_options = {"left": left, "right": right or (), "bar": titles}
        self._titles_shown = {}
        self._titles_fitted = None
        set_axis_title(self.plot.getAxis("bottom"), bottom, color=self.colours.ink["key"])
        self.openKeysShown = has_masks
        if has_masks:
            self.plot.showAxis("right")
        else:
            self.plot.hideAxis("right")
            self.open_key_labels = []
        self._fit_titles(max(1.0, self.vb.height()))

    def _fit_titles(self, h_px: float) -> None:
        """Give the upright axes the longest title that fits ``h_px`` pixels (the plot's height)."""
        axes = {name: self.colorbar.getAxis("left") if name == "bar" else self.plot.getAxis(name)
                for name in self._title_options}
        key = (h_px, tuple(axis.label.font().key() for axis in axes.values()))
        if key == self._titles_fitted:
            return
        self._titles_fitted = key
        ink = {"left": self.colours.ink["query"], "right": self.colours.foreground, "bar": self.colours.foreground}
        for name, options in self._title_options.items():
            if not options:
                continue
            axis = self.colorbar.getAxis("left") if name == "bar" else self.plot.getAxis(name)
            metrics = QtGui.QFontMetricsF(axis.label.font())
            # none fits (a short plot): no title rather than a cut one (the tooltip and the chooser say it)
            text = next((t for t in options if metrics.horizontalAdvance(t) + 6 <= h_px), "")
            if self._titles_shown.get(name) != text:
                self._titles_shown[name] = text
                set_axis_title(axis, text, color=ink[name])

    def _update_row_warn(self, result) -> None:
        sw, gap = self._strip(result.n_keys)
        path = QtGui.QPainterPath()
        for i in self._empty_rows.tolist():
            path.addRect(QtCore.QRectF(result.n_keys + gap, float(i), sw, 1.0))
        self.rowWarn.setPath(path)

    def _update_selection(self, result, selection) -> None:
        """The selected query's row and key's column in dashed role colours, the pair's cell outlined."""
        n, m = result.n, result.n_keys
        i, j = selection.query, selection.key
        self.image.set_outlines({
            "row": Outline(QtCore.QRectF(0, i, m, 1), self.colours.ink["query"], 1.5, dashed=True),
            "column": Outline(QtCore.QRectF(j, 0, 1, n), self.colours.ink["key"], 1.5, dashed=True),
            "cell": Outline(QtCore.QRectF(j, i, 1, 1), self.colours.selected, 2.5, halo=True),
        })

    # ----- labels that depend on the zoom ---------------------------------------------------------
    def _visible(self, lo: float, hi: float, n: int):
        return max(0, int(math.floor(lo))), min(n, int(math.ceil(hi)))

    def _fit_tick_font(self, rows: int, px_x: float, px_y: float) -> None:
        """Names in TICK_PT, or in TICK_MIN_PT when only the smaller size names every token in view (rows
        of ``px_y`` pixels, columns of ``px_x``). Going back to the larger size needs a little room to spare,
        so that a size on the edge does not flip back and forth."""
        scale = self.theme.font_scale
        widths = self._label_widths / (self._tick_pt * scale)  # per point of font size

        def all_named(pt: float, slack: float = 1.0) -> bool:
            line = QtGui.QFontMetricsF(self._sized(pt)).height() + 2.0
            keys = line <= px_x or float(widths.max()) * pt * scale + 8.0 <= px_x
            return line * slack <= px_y and keys

        want = TICK_PT
        if not all_named(TICK_PT, 1.08 if self._tick_pt < TICK_PT else 1.0) and all_named(TICK_MIN_PT):
            want = TICK_MIN_PT
        if want == self._tick_pt:
            return
        self._tick_pt = want
        for name in ("left", "bottom", "right"):
            axis = self.plot.getAxis(name)
            axis.setStyle(tickFont=self._sized(want))
            axis.setData(_BASE_FONT, want)  # what the theme scales from (see Panel._scale_items)
            axis.setData(_BASE_FONT + 1, want * scale)
        self._measure_labels(self._result)

    def _sized(self, pt: float) -> QtGui.QFont:
        """The names' font at ``pt`` points times the theme's scale."""
        font = QtGui.QFont(self._tick_font)
        font.setPointSizeF(pt * self.theme.font_scale)
        return font

    @staticmethod
    def _thinned(lo: int, hi: int, step: int, hovered: int | None) -> list:
        """Every ``step``-th index of lo..hi-1, plus ``hovered`` (its close neighbours make room for it)."""
        picked = [k for k in range((lo // step) * step, hi, step) if k >= lo]
        if hovered is not None and lo <= hovered < hi and hovered not in picked:
            picked = sorted([k for k in picked if abs(k - hovered) >= step] + [hovered])
        return picked

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
        # a new number moves no name: the names, their places and the notes on the grid are placed again
        # only for new words, masks, a new zoom, size, hovered cell, font or palette
        placed_for = (result.tokens, self._measured, x0, x1, y0, y1, w_px, h_px, self.hover_cell_ij,
                      self._column_mode(result), self._open.tobytes(), self._empty_rows.tobytes(),
                      self.openKeysShown, self._tick_pt, self.theme.font_scale, self.colours,
                      self.plot.getAxis("left").width(), self._titles_fitted)
        if placed_for == self._labels_placed:
            return
        self._labels_placed = placed_for
        px_x = w_px / max(1e-9, x1 - x0)  # pixels per cell, across
        px_y = h_px / max(1e-9, y1 - y0)  # pixels per cell, down
        self._fit_titles(h_px)
        jx0, jx1 = self._visible(x0, x1, m)
        iy0, iy1 = self._visible(y0, y1, n)
        self._fit_tick_font(iy1 - iy0, px_x, px_y)
        sw, gap = self._strip(m)
        column_mode = self._column_mode(result)
        line_h = self._metrics.height()
        hover = self.hover_cell_ij

        # Token tick labels: as many as fit (every k-th when they would overlap), and the hovered cell's
        # query and key always. Key names stand upright when that names more columns than writing them
        # across does.
        widest = float(self._label_widths[jx0:jx1].max()) if jx1 > jx0 else 0.0
        step_across = label_step((widest + 8.0) / px_x)
        step_upright = label_step((line_h + 2.0) / px_x)
        longest = max(float(self._label_widths.max()), self._metrics.horizontalAdvance("row sum"))
        span_y = max(1e-9, y1 - y0)

        def names(upright: bool, h: float) -> int:
            rows_step = label_step((line_h + 2.0) * span_y / max(1.0, h))
            return -(-(jx1 - jx0) // (step_upright if upright else step_across)) + -(-(iy1 - iy0) // rows_step)

        turned = stand_upright(self.plot.getAxis("bottom"), h_px, longest, names)
        self.keys_upright = turned
        step_x = step_upright if turned else step_across
        step_y = label_step((line_h + 2.0) / px_y)
        sum_label_x = m + gap + sw / 2
        xt = []
        for j in self._thinned(jx0, jx1, step_x, None if hover is None else hover[1]):
            needs = line_h + 2 if turned else (self._label_widths[j] + 50) / 2
            if abs((j + 0.5 - sum_label_x) * px_x) < needs:
                continue  # leave room for the "row sum" label
            xt.append((j + 0.5, self._x_labels[j]))
        sum_word = "row sum" if turned or sw * px_x >= self._metrics.horizontalAdvance("row sum") + 4 else "sum"
        xt.append((sum_label_x, sum_word))
        rows = self._thinned(iy0, iy1, step_y, None if hover is None else hover[0])
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

        # The cells and the sums write their own numbers where they fit; a row with no key left says 0 in red.
        empty = set(self._empty_rows.tolist())
        zeros = [i for i in sorted(empty) if iy0 <= i < iy1] if (
            sw * px_x >= self._metrics.horizontalAdvance("0") + 4 and px_y >= line_h) else []
        warn = self.colours.no_keys_ink
        for item, i in zip(self.rowWarnTexts.take(len(zeros)), zeros):
            item.setText("0", color=warn)
            item.setPos(m + gap + sw / 2, i + 0.5)

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
        box = pg.mkBrush(*self.colours.label_box)
        for item, (i, text) in zip(items, notes):
            item.fill = box
            item.border = pg.mkPen(warn)
            item.setText(text, color=warn)
            item.setPos((max(0.0, x0) + min(float(m), x1)) / 2, i + 0.5)
        self.shown_row_notes = notes

    @property
    def shown_numbers(self) -> int:
        """How many cell numbers are written now."""
        return self.image.shown_numbers

    # ----- mouse --------------------------------------------------------------------------------------
    def scene_pos_of(self, i: int, j: int) -> QtCore.QPointF:
        """The scene position of the centre of cell (i, j)."""
        return self.image.scene_pos_of(i, j)

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
        """The softmax arithmetic of an open cell, or why a masked cell is masked (words: how the cell is made)."""
        result = self._result
        if isinstance(result, WordResult):
            return result.cell_text(i, j) if result.allowed[i, j] else "Masked: no piece of this word may look there."
        if result.allowed[i, j]:
            return explain.weight(result, i, j).text
        text = explain.scaled(result, i, j).text + "."
        if not result.allowed[i].any():
            text += " " + mask_view.row_note(result, i)
        return text

    def hover_cell(self, i: int, j: int) -> None:
        """Show cell (i, j)'s value and softmax arithmetic, as when the mouse rests on it, and name its
        query and key on the axes."""
        named = self.hover_cell_ij == (i, j)
        self.hover_cell_ij = (i, j)
        self.hover_text = self._cell_text(i, j)
        self._set_info(i, j, self.hover_text, prefix="Under the mouse")
        if not named:
            self._update_labels()

    def _on_cell_left(self) -> None:
        """The mouse has left the cells (or the panel): the info line tells of the selected pair again."""
        if self.hover_cell_ij is None:
            return
        self.hover_cell_ij = None
        self.hover_text = ""
        self._show_selected_info()
        self._update_labels()

    def _show_selected_info(self) -> None:
        result, sel = self._result, self._selection
        if result is None or sel is None or result.n == 0 or result.n_keys == 0:
            return
        # the pair's softmax arithmetic (long for a long row) is written out when it is shown: in the info
        # line of a wide panel, or in the tooltip when the mouse rests on the grid
        self._set_info(sel.query, sel.key, None, prefix="Selected")

    def _set_info(self, i: int, j: int, text: str | None, prefix: str) -> None:
        """The info line and the grid's tooltip about cell (i, j); ``text``: its arithmetic (None: worked out
        by ``_cell_text`` when first shown)."""
        result = self._result
        w = float(result.weights[i, j])
        tag = "" if result.allowed[i, j] else f" (masked: {mask_view.REASON_NAME[int(self._why[i, j])]})"
        head = (f"{prefix}: query {i + 1} '{result.tokens[i]}' → key {j + 1} '{result.key_tokens[j]}', "
                f"weight {style.fmt(w, 4)}{tag}")
        row_open = result.allowed[i]
        note = (f"Row '{result.tokens[i]}': {mask_view.row_note(result, i)}"
                if row_open.any() and not row_open.all() else None)

        def full(text=text) -> str:
            lines = [head, self._cell_text(i, j) if text is None else text]
            return "\n".join(lines if note is None else [*lines, note])

        self._info = (full() if text is not None else None, head)
        self._info_full = full
        set_tooltip(self.canvas, self._info[0] if self._info[0] is not None else head)
        self._apply_texts()

    def info_text(self) -> str:
        """The whole info about the pair shown (what a wide panel writes under the grid, and the tooltip)."""
        if self._info is not None and self._info[0] is None:
            self._info = (self._info_full(), self._info[1])
            set_tooltip(self.canvas, self._info[0])
        return self._info[0] if self._info is not None else ""

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt naming)
        """The mouse rests on the grid: its tooltip says all about the pair (written out now if not yet)."""
        if event.type() == QtCore.QEvent.Type.ToolTip and obj is self.canvas.viewport():
            self.info_text()
        return False

    def _apply_texts(self) -> None:
        """Full sentences when the panel is wide; one short line each when it is narrow
        (the arithmetic stays in the tooltip). Narrow, the mode buttons show only their icons."""
        narrow = 0 < self.width() < 480
        if (narrow, self.width() < 640) != self._narrow:
            self._narrow = (narrow, self.width() < 640)
            look = (Qt.ToolButtonStyle.ToolButtonIconOnly if narrow
                    else Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            for button in (*self.modeButtons.values(), self.causalButton):
                button.setToolButtonStyle(look)
            self.resetButton.setText("Reset" if narrow or self.width() < 640 else "Reset view")
        note = self._note
        if note is not None:
            target = "" if self.session.train_target is None else (
                f" <span style='color:{self.colours.target}'>" + ("Dashed: the target." if narrow else
                                                            "Dashed outlines: where the training target wants "
                                                            "each query to look.") + "</span>")
            set_text(self.sumNote, (note[1] if narrow else note[0]) + target)
        info = self._info
        if info is not None:
            set_text(self.info, info[1] if narrow else self.info_text())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._apply_texts()

    def _on_target(self, target) -> None:
        """The training target changed ("Learn the weights"): outline its cells and say what they are."""
        show_target(self.image, target)
        self._apply_texts()

    def theme_changed(self, theme) -> None:
        for pool in (self.rowWarnTexts, self.rowNotes):
            pool.scale = theme.font_scale
        for item in (self.image, self.rowSumImage, self.colSumImage):
            item.set_theme_scale(theme.font_scale, theme.line_scale)
        self._measure_labels(self._result)

    def colours_changed(self, palette) -> None:
        """A new palette: the mode buttons' icons, and the axis titles set again (they are set only when
        their words change)."""
        for button in (*self.modeButtons.values(), self.causalButton):
            kind = button.property("qkvMaskIcon")
            if kind:
                button.setIcon(mask_icon(kind, palette=palette))
        self._axis_titles = None
        self._titles_shown = {}
        self._titles_fitted = self._labels_placed = self._sums_shown = None

    def _measure_labels(self, result) -> None:
        """The key names as shown (padding keys marked) and their widths in the tick font as drawn now
        (the theme scales it)."""
        if result is None:
            return
        font = self.plot.getAxis("bottom").style.get("tickFont") or self._tick_font
        padding = result.scenario.padding
        key = (result.key_tokens, padding, font.pointSizeF())
        if key == self._measured:
            return
        self._measured = key
        self._metrics = QtGui.QFontMetricsF(font)
        half = int(math.ceil(self._metrics.height() / 2))  # the colour bar's top and bottom numbers stick out
        self.canvas.ci.layout.setContentsMargins(2, max(2, half), 4, max(2, half - 4))
        pad = set(padding)
        self._x_labels = [short_token(t) + (" (pad)" if j in pad else "") for j, t in enumerate(result.key_tokens)]
        self._label_widths = np.array([self._metrics.horizontalAdvance(t) for t in self._x_labels])

    def _pieces(self, i: int | None, j: int | None) -> tuple:
        """Row i and column j of the grid as pieces: a word stands for its first piece."""
        result = self._result
        if not isinstance(result, WordResult):
            return i, j
        return tuple(None if a is None else result.words[a].pieces[0] for a in (i, j))

    def _on_cell_clicked(self, i: int, j: int) -> None:
        i, j = self._pieces(i, j)
        if self.mode == "block":
            self.session.toggle_blocked(i, j)
        elif self.mode == "padding":
            self.session.toggle_padding(j)
        else:
            self.session.select(query=i, key=j)

    def _on_scene_clicked(self, ev) -> None:
        """A double-click shows the whole grid; a click on a key's name picks or pads that key."""
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        if ev.double():
            self.reset_view()
            return
        if ev.isAccepted():
            return  # a cell took it
        j = self.key_label_at(ev.scenePos())
        if j is not None:
            j = self._pieces(None, j)[1]
            if self.mode == "padding":
                self.session.toggle_padding(j)
            elif self.mode == "select":
                self.session.select(key=j)

    def _on_scenario_changed(self, scenario) -> None:
        """A new sentence or preset puts the click back to "select" (a click meant to select would mask)."""
        document = (scenario.tokens, scenario.key_tokens, self.session.preset_name)
        if document != self._document and self.mode != "select":
            self.set_mode("select")
        self._document = document
