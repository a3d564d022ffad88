"""Opening trained models: File → Open model…, File → Models on this computer…, and the way back.

Nothing is downloaded: the list shows the models already in the Hugging Face cache on this computer and
the folders opened before. A folder that is not a usable model (no ``model.safetensors``, an unsupported
architecture, a damaged file, …) is refused in one line, and the current work stays.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import ModelError, ScenarioError, builtin_model_path, find_models, load_model, model_examples

from .screen_room import DOCK_MIN_HEIGHT, NARROW_WINDOW, SHORT_WINDOW
from .experiments import dock_width
from ..panels.catalog import MODEL_VIEW, PREDICTION

#: How many model folders File → Models on this computer remembers.
MAX_RECENT_MODELS = 8
RECENT_KEY = "models/recent"
#: How wide the model view dock opens (pixels), at most.
MODEL_VIEW_WIDTH = 420
#: On a small screen, the share of the column's height the model view's and the prediction's tabs get.
MODEL_TABS_SHARE = 0.6
#: The sentence a model opens with when the example had none.
DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."
#: The sentence the built-in model opens with from the welcome: every word is one it knows, and after "it"
#: it names the dog's own verb.
BUILTIN_TEXT = "the dog saw anna in the park . it"


class ModelsDialog(QtWidgets.QDialog):
    """The models found on this computer; a model that cannot be opened is greyed with its reason."""

    def __init__(self, found, parent=None):
        super().__init__(parent)
        self.setObjectName("modelsDialog")
        self.setWindowTitle("Models on this computer")
        self.chosen: Path | None = None
        self.browse = False
        layout = QtWidgets.QVBoxLayout(self)
        note = QtWidgets.QLabel(
            "Trained models already on this computer (the small model the app ships, the Hugging Face cache and "
            "the folders you opened before). Nothing is downloaded.", self)
        note.setWordWrap(True)
        layout.addWidget(note)
        self.list = QtWidgets.QListWidget(self)
        self.list.setObjectName("modelsList")
        for m in found:
            text = f"{m.name} \u2014 {m.kind}" if m.problem is None else f"{m.name} \u2014 cannot open: {m.problem}"
            item = QtWidgets.QListWidgetItem(text, self.list)
            item.setData(QtCore.Qt.ItemDataRole.UserRole, str(m.path))
            item.setToolTip(str(m.path))
            if m.problem is not None:
                item.setFlags(item.flags() & ~QtCore.Qt.ItemFlag.ItemIsEnabled)
        if not found:
            QtWidgets.QListWidgetItem("No model found. Open a folder that holds config.json, model.safetensors "
                                      "and tokenizer.json (see the README).", self.list).setFlags(
                QtCore.Qt.ItemFlag.NoItemFlags)
        self.list.itemDoubleClicked.connect(lambda _item: self._open())
        layout.addWidget(self.list, 1)
        buttons = QtWidgets.QDialogButtonBox(self)
        self.openButton = buttons.addButton("Open", QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole)
        folder = buttons.addButton("Open a folder\u2026", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        self.openButton.clicked.connect(self._open)
        folder.clicked.connect(self._browse)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        first = next((self.list.item(i) for i in range(self.list.count())
                      if self.list.item(i).flags() & QtCore.Qt.ItemFlag.ItemIsEnabled), None)
        if first is not None:
            self.list.setCurrentItem(first)
        self.openButton.setEnabled(first is not None)
        self.resize(640, 360)

    def _open(self) -> None:
        item = self.list.currentItem()
        if item is None or not item.flags() & QtCore.Qt.ItemFlag.ItemIsEnabled:
            return
        self.chosen = Path(item.data(QtCore.Qt.ItemDataRole.UserRole))
        self.accept()

    def _browse(self) -> None:
        self.browse = True
        self.accept()


@dataclass(frozen=True)
class DocumentHooks:
    """What the model actions ask of the window's file handling."""

    keep_changes: Callable[[], bool]  # asks about unsaved work; False: the user cancelled
    forget_file: Callable[[], None]  # the document is no longer the session file opened last
    tell_error: Callable[[str, str], None]  # (title, one line) where the user is looking


