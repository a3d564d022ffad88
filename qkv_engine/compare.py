"""Compare two attention results: the weights of a pinned "A" against the current "B".

    c = compare(pinned, current, k=5)
    c.comparable        # False when the weight grids have different shapes; c.reason says why
    c.difference        # B − A, rows = queries, columns = keys (read-only float64)
    c.limit             # symmetric colour limit: largest |B − A|, never below MIN_LIMIT
    c.changes           # the k largest changes, biggest |b − a| first

Numpy only. Ties in |b − a| are broken by row (query), then column (key),
so the list is the same on every run. Only real changes are listed: a cell
whose |b − a| is at most CHANGE_TOLERANCE (rounding noise) is not a change,
so comparing a result with itself gives an empty list.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The colour limit never goes below this: an all-zero (or tiny) difference is drawn near white,
#: not blown up to full colour, and nothing divides by zero.
MIN_LIMIT = 0.01
#: A change of at most this size is rounding noise, not a change.
CHANGE_TOLERANCE = 1e-12
DEFAULT_K = 5


@dataclass(frozen=True)
class Change:
    """One cell whose weight changed from A to B."""

    query: int  # row i
    key: int  # column j
    query_token: str  # B's token of row i
    key_token: str  # B's token of column j
    a: float  # weight in A
    b: float  # weight in B
    delta: float  # b − a


@dataclass(frozen=True)
class Comparison:
    comparable: bool
    reason: str  # why not comparable, in plain words ("" when comparable)
    a_shape: tuple  # (rows, columns) of A's weights
    b_shape: tuple
    difference: np.ndarray | None  # rows x columns, B − A; None when not comparable
    limit: float  # colour limit: the difference is drawn from −limit to +limit
    largest: float  # largest |B − A| (0.0 when identical or not comparable)
    changes: tuple  # of Change, largest |delta| first


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=np.float64)
    a.setflags(write=False)
    return a


def _shape_text(shape: tuple) -> str:
    return f"{shape[0]} × {shape[1]}"


def key_tokens(result) -> tuple:
    """The column (key) labels of a result: its own key tokens when it has them, else its tokens."""
    return tuple(getattr(result, "key_tokens", result.tokens))


def compare(a, b, k: int = DEFAULT_K) -> Comparison:
    """Compare the attention weights of result ``a`` (pinned) and result ``b`` (current)."""
    wa = np.asarray(a.weights, dtype=np.float64)  # rows x columns: queries x keys
    wb = np.asarray(b.weights, dtype=np.float64)
    a_shape, b_shape = tuple(wa.shape), tuple(wb.shape)
    if a_shape != b_shape:
        if a_shape[0] == a_shape[1] and b_shape[0] == b_shape[1]:
            fix = "change the sentence back to the same number of tokens to compare"
        else:
            fix = "change the sentences back to the same numbers of tokens to compare"
        reason = f"A has {_shape_text(a_shape)} weights, B has {_shape_text(b_shape)}: {fix}."
        return Comparison(False, reason, a_shape, b_shape, None, MIN_LIMIT, 0.0, ())

    diff = wb - wa  # rows x columns
    size = np.abs(diff)
    largest = float(size.max()) if size.size else 0.0
    limit = max(largest, MIN_LIMIT)

    changes = []
    if k > 0 and largest > CHANGE_TOLERANCE:
        flat = size.ravel()
        take = min(k, flat.size)
        # Every cell at least as large as the k-th largest is a candidate (ties included) ...
        cut = np.partition(flat, flat.size - take)[flat.size - take]
        cand = np.flatnonzero((flat >= cut) & (flat > CHANGE_TOLERANCE))
        # ... sorted by size (largest first), then row, then column (flat index order is row-major).
        order = np.lexsort((cand, -flat[cand]))
        rows_tok, cols_tok = tuple(b.tokens), key_tokens(b)
        n_cols = wb.shape[1]
        for idx in cand[order][:k]:
            i, j = divmod(int(idx), n_cols)
            changes.append(Change(i, j, str(rows_tok[i]), str(cols_tok[j]), float(wa[i, j]), float(wb[i, j]),
                                  float(diff[i, j])))
    return Comparison(True, "", a_shape, b_shape, _frozen(diff), limit, largest, tuple(changes))
