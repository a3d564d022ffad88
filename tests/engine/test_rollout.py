"""Attention rollout against the formula written out with loops, and small cases worked by hand."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import ScenarioError, rollout
from qkv_engine.models import load_model

from .model_files import TINY_GPT2


def brute_rollout(weights, residual):
    """Abnar & Zuidema's rollout, one number at a time."""
    L, H, n, _ = weights.shape
    out = []
    previous = None
    for layer in range(L):
        a = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                mean = sum(float(weights[layer, h, i, j]) for h in range(H)) / H
                a[i][j] = 0.5 * mean + (0.5 if i == j else 0.0) if residual else mean
            total = sum(a[i])
            a[i] = [x / total for x in a[i]] if total > 0 else [1.0 if j == i else 0.0 for j in range(n)]
        if previous is None:
            r = a
        else:
            r = [[sum(a[i][k] * previous[k][j] for k in range(n)) for j in range(n)] for i in range(n)]
        out.append(r)
        previous = r
    return np.array(out)


def stochastic(rng, shape):
    w = rng.random(shape)
    return w / w.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("residual", [True, False])
@pytest.mark.parametrize("shape", [(1, 1, 3, 3), (3, 2, 4, 4), (4, 3, 6, 6)])
def test_rollout_is_the_formula(shape, residual):
    w = stochastic(np.random.default_rng(sum(shape)), shape)
    got = rollout(w, residual=residual)
    assert got.shape == (shape[0], shape[2], shape[3])
    np.testing.assert_allclose(got, brute_rollout(w, residual), atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=-1), 1.0, atol=1e-12)


@pytest.mark.parametrize("residual", [True, False])
def test_rows_that_do_not_sum_to_one_are_renormalised_after_the_identity_is_mixed_in(residual):
    w = np.random.default_rng(5).random((3, 2, 4, 4)) * 3.0  # rows sum to anything
    np.testing.assert_allclose(rollout(w, residual=residual), brute_rollout(w, residual), atol=1e-12)


def test_two_layers_by_hand():
    # layer 1: token 0 looks at itself, token 1 half and half; layer 2: each looks at the other.
    w = np.array([[[[1.0, 0.0], [0.5, 0.5]]], [[[0.0, 1.0], [1.0, 0.0]]]])
    got = rollout(w)
    # A_1 = 0.5 W_1 + 0.5 I = [[1, 0], [0.25, 0.75]];  A_2 = [[0.5, 0.5], [0.5, 0.5]]
    np.testing.assert_allclose(got[0], [[1.0, 0.0], [0.25, 0.75]])
    # R_2 = A_2 R_1: each row 0.5 [1, 0] + 0.5 [0.25, 0.75]  (R_1 A_2 would give 0.5 everywhere)
    np.testing.assert_allclose(got[1], [[0.625, 0.375], [0.625, 0.375]])
    # without the residual: R_2 = W_2 W_1 = [[0.5, 0.5], [1, 0]]
    np.testing.assert_allclose(rollout(w, residual=False)[1], [[0.5, 0.5], [1.0, 0.0]])


def test_heads_are_averaged():
    w = np.array([[[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]]])  # 1 layer, 2 heads
    np.testing.assert_allclose(rollout(w, residual=False)[0], [[0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_allclose(rollout(w)[0], [[0.75, 0.25], [0.25, 0.75]])


@pytest.mark.parametrize("residual", [True, False])
def test_a_row_that_is_all_zero_keeps_its_token(residual):
    w = np.array([[[[0.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]]])  # query 0 sees nothing
    got = rollout(w, residual=residual)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got[0, 0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(got.sum(axis=-1), 1.0)
    np.testing.assert_allclose(got, brute_rollout(w, residual))


def test_rollout_of_a_causal_model_stays_causal():
    model = load_model(TINY_GPT2)
    trace = model.run("the quick brown fox jumps over the lazy dog.")
    got = rollout(trace.weights)
    assert got.shape == (trace.n_layers, trace.n, trace.n)
    assert (got[:, ~trace.allowed] == 0.0).all()
    np.testing.assert_allclose(got.sum(axis=-1), 1.0, atol=1e-6)
    np.testing.assert_allclose(got, brute_rollout(trace.weights.astype(np.float64), True), atol=1e-9)
    np.testing.assert_allclose(got[:, 0, 0], 1.0)  # the first token can only keep itself


def test_bad_weights_are_refused():
    for bad in (np.ones((2, 3, 3)), np.ones((1, 1, 2, 3)), -np.ones((1, 1, 2, 2)), np.full((1, 1, 2, 2), np.nan)):
        with pytest.raises(ScenarioError, match="weights"):
            rollout(bad)


def test_one_bad_number_among_good_ones_is_refused():
    good = np.full((2, 3, 4, 4), 0.25, dtype=np.float32)
    for where, value in (((1, 2, 3, 0), np.nan), ((0, 0, 0, 0), np.inf), ((1, 1, 1, 1), -0.01)):
        bad = good.copy()
        bad[where] = value
        with pytest.raises(ScenarioError, match="weights"):
            rollout(bad)


def test_a_long_sentences_stack_is_not_copied_to_float64():
    """Every head's weights of a long sentence are large: the rollout works from the heads' means, made
    without a float64 copy of the stack."""
    import tracemalloc

    weights = np.random.default_rng(0).random((2, 16, 96, 96)).astype(np.float32)
    weights /= weights.sum(axis=-1, keepdims=True)
    tracemalloc.start()
    try:
        got = rollout(weights)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < weights.nbytes  # a float64 copy alone would be twice this
    np.testing.assert_allclose(got, brute_rollout(weights.astype(np.float64), True), atol=1e-9)
