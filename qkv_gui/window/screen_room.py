"""How big the window opens, and the sizes below which a screen counts as small: a narrow window narrows the
editing docks for a dock opening on the right, a short one puts docks on the right in tabs."""
from __future__ import annotations

from PySide6 import QtCore, QtGui

from ..panels.base import READABLE_WIDTH
from .panel_grid import FRAME_ROOM

#: The panel area is never narrower than this (pixels): a dock opened beside it cannot squeeze it away. It holds
#: one panel at its readable width in its frame, so that a panel shown alone (the lesson's) is never cut: at 260,
#: the lesson beside a trained model on a 1024 x 768 screen cut the q·k plane's numbers at the right.
CENTRAL_MIN_WIDTH = READABLE_WIDTH + FRAME_ROOM
#: A window narrower than this (pixels) is a small screen: the lesson and the experiments first narrow
#: the editing docks to what they need.
NARROW_WINDOW = 1400
#: A window lower than this (pixels) is a short screen: docks opening on the right share tabs.
SHORT_WINDOW = 900
#: A dock on the right is never stacked lower than this (pixels): it shares a tab instead.
DOCK_MIN_HEIGHT = 360
#: The window's size on a first start, when the screen has room for it.
FIRST_SIZE = (1600, 1000)
#: What a title bar and window frame take (pixels), so a fitted window stays inside the screen.
FRAME_ROOM = (16, 48)


def first_size(screen: QtGui.QScreen | None) -> QtCore.QSize:
    """The window's size on a first start: 1600 x 1000, or the room a smaller screen has (a 1024 x 768
    projector): a window bigger than the screen would hide its own edges."""
    if screen is None:
        return QtCore.QSize(*FIRST_SIZE)
    room = screen.availableGeometry()
    return QtCore.QSize(min(FIRST_SIZE[0], room.width() - FRAME_ROOM[0]),
                        min(FIRST_SIZE[1], room.height() - FRAME_ROOM[1]))
