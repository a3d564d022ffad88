"""The one-picture summary: the selected pair's numbers sit on the diagram and follow every change."""

import numpy as np
import pytest

from qkv_gui.panels.steps.summary_diagram import SummaryPanel
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

    from tests.gui.support.layout import ink_rect as _ink_rect

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
    from qkv_gui.panels.steps.summary_diagram import SummaryPanel

    from tests.gui.support.big_dims import big_scenario, problems

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
    from qkv_gui.panels.steps.summary_diagram import SummaryPanel

    from tests.gui.support.big_dims import big_panel, problems, reference, texts_shown

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


# ----- the still parts, drawn once with the view's background -------------------------------------------
def _view_image(panel) -> np.ndarray:
    from PySide6 import QtGui

    image = panel.view.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
    return np.array(image.constBits(), copy=True).view(np.uint8).reshape(image.height(), image.width(), 4)


def _drawn_without_the_kept_background(panel) -> np.ndarray:
    """The view as it paints with every item drawn by the scene itself (no background picture kept)."""
    from PySide6 import QtWidgets

    view = panel.view
    still = view.still
    flag = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
    view.setCacheMode(QtWidgets.QGraphicsView.CacheModeFlag.CacheNone)
    for item in still:
        item.setFlag(flag, False)
    try:
        return _view_image(panel)
    finally:
        for item in still:
            item.setFlag(flag, True)
        view.setCacheMode(QtWidgets.QGraphicsView.CacheModeFlag.CacheBackground)


def test_the_still_drawing_looks_as_the_scene_draws_it_after_edits_palettes_and_sizes(panel):
    """Nodes, arrows, letters and titles are drawn with the background and kept as a picture: after edits, a
    new palette and a new size, the view is pixel for pixel what the scene draws item by item."""
    from qkv_gui.look import style

    s = panel.session
    assert 20 < len(panel.view.still) < len(panel.scene.items())
    steps = [lambda: s.set_cell("x", 0, 0, float(s.scenario.x[0, 0]) + 0.3),
             lambda: s.select(query=2, key=1),
             lambda: panel.set_colours(style.palette("dark")),
             lambda: s.set_cell("w_q", 0, 0, float(s.scenario.w_q[0, 0]) - 0.2),
             lambda: panel.set_colours(style.palette("standard")),
             lambda: panel.resize(ALONE[0] // 2, ALONE[1] // 2)]
    for step in steps:
        step()
        settle()
        kept, drawn = _view_image(panel), _drawn_without_the_kept_background(panel)
        assert kept.shape == drawn.shape and (kept == drawn).all()


def test_the_still_drawing_grows_with_the_presenters_text(panel):
    from qkv_gui.look import style

    k_letter = panel.texts["k_letter"]
    size = k_letter.font().pointSizeF()
    before = _view_image(panel)
    panel.set_theme(style.presenter(1.6))
    settle()
    assert panel.texts["k_letter"].font().pointSizeF() > size  # the letters (drawn with the background) grew
    after = _view_image(panel)
    drawn = _drawn_without_the_kept_background(panel)
    assert (after != before).any()
    # the picture kept is the drawing at the new size, give or take the last bit of an edge's shade
    assert np.abs(after.astype(int) - drawn.astype(int)).max() <= 2
    panel.set_theme(style.SCREEN)
    settle()
    assert (_view_image(panel) == before).all()


def test_the_items_stay_in_the_scene_after_it_is_painted(panel):
    """The view paints the still items itself: they stay in the scene, each once, with their shapes."""
    import gc

    from PySide6 import QtWidgets

    count = len(panel.scene.items())
    for _ in range(3):
        panel.view.viewport().repaint()
        gc.collect()
    assert len(panel.scene.items()) == count
    arrows = [item for item in panel.scene.items()
              if isinstance(item, QtWidgets.QGraphicsPathItem) and item.zValue() == 1]
    assert len(arrows) >= 8
