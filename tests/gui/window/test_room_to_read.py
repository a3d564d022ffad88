"""No panel is squeezed below the size at which it reads, on any common screen: a laptop (1366 x 768,
1440 x 900, the same at twice the pixels), a desktop (1920 x 1080) or a 1024 x 768 projector. The
grid holds as many panels a row as fit at their readable widths and scrolls for the rest; docks on
the right share a tab rather than stand one above the other as strips."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

from qkv_gui.look import style
from qkv_gui.window.main_window import DOCK_MIN_HEIGHT
from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel
from qkv_gui.panels.base import CELL_AXES_PX, CELL_PX, FIT_MIN_ZOOM, READABLE_WIDTH
from qkv_gui.panels.steps.summary_diagram import SummaryPanel

from tests.gui.conftest import BIG_AREA, IN_WINDOW_AREA, ON_PROJECTOR_AREA, settle
from tests.gui.support.readability import picture_problems, widget_problems

ROOT = Path(__file__).resolve().parents[3]
#: Windows that fill common screens, less a title bar and a task bar ...
LAPTOPS_AND_DESKTOPS = [(1366, 730), (1440, 860), (1920, 1040)]
#: ... and the room the panel grid's scroll area has in them (measured: ``window.gridScroll`` at these sizes).
GRID_AREAS = {(1366, 730): (960, 659), (1440, 860): (1034, 789), (1920, 1040): (1514, 969)}
SMALL = (1008, 720)  # a 1024 x 768 projector (the grid's area there: ON_PROJECTOR_AREA)


def _plot_height(panel: HeatmapPanel) -> float:
    """The height of the heatmap's plot area on screen (pixels): where its cells are drawn."""
    return panel.vb.sceneBoundingRect().height()


def test_a_grid_of_cells_asks_for_a_row_of_pixels_per_token(make_panel):
    panel = make_panel(HeatmapPanel, preset="pronoun")  # 13 tokens
    canvas = panel.canvas
    own = canvas.minimumHeight()
    panel.text_room = True  # in the grid, which scrolls
    settle()
    assert canvas.minimumHeight() >= 13 * CELL_PX + CELL_AXES_PX[1]
    assert canvas.minimumWidth() >= 14 * CELL_PX + CELL_AXES_PX[0]  # the row-sum strip is one column more
    asked = canvas.minimumHeight()
    panel.set_theme(style.presenter(2.0))  # a larger text is drawn larger where there is room, but asks
    settle()                               # for no more: alone on a projector the panel keeps to the screen
    assert canvas.minimumHeight() == asked
    panel.set_theme(style.SCREEN)
    panel.session.set_text("one two three")
    settle()
    assert canvas.minimumHeight() < asked  # fewer tokens, less
    panel.text_room = False  # in a dock (which does not scroll): only the panel's own minimum
    assert canvas.minimumHeight() == own


def test_a_drawing_fitted_to_its_view_asks_for_most_of_its_own_size(make_panel):
    panel = make_panel(SummaryPanel, preset="seed-the-cat-sat")
    panel.text_room = True
    settle()
    scene = panel.view.sceneRect()
    assert panel.view.minimumWidth() >= FIT_MIN_ZOOM * scene.width() - 1
    assert panel.view.minimumHeight() >= FIT_MIN_ZOOM * scene.height() - 1


def _check_the_grid(grid) -> None:
    """Every panel at least its readable size, none wider than the area, and its titles and labels
    whole (``grid``: the panel grid in its scroll area, ``make_grid(area=...)``)."""
    scroll = grid.scroll
    assert scroll.horizontalScrollBar().maximum() == 0  # the rows fit the width: only the height scrolls
    assert all(1 <= n <= 3 for n in grid.packing) and sum(grid.packing) == 9
    for name, frame in grid.frames.items():
        panel = frame.panel
        assert frame.width() >= READABLE_WIDTH, name
        assert panel.height() >= panel.minimumSizeHint().height() - 1, name
        for view in panel.pictures():
            if view.isVisible():
                assert view.width() >= view.minimumWidth() and view.height() >= view.minimumHeight(), \
                    (name, view.objectName())
        assert widget_problems(frame) == [], name


@pytest.mark.parametrize("size", LAPTOPS_AND_DESKTOPS)
def test_the_heatmap_and_the_whole_picture_read_on_a_laptop_and_a_desktop(make_grid, size):
    # At 1440 x 900 the heatmap of a 13-token sentence was a strip 11 px high, "The whole picture" 6 px text.
    w = make_grid("pronoun", area=GRID_AREAS[size])  # the panel grid in the room it has in a window of `size`
    settle(rounds=8)
    heatmap = w.panels["heatmapPanel"]
    assert _plot_height(heatmap) >= 13 * CELL_PX, _plot_height(heatmap)  # a row of pixels per token
    assert len(heatmap.y_tick_labels) == 13  # every query named
    summary = w.frames["summaryPanel"]
    assert picture_problems(summary, floor_px=9.0) == []  # its words 9 px or more, none cut
    _check_the_grid(w)
    if size[0] >= 1920:
        assert w.packing == (3, 3, 3)  # room for the usual three a row


