"""The window's parts on a plain QMainWindow, without ``MainWindow``: each feature is given what it uses (a
session, the dock host, the panel grid, menus), so a test builds only the parts its feature needs.

    parts = make_parts()                                # the panel grid in its scroll area, the dock host,
    parts.exporter, parts.experiments                   # the export actions and the experiments
    parts = make_parts(editors=True, models=True, lesson=True)
    parts.options, parts.docks["dockWeights"]           # the editing docks on the left
    parts.models, parts.lesson                          # the trained-model actions, the lesson
    parts = make_parts(models=True, document=True)
    parts.document.save_as(path); parts.document.open(path)  # the session's file, as File → Save As and Open

``parts.errors`` collects what the features would show in an error dialog. The welcome
(``window/welcome.py``) opens on it as on the window: it has the ``settings``, ``docks``, ``options``,
``models``, ``enter_lesson_mode`` and ``welcome_dialog`` the welcome uses.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from qkv_engine import presets
from qkv_gui.look import style
from qkv_gui.panels import catalog
from qkv_gui.state.session import Session

Qt = QtCore.Qt


def in_scroll_area(grid) -> QtWidgets.QScrollArea:
    """The panel grid in a scroll area as the window holds it: it fills the area, and packs its rows to the
    area's width (as many panels a row as fit at their readable widths)."""
    scroll = QtWidgets.QScrollArea()
    scroll.setObjectName("panelScroll")
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
    scroll.setWidget(grid)
    grid.watch(scroll)
    return scroll


class Parts(QtWidgets.QMainWindow):
    """A plain main window holding the parts a test asked for (``build``)."""

    def __init__(self, settings: QtCore.QSettings, preset: str | None = None):
        super().__init__()
        self.settings = settings
        self.errors: list[str] = []
        name = preset or presets.DEFAULT
        self.session = Session(presets.load(name), parent=self)
        self.session.preset_name = name
        self.session.select_promised_pair(name)
        self.session.messages = []  # what the window's status line would show
        self.session.message.connect(self.session.messages.append)
        self.docks: dict[str, QtWidgets.QDockWidget] = {}
        self.models = None
        self.lesson = None
        self.document = None
        self.welcome = None

    # ----- what the welcome asks of its window ----------------------------------------------------
    def welcome_dialog(self, make):
        if self.welcome is None:
            self.welcome = make(self)
        return self.welcome

    def enter_lesson_mode(self) -> None:
        self.lesson.enter()

    def tell_error(self, _title: str, text: str) -> None:
        self.errors.append(text)

    def closeEvent(self, event):  # noqa: N802 (Qt naming)
        if self.document is not None:
            self.document.close()  # as the window does: no recovery file or lock is left
        super().closeEvent(event)


def build(settings, preset=None, editors=False, models=False, lesson=False, document=None) -> Parts:
    """A ``Parts`` window with the panel grid (in its scroll area), the dock host, the export actions and the
    experiments; ``editors``: the three editing docks on the left; ``models``: the trained-model actions (on
    File, Edit and View menus); ``lesson``: the lesson (its links open the model examples when ``models``);
    ``document``: a recovery folder, and the session's file (``SessionFile``) wired as the window wires it (a
    model session opens through the model actions; unsaved changes are discarded, errors go to ``errors``)."""
    from qkv_gui.editors import SentenceOptionsWidget, TokenTableWidget, WeightGridsWidget
    from qkv_gui.window.dock_host import DockHost
    from qkv_gui.window.experiments import Experiments
    from qkv_gui.window.export_actions import ExportController
    from qkv_gui.window.lesson import LessonController
    from qkv_gui.window.model_actions import DocumentHooks, ModelActions
    from qkv_gui.window.panel_grid import PanelGrid
    from qkv_gui.window.screen_room import CENTRAL_MIN_WIDTH

    style.configure_pyqtgraph()
    main = Parts(settings, preset)
    session = main.session
    main.setDockNestingEnabled(True)
    main.host = DockHost(main)
    if editors:
        main.options = SentenceOptionsWidget(session)
        main.tokens = TokenTableWidget(session)
        main.grids = WeightGridsWidget(session)
        for name, title, widget in [("dockSentence", "Sentence and options", main.options),
                                    ("dockTokens", "Tokens (rows of numbers)", main.tokens),
                                    ("dockWeights", "Weight grids", main.grids)]:
            dock = QtWidgets.QDockWidget(title, main)
            dock.setObjectName(name)
            if widget is main.grids:  # in a scroll area, as in the window
                scroll = QtWidgets.QScrollArea(dock)
                scroll.setWidgetResizable(True)
                scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
                scroll.setWidget(widget)
                widget = scroll
            dock.setWidget(widget)
            main.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
            main.docks[name] = dock
        main.resizeDocks([main.docks["dockSentence"]], [400], Qt.Orientation.Horizontal)
        main.resizeDocks(list(main.docks.values()), [190, 330, 480], Qt.Orientation.Vertical)
    main.panels = {cls.object_name: cls(session) for cls in catalog.PANEL_CLASSES}
    main.grid = PanelGrid(list(main.panels.values()), main)
    main.gridScroll = in_scroll_area(main.grid)
    main.gridScroll.setMinimumWidth(CENTRAL_MIN_WIDTH)  # docks never squeeze the panels out of sight
    main.setCentralWidget(main.gridScroll)
    main.exporter = ExportController(session, main, settings, main.grid, tell_error=main.tell_error)
    main.experiments = Experiments(session, main.host, adopt=main.exporter.adopt_experiment)
    bar = main.menuBar()
    main.menus = {"file": bar.addMenu("File"), "edit": bar.addMenu("Edit"), "view": bar.addMenu("View")}
    main.menus["preset"] = main.menus["file"].addMenu("Open preset")
    bar.addMenu(main.experiments.menu)
    if document is not None:
        from qkv_gui.state.session_file import Questions, SessionFile
        from qkv_gui.system.recovery import Recovery

        main.document = SessionFile(
            session, Recovery(document), settings,
            Questions(ask_unsaved=lambda: "discard", ask_file=lambda _saving, _folder: None,
                      ask_restore=lambda: False, tell_error=main.tell_error,
                      show_model=(lambda model, **kw: main.models.show_model(model, **kw)) if models else None),
            parent=main)
    if models:
        beside = main.docks.get("dockWeights") or QtWidgets.QDockWidget("Weight grids", main)
        doc = main.document
        hooks = DocumentHooks(keep_changes=doc.keep_changes if doc else lambda: True,
                              forget_file=doc.forget if doc else lambda: None, tell_error=main.tell_error)
        main.models = ModelActions(session, main.host, settings, main.menus, beside=beside, hooks=hooks,
                                   adopt=main.exporter.adopt_experiment)
    if lesson:
        actions = {}
        for name in main.grid.frames:
            act = main.menus["view"].addAction(main.panels[name].title)
            act.setCheckable(True)
            act.setChecked(True)
            act.toggled.connect(lambda on, n=name: main.grid.set_panel_visible(n, on))
            actions[name] = act
        open_example = (lambda n: main.models.open_example(n)) if models else None
        main.lesson = LessonController(session, main.host, main.grid, main.gridScroll, actions, main.experiments,
                                       open_example=open_example)
        bar.addMenu(main.lesson.menu)
    main.statusBar().setObjectName("statusBar")  # made now: made at the first message, it would move the grid
    return main
