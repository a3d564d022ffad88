"""GUI fixtures: a main window shown offscreen with throw-away settings; one panel or editor on its
own Session; the nine panels on one Session in the panel grid; the window's features on a plain main window;
a Session alone; the tiny models ``bert`` and ``gpt2``. Helpers the tests share (checks, reference numbers,
stand-ins): ``tests/gui/support/``.

    def test_something(window, qtbot):
        window.session.set_text("a b c")
        settle(qtbot)                      # let the coalesced recompute and repaint happen
        panel = window.panels["heatmapPanel"]

    def test_one_panel(make_panel):        # a panel (or an editor) without a window: much faster
        panel = make_panel(HeatmapPanel, preset="pronoun")

    def test_a_feature(make_parts):        # the window's features on a plain QMainWindow (no MainWindow)
        parts = make_parts(models=True)     # and parts.exporter, parts.experiments, parts.models, parts.lesson

    def test_panels_together(make_grid):   # the nine panels on one Session in the window's panel grid
        grid = make_grid()
        grid.focus("heatmapPanel")         # and grid.panels["heatmapPanel"], grid.session
"""
import gc
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

#: A panel's size in the panel grid of the ``window`` fixture (1600 x 1000, rows of three) ...
IN_GRID = (390, 275)
#: ... and shown alone there (its frame's focus button): for ``make_panel(..., size=ALONE)``.
ALONE = (1188, 898)
#: The room the panel grid has there (``make_grid``) ...
GRID_AREA = (1196, 906)
#: ... and the size of the scroll area that holds it, in a window of 1600 x 1000, 1008 x 720 (a 1024 x 768
#: projector) and 1920 x 1400 (measured: what ``window.gridScroll`` has at these sizes).
IN_WINDOW_AREA, ON_PROJECTOR_AREA, BIG_AREA = (1194, 929), (602, 649), (1514, 1329)


def settle(qtbot=None, rounds: int = 3) -> None:
    """Run the event loop a few turns so queued recomputes and repaints finish, and on while panels wait for
    their turn to take new numbers (``update_queue``)."""
    from qkv_gui.panels.update_queue import waiting_anywhere

    app = QtWidgets.QApplication.instance()
    for _ in range(rounds):
        app.processEvents()
    for _ in range(1000):
        if not waiting_anywhere():
            break
        app.processEvents()
    app.processEvents()  # what the last panels posted


def in_lesson(lesson):
    """``lesson`` (a LessonController) entered, its first step shown and settled."""
    lesson.enter()
    settle()
    return lesson


def shown(qtbot, widget, size):
    """``widget`` closed at the end of the test, shown offscreen at ``size`` and settled."""
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    settle()
    return widget


@pytest.fixture(scope="session", autouse=True)
def _application(qapp):
    """Every GUI test has the QApplication, whichever test a worker of ``pytest -n`` happens to run first (a
    widget made before it exists ends the process)."""
    return qapp


