"""Heads side by side and Heads joined, then W^O: opened from the Experiments menu, they show every head's
weights and the concat-and-project step, checked against numpy written out here (not the engine)."""
from __future__ import annotations


import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine.heads_view import projection_cell
from qkv_gui.look import style

from tests.gui.conftest import settle


def numpy_head(s, h, causal=False):
    """Head h by hand, from its column slices of W^Q, W^K, W^V: (weights, output)."""
    dk, dv = s.d_k, s.d_v
    q = s.x @ s.w_q[:, h * dk:(h + 1) * dk]
    k = s.key_x @ s.w_k[:, h * dk:(h + 1) * dk]
    v = s.key_x @ s.w_v[:, h * dv:(h + 1) * dv]
    z = q @ k.T / np.sqrt(dk)
    if causal:
        z = np.where(np.tril(np.ones(z.shape, dtype=bool)), z, -np.inf)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    return w, w @ v


def numpy_y(s):
    concat = np.concatenate([numpy_head(s, h)[1] for h in range(s.n_heads)], axis=1)
    return concat, concat @ s.w_o


def open_lab(menu, text):
    """Trigger the entry ``text`` of the Experiments menu ``menu``."""
    (act,) = [a for a in menu.actions() if a.text() == text]
    act.trigger()
    settle()
    return act


def click(widget, scene_pos, qtbot):
    view = widget.canvas
    pt = view.mapFromScene(scene_pos)
    qtbot.mouseClick(view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pt)
    settle()


def split_in_three(window):
    """Three heads, chosen in the sentence dock's heads box."""
    spin = window.findChild(QtWidgets.QSpinBox, "headsSpin")
    spin.setValue(3)
    settle()
    assert window.session.scenario.n_heads == 3
    return window


@pytest.fixture
def three(window):
    return split_in_three(window)


@pytest.fixture
def three_on_parts(make_parts):
    """The window's parts (editing docks, panel grid, experiments) on a plain main window, three heads."""
    return split_in_three(make_parts(editors=True))


def docked(parts, text, dock_name, panel_name):
    """The experiment ``text`` opened from the Experiments menu of ``parts``, in its dock beside the panel grid:
    its panel, drawn (not a hint)."""
    open_lab(parts.experiments.menu, text)
    dock = parts.findChild(QtWidgets.QDockWidget, dock_name)
    assert dock is not None and dock.isVisible()
    panel = dock.widget()
    assert panel.objectName() == panel_name and not panel.showing_hint()
    return panel


@pytest.fixture
def docked_heads(three_on_parts):
    return docked(three_on_parts, "Heads side by side", "dockHeads", "headsPanel")


@pytest.fixture
def docked_concat(three_on_parts):
    return docked(three_on_parts, "Concat and W^O", "dockConcat", "concatPanel")


#: An experiment's size in its dock beside a 1600 x 1000 window.
IN_DOCK = (512, 700)


@pytest.fixture
def three_heads(make_session):
    """The app's default example split into three heads, on a Session of its own."""
    session = make_session()
    session.set_heads(3)
    assert session.scenario.n_heads == 3
    return session


@pytest.fixture
def heads(make_panel, three_heads):
    from qkv_gui.panels.labs.heads_grid import HeadsGridPanel

    panel = make_panel(HeadsGridPanel, session=three_heads, size=IN_DOCK)
    assert not panel.showing_hint()
    return panel


@pytest.fixture
def concat(make_panel, three_heads):
    from qkv_gui.panels.labs.concat_project import ConcatProjectPanel

    panel = make_panel(ConcatProjectPanel, session=three_heads, size=IN_DOCK)
    assert not panel.showing_hint()
    return panel


