"""Nothing lost: the session's file (``SessionFile``) on a Session alone. Saving and opening, a bad file, a
failed save, the unsaved-changes question, autosave and recovery after a crash. The questions the window asks
in dialogs are answered here by the test; what the window itself adds (its title, the Edit menu's Undo, the
Recent menu, closing, a file dropped on it) is tested in ``window/test_sessions_undo.py``."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qkv_engine import presets, session_format
from qkv_gui.state.session_file import Questions, SessionFile
from qkv_gui.system.recovery import Recovery

from tests.gui.conftest import settle
from tests.gui.support.scenario_snapshot import same, snapshot

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def make_document(make_session, settings, tmp_path):
    """A session's file on its own Session, with the recovery folder of the test: ``make_document("seed-cat")``.

    The questions are answered as ``document.answers`` says (unsaved changes: "discard", restore: no, which
    file: none); ``document.asked`` lists the questions asked, ``document.errors`` the errors told, and
    ``document.notes`` the status line's notes."""
    made = []

    def make(preset=None):
        session = make_session(preset)
        answers = {"unsaved": "discard", "restore": False, "file": None}
        asked, errors = [], []
        questions = Questions(
            ask_unsaved=lambda: asked.append("unsaved") or answers["unsaved"],
            ask_file=lambda saving, folder: asked.append(("file", saving, folder)) or answers["file"],
            ask_restore=lambda: asked.append("restore") or answers["restore"],
            tell_error=lambda title, text: errors.append(text))
        document = SessionFile(session, Recovery(tmp_path / "recovery"), settings, questions)
        document.answers, document.asked, document.errors = answers, asked, errors
        document.notes = []
        document.note.connect(lambda text, _ms: document.notes.append(text))
        document.changes = []
        document.changed.connect(lambda: document.changes.append(document.path))
        made.append(document)
        return document

    yield make
    for document in made:
        document.close()
        document.deleteLater()


@pytest.fixture
def document(make_document):
    return make_document()


def test_save_and_open_round_trip(document, tmp_path):
    session = document.session
    session.set_cell("w_q", 0, 1, "0.123456789")
    session.set_option(causal=True)
    session.select(2, 1)
    settle()
    assert document.is_modified()  # the window's title is marked
    path = tmp_path / "lesson.qkv.json"
    assert document.save_as(str(path))
    assert document.path == path and document.changes[-1] == path  # the title names the file
    assert not document.is_modified() and document.notes[-1] == "Saved lesson.qkv.json"
    saved = session.scenario
    session.load_preset("seed-cat")
    settle()
    assert document.is_modified()
    assert document.open(path)
    settle()
    assert session.scenario == saved
    assert session.selection.query == 2 and session.selection.key == 1
    assert not document.is_modified()
    assert document.recent_files()[0] == str(path.resolve())
    assert document.asked == ["unsaved"]  # the preset opened since was not saved: asked (and discarded)


def test_save_and_open_without_a_file_ask_which_and_a_cancel_changes_nothing(document, tmp_path):
    document.session.set_text("Where shall this go")
    settle()
    assert not document.save()  # no file yet: asked which, and the user cancelled
    assert document.asked == [("file", True, str(Path.home()))] and document.is_modified()
    path = tmp_path / "chosen.qkv.json"
    document.answers["file"] = str(path)
    assert document.save()
    assert path.is_file() and document.path == path and not document.is_modified()
    document.asked.clear()
    assert document.save()  # the file is known now: saved there without asking
    assert document.asked == []
    document.answers["file"] = None
    assert not document.open()  # which file? (in the folder of this one) cancelled: nothing happens
    assert document.asked == [("file", False, str(tmp_path))] and document.path == path


def test_recent_files_newest_first_without_repeats(document, tmp_path):
    names = [f"f{k}.qkv.json" for k in range(10)]
    for name in names:
        assert document.save_as(str(tmp_path / name))
    assert document.save_as(str(tmp_path / names[3]))
    recent = document.recent_files()
    assert len(recent) == 8  # File → Open Recent lists the last eight
    assert [Path(p).name for p in recent[:3]] == [names[3], names[9], names[8]]
    assert len(set(recent)) == len(recent)


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
def test_a_bad_file_is_refused_with_its_reason_and_the_work_stays(document, tmp_path, content, words):
    document.session.set_cell("x", 0, 0, "0.77")
    settle()
    before = snapshot(document)
    bad = tmp_path / "bad.qkv.json"
    bad.write_text(content, encoding="utf-8")
    document.answers["unsaved"] = "discard"
    assert not document.open(bad)
    assert len(document.errors) == 1 and words in document.errors[0] and "bad.qkv.json" in document.errors[0]
    assert same(snapshot(document), before)
    assert document.is_modified() and document.path is None


