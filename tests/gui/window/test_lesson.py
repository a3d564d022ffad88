"""Lesson mode as a class uses it, in the whole window: the steps and their texts, walking them with keys and
buttons (each step's panel brought forward), presenter mode, the layout on small and big screens, and --lesson.
What the lesson says and asks (live numbers, quick checks, the softmax-direction demonstration, exercises, the
appendix) is tested on the lesson alone: ``test_lesson_text.py``."""
import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

from qkv_engine import compute, explain, views
from qkv_gui.look import style
from qkv_gui.window.lesson import markdown
from qkv_gui.window.lesson.steps import lesson_files, load_steps

from tests.gui.conftest import in_lesson, settle

Qt = QtCore.Qt
ROOT = Path(__file__).resolve().parents[3]
#: The panel each step brings forward, in lesson order.
EXPECTED_PANELS = [
    "embeddingPanel", "mixingPanel", "qkPlanePanel", "qkPlanePanel", "qkPlanePanel", "scalingPanel",
    "softmaxPanel", "valuesPanel", "matricesPanel", "summaryPanel", "heatmapPanel", "summaryPanel",
]


@pytest.fixture
def lesson_window(make_window):
    window = make_window()
    in_lesson(window.lesson)
    return window


def test_twelve_steps_in_lesson_order_each_with_a_real_panel_then_the_appendix():
    from qkv_gui.panels.catalog import PANEL_CLASSES

    steps = load_steps()
    assert [p.name for p in lesson_files()][0] == "01-token.md"
    numbered = [s for s in steps if not s.appendix]
    assert [s.panel for s in numbered] == EXPECTED_PANELS
    titles = " | ".join(s.title.lower() for s in numbered)
    for word in ("token", "grid", "query", "key", "dot product", "√d_k", "softmax", "value", "matrices",
                 "whole picture", "plain words", "quick checks"):
        assert word in titles, word
    assert all(s.panel in {cls.object_name for cls in PANEL_CLASSES} for s in numbered)  # the window's panels
    # after the quick checks the appendices, in order: "Where does position come in?" (the RoPE lab), "Where do
    # the weights come from?" (the "Learn the weights" experiment), and last the one that opens the built-in model
    appendices = steps[len(numbered):]
    assert appendices == [s for s in steps if s.appendix]
    assert [(s.title, s.panel) for s in appendices] == [
        ("Where does position come in?", "ropeLabPanel"), ("Where do the weights come from?", "trainPanel"),
        ("Inside a trained model", "heatmapPanel")]


def _words(text):
    text = re.sub(r"\$[^$]*\$", " ", text)
    return re.findall(r"[a-z0-9']+", text.lower())


