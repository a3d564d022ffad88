"""Naming a feature or a q/k/v column in place: double-click a table's header, type, Enter.

    HeaderNameEditor(view)      # on a table whose model has ``name_target`` and ``name_of``

The model says which header sections carry a name (``name_target(orientation, section)`` gives
("x", 2) for embedding dimension 3, ("q", 0) for the first column of W^Q, or None) and what the name is
now (``name_of(kind, index)``). A small line edit opens over the section; Enter (or clicking elsewhere)
keeps the name as one undo step of the Session, Esc leaves it as it was, and an empty name falls back to
the symbol (x3, q1). The box takes at most ``MAX_NAME`` characters (the longest name a scenario keeps).
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from qkv_engine import MAX_NAME, feature_names

Qt = QtCore.Qt
#: The box is at least this wide (pixels), even over a narrow column.
MIN_WIDTH = 140


class _NameEdit(QtWidgets.QLineEdit):
    """The line edit over a header section: Esc cancels, Enter and leaving keep."""

    cancelled = QtCore.Signal()

    def keyPressEvent(self, event):
        if event.key() == Qt.Key.Key_Escape:
            self.cancelled.emit()
            return
        super().keyPressEvent(event)


class HeaderNameEditor(QtCore.QObject):
    """Opens a name box over a double-clicked header section of ``view`` (both headers)."""

    def __init__(self, view: QtWidgets.QTableView):
        super().__init__(view)
        self.view = view
        self.edit: _NameEdit | None = None
        self._target = None  # (kind, index) being named
        view.horizontalHeader().sectionDoubleClicked.connect(
            lambda section: self.open(Qt.Orientation.Horizontal, section))
        view.verticalHeader().sectionDoubleClicked.connect(
            lambda section: self.open(Qt.Orientation.Vertical, section))

    def open(self, orientation, section: int) -> _NameEdit | None:
        """Open the name box over header ``section`` (if that section carries a name); returns the box."""
        model = self.view.model()
        target = model.name_target(orientation, section)
        if target is None:
            return None
        self.close()
        kind, index = target
        header = self.view.horizontalHeader() if orientation == Qt.Orientation.Horizontal \
            else self.view.verticalHeader()
        pos, size = header.sectionViewportPosition(section), header.sectionSize(section)
        edit = _NameEdit(header)
        edit.setObjectName("headerNameEdit")
        symbol = feature_names.symbol(model.session.scenario, kind, index)
        edit.setPlaceholderText(f"a name for {symbol}")
        edit.setToolTip(f"A name for {symbol}, e.g. 'animate'. Enter keeps it, Esc cancels; "
                        f"empty: plain {symbol}.")
        edit.setMaxLength(MAX_NAME)
        edit.setText(model.name_of(kind, index))
        edit.selectAll()
        if orientation == Qt.Orientation.Horizontal:
            width = max(size, MIN_WIDTH)
            x = max(0, min(pos, header.width() - width))
            edit.setGeometry(x, 0, width, header.height())
        else:
            edit.setGeometry(0, pos, max(header.width(), MIN_WIDTH), max(size, edit.sizeHint().height()))
        edit.returnPressed.connect(self.commit)
        edit.editingFinished.connect(self.commit)
        edit.cancelled.connect(self.close)
        self.edit, self._target = edit, target
        edit.show()
        edit.setFocus(Qt.FocusReason.MouseFocusReason)
        return edit

    def commit(self) -> bool:
        """Keep the typed name (one undo step); True when the Session took it."""
        edit, target = self.edit, self._target
        if edit is None or target is None:
            return False
        self._target = None  # Enter and the focus leaving both end here: once
        kind, index = target
        session = self.view.model().session
        name = edit.text()
        if kind == "x":
            ok = session.set_feature_name(index, name)
        else:
            ok = session.set_column_name(kind, index, name)
        self.close()
        return ok

    def close(self) -> None:
        edit, self.edit, self._target = self.edit, None, None
        if edit is not None:
            edit.hide()
            edit.setParent(None)  # out of the header at once (deleted when the event loop comes round)
            edit.deleteLater()
            self.view.setFocus(Qt.FocusReason.OtherFocusReason)
