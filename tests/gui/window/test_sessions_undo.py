"""Nothing lost: undo and redo of every kind of edit, session files, autosave and recovery."""
import json
import os
import time

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import presets, session_format
from qkv_gui.editors import SentenceOptionsWidget
from qkv_gui.state import session as session_module

from tests.gui.conftest import settle

Qt = QtCore.Qt


def snapshot(owner):
    """The scenario's inputs of a window's or an editor's session."""
    s = owner.session.scenario
    return (s.tokens, s.x.copy(), s.w_q.copy(), s.w_k.copy(), s.w_v.copy(), s.scale, s.causal, s.temperature,
            s.softmax_over, s.seed)


def same(a, b):
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b))


#: Each kind of edit as a user makes it in the sentence-and-options editor (``w``), or on its session.
EDITS = {
    "sentence": lambda w: w.session.set_text("The cat sat on the mat"),
    "embedding cell": lambda w: w.session.set_cell("x", 1, 2, "-0.9"),
    "weight cell": lambda w: w.session.set_cell("w_v", 3, 1, "1e-3"),
    "dimension": lambda w: w.findChild(QtWidgets.QSpinBox, "dKSpin").setValue(5),
    "seed": lambda w: w.findChild(QtWidgets.QSpinBox, "seedSpin").setValue(7),
    "scale option": lambda w: w.findChild(QtWidgets.QCheckBox, "scaleCheck").setChecked(False),
    "causal option": lambda w: w.findChild(QtWidgets.QCheckBox, "causalCheck").setChecked(True),
    "temperature": lambda w: w.findChild(QtWidgets.QDoubleSpinBox, "temperatureSpin").setValue(2.5),
    "softmax direction": lambda w: w.findChild(QtWidgets.QComboBox, "softmaxOverCombo").setCurrentIndex(1),
    "preset": lambda w: w.session.load_preset("long-sentence"),
}


@pytest.fixture
def options(make_panel):
    """The sentence-and-options editor on its own session (the window's Undo and Redo are the session's
    undo stack's own actions: ``test_save_and_open_round_trip`` checks them and the title's mark)."""
    return make_panel(SentenceOptionsWidget, size=(420, 600))


@pytest.mark.parametrize("kind", list(EDITS))
def test_every_kind_of_edit_is_one_undoable_step(options, kind):
    stack = options.session.undo_stack
    original = snapshot(options)
    weights = options.session.result.weights.copy()
    EDITS[kind](options)
    settle()
    changed = snapshot(options)
    assert not same(changed, original)
    assert stack.count() == 1
    assert not stack.isClean()  # the window marks its title modified
    assert stack.canUndo() and stack.undoText()  # the window's Undo is enabled and names the edit
    stack.undo()
    settle()
    assert same(snapshot(options), original)
    np.testing.assert_array_equal(options.session.result.weights, weights)
    assert stack.isClean()
    stack.redo()
    settle()
    assert same(snapshot(options), changed)


def test_typing_merges_into_one_step_per_pause(options, qtbot, monkeypatch):
    monkeypatch.setattr(session_module, "TYPING_PAUSE", 0.3)
    session = options.session
    original = session.scenario.text
    edit = options.findChild(QtWidgets.QLineEdit, "sentenceEdit")
    edit.setFocus()
    edit.end(False)
    qtbot.keyClicks(edit, " on")
    settle()
    assert session.undo_stack.count() == 1
    time.sleep(0.4)
    qtbot.keyClicks(edit, " it")
    settle()
    assert session.undo_stack.count() == 2
    assert session.scenario.text == original + " on it"
    session.undo_stack.undo()
    settle()
    assert session.scenario.text == original + " on"
    assert edit.text() == original + " on"
    session.undo_stack.undo()
    settle()
    assert session.scenario.text == original


def test_ctrl_z_in_the_sentence_box_undoes_the_session_step(window, qtbot):
    edit = window.findChild(QtWidgets.QLineEdit, "sentenceEdit")
    window.activateWindow()
    edit.setFocus()
    edit.end(False)
    qtbot.keyClicks(edit, "!")
    settle()
    assert window.session.scenario.tokens[-1] == "!"
    qtbot.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    settle()
    assert window.session.scenario.tokens == ("The", "cat", "sat")
    assert edit.text() == "The cat sat"


