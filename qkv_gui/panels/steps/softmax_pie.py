"""7 · Softmax: the selected query's weights as a pie whose slices add up to the whole.

One slice per key, coloured by its weight on the same viridis scale as the
heatmap, labelled with the token and its percentage (small slices stay
unlabelled and are summed in a note). The selected key's slice is pulled out
and outlined. A line states what the row adds up to; in the column-wise
(teaching-bug) mode the row does not add up to 100%, and the panel says so
and draws each weight as a share of the actual sum. Clicking a slice selects
that key. One slice per KEY: in cross-attention the keys are the source
sentence's tokens. Masked keys get no slice and are counted in the note; when
every key of the row is masked there are no slices, and a note says why.

With many keys (a real sentence) the slices under 2% would be slivers: they are
drawn together as one grey slice at the end of the pie, "17 others 9.5%"
(``qkv_engine.pie_layout.small_slices``); the selected key always keeps its own.
The pulled-out slice is always named: when its name does not fit beside it, it
moves inward on a white box rather than going unnamed.
"""
from __future__ import annotations

import html
import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import explain, pie_layout

from ...look import colours, style
from ...labels.changed_text import plain_tip, set_text
from ..base import Panel
from ..mask_words import no_keys, no_keys_note
from ...labels.wrapped_label import WrappedLabel
from ..last_drawn import ShownFor
from ...labels.steady_box import steady_box
from ..themed_text import ThemedTextMixin
from ...drawing.text_pool import TextPool, scaled_metrics, set_themed_font

#: Slices smaller than this share never get a label.
MIN_LABEL_SHARE = 0.02
#: At most this many slice labels are tried (largest first).
MAX_LABELS = 24
#: How far the selected slice is pulled out, as a fraction of the radius.
PULL = 0.09
#: Slices thinner than this (degrees) get no white edge, so many tiny slices do not turn grey.
EDGE_MIN_DEG = 2.0
#: ... and slices narrower than this many pixels at the rim.
EDGE_MIN_PX = 8.0
LABEL_RADIUS = 1.13
#: Slices under this share of the row are drawn together as "others" when there are many keys ...
OTHERS_SHARE = 0.02
#: ... more than this many with a weight above 0.
OTHERS_AFTER = 12
#: Weights are coloured in this many steps of the colormap (finer than the eye can tell apart).
SHADES = 256
#: Stands for the "others" slice where a key's number would.
OTHERS = -1


