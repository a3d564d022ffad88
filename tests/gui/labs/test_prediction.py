"""The prediction panel on a Session with the tiny reference models open: the ten guesses are exactly
``Model.predict``'s, a pinned word's before -> after and the marks of how the ten moved follow knock-outs, undo
and reset, "Which heads matter?" lists ``head_effects``' numbers, "keep only" knocks out exactly the other
heads in one undo step, and a model without an output head says so."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtTest

from qkv_engine import ModelEdits, head_effects, load_model
from qkv_gui.panels.labs.prediction import DOWN, NEW, SAME, UP, PredictionPanel, effects_job, percent, token_text

from tests.gui.conftest import settle
from tests.gui.support.layout import shown_whole

DATA = Path(__file__).resolve().parents[2] / "data"
TEXT = "the cat sat on the mat"
Qt = QtCore.Qt


@pytest.fixture
def open_model(make_session):
    """``open_model("tiny-gpt2", query=3)``: a Session with the model open (forwards on the calling thread);
    ``session.messages`` collects what it says."""

    def make(name, text=TEXT, query=0):
        session = make_session()
        session.runner.sync = True
        session.open_model(load_model(DATA / name), text=text)
        session.select(query=query)
        return session

    return make


@pytest.fixture
def prediction(open_model, make_panel):
    def make(name, text=TEXT, query=0, size=(460, 640)):
        session = open_model(name, text, query)
        panel = make_panel(PredictionPanel, session=session, size=size)
        settle()
        return panel

    return make


def shown(panel):
    """(token text, percentage text) of each bar, top first."""
    return [(text, percent(p)) for text, p, _mark, _pinned in panel.bars.rows]


def engine_top(name, text, position, edits=ModelEdits()):
    """The top ten from a model loaded apart from the panel's."""
    model = load_model(DATA / name)
    return model.predict(model.run(text, edits), position, 10)


def probability(name, text, position, token_id, edits=ModelEdits()):
    model = load_model(DATA / name)
    trace = model.run(text, edits)
    everything = model.predict(trace, position, trace.logits.shape[1])
    return next(p for _t, i, p in everything if i == token_id)


@pytest.mark.parametrize("name, query", [("tiny-gpt2", 3), ("tiny-llama", 5), ("tiny-qwen2", 0), ("tiny-bert-mlm", 2)])
def test_the_bars_are_the_models_ten_best_guesses_for_the_selected_token(prediction, name, query):
    panel = prediction(name, query=query)
    want = engine_top(name, TEXT, query)
    assert len(want) == 10
    assert shown(panel) == [(token_text(t), percent(p)) for t, _i, p in want]
    np.testing.assert_allclose([p for _t, p, *_ in panel.bars.rows], [p for *_x, p in want], rtol=1e-9)
    assert [i for _t, i, _p in panel.predictions] == [i for _t, i, _p in want]
    # another query: the list follows
    panel.session.select(query=query + 1)
    settle()
    assert shown(panel) == [(token_text(t), percent(p)) for t, _i, p in engine_top(name, TEXT, query + 1)]


def test_the_note_says_what_is_guessed_next_word_or_the_word_at_a_token(prediction):
    gpt = prediction("tiny-gpt2", query=3)
    token = gpt.session.model_trace.tokens[3]
    assert f"After '{token_text(token)}' (token 4 of 8)" in gpt.note.text() or "Next after" in gpt.note.text()
    bert = prediction("tiny-bert-mlm", query=2, size=(640, 640))
    assert "At 'cat' (token 3 of 8)" in bert.note.text() and "[MASK]" in bert.note.text()


def test_the_bars_follow_a_knock_out_undo_and_reset(prediction):
    panel = prediction("tiny-gpt2", query=4)
    s = panel.session
    before = shown(panel)
    s.knock_out(0, 1, True)
    settle()
    after = shown(panel)
    assert after == [(token_text(t), percent(p)) for t, _i, p in
                     engine_top("tiny-gpt2", TEXT, 4, ModelEdits(knocked_out=frozenset({(0, 1)})))]
    assert after != before
    s.undo_stack.undo()
    settle()
    assert shown(panel) == before
    s.undo_stack.redo()
    s.reset_to_checkpoint()
    settle()
    assert shown(panel) == before


