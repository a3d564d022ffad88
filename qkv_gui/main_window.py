"""The main window: editors docked on the left, the nine live panels in the middle.

    window = MainWindow()            # opens the default preset
    window.load_preset("seed-cat")
    window.session                   # the one state object (scenario, result, selection)
    window.panels["heatmapPanel"]    # every panel by its objectName
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import presets

from . import style
from .editors import SentenceOptionsWidget, TokenTableWidget, WeightGridsWidget
from .panel_grid import PanelGrid
from .panels import PANEL_CLASSES
from .session import Session

Qt = QtCore.Qt
SETTINGS_VERSION = 1


class MainWindow(QtWidgets.QMainWindow):
    def __init__(self, preset: str = presets.DEFAULT, settings: QtCore.QSettings | None = None, parent=None):
        super().__init__(parent)
        style.configure_pyqtgraph()
        self.setObjectName("mainWindow")
        self.settings = settings if settings is not None else QtCore.QSettings()
        self.session = Session(presets.load(preset), parent=self)
        self.session.preset_name = preset
        self.resize(1600, 1000)
        self.setDockNestingEnabled(True)

        self.options = SentenceOptionsWidget(self.session)
        self.tokens = TokenTableWidget(self.session)
        self.grids = WeightGridsWidget(self.session)
        self.docks = {}
        for name, title, widget in [
            ("dockSentence", "Sentence and options", self.options),
            ("dockTokens", "Tokens (rows of numbers)", self.tokens),
            ("dockWeights", "Weight grids", self.grids),
        ]:
            dock = QtWidgets.QDockWidget(title, self)
            dock.setObjectName(name)
            dock.setWidget(widget)
            dock.setFeatures(
                QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable
                | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable
            )
            self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
            self.docks[name] = dock
        self.resizeDocks([self.docks["dockSentence"]], [400], Qt.Orientation.Horizontal)
        self.resizeDocks(list(self.docks.values()), [190, 330, 480], Qt.Orientation.Vertical)

        self.panels = {cls.object_name: cls(self.session) for cls in PANEL_CLASSES}
        self.grid = PanelGrid(list(self.panels.values()), self)
        self.setCentralWidget(self.grid)

        self.statusBar().setObjectName("statusBar")
        self.session.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.session.scenarioChanged.connect(lambda _s: self._update_title())
        self._build_menus()
        self._update_title()
        self._restore_settings()

    # ----- actions ----------------------------------------------------------------------------
    def load_preset(self, name: str) -> None:
        self.session.load_preset(name)
        idx = self.presetCombo.findData(name)
        if idx >= 0:
            self.presetCombo.blockSignals(True)
            self.presetCombo.setCurrentIndex(idx)
            self.presetCombo.blockSignals(False)
        self._update_title()

    def toggle_full_screen(self) -> None:
        self.setWindowState(self.windowState() ^ Qt.WindowState.WindowFullScreen)

    def _update_title(self) -> None:
        name = self.session.preset_name
        title = presets.get(name).title if name in presets.names() else "Untitled"
        self.setWindowTitle(f"{title} — QKV Visualizer")

    def _build_menus(self) -> None:
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        preset_menu = file_menu.addMenu("Open &preset")
        self.presetCombo = QtWidgets.QComboBox(self)
        self.presetCombo.setObjectName("presetCombo")
        for p in presets.all_presets():
            act = preset_menu.addAction(p.title + (" (random weights)" if p.random_weights else ""))
            act.setToolTip(p.description)
            act.triggered.connect(lambda _=False, n=p.name: self.load_preset(n))
            self.presetCombo.addItem(p.title, p.name)
            self.presetCombo.setItemData(self.presetCombo.count() - 1, p.description, Qt.ItemDataRole.ToolTipRole)
        self.presetCombo.setCurrentIndex(max(0, self.presetCombo.findData(self.session.preset_name)))
        self.presetCombo.currentIndexChanged.connect(lambda i: self.load_preset(self.presetCombo.itemData(i)))
        file_menu.addSeparator()
        quit_act = file_menu.addAction("&Quit")
        quit_act.setShortcut(QtGui.QKeySequence.StandardKey.Quit)
        quit_act.triggered.connect(self.close)

        edit_menu = mb.addMenu("&Edit")
        reset = edit_menu.addAction("&Reset to the preset")
        reset.triggered.connect(lambda: self.load_preset(self.session.preset_name or presets.DEFAULT))
        first = edit_menu.addAction("Select the &first token")
        first.triggered.connect(lambda: self.session.select(0, 0))

        view_menu = mb.addMenu("&View")
        self.panel_actions = {}
        for name, panel in self.panels.items():
            act = view_menu.addAction(panel.title)
            act.setCheckable(True)
            act.setChecked(True)
            act.toggled.connect(lambda on, n=name: self.grid.set_panel_visible(n, on))
            self.panel_actions[name] = act
        view_menu.addSeparator()
        show_all = view_menu.addAction("Show &all panels")
        show_all.triggered.connect(self.show_all_panels)
        view_menu.addSeparator()
        for dock in self.docks.values():
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addSeparator()
        self.fullScreenAction = view_menu.addAction("&Full screen")
        self.fullScreenAction.setShortcut(QtGui.QKeySequence(Qt.Key.Key_F11))
        self.fullScreenAction.triggered.connect(self.toggle_full_screen)
        reset_layout = view_menu.addAction("&Reset layout")
        reset_layout.triggered.connect(self.reset_layout)

        help_menu = mb.addMenu("&Help")
        about = help_menu.addAction("&About QKV Visualizer")
        about.triggered.connect(self._about)
        keys = help_menu.addAction("&Keyboard and mouse")
        keys.triggered.connect(self._keys_help)

        tb = self.addToolBar("Presets")
        tb.setObjectName("presetToolbar")
        tb.addWidget(QtWidgets.QLabel(" Preset: ", self))
        tb.addWidget(self.presetCombo)

    def show_all_panels(self) -> None:
        for act in self.panel_actions.values():
            act.setChecked(True)
        self.grid.focus(None)

    def reset_layout(self) -> None:
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        self.show_all_panels()
        self.grid.setSizes([1, 1, 1])
        for row in self.grid.rows:
            row.setSizes([1, 1, 1])

    def _about(self) -> None:
        QtWidgets.QMessageBox.about(
            self,
            "About QKV Visualizer",
            "<b>QKV Visualizer</b><p>See how attention turns each token into a query, a key and a value, "
            "scores every pair, scales, applies softmax and mixes the values. Every number can be edited; "
            "every picture follows.</p>",
        )

    def _keys_help(self) -> None:
        QtWidgets.QMessageBox.information(
            self,
            "Keyboard and mouse",
            "Click a token row, a bar, a heatmap cell or a pie slice to select it everywhere.\n"
            "Double-click a number to edit it; Enter keeps it, Esc cancels.\n"
            "Double-click a panel's title (or its \u2922 button) to show it alone.\n"
            "F11: full screen.   Ctrl+Q: quit.",
        )

    # ----- remembered layout ------------------------------------------------------------------
    def _restore_settings(self) -> None:
        s = self.settings
        if s.value("window/version") != SETTINGS_VERSION:
            return
        geometry = s.value("window/geometry")
        state = s.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state, SETTINGS_VERSION)
        grid = s.value("window/grid")
        if isinstance(grid, list):
            self.grid.restore_state(grid)

    def save_settings(self) -> None:
        s = self.settings
        s.setValue("window/version", SETTINGS_VERSION)
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState(SETTINGS_VERSION))
        s.setValue("window/grid", self.grid.save_state())
        s.sync()

    def closeEvent(self, event):
        self.save_settings()
        super().closeEvent(event)