def test_one_heatmap_per_head_equal_to_numpy_and_hover_shows_the_weight(heads):
    s = heads.session.scenario
    assert heads.placed_grid()[0] * heads.placed_grid()[1] >= 3
    for h in range(3):
        view = heads.views[h]
        assert view.placed and view.vb.isVisible()
        np.testing.assert_allclose(view.image.image, numpy_head(s, h)[0], atol=1e-12)
        # one colour scale for all heads: "auto", 0 to the largest weight of any head
        top = max(float(numpy_head(s, g)[0].max()) for g in range(3))
        assert view.image.levels == (0.0, pytest.approx(top))
        assert f"head {h + 1}" in view.title.text
    assert not heads.views[3].placed
    assert [t for _, t in heads.x_tick_labels] == list(s.tokens)
    assert [t for _, t in heads.y_tick_labels] == list(s.tokens)
    assert "3 heads" in heads.note.text()
    # hovering a cell shows its weight
    heads.views[2].image.hover_at(heads.scene_pos_of(2, 1, 2))
    assert heads.hover_cell_hij == (2, 1, 2)
    assert style.fmt(numpy_head(s, 2)[0][1, 2], 4) in heads.info.text() and "head 3" in heads.info.text()


def test_clicking_head_2_chooses_it_and_every_panel_follows(heads, make_panel, make_grid, qtbot):
    from qkv_gui.editors import SentenceOptionsWidget

    session = heads.session
    options = make_panel(SentenceOptionsWidget, session=session, size=(400, 600))  # the head chooser
    grid = make_grid(session=session)  # the step panels on the same Session
    s = session.scenario
    click(heads, heads.scene_pos_of(1, 2, 0), qtbot)
    assert session.head == 1
    sel = session.selection
    assert (sel.query, sel.key) == (2, 0)
    w2 = numpy_head(s, 1)[0]
    np.testing.assert_allclose(grid.panels["heatmapPanel"].image.image, w2, atol=1e-12)
    assert options.findChild(QtWidgets.QComboBox, "headCombo").currentIndex() == 1
    assert heads.chosen_head == 1 and "chosen" in heads.views[1].title.text
    assert "chosen" not in heads.views[0].title.text
    # choosing from the combo box moves the frame too
    options.findChild(QtWidgets.QComboBox, "headCombo").setCurrentIndex(2)
    settle()
    assert heads.chosen_head == 2


def test_cross_attention_labels_columns_with_the_source_tokens(qtbot):
    # A panel on its own session: the main window's other panels are not part of this test.
    from qkv_gui.panels.labs.heads_grid import HeadsGridPanel
    from qkv_gui.state.session import Session

    session = Session()
    session.set_heads(2)
    session.set_source("a dog barked loudly")
    panel = HeadsGridPanel(session)
    qtbot.addWidget(panel)
    panel.resize(600, 500)
    panel.show()
    qtbot.waitExposed(panel)
    settle()
    s = session.scenario
    assert panel.views[0].image.image.shape == (s.n, 4)
    np.testing.assert_allclose(panel.views[1].image.image, numpy_head(s, 1)[0], atol=1e-12)
    assert [t for _, t in panel.x_tick_labels] == ["a", "dog", "barked", "loudly"]
    assert [t for _, t in panel.y_tick_labels] == list(s.tokens)


def test_concat_shows_shapes_the_selected_row_of_y_and_follows_w_o_edits(concat):
    session = concat.session
    session.select(query=1)
    settle()
    s = session.scenario
    n, dv, d_out = s.n, s.d_v, s.w_o.shape[1]
    assert concat.shape_texts["c"].startswith(f"{n} × {3 * dv}")
    assert concat.block_shapes == [f"{n} × {dv}"] * 3
    assert concat.shape_texts["w_o"] == f"{3 * dv} × {d_out}"
    assert concat.shape_texts["y"] == f"{n} × {d_out}"
    c_np, y_np = numpy_y(s)
    np.testing.assert_allclose(concat.grids["c"].values, c_np, atol=1e-12)
    np.testing.assert_allclose(concat.grids["y"].values[1], y_np[1], atol=1e-12)
    text = concat.detail.text()
    for v in y_np[1]:
        assert style.fmt(v, 2) in text
    row = concat.grids["y"].highlights["row_i"].rect
    assert (row.top(), row.height(), row.width()) == (1.0, 1.0, float(d_out))
    assert concat.grids["w_o"].vb.isVisible()
    # editing a cell of W^O changes Y; hovering a cell of Y works out its sum
    assert session.set_cell("w_o", 2, 1, 3.5)
    settle()
    s = session.scenario
    assert s.w_o[2, 1] == 3.5
    _c, y_np = numpy_y(s)
    np.testing.assert_allclose(concat.grids["y"].values, y_np, atol=1e-12)
    concat.grids["y"].image.hover_at(concat.scene_pos_of("y", 0, 1))
    assert concat.hover_cell_ic == (0, 1)
    ex = projection_cell(session.full_result, 0, 1)
    assert ex.value == pytest.approx(y_np[0, 1])
    assert concat.worked_text == ex.text and ex.text in concat.detail.text()


