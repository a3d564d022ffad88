"""Experiment · Learn the weights: set a target, train with the timer while the panels follow, pause,
one step, reset, random start; the whole run is one undo step; the target is outlined on the heatmaps."""
import numpy as np
import pytest
from PySide6 import QtCore

from qkv_engine import compute, training
from qkv_engine.scenario import head_grids
from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel
from qkv_gui.drawing.target_look import PREFIX
from qkv_gui.panels.labs.train_panel import TrainPanel

from tests.gui.conftest import settle

Qt = QtCore.Qt
IT, ANIMAL = 7, 1  # 'it' and 'animal' in the designed example


def random_start(session, seed=3):
    """The designed example with random W^Q and W^K: a model before it has learned."""
    s = session.scenario
    session.apply(s.with_options(w_q=head_grids("q", s.d_model, s.d_k, 1, seed),
                                 w_k=head_grids("k", s.d_model, s.d_k, 1, seed)), "random start")
    settle()


@pytest.fixture
def panel(make_panel):
    p = make_panel(TrainPanel, preset="designed-it", size=(520, 760))
    random_start(p.session)
    return p


def points(panel) -> int:
    """How many points the loss curve draws."""
    x, _y = panel.curve.getData()
    return 0 if x is None else len(x)


def wait_for_run(qtbot, panel, timeout=20000):
    qtbot.waitUntil(lambda: not panel.running, timeout=timeout)
    settle()


def test_training_it_towards_animal_from_random_weights_reaches_the_target_in_one_undo_step(panel, qtbot):
    session = panel.session
    start = session.scenario
    assert compute(start).weights[IT, ANIMAL] < 0.2
    count = session.undo_stack.count()
    panel.queryCombo.setCurrentIndex(IT)
    panel.keyCombo.setCurrentIndex(ANIMAL)
    qtbot.mouseClick(panel.setButton, Qt.MouseButton.LeftButton)
    assert np.array_equal(session.train_target, training.look_at(start, "it", "animal"))
    qtbot.mouseClick(panel.trainButton, Qt.MouseButton.LeftButton)
    assert panel.running and panel.steps_done < panel.stepsSpin.value()  # the timer runs it, not a loop
    wait_for_run(qtbot, panel)
    assert panel.steps_done == panel.stepsSpin.value()
    s = session.scenario
    assert compute(s).weights[IT, ANIMAL] > 0.8
    assert session.result.weights[IT, ANIMAL] > 0.8  # what every panel draws
    assert np.array_equal(s.w_q, np.round(s.w_q, 2))  # rounded to the grids' decimals when it stops
    assert np.array_equal(s.x, start.x) and np.array_equal(s.w_v, start.w_v)  # only W^Q and W^K learned
    assert session.undo_stack.count() == count + 1 and session.undo_stack.undoText() == "learn the weights"
    session.undo_stack.undo()
    settle()
    assert session.scenario == start


def test_the_loss_curve_has_one_point_per_step_and_falls(panel, qtbot):
    start = panel.session.scenario
    panel.stepsSpin.setValue(12)
    panel.queryCombo.setCurrentIndex(IT)
    panel.keyCombo.setCurrentIndex(ANIMAL)
    panel.set_target_from_combos()
    qtbot.mouseClick(panel.trainButton, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, panel)
    x, y = panel.curve.getData()
    assert len(x) == len(y) == panel.steps_done == 12 == len(panel.losses)
    assert list(x) == list(range(1, 13))
    assert y[-1] < y[0]
    # the first point is the loss at the start, worked out here on its own: -log of the target's weight
    q = start.x @ start.w_q
    k = start.x @ start.w_k
    scores = q[IT] @ k.T / np.sqrt(start.d_k)
    weight = np.exp(scores[ANIMAL] - scores.max()) / np.exp(scores - scores.max()).sum()
    assert y[0] == pytest.approx(-np.log(weight), rel=1e-9)
    state = panel.session.lab_state["train"]
    assert state["steps"] == 12 and state["losses"] == panel.losses and state["loss_start"] == y[0]


