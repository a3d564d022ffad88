"""Reading numbers the way people type them, and the limits every number obeys.

The GUI hands cell text here; nothing in this module knows about Qt.
"""
from __future__ import annotations

import math

from .errors import ScenarioError

#: Largest magnitude accepted for any embedding or weight entry. Keeping inputs
#: within +-1e6 guarantees every score, weight and output stays finite.
MAX_ABS = 1e6

_MINUS_SIGNS = "\u2212\u2012\u2013\u2014\ufe63\uff0d"  # minus, dashes, small/full-width hyphen-minus


def parse_number(text: str) -> float:
    """Parse a number typed into a cell.

    Accepts ``-0.5``, ``\u22120.5`` (typographic minus), ``.5``, ``1e-3``,
    ``+2``, surrounding spaces and a single decimal comma (``0,5``).
    Raises ``ValueError`` with a message meant for the user otherwise:
    empty text, letters, NaN, infinity, or a magnitude above ``MAX_ABS``.
    """
    if text is None:
        raise ValueError("empty: type a number")
    s = str(text).strip().replace("\u00a0", "").replace(" ", "")
    for ch in _MINUS_SIGNS:
        s = s.replace(ch, "-")
    if not s:
        raise ValueError("empty: type a number")
    if "," in s and "." not in s and s.count(",") == 1:
        s = s.replace(",", ".")
    low = s.lower()
    if low.lstrip("+-") in ("nan", "inf", "infinity"):
        raise ValueError(f"'{text.strip()}' is not a finite number")
    try:
        value = float(s)
    except ValueError:
        raise ValueError(f"'{text.strip()}' is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"'{text.strip()}' is too large to be a finite number")
    if abs(value) > MAX_ABS:
        raise ValueError(f"'{text.strip()}' is beyond the limit of \u00b1{MAX_ABS:,.0f}")
    return value


def check_matrix(name: str, array, shape: tuple[int | None, int | None]):
    """Return ``array`` as a fresh read-only float64 matrix, or raise ScenarioError.

    ``shape`` may hold ``None`` for a free dimension. The message names the
    field, the cell and the problem.
    """
    import numpy as np

    if (
        isinstance(array, np.ndarray)
        and array.dtype == np.float64
        and not array.flags.writeable
        and array.ndim == 2
        and all(s is None or s == d for s, d in zip(shape, array.shape))
        and array.base is None
    ):
        # Already a validated read-only matrix of a Scenario: reuse it (no copy, same identity).
        if np.isfinite(array).all() and not (np.abs(array) > MAX_ABS).any():
            return array
    try:
        a = np.array(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise ScenarioError(f"{name}: expected a grid of numbers") from None
    if a.ndim != 2:
        if a.size == 0 and shape[0] == 0:
            a = a.reshape(0, shape[1] or 0)
        else:
            raise ScenarioError(f"{name}: expected a 2-D grid, got {a.ndim} dimension(s)")
    want = tuple(a.shape[i] if s is None else s for i, s in enumerate(shape))
    if a.shape != want:
        raise ScenarioError(f"{name}: expected shape {want}, got {a.shape}")
    bad = ~np.isfinite(a)
    if bad.any():
        r, c = map(int, np.argwhere(bad)[0])
        raise ScenarioError(f"{name}[{r}][{c}]: {a[r, c]} is not a finite number")
    big = np.abs(a) > MAX_ABS
    if big.any():
        r, c = map(int, np.argwhere(big)[0])
        raise ScenarioError(f"{name}[{r}][{c}]: {a[r, c]:g} is beyond the limit of \u00b1{MAX_ABS:,.0f}")
    a.setflags(write=False)
    return a


def check_vector(name: str, array, length: int):
    """Return ``array`` as a fresh read-only float64 vector of ``length`` entries, or raise ScenarioError."""
    import numpy as np

    if (
        isinstance(array, np.ndarray)
        and array.dtype == np.float64
        and not array.flags.writeable
        and array.shape == (length,)
        and array.base is None
        and np.isfinite(array).all()
        and not (np.abs(array) > MAX_ABS).any()
    ):
        return array  # already a validated vector of a Scenario
    try:
        a = np.array(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise ScenarioError(f"{name}: expected a list of numbers") from None
    if a.ndim != 1:
        raise ScenarioError(f"{name}: expected a list of numbers (1-D), got {a.ndim} dimension(s)")
    if a.shape != (length,):
        raise ScenarioError(f"{name}: expected {length} numbers, got {a.shape[0]}")
    bad = ~np.isfinite(a)
    if bad.any():
        c = int(np.argwhere(bad)[0][0])
        raise ScenarioError(f"{name}[{c}]: {a[c]} is not a finite number")
    big = np.abs(a) > MAX_ABS
    if big.any():
        c = int(np.argwhere(big)[0][0])
        raise ScenarioError(f"{name}[{c}]: {a[c]:g} is beyond the limit of \u00b1{MAX_ABS:,.0f}")
    a.setflags(write=False)
    return a
