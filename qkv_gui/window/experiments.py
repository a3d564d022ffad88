"""The Experiments menu: labs that are driven by their own controls, each opened in a dock.

    experiments = Experiments(session, dock_host, adopt=exporter.adopt_experiment)  # its menu goes after "View"
    experiments.open("dockScalingLab")    # the √d_k lab's dock, made the first time
    experiments.docks["dockScalingLab"]

The docks are made on first use (a lab costs nothing until it is opened) and
are not part of the main grid, the View menu's panel list or "Reset layout".
The main window remembers which docks were open (``open_names``) and opens
them again at the next start (``reopen``), where the saved layout had them.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from ..panels import catalog

Qt = QtCore.Qt

#: object name of the dock -> (menu text, panel class, dock title), from the catalog
EXPERIMENTS = {e.dock: (e.menu_text, e.cls, e.title) for e in catalog.EXPERIMENTS}
LAB_DOCK_WIDTH = 600
#: A dock opened on the right takes this share of the window's width, within these bounds (pixels);
#: a dock put back narrower than the lower bound, or wider than the grid, is set to it again.
LAB_DOCK_SHARE = 0.32
LAB_DOCK_MIN = 420


def dock_width(window) -> int:
    """How wide an experiment dock opens: about a third of the window, 420 to 600 px, so its pictures
    are readable and the main grid keeps most of the window."""
    return int(max(LAB_DOCK_MIN, min(LAB_DOCK_WIDTH, LAB_DOCK_SHARE * window.width())))


def _widen(host, dock, always: bool) -> None:
    """Give a docked (not floating) experiment dock its width. ``resizeDocks`` is ignored for a dock
    that has not been laid out yet, so the width is pinned for one layout pass and then let go."""
    try:
        window = host.main
        if dock.isFloating() or dock.isHidden() or window.dockWidgetArea(dock) not in (
                Qt.DockWidgetArea.RightDockWidgetArea, Qt.DockWidgetArea.LeftDockWidgetArea):
            return
        if always:
            host.make_room()  # a small screen: the editing docks on the left give up spare width
        # never so wide that the panels go below their minimum
        target = max(dock.minimumSizeHint().width(), min(dock_width(window), host.room_on_the_right()))
        central = window.centralWidget()
        crowding = central is not None and dock.width() > central.width()  # the grid keeps the most room
        if always or dock.width() < min(LAB_DOCK_MIN, target) or crowding:
            dock.setFixedWidth(target)
            QtCore.QTimer.singleShot(0, dock, lambda: _let_go(dock))
    except RuntimeError:  # the window or dock is gone
        pass


def _let_go(dock) -> None:
    try:
        dock.setMinimumWidth(0)
        dock.setMaximumWidth(QWIDGETSIZE_MAX)
    except RuntimeError:
        pass


QWIDGETSIZE_MAX = (1 << 24) - 1


class Experiments(QtCore.QObject):
    """The Experiments menu and the docks it opens, in the window of ``host``; ``adopt(object_name, panel)`` is
    told of each panel made (the export actions give it their context menu)."""

    def __init__(self, session, host, adopt=None):
        super().__init__(host)
        self.session = session
        self.host = host
        self.adopt = adopt
        window = host.main
        self.docks: dict[str, QtWidgets.QDockWidget] = {}  # dock object name -> dock, once opened
        self.panels: dict = {}  # panel object name -> panel, once its dock was opened
        self.menu = QtWidgets.QMenu("Experiments", window)
        self.menu.setObjectName("experimentsMenu")
        self.actions: dict[str, QtGui.QAction] = {}
        for name, (text, _cls, _title) in EXPERIMENTS.items():
            act = self.menu.addAction(text)
            act.setObjectName(name.replace("dock", "open", 1))
            act.triggered.connect(lambda _=False, n=name: self.open(n))
            self.actions[name] = act

    def open(self, name: str) -> QtWidgets.QDockWidget:
        """Show the dock ``name`` (made the first time), raised and ready."""
        window = self.host.main
        dock = self.docks.get(name)
        if dock is None:
            _text, cls, title = EXPERIMENTS[name]
            dock = QtWidgets.QDockWidget(title, window)
            dock.setObjectName(name)
            dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                             | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable
                             | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable)
            panel = cls(self.session)
            dock.setWidget(panel)
            window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
            # Where it was last time (a layout restored before the dock existed keeps a place for it) ...
            restored = window.restoreDockWidget(dock)
            always = not restored  # ... else on the right, about a third of the window wide
            self.host.tab_on_a_short_screen(dock)
            self.docks[name] = dock
            self.panels[cls.object_name] = panel
            if self.adopt is not None:
                self.adopt(cls.object_name, panel)
        else:
            always = False
        dock.show()
        dock.raise_()
        _widen(self.host, dock, always)
        return dock

    def open_names(self) -> list:
        """Object names of the docks open now (shown, floating, or tabbed behind another dock)."""
        return [name for name, dock in self.docks.items() if not dock.isHidden()]

    def reopen(self, names) -> list:
        """Open the docks ``names`` (as remembered); unknown names are skipped. Returns the docks."""
        if isinstance(names, str):
            names = [names]
        return [self.open(name) for name in names or [] if isinstance(name, str) and name in EXPERIMENTS]
