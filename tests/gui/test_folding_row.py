"""FoldingRow: side by side when wide enough, one above the other when narrow, its least width the widest
widget's (so a dock can be made narrow around it), and the layout around it makes room for it folded."""
from PySide6 import QtWidgets

from qkv_gui.labels.folding_row import FoldingRow

from tests.gui.conftest import settle, shown


def test_it_folds_when_narrow_and_unfolds_when_wide(qtbot):
    holder = QtWidgets.QWidget()
    layout = QtWidgets.QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    buttons = [QtWidgets.QPushButton(text) for text in ("Reset to the checkpoint", "Back to the hand-made example",
                                                       "Go")]
    row = FoldingRow(buttons, holder)
    layout.addWidget(row)
    layout.addStretch(1)
    shown(qtbot, holder, (700, 300))
    widest = max(b.minimumSizeHint().width() for b in buttons)
    assert holder.minimumSizeHint().width() == widest  # not the three together
    assert not row.folded and len({b.y() for b in buttons}) == 1
    holder.resize(widest + 10, 300)
    settle()
    assert row.folded
    assert buttons[0].geometry().bottom() < buttons[1].y() and buttons[1].geometry().bottom() < buttons[2].y()
    assert all(b.geometry().right() < holder.width() for b in buttons)  # nothing cut off at the right
    assert row.height() >= sum(b.height() for b in buttons)
    buttons[1].hide()  # a hidden widget takes no room: the other two fit side by side again
    holder.resize(buttons[0].sizeHint().width() + buttons[2].sizeHint().width() + 20, 300)
    settle()
    assert not row.folded and buttons[0].y() == buttons[2].y()
    buttons[1].show()
    holder.resize(700, 300)
    settle()
    assert not row.folded and len({b.y() for b in buttons}) == 1