def test_clicking_a_block_of_c_chooses_that_head_and_query(concat, qtbot):
    s = concat.session.scenario
    click(concat, concat.scene_pos_of("c", 2, 2 * s.d_v), qtbot)  # first column of head 3, row 3
    assert concat.session.head == 2 and concat.session.selection.query == 2
    rect = concat.grids["c"].highlights["head"].rect
    assert (rect.left(), rect.width()) == (2.0 * s.d_v, float(s.d_v))


def test_one_head_says_so_in_one_line(make_panel, make_session):
    from qkv_gui.panels.labs.concat_project import ConcatProjectPanel
    from qkv_gui.panels.labs.heads_grid import HeadsGridPanel

    session = make_session()
    heads = make_panel(HeadsGridPanel, session=session, size=IN_DOCK)
    concat = make_panel(ConcatProjectPanel, session=session, size=IN_DOCK)
    assert session.scenario.n_heads == 1
    assert "one head" in heads.note.text().lower() and "Heads" in heads.note.text()
    assert heads.placed_grid() == (1, 1) and "chosen" not in heads.views[0].title.text
    note = concat.note.text()
    assert "one head" in note.lower() and "no W" in note
    assert not concat.grids["w_o"].vb.isVisible() and not concat.grids["y"].vb.isVisible()
    np.testing.assert_allclose(concat.grids["c"].values, numpy_head(session.scenario, 0)[1], atol=1e-12)


def test_eight_heads_and_64_tokens_draw(make_panel, make_session):
    from qkv_gui.panels.labs.concat_project import ConcatProjectPanel
    from qkv_gui.panels.labs.heads_grid import HeadsGridPanel

    session = make_session()
    session.set_text(" ".join(f"w{i}" for i in range(64)))
    session.set_heads(8)
    heads = make_panel(HeadsGridPanel, session=session, size=IN_DOCK)
    concat = make_panel(ConcatProjectPanel, session=session, size=IN_DOCK)
    rows, cols = heads.placed_grid()
    assert rows * cols >= 8 and all(v.placed for v in heads.views)
    assert heads.views[7].image.image.shape == (64, 64)
    assert 0 < len(heads.x_tick_labels) < 64  # thinned
    assert concat.grids["c"].values.shape == (64, 8 * session.scenario.d_v)
    for panel in (heads, concat):
        panel.refresh()
        panel.grab()  # paints without error


# ----- what a slide or a dock shows: sizes and edges ----------------------------------------------------------
def _on_canvas(panel, item) -> QtCore.QRectF:
    """Where ``item`` is drawn, in the canvas's own pixels."""
    view = panel.canvas
    return QtCore.QRectF(view.mapFromScene(item.sceneBoundingRect()).boundingRect())


def _inside(panel, item) -> bool:
    shown = QtCore.QRectF(panel.canvas.viewport().rect()).adjusted(-1, -1, 1, 1)
    return shown.contains(_on_canvas(panel, item))


def _cells_inside(panel, grid) -> bool:
    """The cells themselves of a cell grid (last column included) are inside the canvas."""
    n, m = grid.values.shape
    cells = panel.canvas.mapFromScene(grid.mapRectToScene(QtCore.QRectF(0, 0, m, n))).boundingRect()
    shown = QtCore.QRectF(panel.canvas.viewport().rect()).adjusted(-1, -1, 1, 1)
    return shown.contains(QtCore.QRectF(cells))