class SoftmaxPanel(ThemedTextMixin, Panel):
    object_name = "softmaxPanel"
    title = "7 · Softmax: shares that add to 1"
    follows_colours = True

    def build(self, body):
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        self.heading = QtWidgets.QLabel(body)
        self.heading.setObjectName("softmaxTotal")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.heading.setToolTip("Softmax turns the query's scaled scores into weights: "
                                "all positive, and (done row-wise) adding up to 100%.")
        layout.addWidget(steady_box(self.heading))
        self.view = pg.GraphicsLayoutWidget(parent=body)
        self.view.setObjectName("softmaxPie")
        pal = self.colours
        self.view.setBackground(pal.background)
        self.view.ci.setContentsMargins(0, 0, 0, 0)
        self.view.setMinimumSize(120, 90)
        self.vb = self.view.addViewBox(lockAspect=True, enableMouse=False, enableMenu=False)
        self.vb.setDefaultPadding(0.0)
        layout.addWidget(self.view, 1)
        self.note = WrappedLabel(body)
        self.note.setObjectName("softmaxNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.note.setToolTip("Click a slice to pick its key. Slice colour = weight, as in the heatmap.")
        layout.addWidget(steady_box(self.note))

        self.ring = QtWidgets.QGraphicsEllipseItem(-1.0, -1.0, 2.0, 2.0)  # the whole, faint, behind
        self.ring.setPen(pg.mkPen(pal.grid, width=1, style=QtCore.Qt.PenStyle.DashLine))
        self.ring.setBrush(QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush))
        colours.paint(self.ring, pal, pen="grid")
        self.ring.setZValue(-10)
        self.vb.addItem(self.ring, ignoreBounds=True)
        self.slices: list = []  # pool of QGraphicsEllipseItem
        self.others = QtWidgets.QGraphicsEllipseItem(-1.0, -1.0, 2.0, 2.0)  # the small slices, as one
        self.others.setBrush(QtGui.QBrush(QtGui.QColor(pal.grid)))
        self.others.setPen(pg.mkPen(pal.background, width=1))
        colours.paint(self.others, pal, pen="background", brush="grid")
        self.others.setVisible(False)
        self.vb.addItem(self.others, ignoreBounds=True)
        self.grouped = np.zeros(0, dtype=int)  # the keys drawn in it
        self.labels = TextPool(self.vb, anchor=(0.0, 0.0))  # in the palette's foreground
        self.no_pen = QtGui.QPen(QtCore.Qt.PenStyle.NoPen)
        self._brushes_and_pens(pal)
        self.label_font = QtGui.QFont()
        self.bold_font = QtGui.QFont(self.label_font)
        self.bold_font.setBold(True)
        self.metrics = QtGui.QFontMetrics(self.label_font)
        self.bold_metrics = QtGui.QFontMetrics(self.bold_font)

        self.pie = None
        self._result = None
        self._shown_for = ShownFor()  # what it last drew
        self._looks: list = []  # each slice's (start, span, shade, pen, x, y) as last set
        self._shown_slices: list = []  # the keys whose slices are drawn
        self._slices_used = 0
        self._starts16 = self._spans16 = ()
        self._key_names: list = []
        self._label_looks: list = []  # each label's (text, bold, scale, anchor, x, y, box) as last set
        self._widths: dict = {}  # label text widths (and heights), per font and theme scale
        self._sel = (0, 0)
        self._label_texts: list = []
        self._tokens_seen = None
        self._selection = None
        self._repeated: dict = {}
        self._key_repeated: dict = {}
        self._labelled = np.zeros(0, dtype=bool)
        self.vb.setRange(xRange=(-2.0, 2.0), yRange=(-1.6, 1.6), padding=0)
        self.vb.sigResized.connect(lambda *_: self._redraw())
        self.view.scene().sigMouseClicked.connect(self._clicked)
        self.view.viewport().installEventFilter(self)

    def _brushes_and_pens(self, p: style.Palette) -> None:
        """The slices' brushes (a step of the weights' colour map each), their edges and the selected outline,
        in palette ``p``."""
        colors = pg.colormap.get(p.weights_map).map(np.linspace(0.0, 1.0, SHADES), mode="qcolor")
        self.brushes = [QtGui.QBrush(c) for c in colors]
        self.shade_pens = []
        for c in colors:
            pen = QtGui.QPen(c, 1.0)
            pen.setCosmetic(True)
            self.shade_pens.append(pen)
        self.edge_pen = pg.mkPen(p.background, width=1)
        self.selected_pen = pg.mkPen(p.selected, width=2.5)

    def colours_changed(self, palette) -> None:
        self._brushes_and_pens(palette)
        self._forget_looks()

    def theme_changed(self, theme) -> None:
        self._forget_looks()  # (the theme has scaled the slices' pens: each is given its pen again)

    def _forget_looks(self) -> None:
        """Every slice is told its whole look again at the next drawing (new brushes and pens)."""
        self._looks = []

    # ----- pools ------------------------------------------------------------------------------
    def _slice_items(self, count: int) -> list:
        while len(self.slices) < count:
            item = QtWidgets.QGraphicsEllipseItem(-1.0, -1.0, 2.0, 2.0)
            item.setVisible(False)
            self.vb.addItem(item, ignoreBounds=True)
            self.slices.append(item)
        for item in self.slices[count:self._slices_used]:
            item.setVisible(False)
        self._slices_used = count
        return self.slices  # (the caller shows those it draws)

    # ----- drawing ----------------------------------------------------------------------------
    def show_result(self, result, selection):
        i, j = selection.query, selection.key
        self._result, self._sel, self._selection = result, (i, j), selection
        # drawn from the query's weights alone (an edit of W^V changes none), the names and the masks
        if self._shown_for.same((result.weights[i], result.allowed[i]), (
                i, j, result.tokens, result.key_tokens, result.scenario.softmax_over, self.colours, self.theme,
                self.vb.width(), self.vb.height(), self.width(), self.height())):
            return
        if (result.tokens, result.key_tokens) != self._tokens_seen:
            self._tokens_seen = (result.tokens, result.key_tokens)
            self._repeated, self._key_repeated = {}, {}
            for t in result.tokens:
                self._repeated[t] = self._repeated.get(t, 0) + 1
            for t in result.key_tokens:
                self._key_repeated[t] = self._key_repeated.get(t, 0) + 1
            self._key_names = [self._key_name(k) for k in range(result.n_keys)]
        row = result.weights[i]  # the weights query i gives every key
        grouped = pie_layout.small_slices(row, keep=(j,), min_share=OTHERS_SHARE, more_than=OTHERS_AFTER)
        self.grouped = grouped
        order = pie_layout.others_last(result.n_keys, grouped) if grouped.size else None
        pie = pie_layout.layout(row, order=order)
        self.pie = pie
        n = result.n_keys
        # Qt measures angles in 1/16 degree, counter-clockwise in item coordinates, where y
        # points down; the ViewBox flips y, so the maths angle a is Qt's -a.
        starts16 = np.rint(-pie.start * 16).astype(int)
        spans16 = np.rint(-pie.span * 16).astype(int)
        self._starts16, self._spans16 = starts16, spans16  # every key's slice as Qt measures it (``drawn``)
        in_others = np.zeros(n, dtype=bool)
        in_others[grouped] = True
        # only the slices drawn now (a long row draws most keys as "others"), each told only what changed
        drawn = np.flatnonzero(~in_others & (spans16 != 0))
        shown = drawn.tolist()
        shade = dict(zip(shown, np.rint(np.clip(row[drawn], 0.0, 1.0) * (SHADES - 1)).astype(int).tolist()))
        starts16, spans16 = dict(zip(shown, starts16[drawn].tolist())), dict(zip(shown, spans16[drawn].tolist()))
        px = self.vb.viewPixelSize()[0]
        rim_px = 1.0 / px if px else 100.0  # the pie's radius on screen
        edge_min = max(EDGE_MIN_DEG, math.degrees(EDGE_MIN_PX / rim_px))
        thin = dict(zip(shown, (np.abs(pie.span[drawn]) < edge_min).tolist()))
        items = self._slice_items(n)
        drawn_now = set(shown)
        for k in self._shown_slices:
            if k < n and k not in drawn_now:
                items[k].setVisible(False)
        looks = self._looks
        if len(looks) != n:
            looks = self._looks = [None] * n
        for k in shown:
            item = items[k]
            if k == j:
                pull = PULL if pie.shares[k] < 0.999 else 0.0
                a = math.radians(float(pie.mid[k]))
                look = (starts16[k], spans16[k], shade[k], 2, pull * math.cos(a), pull * math.sin(a))
            else:
                # thin slices get an edge of their own colour, which hides the seams between them
                look = (starts16[k], spans16[k], shade[k], 1 if thin[k] else 0, 0.0, 0.0)
            old = looks[k]
            if old is None or not item.isVisible():
                old = (None,) * 6
            if look == old:
                continue
            looks[k] = look
            if look[0] != old[0]:
                item.setStartAngle(look[0])
            if look[1] != old[1]:
                item.setSpanAngle(look[1])
            if look[2] != old[2]:
                item.setBrush(self.brushes[look[2]])
            if look[3] != old[3] or (look[3] == 1 and look[2] != old[2]):
                item.setPen((self.edge_pen, self.shade_pens[look[2]], self.selected_pen)[look[3]])
                z = 5 if look[3] == 2 else 0
                if item.zValue() != z:
                    item.setZValue(z)
            if look[4:] != old[4:]:
                item.setPos(look[4], look[5])
            if not item.isVisible():
                item.setVisible(True)
        self._shown_slices = shown
        self.others.setVisible(bool(grouped.size))
        if grouped.size:  # one slice from where the first grouped key starts to where the last one ends
            first = int(pie.order[-grouped.size])
            self.others.setStartAngle(int(self._starts16[first]))
            self.others.setSpanAngle(int(round(-16 * 360.0 * float(pie.shares[grouped].sum()))))
        self._place_labels()

    def _redraw(self) -> None:
        """After a resize: slice edges and labels depend on the size on screen (and a theme's thicker lines
        are given to the edges drawn again, as ``refresh`` gives them)."""
        if self._result is not None and self._result.n and self._selection is not None:
            self.show_result(self._result, self._selection)
            if self.theme != style.SCREEN:
                self._scale_items()

    def _place_labels(self) -> None:
        """Label the largest slices (the selected key first) where the text fits without overlap."""
        result, pie = self._result, self.pie
        if result is None or pie is None or result.n == 0 or result.n_keys != pie.n:
            return
        i, j = self._sel
        px = self.vb.viewPixelSize()  # data units per pixel (x, y)
        if not px[0] or not px[1]:
            return
        px0, px1 = px
        rect = self.vb.viewRect()
        rl, rt, rr, rb = rect.left(), rect.top(), rect.right(), rect.bottom()
        shares = pie.shares
        grouped = np.zeros(pie.n, dtype=bool)
        grouped[self.grouped] = True
        ranked = np.argsort(-shares, kind="stable")
        ranked = ranked[~grouped[ranked] & (shares[ranked] >= MIN_LABEL_SHARE)][:MAX_LABELS].tolist()
        if j in ranked:
            ranked.remove(j)
        weights = pie.weights.tolist()
        order = ([j] if weights[j] > 0 else []) + ([OTHERS] if self.grouped.size else []) + ranked
        mids = pie.mid.tolist()
        pulled = pie.shares[j] < 0.999
        placed: list = []  # (left, top, right, bottom) of each label placed, in data units
        chosen: list = []
        scale = self.theme.font_scale
        names = self._key_names
        for k in order:
            if k == OTHERS:
                share = float(pie.shares[self.grouped].sum())
                text = f"{self.grouped.size} others {_percent(float(pie.weights[self.grouped].sum()))}"
                mid = float(pie.start[int(pie.order[-self.grouped.size])]) - 180.0 * share
            else:
                text = f"{names[k]} {_percent(weights[k])}"
                mid = mids[k]
            bold = k == j
            w, h = (self._text_width(text, bold, scale) + 6) * px0, (self._text_height(bold, scale) + 2) * px1
            a = math.radians(mid)
            c, s = math.cos(a), math.sin(a)
            r = LABEL_RADIUS + (PULL if bold and pulled else 0.0)
            x, y = r * c, r * s
            ax, ay = 0.5 - 0.5 * _soft_sign(c), 0.5 + 0.5 * _soft_sign(s)
            left, top = x - ax * w, y - (1 - ay) * h  # y up: anchor 1 puts text above
            right, bottom = left + w, top + h
            inside = rl <= left and right <= rr and rt <= top and bottom <= rb  # (as QRectF.contains)
            boxed = False
            if bold and not inside:
                # the pulled-out slice is always named: moved inward until it fits, on a white box
                fm = scaled_metrics(self.bold_font, scale)
                box, text, boxed = self._fit_inside(QtCore.QRectF(left, top, w, h), rect, text, fm, px)
                if box is None:
                    continue
                left, top, right, bottom = box.left(), box.top(), box.right(), box.bottom()
                x, y = left + ax * box.width(), top + (1 - ay) * box.height()
                inside = rect.contains(box)
            if not inside or any(left < o[2] and o[0] < right and top < o[3] and o[1] < bottom for o in placed):
                continue  # (the last: as QRectF.intersects)
            placed.append((left, top, right, bottom))
            chosen.append((k, text, x, y, (ax, ay), boxed))
        labelled = np.zeros(pie.n, dtype=bool)
        texts = []
        box_colour = self.colours.label_box
        looks = self._label_looks
        for n, (item, (k, text, x, y, anchor, boxed)) in enumerate(zip(self.labels.take(len(chosen)), chosen)):
            bold = k == j
            look = (text, bold, scale, anchor, x, y, box_colour if boxed else None)
            old = looks[n] if n < len(looks) else None
            if look != old:  # each label told only what changed
                if old is None or old[0] != text:
                    item.setText(text)
                if old is None or old[1:3] != look[1:3]:
                    set_themed_font(item, self.bold_font if bold else self.label_font, scale)
                item.setAnchor(anchor)
                if old is None or old[4:6] != look[4:6]:
                    item.setPos(x, y)
                if old is None or old[6] != look[6]:
                    item.fill = QtGui.QColor(*box_colour) if boxed else None
                if n < len(looks):
                    looks[n] = look
                else:
                    looks.append(look)
            if k == OTHERS:
                labelled[self.grouped] = True
            else:
                labelled[k] = True
            texts.append(text)
        self._labelled = labelled
        self._label_texts = texts
        self._write_notes()

    def _text_width(self, text: str, bold: bool, scale: float) -> float:
        """The pixel width of a label's text in its font at the theme's scale, measured once per text."""
        key = (bold, scale)
        known = self._widths.get(key)
        if known is None or len(known) > 4096:
            known = self._widths[key] = {}
        w = known.get(text)
        if w is None:
            w = known[text] = self._metrics_at(bold, scale).horizontalAdvance(text)
        return w

    def _text_height(self, bold: bool, scale: float) -> float:
        key = ("height", bold, scale)
        h = self._widths.get(key)
        if h is None:
            h = self._widths[key] = self._metrics_at(bold, scale).height()
        return h

    def _metrics_at(self, bold: bool, scale: float) -> QtGui.QFontMetricsF:
        """The labels' font metrics at the theme's scale, made once per font and scale (new percentages are
        measured at most edits)."""
        key = ("metrics", bold, scale)
        fm = self._widths.get(key)
        if fm is None:
            fm = self._widths[key] = scaled_metrics(self.bold_font if bold else self.label_font, scale)
        return fm

    @staticmethod
    def _fit_inside(box: QtCore.QRectF, rect: QtCore.QRectF, text: str, fm, px):
        """``box`` moved inside ``rect`` (its text shortened with "…" when it is wider than ``rect``), or
        (None, text, False) when not even a shortened text fits."""
        if box.width() > rect.width():
            text = fm.elidedText(text, QtCore.Qt.TextElideMode.ElideMiddle, rect.width() / px[0] - 8)
            box.setWidth((fm.horizontalAdvance(text) + 6) * px[0])
        if box.width() > rect.width() or box.height() > rect.height():
            return None, text, False
        box.moveLeft(min(max(box.left(), rect.left()), rect.right() - box.width()))
        box.moveTop(min(max(box.top(), rect.top()), rect.bottom() - box.height()))
        return box, text, True

    def _write_notes(self) -> None:
        result, pie = self._result, self.pie
        i, j = self._sel
        total = pie.total  # what the row adds up to
        q, key = html.escape(self._name(i)), html.escape(self._key_name(j))
        qink, kink = self.colours.ink["query"], self.colours.ink["key"]
        if result.scenario.softmax_over == "keys":
            head = f"Query <b style='color:{qink}'>{q}</b>: its weights add up to <b>{_percent(total)}</b>."
        else:
            head = (f"<b style='color:{self.colours.warn}'>Column-wise softmax (a bug): the weights of query "
                    f"<span style='color:{qink}'>{q}</span> add up to {_percent(total)}, not 100%.</b> "
                    f"Each slice is its weight's share of {_percent(total)}.")
        if no_keys(result, i):
            head = f"<b>{html.escape(no_keys_note(result, i))}</b>"
        set_text(self.heading, head)
        how = "pulled out" if result.allowed[i, j] else "masked"
        parts = [f"Key <b style='color:{kink}'>{key}</b> ({how}): {_percent(result.weights[i, j])}"]
        count, share, weight = pie_layout.rest(pie, self._labelled)
        if count:
            parts.append(f"{count} unlabelled: {_percent(weight)}")
        masked = int(result.n_keys - np.count_nonzero(result.allowed[i]))
        if masked:
            parts.append(f"{masked} masked: 0%")
        set_text(self.note, " · ".join(parts))

    def _name(self, k: int) -> str:
        """The query token's text, with its position when the same text appears more than once."""
        tokens = self._result.tokens
        t = tokens[k]
        return f"{t} #{k + 1}" if self._repeated.get(t, 1) > 1 else t

    def _key_name(self, k: int) -> str:
        """The key token's text (the source sentence's in cross-attention), numbered when repeated."""
        t = self._result.key_tokens[k]
        return f"{t} #{k + 1}" if self._key_repeated.get(t, 1) > 1 else t

    def tooltip_text(self) -> str:
        """The hover text: how to pick a key, and the selected weight worked out."""
        if self._result is None or self._result.n == 0:
            return ""
        i, j = self._sel
        return "Click a slice to pick its key.\n" + explain.weight(self._result, i, j).text

    def eventFilter(self, obj, event):
        # The worked softmax is long at many tokens: build it only when someone hovers.
        if obj is self.view.viewport() and event.type() == QtCore.QEvent.Type.ToolTip:
            QtWidgets.QToolTip.showText(event.globalPos(), plain_tip(self.tooltip_text()), self.view)
            return True
        return super().eventFilter(obj, event)

    # ----- clicks -----------------------------------------------------------------------------
    def _clicked(self, ev) -> None:
        if ev.button() != QtCore.Qt.MouseButton.LeftButton or self.pie is None or self._result is None:
            return
        if not self.vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        p = self.vb.mapSceneToView(ev.scenePos())
        k = pie_layout.slice_at(self.pie, p.x(), p.y(), slack=PULL + 0.05)
        if k is not None and k not in self.grouped:  # a click on "others" picks no key
            ev.accept()
            self.session.select(key=k)

    # ----- for tests --------------------------------------------------------------------------
    def drawn(self) -> dict:
        """What is on screen: each visible slice's start/span (maths degrees), offset, the labels and notes."""
        n = self.pie.n if self.pie is not None else 0
        starts, spans, pulled, visible = [], [], [], []
        for k, item in enumerate(self.slices[:n]):
            visible.append(item.isVisible())
            starts.append(-self._starts16[k] / 16.0)
            spans.append(-self._spans16[k] / 16.0)
            pulled.append(math.hypot(item.pos().x(), item.pos().y()) if item.isVisible() else 0.0)
        return {
            "visible": np.array(visible, dtype=bool),
            "start": np.array(starts),
            "span": np.array(spans),
            "pulled": np.array(pulled),
            "outlined": [k for k, item in enumerate(self.slices[:n]) if item.isVisible() and item.pen().widthF() > 2],
            "labels": list(self._label_texts),
            "heading": self.heading.text(),
            "note": self.note.text(),
            "others": [int(k) for k in self.grouped] if self.others.isVisible() else [],
            "others_span": -self.others.spanAngle() / 16.0 if self.others.isVisible() else 0.0,
            "tooltip": self.tooltip_text(),
        }

    def slice_point(self, k: int, radius: float = 0.6) -> QtCore.QPoint:
        """Viewport position of a point inside slice ``k`` (for clicking it in tests)."""
        a = math.radians(float(self.pie.mid[k]))
        scene = self.vb.mapViewToScene(QtCore.QPointF(radius * math.cos(a), radius * math.sin(a)))
        return self.view.mapFromScene(scene)


def _soft_sign(v: float) -> float:
    """-1, 0 or 1, with a dead zone near 0 so labels near the top and bottom are centred."""
    return 0.0 if abs(v) < 0.3 else (1.0 if v > 0 else -1.0)


def _percent(v: float) -> str:
    return f"{style.fmt(100.0 * float(v), 1)}%"

