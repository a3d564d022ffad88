"""The q·k plane with rotary positions: q and k before (faint) and after (solid) their turn, one pair's turn as
an arc, the pair choice and the worked arithmetic, for a hand-made head and the tiny Llama model's."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from qkv_engine import explain
from qkv_engine.models import load_model
from qkv_gui.panels.steps.qk_plane import QKPlanePanel
from tests.gui.conftest import settle

LLAMA = Path(__file__).resolve().parents[2] / "data" / "tiny-llama"


def _theta10000(i: int, d: int) -> float:
    return 10000.0 ** (-2.0 * i / d)


@pytest.fixture
def hand_made(make_panel, make_session):
    """The default example with d_k = 6 and rotary positions on, query 'sat' (3rd) and key 'The' (1st)."""
    session = make_session()
    assert session.set_dims(d_k=6) and session.set_option(rotary=True)
    session.flush()
    panel = make_panel(QKPlanePanel, session=session, size=(700, 520))
    session.select(query=2, key=0)
    settle()
    return panel


@pytest.fixture
def llama(make_panel, make_session):
    session = make_session()
    session.open_model(load_model(LLAMA), text="the cat sat on the mat")
    for _ in range(100):
        session.runner.wait()
        settle()
        if not session.runner.busy:
            break
    panel = make_panel(QKPlanePanel, session=session, size=(700, 520))
    session.select(query=4, key=1)
    settle()
    return panel


def _pair_parts_here(q, k):
    h = len(q) // 2
    return [q[p] * k[p] + q[p + h] * k[p + h] for p in range(h)]


@pytest.mark.parametrize("which", ["hand_made", "llama"])
def test_faint_and_solid_arrows_are_the_engine_vectors_of_the_chosen_pair(which, request):
    panel = request.getfixturevalue(which)
    r = panel.session.result
    i, j = panel.session.selection.query, panel.session.selection.key
    h = r.scenario.d_k // 2
    q, k = np.asarray(r.q[i]), np.asarray(r.k[j])
    for choice, want in (("most", int(np.argmax(np.abs(_pair_parts_here(q, k))))), ("fastest", 0),
                         ("slowest", h - 1)):
        panel.set_pair_choice(choice)
        settle()
        d = panel.drawn()
        rot = d["rotary"]
        assert rot["choice"] == choice and rot["pair"] == want, choice
        p, b = want, want + h
        np.testing.assert_allclose(rot["q_before"], (r.q_unrotated[i, p], r.q_unrotated[i, b]))
        np.testing.assert_allclose(rot["k_before"], (r.k_unrotated[j, p], r.k_unrotated[j, b]))
        np.testing.assert_allclose(d["q_tip"], (r.q[i, p], r.q[i, b]))  # the solid arrows: after the turn
        np.testing.assert_allclose(d["k_tip"], (r.k[j, p], r.k[j, b]))
        # the arcs: from the faint arrow's direction, by position x frequency (the frequency from θ here)
        f = _theta10000(p, 2 * h)
        m, n = r.scenario.query_positions[i], r.scenario.key_positions[j]
        start, angle = rot["q_arc"]
        assert start == pytest.approx(math.degrees(math.atan2(rot["q_before"][1], rot["q_before"][0])))
        assert angle == pytest.approx(m * f, rel=1e-6)
        if n == 0:
            assert rot["k_arc"] is None  # position 0: no turn
        else:
            assert rot["k_arc"][1] == pytest.approx(n * f, rel=1e-6)
        # the arc ends where the solid arrow points
        end = math.radians(start) + angle
        assert math.atan2(d["q_tip"][1], d["q_tip"][0]) == pytest.approx(math.atan2(math.sin(end), math.cos(end)),
                                                                         abs=1e-6)
        assert d["axes"] == (f"coordinate {p + 1}", f"coordinate {b + 1}")
        # the worked arithmetic names the turn, then the dot product of the turned vectors
        turn = explain.rotation(r, i, j, p).text
        assert d["worked"] == turn + "\nThen, with the turned q and k: " + explain.score(r, i, j).text
        assert f"at position {m} turns by {m} × " in turn
        assert d["numbers"]["score"] == explain.fixed(float(q @ k), 4)
    assert panel.pair_combo.isVisible()


def test_the_arc_of_a_query_far_along_spirals_but_keeps_its_angle(hand_made):
    s = hand_made.session
    s.set_text("a b c d e f g h i j k l")
    s.flush()
    s.select(query=11, key=0)
    hand_made.set_pair_choice("fastest")
    settle()
    rot = hand_made.drawn()["rotary"]
    assert rot["q_arc"][1] == pytest.approx(11.0)  # 11 x 1 rad: almost two whole turns
    assert rot["q_arc_label"] == "q: 11×1 = 11 rad"


def test_a_head_without_rotary_positions_shows_no_turn(make_panel):
    panel = make_panel(QKPlanePanel)
    d = panel.drawn()
    assert d["rotary"] is None and not panel.pair_combo.isVisible()
    assert all(not item.isVisible() for role in ("query", "key") for item in (*panel.before[role], *panel.arcs[role]))
    panel.session.set_option(rotary=True)
    settle()
    assert panel.drawn()["rotary"] is not None and panel.before["query"][0].isVisible()
    panel.session.undo_stack.undo()
    settle()
    assert panel.drawn()["rotary"] is None and not panel.before["query"][0].isVisible()
    assert not panel.pair_combo.isVisible()


def rotary_plane(make_panel, make_session, size):
    """The default example with rotary positions on, query 'sat' (3rd) and key 'cat' (2nd)."""
    session = make_session()
    session.set_option(rotary=True)
    session.flush()
    panel = make_panel(QKPlanePanel, session=session, size=size)
    session.select(query=2, key=1)
    settle()
    return panel


def test_a_narrow_plane_says_the_turns_whole_then_the_sum(make_panel, make_session):
    panel = rotary_plane(make_panel, make_session, (390, 275))
    r = panel.session.result
    first, rest = panel.worked.text().rsplit("\n", 1)
    assert first == explain.rotation_brief(r, 2, 1, 0)
    assert first.startswith("Turned first (pair 1): q by 2 × 1 = 2 rad, k by 1 × 1 = 1 rad")
    assert rest.endswith(explain.fixed(float(r.scores[2, 1]), 4))
    assert panel.worked.toolTip().startswith(explain.rotation(r, 2, 1, 0).text)  # whole in the tooltip


def test_one_number_per_query_has_nothing_to_turn(make_panel, make_session):
    session = make_session()
    session.set_dims(d_k=1)
    session.set_rotary(on=True)
    session.flush()
    panel = make_panel(QKPlanePanel, session=session, size=(700, 520))
    d = panel.drawn()
    assert d["rotary"] is None and "no pair to turn" in d["note"] and not panel.pair_combo.isVisible()
    np.testing.assert_allclose(d["q_tip"][0], session.result.q[0, 0])


def test_with_larger_text_a_wider_plane_gives_the_brief_turns_too(make_panel, make_session):
    """In presenter mode (text 1.5 times as large) a plane 630 pixels wide holds the words of a 420-pixel one at
    the usual size: it says the turns in brief, so that the sum under the plane is not cut off."""
    from qkv_gui.look import style

    panel = rotary_plane(make_panel, make_session, (630, 700))
    r = panel.session.result
    assert panel.worked.text().startswith("q and k are turned")  # the usual size: the whole text
    panel.set_theme(style.Theme("large", font_scale=1.5))
    settle()
    first, _rest = panel.worked.text().rsplit("\n", 1)
    assert first == explain.rotation_brief(r, 2, 1, 0)
    panel.set_theme(style.Theme("usual", font_scale=1.0))
    settle()
    assert panel.worked.text().startswith("q and k are turned")