def test_save_and_open_round_trip(window, tmp_path):
    window.session.set_cell("w_q", 0, 1, "0.123456789")
    window.session.set_option(causal=True)
    window.session.select(2, 1)
    settle()
    # the Edit menu's Undo and Redo and the title's mark follow the session's steps
    assert window.isWindowModified()
    assert window.undoAction.isEnabled() and window.undoAction.text().startswith("&Undo ")
    window.undoAction.trigger()
    window.undoAction.trigger()
    settle()
    assert not window.isWindowModified() and not window.undoAction.isEnabled()
    window.redoAction.trigger()
    window.redoAction.trigger()
    settle()
    assert window.isWindowModified() and window.session.scenario.causal
    path = tmp_path / "lesson.qkv.json"
    assert window.save_as(str(path))
    assert "lesson.qkv.json" in window.windowTitle() and not window.isWindowModified()
    saved = window.session.scenario
    window.load_preset("seed-cat")
    settle()
    assert window.isWindowModified()
    assert window.open_file(path)
    settle()
    assert window.session.scenario == saved
    assert window.session.selection.query == 2 and window.session.selection.key == 1
    assert not window.isWindowModified()
    assert str(path.resolve()) in window.recent_files()
    assert window.recentMenu.actions()[0].text() == "lesson.qkv.json"


@pytest.mark.parametrize("content, words", [
    ("{not json", "not valid JSON"),
    ('{"format": "qkv-visualizer", "version": 1, "scenario": {"tokens": ["a"]', "not valid JSON"),
    ('{"format": "qkv-visualizer", "version": 99, "scenario": {}}', "version 99"),
    ('{"format": "something-else", "version": 1}', "not a session"),
    ('{"format": "qkv-visualizer", "version": 1, "scenario": {"tokens": ["a", "b"], "x": [[1, 2]], '
     '"w_q": [[1], [2]], "w_k": [[1], [2]], "w_v": [[1], [2]]}}', "scenario.x"),
    ('{"format": "qkv-visualizer", "version": 1, "scenario": {"tokens": ["a"], "x": [[1, "oops"]], '
     '"w_q": [[1], [2]], "w_k": [[1], [2]], "w_v": [[1], [2]]}}', "scenario.x[0][1]"),
])
def test_a_bad_file_is_refused_with_its_reason_and_the_work_stays(window, tmp_path, content, words):
    window.session.set_cell("x", 0, 0, "0.77")
    settle()
    before = snapshot(window)
    bad = tmp_path / "bad.qkv.json"
    bad.write_text(content, encoding="utf-8")
    assert not window.open_file(bad)
    assert len(window.errors) == 1 and words in window.errors[0] and "bad.qkv.json" in window.errors[0]
    assert same(snapshot(window), before)
    assert window.isWindowModified()


def test_a_crash_mid_save_leaves_the_previous_file_intact(window, tmp_path, monkeypatch):
    path = tmp_path / "keep.qkv.json"
    assert window.save_as(str(path))
    good = path.read_bytes()
    window.session.set_cell("x", 0, 0, "0.5")

    def boom(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    assert not window.save()
    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".qkv-")] == []
    assert window.isWindowModified()
    assert "No space left" in window.errors[-1]


def test_an_unwritable_folder_says_so_and_keeps_the_work(window, tmp_path):
    window.session.set_cell("x", 0, 0, "0.5")
    before = snapshot(window)
    target = tmp_path / "missing-folder" / "x.qkv.json"
    assert not window.save_as(str(target))
    assert "Could not save" in window.errors[-1] and "Your work is still here" in window.errors[-1]
    assert same(snapshot(window), before) and window.isWindowModified()


def test_autosave_and_recovery(make_window, tmp_path):
    w = make_window()
    w.autosaveTimer.stop()  # the test calls autosave() itself; the 3 s timer must not get there first
    assert not w.autosave()  # nothing unsaved
    w.session.set_cell("w_k", 0, 0, "0.25")
    w.session.set_text("A crash is coming")
    settle()
    assert w.autosave()
    recovered, view = session_format.load_file(w.recovery_file)
    assert recovered == w.session.scenario
    # A crash: the window's lock is let go (its process ended) without the window closing; the file stays.
    w.recovery.lock.unlock()
    w2 = make_window()
    w2.ask_restore = lambda: True
    assert w2.offer_recovery()
    settle()
    assert w2.session.scenario == recovered
    assert w2.isWindowModified()
    assert not w.recovery_file.exists()  # the crashed window's file is taken over ...
    assert session_format.load_file(w2.recovery_file)[0] == recovered  # ... into this window's own
    path = tmp_path / "saved.qkv.json"
    assert w2.save_as(str(path))
    assert not w2.recovery_file.exists()


def test_declining_recovery_removes_the_file(make_window):
    w = make_window()
    w.autosaveTimer.stop()  # the test calls autosave() itself
    w.session.set_text("Another try")
    settle()
    assert w.autosave()
    w.recovery.lock.unlock()  # as after a crash
    w2 = make_window()
    assert not w2.offer_recovery()  # the fixture declines
    assert not w.recovery_file.exists()
    assert list(w.recovery.folder.iterdir()) == [w2.recovery._lock_path(w2.recovery_file)]  # w2's own lock


