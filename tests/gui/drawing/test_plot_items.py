"""The plot items the bar charts and the q·k plane draw with (``panels.decorations``): bars, dots and arrow heads
land where their numbers say, in the pixels of a grab; their options read back; an edit that changes nothing
does no work; a click on a dot names it."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg

from qkv_gui.look import colours, style
from qkv_gui.drawing.plot_marks import Bars, Dots, arrow_head_item

from tests.gui.conftest import settle
from tests.gui.support.plots import BLUE, RED, WHITE

def _grab(view) -> QtGui.QImage:
    settle()
    return view.grab().toImage()


def _px(view, x: float, y: float) -> QtCore.QPoint:
    """The widget pixel at data point (x, y)."""
    vb = view.getPlotItem().getViewBox()
    return view.mapFromScene(vb.mapViewToScene(QtCore.QPointF(x, y)))


def _colour(image: QtGui.QImage, at: QtCore.QPoint) -> str:
    return image.pixelColor(at).name().upper()


def _run(image: QtGui.QImage, x: int, colour: str) -> tuple:
    """(top, bottom) pixel rows of column ``x`` painted ``colour``."""
    rows = [y for y in range(image.height()) if image.pixelColor(x, y).name().upper() == colour]
    return (min(rows), max(rows)) if rows else (None, None)


def _span(image: QtGui.QImage, y: int, x: int, colour: str) -> tuple:
    """(first, last) pixel columns of the run of ``colour`` through (x, y) on row ``y``."""
    first = last = x
    while first > 0 and image.pixelColor(first - 1, y).name().upper() == colour:
        first -= 1
    while last < image.width() - 1 and image.pixelColor(last + 1, y).name().upper() == colour:
        last += 1
    return first, last


def test_bars_stand_on_zero_at_their_places_and_heights(plot):
    bars = Bars(x0=[1.0, 4.0, 7.0], width=2.0, height=[3.0, -2.0, 4.5], brush=RED, pen=None)
    plot.addItem(bars)
    image = _grab(plot)
    for left, height in ((1.0, 3.0), (4.0, -2.0), (7.0, 4.5)):
        centre = _px(plot, left + 1.0, 0.0)
        top, bottom = _run(image, centre.x(), RED)
        # from the zero line up (or down, a negative number) to the bar's end, to a pixel
        want = sorted((_px(plot, left + 1.0, 0.0).y(), _px(plot, left + 1.0, height).y()))
        assert abs(top - want[0]) <= 1 and abs(bottom - want[1]) <= 1, (left, height, top, bottom, want)
        # and as wide as its width
        row = _px(plot, left + 1.0, height / 2).y()
        first, last = _span(image, row, centre.x(), RED)
        assert abs(first - _px(plot, left, 0).x()) <= 1 and abs(last - _px(plot, left + 2.0, 0).x()) <= 1
    # between the bars: the ground
    assert _colour(image, _px(plot, 3.5, 1.0)) == WHITE and _colour(image, _px(plot, 6.5, -1.0)) == WHITE
    # the options read back as given; the rectangles as drawn
    assert bars.opts["height"] == [3.0, -2.0, 4.5] and bars.opts["x0"] == [1.0, 4.0, 7.0]
    np.testing.assert_allclose(bars.rects(), [[1, 0, 2, 3], [4, -2, 2, 2], [7, 0, 2, 4.5]])


def test_bars_by_centre_and_row_and_an_outline_in_pixels(plot):
    # horizontal bars: left edge, width, a row's centre and height (the scaling panel's bars)
    bars = Bars(x0=[-3.0, 0.0], width=[3.0, 4.0], y=[2.0, -2.0], height=[1.0, 1.0], brush=RED,
                pen=pg.mkPen(BLUE, width=3))
    plot.addItem(bars)
    np.testing.assert_allclose(bars.rects(), [[-3, 1.5, 3, 1], [0, -2.5, 4, 1]])
    plot.setRange(xRange=(-5, 5), yRange=(-5, 5), padding=0)
    image = _grab(plot)
    assert _colour(image, _px(plot, 2.0, -2.0)) == RED
    # the outline is 3 pixels wide whatever the scale, and inside the bounding rectangle
    right = _px(plot, 4.0, -2.0)
    assert _colour(image, right) == BLUE
    assert _colour(image, right + QtCore.QPoint(4, 0)) == WHITE
    vb = plot.getPlotItem().getViewBox()
    drawn = vb.mapViewToScene(QtCore.QRectF(-3, -2.5, 7, 4.5)).boundingRect()
    bounds = bars.sceneBoundingRect()
    assert bounds.contains(drawn.adjusted(-1.4, -1.4, 1.4, 1.4))
    # bars by centre: x and a width (the lab's softmax rows)
    by_centre = Bars(x=[1.0, 2.0], width=0.8, height=[0.5, 1.0])
    np.testing.assert_allclose(by_centre.rects(), [[0.6, 0, 0.8, 0.5], [1.6, 0, 0.8, 1.0]])
    with pytest.raises(TypeError):
        Bars(x=[1.0], width=1.0, height=[1.0], brushes=[RED])


def test_the_plot_counts_the_bars_in_its_range(qtbot):
    view = pg.PlotWidget()
    qtbot.addWidget(view)
    bars = Bars(x0=[2.0, 5.0], width=1.0, height=[3.0, -7.0])
    view.addItem(bars)
    view.resize(300, 200)
    view.show()
    settle()
    (x0, x1), (y0, y1) = view.getPlotItem().getViewBox().viewRange()
    assert x0 <= 2.0 and x1 >= 6.0 and y0 <= -7.0 and y1 >= 3.0
    assert x0 > 0.0 and y1 < 5.0  # (and not much more)


def test_the_same_bars_again_do_no_work_and_new_ones_are_drawn(plot, monkeypatch):
    bars = Bars(x0=np.arange(4.0), width=0.5, height=np.array([1.0, 2.0, 3.0, 4.0]), brush=RED, pen=None)
    plot.addItem(bars)
    _grab(plot)
    updates = []
    monkeypatch.setattr(bars, "update", lambda *a: updates.append(a))
    heights = np.array([1.0, 2.0, 3.0, 4.0])
    bars.setOpts(x0=np.arange(4.0), width=0.5, height=heights.copy(), pen=None, brush=RED)
    assert updates == []
    heights[0] = 9.0  # the caller's array changes afterwards: the bars keep what they were given
    np.testing.assert_allclose(bars.rects()[:, 3], [1, 2, 3, 4])
    bars.setOpts(height=heights)
    assert len(updates) == 1
    np.testing.assert_allclose(bars.rects()[:, 3], [9, 2, 3, 4])
    bars.setOpts(brush=BLUE)
    assert len(updates) == 2
    monkeypatch.undo()
    image = _grab(plot)
    assert _colour(image, _px(plot, 0.25, 4.5)) == BLUE  # the first bar is 9 high now, and blue


def test_bars_take_a_new_palette(plot):
    bars = Bars(x0=[1.0], width=2.0, height=[3.0], brush=style.STANDARD.fill["x"], pen=None)
    plot.addItem(bars)
    colours.paint(bars, style.STANDARD, brush="fill_x")
    colours.repaint(bars, style.DARK)
    assert pg.mkBrush(bars.opts["brush"]).color() == QtGui.QColor(style.DARK.fill["x"])
    assert _colour(_grab(plot), _px(plot, 2.0, 1.5)) == QtGui.QColor(style.DARK.fill["x"]).name().upper()


def test_dots_are_drawn_at_their_points_and_a_click_names_one(plot, qtbot):
    dots = Dots(hover_size=16)
    plot.addItem(dots)
    key, other = pg.mkBrush(RED), pg.mkBrush(BLUE)
    dots.set_dots([[2.0, 1.0], [5.0, -2.0], [8.0, 3.0]], 12, pg.mkPen(None), [key, other, key], data=[4, 7, 9])
    image = _grab(plot)
    for (x, y), colour in (((2.0, 1.0), RED), ((5.0, -2.0), BLUE), ((8.0, 3.0), RED)):
        at = _px(plot, x, y)
        assert _colour(image, at) == colour
        # 12 pixels across whatever the plot's scale: 4 pixels out still the dot, 8 out the ground
        assert _colour(image, at + QtCore.QPoint(4, 0)) == colour
        assert _colour(image, at + QtCore.QPoint(0, 8)) == WHITE
    np.testing.assert_allclose(dots.positions(), [[2, 1], [5, -2], [8, 3]])

    clicked = []
    dots.clicked.connect(clicked.append)
    qtbot.mouseClick(plot.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=_px(plot, 5.0, -2.0) + QtCore.QPoint(3, 2))
    settle()
    assert clicked == [7]
    qtbot.mouseClick(plot.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=_px(plot, 3.5, 0.0))
    settle()
    assert clicked == [7]  # between the dots: none


def test_the_dot_under_the_mouse_grows(plot, qtbot):
    dots = Dots(hover_size=16)
    plot.addItem(dots)
    dots.set_dots([[5.0, 0.0]], 8, pg.mkPen(None), [pg.mkBrush(RED)])
    at = _px(plot, 5.0, 0.0)
    assert _colour(_grab(plot), at + QtCore.QPoint(6, 0)) == WHITE
    qtbot.mouseMove(plot.viewport(), at)
    settle()
    assert _colour(_grab(plot), at + QtCore.QPoint(6, 0)) == RED
    qtbot.wait(30)  # (pyqtgraph's scene skips mouse moves that come too fast)
    qtbot.mouseMove(plot.viewport(), at + QtCore.QPoint(40, 40))
    settle()
    assert _colour(_grab(plot), at + QtCore.QPoint(6, 0)) == WHITE


@pytest.mark.parametrize("degrees", [0.0, 50.0, 135.0, -100.0])
def test_an_arrow_head_points_its_way_with_its_tip_on_its_place(plot, degrees):
    head = arrow_head_item(plot, 14, 36, pg.mkPen(None), RED)
    head.setPos(5.0, 0.0)
    head.setRotation(180.0 - degrees)
    image = _grab(plot)
    tip = _px(plot, 5.0, 0.0)
    a = math.radians(degrees)
    back = QtCore.QPoint(round(tip.x() - 8 * math.cos(a)), round(tip.y() + 8 * math.sin(a)))  # (y down on screen)
    ahead = QtCore.QPoint(round(tip.x() + 6 * math.cos(a)), round(tip.y() - 6 * math.sin(a)))
    assert _colour(image, back) == RED
    assert _colour(image, ahead) == WHITE


def test_dots_are_drawn_in_order_and_the_same_dots_again_do_no_work(plot, monkeypatch):
    dots = Dots()
    plot.addItem(dots)
    red, blue = pg.mkBrush(RED), pg.mkBrush(BLUE)
    at = [[5.0, 0.0], [5.0, 0.0], [2.0, 0.0]]
    dots.set_dots(at, 10, None, [red, blue, red])
    image = _grab(plot)
    assert _colour(image, _px(plot, 5.0, 0.0)) == BLUE  # the later of two dots in one place is on top
    assert _colour(image, _px(plot, 2.0, 0.0)) == RED
    updates = []
    monkeypatch.setattr(dots, "update", lambda *a: updates.append(a))
    dots.set_dots([list(p) for p in at], 10, None, [red, blue, red])
    assert updates == []
    dots.set_dots(at, 10, None, [blue, red, red])
    assert len(updates) == 1
    monkeypatch.undo()
    assert _colour(_grab(plot), _px(plot, 5.0, 0.0)) == RED


def _render(widget, painter) -> None:
    """Draw ``widget`` with ``painter`` as the app's figures do (``QWidget.render``, not the view's own)."""
    QtWidgets.QWidget.render(widget, painter, QtCore.QPoint(), QtGui.QRegion(),
                             QtWidgets.QWidget.RenderFlag.DrawChildren)


def _figure(plot, item, scale: float) -> QtGui.QImage:
    """``plot`` drawn as the app draws a figure ``scale`` times its size on screen (painter scaled, items in
    pyqtgraph's export mode with that resolution scale)."""
    image = QtGui.QImage(int(scale * plot.width()), int(scale * plot.height()),
                         QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QtGui.QColor(WHITE))
    painter = QtGui.QPainter(image)
    painter.scale(scale, scale)
    item.setExportMode(True, {"antialias": True, "resolutionScale": scale})
    _render(plot, painter)
    item.setExportMode(False)
    painter.end()
    return image


def test_in_a_figure_dots_are_drawn_as_the_scatter_drew_them_and_as_circles_in_an_svg(plot, tmp_path):
    from PySide6 import QtSvg

    dots = Dots()
    plot.addItem(dots)
    dots.set_dots([[5.0, 0.0]], 12, None, [pg.mkBrush(RED)])
    settle()
    row = int(2 * _px(plot, 5.0, 0.0).y())
    ours = _figure(plot, dots, 2.0)
    plot.removeItem(dots)
    scatter = pg.ScatterPlotItem(pos=[[5.0, 0.0]], size=12, pen=None, brush=pg.mkBrush(RED))
    plot.addItem(scatter)
    theirs = _figure(plot, scatter, 2.0)
    across = [[x for x in range(image.width()) if image.pixelColor(x, row).name().upper() == RED]
              for image in (ours, theirs)]
    assert across[0] and abs(len(across[0]) - len(across[1])) <= 2 and abs(across[0][0] - across[1][0]) <= 1
    plot.removeItem(scatter)
    plot.addItem(dots)
    # in an SVG (the view's background not cached, as the app's figures draw it): a circle, not a picture
    plot.setCacheMode(QtWidgets.QGraphicsView.CacheModeFlag.CacheNone)
    path = tmp_path / "dots.svg"
    svg = QtSvg.QSvgGenerator()
    svg.setFileName(str(path))
    svg.setSize(plot.size())
    painter = QtGui.QPainter(svg)
    _render(plot, painter)
    painter.end()
    text = path.read_text().lower()
    assert "<image" not in text and text.count("<circle") == 1 and RED.lower() in text
