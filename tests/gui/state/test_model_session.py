"""The session in the trained-model mode: a head's real numbers, what-if edits, undo, and the way back.

Uses the tiny reference checkpoints in tests/data (their outputs were computed by the transformers
library): what the panels draw for a head must be that head's numbers.
"""
from pathlib import Path

import numpy as np
import pytest

from qkv_engine import ModelEdits, presets
from qkv_gui.state.session import Session
from tests.engine.model_files import runs_kept_to, with_mask_token
from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[2] / "data"


def reference(name: str, sentence: str = "s0"):
    ref = np.load(DATA / name / "reference_outputs.npz", allow_pickle=False)
    return {k.split("_", 1)[1]: ref[k] for k in ref.files if k.startswith(sentence + "_")}


@pytest.fixture
def session(qtbot):
    """A Session whose forwards run on the test's thread: on a busy machine a tiny model's forward can take more
    than a frame and go to the worker, and a test would read the numbers before they landed. The tests about the
    worker switch it back (``runner.sync = False``)."""
    s = Session(presets.load(presets.DEFAULT))
    s.preset_name = presets.DEFAULT
    s.runner.sync = True
    yield s
    s.runner.shutdown()


def test_a_head_shows_the_reference_numbers(session, bert):
    ref = reference("tiny-bert")
    session.open_model(bert, text=str(ref["text"]))
    settle()
    assert session.scenario.tokens == tuple(ref["tokens"])
    for layer in range(2):
        for head in range(2):
            session.select_model_head(layer, head)
            settle()
            r = session.result
            np.testing.assert_allclose(r.weights, ref["attn"][layer, head], atol=1e-4)
            np.testing.assert_allclose(r.q, ref["q"][layer, head], atol=1e-4)
            np.testing.assert_allclose(session.scenario.x, ref["attn_input"][layer], atol=1e-5)
            assert (session.model_layer, session.model_head) == (layer, head)
    assert session.undo_stack.isClean()


def test_gpt2_is_causal_and_shows_spaces(session, gpt2):
    ref = reference("tiny-gpt2", "s1")
    session.open_model(gpt2, text=str(ref["text"]))
    settle()
    r = session.result
    assert session.scenario.causal
    assert not r.allowed[0, 1:].any()  # the first token sees only itself
    np.testing.assert_allclose(r.weights, ref["attn"][0, 0], atol=1e-4)
    assert not any("\u0120" in t for t in session.scenario.tokens)  # never the raw "Ġ"


def test_typing_runs_the_model_and_undo_brings_the_sentence_back(session, bert):
    session.open_model(bert, text="the cat sat")
    settle()
    before = session.scenario.tokens
    session.set_text("the cat sat on the mat")
    settle()
    assert session.scenario.tokens == bert.run("the cat sat on the mat").tokens
    assert session.model_doc.text == "the cat sat on the mat"
    session.undo_stack.undo()
    settle()
    assert session.scenario.tokens == before


def test_a_weight_edit_changes_this_head_and_the_layers_above(session, bert):
    session.open_model(bert, text="the cat sat on the mat")
    session.select_model_head(0, 1)
    settle()
    trace0 = session.model_trace
    assert session.set_cell("w_q", 2, 3, "1.5")
    settle()
    assert session.scenario.w_q[2, 3] == 1.5
    trace1 = session.model_trace
    assert not np.allclose(trace1.weights[0, 1], trace0.weights[0, 1])  # this head
    np.testing.assert_array_equal(trace1.weights[0, 0], trace0.weights[0, 0])  # the other head of the layer
    assert not np.allclose(trace1.hidden[2], trace0.hidden[2])  # the layers above
    np.testing.assert_allclose(session.result.weights, trace1.weights[0, 1], atol=1e-5)
    assert "W^Q of layer 1 head 2" in session.undo_stack.undoText()
    session.undo_stack.undo()
    settle()
    np.testing.assert_array_equal(session.model_trace.weights, trace0.weights)


def test_a_bias_and_an_input_can_be_edited(session, bert):
    session.open_model(bert, text="the cat sat")
    session.select_model_head(1, 0)
    settle()
    old = float(session.scenario.b_k[1])
    assert session.set_cell("b_k", 0, 1, old + 2.0)
    settle()
    assert session.scenario.b_k[1] == pytest.approx(old + 2.0)
    assert session.set_cell("x", 1, 4, "3")
    settle()
    assert session.scenario.x[1, 4] == 3.0
    assert len(session.model_doc.edits.inputs) == 1


