"""The Experiments menu: labs that are driven by their own controls, each opened in a dock.

    install_experiments(window)      # adds "Experiments" after "View"; "√d_k lab" opens the dock
    window.experiment_docks["dockScalingLab"]

The docks are made on first use (a lab costs nothing until it is opened) and
are not part of the main grid, the View menu's panel list or "Reset layout".
The main window remembers which docks were open (``open_dock_names``) and
opens them again at the next start (``reopen_docks``), before Qt puts every
dock back where it was.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from .panels.compare_heatmaps import CompareHeatmapsPanel
from .panels.concat_project import ConcatProjectPanel
from .panels.heads_grid import HeadsGridPanel
from .panels.scaling_lab import ScalingLabPanel

Qt = QtCore.Qt

#: object name of the dock -> (menu text, panel class, dock title)
EXPERIMENTS = {
    "dockScalingLab": ("√d_k lab", ScalingLabPanel, ScalingLabPanel.title),
    "dockHeads": ("Heads side by side", HeadsGridPanel, HeadsGridPanel.title),
    "dockConcat": ("Concat and W^O", ConcatProjectPanel, ConcatProjectPanel.title),
    "dockCompare": ("Compare A / B", CompareHeatmapsPanel, CompareHeatmapsPanel.title),
}
LAB_DOCK_WIDTH = 600
#: A dock opened on the right takes this share of the window's width, within these bounds (pixels);
#: a dock put back narrower than the lower bound, or wider than the grid, is set to it again.
LAB_DOCK_SHARE = 0.32
LAB_DOCK_MIN = 420


def dock_width(window) -> int:
    """How wide an experiment dock opens: about a third of the window, 420 to 600 px, so its pictures
    are readable and the main grid keeps most of the window."""
    return int(max(LAB_DOCK_MIN, min(LAB_DOCK_WIDTH, LAB_DOCK_SHARE * window.width())))


def _widen(window, dock, always: bool) -> None:
    """Give a docked (not floating) experiment dock its width. ``resizeDocks`` is ignored for a dock
    that has not been laid out yet, so the width is pinned for one layout pass and then let go."""
    try:
        if dock.isFloating() or dock.isHidden() or window.dockWidgetArea(dock) not in (
                Qt.DockWidgetArea.RightDockWidgetArea, Qt.DockWidgetArea.LeftDockWidgetArea):
            return
        if always:
            window.make_room()  # a small screen: the editing docks on the left give up spare width
        # never so wide that the panels go below their minimum
        target = max(dock.minimumSizeHint().width(), min(dock_width(window), window.room_on_the_right()))
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


def _menu_after_view(window) -> QtWidgets.QMenu:
    menu = QtWidgets.QMenu("Experiments", window)
    menu.setObjectName("experimentsMenu")
    bar = window.menuBar()
    view_menu = getattr(window, "viewMenu", None)
    actions = bar.actions()
    before = None
    if view_menu is not None and view_menu.menuAction() in actions:
        idx = actions.index(view_menu.menuAction())
        if idx + 1 < len(actions):
            before = actions[idx + 1]
    if before is not None:
        bar.insertMenu(before, menu)
    else:
        bar.addMenu(menu)
    return menu


def open_experiment(window, name: str) -> QtWidgets.QDockWidget:
    """Show the dock ``name`` (made the first time), raised and ready."""
    dock = window.experiment_docks.get(name)
    if dock is None:
        _text, cls, title = EXPERIMENTS[name]
        dock = QtWidgets.QDockWidget(title, window)
        dock.setObjectName(name)
        dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable)
        panel = cls(window.session)
        dock.setWidget(panel)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        # Where it was last time (a layout restored before the dock existed keeps a place for it) ...
        restored = window.restoreDockWidget(dock)
        always = not restored  # ... else on the right, about a third of the window wide
        window.tab_on_a_short_screen(dock)
        window.experiment_docks[name] = dock
        window.experiment_panels[cls.object_name] = panel
        exporter = getattr(window, "exporter", None)
        if exporter is not None:
            exporter.adopt_experiment(cls.object_name, panel)
    else:
        always = False
    dock.show()
    dock.raise_()
    _widen(window, dock, always)
    return dock


def open_dock_names(window) -> list:
    """Object names of the experiment docks open now (shown, floating, or tabbed behind another dock)."""
    return [name for name, dock in getattr(window, "experiment_docks", {}).items() if not dock.isHidden()]


def reopen_docks(window, names) -> list:
    """Open the experiment docks ``names`` (as remembered); unknown names are skipped. Returns the docks."""
    if isinstance(names, str):
        names = [names]
    docks = []
    for name in names or []:
        if isinstance(name, str) and name in EXPERIMENTS:
            docks.append(open_experiment(window, name))
    return docks


def install_experiments(window) -> QtWidgets.QMenu:
    """Give ``window`` the Experiments menu (after View) and its labs."""
    window.experiment_docks = {}
    window.experiment_panels = {}
    menu = _menu_after_view(window)
    window.experimentsMenu = menu
    window.experiment_actions = {}
    for name, (text, _cls, _title) in EXPERIMENTS.items():
        act = menu.addAction(text)
        act.setObjectName(name.replace("dock", "open", 1))
        act.triggered.connect(lambda _=False, n=name: open_experiment(window, n))
        window.experiment_actions[name] = act
    window.open_experiment = lambda name: open_experiment(window, name)
    return menu
