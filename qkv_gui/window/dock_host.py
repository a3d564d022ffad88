"""Where docks go in the main window, and the room they leave the panels: on a small screen (a 1024 x 768
projector) the editing docks on the left give up spare width for a dock opening on the right, and docks on
the right share tabs rather than squeeze each other.

    host = DockHost(main_window)         # any QMainWindow: only Qt's own dock methods are used
    host.add(dock)                       # on the right, where it was last time, tabbed on a short screen
    host.make_room(); host.room_on_the_right()
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from .screen_room import CENTRAL_MIN_WIDTH, DOCK_MIN_HEIGHT, NARROW_WINDOW, SHORT_WINDOW

Qt = QtCore.Qt


class DockHost(QtCore.QObject):
    """The docks of one QMainWindow (``main``), placed so that the panel area keeps its room."""

    def __init__(self, main: QtWidgets.QMainWindow):
        super().__init__(main)
        self.main = main

    def docks_on(self, area, but=None) -> list:
        """The docks shown (not floating) in ``area``, except ``but``."""
        return [d for d in self.main.findChildren(QtWidgets.QDockWidget)
                if d is not but and d.isVisible() and not d.isFloating() and self.main.dockWidgetArea(d) == area]

    def make_room(self) -> bool:
        """On a small screen (narrower than ``NARROW_WINDOW``), narrow the docks on the left to what
        they need, for a dock about to open on the right (the lesson, an experiment). True if it did."""
        left = self.docks_on(Qt.DockWidgetArea.LeftDockWidgetArea)
        if self.main.width() >= NARROW_WINDOW or not left:
            return False
        self.main.resizeDocks(left, [max(d.minimumSizeHint().width() for d in left)] * len(left),
                         Qt.Orientation.Horizontal)
        return True

    def tab_on_a_short_screen(self, dock: QtWidgets.QDockWidget) -> None:
        """A dock opening on the right shares a tab with one already there when stacking would squeeze
        them: on a short screen (lower than ``SHORT_WINDOW``) their pictures would make the window taller
        than the screen, and on any screen no dock is stacked lower than ``DOCK_MIN_HEIGHT`` (three
        experiments at 1920 x 1080 left the third a strip). Stacked, the docks share the height so that
        each has at least that much."""
        right = Qt.DockWidgetArea.RightDockWidgetArea
        if dock.isFloating() or self.main.tabifiedDockWidgets(dock) or self.main.dockWidgetArea(dock) != right:
            return
        stacks = self._stacks_on_the_right(but=dock)
        if not stacks:
            return
        wanted = sum(self._dock_wants(d) for d in stacks) + DOCK_MIN_HEIGHT
        if self.main.height() < SHORT_WINDOW or wanted > self._right_room():
            self.main.tabifyDockWidget(stacks[-1], dock)
        else:
            QtCore.QTimer.singleShot(0, self, self.share_the_right_side)  # once the new dock is laid out

    def _stacks_on_the_right(self, but=None) -> list:
        """The docks shown one above the other on the right: one for each group of tabs."""
        there = self.docks_on(Qt.DockWidgetArea.RightDockWidgetArea, but=but)
        stacks = []
        for d in there:
            if not any(t in stacks for t in self.main.tabifiedDockWidgets(d)):
                stacks.append(d)
        return stacks

    @staticmethod
    def _dock_wants(dock: QtWidgets.QDockWidget) -> int:
        return max(dock.minimumSizeHint().height(), DOCK_MIN_HEIGHT)

    def _right_room(self) -> int:
        """The height the docks on the right share: the window less its menu, tool and status bars."""
        central = self.main.centralWidget()
        return central.height() if central is not None else self.main.height()

    def share_the_right_side(self) -> None:
        """Docks stacked on the right each get at least ``DOCK_MIN_HEIGHT`` (or their own minimum), and
        an even share of what is left."""
        try:
            stacks = [d for d in self._stacks_on_the_right() if not d.visibleRegion().isEmpty()]
        except RuntimeError:  # the window is gone
            return
        if len(stacks) < 2:
            return
        wants = [self._dock_wants(d) for d in stacks]
        total = sum(d.height() for d in stacks)
        if sum(wants) > total:
            return
        extra = (total - sum(wants)) // len(stacks)
        self.main.resizeDocks(stacks, [want + extra for want in wants], Qt.Orientation.Vertical)

    def room_on_the_right(self) -> int:
        """How wide a dock on the right can be while the panel area keeps its minimum width."""
        left = max((d.width() for d in self.docks_on(Qt.DockWidgetArea.LeftDockWidgetArea)), default=0)
        return self.main.width() - left - CENTRAL_MIN_WIDTH - 16  # 16: the docks' separators
