"""9 · Everything as matrices: X, Q, K, V, Kᵀ, Q Kᵀ and the weights as small labelled grids.

Top row: the token grid X (one row per token) and the three grids made from
it, Q = X W^Q, K = X W^K and V = X W^V. Bottom row: Q times Kᵀ (K flipped so
its rows become columns) gives the n × n score grid Q Kᵀ, and softmax of
each (scaled) row gives the weights. Each grid is titled with its name and
shape, and a line spells out how the shapes chain. Rows that belong to
tokens carry a strip in their role colour with the token's name (X butter,
Q lavender, K coral, V mint); the selected query row and key column are
outlined. Numbers are written in the cells when they fit; otherwise the
colour alone shows the values (red below zero, blue above; viridis from 0
to 1 for the weights). Each grid is a cell-grid item (one image), so 512
tokens stay fast. Clicking a row, its name or a cell selects that query / key.

In cross-attention the keys and values come from the source sentence: a second
token grid X source (m rows) makes K and V, so K and V have m rows, Kᵀ has m
columns and the score and weight grids are n × m (n target tokens, m source
tokens). Masked cells of the weights grid are grey and hatched (weight 0), as in
every grid; with several heads the grids are the shown head's and a note says which.
"""
from __future__ import annotations

import html

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import views

from ...look import colours, style
from ..base import Panel
from ...drawing.cell_grid import CellGridItem, GridHolder, Outline
from ...drawing.cell_grid import same_numbers
from ..mask_words import no_keys, no_keys_note
from ..themed_text import ThemedTextMixin
from ...drawing.text_pool import TextPool
from ...drawing.fit_view import FitLayoutWidget

Qt = QtCore.Qt

#: Grids of more numbers than this get a colour scale that ends where 98% of them do (the others get the end
#: colours, ``views.diverging_limit``); smaller grids run to their largest number.
ROBUST_AFTER = 200
#: A token name needs this many pixels of strip (wide, tall).
TOKEN_MIN_PX = (22.0, 11.0)
#: Font sizes at theme scale 1: grid titles (HTML, so the panel scales them), numbers and names in the grids.
TITLE_PT = 9.0
NUMBER_PT = 8.0
OP_PT = 10.0


def _from_pixmap(item: QtWidgets.QGraphicsItem) -> None:
    """Paint ``item`` (a token name: plain words that rarely change) from a pixmap of it, drawn again only
    when it changes: an edit repaints the grid beside it. Exports switch the caches off (vector text);
    ``_redraw`` after a move, so the words are drawn again at their new fraction of a pixel. (Not the
    titles: a rich-text item lays its words out late, and its pixmap was left blank after a new theme and
    size.)"""
    item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)


def _redraw(items) -> None:
    """Draw cached words again, where they are now (Qt moves a cached pixmap by whole pixels)."""
    for item in items:
        item.update()


def _strip() -> QtWidgets.QGraphicsRectItem:
    """A token strip: one rectangle in its role's fill, drawn by Qt (no outline)."""
    item = QtWidgets.QGraphicsRectItem()
    item.setPen(QtGui.QPen(Qt.PenStyle.NoPen))
    return item


def _pen(color: str, width: float) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(color))
    pen.setWidthF(width)
    pen.setCosmetic(True)
    return pen