def _staged(cls_name, heads, size=(960, 600), text=None):
    from qkv_gui.export import figures as export
    from qkv_gui.state.session import Session

    session = Session()
    session.load_preset("two-heads")
    if text:
        session.set_text(text)
    session.set_heads(heads)
    options = export.ExportOptions(theme="slide", size=size)
    return export.StagedPanel(export.experiment_classes()[cls_name], session, options)


@pytest.mark.parametrize("heads_n, size", [(3, (960, 600)), (3, (1200, 800)), (8, (960, 600))])
def test_exported_heads_are_equal_sized_and_fill_the_figure(qtbot, heads_n, size):
    with _staged("heads", heads_n, size) as panel:
        rects = [_on_canvas(panel, panel.views[h].vb) for h in range(heads_n)]
        widths = [r.width() for r in rects]
        heights = [r.height() for r in rects]
        assert max(widths) - min(widths) <= 2 and max(heights) - min(heights) <= 2, rects
        canvas = panel.canvas.viewport().rect()
        rows, cols = panel.placed_grid()
        # the heatmaps take most of the room: as a row, at least 60 % of the width or 60 % of the height
        assert cols * widths[0] >= 0.6 * canvas.width() or rows * heights[0] >= 0.6 * canvas.height()
        bar = _on_canvas(panel, panel.colorbar)
        assert bar.width() <= 0.15 * canvas.width() and bar.height() <= canvas.height()
        for h in range(heads_n):
            v = panel.views[h]
            for item in (v.vb, v.title, v.keyAxis):
                assert _inside(panel, item), (h, _on_canvas(panel, item), canvas)
            assert not rects[h].intersects(bar)
        for r in range(rows):
            assert _inside(panel, panel.queryAxes[r])
        assert _inside(panel, panel.colorbar)
        # no two heatmaps overlap, and every row has its query names next to it
        for a in range(heads_n):
            for b in range(a + 1, heads_n):
                assert not rects[a].intersects(rects[b])
        assert [t for _, t in panel.y_tick_labels] == ["The", "dog", "chased", "the", "red", "ball"]


def test_exported_heads_at_512_tokens_thin_their_names(qtbot):
    with _staged("heads", 8, text=" ".join(f"w{i}" for i in range(512))) as panel:
        assert all(_inside(panel, panel.views[h].vb) for h in range(8))
        assert 1 < len(panel.x_tick_labels) < 20 and 1 < len(panel.y_tick_labels) < 40
        assert panel.shown_numbers == 0


@pytest.mark.parametrize("size", [(960, 600), (1200, 800)])
def test_exported_concat_keeps_every_grid_inside_the_figure(qtbot, size):
    with _staged("concat", 3, size) as panel:
        shown = panel.canvas.viewport().rect()
        for key in ("c", "w_o", "y"):
            grid = panel.grids[key]
            assert grid.vb.isVisible()
            # the cells themselves (last column included), not only the view box
            assert _cells_inside(panel, grid.image), (key, shown)
            assert _inside(panel, grid.vb)
            assert _inside(panel, panel.titles[key]) and _inside(panel, panel.shapes[key])
        for op in panel.ops:
            assert _inside(panel, op)
        # Y's last column is as wide as its first (not cut at the edge)
        y = panel.grids["y"]
        first = panel.canvas.mapFromScene(y.vb.mapViewToScene(QtCore.QRectF(0, 0, 1, 1))).boundingRect()
        last = panel.canvas.mapFromScene(y.vb.mapViewToScene(QtCore.QRectF(3, 0, 1, 1))).boundingRect()
        assert abs(first.width() - last.width()) <= 1 and last.right() <= shown.right()


def test_concat_at_8_heads_and_512_tokens_stays_inside(qtbot):
    with _staged("concat", 8, text=" ".join(f"w{i}" for i in range(512))) as panel:
        for key in ("c", "w_o", "y"):
            assert _cells_inside(panel, panel.grids[key].image)
        assert panel.grids["c"].shown_numbers == 0
        names = [t for t in panel.grids["c"].shown_labels if t.startswith("w")]
        assert 1 < len(names) < 60  # query names thinned


