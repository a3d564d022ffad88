"""Input as a user makes it: typing into a table's cell (open the cell's editor, type or paste what QTest
cannot type, press Return, let the session follow), and a click that goes through the window."""
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


def click_in_window(widget) -> None:
    """A left click in the middle of ``widget``, as the mouse makes it: through its window (the platform's
    QWindow), not handed to the widget directly."""
    from PySide6.QtTest import QTest

    top = widget.window()
    pos = widget.mapTo(top, widget.rect().center())
    QTest.mouseClick(top.windowHandle(), QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier, pos)
