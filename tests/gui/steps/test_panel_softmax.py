"""Panel 7, the softmax pie: slices are the query's weights, the total is stated, the bug mode says so."""

import numpy as np
import pytest
from PySide6 import QtCore, QtGui
from PySide6.QtTest import QTest
import pyqtgraph as pg  # (PySide6 first)

from qkv_engine import explain
from qkv_gui.panels.steps.softmax_pie import SoftmaxPanel
from tests.gui.conftest import ALONE, IN_GRID, settle
from tests.gui.support.fresh_panel import assert_same_drawn, drawn_afresh, through_looks
from tests.gui.support.reference import numpy_weights as reference_weights

Qt = QtCore.Qt




@pytest.fixture
def panel(make_panel):
    """The panel on its own Session (the app's default example), at its size in the panel grid."""
    return make_panel(SoftmaxPanel, size=IN_GRID)


def pct(v):
    return f"{100 * v:.1f}%"


def click(qtbot, panel, k):
    QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     panel.slice_point(k))
    settle(qtbot)


def test_slices_are_the_query_row_and_add_up_to_a_full_turn(panel, qtbot):
    s = panel.session
    panel.resize(*ALONE)
    s.select(query=1, key=2)
    settle(qtbot)
    w = reference_weights(s.scenario)[1]
    d = panel.drawn()
    assert d["visible"].all()
    # Qt stores angles in 1/16 degree: compare to that precision
    np.testing.assert_allclose(-d["span"] / 360.0, w, atol=1 / 16 / 360 * 1.01)
    assert -d["span"].sum() == pytest.approx(360.0, abs=0.1)
    starts = 90.0 - 360.0 * np.concatenate(([0.0], np.cumsum(w)[:-1]))
    np.testing.assert_allclose(d["start"], starts, atol=1 / 16)
    for k, tok in enumerate(s.scenario.tokens):
        assert f"{tok} {pct(w[k])}" in d["labels"]
    assert "add up to <b>100.0%</b>" in d["heading"]
    assert d["outlined"] == [2]
    assert d["pulled"][2] > 0.05 and d["pulled"][0] == 0 and d["pulled"][1] == 0
    assert pct(w[2]) in d["note"]
    assert d["tooltip"].endswith(explain.weight(s.result, 1, 2).text)


def test_clicking_a_slice_selects_its_key_everywhere(panel, make_panel, qtbot):
    from qkv_gui.panels.steps.value_mixing import ValuesPanel

    s = panel.session
    values = make_panel(ValuesPanel, session=s, size=IN_GRID)  # another panel on the session
    for k in (1, 0, 2):
        click(qtbot, panel, k)
        assert s.selection.key == k
        assert panel.drawn()["outlined"] == [k]
    # the values panel outlines the same key
    assert values.drawn()["band"].left() < values.groups.centres[2] < values.drawn()["band"].right()


def test_column_wise_softmax_says_the_row_does_not_add_to_one(panel, qtbot):
    s = panel.session
    panel.resize(*ALONE)
    assert s.set_option(softmax_over="queries")
    settle(qtbot)
    w = reference_weights(s.scenario)[0]
    total = w.sum()
    assert abs(total - 1.0) > 0.01  # this preset's first row really is off
    d = panel.drawn()
    assert "not 100%" in d["heading"] and pct(total) in d["heading"]
    # the slices are shares of the actual sum, so they still close the circle
    np.testing.assert_allclose(-d["span"] / 360.0, w / total, atol=1 / 16 / 360 * 1.01)
    # labels give the weights themselves
    for k, tok in enumerate(s.scenario.tokens):
        assert f"{tok} {pct(w[k])}" in d["labels"]
    assert s.set_option(softmax_over="keys")
    settle(qtbot)
    assert "not 100%" not in panel.drawn()["heading"]


def test_masked_keys_get_no_slice(panel, qtbot):
    s = panel.session
    assert s.set_option(causal=True)
    s.select(query=1, key=0)
    settle(qtbot)
    d = panel.drawn()
    assert list(d["visible"]) == [True, True, False]
    w = reference_weights(s.scenario)[1]
    np.testing.assert_allclose(-d["span"][:2] / 360.0, w[:2], atol=1 / 16 / 360 * 1.01)
    assert "1 masked: 0%" in d["note"]


def test_one_token_is_the_whole_pie_and_empty_shows_the_hint(make_panel, qtbot):
    panel = make_panel(SoftmaxPanel, preset="seed-cat", size=IN_GRID)
    d = panel.drawn()
    assert -d["span"][0] == pytest.approx(360.0)
    assert d["labels"] == ["cat 100.0%"]
    assert d["pulled"][0] == 0.0
    panel.session.set_text("")
    settle(qtbot)
    assert panel.showing_hint()


