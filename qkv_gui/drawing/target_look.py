"""How a training target looks on a grid of weights: each cell it asks for outlined, dashed, in the
target colour over a halo (dashes and colour both differ from the selected cell's solid outline); the colours
are those of the grid's palette.

    show_target(grid, session.train_target)     # a CellGridItem; None removes the outlines
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore

from .cell_grid import CellGridItem, Outline

#: Outline names start with this, so the target's outlines can be told from the others.
PREFIX = "target:"
WIDTH = 2.5


def target_cells(target) -> list:
    """The (query i, key j) cells a target asks for (where it is above 0), row by row."""
    if target is None:
        return []
    return [(int(i), int(j)) for i, j in np.argwhere(np.asarray(target) > 0)]


def show_target(grid: CellGridItem, target) -> None:
    """Outline every cell of ``target`` on ``grid`` (and drop the outlines of an older target)."""
    cells = target_cells(target)
    if target is not None and np.shape(target) != grid.values.shape:
        cells = []  # a target for other tokens (the grid has not caught up yet)
    colour = grid.colours.target
    wanted = {f"{PREFIX}{i},{j}": Outline(QtCore.QRectF(j, i, 1, 1), colour, WIDTH, dashed=True, halo=True)
              for i, j in cells}
    stale = {name: None for name in grid.outlines if name.startswith(PREFIX) and name not in wanted}
    grid.set_outlines({**stale, **wanted})
