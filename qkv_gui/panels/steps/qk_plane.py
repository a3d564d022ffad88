"""3–5 · Query, key and their dot product: two arrows from the origin and the angle between them.

The selected query q_i (lavender) and key k_j (coral) are drawn tail to tail
on one plane, with equal scales on both axes so angles look true. With d_k = 2
that plane is the two coordinates themselves (named by the scenario's q and k
column names when it has them). With more coordinates it is the plane through
q and k (``qkv_engine.geometry.pair_plane``): q points right, q, k and the angle
between them are drawn true, and every other key's dot sits as far right as its
score with q (divided by |q|); a note says how much of the other keys' squared
length the plane keeps. The angle θ between them is shaded in grey. The
other keys are faint dots (labelled when there are few); clicking one makes
it key j. Beside the plane: |q|, |k|, cos θ, θ and the score q·k (from
``qkv_engine.explain``) and a relevance meter whose needle swings left for a
negative score, up for zero and right for a positive one. Under the plane the
dot product is worked out term by term, q_d k_d; with many coordinates its
largest terms are named and the others summed (``qkv_engine.explain.score``).
"""
from __future__ import annotations

import math
from types import SimpleNamespace

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: F401  (PySide6 before pyqtgraph)
import numpy as np
import pyqtgraph as pg

from qkv_engine import explain, feature_names, geometry, rope_lab

from ...look import colours, style
from ...labels.changed_text import set_text, set_tooltip
from ..base import Panel
from ...drawing.plot_marks import Dots, arrow_head_item, line_item, paints_pixels, path_item, reach, segments_path
from .dot_terms import DotTerms
from ...drawing.lazy_axes import set_plot_label, set_range, steady_range
from ..mask_words import mask_reason, no_keys_note
from ...labels.painted_ground import paint_own_ground
from ...labels.wrapped_label import WrappedLabel
from ..last_drawn import ShownFor
from ...labels.steady_box import steady_box
from ...drawing.text_label import MARGIN, TextLabel
from ..themed_text import ThemedTextMixin
from ...drawing.text_pool import TextPool

Qt = QtCore.Qt

#: Other keys get a name label when there are at most this many tokens.
MAX_KEY_LABELS = 12
#: Narrower than this (pixels at the theme's base text size; more for larger text, as in presenter mode), the
#: panel shortens its note, its worked sum and its rule (whole in tooltips).
NARROW = 480
#: ... give or take this much (see ``_is_narrow``).
HYSTERESIS = 24
#: Wedge radius as a fraction of the shorter drawn arrow.
WEDGE_FRACTION = 0.35
#: A rotary head: the turn arcs' radius as a fraction of each arrow's length (the key's a little inside) ...
ARC_FRACTION = {"query": 0.62, "key": 0.48}
#: ... and at most this many whole turns drawn as a spiral (beyond, the last part of a turn; the words say all).
MAX_SPIRAL_TURNS = 4
#: The pair choices of a rotary head: (engine's name, what the combo says).
PAIR_CHOICE_TEXTS = (("most", "pair: most to q·k"), ("fastest", "pair: fastest"), ("slowest", "pair: slowest"))


def turn_path(start_deg: float, angle: float, radius: float) -> list:
    """The points of the arc that shows a turn by ``angle`` radians from the direction ``start_deg`` (degrees)
    at ``radius``. More than a whole turn spirals outwards, so each turn shows; at most ``MAX_SPIRAL_TURNS``
    turns are drawn (the last ones: the arc still ends where the arrow points)."""
    full = 2 * math.pi
    drawn = angle
    if abs(angle) > MAX_SPIRAL_TURNS * full:
        drawn = math.copysign((MAX_SPIRAL_TURNS - 1) * full + abs(angle) % full, angle)
    start = math.radians(start_deg) + (angle - drawn)  # the whole turns left out come first
    steps = max(8, int(abs(drawn) / math.radians(4)) + 1)
    spiral = abs(drawn) > full
    points = []
    for k in range(steps + 1):
        t = k / steps
        r = radius * (0.45 + 0.55 * t) if spiral else radius
        a = start + drawn * t
        points.append((r * math.cos(a), r * math.sin(a)))
    return points


def _qcolor(hex_str: str, alpha: int = 255) -> QtGui.QColor:
    c = QtGui.QColor(hex_str)
    c.setAlpha(alpha)
    return c


def elide_lines(text: str, font: QtGui.QFont, width: float, lines: int) -> str:
    """``text`` as it wraps at ``width``, shortened with "…" to ``lines`` lines (whole when it fits). Its end
    from the last " = " on (the result of a worked sum) is always kept."""
    fm = QtGui.QFontMetricsF(font)
    flags = int(Qt.TextFlag.TextWordWrap)
    room = lines * fm.lineSpacing() + 1

    def height(t: str) -> float:
        return fm.boundingRect(QtCore.QRectF(0, 0, max(1.0, width), 1e6), flags, t).height()

    if height(text) <= room:
        return text
    cut = text.rfind(" = ")
    head, tail = (text[:cut], text[cut:]) if cut > 0 else (text, "")
    words = head.split(" ")
    lo, hi = 0, len(words)  # the most words that fit with " …" and the end after them
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if height(" ".join(words[:mid]) + " …" + tail) <= room:
            lo = mid
        else:
            hi = mid - 1
    return " ".join(words[:lo]) + " …" + tail


def wedge_angles(q2, k2):
    """(start, span) in degrees of the shaded angle from q to k as drawn, or None for a zero-length arrow."""
    if math.hypot(*q2) < 1e-12 or math.hypot(*k2) < 1e-12:
        return None
    a_q = math.degrees(math.atan2(q2[1], q2[0]))
    a_k = math.degrees(math.atan2(k2[1], k2[0]))
    span = (a_k - a_q + 180.0) % 360.0 - 180.0
    return a_q, span


def still_picture(widget: QtWidgets.QWidget, ratio: float, draw) -> QtGui.QPixmap:
    """A transparent picture of ``widget``'s size at device pixel ratio ``ratio``, drawn by ``draw(painter)``
    in the widget's font, antialiased."""
    w, h = widget.width(), widget.height()
    picture = QtGui.QPixmap(max(1, int(math.ceil(w * ratio))), max(1, int(math.ceil(h * ratio))))
    picture.setDevicePixelRatio(ratio)
    picture.fill(Qt.GlobalColor.transparent)
    q = QtGui.QPainter(picture)
    q.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
    q.setFont(widget.font())
    draw(q)
    q.end()
    return picture


