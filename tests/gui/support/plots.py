"""A bare plot to draw plot items on: ``blank_plot(qtbot)`` (the ``plot`` fixture) shows x in 0..10 and y in
-5..5 exactly, without axes, on a white ground, 400 x 300 pixels; RED and BLUE are the items' colours."""
import pyqtgraph as pg

from tests.gui.conftest import settle

RED, BLUE, WHITE = "#D02020", "#2040D0", "#FFFFFF"


def blank_plot(qtbot):
    """A plot without axes showing x in 0..10 and y in -5..5 exactly, on a white ground, 400 x 300 pixels."""
    view = pg.PlotWidget(background=WHITE)
    qtbot.addWidget(view)
    pi = view.getPlotItem()
    for name in ("left", "bottom"):
        pi.hideAxis(name)
    pi.setMouseEnabled(False, False)
    pi.hideButtons()
    view.setRange(xRange=(0, 10), yRange=(-5, 5), padding=0)
    view.resize(400, 300)
    view.show()
    qtbot.waitExposed(view)
    settle()
    return view
