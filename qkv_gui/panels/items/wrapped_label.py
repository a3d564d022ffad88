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
label that does not wrap and an empty one. A label whose text can be selected is a plain ``QLabel`` while the
mouse is over it and while it holds a selection (so selecting, copying and its context menu work as ever), and
paints itself otherwise.
"""
from __future__ import annotations

import math
from html.parser import HTMLParser

from PySide6 import QtCore, QtGui, QtWidgets

Qt = QtCore.Qt
QEvent = QtCore.QEvent
_SELECTABLE = Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
_LINE_BREAK = "\u2028"  # what a <br> is in a Qt text block
_WIDGETSIZE_MAX = (1 << 24) - 1  # QWIDGETSIZE_MAX


class _Unsupported(Exception):
    """Rich text this label does not draw itself."""


class _Spans(HTMLParser):
    """Rich text as plain words and the formats of its spans, with white space collapsed as HTML does."""

    TAGS = {"b": ("weight", QtGui.QFont.Weight.Bold), "strong": ("weight", QtGui.QFont.Weight.Bold),
            "i": ("italic", True), "em": ("italic", True), "span": None}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.length = 0
        self.stack: list[tuple[str, dict]] = []  # open tags and the format each gives
        self.ranges: list[tuple[int, int, dict]] = []
        self._space = True  # the last character written is a space or a line start (a new space is dropped)

    def handle_starttag(self, tag, attrs):
        if tag == "br":
            self._write(_LINE_BREAK)
            self._space = True
            return
        if tag not in self.TAGS:
            raise _Unsupported(tag)
        look = dict(self.stack[-1][1]) if self.stack else {}
        if self.TAGS[tag] is not None:
            look[self.TAGS[tag][0]] = self.TAGS[tag][1]
        for name, value in attrs:
            if name != "style":
                raise _Unsupported(name)
            look.update(_style(value or ""))
        self.stack.append((tag, look))

    def handle_startendtag(self, tag, attrs):
        if tag != "br":
            raise _Unsupported(tag)
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == "br":
            return
        if not self.stack or self.stack[-1][0] != tag:
            raise _Unsupported(tag)
        self.stack.pop()

    def handle_data(self, data):
        words = " ".join(data.split())
        if data[:1].isspace() and not self._space:
            words = " " + words
        if data[-1:].isspace() and data.strip() and not words.endswith(" "):
            words += " "
        if self._space:
            words = words.lstrip(" ")
        if words:
            self._write(words)
            self._space = words.endswith(" ")

    def _write(self, words: str) -> None:
        if self.stack and self.stack[-1][1] and words != _LINE_BREAK:
            self.ranges.append((self.length, len(words), self.stack[-1][1]))
        self.parts.append(words)
        self.length += len(words)

    def unknown_decl(self, data):
        raise _Unsupported(data)

    def handle_comment(self, data):
        raise _Unsupported("comment")

    def handle_pi(self, data):
        raise _Unsupported("pi")

    def handle_decl(self, decl):
        raise _Unsupported(decl)


def _style(text: str) -> dict:
    """The looks a style attribute gives (colour, weight, slant); anything else is not drawn here."""
    look = {}
    for rule in text.split(";"):
        if not rule.strip():
            continue
        name, _, value = rule.partition(":")
        name, value = name.strip().lower(), value.strip()
        if name == "color" and QtGui.QColor.isValidColorName(value):
            look["color"] = value
        elif name == "font-weight" and value in ("bold", "normal"):
            look["weight"] = QtGui.QFont.Weight.Bold if value == "bold" else QtGui.QFont.Weight.Normal
        elif name == "font-style" and value in ("italic", "normal"):
            look["italic"] = value == "italic"
        else:
            raise _Unsupported(rule)
    return look


def parse_rich(text: str):
    """``(words, [QTextLayout.FormatRange])`` of rich ``text``, or None when it uses more than this label draws."""
    parser = _Spans()
    try:
        parser.feed(text)
        parser.close()
    except _Unsupported:
        return None
    words = "".join(parser.parts)
    if words.endswith(" "):  # (a trailing space takes no room on a wrapped line, but keeps offsets simple)
        words = words[:-1]
    ranges = []
    for start, length, look in parser.ranges:
        length = min(length, len(words) - start)
        if length <= 0:
            continue
        fmt = QtGui.QTextCharFormat()
        if "weight" in look:
            fmt.setFontWeight(look["weight"])
        if "italic" in look:
            fmt.setFontItalic(look["italic"])
        if "color" in look:
            fmt.setForeground(QtGui.QColor(look["color"]))
        piece = QtGui.QTextLayout.FormatRange()
        piece.start, piece.length, piece.format = start, length, fmt
        ranges.append(piece)
    return words, ranges


class WrappedLabel(QtWidgets.QLabel):
    """A word-wrapped ``QLabel`` that lays out and paints its words with a cached ``QTextLayout``."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, text: str = ""):
        super().__init__(text, parent)
        self.setWordWrap(True)
        self._words = None  # (text, whether rich): the words below belong to it
        self._plain = None  # the words drawn (None: QLabel draws this text itself)
        self._ranges: list = []
        self._document = False  # whether QLabel would lay this text out in a text document
        self._layouts: dict = {}  # width -> (QTextLayout, height, natural width)
        self._native = False  # QLabel paints (the mouse is over a selectable label, or it holds a selection)

    # ----- the words and how QLabel would draw them ----------------------------------------------------
    def setText(self, text: str) -> None:  # noqa: N802 (Qt naming)
        if self._native and not self.underMouse():
            self._native = False  # a new text has no selection
        super().setText(text)

    def _ready(self) -> bool:
        """Whether this label draws its text itself (its words worked out for the text it has now)."""
        text = self.text()
        fmt = self.textFormat()
        rich = fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text))
        if self._words != (text, rich):
            self._words = (text, rich)
            self._layouts.clear()
            self._ranges = []
            if not text or not self.wordWrap():
                self._plain = None
            elif rich:
                parsed = parse_rich(text)
                self._plain, self._ranges = parsed if parsed is not None else (None, [])
            else:
                self._plain = text.replace("\r\n", "\n").replace("\n", _LINE_BREAK)
            self._document = rich or bool(self.textInteractionFlags() & _SELECTABLE)
        return self._plain is not None and self.wordWrap() and not self.hasScaledContents()

    def _layout(self, width: int) -> tuple:
        """The text laid out ``width`` pixels wide: (QTextLayout, height, widest line), as QLabel lays it out."""
        got = self._layouts.get(width)
        if got is not None:
            return got
        if len(self._layouts) > 8:
            self._layouts.clear()
        layout = QtGui.QTextLayout(self._plain, self.font())
        option = QtGui.QTextOption(Qt.AlignmentFlag(int(self.alignment()) & int(Qt.AlignmentFlag.AlignHorizontal_Mask)))
        option.setWrapMode(QtGui.QTextOption.WrapMode.WordWrap)
        layout.setTextOption(option)
        if self._ranges:
            layout.setFormats(self._ranges)
        layout.setCacheEnabled(True)
        leading = 0.0 if self._document else QtGui.QFontMetricsF(self.font()).leading()
        height = -leading
        widest = 0.0
        layout.beginLayout()
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            if self._document:
                line.setLeadingIncluded(True)
            line.setLineWidth(max(width, 0))
            if self._document:
                if line.naturalTextWidth() > width:  # a word wider than the line: as QTextDocument does
                    line.setLineWidth(max(line.naturalTextWidth(), width))
                line.setPosition(QtCore.QPointF(0.0, height))
                height += line.height()
            else:  # QPainter.drawText: each line on a whole pixel, as high as its font (not rounded up)
                height = math.ceil(height + leading)
                line.setPosition(QtCore.QPointF(0.0, height))
                height += line.ascent() + line.descent() + (line.leading() if line.leadingIncluded() else 0.0)
            widest = max(widest, line.naturalTextWidth())
        layout.endLayout()
        got = self._layouts[width] = (layout, max(height, 0.0), widest)
        return got

    def _indent(self, sizing: bool) -> int:
        """The room QLabel keeps beside the text for its indent (a framed label with no indent set: part of
        an 'x'; QLabel takes half of it when painting and all of it when measuring)."""
        room = self.indent()
        if room < 0 and self.frameWidth():
            advance = self.fontMetrics().horizontalAdvance("x")
            room = advance - 2 * self.margin() if sizing else advance // 2 - self.margin()
        return max(room, 0)

    def _size_for_width(self, width: int) -> QtCore.QSize:
        """QLabel's size for ``width`` (-1: the size it would choose)."""
        if self.minimumWidth() > 0:
            width = max(width, self.minimumWidth())
        margins = self.contentsMargins()
        align = self.alignment()
        extra_h = extra_v = 2 * self.margin()
        room = self._indent(True)
        if align & (Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignRight):
            extra_h += room
        if align & (Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignBottom):
            extra_v += room
        chrome = margins.left() + margins.right()
        if width >= 0:
            _, height, widest = self._layout(max(width - extra_h - chrome, 0))
            text_w = max(width - extra_h - chrome, widest) if self._document else widest
        elif self._document:  # QTextDocument.adjustSize: near the golden ratio, at most 80 x's wide
            most = w = self.fontMetrics().horizontalAdvance("x") * 80
            _, height, widest = self._layout(most)
            used = most
            if max(most, widest):
                w = math.isqrt(int(5 * height * max(most, widest) / 3))
                used = min(w, most)
                _, height, widest = self._layout(used)
                if w * 3 < 5 * height:
                    w = math.isqrt(int(2 * height * max(used, widest)))
                    used = min(w, most)
                    _, height, widest = self._layout(used)
            ideal = widest
            _, height, widest = self._layout(math.ceil(ideal) if ideal != int(ideal) else int(ideal))
            text_w = max(ideal, widest)
        else:  # QLabel's own tries: 80 average characters wide, then narrower while it stays short
            fm = self.fontMetrics()
            w = min(fm.averageCharWidth() * 80, self.maximumWidth()) - extra_h - chrome
            _, height, widest = self._layout(w)  # (QLabel compares whole pixels: its rectangle's)
            if math.ceil(height) < 4 * fm.lineSpacing() and math.ceil(widest) > w / 2:
                _, height, widest = self._layout(w // 2)
            if math.ceil(height) < 2 * fm.lineSpacing() and math.ceil(widest) > w / 4:
                _, height, widest = self._layout(w // 4)
            text_w = widest
        size = QtCore.QSize(math.ceil(text_w) + extra_h + chrome,
                            math.ceil(height) + extra_v + margins.top() + margins.bottom())
        return size.expandedTo(self.minimumSize())

    # ----- what a layout asks ----------------------------------------------------------------------------
    def heightForWidth(self, width: int) -> int:  # noqa: N802
        if not self._ready():
            return super().heightForWidth(width)
        return self._size_for_width(width).height()

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
    def paintEvent(self, event) -> None:  # noqa: N802
        if self._native or not self._ready():
            super().paintEvent(event)
            return
        painter = QtGui.QPainter(self)
        self.drawFrame(painter)
        rect = self.contentsRect()
        m = self.margin()
        rect.adjust(m, m, -m, -m)
        align = self.alignment()
        room = self._indent(False)
        if room:
            if align & Qt.AlignmentFlag.AlignLeft:
                rect.setLeft(rect.left() + room)
            if align & Qt.AlignmentFlag.AlignRight:
                rect.setRight(rect.right() - room)
            if align & Qt.AlignmentFlag.AlignTop:
                rect.setTop(rect.top() + room)
            if align & Qt.AlignmentFlag.AlignBottom:
                rect.setBottom(rect.bottom() - room)
        layout, height, _ = self._layout(rect.width())
        if self._document:  # QLabel: the document placed at a whole pixel, clipped to the rectangle
            top = 0.0
            if align & Qt.AlignmentFlag.AlignVCenter:
                top = max((rect.height() - height) / 2, 0.0)
            elif align & Qt.AlignmentFlag.AlignBottom:
                top = max(rect.height() - height, 0.0)
            origin = QtCore.QPointF(rect.x(), math.floor(rect.y() + top))
            painter.setClipRect(QtCore.QRectF(origin, QtCore.QSizeF(rect.width(), rect.height())))
        else:  # QPainter.drawText
            top = 0.0
            if align & Qt.AlignmentFlag.AlignBottom:
                top = rect.height() - height
            elif align & Qt.AlignmentFlag.AlignVCenter:
                top = (rect.height() - height) / 2
            origin = QtCore.QPointF(rect.x(), rect.y() + top)
        palette = self.palette()
        painter.setPen(palette.color(palette.currentColorGroup() if self.isEnabled() else QtGui.QPalette.ColorGroup.Disabled,
                                     self.foregroundRole()))
        layout.draw(painter, origin)
        painter.end()

    # ----- switching to QLabel's own painting for selecting ----------------------------------------------
    def _selectable(self) -> bool:
        return bool(self.textInteractionFlags() & _SELECTABLE)

    def enterEvent(self, event) -> None:  # noqa: N802
        if self._selectable() and not self._native:
            self._native = True
            self.update()
        super().enterEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802
        super().leaveEvent(event)
        if self._native and not self.hasSelectedText():
            self._native = False
            self.update()

    def changeEvent(self, event) -> None:  # noqa: N802
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._words = None  # lay out again in the new font
        super().changeEvent(event)

    def setTextFormat(self, fmt) -> None:  # noqa: N802
        self._words = None
        super().setTextFormat(fmt)

    def setTextInteractionFlags(self, flags) -> None:  # noqa: N802
        self._words = None
        super().setTextInteractionFlags(flags)

    def setAlignment(self, align) -> None:  # noqa: N802
        self._words = None
        super().setAlignment(align)

    def setWordWrap(self, on: bool) -> None:  # noqa: N802
        self._words = None
        super().setWordWrap(on)

    def setIndent(self, indent: int) -> None:  # noqa: N802
        self._layouts.clear()
        super().setIndent(indent)
