"""After an edit the panels take the new numbers a few at a time, one group per turn of the event loop, so
that a key pressed meanwhile is read between them (``panels.update_queue``). Every panel still ends up
with the newest numbers, once for each edit it has not shown yet, and a window closed while panels wait
leaves nothing broken."""
import time

import numpy as np
import pytest
import shiboken6
from PySide6 import QtCore, QtWidgets

from qkv_gui.panels import update_queue
from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel

from tests.gui.conftest import settle


@pytest.fixture
def grid(make_grid):
    """The nine panels on one Session in the window's panel grid, all in sight."""
    return make_grid()


@pytest.fixture
def one_panel_a_turn(monkeypatch):
    """No time to spare in a turn: each turn of the event loop brings exactly one panel up to date."""
    monkeypatch.setattr(update_queue, "BUDGET_MS", 0.0)


def record_results(panels) -> dict:
    """name -> the results each panel has drawn, in order, from now on."""
    drawn = {p.object_name: [] for p in panels}
    for p in panels:
        show = p.show_result

        def recorded(result, selection, show=show, name=p.object_name):
            drawn[name].append(result)
            return show(result, selection)

        p.show_result = recorded
    return drawn


def nudge(grid, amount: float = 0.5) -> None:
    """A number of the selected query's row, changed (every panel shows it)."""
    s = grid.session
    i = s.selection.query
    s.set_cell("x", i, 0, float(s.scenario.x[i, 0]) + amount)


def test_the_event_loop_runs_between_the_panels_taking_an_edit(grid, qtbot, one_panel_a_turn):
    panels = [p for p in grid.panels.values() if p.in_view()]
    assert len(panels) == 9
    drawn = record_results(panels)
    up_to_date = lambda: sum(bool(drawn[p.object_name]) for p in panels)  # noqa: E731
    seen = []  # how many panels were up to date each time a 1 ms timer got a turn (as typing would)
    probe = QtCore.QTimer()
    probe.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
    probe.setInterval(1)
    probe.timeout.connect(lambda: seen.append(up_to_date()))
    probe.start()
    nudge(grid)
    qtbot.waitUntil(lambda: up_to_date() == len(panels) and not update_queue.waiting_anywhere(), timeout=5000)
    probe.stop()
    # the timer ran while some panels had the edit and others still waited: at least three times, at three
    # different stages
    between = {k for k in seen if 0 < k < len(panels)}
    assert len(between) >= 3, seen
    # and in the end each panel drew the edit once, from the session's result
    result = grid.session.result
    assert all(drawn[p.object_name] == [result] for p in panels)
    heatmap = grid.panels[HeatmapPanel.object_name]
    np.testing.assert_array_equal(heatmap.image.values, result.weights)


def test_with_time_to_spare_every_panel_takes_the_edit_in_the_turn_of_the_recompute(grid, monkeypatch):
    monkeypatch.setattr(update_queue, "BUDGET_MS", 1e9)
    panels = [p for p in grid.panels.values() if p.in_view()]
    drawn = record_results(panels)
    nudge(grid)
    QtWidgets.QApplication.processEvents()  # one turn: the recompute, and every panel
    assert all(drawn[p.object_name] == [grid.session.result] for p in panels)
    assert update_queue.waiting_anywhere() == 0


def test_a_turn_stops_taking_panels_when_its_time_is_spent(grid, monkeypatch):
    panels = [p for p in grid.panels.values() if p.in_view()]
    slow = panels[0]  # the first to follow the session
    show = slow.show_result

    def slow_show(result, selection):  # a panel that takes 30 ms to draw an edit
        show(result, selection)
        end = time.perf_counter() + 0.030
        while time.perf_counter() < end:
            pass

    slow.show_result = slow_show
    monkeypatch.setattr(update_queue, "BUDGET_MS", 20.0)
    drawn = record_results(panels)
    nudge(grid)
    QtWidgets.QApplication.processEvents()  # the recompute's turn: the slow panel spends its time
    assert [p.object_name for p in panels if drawn[p.object_name]] == [slow.object_name]
    assert update_queue.waiting_anywhere() == len(panels) - 1
    monkeypatch.setattr(update_queue, "BUDGET_MS", 1e9)
    QtWidgets.QApplication.processEvents()  # the next turn has time for all the others
    assert all(drawn[p.object_name] == [grid.session.result] for p in panels)
    assert update_queue.waiting_anywhere() == 0


def test_a_new_edit_while_panels_wait_reaches_every_panel_and_the_waiting_ones_once(grid, qtbot,
                                                                                  one_panel_a_turn):
    panels = [p for p in grid.panels.values() if p.in_view()]
    drawn = record_results(panels)
    nudge(grid)
    qtbot.waitUntil(lambda: sum(bool(d) for d in drawn.values()) >= 3, timeout=5000)
    first = grid.session.result
    early = {name for name, d in drawn.items() if d}
    assert len(early) < len(panels)
    nudge(grid, 0.25)
    settle()
    newest = grid.session.result
    assert newest is not first
    for p in panels:
        name = p.object_name
        # a panel that had drawn the first edit draws the second too; one still waiting draws only the newest
        assert drawn[name] == ([first, newest] if name in early else [newest]), name


def test_a_panel_deleted_or_a_window_closed_while_panels_wait_breaks_nothing(grid, one_panel_a_turn):
    panels = list(grid.panels.values())
    extra = HeatmapPanel(grid.session)  # a second heatmap on the grid's session, in a window of its own
    extra.resize(500, 400)
    extra.show()
    settle()
    nudge(grid)
    QtWidgets.QApplication.processEvents()  # the recompute: every panel waits its turn
    assert update_queue.waiting_anywhere() == 10
    extra.deleteLater()  # closed while it waits
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    assert not shiboken6.isValid(extra)
    QtWidgets.QApplication.processEvents()
    assert update_queue.waiting_anywhere() == 9  # one more took the edit
    grid.close()  # the panels' window closed
    settle()  # the turns go on: over the panels no longer shown, and over the one that is gone (an error in
    assert update_queue.waiting_anywhere() == 0  # a slot would fail the test)
    assert all(p.paint_count for p in panels)


def test_one_panel_alone_takes_an_edit_in_the_turn_of_the_recompute(make_panel):
    panel = make_panel(HeatmapPanel)
    before = panel.paint_count
    s = panel.session
    s.set_cell("x", 0, 0, float(s.scenario.x[0, 0]) + 0.5)
    QtWidgets.QApplication.processEvents()
    assert panel.paint_count == before + 1
    np.testing.assert_array_equal(panel.image.values, s.result.weights)


def test_a_new_head_of_a_model_is_drawn_once_by_each_panel_from_its_result(make_panel):
    """The model view hears of a new head before the session announces the head's result: it waits for the
    result and draws the new head once, with the other panels (not once before them and once more after)."""
    from pathlib import Path

    from qkv_engine.models import load_model
    from qkv_gui.panels.labs.model_view import ModelViewPanel
    from qkv_gui.panels.steps.softmax_pie import SoftmaxPanel

    view = make_panel(ModelViewPanel, size=(700, 500))
    s = view.session
    s.open_model(load_model(Path(__file__).resolve().parents[1] / "data" / "tiny-bert"), text="the cat sat")
    settle()
    softmax = make_panel(SoftmaxPanel, session=s)
    drawn = record_results([view, softmax])
    s.select_model_head(1, 1)
    settle()
    assert drawn[view.object_name] == [s.result]
    assert drawn[softmax.object_name] == [s.result]
    assert (view.query, view._current()) == (s.selection.query, (1, 1))
