"""The attention heatmap: the drawn image is the weight grid, clicks select, hover explains."""

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from qkv_engine import explain
from qkv_gui.drawing.token_labels import short_token
from qkv_engine.attention import MASK_BLOCKED, MASK_CAUSAL, MASK_PADDING
from tests.gui.conftest import ALONE, settle
from tests.gui.support.reference import numpy_weights as reference_weights

Qt = QtCore.Qt


#: The heatmap's size in the panel grid of a 1600 x 1000 window (a little narrower than the others).
IN_GRID = (365, 280)


@pytest.fixture
def panel(make_panel):
    """The heatmap on its own Session (the app's default example), at its size in the panel grid."""
    from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel

    return make_panel(HeatmapPanel, size=IN_GRID)


def click_cell(qtbot, panel, i, j, double=False):
    scene_pos = panel.scene_pos_of(i, j)
    view = panel.canvas
    point = view.mapFromScene(scene_pos)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    if double:  # what a real double-click delivers after the first click: double-click, then release
        left, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
        local = QtCore.QPointF(point)
        glob = QtCore.QPointF(view.viewport().mapToGlobal(point))
        for kind, buttons in ((QtCore.QEvent.Type.MouseButtonDblClick, left),
                              (QtCore.QEvent.Type.MouseButtonRelease, Qt.MouseButton.NoButton)):
            QtWidgets.QApplication.sendEvent(view.viewport(), QtGui.QMouseEvent(kind, local, glob, left, buttons, none))
    settle(qtbot)


def test_image_is_the_weight_grid_after_every_edit(panel, qtbot):
    s = panel.session
    np.testing.assert_allclose(panel.image.image, reference_weights(s.scenario), atol=1e-12)

    assert s.set_cell("w_q", 0, 0, "0.9")
    settle(qtbot)
    assert s.scenario.w_q[0, 0] == 0.9
    np.testing.assert_allclose(panel.image.image, reference_weights(s.scenario), atol=1e-12)

    for change in ({"causal": True}, {"scale": False}, {"temperature": 0.5}, {"softmax_over": "queries"},
                   {"causal": False}):
        before = np.array(panel.image.image)
        assert s.set_option(**change)
        settle(qtbot)
        expected = reference_weights(s.scenario)
        assert not np.allclose(before, expected), f"{change} should change the weights"
        np.testing.assert_allclose(panel.image.image, expected, atol=1e-12)
        # the default colour scale ("auto"): 0 to the largest weight shown
        assert panel.image.levels == (0.0, pytest.approx(float(expected.max())))


def test_row_sums_strip_and_column_mode(panel, qtbot):
    n = panel.session.result.n
    np.testing.assert_allclose(panel.rowSumImage.image.ravel(), np.ones(n), atol=1e-12)
    assert "row" in panel.x_tick_labels[-1][1] or panel.x_tick_labels[-1][1] == "sum"
    assert "adds up to 1" in panel.sumNote.text()
    assert not panel.colSumImage.isVisible()

    panel.session.set_option(softmax_over="queries")
    settle(qtbot)
    expected = reference_weights(panel.session.scenario)
    assert panel.colSumImage.isVisible()
    np.testing.assert_allclose(panel.colSumImage.image.ravel(), np.ones(n), atol=1e-12)
    np.testing.assert_allclose(panel.rowSumImage.image.ravel(), expected.sum(axis=1), atol=1e-12)
    assert "no longer" in panel.sumNote.text()
    assert "sum" in panel.y_tick_labels[-1][1]

    # --- masked cells are covered not just dark
    panel.session.set_option(causal=True)
    settle(qtbot)
    n = panel.session.result.n
    path = panel.image.mask_path(MASK_CAUSAL)
    for i in range(n):
        for j in range(n):
            centre = QtCore.QPointF(j + 0.5, i + 0.5)
            assert path.contains(centre) == (j > i), (i, j)
            assert panel.image.mask_path().contains(centre) == (j > i), (i, j)
    assert panel.image.mask_path(MASK_PADDING).isEmpty() and panel.image.mask_path(MASK_BLOCKED).isEmpty()
    panel.session.set_option(causal=False)
    settle(qtbot)
    assert panel.image.mask_path().isEmpty()
    assert all(panel.image.mask_path(r).isEmpty() for r in (MASK_CAUSAL, MASK_PADDING, MASK_BLOCKED))


