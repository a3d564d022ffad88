"""The model view with the tiny reference models open: grouped-query heads set apart and named, every tile's
word is ``head_labels``' label, the legend shows one label's heads alone, and after "Which heads matter?" the
tiles carry ``head_effects``' numbers on a diverging scale."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qkv_engine import BROAD_MIN, FOCUSED_MIN, head_effects, head_labels, load_model
from qkv_gui.panels import catalog
from qkv_gui.panels.labs.model_view import TAG_WORDS, ModelViewPanel

from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[2] / "data"
TEXT = "the cat sat on the mat"


@pytest.fixture
def model_view(make_session, make_panel):
    def make(name, text=TEXT, size=(900, 640)):
        session = make_session()
        session.runner.sync = True
        session.open_model(load_model(name if isinstance(name, Path) else DATA / name), text=text)
        return make_panel(ModelViewPanel, session=session, size=size)

    return make


def tile_cells(panel, layer, head):
    r = panel.tile_rect(layer, head)
    x, y, n, m = int(r.left()), int(r.top()), int(r.height()), int(r.width())
    return panel.grid.values[y:y + n, x:x + m]


@pytest.mark.parametrize("name, words, groups", [
    ("tiny-llama", "4 query heads, 2 key/value heads: each key/value head serves 2 query heads", 2),
    ("tiny-qwen2", "4 query heads, 1 key/value head: it serves all 4 query heads", 1),
])
def test_query_heads_that_share_a_key_value_head_are_grouped_and_counted(model_view, name, words, groups):
    panel = model_view(name)
    assert words in panel.note.text()
    labels = [lab for lab in panel.bracket_labels if lab.isVisible()]
    assert [lab.text() for lab in labels] == [f"key/value head {g + 1}" for g in range(groups)]
    share = 4 // groups
    # the tiles of one group sit closer together than two neighbouring groups' tiles
    inside = panel.tile_rect(0, 1).left() - panel.tile_rect(0, 0).right()
    if groups > 1:
        between = panel.tile_rect(0, share).left() - panel.tile_rect(0, share - 1).right()
        assert between > inside
        for g, lab in enumerate(labels):  # each bracket's name in the middle of its group
            middle = (panel.tile_rect(0, g * share).left() + panel.tile_rect(0, (g + 1) * share - 1).right()) / 2
            assert lab.pos().x() == pytest.approx(middle)
    # every tile is its head's weights, and each of its cells is found again
    weights = panel.session.model_trace.weights
    for layer in range(2):
        for head in range(4):
            np.testing.assert_allclose(tile_cells(panel, layer, head), weights[layer, head], atol=1e-6)
            r = panel.tile_rect(layer, head)
            for i in range(int(r.height())):
                for j in range(int(r.width())):
                    assert panel.tile_at(int(r.top()) + i, int(r.left()) + j) == (layer, head, i, j)
    assert "reads key/value head" in panel.tile_more(0, 3)
    assert f"reads key/value head {3 // share + 1}" in panel.tile_more(0, 3)


def test_a_model_without_groups_has_no_brackets(model_view):
    panel = model_view("tiny-gpt2")
    assert not any(lab.isVisible() for lab in panel.bracket_labels)
    assert "key/value" not in panel.note.text() and panel.brackets.path().isEmpty()


@pytest.mark.parametrize("name", ["tiny-bert", "tiny-gpt2", "tiny-bert-mlm"])
def test_each_tile_says_its_heads_label_from_the_sentence(model_view, name):
    panel = model_view(name)
    want = head_labels(panel.session.model_trace).labels
    assert panel.labels.labels == want
    assert panel.tag_texts() == [[TAG_WORDS[label][0] for label in row] for row in want]
    for label in {lab for row in want for lab in row}:
        count = sum(row.count(label) for row in want)
        assert f"{label}" in panel.legend.text() and f": {count}" in panel.legend.text()


def test_a_legend_entry_shows_only_those_heads(model_view):
    panel = model_view("tiny-bert")
    labels = panel.labels.labels
    assert {"broad", "mixed"} <= {lab for row in labels for lab in row}
    panel.legend.linkActivated.emit("broad")
    settle()
    assert panel.shown_label() == "broad" and "show all" in panel.legend.text()
    dim = panel.dim.path()
    for layer in range(2):
        for head in range(2):
            assert dim.contains(panel.tile_rect(layer, head).center()) == (labels[layer][head] != "broad")
    panel.legend.linkActivated.emit("*")
    settle()
    assert panel.shown_label() is None and panel.dim.path().isEmpty()


def test_the_help_text_states_the_thresholds():
    words = " ".join(catalog.MODEL_VIEW.help)
    assert f"{FOCUSED_MIN:.0%}" in words and f"{BROAD_MIN}" in words


def test_head_effects_colour_the_tiles_with_their_numbers(model_view):
    panel = model_view("tiny-llama")
    s = panel.session
    model = s.model_doc.model
    top = model.predict(s.model_trace, 3, 1)[0]
    assert s.pin_target(3, top[1], top[0])
    deltas = head_effects(model, s.model_trace, 3, top[1])
    s.set_head_effects(deltas, "zero", s.model_doc.key)
    settle()
    assert panel.effectsBox.isVisible() and panel.effectsBox.isChecked() and panel.effectScale.isVisible()
    assert panel.grid.colormap == "diff"
    high = np.abs(deltas).max()
    assert panel.grid.levels == (pytest.approx(-high), pytest.approx(high))
    assert panel.effectScale.high == pytest.approx(high)
    for layer in range(2):
        for head in range(4):
            np.testing.assert_array_equal(tile_cells(panel, layer, head), deltas[layer, head])
            assert f"changes by {deltas[layer, head]:.2f}".replace("-0.00", "0.00") in panel.tile_more(layer, head)
    assert panel.tag_texts() == [[f"{d:.2f}".replace("-0.00", "0.00") for d in row] for row in deltas]
    # back to the weights with the box
    panel.effectsBox.setChecked(False)
    settle()
    assert panel.grid.colormap == "weights" and not panel.effectScale.isVisible()
    np.testing.assert_allclose(tile_cells(panel, 1, 2), s.model_trace.weights[1, 2], atol=1e-6)
    # unpinning forgets them
    panel.effectsBox.setChecked(True)
    s.unpin_target()
    settle()
    assert s.head_effects is None and panel.grid.colormap == "weights" and not panel.effectsBox.isVisible()


def test_a_legend_choice_no_head_has_in_a_new_sentence_shows_every_head(model_view):
    panel = model_view("tiny-bert")
    panel.show_only("previous")  # no head of this sentence is 'previous'
    settle()
    assert panel.shown_label() is None and panel.dim.path().isEmpty()


def test_a_sentence_too_long_to_label_at_every_edit_says_so(model_view, monkeypatch):
    from qkv_gui.panels.labs import model_view as module

    monkeypatch.setattr(module, "LABEL_MAX_TOKENS", 5)
    panel = model_view("tiny-gpt2")  # 8 tokens
    assert panel.labels is None and "up to 5 tokens" in panel.legend.text()
    assert all(t == "" for row in panel.tag_texts() for t in row)


def test_effects_from_before_the_last_change_are_named_so(model_view):
    panel = model_view("tiny-gpt2")
    s = panel.session
    model = s.model_doc.model
    text, token_id, _p = model.predict(s.model_trace, 2, 1)[0]
    s.pin_target(2, token_id, text)
    s.set_head_effects(head_effects(model, s.model_trace, 2, token_id), "zero", s.model_doc.key)
    settle()
    assert "before the last change" not in panel.note.text()
    s.knock_out(1, 1, True)
    settle()
    assert "before the last change" in panel.note.text() and panel.effects is not None


def label_bottom(panel, label) -> float:
    """Where a text label (drawn at its own size, whatever the zoom) ends on screen, in the canvas's pixels."""
    return label.deviceTransform(panel.canvas.viewportTransform()).mapRect(label.boundingRect()).bottom()