def test_on_a_small_projector_rows_of_two_scroll_and_nothing_is_squeezed(make_grid):
    w = make_grid("pronoun", area=ON_PROJECTOR_AREA)  # the panel grid in its room in a window of 1008 x 720
    settle(rounds=8)
    assert max(w.packing) == 2
    assert w.scroll.verticalScrollBar().maximum() > 0
    _check_the_grid(w)
    # the plane's numbers in full: the panel is not narrower than its own layout needs
    plane = w.panels["qkPlanePanel"]
    assert plane.width() >= plane.body.layout().minimumSize().width()


def test_showing_a_panel_alone_and_back_gives_the_same_rows(make_grid):
    # A panel laid out wide (alone) asked for a wide minimum when it came back, and the rows changed.
    grid = make_grid("pronoun", area=IN_WINDOW_AREA)  # the panel grid in its scroll area, as in the window
    settle(rounds=6)
    before = (grid.packing, [f.width() for f in grid.frames.values()])
    for name in ("heatmapPanel", "summaryPanel"):
        grid.focus(name)
        settle(rounds=6)
        grid.focus(None)
        settle(rounds=6)
        assert (grid.packing, [f.width() for f in grid.frames.values()]) == before, name


def test_a_narrower_window_moves_panels_to_new_rows_and_back(make_grid):
    grid = make_grid("pronoun", area=IN_WINDOW_AREA)  # the panel grid in its scroll area, as in the window
    settle(rounds=6)
    wide = grid.packing
    grid.scroll.resize(*ON_PROJECTOR_AREA)  # the window at 1008 x 720
    settle(rounds=8)
    assert len(grid.packing) > len(wide)
    grid.setSizes([3 * s for s in grid.sizes()[:1]] + grid.sizes()[1:])  # the teacher's sizes here
    settle()
    kept = grid.sizes()
    grid.scroll.resize(*IN_WINDOW_AREA)  # back to 1600 x 1000
    settle(rounds=8)
    assert grid.packing == wide
    grid.scroll.resize(*ON_PROJECTOR_AREA)
    settle(rounds=8)
    assert grid.sizes() == kept  # each packing keeps its own sizes


def test_three_experiments_never_leave_a_dock_as_a_strip(make_window):
    # At 1920 x 1080 the third experiment on the right was a strip ("Heads joined, then W^O").
    w = make_window("two-heads")
    w.resize(1920, 1040)
    settle(rounds=6)
    for name in ("dockScalingLab", "dockHeads", "dockConcat"):
        w.open_experiment(name)
        settle(rounds=6)
    right = [d for d in w.findChildren(QtWidgets.QDockWidget)
             if d.isVisible() and w.dockWidgetArea(d) == QtCore.Qt.DockWidgetArea.RightDockWidgetArea
             and not d.visibleRegion().isEmpty()]
    assert len(right) >= 2
    assert all(d.height() >= DOCK_MIN_HEIGHT for d in right), {d.objectName(): d.height() for d in right}
    concat = w.experiment_docks["dockConcat"]
    assert w.tabifiedDockWidgets(concat)  # it shares a tab, in front
    assert not concat.visibleRegion().isEmpty()


#: The app on a 2880 x 1800 laptop screen at twice the pixels (1440 x 900 to Qt): where the heatmap stands.
HIGH_DPI = """
import json, sys
from PySide6 import QtCore, QtWidgets
app = QtWidgets.QApplication([])
from qkv_gui.window.main_window import MainWindow
w = MainWindow(preset="pronoun", settings=QtCore.QSettings(sys.argv[1], QtCore.QSettings.Format.IniFormat),
               recovery=sys.argv[2])
w.resize(1440, 860)
w.show()
for _ in range(10):
    app.processEvents()
heatmap = w.panels["heatmapPanel"]
print(json.dumps({"ratio": w.devicePixelRatioF(), "screen": w.screen().geometry().width(),
                  "plot": heatmap.vb.sceneBoundingRect().height(), "named": len(heatmap.y_tick_labels),
                  "hbar": w.gridScroll.horizontalScrollBar().maximum()}))
"""