def test_click_selects_the_pair_everywhere(panel, make_panel, qtbot):
    from qkv_gui.panels.steps.summary_diagram import SummaryPanel

    session = panel.session
    summary = make_panel(SummaryPanel, session=session, size=(390, 275))  # another panel on the session
    click_cell(qtbot, panel, 2, 1)
    assert session.selection.query == 2 and session.selection.key == 1
    assert panel.image.outlines["cell"].rect == QtCore.QRectF(1, 2, 1, 1)
    tokens = session.result.tokens
    assert f"'{tokens[2]}'" in summary.texts["q_caption"].toPlainText()
    assert f"'{tokens[1]}'" in summary.texts["k_caption"].toPlainText()
    # The scene-position mapping used by the click agrees for every cell.
    n = session.result.n
    for i in range(n):
        for j in range(n):
            assert panel.image.cell_at(panel.scene_pos_of(i, j)) == (i, j)

    # --- hover shows the softmax arithmetic
    panel.resize(*ALONE)  # wide (the panel shown alone): the label shows the whole arithmetic
    settle(qtbot)
    result = session.result
    view = panel.canvas
    QTest.mouseMove(view.viewport(), view.mapFromScene(panel.scene_pos_of(1, 2)))
    settle(qtbot)
    if panel.hover_cell_ij != (1, 2):  # no real mouse events on this platform: what the grid does on one
        panel.image.hover_at(panel.scene_pos_of(1, 2))
    assert panel.hover_cell_ij == (1, 2)
    expected = explain.weight(result, 1, 2).text
    assert panel.hover_text == expected
    assert expected in panel.info.text()
    assert expected in view.toolTip()
    # Leaving the grid shows the selected pair's arithmetic again.
    panel.image.hover_at(panel.vb.mapViewToScene(QtCore.QPointF(-10, -10)))
    sel = session.selection
    assert panel.hover_cell_ij is None
    assert explain.weight(result, sel.query, sel.key).text in panel.info.text()


def test_numbers_in_cells_only_when_they_fit(panel, qtbot):
    panel.resize(*ALONE)
    settle(qtbot)
    result = panel.session.result
    n = result.n
    assert panel.shown_numbers == n * n
    shown = sorted(text for _i, _j, text in panel.image.number_texts())
    assert shown == sorted(f"{w:.2f}" for w in result.weights.ravel())

    panel.session.set_text(" ".join(f"w{i}" for i in range(512)))
    settle(qtbot)
    assert panel.shown_numbers == 0
    panel.resize(*IN_GRID)
    settle(qtbot)
    assert panel.shown_numbers == 0

    # --- 512 tokens draw fast with thinned labels
    panel.session.set_text(" ".join(f"w{i}" for i in range(512)))
    settle(qtbot)
    result = panel.session.result
    assert panel.image.image.shape == (512, 512)
    np.testing.assert_allclose(panel.image.image, reference_weights(panel.session.scenario), atol=1e-12)
    assert 2 <= len(panel.x_tick_labels) <= 40 and panel.x_step > 1
    assert 2 <= len(panel.y_tick_labels) <= 60 and panel.y_step > 1
    panel.show_result(result, panel.session.selection)
    panel.grab()  # paints without error

    # Zoomed in on a corner every token is labelled again and the numbers come back.
    panel.resize(*ALONE)
    settle(qtbot)
    panel.vb.setRange(xRange=(0, 6), yRange=(0, 6), padding=0)
    settle(qtbot)
    assert panel.x_step == 1 and panel.y_step == 1
    labels = [t for _, t in panel.x_tick_labels]
    assert "w0" in labels and "w4" in labels
    assert panel.shown_numbers > 0

    # Reset view (button) shows the whole grid again.
    panel.resetButton.click()
    settle(qtbot)
    (x0, x1), (y0, y1) = panel.vb.viewRange()
    assert x0 <= 0 and x1 >= 512 and y0 <= 0 and y1 >= 512

    # --- double click resets the view
    panel.resize(*ALONE)
    settle(qtbot)
    panel.vb.setRange(xRange=(0, 1.5), yRange=(0, 1.5), padding=0)
    settle(qtbot)
    click_cell(qtbot, panel, 0, 0, double=True)
    (x0, x1), (y0, y1) = panel.vb.viewRange()
    n = panel.session.result.n
    assert x0 <= 0 and x1 >= n and y0 <= 0 and y1 >= n


