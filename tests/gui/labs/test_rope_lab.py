"""The RoPE lab: its curves are the score of the turned q and k worked out here with numpy, the rings (both
words further on) sit on the curve, the lower line is flat, θ and typed numbers are read with clear messages."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import rope_lab
from qkv_gui.panels.labs.rope_lab import LAB_STATE_KEY, RopeLabPanel
from tests.gui.conftest import settle


def turned_score(q, k, theta, m, n):
    """q at position m and k at n, each pair (i, i + d/2) turned by position / θ^(2i/d), then q·k."""
    d = len(q)
    h = d // 2
    f = theta ** (-2.0 * np.arange(h) / d)

    def turn(v, p):
        a = p * f
        return np.concatenate([v[:h] * np.cos(a) - v[h:] * np.sin(a), v[h:] * np.cos(a) + v[:h] * np.sin(a)])

    return float(turn(q, m) @ turn(k, n))


@pytest.fixture
def lab(make_panel, make_session):
    session = make_session()
    session.set_dims(d_k=6)
    session.flush()
    session.select(query=2, key=1)
    return make_panel(RopeLabPanel, session=session, size=(600, 760))


def _curve(item):
    x, y = item.getData()
    return np.asarray(x), np.asarray(y)


def test_curve_is_the_score_of_the_turned_chosen_query_and_key(lab):
    r = lab.session.result
    q, k = np.asarray(r.q_unrotated[2]), np.asarray(r.k_unrotated[1])
    lab.set_positions(9, 4)
    settle()
    x, y = _curve(lab.score_curve)
    assert x[0] == -rope_lab.MAX_POSITION and x[-1] == rope_lab.MAX_POSITION
    want = [turned_score(q, k, 10000.0, 4 + dist, 4) for dist in x]
    np.testing.assert_allclose(y, want, atol=2e-5)
    # the diamond: now, at m - n = 5
    nx, ny = _curve(lab.now_dot)
    assert nx[0] == 5 and ny[0] == pytest.approx(turned_score(q, k, 10000.0, 9, 4), abs=2e-5)
    assert "m = 9" in lab.caption.text() and "n = 4" in lab.caption.text()
    # one faint curve per pair: what each pair adds, summing to the curve
    parts = [_curve(item)[1] for item in lab._pair_items if item.isVisible()]
    assert len(parts) == 3
    np.testing.assert_allclose(np.sum(parts, axis=0), y, atol=1e-9)


def test_relative_position_shown_rings_on_the_curve_and_a_flat_line(lab):
    lab.set_positions(12, 3)
    settle()
    x, y = _curve(lab.score_curve)
    rx, ry = _curve(lab.shifted_rings)
    assert len(rx) > 10
    q, k = lab.curves.q, lab.curves.k
    for dist, ring in zip(rx, ry):  # rings: both words 20 further on, worked out here at those positions
        assert ring == pytest.approx(turned_score(q, k, 10000.0, 3 + 20 + dist, 3 + 20), abs=2e-5)
        assert ring == pytest.approx(float(y[x == dist][0]), abs=5e-5)  # ... on the curve
    ax, ay = _curve(lab.along_curve)
    assert np.ptp(ay) < 1e-4 and ay[0] == pytest.approx(turned_score(q, k, 10000.0, 12, 3), abs=2e-5)
    assert np.all(np.diff(ax) == 1)


def test_typed_numbers_theta_and_bad_input(lab):
    lab.source_combo.setCurrentIndex(1)
    settle()
    assert lab.q_edit.isVisible()
    lab.q_edit.setText("1, 0, 0, 0")
    lab.k_edit.setText("1, 0, 0, 0")
    lab.k_edit.editingFinished.emit()
    lab.theta_edit.setText("100")
    lab.theta_edit.editingFinished.emit()
    lab.set_positions(3, 0)
    settle()
    x, y = _curve(lab.score_curve)
    np.testing.assert_allclose(y, [turned_score(np.array([1.0, 0, 0, 0]), np.array([1.0, 0, 0, 0]), 100.0, d, 0)
                                   for d in x], atol=2e-5)
    assert np.ptp(y) > 0.5  # the same two words score differently at different distances
    kept = y.copy()
    for bad, words in (("abc", "must be a number"), ("0.5", "above 1"), ("1e99", "too big")):
        lab.theta_edit.setText(bad)
        lab.theta_edit.editingFinished.emit()
        settle()
        assert lab.message.isVisibleTo(lab) and words in lab.message.text()
        assert lab.theta_edit.text() == bad and lab.theta == 100.0
        np.testing.assert_array_equal(_curve(lab.score_curve)[1], kept)  # nothing lost
    lab.theta_edit.setText("100")
    lab.theta_edit.editingFinished.emit()
    settle()
    assert lab.message.isHidden()
    lab.k_edit.setText("1, 0, x")
    lab.k_edit.editingFinished.emit()
    settle()
    assert "k:" in lab.message.text() and lab.message.isVisibleTo(lab)
    lab.k_edit.setText("1, 0")
    lab.k_edit.editingFinished.emit()
    settle()
    assert "the same count" in lab.message.text()
    assert lab.session.lab_state[LAB_STATE_KEY]["k"] == "1, 0"  # kept for an export's fresh copy


def test_a_fresh_copy_shows_the_same(lab, make_panel):
    lab.set_positions(7, 1)
    lab.theta_edit.setText("500")
    lab.theta_edit.editingFinished.emit()
    settle()
    copy = make_panel(RopeLabPanel, session=lab.session, size=(600, 760))
    assert copy.positions == (7, 1) and copy.theta == 500.0
    np.testing.assert_array_equal(_curve(copy.score_curve)[1], _curve(lab.score_curve)[1])


def test_the_experiments_menu_opens_the_lab(make_parts):
    from PySide6 import QtWidgets

    window = make_parts()  # the Experiments menu and its docks beside the panel grid, on a plain main window
    (act,) = [a for a in window.experiments.menu.actions() if a.text() == "Rotary positions (RoPE)"]
    act.trigger()
    settle()
    dock = window.findChild(QtWidgets.QDockWidget, "dockRopeLab")
    assert dock is not None and dock.isVisible() and dock.widget().objectName() == "ropeLabPanel"
    assert dock.widget().curves is not None


def test_the_lab_starts_at_the_theta_of_a_rotary_head(make_panel, make_session):
    session = make_session()
    session.set_rotary(on=True, theta=500.0)
    session.flush()
    lab = make_panel(RopeLabPanel, session=session, size=(600, 760))
    assert lab.theta == 500.0 and lab.theta_edit.text() == "500"
    lab.theta_edit.setText("10000")
    lab.theta_edit.editingFinished.emit()
    settle()
    assert "this head's own θ is 500" in lab.caption.text()


def _lines_of(label):
    """The lines a word-wrapped rich-text label shows, as Qt lays its text out at the label's width."""
    from PySide6 import QtGui

    doc = QtGui.QTextDocument()
    doc.setDefaultFont(label.font())
    doc.setDocumentMargin(0)
    doc.setHtml(label.text())
    doc.setTextWidth(label.contentsRect().width())
    doc.size()  # laid out now
    block, lines = doc.begin(), []
    while block.isValid():
        layout, text = block.layout(), block.text()
        lines += [text[layout.lineAt(i).textStart():layout.lineAt(i).textStart() + layout.lineAt(i).textLength()]
                  for i in range(layout.lineCount())]
        block = block.next()
    return lines


