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

from qkv_engine import explain, pie_layout, views

from .. import colours, style
from ..lazy_text import set_text
from .base import Panel
from .masked import no_keys, no_keys_note
from .steady_label import steady_box
from .theming import TextPool, ThemedTextMixin, scaled_metrics, set_themed_font

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
        self.note = QtWidgets.QLabel(body)
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

    # ----- pools ------------------------------------------------------------------------------
    def _slice_items(self, count: int) -> list:
        while len(self.slices) < count:
            item = QtWidgets.QGraphicsEllipseItem(-1.0, -1.0, 2.0, 2.0)
            self.vb.addItem(item, ignoreBounds=True)
            self.slices.append(item)
        for item in self.slices[count:]:
            item.setVisible(False)
        return self.slices[:count]  # (the caller shows those it draws)

    # ----- drawing ----------------------------------------------------------------------------
    def show_result(self, result, selection):
        i, j = selection.query, selection.key
        self._result, self._sel, self._selection = result, (i, j), selection
        if (result.tokens, result.key_tokens) != self._tokens_seen:
            self._tokens_seen = (result.tokens, result.key_tokens)
            self._repeated, self._key_repeated = {}, {}
            for t in result.tokens:
                self._repeated[t] = self._repeated.get(t, 0) + 1
            for t in result.key_tokens:
                self._key_repeated[t] = self._key_repeated.get(t, 0) + 1
        row = result.weights[i]  # the weights query i gives every key
        grouped = pie_layout.small_slices(row, keep=(j,), min_share=OTHERS_SHARE, more_than=OTHERS_AFTER)
        self.grouped = grouped
        order = pie_layout.others_last(result.n_keys, grouped) if grouped.size else None
        pie = pie_layout.layout(row, order=order)
        self.pie = pie
        n = result.n_keys
        shade = np.rint(np.clip(row, 0.0, 1.0) * (SHADES - 1)).astype(int).tolist()  # weight -> colour step
        # Qt measures angles in 1/16 degree, counter-clockwise in item coordinates, where y
        # points down; the ViewBox flips y, so the maths angle a is Qt's -a.
        starts16 = np.rint(-pie.start * 16).astype(int).tolist()
        spans16 = np.rint(-pie.span * 16).astype(int).tolist()
        px = self.vb.viewPixelSize()[0]
        rim_px = 1.0 / px if px else 100.0  # the pie's radius on screen
        edge_min = max(EDGE_MIN_DEG, math.degrees(EDGE_MIN_PX / rim_px))
        thin = (np.abs(pie.span) < edge_min).tolist()
        in_others = np.zeros(n, dtype=bool)
        in_others[grouped] = True
        for k, item in enumerate(self._slice_items(n)):
            item.setStartAngle(starts16[k])  # set even when hidden: the geometry stays readable (tests)
            item.setSpanAngle(spans16[k])
            if spans16[k] == 0 or in_others[k]:
                item.setVisible(False)
                continue
            item.setVisible(True)
            item.setBrush(self.brushes[shade[k]])
            if k == j:
                item.setPen(self.selected_pen)
                item.setZValue(5)
                pull = PULL if pie.shares[k] < 0.999 else 0.0
                a = math.radians(float(pie.mid[k]))
                item.setPos(pull * math.cos(a), pull * math.sin(a))
            else:
                # thin slices get an edge of their own colour, which hides the seams between them
                item.setPen(self.shade_pens[shade[k]] if thin[k] else self.edge_pen)
                item.setZValue(0)
                item.setPos(0.0, 0.0)
        self.others.setVisible(bool(grouped.size))
        if grouped.size:  # one slice from where the first grouped key starts to where the last one ends
            first, last = int(pie.order[-grouped.size]), int(pie.order[-1])
            self.others.setStartAngle(starts16[first])
            self.others.setSpanAngle(int(round(-16 * 360.0 * float(pie.shares[grouped].sum()))))
        self._place_labels()

    def _redraw(self) -> None:
        """After a resize: slice edges and labels depend on the size on screen."""
        if self._result is not None and self._result.n and self._selection is not None:
            self.show_result(self._result, self._selection)

    def _place_labels(self) -> None:
        """Label the largest slices (the selected key first) where the text fits without overlap."""
        result, pie = self._result, self.pie
        if result is None or pie is None or result.n == 0 or result.n_keys != pie.n:
            return
        i, j = self._sel
        px = self.vb.viewPixelSize()  # data units per pixel (x, y)
        if not px[0] or not px[1]:
            return
        rect = self.vb.viewRect()
        grouped = np.zeros(pie.n, dtype=bool)
        grouped[self.grouped] = True
        ranked = [int(k) for k in np.argsort(-pie.shares, kind="stable")
                  if not grouped[k] and pie.shares[k] >= MIN_LABEL_SHARE][:MAX_LABELS]
        if j in ranked:
            ranked.remove(j)
        order = ([j] if pie.weights[j] > 0 else []) + ([OTHERS] if self.grouped.size else []) + ranked
        placed: list = []
        chosen: list = []
        scale = self.theme.font_scale
        metrics = scaled_metrics(self.label_font, scale)
        bold_metrics = scaled_metrics(self.bold_font, scale)
        for k in order:
            if k == OTHERS:
                share = float(pie.shares[self.grouped].sum())
                text = f"{self.grouped.size} others {_percent(float(pie.weights[self.grouped].sum()))}"
                mid = float(pie.start[int(pie.order[-self.grouped.size])]) - 180.0 * share
            else:
                text = f"{self._key_name(k)} {_percent(pie.weights[k])}"
                mid = float(pie.mid[k])
            fm = bold_metrics if k == j else metrics
            w, h = (fm.horizontalAdvance(text) + 6) * px[0], (fm.height() + 2) * px[1]
            a = math.radians(mid)
            c, s = math.cos(a), math.sin(a)
            r = LABEL_RADIUS + (PULL if k == j and pie.shares[k] < 0.999 else 0.0)
            x, y = r * c, r * s
            ax, ay = 0.5 - 0.5 * _soft_sign(c), 0.5 + 0.5 * _soft_sign(s)
            box = QtCore.QRectF(x - ax * w, y - (1 - ay) * h, w, h)  # y up: anchor 1 puts text above
            boxed = False
            if k == j and not rect.contains(box):
                # the pulled-out slice is always named: moved inward until it fits, on a white box
                box, text, boxed = self._fit_inside(box, rect, text, fm, px)
                if box is None:
                    continue
                x, y = box.left() + ax * box.width(), box.top() + (1 - ay) * box.height()
            if not rect.contains(box) or any(box.intersects(b) for b in placed):
                continue
            placed.append(box)
            chosen.append((k, text, x, y, (ax, ay), boxed))
        labelled = np.zeros(pie.n, dtype=bool)
        texts = []
        for item, (k, text, x, y, anchor, boxed) in zip(self.labels.take(len(chosen)), chosen):
            item.setText(text)
            set_themed_font(item, self.bold_font if k == j else self.label_font, scale)
            item.setAnchor(anchor)
            item.setPos(x, y)
            item.fill = QtGui.QColor(*self.colours.label_box) if boxed else None
            if k == OTHERS:
                labelled[self.grouped] = True
            else:
                labelled[k] = True
            texts.append(text)
        self._labelled = labelled
        self._label_texts = texts
        self._write_notes()

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
        total = float(views.row_sums(result)[i])
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
            QtWidgets.QToolTip.showText(event.globalPos(), self.tooltip_text(), self.view)
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
        for item in self.slices[:n]:
            visible.append(item.isVisible())
            starts.append(-item.startAngle() / 16.0)
            spans.append(-item.spanAngle() / 16.0)
            pulled.append(math.hypot(item.pos().x(), item.pos().y()))
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

