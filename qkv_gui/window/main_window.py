"""The main window: editors docked on the left, the nine live panels in the middle.

    window = MainWindow()            # opens the default preset
    window.load_preset("seed-cat")
    window.session                   # the one state object (scenario, result, selection)
    window.panels["heatmapPanel"]    # every panel by its objectName
"""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import known_words, model_examples, presets, session_format

from ..look import colours, style
from . import panel_help, welcome
from ..system import settings_file
from ..editors import SentenceOptionsWidget, TokenTableWidget, WeightGridsWidget
from .dock_host import DockHost
from .experiments import Experiments
from .export_actions import ExportController
from .lesson import LessonController
from .model_actions import DocumentHooks, ModelActions
from .panel_grid import PanelGrid
from .screen_room import (CENTRAL_MIN_WIDTH, DOCK_MIN_HEIGHT, FIRST_SIZE, FRAME_ROOM, NARROW_WINDOW,  # noqa: F401
                          SHORT_WINDOW, first_size)
from ..panels.catalog import PANEL_CLASSES
from ..system.recovery import Recovery, default_folder
from ..state.session import Session
from ..state.session_file import AUTOSAVE_MS, MAX_RECENT, Questions, SessionFile  # noqa: F401

Qt = QtCore.Qt
#: The layout kept in the settings file. 2: the grid's splitters as text (version 1 kept them as pickled
#: Python objects: ``settings_file`` takes them out of the file unread).
SETTINGS_VERSION = 2
#: The settings key of the palette (View → Theme): "standard", "high-contrast" or "dark".
PALETTE_KEY = "view/palette"
FILE_FILTER = "QKV sessions (*.qkv.json);;JSON files (*.json);;All files (*)"
#: The heading of the designed examples in the preset menu and combo.
DESIGNED_SECTION = "Designed examples"
#: ... and of the examples that open the model the app ships.
MODEL_SECTION = "With the built-in model"


#: Help → Keyboard and mouse (a test checks every shortcut named here is a real one).
KEYS_HELP = (
    "Click a token row, a bar, a heatmap cell or a pie slice to select it everywhere.\n"
    "Double-click a number to edit it; Enter keeps it, Esc cancels.\n"
    "Double-click a table's header to name that feature or column.\n"
    "Double-click a panel's title (or its \u2922 button) to show it alone.\n"
    "Right-click a panel to export or copy it.\n\n"
    "Ctrl+Z / Ctrl+Shift+Z: undo / redo.   Ctrl+S: save.   Ctrl+O: open.\n"
    "Ctrl+E: export the panel.   Ctrl+Shift+C: copy it as a picture.\n"
    "Ctrl+L: lesson.   \u2192 / \u2190 (or Space, Page Down / Page Up): next / previous step.\n"
    "Ctrl+Shift+E: exercise.   F5: presenter (Esc leaves).\n"
    "F1: what the panel under the mouse shows.   F11: full screen.   Ctrl+Q: quit."
)


