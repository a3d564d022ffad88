"""The whole picture: one diagram of attention, read left to right, with the selected pair's numbers.

A butter circle x (one token's row of numbers) fans out through the grids
W^Q, W^K and W^V into three circles: the query q (lavender), the key k
(coral) and the value v (mint). q and k meet in a dot-product node (their
relevance, the score), which is divided by √d_k, then softmax turns it into
a weight (each row of weights adds up to 1), and the weights mix the values
into the output. Every node carries the current numbers of the selected
query i and key j. The scene items are made once; only their text changes,
and the view scales the drawing to fit the panel.

In cross-attention the key and value belong to the source sentence's token j
(named as such); a masked pair and a query whose keys are all masked say so;
with several heads a line names the head shown. With a real model's sizes the
vectors are shortened to their first and last numbers and a line under the
picture names the sizes ("x: 384 numbers; q, k, v: 32 each"). No arrow
crosses a word: the captions sit clear of the arrows that pass them.
"""
from __future__ import annotations

import math

from PySide6 import QtCore, QtGui, QtWidgets

from ...look import style
from ..base import Panel
from ..mask_words import mask_reason, no_keys

Qt = QtCore.Qt

#: The drawing's own coordinate size at theme scale 1; the view scales it to the panel.
SCENE_W, SCENE_H = 540.0, 348.0
CAPTION_PT = 9.5
LETTER_PT = 14.5
#: The view never magnifies the drawing more than this (a focused panel on a big screen).
MAX_ZOOM = 1.5
#: The words and numbers that follow the result (``show_result`` sets them); the rest of the drawing is still.
CHANGING = ("x_caption", "q_caption", "k_caption", "v_caption", "dot_value", "scale_title", "scale_value",
            "softmax_note", "weight_value", "out_value", "mix_note", "pair", "head")


def vector_text(v, decimals: int = 2, limit: int = 4) -> str:
    """A short vector: [a, b, c], or [a, …, z] (its first and last numbers) when it has more than ``limit``
    entries (a real model's 32 or 384; a longer line would wrap onto the nodes)."""
    vals = [style.fmt(float(a), decimals) for a in v]
    if len(vals) > limit:
        vals = [vals[0], "…", vals[-1]]
    return "[" + ", ".join(vals) + "]"


def sizes_text(s) -> str:
    """"x: 384 numbers; q, k, v: 32 each" (only when some vector is too long to be shown whole)."""
    if max(s.d_model, s.d_k, s.d_v) <= 4:
        return ""
    qkv = f"q, k, v: {s.d_k} each" if s.d_k == s.d_v else f"q, k: {s.d_k} each, v: {s.d_v}"
    return f"x: {s.d_model} numbers; {qkv}"


def short(tok: str, limit: int = 10) -> str:
    return tok if len(tok) <= limit else tok[: limit - 1] + "…"