def test_a_second_window_never_offers_the_work_of_one_still_running(make_window):
    first = make_window()
    first.autosaveTimer.stop()
    first.session.set_text("Work in the first window")
    settle()
    assert first.autosave()
    second = make_window()
    asked = []
    second.ask_restore = lambda: asked.append(True) or True
    assert not second.offer_recovery()
    assert asked == [] and first.recovery_file.is_file()  # not offered, not removed
    assert second.recovery_file != first.recovery_file
    second.session.set_text("Work in the second window")
    settle()
    assert second.autosave()
    assert session_format.load_file(first.recovery_file)[0].text == "Work in the first window"


#: A window in its own process that keeps unsaved work and then waits, until the test kills it.
CRASHING_WINDOW = """
import sys
from PySide6 import QtCore, QtWidgets
app = QtWidgets.QApplication([])
from qkv_gui.window.main_window import MainWindow
w = MainWindow(settings=QtCore.QSettings(sys.argv[1], QtCore.QSettings.Format.IniFormat), recovery=sys.argv[2])
w.session.set_text("Work of a window that will crash")
for _ in range(4):
    app.processEvents()
assert w.autosave()
print("saved", flush=True)
sys.stdin.readline()  # the test kills the process here
"""


def test_only_a_crashed_window_s_work_is_offered(make_window, tmp_path):
    # Two processes: while the other window runs its file is not offered; once its process is killed
    # (a crash), the next window offers it and restores it.
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(root)}
    other = subprocess.Popen([sys.executable, "-c", CRASHING_WINDOW, str(tmp_path / "other.ini"),
                              str(tmp_path / "recovery")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, cwd=str(root), env=env)
    try:
        assert other.stdout.readline().strip() == "saved"
        asked = []
        alive = make_window()
        alive.ask_restore = lambda: asked.append(True) or True
        assert not alive.offer_recovery() and asked == []
    finally:
        other.kill()
        other.wait(timeout=30)
    after = make_window()
    after.ask_restore = lambda: asked.append(True) or True
    assert after.offer_recovery() and asked == [True]
    settle()
    assert after.session.scenario.text == "Work of a window that will crash"
    assert not after.offer_recovery()  # offered once only


def test_closing_with_unsaved_changes_asks_first(window):
    window.session.set_text("Unsaved work")
    settle()
    window.ask_unsaved = lambda: "cancel"
    assert not window.close()
    assert window.isVisible()
    window.ask_unsaved = lambda: "discard"
    assert window.close()


def test_opening_another_file_with_unsaved_changes_asks_first(window, tmp_path):
    path = tmp_path / "other.qkv.json"
    session_format.save_file(path, presets.load("seed-cat"))
    window.session.set_text("Precious work")
    settle()
    asked = []
    window.ask_unsaved = lambda: asked.append(1) or "cancel"
    assert not window.open_file(path)
    assert asked and window.session.scenario.text == "Precious work"


def test_dropping_a_session_file_opens_it(window, tmp_path):
    path = tmp_path / "dropped.qkv.json"
    session_format.save_file(path, presets.load("seed-cat"))
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(path))])
    pos = QtCore.QPointF(window.width() / 2, window.height() / 2)
    enter = QtGui.QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                  Qt.KeyboardModifier.NoModifier)
    window.dragEnterEvent(enter)
    assert enter.isAccepted()
    drop = QtGui.QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    window.dropEvent(drop)
    settle()
    assert window.session.scenario.tokens == ("cat",)
    assert "dropped.qkv.json" in window.windowTitle()


def test_session_file_from_the_command_line_view_is_kept(window, tmp_path):
    path = tmp_path / "v.qkv.json"
    session_format.save_file(path, presets.load("long-sentence"), {"query": 4, "key": 9, "preset": "long-sentence"})
    assert window.open_file(path)
    settle()
    assert (window.session.selection.query, window.session.selection.key) == (4, 9)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["format"] == "qkv-visualizer" and doc["version"] == session_format.VERSION == 3


def test_the_lesson_step_is_saved_and_reopened(window, tmp_path):
    window.enter_lesson_mode()
    window.lesson.go(5)
    settle()
    path = tmp_path / "lesson-step.qkv.json"
    assert window.save_as(str(path))
    assert json.loads(path.read_text(encoding="utf-8"))["view"]["lesson_step"] == 6
    window.lesson.go(0)
    assert window.open_file(path)
    settle()
    assert window.lesson.active and window.lesson.index == 5


def test_autosave_keeps_the_last_step_of_a_training_run(window):
    """A run's steps merge into one undo step (the undo index stays): autosave still keeps the newest numbers."""
    s = window.session
    run = object()
    first = s.scenario.with_cell("w_q", 0, 0, 1.5)
    assert s.train_to(first, run)
    assert window.autosave()
    second = first.with_cell("w_k", 0, 0, -0.5)
    assert s.train_to(second, run)
    assert window.autosave()  # the same undo index, a newer document
    kept, _view = session_format.load_file(window.recovery_file)
    assert kept.w_k[0, 0] == -0.5 and kept.w_q[0, 0] == 1.5
    assert not window.autosave()  # nothing new since
