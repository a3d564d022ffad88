"""The √d_k lab: opened from the Experiments menu, its pictures and words show the engine's numbers."""
from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine.scaling_lab import scaling_lab
from qkv_gui.look import style

from tests.gui.conftest import settle


#: The lab's size in its dock, opened alone beside a 1600 x 1000 window.
IN_DOCK = (512, 913)


@pytest.fixture
def lab(make_panel):
    """The lab on its own Session (the app's default example), at its size in its dock."""
    from qkv_gui.panels.labs.scaling_lab import ScalingLabPanel

    return make_panel(ScalingLabPanel, size=IN_DOCK)


@pytest.fixture
def docked_lab(window, qtbot):
    """The lab opened from the window's Experiments menu."""
    menu = window.experimentsMenu
    (act,) = [a for a in menu.actions() if a.text() == "√d_k lab"]
    act.trigger()
    settle()
    dock = window.findChild(QtWidgets.QDockWidget, "dockScalingLab")
    assert dock is not None and dock.isVisible()
    panel = dock.widget()
    assert panel.objectName() == "scalingLabPanel"
    return panel


def slider(panel):
    return panel.findChild(QtWidgets.QSlider, "labDkSlider")


def numbers(text: str) -> list:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", text)]


def test_menu_sits_after_view_and_dock_can_close_and_float(window, docked_lab):
    lab = docked_lab
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles.index("Experiments") == titles.index("&View") + 1
    F = QtWidgets.QDockWidget.DockWidgetFeature
    features = window.experiment_docks["dockScalingLab"].features()
    assert features & F.DockWidgetClosable and features & F.DockWidgetFloatable
    assert lab.title == "Lab · Why √d_k?" and not lab.showing_hint()


def test_histograms_draw_the_engines_counts_on_shared_bins(lab):
    expected = scaling_lab(lab.d_k, seed=lab.seed)
    for bars, counts in ((lab.raw_bars, expected.raw_counts), (lab.scaled_bars, expected.scaled_counts)):
        np.testing.assert_array_equal(bars.opts["height"], counts)
        np.testing.assert_allclose(bars.opts["x0"], expected.edges[:-1])
        np.testing.assert_allclose(np.asarray(bars.opts["x0"]) + np.asarray(bars.opts["width"]), expected.edges[1:])
    np.testing.assert_allclose(lab.raw_row_bars.opts["height"], expected.raw_row.weights)
    np.testing.assert_allclose(lab.scaled_row_bars.opts["height"], expected.scaled_row.weights)
    xs, ys = lab.sweep_lines["grad"][0].getData()
    np.testing.assert_allclose(ys, expected.sweep.raw_max_jacobian)


def test_moving_the_slider_to_512_updates_the_numbers_shown(lab, qtbot):
    before = lab.hist_text["raw"].toPlainText()
    s = slider(lab)
    s.setFocus()
    qtbot.keyClick(s, QtCore.Qt.Key.Key_End)  # as a user would: End jumps the slider to its maximum
    settle()
    assert s.value() == 512 and lab.findChild(QtWidgets.QSpinBox, "labDkSpin").value() == 512
    expected = scaling_lab(512, seed=lab.seed)
    raw_text, scaled_text = lab.hist_text["raw"].toPlainText(), lab.hist_text["scaled"].toPlainText()
    assert raw_text != before
    assert numbers(raw_text)[:2] == [float(style.fmt(expected.raw_variance, 0)), 512.0]
    assert numbers(scaled_text.replace("√d_k", ""))[:2] == [float(style.fmt(expected.scaled_variance, 2)), 1.0]
    np.testing.assert_array_equal(lab.raw_bars.opts["height"], expected.raw_counts)
    mark = lab.dk_marks["weight"].line()  # log2(512): the sweep marks the chosen d_k, top to bottom
    assert mark.x1() == mark.x2() == pytest.approx(9.0) and mark.y1() < 0.0 and mark.y2() > 1.0


