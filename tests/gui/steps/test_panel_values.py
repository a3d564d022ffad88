"""Panel 8, values mixed by the weights: solid bars are weight x value, their sum is the output."""

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from qkv_engine import explain
from qkv_gui.panels.steps.value_mixing import ValuesPanel
from tests.gui.conftest import ALONE, IN_GRID, settle
from tests.gui.support.fresh_panel import assert_same_drawn, drawn_afresh, same_bars, through_looks
from tests.gui.support.reference import numpy_weights

Qt = QtCore.Qt


def reference(s):
    """Values and weights computed here from the scenario's inputs, without the engine."""
    return s.x @ s.w_v, numpy_weights(s)


@pytest.fixture
def panel(make_panel):
    """The panel on its own Session (the app's default example), at its size in the panel grid."""
    return make_panel(ValuesPanel, size=IN_GRID)


def test_bars_are_values_scaled_by_the_weights_and_add_up_to_the_output(panel, qtbot):
    s = panel.session
    panel.resize(*ALONE)
    s.select(query=2, key=1)
    settle(qtbot)
    v, a = reference(s.scenario)
    d = panel.drawn()
    np.testing.assert_allclose(d["faint"], v.reshape(-1), atol=1e-12)
    parts = a[2][:, None] * v
    np.testing.assert_allclose(d["solid"], parts.reshape(-1), atol=1e-12)
    np.testing.assert_allclose(d["output"], parts.sum(axis=0), atol=1e-12)
    np.testing.assert_allclose(d["output"], s.result.output[2], atol=1e-15)
    np.testing.assert_allclose(d["selected"], parts[1], atol=1e-12)
    assert [t for _, t in d["ticks"]] == list(s.scenario.tokens)
    # each token's weight at the foot of its group, in percent
    assert [t for _, t in d["weights"]] == [f"{100 * a[2, k]:.1f}%" for k in range(s.scenario.n)]
    assert [x for x, _ in d["weights"]] == [x for x, _ in d["ticks"]]
    assert [t for _, t in d["out_ticks"]] == ["out1", "out2", "out3"]
    assert d["value_labels"] == [f"{p:.2f}" for p in parts.reshape(-1)]
    assert d["output_labels"] == [f"{o:.2f}" for o in parts.sum(axis=0)]
    assert d["worked"] == explain.output(s.result, 2, 0).text
    assert "[" + ", ".join(f"{o:.2f}" for o in parts.sum(axis=0)) + "]" in d["caption"]


def test_hovering_an_output_bar_works_out_that_coordinate(panel, qtbot):
    s = panel.session
    s.select(query=1)
    settle(qtbot)
    QTest.mouseMove(panel.out_plot.viewport(), panel.output_point(2))
    settle(qtbot)
    assert panel.drawn()["coordinate"] == 2
    assert panel.drawn()["worked"] == explain.output(s.result, 1, 2).text
    # hovering the middle bar of a token's group picks the same coordinate
    QTest.mouseMove(panel.plot.viewport(), panel.group_point(0))
    settle(qtbot)
    assert panel.drawn()["coordinate"] == 1
    assert panel.drawn()["worked"] == explain.output(s.result, 1, 1).text


def test_clicking_a_group_selects_that_key(panel, make_panel, qtbot):
    from qkv_gui.panels.steps.softmax_pie import SoftmaxPanel

    s = panel.session
    softmax = make_panel(SoftmaxPanel, session=s, size=IN_GRID)  # another panel on the session
    for j in (2, 0):
        QTest.mouseClick(panel.plot.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         panel.group_point(j))
        settle(qtbot)
        assert s.selection.key == j
        band = panel.drawn()["band"]
        assert band.left() < panel.groups.centres[j] < band.right()
    assert "The" in softmax.drawn()["note"]


def test_edits_and_masks_follow(panel, qtbot):
    s = panel.session
    assert s.set_cell("w_v", 0, 1, "-0.8")
    assert s.set_option(causal=True)
    s.select(query=0)
    settle(qtbot)
    v, a = reference(s.scenario)
    d = panel.drawn()
    np.testing.assert_allclose(d["faint"], v.reshape(-1), atol=1e-12)
    np.testing.assert_allclose(d["output"], v[0], atol=1e-12)  # token 1 can only look at itself
    assert d["solid"][3:].tolist() == [0.0] * 6  # the later tokens are masked: weight 0


