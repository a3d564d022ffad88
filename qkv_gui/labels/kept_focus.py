"""Widgets greyed out or hidden without sending the keyboard somewhere else.

When the widget that has the keyboard focus is disabled or hidden, Qt hands the focus on along the Tab order,
as if Tab had been pressed: a scroll area around the next widget scrolls to it, and a line edit there selects
all its text, so the next key typed replaces the sentence. A button greyed out or hidden by its own click
(Reset to the checkpoint, Next at the last step, Clear, Last token, Which heads matter? while it runs) did just
that. ``set_enabled`` and ``set_shown`` first hand the focus to a widget chosen here: the one the caller names
(``keep``) when it can take it, else the nearest ancestor that keeps it (a group box hands it to its first
control). ``setFocus`` gives it the focus whatever its
focus policy, and scrolls nothing; Tab goes on from there.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

Qt = QtCore.Qt


def set_enabled(widget: QtWidgets.QWidget, enabled: bool, keep: QtWidgets.QWidget | None = None) -> None:
    """``widget.setEnabled(enabled)``; a widget greyed out while it (or a widget in it) has the focus hands
    the focus to ``keep``, or to its nearest enabled, shown ancestor, first."""
    if not enabled and widget.isEnabled():
        _hand_on_focus(widget, keep)
    widget.setEnabled(enabled)


def set_shown(widget: QtWidgets.QWidget, shown: bool, keep: QtWidgets.QWidget | None = None) -> None:
    """``widget.setVisible(shown)``; a widget hidden while it (or a widget in it) has the focus hands the
    focus to ``keep``, or to its nearest enabled, shown ancestor, first."""
    if not shown and not widget.isHidden():
        _hand_on_focus(widget, keep)
    widget.setVisible(shown)


def _can_take(w: QtWidgets.QWidget | None, leaving: QtWidgets.QWidget) -> bool:
    return (w is not None and w.isEnabled() and w.isVisible() and w is not leaving
            and not leaving.isAncestorOf(w))


def _hand_on_focus(widget: QtWidgets.QWidget, keep: QtWidgets.QWidget | None) -> None:
    focus = QtWidgets.QApplication.focusWidget()
    if focus is None or not (focus is widget or widget.isAncestorOf(focus)):
        return
    target = keep if _can_take(keep, widget) else widget.parentWidget()
    while target is not None:
        if _can_take(target, widget):
            target.setFocus(Qt.FocusReason.OtherFocusReason)
            if QtWidgets.QApplication.focusWidget() is target:
                return
        # (a group box given the focus hands it to its first control, a spin box there: not where it was)
        target = target.parentWidget()