def test_a_pinned_word_shows_its_chance_before_and_after_a_knock_out(prediction):
    panel = prediction("tiny-llama", query=4)
    s = panel.session
    text, token_id, p_before = panel.predictions[2]
    panel.bars.rowClicked.emit(2)
    settle()
    assert s.target is not None and (s.target.position, s.target.token_id) == (4, token_id)
    assert [pinned for *_x, pinned in panel.bars.rows] == [False, False, True] + [False] * 7
    assert all(mark == SAME for _t, _p, mark, _x in panel.bars.rows)
    edits = ModelEdits(knocked_out=frozenset({(0, 0)}))
    s.knock_out(0, 0, True)
    settle()
    p_after = probability("tiny-llama", TEXT, 4, token_id, edits)
    before, after = panel.target_numbers
    assert before == pytest.approx(p_before, rel=1e-9) and after == pytest.approx(p_after, rel=1e-9)
    assert f"{percent(p_before)} → {percent(p_after)}" in panel.targetLabel.text()
    assert "when you pinned it" in panel.targetLabel.text() or "when pinned" in panel.targetLabel.text()
    # the marks: each of the ten now against its place when pinned, from the engine's two lists
    model = load_model(DATA / "tiny-llama")
    vocab = model.run(TEXT).logits.shape[1]
    then = [i for _t, i, _p in model.predict(model.run(TEXT), 4, vocab)]
    now = engine_top("tiny-llama", TEXT, 4, edits)
    for rank, ((_t, token, _p), (_x, _q, mark, pinned)) in enumerate(zip(now, panel.bars.rows)):
        was = then.index(token)
        want = NEW if was >= 10 else SAME if was == rank else f"{UP}{was - rank}" if was > rank else f"{DOWN}{rank - was}"
        assert mark == want
        assert pinned == (token == token_id)
    # undo: after is before again
    s.undo_stack.undo()
    settle()
    assert panel.target_numbers[1] == pytest.approx(p_before, rel=1e-9)


def test_clicking_the_pinned_word_or_unpin_lets_it_go_and_a_new_sentence_does_too(prediction):
    panel = prediction("tiny-gpt2", query=2)
    s = panel.session
    panel.bars.rowClicked.emit(0)
    settle()
    assert s.target is not None and panel.unpinButton.isVisible()
    panel.bars.rowClicked.emit(0)
    settle()
    assert s.target is None and not panel.unpinButton.isVisible()
    panel.bars.rowClicked.emit(1)
    settle()
    panel.unpinButton.click()
    settle()
    assert s.target is None
    panel.bars.rowClicked.emit(1)
    s.set_text("a dog ran")
    settle()
    assert s.target is None and any("no longer pinned" in m for m in s.messages)


def run_heads(panel, mean=False):
    panel.meanBox.setChecked(mean)
    assert panel.run_effects()
    assert panel.runningRow.isVisibleTo(panel) and not panel.effectsButton.isEnabled()
    panel.job.wait(30)
    for _ in range(200):
        settle()
        if panel.job is None:
            break
    assert panel.job is None


@pytest.mark.parametrize("name", ["tiny-gpt2", "tiny-qwen2"])
def test_which_heads_matter_lists_head_effects_largest_drop_first(prediction, name):
    panel = prediction(name, query=3)
    s = panel.session
    assert not panel.effectsButton.isEnabled()  # nothing pinned yet
    s.knock_out(1, 0, True)
    settle()
    _text, token_id, _p = panel.predictions[0]
    panel.bars.rowClicked.emit(0)
    settle()
    run_heads(panel)
    model = load_model(DATA / name)
    want = head_effects(model, model.run(TEXT, ModelEdits(knocked_out=frozenset({(1, 0)}))), 3, token_id)
    np.testing.assert_allclose(s.head_effects.deltas, want, rtol=1e-9, atol=1e-12)
    order = sorted((want[l, h], l, h) for l in range(want.shape[0]) for h in range(want.shape[1]))
    items = [panel.headsList.item(i) for i in range(panel.headsList.count())]
    assert [it.data(Qt.ItemDataRole.UserRole) for it in items] == [(l, h) for _d, l, h in order]
    assert [it.text().split(": ")[1].split(" ")[0] for it in items] == [f"{d:.2f}".replace("-0.00", "0.00")
                                                                       for d, _l, _h in order]
    assert "already knocked out" in items[[(l, h) for _d, l, h in order].index((1, 0))].text()
    # clicking a head in the list steps into it
    layer, head = items[-1].data(Qt.ItemDataRole.UserRole)
    panel.headsList.itemClicked.emit(items[-1])
    assert (s.model_layer, s.model_head) == (layer, head)
    # ... and so does Return on the list's current head
    layer, head = items[0].data(Qt.ItemDataRole.UserRole)
    panel.headsList.setFocus()
    panel.headsList.setCurrentItem(items[0])
    QtTest.QTest.keyClick(panel.headsList, Qt.Key.Key_Return)
    assert (s.model_layer, s.model_head) == (layer, head)


