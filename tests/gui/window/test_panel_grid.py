"""The panel grid (``window/panel_grid.py``) on its own: the nine panels on one Session in rows of three, each
in a frame whose title bar shows alone or all (its focus button) and shortens its title to fit, and hints
in every panel while there is nothing to draw."""
from PySide6 import QtWidgets

from tests.gui.conftest import settle


def test_empty_sentence_shows_hints_and_nothing_breaks(make_grid):
    grid = make_grid()  # the nine panels on one Session
    grid.session.set_text("")
    settle()
    assert grid.session.result.n == 0
    for panel in grid.panels.values():
        assert panel.showing_hint(), panel.object_name
        assert panel.hint.isVisible()
    grid.session.set_text("Back again")
    settle()
    for panel in grid.panels.values():
        assert not panel.showing_hint(), panel.object_name


def test_focusing_a_panel_hides_the_others_and_back(make_grid):
    grid = make_grid()
    grid.frames["heatmapPanel"].focusButton.click()  # the title bar's focus button
    settle()
    assert grid.panels["heatmapPanel"].isVisible()
    assert not grid.panels["softmaxPanel"].isVisible()
    grid.frames["heatmapPanel"].focusButton.click()  # again: every panel
    settle()
    assert all(p.isVisible() for p in grid.panels.values())


def test_panel_titles_shorten_instead_of_widening_the_grid(make_grid):
    grid = make_grid()
    grid.session.set_heads(3)
    settle()
    frame = grid.findChild(QtWidgets.QFrame, "frame_qkPlanePanel")
    assert frame.titleLabel.text().endswith("head 1 of 3")
    grid.resize(560, 600)  # the grid's share of a 1024 x 700 window (its docks beside it)
    settle()
    shown = frame.titleLabel.fontMetrics().horizontalAdvance(QtWidgets.QLabel.text(frame.titleLabel))
    assert QtWidgets.QLabel.text(frame.titleLabel) != frame.titleLabel.text()  # shortened ...
    assert shown <= frame.titleLabel.width() + 1  # ... to fit, the whole title in the tool tip
    assert frame.titleLabel.toolTip() == frame.titleLabel.text()
