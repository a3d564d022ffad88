"""Designed examples in the app: their own section of the preset menu and combo, their note where the
teacher looks (the sentence dock and the lesson), the promised pair selected on opening, and a note on
what a newly typed word got."""
import pytest
from PySide6 import QtWidgets

from qkv_engine import compute, model_examples, presets
from qkv_gui.state import session as session_module
from qkv_gui.editors import SentenceOptionsWidget
from qkv_gui.editors.example_note import ExampleNoteBox
from qkv_gui.window.main_window import DESIGNED_SECTION, MODEL_SECTION

from tests.gui.conftest import settle

DESIGNED = [p.name for p in presets.all_presets() if p.designed]


def test_the_preset_menu_and_combo_group_the_designed_examples(window):
    assert len(DESIGNED) >= 4
    actions = window.presetMenu.actions()
    texts = [a.text() for a in actions]
    heading = texts.index(DESIGNED_SECTION)
    assert actions[heading].isSeparator()  # a section: a heading, not something to open
    below = [a.objectName() for a in actions[heading + 1:]]
    models = [f"preset:{e.name}" for e in model_examples.EXAMPLES]  # then the examples with the built-in model
    assert below == [f"preset:{name}" for name in DESIGNED] + [""] + models
    assert actions[texts.index(MODEL_SECTION)].isSeparator()
    assert all(not a.objectName().removeprefix("preset:") in DESIGNED for a in actions[:heading])
    combo = window.presetCombo
    index = combo.findText(DESIGNED_SECTION)
    item = combo.model().item(index)
    assert not item.isEnabled() and not item.isSelectable() and combo.itemData(index) is None
    assert [combo.itemData(k) for k in range(index + 1, combo.count())] == \
        DESIGNED + [None, None] + [e.name for e in model_examples.EXAMPLES]
    next(a for a in actions if a.objectName() == "preset:seed-cat").trigger()  # File → Open preset → One token
    settle()
    assert window.session.scenario.tokens == ("cat",)
    assert combo.currentData() == "seed-cat" and "One token" in window.windowTitle()  # the combo and title follow
    combo.setCurrentIndex(combo.findData("designed-agreement"))
    settle()
    assert window.session.preset_name == "designed-agreement"
    combo.setCurrentIndex(combo.findData("model-it"))
    window.session.runner.wait()
    settle()
    assert window.session.model_example == "model-it" and window.session.model_doc is not None


@pytest.mark.parametrize("name", DESIGNED)
def test_opening_a_designed_example_shows_its_note_and_selects_its_promised_pair(make_session, make_panel, name):
    session = make_session("seed-cat")
    options = make_panel(SentenceOptionsWidget, session=session, size=(420, 900))
    box = options.exampleNote
    assert not box.isVisible()
    session.load_preset(name)
    settle()
    preset = presets.get(name)
    shown = box.text.toPlainText()
    assert box.isVisible() and shown.startswith(preset.title)
    assert box.minimumSizeHint().width() < 200  # a long title wraps: it never widens the dock
    for paragraph in preset.note.split("\n"):
        assert paragraph.split(":")[-1].strip()[:40] in shown
    i, j = preset.pairs[0]
    assert (session.selection.query, session.selection.key) == (i, j)
    weights = compute(session.scenario).weights
    assert weights[i].argmax() == j  # the pair the note promises is the largest of its row
    session.load_preset("pronoun")  # random weights: no note
    settle()
    assert not box.isVisible()


def test_the_note_folds_away_and_comes_back(make_panel):
    box = make_panel(ExampleNoteBox, preset="designed-it", size=(400, 300))
    box.toggle.setChecked(True)
    assert box.text.isVisible()
    box.toggle.click()
    assert not box.text.isVisible() and box.isVisible()
    box.toggle.click()
    assert box.text.isVisible()


def test_typing_over_a_word_says_what_the_new_word_got_after_the_pause(make_panel, qtbot, monkeypatch):
    monkeypatch.setattr(session_module, "TYPING_PAUSE", 0.05)
    options = make_panel(SentenceOptionsWidget, preset="designed-it", size=(420, 700))
    session = options.session
    edit = options.sentenceEdit
    for text in ("The d didn't cross", "The do didn't cross", "The dog didn't cross"):  # typed, letter by letter
        edit.setText(text)
        edit.textEdited.emit(text)
        settle()
    label = options.newWordsLabel
    assert not label.isVisible()  # not while typing
    qtbot.waitUntil(label.isVisible, timeout=2000)
    assert label.text() == "'dog' took the features of 'animal'."
    assert session.messages[-1] == label.text()  # and the status line
    s = session.scenario
    assert s.x[s.tokens.index("dog")].tolist() == presets.load("designed-it").x[1].tolist()


def test_a_word_typed_in_between_gets_zeros_and_random_examples_say_nothing(make_session, qtbot, monkeypatch):
    monkeypatch.setattr(session_module, "TYPING_PAUSE", 0.05)
    session = make_session("designed-it")
    notes = []
    session.newWordsNoted.connect(notes.append)
    session.set_text("The big animal didn't cross")
    qtbot.waitUntil(lambda: bool(notes), timeout=2000)
    assert notes == ["'big' is new: its features are 0; edit them in the table."]
    random = make_session("pronoun")
    random.newWordsNoted.connect(notes.append)
    random.set_text("The cat did not cross")
    qtbot.wait(200)
    assert len(notes) == 1  # random examples give new words random features, as always: no note


def test_the_lesson_shows_the_note_of_a_designed_example(make_parts):
    w = make_parts("designed-adjective-noun", lesson=True)  # the lesson beside the panel grid
    w.enter_lesson_mode()
    settle()
    text = w.lesson.text()
    assert "About this example: Adjective \u2192 noun" in text and "describes a noun" in text
    w.session.load_preset("seed-cat")
    settle()
    assert "About this example" not in w.lesson.text()


def test_a_window_opened_on_a_designed_example_shows_the_promised_query_in_the_token_table(make_parts):
    w = make_parts("designed-it", editors=True)  # the Session opens on the pair, then the docks are made
    settle()
    assert (w.session.selection.query, w.session.selection.key) == (7, 1)  # 'it' -> 'animal'
    view = w.findChild(QtWidgets.QTableView, "tokenTable")
    assert view.verticalScrollBar().maximum() > 0  # not every row fits: the table had to scroll to it
    assert view.viewport().rect().intersects(view.visualRect(view.model().index(7, 1)))
