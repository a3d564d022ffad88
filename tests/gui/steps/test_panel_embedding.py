"""Panel 1, tokens as numbers: the bars are the embeddings, clicks pick the query, 512 tokens stay readable."""

import numpy as np
import pytest
from PySide6 import QtCore, QtGui
from PySide6.QtTest import QTest

from qkv_gui.panels.steps.embedding_bars import EmbeddingPanel
from tests.gui.conftest import ALONE, IN_GRID, settle
from tests.gui.support.fresh_panel import assert_same_drawn, drawn_afresh, same_bars, through_looks

Qt = QtCore.Qt

# The default preset's three tokens, as printed in the second seed document (rows = tokens).
THE_CAT_SAT_X = np.array([[0.1, 0.4, 0.2, 0.5], [0.9, 0.1, 0.8, 0.3], [0.2, 0.7, 0.1, 0.9]])



@pytest.fixture
def panel(make_panel):
    """The panel on its own Session (the app's default example), at its size in the panel grid."""
    return make_panel(EmbeddingPanel, size=IN_GRID)


def click(qtbot, panel, i):
    QTest.mouseClick(panel.plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     panel.strip_point(i))
    settle(qtbot)


def test_bars_are_the_embeddings_and_the_query_strip_is_outlined(panel, qtbot):
    panel.resize(*ALONE)
    settle(qtbot)
    d = panel.drawn()
    np.testing.assert_allclose(d["heights"], THE_CAT_SAT_X.reshape(-1), atol=1e-12)
    # groups of 4 touching bars, one bar width apart
    np.testing.assert_allclose(d["lefts"], [g * 5 + c for g in range(3) for c in range(4)])
    np.testing.assert_allclose(d["selected_heights"], THE_CAT_SAT_X[0])
    np.testing.assert_allclose(d["selected_lefts"], [0, 1, 2, 3])
    assert d["band"].left() <= 0 and d["band"].right() >= 4
    assert [t for _, t in d["ticks"]] == ["The", "cat", "sat"]
    assert d["value_labels"] == [f"{v:.2f}" for v in THE_CAT_SAT_X.reshape(-1)]
    assert d["pointer"] == "query: The"
    assert "x = [0.10, 0.40, 0.20, 0.50]" in d["caption"]


def test_edits_move_the_bars_and_negatives_hang_below(panel, qtbot):
    s = panel.session
    assert s.set_cell("x", 1, 2, "-0.7")
    settle(qtbot)
    d = panel.drawn()
    expected = THE_CAT_SAT_X.copy()
    expected[1, 2] = -0.7
    np.testing.assert_allclose(d["heights"], expected.reshape(-1))
    lo, hi = d["y_range"]
    assert lo < -0.7 and hi > 0.9  # the negative bar fits below the line


def test_clicking_a_strip_selects_that_query_everywhere(panel, make_panel, qtbot):
    from qkv_gui.panels.steps.softmax_pie import SoftmaxPanel
    from qkv_gui.panels.steps.value_mixing import ValuesPanel

    session = panel.session
    softmax = make_panel(SoftmaxPanel, session=session, size=IN_GRID)  # other panels on the session
    values = make_panel(ValuesPanel, session=session, size=IN_GRID)
    click(qtbot, panel, 2)
    assert session.selection.query == 2
    d = panel.drawn()
    np.testing.assert_allclose(d["selected_heights"], THE_CAT_SAT_X[2])
    assert d["pointer"] == "query: sat"
    # the other panels follow the new query
    assert "sat" in softmax.drawn()["heading"]
    assert "sat" in values.drawn()["caption"]
    click(qtbot, panel, 1)
    assert session.selection.query == 1


def test_one_token_and_empty_sentence(make_panel, qtbot):
    panel = make_panel(EmbeddingPanel, preset="seed-cat", size=IN_GRID)
    d = panel.drawn()
    np.testing.assert_allclose(d["heights"], [0.5, -0.3, 0.8, 0.2])
    assert [t for _, t in d["ticks"]] == ["cat"]
    panel.session.set_text("")
    settle(qtbot)
    assert panel.showing_hint()


def test_512_tokens_thin_the_names_without_overlap(panel, qtbot):
    s = panel.session
    s.set_text(" ".join(f"w{i}" for i in range(512)))
    settle(qtbot)
    s.select(query=300)
    settle(qtbot)
    d = panel.drawn()
    assert d["heights"].size == 512 * 4
    np.testing.assert_allclose(d["heights"], s.scenario.x.reshape(-1))
    np.testing.assert_allclose(d["selected_heights"], s.scenario.x[300])
    names = [t for _, t in d["ticks"]]
    assert "w300" in names and 2 <= len(names) < 60
    # no two shown names overlap on screen
    fm = QtGui.QFontMetrics(panel.plot.getPlotItem().getAxis("bottom").font())
    vb = panel.plot.getPlotItem().getViewBox()
    spans = sorted(
        (vb.mapViewToScene(QtCore.QPointF(x, 0)).x() - fm.horizontalAdvance(t) / 2,
         vb.mapViewToScene(QtCore.QPointF(x, 0)).x() + fm.horizontalAdvance(t) / 2) for x, t in d["ticks"]
    )
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    assert d["value_labels"] == []  # far too narrow for numbers
    click(qtbot, panel, 10)
    assert s.selection.query == 10