class MatrixView(GridHolder):
    """One labelled grid: title, values image, token strips, numbers and outlines.

    ``rows_role`` / ``cols_role``: the role whose tokens the rows / columns are
    (None when they are feature columns, e.g. the d_k columns of Q).
    """

    def __init__(self, layout: pg.GraphicsLayout, col: int, name: str, symbol: str, role: str,
                 rows_role: str | None, cols_role: str | None, palette: style.Palette, weights: bool = False):
        self.name = name
        self.colours = palette  # the panel's (``set_colours``)
        self.symbol = symbol
        self.role = role
        self.rows_role = rows_role
        self.cols_role = cols_role
        self.weights = weights
        self.values = None
        self.tokens = ()
        self.col_tokens = ()
        self.masked = None  # rows x cols bool for the weights grid: cells no query may use
        self._masked_by = None  # the mask reasons last shown
        self._colours_shown = None  # the palette they were drawn in
        self.shown_tokens = 0
        box = layout.addLayout(row=0, col=col)
        self.box = box
        box.setSpacing(0)
        box.setContentsMargins(0, 0, 0, 0)
        self.scale = 1.0  # the theme's font scale (titles are HTML with their own size; pools and metrics)
        title_role = f"ink_{role}" if role in palette.ink else "foreground"
        self.titleItem = box.addLabel("", row=0, col=0, size=f"{TITLE_PT}pt", color=palette.colour(title_role))
        colours.paint(self.titleItem, palette, text=title_role)
        self.vb = box.addViewBox(row=1, col=0, lockAspect=False, enableMouse=False, enableMenu=False,
                                 invertY=True, defaultPadding=0.0)
        # Negative numbers red, zero white, positive blue (pale under numbers); weights viridis from 0 to 1.
        self.image = CellGridItem("weights" if weights else "signed")
        if not weights:
            self.image.soften = 2.5
        self.vb.addItem(self.image)
        self.rowStrip = _strip()
        self.colStrip = _strip()
        self._paint_strips()
        if rows_role:
            self.vb.addItem(self.rowStrip)
        if cols_role:
            self.vb.addItem(self.colStrip)
        font = QtGui.QFont()
        font.setPointSizeF(NUMBER_PT)
        self.font = font
        self.metrics = QtGui.QFontMetricsF(font)
        self.rowTokens = TextPool(self.vb, font=font)
        self.colTokens = TextPool(self.vb, font=font)
        self._shape = None
        self._names_widest = None  # (metrics, column names, their widest): the names rarely change between edits
        self.vb.sigResized.connect(lambda *_: self.update_texts())

    def _paint_strips(self) -> None:
        """The token strips in their roles' fills."""
        for strip, role in ((self.rowStrip, self.rows_role), (self.colStrip, self.cols_role)):
            if role:
                strip.setBrush(QtGui.QColor(self.colours.fill[role]))

    def set_colours(self, palette: style.Palette) -> None:
        """Draw in ``palette`` (the grid, title and pooled names follow by themselves): the strips; the outlines
        and names follow at the next ``set_values`` and ``highlight``."""
        self.colours = palette
        self._paint_strips()

    def set_scale(self, scale: float) -> None:
        """Follow the theme: the title's HTML size, new pool items, and the room numbers and names need."""
        self.scale = scale
        for pool in (self.rowTokens, self.colTokens):
            pool.scale = scale
        self.image.set_theme_scale(scale, self.image.line_scale)
        font = QtGui.QFont(self.font)
        font.setPointSizeF(NUMBER_PT * scale)
        self.metrics = QtGui.QFontMetricsF(font)
        if self.titleItem.text:
            self.titleItem.setText(self.titleItem.text, size=f"{TITLE_PT * scale:g}pt")
            self.titleItem.setMinimumWidth(0)
        self.update_texts()

    def highlight(self, key: str, color: str, rect: QtCore.QRectF | None) -> None:
        """Outline ``rect`` (cells) in ``color`` as ``key``; None takes that outline away (the same outline
        again leaves the grid as it is: ``CellGridItem.set_outlines``)."""
        self.image.set_outlines({key: None if rect is None else Outline(rect, color, 2.2)})

    def strip_sizes(self, rows: int, cols: int):
        sw = max(1.0, 0.08 * cols) if self.rows_role else 0.0
        sh = max(0.8, 0.08 * rows) if self.cols_role else 0.0
        return sw, sh

    def set_values(self, values: np.ndarray, tokens: tuple, col_tokens: tuple | None = None,
                   masked_by: np.ndarray | None = None, levels: tuple | None = None) -> None:
        """``tokens`` name the rows, ``col_tokens`` (default: the same) the columns; cells masked
        (``masked_by``: the reason of each, 0 open) get the mask look; ``levels``: the colour scale's ends
        when another grid of the same numbers has them (Kᵀ takes K's), else worked out here. The same
        numbers, names and mask as shown already leave the grid as it is (an edit changes some grids and not
        others: a number of W^V changes V alone)."""
        col_tokens = tokens if col_tokens is None else col_tokens
        if self._same(values, tokens, col_tokens, masked_by):
            return
        # the names in the strips follow the names, the shape and the colours (new numbers leave them)
        names_stay = (self.values is not None and values.shape == self.values.shape and tokens == self.tokens
                      and col_tokens == self.col_tokens and self._colours_shown is self.colours)
        self.values = values
        self.tokens = tokens
        self.col_tokens = col_tokens
        self._masked_by = masked_by
        self._colours_shown = self.colours
        rows, cols = values.shape
        self.masked = None if masked_by is None or not masked_by.any() else masked_by != 0
        title = f"<b>{self.symbol}</b>&nbsp;&nbsp;{rows} × {cols}"
        if title != self.titleItem.text:
            self.titleItem.setText(title, size=f"{TITLE_PT * self.scale:g}pt")
            self.titleItem.setMinimumWidth(0)  # let narrow panels squeeze the title rather than clip the grids
        if levels is None:
            levels = self.levels_for(values)
        self.image.setData(values, levels, masked_by=masked_by if self.masked is not None else None)
        if not names_stay:  # the frame follows the shape and the colours, as the names do
            self.image.set_outlines({"frame": Outline(QtCore.QRectF(0, 0, cols, rows), self.colours.muted, 1.0)})
        if self._shape != (rows, cols):  # strips, their hit areas and the view follow the shape alone
            self._shape = (rows, cols)
            sw, sh = self.strip_sizes(rows, cols)
            self.image.set_header_cells(sw, sh)  # a name in a strip counts as its row or column
            if self.rows_role:
                self.rowStrip.setRect(QtCore.QRectF(-sw, 0, sw, rows))
            if self.cols_role:
                self.colStrip.setRect(QtCore.QRectF(0, -sh, cols, sh))
            self.vb.setRange(xRange=(-sw, cols), yRange=(-sh, rows), padding=0.02)
        if not names_stay:
            self.update_texts()

    def levels_for(self, values: np.ndarray) -> tuple:
        """The colour scale's ends for ``values``: 0 to 1 for weights; else symmetric about 0, to the largest
        size, or (big grids) to where 98 % of the sizes end."""
        if self.weights:
            return 0.0, 1.0
        if values.size > ROBUST_AFTER:  # a real model's grid: a few huge numbers would leave the rest pale
            top = views.diverging_limit(values)
            return -top, top
        top = float(np.max(np.abs(values))) if values.size else 1.0
        return (-top, top) if top > 0 else (-1.0, 1.0)

    def _same(self, values, tokens, col_tokens, masked_by) -> bool:
        """Whether the grid shows these numbers, names and mask already."""
        shown = self.values
        if shown is None or self._colours_shown is not self.colours:
            return False
        if tokens != self.tokens or col_tokens != self.col_tokens:
            return False
        if values is not shown and (values.shape != shown.shape or not same_numbers(values, shown)):
            return False
        old = self._masked_by
        if (masked_by is None) != (old is None):
            return False
        return masked_by is None or masked_by is old or np.array_equal(masked_by, old)

    def _px(self):
        (x0, x1), (y0, y1) = self.vb.viewRange()
        return self.vb.width() / max(1e-9, x1 - x0), self.vb.height() / max(1e-9, y1 - y0)

    def update_texts(self) -> None:
        """Token names in the strips (the grid writes its own numbers where they fit)."""
        if self.values is None:
            return
        rows, cols = self.values.shape
        # Token names in the strips when there is room; every k-th name when the rows are too thin.
        px_x, px_y = self._px()
        sw, sh = self.strip_sizes(rows, cols)
        fm = self.metrics
        min_w = max(TOKEN_MIN_PX[0], fm.horizontalAdvance("ab…") + 2)
        shown = 0
        self.token_rows, self.token_cols = [], []
        elide = Qt.TextElideMode.ElideRight
        if self.rows_role:
            ok = sw * px_x >= min_w and px_y * rows >= fm.height()
            step = max(1, int(np.ceil(fm.height() / max(px_y, 1e-9)))) if ok else 1
            rows_shown = list(range(0, rows, step)) if ok else []
            items = self.rowTokens.take(len(rows_shown))
            room = sw * px_x - 4
            for r, item in zip(rows_shown, items):
                item.setText(fm.elidedText(self.tokens[r], elide, room), color=self.colours.on_fill[self.rows_role])
                item.setPos(-sw / 2, r + 0.5)
                _from_pixmap(item)
            _redraw(items)
            self.token_rows = rows_shown
            shown += len(items)
        if self.cols_role:
            ok = cols * px_x >= min_w and sh * px_y >= fm.height() - 2
            names = [t if len(t) <= 6 else t[:5] + "…" for t in self.col_tokens[:cols]]
            cached = self._names_widest
            if cached is not None and cached[0] is fm and cached[1] == names:
                widest = cached[2]
            else:
                widest = max((fm.horizontalAdvance(t) for t in names), default=0.0) + 6
                self._names_widest = (fm, names, widest)
            step = max(1, int(np.ceil(min(widest, fm.horizontalAdvance("abcdef") + 6) / max(px_x, 1e-9))))
            cols_shown = list(range(0, cols, step)) if ok else []
            items = self.colTokens.take(len(cols_shown))
            x0, x1 = self.vb.viewRange()[0]
            for c, item in zip(cols_shown, items):
                half = min(step * px_x / 2, (c + 0.5 - x0) * px_x, (x1 - c - 0.5) * px_x)
                item.setText(fm.elidedText(self.col_tokens[c], elide, max(0.0, 2 * half - 6)),
                             color=self.colours.on_fill[self.cols_role])
                item.setPos(c + 0.5, -sh / 2)
                _from_pixmap(item)
            _redraw(items)
            self.token_cols = cols_shown
            shown += len(items)
        self.shown_tokens = shown


