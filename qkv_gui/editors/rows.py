"""A row of widgets side by side at the left of its box, the rest of the width empty: the editors' rows of
check boxes and buttons."""
from __future__ import annotations

from PySide6 import QtWidgets


def left_row(*widgets: QtWidgets.QWidget, spacing: int | None = None) -> QtWidgets.QHBoxLayout:
    """``widgets`` in a row from the left, then a stretch (``spacing``: between them, else the style's)."""
    row = QtWidgets.QHBoxLayout()
    if spacing is not None:
        row.setSpacing(spacing)
    for widget in widgets:
        row.addWidget(widget)
    row.addStretch(1)
    return row
