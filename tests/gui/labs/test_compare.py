"""Compare A / B, used as a teacher would: pin, change a number, read the pictures and the list."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from qkv_engine import compute

from tests.gui.conftest import settle

Qt = QtCore.Qt


#: The panel's size in its dock, opened alone beside a 1600 x 1000 window.
IN_DOCK = (512, 913)


@pytest.fixture
def panel(make_panel):
    """The compare panel on its own Session (the app's default example), at its size in its dock."""
    from qkv_gui.panels.labs.compare_heatmaps import CompareHeatmapsPanel

    return make_panel(CompareHeatmapsPanel, size=IN_DOCK)


def hint(panel) -> str:
    label = panel.findChild(QtWidgets.QLabel, "compareHint")
    return label.text() if label.isVisible() else ""


def plain(label: QtWidgets.QLabel) -> str:
    return QtGui.QTextDocumentFragment.fromHtml(label.text()).toPlainText()


def pin(qtbot, panel):
    qtbot.mouseClick(panel.findChild(QtWidgets.QPushButton, "pinButton"), Qt.MouseButton.LeftButton)
    settle()


def test_nothing_pinned_shows_the_hint_and_the_pin_button(panel):
    assert panel.session.pinned is None
    assert "Pin the current weights as A" in hint(panel)
    assert panel.findChild(QtWidgets.QPushButton, "pinButton").isVisible()
    assert not panel.findChild(QtWidgets.QPushButton, "unpinButton").isEnabled()


def test_pin_then_edit_a_weight_shows_b_minus_a_and_the_largest_change(panel, qtbot):
    s = panel.session
    old = s.scenario
    pin(qtbot, panel)
    assert s.pinned is not None and np.array_equal(s.pinned.weights, compute(old).weights)
    assert hint(panel) == ""
    assert "nothing has changed" in plain(panel.findChild(QtWidgets.QLabel, "compareChanges"))

    assert s.set_cell("w_q", 1, 0, float(old.w_q[1, 0]) + 1.5)
    settle()
    new = s.scenario
    a, b = compute(old).weights, compute(new).weights  # independent recomputation
    expected = b - a
    np.testing.assert_allclose(panel.images["diff"].image, expected, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(panel.images["a"].image, a)
    np.testing.assert_array_equal(panel.images["b"].image, b)
    limit = np.abs(expected).max()
    lo, hi = panel.images["diff"].getLevels()
    assert lo == pytest.approx(-limit) and hi == pytest.approx(limit)  # centred on 0

    # The list: largest |B − A| first, with its tokens and its sign.
    i, j = np.unravel_index(np.argmax(np.abs(expected)), expected.shape)
    lines = plain(panel.findChild(QtWidgets.QLabel, "compareChanges")).splitlines()
    assert lines[0].startswith("Largest changes")
    first = lines[1]
    toks = new.tokens
    sign = "+" if expected[i, j] > 0 else "\u2212"
    assert first.startswith(f"'{toks[i]}' \u2192 '{toks[j]}': {a[i, j]:.2f} \u2192 {b[i, j]:.2f} ({sign}")
    assert f"{abs(expected[i, j]):.2f})" in first
    assert len(lines) == 1 + min(5, int(np.count_nonzero(expected)))


def test_a_different_token_count_gives_the_reason(panel, qtbot):
    pin(qtbot, panel)
    panel.session.set_text("The cat sat down")
    settle()
    assert hint(panel) == ("A has 3 × 3 weights, B has 4 × 4: change the sentence back to the same number of "
                           "tokens to compare.")
    panel.session.set_text("The cat sat")
    settle()
    assert hint(panel) == ""


def test_unpin_shows_the_hint_again(panel, qtbot):
    pin(qtbot, panel)
    assert hint(panel) == ""
    qtbot.mouseClick(panel.findChild(QtWidgets.QPushButton, "unpinButton"), Qt.MouseButton.LeftButton)
    settle()
    assert panel.session.pinned is None
    assert "Pin the current weights as A" in hint(panel)


def test_click_selects_and_hover_shows_a_b_and_the_difference(panel, make_panel, qtbot):
    from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel

    s = panel.session
    heatmap = make_panel(HeatmapPanel, session=s, size=(390, 275))  # another panel on the session
    pin(qtbot, panel)
    s.set_cell("w_k", 0, 0, 2.0)
    settle()
    view = panel.canvas
    point = view.mapFromScene(panel.scene_pos_of("diff", 2, 1))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    settle()
    assert (s.selection.query, s.selection.key) == (2, 1)
    assert heatmap._selection.query == 2  # the other panels follow
    assert heatmap.image.outlines["cell"].rect == QtCore.QRectF(1, 2, 1, 1)
    assert panel.images["a"].outlines["cell"].rect == QtCore.QRectF(1, 2, 1, 1)

    pos = panel.scene_pos_of("a", 0, 2)
    QTest.mouseMove(view.viewport(), view.mapFromScene(pos))
    settle()
    if panel.hover_cell_ij != (0, 2):  # no real mouse events on this platform: what the grid does on one
        panel.images["a"].hover_at(pos)
    assert panel.hover_cell_ij == (0, 2)
    a, b = s.pinned.weights[0, 2], s.result.weights[0, 2]
    d = b - a
    sign = "+" if d > 0 else "\u2212"
    assert panel.hover_text == (f"query 1 'The' \u2192 key 3 'sat': A {a:.3f}, B {b:.3f}, "
                                f"B \u2212 A {sign}{abs(d):.3f}")
    assert panel.hover_text in panel.findChild(QtWidgets.QLabel, "compareInfo").text()


def test_twenty_tokens_and_a_diverging_colour_bar(panel, qtbot):
    s = panel.session
    s.set_text("After a long rainy week the children finally played outside in the warm sun today with friends")
    settle()
    pin(qtbot, panel)
    s.set_option(causal=True)
    settle()
    assert hint(panel) == "" and panel.images["diff"].image.shape == (s.result.n, s.result.n)
    xt, yt = panel.tick_labels["b"]
    assert 2 <= len(xt) <= s.result.n and len(yt) >= 2  # thinned, not dropped
    ticks = [t for t, _text in panel.diff_bar.axis._tickLevels[0]]
    assert min(ticks) < 0 == ticks[1] < max(ticks)  # 0 in the middle, symmetric ends
    assert ticks[0] == pytest.approx(-ticks[2])


def test_key_names_stand_upright_under_narrow_columns_and_settle(panel, qtbot):
    words = "the cat sat on the warm mat today".split()
    s = panel.session
    s.set_text(" ".join(words))
    settle()
    pin(qtbot, panel)
    s.set_cell("w_q", 0, 0, "0.9")
    settle(rounds=6)
    app = QtWidgets.QApplication.instance()
    seen = set()
    for width in (360, 480, 640, 900, 1300):
        panel.canvas.setFixedWidth(width)
        settle(rounds=6)
        state = [(panel.keys_upright[n], panel.plots[n].getAxis("bottom").height()) for n in ("a", "b", "diff")]
        for _ in range(4):
            app.processEvents()
        # settled: nothing flips back and forth
        assert state == [(panel.keys_upright[n], panel.plots[n].getAxis("bottom").height()) for n in ("a", "b", "diff")]
        # one under the other, the key names are under B − A only (the three grids share their keys)
        shown = [n for n in ("a", "b", "diff") if panel.plots[n].getAxis("bottom").isVisible()]
        assert shown == (["diff"] if panel.stacked else ["a", "b", "diff"])
        for name in shown:
            axis = panel.plots[name].getAxis("bottom")
            xt, _yt = panel.tick_labels[name]
            assert axis.turned == panel.keys_upright[name]
            if axis.turned:
                assert [t for _, t in axis.turned_texts] == [t for _, t in xt]
                assert len(xt) == len(words)  # upright, every key is named
            seen.add(axis.turned)
    panel.canvas.setMinimumWidth(0)
    panel.canvas.setMaximumWidth(16777215)
    assert seen == {True, False}


def test_a_and_b_share_the_colour_scale_and_masks_have_their_look(make_panel):
    from qkv_engine.attention import MASK_CAUSAL
    from qkv_gui.panels.labs.compare_heatmaps import CompareHeatmapsPanel
    from qkv_gui.state.session import Session

    session = Session()
    session.pin()
    session.set_option(causal=True)
    panel = make_panel(CompareHeatmapsPanel, session=session, size=(1000, 700))
    a, b = session.pinned.weights, session.result.weights
    top = max(float(a.max()), float(b.max()))
    assert panel.images["a"].levels == (0.0, pytest.approx(top)) == panel.images["b"].levels
    assert panel.images["b"].mask_path(MASK_CAUSAL).contains(QtCore.QPointF(2.5, 0.5))
    assert panel.images["a"].mask_path().isEmpty()  # A was pinned before the causal mask
    session.set_colour_scale("row")
    settle()
    for name, w in (("a", a), ("b", b)):
        high = np.broadcast_to(panel.images[name].levels[1], w.shape)[:, 0]
        np.testing.assert_allclose(high, [max(r) for r in w.tolist()])
    assert panel.weight_bar.getAxis("left").labelText.startswith("weight")
    # B − A keeps its own diverging scale, centred on 0
    lo, hi = panel.images["diff"].getLevels()
    assert lo == pytest.approx(-hi) and hi == pytest.approx(float(np.abs(b - a).max()))


def test_a_knock_out_says_why_its_own_layer_does_not_move(make_panel, make_session, qtbot):
    """Knocking out the head on screen leaves its weights as they were (its output is set to zero after them):
    the panel says so and where to look, rather than only "nothing has changed"."""
    from pathlib import Path

    from qkv_engine import load_model
    from qkv_gui.panels.labs.compare_heatmaps import CompareHeatmapsPanel

    session = make_session()
    session.runner.sync = True
    session.open_model(load_model(Path(__file__).resolve().parents[2] / "data" / "tiny-gpt2"),
                       text="the cat sat on the mat")
    panel = make_panel(CompareHeatmapsPanel, session=session, size=IN_DOCK)
    pin(qtbot, panel)
    changes = panel.findChild(QtWidgets.QLabel, "compareChanges")
    assert plain(changes) == "A and B have the same weights: nothing has changed yet."
    session.knock_out(0, 0)
    settle()
    assert "Knocking out a head sets its output to zero" in plain(changes) and "a later layer" in plain(changes)
    session.select_model_head(1, 0)  # a later layer: its weights did change
    settle()
    assert "Knocking out" not in plain(changes) and "\u2192" in plain(changes)


def test_one_under_the_other_the_keys_are_named_once_under_b_minus_a(panel, qtbot):
    """In a low, narrow dock (a 1024 x 768 screen) the key names and "key" under each of the three grids took
    half of each grid's height; stacked, the grids share their keys, named under the last one."""
    s = panel.session
    pin(qtbot, panel)
    s.set_cell("w_q", 0, 0, "0.9")
    panel.resize(1200, 520)
    settle(rounds=6)
    assert not panel.stacked
    assert all(panel.plots[n].getAxis("bottom").isVisible() for n in ("a", "b", "diff"))
    panel.resize(300, 640)
    settle(rounds=6)
    assert panel.stacked
    assert [n for n in ("a", "b", "diff") if panel.plots[n].getAxis("bottom").isVisible()] == ["diff"]
    heights = {n: panel.plots[n].getViewBox().height() for n in ("a", "b", "diff")}
    assert heights["a"] > heights["diff"] + 5 and abs(heights["a"] - heights["b"]) <= 2