def test_knock_out_and_reset_to_the_checkpoint(session, bert):
    session.open_model(bert, text="the cat sat on the mat")
    settle()
    clean = session.model_trace
    assert session.knock_out(0, 1)
    settle()
    assert (0, 1) in session.model_view_data.knocked_out
    assert not session.model_trace.context[0, 1].any()
    assert not np.allclose(session.model_trace.hidden[2], clean.hidden[2])
    session.set_cell("w_v", 0, 0, "2")
    settle()
    assert session.reset_to_checkpoint()
    settle()
    assert session.model_doc.edits.is_empty()
    np.testing.assert_array_equal(session.model_trace.hidden, clean.hidden)
    session.undo_stack.undo()  # the reset is one step
    settle()
    assert not session.model_doc.edits.is_empty()


def test_hand_made_options_are_refused_in_model_mode(session, bert):
    messages = []
    session.message.connect(messages.append)
    session.open_model(bert, text="the cat")
    settle()
    assert not session.set_option(temperature=2.0)
    assert not session.set_dims(d_model=3)
    assert messages and "trained model" in messages[-1]
    assert session.scenario.temperature == 1.0


def test_back_to_the_hand_made_example(session, bert):
    hand_made = session.scenario
    session.open_model(bert, text="the cat")
    settle()
    assert session.model_doc is not None
    session.close_model()
    settle()
    assert session.model_doc is None and session.model_view_data is None
    assert session.scenario == hand_made
    assert session.preset_name == presets.DEFAULT


def test_a_slow_forward_runs_off_the_gui_thread_and_the_newest_wins(session, bert, qtbot):
    session.runner.sync = False  # this test is about when a forward goes to the worker
    session.open_model(bert, text="the cat")
    settle()
    busy = []
    session.busyChanged.connect(busy.append)
    session.runner.last_seconds = 1.0  # as if the last forward had been slow
    for text in ("the", "the dog", "the dog sat"):
        session.set_text(text)
    assert session.runner.busy
    assert session.runner.wait()
    settle()
    assert busy[0] is True and busy[-1] is False
    assert session.model_doc.text == "the dog sat"
    assert session.scenario.tokens == bert.run("the dog sat").tokens
    np.testing.assert_allclose(session.result.weights, bert.run("the dog sat").weights[0, 0], atol=1e-5)


def test_view_data_for_the_model_view(session, bert):
    session.open_model(bert, text="the cat sat", view={"layer": 1, "head": 1})
    settle()
    data = session.model_view_data
    assert data.weights.shape == (2, 2, 5, 5)
    assert (data.layer, data.head) == (1, 1)
    assert data.tokens == session.scenario.tokens
    seen = []
    session.modelViewChanged.connect(lambda: seen.append(session.model_view_data.head))
    session.select_model_head(1, 0)
    assert seen == [0]


def test_the_model_box_says_when_the_model_runs_and_nothing_moves(session, bert, qtbot):
    session.runner.sync = False  # this test is about when a forward goes to the worker
    """A slow forward shows "Running the model…" in the model box until it lands; the line is kept while
    it is hidden, so showing it moves nothing in the dock."""
    from qkv_gui.editors.model_box import ModelBox

    session.open_model(bert, text="the cat")
    box = ModelBox(session)
    qtbot.addWidget(box)
    box.resize(420, box.sizeHint().height())
    box.show()
    settle()
    idle = (box.sizeHint(), box.busyLabel.geometry(), box.layerSpin.geometry())
    assert not box.busyLabel.isVisible()
    session.runner.last_seconds = 1.0  # as if the last forward had been slow
    session.set_text("the dog")
    assert session.runner.busy and box.busyLabel.isVisible()
    box.layout().activate()  # laid out now, while the model runs
    assert (box.sizeHint(), box.busyLabel.geometry(), box.layerSpin.geometry()) == idle
    assert session.runner.wait()
    settle()
    assert not box.busyLabel.isVisible()
    assert box.layerSpin.value() == session.model_layer + 1 and box.headSpin.suffix() == f" of {bert.info.n_heads}"