def test_one_token_and_empty_sentence(panel, qtbot):
    panel.session.load_preset("seed-cat")
    settle(qtbot)
    assert panel.image.image.shape == (1, 1) and panel.image.image[0, 0] == 1.0
    panel.session.set_text("")
    settle(qtbot)
    assert panel.showing_hint()


def _ink_rows(image: QtGui.QImage, x0: int, x1: int, y0: int, y1: int) -> int:
    """How many pixel rows between y0 and y1 have a non-white pixel between x0 and x1."""
    rows = 0
    for y in range(max(0, y0), min(image.height(), y1)):
        if any(QtGui.QColor(image.pixel(x, y)).lightness() < 200 for x in range(max(0, x0), min(image.width(), x1))):
            rows += 1
    return rows


def test_key_names_stand_upright_when_written_across_most_would_be_left_out(panel):
    axis = panel.plot.getAxis("bottom")
    panel.session.set_text("the cat sat on the warm mat today")
    settle(rounds=6)
    # in the grid the columns are ~20 px wide: across, only every 5th name fitted
    assert panel.keys_upright and axis.turned
    names = [t for _, t in panel.x_tick_labels]
    assert names == ["the", "cat", "sat", "on", "the", "warm", "mat", "today", "row sum"]
    assert [t for _, t in axis.turned_texts] == names  # every one drawn
    metrics = QtGui.QFontMetricsF(axis.style["tickFont"])
    assert axis.height() >= metrics.horizontalAdvance("today") + metrics.height()  # room for the longest
    xs = [x for x, _ in axis.turned_texts]
    assert min(b - a for a, b in zip(xs, xs[1:])) >= metrics.height()  # neighbours do not overlap
    assert len(panel.y_tick_labels) == 8  # and every query name still fits
    # on screen: under the column of 'today' the ink runs down the axis, taller than a line of text
    image = panel.canvas.grab().toImage()
    pos = panel.canvas.mapFromScene(panel.scene_pos_of_key_label(7))
    top = int(axis.sceneBoundingRect().top())
    assert _ink_rows(image, pos.x() - 3, pos.x() + 4, top + 4, top + int(axis.height())) > 2 * metrics.height()

    # shown alone the panel is wide: the names lie across again, all of them
    panel.resize(*ALONE)
    settle(rounds=6)
    assert not panel.keys_upright and not axis.turned
    assert [t for _, t in panel.x_tick_labels][:8] == names[:8]
    panel.resize(*IN_GRID)
    settle(rounds=6)
    assert panel.keys_upright
    # clicking an upright name still picks its key
    assert panel.key_label_at(panel.scene_pos_of_key_label(5)) == 5


def test_three_key_names_stay_across(panel):
    assert not panel.keys_upright and not panel.plot.getAxis("bottom").turned
    assert [t for _, t in panel.x_tick_labels][:3] == ["The", "cat", "sat"]


@pytest.mark.slow
def test_upright_names_settle_at_every_size(panel):
    """Whether names stand up depends on the plot's size, and standing them up changes the plot's
    height: the layout must settle at every size, not flip between the two."""
    panel.session.set_text(" ".join(f"word{i}" for i in range(24)))
    settle()
    app = QtWidgets.QApplication.instance()
    seen = set()
    try:
        for height in (160, 200, 260, 340):
            for width in range(150, 560, 30):
                panel.canvas.setFixedSize(width, height)
                settle(rounds=6)
                state = (panel.keys_upright, panel.plot.getAxis("bottom").height(), len(panel.x_tick_labels))
                for _ in range(4):
                    app.processEvents()
                assert (panel.keys_upright, panel.plot.getAxis("bottom").height(), len(panel.x_tick_labels)) == state
                seen.add(panel.keys_upright)
    finally:
        panel.canvas.setMinimumSize(0, 0)
        panel.canvas.setMaximumSize(16777215, 16777215)
    assert seen == {True, False}  # both ways were met


# ----- one panel on its own session --------------------------------------------------------------------
T20 = ("After a long rainy week the children finally played outside in the warm sun today with all "
       "their friends and dogs")
WORDS = T20.split()


