"""Invariants of attention and of the worked arithmetic, checked on generated scenarios."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qkv_engine import MAX_ABS, Scenario, ScenarioError, compute, explain, softmax
from qkv_engine.scenario import MAX_DIM

PROPERTY_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

small = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
anything = st.one_of(
    small,
    st.floats(-MAX_ABS, MAX_ABS, allow_nan=False, allow_infinity=False),
    st.sampled_from([MAX_ABS, -MAX_ABS, 0.0, 1e-300, -1e-300]),
)
two_decimals = st.integers(-100, 100).map(lambda k: k / 100)  # the numbers the app generates


def grid(rows: int, cols: int, elements) -> st.SearchStrategy:
    return st.lists(st.lists(elements, min_size=cols, max_size=cols), min_size=rows, max_size=rows).map(
        lambda v: np.array(v, dtype=np.float64).reshape(rows, cols)
    )


@st.composite
def scenarios(draw, elements=small, max_n=8, max_dim=6, **fixed):
    n = draw(st.integers(1, max_n))
    d_model = draw(st.integers(1, max_dim))
    d_k = draw(st.integers(1, max_dim))
    d_v = draw(st.integers(1, max_dim))
    options = dict(
        scale=draw(st.booleans()),
        causal=draw(st.booleans()),
        temperature=draw(st.sampled_from([1e-3, 0.1, 0.5, 1.0, 3.0, 1e3])),
        softmax_over=draw(st.sampled_from(["keys", "queries"])),
    )
    options.update(fixed)
    return Scenario(
        tokens=tuple(f"w{i}" for i in range(n)),
        x=draw(grid(n, d_model, elements)),
        w_q=draw(grid(d_model, d_k, elements)),
        w_k=draw(grid(d_model, d_k, elements)),
        w_v=draw(grid(d_model, d_v, elements)),
        **options,
    )


# ----- softmax and weights ---------------------------------------------------------------
@PROPERTY_SETTINGS
@given(scenarios(softmax_over="keys"))
def test_weight_rows_sum_to_one_over_keys(s):
    r = compute(s)
    np.testing.assert_allclose(r.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(r.weights >= 0.0)


@PROPERTY_SETTINGS
@given(scenarios(softmax_over="queries"))
def test_weight_columns_sum_to_one_over_queries(s):
    r = compute(s)
    np.testing.assert_allclose(r.weights.sum(axis=0), 1.0, rtol=0, atol=1e-12)
    assert np.all(r.weights >= 0.0)


@PROPERTY_SETTINGS
@given(
    st.lists(st.floats(-50, 50, allow_nan=False), min_size=1, max_size=10),
    st.floats(-1e3, 1e3, allow_nan=False),
)
def test_softmax_ignores_a_constant_added_to_a_row(row, c):
    before = softmax(np.array([row]))
    after = softmax(np.array([row]) + c)
    np.testing.assert_allclose(after, before, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(before.sum(), 1.0, atol=1e-12)


@PROPERTY_SETTINGS
@given(
    st.lists(st.lists(st.floats(-50, 50, allow_nan=False), min_size=4, max_size=4), min_size=1, max_size=5),
    st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=5, max_size=5),
)
def test_softmax_rows_and_columns_are_independent_of_per_row_constants(rows, shifts):
    a = np.array(rows)
    shifted = a + np.array(shifts[: a.shape[0]])[:, None]
    np.testing.assert_allclose(softmax(shifted, axis=1), softmax(a, axis=1), rtol=1e-9, atol=1e-12)
    # Column-wise, a constant added to a whole column changes nothing either.
    col_shifted = a + np.array(shifts[:4])[None, :]
    np.testing.assert_allclose(softmax(col_shifted, axis=0), softmax(a, axis=0), rtol=1e-9, atol=1e-12)


def test_softmax_of_masked_and_huge_entries():
    w = softmax(np.array([[1e300, -np.inf, 0.0], [-np.inf, -np.inf, -np.inf]]))
    assert w.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert softmax(np.zeros((0, 3))).shape == (0, 3)


@PROPERTY_SETTINGS
@given(scenarios(softmax_over="keys"), st.lists(small, min_size=6, max_size=6))
def test_a_constant_added_to_each_score_row_via_the_keys_changes_no_weight(s, u):
    # Give every token one extra embedding coordinate equal to 1, feeding only
    # the keys (through the new W^K row u). Then every key grows by u, so row i
    # of the scores grows by the constant q_i . u, and the weights must not move.
    u = np.array(u[: s.d_k])
    ones = np.ones((s.n, 1))
    s2 = Scenario(
        tokens=s.tokens,
        x=np.hstack([s.x, ones]),
        w_q=np.vstack([s.w_q, np.zeros((1, s.d_k))]),
        w_k=np.vstack([s.w_k, u[None, :]]),
        w_v=np.vstack([s.w_v, np.zeros((1, s.d_v))]),
        scale=s.scale,
        causal=s.causal,
        temperature=s.temperature,
    )
    r, r2 = compute(s), compute(s2)
    shift = r.q @ u
    np.testing.assert_allclose(r2.scores, r.scores + shift[:, None], rtol=1e-9, atol=1e-9)
    # Differences within a row are what softmax sees; allow for rounding of the
    # scaled scores (up to 1e3 / 1e-3 times the inputs).
    tol = 1e-9 * max(1.0, float(np.max(np.abs(r2.scaled[r2.allowed]))))
    np.testing.assert_allclose(r2.weights, r.weights, rtol=0, atol=max(1e-9, tol))


# ----- permutation -----------------------------------------------------------------------
@PROPERTY_SETTINGS
@given(scenarios(causal=False), st.randoms(use_true_random=False))
def test_permuting_tokens_permutes_everything(s, rnd):
    perm = list(range(s.n))
    rnd.shuffle(perm)
    p = np.array(perm)
    s2 = s.with_options(tokens=tuple(s.tokens[i] for i in perm), x=s.x[p])
    r, r2 = compute(s), compute(s2)
    for name in ("q", "k", "v", "output"):
        a = getattr(r, name)
        np.testing.assert_allclose(getattr(r2, name), a[p], rtol=1e-12, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(r2.scores, r.scores[np.ix_(p, p)], rtol=1e-12, atol=1e-12)
    # Rounding in the scores is magnified by up to 1 / temperature before softmax.
    tol = 1e-12 * max(1.0, float(np.max(np.abs(r.scaled[r.allowed]))))
    np.testing.assert_allclose(r2.weights, r.weights[np.ix_(p, p)], rtol=1e-9, atol=tol)


# ----- causal mask -----------------------------------------------------------------------
@PROPERTY_SETTINGS
@given(scenarios(causal=True))
def test_causal_upper_triangle_is_exactly_zero_and_minus_infinity(s):
    r = compute(s)
    upper = np.triu(np.ones((s.n, s.n), dtype=bool), k=1)
    assert np.array_equal(r.allowed, ~upper)
    assert np.all(r.weights[upper] == 0.0)
    assert np.all(r.scaled[upper] == -np.inf)
    assert np.all(np.isfinite(r.scaled[~upper]))
    # The first token can only look at itself (keys mode) / the last key is
    # only seen by the last query (queries mode).
    if s.softmax_over == "keys":
        assert r.weights[0, 0] == 1.0
    else:
        assert r.weights[-1, -1] == 1.0


# ----- finiteness and limits -------------------------------------------------------------
@PROPERTY_SETTINGS
@given(scenarios(elements=anything, max_n=5, max_dim=5))
def test_no_nan_and_no_infinity_outside_the_mask(s):
    r = compute(s)
    for name in ("q", "k", "v", "scores", "weights", "output"):
        assert np.all(np.isfinite(getattr(r, name))), name
    assert np.all(np.isfinite(r.scaled[r.allowed]))
    assert np.all(r.scaled[~r.allowed] == -np.inf)
    assert np.all((r.weights >= 0.0) & (r.weights <= 1.0))


@pytest.mark.parametrize("sign_k", [1.0, -1.0])
@pytest.mark.parametrize("softmax_over", ["keys", "queries"])
def test_largest_inputs_at_the_largest_sizes_stay_finite(sign_k, softmax_over):
    # Every entry at the limit, the biggest grids allowed and the smallest
    # temperature, biases at the limit too: the worst case for overflow.
    d = MAX_DIM
    full = np.full((d, d), MAX_ABS)
    bias = np.full(d, MAX_ABS)
    s = Scenario(
        tokens=("a", "b", "c"),
        x=np.array([[MAX_ABS] * d, [-MAX_ABS] * d, [0.5] * d]),
        w_q=full,
        w_k=sign_k * full,
        w_v=full,
        b_q=bias,
        b_k=sign_k * bias,
        b_v=bias,
        temperature=1e-3,
        causal=True,
        softmax_over=softmax_over,
    )
    r = compute(s)
    for name in ("q", "k", "v", "scores", "weights", "output"):
        assert np.all(np.isfinite(getattr(r, name))), name
    assert np.all(np.isfinite(r.scaled[r.allowed]))


@pytest.mark.parametrize("value", [MAX_ABS * (1 + 1e-9), -2e6, 1e300])
@pytest.mark.parametrize("field", ["x", "w_q", "w_k", "w_v"])
def test_values_beyond_the_limit_are_refused(field, value):
    arrays = dict(x=np.zeros((2, 3)), w_q=np.zeros((3, 2)), w_k=np.zeros((3, 2)), w_v=np.zeros((3, 2)))
    Scenario(tokens=("a", "b"), **{**arrays, field: np.full(arrays[field].shape, MAX_ABS)})  # the limit itself is fine
    arrays[field] = arrays[field].copy()
    arrays[field][1, 0] = value
    with pytest.raises(ScenarioError, match=rf"^{field}\[1\]\[0\]: .*beyond the limit"):
        Scenario(tokens=("a", "b"), **arrays)


# ----- worked arithmetic -----------------------------------------------------------------
def _printed_numbers(segment: str) -> list[float]:
    """The numbers of a printed signed sum like '0.05 - 0.06 + 0.12'."""
    return [float(v) for v in segment.replace("- ", "-").replace("+ ", "").split()]


def _tolerance(terms) -> float:
    """Float rounding of sums of products, relative to their size."""
    return 1e-12 * max(1.0, sum(abs(t.value) for t in terms))


def check_sum_explanation(e: explain.Explanation, expected_value: float) -> None:
    terms = e.terms
    tol = _tolerance(terms)
    assert abs(sum(t.value for t in terms) - e.total) <= tol
    assert abs(e.total - e.value) <= tol
    assert e.value == expected_value
    for t in terms:
        assert len(t.factors) == 2
        assert t.value == t.factors[0] * t.factors[1]

    segments = e.text.split(" = ")
    d = e.decimals
    unit = 10.0**-d
    assert segments[-1] == explain.fixed(e.value, d)
    printed_value = float(segments[-1])
    assert abs(printed_value - e.value) <= 0.5 * unit * (1 + 1e-9) + tol
    if len(terms) == 1:
        return
    printed_terms = _printed_numbers(segments[-2])
    assert len(printed_terms) == len(terms)
    for p, t in zip(printed_terms, terms):
        assert abs(p - t.value) <= 0.5 * unit * (1 + 1e-9) + tol
    # The rounded terms a student adds up must reach the printed value, up to
    # the rounding of each term and of the value itself.
    slack = len(terms) * 0.5 * unit + 0.5 * unit
    assert abs(sum(printed_terms) - printed_value) <= slack * (1 + 1e-9) + tol


explained = scenarios(elements=st.one_of(two_decimals, small), max_n=6, max_dim=6)


@PROPERTY_SETTINGS
@given(explained, st.data(), st.integers(0, 6))
def test_projection_terms_add_up(s, data, decimals):
    r = compute(s)
    which = data.draw(st.sampled_from(["q", "k", "v"]))
    target = {"q": r.q, "k": r.k, "v": r.v}[which]
    i = data.draw(st.integers(0, s.n - 1))
    c = data.draw(st.integers(0, target.shape[1] - 1))
    e = explain.projection(r, which, i, c, decimals)
    assert e.kind == which and e.symbol == f"{which}{c + 1}"
    assert len(e.terms) == s.d_model
    check_sum_explanation(e, float(target[i, c]))


@PROPERTY_SETTINGS
@given(explained, st.data(), st.integers(0, 6))
def test_score_terms_add_up(s, data, decimals):
    r = compute(s)
    i = data.draw(st.integers(0, s.n - 1))
    j = data.draw(st.integers(0, s.n - 1))
    e = explain.score(r, i, j, decimals)
    assert len(e.terms) == s.d_k
    check_sum_explanation(e, float(r.scores[i, j]))


@PROPERTY_SETTINGS
@given(explained, st.data(), st.integers(0, 6))
def test_output_terms_add_up(s, data, decimals):
    r = compute(s)
    i = data.draw(st.integers(0, s.n - 1))
    c = data.draw(st.integers(0, s.d_v - 1))
    e = explain.output(r, i, c, decimals)
    assert len(e.terms) == s.n
    check_sum_explanation(e, float(r.output[i, c]))


@PROPERTY_SETTINGS
@given(scenarios(elements=st.one_of(two_decimals, small, anything), max_n=6), st.data(), st.integers(0, 6))
def test_weight_is_my_exponential_over_their_sum(s, data, decimals):
    r = compute(s)
    i = data.draw(st.integers(0, s.n - 1))
    j = data.draw(st.integers(0, s.n - 1))
    e = explain.weight(r, i, j, decimals)
    assert e.value == float(r.weights[i, j])
    if not r.allowed[i, j]:
        assert e.value == 0.0 and e.terms == ()
        return
    rowwise = s.softmax_over == "keys"
    line = r.scaled[i] if rowwise else r.scaled[:, j]
    ok = r.allowed[i] if rowwise else r.allowed[:, j]
    shown = [m for m in range(s.n) if ok[m]]
    me = shown.index(j if rowwise else i)
    assert [t.factors[0] for t in e.terms] == [float(line[m]) for m in shown]
    assert all(t.value >= 0.0 and math.isfinite(t.value) for t in e.terms)
    assert math.isclose(sum(t.value for t in e.terms), e.total, rel_tol=1e-12)
    assert e.total > 0.0
    assert math.isclose(e.terms[me].value / e.total, e.value, rel_tol=1e-9, abs_tol=1e-300)
    # Each term is e to its score, up to one common shift: the ratios prove it.
    biggest = max(range(len(shown)), key=lambda t: e.terms[t].value)
    for t in e.terms:
        expected = math.exp(t.factors[0] - e.terms[biggest].factors[0])
        assert math.isclose(t.value / e.terms[biggest].value, expected, rel_tol=1e-9, abs_tol=1e-300)
    assert e.text.endswith(explain.fixed(e.value, decimals)) or "(the only" in e.text or "subtracted" in e.text


@PROPERTY_SETTINGS
@given(explained, st.data(), st.integers(0, 6))
def test_norm_is_the_root_of_the_sum_of_squares(s, data, decimals):
    r = compute(s)
    which = data.draw(st.sampled_from(["q", "k", "v"]))
    i = data.draw(st.integers(0, s.n - 1))
    vec = {"q": r.q, "k": r.k, "v": r.v}[which][i]
    e = explain.norm(r, which, i, decimals)
    assert [t.factors for t in e.terms] == [(float(a), float(a)) for a in vec]
    assert math.isclose(sum(t.value for t in e.terms), e.total, rel_tol=1e-12, abs_tol=1e-300)
    assert e.value == math.sqrt(e.total)
    assert math.isclose(e.value, float(np.linalg.norm(vec)), rel_tol=1e-12, abs_tol=1e-300)


@PROPERTY_SETTINGS
@given(explained, st.data())
def test_scaled_and_cosine_explanations_agree_with_the_result(s, data):
    from qkv_engine import geometry

    r = compute(s)
    i = data.draw(st.integers(0, s.n - 1))
    j = data.draw(st.integers(0, s.n - 1))
    sc = explain.scaled(r, i, j)
    assert sc.value == float(r.scaled[i, j])
    assert sc.total == float(r.scores[i, j])
    if not r.allowed[i, j]:
        assert "masked" in sc.text
    co = explain.cosine(r, i, j)
    assert math.isclose(co.value, geometry.cosine(r.q[i], r.k[j]), rel_tol=1e-12, abs_tol=1e-12)
    angle = geometry.angle_degrees(r.q[i], r.k[j])
    if angle is None:
        assert co.angle is None
    else:
        assert math.isclose(co.angle, angle, rel_tol=1e-9, abs_tol=1e-9)


def test_long_sums_are_shortened_in_the_text_but_not_in_the_terms():
    n = 12
    s = Scenario(
        tokens=tuple(f"t{i}" for i in range(n)),
        x=np.full((n, 12), 0.5),
        w_q=np.full((12, 2), 0.1),
        w_k=np.full((12, 2), 0.1),
        w_v=np.full((12, 3), 0.2),
    )
    r = compute(s)
    for e in (explain.projection(r, "q", 0, 0), explain.output(r, 0, 0), explain.weight(r, 0, 0)):
        assert len(e.terms) == 12
        assert "(the other 7 terms)" in e.text
    e = explain.projection(r, "v", 3, 2)
    assert e.text.endswith(" = " + explain.fixed(12 * 0.5 * 0.2, 2))
    assert "(the other 7 terms)" in e.text


@pytest.mark.parametrize("call", [
    lambda r: explain.projection(r, "q", 3, 0),
    lambda r: explain.projection(r, "q", 0, 2),
    lambda r: explain.projection(r, "z", 0, 0),
    lambda r: explain.score(r, 0, -1),
    lambda r: explain.weight(r, 3, 0),
    lambda r: explain.output(r, 0, 3),
    lambda r: explain.norm(r, "x", 0),
    lambda r: explain.cell(r, "bogus", 0, 0),
])
def test_explaining_something_that_is_not_there_is_refused(call):
    r = compute(Scenario.from_sentence("The cat sat", seed=1))
    with pytest.raises(ScenarioError):
        call(r)
