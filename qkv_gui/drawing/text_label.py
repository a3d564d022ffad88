"""One small text item for every label drawn in a plot: ``TextLabel``, built on Qt's QGraphicsSimpleTextItem.

A label sits at a point given in its parent's (data) coordinates, and keeps its size on screen whatever
the plot's scale, as ``pg.TextItem`` does. ``anchor`` says which point of its text box sits there: (0, 0)
the top left corner, (0.5, 0.5) the middle, (1, 1) the bottom right. ``angle`` turns it counter-clockwise
(90 reads upwards). A label can have a box behind its text: set ``fill`` (a brush) and ``border`` (a pen).

``pg.TextItem`` works out its transform again before every paint (about 60 µs a label an edit); this item
asks Qt to ignore the view's scaling (``ItemIgnoresTransformations``) and works out its anchor only when
its text, font, anchor or angle change.

For code written against ``pg.TextItem``, ``setText(text, color=)``, ``setAnchor``, ``setAngle``,
``setColor``, ``toPlainText()`` and ``textItem`` (the item itself) are kept.

A label made without a colour is drawn in the palette's foreground, and follows a new palette
(``colours.paint`` role "text": "foreground"); a colour set with ``setColor`` or ``setText(text, color=)``
is the panel's own to change.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from ..look import colours, style

#: Room between the text and the edge of its box, in pixels (a ``pg.TextItem`` leaves 4).
MARGIN = 4.0

_brushes: dict = {}


def _brush(color) -> QtGui.QBrush:
    """A brush for a colour given as '#RRGGBB', a name, an (r, g, b[, a]) tuple or a QColor; cached."""
    if isinstance(color, QtGui.QColor):
        return QtGui.QBrush(color)
    key = tuple(color) if isinstance(color, (tuple, list)) else color
    brush = _brushes.get(key)
    if brush is None:
        brush = _brushes[key] = QtGui.QBrush(QtGui.QColor(*key) if isinstance(key, tuple) else QtGui.QColor(key))
    return brush


class TextLabel(QtWidgets.QGraphicsSimpleTextItem):
    """A plain-text label at a point, its size kept on screen; see the module's docstring."""

    def __init__(self, text: str = "", color=None, anchor=(0.0, 0.0), angle: float = 0.0,
                 font: QtGui.QFont | None = None, margin: float = MARGIN, parent=None):
        super().__init__(parent)
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        self._anchor = (float(anchor[0]), float(anchor[1]))
        self._angle = float(angle)
        self._margin = float(margin)
        self._color = None
        self._box = None  # a QGraphicsRectItem behind the text, made when a fill or border is set
        self._placed = None  # the box's size, anchor, angle and margin as placed
        self._fill = QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush)
        self._border = QtGui.QPen(QtCore.Qt.PenStyle.NoPen)
        if color is None:  # the palette's foreground, following a new palette
            self.setColor(style.FOREGROUND)
            self.setData(colours.ROLES_KEY, {"text": "foreground"})
        else:
            self.setColor(color)
        if font is not None:
            super().setFont(font)
        super().setText(text)
        self._place()

    # ----- text, colour, font ----------------------------------------------------------------------
    def setText(self, text: str, color=None) -> None:  # noqa: N802 (Qt naming)
        """Show ``text`` (in ``color`` when given); nothing is redone when neither changes."""
        if color is not None:
            self.setColor(color)
        if text != self.text():
            super().setText(text)
            self._place()

    def toPlainText(self) -> str:  # noqa: N802 (as pg.TextItem)
        return self.text()

    @property
    def textItem(self) -> "TextLabel":  # noqa: N802 (as pg.TextItem, whose text lives in a child)
        return self

    def setColor(self, color) -> None:  # noqa: N802
        """Draw the text in ``color``, from now on the panel's own (a new palette leaves it as it is)."""
        roles = self.data(colours.ROLES_KEY)
        if roles and "text" in roles:
            self.setData(colours.ROLES_KEY, {k: v for k, v in roles.items() if k != "text"} or None)
        if color != self._color:
            self._color = color
            self.setBrush(_brush(color))

    def set_painted_colour(self, color: QtGui.QColor) -> None:
        """Draw the text in ``color`` for the role ``colours.paint`` gave it (the role stays)."""
        if color != self._color:
            self._color = QtGui.QColor(color)
            self.setBrush(QtGui.QBrush(color))

    def apply_colours(self, c: dict) -> None:
        """Take the colours of the roles ``colours.paint`` gave this label (QColors by role name): the text,
        and the fill and border of its box."""
        if "text" in c:
            self.set_painted_colour(c["text"])
        if "fill" in c:
            self.fill = QtGui.QBrush(c["fill"])
        if "border" in c:
            self.border = colours.recoloured_pen(self.border if self.border.style() != QtCore.Qt.PenStyle.NoPen
                                                 else QtGui.QPen(), c["border"])

    def color(self) -> QtGui.QColor:
        return self.brush().color()

    def setFont(self, font: QtGui.QFont) -> None:  # noqa: N802
        super().setFont(font)
        self._place()

    # ----- placing -----------------------------------------------------------------------------------
    @property
    def anchor(self) -> QtCore.QPointF:
        return QtCore.QPointF(*self._anchor)

    def setAnchor(self, anchor) -> None:  # noqa: N802
        anchor = (float(anchor[0]), float(anchor[1]))
        if anchor != self._anchor:
            self._anchor = anchor
            self._place()

    @property
    def angle(self) -> float:
        return self._angle

    def setAngle(self, angle: float) -> None:  # noqa: N802
        if float(angle) != self._angle:
            self._angle = float(angle)
            self._place()

    def box_size(self) -> QtCore.QSizeF:
        """The size of the text box (text and margins) on screen, in pixels, before turning."""
        r = super().boundingRect()
        m = 2 * self._margin
        return QtCore.QSizeF(r.width() + m, r.height() + m)

    def box_rect(self) -> QtCore.QRectF:
        """The text box (text and margins) in the item's own coordinates."""
        r = super().boundingRect()
        m = self._margin
        return QtCore.QRectF(-m, -m, r.width() + 2 * m, r.height() + 2 * m)

    def scene_rect(self, to_scene: QtGui.QTransform, anchor=None) -> QtCore.QRectF:
        """Where the text box is drawn, in scene pixels, worked out before it is painted (unturned):
        ``to_scene`` maps the plot's data to the scene; ``anchor``, when given, instead of the label's own."""
        at = to_scene.map(self.pos())
        size = self.box_size()
        ax, ay = anchor if anchor is not None else self.anchor.toTuple()
        return QtCore.QRectF(at.x() - ax * size.width(), at.y() - ay * size.height(), size.width(), size.height())

    def view_rect(self, view: QtWidgets.QGraphicsView) -> QtCore.QRectF:
        """Where the text box is drawn in ``view``'s viewport, in pixels."""
        return self.deviceTransform(view.viewportTransform()).mapRect(self.box_rect())

    def _place(self) -> None:
        """Put the anchor point of the text box at the item's position, turned by the angle (nothing to do
        when a new text has the same size: a number with other digits, mostly)."""
        box = self.box_rect()
        placed = (box.width(), box.height(), self._anchor, self._angle, self._margin)
        if placed == self._placed:
            return
        self._placed = placed
        ax = box.left() + self._anchor[0] * box.width()
        ay = box.top() + self._anchor[1] * box.height()
        t = QtGui.QTransform()
        if self._angle:
            t.rotate(-self._angle)  # Qt turns clockwise on screen (y points down)
        t.translate(-ax, -ay)
        self.setTransform(t)
        if self._box is not None:
            self._box.setRect(box)

    # ----- the box behind the text ---------------------------------------------------------------------
    @property
    def fill(self) -> QtGui.QBrush:
        return self._fill

    @fill.setter
    def fill(self, brush) -> None:
        self._fill = QtGui.QBrush(brush) if brush is not None else QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush)
        self._update_box()

    @property
    def border(self) -> QtGui.QPen:
        return self._border

    @border.setter
    def border(self, pen) -> None:
        self._border = QtGui.QPen(pen) if pen is not None else QtGui.QPen(QtCore.Qt.PenStyle.NoPen)
        self._update_box()

    def _update_box(self) -> None:
        wanted = (self._fill.style() != QtCore.Qt.BrushStyle.NoBrush
                  or self._border.style() != QtCore.Qt.PenStyle.NoPen)
        if not wanted:
            if self._box is not None:
                self._box.setVisible(False)
            return
        if self._box is None:
            self._box = QtWidgets.QGraphicsRectItem(self.box_rect(), self)
            self._box.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemStacksBehindParent, True)
        if self._box.brush() != self._fill:
            self._box.setBrush(self._fill)
        if self._box.pen() != self._border:
            self._box.setPen(self._border)
        self._box.setVisible(True)