def heatmap_panel(make_panel, text=None, size=(520, 330), preset="pronoun"):
    from qkv_engine import presets
    from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel
    from qkv_gui.state.session import Session

    session = Session(presets.load(preset))
    session.preset_name = preset
    if text is not None:
        session.set_text(text)
    return make_panel(HeatmapPanel, session=session, size=size)


def test_colour_scale_chooser_sets_the_levels_and_the_bar_says_which(make_panel):
    from qkv_engine.explain import fixed

    panel = heatmap_panel(make_panel, T20, size=(1000, 700))
    s = panel.session
    w = s.result.weights
    steps = s.undo_stack.count()
    button = panel.findChild(QtWidgets.QToolButton, "colourScaleCombo")
    assert button is not None and button.isVisible() and s.colour_scale == "auto"
    bar_title = panel.colorbar.getAxis("left")
    top_tick = max(panel.colorbar.axis._tickLevels[0])[1]
    assert panel.image.levels == (0.0, pytest.approx(max(max(r) for r in w.tolist())))
    assert bar_title.labelText == "weight (0 to the largest, auto)" and top_tick == fixed(float(w.max()), 2)

    button.choose("row")
    settle()
    assert s.colour_scale == "row" and button.text() == "per row"
    high = np.broadcast_to(panel.image.levels[1], w.shape)
    np.testing.assert_allclose(high[:, 0], [max(r) for r in w.tolist()])
    assert bar_title.labelText == "weight, each row to its largest"
    assert [t for _, t in panel.colorbar.axis._tickLevels[0]][-1] == "max"

    button.choose("absolute")
    settle()
    assert panel.image.levels == (0.0, 1.0) and bar_title.labelText == "weight (0 to 1)"
    assert s.undo_stack.count() == steps  # a view setting, not an edit
    assert s.view_state()["colour_scale"] == "absolute"


def test_the_info_line_follows_a_selection_made_elsewhere(make_panel):
    panel = heatmap_panel(make_panel, "the cat sat on the mat", size=(1000, 700))
    s = panel.session
    view = panel.canvas
    QTest.mouseMove(view.viewport(), view.mapFromScene(panel.scene_pos_of(1, 2)))
    settle()
    if panel.hover_cell_ij != (1, 2):  # no real mouse events on this platform: what the grid does on one
        panel.image.hover_at(panel.scene_pos_of(1, 2))
    assert panel.info.text().startswith("Under the mouse: query 2 'cat' → key 3 'sat'")
    # the mouse goes to another panel and selects a pair there
    QtWidgets.QApplication.sendEvent(view, QtCore.QEvent(QtCore.QEvent.Type.Leave))
    s.select(query=3, key=0)
    settle()
    assert panel.hover_cell_ij is None
    assert panel.info.text().startswith("Selected: query 4 'on' → key 1 'the'")
    assert explain.weight(s.result, 3, 0).text in panel.info.text()
    s.select(query=0, key=5)
    settle()
    assert panel.info.text().startswith("Selected: query 1 'the' → key 6 'mat'")


def test_block_and_padding_modes_go_back_to_select_on_a_new_preset_or_sentence(make_panel):
    panel = heatmap_panel(make_panel, preset="seed-the-cat-sat", size=(1000, 700))
    s = panel.session
    panel.set_mode("padding")
    click_cell(None, panel, 0, 1)
    assert s.scenario.padding == (1,) and panel.mode == "padding"  # a mask edit keeps the mode
    s.load_preset("seed-numpy-demo")  # the same tokens, another preset
    settle()
    assert panel.mode == "select" and panel.modeButtons["select"].isChecked()
    panel.set_mode("block")
    s.set_text("a new sentence here")
    settle()
    assert panel.mode == "select"
    before = s.scenario.blocked
    click_cell(None, panel, 1, 2)  # a click now selects, it does not mask
    assert s.scenario.blocked == before and (s.selection.query, s.selection.key) == (1, 2)


def _names_do_not_overlap(panel, labels, px, line):
    positions = [p for p, t in labels if "sum" not in t]
    return all((b - a) * px >= line - 0.5 for a, b in zip(positions, positions[1:]))


@pytest.mark.parametrize("size, tokens, least", [((520, 330), 20, 7), ((330, 230), 20, 4), ((1000, 700), 20, 20),
                                                  ((520, 330), 69, 8), ((1000, 700), 69, 34)])
