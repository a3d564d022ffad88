"""The main window as a teacher uses it: type, edit cells, toggle options, and see the session follow. The
editors and panels are tested on a Session (``make_panel``, ``make_grid``) or on the window's parts
(``make_parts``); the window itself for its menus, shortcuts, title, screen sizes and restarts."""

import re

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from qkv_engine import compute, presets
from qkv_gui.editors import InputsWidget, SentenceOptionsWidget, TokenTableWidget, WeightGridsWidget
from qkv_gui.state.session import Selection

from tests.gui.conftest import IN_WINDOW_AREA, ON_PROJECTOR_AREA, settle
from tests.gui.support.user_input import type_into_cell
from tests.gui.support.reference import numpy_weights

Qt = QtCore.Qt


def test_opens_default_preset_with_every_panel(make_grid, make_panel):
    grid = make_grid()  # the nine panels of the catalog in the window's panel grid, on the default example
    session = grid.session
    assert session.preset_name == presets.DEFAULT
    expected = compute(presets.load(presets.DEFAULT))
    np.testing.assert_allclose(session.result.weights, expected.weights)
    names = {"embeddingPanel", "mixingPanel", "qkPlanePanel", "scalingPanel", "softmaxPanel", "valuesPanel",
             "heatmapPanel", "matricesPanel", "summaryPanel"}
    assert set(grid.panels) == names
    for name in names:
        assert grid.findChild(QtWidgets.QWidget, name) is grid.panels[name]
        assert grid.panels[name].isVisible() and grid.panels[name].paint_count
    editors = make_panel(InputsWidget, session=session, size=(400, 900))
    for name in ("sentenceEdit", "tokenTable", "weightsQ", "weightsK", "weightsV", "dModelSpin", "dKSpin",
                 "dVSpin", "seedSpin", "scaleCheck", "causalCheck", "temperatureSpin", "softmaxOverCombo"):
        assert editors.findChild(QtWidgets.QWidget, name) is not None, name


def test_load_preset_switches_everything(make_parts):
    # The editing docks and the panel grid on a plain main window; the preset menu, the combo and the title
    # that follow it: window/test_designed_examples_app.py.
    window = make_parts(editors=True)
    window.session.load_preset("seed-cat")  # what File → Open preset → One token does to the Session
    settle()
    assert window.session.scenario.tokens == ("cat",)
    assert window.findChild(QtWidgets.QLineEdit, "sentenceEdit").text() == "cat"
    assert window.findChild(QtWidgets.QTableView, "tokenTable").model().rowCount() == 1
    assert window.panels["heatmapPanel"].image.image.shape == (1, 1)


def test_typing_a_sentence_retokenises_and_keeps_embeddings_of_tokens_that_stay(make_panel, qtbot):
    editors = make_panel(InputsWidget, size=(400, 900))
    session = editors.session
    before = dict(zip(session.scenario.tokens, session.scenario.x))
    edit = editors.findChild(QtWidgets.QLineEdit, "sentenceEdit")
    edit.end(False)
    qtbot.keyClicks(edit, " on the mat.")
    settle()
    s = session.scenario
    assert s.tokens == ("The", "cat", "sat", "on", "the", "mat", ".")
    for tok in ("The", "cat", "sat"):
        np.testing.assert_array_equal(s.x[s.tokens.index(tok)], before[tok])
    table = editors.findChild(QtWidgets.QTableView, "tokenTable")
    assert table.model().rowCount() == 7
    assert table.model().index(5, 0).data() == "mat"
    assert session.result.weights.shape == (7, 7)
    np.testing.assert_allclose(session.result.weights, numpy_weights(s), atol=1e-12)


