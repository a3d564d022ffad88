"""A view for a panel's charts: pyqtgraph's layout of plots, with no margin of its own around them."""
from __future__ import annotations

from PySide6 import QtWidgets  # noqa: F401  (PySide6 before pyqtgraph)
import pyqtgraph as pg


def chart_view(parent: QtWidgets.QWidget, name: str, spacing: int, min_height: int) -> pg.GraphicsLayoutWidget:
    """A GraphicsLayoutWidget named ``name`` whose plots touch its edges and stand ``spacing`` pixels apart, never
    lower than ``min_height`` pixels."""
    view = pg.GraphicsLayoutWidget(parent)
    view.setObjectName(name)
    view.ci.setContentsMargins(0, 0, 0, 0)
    view.ci.setSpacing(spacing)
    view.setMinimumHeight(min_height)
    return view
