"""Panel 6 (why divide by √d_k): raw and scaled bars, the softmax curve, flat ends, masks, clicks."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6 import QtCore

from qkv_engine import explain

from qkv_gui.panels.steps.scaling_bars import ScalingPanel
from tests.gui.conftest import ALONE, IN_GRID, settle
from tests.gui.support.edit_history import followed_and_fresh


@pytest.fixture
def panel(make_panel):
    """The panel on its own Session (the app's default example), at its size in the panel grid."""
    return make_panel(ScalingPanel, size=IN_GRID)


def _weight_if(result, i, j, x):
    """Independent: key j's softmax weight if its scaled score were x, the other allowed scores fixed."""
    others = [float(result.scaled[i, m]) for m in range(result.n) if m != j and result.allowed[i, m]]
    row = np.array([x, *others])
    e = np.exp(row - row.max())
    return float(e[0] / e.sum())


def test_raw_and_scaled_bars_and_the_curve(panel):
    panel.session.select(query=2, key=1)
    settle()
    d = panel.drawn()
    r = panel.session.result
    q, k = np.asarray(r.q), np.asarray(r.k)
    raw = q[2] @ k.T  # independent of the engine
    divisor = math.sqrt(r.scenario.d_k)
    assert d["divisor"] == r.divisor
    assert sorted(d["raw_bars"]) == [0, 1, 2]
    np.testing.assert_allclose([d["raw_bars"][m] for m in range(3)], raw)
    np.testing.assert_allclose([d["scaled_bars"][m] for m in range(3)], raw / divisor)
    assert d["titles"][0] == "raw q·k"
    assert f"√{r.scenario.d_k}" in d["titles"][1] and explain.trimmed(divisor, 3) in d["titles"][1]
    # the curve behind: the weight key 1 would get as its score varies
    xs, ws = d["curve"]
    for x, w in list(zip(xs, ws))[::40]:
        assert math.isclose(w, _weight_if(r, 2, 1, x), rel_tol=1e-9)
    # the dots sit on the curve at key 1's raw and scaled scores
    x_raw, w_raw = d["raw_marker"]
    x_scaled, w_scaled = d["scaled_marker"]
    assert math.isclose(x_raw, raw[1]) and math.isclose(x_scaled, raw[1] / divisor)
    assert math.isclose(w_raw, _weight_if(r, 2, 1, x_raw), rel_tol=1e-9)
    assert math.isclose(w_scaled, _weight_if(r, 2, 1, x_scaled), rel_tol=1e-9)
    # the shaded flat ends: the curve's slope w(1 - w) is a tenth of its peak there
    low, high = d["edges"]
    for edge in (low, high):
        w = _weight_if(r, 2, 1, edge)
        assert math.isclose(w * (1 - w), 0.025, rel_tol=1e-6)
    assert d["x_range"][0] < low < high < d["x_range"][1]
    assert d["worked"] == f"'{r.tokens[1]}': " + explain.scaled(r, 2, 1).text
    assert "\n" not in d["message"] and len(d["message"]) < 110


def test_big_scores_land_in_the_flat_part(panel):
    s = panel.session
    s.set_option(scale=False)
    for row in range(s.scenario.d_model):
        for col in range(s.scenario.d_k):
            s.set_cell("w_q", row, col, 3.0)
            s.set_cell("w_k", row, col, 3.0 if row % 2 else 2.0)
    settle()
    d = panel.drawn()
    low, high = d["edges"]
    x_raw, _ = d["raw_marker"]
    assert d["divisor"] == 1.0 and d["titles"][1].startswith("÷ 1")
    assert not (low <= x_raw <= high)  # out on a flat end
    assert "flat" in d["message"]
    s.set_option(scale=True, temperature=20.0)
    settle()
    d = panel.drawn()
    low, high = d["edges"]
    assert d["divisor"] == math.sqrt(2) * 20.0
    x_raw, _ = d["raw_marker"]
    x_scaled, _ = d["scaled_marker"]
    # raw score 24 (recomputed: every x of 'The' times 3 times 2.5 on average) sits far out on the flat end;
    # divided by √2 × 20 it is back on the slope
    x0 = np.asarray(s.scenario.x[0])
    q = x0 @ np.full((4, 2), 3.0)
    k = x0 @ np.array([[2.0, 2.0], [3.0, 3.0], [2.0, 2.0], [3.0, 3.0]])
    assert math.isclose(x_raw, float(q @ k))
    assert x_raw > high and low <= x_scaled <= high
    assert "back on the slope" in d["message"]


def test_causal_mask_shows_masked_keys_not_bars(panel):
    panel.session.set_option(causal=True)
    panel.session.select(query=0, key=2)
    settle()
    d = panel.drawn()
    assert d["masked"] == [1, 2]
    assert sorted(d["raw_bars"]) == [0] and sorted(d["scaled_bars"]) == [0]
    assert all(np.isfinite(v) for v in d["scaled_bars"].values())
    assert d["raw_marker"] is None and d["scaled_marker"] is None
    assert "masked" in d["message"]
    ticks = panel.scaled.plot.getAxis("left")._tickLevels[0]
    assert any(label.endswith("(masked)") for _, label in ticks)
    # query 0 sees only itself: the whole curve is flat at 1
    panel.session.select(query=0, key=0)
    settle()
    d = panel.drawn()
    assert d["edges"] is None and "Only one key" in d["message"]
    np.testing.assert_allclose(d["curve"][1], 1.0)


def test_clicking_a_bar_selects_that_key(panel, make_panel, qtbot):
    from qkv_gui.panels.steps.qk_plane import QKPlanePanel

    session = panel.session
    plane = make_panel(QKPlanePanel, session=session, size=IN_GRID)  # another panel on the session
    n = session.result.n
    vb = panel.scaled.plot.getViewBox()
    x = float(panel.drawn()["scaled_bars"][2]) / 2
    scene_pt = vb.mapViewToScene(QtCore.QPointF(x, n - 1 - 2))
    widget_pt = panel.view.mapFromScene(scene_pt)
    qtbot.mouseClick(panel.view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=widget_pt)
    settle()
    assert session.selection.key == 2
    assert panel.drawn()["key"] == 2
    assert plane.drawn()["key"] == 2


def test_many_tokens(panel):
    panel.session.set_text(" ".join(f"w{i}" for i in range(512)))
    panel.session.set_option(causal=True)
    panel.session.select(query=300, key=10)
    settle()
    d = panel.drawn()
    r = panel.session.result
    assert len(d["raw_bars"]) == 301 and len(d["masked"]) == 211
    np.testing.assert_allclose(d["raw_bars"][10], float(np.asarray(r.q[300]) @ np.asarray(r.k[10])))


def test_empty_sentence_shows_the_hint(panel):
    panel.session.set_text("")
    settle()
    assert panel.showing_hint()



# ----- numbers that never run together; a trained model's sizes --------------------------------------------
def _tick_boxes(axis, width_px):
    """The score axis's numbers as drawn: (left, right) in pixels along the axis, from its own tick values and
    texts."""
    from PySide6 import QtGui

    lo, hi = axis.range
    fm = QtGui.QFontMetricsF(axis.style.get("tickFont") or axis.font())
    boxes = []
    for spacing, values in axis.tickValues(lo, hi, width_px):
        for v, text in zip(values, axis.tickStrings(values, 1.0, spacing)):
            x = (v - lo) / (hi - lo) * width_px
            w = fm.horizontalAdvance(text)
            boxes.append((x - w / 2, x + w / 2))
    return sorted(boxes)


def test_one_keys_scores_are_numbered_apart_in_a_narrow_panel(make_panel):
    from qkv_gui.panels.steps.scaling_bars import ScalingPanel

    from tests.gui.support.big_dims import problems

    for size in ((330, 230), (520, 330)):
        panel = make_panel(ScalingPanel, preset="seed-cat", size=size)
        for chart in (panel.raw, panel.scaled):
            axis = chart.plot.getAxis("bottom")
            boxes = _tick_boxes(axis, chart.plot.getViewBox().width())
            assert len(boxes) >= 2
            assert all(a[1] + 2 <= b[0] for a, b in zip(boxes, boxes[1:])), boxes  # never "0.020.04"
        assert not problems(panel), problems(panel)


def test_thirty_keys_are_named_as_fit_and_nothing_runs_off(make_panel, make_session):
    from PySide6 import QtGui

    from qkv_gui.panels.steps.scaling_bars import ScalingPanel

    from tests.gui.support.big_dims import big_panel, problems, reference, texts_shown

    panel, s = big_panel(make_panel, make_session, ScalingPanel, query=6, key=21)
    d = panel.drawn()
    ref = reference(s)
    assert d["raw_bars"] == pytest.approx({m: ref["scores"][6, m] for m in range(30)})
    assert d["scaled_bars"] == pytest.approx({m: ref["scores"][6, m] / math.sqrt(32) for m in range(30)})
    names = d["ticks"]
    assert s.tokens[21] in names and 3 <= len(names) < 30
    axis = panel.raw.plot.getAxis("left")
    lh = QtGui.QFontMetricsF(axis.style.get("tickFont") or axis.font()).height()
    rows = [panel.raw.plot.getViewBox().mapViewToScene(QtCore.QPointF(0, y)).y() for y, _ in axis._tickLevels[0]]
    assert all(abs(a - b) >= lh for a, b in zip(rows, rows[1:]))  # names a line apart at least
    assert texts_shown(panel) < 60
    assert not problems(panel), problems(panel)
    panel.resize(330, 230)
    settle()
    assert not problems(panel), problems(panel)


# ----- an edit sets what it changed, and the charts still follow everything --------------------------------
def test_after_many_edits_the_charts_look_as_ones_built_for_where_they_ended(make_panel):
    """The charts keep what they drew (ranges, masked rows, the chosen bar, the curve, the labels' places, the
    axis' spacing) and set again only what an edit changed: after a long history (``edit_history``) they show
    what charts built at its end show, pixel for pixel."""
    first, fresh = followed_and_fresh(make_panel, ScalingPanel)
    same = lambda d: {k: v for k, v in d.items() if k not in ("raw_bars", "scaled_bars", "curve")}  # noqa: E731
    assert same(first.drawn()) == same(fresh.drawn())
    assert first.view.grab().toImage() == fresh.view.grab().toImage()


def test_a_number_of_w_v_leaves_the_charts_as_they_are(panel, qtbot, monkeypatch):
    """A number of W^V changes no score: nothing on the charts is set again (so nothing is painted again)."""
    settle(qtbot)
    calls = []
    for chart in (panel.raw, panel.scaled):
        for item, method in ((chart.curve, "setPath"), (chart.masked, "setOpts"), (chart.chosen, "setOpts"),
                             (chart.flat_low, "setRect"), (chart.marker_label, "setAnchor")):
            original = getattr(item, method)
            monkeypatch.setattr(item, method, lambda *a, _o=original, _m=method, **k: (calls.append(_m), _o(*a, **k)))
    before = panel.drawn()
    assert panel.session.set_cell("w_v", 0, 1, "0.77")
    settle(qtbot)
    assert calls == []
    assert panel.drawn()["x_range"] == before["x_range"]
    assert panel.session.set_cell("w_q", 0, 1, "0.77")  # new scores: the curve and the chosen bar move
    settle(qtbot)
    assert "setPath" in calls and "setOpts" in calls


def _off_the_curve_px(panel) -> float:
    """How far (pixels, up) the drawn curve runs from the line through all its points, at those points."""
    xs, ws = panel.drawn()["curve"]
    n = panel.session.result.n_keys
    path = panel.raw.curve.path()
    drawn = np.array([[path.elementAt(k).x, path.elementAt(k).y] for k in range(path.elementCount())])
    assert drawn[0, 0] == xs[0] and drawn[-1, 0] == xs[-1]  # from end to end of the score axis
    ys = -0.5 + n * np.asarray(ws)
    vb = panel.raw.plot.getViewBox()
    px_up = vb.height() / (vb.viewRange()[1][1] - vb.viewRange()[1][0])
    return float(np.max(np.abs(np.interp(xs, drawn[:, 0], drawn[:, 1]) - ys)) * px_up)


def test_the_curve_is_drawn_through_the_points_its_size_needs(panel, qtbot):
    """Fewer points where the curve runs straight, never more than the tolerance off the line through all of
    them, at the charts' size, also after they grow."""
    from qkv_gui.panels.steps.scaling_bars import CURVE_POINTS, CURVE_TOLERANCE_PX

    panel.session.select(query=2, key=1)
    settle(qtbot)
    assert panel.raw.curve.path().elementCount() < CURVE_POINTS
    assert _off_the_curve_px(panel) <= CURVE_TOLERANCE_PX
    panel.resize(*ALONE)  # taller charts: more points where it bends
    settle(qtbot)
    assert _off_the_curve_px(panel) <= CURVE_TOLERANCE_PX
    assert panel.scaled.curve.path() == panel.raw.curve.path()


@pytest.mark.parametrize("steep", [0.05, 0.3, 1.0, 5.0])
def test_sparse_points_keep_the_line_within_the_tolerance(steep):
    """Independent check: the polyline through the kept points against the one through all, in pixels."""
    from qkv_gui.panels.steps.scaling_bars import CURVE_STRIDE, CURVE_TOLERANCE_PX, sparse_points

    xs = np.linspace(-4.0, 4.0, 240)
    for rows, px_per_row in ((3, 40.0), (16, 8.0), (40, 25.0)):
        ys = -0.5 + rows / (1.0 + np.exp(-xs / steep))
        keep = sparse_points(ys, px_per_row)
        assert keep[0] == 0 and keep[-1] == len(xs) - 1 and np.all(np.diff(keep) >= 1)
        assert np.max(np.diff(keep)) <= CURVE_STRIDE
        off = np.abs(np.interp(xs, xs[keep], ys[keep]) - ys) * px_per_row
        assert off.max() <= CURVE_TOLERANCE_PX
    assert len(sparse_points(np.zeros(240), 30.0)) <= 240 // CURVE_STRIDE + 2  # a straight line: a point in eight


def test_no_flat_end_label_is_written_over_the_dot(make_panel):
    """'flat: weight ≈ 0' sat on the marker's dot when the dot lay on a flat end (38 pairs of the presets)."""
    panel = make_panel(ScalingPanel, preset="pronoun", size=IN_GRID)
    s = panel.session
    shown = 0
    for i in range(s.scenario.n):
        for j in range(s.result.n_keys):
            s.select(i, j)
            settle()
            for chart in (panel.raw, panel.scaled):
                if not chart.marker.isVisible():
                    continue
                vb = chart.plot.getViewBox()
                to_scene = vb.childTransform() * vb.sceneTransform()
                centre = to_scene.map(chart.marker.pos())
                dot = QtCore.QRectF(centre.x() - 6, centre.y() - 6, 12, 12)
                for label in chart.flat_labels:
                    if label.isVisible():
                        shown += 1
                        assert not label.scene_rect(to_scene).intersects(dot), (i, j, label.text())
    assert shown > 0  # flat-end labels were written (where they had room)


def test_the_same_scores_again_draw_nothing_but_a_new_reason_or_name_is_written(panel, qtbot, monkeypatch):
    """Nothing is worked out again for a result with the same scores, masks, names and divisor (a number of
    W^V): not even the curve. A key masked for another reason with the same scores, or a key renamed with
    the same numbers, is written anew."""
    import dataclasses

    from qkv_gui.panels.steps import scaling_bars

    s = panel.session
    s.select(query=2, key=1)
    settle(qtbot)
    curves = []
    original = scaling_bars.views.softmax_curve
    monkeypatch.setattr(scaling_bars.views, "softmax_curve", lambda *a: (curves.append(a), original(*a))[1])
    assert s.set_cell("w_v", 1, 0, "0.42")
    settle(qtbot)
    assert curves == []
    assert s.toggle_blocked(2, 1)  # blocked by hand ...
    settle(qtbot)
    assert "blocked by hand" in panel.drawn()["message"]
    assert s.set_cell("w_v", 1, 0, "0.43")  # (the charts settle at the height the message leaves them)
    settle(qtbot)
    assert s.toggle_padding(1)  # ... and padding: the same keys masked, for another reason
    settle(qtbot)
    assert not s.result.allowed[2, 1]
    assert "padding" in panel.drawn()["message"] and "by hand" not in panel.drawn()["message"]
    scores = s.result.scores.copy()
    s.apply(dataclasses.replace(s.scenario, tokens=("The", "zebra", "sat")), "rename")  # the same numbers
    settle(qtbot)
    np.testing.assert_array_equal(s.result.scores, scores)
    assert panel.drawn()["worked"].startswith("'zebra':")
    assert "zebra (masked)" in panel.drawn()["ticks"]


def test_first_shown_narrow_it_takes_the_title_both_charts_fit_with(make_panel, make_session):
    # The axes measure their names and numbers when first drawn and widen then; the titles were chosen before,
    # so a panel first shown 365 pixels wide with tiny-llama's names kept "÷ √d_k = ÷ √8 = ÷ 2.828", which
    # pushed the weight axis past the panel's edge, until it was resized.
    from pathlib import Path

    from qkv_engine import load_model

    session = make_session()
    session.runner.sync = True
    session.open_model(load_model(Path(__file__).resolve().parents[2] / "data" / "tiny-llama"),
                       text="the cat sat on the mat")
    session.select(query=0)  # '<s>' the query, as when this was found
    panel = make_panel(ScalingPanel, session=session, size=(365, 681))
    settle()
    least = panel.view.ci.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).width()
    assert least <= panel.view.width()
    assert panel.scaled.plot.titleLabel.text == "÷ √8 = ÷ 2.828"
    weight_axis = panel.scaled.plot.getAxis("right")
    assert panel.view.mapFromScene(weight_axis.sceneBoundingRect()).boundingRect().right() <= panel.view.width()
