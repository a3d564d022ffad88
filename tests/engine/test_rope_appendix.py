"""The live numbers of the appendix "Where does position come in?", against numbers worked out here."""
from pathlib import Path

import numpy as np
import pytest

from qkv_engine import compute, presets
from qkv_engine.lesson_numbers import ROPE_KEYS, fill, names_in, placeholder_values

APPENDIX = Path(__file__).resolve().parents[2] / "resources" / "lessons" / "appendix-position.md"


def turn(v, p, theta):
    """v's pairs (c, c + d/2) each turned by p / θ^(2c/d): written out here, not the engine's."""
    d = len(v)
    h = d // 2
    out = np.array(v, dtype=np.float64)
    for c in range(h):
        a = p * theta ** (-2.0 * c / d)
        x, y = v[c], v[c + h]
        out[c], out[c + h] = x * np.cos(a) - y * np.sin(a), y * np.cos(a) + x * np.sin(a)
    return out


@pytest.mark.parametrize("rotary,theta,i,j", [(False, 10000.0, 2, 0), (True, 10000.0, 2, 1), (True, 50.0, 1, 2)])
def test_the_numbers_are_the_turned_query_and_key(rotary, theta, i, j):
    s = presets.load(presets.DEFAULT).with_dims(d_k=4).with_options(rotary=rotary, rope_theta=theta)
    vals = placeholder_values(compute(s), i, j)
    q = s.x[i] @ s.w_q + s.b_q  # before any turn
    k = s.x[j] @ s.w_k + s.b_k
    m, n = i, j  # self-attention: positions 0 .. n-1
    assert (vals["rope_m"], vals["rope_n"], vals["rope_distance"]) == (str(m), str(n), str(m - n))
    assert vals["rope_pairs"] == "2"
    assert vals["rope_f1"] == "1" and vals["rope_f_last"] == f"{theta ** -0.5:.3g}"
    assert vals["rope_angle_q"] == f"{m * 1.0:g}"
    assert vals["rope_q_pair"] == f"[{q[0]:.2f}, {q[2]:.2f}]"
    tq = turn(q, m, theta)
    assert vals["rope_q_pair_turned"] == f"[{tq[0]:.2f}, {tq[2]:.2f}]"
    assert vals["rope_score_plain"] == f"{q @ k:.4f}"
    assert vals["rope_score_turned"] == f"{tq @ turn(k, n, theta):.4f}"
    shifted = turn(q, m + 20, theta) @ turn(k, n + 20, theta)
    assert vals["rope_score_shifted"] == f"{shifted:.4f}" == vals["rope_score_turned"]
    assert vals["rope_m_shifted"] == str(m + 20) and vals["rope_n_shifted"] == str(n + 20)
    assert f"q '{s.tokens[i]}' at position {m} turns by {m} × 1 = " in vals["rope_turn_worked"]
    assert ("are on" in vals["rope_state"]) == rotary


def test_one_number_per_query_has_no_pair():
    s = presets.load(presets.DEFAULT).with_dims(d_k=1)
    vals = placeholder_values(compute(s), 0, 0)
    assert all("no pair" in vals[name] for name in ROPE_KEYS)


def test_the_appendix_uses_known_placeholders_and_fills_without_markers():
    text = APPENDIX.read_text(encoding="utf-8")
    head = text.split("---")[1]
    for field in ("title", "panel", "role", "exercise"):
        assert f"\n{field}: " in head
    assert "title: Where does position come in?" in head and "panel: ropeLabPanel" in head
    s = presets.load(presets.DEFAULT).with_dims(d_k=4)
    vals = placeholder_values(compute(s), 2, 0)
    used = names_in(text)
    assert set(used) <= set(vals), set(used) - set(vals)
    assert {"rope_turn_worked", "rope_score_turned", "rope_score_shifted", "rope_score_plain"} <= set(used)
    filled = fill(text, vals)
    assert "unknown placeholder" not in filled
    # every symbol is said before it is used: θ, f and the pairs are explained where they first appear
    body = text.split("---", 2)[2]
    assert body.index("**θ**") < body.index("{rope_theta}")
    assert body.index("**speed** f") < body.index("p × f")
    assert body.index("**pairs**") < body.index("{rope_pairs}")
