"""2 · A grid mixes the dials: one token's input dials flowing through W^Q, W^K or W^V.

Left: the selected token's embedding x as horizontal bars (butter), one per
dial x1..x_dmodel, negative bars to the left of the zero line; a dial with a
name says it ("x3 · animate"). Right: the output cells q1.. (or k, v). Between
them a line from every dial to every output cell, labelled with the grid entry
W[r, c] it passes through; thicker and darker for bigger |W[r, c]|, dashed when
negative. The lines into the chosen output cell are drawn strongest. When the
grid has a bias, it is one more input (b^Q), its line into each cell labelled
with that cell's bias. Below: the worked sum of the hovered (or clicked) output
cell, from ``qkv_engine.explain.projection``.

A real model's token has hundreds of dials. Then only the few whose products
x_r W[r, c] are largest for the chosen cell are drawn (the same ones as in the
worked sum, ``qkv_engine.views.contributions``), and one more row says what
the others add up to: "the other 379 add up to -0.23".

Line labels go where they are clear: on no other label, and where no other line
crosses them (a label at a crossing could belong to either line). The lines of
another cell are labelled only when all of them can be.

W^Q always mixes the selected query token. In cross-attention W^K and W^V mix
the selected key token of the source sentence (keys and values come from it).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import explain, feature_names, views

from ...look import colours, style
from ...labels.changed_text import set_text, set_tooltip
from ..base import Panel
from ...drawing.plot_marks import paints_pixels
from ..mask_words import no_keys, no_keys_note
from ...labels.wrapped_label import WrappedLabel
from ...labels.steady_box import steady_box

Qt = QtCore.Qt

#: With more lines than this (dials x outputs), only the lines into the chosen output cell are drawn.
MAX_ALL_LINES = 600
#: With more dials than this, only the dials with the largest products for the chosen cell are drawn.
MAX_DIALS = 16
#: How many of those (as many as the worked sum names).
TOP_DIALS = explain.LARGEST_SHOWN
#: A dial's name takes at most this share of the canvas's width (longer names are shortened with "…").
NAME_SHARE = 0.3

#: Where a line's label is tried, as a share of the way from the dial to the cell, in order: the chosen cell's
#: lines (with one cell, its only cell's), then another cell's.
CHOSEN_TRIES = (0.3, 0.22, 0.38, 0.15, 0.46)
ONE_CELL_TRIES = (0.5, 0.35, 0.65, 0.25)
OTHER_TRIES = (0.55, 0.15, 0.75, 0.45, 0.65, 0.1, 0.25, 0.35, 0.85)
_ALL_TRIES = CHOSEN_TRIES + ONE_CELL_TRIES + OTHER_TRIES

#: (which, grid name, role) for the three switch positions.
GRIDS = (("q", "W^Q", "query"), ("k", "W^K", "key"), ("v", "W^V", "value"))


@dataclass(frozen=True, eq=False)
class MixingData:
    """What the canvas draws, as the panel hands it over (numbers from the result and the engine)."""

    names: tuple  # one per dial drawn: "x3", "x3 · animate"
    x: np.ndarray  # the dials' values
    grid: np.ndarray  # dials x outputs: the grid entries of the dials drawn
    out: np.ndarray  # every output coordinate
    which: str  # "q", "k" or "v"
    grid_name: str  # "W^Q"
    role: str  # "query"
    token: str
    col: int  # the chosen output cell
    from_source: bool = False  # the token is the source sentence's (cross-attention keys and values)
    rest: tuple | None = None  # (how many dials are not drawn, what their products add up to)
    bias: np.ndarray | None = None  # the bias of every output cell, or None when the grid has none
    out_names: tuple = ()  # each output cell's header when the scenario names its columns ("q1 · looks for ...")

    def key(self) -> tuple:
        """Everything drawn, for telling a new picture from the one shown."""
        arrays = tuple(None if a is None else (a.shape, a.tobytes()) for a in (self.x, self.grid, self.out, self.bias))
        return (self.names, arrays, self.which, self.grid_name, self.role, self.token, self.col, self.from_source,
                self.rest, self.out_names)


@dataclass
class MixingLayout:
    """Everything the canvas paints, in widget pixels (read-only for tests)."""

    inputs: list = field(default_factory=list)  # dicts: kind ("dial", "rest", "bias"), r, value, y, bar (QRectF),
    #                                               name, name_rect, text, label_visible, value_visible
    outputs: list = field(default_factory=list)  # dicts: c, value, rect (QRectF), text, label_visible
    lines: list = field(default_factory=list)  # dicts: r (input row), c, weight, p0, p1, width, alpha, dashed,
    #                                            strong, text, label_rect (QRectF or None)
    headers: list = field(default_factory=list)  # (QRectF, text, colour)
    zero_x: float = 0.0
    only_chosen: bool = False  # True when only the chosen cell's lines are drawn
    lines_key: tuple = ()  # everything the lines are drawn from (equal keys: the same lines)
    boxes_key: tuple = ()  # the labelled lines and their labels' boxes: (line number, (x, y, w, h)) each
    boxes_apart: bool = False  # the labels' boxes touch nothing painted after the lines but the cells


def _place(rects_in_order, taken=None):
    """Greedy: keep each rect that overlaps none kept before it. Returns a list of bools."""
    taken = [] if taken is None else taken
    keep = []
    for rect in rects_in_order:
        ok = all(not rect.intersects(t) for t in taken)
        if ok:
            taken.append(rect)
        keep.append(ok)
    return keep


def _crossed(rect: QtCore.QRectF, segments, own: int) -> bool:
    """Whether any segment but number ``own`` (rows x0, y0, x1, y1, each running left to right; a row of
    NaN stands for a line left out) passes through ``rect``. A handful of lines, tried at a few places
    each: plain arithmetic, not an array sum at every try."""
    if len(segments) < 2:
        return False
    drawn = [(k, *seg) for k, seg in enumerate(segments) if seg[0] == seg[0]]  # (a line left out is NaN)
    return _crosses(rect.getCoords(), drawn, own)


def _crosses(coords, drawn, own: int) -> bool:
    """``_crossed`` for a rect's (left, top, right, bottom) and the lines drawn as (number, x0, y0, x1, y1)."""
    r_left, r_top, r_right, r_bottom = coords
    for k, x0, y0, x1, y1 in drawn:
        if k == own:  # its own line
            continue
        left = r_left if r_left > x0 else x0
        right = r_right if r_right < x1 else x1
        if not left < right:
            continue
        span = x1 - x0 if x1 > x0 else 1.0
        ya = y0 + (y1 - y0) * (left - x0) / span  # the line's height where it enters and leaves the rect
        yb = y0 + (y1 - y0) * (right - x0) / span
        if (ya > r_top or yb > r_top) and (ya < r_bottom or yb < r_bottom):
            return True
    return False


