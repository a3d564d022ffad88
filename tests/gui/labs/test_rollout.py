"""The attention rollout lab on a Session with a tiny trained model open: its two pictures are the engine's
rollout and the layer's mean over heads, for the layer and residual setting chosen; words join pieces;
clicks select; with no model it says what to do."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import WORD_RULE, merge_pieces, rollout, word_weights
from qkv_gui.drawing.token_labels import short_token
from qkv_gui.panels import catalog
from qkv_gui.panels.labs.rollout import APPROXIMATION, NAME_CHARS, RolloutPanel

from tests.gui.conftest import settle
from tests.gui.support.layout import shown_whole

#: tiny-bert reads "tokenization" as token ##iza ##tion
BERT_TEXT = "the cat sat on the tokenization mat"


@pytest.fixture
def rollout_panel(make_panel, make_session):
    def make(model, text, size=(760, 520)):
        session = make_session()
        session.open_model(model, text=text)
        return make_panel(RolloutPanel, session=session, size=size)

    return make


def test_without_a_model_the_panel_says_how_to_open_one(make_panel):
    panel = make_panel(RolloutPanel)
    assert panel.showing_hint()
    assert "Open a trained model" in panel.hint.text()


def test_the_catalog_declares_it_as_an_experiment_with_help():
    entry = catalog.by_object_name("rolloutPanel")
    assert entry in catalog.EXPERIMENTS and entry.short_name == "rollout" and entry.dock == "dockRollout"
    assert "approximation" in entry.help[0] and "not a" in entry.help[0]


@pytest.mark.parametrize("residual", [True, False])
def test_the_pictures_are_the_engines_rollout_and_the_layers_mean_over_heads(rollout_panel, gpt2, residual):
    panel = rollout_panel(gpt2, "The cat sat on the mat because it was tired")
    trace = panel.session.model_trace
    L = trace.n_layers
    assert L >= 2 and not panel.showing_hint()
    # the last layer at first
    assert panel.layerSlider.maximum() == L and panel.layerSlider.value() == L
    panel.residualCheck.setChecked(residual)
    for layer in range(L):
        panel.layerSlider.setValue(layer + 1)
        settle()
        expected = rollout(trace.weights, residual=residual)[layer]
        np.testing.assert_array_equal(panel.rolloutGrid.values, expected)
        mean = np.asarray(trace.weights[layer], dtype=np.float64).mean(axis=0)
        np.testing.assert_allclose(panel.layerGrid.values, mean, rtol=0, atol=1e-6)
        assert panel.layerValue.text() == f"{layer + 1} of {L}"
    assert panel.session.lab_state["rollout"]["residual"] is residual


def test_residual_changes_the_rollout_and_the_caption_says_it_is_an_approximation(rollout_panel, gpt2):
    panel = rollout_panel(gpt2, "one two three four five")
    with_residual = panel.rolloutGrid.values.copy()
    assert "approximation" in panel.note.text() and "not a measurement" in panel.note.text()
    assert APPROXIMATION.split(":")[0] in panel.note.text()
    panel.residualCheck.setChecked(False)
    settle()
    assert not np.array_equal(with_residual, panel.rolloutGrid.values)
    assert "no residual" in panel.note.text()


def test_a_model_without_an_output_head_works(rollout_panel, bert):
    panel = rollout_panel(bert, "the cat sat")
    trace = panel.session.model_trace
    assert trace.logits is None  # a MiniLM-like checkpoint: only the layers
    np.testing.assert_array_equal(panel.rolloutGrid.values, rollout(trace.weights)[-1])


def test_words_join_pieces_by_the_word_rule(rollout_panel, bert):
    panel = rollout_panel(bert, BERT_TEXT)
    trace = panel.session.model_trace
    assert any(t.startswith("##") for t in trace.tokens)
    panel.wordsCheck.setChecked(True)
    settle()
    assert panel.session.word_view
    words = merge_pieces(trace.tokens, trace.spans, trace.text)
    assert len(words) < trace.n
    np.testing.assert_allclose(panel.rolloutGrid.values, word_weights(rollout(trace.weights)[-1], words), atol=1e-12)
    assert WORD_RULE in panel.note.text()
    assert "tokenization" in [w.text for w in words]
    assert {t for _x, t in panel.y_tick_labels} <= {short_token(w.text, NAME_CHARS) for w in words}
    # a click on a word selects its first piece
    long_word = next(a for a, w in enumerate(words) if len(w.pieces) > 1)
    panel._on_click(long_word, 0)
    assert panel.session.selection.query == words[long_word].pieces[0]


def test_clicking_a_cell_selects_that_pair_in_the_session(rollout_panel, gpt2, qtbot):
    from PySide6 import QtCore
    from PySide6.QtTest import QTest

    panel = rollout_panel(gpt2, "one two three four five")
    grid = panel.rolloutGrid
    view = panel.views[0]
    pos = view.mapFromScene(grid.scene_pos_of(3, 1))
    QTest.mouseClick(view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    settle()
    assert (panel.session.selection.query, panel.session.selection.key) == (3, 1)
    assert panel.rolloutGrid.outlines["cell"].rect == QtCore.QRectF(1, 3, 1, 1)
    tokens = panel.session.model_trace.tokens
    assert f"'{short_token(tokens[3])}' \u2190 '{short_token(tokens[1])}'" in panel.info.text()


def test_tall_the_pictures_stand_one_above_the_other(rollout_panel, gpt2):
    panel = rollout_panel(gpt2, "one two three four five", size=(360, 700))
    assert not panel.side_by_side
    a, b = (v.geometry() for v in panel.views)
    assert b.top() >= a.bottom() and abs(a.height() - b.height()) <= 2
    panel.resize(1100, 420)
    settle()
    assert panel.side_by_side
    a, b = (v.geometry() for v in panel.views)
    assert b.left() >= a.right()


def test_narrow_the_switches_go_under_the_slider_which_keeps_room_to_drag(rollout_panel, gpt2):
    """In a dock on a 1024 x 768 screen (about 300 pixels) the slider was squeezed to a few pixels beside them."""
    panel = rollout_panel(gpt2, "one two three four five", size=(300, 700))
    slider, switches = panel.layerSlider, (panel.residualCheck, panel.wordsCheck)
    assert slider.width() >= 80 and all(shown_whole(w, panel) for w in (slider, panel.layerValue, *switches))
    assert all(w.geometry().top() >= slider.geometry().bottom() for w in switches)
    panel.resize(760, 520)
    settle()
    assert all(abs(w.geometry().center().y() - slider.geometry().center().y()) <= 6 for w in switches)
    assert slider.width() >= 80 and all(shown_whole(w, panel) for w in (slider, *switches))


def test_an_exported_copy_shows_the_layer_and_residual_chosen(rollout_panel, gpt2):
    from PySide6 import QtGui

    from qkv_gui.export import figures

    panel = rollout_panel(gpt2, "one two three four five")
    panel.layerSlider.setValue(1)
    panel.residualCheck.setChecked(False)
    settle()
    assert figures.experiment_classes()["rollout"] is RolloutPanel
    copy = RolloutPanel(panel.session)
    copy.resize(700, 500)
    copy.show()
    settle()
    assert copy.layer == 0 and not copy.residual and not copy.residualCheck.isChecked()
    np.testing.assert_array_equal(copy.rolloutGrid.values, rollout(panel.session.model_trace.weights, residual=False)[0])
    copy.detach()
    copy.deleteLater()
    png = figures.render_panel(RolloutPanel, panel.session, "png", figures.ExportOptions(width=800))
    image = QtGui.QImage.fromData(png)
    assert image.width() == 800 and not image.isNull()