def view_bottom(panel) -> float:
    return panel.canvas.mapFromScene(panel.vb.sceneBoundingRect()).boundingRect().bottom()


@pytest.mark.parametrize("size", [(300, 260), (420, 300), (900, 640)])
def test_the_bracket_names_fit_under_their_groups(model_view, size):
    panel = model_view("tiny-llama", size=size)
    px_x, _px_y = panel.grid.cell_px()
    named = 0
    for g, label in enumerate(panel.bracket_labels):
        room = (panel.tile_rect(0, 2 * g + 1).right() - panel.tile_rect(0, 2 * g).left()) * px_x
        if label.isVisible() and label.text():
            named += 1
            assert label.text() in (f"key/value head {g + 1}", f"kv {g + 1}")
            assert label.boundingRect().width() <= room
            assert label_bottom(panel, label) <= view_bottom(panel) + 1  # whole, not cut by the view's edge
    assert named == 2 or size == (300, 260)
    assert "2 query heads a key/value head" in panel.note.text() or "each key/value head serves 2" in panel.note.text()


def test_under_short_tiles_a_bracket_name_that_would_be_cut_is_left_out(model_view):
    """A long sentence in a short view: tiles of many cells leave less room under them than a line of text."""
    from qkv_engine import builtin_model_path

    for size in ((400, 260), (400, 230), (400, 210)):
        panel = model_view(builtin_model_path(), text=" ".join(["the cat sat on the mat"] * 5), size=size)
        for label in panel.bracket_labels:
            if label.isVisible() and label.text():
                assert label_bottom(panel, label) <= view_bottom(panel) + 1, size
        assert "4 query heads a key/value head" in panel.note.text() or "serves 4" in panel.note.text()