def _fainter(colour: QtGui.QColor, dark: bool) -> QtGui.QColor:
    """``colour`` drawn fainter: nearer the background (lighter on a light one, darker on a dark one)."""
    return colour.darker(135) if dark else colour.lighter(160)


LEFT_MID = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
ALIGN_RIGHT = int(Qt.AlignmentFlag.AlignRight)
ALIGN_H_CENTRE = int(Qt.AlignmentFlag.AlignHCenter)
PLAIN, BOLD, ITALIC = 0, 1, 2  # the canvas's fonts (``_Fonts``)
CENTRE = int(Qt.AlignmentFlag.AlignCenter)
#: The headers' alignments: "x of ..." on the left, "lines = ..." in the middle, "q = x W^Q" on the right.
HEADER_ALIGNS = tuple(int(a | Qt.AlignmentFlag.AlignVCenter) for a in
                      (Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignCenter, Qt.AlignmentFlag.AlignRight))


class _Fonts:
    """The canvas's font with its bold and italic, their metrics, and the widths and shortened forms of the
    texts measured in them: made once per font (names, numbers and headers mostly repeat between edits)."""

    LIMIT = 4096  # texts remembered per table before it starts afresh

    def __init__(self, font: QtGui.QFont):
        self.key = font.key()
        self.plain = QtGui.QFont(font)
        self.bold = QtGui.QFont(font)
        self.bold.setBold(True)
        self.italic = QtGui.QFont(font)
        self.italic.setItalic(True)
        self.fm = QtGui.QFontMetricsF(self.plain)
        self.fmb = QtGui.QFontMetricsF(self.bold)
        self.fmi = QtGui.QFontMetricsF(self.italic)
        self.lh = self.fm.height()
        self._widths = ({}, {}, {})  # plain, bold, italic: text -> width
        self._elided = {}  # (bold, text, width) -> the text shortened to that width
        self._laid_out = {}  # (PLAIN, BOLD or ITALIC, text) -> the text laid out once (``draw``) ...
        self._seen = set()  # ... when it is drawn a second time (a number that changes at each edit is not)

    def _measure(self, which: int, metrics: QtGui.QFontMetricsF, text: str) -> float:
        table = self._widths[which]
        w = table.get(text)
        if w is None:
            if len(table) > self.LIMIT:
                table.clear()
            w = table[text] = metrics.horizontalAdvance(text)
        return w

    def width(self, text: str) -> float:
        return self._measure(0, self.fm, text)

    def bold_width(self, text: str) -> float:
        return self._measure(1, self.fmb, text)

    def italic_width(self, text: str) -> float:
        return self._measure(2, self.fmi, text)

    def draw(self, p: QtGui.QPainter, rect: QtCore.QRectF, align: int, text: str, which: int = 0) -> None:
        """``p.drawText(rect, align, text)`` in the font ``which`` (PLAIN, BOLD, ITALIC; the painter's font),
        the same pixels from the text laid out once, when the line fits ``rect`` (else as drawText, which
        clips it there)."""
        tw = self._measure(which, (self.fm, self.fmb, self.fmi)[which], text)
        room = rect.width() - tw
        if room < 0 or rect.height() < self.lh:
            p.drawText(rect, align, text)
            return
        key = (which, text)
        laid = self._laid_out.get(key)
        if laid is None:
            if key not in self._seen:
                if len(self._seen) > self.LIMIT:
                    self._seen.clear()
                self._seen.add(key)
                p.drawText(rect, align, text)
                return
            if len(self._laid_out) > self.LIMIT:
                self._laid_out.clear()
            laid = self._laid_out[key] = QtGui.QStaticText(text)
            laid.setTextFormat(Qt.TextFormat.PlainText)
            laid.prepare(QtGui.QTransform(), (self.plain, self.bold, self.italic)[which])
        x = rect.left()
        if align & ALIGN_RIGHT:
            x += room
        elif align & ALIGN_H_CENTRE:
            x += room / 2
        p.drawStaticText(QtCore.QPointF(x, rect.top() + (rect.height() - self.lh) / 2), laid)

    def elided(self, text: str, width: float, bold: bool = False) -> str:
        """``text`` cut with "…" to fit ``width`` (as ``QFontMetricsF.elidedText``)."""
        key = (bold, text, width)
        out = self._elided.get(key)
        if out is None:
            if len(self._elided) > self.LIMIT:
                self._elided.clear()
            out = self._elided[key] = (self.fmb if bold else self.fm).elidedText(text, Qt.TextElideMode.ElideRight,
                                                                                 width)
        return out


