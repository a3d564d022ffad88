"""The colour-scale mode on screen: the chooser button, and what a colour bar says in each mode.

    absolute  "weight (0 to 1)"                  the bar runs from 0 to 1
    auto      "weight (0 to the largest, auto)"  the bar runs from 0 to the largest weight shown (its number
                                                 at the top: 0.31)
    row       "weight, each row to its largest"  the bar runs from 0 to "max" (each row's own)

The titles do not carry the changing numbers (the bar's ticks do), so an edit does not lay the bar out again.

The levels themselves come from ``qkv_engine.views.colour_levels``.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import fixed, views

from .lazy_axes import set_axis_title

Qt = QtCore.Qt

#: The chooser's words for each mode, and what each does.
NAMES = {"absolute": "0 to 1", "auto": "auto", "row": "per row"}
TIPS = {
    "absolute": "Colours from 0 to 1: the same colour is always the same weight.",
    "auto": "Colours from 0 to the largest weight shown, so small weights still differ (long sentences).",
    "row": "Each row from 0 to its own largest weight: where each query looks most, row by row.",
}


def bar_titles(levels: views.ColourLevels, what: str = "weight") -> tuple:
    """The colour bar's title in the mode of ``levels``, longest first (show the longest that fits)."""
    if levels.mode == "absolute":
        return f"{what} (0 to 1)", what
    if levels.mode == "row":
        return f"{what}, each row to its largest", f"{what}, per row", what
    return f"{what} (0 to the largest, auto)", f"{what}, auto", what


def bar_range(levels: views.ColourLevels) -> tuple:
    """(low, high, ticks) of a colour bar: the range its colours span and the numbers at its side (None:
    the axis chooses them). The range stays 0 to 1 in every mode and the numbers say what the ends are,
    so that a bar whose top follows the largest weight is redrawn only when its numbers read differently."""
    if levels.mode == "row":
        return 0.0, 1.0, [(0.0, "0"), (0.5, "½ max"), (1.0, "max")]
    if levels.mode == "auto" and isinstance(levels.high, float):
        top = levels.high
        end = 1.0 - 1e-9  # a hair inside: a tick exactly at the end can round off the axis
        return 0.0, 1.0, [(0.0, "0"), (0.5, fixed(top / 2, 2)), (end, fixed(top, 2))]
    return 0.0, 1.0, None


def show_on_bar(bar, levels: views.ColourLevels, title: str | None = None) -> None:
    """Set a ``pg.ColorBarItem``'s range and numbers for ``levels`` (and its title, when given)."""
    low, high, ticks = bar_range(levels)
    if tuple(bar.levels()) != (low, high):
        bar.setLevels((low, high))
    axis = bar.axis
    want = None if ticks is None else [ticks, []]
    if getattr(axis, "_tickLevels", None) != want:
        axis.setTicks(want)
    if title is not None:
        label = bar.getAxis("left")
        if label.labelText != title:
            set_axis_title(label, title)


def place_bar(bar, plot) -> None:
    """Put a vertical colour bar right of ``plot``'s right-hand axis (where ``setImageItem(insert_in=plot)``
    puts it; the grids colour their own cells, so no image is linked to the bar)."""
    plot.layout.addItem(bar, 2, 5)
    plot.layout.setColumnFixedWidth(4, 5)  # some room after the axis on the left


class ColourScaleButton(QtWidgets.QToolButton):
    """A small menu button that sets ``session.colour_scale`` and shows the mode chosen
    (objectName ``colourScaleCombo``; one action per mode, ``colourScale_<mode>``)."""

    def __init__(self, session, parent=None, font: QtGui.QFont | None = None):
        super().__init__(parent)
        self.session = session
        self.setObjectName("colourScaleCombo")
        self.setAutoRaise(True)
        self.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        if font is not None:
            self.setFont(font)
        menu = QtWidgets.QMenu(self)
        group = QtGui.QActionGroup(self)
        self.actions_by_mode = {}
        for mode in views.COLOUR_SCALES:
            act = menu.addAction(f"Colours: {NAMES[mode]}")
            act.setObjectName(f"colourScale_{mode}")
            act.setCheckable(True)
            act.setToolTip(TIPS[mode])
            act.triggered.connect(lambda _=False, m=mode: self.session.set_colour_scale(m))
            group.addAction(act)
            self.actions_by_mode[mode] = act
        menu.setToolTipsVisible(True)
        self.setMenu(menu)
        session.colourScaleChanged.connect(self.show_mode)
        self.show_mode(session.colour_scale)

    def show_mode(self, mode: str) -> None:
        self.actions_by_mode[mode].setChecked(True)
        self.setText(NAMES[mode])
        self.setToolTip(f"Colour scale: {NAMES[mode]}. {TIPS[mode]} Click to choose another.")
        self.mode = mode

    def choose(self, mode: str) -> None:
        """What picking ``mode`` from the menu does."""
        self.actions_by_mode[mode].trigger()