def test_a_narrow_lab_wraps_its_legend_between_items_not_inside_one(make_panel, make_session):
    session = make_session()
    lab = make_panel(RopeLabPanel, session=session, size=(300, 760))
    settle()
    lines = _lines_of(lab.legend)
    assert len(lines) > 1  # narrow: it wraps
    items = ["q·k, key at n =", "○ both 20 positions further on", "1 pair: its part is the whole curve", "◆ now"]
    for item in items:
        assert any(item in line.replace("\u00a0", " ") for line in lines), (item, lines)


def test_the_words_count_pairs_and_say_which_word_comes_first(lab, make_panel, make_session):
    plain = " ".join(lab.caption.text().split())
    assert "6 numbers each: 3 pairs, turning 1 (fastest) to" in plain and "(slowest)" in plain
    lab.set_positions(3, 7)  # the key after the query
    settle()
    assert "(the key 4 after the query)" in lab.caption.text() and "-4 apart" not in lab.caption.text()
    lab.set_positions(5, 5)
    settle()
    assert "(at the same place)" in lab.caption.text()
    one = make_panel(RopeLabPanel, session=make_session(), size=(600, 760))  # d_k = 2: one pair
    settle()
    assert "2 numbers each: 1 pair, turning 1 rad per position with" in " ".join(one.caption.text().split())
    assert "1 pair: its part is the whole curve" in one.legend.text().replace("\u00a0", " ")
    assert "1 pairs" not in one.caption.text() + one.legend.text()