def test_editing_an_embedding_cell_recomputes(make_panel, qtbot):
    tokens = make_panel(TokenTableWidget, size=(400, 300))
    table = tokens.findChild(QtWidgets.QTableView, "tokenTable")
    type_into_cell(qtbot, table, 1, 2, "-0.75")  # token 'cat', dial x2
    s = tokens.session.scenario
    assert s.x[1, 1] == -0.75
    assert table.model().index(1, 2).data() == "-0.75"
    np.testing.assert_allclose(tokens.session.result.weights, numpy_weights(s), atol=1e-12)
    np.testing.assert_allclose(tokens.session.result.q, s.x @ s.w_q, atol=1e-12)


@pytest.mark.parametrize("typed, value", [("-0.5", -0.5), ("\u22120.5", -0.5), (".5", 0.5), ("1e-3", 0.001),
                                          (" 2 ", 2.0), ("0,25", 0.25)])
def test_weight_cell_accepts_the_usual_ways_of_typing_numbers(make_panel, qtbot, typed, value):
    grids = make_panel(WeightGridsWidget, size=(400, 700))
    session = grids.session
    grid = grids.findChild(QtWidgets.QTableView, "weightsK")
    type_into_cell(qtbot, grid, 2, 1, typed)
    assert session.scenario.w_k[2, 1] == value
    np.testing.assert_allclose(session.result.k, session.scenario.x @ session.scenario.w_k)


@pytest.mark.parametrize("typed", ["abc", "", "nan", "inf", "1e400", "5e6"])
def test_bad_text_in_a_number_cell_keeps_the_old_value_and_says_why(make_panel, qtbot, typed):
    grids = make_panel(WeightGridsWidget, size=(400, 700))
    session = grids.session
    grid = grids.findChild(QtWidgets.QTableView, "weightsQ")
    old = session.scenario.w_q.copy()
    old_result = session.result
    type_into_cell(qtbot, grid, 0, 0, typed)
    np.testing.assert_array_equal(session.scenario.w_q, old)
    np.testing.assert_array_equal(session.result.weights, old_result.weights)
    assert "Kept the old value" in session.messages[-1]  # the window puts it on its status line
    note = grid.findChild(QtWidgets.QLabel, "cellNote")
    assert note.isVisible() and note.text() == session.messages[-1]
    tip = grid.model().index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "refused" in tip


def test_a_refused_cell_says_why_at_the_cell_and_nothing_moves(make_parts, qtbot):
    # The note came under the sentence box, far from the cell, and pushed the dock's widgets down. The editing
    # docks as the window places them, on a plain main window.
    window = make_parts(editors=True)
    options = window.docks["dockSentence"].widget()
    places = {w.objectName(): w.geometry() for w in options.findChildren(QtWidgets.QWidget) if w.objectName()}
    grid = window.findChild(QtWidgets.QTableView, "weightsQ")
    type_into_cell(qtbot, grid, 1, 1, "abc")
    assert not window.findChild(QtWidgets.QLabel, "messageLabel").isVisible()
    assert {w.objectName(): w.geometry() for w in options.findChildren(QtWidgets.QWidget) if w.objectName()} \
        == places
    assert "Kept the old value" in window.session.messages[-1]  # the window puts it on its status line
    note = grid.findChild(QtWidgets.QLabel, "cellNote")
    assert note.isVisible() and "Kept the old value" in note.text()
    cell = grid.visualRect(grid.model().index(1, 1))
    corner = grid.viewport().mapTo(grid, cell.bottomLeft())
    assert 0 <= note.y() - corner.y() < 4  # just under the cell ...
    assert note.x() <= corner.x() + cell.width() and note.geometry().right() >= corner.x()  # ... beside it
    assert grid.rect().contains(note.geometry())  # whole, inside the grid
    type_into_cell(qtbot, grid, 1, 1, "0.5")  # a good entry: the note goes
    assert not note.isVisible()
    # A message about the sentence itself still shows under the sentence box.
    edit = window.findChild(QtWidgets.QLineEdit, "sentenceEdit")
    text = " ".join(f"w{i}" for i in range(600))
    edit.setText(text)
    edit.textEdited.emit(text)
    settle()
    label = window.findChild(QtWidgets.QLabel, "messageLabel")
    assert label.isVisible() and "Kept the first 512 tokens" in label.text()


