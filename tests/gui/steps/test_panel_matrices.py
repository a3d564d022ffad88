"""Everything as matrices: each grid shows its matrix and shape, the selection is outlined, 512 stays fast."""

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from qkv_gui.drawing.cell_grid import MAX_NUMBERS
from qkv_gui.panels.steps.matrices import MatricesPanel
from tests.gui.conftest import ALONE, IN_GRID, settle
from tests.gui.support.edit_history import followed_and_fresh

Qt = QtCore.Qt



@pytest.fixture
def panel(make_panel):
    """The panel on its own Session (the app's default example), at its size in the panel grid."""
    return make_panel(MatricesPanel, size=IN_GRID)


def expected_grids(sc):
    q, k, v = sc.x @ sc.w_q, sc.x @ sc.w_k, sc.x @ sc.w_v
    scores = q @ k.T
    z = scores / np.sqrt(sc.d_k)
    w = np.exp(z - z.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    return {"x": sc.x, "q": q, "k": k, "v": v, "kt": k.T, "scores": scores, "weights": w}


def test_grids_hold_the_matrices_with_their_shapes(panel, qtbot):
    assert panel.session.set_cell("w_k", 1, 0, "0.9")
    settle(qtbot)
    sc = panel.session.scenario
    n, dm, dk, dv = sc.n, sc.d_model, sc.d_k, sc.d_v
    for name, want in expected_grids(sc).items():
        np.testing.assert_allclose(panel.grids[name].image.image, want, atol=1e-12, err_msg=name)
    titles = {name: view.titleItem.text for name, view in panel.grids.items()}
    assert f"{n} × {dm}" in titles["x"] and "<b>X</b>" in titles["x"]
    assert f"{n} × {dk}" in titles["q"] and f"{n} × {dk}" in titles["k"] and f"{n} × {dv}" in titles["v"]
    assert f"{dk} × {n}" in titles["kt"] and "K<sup>T</sup>" in titles["kt"]
    assert f"{n} × {n}" in titles["scores"] and f"{n} × {n}" in titles["weights"]
    chain = panel._chain[0]
    assert f"{n} × <b>{dk}</b>" in chain and f"<b>{dk}</b> × {n}" in chain and f"{n} × {n}" in chain


def test_numbers_and_token_strips_when_they_fit(panel, qtbot):
    panel.resize(*ALONE)
    settle(qtbot)
    sc = panel.session.scenario
    weights = panel.grids["weights"]
    assert weights.shown_numbers == sc.n * sc.n
    written = [text for _i, _j, text in weights.image.number_texts()]
    assert written == [f"{w:.2f}" for w in expected_grids(sc)["weights"].ravel()]
    x = panel.grids["x"]
    assert [item.textItem.toPlainText() for item in x.rowTokens.items[: sc.n]] == list(sc.tokens)
    # Token strips are drawn in the role colour of their grid (a pixel of the picture, beside the names).
    picture = panel.canvas.grab().toImage()
    for name, role in (("x", "#F2C94C"), ("q", "#8C9EFF"), ("k", "#FF8A65"), ("v", "#5FC9A0")):
        strip = panel.grids[name].rowStrip
        at = panel.canvas.mapFromScene(strip.mapToScene(strip.rect().topLeft())) + QtCore.QPoint(1, 1)
        ratio = picture.devicePixelRatio()
        assert picture.pixelColor(int(at.x() * ratio), int(at.y() * ratio)).name().upper() == role, name


def test_token_strips_follow_a_new_word_and_keep_their_names_through_new_numbers(panel, qtbot):
    panel.resize(*ALONE)
    settle(qtbot)
    x = panel.grids["x"]
    names = lambda: [item.textItem.toPlainText() for item in x.rowTokens.items[: panel.session.scenario.n]]  # noqa: E731
    words = list(panel.session.scenario.tokens)
    panel.session.set_text(" ".join(["zebra", *words[1:]]))  # as many tokens, one new word
    settle(qtbot)
    assert names() == ["zebra", *words[1:]]
    assert panel.session.set_cell("x", 0, 0, "-12.5")  # new numbers only: the names stay
    settle(qtbot)
    assert names() == ["zebra", *words[1:]]
    assert panel.grids["x"].image.image[0, 0] == -12.5


def test_selection_outlined_and_clicks_select(make_panel, qtbot):
    from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel

    panel = make_panel(MatricesPanel, size=ALONE)  # shown alone
    session = panel.session
    heatmap = make_panel(HeatmapPanel, session=session, size=IN_GRID)  # another panel on the session ...
    heatmap.hide()  # ... hidden, as when the matrices are shown alone
    session.select(query=2, key=1)
    settle(qtbot)
    rects = panel.selected_rects
    n = session.result.n
    assert rects["q"]["row_i"].top() == 2 and rects["k"]["row_j"].top() == 1
    assert rects["kt"]["col_j"].left() == 1
    assert rects["weights"]["row_i"] == QtCore.QRectF(0, 2, n, 1)
    assert rects["weights"]["col_j"] == QtCore.QRectF(1, 0, 1, n)
    # A real click on cell (0, 2) of the weights grid selects query 1 and key 3 everywhere.
    view = panel.grids["weights"]
    scene_pos = view.vb.mapViewToScene(QtCore.QPointF(2.5, 0.5))
    QTest.mouseClick(panel.canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     panel.canvas.mapFromScene(scene_pos))
    settle(qtbot)
    assert (session.selection.query, session.selection.key) == (0, 2)
    heatmap.show()  # the heatmap catches up when it is shown again
    settle(qtbot)
    assert heatmap.image.outlines["cell"].rect == QtCore.QRectF(2, 0, 1, 1)


def test_512_tokens_as_images(panel, qtbot):
    panel.session.set_text(" ".join(f"w{i}" for i in range(512)))
    settle(qtbot)
    assert panel.grids["weights"].image.image.shape == (512, 512)
    assert panel.grids["kt"].image.image.shape == (panel.session.scenario.d_k, 512)
    for view in panel.grids.values():
        assert view.shown_numbers == 0
        assert view.image.drawn_numbers <= MAX_NUMBERS
    panel.show_result(panel.session.result, panel.session.selection)
    panel.grab()


def _cells_on_canvas(panel, view) -> QtCore.QRectF:
    """Where a grid's cells (all of them, not its view box) are drawn, in the canvas's pixels."""
    n, m = view.values.shape
    scene = view.image.mapRectToScene(QtCore.QRectF(0, 0, m, n))
    return QtCore.QRectF(panel.canvas.mapFromScene(scene).boundingRect())


@pytest.mark.parametrize("tokens", [20, 40])
@pytest.mark.parametrize("size", [(330, 230), (520, 330), (1000, 700)])
def test_every_grid_is_whole_at_20_and_40_tokens(make_panel, tokens, size):
    # V and the weights were cut off at the right at 20+ tokens: the picture must fit (scaled down if need be)
    from qkv_engine import presets
    from qkv_gui.state.session import Session

    session = Session(presets.load("pronoun"))
    session.set_text(" ".join(f"w{i}" for i in range(tokens)))
    settle()  # the result is there before the panel is (as when a panel is shown after an edit)
    panel = make_panel(MatricesPanel, session=session, size=size)
    settle(rounds=6)
    shown = QtCore.QRectF(panel.canvas.viewport().rect()).adjusted(-1, -1, 1, 1)
    for name in ("x", "q", "k", "v", "kt", "scores", "weights"):
        view = panel.grids[name]
        cells = _cells_on_canvas(panel, view)
        assert cells.width() > 4 and cells.height() > 4, (name, cells)
        assert shown.contains(cells), (name, cells, shown)
    assert panel.grids["weights"].values.shape == (tokens, tokens)


def test_masked_weights_have_the_mask_look_and_no_number(make_panel):
    from qkv_engine import presets
    from qkv_engine.attention import MASK_CAUSAL
    from qkv_gui.state.session import Session

    session = Session(presets.load("seed-the-cat-sat"))
    session.set_option(causal=True)
    panel = make_panel(MatricesPanel, session=session, size=(1000, 700))
    weights = panel.grids["weights"]
    path = weights.image.mask_path(MASK_CAUSAL)
    for i in range(3):
        for j in range(3):
            assert path.contains(QtCore.QPointF(j + 0.5, i + 0.5)) == (j > i)
    written = {(i, j) for i, j, _text in weights.image.number_texts()}
    assert written == {(i, j) for i in range(3) for j in range(3) if j <= i}


def test_empty_sentence_shows_hint(panel, qtbot):
    panel.session.set_text("")
    settle(qtbot)
    assert panel.showing_hint()


# ----- a trained model's sizes ----------------------------------------------------------------------------
def test_a_real_models_grids_are_colour_with_their_biases_said(make_panel, make_session):
    from tests.gui.support.big_dims import big_panel, problems, reference, texts_shown

    panel, s = big_panel(make_panel, make_session, MatricesPanel)
    ref = reference(s)
    for name, want in (("x", s.x), ("q", ref["q"]), ("k", ref["k"]), ("v", ref["v"]), ("kt", ref["k"].T),
                       ("scores", ref["scores"]), ("weights", ref["weights"])):
        np.testing.assert_allclose(panel.grids[name].image.image, want, atol=1e-9, err_msg=name)
    # 30 x 384 numbers: colour only, on a scale that ends where 98% of them do (the rest get the end colours)
    assert panel.grids["x"].image.shown_numbers == 0
    low, high = panel.grids["x"].image.levels
    sizes = np.sort(np.abs(s.x).reshape(-1))
    assert low == -high and sizes[int(0.97 * sizes.size)] <= high <= sizes[-1]
    assert "Q = X W<sup>Q</sup> + b<sup>Q</sup>" in panel._chain[0] and "b<sup>Q</sup>" in panel._chain[1]
    assert texts_shown(panel) < 120
    assert not problems(panel), problems(panel)
    panel.resize(330, 230)
    settle()
    assert "b<sup>Q</sup>" in panel.chain.text()
    assert not problems(panel), problems(panel)


# ----- an edit redraws what it changed, and the picture still follows everything ---------------------------
def _picture(panel):
    settle()
    return panel.canvas.grab().toImage()


def test_after_many_edits_the_panel_looks_as_one_built_for_where_they_ended(make_panel):
    """The panel keeps what it drew (strips, outlines, words, pictures of its names) and sets again only what
    an edit changed: after a long history (``edit_history``) it shows what a panel built at its end shows,
    pixel for pixel."""
    first, fresh = followed_and_fresh(make_panel, MatricesPanel)
    assert first._chain == fresh._chain
    assert first.selected_rects == fresh.selected_rects
    titles = lambda panel: [view.titleItem.text for view in panel.grids.values()]  # noqa: E731
    assert titles(first) == titles(fresh)
    assert _picture(first) == _picture(fresh)
    # ... and back to the standard look: the names, titles and strips follow again
    from qkv_gui.look import style

    for panel in (first, fresh):
        panel.set_colours(style.STANDARD)
        panel.set_theme(style.SCREEN)
    assert _picture(first) == _picture(fresh)


def test_a_number_of_w_v_sets_only_the_v_grid_again(panel, qtbot, monkeypatch):
    """A number of W^V changes V alone: the other grids keep their pictures and outlines (nothing of them is
    set again, so nothing of them is painted again)."""
    calls = []
    for name, view in panel.grids.items():
        for method in ("setData", "set_outlines"):
            original = getattr(view.image, method)
            monkeypatch.setattr(view.image, method,
                                lambda *a, _o=original, _n=name, _m=method, **k: (calls.append((_n, _m)), _o(*a, **k)))
    assert panel.session.set_cell("w_v", 0, 1, "0.77")
    settle(qtbot)
    assert calls == [("v", "setData")]
    np.testing.assert_allclose(panel.grids["v"].image.image, expected_grids(panel.session.scenario)["v"], atol=1e-12)
    panel.session.select(query=1, key=0)  # a new selection moves the outlines, and sets no numbers
    settle(qtbot)
    assert {m for _n, m in calls[1:]} == {"set_outlines"}
    assert panel.selected_rects["v"]["row_j"] == QtCore.QRectF(0, 0, panel.session.scenario.d_v, 1)


def test_k_transposed_is_coloured_on_ks_scale(panel, qtbot):
    """Kᵀ holds K's numbers, so it takes K's colour scale: ± the largest size of K (a small grid)."""
    assert panel.session.set_cell("w_k", 0, 0, "2.5")
    settle(qtbot)
    k = expected_grids(panel.session.scenario)["k"]
    top = float(np.max(np.abs(k)))
    assert panel.grids["k"].image.levels == (-top, top)
    assert panel.grids["kt"].image.levels == (-top, top)