class MainWindow(QtWidgets.QMainWindow):
    def __init__(self, preset: str = presets.DEFAULT, settings: QtCore.QSettings | None = None, parent=None,
                 recovery: Path | None = None):
        super().__init__(parent)
        style.configure_pyqtgraph()
        self.setObjectName("mainWindow")
        if settings is None:
            settings = settings_file.open_settings()
        else:
            settings_file.drop_pickled(settings)  # before anything in it is read: a pickle is never opened
        self.settings = settings
        colours.use(self.saved_palette())  # before the panels are made: they are drawn in it at once
        self.session = Session(presets.load(preset), parent=self)
        self.session.preset_name = preset
        self.session.select_promised_pair(preset)  # a designed example: the pair its note speaks of
        # The session's file: saving, opening, recent files; unsaved work is kept every few seconds in this
        # window's own file in ``recovery`` (a folder). The questions are asked here, in dialogs.
        self.document = SessionFile(
            self.session, Recovery(recovery if recovery is not None else default_folder()), settings,
            Questions(ask_unsaved=lambda: self.ask_unsaved(),
                      ask_file=lambda saving, folder: self.ask_file(saving, folder),
                      ask_restore=lambda: self.ask_restore(),
                      tell_error=lambda title, text: self.notify_error(title, text),
                      show_model=lambda model, **kw: self.models.show_model(model, **kw),
                      view=lambda: self.lesson.view_state(), restore_view=lambda view: self.lesson.restore_view(view)),
            parent=self)
        self.resize(first_size(QtGui.QGuiApplication.primaryScreen()))
        self.setDockNestingEnabled(True)
        self.dock_host = DockHost(self)

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
            if widget is self.grids:
                # With several heads and W^O the grids need more room than the dock has: scroll.
                scroll = QtWidgets.QScrollArea(dock)
                scroll.setObjectName("weightsScroll")
                scroll.setWidgetResizable(True)
                scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
                scroll.setWidget(widget)
                widget = scroll
            dock.setWidget(widget)
            dock.setFeatures(
                QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable
                | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable
            )
            self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
            self.docks[name] = dock
        # wide enough for the Trained model box's Reset and Back side by side (narrower, they fold: FoldingRow)
        self.resizeDocks([self.docks["dockSentence"]], [410], Qt.Orientation.Horizontal)
        self.resizeDocks(list(self.docks.values()), [190, 330, 480], Qt.Orientation.Vertical)

        self.panels = {cls.object_name: cls(self.session) for cls in PANEL_CLASSES}
        self.grid = PanelGrid(list(self.panels.values()), self)
        # On a small screen (a 1024 x 768 or 1280 x 720 projector) the grid scrolls instead of making
        # the window bigger than the screen; with room to spare it fills the area and no bar shows.
        self.gridScroll = QtWidgets.QScrollArea(self)
        self.gridScroll.setObjectName("panelScroll")
        self.gridScroll.setWidgetResizable(True)
        self.gridScroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.gridScroll.setWidget(self.grid)
        self.gridScroll.setMinimumWidth(CENTRAL_MIN_WIDTH)  # docks never squeeze the panels out of sight
        self.setCentralWidget(self.gridScroll)
        self.grid.watch(self.gridScroll)  # as many panels a row as fit at their readable widths

        # The window's parts, each with its own menu: the export actions, the experiment docks, the lesson.
        self.exporter = ExportController(self.session, self, self.settings, self.grid,
                                         tell_error=lambda title, text: self.notify_error(title, text))
        self.experiments = Experiments(self.session, self.dock_host, adopt=self.exporter.adopt_experiment)
        self.panel_actions: dict = {}  # the View menu's tick for each panel of the grid (filled with the menus)
        self.lesson = LessonController(self.session, self.dock_host, self.grid, self.gridScroll, self.panel_actions,
                                       self.experiments, open_example=lambda name: self.models.open_example(name))
        self.welcome: welcome.WelcomeDialog | None = None  # made the first time it is shown (Help → Welcome)

        self.statusBar().setObjectName("statusBar")
        self._build_menus()
        # Trained models: File → Open model…, Models on this computer…, the model view dock.
        self.models = ModelActions(
            self.session, self.dock_host, self.settings,
            menus={"file": self.fileMenu, "preset": self.presetMenu, "edit": self.editMenu, "view": self.viewMenu},
            beside=self.docks["dockWeights"],
            hooks=DocumentHooks(keep_changes=lambda: self.maybe_keep_changes(), forget_file=self.forget_file,
                                tell_error=lambda title, text: self.notify_error(title, text)),
            adopt=self.exporter.adopt_experiment)
        self.session.message.connect(self._show_status)
        self.session.scenarioChanged.connect(self._update_title)
        self.session.modelChanged.connect(self._update_title)
        self.session.modelViewChanged.connect(self._update_title)
        self.session.undo_stack.cleanChanged.connect(self._update_title)
        self._update_title()
        self._restore_settings()
        self.setAcceptDrops(True)
        self.document.changed.connect(self._update_title)
        self.document.recentChanged.connect(self._fill_recent_menu)
        self.document.note.connect(lambda text, ms: self.statusBar().showMessage(text, ms))
        self.autosaveTimer = self.document.timer
        self.autosaveTimer.start()

    # ----- the parts, by the names the app and its tests use ----------------------------------------
    def welcome_dialog(self, make) -> QtWidgets.QDialog:
        """The welcome dialog, made by ``make(self)`` the first time it is asked for (Help → Welcome)."""
        if self.welcome is None:
            self.welcome = make(self)
        return self.welcome

    def forget_file(self) -> None:
        """The document shown is no longer the session file opened or saved last (a model opened, or back to
        the hand-made example): Save asks for a file."""
        self.document.forget()

    def enter_lesson_mode(self) -> None:
        self.lesson.enter()

    def leave_lesson_mode(self) -> None:
        self.lesson.leave()

    def open_experiment(self, name: str) -> QtWidgets.QDockWidget:
        """Open the experiment dock ``name`` (e.g. "dockScalingLab")."""
        return self.experiments.open(name)

    @property
    def experiment_docks(self) -> dict:
        return self.experiments.docks

    @property
    def experiment_panels(self) -> dict:
        return self.experiments.panels

    @property
    def experimentsMenu(self) -> QtWidgets.QMenu:  # noqa: N802 (Qt naming, like the other menus)
        return self.experiments.menu

    # ----- room on a small screen (the dock host's, here for the tests and scripts that ask the window) ----
    def docks_on(self, area, but=None) -> list:
        return self.dock_host.docks_on(area, but)

    def make_room(self) -> bool:
        return self.dock_host.make_room()

    def tab_on_a_short_screen(self, dock: QtWidgets.QDockWidget) -> None:
        self.dock_host.tab_on_a_short_screen(dock)

    def share_the_right_side(self) -> None:
        self.dock_host.share_the_right_side()

    def room_on_the_right(self) -> int:
        return self.dock_host.room_on_the_right()

    # ----- actions ----------------------------------------------------------------------------
    def load_preset(self, name: str) -> None:
        """Switch to a preset (one undoable step)."""
        self.session.load_preset(name)
        self._update_title()

    # ----- files --------------------------------------------------------------------------------
    def notify_error(self, title: str, text: str) -> None:
        """Tell the user something went wrong (a dialog; the status line keeps it too)."""
        self.statusBar().showMessage(text, 15000)
        QtWidgets.QMessageBox.warning(self, title, text)

    def ask_unsaved(self) -> str:
        """Ask what to do with unsaved changes: 'save', 'discard' or 'cancel'."""
        box = QtWidgets.QMessageBox(self)
        box.setIcon(QtWidgets.QMessageBox.Icon.Question)
        box.setWindowTitle("Unsaved changes")
        box.setText("This session has changes that are not saved. Save them first?")
        B = QtWidgets.QMessageBox.StandardButton
        box.setStandardButtons(B.Save | B.Discard | B.Cancel)
        box.setDefaultButton(B.Save)
        answer = box.exec()
        return {B.Save: "save", B.Discard: "discard"}.get(B(answer), "cancel")

    def ask_file(self, saving: bool, folder: str | None = None) -> str | None:
        folder = folder or (str(self.file_path.parent) if self.file_path else str(Path.home()))
        if saving:
            path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save session", folder, FILE_FILTER)
            if path and not path.endswith(".json"):
                path += session_format.SUFFIX
        else:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open session", folder, FILE_FILTER)
        return path or None

    def ask_restore(self) -> bool:
        answer = QtWidgets.QMessageBox.question(
            self, "Restore unsaved work?",
            "QKV Visualizer did not close normally last time. Restore the work that was not saved?",
        )
        return answer == QtWidgets.QMessageBox.StandardButton.Yes

    # The session's file (``self.document``), by the names the app, its scripts and tests use.
    @property
    def file_path(self) -> Path | None:
        return self.document.path

    def is_modified(self) -> bool:
        return self.document.is_modified()

    def maybe_keep_changes(self) -> bool:
        """True when it is fine to replace the current work (saved, discarded, or nothing to lose)."""
        return self.document.keep_changes()

    def open_file(self, path=None) -> bool:
        """Open a session file; a bad file leaves the current work untouched and says what is wrong."""
        return self.document.open(path)

    def save(self) -> bool:
        return self.document.save()

    def save_as(self, path=None) -> bool:
        return self.document.save_as(path)

    def view_state(self) -> dict:
        """What a session file keeps besides the scenario: selection, preset, lesson step."""
        return self.document.view_state()

    def recent_files(self) -> list[str]:
        return self.document.recent_files()

    def _fill_recent_menu(self) -> None:
        self.recentMenu.clear()
        items = self.recent_files()
        for p in items:
            act = self.recentMenu.addAction(Path(p).name)
            act.setToolTip(p)
            act.triggered.connect(lambda _=False, p=p: self.open_file(p))
        self.recentMenu.setEnabled(bool(items))

    def autosave(self) -> bool:
        """Keep unsaved work in the recovery file; True when something was written."""
        return self.document.autosave()

    def offer_recovery(self) -> bool:
        """Offer the work of a window that did not close normally (a crash); True when restored."""
        return self.document.offer_recovery()

    # ----- drag and drop ------------------------------------------------------------------------
    def dragEnterEvent(self, event):
        if any(u.isLocalFile() and u.toLocalFile().endswith(".json") for u in event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event):
        for url in event.mimeData().urls():
            if url.isLocalFile() and url.toLocalFile().endswith(".json"):
                event.acceptProposedAction()
                QtCore.QTimer.singleShot(0, self, lambda p=url.toLocalFile(): self.open_file(p))
                return

    def toggle_full_screen(self) -> None:
        self.setWindowState(self.windowState() ^ Qt.WindowState.WindowFullScreen)

    def _show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def _update_title(self, *_args) -> None:
        name = self.session.preset_name
        doc = self.session.model_doc
        if self.file_path is not None:
            title = self.file_path.name
        elif doc is not None:
            title = (f"{doc.model.info.name} \u00b7 layer {self.session.model_layer + 1} "
                     f"head {self.session.model_head + 1}")
        else:
            title = presets.get(name).title if name in presets.names() else "Untitled"
        self.setWindowTitle(f"{title}[*] — QKV Visualizer")
        self.setWindowModified(self.is_modified())
        idx = self.presetCombo.findData(name) if name else -1
        if idx != self.presetCombo.currentIndex():
            self.presetCombo.blockSignals(True)
            self.presetCombo.setCurrentIndex(idx)
            self.presetCombo.blockSignals(False)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        self.fileMenu = file_menu = mb.addMenu("&File")
        K = QtGui.QKeySequence.StandardKey
        for text, key, slot in [("&Open…", K.Open, lambda: self.open_file()),
                                ("&Save", K.Save, self.save),
                                ("Save &As…", K.SaveAs, lambda: self.save_as())]:
            act = file_menu.addAction(text)
            act.setShortcut(key)
            act.triggered.connect(slot)
        self.recentMenu = file_menu.addMenu("Open &Recent")
        self._fill_recent_menu()
        file_menu.addSeparator()
        self.presetMenu = preset_menu = file_menu.addMenu("Open &preset")
        preset_menu.setToolTipsVisible(True)
        self.presetCombo = QtWidgets.QComboBox(self)
        self.presetCombo.setObjectName("presetCombo")
        self._fill_presets(preset_menu, self.presetCombo)
        self.presetCombo.setCurrentIndex(max(0, self.presetCombo.findData(self.session.preset_name)))
        self.presetCombo.currentIndexChanged.connect(self._preset_chosen)
        file_menu.addSeparator()
        file_menu.addMenu(self.exporter.menu)
        file_menu.addSeparator()
        quit_act = file_menu.addAction("&Quit")
        quit_act.setShortcut(QtGui.QKeySequence("Ctrl+Q"))  # StandardKey.Quit is empty on some desktops
        quit_act.triggered.connect(self.close)

        self.editMenu = edit_menu = mb.addMenu("&Edit")
        self.undoAction = self.session.undo_stack.createUndoAction(self, "&Undo")
        self.undoAction.setShortcut(QtGui.QKeySequence.StandardKey.Undo)
        self.redoAction = self.session.undo_stack.createRedoAction(self, "&Redo")
        self.redoAction.setShortcuts([QtGui.QKeySequence("Ctrl+Shift+Z"), QtGui.QKeySequence("Ctrl+Y")])
        edit_menu.addAction(self.undoAction)
        edit_menu.addAction(self.redoAction)
        edit_menu.addSeparator()
        reset = edit_menu.addAction("&Reset to the preset")
        reset.triggered.connect(lambda: self.load_preset(self.session.preset_name or presets.DEFAULT))
        first = edit_menu.addAction("Select the &first token")
        first.triggered.connect(lambda: self.session.select(0, 0))

        self.viewMenu = view_menu = mb.addMenu("&View")
        self.panel_actions.clear()
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
        self.themeMenu = view_menu.addMenu("&Theme")
        self.themeMenu.setObjectName("themeMenu")
        self.themeMenu.setToolTipsVisible(True)
        self.paletteActions = {}
        group = QtGui.QActionGroup(self)
        tips = {"standard": "The usual colours",
                "high-contrast": "Black text, stronger colours: for a pale projector or a bright room",
                "dark": "Light text on a dark ground: for a dim room"}
        for name, p in style.PALETTES.items():
            act = self.themeMenu.addAction(p.title)
            act.setObjectName(f"palette_{name}")
            act.setCheckable(True)
            act.setToolTip(tips[name])
            act.setChecked(p is style.current())
            act.triggered.connect(lambda _=False, n=name: self.set_palette(n))
            group.addAction(act)
            self.paletteActions[name] = act
        colours.hub().changed.connect(self._palette_shown)
        view_menu.addSeparator()
        self.fullScreenAction = view_menu.addAction("&Full screen")
        self.fullScreenAction.setShortcut(QtGui.QKeySequence(Qt.Key.Key_F11))
        self.fullScreenAction.triggered.connect(self.toggle_full_screen)
        reset_layout = view_menu.addAction("&Reset layout")
        reset_layout.triggered.connect(self.reset_layout)

        mb.addMenu(self.experiments.menu)
        mb.addMenu(self.lesson.menu)
        self.helpMenu = help_menu = mb.addMenu("&Help")
        self.panelHelpAction = help_menu.addAction(panel_help.TITLE)
        self.panelHelpAction.setObjectName("panelHelpAction")
        self.panelHelpAction.setShortcut(QtGui.QKeySequence(Qt.Key.Key_F1))
        self.panelHelpAction.setToolTip("Explain the panel under the mouse (or the one you clicked last)")
        self.panelHelpAction.triggered.connect(lambda: self.show_panel_help())
        self.addAction(self.panelHelpAction)  # F1 works with the menu bar hidden (full screen, presenter)
        self.welcomeAction = help_menu.addAction("&Welcome…")
        self.welcomeAction.setObjectName("welcomeAction")
        self.welcomeAction.triggered.connect(lambda: welcome.show_welcome(self))
        keys = help_menu.addAction("&Keyboard and mouse")
        keys.triggered.connect(self._keys_help)
        words = help_menu.addAction("&Words the built-in model knows")
        words.setObjectName("knownWordsAction")
        words.triggered.connect(self.show_known_words)
        help_menu.addSeparator()
        about = help_menu.addAction("&About QKV Visualizer")
        about.triggered.connect(self._about)

        tb = self.addToolBar("Presets")
        tb.setObjectName("presetToolbar")
        tb.addWidget(QtWidgets.QLabel(" Preset: ", self))
        tb.addWidget(self.presetCombo)

    def _fill_presets(self, menu: QtWidgets.QMenu, combo: QtWidgets.QComboBox) -> None:
        """The presets in the menu and the combo: the designed examples (features and weights chosen by
        hand, with a note) in a section of their own, under a heading that cannot be chosen."""
        ordered = sorted(presets.all_presets(), key=lambda p: p.designed)  # stable: menu order within each
        headed = False
        for p in ordered:
            if p.designed and not headed:
                headed = True
                self._add_heading(menu, combo, DESIGNED_SECTION)
            act = menu.addAction(p.title + (" (random weights)" if p.random_weights else ""))
            act.setObjectName(f"preset:{p.name}")
            act.setToolTip(p.description)
            act.triggered.connect(lambda _=False, n=p.name: self.load_preset(n))
            combo.addItem(p.title, p.name)
            combo.setItemData(combo.count() - 1, p.description, Qt.ItemDataRole.ToolTipRole)
        self._add_heading(menu, combo, MODEL_SECTION)
        for example in model_examples.EXAMPLES:
            act = menu.addAction(example.title)
            act.setObjectName(f"preset:{example.name}")
            act.setToolTip(f"Opens the small model the app ships on \u201c{example.text}\u201d")
            act.triggered.connect(lambda _=False, n=example.name: self.models.open_example(n))
            combo.addItem(example.title, example.name)

    @staticmethod
    def _add_heading(menu: QtWidgets.QMenu, combo: QtWidgets.QComboBox, text: str) -> None:
        """A section of the preset menu, and a heading in the combo that cannot be chosen."""
        menu.addSection(text)
        combo.insertSeparator(combo.count())
        combo.addItem(text)
        heading = combo.model().item(combo.count() - 1)
        heading.setFlags(heading.flags() & ~(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled))
        font = heading.font()
        font.setBold(True)
        heading.setFont(font)

    def _preset_chosen(self, index: int) -> None:
        name = self.presetCombo.itemData(index)
        if name in presets.names():  # not the section's heading
            self.load_preset(name)
        elif name in model_examples.names():
            self.models.open_example(name)

    def show_all_panels(self) -> None:
        for act in self.panel_actions.values():
            act.setChecked(True)
        self.grid.focus(None)

    def reset_layout(self) -> None:
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        self.show_all_panels()
        self.grid.equalize()

    def show_known_words(self) -> QtWidgets.QDialog:
        """Help → Words the built-in model knows: every word of its vocabulary (any other becomes [UNK])."""
        words = known_words()
        dialog = QtWidgets.QDialog(self)
        dialog.setObjectName("knownWordsDialog")
        dialog.setWindowTitle("Words the built-in model knows")
        layout = QtWidgets.QVBoxLayout(dialog)
        note = QtWidgets.QLabel(f"The small model that comes with the app reads whole words. It knows these "
                                f"{len(words):,} words and marks; any other word becomes [UNK] (unknown).", dialog)
        note.setWordWrap(True)
        layout.addWidget(note)
        text = QtWidgets.QPlainTextEdit("  ".join(words), dialog)
        text.setObjectName("knownWordsText")
        text.setReadOnly(True)
        layout.addWidget(text, 1)
        close = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close, dialog)
        close.rejected.connect(dialog.reject)
        layout.addWidget(close)
        dialog.resize(min(560, self.width()), min(420, self.height()))
        dialog.show()
        return dialog

    def _about(self) -> None:
        QtWidgets.QMessageBox.about(
            self,
            "About QKV Visualizer",
            "<b>QKV Visualizer</b><p>See how attention turns each token into a query, a key and a value, "
            "scores every pair, scales, applies softmax and mixes the values. Every number can be edited; "
            "every picture follows.</p>",
        )

    def show_panel_help(self, widget: QtWidgets.QWidget | None = None) -> str | None:
        """Help → What am I looking at? (F1): explain the panel under the mouse, else the one with the
        keyboard focus, else the one shown alone or clicked last. Returns the text shown."""
        panel = panel_help.panel_at(widget) if widget is not None else None
        at = None  # where the bubble points: the mouse, when the panel is the one under it
        if panel is None:
            mouse = QtGui.QCursor.pos()
            panel = panel_help.panel_at(QtWidgets.QApplication.widgetAt(mouse))
            at = mouse if panel is not None else None
        if panel is None:
            panel = panel_help.panel_at(QtWidgets.QApplication.focusWidget())
        if panel is None:
            panel = self.exporter.panel(self.exporter.current_panel())
        return panel_help.show_help(panel, at)

    def _keys_help(self) -> None:
        QtWidgets.QMessageBox.information(self, "Keyboard and mouse", KEYS_HELP)

    # ----- the palette (View → Theme) ---------------------------------------------------------------
    def saved_palette(self) -> str:
        """The palette kept in the settings ("standard" when none, or a word that is not a palette's)."""
        name = str(self.settings.value(PALETTE_KEY, "standard") or "standard").strip()
        return name if name in style.PALETTES else "standard"

    def set_palette(self, name: str) -> None:
        """Draw the whole app in palette ``name`` ("standard", "high-contrast", "dark"), and remember it."""
        p = colours.use(name)
        self.settings.setValue(PALETTE_KEY, p.name)
        self.settings.sync()
        self.statusBar().showMessage(f"Theme: {p.title}. Figures are exported in these colours too.", 6000)

    def _palette_shown(self, palette) -> None:
        act = self.paletteActions.get(palette.name)
        if act is not None and not act.isChecked():
            act.setChecked(True)

    # ----- remembered layout ------------------------------------------------------------------
    def _restore_settings(self) -> None:
        s = self.settings
        # An INI file gives every number back as text ('2'): compare as numbers.
        if str(s.value("window/version", "")).strip() != str(SETTINGS_VERSION):
            return
        geometry = s.value("window/geometry")
        state = s.value("window/state")
        if isinstance(geometry, QtCore.QByteArray):
            self.restoreGeometry(geometry)
        if isinstance(state, QtCore.QByteArray):
            self.restoreState(state, SETTINGS_VERSION)
        self.grid.restore_state(s.value("window/splitters"))
        # Experiment docks open at the last close come back (made now, placed where the saved layout had them).
        self.experiments.reopen(s.value("window/experiments", []))

    def save_settings(self) -> None:
        s = self.settings
        s.setValue(PALETTE_KEY, style.current().name)
        s.setValue("window/experiments", self.experiments.open_names())
        s.setValue("window/version", SETTINGS_VERSION)
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState(SETTINGS_VERSION))
        s.setValue("window/splitters", self.grid.save_state())
        s.sync()

    def closeEvent(self, event):
        if not self.maybe_keep_changes():
            event.ignore()
            return
        if self.lesson.presenter:
            self.lesson.exit_presenter()  # keep the teacher's layout, not the presenter's (docks hidden)
        self.save_settings()
        self.document.close()
        super().closeEvent(event)
