"""“What am I looking at?”: a few plain sentences for every panel, and how to read its picture.

    HELP["heatmapPanel"]                 # (what it shows, how to read it), keyed by the panel's object name
    help_html("heatmapPanel")            # both as rich text, under the panel's title
    panel_at(widget)                     # the panel a widget belongs to (its object name), or None
    show_help(name, global_pos, widget)  # the help as Qt's "What's This?" bubble at a point

F1 over a panel, the ? in a panel's title bar and Help → What am I looking at? show it.
The texts live in the panel catalog (``panels/catalog.py``), one entry a panel, so that one place keeps
their words plain and alike.
Every symbol is said in words before it is used.
"""
from __future__ import annotations

import html

from PySide6 import QtCore, QtWidgets

from ..panels import catalog

#: object name -> (what the picture shows, how to read it)
#: object name -> (what the picture shows, how to read it), from the catalog
HELP = {entry.object_name: entry.help for entry in catalog.ALL}

TITLE = "What am I looking at?"


def help_html(object_name: str, title: str | None = None) -> str:
    """The help of panel ``object_name`` as rich text: its title (if given), what it shows, how to read it."""
    what, how = HELP[object_name]
    head = f"<p><b>{html.escape(title)}</b></p>" if title else ""
    return f"{head}<p>{html.escape(what)}</p><p><b>How to read it:</b> {html.escape(how)}</p>"


def panel_at(widget: QtWidgets.QWidget | None) -> QtWidgets.QWidget | None:
    """The panel (a widget whose object name has a help text) that ``widget`` is part of, or None."""
    while widget is not None:
        if widget.objectName() in HELP:
            return widget
        widget = widget.parentWidget()
    return None


def show_help(panel: QtWidgets.QWidget, global_pos: QtCore.QPoint | None = None) -> str:
    """Show the help of ``panel`` in Qt's "What's This?" bubble (at ``global_pos``, else the panel's top
    centre); returns the text shown."""
    text = help_html(panel.objectName(), getattr(panel, "title", None))
    if global_pos is None:
        global_pos = panel.mapToGlobal(QtCore.QPoint(panel.width() // 2, 8))
    QtWidgets.QWhatsThis.showText(global_pos, text, panel)
    return text
