"""The cell-grid item on its own: the colours drawn are the colour map's at each value, empty cells show the
background, masks have one look, numbers come only where they fit, and the mouse gives cells."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

import pyqtgraph as pg

from qkv_engine.attention import MASK_BLOCKED, MASK_CAUSAL, MASK_PADDING
from qkv_gui.look import style
from qkv_gui.drawing.cell_grid import MAX_NUMBERS, CellGridItem, Outline
from qkv_gui.look.colour_tables import colour_map, ink
from qkv_gui.look.mask_look import MASK_FILL, MASK_HATCH

from tests.gui.conftest import settle

Qt = QtCore.Qt


@pytest.fixture
def view(qtbot):
    """A plot (rows down, as every grid panel has it) shown offscreen at 600 x 500, and its grid item."""
    style.configure_pyqtgraph()
    widget = pg.GraphicsLayoutWidget()
    plot = widget.addPlot(enableMenu=False)
    plot.hideAxis("left")
    plot.hideAxis("bottom")
    plot.getViewBox().invertY(True)
    plot.getViewBox().setDefaultPadding(0.0)
    grid = CellGridItem("weights")
    plot.addItem(grid)
    qtbot.addWidget(widget)
    widget.resize(600, 500)
    widget.show()
    qtbot.waitExposed(widget)
    widget.grid, widget.plot = grid, plot
    return widget


def show(view, values, **kw):
    view.grid.setData(values, **kw)
    n, m = np.asarray(values).shape
    view.plot.getViewBox().setRange(xRange=(0, m), yRange=(0, n), padding=0)
    settle()
    return view.grab().toImage()


def pixel(view, image, i, j, dx=0.5, dy=0.5) -> QtGui.QColor:
    """The colour drawn at (dx, dy) inside cell (i, j) (0.5, 0.5: its middle)."""
    p = view.mapFromScene(view.grid.mapToScene(QtCore.QPointF(j + dx, i + dy)))
    ratio = image.devicePixelRatio()
    return QtGui.QColor(image.pixel(int(p.x() * ratio), int(p.y() * ratio)))


def close(a: QtGui.QColor, b: QtGui.QColor, tol: int = 3) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a.getRgb()[:3], b.getRgb()[:3]))


def test_each_cell_has_the_colour_of_its_value(view):
    rng = np.random.default_rng(1)
    values = rng.random((4, 5)) * 0.4
    view.grid.numbers = False
    image = show(view, values, levels=(0.0, 0.4))
    cmap = style.colormap()
    for i in range(4):
        for j in range(5):
            want = cmap.map(values[i, j] / 0.4, mode="qcolor")
            assert close(pixel(view, image, i, j), want), (i, j, pixel(view, image, i, j).name(), want.name())


def test_levels_per_row_give_each_row_the_top_colour_at_its_largest(view):
    values = np.array([[0.1, 0.3, 0.2], [0.02, 0.01, 0.05]])
    view.grid.numbers = False
    image = show(view, values, levels=(0.0, values.max(axis=1, keepdims=True)))
    top = style.colormap().map(1.0, mode="qcolor")
    assert close(pixel(view, image, 0, 1), top) and close(pixel(view, image, 1, 2), top)
    # 0.01 in a row whose largest is 0.05: a fifth of the way up
    assert close(pixel(view, image, 1, 1), style.colormap().map(0.2, mode="qcolor"))


def test_empty_cells_show_the_background_and_take_no_number_or_mouse(view):
    values = np.array([[0.5, np.nan], [np.nan, 0.25]])
    image = show(view, values, levels=(0.0, 1.0))
    background = QtGui.QColor(style.BACKGROUND)
    assert close(pixel(view, image, 0, 1, 0.2, 0.2), background)
    assert close(pixel(view, image, 1, 0, 0.8, 0.8), background)
    assert {(i, j) for i, j, _t in view.grid.number_texts()} == {(0, 0), (1, 1)}
    assert view.grid.cell_at(view.grid.scene_pos_of(0, 1)) is None
    assert view.grid.cell_at(view.grid.scene_pos_of(1, 1)) == (1, 1)


def test_masked_cells_have_the_one_mask_look_with_a_hatch_per_reason(view):
    values = np.full((3, 3), 0.9)
    why = np.zeros((3, 3), dtype=np.int8)
    why[0, 1], why[0, 2], why[2, 0] = MASK_CAUSAL, MASK_PADDING, MASK_BLOCKED
    view.grid.numbers = False
    image = show(view, values, levels=(0.0, 1.0), masked_by=why)
    data_colour = style.colormap().map(0.9, mode="qcolor")
    for (i, j), reason in (((0, 1), MASK_CAUSAL), ((0, 2), MASK_PADDING), ((2, 0), MASK_BLOCKED)):
        assert view.grid.mask_path(reason).contains(QtCore.QPointF(j + 0.5, i + 0.5))
        seen = {pixel(view, image, i, j, dx, dy).name() for dx in (0.2, 0.4, 0.6, 0.8) for dy in (0.3, 0.5, 0.7)}
        assert data_colour.name() not in seen  # never the colour of its value
        assert seen <= {MASK_FILL.name(), MASK_HATCH.name()} | {c for c in seen if _between(c)}
    assert close(pixel(view, image, 1, 1), data_colour)
    assert not view.grid.mask_path().contains(QtCore.QPointF(1.5, 1.5))


def _between(name: str) -> bool:
    """An antialiased hatch pixel: a grey between the hatch and the cover."""
    c = QtGui.QColor(name)
    r, g, b = c.red(), c.green(), c.blue()
    return max(r, g, b) - min(r, g, b) <= 6 and MASK_HATCH.red() - 2 <= r <= MASK_FILL.red() + 2


def test_numbers_only_where_they_fit_and_in_the_ink_that_contrasts(view):
    values = np.array([[0.0, 1.0], [0.5, 0.25]])
    show(view, values, levels=(0.0, 1.0))
    texts = {(i, j): t for i, j, t in view.grid.number_texts()}
    assert texts == {(0, 0): "0.00", (0, 1): "1.00", (1, 0): "0.50", (1, 1): "0.25"}
    # the ink: light on viridis's dark end, dark on its yellow end, whichever contrasts more (WCAG)
    light = ink("weights")
    assert light[0] and not light[255]
    # 40 x 40 cells of 15 x 12 pixels: too small for "0.00", none written
    show(view, np.full((40, 40), 0.5), levels=(0.0, 1.0))
    assert view.grid.shown_numbers == 0
    # zoomed in on a corner they come back, never more than MAX_NUMBERS
    view.plot.getViewBox().setRange(xRange=(0, 4), yRange=(0, 4), padding=0)
    settle()
    assert 0 < view.grid.shown_numbers <= MAX_NUMBERS
    assert all(0 <= i < 5 and 0 <= j < 5 for i, j in view.grid.number_cells())


def test_fitting_numbers_measures_only_the_smallest_and_the_largest(view):
    calls = []

    def fmt(v):
        calls.append(v)
        return f"{v:.2f}"

    view.grid.fmt = fmt
    values = np.linspace(-3.0, 12.0, 9).reshape(3, 3)
    show(view, values, levels=(-12.0, 12.0), colormap="signed")
    calls.clear()
    cells = view.grid.number_cells()
    assert len(cells) == 9 and sorted(calls) == [-3.0, 12.0]


def test_outlines_are_drawn_around_their_cells(view):
    values = np.full((4, 4), 0.5)
    view.grid.numbers = False
    view.grid.set_outlines({"cell": Outline(QtCore.QRectF(2, 1, 1, 1), "#FF0000", 3.0)})
    image = show(view, values, levels=(0.0, 1.0))
    assert view.grid.outlines["cell"].rect == QtCore.QRectF(2, 1, 1, 1)
    assert pixel(view, image, 1, 2, 0.0, 0.5).red() > 200 and pixel(view, image, 1, 2, 0.0, 0.5).green() < 80
    assert close(pixel(view, image, 1, 2), style.colormap().map(0.5, mode="qcolor"))  # the middle is the cell's
    view.grid.set_outlines({"cell": None})
    assert "cell" not in view.grid.outlines


def test_the_mouse_hovers_leaves_and_clicks_cells(view, qtbot):
    values = np.arange(12, dtype=float).reshape(3, 4) / 12
    show(view, values, levels=(0.0, 1.0))
    grid = view.grid
    seen = []
    grid.cellHovered.connect(lambda i, j: seen.append(("hover", i, j)))
    grid.cellLeft.connect(lambda: seen.append(("left",)))
    grid.cellClicked.connect(lambda i, j: seen.append(("click", i, j)))
    for i in range(3):
        for j in range(4):
            assert grid.cell_at(grid.scene_pos_of(i, j)) == (i, j)
    point = view.mapFromScene(grid.scene_pos_of(2, 1))
    QTest.mouseMove(view.viewport(), point)
    settle()
    assert seen[-1] == ("hover", 2, 1) and grid.hovered == (2, 1)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    settle()
    assert ("click", 2, 1) in seen
    # leaving the view (the mouse goes to another panel) leaves the cell
    QtWidgets.QApplication.sendEvent(view, QtCore.QEvent(QtCore.QEvent.Type.Leave))
    settle()
    assert seen[-1] == ("left",) and grid.hovered is None


def test_header_strips_count_as_their_row_or_column(view):
    show(view, np.full((3, 3), 0.5), levels=(0.0, 1.0))
    view.grid.set_header_cells(left=1.0, top=0.5)
    view.plot.getViewBox().setRange(xRange=(-1, 3), yRange=(-0.5, 3), padding=0)
    settle()
    grid = view.grid
    assert grid.cell_at(grid.mapToScene(QtCore.QPointF(-0.5, 1.5))) == (1, -1)
    assert grid.cell_at(grid.mapToScene(QtCore.QPointF(2.5, -0.25))) == (-1, 2)
    assert grid.cell_at(grid.mapToScene(QtCore.QPointF(-0.5, -0.25))) is None


def test_set_rect_places_the_cells_and_bad_input_is_refused(view):
    grid = view.grid
    grid.setData(np.full((2, 1), 0.5))
    grid.setRect(QtCore.QRectF(10, 0, 3, 4))
    assert grid.mapToParent(QtCore.QPointF(1, 2)) == QtCore.QPointF(13, 4)
    with pytest.raises(ValueError, match="2-D"):
        grid.setData(np.zeros(3))
    with pytest.raises(ValueError, match="masked_by"):
        grid.setData(np.zeros((2, 2)), masked_by=np.ones((3, 3), dtype=np.int8))


def test_colour_tables_are_the_colour_maps():
    from qkv_gui.look.colour_tables import table

    for name in ("weights", "signed", "diff"):
        cmap = colour_map(name)
        lut = table(name)
        for k in (0, 64, 128, 200, 255):
            want = cmap.map(k / 255, mode="qcolor")
            assert close(QtGui.QColor(*lut[k][:3].tolist()), want, tol=1)


def test_in_a_vector_file_cells_stay_sharp_and_hatches_are_lines(view, tmp_path):
    # SVG and PDF readers smooth an enlarged image and draw Qt's pattern brushes flat (or not at all), and
    # some draw cosmetic strokes hundreds of pixels wide: the grid writes none of these.
    import re

    from PySide6 import QtSvg

    values = np.array([[1.0, 0.2, 0.3], [0.5, 0.5, 0.1], [0.3, 0.3, 0.4]])
    why = np.zeros((3, 3), dtype=np.int8)
    why[0, 1:] = MASK_CAUSAL
    why[1, 2] = MASK_BLOCKED
    view.grid.set_outlines({"cell": Outline(QtCore.QRectF(0, 0, 1, 1), "#111111", 2.5, halo=True)})
    show(view, values, levels=(0.0, 1.0), masked_by=why)
    path = tmp_path / "grid.svg"
    gen = QtSvg.QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(view.size())
    gen.setViewBox(QtCore.QRect(QtCore.QPoint(0, 0), view.size()))
    painter = QtGui.QPainter(gen)
    view.render(painter)
    painter.end()
    svg = path.read_text()
    import base64

    images = [QtGui.QImage.fromData(base64.b64decode(data))
              for data in re.findall(r'href="data:image/\w+;base64,([^"]+)"', svg)]
    assert images and max(min(i.width(), i.height()) for i in images) >= 3 * 32  # each cell a block of pixels
    # the outline and its halo: drawn in pixels (no scaling group) as plain strokes, not cosmetic ones
    outlines = re.findall(r'<g([^>]*stroke="#(?:111111|ffffff)"[^>]*)>\s*<(?:rect|path|polyline)([^>]*)>', svg)
    assert len(outlines) >= 2
    for head, element in outlines:
        assert "vector-effect" not in element and "matrix(1,0,0,1," in head, (head, element)
    # the hatches: many short lines (a cross hatch in the blocked cell), no pattern fill
    assert svg.count("<polyline") + svg.count("<line") + len(re.findall(r"<path[^>]*d=\"M[^\"]*L", svg)) > 5
    assert "pattern" not in svg.lower()


def test_the_same_data_again_draws_nothing_and_any_change_is_drawn(view, monkeypatch):
    """An edit elsewhere gives a grid the same numbers again (a weight grid when a token changes): it is not
    recoloured or repainted; a change of numbers, levels, mask or colour map is."""
    values = np.array([[0.1, 0.3], [0.2, np.nan]])
    view.grid.numbers = False
    show(view, values, levels=(0.0, 0.4))
    repaints = []
    monkeypatch.setattr(view.grid, "update", lambda *a: repaints.append(a))
    view.grid.setData(values.copy(), (0.0, 0.4))
    view.grid.setData(values.copy(), levels=(0.0, 0.4), masked_by=np.zeros((2, 2), np.int8))
    assert repaints == []
    cmap = style.colormap()
    changes = [
        dict(values=np.array([[0.4, 0.3], [0.2, np.nan]]), levels=(0.0, 0.4)),  # a number
        dict(values=values.copy(), levels=(0.0, 0.8)),  # the levels
        dict(values=values.copy(), levels=(0.0, 0.8), masked_by=np.array([[0, 0], [MASK_CAUSAL, 0]], np.int8)),
        dict(values=values.copy(), levels=(0.0, 0.8)),  # the mask gone again
    ]
    for change in changes:
        monkeypatch.undo()
        image = show(view, **change)
        top = float(np.ravel(change["levels"][1])[0])
        masked = change.get("masked_by") is not None
        want = QtGui.QColor(MASK_FILL) if masked else cmap.map(change["values"][1, 0] / top, mode="qcolor")
        assert close(pixel(view, image, 1, 0, 0.1, 0.1), want, tol=12), change
        assert close(pixel(view, image, 0, 0), cmap.map(change["values"][0, 0] / top, mode="qcolor")), change


def test_an_array_changed_in_place_and_given_again_is_drawn_anew(view):
    values = np.array([[0.1, 0.3], [0.2, 0.0]])
    view.grid.numbers = False
    show(view, values, levels=(0.0, 0.4))
    values[0, 0] = 0.4
    image = show(view, values, levels=(0.0, 0.4))
    assert close(pixel(view, image, 0, 0), style.colormap().map(1.0, mode="qcolor"))


def test_the_same_outlines_or_veils_again_draw_nothing_and_new_numbers_repaint_only_the_cells(view, monkeypatch):
    values = np.array([[0.1, 0.3, 0.2], [0.2, 0.0, 0.4]])
    view.grid.set_header_cells(2.0, 1.0)  # strips beside and above the cells (names drawn by other items)
    show(view, values, levels=(0.0, 0.4))
    box = Outline(QtCore.QRectF(0, 0, 3, 1), "#ff0000", 2.0)
    view.grid.set_outlines({"row": box})
    view.grid.set_veils([QtCore.QRectF(2, 1, 1, 1)])
    repaints = []
    monkeypatch.setattr(view.grid, "update", lambda *a: repaints.append(a))
    view.grid.set_outlines({"row": Outline(QtCore.QRectF(0, 0, 3, 1), "#ff0000", 2.0), "gone": None})
    view.grid.set_veils([QtCore.QRectF(2, 1, 1, 1)])
    assert repaints == []
    view.grid.set_outlines({"row": Outline(QtCore.QRectF(0, 1, 3, 1), "#ff0000", 2.0)})
    view.grid.set_veils([])
    assert len(repaints) == 2
    repaints.clear()
    view.grid.setData(values * 0.5, (0.0, 0.4))
    (area,), = repaints
    pad_x, pad_y = view.grid._pad
    assert area == QtCore.QRectF(-pad_x, -pad_y, 3 + 2 * pad_x, 2 + 2 * pad_y)  # not the strips
    assert pad_x < 2.0 and pad_y < 1.0
    monkeypatch.undo()
    image = show(view, values * 0.5, levels=(0.0, 0.4))
    assert close(pixel(view, image, 1, 2), style.colormap().map(0.5, mode="qcolor"))


def test_a_big_grid_with_one_new_number_is_drawn_anew(view):
    values = np.random.default_rng(3).random((300, 300)) * 0.4
    view.grid.numbers = False
    show(view, values, levels=(0.0, 0.4))
    changed = values.copy()
    changed[1, 2] = 0.4  # off the sparse sample
    image = show(view, changed, levels=(0.0, 0.4))
    assert close(pixel(view, image, 1, 2), style.colormap().map(1.0, mode="qcolor"))


def _reference_index(values, low, high) -> np.ndarray:
    """Colour-table indices worked out in 64-bit floats, as the grid did before it used 32-bit ones."""
    t = (np.asarray(values, dtype=np.float64) - low) / (high - low)
    return np.rint(np.clip(np.nan_to_num(t, nan=0.0), 0.0, 1.0) * 255.0).astype(np.uint8)


def test_cell_colours_are_the_64_bit_ones_to_within_one_step_and_exact_at_the_ends_and_the_middle():
    rng = np.random.default_rng(7)
    grid = CellGridItem("signed")
    for scale in (1e-3, 1.0, 1e3):
        values = rng.normal(size=(90, 70)) * scale
        values[::9, ::7] = np.nan
        top = float(np.nanmax(np.abs(values)))
        grid.setData(values, (-top, top))
        want = _reference_index(values, -top, top)
        assert np.abs(grid._index.astype(int) - want).max() <= 1
        assert (grid._index != want).mean() < 1e-3
    values = np.array([[-2.0, 0.0, 2.0, np.nan, -5.0, 5.0]])
    grid.setData(values, (-2.0, 2.0))
    assert grid._index.tolist() == [[0, 128, 255, 0, 0, 255]]  # the middle is 127.5: rounded as before
    assert grid._rgba[0, 3, 3] == 0  # an empty cell is transparent
    # levels far from their span keep 64-bit sums: a narrow band of big numbers still gets every step
    values = 1e6 + np.linspace(0.0, 1.0, 256).reshape(16, 16)
    grid.setData(values, (1e6, 1e6 + 1.0))
    assert grid._index.ravel().tolist() == list(range(256))
    # numbers beyond what 32-bit floats hold take the ends of the scale, without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grid.setData(np.array([[1e300, -1e300, np.inf, -np.inf, 1e-300]]), (-1.0, 1.0))
    assert grid._index.tolist() == [[255, 0, 255, 0, 128]]