def test_as_many_token_names_as_fit(make_panel, size, tokens, least):
    words = (WORDS * 4)[:tokens]
    panel = heatmap_panel(make_panel, " ".join(words), size=size)
    settle(rounds=6)
    n = panel.session.result.n
    assert n == tokens
    (x0, x1), (y0, y1) = panel.vb.viewRange()
    px_y = panel.vb.height() / (y1 - y0)
    line = panel._metrics.height()
    queries = [t for _, t in panel.y_tick_labels]
    assert len(queries) >= least, (len(queries), queries)
    assert _names_do_not_overlap(panel, panel.y_tick_labels, px_y, line)
    if least == tokens:
        assert queries == [short_token(t) for t in words]  # every one, in order
    assert panel._tick_pt >= 6.5  # never smaller than legible


def test_hovering_names_the_query_and_key_left_out(make_panel):
    words = (WORDS * 4)[:69]
    panel = heatmap_panel(make_panel, " ".join(words), size=(520, 330))
    settle(rounds=6)
    named_rows = {round(p - 0.5) for p, _t in panel.y_tick_labels}
    i = next(k for k in range(69) if k not in named_rows)
    j = next(k for k in range(69) if k not in {round(p - 0.5) for p, _t in panel.x_tick_labels})
    panel.image.hover_at(panel.scene_pos_of(i, j))
    settle()
    assert (i + 0.5, short_token(words[i])) in panel.y_tick_labels
    assert (j + 0.5, short_token(words[j])) in panel.x_tick_labels
    panel.image.hover_at(panel.vb.mapViewToScene(QtCore.QPointF(-5, -5)))
    settle()
    assert (i + 0.5, short_token(words[i])) not in panel.y_tick_labels


def test_names_turn_at_most_there_and_back_at_one_width(make_panel):
    """A layout that hands the plot back the height it had before each turn cannot make the key names turn
    upright and back for ever (it once hung a window): after there and back, they stay."""
    from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel
    from qkv_gui.drawing.turned_axis import stand_upright

    panel = make_panel(HeatmapPanel, preset="pronoun", size=(300, 280))
    axis = panel.plot.getAxis("bottom")
    turns = []
    for k in range(12):  # a plot height that always favours the other way
        before = axis.turned
        stand_upright(axis, 40.0, 60.0, lambda upright, h, b=before: 2 if upright != b else 1)
        turns.append(axis.turned != before)
    assert sum(turns) == 2 and not any(turns[2:])


# ----- what an edit of numbers leaves alone is still followed when it changes ------------------------------
def _edit_numbers(s, row: int = 1, delta: float = 0.05) -> None:
    s.set_cell("x", row, 0, float(s.scenario.x[row, 0]) + delta)
    settle()


def test_names_follow_a_new_word_a_zoom_and_a_hover_after_edits_of_numbers(panel):
    s = panel.session
    _edit_numbers(s)
    words = list(s.scenario.tokens)
    assert [t for _p, t in panel.y_tick_labels] == [short_token(w) for w in words]
    words[2] = "zebra"
    s.set_text(" ".join(words))
    settle()
    _edit_numbers(s)
    assert (2.5, "zebra") in panel.y_tick_labels and (2.5, "zebra") in panel.x_tick_labels
    # zoomed in on the first two columns: only their names (and the sums') are written under the grid
    panel.vb.setRange(xRange=(0, 2), yRange=(0, 2), padding=0)
    settle()
    _edit_numbers(s, delta=-0.04)
    columns = {round(p - 0.5) for p, t in panel.x_tick_labels if "sum" not in t}
    assert columns and columns <= {0, 1, 2}
    panel.reset_view()
    settle()
    _edit_numbers(s)
    assert len([t for _p, t in panel.x_tick_labels if "sum" not in t]) == len(words)