class ModelActions(QtCore.QObject):
    """The model menu items (in ``menus``' "file", "edit" and "view" menus, after its "preset" menu) and the
    model view's dock; ``open_folder(path)`` opens a model (or says why it cannot). ``beside``: the dock the
    model view shares a tab with on a small screen. The prediction panel's dock opens with the model view, below
    it (a tab beside it on a small screen); ``adopt(object_name, panel)`` is told of the panels made (the export
    actions give them their context menu)."""

    def __init__(self, session, host, settings, menus: dict, beside: QtWidgets.QDockWidget, hooks: DocumentHooks,
                 adopt=None):
        super().__init__(host)
        self.session = session
        self.host = host
        self.settings = settings
        self.beside = beside
        self.hooks = hooks
        self.adopt = adopt
        window = host.main
        menu = menus["file"]
        actions = menu.actions()
        at = actions.index(menus["preset"].menuAction()) + 1  # after Open preset
        first = actions[at] if at < len(actions) else None
        self.openAction = QtGui.QAction("Open &model\u2026", window)
        self.openAction.setObjectName("openModelAction")
        self.openAction.setToolTip("Open a trained model from a folder (config.json, model.safetensors, tokenizer)")
        self.openAction.triggered.connect(lambda: self.open_folder())
        self.listAction = QtGui.QAction("Models on this &computer\u2026", window)
        self.listAction.setObjectName("modelsOnComputerAction")
        self.listAction.triggered.connect(self.choose)
        self.backAction = QtGui.QAction("&Back to the hand-made example", window)
        self.backAction.setObjectName("backToHandMadeAction")
        self.backAction.triggered.connect(self.back)
        self.resetAction = QtGui.QAction("Reset to the &checkpoint", window)
        self.resetAction.setObjectName("resetCheckpointAction")
        self.resetAction.triggered.connect(session.reset_to_checkpoint)
        for act in (self.openAction, self.listAction, self.backAction):
            menu.insertAction(first, act)
        menu.insertSeparator(first)
        menus["edit"].addAction(self.resetAction)
        # The model view: every layer's and head's weights; a click steps into a head. Made on first use.
        self.dock: QtWidgets.QDockWidget | None = None
        self.viewAction = QtGui.QAction("&Model view", window)
        self.viewAction.setObjectName("modelViewAction")
        self.viewAction.setToolTip("Every layer and head of the open model at once")
        self.viewAction.triggered.connect(self.show_view)
        menus["view"].addAction(self.viewAction)
        # The prediction: the model's ten best guesses, a pinned word, which heads matter. Made on first use.
        self.predictionDock: QtWidgets.QDockWidget | None = None
        self.prediction = None
        self.predictionAction = QtGui.QAction(PREDICTION.menu_text, window)
        self.predictionAction.setObjectName("predictionAction")
        self.predictionAction.setToolTip("The open model's ten best guesses for the next word, and what changes them")
        self.predictionAction.triggered.connect(self.show_prediction)
        menus["view"].addAction(self.predictionAction)
        session.modelChanged.connect(self._follow)
        self._follow()

    def _follow(self, *_):
        doc = self.session.model_doc
        self.backAction.setEnabled(doc is not None)
        self.viewAction.setEnabled(doc is not None)
        self.predictionAction.setEnabled(doc is not None)
        self.resetAction.setEnabled(doc is not None and not doc.edits.is_empty())
        for dock in (self.dock, self.predictionDock):
            if doc is None and dock is not None:
                dock.hide()

    def _new_dock(self, entry) -> QtWidgets.QDockWidget:
        dock = QtWidgets.QDockWidget(entry.title, self.host.main)
        dock.setObjectName(entry.dock)
        dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable)
        panel = entry.cls(self.session)
        dock.setWidget(panel)
        return dock

    def show_prediction(self) -> QtWidgets.QDockWidget:
        """Show the prediction dock (made the first time): below the model view, or a tab beside it on a small
        screen (a projector) or when the model view is not docked."""
        window = self.host.main
        if self.predictionDock is None:
            dock = self._new_dock(PREDICTION)
            self.prediction = dock.widget()
            self.predictionDock = dock
            view = self.dock
            docked = view is not None and not view.isHidden() and not view.isFloating()
            if docked and (window.width() < NARROW_WINDOW or window.height() < SHORT_WINDOW):
                window.tabifyDockWidget(view, dock)
            elif docked:
                window.splitDockWidget(view, dock, QtCore.Qt.Orientation.Vertical)
                # the ten bars and the pinned word in sight; the model view keeps the rest
                want = self.prediction.sizeHint().height()
                room = view.height() + dock.height()
                if room > want + DOCK_MIN_HEIGHT:
                    window.resizeDocks([view, dock], [room - want, want], QtCore.Qt.Orientation.Vertical)
            else:
                window.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, dock)
                self.host.tab_on_a_short_screen(dock)
            if self.adopt is not None:
                self.adopt(PREDICTION.object_name, self.prediction)
        self.predictionDock.show()
        self.predictionDock.raise_()
        return self.predictionDock

    def show_view(self) -> QtWidgets.QDockWidget:
        """Show the model view dock (made the first time), on the right, beside the panels."""
        window = self.host.main
        if self.dock is None:
            dock = self._new_dock(MODEL_VIEW)
            self.panel = dock.widget()
            self.dock = dock

            weights = self.beside
            if window.width() < NARROW_WINDOW and not weights.isHidden() and not weights.isFloating():
                # a small screen (a projector): a tab beside the weight grids, so the panels keep the room
                window.tabifyDockWidget(weights, dock)
            else:
                window.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, dock)
                self.host.tab_on_a_short_screen(dock)
                self.host.make_room()
                dock.show()
                # narrower than an experiment: its tiles read at ~30 px, and the nine panels keep the room
                width = max(dock.minimumSizeHint().width(), min(MODEL_VIEW_WIDTH, dock_width(window),
                                                                self.host.room_on_the_right()))
                window.resizeDocks([dock], [width], QtCore.Qt.Orientation.Horizontal)
        self.dock.show()
        self.dock.raise_()
        return self.dock

    # ----- remembered folders -----------------------------------------------------------------
    def recent_folders(self) -> list[str]:
        value = self.settings.value(RECENT_KEY, [])
        if isinstance(value, str):
            value = [value]
        return [v for v in (value or []) if isinstance(v, str)]

    def _remember(self, path: Path) -> None:
        path = str(Path(path).resolve())
        items = [path] + [p for p in self.recent_folders() if p != path]
        self.settings.setValue(RECENT_KEY, items[:MAX_RECENT_MODELS])

    # ----- actions ----------------------------------------------------------------------------
    def choose(self) -> bool:
        """File → Models on this computer: pick one of the models found, or browse for a folder."""
        dialog = ModelsDialog(find_models(extra=[Path(p) for p in self.recent_folders()]), self.host.main)
        if dialog.exec() != QtWidgets.QDialog.DialogCode.Accepted:
            return False
        if dialog.browse:
            return self.open_folder()
        return self.open_folder(dialog.chosen)

    def open_a_model(self) -> bool:
        """The welcome's "Open a trained model": the model the app ships, at once, when it is the only one on
        this computer; else the list of models, the built-in one first."""
        others = [m for m in find_models(extra=[Path(p) for p in self.recent_folders()]) if not m.builtin]
        if not others:
            return self.open_folder(builtin_model_path(), text=BUILTIN_TEXT)
        return self.choose()

    def open_example(self, name: str) -> bool:
        """A model example (``qkv_engine.model_examples``): the built-in model on its sentence, its head and its
        pair chosen, its note beside the sentence."""
        example = model_examples.get(name)
        if not self.hooks.keep_changes():
            return False
        try:
            model = load_model(builtin_model_path())
            view = example.view(model.tokenize(example.text)[0])
        except (ModelError, ScenarioError) as exc:
            self.hooks.tell_error("Could not open the example", str(exc))
            return False
        self.show_model(model, text=example.text, view=view, example=name)
        self.hooks.forget_file()
        return True

    def open_folder(self, path=None, text: str | None = None, view: dict | None = None) -> bool:
        """Open the model in folder ``path`` (asked for when None). A folder that is not a usable model is
        refused with the reason, and the current work stays."""
        window = self.host.main
        if path is None:
            start = self.recent_folders()[0] if self.recent_folders() else str(Path.home())
            path = QtWidgets.QFileDialog.getExistingDirectory(window, "Open a trained model (its folder)", start)
            if not path:
                return False
        if not self.hooks.keep_changes():
            return False
        QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)
        try:
            model = load_model(Path(path))
        except ModelError as exc:
            self.hooks.tell_error("Could not open the model", str(exc))
            return False
        finally:
            QtWidgets.QApplication.restoreOverrideCursor()
        self.show_model(model, text=text, view=view)
        self.hooks.forget_file()
        trace = self.session.model_trace
        if trace is None or not (trace.unknown or trace.dropped):  # else the status line keeps its note on them
            window.statusBar().showMessage(f"Opened {model.info.name}: type a sentence; every layer and head runs "
                                           "as you type.", 8000)
        return True

    def show_model(self, model, text: str | None = None, view: dict | None = None, edits=None,
                   example: str | None = None) -> None:
        """Make an opened model the document and show the model view beside the panels (``example``: the name of
        the model example it opens, whose note shows beside the sentence)."""
        if text is None and self.session.model_doc is None:
            text = self.session.scenario.text or DEFAULT_TEXT
        self.session.open_model(model, text=text, view=view, edits=edits, example=example)
        self._remember(model.info.path)
        self.show_view()
        self.show_prediction()
        self.dock.raise_()  # on a small screen the two share tabs: the model view is in front
        if self.predictionDock in self.host.main.tabifiedDockWidgets(self.dock):
            QtCore.QTimer.singleShot(0, self, self._give_the_tabs_room)  # once the tabs are laid out

    def _give_the_tabs_room(self) -> None:
        """On a small screen the model view and the prediction share a tab group (beside the weight grids): it gets
        most of the column's height, so that the tiles and the ten bars are in sight without scrolling."""
        window = self.host.main
        try:
            if self.dock.isFloating() or self.dock.isHidden():
                return
        except RuntimeError:  # the window is gone
            return
        central = window.centralWidget()
        room = central.height() if central is not None else window.height()
        window.resizeDocks([self.dock], [max(DOCK_MIN_HEIGHT, int(room * MODEL_TABS_SHARE))],
                           QtCore.Qt.Orientation.Vertical)

    def back(self) -> bool:
        if self.session.model_doc is None or not self.hooks.keep_changes():
            return False
        self.session.close_model()
        self.hooks.forget_file()
        return True
