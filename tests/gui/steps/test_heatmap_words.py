"""The heatmap's word view with a trained model open: the grid is word_weights of the head's weights,
the note states the rule, the selection maps between words and pieces, and switching it off gives the
piece grid back exactly."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore

from qkv_engine import WORD_RULE, merge_pieces, word_weights
from qkv_engine.models import load_model
from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel

from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[2] / "data"
#: tiny-bert reads "tokenization" as token ##iza ##tion
BERT_TEXT = "the cat sat on the tokenization mat"


@pytest.fixture
def heatmap(make_panel, make_session):
    def make(folder, text, size=(700, 520)):
        session = make_session()
        session.open_model(load_model(DATA / folder), text=text)
        return make_panel(HeatmapPanel, session=session, size=size)

    return make


def test_word_view_is_word_weights_of_the_heads_weights(heatmap):
    panel = heatmap("tiny-bert", BERT_TEXT)
    session = panel.session
    session.select_model_head(1, 1)
    settle()
    pieces = panel.image.values.copy()
    trace = session.model_trace
    np.testing.assert_allclose(pieces, trace.weights[1, 1], atol=1e-6)
    session.set_word_view(True)
    settle()
    words = merge_pieces(trace.tokens, trace.spans, trace.text)
    assert "tokenization" in [w.text for w in words] and len(words) == trace.n - 2
    np.testing.assert_array_equal(panel.image.values, word_weights(session.result.weights, words))
    np.testing.assert_allclose(panel.image.values, word_weights(trace.weights[1, 1], words), atol=1e-6)
    np.testing.assert_allclose(panel.image.values.sum(axis=1), 1.0, atol=1e-9)  # rows still add up to 1
    assert WORD_RULE in panel.sumNote.text()
    assert "tokenization" in [t for _x, t in panel.x_tick_labels] or "tokenizat…" in [t for _x, t in panel.x_tick_labels]
    session.set_word_view(False)
    settle()
    np.testing.assert_array_equal(panel.image.values, pieces)
    assert WORD_RULE not in panel.sumNote.text()


def test_selecting_a_word_selects_its_first_piece_and_a_piece_lights_its_word(heatmap):
    panel = heatmap("tiny-bert", BERT_TEXT)
    session = panel.session
    session.set_word_view(True)
    settle()
    trace = session.model_trace
    words = merge_pieces(trace.tokens, trace.spans, trace.text)
    a = next(k for k, w in enumerate(words) if w.text == "tokenization")
    panel._on_cell_clicked(a, 1)
    assert (session.selection.query, session.selection.key) == (words[a].pieces[0], words[1].pieces[0])
    session.select(query=words[a].pieces[-1], key=0)  # the last piece of the word: the word is outlined
    settle()
    assert panel.image.outlines["cell"].rect == QtCore.QRectF(0, a, 1, 1)
    assert "tokenization" in panel.info.text()
    panel.hover_cell(a, 1)
    assert "3 pieces of 'tokenization'" in panel.hover_text and "'token' + '##iza' + '##tion'" in panel.hover_text


def test_the_causal_mask_in_words_hides_later_words(heatmap):
    panel = heatmap("tiny-gpt2", "The cat sat on the mat")
    panel.session.set_word_view(True)
    settle()
    values = panel.image.values
    m = values.shape[0]
    assert np.all(values[np.triu_indices(m, 1)] == 0.0)
    assert panel.image.mask_path().isEmpty() is False
