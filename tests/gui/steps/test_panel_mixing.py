"""Panel 2 (a grid mixes the dials): the dials, lines, labels and worked sum match the scenario."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pytest

from qkv_engine import explain
from qkv_gui.look import colours, style

from tests.gui.support.big_dims import problems
from qkv_gui.panels.steps.grid_mixing import MixingPanel
from tests.gui.conftest import IN_GRID, settle

Qt = QtCore.Qt


@pytest.fixture
def panel(make_panel):
    """The panel on its own Session (the app's default example), at its size in the panel grid."""
    return make_panel(MixingPanel, size=IN_GRID)


def _no_overlap(rects):
    for a in range(len(rects)):
        for b in range(a + 1, len(rects)):
            assert not rects[a].intersects(rects[b]), (rects[a], rects[b])


def test_query_grid_for_the_selected_token(panel):
    panel.session.select(query=1, key=0)
    settle()
    d = panel.drawn()
    s, r = panel.session.scenario, panel.session.result
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


def test_seed_cat_reads_clearly_in_the_grid(make_panel):
    panel = make_panel(MixingPanel, preset="seed-cat", size=IN_GRID)
    d = panel.drawn()
    # the walkthrough's first query coordinate, recomputed by hand: 0.05 - 0.06 - 0.24 + 0.12
    assert d["arithmetic"].startswith("q1 = 0.5(0.1) + (-0.3)(0.2) + 0.8(-0.3) + 0.2(0.6) = ")
    assert d["arithmetic"].endswith(f"= {explain.fixed(0.5 * 0.1 - 0.3 * 0.2 + 0.8 * -0.3 + 0.2 * 0.6, 2)}")
    # in the 3 x 3 grid the chosen cell's four lines carry their labels; the other cell's are labelled all
    # together or not at all (where they would sit at crossings, none), and no two labels overlap
    assert all(ln["labelled"] for ln in d["lines"] if ln["strong"])
    assert len({ln["labelled"] for ln in d["lines"] if not ln["strong"]}) == 1
    _no_overlap(d["label_rects"])
    assert d["input_labels"] == ["x1", "x2", "x3", "x4"]
    assert all(t is not None for _, t in d["outputs"])


def test_seed_cat_labels_every_line_where_there_is_room(make_panel):
    from qkv_gui.panels.steps.grid_mixing import MixingPanel

    panel = make_panel(MixingPanel, preset="seed-cat", size=(520, 330))
    d = panel.drawn()
    assert len(d["lines"]) == 8 and all(ln["labelled"] for ln in d["lines"])
    _no_overlap(d["label_rects"])


def test_switch_to_values_and_click_a_cell(panel, qtbot):
    switch = panel.findChild(type(panel.switch), "mixingGridSwitch")
    assert switch is panel.switch
    qtbot.mouseClick(switch, Qt.MouseButton.LeftButton, pos=switch.tabRect(2).center())
    settle()
    assert panel.grid == "v"
    d = panel.drawn()
    s = panel.session.scenario
    assert len(d["outputs"]) == s.d_v
    rect = d["output_rects"][2]
    qtbot.mouseClick(panel.canvas, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    settle()
    d = panel.drawn()
    assert d["output"] == 2
    want = np.asarray(s.x[0]) @ np.asarray(s.w_v)
    np.testing.assert_allclose([v for v, _ in d["outputs"]], want)
    assert d["arithmetic"] == explain.projection(panel.session.result, "v", 0, 2).text
    assert d["arithmetic"].startswith("v3 = ")
    # the strong lines are the ones into the clicked cell
    assert {ln["c"] for ln in d["lines"] if ln["strong"]} == {2}


def test_hover_shows_the_hovered_cell(panel, qtbot):
    d = panel.drawn()
    qtbot.mouseMove(panel.canvas, d["output_rects"][1].center().toPoint())
    settle()
    assert panel.drawn()["hover"] == 1
    assert panel.arithmetic.text() == explain.projection(panel.session.result, "q", 0, 1).text
    # moving back to the dials leaves the clicked cell's sum
    qtbot.mouseMove(panel.canvas, QtCore.QPoint(5, 5))
    settle()
    assert panel.arithmetic.text() == explain.projection(panel.session.result, "q", 0, 0).text


def test_edit_a_weight_and_the_label_follows(panel):
    panel.session.set_cell("w_k", 2, 1, "-0.75")
    settle()
    panel.set_grid("k")
    d = panel.drawn()
    line = next(ln for ln in d["lines"] if ln["r"] == 2 and ln["c"] == 1)
    assert line["text"] == "-0.75" and line["dashed"]


def test_large_grids_show_the_largest_products_and_the_rest(panel):
    panel.session.set_dims(64, 64, 64)
    settle()
    d = panel.drawn()
    s, r = panel.session.scenario, panel.session.result
    # 64 dials are too many: the five whose products x_r W[r, 0] are largest, then the others as one sum
    products = [float(s.x[0][m]) * float(s.w_q[m][0]) for m in range(64)]
    top = sorted(sorted(range(64), key=lambda m: -abs(products[m]))[:5])
    assert d["rows"][:5] == [("dial", f"x{m + 1}") for m in top]
    assert d["rows"][5] == ("rest", f"the other 59 add up to {explain.fixed(sum(products) - sum(products[m] for m in top), 2)}")
    np.testing.assert_allclose([v for v, _ in d["inputs"]], [s.x[0][m] for m in top])
    # only the lines into the chosen cell: five labelled with their grid entries, and the rest's, unlabelled
    assert all(ln["c"] == 0 for ln in d["lines"]) and len(d["lines"]) == 6
    assert sorted(ln["text"] for ln in d["lines"] if not ln["rest"]) == sorted(
        explain.trimmed(float(s.w_q[m][0]), 2) for m in top)
    _no_overlap(d["label_rects"])
    shown = [t for _, t in d["outputs"] if t is not None]
    assert 0 < len(shown) < 64
    assert d["arithmetic"] == explain.projection(r, "q", 0, 0).text


def test_empty_sentence_shows_the_hint(panel):
    panel.session.set_text("")
    settle()
    assert panel.showing_hint()


def test_edits_to_other_tokens_leave_the_picture_alone_and_edits_to_this_token_redraw_it(panel):
    """The canvas shows one token times one grid: another token's numbers do not change it, so it is not
    drawn again; a change to this token's numbers or to the grid is drawn, with the new numbers."""
    s = panel.session
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


# ----- a trained model's sizes, biases and named features -------------------------------------------------
def test_a_real_models_size_shows_a_few_dials_the_rest_and_the_bias(make_panel, make_session):
    from qkv_gui.panels.steps.grid_mixing import MixingPanel

    from tests.gui.support.big_dims import big_panel, texts_shown

    panel, s = big_panel(make_panel, make_session, MixingPanel, query=12)
    panel.set_output(7)
    d = panel.drawn()
    x, w = s.x[12], s.w_q[:, 7]
    products = [float(x[m]) * float(w[m]) for m in range(384)]
    kinds = [kind for kind, _ in d["rows"]]
    dials = kinds.count("dial")
    assert kinds == ["dial"] * dials + ["rest", "bias"] and 3 <= dials <= 5
    top = sorted(sorted(range(384), key=lambda m: -abs(products[m]))[:dials])
    assert [name for _, name in d["rows"][:dials]] == [f"x{m + 1}" for m in top]
    rest = sum(products) - sum(products[m] for m in top)
    assert d["rows"][dials][1].endswith(explain.fixed(rest, 2))
    assert d["rows"][-1] == ("bias", "b^Q")
    bias_line = [ln for ln in d["lines"] if ln["kind"] == "bias"]
    assert len(bias_line) == 1 and bias_line[0]["weight"] == float(s.b_q[7])
    assert bias_line[0]["text"] == explain.trimmed(float(s.b_q[7]), 2)
    # what the cell shows is what the dials, the rest and the bias add up to
    assert d["outputs"][7][0] == pytest.approx(sum(products) + float(s.b_q[7]))
    assert len(d["lines"]) == dials + 2
    assert texts_shown(panel) < 60
    assert not problems(panel), problems(panel)
    # at a projector's share of the window: fewer dials, still nothing on anything else, nothing cut
    panel.resize(330, 230)
    settle()
    d = panel.drawn()
    assert 1 <= [kind for kind, _ in d["rows"]].count("dial") <= 5
    assert not problems(panel), problems(panel)


def test_an_edit_at_a_real_models_size_does_not_rebuild_the_picture_for_another_token(make_panel, make_session):
    """The canvas compares the few numbers it draws, not d_model x d_k of them."""
    from qkv_gui.panels.steps.grid_mixing import MixingPanel

    from tests.gui.support.big_dims import big_panel

    panel, _s = big_panel(make_panel, make_session, MixingPanel)
    session = panel.session
    layout = panel.canvas.layout_now()
    assert session.set_cell("x", 5, 3, "0.25")  # token 5 is not the one shown
    settle()
    assert panel.canvas.layout_now() is layout


def test_named_features_and_a_bias_in_a_small_grid(make_panel):
    from qkv_gui.panels.steps.grid_mixing import MixingPanel

    panel = make_panel(MixingPanel, preset="designed-it", size=(520, 330))
    session = panel.session
    s = session.scenario
    d = panel.drawn()
    assert [name for _, name in d["rows"]] == ["x1 · animate", "x2 · noun", "x3 · pronoun", "x4 · verb"]
    assert "[pronoun]" in d["arithmetic"] and d["arithmetic"].startswith("q1 · looks for animate = ")
    assert not any(kind == "bias" for kind, _ in d["rows"])  # no bias: no bias row
    session.select(query=s.tokens.index("it"))
    assert session.set_cell("b_q", 0, 1, "0.5")  # a bias on q2: one more input, a line into each cell
    settle()
    d = panel.drawn()
    assert d["rows"][-1] == ("bias", "b^Q") and d["rows"][:-1] == [
        ("dial", n) for n in ("x1 · animate", "x2 · noun", "x3 · pronoun", "x4 · verb")]
    bias = sorted((ln["c"], ln["text"]) for ln in d["lines"] if ln["kind"] == "bias")
    assert bias == [(0, "0"), (1, "0.5")]
    it = s.tokens.index("it")
    want = np.asarray(s.x[it]) @ np.asarray(s.w_q) + np.array([0.0, 0.5])
    np.testing.assert_allclose([v for v, _ in d["outputs"]], want)
    panel.set_output(1)
    assert panel.drawn()["arithmetic"] == explain.projection(session.result, "q", it, 1).text
    assert "b^Q2" in panel.drawn()["arithmetic"]
    assert not problems(panel), problems(panel)


@pytest.mark.parametrize("preset", ["seed-the-cat-sat", "seed-cat", "pronoun"])
def test_no_two_line_labels_sit_where_lines_cross(make_panel, preset):
    """At start-up the second cell's labels used to pile up where its lines cross the first cell's."""
    from qkv_gui.panels.steps.grid_mixing import MixingPanel
    from qkv_gui.panels.steps.grid_mixing import _crossed

    panel = make_panel(MixingPanel, preset=preset, size=(520, 330))
    lay = panel.canvas.layout_now()
    segments = np.array([[ln["p0"].x(), ln["p0"].y(), ln["p1"].x(), ln["p1"].y()] for ln in lay.lines])
    labelled = [(m, ln) for m, ln in enumerate(lay.lines) if ln["label_rect"] is not None]
    assert labelled
    strong = np.array([ln["strong"] for ln in lay.lines])[:, None]
    for m, ln in labelled:  # no other strong line through a label, no faint one through its words
        box = ln["label_rect"]
        assert not _crossed(box, np.where(strong, segments, np.nan), m), ln["text"]
        assert not _crossed(box.adjusted(3, 3, -3, -3), np.where(strong, np.nan, segments), m), ln["text"]
    _no_overlap([ln["label_rect"] for _, ln in labelled])


# ----- what the canvas keeps between paints follows every change ---------------------------------------------
def _picture(panel) -> QtGui.QImage:
    return panel.canvas.grab().toImage()


def _move(canvas, pos: QtCore.QPointF) -> None:
    """The mouse moved to ``pos`` over the canvas (sent straight to it: offscreen there is no real pointer)."""
    event = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, pos, canvas.mapToGlobal(pos), Qt.MouseButton.NoButton,
                              Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QtWidgets.QApplication.sendEvent(canvas, event)
    settle()


def _as_drawn_afresh(make_panel, panel, hover=None, theme=None):
    """The canvas's picture, pixel for pixel, against a panel built now on the same Session (its canvas keeps
    nothing from before), at the same size, grid, chosen cell, hovered cell and theme."""
    twin = make_panel(MixingPanel, session=panel.session, size=(panel.width(), panel.height()))
    if theme is not None:
        twin.set_theme(theme)
    twin.set_grid(panel.grid)
    twin.set_output(panel.output_index)
    settle()
    if hover is not None:
        _move(twin.canvas, hover)
        assert twin.drawn()["hover"] == panel.drawn()["hover"]
    assert twin.canvas.size() == panel.canvas.size()
    assert twin.drawn()["texts"] == panel.drawn()["texts"]
    assert _picture(twin) == _picture(panel)
    twin.hide()


def test_the_picture_follows_every_change_as_if_drawn_afresh(make_panel):
    """The canvas keeps its fonts' measures, the labels' places and a picture of its lines between paints:
    after an edit, a resize, a hovered cell, a palette, presenter mode's bigger font, a grid or cell chosen,
    it shows what a canvas drawn from nothing shows."""
    panel = make_panel(MixingPanel, preset="seed-the-cat-sat", size=(520, 330))
    s = panel.session
    s.select(query=1, key=0)
    settle()
    start = _picture(panel)
    _as_drawn_afresh(make_panel, panel)
    assert s.set_cell("x", 1, 2, "-0.7")  # this token's numbers: its bars, values and cells change
    settle()
    assert _picture(panel) != start
    _as_drawn_afresh(make_panel, panel)
    assert s.set_cell("w_q", 1, 0, "0.93")  # the grid: the lines and their labels change
    settle()
    assert "0.93" in [t for t, _ in panel.drawn()["texts"]]
    _as_drawn_afresh(make_panel, panel)
    panel.resize(430, 290)  # a new size: every place changes
    settle()
    _as_drawn_afresh(make_panel, panel)
    where = panel.drawn()["output_rects"][1].center()
    _move(panel.canvas, where)  # the hovered cell's dashed outline
    assert panel.drawn()["hover"] == 1
    _as_drawn_afresh(make_panel, panel, hover=where)
    _move(panel.canvas, QtCore.QPointF(5, 5))
    assert panel.drawn()["hover"] is None
    panel.set_output(1)
    panel.set_grid("v")
    settle()
    _as_drawn_afresh(make_panel, panel)
    colours.use("dark")
    try:
        settle()
        _as_drawn_afresh(make_panel, panel)
    finally:
        colours.use("standard")
        settle()
    theme = style.presenter(1.6)
    panel.set_theme(theme)  # a bigger font
    settle()
    _as_drawn_afresh(make_panel, panel, theme=theme)
    panel.set_theme(style.SCREEN)
    settle()
    _as_drawn_afresh(make_panel, panel)


def test_an_edit_of_the_tokens_numbers_keeps_the_labels_places_and_an_edit_of_the_grid_moves_them(make_panel,
                                                                                                  monkeypatch):
    from qkv_gui.panels.steps.grid_mixing import MixingCanvas

    panel = make_panel(MixingPanel, preset="seed-the-cat-sat", size=(520, 330))
    s = panel.session
    placed = []
    label_lines = MixingCanvas._label_lines
    monkeypatch.setattr(MixingCanvas, "_label_lines", staticmethod(
        lambda *args: placed.append(1) or label_lines(*args)))
    before = panel.drawn()["label_rects"]
    assert s.set_cell("x", 0, 0, "0.61")  # the token shown: new bars and cells, the same lines
    settle()
    d = panel.drawn()
    assert d["inputs"][0][0] == 0.61
    assert placed == [] and d["label_rects"] == before
    assert s.set_cell("w_q", 0, 0, "-2.5")  # a much longer weight: its label is placed again, wider
    settle()
    d = panel.drawn()
    assert placed
    line = next(ln for ln in d["lines"] if ln["r"] == 0 and ln["c"] == 0)
    assert line["text"] == "-2.5" and line["dashed"]
    _no_overlap(d["label_rects"])


def test_a_scaled_export_paints_the_lines_themselves(make_panel):
    """The screen's picture reuses its painted lines; a PNG at twice the size draws them at that size, never
    the screen's picture of them made bigger."""
    panel = make_panel(MixingPanel, preset="seed-the-cat-sat", size=(520, 330))
    canvas = panel.canvas
    start = _picture(panel)
    red = QtGui.QColor(255, 0, 0)

    def reds(image: QtGui.QImage) -> int:
        image = image.convertToFormat(QtGui.QImage.Format.Format_RGB888)
        px = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
        px = px[:, :image.width() * 3].reshape(image.height(), image.width(), 3)
        return int(((px[..., 0] == 255) & (px[..., 1] == 0) & (px[..., 2] == 0)).sum())

    assert reds(start) == 0
    canvas._layer[1].fill(red)  # spoil the kept lines: the screen's picture shows it ...
    canvas.update()
    settle()
    assert reds(_picture(panel)) > 0.3 * canvas.width() * canvas.height()
    image = QtGui.QImage(canvas.width() * 2, canvas.height() * 2, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    painter = QtGui.QPainter(image)
    painter.scale(2, 2)
    canvas.render(painter, QtCore.QPoint(), QtGui.QRegion(), QtWidgets.QWidget.RenderFlag(0))
    painter.end()
    assert reds(image) == 0  # ... an export at another scale does not
    canvas._layer = None
    canvas.update()
    settle()
    assert _picture(panel) == start


@pytest.mark.parametrize("preset, size", [("seed-the-cat-sat", (520, 330)), ("long-sentence", (390, 230)),
                                          ("seed-the-cat-sat", (390, 230))])
def test_labels_boxes_painted_with_the_lines_look_as_painted_over_the_dials(make_panel, monkeypatch, preset, size):
    """Where the labels' boxes touch nothing painted after the lines (the dials' dots, values, the headers,
    each other's words), the canvas paints them once with the lines: pixel for pixel what painting them over
    everything gives."""
    from qkv_gui.panels.steps.grid_mixing import MixingCanvas

    panel = make_panel(MixingPanel, preset=preset, size=size)
    lay = panel.canvas.layout_now()
    assert lay.boxes_key
    kept = _picture(panel)
    monkeypatch.setattr(MixingCanvas, "_boxes_apart", lambda self, *args: False)
    panel.canvas._layout = None
    panel.canvas.update()
    settle()
    assert panel.canvas.layout_now().boxes_apart is False
    assert _picture(panel) == kept
    if lay.boxes_apart:  # the boxes are not kept where they would be painted over the dots
        rects = [QtCore.QRectF(*r) for _m, r in lay.boxes_key]
        x = lay.inputs[0]["anchor"].x()
        assert all(r.left() > x - 2 for r in rects)
