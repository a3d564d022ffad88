"""Widgets that repaint at every edit paint their own ground.

A widget that leaves its background to its parents makes Qt repaint every parent under it, up to the
window, whenever it repaints: for a caption of a few words, the panel, its frame, the splitters and the
scrolling grid (about thirty paints an edit, over the whole grid's area). A widget that fills its own
ground with the colour its parents paint (Qt's palette, which it shares with them: an exported figure's
background too) is repainted alone."""
from __future__ import annotations

from PySide6 import QtWidgets


def paint_own_ground(widget: QtWidgets.QWidget) -> None:
    """``widget`` fills its background with its palette's colour before it paints."""
    widget.setAutoFillBackground(True)


def leave_ground(widget: QtWidgets.QWidget) -> None:
    """``widget`` leaves its ground to its parents again: call it before giving the widget a style sheet of
    its own with a padding, border or background. (Qt's style then switches the filling off and fills the
    ground itself, in the application's colour rather than its parents', and goes on doing so even after the
    filling is switched off: a transparent figure would show it.)"""
    widget.setAutoFillBackground(False)
