"""Text in plots and the theme: a fix-up after the generic theme scaling, and a pool of labels.

``Panel._scale_items`` sets the font of each text item in a scene directly (see base.py). A
``TextLabel`` places itself again when its font changes, but inside pyqtgraph items the text is a
child whose placement was computed from its old size: an axis keeps the room it made for its title
and a ``pg.LabelItem`` keeps its minimum size. ``realign_text`` recomputes those after the fonts
changed; ``ThemedTextMixin`` runs it after every theme scaling of a panel, then the panel's
``text_scaled`` hook. ``TextPool`` hands out ``TextLabel``s, made on demand and reused.
"""
from __future__ import annotations

from PySide6 import QtGui, QtWidgets  # noqa: F401  (PySide6 before pyqtgraph)
import pyqtgraph as pg

from ..look import colours, style
from .base import _BASE_FONT
from ..drawing.text_label import TextLabel


def realign_text(panel: QtWidgets.QWidget) -> None:
    """Axis titles and label sizes recomputed for the fonts the items have now."""
    for view in panel.findChildren(QtWidgets.QGraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            if isinstance(item, pg.AxisItem):
                item._adjustSize()
                item.resizeEvent()  # places the axis title for its new size
            elif isinstance(item, pg.LabelItem):
                item.updateMin()


def adopt_text(item: TextLabel, scale: float) -> None:
    """Give a label made after the theme was applied (a pool growing on a resize) the theme's size now,
    marked as the generic scaling marks its own work so that it is not scaled a second time."""
    font = item.font()
    base = font.pointSizeF() if font.pointSizeF() > 0 else 9.0
    if scale != 1.0:
        font.setPointSizeF(base * scale)
        item.setFont(font)
    item.setData(_BASE_FONT, base)
    item.setData(_BASE_FONT + 1, base * scale)


def set_themed_font(item: TextLabel, base: QtGui.QFont, scale: float) -> None:
    """Set a label's font to ``base`` (its size at theme scale 1) times the theme's ``scale``, marked as the
    generic scaling marks its own work: for panels that restyle text outside ``show_result``. Nothing is
    done when the label already has that font."""
    size = base.pointSizeF() if base.pointSizeF() > 0 else 9.0
    if item.data(_BASE_FONT) == size and item.data(_BASE_FONT + 1) == size * scale \
            and item.font().bold() == base.bold():
        return
    font = QtGui.QFont(base)
    font.setPointSizeF(size * scale)
    item.setFont(font)
    item.setData(_BASE_FONT, size)
    item.setData(_BASE_FONT + 1, size * scale)


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
    """Labels (``TextLabel``) in one plot or ViewBox, made on demand and reused; ``take(k)`` returns k
    visible labels and hides the rest. Labels made between two repaints get the theme's font scale at once.
    A label takes ``setText(text, color=)``, ``setPos(x, y)``, and ``fill``/``border`` for a box. A label made
    without a colour takes the palette of its picture: its foreground, or the colour ``role`` of it (a palette
    role's name, "ink_x")."""

    def __init__(self, parent_plot, anchor=(0.5, 0.5), font: QtGui.QFont | None = None, z: float = 20,
                 color=None, role: str | None = None):
        self.plot = parent_plot
        self.anchor = anchor
        self.font = font
        self.color = color
        self.role = role
        self.scale = 1.0  # the panel's theme font scale, for items made between two repaints
        self.z = z
        self.items: list = []
        self.shown = 0

    def take(self, count: int) -> list:
        while len(self.items) < count:
            item = TextLabel("", color=self.color, anchor=self.anchor, font=self.font)
            adopt_text(item, self.scale)
            item.setZValue(self.z)
            self.plot.addItem(item, ignoreBounds=True)
            # the picture's palette (colours.recolour_scene; none yet: the standard one)
            palette = getattr(item.scene(), "qkv_colours", None)
            if self.role is not None:
                colours.paint(item, palette or style.STANDARD, text=self.role)
            elif palette is not None:
                colours.repaint(item, palette)
            self.items.append(item)
        for item in self.items[count:self.shown]:
            item.hide()
        for item in self.items[:count]:
            if not item.isVisible():
                item.show()
        self.shown = count
        return self.items[:count]

    def texts(self) -> list:
        """The texts of the labels shown now."""
        return [item.text() for item in self.items[: self.shown]]