def test_no_run_of_eight_words_is_copied_from_the_seeds():
    # tests/data/seed_shingles.txt holds a short hash of every run of 8 words in the two seed documents
    # (the documents themselves are not part of the project).
    data = Path(__file__).resolve().parents[2] / "data" / "seed_shingles.txt"
    seed = {line.strip() for line in data.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"}
    assert len(seed) > 1000
    copied = []
    for path in lesson_files():
        w = _words(path.read_text(encoding="utf-8"))
        for i in range(len(w) - 7):
            run = " ".join(w[i:i + 8])
            if hashlib.sha1(run.encode()).hexdigest()[:16] in seed:
                copied.append(f"{path.name}: {run}")
    assert copied == []


def test_keys_and_buttons_walk_every_step_and_bring_its_panel_forward(lesson_window, qtbot):
    w = lesson_window
    lesson, pane = w.lesson, w.lesson.pane
    assert pane.isVisible() and w.findChild(QtWidgets.QWidget, "lessonPane") is pane
    seen = []
    for n, key in enumerate([Qt.Key.Key_Right, Qt.Key.Key_Space, Qt.Key.Key_PageDown] * 4):
        seen.append((lesson.index, w.grid.focused, lesson.highlighted_panel(), pane.stepLabel.text()))
        if n < 11:
            qtbot.keyClick(pane.text, key)
            settle()
    assert [s[0] for s in seen] == list(range(12))
    assert [s[1] for s in seen] == EXPECTED_PANELS
    assert [s[2] for s in seen] == EXPECTED_PANELS
    assert seen[3][3] == "Step 4 of 12"
    frame = w.grid.frames["summaryPanel"]
    assert w.grid.highlighted == "summaryPanel"  # the lesson asks the grid to outline its panel
    assert frame.property("highlighted") is True and frame.outline == style.INK.get(lesson.step.role or "",
                                                                                      style.SELECTED)
    assert w.grid.frames["heatmapPanel"].property("highlighted") is False
    # two more: the appendix about position opens the RoPE lab beside the q·k plane ...
    assert pane.nextButton.isEnabled()
    qtbot.keyClick(pane.text, Qt.Key.Key_Right)
    settle()
    assert lesson.index == 12 and pane.stepLabel.text() == "Appendix" and pane.nextButton.isEnabled()
    assert w.experiment_docks["dockRopeLab"].isVisible() and w.grid.focused == "qkPlanePanel"
    assert "unknown placeholder" not in lesson.text() and "Where does position come in?" in lesson.text()
    # ... the next opens the "Learn the weights" experiment beside every panel
    qtbot.keyClick(pane.text, Qt.Key.Key_Right)
    settle()
    assert lesson.index == 13 and pane.stepLabel.text() == "Appendix" and lesson.step.panel == "trainPanel"
    # ... and the heatmap, where the target is outlined, alone in the grid
    assert w.experiment_docks["dockTrain"].isVisible() and w.grid.focused == "heatmapPanel"
    assert lesson.grid_panel() == "heatmapPanel" and lesson.highlighted_panel() == "heatmapPanel"
    qtbot.keyClick(pane.text, Qt.Key.Key_Left)
    qtbot.keyClick(pane.text, Qt.Key.Key_Left)
    qtbot.keyClick(pane.text, Qt.Key.Key_Left)
    qtbot.keyClick(pane.text, Qt.Key.Key_PageUp)
    assert lesson.index == 9
    for _ in range(9):
        qtbot.mouseClick(pane.previousButton, Qt.MouseButton.LeftButton)
    assert lesson.index == 0 and w.grid.focused == "embeddingPanel"
    assert not pane.previousButton.isEnabled()
    qtbot.mouseClick(pane.nextButton, Qt.MouseButton.LeftButton)
    assert lesson.index == 1 and w.grid.focused == "mixingPanel"
    # all panels shown, the step's panel outlined
    pane.aloneButton.setChecked(False)
    assert w.grid.focused is None and w.panels["embeddingPanel"].isVisible()
    assert w.grid.frames["mixingPanel"].property("highlighted") is True
    lesson.leave()
    assert w.grid.highlighted is None and not any(f.property("highlighted") for f in w.grid.frames.values())


def test_unknown_placeholder_shows_visibly_and_values_are_not_markdown():
    html = markdown.render("Value {nope} and {a} in `{a}`\n\n```\n{a}\n```", {"a": "*x* <b>"})
    assert "unknown placeholder: nope" in html
    doc = QtWidgets.QTextBrowser()
    doc.setHtml(html)
    plain = doc.toPlainText()
    assert plain.count("*x* <b>") == 3 and "unknown placeholder: nope" in plain


def test_exercise_cover_hides_the_panels_on_a_small_screen_and_stays_in_the_window(make_window, qtbot):
    # On a 1024 x 768 projector the panel grid is taller than its area and scrolls: the cover must
    # lie over the whole visible area, scroll bar included, and not spill over the status line.
    w = make_window("seed-cat")
    w.resize(1024, 740)
    w.enter_lesson_mode()
    lesson = w.lesson
    lesson.pane.aloneButton.setChecked(False)  # all nine panels, this step's outlined
    settle(rounds=6)
    lesson.set_exercise(True)
    lesson.new_exercise("q", i=0, c=0)
    settle()
    scroll = w.gridScroll
    assert w.grid.height() > scroll.viewport().height()  # the grid scrolls here
    area = QtCore.QRect(scroll.mapTo(w, QtCore.QPoint(0, 0)), scroll.size())
    assert lesson.cover.isVisible() and lesson.cover.geometry() == area
    assert w.rect().contains(lesson.cover.geometry())
    assert not lesson.cover.geometry().intersects(w.statusBar().geometry())
    w.resize(1100, 700)  # follows the area when the window changes size
    settle(rounds=6)
    assert lesson.cover.geometry() == QtCore.QRect(scroll.mapTo(w, QtCore.QPoint(0, 0)), scroll.size())


def test_presenter_mode_enters_full_screen_and_esc_restores_the_layout(lesson_window, qtbot):
    w = lesson_window
    lesson = w.lesson
    lesson.go(6)
    settle()
    docks_before = {d.objectName(): d.isVisible() for d in w.findChildren(QtWidgets.QDockWidget)}
    assert docks_before["dockSentence"] and docks_before["dockLesson"]
    lesson.enter_presenter()
    settle()
    assert w.isFullScreen() and lesson.presenter
    assert not w.menuBar().isVisible() and not w.statusBar().isVisible()
    for name in ("dockSentence", "dockTokens", "dockWeights"):
        assert not w.findChild(QtWidgets.QDockWidget, name).isVisible()
    assert lesson.pane.isVisible()
    visible = [n for n, f in w.grid.frames.items() if f.isVisible()]
    assert visible == ["softmaxPanel"]
    lesson.set_scale(max(lesson.pane.sizeCombo.itemData(i) for i in range(lesson.pane.sizeCombo.count())))
    settle()
    scale = lesson.presenter_scale
    assert scale >= 2.0
    for panel in w.panels.values():
        assert panel.theme == style.presenter(scale)
    assert lesson.body_px() >= 24
    assert re.search(r"font-size:\s*(\d+)px", lesson.html()).group(1) == str(lesson.body_px())
    qtbot.keyClick(lesson.pane.text, Qt.Key.Key_Right)  # clicker still steps
    assert lesson.index == 7 and [n for n, f in w.grid.frames.items() if f.isVisible()] == ["valuesPanel"]

    qtbot.keyClick(lesson.pane.text, Qt.Key.Key_Escape)
    settle()
    assert not w.isFullScreen() and not lesson.presenter
    assert w.menuBar().isVisible() and w.statusBar().isVisible()
    assert {d.objectName(): d.isVisible() for d in w.findChildren(QtWidgets.QDockWidget)} == docks_before
    for panel in w.panels.values():
        assert panel.theme == style.SCREEN
    assert lesson.body_px() < 24 and lesson.active
    lesson.leave()
    settle()
    assert not lesson.pane.isVisible() and w.grid.focused is None
    assert all(f.isVisible() for f in w.grid.frames.values())
    qtbot.keyClick(w.grid, Qt.Key.Key_Right)
    assert lesson.index == 7  # keys are not taken when the lesson is off


def test_command_line_opens_straight_into_the_lesson(tmp_path):
    shot = tmp_path / "lesson.png"
    out = subprocess.run([sys.executable, str(ROOT / "main.py"), "--lesson", "--preset", "seed-cat",
                          "--screenshot", str(shot), "--quit-after", "1500"],
                         capture_output=True, text=True, timeout=60, cwd=str(ROOT),
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen",
                              "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    from PySide6 import QtGui

    img = QtGui.QImage(str(shot))
    assert not img.isNull() and img.width() > 600


def test_lesson_on_a_small_screen_leaves_the_panel_room(make_window):
    # 1024 x 768 projector: the editing docks (400 px) and the lesson pane left the step's panel a
    # fifth of the window; entering the lesson now narrows the docks to what they need.
    w = make_window()
    w.resize(1008, 720)
    settle(rounds=6)
    w.enter_lesson_mode()
    settle(rounds=6)
    assert (w.width(), w.height()) == (1008, 720)  # the window did not grow past the screen
    frame = w.grid.frames[w.lesson.highlighted_panel() or "embeddingPanel"]
    assert frame.isVisible() and frame.width() >= 0.25 * w.width()
    for dock in w.docks.values():
        assert dock.isVisible() and dock.width() >= dock.minimumSizeHint().width()


def test_lesson_on_a_big_screen_keeps_the_docks_as_they_were(make_window):
    w = make_window()
    settle()
    before = {name: dock.width() for name, dock in w.docks.items()}
    w.enter_lesson_mode()
    settle(rounds=6)
    assert {name: dock.width() for name, dock in w.docks.items()} == before


def test_lesson_beside_an_experiment_on_a_short_screen_is_a_tab_and_the_window_fits(make_window):
    w = make_window()
    w.resize(1008, 720)
    settle(rounds=6)
    w.open_experiment("dockScalingLab")
    settle(rounds=6)
    w.enter_lesson_mode()
    settle(rounds=6)
    assert (w.width(), w.height()) == (1008, 720)
    assert w.lesson.dock in w.tabifiedDockWidgets(w.experiment_docks["dockScalingLab"])
    assert not w.lesson.dock.visibleRegion().isEmpty()  # the lesson is the tab in front


@pytest.mark.parametrize("source", ["chat noir", "le petit chat noir dort ici", ""])
def test_softmax_direction_demo_in_cross_attention(make_session, qtbot, source):
    # Rows are the target's queries, columns the source's keys: a shorter source raised IndexError,
    # a longer one was cut to the target's length and headed with the target's words.
    # The demonstration as the lesson pane shows it (the lesson step showing it: test_lesson_text.py).
    from qkv_gui.window.lesson.demo import softmax_direction_html
    from qkv_gui.window.lesson.pane import BODY_PX, LessonPane

    session = make_session("translation")
    session.set_source(source)
    settle()
    pane = LessonPane()
    qtbot.addWidget(pane)
    pane.text.setHtml(softmax_direction_html(session.scenario, BODY_PX))
    text = pane.text.toPlainText()
    s = session.scenario
    if not source:
        assert "Type a source sentence to see the two directions." in text
        return
    assert "Softmax along each row" in text
    good = compute(s)
    assert text.count("1.00 \u2713") == s.n  # every query's row adds up to 1
    for word in s.key_tokens:
        assert word in text
    bug = compute(s.with_options(softmax_over="queries"))
    for total in views.row_sums(bug):
        assert f"{explain.fixed(total, 2)} " in text
    assert explain.fixed(float(good.weights[0, s.n_keys - 1]), 2) in text
