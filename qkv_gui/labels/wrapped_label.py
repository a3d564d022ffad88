"""A word-wrapped label for words that change on every edit, laid out and painted with a ``QTextLayout``.

A ``QLabel`` with rich or selectable text keeps a ``QTextDocument`` that it fills and lays out afresh for each
new text (0.1-0.3 ms a label); a ``QTextLayout`` lays the same words out in a fraction of that. This label is
a ``QLabel`` (``text()``, ``setText``, fonts, palettes, style sheets' colour and padding, tool tips all work as
usual) that measures and paints its text itself, the way the ``QLabel`` would have drawn it: wrapped at the same
words, the same line heights, bold, italic and coloured spans where its rich text has them.

    label = WrappedLabel(parent)            # word-wrapped from the start
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setText("Query <b style='color:#2F3FA8'>cat</b>: [0.1, 0.2]")

Rich text may use ``<b>``, ``<i>``, ``<span>`` (each with an optional ``style='color: ...'``, ``font-weight``
or ``font-style``), ``<br>`` and character references; any other text is left to ``QLabel`` itself, as are a
label that does not wrap, an empty one, and plain text that cannot be selected (QLabel lays that out without a
text document, as cheaply as this label would). A label whose text can be selected is a plain ``QLabel`` while the
mouse is over it and while it holds a selection (so selecting, copying and its context menu work as ever), and
paints itself otherwise.
"""
from __future__ import annotations

import math

from PySide6 import QtCore, QtGui, QtWidgets

from .painted_ground import paint_own_ground
from .rich_spans import LINE_BREAK, parse_rich

Qt = QtCore.Qt
QEvent = QtCore.QEvent
_SELECTABLE = Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
_WIDGETSIZE_MAX = (1 << 24) - 1  # QWIDGETSIZE_MAX
_LEFT, _RIGHT = int(Qt.AlignmentFlag.AlignLeft), int(Qt.AlignmentFlag.AlignRight)
_TOP, _BOTTOM = int(Qt.AlignmentFlag.AlignTop), int(Qt.AlignmentFlag.AlignBottom)
_VCENTER = int(Qt.AlignmentFlag.AlignVCenter)
_HORIZONTAL, _HCENTER = int(Qt.AlignmentFlag.AlignHorizontal_Mask), int(Qt.AlignmentFlag.AlignHCenter)
#: The events after which the label measures its words afresh.
_NEW_LOOK = {QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.ContentsRectChange,
             QEvent.Type.LayoutDirectionChange}
#: The events after which the label's words may need another colour.
_NEW_PEN = {QEvent.Type.PaletteChange, QEvent.Type.EnabledChange, QEvent.Type.ActivationChange}