def test_the_word_view_joins_pieces_in_every_tile_by_the_word_rule(model_view):
    """With the word view on, each tile is its head's weights between words (rows: the mean over a word's
    pieces, columns: the sum), worked out here by hand; the labels come from those weights, the selected
    query's row is its word's, the note states the rule; off again, the pieces come back."""
    from qkv_engine import WORD_RULE, merge_pieces
    from qkv_gui.drawing.token_labels import short_token

    panel = model_view("tiny-bert", "the cat sat on the tokenization mat")
    session, trace = panel.session, panel.session.model_trace
    assert tile_cells(panel, 1, 1).shape == (trace.n, trace.n)
    long_word_piece = next(i for i, t in enumerate(trace.tokens) if t.startswith("##"))
    session.select(query=long_word_piece)
    session.set_word_view(True)
    settle()
    words = merge_pieces(trace.tokens, trace.spans, trace.text)
    assert len(words) < trace.n
    w = trace.weights.astype(np.float64)
    for layer in range(w.shape[0]):
        for head in range(w.shape[1]):
            want = np.array([[np.mean([sum(w[layer, head, i, j] for j in b.pieces) for i in a.pieces])
                              for b in words] for a in words])
            np.testing.assert_allclose(tile_cells(panel, layer, head), want, atol=1e-6)
    assert WORD_RULE in panel.note.text()
    word = next(a for a, wd in enumerate(words) if long_word_piece in wd.pieces)
    row = panel.grid.outlines["query"].rect
    assert row.top() == panel.tile_rect(*panel._current()).top() + word and row.height() == 1
    tokens = tuple(wd.text for wd in words)
    assert "tokenization" in tokens and tokens[word] == "tokenization"
    assert f"'{short_token(tokens[word])}' looks most at" in panel.info.text()
    joined = np.array([[[[np.mean([sum(w[l, h, i, j] for j in b.pieces) for i in a.pieces]) for b in words]
                         for a in words] for h in range(w.shape[1])] for l in range(w.shape[0])])
    assert panel.labels.labels == head_labels(joined, tokens, np.ones((len(words),) * 2, dtype=bool)).labels
    session.set_word_view(False)
    settle()
    assert tile_cells(panel, 1, 1).shape == (trace.n, trace.n) and WORD_RULE not in panel.note.text()


def wait_for_labels(panel, qtbot):
    qtbot.waitUntil(lambda: panel.sources.job is None and panel.sources.labels() is not None, timeout=20000)
    settle()


def test_labels_over_the_example_sentences_are_each_heads_scores_averaged(model_view, qtbot):
    """"Labels from: the example sentences": the tiles carry head_labels_over of the example sentences run
    through the model; the legend says so; a knock-out (a what-if edit) works them out again with the edit."""
    from qkv_engine import BUILTIN_NAME, ModelEdits, builtin_model_path, head_labels_over, model_examples

    assert len(model_examples.example_sentences("tiny-llama")) == 4  # any other model: the designed examples
    panel = model_view(builtin_model_path(), "tom met anna at the park . later tom met")
    model = panel.session.model_doc.model
    texts = model_examples.example_sentences(model.info.name)
    assert model.info.name == BUILTIN_NAME and len(texts) == 7  # its own examples, in words it knows
    assert all("[UNK]" not in model.run(t).tokens for t in texts)
    menu = panel.sources.menu(panel)
    assert [a.text() for a in menu.actions() if a.isCheckable()] == [
        "This sentence", "The example sentences", "Sentences I type…"]
    next(a for a in menu.actions() if a.data() == "examples").trigger()
    wait_for_labels(panel, qtbot)
    want = head_labels_over([model.run(t) for t in texts]).labels
    assert panel.labels.labels == want and want != head_labels(panel.session.model_trace).labels
    assert panel.tag_texts() == [[TAG_WORDS[label][0] for label in row] for row in want]
    assert "averaged over 7 sentences" in panel.legend.text() and "the example sentences" in panel.legend.text()
    assert all(t in panel.legend.toolTip() for t in texts)
    panel.session.knock_out(2, 3, True)  # the previous-token head: the copying heads above it look elsewhere
    settle()
    wait_for_labels(panel, qtbot)
    edits = ModelEdits(knocked_out=frozenset({(2, 3)}))
    assert panel.labels.labels == head_labels_over([model.run(t, edits) for t in texts]).labels
    panel.sources.choose("sentence")
    settle()
    assert panel.labels.labels == head_labels(panel.session.model_trace).labels
    assert "averaged" not in panel.legend.text()


