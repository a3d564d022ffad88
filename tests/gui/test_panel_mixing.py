"""Panel 2 (a grid mixes the dials): the dials, lines, labels and worked sum match the scenario."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore

from qkv_engine import explain

from .conftest import settle

Qt = QtCore.Qt


def _panel(window):
    return window.panels["mixingPanel"]


def _no_overlap(rects):
    for a in range(len(rects)):
        for b in range(a + 1, len(rects)):
            assert not rects[a].intersects(rects[b]), (rects[a], rects[b])


def test_query_grid_for_the_selected_token(window):
    window.session.select(query=1, key=0)
    settle()
    panel = _panel(window)
    d = panel.drawn()
    s, r = window.session.scenario, window.session.result
    assert d["grid"] == "q" and d["token"] == 1
    # the dials are token 1's embedding; bars point left for negative numbers
    np.testing.assert_allclose([v for v, _ in d["inputs"]], s.x[1])
    assert all((length >= 0) == (v >= 0) for v, length in d["inputs"])
    # the output cells are x W^Q, computed here independently
    want = np.asarray(s.x[1]) @ np.asarray(s.w_q)
    np.testing.assert_allclose([v for v, _ in d["outputs"]], want)
    assert [t for _, t in d["outputs"]] == [f"q{c + 1} = {explain.fixed(v, 2)}" for c, v in enumerate(want)]
    # one line from every dial to every output cell, labelled with its grid entry
    lines = d["lines"]
    assert sorted((ln["r"], ln["c"]) for ln in lines) == [(a, b) for a in range(s.d_model) for b in range(s.d_k)]
    for ln in lines:
        w = float(s.w_q[ln["r"], ln["c"]])
        assert ln["weight"] == w
        assert ln["text"] == explain.trimmed(w, 2)
        assert ln["dashed"] == (w < 0)
    # thicker for bigger |weight| within the chosen cell's lines
    chosen = sorted((abs(ln["weight"]), ln["width"]) for ln in lines if ln["strong"])
    assert [wd for _, wd in chosen] == sorted(wd for _, wd in chosen)
    assert d["arithmetic"] == explain.projection(r, "q", 1, 0).text


def test_seed_cat_reads_clearly_in_the_grid(make_window):
    window = make_window("seed-cat")
    panel = _panel(window)
    d = panel.drawn()
    # the walkthrough's first query coordinate, recomputed by hand: 0.05 - 0.06 - 0.24 + 0.12
    assert d["arithmetic"].startswith("q1 = 0.5(0.1) + (-0.3)(0.2) + 0.8(-0.3) + 0.2(0.6) = ")
    assert d["arithmetic"].endswith(f"= {explain.fixed(0.5 * 0.1 - 0.3 * 0.2 + 0.8 * -0.3 + 0.2 * 0.6, 2)}")
    # in the 3 x 3 grid every one of the 8 lines carries its label, and no two labels overlap
    assert all(ln["labelled"] for ln in d["lines"])
    _no_overlap(d["label_rects"])
    assert d["input_labels"] == ["x1", "x2", "x3", "x4"]
    assert all(t is not None for _, t in d["outputs"])


def test_switch_to_values_and_click_a_cell(window, qtbot):
    panel = _panel(window)
    switch = panel.findChild(type(panel.switch), "mixingGridSwitch")
    assert switch is panel.switch
    qtbot.mouseClick(switch, Qt.MouseButton.LeftButton, pos=switch.tabRect(2).center())
    settle()
    assert panel.grid == "v"
    d = panel.drawn()
    s = window.session.scenario
    assert len(d["outputs"]) == s.d_v
    rect = d["output_rects"][2]
    qtbot.mouseClick(panel.canvas, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    settle()
    d = panel.drawn()
    assert d["output"] == 2
    want = np.asarray(s.x[0]) @ np.asarray(s.w_v)
    np.testing.assert_allclose([v for v, _ in d["outputs"]], want)
    assert d["arithmetic"] == explain.projection(window.session.result, "v", 0, 2).text
    assert d["arithmetic"].startswith("v3 = ")
    # the strong lines are the ones into the clicked cell
    assert {ln["c"] for ln in d["lines"] if ln["strong"]} == {2}


def test_hover_shows_the_hovered_cell(window, qtbot):
    panel = _panel(window)
    d = panel.drawn()
    qtbot.mouseMove(panel.canvas, d["output_rects"][1].center().toPoint())
    settle()
    assert panel.drawn()["hover"] == 1
    assert panel.arithmetic.text() == explain.projection(window.session.result, "q", 0, 1).text
    # moving back to the dials leaves the clicked cell's sum
    qtbot.mouseMove(panel.canvas, QtCore.QPoint(5, 5))
    settle()
    assert panel.arithmetic.text() == explain.projection(window.session.result, "q", 0, 0).text


def test_edit_a_weight_and_the_label_follows(window):
    window.session.set_cell("w_k", 2, 1, "-0.75")
    settle()
    panel = _panel(window)
    panel.set_grid("k")
    d = panel.drawn()
    line = next(ln for ln in d["lines"] if ln["r"] == 2 and ln["c"] == 1)
    assert line["text"] == "-0.75" and line["dashed"]


def test_large_grids_thin_out_without_overlap(window):
    window.session.set_dims(64, 64, 64)
    settle()
    panel = _panel(window)
    d = panel.drawn()
    # too many lines for all: only those into the chosen cell are drawn
    assert len(d["lines"]) == 64 and all(ln["c"] == 0 for ln in d["lines"])
    _no_overlap(d["label_rects"])
    assert 0 < len(d["label_rects"]) < 64
    shown = [t for _, t in d["outputs"] if t is not None]
    assert 0 < len(shown) < 64
    assert d["arithmetic"] == explain.projection(window.session.result, "q", 0, 0).text


def test_empty_sentence_shows_the_hint(window):
    window.session.set_text("")
    settle()
    assert _panel(window).showing_hint()


def test_edits_to_other_tokens_leave_the_picture_alone_and_edits_to_this_token_redraw_it(window):
    """The canvas shows one token times one grid: another token's numbers do not change it, so it is not
    drawn again; a change to this token's numbers or to the grid is drawn, with the new numbers."""
    panel = _panel(window)
    s = window.session
    s.select(query=1, key=0)
    settle()
    paints = []

    class Count(QtCore.QObject):
        def eventFilter(self, obj, event):
            if event.type() == QtCore.QEvent.Type.Paint:
                paints.append(1)
            return False

    counter = Count()
    panel.canvas.installEventFilter(counter)
    try:
        assert s.set_cell("x", 0, 0, "0.33")  # token 0: not the one shown
        settle()
        assert paints == []
        assert s.set_cell("x", 1, 0, "0.77")  # token 1: the one shown
        settle()
        assert paints and panel.drawn()["inputs"][0][0] == 0.77
        paints.clear()
        assert s.set_cell("w_q", 0, 1, "-0.4")  # the grid itself
        settle()
        assert paints
    finally:
        panel.canvas.removeEventFilter(counter)
    d = panel.drawn()
    np.testing.assert_allclose([v for v, _ in d["inputs"]], s.scenario.x[1])
    np.testing.assert_allclose([v for v, _ in d["outputs"]], np.asarray(s.scenario.x[1]) @ np.asarray(s.scenario.w_q))
