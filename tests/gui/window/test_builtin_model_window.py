"""The model the app ships, as a new user meets it: the welcome's "Open a trained model" opens it when it is the
only model on the computer, and lists it first otherwise; the heads its model card names do what the card says.
The welcome, the model actions and the lesson are built on the window's parts (``make_parts``), a head's
numbers on a Session alone; only the Help menu and the status line that points to it need the whole window."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from PySide6 import QtGui, QtWidgets

from qkv_engine import BUILTIN_NAME, builtin_model_path, find_models, load_model
from qkv_gui.window import welcome

from tests.gui.conftest import settle

ROOT = Path(__file__).resolve().parents[3]
TINY_GPT2 = ROOT / "tests" / "data" / "tiny-gpt2"


def hf_cache_with_tiny_gpt2(root: Path) -> Path:
    """A Hugging Face cache holding one other model (a copy of the tiny GPT-2)."""
    snap = root / "hub" / "models--org--tiny-gpt2" / "snapshots" / "0123abcd"
    snap.mkdir(parents=True)
    for f in TINY_GPT2.iterdir():
        if f.suffix != ".npz":
            shutil.copy(f, snap / f.name)
    return root / "hub"


def test_with_no_other_model_the_welcome_opens_the_built_in_model_at_once(make_parts, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    window = make_parts(editors=True, models=True, lesson=True)
    dialog = welcome.show_welcome(window)
    dialog.buttons["welcomeModel"].click()
    window.session.runner.wait()
    settle()
    doc = window.session.model_doc
    assert doc is not None and doc.model.info.name == BUILTIN_NAME and not dialog.isVisible()
    assert window.session.model_trace.tokens[-1] == "it"  # the sentence it opens with ends on the pronoun


def test_with_another_model_the_welcome_lists_them_the_built_in_one_first(make_parts, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(hf_cache_with_tiny_gpt2(tmp_path)))
    found = find_models()
    assert [m.builtin for m in found] == [True, False] and found[0].path == builtin_model_path()
    window = make_parts(editors=True, models=True, lesson=True)
    asked = []
    window.models.choose = lambda: asked.append(True) or False
    welcome.show_welcome(window).buttons["welcomeModel"].click()
    assert asked == [True] and window.session.model_doc is None


def test_the_card_s_it_head_looks_at_dog_and_the_model_says_a_dog_s_verb(make_session):
    """The acceptance scenario: type "the dog saw anna . it"; the head the model card names for "it" gives "dog"
    the most weight, and the prediction's top word is a dog's verb ("barked")."""
    card = (builtin_model_path() / "MODEL_CARD.md").read_text(encoding="utf-8")
    row = next(line for line in card.splitlines() if '"it" head' in line)
    layer, head = (int(n) for n in row.split("|")[1].split()[1::2])
    session = make_session()
    model = load_model("builtin")
    session.open_model(model, text="the dog saw anna . it")  # what File → Open model does to the Session
    session.runner.wait()
    session.select_model_head(layer, head)
    tokens = session.model_trace.tokens
    session.select(query=tokens.index("it"), key=0)
    settle()
    weights = session.result.weights[tokens.index("it")]
    assert tokens[int(np.argmax(weights))] == "dog"
    assert model.predict(session.model_trace, tokens.index("it"), 1)[0][0] == "barked"


def test_builtin_names_the_model_the_app_ships_on_the_command_line(tmp_path):
    listed = subprocess.run([sys.executable, str(ROOT / "main.py"), "--list-models"], capture_output=True, text=True,
                            env={"HF_HUB_CACHE": str(tmp_path / "none"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
                            timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0].startswith(f"{BUILTIN_NAME} (built in)")
    out = tmp_path / "figs"
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "export", "--model", "builtin", "--text",
                           "the dog saw anna . it", "--layer", "4", "--head", "6", "--out", str(out), "--format", "csv"],
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "attention.json").read_text(encoding="utf-8"))
    assert BUILTIN_NAME in json.dumps(data)


def test_each_model_example_opens_on_its_head_and_pair_and_the_head_looks_where_its_note_says(make_parts):
    # (File → Open preset's entries for them call ``open_example``: test_designed_examples_app.py opens one.)
    from qkv_engine import model_examples

    window = make_parts(editors=True, models=True)
    model = load_model("builtin")
    for example in model_examples.EXAMPLES:
        assert window.models.open_example(example.name)
        window.session.runner.wait()
        settle()
        s = window.session
        assert s.model_doc.text == example.text and (s.model_layer, s.model_head) == (example.layer, example.head)
        tokens = s.model_trace.tokens
        assert tokens[s.selection.query] == example.query and tokens[s.selection.key] == example.key
        row = s.result.weights[s.selection.query]
        assert int(np.argmax(row)) == s.selection.key  # the head gives the key the most weight, as the note says
        assert model.predict(s.model_trace, len(tokens) - 1, 1)[0][0] == example.next_word
        note = window.findChild(QtWidgets.QWidget, "exampleNote")
        assert note.isVisible() and example.title in window.findChild(QtWidgets.QTextBrowser, "exampleNoteText").toPlainText()
        assert f"layer {example.layer + 1}, head {example.head + 1}" in example.note  # the note counts as the app does


def test_an_unknown_word_is_read_as_unk_and_the_status_line_says_so(make_parts):
    # ``session.messages``: what the window's status line shows (the window's own: the test below).
    window = make_parts(editors=True, models=True)
    window.models.open_folder("builtin", text="the dog saw bob")
    window.session.runner.wait()
    settle()
    messages = window.session.messages
    assert window.session.model_trace.tokens[-1] == "[UNK]"
    assert "'bob'" in messages[-1] and "[UNK]" in messages[-1]
    window.session.set_text("the dog saw anna and zed")  # typed: the note follows the words
    window.session.runner.wait()
    settle()
    assert "'zed'" in messages[-1] and "'bob'" not in messages[-1]
    edit = window.findChild(QtWidgets.QLineEdit, "sentenceEdit")
    label = window.findChild(QtWidgets.QLabel, "messageLabel")
    edit.textEdited.emit("the dog saw anna and ze")  # typed in the box: the note shows under it
    window.session.runner.wait()
    settle()
    assert "'ze'" in messages[-1] and "'ze'" in label.text() and not label.isHidden()
    edit.textEdited.emit("the dog saw anna and")  # typed on, every word known: the note goes
    window.session.runner.wait()
    settle()
    assert messages[-1] == "" and label.isHidden()
    count = len(messages)
    window.session.set_text("the dog saw anna and tom")  # nothing was noted: nothing to take back
    window.session.runner.wait()
    settle()
    assert len(messages) == count


def test_help_lists_the_words_the_built_in_model_knows(window):
    # An unknown word: the window's status line names it and points to Help → Words the built-in model knows.
    window.models.open_folder("builtin", text="the dog saw bob")
    window.session.runner.wait()
    settle()
    status = window.statusBar().currentMessage()
    assert "'bob'" in status and "[UNK]" in status and "Words the built-in model knows" in status
    window.session.set_text("the dog saw bo")  # half-typed: 'bo' is not a word either
    window.session.runner.wait()
    settle()
    assert "'bo'" in window.statusBar().currentMessage()
    window.session.set_text("the dog saw")  # the half-typed word taken away: the status line no longer names it
    window.session.runner.wait()
    settle()
    assert window.statusBar().currentMessage() == ""
    window.session.set_text("the dog saw bob")
    window.session.runner.wait()
    settle()
    action = window.findChild(QtGui.QAction, "knownWordsAction")
    assert action in window.helpMenu.actions() and action.text().replace("&", "") in status
    action.trigger()
    dialog = window.findChild(QtWidgets.QDialog, "knownWordsDialog")
    words = dialog.findChild(QtWidgets.QPlainTextEdit, "knownWordsText").toPlainText().split()
    model = load_model("builtin")
    assert len(words) > 1000 and "barked" in words and "[UNK]" not in words and "bob" not in words
    assert all(model.tokenize(w)[0][-1] == w for w in words[::50])  # each is one token of its own


def test_the_lesson_s_appendix_on_a_trained_model_opens_it_and_tells_its_live_numbers(make_parts):
    from PySide6 import QtCore

    window = make_parts(editors=True, models=True, lesson=True)
    lesson = window.lesson
    lesson.enter()
    lesson.go(next(i for i, s in enumerate(lesson.steps) if s.title == "Inside a trained model"))
    settle()
    html = lesson.pane.text.toHtml()
    assert 'href="example:model-it"' in html and window.session.model_doc is None
    lesson._anchor(QtCore.QUrl("example:model-it"))  # the student clicks the first link
    window.session.runner.wait()
    settle()
    s = window.session
    assert s.model_doc is not None and s.model_doc.text == "the dog saw anna in the park . it"
    text = lesson.text()
    assert "The selected query is it, and the selected key is dog" in text and "'dog' 1.00" in text
    row = s.result.weights[s.selection.query]
    assert f"{row[s.selection.key]:.2f}" in text and "unknown placeholder" not in text