# ----- a trained model's sizes, and named features --------------------------------------------------------
def test_a_real_models_size_is_drawn_as_colour_strips(make_panel, make_session, qtbot):
    from qkv_gui.panels.steps.embedding_bars import EmbeddingPanel

    from tests.gui.support.big_dims import big_panel, problems, texts_shown

    panel, s = big_panel(make_panel, make_session, EmbeddingPanel, query=9)
    session = panel.session
    d = panel.drawn()
    strips = d["strips"]
    assert strips is not None and panel.plot.isHidden() and not panel.strip_view.plot.isHidden()
    np.testing.assert_array_equal(strips["values"], s.x)  # one row of cells per token, every number
    low, high = strips["levels"]
    assert low == -high and 0 < high <= np.abs(s.x).max()  # one scale, centred on 0, for every token
    assert strips["outlines"]["query"] == QtCore.QRectF(0, 9, 384, 1)
    names = [t for _, t in strips["ticks"]]
    assert s.tokens[9] in names and len(names) <= 30
    # the caption names the four largest numbers of the selected token, measured here
    order = sorted(range(384), key=lambda c: -abs(s.x[9][c]))[:4]
    want = ", ".join(f"x{c + 1} = {s.x[9][c]:.2f}" for c in order)
    assert f"384 numbers, the largest {want} and 380 more" in d["caption"]
    assert texts_shown(panel) < 40
    assert not problems(panel), problems(panel)
    # clicking a row picks that token
    QTest.mouseClick(panel.strip_view.plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     panel.strip_view.row_point("query", 20))
    settle(qtbot)
    assert session.selection.query == 20
    assert panel.drawn()["strips"]["outlines"]["query"] == QtCore.QRectF(0, 20, 384, 1)
    panel.resize(330, 230)
    settle(qtbot)
    assert "and 382 more" in panel.drawn()["caption"]  # a narrow panel names the two largest
    assert not problems(panel), problems(panel)
    # back to a hand-made size: bars again
    session.set_dims(4, 2, 3)
    settle(qtbot)
    assert panel.drawn()["strips"] is None and not panel.plot.isHidden()


def test_named_features_are_said_on_the_axis_and_in_the_caption(make_panel, qtbot):
    from qkv_gui.panels.steps.embedding_bars import EmbeddingPanel

    panel = make_panel(EmbeddingPanel, preset="designed-it", size=(520, 330))
    session = panel.session
    it = session.scenario.tokens.index("it")
    session.select(query=it)
    settle(qtbot)
    d = panel.drawn()
    assert "x = [animate 0.00, noun 0.00, pronoun 1.00, verb 0.00]" in d["caption"]
    axis = panel.plot.getPlotItem().getAxis("bottom")
    assert axis.labelText.endswith("animate, noun, pronoun, verb")
    panel.resize(330, 230)
    settle(qtbot)
    label = panel.plot.getPlotItem().getAxis("bottom").labelText
    fm = QtGui.QFontMetricsF(axis.label.font())
    assert fm.horizontalAdvance(label) <= panel.vb.width()  # the wording that fits, never cut
    from tests.gui.support.big_dims import problems

    assert not problems(panel), problems(panel)


@pytest.mark.parametrize("size", [(280, 200), (390, 275), (520, 330)])
def test_numbers_on_the_bars_fit_inside_the_picture(make_panel, size):
    """A short picture gives the numbers at the bars' tips the room they need: none is cut at the top or
    the bottom (the tallest bars' 0.90 was cut to "0.9" in a short panel), also after an edit makes a bar
    negative."""
    panel = make_panel(EmbeddingPanel, preset="seed-the-cat-sat", size=size)
    for edit in (None, ("x", 1, 2, "-0.85")):
        if edit:
            panel.session.set_cell(*edit)
            settle()
        pool = panel.strips.values
        shown = pool.items[:pool.shown]
        assert shown, "the numbers show at this size"
        gv = panel.plot
        view = gv.mapFromScene(panel.vb.sceneBoundingRect()).boundingRect()
        for item in shown:
            box = item.view_rect(gv)
            assert view.top() - 1 <= box.top() and box.bottom() <= view.bottom() + 1, (item.text(), box, view)