def test_512_tokens_and_empty(panel, qtbot):
    s = panel.session
    s.set_text(" ".join(f"w{i}" for i in range(512)))
    settle(qtbot)
    s.select(query=7, key=300)
    settle(qtbot)
    v, a = reference(s.scenario)
    d = panel.drawn()
    np.testing.assert_allclose(d["solid"], (a[7][:, None] * v).reshape(-1), atol=1e-12)
    np.testing.assert_allclose(d["output"], (a[7][:, None] * v).sum(axis=0), atol=1e-12)
    assert any(t == "w300" for _, t in d["ticks"])
    assert (float(panel.groups.centres[300]), f"{100 * a[7, 300]:.1f}%") in d["weights"]
    assert d["value_labels"] == []
    assert d["worked"] == explain.output(s.result, 7, d["coordinate"], decimals=3).text
    s.set_text("")
    settle(qtbot)
    assert panel.showing_hint()


# ----- a trained model's sizes, named outputs, labels that cross no bar ------------------------------------
def test_a_real_models_size_shows_one_coordinate_at_a_time(make_panel, make_session, qtbot):
    from qkv_gui.panels.steps.value_mixing import ValuesPanel

    from tests.gui.support.big_dims import big_panel, problems, reference, texts_shown

    panel, s = big_panel(make_panel, make_session, ValuesPanel, query=3, key=11)
    session = panel.session
    ref = reference(s)
    v, a = ref["v"], ref["weights"]
    out = a[3] @ v
    d = panel.drawn()
    assert d["one_coordinate"]
    c = d["coordinate"]
    # the output's largest coordinate (found here by size), until someone points at another
    assert c == max(range(32), key=lambda m: abs(out[m]))
    # one bar per token: its value at c (faint) and the weighted part (solid); the output has every coordinate
    np.testing.assert_allclose(d["faint"], v[:, c], atol=1e-12)
    np.testing.assert_allclose(d["solid"], a[3] * v[:, c], atol=1e-12)
    np.testing.assert_allclose(d["selected"], [a[3, 11] * v[11, c]], atol=1e-12)
    np.testing.assert_allclose(d["output"], out, atol=1e-12)
    assert f"out{c + 1}</b> = {out[c]:.2f}" in d["caption"]
    assert d["worked"] == explain.output(session.result, 3, c, decimals=3).text
    assert texts_shown(panel) < 60
    assert not problems(panel), problems(panel)
    # pointing at another output bar shows that coordinate
    QTest.mouseMove(panel.out_plot.viewport(), panel.output_point(5))
    settle(qtbot)
    d = panel.drawn()
    assert d["coordinate"] == 5
    np.testing.assert_allclose(d["solid"], a[3] * v[:, 5], atol=1e-12)
    session.select(query=8)  # another query: the coordinate pointed at stays
    settle(qtbot)
    np.testing.assert_allclose(panel.drawn()["solid"], a[8] * v[:, 5], atol=1e-12)
    panel.resize(330, 230)
    settle(qtbot)
    assert not problems(panel), problems(panel)


def test_every_output_is_named_in_a_narrow_panel_and_numbers_sit_past_the_faint_bars(make_panel, qtbot):
    from qkv_gui.panels.steps.value_mixing import ValuesPanel

    from tests.gui.support.big_dims import problems

    panel = make_panel(ValuesPanel, preset="seed-the-cat-sat", size=(330, 230))
    d = panel.drawn()
    assert [t for _, t in d["out_ticks"]] in (["out1", "out2", "out3"], ["1", "2", "3"])
    assert not problems(panel), problems(panel)
    panel.resize(520, 330)
    settle(qtbot)
    d = panel.drawn()
    assert d["value_labels"]  # numbers on the bars at this size
    # each number starts at the tip of its token's faint bar (the value), beyond the solid bar inside it
    for item, faint, solid in zip(panel.scaled_labels.items[:panel.scaled_labels.shown], d["faint"], d["solid"]):
        assert item.pos().y() == faint and abs(solid) <= abs(faint)
        assert item.text() == f"{solid:.2f}"
    named = make_panel(ValuesPanel, preset="designed-it", size=(520, 330))
    assert [t for _, t in named.drawn()["out_ticks"]] in (["out1 · animate", "out2 · noun"], ["animate", "noun"])