@pytest.mark.parametrize("name", ["tiny-gpt2", "tiny-llama"])  # tiny-llama: 2 query heads a key/value head
def test_mean_knock_outs_are_offered_for_every_family(prediction, name):
    panel = prediction(name, query=2)
    assert panel.meanBox.isEnabled() and "average" in panel.meanBox.toolTip()
    _t, token_id, _p = panel.predictions[1]
    panel.bars.rowClicked.emit(1)
    settle()
    run_heads(panel, mean=True)
    model = load_model(DATA / name)
    np.testing.assert_allclose(panel.session.head_effects.deltas,
                               head_effects(model, model.run(TEXT), 2, token_id, mode="mean"), rtol=1e-9, atol=1e-12)
    assert panel.session.head_effects.mode == "mean" and "average" in panel.info.text()


def test_a_cancelled_run_lists_nothing(open_model, qtbot):
    s = open_model("tiny-gpt2")
    trace = s.model_trace
    job = effects_job(s.model_doc.model, trace, 1, 5, "zero")
    seen = []
    job.progressed.connect(lambda done, total: seen.append((done, total)))
    job.cancel()
    with qtbot.waitSignal(job.done, timeout=10000) as blocker:
        job.start()
    assert blocker.args == [None, ""]


def test_effects_from_before_an_edit_say_so(prediction):
    panel = prediction("tiny-gpt2", query=3)
    panel.bars.rowClicked.emit(0)
    settle()
    run_heads(panel)
    assert panel.session.effects_are_current() and "before the last change" not in panel.info.text()
    panel.session.knock_out(0, 0, True)
    settle()
    assert not panel.session.effects_are_current() and "before the last change" in panel.info.text()


@pytest.mark.parametrize("scope, kept, knocked", [
    ("layer", {(0, 1)}, {(0, 0), (0, 2), (0, 3)}),
    ("layer", {(0, 1), (1, 3)}, {(0, 0), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2)}),
    ("model", {(1, 2)}, {(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 3)}),
])
def test_keep_only_knocks_out_exactly_the_other_heads_in_one_undo_step(open_model, scope, kept, knocked):
    s = open_model("tiny-llama")
    s.knock_out(0, 1, True)  # a kept head that was knocked out comes back
    s.knock_out(1, 3, True)
    start = s.model_doc.edits
    steps = s.undo_stack.count()
    assert s.keep_only(kept, scope)
    extra = {(1, 3)} - kept if scope == "layer" and not any(l == 1 for l, _h in kept) else set()
    assert set(s.model_doc.edits.knocked_out) == knocked | extra
    assert s.undo_stack.count() == steps + 1
    for layer in range(2):  # the forward ran with them: a knocked-out head's output is zero, a kept one's not
        for head in range(4):
            off = (layer, head) in knocked | extra
            assert (np.abs(s.model_trace.context[layer, head]).max() == 0.0) == off
    s.undo_stack.undo()
    assert s.model_doc.edits == start


