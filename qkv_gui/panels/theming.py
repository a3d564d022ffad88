"""A small fix-up after the generic theme scaling of ``Panel`` (fonts of scene items, see base.py).

``Panel._scale_items`` sets the font of each QGraphicsTextItem directly. Inside pyqtgraph items
that text item is a child whose placement was computed from its old size: a ``pg.TextItem``
keeps the offset of its anchor, an axis keeps the room it made for its title and a
``pg.LabelItem`` keeps its minimum size. ``realign_text`` recomputes those after the fonts changed;
``ThemedTextMixin`` runs it after every theme scaling of a panel, then the panel's ``text_scaled`` hook.
"""
from __future__ import annotations

from PySide6 import QtGui, QtWidgets  # noqa: F401  (PySide6 before pyqtgraph)
import pyqtgraph as pg

from .base import _BASE_FONT


def realign_text(panel: QtWidgets.QWidget) -> None:
    """Anchors, axis titles and label sizes recomputed for the fonts the items have now."""
    for view in panel.findChildren(QtWidgets.QGraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            if isinstance(item, pg.TextItem):
                item.updateTextPos()
            elif isinstance(item, pg.AxisItem):
                item._adjustSize()
                item.resizeEvent()  # places the axis title for its new size
            elif isinstance(item, pg.LabelItem):
                item.updateMin()


def adopt_text(item: "pg.TextItem", scale: float) -> None:
    """Give a pg.TextItem made after the theme was applied (a pool growing on a resize) the theme's size
    now, marked as the generic scaling marks its own work so that it is not scaled a second time."""
    inner = item.textItem
    font = inner.font()
    base = font.pointSizeF() if font.pointSizeF() > 0 else 9.0
    if scale != 1.0:
        font.setPointSizeF(base * scale)
        item.setFont(font)
    inner.setData(_BASE_FONT, base)
    inner.setData(_BASE_FONT + 1, base * scale)


def set_themed_font(item: "pg.TextItem", base: QtGui.QFont, scale: float) -> None:
    """Set a pg.TextItem's font to ``base`` (its size at theme scale 1) times the theme's ``scale``, marked
    as the generic scaling marks its own work: for panels that restyle text outside ``show_result``."""
    font = QtGui.QFont(base)
    size = base.pointSizeF() if base.pointSizeF() > 0 else 9.0
    font.setPointSizeF(size * scale)
    item.setFont(font)
    item.textItem.setData(_BASE_FONT, size)
    item.textItem.setData(_BASE_FONT + 1, size * scale)


def scaled_metrics(base: QtGui.QFont, scale: float) -> QtGui.QFontMetricsF:
    """Metrics of ``base`` at the theme's ``scale``."""
    font = QtGui.QFont(base)
    font.setPointSizeF((base.pointSizeF() if base.pointSizeF() > 0 else 9.0) * scale)
    return QtGui.QFontMetricsF(font)


class ThemedTextMixin:
    """Mix into a Panel subclass (before Panel) whose scenes hold pyqtgraph text."""

    def _scale_items(self, force: bool = False) -> None:
        super()._scale_items(force)
        realign_text(self)
        self.text_scaled()

    def text_scaled(self) -> None:
        """Hook: the theme has just set the text sizes (labels placed by size can be placed again)."""


class TextPool:
    """pg.TextItems in one plot or ViewBox, made on demand and reused; ``take(k)`` returns k visible
    items and hides the rest. Items made between two repaints get the theme's font scale at once."""

    def __init__(self, parent_plot, anchor=(0.5, 0.5), font: QtGui.QFont | None = None, z: float = 20):
        self.plot = parent_plot
        self.anchor = anchor
        self.font = font
        self.scale = 1.0  # the panel's theme font scale, for items made between two repaints
        self.z = z
        self.items: list = []
        self.shown = 0

    def take(self, count: int) -> list:
        while len(self.items) < count:
            item = pg.TextItem("", anchor=self.anchor)
            if self.font is not None:
                item.setFont(self.font)
            adopt_text(item, self.scale)
            item.setZValue(self.z)
            self.plot.addItem(item, ignoreBounds=True)
            self.items.append(item)
        for item in self.items[count:self.shown]:
            item.hide()
        for item in self.items[:count]:
            if not item.isVisible():
                item.show()
        self.shown = count
        return self.items[:count]