class WrappedLabel(QtWidgets.QLabel):
    """A word-wrapped ``QLabel`` that lays out and paints its words with a cached ``QTextLayout``."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, text: str = ""):
        super().__init__(text, parent)
        self.setWordWrap(True)
        paint_own_ground(self)  # its words change at every edit: the panel under it is not repainted (see
        # ``leave_ground`` before giving it a style sheet with a padding, border or background)
        self._native = False  # QLabel paints (the mouse is over a selectable label, or it holds a selection)
        self._forget()

    def _forget(self) -> None:
        """Measure everything afresh at the next need (new font, style, margins or options)."""
        self._look = None  # what does not change with the words (``_settle``)
        self._pen = None  # the colour of the words
        self._text = None  # the text the words below belong to
        self._plain = None  # the words drawn (None: QLabel draws this text itself)

    def _settle(self) -> dict:
        """What the label's options, font and margins make of any text; worked out once, not per text."""
        margins = self.contentsMargins()
        align = int(self.alignment())
        fmt = self.textFormat()
        room = self.indent()
        if room < 0 and self.frameWidth():  # a framed label with no indent set: QLabel keeps part of an 'x'
            advance = self.fontMetrics().horizontalAdvance("x")
            sizing, painting = advance - 2 * self.margin(), advance // 2 - self.margin()
        else:
            sizing = painting = room
        sizing, painting = max(sizing, 0), max(painting, 0)
        extra_h = extra_v = 2 * self.margin()
        if align & (_LEFT | _RIGHT):
            extra_h += sizing
        if align & (_TOP | _BOTTOM):
            extra_v += sizing
        option = QtGui.QTextOption(Qt.AlignmentFlag(align & _HORIZONTAL))
        option.setWrapMode(QtGui.QTextOption.WrapMode.WordWrap)
        self._look = look = {
            "option": option,
            "wraps": self.wordWrap() and not self.hasScaledContents(),
            "rich": fmt == Qt.TextFormat.RichText, "auto": fmt == Qt.TextFormat.AutoText,
            "selectable": bool(self.textInteractionFlags() & _SELECTABLE),
            "align": align, "font": self.font(),
            "extra_h": extra_h + margins.left() + margins.right(),
            "extra_v": extra_v + margins.top() + margins.bottom(),
            "indent": painting, "margin": self.margin(),
            # how much narrower than the label its words are painted (QLabel measures a framed label's words
            # a little narrower than it paints them), when that differs and the lines start at the left
            "paint_h": (2 * self.margin() + margins.left() + margins.right() + painting * bool(align & _LEFT)
                        if sizing != painting and not align & (_RIGHT | _HCENTER) else None),
        }
        return look

    # ----- the words and how QLabel would draw them ----------------------------------------------------
    def _ready(self) -> bool:
        """Whether this label draws its text itself (its words worked out for the text it has now)."""
        text = self.text()
        if text == self._text:
            return self._plain is not None
        look = self._look or self._settle()
        if self._native and not self.underMouse():
            self._native = False  # new words have no selection: painted here again
        self._text = text
        self._plain = None
        self._ranges: list = []
        self._layouts: dict = {}  # width -> (QTextLayout, height, widest line)
        self._heights: dict = {}  # width -> the label's height for it
        self._placed = None  # ((width, height), layout, origin, clip) of the last paint
        rich = look["rich"] or (look["auto"] and QtGui.Qt.mightBeRichText(text))
        if not text or not look["wraps"] or not (rich or look["selectable"]):
            return False  # (QLabel paints plain text that cannot be selected without a text document: as cheap)
        if rich:
            parsed = parse_rich(text)
            if parsed is not None:
                self._plain, self._ranges = parsed
        else:
            self._plain = text.replace("\r\n", "\n").replace("\n", LINE_BREAK)
        return self._plain is not None

    def _layout(self, width: int) -> tuple:
        """The text laid out ``width`` pixels wide: (QTextLayout, height, widest line), as QLabel lays it out."""
        got = self._layouts.get(width)
        if got is not None:
            return got
        if len(self._layouts) > 8:
            self._layouts.clear()
        look = self._look
        layout = QtGui.QTextLayout(self._plain, look["font"])
        layout.setTextOption(look["option"])
        if self._ranges:
            layout.setFormats(self._ranges)
        layout.setCacheEnabled(True)
        height = widest = 0.0
        layout.beginLayout()
        while True:  # as QTextDocument lays a block out
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLeadingIncluded(True)
            line.setLineWidth(width)
            natural = line.naturalTextWidth()
            if natural > width:  # a word wider than the line: the line as wide as the word
                line.setLineWidth(natural)
                natural = line.naturalTextWidth()
            line.setPosition(QtCore.QPointF(0.0, height))
            height += line.height()
            widest = max(widest, natural)
        layout.endLayout()
        got = self._layouts[width] = (layout, height, widest)
        return got

    def _size_for_width(self, width: int) -> QtCore.QSize:
        """QLabel's size for ``width`` (-1: the size it would choose)."""
        if self.minimumWidth() > 0:
            width = max(width, self.minimumWidth())
        extra_h, extra_v = self._look["extra_h"], self._look["extra_v"]
        if width >= 0:
            wide = self._look["paint_h"]
            if wide is not None and max(width - extra_h, 0) not in self._layouts:
                painted = self._layout(max(width - wide, 0))
                if painted[2] <= width - extra_h:  # no line of the painted words is wider: the same lines
                    self._layouts[width - extra_h] = painted  # (wrapping fills each line greedily)
            _, height, widest = self._layout(max(width - extra_h, 0))
            text_w = max(width - extra_h, widest)
        else:  # QTextDocument.adjustSize: near the golden ratio, at most 80 x's wide
            most = w = QtGui.QFontMetrics(self._look["font"]).horizontalAdvance("x") * 80
            _, height, widest = self._layout(most)
            if max(most, widest):
                w = math.isqrt(int(5 * height * max(most, widest) / 3))
                used = min(w, most)
                _, height, widest = self._layout(used)
                if w * 3 < 5 * height:
                    w = math.isqrt(int(2 * height * max(used, widest)))
                    _, height, widest = self._layout(min(w, most))
            ideal = widest
            _, height, widest = self._layout(math.ceil(ideal))
            text_w = max(ideal, widest)
        size = QtCore.QSize(math.ceil(text_w) + extra_h, math.ceil(height) + extra_v)
        return size.expandedTo(self.minimumSize())

    # ----- what a layout asks ----------------------------------------------------------------------------
    def heightForWidth(self, width: int) -> int:  # noqa: N802
        if not self._ready():
            return super().heightForWidth(width)
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) > 8:
                self._heights.clear()
            height = self._heights[width] = max(self._size_for_width(width).height(), 0)
        return height

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        if not self._ready():
            return super().sizeHint()
        self.ensurePolished()
        return self._size_for_width(-1)

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802
        if not self._ready():
            return super().minimumSizeHint()
        self.ensurePolished()
        hint = self._size_for_width(-1)
        one_line = self._size_for_width(_WIDGETSIZE_MAX).height()
        return QtCore.QSize(self._size_for_width(0).width(), min(one_line, hint.height()))

    # ----- painting ------------------------------------------------------------------------------------
    def _place(self, size: tuple) -> tuple:
        """Where the words go in a label of ``size``: (size, layout, origin, clip), as QLabel puts them."""
        look = self._look
        rect = self.contentsRect()
        m = look["margin"]
        rect.adjust(m, m, -m, -m)
        align = look["align"]
        room = look["indent"]
        if room:
            if align & _LEFT:
                rect.setLeft(rect.left() + room)
            if align & _RIGHT:
                rect.setRight(rect.right() - room)
            if align & _TOP:
                rect.setTop(rect.top() + room)
            if align & _BOTTOM:
                rect.setBottom(rect.bottom() - room)
        layout, height, _ = self._layout(rect.width())
        top = 0.0  # QLabel: the document at a whole pixel, clipped to the rectangle
        if align & _VCENTER:
            top = max((rect.height() - height) / 2, 0.0)
        elif align & _BOTTOM:
            top = max(rect.height() - height, 0.0)
        origin = QtCore.QPointF(rect.x(), math.floor(rect.y() + top))
        clip = QtCore.QRectF(origin, QtCore.QSizeF(rect.width(), rect.height()))
        return size, layout, origin, clip

    def paintEvent(self, event) -> None:  # noqa: N802
        if not self._ready() or self._native:
            super().paintEvent(event)
            return
        size = (self.width(), self.height())
        placed = self._placed
        if placed is None or placed[0] != size:
            placed = self._placed = self._place(size)
        _, layout, origin, clip = placed
        if self._pen is None:
            palette = self.palette()
            group = (QtGui.QPalette.ColorGroup.Disabled if not self.isEnabled() else
                     QtGui.QPalette.ColorGroup.Active if self.isActiveWindow() else QtGui.QPalette.ColorGroup.Inactive)
            self._pen = QtGui.QPen(palette.color(group, self.foregroundRole()))
        painter = QtGui.QPainter(self)
        self.drawFrame(painter)
        painter.setPen(self._pen)
        painter.setClipRect(clip)
        layout.draw(painter, origin)
        painter.end()

    # ----- switching to QLabel's own painting for selecting ----------------------------------------------
    def enterEvent(self, event) -> None:  # noqa: N802
        if not self._native and (self._look or self._settle())["selectable"]:
            self._native = True
            self.update()
        super().enterEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802
        super().leaveEvent(event)
        if self._native and not self.hasSelectedText():
            self._native = False
            self.update()

    def changeEvent(self, event) -> None:  # noqa: N802
        kind = event.type()
        if kind in _NEW_LOOK:
            self._forget()
        elif kind in _NEW_PEN:
            self._pen = None
        super().changeEvent(event)

    # ----- options that change how the words are laid out -----------------------------------------------
    def setTextFormat(self, fmt) -> None:  # noqa: N802
        super().setTextFormat(fmt)
        self._forget()

    def setTextInteractionFlags(self, flags) -> None:  # noqa: N802
        super().setTextInteractionFlags(flags)
        self._forget()

    def setAlignment(self, align) -> None:  # noqa: N802
        super().setAlignment(align)
        self._forget()

    def setWordWrap(self, on: bool) -> None:  # noqa: N802
        super().setWordWrap(on)
        self._forget()

    def setIndent(self, indent: int) -> None:  # noqa: N802
        super().setIndent(indent)
        self._forget()

    def setMargin(self, margin: int) -> None:  # noqa: N802
        super().setMargin(margin)
        self._forget()
