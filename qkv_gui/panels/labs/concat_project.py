"""Heads joined, then W^O: the last step of multi-head attention drawn with its shapes.

Each head h gives an output O_h (n x d_v, one row per query token). Put side
by side they make C = [O_1 ... O_H] (n x H d_v); C times the output grid
W^O ((H d_v) x d_out) gives Y (n x d_out), one output vector per token.

Drawn as one equation, C x W^O = Y: C's blocks are headed "O_1", "O_2", ...
in alternating mint, split by lines and sized underneath ("3 x 3" each);
W^O's rows carry the same head bands, because row r of W^O multiplies
column r of C. Under every grid its symbol and shape. Cells are coloured by
sign (red below zero, blue above, white at zero) and hold their numbers when
they fit (each grid is a cell-grid item, ``items.CellGridItem``). The selected
query's row of C and of Y is outlined, the chosen head's block is framed, and
the numbers of that row and the worked sum of one cell of Y (from
``qkv_engine.heads_view``) are written underneath. Hovering a cell of Y works
that cell; clicking a row (or its name) selects that query.

With no W^O (one head) only C is drawn, with a note that the output is the head's output.
"""
from __future__ import annotations

import html
import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import MAX_HEADS, heads_view

from ...look import colours, style
from ..base import Panel
from ...drawing.cell_grid import CellGridItem, GridHolder, Outline
from ...labels.captions import note_label
from ...labels.changed_text import set_tooltip
from ..themed_text import ThemedTextMixin
from ...drawing.text_pool import TextPool

Qt = QtCore.Qt

TITLE_PT = 10.0
OP_PT = 14.0  # the × and = between the grids
TEXT_PT = 8.0
#: Pixels above and below each grid (block names, block shapes) and left of it (token names, head bands).
HEADER_PX = 18.0
FOOTER_PX = 16.0
TOKEN_PX = 56.0
BAND_PX = 30.0
#: Most numbers of one row written out in the words under the picture.
ROW_NUMBERS = 24
#: The head blocks' bands alternate between two fills (both mint, one lighter; the palette's ``head_bands``):
#: the labels say which head, too.


def _pen(color, width: float, dash: bool = False) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(color))
    pen.setWidthF(width)
    pen.setCosmetic(True)
    if dash:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


def _sub(h: int) -> str:
    return f"O<sub>{h + 1}</sub>"