def test_pause_one_step_and_reset(panel, qtbot):
    session = panel.session
    start = session.scenario
    count = session.undo_stack.count()
    panel.queryCombo.setCurrentIndex(IT)
    panel.keyCombo.setCurrentIndex(ANIMAL)
    target = training.look_at(start, "it", "animal")
    first_loss = training.loss(start, target)
    qtbot.mouseClick(panel.stepButton, Qt.MouseButton.LeftButton)  # no target yet: the boxes give it
    settle()
    assert panel.steps_done == 1 and panel.losses == [pytest.approx(first_loss, rel=1e-12)]
    assert session.scenario != start and not panel.running
    assert panel.curve.getData()[0].tolist() == [1.0]
    panel.stepsSpin.setValue(500)
    qtbot.mouseClick(panel.trainButton, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.steps_done >= 4, timeout=5000)
    qtbot.mouseClick(panel.trainButton, Qt.MouseButton.LeftButton)  # Pause
    settle()
    paused_at = panel.steps_done
    assert not panel.running and 4 <= paused_at < 500 and panel.trainButton.text().startswith("Train")
    qtbot.wait(200)
    assert panel.steps_done == paused_at  # nothing moves while paused
    learned = session.scenario
    qtbot.mouseClick(panel.stepButton, Qt.MouseButton.LeftButton)
    assert panel.steps_done == paused_at + 1 and points(panel) == paused_at + 1
    assert session.undo_stack.count() == count + 1  # the steps, the run and the one step: one undo step
    assert session.scenario != learned
    qtbot.mouseClick(panel.resetButton, Qt.MouseButton.LeftButton)
    settle()
    assert session.scenario == start and session.undo_stack.count() == count  # back where it started
    assert panel.losses == [] and points(panel) == 0


def test_an_edit_during_a_run_ends_it_and_keeps_what_was_learned(panel, qtbot):
    session = panel.session
    panel.set_target_from_combos()
    panel.stepsSpin.setValue(2000)
    qtbot.mouseClick(panel.trainButton, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.steps_done >= 3, timeout=5000)
    count = session.undo_stack.count()
    assert session.set_cell("w_v", 0, 0, 0.5)
    settle()
    assert not panel.running and panel._run is None
    assert session.undo_stack.count() == count + 1
    session.undo_stack.undo()  # the edit, then the run so far
    session.undo_stack.undo()
    settle()
    assert session.scenario.w_v[0, 0] != 0.5


def test_clicked_cells_make_the_target_outlined_here_and_on_the_main_heatmap(make_panel, qtbot):
    panel = make_panel(TrainPanel, preset="designed-adjective-noun", size=(520, 760))
    heatmap = make_panel(HeatmapPanel, session=panel.session)
    session = panel.session
    panel.toggle_cell(1, 3)  # 'small' -> 'dog'
    panel.toggle_cell(1, 4)  # and 'barks': the row shares its target
    settle()
    assert session.train_target[1, 3] == session.train_target[1, 4] == 0.5
    for grid in (panel.image, heatmap.image):
        names = {n for n in grid.outlines if n.startswith(PREFIX)}
        assert names == {f"{PREFIX}1,3", f"{PREFIX}1,4"}
        outline = grid.outlines[f"{PREFIX}1,3"]
        assert outline.rect == QtCore.QRectF(3, 1, 1, 1) and outline.dashed
    panel.toggle_cell(1, 4)
    settle()
    assert {n for n in heatmap.image.outlines if n.startswith(PREFIX)} == {f"{PREFIX}1,3"}
    assert "'small' \u2192 'dog'" in panel.status.text()
    assert "target" in heatmap.sumNote.text()  # the heatmap says what the dashed outlines are
    session.set_text("A big dog barks")  # other tokens: the target goes with them
    settle()
    assert session.train_target is None
    assert not any(n.startswith(PREFIX) for n in heatmap.image.outlines)
    assert "target" not in heatmap.sumNote.text()


def test_a_clicked_cell_on_the_grid_of_the_panel_toggles_it(panel, qtbot):
    view = panel.canvas
    grid = panel.image
    point = grid.mapToScene(QtCore.QPointF(ANIMAL + 0.5, IT + 0.5))
    pos = view.mapFromScene(point)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    settle()
    assert panel.session.train_target is not None and panel.session.train_target[IT, ANIMAL] == 1.0


def test_a_masked_target_is_refused_with_a_reason(make_panel):
    panel = make_panel(TrainPanel, preset="designed-it", size=(520, 760))
    panel.session.set_option(causal=True)
    settle()
    assert not panel.toggle_cell(1, IT)  # 'animal' cannot look ahead at 'it'
    assert panel.session.train_target is None and "a mask hides it" in panel.status.text()


