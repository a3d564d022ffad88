"""Nothing lost: undo and redo of every kind of edit; what the window shows of its session file (title, Edit
menu, Open Recent, closing, a dropped file). Saving, opening, autosave and recovery: state/test_session_file.py."""
import time

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import presets, session_format
from qkv_gui.editors import SentenceOptionsWidget
from qkv_gui.state import session as session_module

from tests.gui.conftest import settle
from tests.gui.support.scenario_snapshot import same, snapshot

Qt = QtCore.Qt


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
    undo stack's own actions: ``test_the_title_the_edit_menu_and_open_recent_follow_the_file`` checks them and
    the title's mark)."""
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


def test_the_title_the_edit_menu_and_open_recent_follow_the_file(window, tmp_path):
    # Saving, opening, the unsaved-changes question and recovery themselves: state/test_session_file.py. Here:
    # what the window shows of them, and that its dialogs and its lesson are the ones asked.
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
    assert not window.recentMenu.isEnabled()  # nothing opened or saved yet
    window.enter_lesson_mode()
    window.lesson.go(5)  # the file keeps the lesson's step
    path = tmp_path / "lesson.qkv.json"
    assert window.save_as(str(path))
    assert window.windowTitle().startswith("lesson.qkv.json") and not window.isWindowModified()
    assert window.statusBar().currentMessage() == "Saved lesson.qkv.json"
    saved = window.session.scenario
    window.lesson.leave()
    window.load_preset("seed-cat")
    settle()
    assert window.isWindowModified() and "lesson.qkv.json" in window.windowTitle()
    recent = window.recentMenu.actions()[0]
    assert window.recentMenu.isEnabled() and recent.text() == "lesson.qkv.json"
    assert recent.toolTip() == str(path.resolve())
    recent.trigger()  # File → Open Recent → lesson.qkv.json
    settle()
    assert window.session.scenario == saved and not window.isWindowModified()
    assert window.windowTitle() == "lesson.qkv.json[*] — QKV Visualizer"
    assert window.lesson.active and window.lesson.index == 5
    # a bad file is told in the window's error message
    bad = tmp_path / "bad.qkv.json"
    bad.write_text("{not json", encoding="utf-8")
    assert not window.open_file(bad)
    assert len(window.errors) == 1 and "bad.qkv.json" in window.errors[0]
    # the work a crashed window left (its file in the recovery folder, its lock gone) is offered in the window
    session_format.save_file(window.document.recovery.folder / "crashed.qkv.json", presets.load("pronoun"),
                             {"file": str(tmp_path / "crashed-work.qkv.json")})
    window.ask_restore = lambda: True
    assert window.offer_recovery()
    settle()
    assert window.windowTitle() == "crashed-work.qkv.json[*] — QKV Visualizer" and window.isWindowModified()
    # closing with unsaved changes asks first: Cancel keeps the window open
    asked = []
    window.ask_unsaved = lambda: asked.append(1) or "cancel"
    assert not window.close()
    assert window.isVisible() and asked == [1]
    window.ask_unsaved = lambda: "discard"
    assert window.close()


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
