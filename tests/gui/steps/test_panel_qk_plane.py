"""Panel 3–5 (query, key and their dot product): arrows, angle, numbers and meter match the result."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6 import QtCore

from qkv_engine import explain

from qkv_gui.panels.steps.qk_plane import QKPlanePanel
from qkv_gui.drawing.text_label import TextLabel
from tests.gui.conftest import ALONE, IN_GRID, settle

Qt = QtCore.Qt


@pytest.fixture
def panel(make_panel):
    """The panel on its own Session (the app's default example), at its size in the panel grid."""
    return make_panel(QKPlanePanel, size=IN_GRID)


def test_arrows_numbers_and_meter_in_two_dimensions(panel):
    panel.session.select(query=1, key=2)
    settle()
    d = panel.drawn()
    r = panel.session.result
    q, k = np.asarray(r.q[1]), np.asarray(r.k[2])
    assert d["exact"] and d["note"] == ""
    # d_k = 2: the arrow tips are the vectors themselves
    np.testing.assert_allclose(d["q_tip"], q)
    np.testing.assert_allclose(d["k_tip"], k)
    # numbers, recomputed with numpy
    nq, nk = np.linalg.norm(q), np.linalg.norm(k)
    cos = float(q @ k / (nq * nk))
    assert d["numbers"]["|q|"] == f"{nq:.4f}"
    assert d["numbers"]["|k|"] == f"{nk:.4f}"
    assert d["numbers"]["cos θ"] == explain.fixed(cos, 4)
    assert d["numbers"]["θ"] == f"{math.degrees(math.acos(cos)):.1f}°"
    assert d["numbers"]["score"] == explain.fixed(float(q @ k), 4)
    assert d["worked"] == explain.score(r, 1, 2).text
    # the shaded wedge spans the true angle (the plane is exact)
    start, span = d["wedge"]
    assert math.isclose(abs(span), math.degrees(math.acos(cos)), abs_tol=1e-6)
    assert math.isclose(start, math.degrees(math.atan2(q[1], q[0])), abs_tol=1e-9)
    # the meter: the score against the largest |score| of the row
    value, limit, fraction = d["meter"]
    assert value == float(r.scores[1, 2])
    assert math.isclose(limit, float(np.abs(np.asarray(r.q[1]) @ np.asarray(r.k).T).max()), rel_tol=1e-12)
    assert math.isclose(fraction, value / limit)
    # the other keys are faint dots at their own key vectors, labelled (few tokens)
    assert set(d["others"]) == {0, 1}
    for m, p in d["others"].items():
        np.testing.assert_allclose(p, r.k[m])
    assert d["other_labels"] == [f"k '{r.tokens[0]}'", f"k '{r.tokens[1]}'"]
    # equal scales: the view box keeps a 1:1 aspect ratio
    vb = panel.plot.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    assert math.isclose((x1 - x0) / vb.width(), (y1 - y0) / vb.height(), rel_tol=0.02)


def test_projection_note_says_how_much_is_kept(make_panel):
    panel = make_panel(QKPlanePanel, preset="seed-numpy-demo", size=IN_GRID)  # d_k = 4
    panel.session.select(query=2, key=0)
    settle()
    d = panel.drawn()
    r = panel.session.result
    q, k = np.asarray(r.q[2]), np.asarray(r.k[0])
    assert not d["exact"]
    # the plane of q and k: q points right, and both keep their lengths and the angle between them
    assert d["q_tip"][1] == pytest.approx(0.0, abs=1e-12) and d["q_tip"][0] == pytest.approx(np.linalg.norm(q))
    assert math.hypot(*d["k_tip"]) == pytest.approx(np.linalg.norm(k))
    cos = float(q @ k) / (np.linalg.norm(q) * np.linalg.norm(k))
    assert abs(d["wedge"][1]) == pytest.approx(math.degrees(math.acos(cos)), abs=1e-6)
    # every other key sits as far right as its score over |q|
    for m, (x, _y) in d["others"].items():
        assert x == pytest.approx(float(q @ r.k[m]) / np.linalg.norm(q))
    # kept, independently: the keys' squared length left on the plane of q and k (Gram-Schmidt here)
    e1 = q / np.linalg.norm(q)
    e2 = k - (k @ e1) * e1
    e2 /= np.linalg.norm(e2)
    kept = sum((key @ e1) ** 2 + (key @ e2) ** 2 for key in np.asarray(r.k)) / float((np.asarray(r.k) ** 2).sum())
    assert math.isclose(d["kept"], kept, rel_tol=1e-9)
    assert f"{kept * 100:.1f}%" in d["note"]
    assert "plane of q and k" in d["note"] and "d_k = 4" in d["note"]
    assert d["axes"] == ("along q", "at right angles to q, towards k")
    # the printed numbers are the exact 4-D ones
    assert d["numbers"]["|q|"] == f"{np.linalg.norm(q):.4f}"
    assert d["numbers"]["score"] == explain.fixed(float(q @ k), 4)
    assert panel.note.isVisible()


def test_clicking_a_faint_key_selects_it(panel, make_panel, qtbot):
    from qkv_gui.panels.steps.scaling_bars import ScalingPanel

    session = panel.session
    scaling = make_panel(ScalingPanel, session=session, size=IN_GRID)  # another panel on the session
    r = session.result
    assert session.selection.key == 0
    target = panel.drawn()["others"][2]
    vb = panel.plot.getPlotItem().getViewBox()
    scene_pt = vb.mapViewToScene(QtCore.QPointF(*target))
    widget_pt = panel.plot.mapFromScene(scene_pt)
    qtbot.mouseClick(panel.plot.viewport(), Qt.MouseButton.LeftButton, pos=widget_pt)
    settle()
    assert session.selection.key == 2
    d = panel.drawn()
    np.testing.assert_allclose(d["k_tip"], r.k[2])
    # the other panels follow
    assert scaling.drawn()["key"] == 2


def test_zero_length_query_has_no_angle(panel):
    s = panel.session
    for row in range(s.scenario.d_model):
        for col in range(s.scenario.d_k):
            s.set_cell("w_q", row, col, 0.0)
    settle()
    d = panel.drawn()
    assert d["numbers"]["θ"] == "undefined"
    assert d["numbers"]["|q|"] == "0.0000"
    assert d["wedge"] is None and d["theta_label"] is None
    assert "undefined" in d["note"]


def test_many_tokens_draws_without_labels(panel):
    panel.session.set_text(" ".join(f"w{i}" for i in range(512)))
    settle()
    d = panel.drawn()
    r = panel.session.result
    assert len(d["others"]) == 511
    assert d["other_labels"] == []
    np.testing.assert_allclose(d["q_tip"], r.q[0])


def test_a_longer_sentence_leaves_no_name_of_the_last_one_on_the_plane(make_panel):
    """From three tokens (the other keys named) to sixteen (too many to name): no old name stays drawn. A
    new range placed the names from the last sentence's list and showed "k 'cat'" again."""
    panel = make_panel(QKPlanePanel, preset="seed-the-cat-sat")
    assert [item.text() for item in panel.other_labels.items if item.isVisible()] == ["k 'cat'", "k 'sat'"]
    panel.session.load_preset("long-sentence")
    settle()
    keys = set(panel.session.scenario.tokens)
    shown = [item.text() for item in panel.plot.scene().items()
             if isinstance(item, TextLabel) and item.isVisible() and item.text().startswith("k '")]
    assert shown == [panel.drawn()["key_label"]]
    assert all(text[3:-1] in keys for text in shown)


def test_empty_sentence_shows_the_hint(panel):
    panel.session.set_text("")
    settle()
    assert panel.showing_hint()



@pytest.mark.slow
def test_plane_layout_settles_for_huge_numbers_at_any_size(panel):
    """Equal scales tie the plane's range to its size, and the range to the width of the left axis' tick
    labels. With keys spread over millions the labels change width as the range changes; that must not
    make the layout bounce between two sizes forever (the app hung at full CPU at such sizes)."""
    from PySide6 import QtWidgets
    from qkv_engine import Scenario
    x = [[0.19, -0.76], [0.66, -0.21], [0.19, -0.76], [0.53, -0.93], [-0.21, 0.22], [0.79, 0.54],
         [-0.04, -0.1], [0.95, 0.73]]
    scenario = Scenario(tokens=tuple("abcdefgh"), x=np.array(x), w_q=np.array([[0.97, -0.82], [-0.39, -0.25]]),
                        w_k=np.array([[-0.8, -0.44], [-1e6, -0.45]]), w_v=np.eye(2))
    panel.session.set_scenario(scenario)
    panel.session.select(0, 0)
    settle()
    vb = panel.plot.getPlotItem().getViewBox()
    app = QtWidgets.QApplication.instance()
    resized, bouncing = [0], []

    class Count(QtCore.QObject):
        def eventFilter(self, obj, event):
            if obj is vb and event.type() == QtCore.QEvent.Type.GraphicsSceneResize:
                resized[0] += 1
                if resized[0] > 300:  # bouncing: break the loop so the test can report it
                    bouncing.append(panel.plot.size().toTuple())
                    vb.setAspectLocked(False)
            return False

    counter = Count()
    app.installEventFilter(counter)
    try:
        for height in (200, 220, 240, 260, 280):
            for width in range(150, 210, 2):
                resized[0] = 0
                panel.plot.setFixedSize(width, height)
                for _ in range(8):
                    app.processEvents()
                vb.setAspectLocked(True, 1.0)
    finally:
        app.removeEventFilter(counter)
        panel.plot.setMinimumSize(120, 100)
        panel.plot.setMaximumSize(16777215, 16777215)
    assert bouncing == []


def test_meter_ends_stay_apart_for_huge_scores(panel):
    """Scores in the hundreds of thousands: the dial's two end labels are shortened so they do not run
    into each other, and still name the largest |score| of the row."""
    from PySide6 import QtGui
    panel.session.set_cell("w_k", 1, 0, "-1e6")
    panel.session.select(2, 0)
    settle()
    meter = panel.meter
    meter.repaint()
    limit = float(np.abs(np.asarray(panel.session.result.scores[2])).max())
    neg, pos = meter.end_texts
    fm = QtGui.QFontMetricsF(meter.font())
    assert 2 * max(fm.horizontalAdvance(neg), fm.horizontalAdvance(pos)) + 4 <= meter.width()
    assert neg.startswith("-") and pos.startswith("+")
    if "…" not in pos:
        assert math.isclose(float(pos[1:]), limit, rel_tol=5e-3)


@pytest.mark.parametrize("size", [(390, 275), (330, 230), (520, 330)])
def test_meter_labels_never_overlap_on_a_small_dial(make_panel, size):
    """A short panel makes the dial small: its end numbers (here -6.0000 and +6.0000, 'Who is it?') and the
    words 'against' and 'for' move out beyond its ends rather than run into each other."""
    panel = make_panel(QKPlanePanel, preset="designed-it", size=size)
    tokens = panel.session.scenario.tokens
    panel.session.select(tokens.index("it"), tokens.index("animal"))
    settle()
    meter = panel.meter
    meter.repaint()
    for row, (left, right) in meter.end_boxes.items():
        assert left.right() < right.left(), (row, meter.end_texts, meter.width())
        assert left.left() >= 0 and right.right() <= meter.width() + 0.5


def test_arrow_names_do_not_sit_on_each_other(panel):
    """Query and key arrows pointing the same way (here the same vector: W^Q = W^K, key = query token):
    the key's name moves to another corner of its tip, clear of the query's name, inside the plot."""
    from qkv_engine import Scenario
    x = np.array([[0.2, 0.7, 0.1, 0.9], [0.9, 0.1, 0.8, 0.3], [0.1, 0.4, 0.2, 0.5]])
    w = np.array([[0.6, 0.1], [0.2, 0.5], [0.3, 0.3], [0.1, 0.7]])
    panel.session.set_scenario(Scenario(tokens=("The", "cat", "sat"), x=x, w_q=w, w_k=w, w_v=np.eye(4)[:, :3]))
    panel.session.select(1, 1)
    settle()
    d = panel.drawn()
    np.testing.assert_allclose(d["q_tip"], d["k_tip"])
    qlabel, klabel = panel.arrows["query"][2], panel.arrows["key"][2]
    assert qlabel.isVisible() and klabel.isVisible()
    qrect, krect = qlabel.scene_rect(panel._to_scene()), klabel.scene_rect(panel._to_scene())
    assert not qrect.intersects(krect)
    box = panel.plot.getPlotItem().getViewBox().sceneBoundingRect()
    assert box.contains(krect)


# ----- a trained model's sizes, and named columns ---------------------------------------------------------
def test_a_real_models_size_on_the_plane_of_q_and_k(make_panel, make_session):
    from qkv_gui.panels.steps.qk_plane import QKPlanePanel

    from tests.gui.support.big_dims import big_panel, problems, texts_shown

    panel, s = big_panel(make_panel, make_session, QKPlanePanel, query=4, key=17)
    session = panel.session
    d = panel.drawn()
    r = session.result
    q, k = np.asarray(r.q[4]), np.asarray(r.k[17])
    assert d["q_tip"][0] == pytest.approx(np.linalg.norm(q)) and math.hypot(*d["k_tip"]) == pytest.approx(
        np.linalg.norm(k))
    assert "d_k = 32" in d["note"] and "%" in d["note"]
    # the sum of 32 products: its five largest named by their coordinate, the others summed
    products = q * k
    top = sorted(range(32), key=lambda c: -abs(products[c]))[:5]
    for c in top:
        assert f"[d{c + 1}]" in d["worked"]
    assert "(the other 27 terms)" in d["worked"] and d["worked"] == explain.score(r, 4, 17).text
    # the same terms as a row of cells, q_d k_d per coordinate (BertViz's neuron view), the named ones outlined
    products_shown, outlined = d["terms"]
    np.testing.assert_allclose(products_shown, products, atol=1e-12)
    assert sorted(outlined) == sorted(top)
    assert d["other_labels"] == []  # 29 other keys: dots, not names
    assert texts_shown(panel) < 40
    assert not problems(panel), problems(panel)
    panel.resize(330, 230)
    settle()
    assert panel.note.text() != d["note"] and "d_k = 32" in panel.note.text()  # the short note
    assert panel.drawn()["terms"] is None  # no room for the row of terms: the sum below says them
    # the worked sum to three lines at most, its result kept, whole in its tooltip
    shown = panel.worked.text()
    assert shown != d["worked"] and "…" in shown and shown.endswith(f"= {explain.fixed(float(q @ k), 4)}")
    assert panel.worked.toolTip() == d["worked"]
    from PySide6 import QtGui
    lines = panel.worked.heightForWidth(panel.worked.width()) / QtGui.QFontMetricsF(panel.worked.font()).lineSpacing()
    assert lines <= 3.2
    assert panel.note.toolTip() == d["note"]
    assert not problems(panel), problems(panel)


def test_named_columns_name_the_axes(make_panel):
    from qkv_gui.panels.steps.qk_plane import QKPlanePanel

    panel = make_panel(QKPlanePanel, preset="designed-it", size=(520, 330))
    d = panel.drawn()
    assert d["exact"]
    assert d["axes"] == ("1: looks for animate / is animate", "2: looks for a noun / is a noun")
    axis = panel.plot.getPlotItem().getAxis("bottom")
    assert axis.labelText == d["axes"][0]
    panel.resize(330, 230)
    settle()
    label = panel.plot.getPlotItem().getAxis("bottom").labelText
    assert label.endswith("…") and d["axes"][0].startswith(label[:-1])  # shortened, never cut


@pytest.mark.parametrize("preset,pair", [("seed-the-cat-sat", (0, 0)), ("pronoun", ("it", "animal"))])
def test_arrow_names_stay_inside_a_narrow_plot(make_panel, preset, pair):
    """At a projector's share of the window the names at the arrow tips were cut at the plot's edge."""
    from qkv_gui.panels.steps.qk_plane import QKPlanePanel

    from tests.gui.support.big_dims import problems

    panel = make_panel(QKPlanePanel, preset=preset, size=(330, 230))
    tokens = panel.session.scenario.tokens
    i, j = (tokens.index(p) if isinstance(p, str) else p for p in pair)
    panel.session.select(query=i, key=j)
    settle()
    box = panel.plot.getPlotItem().getViewBox().sceneBoundingRect().adjusted(-1, -1, 1, 1)
    for role in ("query", "key"):
        label = panel.arrows[role][2]
        assert label.isVisible() and box.contains(label.scene_rect(panel._to_scene())), role
    assert not problems(panel), problems(panel)


def test_the_numbers_beside_the_plane_are_never_cut(make_panel):
    """In a narrow panel with big text (presenter mode) "0.360" used to show for 0.3606: the column of
    numbers is as wide as its numbers need; only the rule under them is shortened."""
    from qkv_gui.look import style
    from qkv_gui.panels.steps.qk_plane import QKPlanePanel

    from tests.gui.support.big_dims import problems

    panel = make_panel(QKPlanePanel, preset="seed-the-cat-sat", size=(330, 230))
    for theme in (style.SCREEN, style.presenter(1.4), style.SLIDE):
        panel.set_theme(theme)
        settle()
        table = panel.numbers
        assert table.width() >= table.need_for_numbers(), theme.name
        assert not problems(panel), (theme.name, problems(panel))


def test_the_dial_takes_the_room_beside_the_plane(make_panel):
    """Shown alone (or in presenter mode) the number column has room to spare: the dial grows into it, up to
    its largest size, instead of staying a small half-circle above empty space."""
    panel = make_panel(QKPlanePanel, size=ALONE)
    meter = panel.meter
    assert meter.height() >= meter.maximumHeight() - 1
    assert meter.height() > 3 * meter.minimumHeight() // 2


# ----- what an edit leaves alone is still followed when it changes -----------------------------------------
def _edit_other_row(s, row: int, delta: float = 0.05) -> None:
    s.set_cell("x", row, 0, float(s.scenario.x[row, 0]) + delta)
    settle()


def test_an_edit_of_another_token_leaves_the_names_where_they_are(panel):
    """Neither arrow moves: the names stay where they were placed (and shown or hidden as before); the
    faint line to the edited token's key follows it."""
    s = panel.session
    s.select(query=0, key=1)
    settle()
    labels = [panel.arrows["query"][2], panel.arrows["key"][2], panel.theta_label] + panel.other_labels.items
    before = [(item.text(), item.pos().toTuple(), item.anchor.toTuple(), item.isVisible()) for item in labels]
    path_before = panel.other_lines.path().boundingRect()
    _edit_other_row(s, 2, 0.8)
    after = [(item.text(), item.pos().toTuple(), item.anchor.toTuple(), item.isVisible()) for item in labels]
    d = panel.drawn()
    np.testing.assert_allclose(d["others"][2], s.result.k[2])
    assert before[:3] == after[:3]
    # the faint lines reach every other key as it is now
    path = panel.other_lines.path()
    ends = {(round(path.elementAt(k).x, 9), round(path.elementAt(k).y, 9)) for k in range(1, path.elementCount(), 2)}
    assert ends == {(round(x, 9), round(y, 9)) for x, y in d["others"].values()}
    assert path.boundingRect() != path_before


def test_a_name_hidden_by_clutter_stays_hidden_after_an_edit_that_moves_nothing(panel):
    """The other keys' names are handed out by a pool that shows them; an edit that moves no name must not
    show again one that overlaps another."""
    s = panel.session
    # two keys at the same place: their names overlap, so one is hidden
    s.set_text("a b b c")
    s.select(query=0, key=0)
    settle()
    shown = [item.isVisible() for item in panel.other_labels.items[:3]]
    assert shown.count(False) >= 1
    s.set_cell("w_v", 0, 0, float(s.scenario.w_v[0, 0]) + 0.5)  # new values: no q or k moves
    settle()
    again = [item.isVisible() for item in panel.other_labels.items[:3]]
    assert again == shown
    texts = panel.drawn()["other_labels"]
    b_names = [v for t, v in zip(texts, again) if t == "k 'b'"]
    assert b_names.count(True) == 1, (texts, again)


def test_a_rename_and_a_narrower_plot_reach_the_axis_names(panel):
    s = panel.session
    axis = panel.plot.getPlotItem().getAxis("bottom")
    assert axis.labelText == "coordinate 1"
    s.set_column_name("q", 0, "looks for animals")
    settle()
    assert "looks for animals" in axis.labelText and "looks for animals" in axis.toolTip()
    _edit_other_row(s, 1)
    assert "looks for animals" in axis.labelText
    panel.resize(250, IN_GRID[1])
    settle()
    assert axis.labelText.endswith("…") and "looks for animals" in axis.toolTip()


def test_the_number_column_follows_a_bigger_font_and_a_wider_panel(panel):
    from qkv_gui.look import style

    s = panel.session
    width = panel.side.width()
    panel.set_theme(style.presenter(1.5))
    settle()
    _edit_other_row(s, 1)
    wide = panel.side.width()
    assert wide > width
    # the numbers are measured in the new font: the widest of them fits its column
    from PySide6 import QtGui

    table = panel.numbers
    bold = QtGui.QFont(table.font())
    bold.setBold(True)
    need = max(QtGui.QFontMetricsF(bold if b else table.font()).horizontalAdvance(v)
               for (_n, _r, b), v in zip(table.ROWS, table.values))
    assert table.width() >= need
    panel.set_theme(style.SCREEN)
    settle()
    assert panel.side.width() == width


def test_the_plane_grows_when_a_key_leaves_it(panel):
    s = panel.session
    vb = panel.plot.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    s.set_cell("x", 2, 0, 40.0)
    settle()
    d = panel.drawn()
    (nx0, nx1), (ny0, ny1) = vb.viewRange()
    for x, y in [*d["others"].values(), d["q_tip"], d["k_tip"]]:
        assert nx0 <= x <= nx1 and ny0 <= y <= ny1
    assert (nx1 - nx0) > (x1 - x0)


def _pixels(widget) -> bytes:
    from PySide6 import QtGui

    image = widget.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
    return bytes(image.constBits())


def _image(widget) -> np.ndarray:
    from PySide6 import QtGui

    image = widget.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
    return np.array(image.constBits(), copy=True).view(np.uint8).reshape(image.height(), image.width(), 4)


def _dial_drawn_afresh(meter) -> np.ndarray:
    """The dial as a new one of the same size, font, palette and value draws it without a kept picture."""
    from qkv_gui.panels.steps.qk_plane import RelevanceMeter

    fresh = RelevanceMeter(meter.parentWidget())
    fresh.setFont(meter.font())
    fresh.set_colours(meter.colours)
    fresh.set_value(meter.value, meter.limit, meter.value_text, meter.limit_text)
    fresh.setGeometry(meter.geometry())
    fresh._on_screen = lambda painter: False  # as into a figure: every part drawn
    fresh.show()
    settle()
    image = _image(fresh)
    fresh.deleteLater()
    return image


def test_the_dial_follows_the_score_the_palette_and_the_font(panel):
    """The dial's still parts are a picture drawn once: the needle still moves with the score, and the
    picture is drawn again in a new palette and a new font, as the dial drawn afresh looks (give or take
    the last bit of an edge's shade: the picture is laid over the ground, not drawn on it)."""
    from qkv_gui.look import style

    s = panel.session
    meter = panel.meter
    first = _image(meter)
    s.set_cell("x", s.selection.query, 0, float(s.scenario.x[s.selection.query, 0]) + 1.0)
    settle()
    assert (_image(meter) != first).any()  # the needle (and the numbers) moved
    for change in (lambda: panel.set_colours(style.palette("dark")), lambda: panel.set_theme(style.presenter(1.5)),
                   lambda: panel.set_colours(style.palette("standard"))):
        change()
        settle()
        kept, fresh = _image(meter).astype(int), _dial_drawn_afresh(meter).astype(int)
        assert kept.shape == fresh.shape
        assert np.abs(kept - fresh).max() <= 2


def test_the_faint_dots_follow_masks_palettes_and_moved_keys(panel):
    """The dots are set again only when they change: a mask, a palette or a moved key reaches them."""
    from PySide6 import QtGui

    from qkv_gui.look import style

    s = panel.session
    s.select(query=0, key=0)
    settle()
    dots = panel.other_dots
    fills = lambda: {b.color().name(QtGui.QColor.NameFormat.HexArgb) for b in dots._brushes}  # noqa: E731
    open_fill = fills()
    assert len(open_fill) == 1
    s.set_option(causal=True)  # query 0 may look at no later key: every other dot is hollow
    settle()
    assert panel.drawn()["masked"] == list(range(1, s.result.n))
    assert fills().isdisjoint(open_fill)
    s.set_option(causal=False)
    settle()
    assert fills() == open_fill and panel.drawn()["masked"] == []
    s.set_option(causal=True)
    settle()
    panel.set_colours(style.palette("dark"))  # the same masks, a new ground
    settle()
    dark = QtGui.QColor(style.palette("dark").background).name(QtGui.QColor.NameFormat.HexArgb)
    assert fills() == {dark}  # hollow dots in the dark palette's ground
    s.set_option(causal=False)
    s.set_cell("x", 2, 1, float(s.scenario.x[2, 1]) - 0.7)
    settle()
    others = list(panel.drawn()["others"])
    np.testing.assert_allclose(dots.positions()[others.index(2)], s.result.k[2])


def test_the_worked_numbers_are_the_engines_after_every_kind_of_edit(panel):
    """The engine's explanations are asked again only when the pair's vectors, score or names change: after
    each kind of edit the numbers and the worked sum are those of the result now."""
    s = panel.session
    s.select(query=1, key=2)
    settle()
    edits = [lambda: s.set_cell("x", 0, 0, float(s.scenario.x[0, 0]) + 0.4),  # another token: nothing moves
             lambda: s.set_cell("x", 1, 1, float(s.scenario.x[1, 1]) - 0.3),  # the query's own numbers
             lambda: s.set_cell("w_k", 0, 1, float(s.scenario.w_k[0, 1]) + 0.2),  # every key
             lambda: s.set_cell("w_v", 0, 0, float(s.scenario.w_v[0, 0]) + 0.2),  # values only
             lambda: s.select(query=2, key=1)]
    for edit in edits:
        edit()
        settle()
        r, (i, j) = s.result, (s.selection.query, s.selection.key)
        d = panel.drawn()
        q, k = np.asarray(r.q[i]), np.asarray(r.k[j])
        assert d["worked"] == explain.score(r, i, j).text
        assert d["numbers"]["|q|"] == f"{np.linalg.norm(q):.4f}" and d["numbers"]["|k|"] == f"{np.linalg.norm(k):.4f}"
        assert d["numbers"]["score"] == explain.fixed(float(q @ k), 4)
        assert explain.cosine(r, i, j).text in panel.numbers.toolTip()


# ----- a result that draws the same is skipped; what changes after it is followed ---------------------------
def _plot_pixels(panel) -> bytes:
    image = panel.plot.grab().toImage()  # kept while its bits are copied: a temporary's could be freed first
    return bytes(image.constBits())


def test_an_edit_of_the_values_draws_nothing_again_and_the_next_change_is_followed(panel, qtbot, monkeypatch):
    """An edit of W^V moves no query or key: nothing on the plane or beside it is set again. An edit of
    another token moves its dot but leaves the pair's numbers alone; a mask on the pair, a new column name,
    another palette and presenter mode after it are all followed, as a new panel shows them."""
    from qkv_gui.look import style
    from tests.gui.support.fresh_panel import assert_same_drawn, drawn_afresh

    s = panel.session
    s.select(query=1, key=2)
    settle()
    pairs, planes, asked = [], [], []
    real_pair, real_plane, real_asked = panel._show_pair, panel._draw_arrows, panel._explained
    monkeypatch.setattr(panel, "_show_pair", lambda *a: (pairs.append(a[1:3]), real_pair(*a))[1])
    monkeypatch.setattr(panel, "_draw_arrows", lambda *a: (planes.append(a), real_plane(*a))[1])
    monkeypatch.setattr(panel, "_explained", lambda *a: (asked.append(a[1:]), real_asked(*a))[1])
    drawn, pixels = panel.drawn(), _plot_pixels(panel)
    assert s.set_cell("w_v", 0, 0, float(s.scenario.w_v[0, 0]) + 0.5)
    settle()
    assert asked == [] and pairs == [] and planes == []  # not even looked at again
    assert str(panel.drawn()) == str(drawn) and _plot_pixels(panel) == pixels
    _edit_other_row(s, 0, 0.4)  # another token's key moves; the pair does not
    d = panel.drawn()
    assert asked == [(1, 2)] and pairs == [] and planes == []
    assert d["others"][0] == pytest.approx(tuple(s.result.k[0]))
    assert d["numbers"] == drawn["numbers"]
    assert d["meter"][1] == pytest.approx(float(np.abs(s.result.scores[1]).max()))  # the row's largest score
    assert s.toggle_blocked(1, 2)  # the pair is masked: said under the sum, its numbers unchanged
    settle()
    assert pairs == [(1, 2)] and "may not look at" in panel.drawn()["mask_note"]
    assert "may not look at" in panel.worked.text()
    s.set_column_name("k", 1, "is a noun")  # names the plane's second axis
    settle()
    assert panel.drawn()["axes"][1] == "2: is a noun"
    fresh = drawn_afresh(panel, qtbot)
    assert_same_drawn(panel.drawn(), fresh.drawn())
    fresh.close()
    panel.set_colours(style.DARK)
    settle()
    assert panel.numbers.colours is style.DARK and panel.meter.colours is style.DARK
    width = panel.side.width()
    panel.set_theme(style.presenter(1.5))
    settle()
    assert panel.side.width() > width  # bigger numbers: a wider column


def _numbers_drawn_afresh(table) -> np.ndarray:
    """The number column as it looks drawn without its kept picture of names (as into a figure)."""
    table._on_screen = lambda painter: False
    try:
        table.repaint()
        return _image(table)
    finally:
        del table._on_screen


def test_the_number_column_looks_as_drawn_afresh_through_edits_palettes_fonts_and_widths(panel):
    """The names and the rule beside the numbers are a picture drawn once: pixel for pixel the column is the
    one drawn without it, after an edit of the numbers, in another palette, in presenter mode and narrow
    (no rule under the numbers)."""
    from qkv_gui.look import style

    s = panel.session
    table = panel.numbers
    first = _image(table)
    steps = [lambda: s.set_cell("x", s.selection.query, 0, float(s.scenario.x[s.selection.query, 0]) + 1.0),
             lambda: panel.set_colours(style.DARK), lambda: panel.set_theme(style.presenter(1.5)),
             lambda: panel.resize(300, 260), lambda: panel.set_theme(style.SCREEN),
             lambda: panel.set_colours(style.STANDARD)]
    for k, step in enumerate(steps):
        step()
        settle()
        kept = _image(table)
        if k == 0:
            assert (kept != first).any()  # the numbers changed
        np.testing.assert_array_equal(kept, _numbers_drawn_afresh(table), err_msg=str(k))
    assert not table.show_rule  # (narrow)