@pytest.mark.parametrize("name", ["dockScalingLab", "dockHeads", "dockConcat", "dockCompare"])
def test_every_experiment_dock_opens_wide_and_the_grid_keeps_the_most_room(three, name):
    three.open_experiment(name)
    settle()
    dock = three.experiment_docks[name]
    assert dock.isVisible() and not dock.isFloating()
    assert 420 <= dock.width() <= 620, dock.width()
    assert three.grid.width() > dock.width()
    assert three.gridScroll.width() > dock.width()  # what shows of the grid, too


@pytest.mark.parametrize("name", ["dockScalingLab", "dockHeads", "dockConcat", "dockCompare"])
def test_on_a_small_screen_an_experiment_leaves_the_panels_in_sight(three, name):
    # 1024 x 768 projector: the dock used to take all but 54 px of the panel area (which scrolls).
    from qkv_gui.window.main_window import CENTRAL_MIN_WIDTH

    three.resize(1008, 720)
    settle(rounds=6)
    three.open_experiment(name)
    settle(rounds=6)
    dock = three.experiment_docks[name]
    assert three.width() == 1008  # the window did not grow past the screen
    assert dock.isVisible() and dock.width() >= max(300, dock.minimumSizeHint().width())
    assert three.gridScroll.width() >= CENTRAL_MIN_WIDTH
    for left in three.docks.values():  # the editing docks gave up their spare width, still whole
        assert left.isVisible() and left.width() >= left.minimumSizeHint().width()


def test_heads_in_the_dock_are_equal_and_inside(docked_heads):
    heads = docked_heads
    assert heads.width() >= 420
    rects = [_on_canvas(heads, heads.views[h].vb) for h in range(3)]
    assert max(r.width() for r in rects) - min(r.width() for r in rects) <= 2
    assert min(r.width() for r in rects) >= 100  # readable heatmaps, not thin squares
    for h in range(3):
        assert _inside(heads, heads.views[h].vb) and _inside(heads, heads.views[h].title)
    assert "chosen" in heads.views[0].title.text


def test_concat_in_the_dock_is_inside(docked_concat):
    concat = docked_concat
    for key in ("c", "w_o", "y"):
        assert _cells_inside(concat, concat.grids[key].image), key


def test_exported_heads_stand_key_names_upright_to_name_every_key(qtbot):
    # 4 heads of 8 tokens on a 960 x 600 slide: written across, only 2 of the 8 key names fitted
    # under each heatmap; upright, every key and every query is named.
    words = "the cat sat on the warm mat today".split()
    with _staged("heads", 4, (960, 600), text=" ".join(words)) as panel:
        assert panel.keys_upright
        assert [t for _, t in panel.x_tick_labels] == words
        assert [t for _, t in panel.y_tick_labels] == words
        rects = [_on_canvas(panel, panel.views[h].keyAxis) for h in range(4)]
        for h in range(4):
            axis = panel.views[h].keyAxis
            assert axis.turned and [t for _, t in axis.turned_texts] == words
            assert _inside(panel, axis)
            longest = QtGui.QFontMetricsF(axis.style["tickFont"]).horizontalAdvance("today")
            assert axis.height() >= longest  # the longest name has room
            # no name over another head's heatmap (its own heatmap only meets the inward tick marks)
            assert not any(rects[h].intersects(_on_canvas(panel, panel.views[g].vb)) for g in range(4) if g != h)


def test_on_a_short_screen_experiments_open_as_tabs_and_the_window_fits(three):
    # Stacked on the right, the lab and two more docks asked for 1005 px of height on a 720 px screen.
    three.resize(1008, 720)
    settle(rounds=6)
    names = ["dockScalingLab", "dockHeads", "dockConcat", "dockCompare"]
    for name in names:
        three.open_experiment(name)
        settle(rounds=6)
        assert (three.width(), three.height()) == (1008, 720), name
        dock = three.experiment_docks[name]
        assert not dock.visibleRegion().isEmpty()  # the one just opened is the tab in front
    docks = [three.experiment_docks[n] for n in names]
    assert {d.objectName() for d in three.tabifiedDockWidgets(docks[0])} == set(names[1:])