class MixingCanvas(QtWidgets.QWidget):
    """Paints the dials, the lines and the output cells; reports hovered and clicked cells."""

    cellHovered = QtCore.Signal(object)  # output index or None
    cellClicked = QtCore.Signal(int)
    roomChanged = QtCore.Signal()  # a resize changed how many input rows fit (``rows_that_fit``)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("mixingCanvas")
        self.setMouseTracking(True)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # every pixel is painted (the background first)
        self.setMinimumSize(160, 90)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)
        self.data: MixingData | None = None
        self._key = None  # what is drawn now (an edit elsewhere leaves it as it is)
        self._layout: MixingLayout | None = None
        self._hover = None
        self._room = None
        self.colours = style.STANDARD  # the panel's palette (``set_colours``)
        self._fonts_made: _Fonts | None = None  # the font's metrics and measured texts (``_fonts``)
        self._placed = None  # (what the line labels were placed from, where they went): ``_label_lines``
        self._kit = None  # (palette, role, the colours and pens painted with): ``_paint_kit``
        self._layer = None  # (what it shows, the background with the lines on it): ``_lines_layer``
        self._apart = None  # (the labels' boxes, whether they lie apart): ``_boxes_apart``

    def set_colours(self, palette: style.Palette) -> None:
        """Paint in ``palette`` from now on (the next paint)."""
        self.colours = palette
        self._layout = None  # (its headers hold their colours)
        self.update()

    # ----- data ----------------------------------------------------------------------------
    def set_data(self, data: MixingData) -> None:
        key = data.key()
        if key == self._key:
            return  # an edit elsewhere (another token's numbers): this picture stays as drawn
        self._key = key
        self.data = data
        self._layout = None
        self.update()

    @property
    def from_source(self) -> bool:
        return self.data is not None and self.data.from_source

    def layout_now(self) -> MixingLayout:
        if self._layout is None:
            self._layout = self._compute_layout(self.width(), self.height())
        return self._layout

    def _fonts(self) -> _Fonts:
        """The font's metrics and measured texts, made again when the font is another."""
        made = self._fonts_made
        if made is None or made.key != self.font().key():
            made = self._fonts_made = _Fonts(self.font())
        return made

    def rows_that_fit(self) -> int:
        """How many input rows of text fit the canvas's height now (each a line high, under the headers)."""
        lh = self._fonts().lh
        return max(1, int((self.height() - lh - 10) // lh))

    def _check_room(self) -> None:
        room = self.rows_that_fit()
        if room != self._room:
            self._room = room
            self.roomChanged.emit()

    def resizeEvent(self, event):
        self._layout = None
        super().resizeEvent(event)
        self._check_room()

    def changeEvent(self, event):
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._layout = None
            self._fonts_made = None
            self.update()
            self._check_room()
        super().changeEvent(event)

    # ----- geometry --------------------------------------------------------------------------
    def _compute_layout(self, w: int, h: int) -> MixingLayout:
        lay = MixingLayout()
        data = self.data
        if data is None or len(data.x) == 0 or len(data.out) == 0:
            return lay
        which, col = data.which, data.col
        d_out = len(data.out)
        fonts = self._fonts()
        lh = fonts.lh
        pad = 4.0
        head_h = lh + 4
        top, bottom = head_h + 2, h - pad
        avail = max(10.0, bottom - top)

        # the input rows: the dials, then what the others add up to, then the bias
        rows = [{"kind": "dial", "r": r, "value": float(v), "name": data.names[r]} for r, v in enumerate(data.x)]
        if data.rest is not None:
            count, total = data.rest
            rows.append({"kind": "rest", "r": None, "value": float(total), "count": count,
                         "name": f"the other {count} add up to {style.fmt(total, 2)}"})
        if data.bias is not None:
            rows.append({"kind": "bias", "r": None, "value": 1.0, "name": f"b^{data.grid_name[-1]}"})
        dial_rows = [row for row in rows if row["kind"] == "dial"]

        name_cap = max(24.0, NAME_SHARE * w)
        name_w = min(name_cap, max(fonts.width(row["name"]) for row in rows if row["kind"] != "rest") + 6)
        values = [style.fmt(row["value"], 2) for row in dial_rows]
        value_w = max(fonts.width(t) for t in values) + 6
        bar_w = max(30.0, min(12.0 * lh, 0.2 * w))
        in_left = pad
        bar_left = in_left + name_w
        value_left = bar_left + bar_w + 2
        anchor_in = value_left + value_w + 4

        out_texts = [f"{which}{c + 1} = {style.fmt(v, 2)}" for c, v in enumerate(data.out)]
        cell_w = max(fonts.bold_width(t) for t in out_texts) + 14
        cell_w = max(44.0, min(cell_w, 0.3 * w))
        out_left = w - pad - cell_w
        anchor_out = out_left - 4

        # headers: the output's rule as wide as it needs (within reason), the lines' name in what is left
        lay.headers.append((QtCore.QRectF(in_left, 1, anchor_in - in_left, head_h),
                            f"x of '{data.token}'" + (" (source)" if data.from_source else ""),
                            self.colours.ink["x"]))
        only_chosen = data.rest is not None or len(dial_rows) * d_out > MAX_ALL_LINES
        lay.only_chosen = only_chosen
        rule = f"{which} = x {data.grid_name}" + (f" + b^{data.grid_name[-1]}" if data.bias is not None else "")
        rule_w = min(max(cell_w + 20, fonts.bold_width(rule) + 4), 0.45 * w)
        lines_w = max(0.0, w - pad - rule_w - 6 - anchor_in)  # ends before the output header begins
        lines_head = ""  # the longest wording that fits, or none
        for text in ((f"lines = {data.grid_name} (into {which}{col + 1} only)", f"lines = {data.grid_name}",
                      data.grid_name) if only_chosen else (f"lines = {data.grid_name}", data.grid_name)):
            if fonts.bold_width(text) <= lines_w:
                lines_head = text
                break
        lay.headers.append((QtCore.QRectF(anchor_in, 1, lines_w, head_h), lines_head, self.colours.foreground))
        lay.headers.append((QtCore.QRectF(w - pad - rule_w, 1, rule_w, head_h), rule, self.colours.ink[data.role]))

        # inputs: one row each
        n_in = len(rows)
        row_in = avail / n_in
        if row_in < lh:  # crowded: keep the first and last labels inside the canvas
            top_in, row_in = top + lh / 2, max(0.5, (avail - lh) / n_in)
        else:
            top_in = top
        biggest = max(1e-12, max(abs(row["value"]) for row in dial_rows))
        zero_x = bar_left + bar_w / 2
        lay.zero_x = zero_x
        thick = max(1.0, min(0.7 * row_in, 1.4 * lh))
        name_rects = []
        in_ys = []
        for k, row in enumerate(rows):
            y = top_in + (k + 0.5) * row_in
            in_ys.append(y)
            v = row["value"]
            if row["kind"] == "dial":
                length = (bar_w / 2 - 1) * abs(v) / biggest
                x0 = zero_x if v >= 0 else zero_x - length
                bar = QtCore.QRectF(x0, y - thick / 2, max(length, 0.0), thick)
                rect = QtCore.QRectF(in_left, y - lh / 2, name_w, lh)
                name = fonts.elided(row["name"], name_w - 4)
                text = values[k]  # (the dials come first)
            else:  # a row of words, no bar
                bar = QtCore.QRectF(zero_x, y, 0.0, 0.0)
                width = (anchor_in - 6 - in_left) if row["kind"] == "rest" else name_w
                rect = QtCore.QRectF(in_left, y - lh / 2, width, lh)
                name = row["name"]
                text = ""
                if row["kind"] == "rest":  # the sum is never cut: fewer words first
                    total = style.fmt(v, 2)
                    for text in (name, f"other {row['count']}: {total}", f"+{row['count']}: {total}", total):
                        name = text
                        if fonts.italic_width(text) <= width - 4:
                            break
                    text = ""
                else:
                    name = fonts.elided(name, width - 4)
            name_rects.append(rect)
            row.update(y=y, bar=bar, name=name, full_name=row["name"], name_rect=rect, text=text,
                       anchor=QtCore.QPointF(anchor_in, y))
            lay.inputs.append(row)
        keep = _place(name_rects)
        for item, ok in zip(lay.inputs, keep):
            item["label_visible"] = ok
            item["value_visible"] = ok and row_in >= lh and item["kind"] == "dial"  # crowded: the sum below says it

        # outputs: one cell per coordinate
        row_out = avail / d_out
        if row_out < lh:
            top_out, row_out = top + lh / 2, max(0.5, (avail - lh) / d_out)
        else:
            top_out = top
        cell_h = max(2.0, min(0.8 * row_out, 2.2 * lh))
        out_rects = []
        out_ys = []
        for c, v in enumerate(data.out):
            y = top_out + (c + 0.5) * row_out
            out_ys.append(y)
            rect = QtCore.QRectF(out_left, y - cell_h / 2, cell_w, cell_h)
            out_rects.append(rect)
            lay.outputs.append({"c": c, "value": float(v), "rect": rect, "text": out_texts[c],
                                "anchor": QtCore.QPointF(anchor_out, y)})
        fits = cell_h >= lh
        if fits:  # every cell's words inside it
            for item in lay.outputs:
                item["label_visible"] = True
        else:  # the chosen cell's first, then the others' where they are clear of those kept
            text_rects = [QtCore.QRectF(out_left, r.center().y() - lh / 2, cell_w, lh) for r in out_rects]
            order = [col] + [c for c in range(d_out) if c != col]
            for c, ok in zip(order, _place([text_rects[c] for c in order])):
                lay.outputs[c]["label_visible"] = ok

        # lines: every input row to every output (or only to the chosen one)
        weights = np.asarray(data.grid, dtype=np.float64)
        if data.bias is not None:
            weights = np.vstack([weights, np.asarray(data.bias, dtype=np.float64)[None, :]])
        biggest_w = max(1e-12, float(np.max(np.abs(weights))) if weights.size else 0.0)
        many = n_in * d_out > 400
        wired = [k for k, row in enumerate(lay.inputs) if row["kind"] != "rest"]  # rows with a grid entry per cell
        grid_row = {k: m for m, k in enumerate(wired)}
        for c in range(d_out):
            strong = c == col
            if only_chosen and not strong:
                continue
            for k, row in enumerate(lay.inputs):
                if row["kind"] == "rest":
                    if strong:
                        lay.lines.append({"r": k, "c": c, "weight": None, "p0": row["anchor"],
                                          "p1": lay.outputs[c]["anchor"], "width": 1.0, "alpha": 0.6,
                                          "dashed": True, "strong": False, "rest": True, "text": "",
                                          "label_rect": None})
                    continue
                wv = float(weights[grid_row[k], c])
                mag = abs(wv) / biggest_w
                lay.lines.append({
                    "r": k, "c": c, "weight": wv, "p0": row["anchor"], "p1": lay.outputs[c]["anchor"],
                    "width": (0.6 + 3.4 * mag) * (1.0 if strong else (0.5 if many else 0.8)),
                    "alpha": (0.3 + 0.7 * mag) if strong else ((0.03 + 0.1 * mag) if many else (0.15 + 0.35 * mag)),
                    "dashed": wv < 0 and (strong or not many), "strong": strong, "rest": False,
                    "text": explain.trimmed(wv, 2), "label_rect": None,
                })
        ys = (tuple(in_ys), tuple(out_ys))
        lay.lines_key = (anchor_in, anchor_out, ys, tuple(row["kind"] for row in rows), weights.shape,
                         weights.tobytes(), col, only_chosen)
        self._place_labels(lay, fonts, anchor_in, anchor_out, name_rects, ys, d_out, col)
        boxes = [(m, ln["label_rect"]) for m, ln in enumerate(lay.lines) if ln["label_rect"] is not None]
        lay.boxes_key = tuple((m, rect.getRect()) for m, rect in boxes)
        lay.boxes_apart = self._boxes_apart(lay.boxes_key, [rect for _m, rect in boxes], anchor_in, ys[0], head_h)
        return lay

    def _place_labels(self, lay, fonts, anchor_in, anchor_out, name_rects, ys, d_out, col) -> None:
        """The line labels where ``_label_lines`` puts them; the same places as last time when nothing they
        depend on moved (an edit of the token's numbers changes its bars and cells' words, not the lines; a
        weight's new label as wide as its old one takes the same place)."""
        lines = lay.lines
        if anchor_out - anchor_in <= 40 or not lines:
            return
        # the labels' boxes lie between these: what lies wholly outside is never in their way (the names, the
        # bars, mostly the output cells)
        width = fonts.width
        half = (max(width(ln["text"]) for ln in lines) + 6) / 2 + 1
        lo = anchor_in + min(_ALL_TRIES) * (anchor_out - anchor_in) - half
        hi = anchor_in + max(_ALL_TRIES) * (anchor_out - anchor_in) + half
        taken = [t for t in name_rects + [o["rect"] for o in lay.outputs] + [i["bar"] for i in lay.inputs]
                 if max(t.left(), t.right()) > lo and min(t.left(), t.right()) < hi]
        key = (fonts.key, anchor_in, anchor_out, ys, d_out, col,
               tuple((ln["r"], ln["c"], width(ln["text"]), ln["strong"], ln["rest"]) for ln in lines),  # (a new
               # weight as wide as the old one leaves every place as it was)
               tuple(t.getRect() for t in taken))
        if self._placed is not None and self._placed[0] == key:
            for m, rect in self._placed[1]:
                lines[m]["label_rect"] = QtCore.QRectF(*rect)
            return
        self._label_lines(lay, fonts, anchor_in, anchor_out, taken, d_out, col)
        self._placed = (key, [(m, ln["label_rect"].getRect()) for m, ln in enumerate(lines)
                              if ln["label_rect"] is not None])

    @staticmethod
    def _label_lines(lay, fonts, anchor_in, anchor_out, taken, d_out, col) -> None:
        """Line labels: the chosen cell's lines first, then whole other fans while they fit; never on another
        label, and (where there is a choice) never where another line crosses."""
        if anchor_out - anchor_in <= 40:
            return
        lh = fonts.lh
        taken = [QtCore.QRectF(t) for t in taken]
        lines = lay.lines
        segments = [ln["p0"].toTuple() + ln["p1"].toTuple() for ln in lines]

        widths = {}  # a label's width, measured once for all the places tried

        def rect_at(m, t):
            x0, y0, x1, y1 = segments[m]
            cx = x0 + t * (x1 - x0)
            cy = y0 + t * (y1 - y0)
            text = lines[m]["text"]
            tw = widths.get(text)
            if tw is None:
                tw = widths[text] = fonts.width(text) + 6
            return QtCore.QRectF(cx - tw / 2, cy - lh / 2, tw, lh)

        # the strong and the faint ones among the lines a label may not cross, worked out once for each
        # choice of lines (every line, or the strong ones only) rather than at each place tried (``_crosses``
        # takes each line with its number)
        numbered = [(m, *seg) for m, seg in enumerate(segments)] if len(segments) > 1 else []
        strong_only = [seg for seg, ln in zip(numbered, lines) if ln["strong"]]
        faint_only = [seg for seg, ln in zip(numbered, lines) if not ln["strong"]]
        split = {id(segments): (strong_only, faint_only), id(strong_only): (strong_only, ())}

        def clear(rect, number, placed, crossing=segments) -> bool:
            """On no label placed, and none of the ``crossing`` lines but its own through it: no strong line
            through its box, no faint one through its words (a faint line grazing the box's margin leaves no
            doubt which line the label sits on)."""
            for r in placed:
                if rect.intersects(r):
                    return False
            strong, faint = split[id(crossing)]
            return not _crosses(rect.getCoords(), strong, number) \
                and not _crosses(rect.adjusted(3, 3, -3, -3).getCoords(), faint, number)

        by_col = {c: [] for c in range(d_out)}
        for m, ln in enumerate(lines):
            if not ln["rest"]:
                by_col[ln["c"]].append((m, ln))
        # the chosen fan: near the dials, where its lines are spread widest; nearer or further where that is
        # clear of every other line, else of the other strong lines (the faint ones are not what a reader
        # follows), else of the other labels only
        tries = CHOSEN_TRIES if d_out > 1 else ONE_CELL_TRIES
        for m, ln in by_col[col]:
            rects = [rect_at(m, t) for t in tries]
            rect = next((r for r in rects if clear(r, m, taken)), None) \
                or next((r for r in rects if clear(r, m, taken, strong_only)), None) \
                or next((r for r in rects if not any(r.intersects(q) for q in taken)), None)
            if rect is not None:
                taken.append(rect)
                ln["label_rect"] = rect
        # other fans, each at its own distance along the lines, only if the whole fan fits and is clear
        if not all(ln["label_rect"] is not None for _m, ln in by_col[col]):
            return
        for c in (c for c in range(d_out) if c != col):
            trial, rects = list(taken), []
            for m, ln in by_col[c]:  # each line at the first clear place along it, the middle first
                rect = next((r for r in (rect_at(m, t) for t in OTHER_TRIES)
                             if clear(r, m, trial)), None)
                if rect is None:
                    break
                trial.append(rect)
                rects.append(rect)
            else:
                taken[:] = trial
                for (_m, ln), rect in zip(by_col[c], rects):
                    ln["label_rect"] = rect

    # ----- painting --------------------------------------------------------------------------
    def _paint_kit(self, pal: style.Palette, role: str) -> dict:
        """The colours and pens of one palette and role, made once (not at every paint)."""
        if self._kit is not None and self._kit[0] is pal and self._kit[1] == role:
            return self._kit[2]
        colour = QtGui.QColor
        ink, fill, muted = colour(pal.ink[role]), colour(pal.fill[role]), colour(pal.muted)
        kit = {
            "background": colour(pal.background), "ink": ink, "fill": fill, "muted": muted,
            "faint_fill": fill.darker(130), "on_fill": colour(pal.on_fill[role]), "on_chosen": colour(pal.dark_ink),
            "ink_x": colour(pal.ink["x"]), "fill_x": colour(pal.fill["x"]), "soft_text": colour(pal.soft_text),
            "foreground": colour(pal.foreground), "label_box": colour(*pal.label_box),
            "faint_text": _fainter(colour(pal.foreground), pal.dark),
            "cell_fill": fill.lighter(115), "box_fill": fill.lighter(120),
            "zero_pen": QtGui.QPen(muted, 1), "bar_pen": QtGui.QPen(colour(pal.ink["x"]), 1),
            "chosen_pen": QtGui.QPen(colour(pal.selected), 2), "cell_pen": QtGui.QPen(colour(pal.ink[role]), 1),
            "box_pen": QtGui.QPen(colour(pal.selected), 1),
            "lines": {},  # (rest, strong, dashed, width, alpha) -> the line's pen
        }
        hovered = QtGui.QPen(kit["cell_pen"])
        hovered.setStyle(Qt.PenStyle.DashLine)
        kit["hovered_pen"] = hovered
        for strong in (False, True):  # the line labels' outlines
            for dashed in (False, True):
                pen = QtGui.QPen(ink if strong else muted, 1)
                if dashed:
                    pen.setStyle(Qt.PenStyle.DashLine)
                kit["label", strong, dashed] = pen
        self._kit = (pal, role, kit)
        return kit

    @staticmethod
    def _line_pen(kit: dict, ln: dict) -> QtGui.QPen:
        """A line's pen: its colour, width, dashes (kept for the next paint: the lines mostly stay)."""
        rest, strong, dashed, width, alpha = ln["rest"], ln["strong"], ln["dashed"], ln["width"], ln["alpha"]
        key = (rest, strong, dashed, width, alpha)
        pens = kit["lines"]
        pen = pens.get(key)
        if pen is None:
            if rest:
                colour = QtGui.QColor(kit["muted"])
            else:
                colour = QtGui.QColor(kit["ink"] if strong else kit["faint_fill"])
            colour.setAlphaF(max(0.0, min(1.0, alpha)))
            pen = QtGui.QPen(colour, width)
            if rest:
                pen.setStyle(Qt.PenStyle.DotLine)
            elif dashed:
                pen.setStyle(Qt.PenStyle.CustomDashLine)
                pen.setDashPattern([4.0 / max(width, 1.0) + 1.5, 3.0 / max(width, 1.0) + 1.0])
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            if len(pens) > 4096:
                pens.clear()
            pens[key] = pen
        return pen

    def _draw_lines(self, p: QtGui.QPainter, lay: MixingLayout, kit: dict) -> None:
        """The lines from the dials to the cells: faint ones first, the chosen fan on top."""
        line_pen = self._line_pen
        for strong in (False, True):
            for ln in lay.lines:
                if ln["strong"] is strong:
                    p.setPen(line_pen(kit, ln))
                    p.drawLine(ln["p0"], ln["p1"])

    def _boxes_apart(self, key: tuple, rects: list, anchor_in: float, dots: tuple, head_h: float) -> bool:
        """Whether the labels' boxes, with their edges' shading, touch nothing painted after the lines but the
        output cells, nor each other's words: right of the dials' bars, names and values (all end 4 pixels
        before ``anchor_in``), off the dots at ``anchor_in`` (heights ``dots``), below the headers (``head_h``
        high), a pixel apart. Then painted before those and before each other's words, every pixel comes out
        as when painted after them."""
        key = (key, anchor_in, dots, head_h)
        if self._apart is not None and self._apart[0] == key:
            return self._apart[1]
        apart = all(r.left() > anchor_in - 2 and r.top() > head_h + 3 for r in rects)
        if apart:
            near = [r.adjusted(-2, -2, 2, 2) for r in rects if r.left() < anchor_in + 5.5]  # in the dots' column
            grown = [r.adjusted(-1, -1, 1, 1) for r in rects]  # (two boxes more than two pixels apart)
            apart = not any(g.intersects(QtCore.QRectF(anchor_in - 3.5, y - 3.5, 7, 7)) for g in near for y in dots) \
                and not any(a.intersects(b) for i, a in enumerate(grown) for b in grown[i + 1:])
        self._apart = (key, apart)
        return apart

    @staticmethod
    def _draw_boxes(p: QtGui.QPainter, lay: MixingLayout, kit: dict) -> None:
        """The line labels' boxes: white, outlined like their lines."""
        p.setBrush(kit["label_box"])
        for ln in lay.lines:
            rect = ln["label_rect"]
            if rect is not None:
                p.setPen(kit["label", ln["strong"], ln["dashed"]])
                p.drawRoundedRect(rect, 3, 3)

    def _lines_layer(self, lay: MixingLayout, kit: dict, many: bool) -> QtGui.QImage:
        """The background with the lines on it (and the labels' boxes, when they lie apart from all else), the
        canvas's size: kept while the lines, their labels and the look stay."""
        key = (lay.lines_key, self.width(), self.height(), self._kit[0], self._kit[1], many,
               lay.boxes_key if lay.boxes_apart else None)
        if self._layer is not None and self._layer[0] == key:
            return self._layer[1]
        image = self._layer[1] if self._layer is not None else None
        size = QtCore.QSize(max(1, self.width()), max(1, self.height()))
        if image is None or image.size() != size:  # (the same size: painted over, not made again)
            image = QtGui.QImage(size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        q = QtGui.QPainter(image)
        q.fillRect(image.rect(), kit["background"])
        q.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, not many)
        self._draw_lines(q, lay, kit)
        if lay.boxes_apart:
            self._draw_boxes(q, lay, kit)
        q.end()
        self._layer = (key, image)
        return image

    def paintEvent(self, event):
        lay = self.layout_now()
        p = QtGui.QPainter(self)
        pal = self.colours
        kit = self._paint_kit(pal, self.data.role if self.data is not None else "query")
        if not lay.inputs:
            p.fillRect(self.rect(), kit["background"])
            p.end()
            return
        col = self.data.col
        many = len(lay.lines) > 400
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, not many)
        fonts = self._fonts()
        plain, lh = fonts.plain, fonts.lh

        # the background and the lines (faint ones first, the chosen fan on top), as painted last time when
        # they stay (an edit of the token's numbers, a hovered cell); painted afresh onto a scaled or vector
        # device (an export)
        to = p.deviceTransform()  # (and at a whole pixel: the layer is copied pixel for pixel)
        screen = paints_pixels(p) and to.dx().is_integer() and to.dy().is_integer()
        if screen:
            p.drawImage(0, 0, self._lines_layer(lay, kit, many))
            text = partial(fonts.draw, p)  # words laid out once, drawn as drawText draws them
        else:
            p.fillRect(self.rect(), kit["background"])
            self._draw_lines(p, lay, kit)
            text = lambda rect, align, words, _font=PLAIN: p.drawText(rect, align, words)  # noqa: E731

        # headers, in bold (and measured in bold, so an elided header is never cut); the lines begin below them
        p.setFont(fonts.bold)
        for (rect, words, colour), align in zip(lay.headers, HEADER_ALIGNS):  # x of ..., lines = ..., q = x W^Q
            if not words:
                continue
            p.setPen(QtGui.QColor(colour))
            text(rect, align, fonts.elided(words, rect.width(), bold=True), BOLD)
        p.setFont(plain)

        # zero line of the dials
        dials = [item for item in lay.inputs if item["kind"] == "dial"]
        p.setPen(kit["zero_pen"])
        p.drawLine(QtCore.QPointF(lay.zero_x, dials[0]["bar"].top() - 2),
                   QtCore.QPointF(lay.zero_x, dials[-1]["bar"].bottom() + 2))

        # input rows: bars and names
        no_pen = Qt.PenStyle.NoPen
        bar_pen, fill_x, ink_x, ink = kit["bar_pen"], kit["fill_x"], kit["ink_x"], kit["ink"]
        for item in lay.inputs:
            kind = item["kind"]
            if kind == "dial":
                bar = item["bar"]
                p.setPen(bar_pen if bar.height() > 3 else no_pen)
                p.setBrush(fill_x)
                p.drawRect(bar)
            dot = kit["muted"] if kind == "rest" else (ink if kind == "bias" else ink_x)
            p.setPen(dot)
            p.setBrush(dot)
            p.drawEllipse(item["anchor"], 2.0, 2.0)
            if item["label_visible"]:
                if kind == "rest":
                    p.setPen(kit["soft_text"])
                    p.setFont(fonts.italic)
                    text(item["name_rect"], LEFT_MID, item["name"], ITALIC)
                    p.setFont(plain)
                else:
                    p.setPen(ink_x if kind == "dial" else ink)
                    text(item["name_rect"], LEFT_MID, item["name"])
            if item["value_visible"]:
                p.setPen(kit["foreground"])
                value = item["text"]
                if item["value"] < 0:
                    tx = lay.zero_x + 3
                else:
                    tx = max(lay.zero_x + (item["bar"].width() + 3), lay.zero_x + 3)
                text(QtCore.QRectF(tx, item["y"] - lh / 2, fonts.width(value) + 4, lh), LEFT_MID, value)

        # line labels: a white box on the line, outlined like the line (the boxes already there when painted
        # with the lines), the weight on it
        boxed = screen and lay.boxes_apart
        p.setBrush(kit["label_box"])
        faint_text = kit["faint_text"]
        for ln in lay.lines:
            rect = ln["label_rect"]
            if rect is None:
                continue
            strong = ln["strong"]
            if not boxed:
                p.setPen(kit["label", strong, ln["dashed"]])
                p.drawRoundedRect(rect, 3, 3)
            p.setPen(ink if strong else faint_text)
            text(rect, CENTRE, ln["text"])

        # output cells
        hover = self._hover
        cell_fill, fill = kit["cell_fill"], kit["fill"]
        for item in lay.outputs:
            chosen = item["c"] == col
            p.setBrush(cell_fill if not chosen else fill)
            if item["rect"].height() <= 3:
                p.setPen(no_pen)
            elif chosen:
                p.setPen(kit["chosen_pen"])
            else:
                p.setPen(kit["hovered_pen"] if item["c"] == hover else kit["cell_pen"])
            p.drawRoundedRect(item["rect"], 3, 3)
        on_fill, on_chosen = kit["on_fill"], kit["on_chosen"]
        for item in lay.outputs:  # labels after all cells: when crowded they sit on a box over the neighbours
            if item["label_visible"]:
                chosen = item["c"] == col
                rect = item["rect"]
                box = QtCore.QRectF(rect.left(), rect.center().y() - lh / 2, rect.width(), lh)
                if rect.height() < lh:
                    p.setPen(kit["box_pen"] if chosen else kit["cell_pen"])
                    p.setBrush(kit["box_fill"] if not chosen else fill)
                    p.drawRoundedRect(box, 3, 3)
                p.setPen(on_chosen if chosen else on_fill)
                p.setFont(fonts.bold if chosen else plain)
                text(box, CENTRE, item["text"], BOLD if chosen else PLAIN)
                p.setFont(plain)
        p.end()

    # ----- mouse -----------------------------------------------------------------------------
    def cell_at(self, pos: QtCore.QPointF):
        """The output cell under ``pos`` (the whole row band counts), or None."""
        lay = self.layout_now()
        if not lay.outputs:
            return None
        left = lay.outputs[0]["rect"].left() - 6
        if pos.x() < left:
            return None
        best = min(lay.outputs, key=lambda o: abs(o["rect"].center().y() - pos.y()))
        return best["c"]

    def mouseMoveEvent(self, event):
        pos = event.position()
        lay = self.layout_now()
        tip = ""
        if lay.inputs and pos.x() <= lay.inputs[0]["anchor"].x() + 4:
            row = min(lay.inputs, key=lambda d: abs(d["y"] - pos.y()))
            tip = row["full_name"] + (f" = {row['text']}" if row["kind"] == "dial" else "")
        elif lay.outputs and pos.x() >= lay.outputs[0]["rect"].left() - 6:
            c = self.cell_at(pos)
            name = self.data.out_names[c] if c is not None and self.data.out_names else ""
            tip = (f"{name}\n" if name else "") + "Click to show how this number is made"
        self.setToolTip(tip)
        c = self.cell_at(pos)
        if c != self._hover:
            self._hover = c
            self.setCursor(Qt.CursorShape.PointingHandCursor if c is not None else Qt.CursorShape.ArrowCursor)
            self.cellHovered.emit(c)
            self.update()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event):
        if self._hover is not None:
            self._hover = None
            self.cellHovered.emit(None)
            self.update()
        super().leaveEvent(event)

    def mousePressEvent(self, event):
        c = self.cell_at(event.position())
        if c is not None and event.button() == Qt.MouseButton.LeftButton:
            self.cellClicked.emit(c)
            event.accept()
            return
        super().mousePressEvent(event)


