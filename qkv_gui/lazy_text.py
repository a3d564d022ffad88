"""Words given to a widget only when they change.

Setting a label's text or a tool tip, even to what it shows already, repaints the widget, may ask its
layout for a new size, and sends an event that every application-wide event filter hears. Panels and
editors that set their words on every edit use these instead.
"""
from __future__ import annotations


def set_text(label, text: str) -> None:
    """``label.setText(text)`` unless it shows ``text`` already."""
    if label.text() != text:
        label.setText(text)


def set_tooltip(target, text: str) -> None:
    """``target.setToolTip(text)`` (a widget or a graphics item), unless that is its tool tip already."""
    if target.toolTip() != text:
        target.setToolTip(text)
