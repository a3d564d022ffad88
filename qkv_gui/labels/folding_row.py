"""A row of controls that goes under itself when it is narrow.

``FoldingRow(widgets)`` lays its widgets side by side when its width holds them at their sizes, else one above
the other. Its least width is that of its widest widget, not of the whole row: a dock, or a panel in one, can
be made narrow around it. A plain row of buttons made its column as wide as all of them together (the Trained
model box's Reset and Back buttons held the left column at 404 pixels on a 1024 x 768 screen, and an experiment
beside it pushed the window past the screen's edge), or had its widgets squeezed or cut off.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

Qt = QtCore.Qt
_ROW, _COLUMN = QtWidgets.QBoxLayout.Direction.LeftToRight, QtWidgets.QBoxLayout.Direction.TopToBottom


class FoldingRow(QtWidgets.QWidget):
    """``widgets`` (widgets or layouts) side by side, or one above the other when the row is narrower than they
    are together; ``stretch``: the index of the one that takes the room left in a row (None: they keep their
    sizes, at the left)."""

    def __init__(self, widgets, parent=None, spacing: int = 6, stretch: int | None = None, name: str = ""):
        super().__init__(parent)
        if name:
            self.setObjectName(name)
        self._items = list(widgets)
        self._box = QtWidgets.QBoxLayout(_ROW, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.setSpacing(spacing)
        self._box.setSizeConstraint(QtWidgets.QLayout.SizeConstraint.SetNoConstraint)  # (minimumSizeHint's)
        for i, item in enumerate(self._items):
            grow = 1 if i == stretch else 0
            if isinstance(item, QtWidgets.QLayout):
                self._box.addLayout(item, grow)
            else:
                self._box.addWidget(item, grow, Qt.AlignmentFlag(0) if i == stretch else Qt.AlignmentFlag.AlignLeft)
        if stretch is None:
            self._box.addStretch(1)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Fixed)

    @property
    def folded(self) -> bool:
        """Whether the widgets stand one above the other now."""
        return self._box.direction() == _COLUMN

    def _shown(self) -> list:
        return [i for i in self._items if isinstance(i, QtWidgets.QLayout) or not i.isHidden()]

    def _hints(self, least: bool = False) -> list:
        """Each shown item's size hint, or (``least``) its least size."""
        if least:
            return [i.minimumSize() if isinstance(i, QtWidgets.QLayout) else i.minimumSizeHint()
                    for i in self._shown()]
        return [i.sizeHint() for i in self._shown()]

    def _row_width(self) -> int:
        widths = [h.width() for h in self._hints()]
        return sum(widths) + self._box.spacing() * max(0, len(widths) - 1)

    def _height(self) -> int:
        """As laid out now: the tallest item in a row, or the items and the spaces between them folded."""
        heights = [h.height() for h in self._hints()]
        if not heights:
            return 0
        return sum(heights) + self._box.spacing() * (len(heights) - 1) if self.folded else max(heights)

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        return QtCore.QSize(self._row_width(), self._height())

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        return QtCore.QSize(max((h.width() for h in self._hints(least=True)), default=0), self._height())

    def resizeEvent(self, event):  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        self.fit(event.size().width())

    def fit(self, width: int) -> None:
        """Side by side when ``width`` holds the widgets at their sizes, else folded; the layout around hears of
        the new height."""
        want = _ROW if width >= self._row_width() else _COLUMN
        if self._box.direction() != want:
            self._box.setDirection(want)
            self.updateGeometry()
