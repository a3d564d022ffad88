"""2 · A grid mixes the dials: one token's input dials flowing through W^Q, W^K or W^V.

Left: the selected token's embedding x as horizontal bars (butter), one per
dial x1..x_dmodel, negative bars to the left of the zero line. Right: the
output cells q1.. (or k, v). Between them a line from every dial to every
output cell, labelled with the grid entry W[r, c] it passes through; thicker
and darker for bigger |W[r, c]|, dashed when negative. The lines into the
chosen output cell are drawn strongest. Below: the worked sum of the hovered
(or clicked) output cell, from ``qkv_engine.explain.projection``.

W^Q always mixes the selected query token. In cross-attention W^K and W^V mix
the selected key token of the source sentence (keys and values come from it).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import explain

from .. import style
from .base import Panel
from .masked import no_keys, no_keys_note
from .steady_label import steady_box

Qt = QtCore.Qt

#: With more lines than this (d_model x d_out), only the lines into the chosen output cell are drawn.
MAX_ALL_LINES = 600

#: (which, grid name, role) for the three switch positions.
GRIDS = (("q", "W^Q", "query"), ("k", "W^K", "key"), ("v", "W^V", "value"))


@dataclass
class MixingLayout:
    """Everything the canvas paints, in widget pixels (read-only for tests)."""

    inputs: list = field(default_factory=list)  # dicts: r, value, y, bar (QRectF), name, text, label_visible
    outputs: list = field(default_factory=list)  # dicts: c, value, rect (QRectF), text, label_visible
    lines: list = field(default_factory=list)  # dicts: r, c, weight, p0, p1, width, alpha, dashed, strong, text,
    #                                            label_rect (QRectF or None)
    headers: list = field(default_factory=list)  # (QRectF, text, colour)
    zero_x: float = 0.0
    only_chosen: bool = False  # True when there are too many lines to draw them all



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


class MixingCanvas(QtWidgets.QWidget):
    """Paints the dials, the lines and the output cells; reports hovered and clicked cells."""

    cellHovered = QtCore.Signal(object)  # output index or None
    cellClicked = QtCore.Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("mixingCanvas")
        self.setMouseTracking(True)
        self.setMinimumSize(160, 90)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)
        self._x = ()
        self._grid = ()  # rows of the weight grid, d_model x d_out
        self._out = ()
        self._which = "q"
        self._grid_name = "W^Q"
        self._role = "query"
        self._token = ""
        self.from_source = False  # the token is the source sentence's (cross-attention keys and values)
        self._col = 0
        self._layout: MixingLayout | None = None
        self._hover = None
        self._data = None  # what is drawn now, as plain numbers (an edit elsewhere leaves it as it is)

    # ----- data ----------------------------------------------------------------------------
    def set_data(self, x, grid, out, which, grid_name, role, token, col):
        data = (tuple(float(v) for v in x), tuple(tuple(float(v) for v in row) for row in grid),
                tuple(float(v) for v in out), which, grid_name, role, token, col, self.from_source)
        if data == self._data:
            return  # an edit elsewhere (another token's numbers): this picture stays as drawn
        self._data = data
        self._x, self._grid, self._out = data[0], data[1], data[2]
        self._which, self._grid_name, self._role, self._token = which, grid_name, role, token
        self._col = col
        self._layout = None
        self.update()

    def layout_now(self) -> MixingLayout:
        if self._layout is None:
            self._layout = self._compute_layout(self.width(), self.height())
        return self._layout

    def resizeEvent(self, event):
        self._layout = None
        super().resizeEvent(event)

    def changeEvent(self, event):
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._layout = None
            self.update()
        super().changeEvent(event)

    # ----- geometry --------------------------------------------------------------------------
    def _compute_layout(self, w: int, h: int) -> MixingLayout:
        lay = MixingLayout()
        d_in, d_out = len(self._x), len(self._out)
        if d_in == 0 or d_out == 0:
            return lay
        fm = QtGui.QFontMetricsF(self.font())
        lh = fm.height()
        pad = 4.0
        head_h = lh + 4
        top, bottom = head_h + 2, h - pad
        avail = max(10.0, bottom - top)

        name_w = fm.horizontalAdvance(f"x{d_in}") + 6
        value_w = max(fm.horizontalAdvance(style.fmt(v, 2)) for v in self._x) + 6
        bar_w = max(30.0, min(12.0 * lh, 0.2 * w))
        in_left = pad
        bar_left = in_left + name_w
        value_left = bar_left + bar_w + 2
        anchor_in = value_left + value_w + 4

        out_texts = [f"{self._which}{c + 1} = {style.fmt(v, 2)}" for c, v in enumerate(self._out)]
        cell_w = max(fm.horizontalAdvance(t) for t in out_texts) + 14
        cell_w = max(44.0, min(cell_w, 0.3 * w))
        out_left = w - pad - cell_w
        anchor_out = out_left - 4

        # headers
        lay.headers.append((QtCore.QRectF(in_left, 1, anchor_in - in_left, head_h),
                            f"x of '{self._token}'" + (" (source)" if self.from_source else ""), style.INK["x"]))
        lines_head = f"lines = {self._grid_name}"
        if d_in * d_out > MAX_ALL_LINES:
            lines_head += f" (into {self._which}{self._col + 1} only)"
        lay.headers.append((QtCore.QRectF(anchor_in, 1, max(0.0, out_left - 22 - anchor_in), head_h),
                            lines_head, style.FOREGROUND))  # ends before the output header begins
        lay.headers.append((QtCore.QRectF(out_left - 20, 1, cell_w + 20, head_h),
                            f"{self._which} = x {self._grid_name}", style.INK[self._role]))

        # inputs: one row per dial
        row_in = avail / d_in
        if row_in < lh:  # crowded: keep the first and last labels inside the canvas
            top_in, row_in = top + lh / 2, max(0.5, (avail - lh) / d_in)
        else:
            top_in = top
        biggest = max(1e-12, max(abs(v) for v in self._x))
        zero_x = bar_left + bar_w / 2
        lay.zero_x = zero_x
        thick = max(1.0, min(0.7 * row_in, 1.4 * lh))
        name_rects = []
        for r, v in enumerate(self._x):
            y = top_in + (r + 0.5) * row_in
            length = (bar_w / 2 - 1) * abs(v) / biggest
            x0 = zero_x if v >= 0 else zero_x - length
            bar = QtCore.QRectF(x0, y - thick / 2, max(length, 0.0), thick)
            name_rects.append(QtCore.QRectF(in_left, y - lh / 2, name_w, lh))
            lay.inputs.append({"r": r, "value": v, "y": y, "bar": bar, "name": f"x{r + 1}",
                               "name_rect": name_rects[-1],
                               "text": style.fmt(v, 2), "anchor": QtCore.QPointF(anchor_in, y)})
        keep = _place(name_rects)
        for item, ok in zip(lay.inputs, keep):
            item["label_visible"] = ok
            item["value_visible"] = ok and row_in >= lh  # crowded: the bar length and the sum below say it

        # outputs: one cell per coordinate
        row_out = avail / d_out
        if row_out < lh:
            top_out, row_out = top + lh / 2, max(0.5, (avail - lh) / d_out)
        else:
            top_out = top
        cell_h = max(2.0, min(0.8 * row_out, 2.2 * lh))
        out_rects = []
        for c, v in enumerate(self._out):
            y = top_out + (c + 0.5) * row_out
            rect = QtCore.QRectF(out_left, y - cell_h / 2, cell_w, cell_h)
            out_rects.append(rect)
            lay.outputs.append({"c": c, "value": v, "rect": rect, "text": out_texts[c],
                                "anchor": QtCore.QPointF(anchor_out, y)})
        fits = cell_h >= lh
        text_rects = [QtCore.QRectF(out_left, r.center().y() - lh / 2, cell_w, lh) for r in out_rects]
        order = [self._col] + [c for c in range(d_out) if c != self._col]
        keep = _place([text_rects[c] for c in order]) if not fits else [True] * d_out
        for c, ok in zip(order, keep):
            lay.outputs[c]["label_visible"] = ok

        # lines: every dial to every output
        biggest_w = max(1e-12, max(abs(v) for row in self._grid for v in row))
        many = d_in * d_out > 400
        #: above this many lines only the chosen cell's lines are drawn; the rest would be a grey wash
        only_chosen = d_in * d_out > MAX_ALL_LINES
        lay.only_chosen = only_chosen
        for c in range(d_out):
            for r in range(d_in):
                wv = self._grid[r][c]
                mag = abs(wv) / biggest_w
                strong = c == self._col
                if only_chosen and not strong:
                    continue
                lay.lines.append({
                    "r": r, "c": c, "weight": wv,
                    "p0": lay.inputs[r]["anchor"], "p1": lay.outputs[c]["anchor"],
                    "width": (0.6 + 3.4 * mag) * (1.0 if strong else (0.5 if many else 0.8)),
                    "alpha": (0.3 + 0.7 * mag) if strong else ((0.03 + 0.1 * mag) if many else (0.15 + 0.35 * mag)),
                    "dashed": wv < 0 and (strong or not many), "strong": strong,
                    "text": explain.trimmed(wv, 2), "label_rect": None,
                })

        # line labels: the chosen cell's lines first, then whole other fans while they fit
        span = anchor_out - anchor_in
        taken = [r for r in name_rects] + [o["rect"] for o in lay.outputs] + [i["bar"] for i in lay.inputs]
        taken = [QtCore.QRectF(t) for t in taken]

        def rect_at(line, t):
            p0, p1 = line["p0"], line["p1"]
            cx = p0.x() + t * (p1.x() - p0.x())
            cy = p0.y() + t * (p1.y() - p0.y())
            tw = fm.horizontalAdvance(line["text"]) + 6
            return QtCore.QRectF(cx - tw / 2, cy - lh / 2, tw, lh)

        by_col = {c: [ln for ln in lay.lines if ln["c"] == c] for c in range(d_out)}
        if span > 40:
            # the chosen fan: near the dials, where its lines are spread widest
            sel = by_col[self._col]
            t_sel = 0.3 if d_out > 1 else 0.5
            rects = [rect_at(ln, t_sel) for ln in sel]
            keep = _place(rects, taken)
            for ln, rect, ok in zip(sel, rects, keep):
                if ok:
                    ln["label_rect"] = rect
            # other fans, each at its own distance along the lines, only if the whole fan fits
            others = [c for c in range(d_out) if c != self._col]
            if all(ln["label_rect"] is not None for ln in sel):
                for k, c in enumerate(others):
                    for t in (0.55, 0.75, 0.15, 0.45, 0.65):
                        rects = [rect_at(ln, t) for ln in by_col[c]]
                        trial = list(taken)
                        if all(_place(rects, trial)):
                            taken[:] = trial
                            for ln, rect in zip(by_col[c], rects):
                                ln["label_rect"] = rect
                            break
        return lay

    # ----- painting --------------------------------------------------------------------------
    def paintEvent(self, event):
        lay = self.layout_now()
        p = QtGui.QPainter(self)
        p.fillRect(self.rect(), QtGui.QColor(style.BACKGROUND))
        if not lay.inputs:
            p.end()
            return
        many = len(lay.lines) > 400
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, not many)
        fm = QtGui.QFontMetricsF(self.font())

        # headers
        small = QtGui.QFont(self.font())
        small.setBold(True)
        p.setFont(small)
        for rect, text, colour in lay.headers:
            p.setPen(QtGui.QColor(colour))
            align = Qt.AlignmentFlag.AlignCenter if text.startswith("lines") else (
                Qt.AlignmentFlag.AlignLeft if rect.x() < self.width() / 2 else Qt.AlignmentFlag.AlignRight)
            p.drawText(rect, int(align | Qt.AlignmentFlag.AlignVCenter),
                       fm.elidedText(text, Qt.TextElideMode.ElideRight, rect.width()))
        p.setFont(self.font())

        # lines: faint ones first, the chosen fan on top
        ink = QtGui.QColor(style.INK[self._role])
        fill = QtGui.QColor(style.FILL[self._role])
        for strong in (False, True):
            for ln in lay.lines:
                if ln["strong"] != strong:
                    continue
                colour = QtGui.QColor(ink if strong else fill.darker(130))
                colour.setAlphaF(max(0.0, min(1.0, ln["alpha"])))
                pen = QtGui.QPen(colour, ln["width"])
                if ln["dashed"]:
                    pen.setStyle(Qt.PenStyle.CustomDashLine)
                    pen.setDashPattern([4.0 / max(ln["width"], 1.0) + 1.5, 3.0 / max(ln["width"], 1.0) + 1.0])
                pen.setCapStyle(Qt.PenCapStyle.FlatCap)
                p.setPen(pen)
                p.drawLine(ln["p0"], ln["p1"])

        # zero line of the dials
        p.setPen(QtGui.QPen(QtGui.QColor(style.MUTED), 1))
        y0 = lay.inputs[0]["bar"].top() - 2
        y1 = lay.inputs[-1]["bar"].bottom() + 2
        p.drawLine(QtCore.QPointF(lay.zero_x, y0), QtCore.QPointF(lay.zero_x, y1))

        # input bars
        bar_pen = QtGui.QPen(QtGui.QColor(style.INK["x"]), 1)
        for item in lay.inputs:
            p.setPen(bar_pen if item["bar"].height() > 3 else Qt.PenStyle.NoPen)
            p.setBrush(QtGui.QColor(style.FILL["x"]))
            p.drawRect(item["bar"])
            p.setPen(QtGui.QColor(style.INK["x"]))
            p.drawEllipse(item["anchor"], 2.0, 2.0)
            if item["label_visible"]:
                y = item["y"]
                p.setPen(QtGui.QColor(style.INK["x"]))
                p.drawText(item["name_rect"], int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                           item["name"])
            if item["value_visible"]:
                y = item["y"]
                tx = lay.zero_x + (item["bar"].width() + 3 if item["value"] >= 0 else 3)
                tx = max(tx, lay.zero_x + 3)
                p.setPen(QtGui.QColor(style.FOREGROUND))
                text_rect = QtCore.QRectF(tx, y - fm.height() / 2, fm.horizontalAdvance(item["text"]) + 4,
                                          fm.height())
                if item["value"] < 0:
                    text_rect.moveLeft(lay.zero_x + 3)
                p.drawText(text_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                           item["text"])

        # line labels: a white box on the line, outlined like the line
        for ln in lay.lines:
            rect = ln["label_rect"]
            if rect is None:
                continue
            colour = QtGui.QColor(ink if ln["strong"] else style.MUTED)
            pen = QtGui.QPen(colour, 1)
            if ln["dashed"]:
                pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.setBrush(QtGui.QColor(*style.LABEL_BOX))
            p.drawRoundedRect(rect, 3, 3)
            p.setPen(colour if ln["strong"] else QtGui.QColor(style.FOREGROUND).lighter(160))
            p.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), ln["text"])

        # output cells
        for item in lay.outputs:
            chosen = item["c"] == self._col
            hovered = item["c"] == self._hover
            p.setBrush(fill.lighter(115) if not chosen else fill)
            pen = QtGui.QPen(QtGui.QColor(style.SELECTED if chosen else style.INK[self._role]), 2 if chosen else 1)
            if hovered and not chosen:
                pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen if item["rect"].height() > 3 else Qt.PenStyle.NoPen)
            p.drawRoundedRect(item["rect"], 3, 3)
        for item in lay.outputs:  # labels after all cells: when crowded they sit on a box over the neighbours
            if item["label_visible"]:
                chosen = item["c"] == self._col
                box = QtCore.QRectF(item["rect"].left(), item["rect"].center().y() - fm.height() / 2,
                                    item["rect"].width(), fm.height())
                if item["rect"].height() < fm.height():
                    p.setPen(QtGui.QPen(QtGui.QColor(style.SELECTED if chosen else style.INK[self._role]), 1))
                    p.setBrush(fill.lighter(120) if not chosen else fill)
                    p.drawRoundedRect(box, 3, 3)
                p.setPen(QtGui.QColor(style.SELECTED if chosen else style.INK[self._role]))
                f = QtGui.QFont(self.font())
                f.setBold(chosen)
                p.setFont(f)
                p.drawText(box, int(Qt.AlignmentFlag.AlignCenter), item["text"])
                p.setFont(self.font())
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
            dial = min(lay.inputs, key=lambda d: abs(d["y"] - pos.y()))
            tip = f"{dial['name']} = {dial['text']}"
        elif lay.outputs and pos.x() >= lay.outputs[0]["rect"].left() - 6:
            tip = "Click to show how this number is made"
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
            self.switch.setTabTextColor(idx, QtGui.QColor(style.INK[role]))
            self.switch.setTabToolTip(idx, f"Show how x is mixed by the grid {name} into the {role} {which}")
        self.switch.currentChanged.connect(self._on_switch)
        top.addWidget(self.switch)
        top.addStretch(1)
        layout.addLayout(top)

        self.canvas = MixingCanvas(body)
        self.canvas.cellHovered.connect(self._on_hover)
        self.canvas.cellClicked.connect(self.set_output)
        layout.addWidget(self.canvas, 1)

        self.arithmetic = QtWidgets.QLabel(body)
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
        self.note.setStyleSheet(f"color: {style.SOFT_TEXT}; font-style: italic;")
        self.note.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
        self.note.setVisible(False)
        layout.addWidget(steady_box(self.note))
        self._base_fonts()

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
        if self._result is not None and not self.showing_hint():
            self.show_result(self._result, self.session.selection)

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
        self.canvas.from_source = which != "q" and s.is_cross
        self._token_index = i
        d_out = grid.shape[1]
        self._col = max(0, min(self._col, d_out - 1))
        if self._hover is not None and self._hover >= d_out:
            self._hover = None
        self.canvas.set_data(rows[i], grid, out[i], which, name, role, token, self._col)
        empty = no_keys(result, selection.query)
        self.note.setText(no_keys_note(result, selection.query) if empty else "")
        self.note.setVisible(empty)
        self._update_text()

    def _update_text(self) -> None:
        result = self._result
        if result is None:
            return
        c = self._col if self._hover is None else self._hover
        ex = explain.projection(result, self._which, self._token_index, c)
        self._explanation = ex
        self.arithmetic.setText(ex.text)
        self.arithmetic.setToolTip(f"{ex.formula}\n{ex.about}")

    # ----- read-only view for tests ----------------------------------------------------------
    def drawn(self) -> dict:
        """What is on screen: the dials, the output cells, every line with its label, the sum shown."""
        lay = self.canvas.layout_now()
        return {
            "grid": self._which,
            "token": self._token_index,
            "output": self._col,
            "hover": self._hover,
            "inputs": [(d["value"], d["bar"].width() * (1 if d["value"] >= 0 else -1)) for d in lay.inputs],
            "input_labels": [d["name"] if d["label_visible"] else None for d in lay.inputs],
            "outputs": [(d["value"], d["text"] if d["label_visible"] else None) for d in lay.outputs],
            "output_rects": [QtCore.QRectF(d["rect"]) for d in lay.outputs],
            "lines": [{"r": ln["r"], "c": ln["c"], "weight": ln["weight"], "text": ln["text"],
                       "labelled": ln["label_rect"] is not None, "dashed": ln["dashed"],
                       "width": ln["width"], "alpha": ln["alpha"], "strong": ln["strong"]}
                      for ln in lay.lines],
            "label_rects": [QtCore.QRectF(ln["label_rect"]) for ln in lay.lines if ln["label_rect"] is not None],
            "arithmetic": self.arithmetic.text(),
            "header": lay.headers[0][1] if lay.headers else "",
            "from_source": self.canvas.from_source,
            "note": self.note.text(),
        }