# ----- an edit sets only the parts that changed ------------------------------------------------------------
def _same_as_drawn_afresh(panel, qtbot) -> None:
    """The panel after everything done to it shows what a new panel shows for the same session, palette,
    theme, size and value range (kept while the numbers fit, so handed over): the same bars, outlined strip,
    names, numbers, texts and tool tip in the same looks; and its view shows the range it worked out."""
    fresh = drawn_afresh(panel, qtbot, handed=("y_range",))
    mine = panel.drawn()
    assert_same_drawn(mine, fresh.drawn(), skip=("source",))
    for name in ("bars", "chosen"):
        same_bars(getattr(panel.strips, name), getattr(fresh.strips, name), name)
    assert panel.plot.toolTip() == fresh.plot.toolTip()
    assert panel.plot.getPlotItem().getAxis("bottom").labelText == fresh.plot.getPlotItem().getAxis("bottom").labelText
    fresh.close()
    (x0, x1), (y0, y1) = panel.vb.viewRange()
    assert (x0, x1) == pytest.approx(panel.strips.groups.x_range) and (y0, y1) == pytest.approx(panel.y_range)
    s = panel.session
    np.testing.assert_allclose(mine["selected_heights"], s.scenario.x[s.selection.query])


def test_a_panel_changed_edit_by_edit_shows_what_a_new_one_does(make_panel, qtbot):
    """The outlined strip, the range, the names and the tool tip are set only when they change: after an edit
    of another token, of the query, a big number, another query, new words, named dials, another palette
    and presenter mode, the panel is the one a new panel draws."""
    panel = make_panel(EmbeddingPanel, size=IN_GRID)
    s = panel.session
    s.select(query=1)
    assert s.set_cell("x", 2, 1, "-0.6")  # another token: the outlined strip stays
    _same_as_drawn_afresh(panel, qtbot)
    assert s.set_cell("x", 1, 0, "0.35")  # the query's own numbers
    _same_as_drawn_afresh(panel, qtbot)
    assert s.set_cell("x", 0, 3, "3.5")  # a bigger range
    _same_as_drawn_afresh(panel, qtbot)
    assert panel.y_range[1] > 3.5
    s.select(query=2)
    _same_as_drawn_afresh(panel, qtbot)
    s.set_text("a dog ran after the ball")  # new names, another number of strips
    _same_as_drawn_afresh(panel, qtbot)
    assert [t for _, t in panel.drawn()["ticks"]][:2] == ["a", "dog"]
    s.set_text("my cat ran after that bird")  # other names, as many
    _same_as_drawn_afresh(panel, qtbot)
    assert [t for _, t in panel.drawn()["ticks"]][:2] == ["my", "cat"]
    assert s.set_feature_name(0, "animate")  # named dials: the tool tip and the axis say so
    _same_as_drawn_afresh(panel, qtbot)
    assert "animate" in panel.plot.toolTip()
    through_looks(panel, lambda: _same_as_drawn_afresh(panel, qtbot))  # new colours, bigger text, thicker lines


def _view_pixels(panel) -> bytes:
    image = panel.plot.grab().toImage()  # kept while its bits are copied: a temporary's could be freed first
    return bytes(image.constBits())


def test_an_edit_of_the_weights_draws_nothing_again_and_the_next_change_is_followed(panel, qtbot, monkeypatch):
    from qkv_gui.look import style

    """The panel shows the embeddings only: an edit of a weight grid leaves every bar, name and number where
    it is and sets nothing again; a rename, an edit of x, masks that leave the query no key, another palette
    and presenter mode that come after it are all followed."""
    s = panel.session
    settle(qtbot)
    drawn, pixels = panel.drawn(), _view_pixels(panel)
    shown = []
    real = panel.strips.show
    monkeypatch.setattr(panel.strips, "show", lambda *a, **k: (shown.append(a[1]), real(*a, **k)))
    for matrix in ("w_q", "w_k", "w_v"):
        assert s.set_cell(matrix, 0, 0, float(getattr(s.scenario, matrix)[0, 0]) + 0.5)
        settle(qtbot)
    assert shown == []  # nothing set again
    assert_same_drawn(panel.drawn(), drawn)
    assert _view_pixels(panel) == pixels
    s.set_text("a dog sat")  # as many tokens, other names
    settle(qtbot)
    assert shown and [t for _, t in panel.drawn()["ticks"]] == ["a", "dog", "sat"]
    assert s.set_cell("x", 2, 0, "-0.7")  # another token's numbers
    settle(qtbot)
    assert panel.drawn()["heights"][2 * s.scenario.d_model] == pytest.approx(-0.7)
    _same_as_drawn_afresh(panel, qtbot)
    s.select(query=0)
    assert s.set_option(causal=True)  # the first token sees itself ...
    assert s.toggle_padding(0)  # ... and is padding: no key is left to it
    settle(qtbot)
    assert "Every key is masked" in panel.drawn()["caption"]
    _same_as_drawn_afresh(panel, qtbot)
    panel.set_colours(style.DARK)  # another palette: the caption's ink follows
    assert style.DARK.ink["x"] in panel.caption.text()
    _same_as_drawn_afresh(panel, qtbot)
    small = panel.strips.values.scale
    panel.set_theme(style.presenter(1.5))  # presenter mode: bigger numbers on the bars
    settle(qtbot)
    assert panel.strips.values.scale == pytest.approx(1.5 * small)
    assert panel.drawn()["y_range"][1] > 1.5  # (they need more room)