def test_negative_cells_look_different(make_panel):
    grids = make_panel(WeightGridsWidget, size=(400, 700))
    model = grids.findChild(QtWidgets.QTableView, "weightsK").model()
    s = grids.session.scenario
    r, c = map(int, np.argwhere(s.w_k < 0)[0])
    rp, cp = map(int, np.argwhere(s.w_k >= 0)[0])
    assert model.index(r, c).data(Qt.ItemDataRole.BackgroundRole) is not None
    assert model.index(rp, cp).data(Qt.ItemDataRole.BackgroundRole) is None
    assert model.index(r, c).data().startswith("-")


def test_weight_grid_headers_name_input_dial_and_output_column(make_panel):
    model = make_panel(WeightGridsWidget, size=(400, 700)).findChild(QtWidgets.QTableView, "weightsV").model()
    assert model.headerData(0, Qt.Orientation.Vertical) == "x1 \u2192"
    assert model.headerData(2, Qt.Orientation.Horizontal) == "\u2192 v3"
    assert "value" in model.headerData(2, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)


def test_changing_a_dimension_resizes_grids_and_keeps_values(make_panel):
    editors = make_panel(InputsWidget, size=(400, 900))
    session = editors.session
    old = session.scenario
    spin = editors.findChild(QtWidgets.QSpinBox, "dModelSpin")
    spin.setValue(6)
    settle()
    s = session.scenario
    assert s.x.shape == (3, 6) and s.w_q.shape == (6, 2) and s.w_v.shape == (6, 3)
    np.testing.assert_array_equal(s.x[:, :4], old.x)
    np.testing.assert_array_equal(s.w_q[:4], old.w_q)
    assert editors.findChild(QtWidgets.QTableView, "tokenTable").model().columnCount() == 7
    assert editors.findChild(QtWidgets.QTableView, "weightsQ").model().rowCount() == 6
    editors.findChild(QtWidgets.QSpinBox, "dKSpin").setValue(1)
    settle()
    assert session.result.q.shape == (3, 1)
    np.testing.assert_array_equal(session.scenario.w_k[:, 0], s.w_k[:, 0])


def test_options_change_the_weights_as_the_maths_says(make_panel):
    options = make_panel(SentenceOptionsWidget, size=(400, 400))
    s0 = options.session.scenario
    options.findChild(QtWidgets.QCheckBox, "scaleCheck").setChecked(False)
    settle()
    assert not options.session.scenario.scale
    np.testing.assert_allclose(options.session.result.weights, numpy_weights(options.session.scenario), atol=1e-12)
    options.findChild(QtWidgets.QCheckBox, "causalCheck").setChecked(True)
    settle()
    w = options.session.result.weights
    assert np.all(np.triu(w, 1) == 0)
    np.testing.assert_allclose(w, numpy_weights(options.session.scenario), atol=1e-12)
    options.findChild(QtWidgets.QDoubleSpinBox, "temperatureSpin").setValue(0.5)
    settle()
    assert options.session.scenario.temperature == 0.5
    np.testing.assert_allclose(options.session.result.weights, numpy_weights(options.session.scenario), atol=1e-12)
    combo = options.findChild(QtWidgets.QComboBox, "softmaxOverCombo")
    combo.setCurrentIndex(combo.findData("queries"))
    settle()
    w = options.session.result.weights
    np.testing.assert_allclose(w.sum(axis=0), 1.0)
    np.testing.assert_allclose(w, numpy_weights(options.session.scenario), atol=1e-12)
    assert options.session.scenario.tokens == s0.tokens


