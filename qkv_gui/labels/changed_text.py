"""Words given to a widget only when they change.

Setting a label's text or a tool tip, even to what it shows already, repaints the widget, may ask its
layout for a new size, and sends an event that every application-wide event filter hears. Panels and
editors that set their words on every edit use these instead.

A tool tip is plain text here: Qt takes a text for rich text when a tag seems to start it, and a token such as
Llama's ``<s>`` is one (``<s>`` strikes the rest through and disappears), so ``plain_tip`` hands Qt such a text
as rich text that shows it as written.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui

Qt = QtCore.Qt


def set_text(label, text: str) -> None:
    """``label.setText(text)`` unless it shows ``text`` already.

    A word-wrapped label has its new text laid out at once, at the width it has. Left to itself, it would
    do so in its next paint; for a label with a text control (rich or selectable text) that changes the
    control's document while the label paints, which asks Qt for another paint of the label (and of what
    lies under it) on the next turn of the event loop. A label alone in a box that sizes itself from it
    (``SteadyBox``) is measured by its box, which hears of the new text now rather than after the paint
    (measuring a painted text control repaints it)."""
    if label.text() == text:
        return
    label.setText(text)
    if label.wordWrap():
        box = label.parentWidget()
        if box is not None and box.layout() is None:
            QtCore.QCoreApplication.sendPostedEvents(box, QtCore.QEvent.Type.LayoutRequest)
        else:
            label.heightForWidth(label.width())


def plain_tip(text: str) -> str:
    """``text`` as a tool tip that shows it as written, its lines kept: as it is, unless Qt would take it for rich
    text (``Qt.mightBeRichText``: a token such as ``<s>`` in its first line), then as rich text that says the same
    (``Qt.convertFromPlainText``)."""
    if not text or not QtGui.Qt.mightBeRichText(text):
        return text
    return QtGui.Qt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpacePre)


def set_tooltip(target, text: str) -> None:
    """``target.setToolTip(text)`` (a widget or a graphics item), unless that is its tool tip already; ``text`` is
    plain text (plain_tip)."""
    text = plain_tip(text)
    if target.toolTip() != text:
        target.setToolTip(text)
