"""Token names on grid axes: shortened to a few characters, and thinned to every k-th when crowded."""
from __future__ import annotations

import math

#: Token labels longer than this are shortened with an ellipsis.
LABEL_CHARS = 10


def short_token(tok: str, limit: int = LABEL_CHARS) -> str:
    """``tok`` on one line, cut to ``limit`` characters with an ellipsis."""
    tok = tok.replace("\n", " ")
    return tok if len(tok) <= limit else tok[: limit - 1] + "…"


def nice_step(raw: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... that is at least ``raw``."""
    if raw <= 1:
        return 1
    mag = 10 ** int(math.floor(math.log10(raw)))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return int(m * mag)
    return int(10 * mag)


def label_step(raw: float) -> int:
    """Every how many names one is written when each needs ``raw`` cells: the smallest whole number that is
    at least ``raw`` (1, 2, 3, 4, ...), so as many names as fit are written, not only every 5th or 10th."""
    return max(1, int(math.ceil(raw - 1e-9)))