def test_w_v_learns_towards_a_target_output(make_panel, qtbot):
    panel = make_panel(TrainPanel, preset="designed-it", size=(520, 760))
    session = panel.session
    start = session.scenario
    panel.queryCombo.setCurrentIndex(IT)
    panel.keyCombo.setCurrentIndex(ANIMAL)
    panel.learnChecks["w_q"].setChecked(False)
    panel.learnChecks["w_k"].setChecked(False)
    panel.learnChecks["w_v"].setChecked(True)
    assert panel.outputEdit.isVisible()
    panel.outputEdit.setText("1, 2, 3")
    assert not panel.one_step() and "type 2 numbers" in panel.status.text()
    panel.outputEdit.setText("1, 0")  # 'it' should say: animate, not a noun
    panel.stepsSpin.setValue(40)
    panel.lrSpin.setValue(0.5)
    qtbot.mouseClick(panel.trainButton, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, panel)
    s = session.scenario
    out = compute(s).output[IT]
    before = compute(start).output[IT]
    assert np.abs(out - [1.0, 0.0]).sum() < np.abs(before - [1.0, 0.0]).sum() / 4
    assert np.array_equal(s.w_q, start.w_q) and np.array_equal(s.w_k, start.w_k)


def test_random_start_draws_new_w_q_and_w_k_as_one_undo_step(panel):
    session = panel.session
    before = session.scenario
    assert panel.random_start()
    settle()
    s = session.scenario
    assert not np.array_equal(s.w_q, before.w_q) and not np.array_equal(s.w_k, before.w_k)
    assert np.array_equal(s.w_v, before.w_v) and np.array_equal(s.x, before.x)
    assert session.undo_stack.undoText() == "random W^Q and W^K"


def test_a_trained_model_shows_a_hint_and_cannot_be_trained(panel):
    from qkv_engine.models import load_model
    from tests.engine.model_files import TINY_BERT

    session = panel.session
    session.open_model(load_model(TINY_BERT), text="the cat sat")
    settle()
    try:
        assert panel.showing_hint() and "hand-made examples" in panel.hint.text()
        count = session.undo_stack.count()
        assert not panel.train() and not panel.running and session.undo_stack.count() == count
        assert "hand-made examples" in session.messages[-1]
    finally:
        session.runner.shutdown()


def test_a_fresh_copy_draws_the_same_curve(panel, qtbot):
    panel.stepsSpin.setValue(6)
    panel.set_target_from_combos()
    qtbot.mouseClick(panel.trainButton, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, panel)
    copy = TrainPanel(panel.session)
    try:
        assert copy.losses == panel.losses and copy.steps_done == 6
        copy.refresh()
        assert copy.curve.getData()[1].tolist() == panel.curve.getData()[1].tolist()
    finally:
        copy.detach()
        copy.deleteLater()


# ----- the session's part ------------------------------------------------------------------------------
def test_every_step_of_a_run_merges_into_one_undo_step_and_back_to_the_start_leaves_none(make_session):
    session = make_session("designed-it")
    start = session.scenario
    count = session.undo_stack.count()
    run = object()
    a = start.with_cell("w_q", 0, 0, 1.5)
    b = a.with_cell("w_k", 1, 1, -0.5)
    assert session.train_to(a, run) and session.train_to(b, run)
    assert session.scenario is b and session.undo_stack.count() == count + 1
    session.undo_stack.undo()
    assert session.scenario == start
    session.undo_stack.redo()
    assert session.scenario == b
    assert session.set_cell("w_v", 0, 0, 0.25)  # an edit in between: the run's next step is a new undo step
    c = session.scenario.with_cell("w_q", 0, 0, 2.0)
    session.train_to(c, run)
    assert session.undo_stack.count() == count + 3
    other = object()
    session.train_to(c.with_cell("w_q", 0, 0, 3.0), other)
    session.train_to(c, other)  # that run went back to where it started: no step left
    assert session.undo_stack.count() == count + 3 and session.scenario == c


def test_the_target_is_checked_and_goes_when_the_tokens_change(make_session):
    session = make_session("designed-it")
    seen = []
    session.trainTargetChanged.connect(seen.append)
    with pytest.raises(ValueError, match="11 x 11"):
        session.set_train_target(np.ones((3, 3)))
    target = training.look_at(session.scenario, "it", "animal")
    session.set_train_target(target)
    session.set_train_target(target.copy())  # the same target again: no signal
    assert len(seen) == 1 and not session.train_target.flags.writeable
    assert session.set_cell("x", 0, 0, 0.5)  # the tokens stay: so does the target
    assert session.train_target is not None
    session.set_text("The animal didn't cross the road because it was too tired")
    assert session.train_target is None and seen[-1] is None