def test_keep_only_buttons_use_the_heads_chosen_in_the_list(prediction):
    panel = prediction("tiny-llama", query=3)
    s = panel.session
    panel.bars.rowClicked.emit(0)
    settle()
    run_heads(panel)
    items = {panel.headsList.item(i).data(Qt.ItemDataRole.UserRole): panel.headsList.item(i)
             for i in range(panel.headsList.count())}
    items[(0, 2)].setSelected(True)
    panel.keepLayerButton.click()
    settle()
    assert set(s.model_doc.edits.knocked_out) == {(0, 0), (0, 1), (0, 3)}
    s.undo_stack.undo()
    panel.headsList.clearSelection()
    s.select_model_head(1, 1)  # nothing chosen in the list: the head every panel shows
    panel.keepModelButton.click()
    settle()
    assert set(s.model_doc.edits.knocked_out) == {(l, h) for l in range(2) for h in range(4)} - {(1, 1)}


def test_a_model_without_an_output_head_says_so_in_one_sentence(prediction):
    panel = prediction("tiny-bert")
    assert panel.showing_hint()
    text = panel.hint.text()
    assert "tiny-bert" in text and "no output head" in text and text.count(".") == 1
    assert panel.predictions == []


def test_without_a_model_the_panel_says_how_to_open_one(make_panel):
    panel = make_panel(PredictionPanel)
    assert panel.showing_hint() and "Open a trained model" in panel.hint.text()
    assert panel.objectName() == "predictionPanel"


def test_the_window_stays_usable_while_heads_are_knocked_out_and_cancel_stops_it(prediction, monkeypatch, qtbot):
    import threading
    import time

    from qkv_gui.panels.labs import prediction as module

    real = module.head_effects
    release = threading.Event()

    def slow(model, trace, position, target_id, mode="zero", progress=None):
        def each(done, total):
            going_on = progress(done, total)
            if done >= 2:
                release.wait(5)  # holds the worker after its second head until the test has looked
            time.sleep(0.01)
            return going_on and progress(done, total)

        return real(model, trace, position, target_id, mode=mode, progress=each)

    monkeypatch.setattr(module, "head_effects", slow)
    panel = prediction("tiny-llama", query=3)
    panel.bars.rowClicked.emit(0)
    settle()
    assert panel.run_effects()
    qtbot.waitUntil(lambda: panel.progress.value() >= 2, timeout=5000)  # the event loop runs meanwhile
    assert panel.job is not None and panel.runningRow.isVisible() and panel.progress.maximum() == 8
    panel.session.select(query=2)  # the window answers: the list follows the new query at once
    settle()
    assert panel.position == 2
    panel.cancelButton.click()
    release.set()
    qtbot.waitUntil(lambda: panel.job is None, timeout=5000)
    settle()
    assert panel.session.head_effects is None and "Cancelled" in panel.info.text()
    assert panel.effectsButton.isEnabled() and not panel.runningRow.isVisible()


def test_last_token_chooses_the_end_of_the_sentence(prediction):
    panel = prediction("tiny-gpt2", query=1)
    assert panel.lastButton.isVisible()
    panel.lastButton.click()
    settle()
    n = panel.session.model_trace.n
    assert panel.session.selection.query == n - 1 and panel.position == n - 1 and not panel.lastButton.isVisible()
    assert shown(panel) == [(token_text(t), percent(p)) for t, _i, p in engine_top("tiny-gpt2", TEXT, n - 1)]


def test_the_bars_take_a_new_theme(prediction):
    from qkv_gui.look import colours, style

    panel = prediction("tiny-gpt2", query=2)
    assert panel.bars.colours is style.current()
    try:
        colours.use("dark")
        settle()
        assert panel.bars.colours.name == "dark" and panel.bars.colours is panel.colours
        image = panel.bars.grab().toImage()
        assert image.pixelColor(image.width() - 2, 2).lightness() < 80  # drawn on the dark ground
    finally:
        colours.use("standard")
        settle()


