"""The two word lines a grid panel has: a note above the picture and the info line under it (what the
selected pair or the cell under the mouse is), made alike everywhere."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from ..look import colours, style
from .changed_text import set_text
from .painted_ground import leave_ground
from .wrapped_label import WrappedLabel

Qt = QtCore.Qt

#: Narrower than this, a panel shows the short form of its words.
NARROW_PX = 480


def note_label(parent: QtWidgets.QWidget, object_name: str) -> QtWidgets.QLabel:
    """A word-wrapped note for above the picture."""
    label = QtWidgets.QLabel(parent)
    label.setObjectName(object_name)
    label.setWordWrap(True)
    label.setStyleSheet("padding: 0 4px;")
    return label


def info_label(parent: QtWidgets.QWidget, object_name: str, palette: style.Palette = style.STANDARD) -> QtWidgets.QLabel:
    """The small, selectable info line under the picture (in the soft text colour of ``palette``; a panel
    sets it again for a new palette); a ``WrappedLabel``, as its words change at every edit."""
    label = WrappedLabel(parent)
    label.setObjectName(object_name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    font = label.font()
    font.setPointSize(8)
    label.setFont(font)
    leave_ground(label)  # (a style sheet with a padding follows)
    colours.sheet(label, "color: $soft_text; padding: 0 4px;", palette)
    return label


def show_texts(width: int, labels_and_texts) -> None:
    """Give each label its (wide, narrow) text, the narrow one when the panel is ``width`` < NARROW_PX
    pixels wide; a label whose texts are None keeps what it has."""
    narrow = 0 < width < NARROW_PX
    for label, texts in labels_and_texts:
        if texts is not None:
            set_text(label, texts[1] if narrow else texts[0])