def test_labels_over_typed_sentences_and_a_bad_list_is_refused_keeping_the_last(model_view, qtbot, monkeypatch):
    from PySide6 import QtWidgets

    from qkv_engine import head_labels_over
    from qkv_gui.panels.labs.label_sources import SOURCE_KEY, TEXTS_KEY

    panel = model_view("tiny-gpt2")
    model = panel.session.model_doc.model
    asked = []
    monkeypatch.setattr(QtWidgets.QInputDialog, "getMultiLineText",
                        lambda *a, **k: (asked.append(a[-1]) or "the dog ran\n\n  a cat sat on it  \n", True))
    panel.sources._on_chosen("typed", panel)  # no list yet: the dialog asks for one
    wait_for_labels(panel, qtbot)
    assert asked == [""]
    assert panel.session.lab_state[SOURCE_KEY] == "typed"
    assert panel.session.lab_state[TEXTS_KEY] == ["the dog ran", "a cat sat on it"]
    want = head_labels_over([model.run("the dog ran"), model.run("a cat sat on it")]).labels
    assert panel.labels.labels == want and "averaged over 2 sentences" in panel.legend.text()
    assert not panel.sources.set_sentences("\n".join(["a b"] * 41))
    settle()
    assert "were not taken" in panel.legend.text() and "at most 40" in panel.legend.text()
    assert panel.session.lab_state[TEXTS_KEY] == ["the dog ran", "a cat sat on it"]
    assert panel.labels.labels == want
    assert not panel.sources.set_sentences(" \n \n")
    assert "at least one sentence" in panel.sources.refused


def test_with_the_word_view_the_sentences_are_labelled_in_words(model_view, qtbot):
    from qkv_engine import head_labels_over, merge_pieces, word_weights

    panel = model_view("tiny-bert", "the cat sat on the tokenization mat")
    model = panel.session.model_doc.model
    panel.session.lab_state["modelViewLabelTexts"] = ["the tokenization of words", "a cat sat"]
    panel.sources.choose("typed")
    panel.session.set_word_view(True)
    settle()
    wait_for_labels(panel, qtbot)
    sentences = []
    for text in ("the tokenization of words", "a cat sat"):
        trace = model.run(text)
        words = merge_pieces(trace.tokens, trace.spans, trace.text)
        sentences.append((word_weights(trace.weights, words), tuple(w.text for w in words),
                          word_weights(trace.allowed.astype(float), words) > 0))
    assert panel.labels.labels == head_labels_over(sentences).labels


def test_a_run_of_quick_edits_works_the_labels_out_once_after_it(model_view, qtbot, monkeypatch):
    from qkv_engine import ModelEdits, head_labels_over
    from qkv_gui.panels.labs import label_sources

    panel = model_view("tiny-gpt2")
    model = panel.session.model_doc.model
    panel.session.lab_state[label_sources.TEXTS_KEY] = ["the dog ran", "a cat sat on it"]
    panel.sources.choose("typed")
    wait_for_labels(panel, qtbot)
    started = []
    real_start = label_sources.LabelSources._start
    monkeypatch.setattr(label_sources.LabelSources, "_start", lambda self, key: (started.append(key), real_start(self, key)))
    for on in (True, False, True, False, True):
        panel.session.knock_out(0, 1, on)
        settle()
    assert started == [] and "working out again after the edits" in panel.legend.text()
    wait_for_labels(panel, qtbot)
    assert len(started) == 1
    edits = ModelEdits(knocked_out=frozenset({(0, 1)}))
    assert panel.labels.labels == head_labels_over([model.run(t, edits) for t in ("the dog ran", "a cat sat on it")]).labels
