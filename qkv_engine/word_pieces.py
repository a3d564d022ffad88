"""Words, not pieces: a model's tokens joined back into the words a person reads, and attention between
words instead of pieces.

    groups = merge_pieces(trace.tokens, trace.spans, trace.text)   # ("The", (1,)), ("cats", (2, 3)), ...
    word_weights(trace.weights, groups)                           # L x H x m x m, rows still sum to 1

Where a new word starts (MERGE_RULE says it in plain words):

- a special token ([CLS], [SEP], <s>, </s>, <|endoftext|>, <|begin_of_text|>, [PAD], [MASK], ...) is a word
  of its own; so is every piece with an empty span (the tokenizer added it, the text does not hold it);
- a WordPiece piece that begins with "##" continues the word before it;
- a byte-level (GPT-2) or SentencePiece piece that begins with a space ("␣"; the app shows GPT-2's "Ġ" and
  SentencePiece's "▁" so), a new line ("↵") or a tab ("⇥") starts a new word;
- any other piece: with spans and text, it starts a new word when the text has something (a space) between
  it and the piece before; without them, it continues the word before in a sentence whose pieces carry
  "␣" (byte-level, SentencePiece) and starts a new one in a WordPiece sentence;
- punctuation (pieces made of punctuation or symbols only, read from the text when spans are given, so a
  BERT [UNK] for "-" counts) is a word of its own, and a run of touching punctuation pieces ("...", "?!")
  is one word; but punctuation inside a word, with word pieces touching it on both sides (didn't, e-mail,
  3.5), stays in that word. A piece is never split: one that holds letters and punctuation together
  (Llama's "at." in "mat.") keeps its punctuation in its word.

Attention between words (WORD_RULE): attention *to* a word is the sum over its pieces (columns added),
attention *from* a word the mean over its pieces (rows averaged), so each row still sums to 1.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np

from .errors import ScenarioError

#: Shown in the app where word-level attention is drawn.
WORD_RULE = ("Attention to a word is the sum of the attention to its pieces; attention from a word is the "
             "average over its pieces, so each word's row still adds up to 1.")
#: Shown in the app where pieces are joined into words.
MERGE_RULE = ("Pieces are joined back into words: '##' pieces join the piece before; a piece starting with a "
              "space (shown ␣) starts a new word; special tokens such as [CLS], [SEP] and <|endoftext|> stay on "
              "their own; punctuation is a word of its own unless it sits inside a word (didn't, e-mail).")

#: Shown markers of white space a byte-level or SentencePiece piece may begin with (tokenizer.py's "␣", "↵",
#: "⇥", "␍", and SentencePiece's "▁" should a tokenizer show it as it is).
SPACE_MARKS = ("\u2423", "\u21b5", "\u21e5", "\u240d", "\u2581")
CONTINUES = "##"  # WordPiece's mark of a piece that continues the word before it
#: Special tokens by name: [CLS]-like brackets, <|...|>, <s>, </s> and <pad>-like tags. [UNK] and <unk> are
#: not here: they stand for real text, and are joined or split like any other piece.
_SPECIAL = re.compile(r"^(\[(CLS|SEP|PAD|MASK|BOS|EOS)\]|<\|[^|\s]+\|>|</?s>|<(pad|mask|bos|eos|cls|sep)>)$")


@dataclass(frozen=True)
class Word:
    """One word: the indices of its pieces (in order) and the text shown for it."""

    pieces: tuple
    text: str


def is_special(token: str) -> bool:
    """Whether ``token`` (as shown) is a special token such as [CLS], </s> or <|endoftext|>."""
    return bool(_SPECIAL.match(token))


def bare(piece: str) -> str:
    """A piece without its marks: "##s" -> "s", "␣cat" -> "cat"."""
    if piece.startswith(CONTINUES) and len(piece) > len(CONTINUES):
        return piece[len(CONTINUES):]
    return piece.lstrip("".join(SPACE_MARKS))


def is_punctuation(piece: str) -> bool:
    """Whether ``piece`` (marks removed) is punctuation or symbols only: ".", "...", "␣(", "$"."""
    text = bare(piece).strip()
    return bool(text) and all(unicodedata.category(c)[0] in "PS" for c in text)


def _check(tokens, spans, text) -> tuple:
    tokens = tuple(tokens)
    if not all(isinstance(t, str) for t in tokens):
        raise ScenarioError("tokens: expected strings")
    if (spans is None) != (text is None):
        raise ScenarioError("spans and text: give both or neither")
    if spans is not None:
        spans = tuple((int(a), int(b)) for a, b in spans)
        if len(spans) != len(tokens):
            raise ScenarioError(f"spans: expected {len(tokens)}, one per token, got {len(spans)}")
        if any(not 0 <= a <= b <= len(text) for a, b in spans):
            raise ScenarioError("spans: each must be (start, end) within the text")
    return tokens, spans


def merge_pieces(tokens, spans=None, text=None) -> tuple:
    """The words of a sentence's pieces, as a tuple of Word (the module docstring says where words start).
    ``tokens`` as the app shows them (ModelTrace.tokens); ``spans`` and ``text`` (ModelTrace.spans and .text,
    both or neither) tell where the text has spaces and what each piece reads there."""
    tokens, spans = _check(tokens, spans, text)
    n = len(tokens)
    if spans is None:
        special = [is_special(t) for t in tokens]
        punct = [is_punctuation(t) for t in tokens]
    else:
        special = [is_special(t) or a == b for t, (a, b) in zip(tokens, spans)]
        punct = [is_punctuation(text[a:b]) for a, b in spans]
    marked = any(t.startswith(SPACE_MARKS) for t in tokens)  # byte-level or SentencePiece pieces

    def starts(i: int) -> bool:
        """Whether piece i starts a word by its marks and spaces alone (punctuation comes after)."""
        t = tokens[i]
        if i == 0 or special[i] or special[i - 1]:
            return True
        if t.startswith(CONTINUES) and len(t) > len(CONTINUES):
            return False
        if t.startswith(SPACE_MARKS):
            return True
        if spans is not None:
            return spans[i - 1][1] < spans[i][0]  # a space (or anything) between the two pieces
        return not marked

    start = [starts(i) for i in range(n)]
    word_like = [not (special[i] or punct[i]) for i in range(n)]
    new = list(start)
    for i in range(n):
        if not punct[i] or special[i]:
            continue
        inside = (not start[i] and i + 1 < n and not start[i + 1] and word_like[i - 1] and word_like[i + 1])
        if inside:
            continue
        new[i] = start[i] or not punct[i - 1]  # a run of touching punctuation is one word
        if i + 1 < n and not punct[i + 1]:
            new[i + 1] = True
    words = []
    for i in range(n):
        if new[i]:
            words.append([i])
        else:
            words[-1].append(i)
    return tuple(Word(tuple(p), _shown(p, tokens, spans, text, special)) for p in words)


def _shown(pieces: list, tokens: tuple, spans, text, special: list) -> str:
    """The text shown for a word: a special token as it is; else the text it covers, spaces stripped;
    without spans the pieces joined without their marks; a word of spaces alone as its pieces."""
    if special[pieces[0]]:
        return tokens[pieces[0]]
    if spans is not None:
        shown = text[spans[pieces[0]][0]:spans[pieces[-1]][1]].strip()
    else:
        shown = "".join(bare(tokens[i]) for i in pieces).strip()
    return shown or "".join(tokens[i] for i in pieces)


def group_matrices(groups, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean, total) for ``groups`` of n pieces into m words: mean (m x n) averages a word's pieces' rows,
    total (n x m) adds a word's pieces' columns. Every piece must be in exactly one group."""
    pieces = [tuple(getattr(g, "pieces", g)) for g in groups]
    flat = sorted(int(i) for p in pieces for i in p)
    if flat != list(range(n)) or any(len(p) == 0 for p in pieces):
        raise ScenarioError(f"groups: each of the {n} pieces must be in exactly one word")
    m = len(pieces)
    mean = np.zeros((m, n))
    total = np.zeros((n, m))
    for a, p in enumerate(pieces):
        idx = np.array(p, dtype=np.int64)
        mean[a, idx] = 1.0 / len(p)
        total[idx, a] = 1.0
    return mean, total