class MatricesPanel(ThemedTextMixin, Panel):
    object_name = "matricesPanel"
    title = "9 · Everything as matrices"
    follows_colours = True

    def build(self, body):
        self._shape_key = None  # the shapes the grids were given room for
        self._chain = None  # the words under the grids: (in full, short)
        self._words = None  # what they were written for
        self._selection_drawn = None  # the selection, shapes and inks the outlines were drawn for
        self._result = None
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        self.canvas = FitLayoutWidget(body)
        self.canvas.setObjectName("matricesCanvas")
        layout.addWidget(self.canvas, 1)
        self.chain = QtWidgets.QLabel(body)
        self.chain.setObjectName("matricesChain")
        self.chain.setWordWrap(True)
        self.chain.setTextFormat(Qt.TextFormat.RichText)
        f = self.chain.font()
        f.setPointSizeF(TITLE_PT)
        self.chain.setFont(f)
        self.chain.setStyleSheet("padding: 0 4px;")
        layout.addWidget(self.chain)

        ci = self.canvas.ci
        ci.setContentsMargins(2, 2, 2, 2)
        top = ci.addLayout(row=0, col=0)
        bottom = ci.addLayout(row=1, col=0)
        ci.layout.setRowStretchFactor(0, 1)
        ci.layout.setRowStretchFactor(1, 1)
        self.rowLayouts = (top, bottom)

        self.ops = []

        pal = self.colours

        def op(layout_, col, text, role="foreground"):
            label = pg.LabelItem(text, size=f"{OP_PT:g}pt", color=pal.colour(role))
            colours.paint(label, pal, text=role)
            layout_.addItem(label, row=0, col=col)
            self.ops.append(label)
            return label

        F = "x"
        self.grids = {}
        self.grids["x"] = MatrixView(top, 0, "x", "X", "x", "x", None, pal)
        self.projOp = op(top, 1, "→")
        self.grids["q"] = MatrixView(top, 2, "q", "Q", "query", "query", None, pal)
        # cross-attention only: the source sentence's grid, which makes K and V
        self.grids["xs"] = MatrixView(top, 3, "xs", "X<sub>source</sub>", "x", "x", None, pal)
        self.sourceOp = op(top, 4, "→")
        self._cross_items = (self.grids["xs"].box, self.sourceOp)
        self._cross_shown = True
        self.grids["k"] = MatrixView(top, 5, "k", "K", "key", "key", None, pal)
        self.grids["v"] = MatrixView(top, 6, "v", "V", "value", "value", None, pal)
        op(bottom, 0, "<b>Q</b> ×", "ink_query")
        self.grids["kt"] = MatrixView(bottom, 1, "kt", "K<sup>T</sup>", "key", None, "key", pal)
        op(bottom, 2, "=")
        self.grids["scores"] = MatrixView(bottom, 3, "scores", "Q K<sup>T</sup>", F, "query", "key", pal)
        self.scaleOp = op(bottom, 4, "softmax<br>→")
        self.grids["weights"] = MatrixView(bottom, 5, "weights", "weights", "weight", "query", "key", pal,
                                           weights=True)
        self._refit_pending = False
        for name, view in self.grids.items():
            view.image.cellClicked.connect(lambda r, c, name=name: self._on_cell_clicked(name, r, c))
            view.vb.sigResized.connect(self._refit_later)
        self._show_source(False)
        # the boxes that only hold the grids paint nothing: Qt need not ask them their bounds or call their
        # (Python) paint at each repaint
        holders = [ci, top, bottom, *self.ops]
        for view in self.grids.values():
            holders += [view.box, view.vb, view.titleItem]
        for item in holders:
            item.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)

    def _show_source(self, cross: bool) -> None:
        """Put X source and its arrow in the top row (cross-attention) or take them out."""
        if cross == self._cross_shown:
            return
        self._cross_shown = cross
        top = self.rowLayouts[0]
        for col, item in zip((3, 4), self._cross_items):
            if cross:
                top.addItem(item, row=0, col=col)
            else:
                top.removeItem(item)
            item.setVisible(cross)

    def _stretch(self, result) -> None:
        """Give each grid room in proportion to its width (plus its token strip)."""
        s = result.scenario
        m = max(1, result.n_keys)
        top, bottom = self.rowLayouts
        top_cols = {0: s.d_model + 1.5, 2: s.d_k + 1, 3: (s.d_model + 1.5) if s.is_cross else 0,
                    5: s.d_k + 1, 6: s.d_v + 1}
        for col, w in top_cols.items():
            top.layout.setColumnStretchFactor(col, int(round(10 * w)))
        for col in (1, 4):
            top.layout.setColumnStretchFactor(col, 0)
        # Kᵀ is d_k x m; the score and weight grids are n x m: as wide as there are keys.
        for col in (1, 3, 5):
            bottom.layout.setColumnStretchFactor(col, 10 * m)
        for col in (0, 2, 4):
            bottom.layout.setColumnStretchFactor(col, 0)

    def show_result(self, result, selection):
        s = result.scenario
        n, d_k = result.n, s.d_k  # d_k: per head
        m, cross = result.n_keys, s.is_cross
        toks, ktoks = result.tokens, result.key_tokens
        g = self.grids
        self._result = result
        self._show_source(cross)
        shape = (n, m, cross, s.d_model, d_k, s.d_v)
        if shape != self._shape_key:
            self._shape_key = shape
            self._stretch(result)
        g["x"].set_values(s.x, toks)
        if cross:
            g["xs"].set_values(s.key_x, ktoks)
        g["q"].set_values(result.q, toks)
        g["k"].set_values(result.k, ktoks)
        g["v"].set_values(result.v, ktoks)
        g["kt"].set_values(result.k.T, ktoks, levels=g["k"].image.levels)  # K's numbers: K's scale
        g["scores"].set_values(result.scores, toks, ktoks)
        g["weights"].set_values(result.weights, toks, ktoks, masked_by=result.masked_by)

        i, j = selection.query, selection.key
        qi, kj = self.colours.ink["query"], self.colours.ink["key"]
        if (i, j, shape, qi, kj) != self._selection_drawn:  # the selection's outlines follow it, its shapes and inks
            self._selection_drawn = (i, j, shape, qi, kj)
            g["x"].highlight("row_i", qi, QtCore.QRectF(0, i, s.d_model, 1))
            g["x"].highlight("row_j", kj, QtCore.QRectF(0, j, s.d_model, 1) if j != i and not cross else None)
            if cross:
                g["xs"].highlight("row_j", kj, QtCore.QRectF(0, j, s.d_model, 1))
            g["q"].highlight("row_i", qi, QtCore.QRectF(0, i, d_k, 1))
            g["k"].highlight("row_j", kj, QtCore.QRectF(0, j, d_k, 1))
            g["v"].highlight("row_j", kj, QtCore.QRectF(0, j, s.d_v, 1))
            g["kt"].highlight("col_j", kj, QtCore.QRectF(j, 0, 1, d_k))
            for name in ("scores", "weights"):
                g[name].highlight("row_i", qi, QtCore.QRectF(0, i, m, 1))
                g[name].highlight("col_j", kj, QtCore.QRectF(j, 0, 1, n))

        nk = no_keys(result, i)
        words = (n, m, d_k, s.scale, s.temperature, s.softmax_over, cross, s.has_bias, g["weights"].masked is not None,
                 result.tokens[i] if nk else None, result.n_heads, result.head, qi, kj, self.theme.font_scale)
        if words != self._words:  # the words under the grids follow these alone (not the numbers)
            self._words = words
            self._chain = self._chain_words(result, i, qi, kj)
        self._apply_texts()
        self.canvas.refit()

    def _chain_words(self, result, i: int, qk: str, kq: str) -> tuple:
        """The words under the grids, (in full, short): how the shapes chain, and what the grids show; the
        softmax operator's words are set here too."""
        s = result.scenario
        n, d_k, m, cross = result.n, s.d_k, result.n_keys, s.is_cross
        scale = f"÷ √{d_k}" if s.scale else "no scaling"
        if s.temperature != 1.0:
            scale += f", ÷ T={style.fmt(s.temperature, 2).rstrip('0').rstrip('.')}"
        way = "each row" if s.softmax_over == "keys" else "each column (the classic bug)"
        op_text = (f"{scale}<br>softmax<br>→", f"{TITLE_PT * self.theme.font_scale:g}pt")
        if op_text != (self.scaleOp.text, self.scaleOp.opts.get("size")):  # a new text lays the grids out again
            self.scaleOp.setText(op_text[0], size=op_text[1])
        short = (f"<span style='color:{qk}'><b>Q</b> {n}×<b>{d_k}</b></span> × "
                 f"<span style='color:{kq}'><b>K<sup>T</sup></b> <b>{d_k}</b>×{m}</span> = "
                 f"<b>Q K<sup>T</sup></b> {n}×{m}")
        made = ("Q, K and V are X times W<sup>Q</sup>, W<sup>K</sup>, W<sup>V</sup>." if not cross else
                f"Q is X times W<sup>Q</sup>; K and V are X source times W<sup>K</sup> and W<sup>V</sup>: "
                f"{n} target tokens ask, {m} source tokens answer.")
        if s.has_bias:  # Q = X W^Q + b^Q: the bias row added to every row
            made += (" Each also gets a bias added to every row: Q = X W<sup>Q</sup> + b<sup>Q</sup>, and K and V "
                     "alike.")
            short = ("Q = X W<sup>Q</sup> + b<sup>Q</sup> (b<sup>Q</sup> added to every row), K and V alike<br>"
                     + short)
        full = (f"<span style='color:{qk}'><b>Q</b> {n} × <b>{d_k}</b></span> times "
                f"<span style='color:{kq}'><b>K<sup>T</sup></b> <b>{d_k}</b> × {m}</span> "
                f"gives <b>Q K<sup>T</sup></b> {n} × {m}: the inner sizes match ({d_k} = {d_k}), "
                f"and cell (i, j) is query i · key j. Then {scale} and softmax along {way} give the "
                f"weights, {n} × {m}. {made}")
        extra = []
        if self.grids["weights"].masked is not None:
            extra.append("Grey, hatched weights are masked: 0.")
        if no_keys(result, i):
            extra.append(html.escape(no_keys_note(result, i), quote=False))
            short += "<br>" + html.escape(no_keys_note(result, i), quote=False)
        if result.n_heads > 1:
            extra.insert(0, f"Head {result.head + 1} of {result.n_heads}: its own W<sup>Q</sup>, "
                            f"W<sup>K</sup>, W<sup>V</sup>, d_k = {d_k}.")
            short = f"head {result.head + 1} of {result.n_heads}: " + short
        if extra:
            full += " " + " ".join(extra)
        return full, short

    @property
    def selected_rects(self) -> dict:
        """Grid name -> {outline name: rectangle in cells} of the selection's outlines shown now."""
        if self._result is None:
            return {}
        cross = self._result.scenario.is_cross
        return {name: {key: outline.rect for key, outline in view.highlights.items() if key != "frame"}
                for name, view in self.grids.items() if name != "xs" or cross}

    def _refit_later(self, *_) -> None:
        """The grids were laid out again: once the layout has settled, scale the picture down if it needs
        more room than the canvas has (its minimum sizes follow the shapes and names only after a layout
        pass, so a refit at the time of the edit alone cut V and the weights off at the right)."""
        if not self._refit_pending:
            self._refit_pending = True
            QtCore.QTimer.singleShot(0, self, self._refit_now)

    def _refit_now(self) -> None:
        self._refit_pending = False
        self.canvas.refit()

    def _apply_texts(self) -> None:
        chain = self._chain
        if chain is not None:
            self.chain.setText(chain[1] if 0 < self.width() < 480 else chain[0])

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._apply_texts()

    def colours_changed(self, palette) -> None:
        for view in self.grids.values():
            view.set_colours(palette)

    def theme_changed(self, theme) -> None:
        """Titles and operators are HTML with their own sizes: scaled here (the generic scaling cannot)."""
        for label in self.ops:
            if label is not self.scaleOp:
                label.setText(label.text, size=f"{OP_PT * theme.font_scale:g}pt")
        for view in self.grids.values():
            view.set_scale(theme.font_scale)

    def _on_cell_clicked(self, name: str, r: int, c: int) -> None:
        """A row (or its name) of X or Q picks that query; of X source, K or V that key; a column of Kᵀ that
        key; a cell of the score or weight grid that pair (a name in their strips, that row or column)."""
        r = None if r < 0 else r
        c = None if c < 0 else c
        if name in ("x", "q") and r is not None:
            self.session.select(query=r)
        elif name in ("xs", "k", "v") and r is not None:
            self.session.select(key=r)
        elif name == "kt" and c is not None:
            self.session.select(key=c)
        elif name in ("scores", "weights"):
            self.session.select(query=r, key=c)
