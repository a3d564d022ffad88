"""The one-picture summary: the selected pair's numbers sit on the diagram and follow every change."""

import numpy as np
import pytest

from qkv_gui.panels.summary_diagram import SummaryPanel
from tests.gui.conftest import ALONE, IN_GRID, settle


@pytest.fixture
def panel(make_panel):
    """The summary on its own Session (the app's default example), at its size in the panel grid."""
    return make_panel(SummaryPanel, size=IN_GRID)


def text(panel, name):
    return panel.texts[name].toPlainText()


def vec(values):
    return "[" + ", ".join(f"{v:.2f}".replace("-0.00", "0.00") for v in values) + "]"


def test_seed_cat_numbers_on_the_picture(make_panel, qtbot):
    panel = make_panel(SummaryPanel, preset="seed-cat", size=IN_GRID)
    s = panel.session.scenario
    # Independent numbers for the one token: q = x W^Q, k = x W^K, v = x W^V.
    x = s.x[0]
    q, k, v = x @ s.w_q, x @ s.w_k, x @ s.w_v
    score = float(q @ k)
    assert text(panel, "q_caption") == f"query of 'cat'\n{vec(q)}"
    assert text(panel, "k_caption") == f"key of 'cat'\n{vec(k)}"
    assert text(panel, "v_caption") == f"value of 'cat'\n{vec(v)}"
    assert text(panel, "dot_value") == f"score\n{score:.3f}"
    assert text(panel, "scale_value") == f"scaled\n{score / np.sqrt(s.d_k):.3f}"
    assert text(panel, "scale_title") == f"÷ √{s.d_k}"
    assert text(panel, "weight_value") == "weight 1.000"
    assert text(panel, "out_value") == f"= output of 'cat'\n{vec(v)}"  # one token: the output is its value
    assert "sums to 1" in text(panel, "softmax_note")


def test_follows_selection_and_options(panel, qtbot):
    s = panel.session
    s.select(query=2, key=0)
    settle(qtbot)
    sc = s.scenario
    tok = sc.tokens
    q = sc.x @ sc.w_q
    k = sc.x @ sc.w_k
    v = sc.x @ sc.w_v
    z = (q @ k.T) / np.sqrt(sc.d_k)
    w = np.exp(z - z.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    assert text(panel, "q_caption") == f"query of '{tok[2]}'\n{vec(q[2])}"
    assert text(panel, "k_caption") == f"key of '{tok[0]}'\n{vec(k[0])}"
    assert text(panel, "v_caption") == f"value of '{tok[0]}'\n{vec(v[0])}"
    assert text(panel, "weight_value") == f"weight {w[2, 0]:.3f}"
    assert text(panel, "out_value") == f"= output of '{tok[2]}'\n{vec(w[2] @ v)}"
    assert text(panel, "pair") == f"query 3 '{tok[2]}' → key 1 '{tok[0]}'"

    # Masked pair: query 1 may not look at key 3.
    s.set_option(causal=True)
    s.select(query=0, key=2)
    settle(qtbot)
    assert text(panel, "scale_value") == "masked (it comes later): −∞"
    assert text(panel, "weight_value") == "weight 0.000"
    s.set_option(causal=False, scale=False, softmax_over="queries")
    settle(qtbot)
    assert text(panel, "scale_title") == "÷ 1"
    assert "rows don't sum to 1" in text(panel, "softmax_note")


def test_items_made_once_and_fit_the_panel(panel, qtbot):
    count = len(panel.scene.items())
    panel.session.set_text(" ".join(f"w{i}" for i in range(512)))
    settle(qtbot)
    panel.session.select(query=511, key=300)
    settle(qtbot)
    assert len(panel.scene.items()) == count
    assert text(panel, "pair") == "query 512 'w511' → key 301 'w300'"
    # The whole drawing is inside the visible view, in the grid and focused.
    for size in (IN_GRID, ALONE):
        panel.resize(*size)
        settle(qtbot)
        view = panel.view
        shown = view.mapToScene(view.viewport().rect()).boundingRect()
        assert shown.contains(panel.scene.itemsBoundingRect().adjusted(1, 1, -1, -1))
    panel.grab()


def test_empty_sentence_shows_hint(panel, qtbot):
    panel.session.set_text("")
    settle(qtbot)
    assert panel.showing_hint()


# ----- no arrow through a word; a trained model's sizes ----------------------------------------------------
def _arrows_through_words(panel):
    """(arrow's ends, caption) for every arrow whose stroke passes through a caption's words."""
    from PySide6 import QtGui, QtWidgets

    from .test_panel_themes import _ink_rect

    words = [(name, t.mapRectToScene(_ink_rect(t))) for name, t in panel.texts.items() if t.toPlainText().strip()]
    stroker = QtGui.QPainterPathStroker()
    stroker.setWidth(2.5)
    found = []
    for item in panel.scene.items():
        if isinstance(item, QtWidgets.QGraphicsPathItem) and item.zValue() == 1:  # the arrows' lines
            stroke = stroker.createStroke(item.mapToScene(item.path()))
            found += [(name, text) for name, text in words if stroke.intersects(text)]
    return found


def test_no_arrow_crosses_a_word(make_panel, make_session):
    """An arrow used to cross "query of 'The'" (from k up to the dot), and the score under the dot."""
    from qkv_gui.panels import SummaryPanel

    from .big_dims import big_scenario, problems

    for preset, pair in (("seed-the-cat-sat", (0, 0)), ("pronoun", (6, 2)), ("seed-cat", (0, 0)),
                         ("designed-it", (7, 1)), (None, (3, 9))):
        session = make_session(preset)
        if preset is None:
            session.set_scenario(big_scenario())
        session.select(*pair)
        panel = make_panel(SummaryPanel, session=session, size=(520, 330))
        assert _arrows_through_words(panel) == [], preset
        assert not problems(panel), (preset, problems(panel))


def test_a_real_models_sizes_are_named_and_its_vectors_shortened(make_panel, make_session):
    from qkv_gui.panels import SummaryPanel

    from .big_dims import big_panel, problems, reference, texts_shown

    panel, s = big_panel(make_panel, make_session, SummaryPanel, query=3, key=9)
    assert texts_shown(panel) < 30 and not problems(panel), problems(panel)
    assert _arrows_through_words(panel) == []
    ref = reference(s)
    q = ref["q"][3]
    assert text(panel, "q_caption") == f"query of '{s.tokens[3]}'\n[{q[0]:.2f}, …, {q[-1]:.2f}]"
    assert text(panel, "pair").endswith("\nx: 384 numbers; q, k, v: 32 each")
    assert text(panel, "dot_value") == f"score\n{ref['scores'][3, 9]:.3f}"
    out = ref["output"][3]
    assert text(panel, "out_value") == f"= output of '{s.tokens[3]}'\n[{out[0]:.2f}, …, {out[-1]:.2f}]"