class FitView(QtWidgets.QGraphicsView):
    """A graphics view that always shows the whole scene, as large as the widget allows (up to MAX_ZOOM).

    The items that never change (``still``: the nodes, the arrows, the letters and titles) stay in the scene
    for all to see, but the scene does not paint them (``ItemHasNoContents``): the view draws them in its
    background, which it keeps as a picture (``CacheBackground``) until the drawing, its size or its scale
    changes. A new number then repaints only the words that changed, over that picture. (A figure switches
    the cache off: the still items are drawn as shapes into it.)"""

    def __init__(self, scene, parent=None, palette: style.Palette = style.STANDARD):
        super().__init__(scene, parent)
        self.setRenderHints(QtGui.QPainter.RenderHint.Antialiasing | QtGui.QPainter.RenderHint.TextAntialiasing)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setBackgroundBrush(QtGui.QBrush(QtGui.QColor(palette.background)))
        self.setMinimumSize(120, 80)
        self.setCacheMode(QtWidgets.QGraphicsView.CacheModeFlag.CacheBackground)

    def set_still(self, items) -> None:
        """Draw ``items`` (the drawing's parts that never change) with the background."""
        for item in items:
            item.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        self.resetCachedContent()
        self.viewport().update()

    @property
    def still(self) -> list:
        """The items drawn with the background, in stacking order (bottom first). (Found in the scene each
        time: a list of them kept here would outlive the scene that deletes them when the app ends.)"""
        scene = self.scene()
        if scene is None:
            return []
        flag = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
        return [item for item in scene.items(Qt.SortOrder.AscendingOrder) if item.flags() & flag]

    def drawBackground(self, painter: QtGui.QPainter, rect: QtCore.QRectF) -> None:  # noqa: N802 (Qt naming)
        super().drawBackground(painter, rect)
        still = self.still
        if not still:
            return
        painter.save()
        painter.setRenderHints(self.renderHints(), True)  # (the cached background's painter has none)
        view = painter.worldTransform()
        option = QtWidgets.QStyleOptionGraphicsItem()
        for item in still:
            if not item.isVisible() or not item.sceneBoundingRect().intersects(rect):
                continue
            # (all of them top-level items; asking PySide for an item's parent hands the item to Python,
            # which deletes it with its last reference)
            if item.transform().isIdentity():  # as the scene works it out
                at = QtGui.QTransform(view)
                at.translate(item.x(), item.y())
            else:
                at = item.sceneTransform() * view
            painter.setWorldTransform(at)
            option.exposedRect = item.boundingRect()
            item.paint(painter, option, None)
        painter.restore()

    def fit(self):
        rect = self.sceneRect()
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.transform().m11() > MAX_ZOOM:
            self.setTransform(QtGui.QTransform.fromScale(MAX_ZOOM, MAX_ZOOM))
            self.centerOn(rect.center())
        self.resetCachedContent()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.fit()

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # noqa: N802 (Qt naming)
        super().scrollContentsBy(dx, dy)
        self.resetCachedContent()  # drawn afresh where it now lies, not shifted by whole pixels

    def showEvent(self, event):
        super().showEvent(event)
        self.fit()


