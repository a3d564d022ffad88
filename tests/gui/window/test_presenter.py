"""Presenter mode on a classroom projector (1024 x 768, 1280 x 720): in every lesson step the step's panel
has most of the screen and every text of it reads whole; a larger text size grows the panel's text and
lines, not the lesson pane; leaving puts back a window that fits the screen."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

from qkv_gui.look import style
from qkv_gui.window.lesson.controller import PRESENTER_SCALE
from qkv_gui.window.lesson.pane import SCALES

from tests.gui.conftest import settle
from tests.gui.support.readability import picture_texts, unreadable, widget_problems

ROOT = Path(__file__).resolve().parents[3]
PROJECTORS = [(1024, 768), (1280, 720)]
#: No letter on a projector smaller than this (pixels).
FLOOR_PX = 9.0


def presenting(make_window, size, preset="pronoun"):
    """A window in presenter mode on a screen of ``size`` (the test screen is 800 x 800: the window is
    given the projector's size, as full screen gives it)."""
    w = make_window(preset)
    w.enter_lesson_mode()
    w.lesson.enter_presenter()
    settle(rounds=6)
    w.setGeometry(QtCore.QRect(QtCore.QPoint(0, 0), QtCore.QSize(*size)))
    settle(rounds=8)
    return w


def _inside(widget, window) -> bool:
    rect = QtCore.QRect(widget.mapTo(window, QtCore.QPoint(0, 0)), widget.size())
    return widget.isVisible() and window.rect().contains(rect)


@pytest.mark.parametrize("size, scale", [(size, PRESENTER_SCALE) for size in PROJECTORS] + [((1280, 720), max(SCALES))])
def test_every_step_shows_its_panel_large_and_every_text_whole(make_window, size, scale):
    w = presenting(make_window, size)
    lesson, pane = w.lesson, w.lesson.pane
    lesson.set_scale(scale)
    assert w.dockWidgetArea(lesson.dock) == QtCore.Qt.DockWidgetArea.RightDockWidgetArea  # beside: wide screens
    for k, step in enumerate(lesson.steps):
        lesson.go(k)
        settle(rounds=8)
        shown = lesson.grid_panel(step)  # the step's panel; for the appendix's experiment, the heatmap
        frame = w.grid.frames[shown]
        assert [n for n, f in w.grid.frames.items() if f.isVisible()] == [shown]
        # most of the screen: more than half its width, all of its height, and nothing to scroll to
        assert frame.width() >= 0.55 * size[0] and frame.height() >= size[1] - 8, (step.slug, frame.size())
        bars = w.gridScroll.horizontalScrollBar(), w.gridScroll.verticalScrollBar()
        assert [bar.maximum() for bar in bars] == [0, 0], step.slug
        assert unreadable(frame, floor_px=FLOOR_PX) == [], step.slug
        texts = sum(len(picture_texts(v)) for v in frame.findChildren(QtWidgets.QGraphicsView))
        assert texts > 0 or step.panel == "mixingPanel", step.slug  # the check saw the picture's texts
        # the lesson beside it: its controls whole and on the screen, its text as wide as the pane
        assert widget_problems(pane) == [], step.slug
        assert pane.text.horizontalScrollBar().maximum() == 0, step.slug
        for button in (pane.previousButton, pane.nextButton, pane.smallerButton, pane.largerButton):
            assert _inside(button, w), (step.slug, button.objectName())


def test_a_larger_text_grows_the_panel_s_text_and_lines_not_the_lesson_pane(make_window):
    w = presenting(make_window, (1024, 768))
    lesson = w.lesson
    lesson.go(7)  # the values, mixed by the weights
    settle(rounds=6)
    frame = w.grid.frames["valuesPanel"]
    view = frame.findChild(QtWidgets.QGraphicsView, "valuesPlot")
    seen = []
    for scale in SCALES:
        lesson.set_scale(scale)
        settle(rounds=8)
        letters = max(px for _item, _text, _rect, px in picture_texts(view))
        pens = max(item.pen().widthF() for item in view.scene().items()
                   if isinstance(item, QtWidgets.QAbstractGraphicsShapeItem) and item.isVisible()
                   and item.pen().style() != QtCore.Qt.PenStyle.NoPen)
        seen.append((scale, frame.width(), lesson.dock.width(), letters, pens))
        assert frame.panel.theme == style.presenter(scale)
        assert widget_problems(frame) == [], scale  # its title and caption whole at every size
    widths = [s[1] for s in seen]
    assert min(widths) >= widths[0] - 2 and widths[0] >= 0.6 * 1024, seen  # the panel never gives way
    assert max(s[2] for s in seen) <= 0.4 * 1024, seen  # nor does the pane grow over it
    assert all(a[3] < b[3] for a, b in zip(seen, seen[1:])), seen  # the words on the bars grow at every step
    assert seen[-1][4] >= 1.5 * seen[0][4], seen  # and its lines get thicker


def test_on_a_narrow_screen_the_lesson_goes_below_the_panel(make_window):
    w = presenting(make_window, (768, 1024), preset="seed-the-cat-sat")
    lesson = w.lesson
    assert w.dockWidgetArea(lesson.dock) == QtCore.Qt.DockWidgetArea.BottomDockWidgetArea
    frame = w.grid.frames[lesson.step.panel]
    assert frame.width() >= 760 and frame.height() >= 0.55 * 1024
    assert lesson.dock.height() <= 0.4 * 1024
    lesson.exit_presenter()
    settle(rounds=6)
    assert w.dockWidgetArea(lesson.dock) == QtCore.Qt.DockWidgetArea.RightDockWidgetArea  # back where it was


#: Runs on an offscreen screen of 1024 x 768: presenter mode, the largest text, Esc; presenter mode again.
#: Prints where the window, its screen and the lesson's buttons are each time.
ROUND_TRIP = """
import json, sys
from PySide6 import QtCore, QtGui, QtWidgets
app = QtWidgets.QApplication([])
from qkv_gui.window.main_window import MainWindow
settings = QtCore.QSettings(sys.argv[1], QtCore.QSettings.Format.IniFormat)
w = MainWindow(settings=settings, recovery=sys.argv[2])
w.show()

def settle():
    for _ in range(10):
        app.processEvents()

def where(tag):
    settle()
    pane = w.lesson.pane
    rect = lambda b: list(QtCore.QRect(b.mapToGlobal(QtCore.QPoint(0, 0)), b.size()).getRect())
    print(json.dumps({"tag": tag, "screen": list(w.screen().availableGeometry().getRect()),
                      "window": list(w.frameGeometry().getRect()), "full": w.isFullScreen(),
                      "buttons": {b.objectName(): rect(b) for b in (pane.nextButton, pane.largerButton,
                                                                     pane.smallerButton)},
                      "panel": w.grid.frames[w.lesson.step.panel].width(), "pane": w.lesson.dock.width()}))

where("start")
w.enter_lesson_mode()
where("lesson")
w.lesson.presenterAction.trigger()   # F5
where("presenter")
w.lesson.step_scale(+1)
w.lesson.step_scale(+1)
where("larger")
esc = QtGui.QKeyEvent(QtCore.QEvent.Type.KeyPress, QtCore.Qt.Key.Key_Escape, QtCore.Qt.KeyboardModifier.NoModifier)
app.sendEvent(w.lesson.pane.text, esc)
where("after")
w.lesson.presenterAction.trigger()
where("again")
app.sendEvent(w.lesson.pane.text, esc)
where("after again")
w.deleteLater()
QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
"""


def test_leaving_presenter_mode_puts_back_a_window_that_fits_the_screen(tmp_path):
    # On a 1024 x 768 projector, presenter mode at the largest text and Esc left a window 1165 px wide:
    # Next and A-/A+ were off the screen, and again at the next F5. A real screen of that size is needed
    # (the window is fitted to its screen): the offscreen platform is given one.
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps({"screens": [{"name": "projector", "x": 0, "y": 0, "width": 1024, "height": 768,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen}", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", ROUND_TRIP, str(tmp_path / "settings.ini"), str(tmp_path / "rec")],
                         capture_output=True, text=True, timeout=120, cwd=str(ROOT), env=env)
    assert out.returncode == 0, out.stderr
    seen = {d["tag"]: d for d in (json.loads(line) for line in out.stdout.splitlines() if line.startswith("{"))}
    room = QtCore.QRect(*seen["start"]["screen"])
    assert room.size() == QtCore.QSize(1024, 768)
    for tag, d in seen.items():
        assert room.contains(QtCore.QRect(*d["window"])), (tag, d["window"])
        for name, rect in d["buttons"].items():
            if tag != "start":  # the lesson is on: its buttons are on the screen
                assert room.contains(QtCore.QRect(*rect)), (tag, name, rect)
    for tag in ("presenter", "larger", "again"):
        assert seen[tag]["full"] and seen[tag]["panel"] >= 0.6 * 1024, (tag, seen[tag])
    assert seen["larger"]["panel"] >= seen["presenter"]["panel"] - 2  # a larger text does not shrink it
    assert seen["after"]["window"][2:] == seen["lesson"]["window"][2:]  # the window as large as before F5
    assert seen["again"]["panel"] == seen["larger"]["panel"]  # the next F5 is the same
    assert not seen["after again"]["full"]