def test_on_a_tall_screen_experiments_stack(three_on_parts):
    parts = three_on_parts  # 1600 x 1000, the editing docks on the left
    docks = parts.experiments.docks
    for name in ("dockScalingLab", "dockHeads"):
        parts.experiments.open(name)
        settle()
    assert parts.tabifiedDockWidgets(docks["dockHeads"]) == []
    assert docks["dockHeads"].isVisible() and docks["dockScalingLab"].isVisible()
    assert docks["dockHeads"].geometry().top() >= docks["dockScalingLab"].geometry().bottom()  # one above the other


def test_every_head_follows_the_colour_scale_and_one_bar_says_which(make_panel):
    from qkv_gui.panels.labs.heads_grid import HeadsGridPanel
    from qkv_gui.state.session import Session

    session = Session()
    session.load_preset("two-heads")
    session.set_heads(3)
    panel = make_panel(HeadsGridPanel, session=session, size=(1000, 700))
    s = session.scenario
    weights = [numpy_head(s, h)[0] for h in range(3)]
    top = max(float(w.max()) for w in weights)
    assert top < 0.9
    for h in range(3):
        assert panel.views[h].image.levels == (0.0, pytest.approx(top))  # auto: one scale for every head
    session.set_option(causal=True)
    settle()
    s = session.scenario
    weights = [numpy_head(s, h, causal=True)[0] for h in range(3)]
    for h in range(3):
        assert panel.views[h].image.mask_path().contains(QtCore.QPointF(2.5, 0.5))  # causal: the mask look
    session.set_colour_scale("row")
    settle()
    for h in range(3):
        high = np.broadcast_to(panel.views[h].image.levels[1], weights[h].shape)[:, 0]
        np.testing.assert_allclose(high, [max(r) for r in weights[h].tolist()])
    assert panel.colorbar.getAxis("left").labelText.startswith("weight, ")
    assert "each row to its largest" in panel.info.text() or "per row" in panel.colorbar.getAxis("left").labelText
    session.set_colour_scale("absolute")
    settle()
    assert all(panel.views[h].image.levels == (0.0, 1.0) for h in range(3))


@pytest.mark.parametrize("which", ["heads", "concat"])
def test_a_token_with_markup_characters_reads_as_typed(make_panel, which):
    from qkv_gui.panels.labs.concat_project import ConcatProjectPanel
    from qkv_gui.panels.labs.heads_grid import HeadsGridPanel
    from qkv_gui.state.session import Session

    session = Session()
    session.load_preset("two-heads")
    session.set_text("a < b & c")
    settle()
    assert session.result.tokens == ("a", "<", "b", "&", "c")
    panel = make_panel(HeadsGridPanel if which == "heads" else ConcatProjectPanel, session=session, size=(1000, 700))
    session.select(query=session.result.tokens.index("<"), key=session.result.tokens.index("&"))
    settle()
    label = panel.info if which == "heads" else panel.detail
    doc = QtGui.QTextDocument()
    doc.setHtml(label.text())
    shown = doc.toPlainText()  # what the student reads
    assert "‘<’" in shown
    if which == "heads":
        assert "‘&’" in shown


def _ink_pixels(panel, item, ink: str) -> int:
    """How many pixels of the canvas under ``item`` are drawn in the palette's ``ink`` colour (its text)."""
    image = panel.canvas.grab().toImage()
    colour = QtGui.QColor(panel.colours.ink[ink])
    rect = panel.canvas.mapFromScene(item.sceneBoundingRect()).boundingRect().intersected(image.rect())
    count = 0
    for y in range(rect.top(), rect.bottom() + 1):
        for x in range(rect.left(), rect.right() + 1):
            c = image.pixelColor(x, y)
            if (abs(c.red() - colour.red()) + abs(c.green() - colour.green()) + abs(c.blue() - colour.blue())) < 90:
                count += 1
    return count


