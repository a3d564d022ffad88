"""What the heatmap needs to draw the masks: runs of masked cells, open keys per row, row notes.

Pure numpy over an AttentionResult (or its ``masked_by`` grid); no Qt. The
heatmap covers each masked cell with a hatch that names the reason (causal,
padding, blocked by hand), counts the keys each query may still look at, and
says in words how a row shares its weight after masking.
"""
from __future__ import annotations

import numpy as np

from .attention import MASK_BLOCKED, MASK_CAUSAL, MASK_OPEN, MASK_PADDING, AttentionResult

#: Short names of the mask reasons, for legends and tooltips.
REASON_NAME = {MASK_CAUSAL: "causal", MASK_PADDING: "padding", MASK_BLOCKED: "blocked by hand"}


def mask_runs(masked_by, reason: int | None = None) -> np.ndarray:
    """k x 3 int array of (row i, first column j0, end column j1): each maximal run of cells
    j0 <= j < j1 in row i that are masked for ``reason`` (any reason when None).

    Runs are listed row by row, left to right; together they cover exactly those cells.
    """
    why = np.asarray(masked_by)
    if why.ndim != 2 or why.size == 0:
        return np.zeros((0, 3), dtype=np.intp)
    hit = why != MASK_OPEN if reason is None else why == reason
    n, m = hit.shape
    padded = np.zeros((n, m + 2), dtype=np.int8)  # a closed cell at both ends of every row
    padded[:, 1:-1] = hit
    step = np.diff(padded, axis=1)  # n x (m + 1): +1 where a run starts, -1 just after it ends
    rows_s, starts = np.nonzero(step == 1)
    _, ends = np.nonzero(step == -1)  # same row order, so starts and ends pair up
    return np.stack([rows_s, starts, ends], axis=1).astype(np.intp).reshape(-1, 3)


def open_keys(result: AttentionResult) -> np.ndarray:
    """n ints: how many keys each query (row) may look at after masking."""
    return result.allowed.sum(axis=1).astype(np.intp)


def reasons_present(result: AttentionResult, masked_by=None) -> tuple:
    """The mask reasons that cover at least one cell, in the order causal, padding, blocked."""
    why = result.masked_by if masked_by is None else np.asarray(masked_by)
    return tuple(r for r in (MASK_CAUSAL, MASK_PADDING, MASK_BLOCKED) if np.any(why == r))


def row_note(result: AttentionResult, i: int) -> str:
    """One plain sentence about how row ``i`` shares its weight after masking."""
    m = result.n_keys
    left = int(result.allowed[i].sum())
    rowwise = result.scenario.softmax_over == "keys"
    if left == 0:
        return "No key is left in this row: all its weights are 0 and its output is the zero vector."
    if left == m:
        head = "The only key is open" if m == 1 else f"All {m} keys are open"
    elif left == 1:
        head = f"1 of {m} keys is open"
    else:
        head = f"{left} of {m} keys are open"
    if not rowwise:
        return f"{head} in this row (softmax ran down the columns, so the row need not add up to 1)."
    if left == 1:
        return f"{head}, so it gets all the weight: 1."
    return f"{head}, and their weights add up to 1."


def reasons_from_allowed(allowed) -> np.ndarray:
    """n x m int8 reasons for a mask known only as ``allowed`` (a trained model's): when every key after its
    query is masked, those cells are causal; a key masked for every query is padding; any other masked cell
    is blocked. Causal wins over padding, as in ``attention.mask_reasons``."""
    ok = np.asarray(allowed, dtype=bool)
    why = np.zeros(ok.shape, dtype=np.int8)
    if ok.ndim != 2 or ok.all():
        return why
    n, m = ok.shape
    why[~ok] = MASK_BLOCKED
    why[:, ~ok.any(axis=0)] = MASK_PADDING
    later = np.triu(np.ones((n, m), dtype=bool), k=1)
    if not ok[later].any():
        why[later] = MASK_CAUSAL
    return why
