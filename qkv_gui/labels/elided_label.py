"""A one-line label that shortens with "…" when it is narrow: panel titles, the model box's line."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets


class ElidedLabel(QtWidgets.QLabel):
    """A one-line title that shortens with "…" when narrow (the whole title is its tool tip), so a
    long title never forces the grid wider.

    Its width hints do not follow its text (the layout ignores them: it takes the width it is given), so
    that, in a ``SteadyBox``, a new title (another head, with a trained model) is repainted without laying
    out the frame, the splitters and the grid again."""

    def __init__(self, text: str, parent=None):
        super().__init__(parent)
        self._full = ""
        self.setMinimumWidth(1)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt naming)
        self._full = text
        self.setToolTip(text)
        self._elide()

    def text(self) -> str:
        return self._full

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        return QtCore.QSize(1, super().sizeHint().height())

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(1, super().minimumSizeHint().height())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, QtCore.Qt.TextElideMode.ElideRight, max(1, self.width()))
        if super().text() != shown:
            super().setText(shown)