def test_caption_and_table_numbers_equal_the_engine_result(lab):
    lab.set_d_k(512)
    settle()
    r = scaling_lab(512, seed=lab.seed)
    caption = lab.findChild(QtWidgets.QLabel, "labCaption").text()
    got = numbers(caption.replace("d_k", "").replace("√", ""))
    want = [float(style.fmt(r.raw_variance, 0)), 512.0,
            float(style.fmt(r.raw_row.max_weight, 2)), float(style.fmt(r.raw_row.max_jacobian, 3)),
            1.0, float(style.fmt(r.scaled_variance, 2)),
            float(style.fmt(r.scaled_row.max_weight, 2)), float(style.fmt(r.scaled_row.max_jacobian, 3))]
    assert got == want
    table = QtGui.QTextDocumentFragment.fromHtml(lab.findChild(QtWidgets.QLabel, "labTable").text()).toPlainText()
    for row in (r.raw_row, r.scaled_row):
        for value, dec in ((row.max_weight, 2), (row.entropy, 2), (row.max_jacobian, 3)):
            assert style.fmt(value, dec) in table
    # the picture tells the story: unscaled softmax is nearly one-hot with a vanishing gradient
    assert r.raw_row.max_weight > 0.9 and r.raw_row.max_jacobian < 0.01 < r.scaled_row.max_jacobian


def test_seed_is_shown_and_changes_the_draws(lab):
    seed_spin = lab.findChild(QtWidgets.QSpinBox, "labSeedSpin")
    assert seed_spin.value() == lab.seed
    seed_spin.setValue(7)
    settle()
    np.testing.assert_array_equal(lab.raw_bars.opts["height"], scaling_lab(lab.d_k, seed=7).raw_counts)


def test_dragging_recomputes_at_most_once_per_event_loop_turn(lab):
    s = slider(lab)
    count = lab.recompute_count
    for v in range(100, 200):  # a fast drag: many valueChanged before the loop turns
        s.setValue(v)
    assert lab.recompute_count == count
    settle()
    assert lab.recompute_count == count + 1 and lab.lab.d_k == 199
    assert lab.last_update_ms < 50


def test_sentence_changes_do_not_touch_the_lab(lab):
    count, painted = lab.recompute_count, lab.paint_count
    lab.session.set_text("")
    settle()
    assert not lab.showing_hint() and lab.recompute_count == count and lab.paint_count == painted


def test_panel_renders_offscreen_to_a_png(lab, tmp_path):
    lab.set_d_k(64)
    settle()
    path = tmp_path / "lab.png"
    assert lab.grab().save(str(path))
    image = QtGui.QImage(str(path))
    assert image.width() >= 300 and image.height() >= 500
    grey = image.convertToFormat(QtGui.QImage.Format.Format_Grayscale8)
    a = np.frombuffer(grey.constBits(), np.uint8).reshape(grey.height(), grey.bytesPerLine())
    assert a.std() > 20  # a picture, not a blank page
    assert path.stat().st_size > 10_000


def test_open_experiment_docks_come_back_at_the_next_start(make_window, settings):
    first = make_window()
    first.open_experiment("dockScalingLab")
    first.open_experiment("dockCompare")
    settle()
    first.experiment_docks["dockScalingLab"].widget().set_d_k(128)
    first.experiment_docks["dockCompare"].close()  # closed by the user: it stays closed
    settle()
    assert first.close()
    assert settings.value("window/experiments") in (["dockScalingLab"], "dockScalingLab")

    second = make_window()
    settle()
    dock = second.findChild(QtWidgets.QDockWidget, "dockScalingLab")
    assert dock is not None and dock.isVisible() and not dock.isFloating()
    assert second.dockWidgetArea(dock) == QtCore.Qt.DockWidgetArea.RightDockWidgetArea
    assert dock.widget().objectName() == "scalingLabPanel" and not dock.widget().showing_hint()
    assert "dockCompare" not in second.experiment_docks
    dock.close()
    settle()
    assert second.close()

    third = make_window()  # nothing open at the last close: nothing comes back
    settle()
    assert third.experiment_docks == {}


def test_a_fresh_lab_shows_the_d_k_and_seed_of_the_one_on_screen(lab):
    from qkv_gui.panels.labs.scaling_lab import ScalingLabPanel

    lab.set_d_k(300)
    lab.findChild(QtWidgets.QSpinBox, "labSeedSpin").setValue(11)
    assert lab.session.lab_state["scaling_lab"] == {"d_k": 300, "seed": 11}  # at once, before the recompute
    fresh = ScalingLabPanel(lab.session)
    try:
        assert (fresh.d_k, fresh.seed) == (300, 11)
        np.testing.assert_array_equal(fresh.lab.raw_counts, scaling_lab(300, seed=11).raw_counts)
    finally:
        fresh.deleteLater()
    lab.session.lab_state["scaling_lab"] = {"d_k": "lots", "seed": None}  # anything odd: the defaults
    odd = ScalingLabPanel(lab.session)
    try:
        assert (odd.d_k, odd.seed) == (64, 0)
    finally:
        odd.deleteLater()