def test_a_crash_mid_save_leaves_the_previous_file_intact(document, tmp_path, monkeypatch):
    path = tmp_path / "keep.qkv.json"
    assert document.save_as(str(path))
    good = path.read_bytes()
    document.session.set_cell("x", 0, 0, "0.5")

    def boom(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    assert not document.save()
    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".qkv-")] == []
    assert document.is_modified()
    assert "No space left" in document.errors[-1]


def test_an_unwritable_folder_says_so_and_keeps_the_work(document, tmp_path):
    document.session.set_cell("x", 0, 0, "0.5")
    before = snapshot(document)
    target = tmp_path / "missing-folder" / "x.qkv.json"
    assert not document.save_as(str(target))
    assert "Could not save" in document.errors[-1] and "Your work is still here" in document.errors[-1]
    assert same(snapshot(document), before) and document.is_modified() and document.path is None


def test_replacing_unsaved_work_asks_first(make_document, tmp_path):
    # Closing the window, opening a file or a model ask this question first (the window's close: the window
    # tests): cancel keeps the work, discard lets it go, save saves it first.
    path = tmp_path / "other.qkv.json"
    session_format.save_file(path, presets.load("seed-cat"))
    document = make_document()
    assert document.keep_changes() and document.asked == []  # nothing unsaved: nothing asked
    document.session.set_text("Precious work")
    settle()
    document.answers["unsaved"] = "cancel"
    assert not document.keep_changes()
    assert not document.open(path)
    assert document.asked == ["unsaved", "unsaved"] and document.session.scenario.text == "Precious work"
    document.answers["unsaved"] = "discard"
    assert document.keep_changes() and document.session.scenario.text == "Precious work"
    assert document.open(path)
    assert document.session.scenario.tokens == ("cat",)
    # "Save": saved first (a file is asked for when there is none), then replaced
    document.session.set_text("Kept work")
    settle()
    document.answers.update(unsaved="save", file=str(tmp_path / "kept.qkv.json"))
    assert document.keep_changes()  # the file opened last: saved there
    assert session_format.load_file(path)[0].text == "Kept work" and not document.is_modified()
    document.forget()  # (a model was opened, say): the next save asks for a file
    document.session.set_text("More work")
    settle()
    assert document.keep_changes()
    assert session_format.load_file(tmp_path / "kept.qkv.json")[0].text == "More work"
    document.session.set_text("Lost cause")
    settle()
    document.answers["file"] = None  # asked where, and cancelled: the work stays
    document.forget()
    assert not document.keep_changes() and document.is_modified()


def test_a_file_s_selection_is_kept_when_it_is_opened(document, tmp_path):
    # (as the command line opens a file: ``main.py lesson.qkv.json``)
    path = tmp_path / "v.qkv.json"
    session_format.save_file(path, presets.load("long-sentence"), {"query": 4, "key": 9, "preset": "long-sentence"})
    assert document.open(path)
    settle()
    assert (document.session.selection.query, document.session.selection.key) == (4, 9)
    assert document.session.preset_name == "long-sentence"
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["format"] == "qkv-visualizer" and doc["version"] == session_format.VERSION == 3


def test_autosave_and_recovery(make_document, tmp_path):
    w = make_document()
    assert not w.autosave()  # nothing unsaved
    w.session.set_cell("w_k", 0, 0, "0.25")
    w.session.set_text("A crash is coming")
    w.session.select(2, 1)
    settle()
    assert w.autosave()
    recovered, view = session_format.load_file(w.recovery_file)
    assert recovered == w.session.scenario and (view["query"], view["key"]) == (2, 1)
    assert not w.autosave()  # nothing new since
    # A crash: the window's lock is let go (its process ended) without the window closing; the file stays.
    w.recovery.lock.unlock()
    w2 = make_document()
    w2.answers["restore"] = True
    assert w2.offer_recovery()
    settle()
    assert w2.asked == ["restore"]
    assert w2.session.scenario == recovered
    assert (w2.session.selection.query, w2.session.selection.key) == (2, 1)
    assert w2.is_modified() and w2.path is None  # unsaved, and never saved to a file
    assert w2.session.undo_stack.undoText() == "restore unsaved work"
    assert not w.recovery_file.exists()  # the crashed window's file is taken over ...
    assert session_format.load_file(w2.recovery_file)[0] == recovered  # ... into this window's own
    path = tmp_path / "saved.qkv.json"
    assert w2.save_as(str(path))
    assert not w2.recovery_file.exists()


def test_recovery_gives_back_the_file_the_work_belonged_to(make_document, tmp_path):
    w = make_document()
    path = tmp_path / "mine.qkv.json"
    assert w.save_as(str(path))
    w.session.set_text("Edited after saving")
    settle()
    assert w.autosave()
    w.recovery.lock.unlock()  # as after a crash
    w2 = make_document()
    w2.answers["restore"] = True
    assert w2.offer_recovery()
    assert w2.path == path and w2.changes[-1] == path  # the title names the file again ...
    assert w2.is_modified()  # ... with unsaved changes
    assert w2.save() and session_format.load_file(path)[0].text == "Edited after saving"