class _Grid(GridHolder):
    """One matrix drawn in a view box: a cell grid of signed colours (pale under numbers, strong without),
    with bands at the top or left and outlines."""

    def __init__(self, name: str, font: QtGui.QFont, header: bool, side_px: float, palette: style.Palette):
        self.name = name
        self.colours = palette  # the panel's palette (the frame's colour)
        self.values = None
        self.header = header  # room above (block names) and below (block shapes)
        self.side_px = side_px  # room on the left (token names or head bands)
        self.vb = pg.ViewBox(enableMouse=False, enableMenu=False, invertY=True, defaultPadding=0.0)
        self.vb.setMouseEnabled(False, False)
        self.image = CellGridItem("signed")
        self.image.soften = 2.5  # pale colours when the numbers are written, so they read
        self.vb.addItem(self.image)
        self.separators = QtWidgets.QGraphicsPathItem()
        self.separators.setPen(_pen(palette.foreground, 2.0))
        colours.paint(self.separators, palette, pen="foreground")
        self.separators.setZValue(16)
        self.vb.addItem(self.separators, ignoreBounds=True)
        self.bands = []  # one rect per head (header strip or side strip)
        for h in range(MAX_HEADS):
            rect = QtWidgets.QGraphicsRectItem()
            rect.setPen(_pen(palette.background, 1.0))
            rect.setBrush(QtGui.QBrush(QtGui.QColor(palette.head_bands[h % 2])))
            colours.paint(rect, palette, pen="background", brush=f"head_bands_{h % 2}")
            rect.setZValue(4)
            rect.hide()
            self.vb.addItem(rect, ignoreBounds=True)
            self.bands.append(rect)
        self.labels = TextPool(self.vb, font=font, z=21)  # band names, block shapes, token names
        self.metrics = QtGui.QFontMetricsF(font)

    def margins(self):
        """(left, top, bottom) room around the cells, in cell units, for the view box's size now."""
        rows, cols = self.values.shape
        w, h = max(1.0, self.vb.width()), max(1.0, self.vb.height())
        top_px = HEADER_PX if self.header else 4.0
        bottom_px = FOOTER_PX if self.header else 4.0
        side_px = min(self.side_px, 0.4 * w)
        left = side_px * cols / max(1.0, w - side_px)
        top = top_px * rows / max(1.0, h - top_px - bottom_px)
        bottom = bottom_px * rows / max(1.0, h - top_px - bottom_px)
        return left, top, bottom

    def fit(self) -> None:
        if self.values is None:
            return
        rows, cols = self.values.shape
        left, top, bottom = self.margins()
        self.vb.setRange(xRange=(-left, cols + 0.02 * cols), yRange=(-top, rows + bottom), padding=0.0)
        self.image.set_header_cells(left=left)  # a token name or band on the left counts as its row

    def px(self):
        (x0, x1), (y0, y1) = self.vb.viewRange()
        return self.vb.width() / max(1e-9, x1 - x0), self.vb.height() / max(1e-9, y1 - y0)

    def set_values(self, values: np.ndarray) -> None:
        self.values = values
        rows, cols = values.shape
        top = float(np.max(np.abs(values))) if values.size else 1.0
        top = top if top > 0 else 1.0
        self.image.setData(values, (-top, top))
        self.image.set_outlines({"frame": Outline(QtCore.QRectF(0, 0, cols, rows), self.colours.muted, 1.0)})
        self.fit()


