"""The heatmap's mask editor, used as a teacher would: block cells, mark padding keys, switch the
causal mask, clear and undo; the all-masked row; cross-attention's n x m grid; 512 tokens with masks."""
import math

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from qkv_engine import explain
from qkv_engine.attention import MASK_BLOCKED, MASK_CAUSAL, MASK_PADDING
from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel
from tests.gui.conftest import ALONE, IN_GRID, settle

Qt = QtCore.Qt


@pytest.fixture
def panel(make_panel):
    """The panel on its own Session (the app's default example), at its size in the panel grid."""
    return make_panel(HeatmapPanel, size=IN_GRID)


def click_at(qtbot, panel, scene_pos):
    view = panel.canvas
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view.mapFromScene(scene_pos))
    settle(qtbot)


def click_cell(qtbot, panel, i, j):
    click_at(qtbot, panel, panel.scene_pos_of(i, j))


def press(qtbot, panel, name):
    button = panel.findChild(QtWidgets.QToolButton, name)
    assert button is not None and button.isVisible(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    settle(qtbot)
    return button


def reference_weights(s, blocked=(), padding=(), causal=False):
    """Softmax of each row over the keys left open, written out row by row (0 where masked, a row
    with no key left all 0)."""
    keys_x = s.source_x if s.source_tokens is not None else s.x
    z = (s.x @ s.w_q) @ (keys_x @ s.w_k).T
    if s.scale:
        z = z / math.sqrt(s.w_q.shape[1])
    z = z / s.temperature
    n, m = z.shape
    open_ = np.ones((n, m), dtype=bool)
    for i, j in blocked:
        open_[i, j] = False
    for j in padding:
        open_[:, j] = False
    if causal:
        open_ &= np.tril(np.ones((n, m), dtype=bool))
    w = np.zeros((n, m))
    for i in range(n):
        keep = np.flatnonzero(open_[i])
        if len(keep):
            e = np.exp(z[i, keep] - z[i, keep].max())
            w[i, keep] = e / e.sum()
    return w


def covered(path, i, j):
    return path.contains(QtCore.QPointF(j + 0.5, i + 0.5))


def test_block_a_cell_and_its_row_renormalises(panel, qtbot):
    s = panel.session
    assert s.scenario.n_heads == 1 and s.scenario.n == 3
    assert panel.mode == "select" and panel.findChild(QtWidgets.QToolButton, "maskModeSelect").isChecked()
    before = s.selection
    press(qtbot, panel, "maskModeBlock")
    assert panel.mode == "block"
    click_cell(qtbot, panel, 1, 2)
    assert s.scenario.blocked == ((1, 2),)
    assert s.selection == before  # a mask edit is not a selection

    expected = reference_weights(s.scenario, blocked=[(1, 2)])
    np.testing.assert_allclose(panel.image.image, expected, atol=1e-12)
    assert panel.image.image[1, 2] == 0.0 and abs(panel.image.image[1].sum() - 1) < 1e-12
    assert not np.allclose(expected[1, :2], reference_weights(s.scenario)[1, :2])  # it really renormalised
    np.testing.assert_allclose(panel.rowSumImage.image.ravel(), [1, 1, 1], atol=1e-12)

    # the overlay covers exactly that cell, with the "blocked by hand" hatch
    for i in range(3):
        for j in range(3):
            mine = (i, j) == (1, 2)
            assert covered(panel.image.mask_path(), i, j) == mine
            assert covered(panel.image.mask_path(MASK_BLOCKED), i, j) == mine
            assert not covered(panel.image.mask_path(MASK_CAUSAL), i, j)
    # how many keys each row still shares its weight over
    assert panel.openKeysShown and panel.plot.getAxis("right").isVisible()
    assert [t for _, t in panel.open_key_labels] == ["3", "2", "3"]
    assert "open keys" in panel.plot.getAxis("right").labelText

    # hovering the blocked cell says why, in words
    result = s.result
    panel.image.hover_at(panel.scene_pos_of(1, 2))
    assert panel.hover_cell_ij == (1, 2)
    assert explain.scaled(result, 1, 2).text in panel.hover_text
    assert "blocked by hand" in panel.hover_text
    assert "blocked by hand" in panel.canvas.toolTip()
    panel.image.hover_at(panel.scene_pos_of(1, 0))
    assert panel.hover_text == explain.weight(result, 1, 0).text
    assert "2 of 3 keys are open" in panel.canvas.toolTip()

    # one undo step; a second click opens the cell again
    s.undo_stack.undo()
    settle(qtbot)
    assert s.scenario.blocked == ()
    assert panel.image.mask_path().isEmpty() and not panel.openKeysShown
    s.undo_stack.redo()
    settle(qtbot)
    click_cell(qtbot, panel, 1, 2)
    assert s.scenario.blocked == ()
    np.testing.assert_allclose(panel.image.image, reference_weights(s.scenario), atol=1e-12)


def test_padding_marks_a_column_and_clear_removes_it(panel, qtbot):
    s = panel.session
    tokens = s.scenario.tokens
    panel.resize(*ALONE)  # room for every key's name
    settle(qtbot)
    press(qtbot, panel, "maskModePadding")
    click_cell(qtbot, panel, 0, 1)  # any cell of the column
    assert s.scenario.padding == (1,)
    for i in range(3):
        for j in range(3):
            assert covered(panel.image.mask_path(MASK_PADDING), i, j) == (j == 1)
    np.testing.assert_allclose(panel.image.image, reference_weights(s.scenario, padding=[1]), atol=1e-12)
    labels = dict(panel.x_tick_labels)
    assert labels[1.5] == f"{tokens[1]} (pad)" and labels[0.5] == tokens[0]

    # a click on a key's name marks it too
    pos = panel.scene_pos_of_key_label(2)
    assert panel.key_label_at(pos) == 2 and panel.image.cell_at(pos) is None
    click_at(qtbot, panel, pos)
    assert s.scenario.padding == (1, 2)
    expected = reference_weights(s.scenario, padding=[1, 2])
    np.testing.assert_allclose(panel.image.image, expected, atol=1e-12)
    np.testing.assert_allclose(expected[:, 0], 1.0)  # one key left: it gets all of every row
    assert [t for _, t in panel.open_key_labels] == ["1", "1", "1"]

    clear = press(qtbot, panel, "maskClear")
    assert s.scenario.padding == () and s.scenario.blocked == ()
    assert panel.image.mask_path().isEmpty() and not clear.isEnabled()
    assert dict(panel.x_tick_labels)[1.5] == tokens[1]
    s.undo_stack.undo()
    settle(qtbot)
    assert s.scenario.padding == (1, 2) and clear.isEnabled()


def test_a_row_with_no_key_left(panel, qtbot):
    s = panel.session
    panel.resize(*ALONE)
    settle(qtbot)
    press(qtbot, panel, "maskModeBlock")
    for j in range(3):
        click_cell(qtbot, panel, 2, j)
    assert s.scenario.blocked == ((2, 0), (2, 1), (2, 2))
    result = s.result
    assert result.rows_without_keys.tolist() == [False, False, True]
    assert np.all(np.isfinite(panel.image.image))
    np.testing.assert_array_equal(panel.image.image[2], [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(result.output[2], np.zeros(result.output.shape[1]))
    np.testing.assert_allclose(panel.image.image, reference_weights(s.scenario, blocked=s.scenario.blocked),
                               atol=1e-12)
    # the row sum says 0 (not 1), in a red cell, and the row carries a note
    np.testing.assert_allclose(panel.rowSumImage.image.ravel(), [1, 1, 0], atol=1e-12)
    strip_x = panel.rowSumImage.mapRectToParent(panel.rowSumImage.boundingRect()).center().x()
    assert panel.rowWarn.path().contains(QtCore.QPointF(strip_x, 2.5))
    assert not panel.rowWarn.path().contains(QtCore.QPointF(strip_x, 1.5))
    assert panel.shown_row_notes == [(2, "no key left: weights 0, output 0")]
    note = next(item for item in panel.rowNotes.items if item.isVisible())
    assert note.textItem.toPlainText() == "no key left: weights 0, output 0"
    assert "no key left" in panel.sumNote.text().lower() and s.scenario.tokens[2] in panel.sumNote.text()
    assert [t for _, t in panel.open_key_labels] == ["3", "3", "0"]
    # the strip writes its sums; the red cell covers row 2's and says 0 in red on top
    shown_sums = {i + 0.5: text for i, _j, text in panel.rowSumImage.number_texts() if i != 2}
    shown_sums.update({item.pos().y(): item.textItem.toPlainText()
                       for item in panel.rowWarnTexts.items if item.isVisible()})
    assert shown_sums == {0.5: "1.00", 1.5: "1.00", 2.5: "0"}
    assert panel.rowWarn.zValue() > panel.rowSumImage.zValue()
    panel.image.hover_at(panel.scene_pos_of(2, 1))
    assert "No key is left in this row" in panel.hover_text
    # in the grid the note still fits (shorter if need be) and the picture draws
    panel.resize(*IN_GRID)
    settle(qtbot)
    assert panel.shown_row_notes and panel.shown_row_notes[0][0] == 2
    panel.grab()
    s.undo_stack.undo()
    settle(qtbot)
    assert s.scenario.blocked == ((2, 0), (2, 1))
    assert panel.shown_row_notes == [] and panel.rowWarn.path().isEmpty()
    assert "add up to 1" in panel.sumNote.text() and "no key" not in panel.sumNote.text().lower()
    assert [t for _, t in panel.open_key_labels] == ["3", "3", "1"]


def test_causal_button_follows_and_sets_the_option(panel, qtbot):
    s = panel.session
    causal = panel.findChild(QtWidgets.QToolButton, "maskCausal")
    assert not s.scenario.causal and not causal.isChecked() and causal.isEnabled()
    press(qtbot, panel, "maskCausal")
    assert s.scenario.causal and causal.isChecked()
    for i in range(3):
        for j in range(3):
            assert covered(panel.image.mask_path(MASK_CAUSAL), i, j) == (j > i)
    np.testing.assert_allclose(panel.image.image, reference_weights(s.scenario, causal=True), atol=1e-12)
    s.set_option(causal=False)  # elsewhere (the options editor): the button follows
    settle(qtbot)
    assert not causal.isChecked() and panel.image.mask_path().isEmpty()
    s.undo_stack.undo()
    settle(qtbot)
    assert s.scenario.causal and causal.isChecked()
    # clear keeps the causal option (it is an option, not a drawn mask)
    press(qtbot, panel, "maskModeBlock")
    click_cell(qtbot, panel, 2, 0)
    press(qtbot, panel, "maskClear")
    assert s.scenario.causal and s.scenario.blocked == ()


def test_head_shown_in_the_colour_bar_title(panel, qtbot):
    s = panel.session
    bar = panel.colorbar.getAxis("left")
    assert bar.labelText.startswith("weight") and "head" not in bar.labelText
    assert s.set_heads(2)
    s.set_head(1)
    settle(qtbot)
    assert "head 2 of 2" in bar.labelText
    assert s.result.head == 1
    np.testing.assert_array_equal(panel.image.image, s.result.weights)


def test_cross_attention_grid(panel, qtbot):
    s = panel.session
    n = s.scenario.n
    panel.resize(*ALONE)
    settle(qtbot)
    assert s.set_source("le chat noir dort")
    settle(qtbot)
    result = s.result
    assert panel.image.image.shape == (n, 4)
    np.testing.assert_allclose(panel.image.image, reference_weights(s.scenario), atol=1e-12)
    assert [t for _, t in panel.x_tick_labels[:-1]] == ["le", "chat", "noir", "dort"]
    assert [t for _, t in panel.y_tick_labels] == list(result.tokens)
    assert "source" in panel.plot.getAxis("bottom").labelText
    assert "target" in panel.plot.getAxis("left").labelText
    for i in range(n):
        for j in range(4):
            assert panel.image.cell_at(panel.scene_pos_of(i, j)) == (i, j)
    click_cell(qtbot, panel, 2, 3)
    assert (s.selection.query, s.selection.key) == (2, 3)
    assert panel.image.outlines["cell"].rect == QtCore.QRectF(3, 2, 1, 1)
    panel.image.hover_at(panel.scene_pos_of(0, 3))
    assert panel.hover_text == explain.weight(result, 0, 3).text
    assert "'dort'" in panel.canvas.toolTip()

    # no causal mask across two sentences: the button says why it is off
    causal = panel.findChild(QtWidgets.QToolButton, "maskCausal")
    assert not causal.isEnabled() and "cross-attention" in causal.toolTip()
    # padding marks a source token
    press(qtbot, panel, "maskModePadding")
    click_at(qtbot, panel, panel.scene_pos_of_key_label(3))
    assert s.scenario.padding == (3,)
    np.testing.assert_allclose(panel.image.image, reference_weights(s.scenario, padding=[3]), atol=1e-12)
    assert dict(panel.x_tick_labels)[3.5] == "dort (pad)"

    # a longer target than source, focused, and back
    s.clear_masks()
    s.set_text("After a long rainy week the children finally played outside in the warm sun today")
    s.set_source("apres une longue semaine de pluie les enfants ont enfin joue dehors au soleil")
    settle(qtbot)
    n, m = s.result.n, s.result.n_keys
    assert n > m and panel.image.image.shape == (n, m)
    assert [t for _, t in panel.x_tick_labels[:-1]] == [short for short in
                                                        (t if len(t) <= 10 else t[:9] + "…"
                                                         for t in s.result.key_tokens)]
    assert len(panel.y_tick_labels) == n
    press(qtbot, panel, "maskModeSelect")
    click_cell(qtbot, panel, n - 1, m - 1)
    assert (s.selection.query, s.selection.key) == (n - 1, m - 1)
    panel.vb.setRange(xRange=(m - 3, m), yRange=(n - 3, n), padding=0)
    settle(qtbot)
    assert panel.x_step == 1 and panel.shown_numbers > 0

    # an empty source sentence: a hint instead of an empty grid
    s.set_source("")
    settle(qtbot)
    assert panel.showing_hint() and "source sentence" in panel.hint.text()
    s.set_source(None)
    settle(qtbot)
    assert not panel.showing_hint() and panel.image.image.shape == (n, n)
    assert "source" not in panel.plot.getAxis("bottom").labelText and causal.isEnabled()


def test_cross_attention_any_size(panel, qtbot):
    s = panel.session
    panel.resize(*ALONE)
    settle(qtbot)
    for n, m in [(1, 1), (1, 512), (512, 1), (7, 3)]:
        s.set_text(" ".join(f"t{i}" for i in range(n)))
        s.set_source(" ".join(f"s{j}" for j in range(m)))
        s.clear_masks()
        settle(qtbot)
        assert panel.image.image.shape == (n, m)
        assert panel.image.cell_at(panel.scene_pos_of(n - 1, m - 1)) == (n - 1, m - 1)
        s.toggle_padding(m - 1)
        settle(qtbot)
        assert np.all(np.isfinite(panel.image.image))
        assert covered(panel.image.mask_path(), n - 1, m - 1)
        panel.grab()


def test_512_tokens_with_masks(panel, qtbot):
    s = panel.session
    panel.resize(*ALONE)  # only this panel repaints
    settle(qtbot)
    s.set_text(" ".join(f"w{i}" for i in range(512)))
    settle(qtbot)
    sc = s.scenario.with_options(causal=True).with_padding(100).with_padding(300)
    sc = sc.with_blocked(0, 0)  # causal leaves row 0 one key: blocking it empties the row
    for k in range(5, 512, 9):
        sc = sc.with_blocked(k, k // 2)
    s.apply(sc, "many masks")
    settle(qtbot)
    result = s.result
    assert result.rows_without_keys[0] and result.rows_without_keys.sum() == 1
    np.testing.assert_array_equal(panel.image.image, result.weights)
    assert covered(panel.image.mask_path(MASK_CAUSAL), 10, 400)
    assert covered(panel.image.mask_path(MASK_PADDING), 400, 300)
    assert covered(panel.image.mask_path(MASK_BLOCKED), 14, 7)
    assert not covered(panel.image.mask_path(), 400, 5)
    assert "no key left" in panel.sumNote.text().lower()
    assert 2 <= len(panel.open_key_labels) <= 60
    assert 2 <= len(panel.x_tick_labels) <= 80  # thinned (upright names: every 10th)
    panel.show_result(result, s.selection)
    panel.grab()  # paints without error
    panel.resize(*IN_GRID)
    settle(qtbot)
    panel.grab()
    assert 2 <= len(panel.open_key_labels) <= 60