def test_512_tokens_label_only_what_fits(panel, qtbot):
    s = panel.session
    s.set_text(" ".join(f"w{i}" for i in range(512)))
    settle(qtbot)
    s.select(query=5, key=400)
    settle(qtbot)
    w = reference_weights(s.scenario)[5]
    d = panel.drawn()
    # every key still has its slice's angle; those under 2% are drawn as one "others" slice
    np.testing.assert_allclose(-d["span"] / 360.0, w, atol=1 / 16 / 360 * 1.01)
    small = [k for k in range(512) if k != 400 and w[k] < 0.02]
    assert d["others"] == small
    assert d["others_span"] == pytest.approx(360.0 * w[small].sum(), abs=0.1)
    assert not any(d["visible"][small]) and d["visible"][400]
    assert 1 <= len(d["labels"]) <= 24
    assert d["labels"][0] == f"w400 {pct(w[400])}"  # the selected key is always named
    assert f"{len(small)} others {pct(w[small].sum())}" in d["labels"]
    # the shown labels do not overlap
    rects = [item.view_rect(panel.view) for item in panel.labels.items if item.isVisible()]
    assert len(rects) == len(d["labels"]) and all(r.width() > 20 for r in rects)
    assert all(not a.intersects(b) for n, a in enumerate(rects) for b in rects[n + 1:])


# ----- a trained model's sizes; a narrow panel --------------------------------------------------------------
def test_forty_keys_group_their_small_slices_and_a_click_there_picks_no_key(make_panel, make_session, qtbot):
    from qkv_gui.panels.steps.softmax_pie import SoftmaxPanel

    from tests.gui.support.big_dims import big_panel, problems, reference, texts_shown

    panel, s = big_panel(make_panel, make_session, SoftmaxPanel, query=2, key=5, n=40)
    session = panel.session
    w = reference(s)["weights"][2]
    d = panel.drawn()
    small = [k for k in range(40) if k != 5 and w[k] < 0.02]
    assert len(small) >= 2 and d["others"] == small
    # the others slice runs from where the last slice drawn on its own ends, all the way to 12 o'clock
    kept = [k for k in range(40) if k not in small]
    assert d["start"][small[0]] == pytest.approx(90.0 - 360.0 * w[kept].sum(), abs=0.1)
    assert d["others_span"] == pytest.approx(360.0 * w[small].sum(), abs=0.1)
    assert d["labels"][0].startswith(f"{s.tokens[5]} ")  # the selected key first
    assert texts_shown(panel) < 30
    assert not problems(panel), problems(panel)
    # a click in the others slice picks no key
    import math
    mid = math.radians(d["start"][small[0]] - d["others_span"] / 2)
    scene = panel.vb.mapViewToScene(QtCore.QPointF(0.6 * math.cos(mid), 0.6 * math.sin(mid)))
    QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     panel.view.mapFromScene(scene))
    settle(qtbot)
    assert session.selection.key == 5
    panel.resize(330, 230)
    settle(qtbot)
    assert not problems(panel), problems(panel)


@pytest.mark.parametrize("size", [(170, 260), (230, 200), (330, 230)])
def test_the_pulled_out_slice_is_named_in_a_narrow_panel(make_panel, qtbot, size):
    from qkv_gui.panels.steps.softmax_pie import SoftmaxPanel

    from tests.gui.support.big_dims import problems

    panel = make_panel(SoftmaxPanel, preset="pronoun", size=size)
    panel.session.select(query=6, key=2)
    settle(qtbot)
    d = panel.drawn()
    key = panel.session.scenario.tokens[2]
    w = reference_weights(panel.session.scenario)[6]
    assert d["labels"], "the pulled-out slice is named"
    first = d["labels"][0]  # its name, shortened in the middle only when even that would not fit
    assert first == f"{key} {pct(w[2])}" or ("…" in first and first.endswith(pct(w[2])))
    assert not problems(panel), problems(panel)


# ----- an edit tells the slices and labels only what changed ---------------------------------------------
def _pixels(view) -> bytes:
    image = view.grab().toImage()
    return bytes(image.constBits())


