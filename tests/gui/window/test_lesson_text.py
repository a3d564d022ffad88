"""What the lesson says and asks, on the lesson alone: its controller and pane on a plain QMainWindow with the
nine panels in their grid, the experiments' docks and a Session (as the window gives it them). The live numbers
in the text, every placeholder filled, the quick checks, the softmax-direction demonstration, exercises, the
appendix, the palette's inks, the lesson step kept in a session file, and its keys leaving typing alone. Walking the steps with the keys,
presenter mode and the layout on small and big screens need the whole window: ``test_lesson.py``."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import compute, explain, training, views
from qkv_gui.editors import SentenceOptionsWidget, TokenTableWidget
from qkv_gui.look import colours, style
from qkv_gui.panels import catalog
from qkv_gui.state.session_file import Questions, SessionFile
from qkv_gui.system.recovery import Recovery
from qkv_gui.window.dock_host import DockHost
from qkv_gui.window.experiments import Experiments
from qkv_gui.window.lesson import LessonController
from qkv_gui.window.panel_grid import PanelGrid

from tests.gui.conftest import in_lesson, settle

Qt = QtCore.Qt


@pytest.fixture(autouse=True)
def _standard_after():
    """Every test leaves the app in the standard palette, whatever happens in it."""
    yield
    colours.use("standard")


@pytest.fixture
def make_lesson(qtbot, make_session):
    """The lesson on a plain QMainWindow (``lesson.main``): the nine panels in their grid in a scroll area, the
    experiments' docks, the View menu's ticks of the panels, on a Session of ``preset`` (a designed example
    selects the pair its note speaks of, as on opening it); ``editors=True``: with the sentence and token docks. ``lesson.examples_opened`` lists the model examples
    its links asked for."""

    def make(preset=None, size=(1600, 1000), editors=False):
        style.configure_pyqtgraph()
        main = QtWidgets.QMainWindow()
        qtbot.addWidget(main)
        session = make_session(preset)
        session.select_promised_pair(session.preset_name)
        if editors:  # the sentence box and the token table docked on the left, as in the window
            for widget in (SentenceOptionsWidget(session), TokenTableWidget(session)):
                dock = QtWidgets.QDockWidget(main)
                dock.setWidget(widget)
                main.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        grid = PanelGrid([cls(session) for cls in catalog.PANEL_CLASSES])
        scroll = QtWidgets.QScrollArea(main)
        scroll.setWidgetResizable(True)
        scroll.setWidget(grid)
        grid.watch(scroll)
        main.setCentralWidget(scroll)
        host = DockHost(main)
        experiments = Experiments(session, host)
        ticks = {}
        for name in grid.frames:
            act = QtGui.QAction(name, main)
            act.setCheckable(True)
            act.setChecked(True)
            act.toggled.connect(lambda on, n=name: grid.set_panel_visible(n, on))
            ticks[name] = act
        opened = []
        lesson = LessonController(session, host, grid, scroll, ticks, experiments, open_example=opened.append)
        lesson.main, lesson.examples_opened = main, opened
        main.resize(*size)
        main.show()
        qtbot.waitExposed(main)
        settle()
        return lesson

    return make


@pytest.fixture
def lesson(make_lesson):
    return in_lesson(make_lesson())


def test_step_text_uses_the_live_numbers(make_lesson):
    lesson = make_lesson("seed-cat")
    lesson.enter()
    lesson.go(1)  # a grid mixes the dials: q1 worked out
    settle()
    before = lesson.text()
    session = lesson.session
    assert explain.projection(session.result, "q", 0, 0).text in before
    assert "-0.13" in before  # the seed's q1, recomputed by hand: 0.05 - 0.06 - 0.24 + 0.12
    assert session.set_cell("w_q", 0, 0, 0.5)
    settle()
    after = lesson.text()
    new_text = explain.projection(session.result, "q", 0, 0).text
    assert after != before and new_text in after
    assert "0.5(0.5)" in new_text and new_text.endswith("= 0.07")  # 0.25 - 0.06 - 0.24 + 0.12
    lesson.go(4)  # the dot product
    settle()
    assert explain.score(session.result, 0, 0).text in lesson.text()
    assert "unknown placeholder" not in lesson.text()


def test_an_edit_that_changes_no_number_of_the_step_leaves_the_pane_as_it_is(make_lesson):
    lesson = make_lesson("seed-cat")
    lesson.enter()
    lesson.go(1)  # q1 worked out: numbers of W^Q, not of W^V
    settle()
    writes, text = lesson.render_count, lesson.text()
    assert lesson.session.set_cell("w_v", 0, 0, 0.75)
    settle()
    assert lesson.render_count == writes and lesson.text() == text
    assert lesson.session.set_cell("w_q", 0, 0, 0.5)
    settle()
    assert lesson.render_count == writes + 1
    assert explain.projection(lesson.session.result, "q", 0, 0).text in lesson.text()
    colours.use("dark")  # the same numbers in other colours (View → Theme)
    settle()
    assert lesson.render_count == writes + 2


def test_lesson_keys_leave_typing_and_table_editing_alone(make_lesson, qtbot):
    lesson = make_lesson(editors=True)
    lesson.enter()
    settle()
    main = lesson.main
    edit = main.findChild(QtWidgets.QLineEdit, "sentenceEdit")
    edit.setFocus()
    edit.end(False)
    qtbot.keyClick(edit, Qt.Key.Key_Space)
    qtbot.keyClicks(edit, "on")
    qtbot.keyClick(edit, Qt.Key.Key_Left)
    qtbot.keyClick(edit, Qt.Key.Key_PageDown)
    settle()
    assert edit.text() == "The cat sat on" and lesson.index == 0
    view = main.findChild(QtWidgets.QTableView, "tokenTable")
    index = view.model().index(0, 2)
    view.setCurrentIndex(index)
    qtbot.keyClick(view, Qt.Key.Key_Right)  # moves the table's cursor, not the lesson
    assert view.currentIndex().column() == 3 and lesson.index == 0
    view.edit(view.currentIndex())
    editor = view.focusWidget()
    assert isinstance(editor, QtWidgets.QLineEdit)
    editor.clear()
    qtbot.keyClicks(editor, "0.75")
    qtbot.keyClick(editor, Qt.Key.Key_Left)
    qtbot.keyClick(editor, Qt.Key.Key_Space)
    assert lesson.index == 0
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    settle()
    assert lesson.index == 0
    qtbot.keyClick(lesson.pane.text, Qt.Key.Key_Right)  # from the lesson's text, the same key steps
    assert lesson.index == 1


def test_every_step_fills_every_placeholder(lesson):
    lesson.session.select(2, 1)
    settle()
    for k in range(len(lesson.steps)):
        lesson.go(k)
        lesson.revealed.update(range(20))
        lesson.render()
        text = lesson.text()
        assert "unknown placeholder" not in text and "{" not in text, (k, text)
    assert "'sat'" in lesson.text()


def test_the_last_appendix_s_links_open_the_model_examples(lesson):
    lesson.go(len(lesson.steps) - 1)  # "Inside a trained model"
    settle()
    links = [a for a in lesson.html().split('href="')[1:] if a.startswith("example:")]
    assert links  # one link for each example
    lesson.pane.text.anchorClicked.emit(QtCore.QUrl(links[0].split('"')[0]))
    assert lesson.examples_opened == [links[0].split('"')[0].split(":", 1)[1]]


def test_quick_check_answers_hidden_until_revealed(lesson):
    lesson.go(next(k for k, st in enumerate(lesson.steps) if st.slug == "12-quick-checks"))
    settle()
    text = lesson.text()
    assert "Is a token always one whole word?" in text
    assert "punctuation mark" not in text and text.count("Show the answer") >= 8
    lesson.pane.text.anchorClicked.emit(QtCore.QUrl("reveal:0"))
    assert "punctuation mark" in lesson.text()
    lesson.pane.text.anchorClicked.emit(QtCore.QUrl("reveal:8"))
    assert explain.score(lesson.session.result, 0, 0).text in lesson.text()


def test_softmax_direction_demo_shows_both_ways_live(lesson):
    lesson.go(8)
    settle()
    text = lesson.text()
    assert "Softmax along each row" in text and "Softmax down each column" in text
    s = lesson.session.scenario
    bug = compute(s.with_options(softmax_over="queries"))
    assert text.count("1.00 \u2713") == 3
    for total in views.row_sums(bug):
        assert f"{explain.fixed(total, 2)} " in text
    assert "\u2717" in text


def test_exercise_accepts_right_and_rejects_wrong(make_lesson, qtbot):
    lesson = make_lesson("seed-cat")
    lesson.enter()
    session = lesson.session
    qtbot.mouseClick(lesson.pane.exerciseButton, Qt.MouseButton.LeftButton)
    assert lesson.pane.stack.currentWidget() is lesson.pane.exercise
    lesson.new_exercise("q", i=0, c=0)
    page = lesson.pane.exercise
    assert lesson.cover.isVisible() and "q1" in page.question.text()
    assert "-0.13" not in page.question.text() + page.given.text()
    qtbot.keyClicks(page.answer, "-0.13")
    qtbot.mouseClick(page.checkButton, Qt.MouseButton.LeftButton)
    assert page.feedback.text().startswith("\u2714") and "Right" in page.feedback.text()
    assert explain.projection(session.result, "q", 0, 0).text in page.worked.text()
    assert not lesson.cover.isVisible()

    lesson.new_exercise("score", i=0, j=0)
    assert lesson.cover.isVisible() and page.worked.text() == ""
    qtbot.keyClicks(page.answer, "0.5")
    qtbot.keyClick(page.answer, Qt.Key.Key_Return)
    assert page.feedback.text().startswith("\u2718") and "Hint" in page.feedback.text()
    assert lesson.check("0.047") is True  # 0.0471 to the 3 decimals shown
    assert explain.score(session.result, 0, 0).text in page.worked.text()

    lesson.new_exercise("weight", i=0, j=0)
    assert lesson.check("1") is True
    lesson.new_exercise("output", i=0, c=1)
    assert lesson.check(explain.fixed(session.result.output[0, 1] + 0.02, 2)) is False
    assert lesson.check(explain.fixed(session.result.output[0, 1], 2)) is True
    lesson.set_exercise(False)
    assert lesson.pane.stack.currentWidget() is lesson.pane.text and not lesson.cover.isVisible()


def test_the_cover_lies_over_the_panels_and_follows_their_area(make_lesson):
    # (on a small screen, where the panels scroll and the window has a status line: test_lesson.py)
    lesson = make_lesson("seed-cat")
    lesson.enter()
    lesson.set_exercise(True)
    lesson.new_exercise("q", i=0, c=0)
    settle()
    scroll = lesson.main.centralWidget()
    assert lesson.cover.isVisible()
    assert lesson.cover.geometry() == QtCore.QRect(scroll.mapTo(lesson.main, QtCore.QPoint(0, 0)), scroll.size())
    lesson.main.resize(1300, 900)
    settle(rounds=6)
    assert lesson.cover.geometry() == QtCore.QRect(scroll.mapTo(lesson.main, QtCore.QPoint(0, 0)), scroll.size())


def test_an_exercise_gives_nothing_away_until_it_is_solved_or_shown(make_lesson, qtbot):
    lesson = make_lesson("seed-the-cat-sat")
    session = lesson.session
    lesson.set_exercise(True)
    lesson.new_exercise("score", i=1, j=2)
    page = lesson.pane.exercise
    r = session.result
    answer = explain.fixed(r.scores[1, 2], 3)
    selection = session.selection

    def hidden():
        shown = page.question.text() + page.given.text() + page.feedback.text() + page.worked.text()
        return lesson.cover.isVisible() and not page.worked.isVisible() and answer not in shown \
            and explain.score(r, 1, 2).text not in shown

    qtbot.keyClicks(page.answer, "abc")
    qtbot.keyClick(page.answer, Qt.Key.Key_Return)
    assert page.feedback.text() == "That is not a number."
    assert hidden() and session.selection == selection
    wrong = float(r.scores[1, 2]) + 0.4
    for tries in range(1, 5):  # a hint and another try, as often as the student wants
        page.answer.clear()
        qtbot.keyClicks(page.answer, explain.fixed(wrong, 3))
        qtbot.mouseClick(page.checkButton, Qt.MouseButton.LeftButton)
        assert page.feedback.text().startswith("\u2718"), tries
        assert hidden(), tries
    assert "too high" in page.feedback.text() and "Show answer" in page.feedback.text()
    qtbot.mouseClick(page.showButton, Qt.MouseButton.LeftButton)
    assert answer in page.feedback.text() and explain.score(r, 1, 2).text in page.worked.text()
    assert page.worked.isVisible() and not lesson.cover.isVisible()
    assert (session.selection.query, session.selection.key) == (1, 2)  # the panels show that pair
    assert not page.showButton.isEnabled()
    lesson.new_exercise("q", i=0, c=0)  # a new question hides everything again
    assert lesson.cover.isVisible() and page.showButton.isEnabled() and page.feedback.text() == ""


def test_lesson_follows_cross_attention_and_an_empty_source(make_lesson):
    # The lesson read the key from the target sentence: with a longer source it showed the wrong key,
    # and with the source cleared it raised IndexError on every change.
    lesson = make_lesson("translation")
    lesson.enter()
    lesson.go(4)  # the key step names the key token
    settle()
    s = lesson.session
    s.set_source("le petit chat noir dort ici maintenant")
    settle()
    s.select(0, 6)  # key 7 is only in the source
    settle()
    assert "maintenant" in lesson.text()
    s.set_source("")
    settle()  # no exception in the event loop (pytest-qt fails the test on one)
    assert lesson.text()  # still a page to read
    lesson.set_exercise(True)
    lesson.new_exercise("score")
    assert "source sentence" in lesson.pane.exercise.question.text()
    s.set_source("le chat")
    settle()
    lesson.new_exercise("score", i=0, j=1)
    assert "'chat'" in lesson.pane.exercise.question.text()


def _cells_with(doc, start: str) -> list:
    """(text, number of lines) of every table cell that holds a word beginning ``start``."""
    found, cursor = [], doc.find(start)
    while not cursor.isNull():
        block = cursor.block()
        if cursor.currentTable() is not None:
            found.append((block.text(), block.layout().lineCount()))
        cursor = doc.find(start, cursor)
    return found


#: The lesson pane's width in the window on a 1024 x 768 projector (the editing docks narrowed) and at 1600 x 1000.
PANE_WIDTHS = {"projector": ((1024, 740), 307), "big": ((1600, 1000), 480)}


@pytest.mark.parametrize("screen", list(PANE_WIDTHS))
def test_the_softmax_tables_never_break_a_token_name(make_lesson, screen):
    # In a narrow lesson pane the tables broke long names over two lines ("stude / nts"). A name is
    # now whole, or shortened with "…" when even one table of whole names is wider than the pane.
    size, width = PANE_WIDTHS[screen]
    lesson = make_lesson(size=size)
    lesson.session.set_text("students understand everything")
    lesson.enter()
    lesson.main.resizeDocks([lesson.dock], [width], Qt.Orientation.Horizontal)
    lesson.go(8)
    settle(rounds=6)
    assert abs(lesson.dock.width() - width) <= 2
    doc = lesson.pane.text.document()
    for word in ("students", "understand", "everything"):
        cells = _cells_with(doc, word[:3])
        assert len(cells) == 4, (word, cells)  # the row and column names of both tables
        for text, lines in cells:
            assert lines == 1 and (text == word or (text.endswith("\u2026") and word.startswith(text[:-1]))), \
                (word, text, lines)
    if screen == "big":  # room enough: every name whole
        assert all(text == word for word in ("students", "understand", "everything")
                   for text, _lines in _cells_with(doc, word[:3]))
    tables = [f for f in doc.rootFrame().childFrames() if isinstance(f, QtGui.QTextTable)]
    assert tables and max(doc.documentLayout().frameBoundingRect(f).right() for f in tables) \
        <= lesson.pane.text.viewport().width() + 4  # no table wider than the pane


def test_the_appendix_uses_the_experiment_and_its_live_numbers(make_lesson, qtbot):
    lesson = make_lesson("designed-it")  # opening it selects 'it' -> 'animal'
    lesson.enter()
    lesson.go(next(i for i, s in enumerate(lesson.steps) if s.panel == "trainPanel"))
    settle()
    docks = lesson.experiments.docks
    assert lesson.step.appendix and docks["dockTrain"].isVisible()
    session = lesson.session
    # no target yet: the selected pair becomes it, so the text has numbers to show
    assert np.array_equal(session.train_target, training.look_at(session.scenario, "it", "animal"))
    text = lesson.text()
    weight = session.result.weights[7, 1]
    assert "Here the target is 'it' \u2192 'animal'" in text
    assert f"a weight of {weight:.2f}" in text and f"L = -log({weight:.4f}) = {-np.log(weight):.4f}" in text
    assert "(no target yet)" not in text and "unknown placeholder" not in text
    panel = lesson.experiments.panels["trainPanel"]
    panel.stepsSpin.setValue(5)
    panel.lrSpin.setValue(0.1)
    panel.train()
    qtbot.waitUntil(lambda: not panel.running, timeout=10000)
    settle()
    text = lesson.text()
    assert "here 0.1." in text and f"After 5 steps the loss went from {panel.losses[0]:.4f} to " in text
    # the link in the text opens the experiment again
    docks["dockTrain"].close()
    settle()
    assert "Open the experiment" in text
    lesson.pane.text.anchorClicked.emit(QtCore.QUrl("open:trainPanel"))
    settle()
    assert docks["dockTrain"].isVisible()


def test_the_lesson_follows_a_new_palette(lesson):
    lesson.go(next(k for k, st in enumerate(lesson.steps) if "::: softmax-direction" in st.body))  # live tables
    settle()
    renders = lesson.render_count
    assert style.FOREGROUND in lesson.html() and style.STANDARD.table_edge in lesson.html()
    colours.use("dark")  # View → Theme → Dark
    settle()
    assert lesson.render_count > renders  # drawn again at once
    html = lesson.html()
    assert style.DARK.foreground in html and style.DARK.table_edge in html and style.FOREGROUND not in html
    doc = lesson.pane.text.document()
    first = doc.begin().begin().fragment().charFormat().foreground().color().name()
    assert first == style.DARK.foreground.lower()  # what the pane shows: light words
    page = lesson.pane.exercise
    assert style.DARK.foreground in page.given.styleSheet() and style.DARK.worked[0] in page.worked.styleSheet()
    frame = lesson.grid.frames[lesson.highlighted_panel()]
    assert frame.outline == style.DARK.ink.get(lesson.step.role or "", style.DARK.selected)


def test_a_wrong_answer_is_written_in_the_palette_s_error_ink(lesson):
    colours.use("high-contrast")
    lesson.set_exercise(True)
    settle()
    lesson.check("123456")
    assert style.HIGH_CONTRAST.error_ink in lesson.pane.exercise.feedback.styleSheet()
    colours.use("dark")
    assert style.DARK.error_ink in lesson.pane.exercise.feedback.styleSheet()


def test_the_lesson_step_is_saved_and_reopened(lesson, settings, tmp_path):
    # The window's file keeps the lesson's step beside the session's view and puts it back (as wired there).
    never = lambda *_a: None  # noqa: E731
    document = SessionFile(lesson.session, Recovery(tmp_path / "recovery"), settings,
                           Questions(ask_unsaved=lambda: "discard", ask_file=never, ask_restore=never,
                                     tell_error=never, view=lesson.view_state, restore_view=lesson.restore_view))
    lesson.go(5)
    settle()
    path = tmp_path / "lesson-step.qkv.json"
    assert document.save_as(str(path))
    assert json.loads(path.read_text(encoding="utf-8"))["view"]["lesson_step"] == 6
    lesson.go(0)
    lesson.leave()
    assert document.open(path)
    settle()
    assert lesson.active and lesson.index == 5 and lesson.dock.isVisible()
    assert lesson.pane.stepLabel.text() == "Step 6 of 12"
    lesson.leave()  # saved outside the lesson: opened, the lesson stays off
    assert document.save_as(str(path))
    assert json.loads(path.read_text(encoding="utf-8"))["view"]["lesson_step"] is None
    assert document.open(path) and not lesson.active
    document.close()
