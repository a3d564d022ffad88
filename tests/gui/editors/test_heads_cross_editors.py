"""The editors for heads, W^O and cross-attention, as a user drives them: the heads spin box, the head
chooser every panel follows, the W^O grid, the cross-attention switch and the source sentence box."""
import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from qkv_engine import session_format
from qkv_gui.editors import SentenceOptionsWidget

from tests.gui.conftest import IN_GRID, settle


def numpy_weights(s, head=0):
    """Head ``head``'s weights, sliced and computed with numpy (rows over keys, no masks)."""
    dk, dv = s.d_k, s.d_v
    kx = s.x if s.source_x is None else s.source_x
    q = s.x @ s.w_q[:, head * dk:(head + 1) * dk]
    k = kx @ s.w_k[:, head * dk:(head + 1) * dk]
    z = q @ k.T / (np.sqrt(dk) if s.scale else 1.0) / s.temperature
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True), dv


@pytest.fixture
def editors(make_panel):
    """The editors of the window's left side (sentence and options, token and source tables, weight grids)
    and, on the same Session, the heatmap in the frame the panel grid gives it (title bar and all)."""
    from qkv_gui.editors import InputsWidget
    from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel
    from qkv_gui.window.panel_grid import PanelFrame

    inputs = make_panel(InputsWidget, size=(460, 1000))
    inputs.frame = make_panel(lambda s: PanelFrame(HeatmapPanel(s)), session=inputs.session, size=IN_GRID)
    return inputs


def heatmap_image(editors):
    return np.asarray(editors.frame.panel.image.image)


def test_heads_spin_splits_the_grids_and_the_head_chooser_drives_every_panel(editors, qtbot):
    opts = editors.findChild(QtWidgets.QWidget, "headsSpin").parent()
    spin = editors.findChild(QtWidgets.QSpinBox, "headsSpin")
    combo = editors.findChild(QtWidgets.QComboBox, "headCombo")
    assert not combo.isEnabled()
    spin.setValue(3)
    settle()
    s = editors.session.scenario
    assert s.n_heads == 3 and s.w_q.shape[1] == 3 * s.d_k
    assert combo.isEnabled() and combo.count() == 3
    grid_q = editors.findChild(QtWidgets.QTableView, "weightsQ")
    assert grid_q.model().columnCount() == 3 * s.d_k
    assert grid_q.model().headerData(s.d_k, QtCore.Qt.Orientation.Horizontal).endswith("h2\u00b7q1")
    w_o = editors.findChild(QtWidgets.QTableView, "weightsO")
    assert w_o.isVisible() and w_o.model().rowCount() == 3 * s.d_v and w_o.model().columnCount() == s.d_model
    combo.setCurrentIndex(2)
    settle()
    assert editors.session.head == 2
    expected, _ = numpy_weights(s, 2)
    assert np.allclose(heatmap_image(editors), expected, atol=1e-12)
    assert editors.frame.objectName() == "frame_heatmapPanel"
    assert "head 3 of 3" in editors.frame.titleLabel.text()
    assert opts is not None


def test_editing_w_o_changes_the_projected_output_and_one_head_removes_it(editors, qtbot):
    session = editors.session
    session.set_heads(2)
    settle()
    model = editors.findChild(QtWidgets.QTableView, "weightsO").model()
    assert model.setData(model.index(1, 0), "0.5")
    settle()
    s = session.scenario
    assert s.w_o[1, 0] == 0.5
    full = session.full_result
    assert np.allclose(full.projected, full.concat @ s.w_o)
    assert not model.setData(model.index(0, 0), "abc")  # refused, the old value kept
    assert session.scenario.w_o[0, 0] == s.w_o[0, 0]
    editors.findChild(QtWidgets.QSpinBox, "headsSpin").setValue(1)
    settle()
    assert session.scenario.w_o is None
    assert not editors.findChild(QtWidgets.QTableView, "weightsO").isVisible()
    session.undo_stack.undo()
    settle()
    assert session.scenario.n_heads == 2


def test_cross_attention_switch_starts_from_the_sentence_itself_and_the_source_box_edits_it(editors, qtbot):
    session = editors.session
    before = heatmap_image(editors).copy()
    check = editors.findChild(QtWidgets.QCheckBox, "crossCheck")
    source = editors.findChild(QtWidgets.QLineEdit, "sourceEdit")
    causal = editors.findChild(QtWidgets.QCheckBox, "causalCheck")
    assert not source.isVisible()
    check.setChecked(True)
    settle()
    s = session.scenario
    assert s.is_cross and s.source_tokens == s.tokens
    assert source.isVisible() and not causal.isEnabled()
    assert np.allclose(heatmap_image(editors), before)  # with itself, cross is self-attention
    source.setText("")
    qtbot.keyClicks(source, "le chat noir dort")
    settle()
    s = session.scenario
    assert s.source_tokens == ("le", "chat", "noir", "dort")
    table = editors.findChild(QtWidgets.QTableView, "sourceTable")
    assert table.isVisible() and table.model().rowCount() == 4
    assert table.model().data(table.model().index(3, 0)) == "dort"
    result = session.result
    assert result.weights.shape == (s.n, 4)
    expected, _ = numpy_weights(s)
    assert np.allclose(result.weights, expected, atol=1e-12)
    assert np.allclose(heatmap_image(editors), expected, atol=1e-12)
    # a source embedding edit reaches the keys
    assert table.model().setData(table.model().index(0, 1), "0.9")
    settle()
    assert session.scenario.source_x[0, 0] == 0.9
    check.setChecked(False)
    settle()
    assert not session.scenario.is_cross and causal.isEnabled() and not table.isVisible()


def test_selection_key_is_clamped_to_the_source_length(make_session):
    session = make_session()
    session.set_source("a b c d e f")
    settle()
    session.select(query=0, key=5)
    assert session.selection.key == 5
    session.set_source("a b")
    settle()
    assert session.selection.key == 1


def test_masks_are_one_undo_step_each(make_session):
    session = make_session()
    s0 = session.scenario
    session.toggle_padding(1)
    session.toggle_blocked(0, 0)
    settle()
    s = session.scenario
    assert s.padding == (1,) and s.blocked == ((0, 0),)
    assert session.result.weights[:, 1].tolist() == [0.0] * s.n
    session.undo_stack.undo()
    session.undo_stack.undo()
    settle()
    assert session.scenario == s0


def test_session_file_keeps_heads_source_masks_and_the_chosen_head(make_session, make_panel, tmp_path):
    # What File → Save writes (the scenario and the session's view) and File → Open gives back to a Session.
    session = make_session()
    session.set_heads(2)
    session.set_source("le chat noir")
    session.toggle_padding(2)
    settle()
    session.set_head(1)
    settle()
    path = tmp_path / "multi.qkv.json"
    session_format.save_file(path, session.scenario, session.view_state())
    scenario, view = session_format.load_file(path)
    assert scenario == session.scenario and view["head"] == 1
    other = make_session()
    options = make_panel(SentenceOptionsWidget, session=other, size=(400, 600))
    other.set_scenario(scenario, view=view)
    settle()
    assert other.scenario == session.scenario and other.head == 1
    combo = options.findChild(QtWidgets.QComboBox, "headCombo")
    assert combo.currentIndex() == 1