def word_weights(weights, groups, dtype=np.float64) -> np.ndarray:
    """Attention between words (WORD_RULE): ``weights`` n x n or ... x n x n (a head, a layer, every head),
    ``groups`` from merge_pieces (or index tuples) -> ... x m x m ``dtype``, out[..., a, b] = mean over pieces
    i of word a of the sum over pieces j of word b of weights[..., i, j], added up in float64.

    Words of consecutive pieces in order (as merge_pieces makes them) are added up by np.add.reduceat, one
    n x n matrix at a time: no float64 copy of a long sentence's stack of every head's weights, and n^2 sums
    a matrix rather than the n^3 of the products by group_matrices (the way taken for other groups)."""
    w = np.asarray(weights)
    if w.ndim < 2 or w.shape[-1] != w.shape[-2]:
        raise ScenarioError(f"weights: expected ... x n x n, got shape {w.shape}")
    n = w.shape[-1]
    mean, total = group_matrices(groups, n)  # checks the groups
    pieces = [tuple(int(i) for i in getattr(g, "pieces", g)) for g in groups]
    if [i for p in pieces for i in p] != list(range(n)) or any(p != tuple(range(p[0], p[-1] + 1)) for p in pieces):
        return (mean @ np.asarray(w, dtype=np.float64) @ total).astype(dtype, copy=False)
    starts = np.array([p[0] for p in pieces], dtype=np.int64)
    sizes = np.array([len(p) for p in pieces], dtype=np.float64)
    out = np.empty(w.shape[:-2] + (len(pieces),) * 2, dtype)
    for at in np.ndindex(w.shape[:-2]):
        columns = np.add.reduceat(w[at], starts, axis=-1, dtype=np.float64)  # n x m: each word's pieces' sum
        out[at] = np.add.reduceat(columns, starts, axis=-2) / sizes[:, None]  # m x m: the mean over a word's rows
    return out


def word_mask(allowed, groups) -> np.ndarray:
    """Which words may look at which (m x m bool): word a at word b when some piece of a may look at some
    piece of b. ``allowed`` n x n bool, ``groups`` as for word_weights."""
    return word_weights(np.asarray(allowed, dtype=np.float64), groups) > 0.0


def trace_words(trace) -> tuple:
    """The words of a ModelTrace: merge_pieces with its spans and text, or from its tokens alone when those do
    not fit them."""
    try:
        return merge_pieces(trace.tokens, trace.spans, trace.text)
    except ScenarioError:
        return merge_pieces(trace.tokens)
