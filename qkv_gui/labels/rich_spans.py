"""The rich text our labels write, read into words and the formats of their spans (for a ``QTextLayout``).

    words, ranges = parse_rich("Key <b style='color:#B23C12'>cat</b> &amp; more<br><i>masked</i>")
    # words == "Key cat & more\u2028masked"; ranges: "cat" bold in #B23C12, "masked" italic

Read: ``<b>``/``<strong>``, ``<i>``/``<em>``, ``<span>`` (each with an optional ``style`` of ``color``,
``font-weight: bold|normal``, ``font-style: italic|normal``), ``<br>``, character references, and white space
collapsed as HTML does it. Anything else (another tag or attribute, a comment, a stray ``<`` or ``>``) gives None:
the caller leaves such text to Qt's own rich-text engine. Each distinct tag is read once, by Python's
``html.parser``, and remembered; the words between tags are only unescaped.
"""
from __future__ import annotations

import html
from functools import lru_cache
from html.parser import HTMLParser

from PySide6 import QtGui

#: What a <br> is inside a Qt text block (a line break that is not a new paragraph).
LINE_BREAK = "\u2028"
_BOLD, _NORMAL = QtGui.QFont.Weight.Bold, QtGui.QFont.Weight.Normal
#: The tags read, and the look each gives to its words.
TAGS = {"b": (("weight", _BOLD),), "strong": (("weight", _BOLD),), "i": (("italic", True),),
        "em": (("italic", True),), "span": ()}
_SPACES = "\t\n\r\f"  # HTML white space besides " " (a no-break space is not white space)


def no_break(words: str) -> str:
    """``words`` with no-break spaces: one item of a legend ("○ both 20 positions further on") stays on one line
    when the legend wraps, between its items only."""
    return words.replace(" ", "\u00a0")


class _OneTag(HTMLParser):
    """Python's HTML parser, asked about one tag."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.got = None

    def handle_starttag(self, tag, attrs):
        self.got = ("open", tag, attrs)

    def handle_startendtag(self, tag, attrs):
        self.got = ("open", tag, attrs)

    def handle_endtag(self, tag):
        self.got = ("close", tag, [])


def _style(text: str):
    """The looks a style attribute gives, as (name, value) pairs; None for anything not read here."""
    look = []
    for rule in text.split(";"):
        if not rule.strip():
            continue
        name, _, value = rule.partition(":")
        name, value = name.strip().lower(), value.strip()
        if name == "color" and QtGui.QColor.isValidColorName(value):
            look.append(("color", value))
        elif name == "font-weight" and value in ("bold", "normal"):
            look.append(("weight", _BOLD if value == "bold" else _NORMAL))
        elif name == "font-style" and value in ("italic", "normal"):
            look.append(("italic", value == "italic"))
        else:
            return None
    return look


@lru_cache(maxsize=512)
def _tag(inside: str):
    """What ``<inside>`` does: ("open", name, look pairs), ("close", name, ()), ("br", "br", ()), or None."""
    parser = _OneTag()
    parser.feed(f"<{inside}>")
    parser.close()
    if parser.got is None:
        return None
    kind, name, attrs = parser.got
    if name == "br":
        return ("br", name, ()) if not attrs else None
    if name not in TAGS:
        return None
    if kind == "close":
        return ("close", name, ())
    look = list(TAGS[name])
    for key, value in attrs:
        extra = _style(value or "") if key == "style" else None
        if extra is None:
            return None
        look.extend(extra)
    return ("open", name, tuple(look))


@lru_cache(maxsize=256)
def _char_format(look: tuple) -> QtGui.QTextCharFormat:
    """The character format of a look (pairs of weight, italic, color)."""
    fmt = QtGui.QTextCharFormat()
    for name, value in look:
        if name == "weight":
            fmt.setFontWeight(value)
        elif name == "italic":
            fmt.setFontItalic(value)
        else:
            fmt.setForeground(QtGui.QColor(value))
    return fmt


def _collapse(data: str) -> str:
    """``data`` with each run of HTML white space made one space."""
    for space in _SPACES:
        if space in data:
            data = data.replace(space, " ")
    while "  " in data:
        data = data.replace("  ", " ")
    return data


def parse_rich(text: str):
    """``(words, [QTextLayout.FormatRange])`` of rich ``text``, or None when it uses more than is read here."""
    pieces = text.split("<")
    parts: list[str] = []
    ranges = []
    stack: list[tuple[str, tuple]] = []  # the open tags and the look of the words inside them
    length = 0
    at_space = True  # the last character written is a space or starts a line: a new space is dropped
    for n, piece in enumerate(pieces):
        if n == 0:
            data = piece
        else:
            inside, closed, data = piece.partition(">")
            if not closed:
                return None
            tag = _tag(inside)
            if tag is None:
                return None
            kind, name, look = tag
            if kind == "br":
                parts.append(LINE_BREAK)
                length += 1
                at_space = True
            elif kind == "open":
                stack.append((name, (stack[-1][1] if stack else ()) + look))
            else:
                if not stack or stack[-1][0] != name:
                    return None
                stack.pop()
        if not data:
            continue
        if ">" in data:
            return None
        data = _collapse(data)
        if at_space and data[0] == " ":
            data = data[1:]
        if "&" in data:
            data = html.unescape(data)
        if not data:
            continue
        if stack and stack[-1][1]:
            piece_range = QtGui.QTextLayout.FormatRange()
            piece_range.start, piece_range.length, piece_range.format = length, len(data), _char_format(stack[-1][1])
            ranges.append(piece_range)
        parts.append(data)
        length += len(data)
        at_space = data[-1] == " "
    if stack:
        return None
    return "".join(parts), ranges
