"""Biases b^Q, b^K, b^V: stored, sliced per head, edited, resized, saved, used and explained."""
from __future__ import annotations

import json

import numpy as np
import pytest

from qkv_engine import Scenario, ScenarioError, compute, compute_heads, explain, presets, session_format
from qkv_engine.lesson_numbers import make_exercise

from . import reference

RTOL = 1e-10


def biased(rng: np.random.Generator, n=4, d_model=3, d_k=2, d_v=3, heads=1, **options) -> Scenario:
    return Scenario(
        tokens=tuple(f"t{i}" for i in range(n)),
        x=rng.normal(size=(n, d_model)),
        w_q=rng.normal(size=(d_model, heads * d_k)),
        w_k=rng.normal(size=(d_model, heads * d_k)),
        w_v=rng.normal(size=(d_model, heads * d_v)),
        b_q=rng.normal(size=heads * d_k),
        b_k=rng.normal(size=heads * d_k),
        b_v=rng.normal(size=heads * d_v),
        n_heads=heads,
        w_o=rng.normal(size=(heads * d_v, d_model)) if heads > 1 else None,
        **options,
    )


def close(actual, expected, what):
    expected = np.array(expected, dtype=np.float64).reshape(actual.shape)
    finite = np.isfinite(expected)
    assert np.array_equal(finite, np.isfinite(actual)), what
    np.testing.assert_allclose(actual[finite], expected[finite], rtol=RTOL, atol=1e-12, err_msg=what)


# ----- storing -----------------------------------------------------------------------------------
def test_biases_default_to_read_only_zeros_of_the_right_length():
    s = presets.load("seed-cat").with_heads(2)
    for name, width in (("b_q", s.w_q.shape[1]), ("b_k", s.w_k.shape[1]), ("b_v", s.w_v.shape[1])):
        b = getattr(s, name)
        assert b.shape == (width,) and b.dtype == np.float64 and not b.any()
        assert not b.flags.writeable
    assert not s.has_bias


def test_given_biases_are_read_only_copies():
    given = np.array([0.5, -1.0])
    s = Scenario(tokens=("a",), x=[[1.0]], w_q=[[1.0, 2.0]], w_k=[[1.0, 2.0]], w_v=[[1.0]], b_q=given)
    given[0] = 99.0
    assert s.b_q.tolist() == [0.5, -1.0] and s.has_bias
    with pytest.raises(ValueError):
        s.b_q[0] = 1.0


@pytest.mark.parametrize("field, value, message", [
    ("b_q", [1.0], "b_q: expected 2 numbers, got 1"),
    ("b_k", [[1.0, 2.0]], "b_k: expected a list of numbers (1-D)"),
    ("b_v", [float("nan")], "b_v[0]: nan is not a finite number"),
    ("b_q", [0.0, 2e6], "b_q[1]: 2e+06 is beyond the limit"),
    ("b_k", ["a", "b"], "b_k: expected a list of numbers"),
])
def test_bad_biases_are_refused_with_the_field_named(field, value, message):
    with pytest.raises(ScenarioError) as err:
        Scenario(tokens=("a",), x=[[1.0]], w_q=[[1.0, 2.0]], w_k=[[1.0, 2.0]], w_v=[[1.0]], **{field: value})
    assert str(err.value).startswith(message)


# ----- using --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(12))
def test_one_head_with_biases_matches_the_reference(seed):
    rng = np.random.default_rng(seed)
    s = biased(rng, n=int(rng.integers(1, 7)), causal=bool(seed % 2), temperature=1.0 + seed % 3)
    r, ref = compute(s), reference.attention_of(s)
    for name in ("q", "k", "v", "scores", "scaled", "weights", "output"):
        close(getattr(r, name), getattr(ref, name), name)