class SummaryPanel(Panel):
    object_name = "summaryPanel"
    title = "The whole picture"
    follows_colours = True

    def build(self, body):
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        self.scene = QtWidgets.QGraphicsScene(body)
        # fifty items, a few of which change their words at each edit: found by a plain look through them,
        # not a BSP tree kept up to date at every new word
        self.scene.setItemIndexMethod(QtWidgets.QGraphicsScene.ItemIndexMethod.NoIndex)
        self.view = FitView(self.scene, body, self.colours)
        self.view.setObjectName("summaryView")
        layout.addWidget(self.view)
        self.texts: dict[str, QtWidgets.QGraphicsTextItem] = {}
        self._shown: dict[str, str] = {}  # name -> the text its item shows
        self._k = 1.0
        self._draw_static()

    def theme_changed(self, theme) -> None:
        """Text grows with the theme (the generic scaling sets the fonts), so the drawing grows with it:
        every position and size is multiplied by the theme's font scale and the scene is made again."""
        if abs(theme.font_scale - self._k) > 1e-9:
            self._k = theme.font_scale
            self._draw_again()

    def _scale_items(self, force: bool = False) -> None:
        """The theme's fonts and pens (the generic scaling); the background's picture of the still items is
        drawn again when one of them has changed."""
        before = self._still_look()
        super()._scale_items(force)
        if self._still_look() != before:
            self.view.resetCachedContent()
            self.view.viewport().update()

    def _still_look(self) -> list:
        """The fonts and pens of the still items (what the theme may change)."""
        return [item.font().key() if isinstance(item, QtWidgets.QGraphicsTextItem) else
                item.pen().widthF() if isinstance(item, QtWidgets.QAbstractGraphicsShapeItem) else None
                for item in self.view.still]

    def colours_changed(self, palette) -> None:
        """The drawing made again in ``palette`` (the repaint that follows fills in its words and numbers)."""
        self._draw_again()

    def _draw_again(self) -> None:
        self.scene.clear()
        self.texts = {}
        self._shown = {}
        self._draw_static()
        self.view.fit()

    # ----- the drawing, made once (again on a change of theme) ---------------------------------------
    def _text(self, name: str, cx: float, y: float, width: float, color: str, pt: float = CAPTION_PT,
              bold: bool = False, text: str = "") -> QtWidgets.QGraphicsTextItem:
        """A centred text block of ``width`` whose top middle is at (cx, y) (drawing units at scale 1)."""
        k = self._k
        item = QtWidgets.QGraphicsTextItem()
        font = QtGui.QFont()
        font.setPointSizeF(pt)  # at theme scale 1: Panel.set_theme scales it
        font.setBold(bold)
        item.setFont(font)
        item.setDefaultTextColor(QtGui.QColor(color))
        item.setTextWidth(width * k)
        option = QtGui.QTextOption(Qt.AlignmentFlag.AlignHCenter)
        option.setWrapMode(QtGui.QTextOption.WrapMode.WordWrap)
        item.document().setDefaultTextOption(option)
        item.document().setDocumentMargin(1)
        item.setPos((cx - width / 2) * k, y * k)
        item.setPlainText(text)
        item.setZValue(5)
        self.scene.addItem(item)
        self.texts[name] = item
        return item

    def _circle(self, cx, cy, r, fill, edge):
        k = self._k
        item = self.scene.addEllipse((cx - r) * k, (cy - r) * k, 2 * r * k, 2 * r * k,
                                     QtGui.QPen(QtGui.QColor(edge), 1.5), QtGui.QBrush(QtGui.QColor(fill)))
        item.setZValue(2)
        return item

    def _box(self, cx, cy, w, h, fill, edge):
        k = self._k
        path = QtGui.QPainterPath()
        path.addRoundedRect(QtCore.QRectF((cx - w / 2) * k, (cy - h / 2) * k, w * k, h * k), 8 * k, 8 * k)
        item = self.scene.addPath(path, QtGui.QPen(QtGui.QColor(edge), 1.5), QtGui.QBrush(QtGui.QColor(fill)))
        item.setZValue(2)
        return item

    def _arrow(self, p1, p2, color, width=2.5):
        """A line from p1 to p2 with a filled head at p2."""
        k = self._k
        x1, y1 = p1[0] * k, p1[1] * k
        x2, y2 = p2[0] * k, p2[1] * k
        ang = math.atan2(y2 - y1, x2 - x1)
        head = 9.0 * k
        path = QtGui.QPainterPath(QtCore.QPointF(x1, y1))
        base = QtCore.QPointF(x2 - head * 0.8 * math.cos(ang), y2 - head * 0.8 * math.sin(ang))
        path.lineTo(base)
        line = self.scene.addPath(path, QtGui.QPen(QtGui.QColor(color), width, Qt.PenStyle.SolidLine,
                                                   Qt.PenCapStyle.RoundCap))
        tip = QtGui.QPolygonF([
            QtCore.QPointF(x2, y2),
            QtCore.QPointF(x2 - head * math.cos(ang - 0.4), y2 - head * math.sin(ang - 0.4)),
            QtCore.QPointF(x2 - head * math.cos(ang + 0.4), y2 - head * math.sin(ang + 0.4)),
        ])
        cap = self.scene.addPolygon(tip, QtGui.QPen(Qt.PenStyle.NoPen), QtGui.QBrush(QtGui.QColor(color)))
        line.setZValue(1)
        cap.setZValue(1)
        return line, cap

    def _draw_static(self):
        pal = self.colours
        F, I = pal.fill, pal.ink
        k = self._k
        self.scene.setSceneRect(0, 0, SCENE_W * k, SCENE_H * k)
        # Where things sit (drawing units at scale 1).
        self.pos = {
            "x": (45, 168), "q": (170, 62), "k": (170, 168), "v": (170, 274),
            "dot": (290, 62), "scale": (380, 62), "softmax": (476, 62), "out": (412, 268),
        }
        P = self.pos
        r_x, r = 26, 21
        scale_w, soft_w, box_h = 66, 84, 34
        out_w, out_h = 200, 68
        # Arrows first (under the nodes); the grid's name beside each, on the outer side.
        for role, key, grid, side in (("query", "q", "W^Q", 1), ("key", "k", "W^K", 1), ("value", "v", "W^V", 1)):
            x2, y2 = P[key]
            ang = math.atan2(y2 - P["x"][1], x2 - P["x"][0])
            start = (P["x"][0] + r_x * math.cos(ang), P["x"][1] + r_x * math.sin(ang))
            end = (x2 - (r + 2) * math.cos(ang), y2 - (r + 2) * math.sin(ang))
            self._arrow(start, end, F[role])
            mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
            # a normal to the arrow: up-left for W^Q, up for W^K, down-left for W^V
            nx, ny = math.sin(ang) * side, -math.cos(ang) * side
            if key == "v":
                nx, ny = math.sin(ang), -math.cos(ang)
                nx, ny = -abs(nx), abs(ny)
            off = 24 if key != "k" else 13
            cx, cy = mx + off * nx, my + off * ny
            item = self._text(f"{key}_grid", cx, cy - 11, 34, I[role], pt=CAPTION_PT + 1, bold=True)
            item.setHtml(f"W<sup>{grid[-1]}</sup>")
        self._arrow((P["q"][0] + r + 1, P["q"][1]), (P["dot"][0] - 20, P["dot"][1]), F["query"])
        ang = math.atan2(P["dot"][1] - P["k"][1], P["dot"][0] - P["k"][0])
        self._arrow((P["k"][0] + r * math.cos(ang), P["k"][1] + r * math.sin(ang)),
                    (P["dot"][0] - 19 * math.cos(ang), P["dot"][1] - 19 * math.sin(ang)), F["key"])
        self._arrow((P["dot"][0] + 18, P["dot"][1]), (P["scale"][0] - scale_w / 2 - 1, P["scale"][1]),
                    pal.muted, 2.0)
        self._arrow((P["scale"][0] + scale_w / 2, P["scale"][1]), (P["softmax"][0] - soft_w / 2 - 1,
                                                                   P["softmax"][1]), pal.muted, 2.0)
        self._arrow((P["softmax"][0], P["softmax"][1] + 40), (P["softmax"][0] - 14, P["out"][1] - out_h / 2 - 1),
                    F["weight"], 2.0)
        self._arrow((P["v"][0] + r + 1, P["v"][1]), (P["out"][0] - out_w / 2 - 1, P["v"][1]), F["value"])

        # Nodes.
        self._circle(*P["x"], r_x, F["x"], I["x"])
        self._text("x_letter", P["x"][0], P["x"][1] - 14, 40, pal.on_fill["x"], pt=LETTER_PT + 1.5, bold=True, text="x")
        for role, key in (("query", "q"), ("key", "k"), ("value", "v")):
            self._circle(*P[key], r, F[role], I[role])
            self._text(f"{key}_letter", P[key][0], P[key][1] - 13, 40, pal.dark_ink, pt=LETTER_PT, bold=True,
                       text=key)
        self._circle(*P["dot"], 18, pal.background, pal.foreground)
        self._text("dot_letter", P["dot"][0], P["dot"][1] - 13, 36, pal.foreground, pt=LETTER_PT, bold=True,
                   text="·")
        self._box(*P["scale"], scale_w, box_h, pal.plain_box, pal.muted)
        self._box(*P["softmax"], soft_w, box_h, pal.pale["weight"], I["weight"])
        self._box(*P["out"], out_w, out_h, pal.pale["output"], I["output"])

        # Words and numbers (filled in show_result).
        # x's words a little low and to the left: the arrow to v leaves x on their right
        self._text("x_caption", P["x"][0] - 4, P["x"][1] + r_x + 10, 84, I["x"])
        for key, role in (("q", "query"), ("k", "key"), ("v", "value")):
            # the query's words above it: below, they sat between the arrows from x to q and from k to the dot
            top = P[key][1] - r - 34 if key == "q" else P[key][1] + r + 1
            self._text(f"{key}_caption", P[key][0], top, 130 if key == "q" else 120, I[role])
        self._text("dot_title", P["dot"][0] + 12, P["dot"][1] - 42, 124, pal.foreground, bold=True,
                   text="dot → relevance")
        # each number under its step, its name above it; the score a little to the right of the dot (the arrow
        # from k comes in from the lower left)
        # narrow boxes, a gap between them: at a presenter's text size the score and the scaled score met
        self._text("dot_value", P["dot"][0] + 4, P["dot"][1] + 20, 62, pal.foreground)
        self._text("scale_title", P["scale"][0], P["scale"][1] - 10, scale_w, pal.foreground, bold=True)
        self._text("scale_value", P["scale"][0] + 6, P["scale"][1] + 20, 70, pal.foreground)
        self._text("softmax_title", P["softmax"][0], P["softmax"][1] - 10, soft_w, I["weight"], bold=True,
                   text="softmax")
        self._text("softmax_note", P["softmax"][0], P["softmax"][1] - 56, 124, I["weight"])
        self._text("weight_value", P["softmax"][0], P["softmax"][1] + 20, 94, I["weight"])
        top = P["out"][1] - out_h / 2
        self._text("out_title", P["out"][0], top + 2, out_w - 8, I["output"], bold=True, text="weighted sum of v")
        self._text("out_value", P["out"][0], top + 20, out_w - 8, I["output"])
        self._text("mix_note", 254, P["v"][1] - 38, 114, I["value"])
        self._text("pair", P["out"][0], P["out"][1] + out_h / 2 + 3, 230, pal.foreground)
        self._text("head", P["x"][0] + 10, 4, 110, pal.muted)
        # all but the words and numbers show_result sets are drawn once, with the background
        changing = {self.texts[name] for name in CHANGING}
        self.view.set_still([item for item in self.scene.items(Qt.SortOrder.AscendingOrder)
                             if item not in changing])

    # ----- numbers ----------------------------------------------------------------------------------
    def _set(self, name: str, text: str) -> None:
        if self._shown.get(name) != text:
            self._shown[name] = text
            self.texts[name].setPlainText(text)

    def show_result(self, result, selection):
        i, j = selection.query, selection.key
        tok = result.tokens
        ti, tj = short(tok[i]), short(result.key_tokens[j])
        s = result.scenario
        if s.is_cross:  # "and ..." on a line of its own: a long first line reached the arrow to v
            self._set("x_caption", f"x of '{ti}'\nand source '{tj}'")
        else:
            self._set("x_caption", f"x of '{ti}'" if i == j else f"x of '{ti}'\nand '{tj}'")
        self._set("q_caption", f"query of '{ti}'\n{vector_text(result.q[i])}")
        self._set("k_caption", f"key of '{tj}'\n{vector_text(result.k[j])}")
        self._set("v_caption", f"value of '{tj}'\n{vector_text(result.v[j])}")
        self._set("dot_value", f"score\n{style.fmt(result.scores[i, j], 3)}")
        if s.scale and s.temperature == 1.0:
            title = f"÷ √{s.d_k}"
        elif s.scale:
            title = f"÷ √{s.d_k}·T"
        elif s.temperature != 1.0:
            title = "÷ T"
        else:
            title = "÷ 1"
        self._set("scale_title", title)
        if result.allowed[i, j]:
            self._set("scale_value", f"scaled\n{style.fmt(result.scaled[i, j], 3)}")
        else:
            self._set("scale_value", f"masked ({mask_reason(result, i, j)}): −∞")
        if s.softmax_over == "keys":
            self._set("softmax_note", "→ weights: each row sums to 1")
        else:
            self._set("softmax_note", "down the columns: rows don't sum to 1")
        self._set("weight_value", f"weight {style.fmt(result.weights[i, j], 3)}")
        self._set("out_value", f"= output of '{ti}'\n{vector_text(result.output[i])}")
        self._set("mix_note", f"× weight {style.fmt(result.weights[i, j], 3)}\n+ other values")
        src = "source " if s.is_cross else ""
        pair = f"query {i + 1} '{ti}' → {src}key {j + 1} '{tj}'"
        if no_keys(result, i):
            pair += "\nevery key is masked: all weights 0, output 0"
            self._set("mix_note", "all weights 0:\nnothing to mix")
        sizes = sizes_text(s)
        self._set("pair", pair + (f"\n{sizes}" if sizes else ""))
        self._set("head", f"head {result.head + 1} of {result.n_heads}" if result.n_heads > 1 else "")