@pytest.mark.parametrize("size", [(365, 681), (512, 913)])
def test_the_token_names_show_as_soon_as_the_panel_opens(make_panel, size):
    # Opened narrow (its dock on a 1024 x 768 screen), the heads showed no token names on either axis until
    # the dock was resized: pyqtgraph gave the hidden query axes no width when they were placed.
    from qkv_gui.panels.labs.heads_grid import HeadsGridPanel

    panel = make_panel(HeadsGridPanel, size=size)
    settle()
    assert [name for _, name in panel.y_tick_labels] == ["The", "cat", "sat"]
    query_axis, key_axis = panel.queryAxes[0], panel.views[0].keyAxis
    assert query_axis.geometry().width() == query_axis.fixedWidth > 0
    assert _ink_pixels(panel, query_axis, "query") > 20  # the names written, not only the ticks
    assert _ink_pixels(panel, key_axis, "key") > 20


@pytest.mark.parametrize("palette", [style.STANDARD, style.DARK])
def test_the_colour_bar_numbers_fit_in_a_narrow_panel(make_session, qtbot, palette):
    # The colour bar was placed before its axis had a width: in a dock opened on a 1024 x 768 screen in the dark
    # palette its numbers ran off the right edge ("0." for 0.43).
    from qkv_gui.panels.labs.heads_grid import HeadsGridPanel
    from tests.gui.conftest import shown

    session = make_session()
    panel = HeadsGridPanel(session)
    panel.set_colours(palette)  # the palette first, as a window in the dark palette opens the dock
    shown(qtbot, panel, (365, 681))
    settle()
    image = panel.canvas.grab().toImage()
    ground = image.pixelColor(image.width() - 1, 2)
    bar = panel.canvas.mapFromScene(panel.colorbar.sceneBoundingRect()).boundingRect()
    cut = [y for y in range(max(0, bar.top()), min(image.height(), bar.bottom()))
           for x in (image.width() - 2, image.width() - 1)
           if sum(abs(a - b) for a, b in zip(image.pixelColor(x, y).getRgb()[:3], ground.getRgb()[:3])) > 90]
    assert not cut  # nothing drawn at the canvas' right edge: no number cut there


def test_with_a_trained_model_it_says_which_head_it_shows_and_where_the_others_are(make_session, make_panel):
    """With a model open it showed "One head. Raise 'Heads' in the inputs panel", a switch of the hand-made
    examples that a model does not have."""
    from pathlib import Path

    from qkv_engine import load_model
    from qkv_gui.panels.labs.heads_grid import HeadsGridPanel

    session = make_session()
    session.runner.sync = True
    session.open_model(load_model(Path(__file__).resolve().parents[2] / "data" / "tiny-llama"),
                       text="the cat sat on the mat")
    panel = make_panel(HeadsGridPanel, session=session, size=(640, 560))
    settle()
    assert "Raise" not in panel.note.text()
    assert "layer 1, head 1 of 4" in panel.note.text() and "model view" in panel.note.text()
    session.select_model_head(1, 2)
    settle()
    assert "layer 2, head 3 of 4" in panel.note.text()
    np.testing.assert_allclose(panel.views[0].image.values, session.model_trace.weights[1, 2], atol=1e-6)


def test_concat_with_a_trained_model_does_not_say_there_is_no_w_o(make_session, make_panel):
    """With a model open it said "One head: no W^O, the output is the head's output": a model's layer joins
    all its heads and multiplies them by its W^O."""
    from pathlib import Path

    from PySide6 import QtGui

    from qkv_engine import load_model
    from qkv_gui.panels.labs.concat_project import ConcatProjectPanel

    session = make_session()
    session.runner.sync = True
    session.open_model(load_model(Path(__file__).resolve().parents[2] / "data" / "tiny-llama"),
                       text="the cat sat on the mat")
    session.select_model_head(1, 3)
    panel = make_panel(ConcatProjectPanel, session=session, size=IN_DOCK)
    settle()
    words = " ".join(QtGui.QTextDocumentFragment.fromHtml(label.text()).toPlainText()
                     for label in panel.findChildren(QtWidgets.QLabel))
    assert "no W" not in words and "Raise" not in words
    assert "layer 2, head 4 of 4" in words and "multiplied by its WO (o_proj)" in words