def test_biases_are_added_to_every_token():
    rng = np.random.default_rng(7)
    s = biased(rng)
    plain = s.with_options(b_q=None, b_k=None, b_v=None)
    r, r0 = compute(s), compute(plain)
    np.testing.assert_allclose(r.q - r0.q, np.tile(s.b_q, (s.n, 1)), atol=1e-12)
    np.testing.assert_allclose(r.k - r0.k, np.tile(s.b_k, (s.n, 1)), atol=1e-12)
    np.testing.assert_allclose(r.v - r0.v, np.tile(s.b_v, (s.n, 1)), atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_many_heads_with_biases_match_the_reference(seed):
    rng = np.random.default_rng(100 + seed)
    s = biased(rng, n=5, d_model=4, d_k=2, d_v=3, heads=3)
    full, ref = compute_heads(s), reference.multi_head_of(s)
    for h in range(3):
        for name in ("q", "k", "v", "weights", "output"):
            close(getattr(full.heads[h], name), getattr(ref.heads[h], name), f"head {h} {name}")
    close(full.projected, ref.projected, "projected")


def test_head_slices_its_biases():
    s = biased(np.random.default_rng(3), d_k=2, d_v=3, heads=3)
    one = s.head(1)
    assert one.b_q.tolist() == s.b_q[2:4].tolist()
    assert one.b_k.tolist() == s.b_k[2:4].tolist()
    assert one.b_v.tolist() == s.b_v[3:6].tolist()


def test_cross_attention_adds_the_key_and_value_biases_to_the_source():
    rng = np.random.default_rng(11)
    s = biased(rng, n=3).with_source("one two three four")
    r, ref = compute(s), reference.attention_of(s)
    for name in ("q", "k", "v", "weights", "output"):
        close(getattr(r, name), getattr(ref, name), name)
    assert r.k.shape == (4, s.d_k)


# ----- editing and resizing ----------------------------------------------------------------------------
def test_one_bias_entry_is_edited_as_a_one_row_grid():
    s = presets.load("seed-cat")
    t = s.with_cell("b_k", 0, 1, 0.25)
    assert t.b_k.tolist() == [0.0, 0.25] + [0.0] * (s.w_k.shape[1] - 2)
    assert not s.b_k.any()  # the original is untouched
    with pytest.raises(ScenarioError, match=r"^b_k\[1\]\[0\]: outside the 1 x"):
        s.with_cell("b_k", 1, 0, 0.25)
    with pytest.raises(ScenarioError, match=r"^b_q\[0\]\[99\]: outside"):
        s.with_cell("b_q", 0, 99, 0.25)


def test_resizing_keeps_the_biases_that_fit_and_adds_zeros():
    s = Scenario.from_sentence("a b c", d_model=4, d_k=3, d_v=2)
    s = s.with_cell("b_q", 0, 0, 1.0).with_cell("b_q", 0, 2, 3.0).with_cell("b_v", 0, 1, -2.0)
    smaller = s.with_dims(d_k=2, d_v=3)
    assert smaller.b_q.tolist() == [1.0, 0.0]
    assert smaller.b_k.tolist() == [0.0, 0.0]
    assert smaller.b_v.tolist() == [0.0, -2.0, 0.0]
    two = s.with_heads(2)  # head 1 keeps its biases, head 2 starts at 0
    assert two.b_q.tolist() == [1.0, 0.0, 3.0, 0.0, 0.0, 0.0]
    assert two.b_v.tolist() == [0.0, -2.0, 0.0, 0.0]
    assert two.with_heads(1).b_q.tolist() == [1.0, 0.0, 3.0]
    assert s.reseeded(5).b_q.tolist() == [1.0, 0.0, 3.0]  # reseeding redraws grids, not biases


def test_equality_sees_the_biases():
    s = presets.load("seed-cat")
    assert s == s.with_options()
    assert s != s.with_cell("b_v", 0, 0, 1e-9)


# ----- session files -----------------------------------------------------------------------------------
def test_biases_round_trip_through_a_session_file(tmp_path):
    s = biased(np.random.default_rng(5), heads=2)
    path = tmp_path / "b.qkv.json"
    session_format.save_file(path, s, {"query": 1})
    back, view = session_format.load_file(path)
    assert back == s and view == {"query": 1}
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["version"] == 3 and doc["scenario"]["b_v"] == s.b_v.tolist()


@pytest.mark.parametrize("version", [1, 2])
def test_files_without_biases_open_with_zeros(version):
    doc = session_format.to_dict(presets.load("seed-cat"))
    doc["version"] = version
    for name in ("b_q", "b_k", "b_v"):
        del doc["scenario"][name]
    if version == 1:
        for key in ("padding", "blocked", "n_heads", "w_o", "source"):
            del doc["scenario"][key]
    back, _ = session_format.from_dict(doc)
    assert back == presets.load("seed-cat") and not back.has_bias


@pytest.mark.parametrize("value, message", [
    ("nope", "scenario.b_q: expected a list of numbers"),
    ([True, 1.0], "scenario.b_q[0]: expected a number, got true"),
    ([1.0], "scenario.b_q: expected 2 numbers, got 1"),
])
def test_bad_biases_in_a_file_are_named(value, message):
    doc = session_format.to_dict(presets.load("seed-cat"))
    doc["scenario"]["b_q"] = value
    with pytest.raises(ScenarioError) as err:
        session_format.from_dict(doc)
    assert str(err.value).startswith(message)


# ----- worked arithmetic --------------------------------------------------------------------------------
def test_the_worked_sum_names_a_bias_that_is_not_zero():
    s = presets.load("seed-cat").with_cell("b_q", 0, 0, 0.12)
    r = compute(s)
    ex = explain.projection(r, "q", 0, 0)
    x, w = s.x[0], s.w_q[:, 0]
    assert ex.value == pytest.approx(float(np.dot(x, w)) + 0.12, abs=1e-12)
    assert ex.total == pytest.approx(ex.value, abs=1e-12)
    assert ex.terms[-1].labels == ("b^Q1",) and ex.terms[-1].value == 0.12
    assert ex.text.startswith("q1 = ") and " + b^Q1 = " in ex.text
    assert ex.text.endswith(f"+ 0.12 = {explain.fixed(ex.value, 2)}")
    assert ex.formula.endswith(" + b^Q1")


def test_a_negative_bias_is_subtracted_in_the_sum_and_kept_when_the_sum_is_shortened():
    s = Scenario.from_sentence("a b c", d_model=12, d_k=3, d_v=3).with_cell("b_v", 0, 2, -0.5)
    r = compute(s)
    ex = explain.projection(r, "v", 1, 2)
    assert "(7 more)" in ex.text and " + b^V3 = " in ex.text
    assert ex.text.endswith(f"- 0.50 = {explain.fixed(float(r.v[1, 2]), 2)}")


def test_zero_biases_leave_the_worked_sum_as_it_was():
    r = compute(presets.load("seed-cat"))
    ex = explain.projection(r, "q", 0, 0)
    assert "b^" not in ex.text and "b^" not in ex.formula
    assert len(ex.terms) == r.scenario.d_model
    s = r.scenario
    assert ex.text.endswith(f" = {explain.fixed(float(np.dot(s.x[0], s.w_q[:, 0])), 2)}")
    assert ex.text.count(" = ") == 3  # products = signed sum = value, as before biases existed


def test_a_query_exercise_gives_the_bias_to_work_with():
    s = presets.load("seed-cat").with_cell("b_q", 0, 1, -0.25)
    ex = make_exercise(compute(s), "q", i=0, c=1)
    assert "bias b^Q2 = -0.25" in ex.given
    assert "b^Q2" in ex.worked
    plain = make_exercise(compute(presets.load("seed-cat")), "q", i=0, c=1)
    assert "bias" not in plain.given
