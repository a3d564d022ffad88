"""What every panel shares: its link to the Session, a hint page, and lazy repaint.

A panel subclass sets ``object_name`` and ``title``, builds its widgets and
plot items once in ``build(body)``, and fills them in ``show_result(result,
selection)``. It never computes attention maths: numbers come from the
result, ``qkv_engine.explain``, ``qkv_engine.geometry`` or ``qkv_engine.views``.

A hidden panel (say, a closed or tabbed-away dock) is not repainted; it
catches up when it is shown again.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from ..session import Selection, Session


class Panel(QtWidgets.QWidget):
    object_name = "panel"
    title = "Panel"
    #: Shown when there is nothing to draw (empty sentence).
    empty_hint = "Type a sentence to see this picture."

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setObjectName(self.object_name)
        self.session = session
        self._stale = True
        self.paint_count = 0  # how many times show_result ran (tests, benchmarks)
        self._stack = QtWidgets.QStackedLayout(self)
        self._stack.setContentsMargins(0, 0, 0, 0)
        self.body = QtWidgets.QWidget(self)
        self.hint = QtWidgets.QLabel(self.empty_hint, self)
        self.hint.setObjectName("panelHint")
        self.hint.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #666; font-size: 12pt; padding: 12px;")
        self._stack.addWidget(self.body)
        self._stack.addWidget(self.hint)
        self.build(self.body)
        session.resultChanged.connect(self._on_change)
        session.selectionChanged.connect(self._on_change)

    # ----- for subclasses -------------------------------------------------------------------
    def build(self, body: QtWidgets.QWidget) -> None:
        """Create every widget and plot item once, inside ``body``."""
        raise NotImplementedError

    def show_result(self, result, selection: Selection) -> None:
        """Put the numbers of ``result`` on the items made in ``build``."""
        raise NotImplementedError

    def hint_for(self, result) -> str | None:
        """A message to show instead of the picture, or None to draw it."""
        if result.n == 0:
            return self.empty_hint
        return None

    # ----- machinery --------------------------------------------------------------------------
    def _on_change(self, *_):
        self._stale = True
        if self.isVisible():
            self.refresh()

    def refresh(self) -> None:
        """Repaint from the session now."""
        self._stale = False
        result = self.session.result
        message = self.hint_for(result)
        if message is not None:
            self.hint.setText(message)
            self._stack.setCurrentWidget(self.hint)
            return
        self._stack.setCurrentWidget(self.body)
        self.show_result(result, self.session.selection)
        self.paint_count += 1

    def showEvent(self, event):
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def showing_hint(self) -> bool:
        return self._stack.currentWidget() is self.hint
