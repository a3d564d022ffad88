"""Typing into a table's cell as a user does: open the cell's editor, type (or paste what QTest cannot
type), press Return, and let the session follow."""
from PySide6 import QtCore, QtWidgets

from tests.gui.conftest import settle

Qt = QtCore.Qt


def type_into_cell(qtbot, view, row, col, text):
    index = view.model().index(row, col)
    view.setCurrentIndex(index)
    view.edit(index)
    editor = view.focusWidget()
    assert isinstance(editor, QtWidgets.QLineEdit)
    editor.clear()
    if text.isascii():
        qtbot.keyClicks(editor, text)
    else:  # QTest can only type ASCII; a paste is what a user would do here
        editor.insert(text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    settle()
