"""Words and dials that change at every edit repaint alone: the panel under them is not painted again, and
the screen shows what a fresh drawing of the panel shows, in every palette. An exported figure keeps its
own background (transparent or not) under those words."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from qkv_gui.look import colours, style
from qkv_gui.export import figures as export
from qkv_gui.panels.steps.qk_plane import QKPlanePanel
from qkv_gui.panels.steps.value_mixing import ValuesPanel

from tests.gui.conftest import settle


class PaintCount(QtCore.QObject):
    """How many paint events each watched widget has received."""

    def __init__(self, widgets):
        super().__init__()
        self.counts = {w: 0 for w in widgets}
        for w in widgets:
            w.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802
        if event.type() == QtCore.QEvent.Type.Paint and obj in self.counts:
            self.counts[obj] += 1
        return False


def pixels(image: QtGui.QImage) -> np.ndarray:
    image = image.convertToFormat(QtGui.QImage.Format.Format_RGB32)
    rows = np.array(image.constBits(), dtype=np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 4].copy()


def on_screen(panel) -> np.ndarray:
    """What the screen shows of the panel now: the window's stored pixels after the repaints so far."""
    return pixels(panel.screen().grabWindow(panel.winId()).toImage())


def edit_selected_row(panel, step: int) -> None:
    """A new number in the selected query's row (every number these widgets show changes)."""
    s = panel.session
    i = s.selection.query
    assert s.set_cell("x", i, step % s.scenario.d_model, round(float(s.scenario.x[i, step % s.scenario.d_model]) + 0.07, 2))
    settle()


@pytest.mark.parametrize("cls, names", [
    (ValuesPanel, ["worked"]),
    (QKPlanePanel, ["worked", "numbers", "meter"]),  # worked sum, the table of numbers, the dial
])
def test_changing_words_repaint_alone_and_the_screen_matches_a_fresh_drawing(make_panel, cls, names):
    panel = make_panel(cls)
    watched = [getattr(panel, name) for name in names]
    under = []  # every widget between them and the panel, and the panel
    for w in watched:
        parent = w.parentWidget()
        while parent is not None and parent is not panel.parentWidget():
            if parent not in under:
                under.append(parent)
            parent = parent.parentWidget()
    try:
        for palette in ("standard", "dark", "high-contrast"):
            colours.use(palette)
            settle()
            panel.repaint()
            for step in range(3):
                counter = PaintCount(watched + under)
                edit_selected_row(panel, step)
                for w in watched:
                    assert counter.counts[w] >= 1, f"{w.objectName()} did not repaint"
                assert [u.objectName() or type(u).__name__ for u in under if counter.counts[u]] == []
                screen, fresh = on_screen(panel), pixels(panel.grab().toImage())
                for w in watched:  # where they are, the screen shows what a fresh drawing shows
                    top = w.mapTo(panel, QtCore.QPoint(0, 0))
                    rows = slice(top.y(), top.y() + w.height())
                    columns = slice(4 * top.x(), 4 * (top.x() + w.width()))
                    np.testing.assert_array_equal(screen[rows, columns], fresh[rows, columns], w.objectName())
    finally:
        colours.use("standard")
        settle()


def test_a_transparent_figure_has_no_ground_under_its_words(make_session):
    """The words of an exported figure lie on its own background: none at all in a transparent one."""
    session = make_session()
    for name in ("heatmap", "qk-plane", "softmax"):  # (the heatmap's words: a style sheet of their own)
        cls = export.panel_classes()[name]
        clear = QtGui.QImage.fromData(
            export.render_panel(cls, session, "png", export.ExportOptions(width=640, transparent=True)), "PNG")
        alpha = np.array([[clear.pixelColor(x, y).alpha() for x in range(3)] for y in range(clear.height())])
        assert (alpha == 0).all(), name  # the left edge: the words' padding, on nothing
        solid = QtGui.QImage.fromData(export.render_panel(cls, session, "png", export.ExportOptions(width=640)), "PNG")
        background = QtGui.QColor(style.current().background)
        assert all(solid.pixelColor(x, y) == background for x in range(3) for y in range(0, solid.height(), 7)), name