def _same_as_drawn_afresh(panel, qtbot) -> None:
    """The pie after everything done to it looks, pixel for pixel, as a pie drawn afresh for the same
    session, palette, theme and size (a new panel in them from the start); its slices and labels are the
    same."""
    fresh = drawn_afresh(panel, qtbot)
    mine = panel.drawn()
    assert_same_drawn(mine, fresh.drawn())
    assert _pixels(panel.view) == _pixels(fresh.view)
    fresh.close()
    # and what both draw is right: each slice in its weight's colour, the selected key outlined in the
    # palette's colour for it, the others edged in the background's, their widths as the theme scales them
    s, pal, ls = panel.session, panel.colours, panel.theme.line_scale
    i, j = s.selection.query, s.selection.key
    row = s.result.weights[i]
    cmap = pg.colormap.get(pal.weights_map)
    for k in np.flatnonzero(mine["visible"]):
        item = panel.slices[k]
        step = round(min(max(float(row[k]), 0.0), 1.0) * 255) / 255
        assert item.brush().color() == cmap.map(step, mode="qcolor"), k
        pen = item.pen()
        if k == j:
            assert pen.color() == QtGui.QColor(pal.selected) and pen.widthF() == pytest.approx(2.5 * ls)
        else:
            assert pen.color() in (QtGui.QColor(pal.background), item.brush().color()), k  # (thin: its own colour)
            assert pen.widthF() == pytest.approx(ls)


def test_a_pie_changed_edit_by_edit_looks_as_one_drawn_afresh(make_panel, qtbot):
    """Slices and labels are told only what changed at each edit: after edits of the query's numbers,
    another key, keys masked and unmasked, new words, another palette and presenter mode, the pie is the
    one a new panel draws."""
    panel = make_panel(SoftmaxPanel, preset="long-sentence", size=IN_GRID)
    s = panel.session
    s.select(query=2, key=1)
    settle(qtbot)
    for step in range(6):  # the selected query's numbers: every slice and label moves
        col = step % s.scenario.d_model
        assert s.set_cell("x", 2, col, float(s.scenario.x[2, col]) + (1.5 if step % 2 else -1.2))
        settle(qtbot)
    _same_as_drawn_afresh(panel, qtbot)
    s.select(key=4)  # the pulled-out slice changes
    _same_as_drawn_afresh(panel, qtbot)
    assert s.set_option(causal=True)  # query 3 sees three keys: the other slices go
    s.select(query=2, key=0)
    _same_as_drawn_afresh(panel, qtbot)
    assert panel.drawn()["visible"].tolist() == [True] * 3 + [False] * (s.scenario.n - 3)
    assert s.set_option(causal=False)  # ... and come back
    _same_as_drawn_afresh(panel, qtbot)
    d = panel.drawn()  # every key drawn again, alone or among the others
    assert sorted(np.flatnonzero(~d["visible"]).tolist()) == d["others"]
    s.set_text("a dog ran after the small red ball today")  # new names
    _same_as_drawn_afresh(panel, qtbot)
    assert any(label.startswith("dog ") for label in panel.drawn()["labels"])
    through_looks(panel, lambda: _same_as_drawn_afresh(panel, qtbot))  # new colours, bigger text, thicker lines


def test_an_edit_of_the_values_draws_nothing_again_and_the_next_change_is_followed(make_panel, qtbot, monkeypatch):
    """An edit of W^V leaves every weight as it is: no slice or label is set again. A masked key, new words,
    the column-wise mode, a resize, another palette and presenter mode after it are all followed, as a new
    pie draws them."""
    panel = make_panel(SoftmaxPanel, preset="long-sentence", size=IN_GRID)
    s = panel.session
    s.select(query=2, key=1)
    settle(qtbot)
    placed = []
    real = panel._place_labels
    monkeypatch.setattr(panel, "_place_labels", lambda: (placed.append(1), real())[1])
    drawn, pixels = panel.drawn(), _pixels(panel.view)
    assert s.set_cell("w_v", 0, 0, float(s.scenario.w_v[0, 0]) + 0.5)
    settle(qtbot)
    assert placed == []
    assert_same_drawn(panel.drawn(), drawn)
    assert _pixels(panel.view) == pixels
    assert s.toggle_blocked(2, 0)  # a key masked: its slice goes
    settle(qtbot)
    assert placed and not panel.drawn()["visible"][0]
    _same_as_drawn_afresh(panel, qtbot)
    s.set_text(" ".join(["one", "dog"] + list(s.scenario.tokens[2:])))  # as many words, two renamed
    settle(qtbot)
    assert any(label.startswith("dog ") for label in panel.drawn()["labels"])
    assert s.set_option(softmax_over="queries")
    settle(qtbot)
    assert "not 100%" in panel.drawn()["heading"]
    _same_as_drawn_afresh(panel, qtbot)
    panel.resize(IN_GRID[0] + 120, IN_GRID[1] + 60)
    settle(qtbot)
    _same_as_drawn_afresh(panel, qtbot)
    through_looks(panel, lambda: _same_as_drawn_afresh(panel, qtbot))