def test_at_twice_the_pixels_the_heatmap_reads_too(tmp_path):
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": 2880, "height": 1800,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen}", "QT_SCALE_FACTOR": "2",
           "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", HIGH_DPI, str(tmp_path / "settings.ini"), str(tmp_path / "rec")],
                         capture_output=True, text=True, timeout=120, cwd=str(ROOT), env=env)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["ratio"] == 2.0 and seen["screen"] == 1440
    assert seen["plot"] >= 13 * CELL_PX and seen["named"] == 13 and seen["hbar"] == 0, seen


def test_a_panel_scrolled_out_of_sight_waits_and_shows_the_new_numbers_when_it_comes_back(make_grid):
    """On a small projector most panels are scrolled out of sight: an edit does not wait for them, and a
    panel scrolled back into sight shows the numbers of now before it is painted."""
    grid = make_grid("pronoun", area=ON_PROJECTOR_AREA)  # the panel grid in the window's scroll area at 1008 x 720
    settle(rounds=8)
    bar = grid.scroll.verticalScrollBar()
    bar.setValue(0)
    settle()
    panels = list(grid.panels.values())
    away = [p for p in panels if not p.in_view()]
    near = [p for p in panels if p.in_view()]
    assert away and near
    counts = {p.object_name: p.paint_count for p in panels}
    s = grid.session.scenario
    grid.session.set_cell("x", grid.session.selection.query, 0, float(s.x[grid.session.selection.query, 0]) + 0.5)
    settle()
    assert all(p.paint_count > counts[p.object_name] for p in near)  # the panels in sight follow at once
    assert all(p.paint_count == counts[p.object_name] for p in away)  # those out of sight wait
    last = away[-1]
    grid.scroll.ensureWidgetVisible(last)
    settle()
    assert last.in_view() and last.paint_count > counts[last.object_name]
    shown = last.grab().toImage()
    last.refresh()  # what the panel draws from the session now: nothing changes
    settle()
    assert last.grab().toImage() == shown
    # new words change the room every panel asks for: taken at once, in sight or not (the rows stay put
    # when a panel scrolls back into sight)
    bar.setValue(0)
    settle()
    away = [p for p in panels if not p.in_view()]
    counts = {p.object_name: p.paint_count for p in panels}
    grid.session.set_text(grid.session.scenario.text + " again")
    settle()
    assert away and all(p.paint_count > counts[p.object_name] for p in away)
    # a bigger window brings the rest into sight, each up to date
    counts = {p.object_name: p.paint_count for p in panels}
    grid.session.set_cell("x", 0, 0, float(grid.session.scenario.x[0, 0]) + 0.25)
    settle()
    grid.scroll.resize(*BIG_AREA)  # the window at 1920 x 1400
    settle(rounds=8)
    for p in panels:
        if p.in_view():
            assert p.paint_count > counts[p.object_name], p.object_name


def test_the_lesson_beside_a_trained_model_on_a_projector_shows_the_qk_plane_whole(qtbot, settings, tmp_path):
    # "Where does position come in?" shows the q·k plane and opens the RoPE lab beside the lesson. With a trained
    # model open the editing docks on the left are wider (the Trained model box); in a window opened at 1024 x 768
    # the panel was left 264 pixels, less than a panel reads at in its frame (280 + 10), and the q·k plane's numbers
    # were cut at the right. (A panel with a wide picture, the tokens' numbers, still scrolls.)
    from qkv_engine.models import load_model
    from qkv_gui.window.main_window import MainWindow
    from qkv_gui.window.panel_grid import FRAME_ROOM

    w = MainWindow(settings=settings, recovery=tmp_path / "recovery")
    w.ask_restore = lambda: False
    qtbot.addWidget(w)
    w.resize(*SMALL)  # opened so, as on a 1024 x 768 screen
    w.show()
    settle(rounds=6)
    w.session.open_model(load_model(ROOT / "tests" / "data" / "tiny-llama"), "the cat sat on the mat")
    settle(rounds=6)
    w.enter_lesson_mode()
    settle(rounds=6)
    lesson = w.lesson
    lesson.go(next(i for i, step in enumerate(lesson.steps) if step.panel == "ropeLabPanel"))
    settle(rounds=6)
    panel = w.panels["qkPlanePanel"]
    assert lesson.grid_panel() == "qkPlanePanel" and w.experiment_docks["dockRopeLab"].isVisible()
    assert panel.isVisible() and w.gridScroll.viewport().width() >= READABLE_WIDTH + FRAME_ROOM
    assert w.gridScroll.horizontalScrollBar().maximum() == 0
    assert panel.width() >= READABLE_WIDTH
    numbers = panel.numbers
    assert numbers.mapTo(w.gridScroll.viewport(), numbers.rect().topRight()).x() < w.gridScroll.viewport().width()