def test_last_token_in_a_low_dock_keeps_the_list_in_view(prediction):
    """The button hides itself when clicked; the focus goes to the bars, so the panel's scroll area does not
    scroll to the buttons under the list (it did: the top guesses went out of view at 1024 x 768)."""
    panel = prediction("tiny-gpt2", query=1, size=(420, 260))
    bar = panel.scroll.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0  # the panel is lower than it needs: it scrolls
    panel.lastButton.setFocus()
    panel.lastButton.click()
    settle()
    assert not panel.lastButton.isVisible() and panel.bars.hasFocus()
    assert bar.value() == 0
    panel.bars.rowClicked.emit(0)  # pinned: the Unpin button shows; unpinning by it hides it again
    settle()
    panel.unpinButton.setFocus()
    bar.setValue(panel.bars.y())  # the list's first row at the top of the view
    panel.unpinButton.click()
    settle()
    assert panel.session.target is None and panel.bars.hasFocus() and bar.value() == panel.bars.y()


def test_the_keyboard_moves_along_the_bars_and_pins_the_word(prediction, qtbot):
    panel = prediction("tiny-gpt2", query=2)
    bars, s = panel.bars, panel.session
    bars.setFocus()
    qtbot.keyClick(bars, Qt.Key.Key_Down)
    qtbot.keyClick(bars, Qt.Key.Key_Down)
    qtbot.keyClick(bars, Qt.Key.Key_Return)
    settle()
    _text, token_id, _p = panel.predictions[2]
    assert s.target is not None and s.target.token_id == token_id
    qtbot.keyClick(bars, Qt.Key.Key_End)
    qtbot.keyClick(bars, Qt.Key.Key_Down)  # stays on the last row
    assert bars.current == len(bars.rows) - 1
    qtbot.keyClick(bars, Qt.Key.Key_Home)
    qtbot.keyClick(bars, Qt.Key.Key_Up)
    qtbot.keyClick(bars, Qt.Key.Key_Space)
    settle()
    assert s.target.token_id == panel.predictions[0][1]


def test_a_mask_token_opens_with_its_fillers(open_model, make_panel, tmp_path):
    """A BERT whose tokenizer knows [MASK] (as real ones do) opens at the mask, and the panel lists the model's
    fillers for it, exactly Model.predict's."""
    from tests.engine.model_files import with_mask_token

    folder = with_mask_token(tmp_path / "masked")
    text = "the cat [MASK] on the mat"
    session = open_model("tiny-bert-mlm", text=text)
    session.open_model(load_model(folder), text=text)  # no query given: the model opens at the mask
    panel = make_panel(PredictionPanel, session=session, size=(640, 640))
    settle()
    tokens = list(session.model_trace.tokens)
    assert session.selection.query == tokens.index("[MASK]") == 3
    assert "most likely tokens to fill '[MASK]' (token 4 of 8)" in panel.note.text()
    model = load_model(folder)
    want = model.predict(model.run(text), 3, 10)
    assert shown(panel) == [(token_text(t), percent(p)) for t, _i, p in want]


def test_narrow_the_button_rows_go_under_themselves_rather_than_off_the_edge(prediction):
    """At 300 pixels "… in the whole model" and "average, not zero" were cut off at the panel's right edge."""
    panel = prediction("tiny-gpt2", query=2, size=(300, 640))
    panel.bars.rowClicked.emit(0)
    settle()
    view = panel.scroll.viewport()
    rows = (panel.effectsButton, panel.meanBox, panel.keepLayerButton, panel.keepModelButton, panel.unpinButton)
    assert all(w.isVisible() and shown_whole(w, view) for w in rows)
    assert panel.keepModelButton.y() > panel.keepLayerButton.y() and panel.meanBox.y() > panel.effectsButton.y()
    panel.resize(460, 640)
    settle()
    assert all(shown_whole(w, view) for w in rows)
    assert panel.keepModelButton.y() == panel.keepLayerButton.y()  # side by side again
    assert abs(panel.meanBox.geometry().center().y() - panel.effectsButton.geometry().center().y()) <= 6


def test_the_keyboards_row_is_kept_in_view_in_a_low_dock(prediction, qtbot):
    panel = prediction("tiny-gpt2", query=2, size=(420, 220))
    bars, view = panel.bars, panel.scroll.viewport()

    def in_view(row):
        return shown_whole(bars, view, bars.row_rect(row))

    bars.setFocus()
    assert in_view(0) and not in_view(9)
    qtbot.keyClick(bars, Qt.Key.Key_End)
    assert in_view(9)
    qtbot.keyClick(bars, Qt.Key.Key_Home)
    assert in_view(0)