# ----- an edit sets only the parts that changed ------------------------------------------------------------
def _same_as_drawn_afresh(panel, qtbot) -> None:
    """The panel after everything done to it shows what a new panel shows for the same session, palette,
    theme, size and value range (the range is kept while the numbers fit, so it is handed over): the same
    bars, names, weights, numbers and texts in the same looks; and its views show the ranges it worked out."""
    fresh = drawn_afresh(panel, qtbot, handed=("y_range",))
    mine = panel.drawn()
    assert_same_drawn(mine, fresh.drawn())
    for name in ("faint", "scaled", "chosen", "out_bars", "masked_cover"):  # the bars in the same looks
        same_bars(getattr(panel, name), getattr(fresh, name), name)
    for pool in ("scaled_labels", "out_labels", "weights"):  # the numbers and weights: where, how big
        for a, b in zip(getattr(panel, pool).items[:getattr(panel, pool).shown], getattr(fresh, pool).items):
            assert (a.text(), a.pos(), a.font(), a.angle, a.brush()) == (b.text(), b.pos(), b.font(), b.angle,
                                                                      b.brush()), pool
    fresh.close()
    (x0, x1), (y0, y1) = panel.vb.viewRange()
    assert (x0, x1) == pytest.approx(panel.groups.x_range) and (y0, y1) == pytest.approx(panel.y_range)
    assert panel.out_vb.viewRange()[0] == pytest.approx(list(panel.out_x_range))
    s = panel.session
    masked = np.flatnonzero(~np.asarray(s.result.allowed[s.selection.query], dtype=bool))
    assert mine["masked"] == masked.tolist()
    cover = panel.masked_cover.rects()  # a hatched cover over each masked key's group, the full height
    assert panel.masked_cover.isVisible() == bool(masked.size)
    np.testing.assert_allclose(cover[:, 0], masked * panel.groups.step - 0.1)
    np.testing.assert_allclose(cover[:, 3], np.full(masked.size, y1 - y0))


def test_a_panel_changed_edit_by_edit_shows_what_a_new_one_does(make_panel, qtbot):
    """Bars, ranges, the masked cover, names and tool tips are set only when they change: after edits that
    grow and shrink the values, another key, masks on and off, new words, a named output, another palette
    and presenter mode, the panel is the one a new panel draws."""
    panel = make_panel(ValuesPanel, size=ALONE)  # (room to name the outputs)
    s = panel.session
    s.select(query=1, key=2)
    assert s.set_cell("x", 1, 0, "0.35")  # the query's numbers
    assert s.set_cell("x", 2, 1, "-0.6")  # another token's
    _same_as_drawn_afresh(panel, qtbot)
    assert s.set_cell("w_v", 0, 1, "4.5")  # big values: a bigger range
    _same_as_drawn_afresh(panel, qtbot)
    assert s.set_cell("w_v", 0, 1, "0.2")  # and back
    _same_as_drawn_afresh(panel, qtbot)
    s.select(key=0)
    _same_as_drawn_afresh(panel, qtbot)
    assert s.set_option(causal=True)  # query 1 sees the first two keys: the third is covered
    _same_as_drawn_afresh(panel, qtbot)
    assert panel.drawn()["masked"] == [2]
    assert s.set_option(causal=False)  # ... and uncovered
    _same_as_drawn_afresh(panel, qtbot)
    s.set_text("a dog ran after the ball")  # new names, another number of groups
    _same_as_drawn_afresh(panel, qtbot)
    assert [t for _, t in panel.drawn()["ticks"]] == ["a", "dog", "ran", "after", "the", "ball"]
    s.set_text("my cat ran after that bird")  # other names, as many
    _same_as_drawn_afresh(panel, qtbot)
    assert [t for _, t in panel.drawn()["ticks"]][:2] == ["my", "cat"]
    assert s.set_column_name("v", 1, "animate")  # a named output coordinate
    _same_as_drawn_afresh(panel, qtbot)
    assert any("animate" in t for _, t in panel.drawn()["out_ticks"])
    through_looks(panel, lambda: _same_as_drawn_afresh(panel, qtbot))  # new colours, bigger text, thicker lines


def test_weights_that_change_width_are_placed_and_thinned_again(make_panel, qtbot):
    """The weights' places are worked out again only when their texts change width (or the names, the
    key, the width of the plot): "masked" is wider than a percentage, so masking keys in a narrow panel
    thins and moves the weights as a new panel would."""
    panel = make_panel(ValuesPanel, size=(330, 240))
    panel.set_theme(panel.theme)  # (fonts given by the theme, as the new panels it is compared with get them)
    s = panel.session
    s.set_text("one two three four five six seven eight nine ten")
    s.select(query=1, key=0)
    _same_as_drawn_afresh(panel, qtbot)
    before = panel.drawn()["weights"]
    assert s.set_option(causal=True)  # query 1 sees two keys: "masked" under the other eight
    _same_as_drawn_afresh(panel, qtbot)
    assert "masked" in [t for _, t in panel.drawn()["weights"]]
    assert s.set_option(causal=False)
    _same_as_drawn_afresh(panel, qtbot)
    assert [x for x, _ in panel.drawn()["weights"]] == [x for x, _ in before]
