"""Text labels in plots at the theme's size: a pool of ``TextLabel``s made on demand and reused, and the
fonts of labels set outside a panel's generic theme scaling.

A panel's theme scaling (``Panel._scale_items``) marks each text item it sized with its size at theme scale 1
(the item's data under ``BASE_FONT``) and the size it gave it (``BASE_FONT + 1``); the functions here mark
the labels they size the same way, so that no label is scaled twice.
"""
from __future__ import annotations

from PySide6 import QtGui  # noqa: F401  (PySide6 before pyqtgraph)

from ..look import colours, style
from .text_label import TextLabel

#: QGraphicsItem.data key: the item's font size at theme scale 1 (the next key: the size it was given).
BASE_FONT = 0x5146
_BASE_FONT = BASE_FONT


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
