"""Generate in the Trained model box, on a Session with a tiny model open: greedy appends the argmax of the
logits, sampling is reproducible with its seed, every token is one undo step, the heatmap grows a row,
BERT cannot generate (and says why), bad input is refused where the user looks and loses nothing."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qkv_engine.models import load_model, what_if
from qkv_gui.editors.model_box import ModelBox
from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel

from tests.engine.model_files import runs_kept_to
from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[2] / "data"
TEXT = "The cat sat on the"


@pytest.fixture(scope="module")
def models():
    return {name: load_model(DATA / name) for name in ("tiny-gpt2", "tiny-llama", "tiny-qwen2", "tiny-bert")}


@pytest.fixture
def box(make_panel, make_session, models):
    def make(name="tiny-gpt2", text=TEXT):
        session = make_session()
        session.open_model(models[name], text=text)
        return make_panel(ModelBox, session=session, size=(360, 420))

    return make


def wait_for_the_run(qtbot, session):
    qtbot.waitUntil(lambda: not session.generating and not session.runner.busy, timeout=20000)
    settle()


@pytest.mark.parametrize("name", ["tiny-gpt2", "tiny-llama", "tiny-qwen2"])
def test_greedy_generate_appends_the_argmax_token(box, models, name):
    b = box(name)
    session = b.session
    before = session.model_trace
    expected = int(np.argmax(np.asarray(before.logits[-1], dtype=np.float64)))  # worked out here, not by the app
    decode = models[name]._tokenizer.tokenizer.decode
    ids = list(before.ids)
    added = decode(ids + [expected], skip_special_tokens=False)[len(decode(ids, skip_special_tokens=False)):]
    assert b.generateButton.isEnabled() and b.temperatureEdit.text() == "0" and b.samplingButton.text() == "greedy"
    assert not b.generateReason.isVisible()
    b.generateButton.click()
    settle()
    assert session.model_doc.text == TEXT + added
    after = session.model_trace
    assert after.text == TEXT + added and after.n > before.n
    # (the longer text is read again from scratch: its pieces may merge differently, as in qkv_engine.generate)
    assert session.undo_stack.count() == 1


def test_sampled_generation_is_reproducible_with_the_same_seed(box, qtbot):
    b = box()
    session = b.session
    b.temperatureEdit.setText("1.0")
    b.seedSpin.setValue(7)
    b.countSpin.setValue(4)
    assert b.samplingButton.text() == "T 1, seed 7"
    first_logits = session.model_trace.logits[-1]
    first = what_if.next_token(first_logits, 1.0, np.random.default_rng([7, session.model_trace.n]))
    b.generateNButton.click()
    wait_for_the_run(qtbot, session)
    once = session.model_doc.text
    assert session.undo_stack.count() == 4 and once != TEXT
    decode = load_model(DATA / "tiny-gpt2")._tokenizer.tokenizer.decode
    assert once.startswith(TEXT + decode([first]))  # the first draw is next_token with (seed, tokens so far)
    while session.undo_stack.canUndo():
        session.undo_stack.undo()
    settle()
    assert session.model_doc.text == TEXT
    b.generateNButton.click()
    wait_for_the_run(qtbot, session)
    assert session.model_doc.text == once


def test_each_token_is_one_undo_step_and_the_heatmap_grows_a_row(box, make_panel, qtbot):
    b = box()
    session = b.session
    heat = make_panel(HeatmapPanel, session=session)
    rows = heat.image.values.shape[0]
    b.countSpin.setValue(3)
    b.generateNButton.click()
    wait_for_the_run(qtbot, session)
    texts = [session.undo_stack.command(k).text() for k in range(session.undo_stack.count())]
    assert len(texts) == 3 and all(t.startswith("generate") for t in texts)
    three = session.model_doc.text
    grown = heat.image.values.shape[0]
    assert grown >= rows + 3 - 1 and grown == session.model_trace.n
    session.undo_stack.undo()
    settle()
    two = session.model_doc.text
    assert three.startswith(two) and len(two) < len(three)
    assert session.undo_stack.index() == 2 and heat.image.values.shape[0] == session.model_trace.n < grown


def test_generate_n_stops_at_the_end_of_text_token(box, qtbot, monkeypatch):
    b = box()
    session = b.session
    trace = session.model_trace
    end = int(np.argmax(trace.logits[-1]))
    monkeypatch.setattr(session, "_end_ids", lambda model: frozenset({end}))
    b.countSpin.setValue(5)
    b.generateNButton.click()
    wait_for_the_run(qtbot, session)
    assert session.model_doc.text == TEXT and session.undo_stack.count() == 0
    assert "end-of-text" in session.messages[-1]


def test_bert_cannot_generate_and_says_why(box):
    b = box("tiny-bert")
    assert not b.generateButton.isEnabled() and not b.generateNButton.isEnabled()
    assert "reads the whole sentence at once" in b.generateButton.toolTip()
    assert "left to right" in b.generateNButton.toolTip()
    # seen without hovering, in the row of the grey buttons
    assert b.generateReason.isVisible() and "cannot write text" in b.generateReason.text()
    assert not b.samplingButton.isVisible() and not b.countSpin.isVisible()
    assert b.session.generate(1) is False and "left to right" in b.session.messages[-1]


@pytest.mark.parametrize("typed", ["abc", "nan", "-0.5"])
def test_a_bad_temperature_is_refused_under_the_buttons_and_loses_nothing(box, typed):
    b = box()
    session = b.session
    b.temperatureEdit.setText(typed)
    b.generateButton.click()
    settle()
    assert session.model_doc.text == TEXT and session.undo_stack.count() == 0
    assert b.generateNote.isVisible() and "temperature" in b.generateNote.text()
    assert "Nothing generated" in b.generateNote.text()
    assert b.temperatureEdit.text() == typed  # kept, to be fixed
    assert b.samplingButton.text().startswith("T ?")
    b.temperatureEdit.setText("0")
    b.generateButton.click()
    settle()
    assert not b.generateNote.isVisible() and session.undo_stack.count() == 1


@pytest.mark.parametrize("count", [-2, 0, "x", float("nan"), 2.5])
def test_the_session_refuses_a_bad_count_with_a_message(box, count):
    session = box().session
    assert session.generate(count) is False
    assert session.messages[-1].startswith("Nothing generated: number of tokens")
    assert session.model_doc.text == TEXT and session.undo_stack.count() == 0


def test_the_word_switch_is_the_sessions_word_view(box):
    b = box()
    b.wordViewCheck.setChecked(True)
    assert b.session.word_view
    b.session.set_word_view(False)
    assert not b.wordViewCheck.isChecked()


def test_generate_while_the_forward_runs_waits_for_it(box, qtbot):
    b = box()
    session = b.session
    session.runner.sync = False
    session.runner.last_seconds = 10.0  # as a big model: the forward of the next text goes to the worker
    session.set_text(TEXT + " mat")
    assert session.runner.busy
    b.generateButton.click()  # pressed before the forward of the new text has landed
    wait_for_the_run(qtbot, session)
    assert session.model_doc.text.startswith(TEXT + " mat") and len(session.model_doc.text) > len(TEXT + " mat")
    assert session.undo_stack.count() == 2  # the typing, then the token


def test_generating_past_the_tokens_that_fit_in_memory_stops_and_says_why(make_panel, make_session, qtbot,
                                                                           monkeypatch):
    runs_kept_to(DATA / "tiny-gpt2", 12, monkeypatch)
    model = load_model(DATA / "tiny-gpt2")
    session = make_session()
    session.open_model(model, text=TEXT)
    b = make_panel(ModelBox, session=session, size=(360, 420))
    b.countSpin.setValue(20)
    b.generateNButton.click()
    wait_for_the_run(qtbot, session)
    assert 12 - 3 <= session.model_trace.n <= 12  # a token adds 1 to 3
    assert session.messages[-1].startswith("Stopped at 12 tokens: every head's attention for more would take over")
    assert session.messages[-1].endswith("(the model itself reads up to 64).")