def test_a_row_left_without_keys_reaches_the_sum_strip_between_edits_of_numbers(panel):
    s = panel.session
    _edit_numbers(s)
    n, m = s.result.n, s.result.n_keys
    np.testing.assert_allclose(panel.rowSumImage.image.ravel(), np.ones(n), atol=1e-12)
    for j in range(m):
        s.toggle_blocked(1, j)
    settle()
    _edit_numbers(s, row=2)
    expected = np.ones(n)
    expected[1] = 0.0
    np.testing.assert_allclose(panel.rowSumImage.image.ravel(), expected, atol=1e-12)
    assert [item.text() for item in panel.rowWarnTexts.items[:panel.rowWarnTexts.shown]] == ["0"]
    assert panel.clearButton.isEnabled()
    s.clear_masks()
    settle()
    _edit_numbers(s, row=2, delta=-0.04)
    np.testing.assert_allclose(panel.rowSumImage.image.ravel(), np.ones(n), atol=1e-12)
    assert panel.rowWarnTexts.shown == 0 and not panel.clearButton.isEnabled()


def test_titles_and_limits_follow_the_size_and_the_number_of_tokens(panel):
    s = panel.session
    left = panel.plot.getAxis("left")
    assert left.labelText == "query i (row)"
    panel.resize(IN_GRID[0], 150)
    settle()
    _edit_numbers(s)
    assert left.labelText in ("query i", "")
    panel.resize(*IN_GRID)
    settle()
    _edit_numbers(s, delta=-0.04)
    assert left.labelText == "query i (row)"
    # more tokens: the view may show them all (its zoom limits grew with the grid)
    s.set_text(" ".join(f"w{k}" for k in range(12)))
    settle()
    panel.vb.setRange(xRange=(0, 14), yRange=(0, 12), padding=0)
    settle()
    (x0, x1), (y0, y1) = panel.vb.viewRange()
    assert x1 >= 12 and y1 >= 12
    s.set_option(causal=True)
    settle()
    assert panel.causalButton.isChecked()
    _edit_numbers(s)
    s.set_option(causal=False)
    settle()
    assert not panel.causalButton.isChecked()


def test_the_grid_tooltip_writes_out_the_selected_pairs_arithmetic_when_the_mouse_rests(panel):
    """A narrow panel's info line names the selected pair; the softmax arithmetic (long for a long row) is
    written out when it is shown: in the grid's tooltip when the mouse rests there, in the info line of a
    wide panel."""
    s = panel.session
    s.select(query=2, key=1)
    settle()
    assert panel.info.text().startswith("Selected: query 3") and "\n" not in panel.info.text()
    viewport = panel.canvas.viewport()

    def rest_the_mouse():
        at = QtCore.QPoint(viewport.width() // 2, viewport.height() // 2)
        event = QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, at, viewport.mapToGlobal(at))
        QtWidgets.QApplication.sendEvent(viewport, event)
        return panel.canvas.toolTip()

    assert explain.weight(s.result, 2, 1).text in rest_the_mouse()
    s.set_cell("x", 0, 0, float(s.scenario.x[0, 0]) + 0.5)
    settle()
    tip = rest_the_mouse()
    assert explain.weight(s.result, 2, 1).text in tip and tip.startswith("Selected: query 3")
    panel.resize(700, 420)
    settle()
    assert explain.weight(s.result, 2, 1).text in panel.info.text()


def test_the_upright_titles_sit_in_their_axes_at_every_height(make_panel):
    """A title chosen for a new height (the colour bar's: "weight (0 to the largest, auto)", or a shorter one)
    is drawn inside its axis, centred: pyqtgraph placed a title only when its axis was resized, so a title
    of another length set afterwards ran off the end of the bar."""
    from qkv_gui.look import colours
    from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel

    panel = make_panel(HeatmapPanel, preset="seed-the-cat-sat", size=(640, 420))
    off = []
    try:
        for height in range(300, 520, 4):
            panel.resize(640, height)
            settle()
            for palette in ("dark", "standard"):  # (a new palette sets the titles again)
                colours.use(palette)
                settle()
                for axis in (panel.colorbar.getAxis("left"), panel.plot.getAxis("left")):
                    label = axis.label
                    if not (label.isVisible() and axis.labelText):
                        continue
                    box = label.mapRectToParent(label.boundingRect())
                    margin = label.document().documentMargin() + 2  # (blank, and a pixel or two of room)
                    if box.top() < -margin or box.bottom() > axis.height() + margin \
                            or abs(box.center().y() - axis.height() / 2) > 2:
                        off.append((height, palette, axis.labelText, round(box.top()), round(box.bottom()),
                                    round(axis.height())))
    finally:
        colours.use("standard")
        settle()
    assert off == []
