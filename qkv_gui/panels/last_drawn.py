"""What a panel last drew its result from, so that a result that would draw the same is skipped.

A panel keeps a ``ShownFor`` and asks ``same(arrays, rest)`` at the start of ``show_result``: ``arrays``
are the numbers it draws (the same array, or arrays holding the same numbers bit for bit, count as the
same), ``rest`` everything else its drawing depends on (names, the selection, palette, theme, size),
compared with ``==``. An edit of the weights, for example, leaves the embeddings as they are.
"""
from __future__ import annotations

import numpy as np

from ..drawing.cell_grid import same_numbers


def same_array(a, b) -> bool:
    """Whether ``a`` and ``b`` (arrays or None) hold the same numbers in the same shape."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and same_numbers(a, b)


class ShownFor:
    """The inputs a panel last drew; see the module's docstring."""

    def __init__(self):
        self._arrays: tuple | None = None
        self._rest: tuple | None = None

    def same(self, arrays: tuple, rest: tuple) -> bool:
        """Whether these are the inputs last drawn; when they are not, they are kept as the last drawn."""
        if (self._arrays is not None and rest == self._rest and len(arrays) == len(self._arrays)
                and all(same_array(a, b) for a, b in zip(arrays, self._arrays))):
            return True
        self._arrays, self._rest = arrays, rest
        return False

    def forget(self) -> None:
        """The next result is drawn whatever it holds."""
        self._arrays = self._rest = None