def test_a_burst_of_edits_is_one_recompute(make_session):
    session = make_session()
    settle()
    seen = []
    session.resultChanged.connect(seen.append)
    count = session.recompute_count
    for v in ("0.1", "0.2", "0.3", "0.4"):
        session.set_cell("x", 0, 0, v)
    session.set_option(causal=True)
    settle()
    assert len(seen) == 1
    assert session.recompute_count == count + 1
    assert seen[0].scenario.x[0, 0] == 0.4 and seen[0].scenario.causal


def test_clicking_a_token_row_selects_it_everywhere(make_panel, qtbot):
    tokens = make_panel(TokenTableWidget, size=(400, 300))
    table = tokens.findChild(QtWidgets.QTableView, "tokenTable")
    rect = table.visualRect(table.model().index(2, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    settle()
    assert tokens.session.selection.query == 2


def test_only_punctuation_and_other_scripts(make_session):
    session = make_session()
    for text in ("...!?", "東京 は 大きい", "مرحبا بالعالم", "naïve cafe\u0301 👍🏽"):
        session.set_text(text)
        settle()
        r = session.result
        assert r.n >= 1
        assert np.all(np.isfinite(r.weights))
        np.testing.assert_allclose(r.weights.sum(axis=1), 1.0)


def test_512_tokens(make_panel):
    tokens = make_panel(TokenTableWidget, size=(400, 300))
    session = tokens.session
    text = " ".join(f"w{i}" for i in range(600))
    session.set_text(text)
    settle()
    r = session.result
    assert r.n == 512 and session.scenario.dropped == 88
    assert "Kept the first 512 tokens" in session.messages[-1]
    np.testing.assert_allclose(r.weights.sum(axis=1), 1.0)
    assert tokens.findChild(QtWidgets.QTableView, "tokenTable").model().rowCount() == 512


def test_selection_is_clamped_when_the_sentence_shrinks(make_session):
    session = make_session()
    session.select(2, 2)
    session.set_text("Hi")
    settle()
    assert session.selection == Selection(0, 0)


def test_full_screen_toggles_with_f11(window, qtbot):
    # The offscreen test screen is 800 x 800, smaller than the 1600 x 1000 window: full screen must
    # still take (the panel grid scrolls instead of holding the window bigger than the screen).
    assert not window.isFullScreen()
    window.fullScreenAction.trigger()
    settle(rounds=6)
    assert window.windowState() & Qt.WindowState.WindowFullScreen
    screen = window.screen().geometry()
    assert window.width() <= screen.width() and window.height() <= screen.height()
    window.fullScreenAction.trigger()
    settle()
    assert not (window.windowState() & Qt.WindowState.WindowFullScreen)
    assert window.fullScreenAction.shortcut().toString() == "F11"


@pytest.mark.parametrize("size", [(1024, 740), (1280, 690)])
def test_window_fits_a_small_projector_and_the_panels_scroll(window, size):
    # 1024 x 768 and 1280 x 720 projectors, less a title bar: the window fits, the panels keep
    # the room they need and the grid scrolls to the rest; every option stays reachable.
    hint = window.minimumSizeHint()
    assert hint.width() <= 1000 and hint.height() <= 680
    window.resize(*size)
    settle(rounds=6)
    assert (window.width(), window.height()) == size
    scroll = window.findChild(QtWidgets.QScrollArea, "panelScroll")
    assert window.grid.height() >= window.grid.minimumSizeHint().height()
    assert scroll.verticalScrollBar().maximum() > 0  # the last row is reached by scrolling
    combo = window.findChild(QtWidgets.QComboBox, "softmaxOverCombo")
    longest = max((combo.itemText(i) for i in range(combo.count())), key=combo.fontMetrics().horizontalAdvance)
    assert combo.width() >= combo.fontMetrics().horizontalAdvance(longest)  # each choice reads whole
    for name in ("scaleCheck", "causalCheck", "crossCheck"):
        box = window.findChild(QtWidgets.QCheckBox, name)
        assert box.isVisible() and box.width() >= box.sizeHint().width()


def test_the_grid_fills_a_big_window_without_scroll_bars(make_grid):
    grid = make_grid(area=IN_WINDOW_AREA)  # the panel grid in its scroll area, as in a 1600 x 1000 window
    scroll = grid.scroll
    settle()
    assert scroll.verticalScrollBar().maximum() == 0 and scroll.horizontalScrollBar().maximum() == 0
    assert grid.size() == scroll.viewport().size()


def test_hidden_panel_catches_up_when_shown(make_grid):
    grid = make_grid()
    panel = grid.panels["softmaxPanel"]
    grid.set_panel_visible("softmaxPanel", False)  # what its tick in the View menu does
    settle()
    assert not panel.isVisible()
    count = panel.paint_count
    grid.session.set_cell("x", 0, 0, "0.33")
    settle()
    assert panel.paint_count == count  # not repainted while hidden
    grid.set_panel_visible("softmaxPanel", True)
    settle()
    assert panel.paint_count == count + 1


#: One run of the app in its own process: ``first`` changes the layout and closes the window, ``second``
#: prints what it finds. Run twice on one settings file, as a teacher closes the app and opens it again.
RESTART = """
import json, sys
from PySide6 import QtCore, QtWidgets
app = QtWidgets.QApplication([])
from qkv_gui.window.main_window import MainWindow
settings = QtCore.QSettings(sys.argv[1], QtCore.QSettings.Format.IniFormat)
w = MainWindow(settings=settings, recovery=sys.argv[2])
if sys.argv[3] == "first":
    w.resize(2400, 1400)  # rows of three, and room for them without scrolling: a row can be given more
w.show()  # the second run opens at the size the first one closed at
for _ in range(6):
    app.processEvents()
if sys.argv[3] == "first":
    w.docks["dockWeights"].hide()
    w.open_experiment("dockScalingLab")
    for _ in range(6):
        app.processEvents()
    sizes = w.grid.sizes()
    equal = sizes[0] / sum(sizes)
    w.grid.setSizes([4 * sizes[0]] + sizes[1:])
    for _ in range(6):
        app.processEvents()
    sizes = w.grid.sizes()
    print(json.dumps({"top_row_share": sizes[0] / sum(sizes), "equal_share": equal, "packing": w.grid.packing}))
    w.close()
else:
    sizes = w.grid.sizes()
    print(json.dumps({"weights": w.docks["dockWeights"].isVisible(), "tokens": w.docks["dockTokens"].isVisible(),
                      "experiments": [n for n, d in w.experiment_docks.items() if d.isVisible()],
                      "top_row_share": sizes[0] / sum(sizes), "packing": w.grid.packing}))
w.deleteLater()  # before Python tears down the application (it crashed now and then without)
QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
"""


def test_layout_is_remembered_across_a_real_restart(tmp_path):
    # Two processes, one settings file: in one process QSettings hands back the very values it was
    # given, so only a real restart shows what the file gives back (every number as text).
    import json

    from tests.gui.support.restart import run_twice

    screen = tmp_path / "screen.json"  # a screen with room for the window (the default one is 800 x 800)
    screen.write_text(json.dumps({"screens": [{"name": "wide", "x": 0, "y": 0, "width": 2600, "height": 1600,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    runs = run_twice(RESTART, tmp_path, screen)
    before, seen = (json.loads(run.strip().splitlines()[-1]) for run in runs)
    assert seen["weights"] is False and seen["tokens"] is True  # the hidden dock stays hidden
    assert seen["experiments"] == ["dockScalingLab"]  # the open experiment is back
    assert before["top_row_share"] > before["equal_share"] + 0.1  # the first run gave the top row more
    assert seen["packing"] == before["packing"]
    assert seen["top_row_share"] == pytest.approx(before["top_row_share"], abs=0.02)  # the rows keep their sizes
    # Only plain values in the file: a Python object would be stored pickled, and opening the file
    # would unpickle it.
    assert "PyObjectWrapper" not in (tmp_path / "settings.ini").read_text(encoding="utf-8", errors="replace")


def test_closing_in_presenter_mode_keeps_the_teacher_s_layout(make_window):
    first = make_window()
    first.lesson.enter_presenter()
    settle()
    assert not first.docks["dockSentence"].isVisible()
    first.close()
    settle()
    second = make_window()
    assert all(dock.isVisible() for dock in second.docks.values())
    assert second.menuBar().isVisible() and not second.isFullScreen()


def _shortcut_owners(window) -> dict:
    owners: dict = {}
    for action in window.findChildren(QtGui.QAction):
        for seq in action.shortcuts():
            if not seq.isEmpty():
                owners.setdefault(seq.toString(), []).append(action.text())
    return owners


def test_no_two_actions_share_a_shortcut(window):
    # Qt runs neither of two actions that share a key: the key would silently do nothing.
    owners = _shortcut_owners(window)
    assert {key: names for key, names in owners.items() if len(names) > 1} == {}
    for key in ("Ctrl+E", "Ctrl+Shift+E", "Ctrl+Q", "Ctrl+S", "Ctrl+Z", "Ctrl+L", "F5", "F11"):
        assert key in owners, key


def test_ctrl_e_exports_and_ctrl_shift_e_starts_an_exercise(window, qtbot, monkeypatch):
    exported = []
    monkeypatch.setattr(window.exporter, "export_panel", lambda: exported.append(True))
    window.activateWindow()
    window.setFocus()
    QTest.keySequence(window, QtGui.QKeySequence("Ctrl+E"))
    settle()
    assert exported == [True]
    QTest.keySequence(window, QtGui.QKeySequence("Ctrl+Shift+E"))
    settle()
    assert window.lesson.active and window.lesson.exerciseAction.isChecked()


def test_the_keys_help_names_only_real_shortcuts(window):
    from qkv_gui.window.main_window import KEYS_HELP

    owners = _shortcut_owners(window)
    named = re.findall(r"\b(?:Ctrl\+(?:Shift\+)?[A-Z]|F\d+)\b", KEYS_HELP)
    assert len(named) >= 10
    assert [key for key in named if key not in owners] == []


def _laid_out_widgets(layout) -> list:
    """The visible widgets a layout places, through its nested layouts."""
    found = []
    for k in range(layout.count()):
        item = layout.itemAt(k)
        if item.widget() is not None and item.widget().isVisible():
            found.append(item.widget())
        elif item.layout() is not None:
            found.extend(_laid_out_widgets(item.layout()))
    return found


@pytest.mark.parametrize("area", [ON_PROJECTOR_AREA, IN_WINDOW_AREA])
def test_wrapped_texts_never_lie_over_the_pictures(make_grid, area):
    # On a 1024 x 768 projector the panels are narrow: their arithmetic wraps onto more lines, and
    # those lines were drawn over the plot. Each panel now gets the height its texts need at its width
    # (the grid scrolls for the rest). The panel grid in the room it has in a window of 1008 x 720 and
    # of 1600 x 1000.
    grid = make_grid(area=area)
    settle(rounds=8)
    for name, panel in grid.panels.items():
        layout = panel.body.layout()
        if layout is None or not layout.hasHeightForWidth():
            continue
        assert panel.body.height() >= layout.minimumHeightForWidth(panel.body.width()), name
        shown = _laid_out_widgets(layout)
        rects = [QtCore.QRect(w.mapTo(panel.body, QtCore.QPoint(0, 0)), w.size()) for w in shown]
        for a in range(len(rects)):
            for b in range(a + 1, len(rects)):
                overlap = rects[a].intersected(rects[b])
                assert overlap.isEmpty() or min(overlap.width(), overlap.height()) <= 1, \
                    (name, shown[a].objectName(), shown[b].objectName())


def test_first_start_fits_the_window_to_a_small_screen():
    from qkv_gui.window.main_window import first_size

    class Screen:
        def __init__(self, w, h):
            self.room = QtCore.QRect(0, 0, w, h)

        def availableGeometry(self):  # noqa: N802 (Qt naming)
            return self.room

    assert first_size(None) == QtCore.QSize(1600, 1000)
    assert first_size(Screen(2560, 1400)) == QtCore.QSize(1600, 1000)
    for w, h in ((1024, 740), (1280, 690), (1366, 728)):
        size = first_size(Screen(w, h))
        assert size.width() <= w - 8 and size.height() <= h - 30  # room for the window's frame
        assert size.width() >= 0.95 * w - 16 or size.width() == 1600


@pytest.mark.slow
@pytest.mark.parametrize("experiments", [False, True])
def test_the_layout_settles_at_every_window_size(window, experiments):
    """Panels ask for more height when they get narrower and the grid scrolls when they do not fit; a
    scroll bar takes width; key names stand up or lie down. None of that may keep the layout moving:
    after a few turns of the event loop at any size, nothing is resized any more."""
    app = QtWidgets.QApplication.instance()
    window.session.set_text("the quick brown fox jumps over the lazy dog while the cat sleeps")
    if experiments:
        window.session.set_heads(3)
        window.open_experiment("dockHeads")
        window.open_experiment("dockCompare")
        window.open_experiment("dockTrain")
        window.findChild(QtWidgets.QPushButton, "pinButton").click()
        window.session.set_cell("w_q", 0, 0, "0.9")
    settle()
    resized = [0]

    class Count(QtCore.QObject):
        def eventFilter(self, obj, event):
            if event.type() == QtCore.QEvent.Type.Resize and isinstance(obj, QtWidgets.QWidget) \
                    and obj.window() is window:
                resized[0] += 1
            return False

    counter = Count()
    app.installEventFilter(counter)
    try:
        for width, height in [(w, h) for h in (620, 700, 790, 900) for w in range(700, 1660, 160)]:
            window.resize(width, height)
            settle(rounds=8)
            resized[0] = 0
            settle(rounds=4)
            assert resized[0] == 0, (width, height)
    finally:
        app.removeEventFilter(counter)


@pytest.mark.parametrize("size", [(1600, 1000), (1024, 740)])
def test_hiding_the_weight_grids_leaves_no_gaps_in_the_sentence_dock(make_parts, size):
    # The room of a hidden dock went to the sentence dock, whose boxes then stood far apart. The three editing
    # docks as the window places them, on a plain main window of that size.
    window = make_parts(editors=True, size=size)
    window.docks["dockWeights"].hide()
    settle(rounds=6)
    options = window.docks["dockSentence"].widget()
    boxes = [w for w in _laid_out_widgets(options.layout())]
    spacing = options.layout().spacing()
    tops = sorted(((w.mapTo(options, QtCore.QPoint(0, 0)).y(), w) for w in boxes), key=lambda t: t[0])
    rows = []  # [top, bottom, tallest size hint] of each row of boxes (the options' grids put several in one)
    for y, w in tops:
        if rows and y < rows[-1][0] + 2:
            rows[-1][1] = max(rows[-1][1], y + w.height())
            rows[-1][2] = max(rows[-1][2], w.sizeHint().height())
        else:
            rows.append([y, y + w.height(), w.sizeHint().height()])
    gaps = [b[0] - a[1] for a, b in zip(rows, rows[1:])]
    assert max(gaps) <= spacing + 8, gaps
    heights = [(bottom - top, hint) for top, bottom, hint in rows]
    assert all(h <= hint + 6 for h, hint in heights), heights  # no box taller than it needs
    tokens = window.docks["dockTokens"]
    assert tokens.height() > window.docks["dockSentence"].height()  # the table gets the room