@pytest.fixture(scope="session", autouse=True)
def _long_lived_objects_frozen():
    """What the test modules imported stays for the whole run: kept out of the collections below, which then
    look only at what the tests made (the panel tests took 41 s with a whole collection after each, 31 s
    with this, as without any)."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture(autouse=True)
def _collect_garbage_after_each_test(_long_lived_objects_frozen):
    """Qt objects a test leaves behind are deleted here, between tests. Left to a garbage collection that
    happened to run inside Qt, a widget of an earlier test was deleted inside ``QObject.disconnect``: its
    destructor waited for the lock the disconnect held, and the suite hung."""
    yield
    gc.collect()


@pytest.fixture(autouse=True)
def _spare_lines_given_back_at_once(monkeypatch):
    """A label's box gives back the lines its words no longer need on the next turn of the event loop, not
    after the pause it waits on screen (``steady_label.SHRINK_AFTER_MS``): a test that edits and settles then
    sees the layout a fresh panel has. The pause itself is tested in ``drawing/test_changed_text.py``."""
    from qkv_gui.labels import steady_box as steady_label

    monkeypatch.setattr(steady_label, "SHRINK_AFTER_MS", 0)


@pytest.fixture
def settings(tmp_path):
    return QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)


@pytest.fixture
def make_window(qtbot, settings, tmp_path):
    """Build a MainWindow for a preset (default: the app's default), shown at 1600 x 1000.

    Dialogs are answered without blocking: unsaved changes are discarded, recovery is declined, and
    error messages are collected in ``window.errors``.
    """
    from qkv_gui.window.main_window import MainWindow

    def make(preset=None):
        kwargs = {"settings": settings, "recovery": tmp_path / "recovery"}  # the test's own recovery folder
        w = MainWindow(**kwargs) if preset is None else MainWindow(preset=preset, **kwargs)
        w.errors = []
        w.ask_unsaved = lambda: "discard"
        w.ask_restore = lambda: False
        w.notify_error = lambda title, text: w.errors.append(text)
        return shown(qtbot, w, (1600, 1000))

    return make


@pytest.fixture
def window(make_window):
    return make_window()


@pytest.fixture
def make_parts(qtbot, settings, tmp_path):
    """The window's features on a plain QMainWindow, without ``MainWindow`` (``support/window_parts.py``):
    ``parts = make_parts(editors=True, models=True, lesson=True)``, shown at ``size`` and settled. For a
    feature's tests (export actions, experiments, model actions, the lesson's links, the welcome).
    ``document=True``: the session's file too (``parts.document``), with the test's own recovery folder."""
    from tests.gui.support.window_parts import build

    def make(preset=None, size=(1600, 1000), document=False, **which):
        folder = tmp_path / "recovery" if document else None  # as the ``window`` fixture's
        return shown(qtbot, build(settings, preset, document=folder, **which), size)

    return make


@pytest.fixture
def make_session(qapp):
    """A Session on a preset (default: the app's default), with no widget at all: ``make_session("pronoun")``.
    For tests about the edits and results themselves; ``session.messages`` collects what it says."""
    from qkv_engine import presets
    from qkv_gui.state.session import Session

    made = []

    def make(preset=None):
        name = preset or presets.DEFAULT
        session = Session(presets.load(name))
        session.preset_name = name
        session.messages = []
        session.message.connect(session.messages.append)
        made.append(session)
        return session

    yield make
    for session in made:
        session.deleteLater()


@pytest.fixture
def make_panel(qtbot, make_session):
    """Build one panel on its own Session (no window): ``make_panel(HeatmapPanel, preset="pronoun")``.

    Any widget made from a Session alone works the same way (the editors: ``make_panel(WeightGridsWidget)``).
    The panel is shown offscreen at ``size`` and settled; ``panel.session`` is its Session. Tests about
    one panel use this instead of a whole window (a window is ~440 widgets and 0.4-0.7 s to build).
    """
    from qkv_gui.look import style

    kept = []  # the test may drop its own reference; the panel stays until the test ends

    def make(cls, preset=None, size=(640, 420), session=None):
        style.configure_pyqtgraph()
        if session is None:
            session = make_session(preset)
        panel = cls(session)
        panel.session = session
        kept.append(panel)
        return shown(qtbot, panel, size)

    return make


@pytest.fixture
def make_grid(qtbot, make_session):
    """The nine step panels on one Session in the window's panel grid (``PanelGrid``: rows of three, each
    panel in its frame with a title bar, focus and visibility), shown at about the room the grid has in the
    ``window`` fixture, without the window: ``grid = make_grid(preset="pronoun")``. ``grid.panels`` maps
    object names to panels, ``grid.session`` is their Session. For tests of panels following one Session
    together (selection everywhere, the update queue); a whole window is ~440 widgets and menus and docks.
    ``area=(w, h)``: the grid in a scroll area of that size (``grid.scroll``) that it packs its rows to, as in
    the window (whose scroll area is ``IN_WINDOW_AREA`` at 1600 x 1000)."""
    from qkv_gui.look import style
    from qkv_gui.panels.catalog import PANEL_CLASSES
    from qkv_gui.window.panel_grid import PanelGrid
    from tests.gui.support.window_parts import in_scroll_area

    kept = []  # the test may drop its own reference; the grid stays until the test ends

    def make(preset=None, session=None, size=GRID_AREA, area=None):
        style.configure_pyqtgraph()
        if session is None:
            session = make_session(preset)
        panels = [cls(session) for cls in PANEL_CLASSES]
        grid = PanelGrid(panels)
        grid.session = session
        grid.panels = {panel.object_name: panel for panel in panels}
        outer = grid
        if area is not None:  # in a scroll area of that size, as the window holds it: rows packed to its width
            scroll = in_scroll_area(grid)
            grid.scroll = outer = scroll
            size = area
        kept.append(outer)
        shown(qtbot, outer, size)
        return grid

    return make


#: The tiny reference checkpoints (their outputs were computed by the transformers library).
TEST_DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def bert():
    """tiny-bert from tests/data, loaded once a module (a model is read-only: sessions keep their edits apart)."""
    from qkv_engine.models import load_model

    return load_model(TEST_DATA / "tiny-bert")


@pytest.fixture(scope="module")
def gpt2():
    """tiny-gpt2 from tests/data, loaded once a module."""
    from qkv_engine.models import load_model

    return load_model(TEST_DATA / "tiny-gpt2")


@pytest.fixture
def plot(qtbot):
    """A bare plot for plot items (``support.plots.blank_plot``): x in 0..10, y in -5..5, no axes, on white."""
    from tests.gui.support.plots import blank_plot

    return blank_plot(qtbot)