def test_an_edit_of_the_top_layer_runs_that_layer_only_and_gives_a_whole_runs_numbers(session, bert):
    session.runner.sync = False  # this test is about when a forward goes to the worker
    """A forward over every layer slower than a frame goes to the worker thread; an edit of the top layer
    runs that layer alone (the layers below come from the last run), fast enough for the GUI thread."""
    session.open_model(bert, text="the cat sat")
    settle()
    top = bert.info.n_layers - 1
    session.select_model_head(top, 1)
    settle()
    session.runner.last_seconds = 0.012  # as if every layer together took 12 ms: more than a frame
    value = float(session.scenario.w_k[2, 3]) + 0.5
    assert session.set_cell("w_k", 2, 3, value)
    assert not session.runner.busy  # ran at once, on this thread: half the layers of the tiny model
    settle()
    edits = ModelEdits().with_weight(top, 1, "w_k", 2, 3, value)
    whole = bert.run("the cat sat", edits)
    for name in ("hidden", "weights", "q", "k", "context"):
        np.testing.assert_array_equal(getattr(session.model_trace, name), getattr(whole, name), err_msg=name)
    np.testing.assert_allclose(session.result.weights, whole.weights[top, 1], atol=1e-6)
    session.runner.last_seconds = 0.012
    session.set_text("the dog sat")  # every layer again: to the worker
    assert session.runner.busy
    assert session.runner.wait()


def test_back_to_the_hand_made_example_keeps_no_trace_of_the_model(session, bert):
    session.runner.sync = False  # this test drops a forward still running on the worker
    """Nothing of the model's numbers stays in memory (a long sentence's are 150 MB), and a slow forward
    still running when the model is closed changes nothing when it lands."""
    import gc
    import weakref

    hand_made = session.scenario
    session.open_model(bert, text="the cat sat")
    settle()
    gone = weakref.ref(session.model_trace)
    session.close_model()
    settle()
    gc.collect()
    assert gone() is None
    assert session.model_doc is None and session.model_trace is None
    assert session.scenario == hand_made
    session.open_model(bert, text="the cat sat")
    settle()
    session.runner.last_seconds = 1.0  # as if the last forward had been slow: the next goes to the worker
    session.set_text("the dog sat")
    assert session.runner.busy
    session.close_model()
    assert session.runner.wait()
    settle()
    assert session.model_doc is None and session.model_trace is None
    assert session.scenario == hand_made


def test_edits_the_model_does_not_have_are_refused_in_one_line_after_a_run(session, bert):
    """A session file may name a layer the model lacks: after a run to reuse, the runner still says why in
    one line (the session's failed signal), and nothing is raised."""
    from qkv_gui.state.model_document import ModelDoc

    session.open_model(bert, text="the cat sat")
    settle()
    failed = []
    session.runner.failed.connect(lambda _doc, why: failed.append(why))
    session.runner.request(ModelDoc(bert, "the cat sat", ModelEdits().with_weight(9, 0, "w_q", 0, 0, 1.0)))
    assert session.runner.wait()
    settle()
    assert len(failed) == 1 and "layer 10" in failed[0]


def test_a_long_paste_into_a_model_of_many_heads_keeps_the_tokens_that_fit_and_says_why(session, monkeypatch):
    """Every head's weights grow with the square of the sentence: a model keeps the first tokens whose run fits
    in RUN_MEMORY (here made small), and the status line says so; the whole text stays in the box."""
    from qkv_engine.models import load_model

    runs_kept_to(DATA / "tiny-llama", 30, monkeypatch)
    model = load_model(DATA / "tiny-llama")
    messages = []
    session.message.connect(messages.append)
    text = " ".join(["the cat sat on the mat"] * 40)
    session.open_model(model, text=text)
    settle()
    assert session.model_trace.n == 30 and session.model_trace.dropped > 0
    assert session.model_doc.text == text
    said = messages[-1]
    assert said.startswith("Kept the first 30 tokens: every head's attention for more would take over ")
    assert "KB of memory (the model itself reads up to 128)" in said and f"{session.model_trace.dropped} more" in said


@pytest.mark.parametrize("name, text, query", [
    ("tiny-gpt2", "the cat sat on the mat", "last"),  # a decoder: the word it writes next is guessed there
    ("tiny-llama", "the cat sat on the mat", "last"),
    ("masked", "the cat [MASK] on the mat", "[MASK]"),  # BERT: the word it fills in
    ("tiny-bert", "the cat sat on the mat", 0),
])
def test_a_model_opens_at_the_token_a_teacher_looks_at_first(session, tmp_path, name, text, query):
    from qkv_engine import load_model

    folder = with_mask_token(tmp_path / "masked") if name == "masked" else DATA / name
    session.open_model(load_model(folder), text=text)
    settle()
    tokens = list(session.model_trace.tokens)
    want = len(tokens) - 1 if query == "last" else tokens.index(query) if query == "[MASK]" else query
    assert session.selection.query == want and session.selection.key == 0
    session.open_model(load_model(folder), text=text, view={"query": 1, "key": 1})  # a saved view wins
    settle()
    assert (session.selection.query, session.selection.key) == (1, 1)