class RelevanceMeter(QtWidgets.QWidget):
    """A half-dial: the needle points left for a negative score, straight up for 0, right for a positive one."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("relevanceMeter")
        paint_own_ground(self)  # repainted at every edit, alone
        self.setMinimumSize(90, 50)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)
        self.value = 0.0
        self.limit = 1.0
        self.fraction = 0.0  # value / limit, clipped to -1..1
        self.value_text = "0"
        self.limit_text = "1"
        self.end_texts = ("-1", "+1")  # the dial's end labels as last drawn
        self.end_boxes = {}  # row (0: the numbers, 1: the words) -> the boxes of its two labels as last drawn
        self.colours = style.STANDARD  # its colours (the panel's palette)
        self._dial = (None, None)  # (what it was drawn for, the dial drawn: its halves, rim and still words)

    def set_colours(self, palette: style.Palette) -> None:
        self.colours = palette
        self.update()

    def set_value(self, value: float, limit: float, value_text: str, limit_text: str) -> None:
        fraction = max(-1.0, min(1.0, float(value) / float(limit))) if float(limit) > 0 else 0.0
        if (float(value), float(limit), fraction, value_text, limit_text) == (
                self.value, self.limit, self.fraction, self.value_text, self.limit_text):
            return
        self.value, self.limit = float(value), float(limit)
        self.fraction = fraction
        self.value_text, self.limit_text = value_text, limit_text
        self.update()

    def needle_degrees(self) -> float:
        """The needle's direction, counter-clockwise from pointing right: 180 = far left, 90 = up, 0 = far right."""
        return 90.0 - 90.0 * self.fraction

    def sizeHint(self):
        return QtCore.QSize(150, 86)

    def _still(self, p: QtGui.QPainter, fm: QtGui.QFontMetricsF, cx: float, cy: float, radius: float) -> None:
        """What does not move with the score: the dial's two halves and rim, the 0 over it, "against" and
        "for" under the numbers."""
        pal, w, lh = self.colours, self.width(), fm.height()
        arc = QtCore.QRectF(cx - radius, cy - radius, 2 * radius, 2 * radius)
        # the dial: negative half hatched, positive half plain, so sign is not carried by colour alone
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QtGui.QBrush(QtGui.QColor(pal.dial[0]), Qt.BrushStyle.BDiagPattern))
        p.drawPie(arc, 90 * 16, 90 * 16)
        p.setBrush(QtGui.QColor(pal.dial[1]))
        p.drawPie(arc, 0, 90 * 16)
        p.setPen(QtGui.QPen(QtGui.QColor(pal.muted), 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawArc(arc, 0, 180 * 16)
        p.drawLine(QtCore.QPointF(cx - radius, cy), QtCore.QPointF(cx + radius, cy))
        p.drawLine(QtCore.QPointF(cx, cy - radius), QtCore.QPointF(cx, cy - radius + 5))
        p.setPen(QtGui.QColor(pal.foreground))
        p.drawText(QtCore.QRectF(0, 0, w, lh), int(Qt.AlignmentFlag.AlignCenter), "0")
        self._ends(p, fm, cx, cy, radius, 1, "against", "for")

    def _ends(self, p, fm, cx: float, cy: float, radius: float, k: int, neg: str, pos: str) -> None:
        """Row ``k`` of the labels under the dial's two ends (0: the numbers, 1: the words)."""
        w, lh = self.width(), fm.height()

        def place(neg: str, pos: str) -> tuple:
            """Half a label's width, and the centres of the two: under the dial's ends, or as far out as
            keeps them apart when the dial is small, inside the widget."""
            half = max(fm.horizontalAdvance(neg), fm.horizontalAdvance(pos)) / 2 + 2
            return (half, max(half, min(cx - radius, cx - half - 3)), min(w - half, max(cx + radius, cx + half + 3)))

        y = cy + 2 + k * lh
        half, lx, rx = place(neg, pos)
        if k == 0:
            if rx - lx < 2 * half + 4:
                short = f"{self.limit:.3g}"  # the two ends would run into each other: three digits
                neg, pos = (fm.elidedText(f"{sign}{short}", Qt.TextElideMode.ElideRight, w / 2 - 6)
                            for sign in "-+")
                half, lx, rx = place(neg, pos)
            self.end_texts = (neg, pos)
        p.setPen(QtGui.QColor(self.colours.foreground if k == 0 else self.colours.muted))
        p.drawText(QtCore.QRectF(lx - half, y, 2 * half, lh), int(Qt.AlignmentFlag.AlignCenter), neg)
        p.drawText(QtCore.QRectF(rx - half, y, 2 * half, lh), int(Qt.AlignmentFlag.AlignCenter), pos)
        self.end_boxes[k] = (QtCore.QRectF(lx - half, y, 2 * half, lh), QtCore.QRectF(rx - half, y, 2 * half, lh))

    def _on_screen(self, p: QtGui.QPainter) -> bool:
        return paints_pixels(p)

    def paintEvent(self, event):
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        fm = QtGui.QFontMetricsF(self.font())
        lh = fm.height()
        w, h = self.width(), self.height()
        radius = max(10.0, min((w - 8) / 2.0, h - 3.2 * lh - 8, 6.0 * lh))
        cx, cy = w / 2.0, 4 + lh + radius
        pal = self.colours
        if self._on_screen(p):  # the still parts copied from a picture drawn once per size, font and palette
            ratio = self.devicePixelRatioF()
            key = (w, h, self.font(), pal, ratio)
            if self._dial[0] != key:
                self._dial = (key, still_picture(self, ratio, lambda q: self._still(q, fm, cx, cy, radius)))
            p.drawPixmap(0, 0, self._dial[1])
        else:
            self._still(p, fm, cx, cy, radius)
        # needle
        a = math.radians(self.needle_degrees())
        tip = QtCore.QPointF(cx + 0.92 * radius * math.cos(a), cy - 0.92 * radius * math.sin(a))
        p.setPen(QtGui.QPen(QtGui.QColor(pal.selected), 2.5, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        p.drawLine(QtCore.QPointF(cx, cy), tip)
        p.setBrush(QtGui.QColor(pal.selected))
        p.drawEllipse(QtCore.QPointF(cx, cy), 3, 3)
        # the score's limits under the dial's ends
        self._ends(p, fm, cx, cy, radius, 0, f"-{self.limit_text}", f"+{self.limit_text}")
        p.end()


class NumbersTable(QtWidgets.QWidget):
    """The numbers beside the plane, two columns: |q|, |k|, cos θ, θ and q·k with their values, and the rule
    that links them underneath. Painted here (a rich-text table in a label was laid out afresh, about
    3 ms, at every edit); as wide as the widest row it has shown at this font, so it keeps still while
    the numbers change."""

    #: (name, role of its colour or None, bold)
    ROWS = (("|q|", "query", False), ("|k|", "key", False), ("cos θ", None, False), ("θ", None, False),
            ("q·k", None, True))
    RULE = "score = |q| |k| cos θ"

    def __init__(self, parent=None):
        super().__init__(parent)
        paint_own_ground(self)  # repainted at every edit, alone
        self.values = ("",) * len(self.ROWS)
        self._width = 0  # the widest the rows have needed at this font
        self.show_rule = True  # the rule under the numbers (a narrow panel keeps it in the tooltip)
        self.colours = style.STANDARD  # its colours (the panel's palette)
        self._metrics = None  # (plain, bold) fonts and their metrics, made again on a new font
        self._widths: dict = {}  # (bold, text) -> its width in the font now
        self._needs = (None, (0, 0))  # (the values, the width they need without and with the rule)
        self._still_drawn = (None, None)  # (what it was drawn for, the names and rule drawn)

    def set_colours(self, palette: style.Palette) -> None:
        self.colours = palette
        self.update()

    def set_show_rule(self, on: bool) -> None:
        if on != self.show_rule:
            self.show_rule = on
            self.updateGeometry()
            self.update()

    def set_values(self, values) -> None:
        values = tuple(values)
        if values == self.values:
            return
        self.values = values
        width = self._need()
        if width > self._width:
            self._width = width
            self.updateGeometry()
        self.update()

    def _fonts(self):
        """(plain font, bold font, plain metrics), made once per font."""
        if self._metrics is None:
            bold = QtGui.QFont(self.font())
            bold.setBold(True)
            self._metrics = (self.font(), bold, QtGui.QFontMetricsF(self.font()))
        return self._metrics

    def _advance(self, text: str, bold: bool) -> float:
        """The width of ``text`` in the plain or bold font, measured once per font."""
        width = self._widths.get((bold, text))
        if width is None:
            plain, heavy, _fm = self._fonts()
            width = self._widths[(bold, text)] = QtGui.QFontMetricsF(heavy if bold else plain).horizontalAdvance(text)
            if len(self._widths) > 512:  # numbers come and go: keep the names' and the latest ones'
                self._widths = {k: v for k, v in list(self._widths.items())[-64:]}
        return width

    def _need(self, rule: bool = True) -> int:
        """The width the rows need (and the rule under them, unless ``rule`` is False)."""
        if self._needs[0] != self.values or self._metrics is None:  # (both widths at once: both are asked)
            names = max(self._advance(f"{name} = ", b) for name, _r, b in self.ROWS)
            values = max(self._advance(v, b) for (_n, _r, b), v in zip(self.ROWS, self.values))
            numbers = int(names + values) + 2
            self._needs = (self.values, (numbers, int(max(names + values, self._advance(self.RULE, False))) + 2))
        return self._needs[1][1 if rule else 0]

    def need_for_numbers(self) -> int:
        """The width the names and numbers need: never less (the rule under them may be shortened)."""
        return self._need(rule=False)

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        lh = QtGui.QFontMetricsF(self.font()).height()
        rows = len(self.ROWS) + (1 if self.show_rule else 0)
        return QtCore.QSize(max(self._width, self._need(rule=self.show_rule)), int(lh * rows) + 1)

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802
        hint = self.sizeHint()
        return QtCore.QSize(self.need_for_numbers(), hint.height())

    def changeEvent(self, event):  # noqa: N802
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._width = 0  # measured afresh at the new size
            self._metrics, self._widths, self._needs = None, {}, (None, (0, 0))
            self.updateGeometry()
        super().changeEvent(event)

    def _still(self, p: QtGui.QPainter, names: float) -> None:
        """What does not change with the numbers: the names, their "= " and the rule under them."""
        plain, bold, fm = self._fonts()
        lh = fm.height()
        left = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        pal = self.colours
        for k, (name, role, b) in enumerate(self.ROWS):
            p.setFont(bold if b else plain)
            y = k * lh
            p.setPen(QtGui.QColor(pal.ink[role] if role else pal.foreground))
            p.drawText(QtCore.QRectF(0, y, names, lh), left, name)
            p.setPen(QtGui.QColor(pal.foreground))
            p.drawText(QtCore.QRectF(0, y, names, lh), right, "= ")
        if self.show_rule:
            p.setFont(plain)
            p.setPen(QtGui.QColor(pal.faint_text))
            width = self.width()
            rule = fm.elidedText(self.RULE, Qt.TextElideMode.ElideRight, width)  # a hint: shortened, never cut
            p.drawText(QtCore.QRectF(0, len(self.ROWS) * lh, width, lh), left, rule)

    def _on_screen(self, p: QtGui.QPainter) -> bool:
        return paints_pixels(p)

    def paintEvent(self, event):  # noqa: N802
        p = QtGui.QPainter(self)
        plain, bold, fm = self._fonts()
        lh = fm.height()
        names = max(self._advance(f"{name} = ", b) for name, _r, b in self.ROWS)
        width = self.width()
        pal = self.colours
        if self._on_screen(p):  # the still parts copied from a picture drawn once per size, font and palette
            ratio = self.devicePixelRatioF()
            key = (width, self.height(), plain, pal, ratio, self.show_rule)
            if self._still_drawn[0] != key:
                self._still_drawn = (key, still_picture(self, ratio, lambda q: self._still(q, names)))
            p.drawPixmap(0, 0, self._still_drawn[1])
        else:
            self._still(p, names)
        right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        p.setPen(QtGui.QColor(pal.foreground))
        for k, ((_name, _role, b), value) in enumerate(zip(self.ROWS, self.values)):
            p.setFont(bold if b else plain)
            p.drawText(QtCore.QRectF(names, k * lh, width - names - 1, lh), right, value)
        p.end()


class QKPlanePanel(ThemedTextMixin, Panel):
    object_name = "qkPlanePanel"
    title = "3–5 · Query, key and their dot product"
    follows_colours = True

    def build(self, body):
        self._drawn = {}
        self._narrow = False
        self._worked = ""
        self._worked_brief = None  # a rotary head: (its turns in brief, the sum) for a narrow panel
        self._notes = ("", "")  # the note over the plane: in full, and short (a narrow panel)
        self._axis_names = []  # the plane's axes' names, in full
        self._axes_for = None  # what they were named for
        self._result_dk = 2
        self._arrow_names = {}
        self._x_range = self._y_range = None  # the plane's ranges as shown (kept while the arrows fit)
        self._lines_drawn = None  # the other keys' points the faint lines were drawn to
        self._explanations = (None, None)  # (what they were worked out from, the engine's explanations)
        self._shown_for = ShownFor()  # what it last drew
        self._tips = None  # the arrows' tips as drawn
        self._pair_shown = (None, None)  # (the explanations, the rest) the pair's numbers and wedge were shown for
        self._pair_texts: dict = {}  # the pair's numbers as shown
        self._pair_drawn = {"wedge": None, "theta_label": None}  # the wedge's angles and its label as drawn
        self._dots_set = (None, None)  # (their look, masks and numbers; their places) as the dots were last set
        self._dot_pens: dict = {}  # the dots' looks, made by ``_dot_look``
        self._side_fitted = None  # what the number column's width was worked out from
        self._axes_named = None  # what the axis names were fitted to
        self._names_fitted: dict = {}  # (font, name, room) -> the arrow's name as it fits
        self._placed = (None, [])  # (what the names on the plane were last placed for, which were shown)
        outer = QtWidgets.QVBoxLayout(body)
        outer.setContentsMargins(4, 2, 4, 4)
        outer.setSpacing(2)

        self.note = QtWidgets.QLabel(body)
        self.note.setObjectName("qkPlaneNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        pal = self.colours
        colours.sheet(self.note, "color: $note_ink; background: $note_bg; padding: 2px 4px; border-radius: 3px;",
                      pal)
        self.note.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
        outer.addWidget(steady_box(self.note))

        row = QtWidgets.QHBoxLayout()
        row.setSpacing(4)
        outer.addLayout(row, 1)

        self.plot = pg.PlotWidget(body, enableMenu=False)
        self.plot.setObjectName("qkPlanePlot")
        self.plot.setAspectLocked(True, 1.0)
        self.plot.setMouseEnabled(False, False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setMinimumSize(120, 100)
        pi = self.plot.getPlotItem()
        for name in ("left", "bottom"):
            pi.getAxis(name).enableAutoSIPrefix(False)
        # Equal scales tie the range to the plot's size, and the range to how wide the left axis' tick
        # labels are. An axis that may shrink as well as grow can then flip between two widths forever
        # (keys spread over millions), so the axis only grows while the numbers keep their size.
        pi.getAxis("left").setStyle(autoReduceTextSpace=False)
        self._left_scale = None
        row.addWidget(self.plot, 3)
        vb = self.plot.getPlotItem().getViewBox()
        vb.sigResized.connect(lambda *_: (self._declutter(), self._name_axes()))
        vb.sigRangeChanged.connect(lambda *_: self._declutter())  # equal scales: a resize can move the range after

        grey = _qcolor(pal.muted, 160)
        self.axis_x = line_item(self.plot, pg.mkPen(grey, width=1))  # the plane's axes through the origin
        self.axis_y = line_item(self.plot, pg.mkPen(grey, width=1))
        for line in (self.axis_x, self.axis_y):
            colours.paint(line, pal, pen=("muted", 160))

        # other keys: faint lines from the origin and clickable dots
        self.other_lines = path_item(self.plot, pg.mkPen(_qcolor(pal.fill["key"], 90), width=1))
        colours.paint(self.other_lines, pal, pen=("fill_key", 90))
        self.other_dots = Dots(hover_size=13)  # (their size, pen and brushes: set with them at each edit)
        self.other_dots.clicked.connect(self._on_key_clicked)
        self._key_brush = self._masked_brush = None  # the dots' brushes, made by ``colours_changed``
        self.plot.addItem(self.other_dots)
        self.other_labels = TextPool(self.plot, anchor=(0.0, 1.0), role=("ink_key", 170))

        # the angle wedge (under the arrows)
        self.wedge = QtWidgets.QGraphicsPathItem()
        self.wedge.setBrush(QtGui.QBrush(_qcolor(pal.grey, 70)))
        self.wedge.setPen(pg.mkPen(_qcolor(pal.grey, 200), width=1))
        colours.paint(self.wedge, pal, pen=("grey", 200), brush=("grey", 70))
        self.plot.addItem(self.wedge)
        self.theta_label = TextLabel("", anchor=(0.5, 0.5))
        colours.paint(self.theta_label, pal, text="dark_grey")
        self.plot.addItem(self.theta_label, ignoreBounds=True)

        # a rotary head: q and k before their turn (faint, dashed), and each turn as an arc with its words
        self.before, self.arcs = {}, {}
        for role in ("key", "query"):
            pen = pg.mkPen(_qcolor(pal.fill[role], 120), width=2, style=Qt.PenStyle.DashLine)
            line = line_item(self.plot, pen)
            head = arrow_head_item(self.plot, 11, 36, pg.mkPen(_qcolor(pal.ink[role], 120), width=1),
                                   _qcolor(pal.fill[role], 90))
            colours.paint(line, pal, pen=(f"fill_{role}", 120))
            colours.paint(head, pal, pen=(f"ink_{role}", 120), brush=(f"fill_{role}", 90))
            arc = path_item(self.plot, pg.mkPen(pal.ink[role], width=1.5))
            colours.paint(arc, pal, pen=f"ink_{role}")
            arc_head = arrow_head_item(self.plot, 8, 40, pg.mkPen(pal.ink[role], width=1), pal.ink[role])
            colours.paint(arc_head, pal, pen=f"ink_{role}", brush=f"ink_{role}")
            arc_label = TextLabel("", anchor=(0.5, 0.5))
            colours.paint(arc_label, pal, text=f"ink_{role}", fill="label_box")  # a box: it reads over lines
            self.plot.addItem(arc_label, ignoreBounds=True)
            arc_label.setZValue(20)  # over the arrows drawn after it
            for item in (line, head, arc, arc_head, arc_label):
                item.setVisible(False)
            self.before[role] = (line, head)
            self.arcs[role] = (arc, arc_head, arc_label)
        self._pair_choice = "most"
        self._turn = None  # the engine's turns of the pair drawn (a rotary head), or None
        self._rotary = None  # what the rotary view drew (None: not a rotary head)

        # the two arrows
        self.arrows = {}
        for role in ("key", "query"):
            line = line_item(self.plot, pg.mkPen(pal.fill[role], width=4))
            head = arrow_head_item(self.plot, 14, 36, pg.mkPen(pal.ink[role], width=1), pal.fill[role])
            label = TextLabel("", anchor=(0, 0.5))
            colours.paint(line, pal, pen=f"fill_{role}")
            colours.paint(head, pal, pen=f"ink_{role}", brush=f"fill_{role}")
            colours.paint(label, pal, text=f"ink_{role}")
            font = QtGui.QFont(self.font())
            font.setBold(True)
            label.setFont(font)
            self.plot.addItem(label, ignoreBounds=True)
            self.arrows[role] = (line, head, label)

        self.side = QtWidgets.QWidget(body)
        side = QtWidgets.QVBoxLayout(self.side)
        side.setContentsMargins(0, 0, 0, 0)
        side.setSpacing(2)
        self.numbers = NumbersTable(self.side)
        self.numbers.setObjectName("qkPlaneNumbers")
        self.pair_combo = QtWidgets.QComboBox(self.side)  # a rotary head: which pair the plane shows
        self.pair_combo.setObjectName("qkPlanePairCombo")
        for key, text in PAIR_CHOICE_TEXTS:
            self.pair_combo.addItem(text, key)
        self.pair_combo.setToolTip("Rotary positions turn q and k one pair of numbers at a time. The plane "
                                   "shows one pair: the one that adds most (in size) to the score q·k, the "
                                   "fastest-turning one or the slowest-turning one.")
        self.pair_combo.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.pair_combo.setMinimumContentsLength(8)
        self.pair_combo.setVisible(False)
        self.pair_combo.currentIndexChanged.connect(self._on_pair_choice)
        side.addWidget(self.pair_combo)
        side.addWidget(self.numbers)
        self.meter_title = QtWidgets.QLabel("relevance (score)", self.side)
        colours.sheet(self.meter_title, "color: $quiet_text;", pal)
        side.addWidget(self.meter_title)
        self.meter = RelevanceMeter(self.side)
        self.meter.setToolTip("The needle swings left for a negative score (arrows point apart), up for 0 "
                              "(at right angles) and right for a positive score (same way). The ends are the "
                              "largest score this query has with any key.")
        side.addWidget(self.meter, 1)  # the dial takes the room there is, up to its largest size ...
        side.addStretch(0)  # ... and what is left stays under it
        row.addWidget(self.side, 0)

        self.terms = DotTerms(body)  # q, k and q_d k_d per coordinate (more than two coordinates, room allowing)
        self.terms.setVisible(False)
        outer.addWidget(self.terms)

        self.worked = WrappedLabel(body)
        self.worked.setObjectName("qkPlaneWorked")
        self.worked.setWordWrap(True)
        self.worked.setTextFormat(Qt.TextFormat.PlainText)
        self.worked.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.worked.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Minimum)
        outer.addWidget(steady_box(self.worked))
        self._base_fonts()
        self.colours_changed(pal)

    def colours_changed(self, palette) -> None:
        """The painted parts (numbers, meter, terms) and the dots' brushes in ``palette``."""
        for part in (self.numbers, self.meter, self.terms):
            part.set_colours(palette)
        self._key_brush = pg.mkBrush(_qcolor(palette.fill["key"], 110))
        self._masked_brush = pg.mkBrush(_qcolor(palette.background, 255))
        self._dot_pens = {}

    def _dot_look(self, n: int) -> tuple:
        """(size in pixels, pen) of the other keys' dots with ``n`` keys: fewer keys, larger dots."""
        kind = 0 if n <= MAX_KEY_LABELS else 1 if n <= 64 else 2
        look = self._dot_pens.get(kind)
        if look is None:
            key_ink = self.colours.ink["key"]
            if kind == 0:
                look = 10, pg.mkPen(_qcolor(key_ink, 140))
            elif kind == 1:
                look = 7, pg.mkPen(_qcolor(key_ink, 90))
            else:  # hundreds of keys: small dots, no outlines, no lines
                look = 4, pg.mkPen(None)
            self._dot_pens[kind] = look
        return look

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit_side()
        self._write_note()
        self._show_terms()

    def _is_narrow(self) -> bool:
        """Whether the panel is narrow, with a margin either side of ``NARROW``: a panel whose shorter texts
        make it short enough to lose the grid's scroll bar, and so wider, must not switch back (and forth)."""
        margin = HYSTERESIS if self._narrow else -HYSTERESIS
        text_scale = max(1.0, self.worked.font().pointSizeF() / style.BASE_POINT_SIZE)  # larger text: fewer words a line
        self._narrow = self.width() < (NARROW + margin) * text_scale
        return self._narrow

    def _show_terms(self) -> None:
        """The row of terms with more than two coordinates, when the panel is wide enough to spare the room (a
        narrow panel is short too, on a small screen; the sum under the plane names the same terms)."""
        want = self._result_dk > 2 and not self._is_narrow()
        if self.terms.isHidden() == want:
            self.terms.setVisible(want)

    def _write_note(self) -> None:
        """The note over the plane, the worked sum under it and the rule beside it: in full, or (a narrow
        panel) a shorter note, the sum to three lines and no rule, each whole in its tooltip."""
        narrow = self._is_narrow()
        full, short = self._notes
        text = short if narrow else full
        set_text(self.note, text)
        set_tooltip(self.note, full if text != full else "")
        worked = self._worked
        width = self.worked.width() or self.width()
        if narrow and self._worked_brief is not None:  # a rotary head: the turns in two lines, the sum in two
            brief, rest = self._worked_brief
            shown = (elide_lines(brief, self.worked.font(), width, 2) + "\n"
                     + elide_lines(rest, self.worked.font(), width, 2))
        else:
            shown = elide_lines(worked, self.worked.font(), width, 3) if narrow else worked
        set_text(self.worked, shown)
        set_tooltip(self.worked, worked if shown != worked else "")
        self.numbers.set_show_rule(not narrow)

    def theme_changed(self, theme) -> None:
        self._fit_side()
        self._write_note()  # larger text may make the panel narrow in words (``_is_narrow``)
        self._show_terms()

    def _base_fonts(self) -> None:
        """Fonts at theme scale 1; the generic theme scaling (``Panel.set_theme``) multiplies them once."""
        font = QtGui.QFont(self.font())
        font.setPointSizeF(style.BASE_POINT_SIZE)
        self.body.setFont(font)
        for widget in (self.note, self.meter_title, self.meter, self.numbers, self.worked):
            widget.setFont(font)  # labels with a style sheet do not take the parent's font
        small_terms = QtGui.QFont(font)
        small_terms.setPointSizeF(font.pointSizeF() * 0.85)
        self.terms.setFont(small_terms)
        small = QtGui.QFont(font)
        small.setPointSizeF(font.pointSizeF() * 0.85)
        bold = QtGui.QFont(font)
        bold.setBold(True)
        for _line, _head, label in self.arrows.values():
            label.setFont(bold)
        self.theta_label.setFont(small)
        for _arc, _head, arc_label in self.arcs.values():
            arc_label.setFont(small)
        self.other_labels.font = small
        pi = self.plot.getPlotItem()
        for name in ("left", "bottom"):
            pi.getAxis(name).setStyle(tickFont=small)
            pi.getAxis(name).label.setFont(small)

    def text_scaled(self) -> None:
        self._declutter()

    def _to_scene(self) -> QtGui.QTransform:
        """The plane's data coordinates to scene pixels (the view box's, worked out once for many labels)."""
        vb = self.plot.getPlotItem().getViewBox()
        vb.updateMatrix()
        return vb.childGroup.sceneTransform()

    def _declutter(self) -> None:
        """The arrow names first, then θ, then the other keys' names: each shown only where it overlaps no
        text already placed and stays inside the plot."""
        if not self._drawn:
            return
        vb = self.plot.getPlotItem().getViewBox()
        box = vb.sceneBoundingRect()
        to_scene = self._to_scene()
        wanted = [self.arrows["query"][2], self.arrows["key"][2]]
        if self._drawn.get("wedge") is not None:
            wanted.append(self.theta_label)
        if self._rotary is not None:  # a rotary head's turns: named where there is room (the sum says them too)
            wanted += [self.arcs[role][2] for role in ("query", "key") if self._rotary.get(role[0] + "_arc")]
        # the names the pool shows now (what ``_drawn`` says may be the last result's: a new range can ask
        # for this before the new result is written down)
        wanted += self.other_labels.items[:self.other_labels.shown]
        # the same names at the same places in the same plot are placed as they were (an edit of another
        # token's numbers moves neither arrow)
        placing = (box, to_scene, self._drawn.get("q_tip"), self._drawn.get("k_tip"),
                   tuple(self._arrow_names.items()),
                   tuple((item.text(), item.pos(), item.font(), item.anchor) for item in wanted[2:]),
                   tuple(label.font() for label in wanted[:2]))  # (fonts compared, not their keys: faster)
        if placing == self._placed[0]:
            for item, ok in zip(wanted, self._placed[1]):  # (a label pool shows every label it hands out)
                if item.isVisible() != ok:
                    item.setVisible(ok)
            return
        placed, shown = [], []
        self._part_arrow_names(box, to_scene)
        for item in wanted:
            rect = item.scene_rect(to_scene)
            ok = box.contains(rect) and not any(rect.intersects(r) for r in placed)
            if item in (self.arrows["query"][2], self.arrows["key"][2]):
                ok = True  # the two arrows are always named
            item.setVisible(ok)
            shown.append(ok)
            if ok:
                placed.append(rect)
        self._placed = (placing, shown)

    def _part_arrow_names(self, box: QtCore.QRectF, to_scene: QtGui.QTransform) -> None:
        """Each arrow's name at a corner of its tip: the outward one when it is inside the plot (and, for the
        key, clear of the query's name), else the first other corner that is (arrows pointing nearly the same
        way, or a tip near the plot's edge in a narrow panel)."""
        placed = []
        for role, tip in (("query", self._drawn.get("q_tip")), ("key", self._drawn.get("k_tip"))):
            if tip is None:
                continue
            label = self.arrows[role][2]
            label.setPos(*tip)
            name = self._arrow_names.get(role, label.text())
            room = box.width() - 2 * MARGIN
            label.setText(self._fitted_name(label.font(), name, room))
            home = self._outside_anchor(*tip)
            for anchor in (home, (home[0], 1 - home[1]), (1 - home[0], home[1]), (1 - home[0], 1 - home[1])):
                rect = label.scene_rect(to_scene, anchor)  # (tried without moving the label)
                if box.contains(rect) and not any(rect.intersects(r) for r in placed):
                    label.setAnchor(anchor)
                    break
            else:  # no corner is inside (a name wider than the room either side of its tip): slid inside
                label.setAnchor(home)
                rect = label.scene_rect(to_scene)
                dx = max(0.0, box.left() - rect.left()) - max(0.0, rect.right() - box.right())
                dy = max(0.0, box.top() - rect.top()) - max(0.0, rect.bottom() - box.bottom())
                clash = next((r for r in placed if rect.translated(dx, dy).intersects(r)), None)
                if clash is not None:  # slid onto the other name: above or below it, whichever stays inside
                    below = clash.bottom() + 1 - (rect.top() + dy)
                    above = clash.top() - 1 - (rect.bottom() + dy)
                    dy += below if rect.bottom() + dy + below <= box.bottom() else above
                if dx or dy:
                    vb = self.plot.getPlotItem().getViewBox()
                    at = vb.mapViewToScene(QtCore.QPointF(*tip)) + QtCore.QPointF(dx, dy)
                    label.setPos(vb.mapSceneToView(at))
                    rect = label.scene_rect(to_scene)
            placed.append(rect.adjusted(1, 1, -1, -1))  # touching is fine, overlapping is not

    def _fitted_name(self, font: QtGui.QFont, name: str, room: float) -> str:
        """``name`` whole when it fits ``room`` pixels in ``font``, else shortened with "…"; the last few
        asked are kept (an edit asks again for the same names in the same room)."""
        key = (font.key(), name, room)
        shown = self._names_fitted.get(key)
        if shown is None:
            fm = QtGui.QFontMetricsF(font)
            shown = name if fm.horizontalAdvance(name) <= room else fm.elidedText(  # a plot narrower than the name
                name, Qt.TextElideMode.ElideRight, max(0.0, room))
            if len(self._names_fitted) > 64:
                self._names_fitted.clear()
            self._names_fitted[key] = shown
        return shown

    def _fit_side(self) -> None:
        """The number column as wide as its widest line (fonts as the theme made them), within reason."""
        lh = self.numbers._fonts()[2].height()
        hint = self.numbers.sizeHint().width()
        numbers = self.numbers.need_for_numbers() + 4  # the numbers themselves are never cut
        key = (lh, hint, numbers, self.meter_title.sizeHint().width(), self.width())
        if key == self._side_fitted:
            return
        self._side_fitted = key
        need = max(hint, key[3], 9.0 * lh) + 4
        self.side.setFixedWidth(int(max(120.0, numbers, min(0.45 * max(self.width(), 1), need))))
        self.meter.setMinimumHeight(int(3.0 * lh))  # a short panel gets a smaller dial, not cut words
        self.meter.setMaximumHeight(int(7.5 * lh))

    # ----- the rotary pair ----------------------------------------------------------------------
    def _on_pair_choice(self, index: int) -> None:
        choice = self.pair_combo.itemData(index)
        if choice and choice != self._pair_choice:
            self._pair_choice = choice
            self.refresh()

    def set_pair_choice(self, choice: str) -> None:
        """Show the pair "most", "fastest" or "slowest" of a rotary head (as choosing it in the combo does)."""
        self.pair_combo.setCurrentIndex([k for k, _t in PAIR_CHOICE_TEXTS].index(choice))

    # ----- clicks ------------------------------------------------------------------------------
    def _on_key_clicked(self, key: int) -> None:
        self.session.select(key=key)

    # ----- drawing -------------------------------------------------------------------------------
    @staticmethod
    def _outside_anchor(x: float, y: float):
        """Anchor a tip label at the tip: reaching inwards across (so it is not cut off at the plot's edge)
        and outwards up or down (so it does not sit on its own arrow)."""
        return (1.0 if x > 0 else 0.0, 1.0 if y >= 0 else 0.0)

    def show_result(self, result, selection):
        i, j = selection.query, selection.key
        s = result.scenario
        rotary = s.rotary and s.d_k >= 2  # (one number has no pair to turn)
        self.pair_combo.setVisible(rotary)
        # drawn from the queries and keys alone (an edit of W^V changes neither), their names and masks
        if self._shown_for.same((result.q, result.k, result.q_unrotated, result.k_unrotated, result.allowed[i],
                                 result.scores[i]), (
                i, j, result.tokens, result.key_tokens, s.q_names, s.k_names, s.n_heads,
                rotary and (self._pair_choice, s.query_positions, s.key_positions),
                0 if result.allowed[i, j] else int(result.masked_by[i, j]),  # (why, worked out only when masked)
                self.colours, self.theme, self.width(), self.height())):
            return
        n, d_k = result.n_keys, result.scenario.d_k  # n: how many keys (the source's in cross-attention)
        self._result_dk = d_k
        if rotary:  # the plane of one turning pair: its two numbers, as they are
            pair = rope_lab.chosen_pair(result, i, j, self._pair_choice)
            turn = rope_lab.pair_turn(result, i, j, pair)
            cols = [turn.pair, turn.partner]
            view = SimpleNamespace(queries=np.asarray(result.q)[:, cols], keys=np.asarray(result.k)[:, cols],
                                   exact=d_k == 2, kept=1.0)
        else:
            turn = None
            view = geometry.pair_plane(result.q, result.k, i, j)
        self._turn = turn
        q2 = (float(view.queries[i, 0]), float(view.queries[i, 1]))
        k2 = (float(view.keys[j, 0]), float(view.keys[j, 1]))
        tok, ktok = result.tokens, result.key_tokens
        allowed = np.asarray(result.allowed[i], dtype=bool)

        # arrows
        self._arrow_names = {"query": f"q '{tok[i]}'", "key": f"k '{ktok[j]}'"}
        if (q2, k2) != self._tips:  # (an edit of another token's numbers moves neither)
            self._tips = (q2, k2)
            self._draw_arrows(q2, k2)
        if turn is not None or self._rotary is not None:
            self._draw_turns(turn, result, i, j)

        # other keys
        others = np.delete(np.arange(n), j) if 0 <= j < n else np.arange(n)
        pts = np.asarray(view.keys)[others] if len(others) else np.zeros((0, 2))
        size, pen = self._dot_look(n)
        # masked keys (this query may not look at them): hollow grey dots
        open_others = allowed[others]
        dots = (size, pen, self._key_brush, self._masked_brush, open_others.tobytes(), others.tobytes())
        # (the same dots again: with two coordinates a new query moves no key)
        if dots != self._dots_set[0] or not np.array_equal(pts, self._dots_set[1]):
            self._dots_set = (dots, pts)
            if open_others.all():
                brushes = [self._key_brush] * len(others)
            else:
                brushes = [self._key_brush if a else self._masked_brush for a in open_others.tolist()]
            self.other_dots.set_dots(pts, size, pen, brushes, data=others)
        lines = pts if len(others) and n <= 64 else None
        if lines is None or self._lines_drawn is None or not np.array_equal(lines, self._lines_drawn):
            self._lines_drawn = lines
            self.other_lines.setPath(QtGui.QPainterPath() if lines is None else
                                     segments_path(np.zeros_like(lines), lines))
        labelled = len(others) if n <= MAX_KEY_LABELS else 0
        for idx, item in enumerate(self.other_labels.take(labelled)):
            m = int(others[idx])
            x, y = float(pts[idx, 0]), float(pts[idx, 1])
            item.setText(f"k '{ktok[m]}'" + ("" if allowed[m] else " (masked)"))
            item.setAnchor(self._outside_anchor(x, y))
            item.setPos(x, y)

        # numbers from the engine
        explained = self._explained(result, i, j)
        ex_score = explained[3]
        # masks: said under the sum (a note over the plane that comes and goes can make the layout
        # bounce between two heights)
        mask_note = ""
        if not allowed.any():
            mask_note = no_keys_note(result, i)
        elif not allowed[j]:
            mask_note = (f"'{tok[i]}' may not look at '{ktok[j]}' ({mask_reason(result, i, j)}): "
                         f"this score is worked out but not used.")
        # the pair's numbers, sums, angle and note are written again only when the pair's explanations, the
        # arrows as drawn, the plane's kind or the mask note change (an edit of another token's numbers with
        # two coordinates changes none of them)
        pair = (q2, k2, view.exact, None if view.exact else view.kept, d_k, mask_note, turn, s.rotary)
        if explained is not self._pair_shown[0] or pair != self._pair_shown[1]:
            self._pair_shown = (explained, pair)
            self._show_pair(result, i, j, explained, q2, k2, view, mask_note)
        texts = self._pair_texts
        # relevance meter: the score against the biggest |score| of this query's row
        row = np.abs(np.asarray(result.scores[i]))
        limit = float(row.max()) if row.size else 0.0
        limit = limit if limit > 0 else 1.0
        self.meter.set_value(ex_score.value, limit, texts["score"], explain.fixed(limit, ex_score.decimals))

        # range: everything drawn, origin included, equal scales (aspect locked)
        lo = np.array([min(0.0, q2[0], k2[0]), min(0.0, q2[1], k2[1])])
        hi = np.array([max(0.0, q2[0], k2[0]), max(0.0, q2[1], k2[1])])
        if len(pts):
            lo, hi = np.minimum(lo, pts.min(axis=0)), np.maximum(hi, pts.max(axis=0))
        if turn is not None:  # the arrows before their turn too
            before = np.array([turn.q_before, turn.k_before])
            lo, hi = np.minimum(lo, before.min(axis=0)), np.maximum(hi, before.max(axis=0))
        size = float(max(hi - lo))
        if size <= 0:
            size = 1.0
        pad = 0.22 * size  # room for the tip labels
        scale = math.floor(math.log10(size))
        if scale != self._left_scale:  # the numbers changed size: let the left axis fit them afresh
            self._left_scale = scale
            self.plot.getPlotItem().getAxis("left").textWidth = 30
        self._x_range = steady_range(self._x_range, lo[0] - pad, hi[0] + pad)
        self._y_range = steady_range(self._y_range, lo[1] - pad, hi[1] + pad)
        set_range(self.plot.getViewBox(), self._x_range, self._y_range)
        (x0, x1), (y0, y1) = reach(*self._x_range), reach(*self._y_range)
        self.axis_x.setLine(0.0, y0, 0.0, y1)
        self.axis_y.setLine(x0, 0.0, x1, 0.0)
        named = (view.exact, s.q_names, s.k_names, s.d_k) if view.exact else False
        if turn is not None:
            named = ("pair", turn.pair, turn.partner, s.q_names, s.k_names, s.d_k)
        if named != self._axes_for:  # (the columns' names change only when the user renames them)
            self._axes_for = named
            if turn is not None:
                self._axis_names = [self._coordinate_name(s, c) for c in (turn.pair, turn.partner)]
            elif view.exact:
                self._axis_names = [self._coordinate_name(s, c) for c in range(2)]
            else:
                self._axis_names = ["along q", "at right angles to q, towards k"]
        self._name_axes()

        self._drawn = {
            "query": i, "key": j, "q_tip": q2, "k_tip": k2, "exact": view.exact, "kept": view.kept,
            "others": (others, pts),  # turned into {key: (x, y)} by drawn(): hundreds of keys, read by tests only
            "other_labels": self.other_labels.texts(),
            "wedge": self._pair_drawn["wedge"], "numbers": dict(zip(("|q|", "|k|", "cos θ", "θ", "score"), self.numbers.values)), "note": self._notes[0],
            "worked": self._worked_sum, "mask_note": mask_note, "meter": (self.meter.value, self.meter.limit, self.meter.fraction),
            "theta_label": self._pair_drawn["theta_label"],
            "key_label": self._arrow_names["key"],
            "masked": others[~open_others].tolist(),
            "axes": tuple(self._axis_names),
            "rotary": self._rotary,
        }
        self._declutter()

    def _draw_arrows(self, q2, k2) -> None:
        """The two arrows from the origin to their tips as drawn (their names are placed by ``_declutter``)."""
        for role, tip in (("query", q2), ("key", k2)):
            line, head, _label = self.arrows[role]
            line.setLine(0.0, 0.0, tip[0], tip[1])
            has_length = math.hypot(*tip) > 0
            head.setVisible(has_length)
            if has_length:
                head.setRotation(180.0 - math.degrees(math.atan2(tip[1], tip[0])))  # (it points left unturned)
                head.setPos(*tip)

    def _draw_turns(self, turn, result, i: int, j: int) -> None:
        """A rotary head: q and k before their turn (faint) and each turn as an arc from the faint arrow to the
        solid one, named with its angle; ``turn`` None hides them."""
        if turn is None:
            for role in ("query", "key"):
                for item in (*self.before[role], *self.arcs[role]):
                    item.setVisible(False)
            self._rotary = None
            return
        drawn = {"pair": turn.pair, "partner": turn.partner, "choice": self._pair_choice, "speed": turn.speed,
                 "q_before": turn.q_before, "k_before": turn.k_before, "q_after": turn.q_after,
                 "k_after": turn.k_after}
        for role, before, angle, position in (("query", turn.q_before, turn.query_angle, turn.query_position),
                                              ("key", turn.k_before, turn.key_angle, turn.key_position)):
            line, head = self.before[role]
            arc, arc_head, arc_label = self.arcs[role]
            length = math.hypot(*before)
            line.setLine(0.0, 0.0, before[0], before[1])
            line.setVisible(length > 0)
            head.setVisible(length > 0)
            start = math.degrees(math.atan2(before[1], before[0]))
            if length > 0:
                head.setRotation(180.0 - start)
                head.setPos(*before)
            turned = length > 0 and angle != 0.0
            path = QtGui.QPainterPath()
            if turned:
                points = turn_path(start, angle, ARC_FRACTION[role] * length)
                path.moveTo(*points[0])
                for x, y in points[1:]:
                    path.lineTo(x, y)
                end = math.atan2(points[-1][1], points[-1][0])
                tangent = math.degrees(end) + (90.0 if angle > 0 else -90.0)
                arc_head.setRotation(180.0 - tangent)
                arc_head.setPos(*points[-1])
                mid = points[len(points) // 2]
                arc_label.setPos(1.18 * mid[0], 1.18 * mid[1])
                letter = "q" if role == "query" else "k"
                arc_label.setText(f"{letter}: {position}×{explain.significant(turn.speed)} = "
                                  f"{explain.significant(angle)} rad")
            arc.setPath(path)
            arc.setVisible(turned)
            arc_head.setVisible(turned)
            arc_label.setVisible(turned)
            drawn["q_arc" if role == "query" else "k_arc"] = (start, angle) if turned else None
            drawn["q_arc_label" if role == "query" else "k_arc_label"] = arc_label.text() if turned else None
        self._rotary = drawn

    def _show_pair(self, result, i: int, j: int, explained, q2, k2, view, mask_note: str) -> None:
        """The numbers beside the plane, the worked sum and its terms under it, the angle wedge and the note
        over it, for query ``i`` and key ``j`` as explained by the engine and drawn on the plane."""
        d_k = result.scenario.d_k
        ex_nq, ex_nk, ex_cos, ex_score = explained
        defined = ex_cos.angle is not None
        texts = {
            "|q|": explain.fixed(ex_nq.value, ex_nq.decimals),
            "|k|": explain.fixed(ex_nk.value, ex_nk.decimals),
            "cos θ": explain.fixed(ex_cos.value, ex_cos.decimals) if defined else "undefined",
            "θ": f"{ex_cos.angle:.1f}°" if defined else "undefined",
            "score": explain.fixed(ex_score.value, ex_score.decimals),
        }
        self.numbers.set_values(texts[name] for name in ("|q|", "|k|", "cos θ", "θ", "score"))
        set_tooltip(self.numbers, "\n".join([ex_nq.text, ex_nk.text, ex_cos.text, ex_score.text]))
        turn = self._turn
        worked = ex_score.text
        if turn is not None:  # the turn first, then the dot product of the turned q and k
            worked = explain.rotation(result, i, j, turn.pair).text + "\nThen, with the turned q and k: " + worked
        self._worked_sum = worked
        self._worked = worked + ("\n" + mask_note if mask_note else "")
        self._worked_brief = None if turn is None else (
            explain.rotation_brief(result, i, j, turn.pair), ex_score.text + ("\n" + mask_note if mask_note else ""))
        products = [t.value for t in ex_score.terms]
        shortened = d_k > explain.MAX_SHOWN_TERMS  # the sum names only its largest terms: outline those
        self.terms.set_terms(result.q[i], result.k[j], products,
                             explain.largest(products)[0] if shortened else [])
        self._show_terms()
        self._fit_side()

        # the angle wedge, on the arrows as drawn
        # (a rotary head with more than one pair: the plane is one pair of numbers, not q and k whole, so the
        # angle between the arrows there is not θ)
        wedge = wedge_angles(q2, k2) if defined and (turn is None or view.exact) else None
        path = QtGui.QPainterPath()
        if wedge is not None:
            start, span = wedge
            radius = WEDGE_FRACTION * min(math.hypot(*q2), math.hypot(*k2))
            path.moveTo(0.0, 0.0)
            steps = max(2, int(abs(span) / 4) + 1)
            for s in range(steps + 1):
                a = math.radians(start + span * s / steps)
                path.lineTo(radius * math.cos(a), radius * math.sin(a))
            path.closeSubpath()
            mid = math.radians(start + span / 2)
            self.theta_label.setText("θ")
            self.theta_label.setPos(1.35 * radius * math.cos(mid), 1.35 * radius * math.sin(mid))
            # (shown by ``_declutter`` where it is clear of the names)
        else:
            self.theta_label.setVisible(False)
        self.wedge.setPath(path)

        # the note above the plane
        notes = []
        if turn is not None:
            half = d_k // 2
            pair_words = (f"numbers {turn.pair + 1} and {turn.partner + 1}" if d_k > 2
                          else "both numbers")
            notes.append((f"Rotary positions: each pair of numbers turns by its position × its speed. Drawn: "
                          f"pair {turn.pair + 1} of {half} ({pair_words}). Faint dashed arrows: q and k before "
                          f"the turn; solid: after. The arcs are the turns.",
                          f"Pair {turn.pair + 1} of {half} ({pair_words}): faint = before the turn, "
                          f"solid = after."))
        elif result.scenario.rotary:  # one number per query: nothing to turn
            notes.append(("Rotary positions are on, but each query and key has one number: there is no pair "
                          "to turn, so positions change nothing here.", "Rotary positions: no pair to turn."))
        elif not view.exact:
            kept = view.kept
            pct = "100%" if kept >= 0.9995 else f"{min(kept * 100, 99.9):.1f}%"
            notes.append((f"d_k = {d_k}, drawn on the plane of q and k: both are true to length and angle, and a "
                          f"key's dot is as far right as its score ÷ |q|. The other keys keep {pct} of their "
                          f"squared length here.",
                          f"Plane of q and k (d_k = {d_k}): q, k, θ true; other keys keep {pct} of length²."))
        if not defined:
            notes.append((ex_cos.text, ex_cos.text))
        self._notes = (" ".join(n[0] for n in notes), " ".join(n[1] for n in notes))
        self._write_note()
        self.note.setVisible(bool(notes))

        self._pair_texts = texts
        self._pair_drawn = {"wedge": wedge, "theta_label": self.theta_label.text() if wedge is not None else None}

    def _explained(self, result, i: int, j: int) -> tuple:
        """The engine's |q|, |k|, cos θ and score of the pair, with their worked sums. They are asked again
        only when what they are worked out from changes: the two vectors, their score, the two tokens' names
        and the columns' names (an edit of another token's numbers changes none of these)."""
        s = result.scenario
        q, k = np.asarray(result.q[i]), np.asarray(result.k[j])
        key = (i, j, q.tobytes(), k.tobytes(), float(result.scores[i, j]), result.tokens[i],
               result.key_tokens[j], s.q_names, s.k_names, s.n_heads)
        if key != self._explanations[0]:
            self._explanations = (key, (explain.norm(result, "q", i), explain.norm(result, "k", j),
                                        explain.cosine(result, i, j), explain.score(result, i, j)))
        return self._explanations[1]

    @staticmethod
    def _coordinate_name(s, c: int) -> str:
        """"coordinate 1", or what the scenario calls that column of q and of k ("1: looks for animate /
        is animate")."""
        if c >= s.d_k:
            return f"coordinate {c + 1}"
        names = [feature_names.name(s, kind, c) for kind in ("q", "k")]
        said = " / ".join(dict.fromkeys(n for n in names if n))  # each name once
        return f"{c + 1}: {said}" if said else f"coordinate {c + 1}"

    def _name_axes(self) -> None:
        """The axis names, shortened with "…" where the plot is too small for them (full in the tooltip)."""
        names = self._axis_names
        if not names:
            return
        pi = self.plot.getPlotItem()
        vb = pi.getViewBox()
        bottom, left = pi.getAxis("bottom"), pi.getAxis("left")

        def fitted_to() -> tuple:  # what the names shown were fitted to (and what they say)
            return (tuple(names), vb.width(), vb.height(), bottom.label.font(), left.label.font(),
                    bottom.labelText, left.labelText, bottom.isVisibleTo(pi), left.isVisibleTo(pi))

        if fitted_to() == self._axes_named:
            return
        for name, text, room in (("bottom", names[0], vb.width()), ("left", names[1], vb.height())):
            fm = QtGui.QFontMetricsF(pi.getAxis(name).label.font())
            shown = fm.elidedText(text, Qt.TextElideMode.ElideRight, max(0.0, room - 8))
            if shown != pi.getAxis(name).labelText:
                set_plot_label(pi, name, shown)
                pi.getAxis(name).resizeEvent()  # centres the new wording
        set_tooltip(bottom, names[0])
        set_tooltip(left, names[1])
        self._axes_named = fitted_to()

    # ----- read-only view for tests -------------------------------------------------------------
    def drawn(self) -> dict:
        """What is on screen: arrow tips (plane coordinates), other keys, the wedge, the numbers and notes."""
        drawn = dict(self._drawn)
        drawn["terms"] = None if self.terms.isHidden() else (list(self.terms.products), list(self.terms.largest))
        if "others" in drawn:
            others, pts = drawn["others"]
            drawn["others"] = {int(m): (float(p[0]), float(p[1])) for m, p in zip(others, pts)}
        return drawn
