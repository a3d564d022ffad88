"""The RoPE lab's numbers and the q·k plane's pair choice, against a closed form worked out here."""
import math

import numpy as np
import pytest

from qkv_engine import compute
from qkv_engine.errors import ScenarioError
from qkv_engine.rope_lab import MAX_POSITION, chosen_pair, lab_curves, pair_parts, pair_turn, parse_theta
from qkv_engine.scenario import Scenario


def closed_form(q, k, theta, m, n):
    """q_m · k_n by the rotation rule: pair i adds (a c + b d) cos(Δ f_i) + (a d - b c) sin(Δ f_i), Δ = m - n,
    with (a, b) = (q_i, q_{i+h}), (c, d) = (k_i, k_{i+h}); f_i = θ^(-2i/d) (an odd d: the last number has no
    partner and is not turned; the speeds are those of d - 1)."""
    d = len(q)
    h = d // 2
    total, parts = 0.0, []
    for i in range(h):
        f = theta ** (-2.0 * i / (2 * h))
        a, b, c, e = q[i], q[i + h], k[i], k[i + h]
        delta = (m - n) * f
        part = (a * c + b * e) * math.cos(delta) + (a * e - b * c) * math.sin(delta)
        parts.append(part)
        total += part
    if d % 2:
        total += q[-1] * k[-1]
    return total, parts


@pytest.mark.parametrize("d,theta", [(2, 10000.0), (8, 10000.0), (6, 100.0), (5, 50.0)])
def test_curves_match_the_closed_form(d, theta):
    rng = np.random.default_rng(d)
    q, k = rng.normal(size=d), rng.normal(size=d)
    lab = lab_curves(q, k, theta, m=7, n=3)
    for x, got, got_shifted, col in zip(lab.distances, lab.scores, lab.shifted, lab.parts.T):
        want, parts = closed_form(q, k, theta, 3 + x, 3)
        assert got == pytest.approx(want, abs=2e-5)
        assert got_shifted == pytest.approx(want, abs=2e-5)  # the relative-position property
        assert np.allclose(col, parts, atol=2e-5)
    assert lab.score == pytest.approx(closed_form(q, k, theta, 7, 3)[0], abs=2e-5)
    assert np.allclose(lab.along_scores, lab.score, atol=5e-5)  # the same distance, anywhere
    assert np.all(lab.along - (lab.along - 4) == 4)
    assert lab.distances[0] == -MAX_POSITION and lab.distances[-1] == MAX_POSITION
    assert lab.unturned == pytest.approx(float(q @ k))


def test_scores_change_with_distance():
    lab = lab_curves([1.0, 0.0], [1.0, 0.0], 10000.0, m=0, n=0)
    assert np.ptp(lab.scores) > 1.5  # one pair turning at 1 rad a step: cos swings between -1 and 1


def test_theta_typed():
    assert parse_theta(" 10,000 ") == 10000.0
    assert parse_theta("5e5") == 500000.0
    for bad, words in (("ten", "must be a number"), ("1", "above 1"), ("0.5", "above 1"), ("1e30", "too big"),
                       ("inf", "too big"), ("nan", "too big"), ("", "must be a number")):
        with pytest.raises(ScenarioError, match=words):
            parse_theta(bad)


def rotary_result(seed=0, d_k=6, n=4):
    s = Scenario.from_sentence("the cat sat down", d_model=4, d_k=d_k, d_v=3, seed=seed).with_options(rotary=True)
    return compute(s)


def test_pair_choice_and_turn():
    r = rotary_result(d_k=6)
    i, j = 3, 1
    h = 3
    parts = [r.q[i, p] * r.k[j, p] + r.q[i, p + h] * r.k[j, p + h] for p in range(h)]
    assert sum(parts) == pytest.approx(r.scores[i, j])
    assert chosen_pair(r, i, j, "most") == int(np.argmax(np.abs(parts)))
    assert chosen_pair(r, i, j, "fastest") == 0 and chosen_pair(r, i, j, "slowest") == h - 1
    assert np.allclose(pair_parts(r.q[i], r.k[j]), parts)
    t = pair_turn(r, i, j, 1)
    f1 = 10000.0 ** (-2.0 / 6)
    assert t.speed == pytest.approx(f1, rel=1e-6)
    assert (t.query_position, t.key_position) == (3, 1)
    assert t.query_angle == pytest.approx(3 * f1, rel=1e-6) and t.key_angle == pytest.approx(f1, rel=1e-6)
    a = math.atan2(t.q_after[1], t.q_after[0]) - math.atan2(t.q_before[1], t.q_before[0])
    assert (a - 3 * f1 + math.pi) % (2 * math.pi) - math.pi == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ValueError):
        chosen_pair(r, i, j, "biggest")
