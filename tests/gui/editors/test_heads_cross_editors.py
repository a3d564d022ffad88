"""The editors for heads, W^O and cross-attention, as a user drives them: the heads spin box, the head
chooser every panel follows, the W^O grid, the cross-attention switch and the source sentence box."""
import numpy as np
from PySide6 import QtCore, QtWidgets

from qkv_engine import session_format

from tests.gui.conftest import settle


def numpy_weights(s, head=0):
    """Head ``head``'s weights, sliced and computed with numpy (rows over keys, no masks)."""
    dk, dv = s.d_k, s.d_v
    kx = s.x if s.source_x is None else s.source_x
    q = s.x @ s.w_q[:, head * dk:(head + 1) * dk]
    k = kx @ s.w_k[:, head * dk:(head + 1) * dk]
    z = q @ k.T / (np.sqrt(dk) if s.scale else 1.0) / s.temperature
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True), dv


def heatmap_image(window):
    return np.asarray(window.panels["heatmapPanel"].image.image)


def test_heads_spin_splits_the_grids_and_the_head_chooser_drives_every_panel(window, qtbot):
    opts = window.findChild(QtWidgets.QWidget, "headsSpin").parent()
    spin = window.findChild(QtWidgets.QSpinBox, "headsSpin")
    combo = window.findChild(QtWidgets.QComboBox, "headCombo")
    assert not combo.isEnabled()
    spin.setValue(3)
    settle()
    s = window.session.scenario
    assert s.n_heads == 3 and s.w_q.shape[1] == 3 * s.d_k
    assert combo.isEnabled() and combo.count() == 3
    grid_q = window.findChild(QtWidgets.QTableView, "weightsQ")
    assert grid_q.model().columnCount() == 3 * s.d_k
    assert grid_q.model().headerData(s.d_k, QtCore.Qt.Orientation.Horizontal).endswith("h2\u00b7q1")
    w_o = window.findChild(QtWidgets.QTableView, "weightsO")
    assert w_o.isVisible() and w_o.model().rowCount() == 3 * s.d_v and w_o.model().columnCount() == s.d_model
    combo.setCurrentIndex(2)
    settle()
    assert window.session.head == 2
    expected, _ = numpy_weights(s, 2)
    assert np.allclose(heatmap_image(window), expected, atol=1e-12)
    frame = window.findChild(QtWidgets.QFrame, "frame_heatmapPanel")
    assert "head 3 of 3" in frame.titleLabel.text()
    assert opts is not None


def test_editing_w_o_changes_the_projected_output_and_one_head_removes_it(window, qtbot):
    window.session.set_heads(2)
    settle()
    model = window.findChild(QtWidgets.QTableView, "weightsO").model()
    assert model.setData(model.index(1, 0), "0.5")
    settle()
    s = window.session.scenario
    assert s.w_o[1, 0] == 0.5
    full = window.session.full_result
    assert np.allclose(full.projected, full.concat @ s.w_o)
    assert not model.setData(model.index(0, 0), "abc")  # refused, the old value kept
    assert window.session.scenario.w_o[0, 0] == s.w_o[0, 0]
    window.findChild(QtWidgets.QSpinBox, "headsSpin").setValue(1)
    settle()
    assert window.session.scenario.w_o is None
    assert not window.findChild(QtWidgets.QTableView, "weightsO").isVisible()
    window.session.undo_stack.undo()
    settle()
    assert window.session.scenario.n_heads == 2


def test_cross_attention_switch_starts_from_the_sentence_itself_and_the_source_box_edits_it(window, qtbot):
    before = heatmap_image(window).copy()
    check = window.findChild(QtWidgets.QCheckBox, "crossCheck")
    source = window.findChild(QtWidgets.QLineEdit, "sourceEdit")
    causal = window.findChild(QtWidgets.QCheckBox, "causalCheck")
    assert not source.isVisible()
    check.setChecked(True)
    settle()
    s = window.session.scenario
    assert s.is_cross and s.source_tokens == s.tokens
    assert source.isVisible() and not causal.isEnabled()
    assert np.allclose(heatmap_image(window), before)  # with itself, cross is self-attention
    source.setText("")
    qtbot.keyClicks(source, "le chat noir dort")
    settle()
    s = window.session.scenario
    assert s.source_tokens == ("le", "chat", "noir", "dort")
    table = window.findChild(QtWidgets.QTableView, "sourceTable")
    assert table.isVisible() and table.model().rowCount() == 4
    assert table.model().data(table.model().index(3, 0)) == "dort"
    result = window.session.result
    assert result.weights.shape == (s.n, 4)
    expected, _ = numpy_weights(s)
    assert np.allclose(result.weights, expected, atol=1e-12)
    # a source embedding edit reaches the keys
    assert table.model().setData(table.model().index(0, 1), "0.9")
    settle()
    assert window.session.scenario.source_x[0, 0] == 0.9
    check.setChecked(False)
    settle()
    assert not window.session.scenario.is_cross and causal.isEnabled() and not table.isVisible()


def test_selection_key_is_clamped_to_the_source_length(window, qtbot):
    window.session.set_source("a b c d e f")
    settle()
    window.session.select(query=0, key=5)
    assert window.session.selection.key == 5
    window.session.set_source("a b")
    settle()
    assert window.session.selection.key == 1


def test_masks_are_one_undo_step_each(window, qtbot):
    s0 = window.session.scenario
    window.session.toggle_padding(1)
    window.session.toggle_blocked(0, 0)
    settle()
    s = window.session.scenario
    assert s.padding == (1,) and s.blocked == ((0, 0),)
    assert window.session.result.weights[:, 1].tolist() == [0.0] * s.n
    window.session.undo_stack.undo()
    window.session.undo_stack.undo()
    settle()
    assert window.session.scenario == s0


def test_session_file_keeps_heads_source_masks_and_the_chosen_head(window, qtbot, tmp_path, make_window):
    session = window.session
    session.set_heads(2)
    session.set_source("le chat noir")
    session.toggle_padding(2)
    settle()
    session.set_head(1)
    settle()
    path = tmp_path / "multi.qkv.json"
    assert window.save_as(path)
    scenario, view = session_format.load_file(path)
    assert scenario == session.scenario and view["head"] == 1
    other = make_window()
    assert other.open_file(path)
    settle()
    assert other.session.scenario == session.scenario and other.session.head == 1
    combo = other.findChild(QtWidgets.QComboBox, "headCombo")
    assert combo.currentIndex() == 1