class ConcatProjectPanel(ThemedTextMixin, Panel):
    object_name = "concatPanel"
    title = "Heads joined, then W^O"
    follows_colours = True

    dock_size = (560, 480)  # a dock opens wide enough for the pictures to be read

    # ----- building ---------------------------------------------------------------------------------
    def build(self, body):
        self._full = None
        self._selection = None
        self.column = 0  # the column of Y whose sum is worked out (hovered or clicked last)
        self.hover_cell_ic = None
        self.worked_text = ""
        self.shape_texts: dict = {}
        self.block_shapes: list = []
        self._note = None  # the note: (wide, narrow) wordings
        self._worked = None  # (row, column, hovered): the cell of Y whose sum is written out
        self._label_texts = None  # title and shape -> (long, short) wordings
        self._col_widths = None  # column of the layout -> its width in pixels
        self._labels_key = None  # (texts, widths, text size) the labels were last fitted to

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        self.note = note_label(body, "concatNote")
        layout.addWidget(self.note)

        self.canvas = pg.GraphicsLayoutWidget(body)
        self.canvas.setObjectName("concatCanvas")
        layout.addWidget(self.canvas, 1)

        self.detail = QtWidgets.QLabel(body)
        self.detail.setObjectName("concatDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        f = self.detail.font()
        f.setPointSizeF(TEXT_PT + 0.5)
        self.detail.setFont(f)
        colours.sheet(self.detail, "color: $foreground; padding: 0 4px;", self.colours)
        layout.addWidget(self.detail)

        font = QtGui.QFont()
        font.setPointSizeF(TEXT_PT)
        self._font = font
        ci = self.canvas.ci
        ci.setContentsMargins(4, 4, 4, 4)
        ci.layout.setHorizontalSpacing(4)
        ci.layout.setVerticalSpacing(2)
        pal = self.colours
        self.grids = {
            "c": _Grid("c", font, header=True, side_px=TOKEN_PX, palette=pal),
            "w_o": _Grid("w_o", font, header=True, side_px=BAND_PX, palette=pal),
            "y": _Grid("y", font, header=True, side_px=4.0, palette=pal),
        }
        size = f"{TITLE_PT:g}pt"
        self.titles = {
            "c": pg.LabelItem("", size=size, color=pal.ink["value"]),
            "w_o": pg.LabelItem("", size=size, color=pal.foreground),
            "y": pg.LabelItem("", size=size, color=pal.ink["output"]),
        }
        self.shapes = {k: pg.LabelItem("", size=size, color=pal.foreground) for k in self.grids}
        for key, role in (("c", "ink_value"), ("w_o", "foreground"), ("y", "ink_output")):
            colours.paint(self.titles[key], pal, text=role)
            colours.paint(self.shapes[key], pal, text="foreground")
        self.ops = [pg.LabelItem("×", size=f"{OP_PT:g}pt"), pg.LabelItem("=", size=f"{OP_PT:g}pt")]
        for col, key in ((0, "c"), (2, "w_o"), (4, "y")):
            ci.addItem(self.titles[key], row=0, col=col)
            ci.addItem(self.grids[key].vb, row=1, col=col)
            ci.addItem(self.shapes[key], row=2, col=col)
        ci.addItem(self.ops[0], row=1, col=1)
        ci.addItem(self.ops[1], row=1, col=3)
        for item in (*self.titles.values(), *self.shapes.values()):
            item.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        ci.layout.setRowStretchFactor(1, 1)

        for name, grid in self.grids.items():
            grid.image.cellHovered.connect(lambda r, c, name=name: self.hover(name, r, c if c >= 0 else None))
            grid.image.cellLeft.connect(self._on_cell_left)
            grid.image.cellClicked.connect(lambda r, c, name=name: self._on_cell_clicked(name, r, c))
        self.listen(self.session.headChanged, self._on_head_changed)
        for g in self.grids.values():
            g.vb.sigResized.connect(lambda *_, g=g: self._refit(g))

    # ----- filling ----------------------------------------------------------------------------------
    def hint_for(self, result):
        if result.n == 0:
            return self.empty_hint
        return None

    def show_result(self, result, selection):
        full = self.session.full_result
        s = full.scenario
        self._full = full
        self._selection = selection
        n, H, d_v = full.n, full.n_heads, s.d_v
        width = full.concat.shape[1]
        has_wo = s.w_o is not None
        d_out = full.projected.shape[1]
        self.column = min(self.column, d_out - 1)
        i = selection.query

        self.block_shapes = [f"{n} × {d_v}"] * H
        g = self.grids
        g["c"].set_values(full.concat)
        if has_wo:
            g["w_o"].set_values(s.w_o)
            g["y"].set_values(full.projected)
        self._set_columns(has_wo, width, d_out)

        # Titles with symbols, shapes underneath: (full, short) of each, the one that fits is shown.
        blocks = " ".join(_sub(h) for h in range(H)) if H <= 4 else f"{_sub(0)} … {_sub(H - 1)}"
        self._label_texts = {
            ("title", "c"): (f"<b>C</b> = [{blocks}]", "<b>C</b>"),
            ("shape", "c"): ((f"{n} × {width}  ({H} blocks of {n} × {d_v})", f"{n} × {width}") if H > 1
                             else (f"{n} × {width}", f"{n} × {width}")),
            ("title", "w_o"): ("<b>W<sup>O</sup></b>", "<b>W<sup>O</sup></b>"),
            ("shape", "w_o"): (f"{width} × {d_out}", f"{width} × {d_out}"),
            ("title", "y"): ("<b>Y</b> = C W<sup>O</sup>", "<b>Y</b>"),
            ("shape", "y"): (f"{n} × {d_out}", f"{n} × {d_out}"),
        }
        self.block_shapes = [f"{n} × {d_v}"] * H
        self._apply_labels()

        # Outlines: the selected query's row of C and Y, the chosen head's block, the worked column of W^O.
        # on a dark ground the inks are light, as are the cells near 0: a dark halo under each outline
        qi, chosen, halo = self.colours.ink["query"], self.colours.selected, self.colours.dark
        g["c"].image.set_outlines({"row_i": Outline(QtCore.QRectF(0, i, width, 1), qi, 2.2, halo=halo)})
        if has_wo:
            c = self.column
            g["y"].image.set_outlines({"row_i": Outline(QtCore.QRectF(0, i, d_out, 1), qi, 2.2, halo=halo),
                                       "cell": Outline(QtCore.QRectF(c, i, 1, 1), chosen, 2.5, halo=halo)})
            g["w_o"].image.set_outlines({"col": Outline(QtCore.QRectF(c, 0, 1, width), chosen, 2.0,
                                                        dashed=True, halo=halo)})
        self._show_chosen()
        for grid in self.grids.values():
            if grid.values is not None and grid.vb.isVisible():
                self._refit(grid)

        doc = self.session.model_doc
        if doc is not None:  # a trained model's head: the panel joins the hand-made examples' heads only
            info = doc.model.info
            which = info.which_head(self.session.model_layer, self.session.model_head)
            self._note = (f"A trained model: this is the output of the head every panel shows, {which}. In the model "
                          f"the {info.n_heads} heads' outputs are joined side by side like this and multiplied by "
                          "its W<sup>O</sup> (o_proj); this panel joins the heads of the hand-made examples.",
                          f"{which.capitalize()}: one head's output; the model joins all {info.n_heads} "
                          "and multiplies by W<sup>O</sup>.")
        elif H == 1 and not has_wo:
            self._note = ("With one head there is no W<sup>O</sup>: the output is the head's output, "
                          f"O<sub>1</sub> ({n} × {d_v}). Raise “Heads” in the inputs panel to see heads joined.",
                          "One head: no W<sup>O</sup>, the output is the head's output.")
        elif not has_wo:
            self._note = ("There is no W<sup>O</sup>: the output is C, the heads' outputs side by side.",
                          "No W<sup>O</sup>: the output is C.")
        else:
            self._note = (f"Each head's output O<sub>h</sub> has one row per token. Side by side they make C. "
                          f"W<sup>O</sup> mixes what the {H} heads found into one vector per token: Y = C W<sup>O</sup>.",
                          "Heads side by side make C; W<sup>O</sup> mixes them into Y.")
        hov = self.hover_cell_ic
        if hov is not None and has_wo and hov[0] < n and hov[1] < d_out:
            self.work_cell(*hov, hovered=True)
        else:
            self.hover_cell_ic = None
            self.work_cell(i, self.column)
        self._apply_texts()

    def _set_columns(self, has_wo: bool, width: int, d_out: int) -> None:
        """Show or hide W^O and Y, and share the canvas width in proportion to the grids' columns."""
        for key in ("w_o", "y"):
            for item in (self.grids[key].vb, self.titles[key], self.shapes[key]):
                item.setVisible(has_wo)
        for op in self.ops:
            op.setVisible(has_wo)
        ci = self.canvas.ci
        left, _t, right, _b = ci.layout.getContentsMargins()
        cm = ci.getContentsMargins()
        spacing = 4 * ci.layout.horizontalSpacing() if has_wo else 0.0
        total = max(1.0, self.canvas.width() - left - right - cm[0] - cm[2] - spacing - 2.0)
        if not has_wo:
            widths = {0: total, 1: 0.0, 2: 0.0, 3: 0.0, 4: 0.0}
        else:
            op_font = QtGui.QFont(self._font)
            op_font.setPointSizeF(OP_PT * self.theme.font_scale)
            op_w = max(22.0, math.ceil(QtGui.QFontMetricsF(op_font).horizontalAdvance("×") + 12))
            room = max(60.0, total - 2 * op_w - TOKEN_PX - BAND_PX - 2 * 4.0)
            units = width + 2 * d_out
            rest = max(40.0, 0.17 * room, room * d_out / units)
            wc = max(40.0, room - 2 * rest)
            widths = {0: wc + TOKEN_PX, 1: op_w, 2: rest + BAND_PX, 3: op_w, 4: rest + 4.0}
            for op in self.ops:
                op.setMinimumWidth(0)  # the column's width holds it; its text never widens the picture
        self._col_widths = widths
        for col, w in widths.items():
            ci.layout.setColumnFixedWidth(col, w)
        self._apply_labels()
        ci.layout.activate()
        ci.setGeometry(QtCore.QRectF(self.canvas.viewport().rect()))  # exactly the canvas, never wider

    def _apply_labels(self) -> None:
        """Each title and shape in its long form when it fits its column, else the short one."""
        texts = self._label_texts
        widths = self._col_widths
        if texts is None or widths is None:
            return
        scale = self.theme.font_scale
        key = (tuple(texts.items()), tuple(widths.items()), scale)
        if key == self._labels_key:
            return
        self._labels_key = key
        font = QtGui.QFont(self._font)
        font.setPointSizeF(TITLE_PT * scale)
        doc = QtGui.QTextDocument()
        doc.setDefaultFont(font)
        pal = self.colours
        inks = {"c": pal.ink["value"], "w_o": pal.foreground, "y": pal.ink["output"]}
        self.shape_texts = {}
        for col, key in ((0, "c"), (2, "w_o"), (4, "y")):
            for kind, items in (("title", self.titles), ("shape", self.shapes)):
                full, short = texts[(kind, key)]
                doc.setHtml(full)
                text = full if doc.idealWidth() + 8 <= widths[col] else short
                colour = inks[key] if kind == "title" else pal.foreground
                items[key].setText(text, size=f"{TITLE_PT * scale:g}pt", color=colour)
                items[key].setMinimumWidth(0)  # never wider than its column
                if kind == "shape" and widths[col] > 0:
                    self.shape_texts[key] = QtGui.QTextDocumentFragment.fromHtml(text).toPlainText()

    def _refit(self, grid: _Grid) -> None:
        """Ranges, bands and names of one grid for its size now (called on every resize)."""
        full = self._full
        if full is None or grid.values is None:
            return
        grid.fit()
        rows, cols = grid.values.shape
        left, top, bottom = grid.margins()
        px_x, px_y = grid.px()
        fm = grid.metrics
        H = full.n_heads
        ink = self.colours.ink
        spans = heads_view.head_columns(full)
        texts = []  # (x, y, text, colour)
        path = QtGui.QPainterPath()
        for h, band in enumerate(grid.bands):
            band.setVisible(h < H and grid.name in ("c", "w_o"))
        if grid.name == "c":
            for h, (a, b) in enumerate(spans):
                grid.bands[h].setRect(QtCore.QRectF(a, -top, b - a, top))
                room = (b - a) * px_x
                name = f"O{h + 1} · head {h + 1}"
                if room < fm.horizontalAdvance(name) + 6:
                    name = f"O{h + 1}"
                if room >= fm.horizontalAdvance(name) + 2:
                    texts.append(((a + b) / 2, -top / 2, name, ink["value"]))
                if H > 1 and room >= fm.horizontalAdvance(self.block_shapes[h]) + 4:
                    texts.append(((a + b) / 2, rows + bottom / 2, self.block_shapes[h], self.colours.foreground))
                if h > 0:
                    path.moveTo(a, -top)
                    path.lineTo(a, rows)
            # Query token names on the left, thinned when the rows are thin.
            step = max(1, int(np.ceil((fm.height() + 1) / max(px_y, 1e-9))))
            room = left * px_x - 4
            for r in range(0, rows, step):
                name = fm.elidedText(full.tokens[r], Qt.TextElideMode.ElideRight, room)
                texts.append((-left / 2, r + 0.5, name, ink["query"]))
        elif grid.name == "w_o":
            for h, (a, b) in enumerate(spans):
                grid.bands[h].setRect(QtCore.QRectF(-left, a, left, b - a))
                if (b - a) * px_y >= fm.height() - 2:
                    texts.append((-left / 2, (a + b) / 2, f"O{h + 1}", ink["value"]))
                if h > 0:
                    path.moveTo(-left, a)
                    path.lineTo(cols, a)
            self._column_names(grid, texts, top, px_x, fm, cols)
        else:
            self._column_names(grid, texts, top, px_x, fm, cols)
        grid.separators.setPath(path)
        items = grid.labels.take(len(texts))
        for item, (x, y, text, colour) in zip(items, texts):
            item.setText(text, color=colour)
            item.setPos(x, y)
        grid.shown_labels = [t[2] for t in texts]

    def _column_names(self, grid, texts, top, px_x, fm, cols) -> None:
        """y1, y2, ... over the output columns (of W^O and Y) when they fit."""
        step = max(1, int(np.ceil((fm.horizontalAdvance("y88") + 4) / max(px_x, 1e-9))))
        for c in range(0, cols, step):
            texts.append((c + 0.5, -top / 2, f"y{c + 1}", self.colours.ink["output"]))

    def _show_chosen(self) -> None:
        full = self._full
        if full is None:
            return
        h = self.session.head
        a, b = heads_view.head_columns(full)[h]
        rows = full.n
        frame = (Outline(QtCore.QRectF(a, 0, b - a, rows), self.colours.selected, 3.0, halo=self.colours.dark)
                 if full.n_heads > 1 else None)
        self.grids["c"].image.set_outlines({"head": frame})
        self.chosen_head = h

    def _on_head_changed(self, _head: int) -> None:
        if self.isVisible() and self._full is not None and self._full is self.session.full_result:
            self._show_chosen()
            self._refresh_detail()

    # ----- words under the picture --------------------------------------------------------------
    def work_cell(self, i: int, c: int, hovered: bool = False) -> None:
        """Write the numbers of query i's row and the worked sum of cell (i, c) of Y."""
        full = self._full
        self._worked = (i, c, hovered)
        self.worked_text = heads_view.projection_cell(full, i, c).text if full.scenario.w_o is not None else ""
        self._refresh_detail()

    def _row(self, values, spans=None) -> str:
        nums = [style.fmt(v, 2) for v in values]
        if spans is None:
            shown = nums if len(nums) <= ROW_NUMBERS else nums[:ROW_NUMBERS - 2] + ["…", nums[-1]]
            return ", ".join(shown)
        parts = []
        for h, (a, b) in enumerate(spans):
            block = nums[a:b]
            if len(block) > 6:
                block = block[:4] + ["…", block[-1]]
            parts.append(", ".join(block))
        if len(parts) > 8:
            parts = parts[:6] + ["…", parts[-1]]
        return " | ".join(parts)

    def _refresh_detail(self) -> None:
        full = self._full
        if full is None or self._worked is None:
            return
        i, c, hovered = self._worked
        s = full.scenario
        val, out = self.colours.ink["value"], self.colours.ink["output"]
        tok = html.escape(full.tokens[i])  # the line is rich text
        row_c = self._row(full.concat[i], heads_view.head_columns(full))
        lines = [f"Row {i + 1} ‘{tok}’: <span style='color:{val}'><b>C</b> = [{row_c}]</span>"]
        if s.w_o is not None:
            lines[0] += (f" → <span style='color:{out}'><b>Y</b> = [{self._row(full.projected[i])}]</span>")
            who = "Under the mouse" if hovered else "Worked"
            lines.append(f"{who}: y{c + 1} of ‘{tok}’ = row {i + 1} of C times column {c + 1} of W<sup>O</sup>: "
                         f"<span style='font-family:monospace'>{self.worked_text}</span>")
        elif self.session.model_doc is not None:
            lines.append("This row is one head's part of the model's C; the model's W<sup>O</sup> then mixes the "
                         f"{self.session.model_doc.model.info.n_heads} heads' parts.")
        else:
            lines.append("There is no W<sup>O</sup>, so this row of C is the output.")
        chosen = self.session.head
        if full.n_heads > 1:
            lines.append(f"The framed block is head {chosen + 1}, the head the other panels show. "
                         f"Rows of W<sup>O</sup> marked O<sub>h</sub> multiply head h's columns of C.")
        self._detail = "<br>".join(lines)
        self.detail.setText(self._detail)
        set_tooltip(self.canvas, self.worked_text)

    def _apply_texts(self) -> None:
        narrow = 0 < self.width() < 480
        note = self._note
        if note is not None:
            self.note.setText(note[1] if narrow else note[0])

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._apply_texts()
        full = self._full
        if full is not None and self.isVisible():
            self._set_columns(full.scenario.w_o is not None, full.concat.shape[1], full.projected.shape[1])

    def theme_changed(self, theme) -> None:
        for g in self.grids.values():
            g.image.set_theme_scale(theme.font_scale, theme.line_scale)
            g.labels.scale = theme.font_scale
            f = QtGui.QFont(self._font)
            f.setPointSizeF(TEXT_PT * theme.font_scale)
            g.metrics = QtGui.QFontMetricsF(f)
        for op in self.ops:
            op.setText(op.text, size=f"{OP_PT * theme.font_scale:g}pt")

    def colours_changed(self, palette) -> None:
        """A new palette: the grids' frames, and the titles written again (they are set only when their words
        or room change)."""
        for g in self.grids.values():
            g.colours = palette
        self._labels_key = None

    def text_scaled(self) -> None:
        """The theme has set the text sizes (and pyqtgraph made each label's minimum its whole text again):
        the labels go back to never widening their columns, and the columns are shared out again."""
        for item in (*self.titles.values(), *self.shapes.values(), *self.ops):
            item.setMinimumWidth(0)
        self._labels_key = None
        full = self._full
        if full is not None and self.session.full_result is full:
            self._set_columns(full.scenario.w_o is not None, full.concat.shape[1], full.projected.shape[1])

    # ----- mouse --------------------------------------------------------------------------------------
    def scene_pos_of(self, name: str, r: int, c: int) -> QtCore.QPointF:
        return self.grids[name].image.scene_pos_of(r, c)

    def hover(self, name: str, r: int, c: int | None) -> None:
        """What the mouse resting on cell (r, c) of grid ``name`` shows."""
        full = self._full
        if name == "y" and c is not None:
            self.hover_cell_ic = (r, c)
            self.work_cell(r, c, hovered=True)
            return
        if self.hover_cell_ic is not None:
            self.hover_cell_ic = None
            self.work_cell(self._selection.query, self.column)
        if c is None:
            return
        if name == "c":
            h = heads_view.head_of_column(full, c)
            a, _b = heads_view.head_columns(full)[h]
            self.canvas.setToolTip(f"C[{r + 1},{c + 1}] = {style.fmt(full.concat[r, c], 2)}: head {h + 1}'s output "
                                   f"for ‘{full.tokens[r]}’, number {c - a + 1}")
        elif name == "w_o":
            h = heads_view.head_of_column(full, r)
            self.canvas.setToolTip(f"W^O[{r + 1},{c + 1}] = {style.fmt(full.scenario.w_o[r, c], 2)}: how much "
                                   f"C's column {r + 1} (from head {h + 1}) adds to y{c + 1}")

    def _on_cell_left(self) -> None:
        """The mouse has left a grid's cells: unless it is on another grid's now, the worked cell is the
        selected row's again."""
        if any(g.image.hovered is not None for g in self.grids.values()):
            return
        if self.hover_cell_ic is not None and self._full is not None:
            self.hover_cell_ic = None
            self.work_cell(self._selection.query, self.column)

    def _on_cell_clicked(self, name: str, r: int, c: int) -> None:
        """A cell of C chooses its head and query; of Y or W^O, the column worked out; a name, its query."""
        if self._full is None or r < 0:
            return
        c = c if c >= 0 else None
        if name in ("y", "w_o") and c is not None:
            self.column = c  # the column of Y worked out from now on
        if name == "c" and c is not None:
            self.session.set_head(heads_view.head_of_column(self._full, c))
        if name in ("c", "y"):
            self.session.select(query=r)
        self.refresh()  # the worked column may change without any signal from the session
