"""The worked numbers of the two seed documents, recomputed here by hand and by the engine.

Only the seeds' inputs (embeddings, grids, listed vectors) are typed in below.
Every expected result is recomputed with plain Python arithmetic in this file
and compared with the engine. Where a seed prints a number, the test says
whether the maths agrees with it; the seeds contain mistakes, and the maths wins.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from qkv_engine import compute, explain, geometry, presets

# ----- seed 1: the single token 'cat' -------------------------------------------------------
# Inputs exactly as the walkthrough gives them (rows = input dials).
X = [0.5, -0.3, 0.8, 0.2]
WQ = [[0.1, 0.4], [0.2, -0.1], [-0.3, 0.5], [0.6, 0.2]]
WK = [[-0.2, 0.3], [0.5, 0.1], [0.4, -0.2], [-0.1, 0.6]]
WV = [[0.3, -0.2, 0.5], [-0.1, 0.4, 0.2], [0.6, 0.1, -0.3], [0.2, -0.5, 0.4]]


def by_hand(x, grid):
    """Row vector times grid: one weighted sum per column, written out."""
    return [sum(x[r] * grid[r][c] for r in range(len(x))) for c in range(len(grid[0]))]


@pytest.fixture(scope="module")
def cat():
    return compute(presets.load("seed-cat"))


def test_seed_cat_inputs_are_the_walkthrough_inputs(cat):
    s = cat.scenario
    assert s.tokens == ("cat",)
    assert s.x.tolist() == [X]
    assert s.w_q.tolist() == WQ and s.w_k.tolist() == WK and s.w_v.tolist() == WV
    assert (s.d_model, s.d_k, s.d_v) == (4, 2, 3)


def test_seed_cat_query_key_value(cat):
    q, k, v = by_hand(X, WQ), by_hand(X, WK), by_hand(X, WV)
    np.testing.assert_allclose(cat.q[0], q, rtol=0, atol=1e-15)
    np.testing.assert_allclose(cat.k[0], k, rtol=0, atol=1e-15)
    np.testing.assert_allclose(cat.v[0], v, rtol=0, atol=1e-15)
    # The walkthrough prints q = [-0.13, 0.67], k = [0.05, 0.08],
    # v = [0.70, -0.24, 0.03]; the recomputed values agree when rounded.
    assert [round(a, 2) for a in q] == [-0.13, 0.67]
    assert [round(a, 2) for a in k] == [0.05, 0.08]
    assert [round(a, 2) for a in v] == [0.70, -0.24, 0.03]


def test_seed_cat_score_and_scaled_score(cat):
    q, k = by_hand(X, WQ), by_hand(X, WK)
    score = q[0] * k[0] + q[1] * k[1]
    assert math.isclose(cat.scores[0, 0], score, rel_tol=1e-12)
    # The seed writes the scaling as "divide by d_k" (its square-root sign was
    # lost), but its own arithmetic divides by 1.414 = sqrt(2): sqrt(d_k) is right.
    scaled = score / math.sqrt(2)
    assert math.isclose(cat.scaled[0, 0], scaled, rel_tol=1e-12)
    assert cat.divisor == math.sqrt(2)
    # Printed: 0.0471 and 0.0333.
    assert round(score, 4) == 0.0471 and round(scaled, 4) == 0.0333
    # One token attends only to itself.
    assert cat.weights.tolist() == [[1.0]]
    np.testing.assert_allclose(cat.output[0], by_hand(X, WV), rtol=0, atol=1e-15)


def test_seed_cat_lengths_cosine_and_angle(cat):
    q, k = by_hand(X, WQ), by_hand(X, WK)
    # |q| is the square root of the sum of squares (the seed prints the sum
    # without its root sign; the length needs the root).
    nq = math.sqrt(q[0] ** 2 + q[1] ** 2)
    nk = math.sqrt(k[0] ** 2 + k[1] ** 2)
    cos = (q[0] * k[0] + q[1] * k[1]) / (nq * nk)
    theta = math.degrees(math.acos(cos))
    assert math.isclose(geometry.norm(cat.q[0]), nq, rel_tol=1e-12)
    assert math.isclose(geometry.norm(cat.k[0]), nk, rel_tol=1e-12)
    assert math.isclose(explain.norm(cat, "q", 0).value, nq, rel_tol=1e-12)
    assert math.isclose(explain.norm(cat, "k", 0).value, nk, rel_tol=1e-12)
    assert math.isclose(geometry.cosine(cat.q[0], cat.k[0]), cos, rel_tol=1e-12)
    assert math.isclose(geometry.angle_degrees(cat.q[0], cat.k[0]), theta, rel_tol=1e-9)
    e = explain.cosine(cat, 0, 0)
    assert math.isclose(e.value, cos, rel_tol=1e-12)
    assert math.isclose(e.angle, theta, rel_tol=1e-9)
    assert e.text.endswith(f"so θ = {theta:.1f}°")
    # The dot product identity q.k = |q| |k| cos(theta) of step 5.
    assert math.isclose(nq * nk * math.cos(math.radians(theta)), cat.scores[0, 0], rel_tol=1e-9)


def test_seed_cat_worked_lines_read_like_the_walkthrough(cat):
    assert explain.projection(cat, "q", 0, 0).text == (
        "q1 = 0.5(0.1) + (-0.3)(0.2) + 0.8(-0.3) + 0.2(0.6) = 0.05 - 0.06 - 0.24 + 0.12 = -0.13"
    )
    assert explain.projection(cat, "k", 0, 0).text == (
        "k1 = 0.5(-0.2) + (-0.3)(0.5) + 0.8(0.4) + 0.2(-0.1) = -0.10 - 0.15 + 0.32 - 0.02 = 0.05"
    )
    assert explain.projection(cat, "v", 0, 1).text == (
        "v2 = 0.5(-0.2) + (-0.3)(0.4) + 0.8(0.1) + 0.2(-0.5) = -0.10 - 0.12 + 0.08 - 0.10 = -0.24"
    )
    assert explain.score(cat, 0, 0).text == "score = q·k = (-0.13)(0.05) + (0.67)(0.08) = -0.0065 + 0.0536 = 0.0471"


# ----- seed 2: 'The cat sat' -----------------------------------------------------------------
TOKENS = ("The", "cat", "sat")
# The vectors the library-analogy document lists for each token.
Q = {"The": [0.2, 0.3], "cat": [0.8, 0.2], "sat": [0.3, 0.9]}
K = {"The": [0.5, 0.1], "cat": [0.7, 0.8], "sat": [0.2, 0.4]}
V = {"The": [0.4, 0.6, 0.2], "cat": [0.9, 0.3, 0.7], "sat": [0.5, 0.8, 0.1]}
EMBEDDINGS = [[0.1, 0.4, 0.2, 0.5], [0.9, 0.1, 0.8, 0.3], [0.2, 0.7, 0.1, 0.9]]


@pytest.fixture(scope="module")
def cat_sat():
    return presets.load("seed-the-cat-sat")


def test_seed_cat_sat_grids_reproduce_the_listed_vectors(cat_sat):
    r = compute(cat_sat)
    assert cat_sat.tokens == TOKENS
    assert cat_sat.x.tolist() == EMBEDDINGS
    np.testing.assert_allclose(r.q, [Q[t] for t in TOKENS], rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.k, [K[t] for t in TOKENS], rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.v, [V[t] for t in TOKENS], rtol=0, atol=1e-12)


def test_seed_cat_sat_scores_of_sat(cat_sat):
    r = compute(cat_sat)
    sat = TOKENS.index("sat")
    expected = [Q["sat"][0] * K[t][0] + Q["sat"][1] * K[t][1] for t in TOKENS]
    np.testing.assert_allclose(r.scores[sat], expected, rtol=0, atol=1e-12)
    # The document prints 0.24 (The), 0.93 (cat), 0.42 (sat): right.
    assert [round(s, 2) for s in expected] == [0.24, 0.93, 0.42]
    # Its later code example uses a different key for 'the', [0.1, 0.2]
    # (score 0.21), while the table above lists [0.5, 0.1]; the preset follows
    # the table, so 'The' scores 0.24 here, not 0.21.
    assert round(r.scores[sat, 0], 2) != round(0.3 * 0.1 + 0.9 * 0.2, 2)


def _softmax_by_hand(values):
    exps = [math.exp(v) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def test_seed_cat_sat_softmax_of_the_unscaled_scores(cat_sat):
    # The document applies softmax straight to the raw scores, so scaling is off.
    r = compute(cat_sat.with_options(scale=False))
    sat = TOKENS.index("sat")
    raw = [Q["sat"][0] * K[t][0] + Q["sat"][1] * K[t][1] for t in TOKENS]
    weights = _softmax_by_hand(raw)
    np.testing.assert_allclose(r.weights[sat], weights, rtol=1e-12, atol=0)
    np.testing.assert_allclose(r.weights.sum(axis=1), 1.0, atol=1e-12)
    # The document prints [0.18, 0.58, 0.24]. That is WRONG: e^0.24, e^0.93 and
    # e^0.42 are 1.271, 2.535 and 1.522, which share out as about
    # [0.24, 0.48, 0.29]. The engine must follow the maths, not the document.
    assert [round(w, 2) for w in weights] == [0.24, 0.48, 0.29]
    assert not np.allclose(r.weights[sat], [0.18, 0.58, 0.24], atol=0.02)
    e = explain.weight(r, sat, 1)
    assert e.text == (
        "weight = e^0.93 / (e^0.24 + e^0.93 + e^0.42) = 2.5345 / (1.2712 + 2.5345 + 1.5220)"
        f" = 2.5345 / 5.3277 = {explain.fixed(weights[1], 4)}"
    )


def test_seed_cat_sat_output_of_sat(cat_sat):
    r = compute(cat_sat.with_options(scale=False))
    sat = TOKENS.index("sat")
    raw = [Q["sat"][0] * K[t][0] + Q["sat"][1] * K[t][1] for t in TOKENS]
    weights = _softmax_by_hand(raw)
    expected = [sum(weights[j] * V[t][c] for j, t in enumerate(TOKENS)) for c in range(3)]
    np.testing.assert_allclose(r.output[sat], expected, rtol=1e-12, atol=0)
    # The document prints [0.72, 0.48, 0.47], mixed with its wrong weights
    # (and even those weights give about [0.71, 0.47, 0.47]). With the right
    # weights the new vector of 'sat' is about [0.67, 0.51, 0.41].
    assert [round(a, 2) for a in expected] == [0.67, 0.51, 0.41]
    assert not np.allclose(r.output[sat], [0.72, 0.48, 0.47], atol=0.02)


def test_seed_cat_sat_with_scaling_divides_by_root_two(cat_sat):
    r = compute(cat_sat)  # the preset scales, as the document's pipeline says
    sat = TOKENS.index("sat")
    raw = [Q["sat"][0] * K[t][0] + Q["sat"][1] * K[t][1] for t in TOKENS]
    weights = _softmax_by_hand([s / math.sqrt(2) for s in raw])
    np.testing.assert_allclose(r.weights[sat], weights, rtol=1e-12, atol=0)


# ----- seed 2's numpy listing ---------------------------------------------------------------
def listing_qkv_attention(embeddings, d_k=4, d_v=4):
    """The document's numpy listing, written again here step for step."""
    n_tokens, d_model = embeddings.shape
    state = np.random.get_state()
    try:
        np.random.seed(42)
        W_Q = np.random.randn(d_model, d_k) * 0.1
        W_K = np.random.randn(d_model, d_k) * 0.1
        W_V = np.random.randn(d_model, d_v) * 0.1
    finally:
        np.random.set_state(state)  # leave the global generator as it was
    Q = np.dot(embeddings, W_Q)
    K = np.dot(embeddings, W_K)
    V = np.dot(embeddings, W_V)
    scores = np.dot(Q, K.T) / np.sqrt(d_k)

    def softmax(x):
        exp_x = np.exp(x - np.max(x, axis=1, keepdims=True))
        return exp_x / np.sum(exp_x, axis=1, keepdims=True)

    attention = softmax(scores)
    output = np.dot(attention, V)
    return output, attention, (W_Q, W_K, W_V)


def test_seed_numpy_listing_matches_compute():
    s = presets.load("seed-numpy-demo")
    output, attention, (w_q, w_k, w_v) = listing_qkv_attention(np.array(EMBEDDINGS))
    assert s.tokens == TOKENS
    assert np.array_equal(s.w_q, w_q) and np.array_equal(s.w_k, w_k) and np.array_equal(s.w_v, w_v)
    assert s.scale and not s.causal and s.temperature == 1.0 and s.softmax_over == "keys"
    r = compute(s)
    np.testing.assert_allclose(r.weights, attention, rtol=1e-12, atol=0)
    np.testing.assert_allclose(r.output, output, rtol=1e-12, atol=1e-15)