class MixingPanel(Panel):
    object_name = "mixingPanel"
    title = "2 · A grid mixes the dials"
    follows_colours = True

    def build(self, body):
        self._which = "q"
        self._col = 0
        self._hover = None
        self._result = None
        self._token_index = 0
        self._explanation = None  # the worked sum shown under the picture
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(2)

        top = QtWidgets.QHBoxLayout()
        top.setSpacing(6)
        self.switch = QtWidgets.QTabBar(body)
        self.switch.setObjectName("mixingGridSwitch")
        self.switch.setDrawBase(False)
        self.switch.setExpanding(False)
        self.switch.setDocumentMode(True)
        for which, name, role in GRIDS:
            idx = self.switch.addTab(f"{name} → {which}")
            self.switch.setTabToolTip(idx, f"Show how x is mixed by the grid {name} into the {role} {which}")
        self.switch.currentChanged.connect(self._on_switch)
        top.addWidget(self.switch)
        top.addStretch(1)
        layout.addLayout(top)

        self.canvas = MixingCanvas(body)
        self.canvas.cellHovered.connect(self._on_hover)
        self.canvas.cellClicked.connect(self.set_output)
        self.canvas.roomChanged.connect(self._repaint)
        layout.addWidget(self.canvas, 1)

        self.arithmetic = WrappedLabel(body)
        self.arithmetic.setObjectName("mixingArithmetic")
        self.arithmetic.setTextFormat(Qt.TextFormat.PlainText)
        self.arithmetic.setWordWrap(True)
        self.arithmetic.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.arithmetic.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                      QtWidgets.QSizePolicy.Policy.Minimum)
        layout.addWidget(steady_box(self.arithmetic))
        self.note = QtWidgets.QLabel(body)  # shown when every key is masked for the query
        self.note.setObjectName("mixingNote")
        self.note.setWordWrap(True)
        colours.sheet(self.note, "color: $soft_text; font-style: italic;", self.colours)
        self.note.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
        self.note.setVisible(False)
        layout.addWidget(steady_box(self.note))
        self._base_fonts()
        self.colours_changed(self.colours)

    def colours_changed(self, palette) -> None:
        """The tabs' words and the painted picture in ``palette``."""
        for idx, (_which, _name, role) in enumerate(GRIDS):
            self.switch.setTabTextColor(idx, QtGui.QColor(palette.ink[role]))
        self.canvas.set_colours(palette)

    def _base_fonts(self) -> None:
        """Fonts at theme scale 1; the generic theme scaling (``Panel.set_theme``) multiplies them once."""
        font = QtGui.QFont(self.font())
        font.setPointSizeF(style.BASE_POINT_SIZE)
        for widget in (self.body, self.switch, self.canvas, self.arithmetic, self.note):
            widget.setFont(font)

    # ----- state ---------------------------------------------------------------------------
    @property
    def grid(self) -> str:
        """Which grid is shown: "q", "k" or "v"."""
        return self._which

    @property
    def output_index(self) -> int:
        """The chosen output cell (0-based)."""
        return self._col

    def set_grid(self, which: str) -> None:
        self.switch.setCurrentIndex([g[0] for g in GRIDS].index(which))

    def set_output(self, c: int) -> None:
        self._col = int(c)
        self._repaint()

    def _on_switch(self, idx: int) -> None:
        self._which = GRIDS[idx][0]
        self._repaint()

    def _on_hover(self, c) -> None:
        self._hover = c
        self._update_text()

    def _repaint(self) -> None:
        """Draw again after a choice made here (a column, a grid): from the session's result now, as a
        change of the result would (a result kept from before can be older than the selection)."""
        if self._result is not None:
            self.refresh()

    # ----- drawing -------------------------------------------------------------------------
    def show_result(self, result, selection):
        self._result = result
        which, name, role = GRIDS[[g[0] for g in GRIDS].index(self._which)]
        s = result.scenario
        grid = {"q": s.w_q, "k": s.w_k, "v": s.w_v}[which]
        out = {"q": result.q, "k": result.k, "v": result.v}[which]
        i = selection.query
        rows, token = s.x, result.tokens[i]
        if which != "q" and s.is_cross:  # keys and values come from the source sentence: key token j
            i = selection.key
            rows, token = s.key_x, result.key_tokens[i]
        self._token_index = i
        d_out = grid.shape[1]
        self._col = max(0, min(self._col, d_out - 1))
        if self._hover is not None and self._hover >= d_out:
            self._hover = None
        bias = {"q": s.b_q, "k": s.b_k, "v": s.b_v}[which]
        if s.d_model > MAX_DIALS:  # a real model's size: the dials that matter most for the chosen cell
            room = self.canvas.rows_that_fit() - 1 - (1 if np.any(bias) else 0)  # under them, the rest and the bias
            parts = views.contributions(result, which, i, self._col, max(1, min(TOP_DIALS, room)))
            dials, rest = parts.rows.tolist(), (parts.rest_count, parts.rest)
        else:
            dials, rest = list(range(s.d_model)), None
        self.canvas.set_data(MixingData(
            names=tuple(feature_names.header(s, "x", r) for r in dials), x=rows[i][dials], grid=grid[dials],
            out=np.array(out[i]), which=which, grid_name=name, role=role, token=token, col=self._col,
            from_source=which != "q" and s.is_cross, rest=rest, bias=np.array(bias) if np.any(bias) else None,
            out_names=tuple(feature_names.header_names(s, which)) if feature_names.any_named(s, which) else ()))
        empty = no_keys(result, selection.query)
        set_text(self.note, no_keys_note(result, selection.query) if empty else "")
        self.note.setVisible(empty)
        self._update_text()

    def _update_text(self) -> None:
        result = self._result
        if result is None:
            return
        c = self._col if self._hover is None else self._hover
        ex = explain.projection(result, self._which, self._token_index, c)
        self._explanation = ex
        set_text(self.arithmetic, ex.text)
        set_tooltip(self.arithmetic, f"{ex.formula}\n{ex.about}")

    # ----- read-only view for tests ----------------------------------------------------------
    def drawn(self) -> dict:
        """What is on screen: the dials, the output cells, every line with its label, the sum shown."""
        lay = self.canvas.layout_now()
        dials = [d for d in lay.inputs if d["kind"] == "dial"]
        return {
            "grid": self._which,
            "token": self._token_index,
            "output": self._col,
            "hover": self._hover,
            "inputs": [(d["value"], d["bar"].width() * (1 if d["value"] >= 0 else -1)) for d in dials],
            "input_labels": [d["name"] if d["label_visible"] else None for d in dials],
            "rows": [(d["kind"], d["full_name"]) for d in lay.inputs],
            "outputs": [(d["value"], d["text"] if d["label_visible"] else None) for d in lay.outputs],
            "output_rects": [QtCore.QRectF(d["rect"]) for d in lay.outputs],
            "lines": [{"r": ln["r"], "c": ln["c"], "weight": ln["weight"], "text": ln["text"],
                       "labelled": ln["label_rect"] is not None, "dashed": ln["dashed"], "rest": ln["rest"],
                       "width": ln["width"], "alpha": ln["alpha"], "strong": ln["strong"],
                       "kind": lay.inputs[ln["r"]]["kind"]}
                      for ln in lay.lines],
            "label_rects": [QtCore.QRectF(ln["label_rect"]) for ln in lay.lines if ln["label_rect"] is not None],
            "arithmetic": self.arithmetic.text(),
            "header": lay.headers[0][1] if lay.headers else "",
            "from_source": self.canvas.from_source,
            "note": self.note.text(),
            "texts": self.canvas_texts(),
        }

    def canvas_texts(self) -> list:
        """Every text the canvas paints, as (text, rect in canvas pixels): headers, row names and values, line
        labels, output cells."""
        lay = self.canvas.layout_now()
        fm = QtGui.QFontMetricsF(self.canvas.font())
        out = [(text, rect) for rect, text, _colour in lay.headers if text]
        for d in lay.inputs:
            if d["label_visible"]:
                rect = QtCore.QRectF(d["name_rect"])
                rect.setWidth(min(rect.width(), fm.horizontalAdvance(d["name"]) + 2))
                out.append((d["name"], rect))
        out += [(ln["text"], ln["label_rect"]) for ln in lay.lines if ln["label_rect"] is not None]
        out += [(o["text"], o["rect"]) for o in lay.outputs if o["label_visible"]]
        return out