def test_the_autosave_timer_keeps_the_work_every_few_seconds(document, qtbot):
    document.timer.setInterval(50)
    document.timer.start()
    document.session.set_text("Kept by the timer")
    qtbot.waitUntil(document.recovery_file.is_file, timeout=5000)
    assert session_format.load_file(document.recovery_file)[0].text == "Kept by the timer"
    document.close()
    assert not document.timer.isActive() and not document.recovery_file.exists()  # closed normally: no file


def test_an_autosave_that_fails_says_so_on_the_status_line(document, monkeypatch):
    document.session.set_text("Nowhere to keep this")
    settle()

    def full(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(session_format, "save_file", full)
    assert not document.autosave()
    assert document.notes[-1] == "Autosave failed: No space left on device" and document.errors == []


def test_declining_recovery_removes_the_file(make_document):
    w = make_document()
    w.session.set_text("Another try")
    settle()
    assert w.autosave()
    w.recovery.lock.unlock()  # as after a crash
    w2 = make_document()
    assert not w2.offer_recovery()  # declined
    assert w2.asked == ["restore"] and w2.session.scenario.text != "Another try"
    assert not w.recovery_file.exists()
    assert list(w.recovery.folder.iterdir()) == [w2.recovery._lock_path(w2.recovery_file)]  # w2's own lock


def test_an_unreadable_recovery_file_is_removed_without_asking(make_document, tmp_path):
    w = make_document()
    w.session.set_text("Soon garbled")
    settle()
    assert w.autosave()
    w.recovery.lock.unlock()
    w.recovery_file.write_text("{garbled", encoding="utf-8")
    w2 = make_document()
    w2.answers["restore"] = True
    assert not w2.offer_recovery()
    assert w2.asked == [] and not w.recovery_file.exists()


def test_a_second_window_never_offers_the_work_of_one_still_running(make_document):
    first = make_document()
    first.session.set_text("Work in the first window")
    settle()
    assert first.autosave()
    second = make_document()
    second.answers["restore"] = True
    assert not second.offer_recovery()
    assert second.asked == [] and first.recovery_file.is_file()  # not offered, not removed
    assert second.recovery_file != first.recovery_file
    second.session.set_text("Work in the second window")
    settle()
    assert second.autosave()
    assert session_format.load_file(first.recovery_file)[0].text == "Work in the first window"


#: The session's file in its own process (as a window has it) that keeps unsaved work and then waits, until the
#: test kills it.
CRASHING_DOCUMENT = """
import sys
from PySide6 import QtCore, QtGui
app = QtGui.QGuiApplication([])
from qkv_engine import presets
from qkv_gui.state.session import Session
from qkv_gui.state.session_file import Questions, SessionFile
from qkv_gui.system.recovery import Recovery
session = Session(presets.load(presets.DEFAULT))
never = lambda *_a: None
document = SessionFile(session, Recovery(sys.argv[2]), QtCore.QSettings(sys.argv[1], QtCore.QSettings.Format.IniFormat),
                       Questions(ask_unsaved=never, ask_file=never, ask_restore=never, tell_error=never))
session.set_text("Work of a window that will crash")
for _ in range(4):
    app.processEvents()
assert document.autosave()
print("saved", flush=True)
sys.stdin.readline()  # the test kills the process here
"""


def test_only_a_crashed_window_s_work_is_offered(make_document, tmp_path):
    # Two processes: while the other runs its file is not offered; once its process is killed (a crash), the
    # next one offers it and restores it.
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    other = subprocess.Popen([sys.executable, "-c", CRASHING_DOCUMENT, str(tmp_path / "other.ini"),
                              str(tmp_path / "recovery")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, cwd=str(ROOT), env=env)
    try:
        assert other.stdout.readline().strip() == "saved"
        alive = make_document()
        alive.answers["restore"] = True
        assert not alive.offer_recovery() and alive.asked == []
    finally:
        other.kill()
        other.wait(timeout=30)
    after = make_document()
    after.answers["restore"] = True
    assert after.offer_recovery() and after.asked == ["restore"]
    settle()
    assert after.session.scenario.text == "Work of a window that will crash"
    assert not after.offer_recovery()  # offered once only
    assert after.asked == ["restore"]


def test_autosave_keeps_the_last_step_of_a_training_run(document):
    """A run's steps merge into one undo step (the undo index stays): autosave still keeps the newest numbers."""
    s = document.session
    run = object()
    first = s.scenario.with_cell("w_q", 0, 0, 1.5)
    assert s.train_to(first, run)
    assert document.autosave()
    second = first.with_cell("w_k", 0, 0, -0.5)
    assert s.train_to(second, run)
    assert document.autosave()  # the same undo index, a newer document
    kept, _view = session_format.load_file(document.recovery_file)
    assert kept.w_k[0, 0] == -0.5 and kept.w_q[0, 0] == 1.5
    assert not document.autosave()  # nothing new since
