"""Splitting a sentence into tokens: words and punctuation, each with its span.

A word is a run of letters, digits, combining marks and connectors (so
"don't", "naïve", "東京" and "مرحبا" stay whole). Every other visible
character (punctuation, symbols, emoji) is a token of its own; zero-width
joiners and variation selectors stay with the character before them.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

#: The most tokens one scenario holds; beyond this the rest of a text is dropped
#: (and the caller is told how many were dropped).
MAX_TOKENS = 512

_APOSTROPHES = "'\u2019"


@dataclass(frozen=True)
class Token:
    text: str
    start: int  # index of the first character in the sentence
    end: int  # one past the last character


def _kind(ch: str) -> str:
    cat = unicodedata.category(ch)
    if ch.isspace() or cat in ("Zs", "Zl", "Zp", "Cc"):
        return "space"
    if cat[0] in "LN" or cat == "Pc":
        return "word"
    if cat[0] == "M" or cat == "Cf" or 0x1F3FB <= ord(ch) <= 0x1F3FF:
        return "attach"  # combining mark, ZWJ, variation selector
    return "symbol"


def tokenize(text: str) -> list[Token]:
    """Return every token of ``text`` in order, with character spans."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        kind = _kind(text[i])
        if kind == "space":
            i += 1
            continue
        start = i
        if kind == "word":
            i += 1
            while i < n:
                k = _kind(text[i])
                if k in ("word", "attach"):
                    i += 1
                elif text[i] in _APOSTROPHES and i + 1 < n and _kind(text[i + 1]) == "word":
                    i += 2
                else:
                    break
        else:
            i += 1
            while i < n and _kind(text[i]) == "attach":
                i += 1
                # an emoji ZWJ sequence continues with the next symbol
                if text[i - 1] == "\u200d" and i < n and _kind(text[i]) == "symbol":
                    i += 1
        tokens.append(Token(text[start:i], start, i))
    return tokens
