"""The model view on a Session with a stand-in for a trained model's data (random softmax rows): every
tile is its head's weights, clicking a tile steps into that head, the outline follows, names stay legible."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui
from PySide6.QtTest import QTest

from qkv_engine.attention import MASK_CAUSAL
from qkv_gui.panels.labs.model_view import ModelViewPanel
from qkv_gui.state.session import Session

from tests.gui.conftest import settle
from tests.gui.support.layout import shown_whole
from tests.gui.support.stand_in_model import StandInSession, fake_data

Qt = QtCore.Qt


@pytest.fixture
def model_view(make_panel):
    def make(data, size=(1000, 700), query=0):
        session = StandInSession()
        session.set_text(" ".join(data.tokens))
        session.model_view_data = data
        session.select(query=query)
        return make_panel(ModelViewPanel, session=session, size=size)

    return make


def test_without_a_model_the_panel_says_how_to_open_one(make_panel):
    panel = make_panel(ModelViewPanel)
    assert panel.session.model_view_data is None
    assert panel.showing_hint() and "model" in panel.hint.text().lower()
    assert panel.objectName() == "modelViewPanel" and panel.title == "Model view: every layer and head"


def test_every_tile_is_its_heads_weights_with_empty_gaps(model_view):
    data = fake_data(3, 4, 5, layer=1, head=2)
    panel = model_view(data)
    grid = panel.grid
    values = grid.values
    drawn = np.zeros(values.shape, dtype=bool)
    for l in range(3):
        for h in range(4):
            r = panel.tile_rect(l, h)
            x, y = int(r.left()), int(r.top())
            np.testing.assert_array_equal(values[y:y + 5, x:x + 5], data.weights[l, h])
            drawn[y:y + 5, x:x + 5] = True
            # "auto": each tile from 0 to its own largest weight
            high = np.broadcast_to(grid.levels[1], values.shape)[y:y + 5, x:x + 5]
            assert np.allclose(high, max(max(row) for row in data.weights[l, h].tolist()))
    assert np.isnan(values[~drawn]).all()
    assert [t for _, t in panel.layer_labels] == ["layer 1", "layer 2", "layer 3"]
    assert [t for _, t in panel.head_labels] == ["head 1", "head 2", "head 3", "head 4"]
    assert grid.outlines["current"].rect == panel.tile_rect(1, 2)


def test_clicking_a_tile_steps_into_that_head(model_view, qtbot):
    data = fake_data(2, 3, 6)
    panel = model_view(data)
    asked, clicked = [], []
    panel.session.select_model_head = lambda layer, head: asked.append((layer, head))
    panel.headClicked.connect(lambda layer, head: clicked.append((layer, head)))
    view = panel.canvas
    point = view.mapFromScene(panel.scene_pos_of_tile(1, 2))
    QTest.mouseMove(view.viewport(), point)
    settle()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    settle()
    assert asked == [(1, 2)] and clicked == [(1, 2)]
    # the model steps in: the outline follows
    data.layer, data.head = 1, 2
    panel.session.modelViewChanged.emit(data)
    settle()
    assert panel.grid.outlines["current"].rect == panel.tile_rect(1, 2)
    assert "layer 2, head 3" in panel.info.text()


def test_select_model_head_without_a_model_does_nothing():
    session = Session()
    assert session.model_view_data is None
    session.select_model_head(0, 0)  # no model: nothing to step into, and no error


def test_hovering_a_tile_says_where_the_selected_query_looks_most(model_view):
    data = fake_data(2, 2, 8)
    panel = model_view(data, query=3)
    l, h = 1, 0
    panel.grid.hover_at(panel.scene_pos_of_tile(l, h))
    row = data.weights[l, h, 3].tolist()
    j = row.index(max(row))
    want = f"layer 2, head 1: '{data.tokens[3]}' looks most at '{data.tokens[j]}' ({max(row):.2f})"
    assert panel.hover_text == want and want in panel.info.text()
    panel.grid.hover_at(panel.grid.mapToScene(QtCore.QPointF(-50, -50)))
    assert panel.hover_tile is None and "Shown in every panel" in panel.info.text()


def test_a_knocked_out_head_is_veiled_and_masked_cells_have_the_mask_look(model_view):
    data = fake_data(2, 3, 5, causal=True, knocked_out=frozenset({(0, 1)}))
    panel = model_view(data)
    assert panel.grid.veils == [panel.tile_rect(0, 1)]
    r = panel.tile_rect(1, 2)
    assert panel.grid.mask_path(MASK_CAUSAL).contains(QtCore.QPointF(r.left() + 3.5, r.top() + 0.5))
    assert not panel.grid.mask_path().contains(QtCore.QPointF(r.left() + 0.5, r.top() + 3.5))
    panel.grid.hover_at(panel.scene_pos_of_tile(0, 1))
    assert "knocked out" in panel.hover_text


@pytest.mark.parametrize("L, H, n", [(6, 12, 16), (12, 12, 16), (6, 12, 40), (12, 12, 40)])
@pytest.mark.parametrize("size", [(520, 330), (1000, 700)])
def test_names_stay_legible_and_the_tiles_inside(model_view, L, H, n, size):
    panel = model_view(fake_data(L, H, n), size=size)
    settle()
    fm = panel._metrics
    px_x, px_y = panel.grid.cell_px()
    layers = [p for p, _t in panel.layer_labels]
    heads = [(p, t) for p, t in panel.head_labels]
    assert len(layers) == L  # every layer named
    assert len(heads) >= H / 2  # every head, or every other one
    assert all((b - a) * px_y >= fm.height() for a, b in zip(layers, layers[1:]))
    widest = max(fm.horizontalAdvance(t) for _p, t in heads)
    assert all((b[0] - a[0]) * px_x >= widest for a, b in zip(heads, heads[1:]))
    rows, cols = panel.grid.values.shape
    cells = panel.canvas.mapFromScene(panel.grid.mapRectToScene(QtCore.QRectF(0, 0, cols, rows))).boundingRect()
    assert QtCore.QRectF(panel.canvas.viewport().rect()).adjusted(-1, -1, 1, 1).contains(QtCore.QRectF(cells))
    tile = panel.canvas.mapFromScene(panel.grid.mapRectToScene(panel.tile_rect(0, 0))).boundingRect()
    assert tile.width() >= 14  # a tile, not a speck


def test_a_long_sentence_shrinks_each_tile_to_its_block_maxima(model_view, qtbot):
    from qkv_engine.views import pooled

    data = fake_data(2, 3, 120, causal=True)
    panel = model_view(data, size=(520, 400), query=50)
    L, H, n, m, _gap = panel._shape
    assert n <= 48 and m <= 48 and panel._factor == 3
    r = panel.tile_rect(1, 2)
    x, y = int(r.left()), int(r.top())
    np.testing.assert_allclose(panel.grid.values[y:y + n, x:x + m],
                               pooled(np.where(data.allowed, data.weights[1, 2], 0.0), 3))
    # the selected query's row is outlined in the current head's tile, where its block is drawn
    assert panel.grid.outlines["query"].rect.top() == panel.tile_rect(0, 0).top() + 50 // 3
    asked = []
    panel.session.select_model_head = lambda layer, head: asked.append((layer, head))
    view = panel.canvas
    point = view.mapFromScene(panel.scene_pos_of_tile(0, 1))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    settle()
    assert asked == [(0, 1)]


def test_choosing_another_head_keeps_the_tiles_drawn(model_view):
    data = fake_data(2, 2, 6)
    panel = model_view(data)
    values = panel.grid.values
    data.layer, data.head = 1, 1
    panel.session.modelViewChanged.emit(data)
    settle()
    assert panel.grid.values is values  # only the outline moved
    assert panel.grid.outlines["current"].rect == panel.tile_rect(1, 1)


def test_a_longer_sentence_renames_the_heads_for_its_smaller_tiles(model_view):
    """A sentence long enough for its tiles to be shrunk (block maxima) after a short one: the heads' names are
    measured on the new tiles, so none runs into the next (they were measured on the old, larger ones)."""
    short = fake_data(6, 12, 8)
    panel = model_view(short, size=(430, 300))
    long = fake_data(6, 12, 64)
    panel.session.set_text(" ".join(long.tokens))
    panel.session.model_view_data = long
    panel.session.modelViewChanged.emit(long)
    settle()
    L, H, n, m, gap = panel._shape
    assert panel._factor > 1
    tile_w = (m + gap) * panel.grid.cell_px()[0]
    fm = QtGui.QFontMetricsF(panel.plot.getAxis("top").style["tickFont"])
    assert panel.head_labels and all(fm.horizontalAdvance(text) + 4 <= tile_w for _, text in panel.head_labels)


def test_many_layers_scroll_rather_than_shrink_and_the_head_shown_stays_in_sight(model_view):
    """A model of SmolLM2's 30 layers x 9 heads in a low dock (a 1024 x 768 screen) had 2-pixel tiles; the tiles
    keep MIN_TILE_PX and the view scrolls, to the head every panel shows when another is chosen."""
    from qkv_gui.panels.labs.model_view import MIN_TILE_PX

    data = fake_data(30, 9, 12)
    panel = model_view(data, size=(400, 300))
    settle()
    scroll = panel.canvasScroll

    def on_screen(layer, head):
        rect = panel.canvas.mapFromScene(panel.grid.mapRectToScene(panel.tile_rect(layer, head))).boundingRect()
        assert rect.height() >= MIN_TILE_PX - 1 and rect.width() >= MIN_TILE_PX - 1
        return shown_whole(panel.canvas, scroll.viewport(), rect)

    assert scroll.verticalScrollBar().maximum() > 0 and on_screen(0, 0) and not on_screen(25, 4)
    data.layer, data.head = 25, 4  # the model box steps into layer 26
    panel.session.modelViewChanged.emit(data)
    settle()
    assert on_screen(25, 4)
    small = model_view(fake_data(4, 8, 12), size=(400, 300))  # a small model fits whole, as before
    settle()
    assert small.canvasScroll.verticalScrollBar().maximum() == 0
