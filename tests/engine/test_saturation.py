"""saturation.flat_edges / slope against a brute-force softmax with finite differences."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import Scenario, compute, saturation


def _scenario(n=5, d_k=3, causal=False, seed=0, spread=1.0):
    rng = np.random.default_rng(seed)
    return compute(Scenario(
        tokens=tuple(f"t{a}" for a in range(n)),
        x=rng.normal(0, spread, (n, 4)),
        w_q=rng.normal(0, 1, (4, d_k)),
        w_k=rng.normal(0, 1, (4, d_k)),
        w_v=rng.normal(0, 1, (4, 2)),
        causal=causal,
    ))


def brute_weight(result, i, j, x):
    """Key j's softmax weight when its scaled score is x: write x into the row and run softmax over
    the keys the query may see (plus j)."""
    keys = [m for m in range(result.n) if m == j or result.allowed[i, m]]
    row = np.array([x if m == j else result.scaled[i, m] for m in keys], dtype=np.float64)
    e = np.exp(row - row.max())
    return float(e[keys.index(j)] / e.sum())


def brute_slope(result, i, j, x, h=1e-5):
    return (brute_weight(result, i, j, x + h) - brute_weight(result, i, j, x - h)) / (2 * h)


@pytest.mark.parametrize("seed", range(6))
def test_edges_are_where_the_slope_drops_to_the_fraction(seed):
    r = _scenario(seed=seed, spread=[0.3, 1.0, 3.0][seed % 3])
    for i in range(r.n):
        for j in range(r.n):
            low, high = saturation.flat_edges(r, i, j, 0.1)
            assert low < high
            for edge in (low, high):
                assert brute_slope(r, i, j, edge) == pytest.approx(0.025, rel=1e-4)
            # inside: steeper; outside: flatter
            assert brute_slope(r, i, j, (low + high) / 2) > 0.025
            assert brute_slope(r, i, j, low - 1.0) < 0.025
            assert brute_slope(r, i, j, high + 1.0) < 0.025
            # weights at the edges: near 0 below, near 1 above
            assert brute_weight(r, i, j, low) < 0.05 and brute_weight(r, i, j, high) > 0.95


def test_slope_matches_finite_differences():
    r = _scenario(seed=7)
    xs = np.linspace(-8, 8, 17)
    got = saturation.slope(r, 1, 2, xs)
    want = [brute_slope(r, 1, 2, x) for x in xs]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-9)
    assert got.max() <= 0.25


def test_causal_mask_leaves_masked_keys_out():
    r = _scenario(n=4, causal=True, seed=3)
    # query 0 sees only key 0: its weight is 1 whatever its score; the whole curve is flat
    assert saturation.flat_edges(r, 0, 0) is None
    assert np.all(saturation.slope(r, 0, 0, [-5.0, 0.0, 5.0]) == 0)
    # query 2 sees keys 0..2: key 1's curve depends only on keys 0 and 2
    low, high = saturation.flat_edges(r, 2, 1, 0.1)
    s = np.array(r.scaled[2, [0, 2]])
    log_s = np.log(np.exp(s).sum())
    w_high = (1 + np.sqrt(0.9)) / 2
    assert high == pytest.approx(log_s + np.log(w_high / (1 - w_high)))
    assert low == pytest.approx(log_s - np.log(w_high / (1 - w_high)))


def test_huge_scores_do_not_overflow():
    r = _scenario(seed=1, spread=400.0)
    low, high = saturation.flat_edges(r, 0, 1)
    assert np.isfinite(low) and np.isfinite(high)
    assert np.all(np.isfinite(saturation.slope(r, 0, 1, [-1e6, 0.0, 1e6])))


def test_bad_fraction():
    r = _scenario()
    with pytest.raises(ValueError):
        saturation.flat_edges(r, 0, 0, 1.5)


@pytest.mark.parametrize("causal", [False, True])
def test_the_scaling_panels_curve_is_the_weight_key_j_would_get_at_each_score(causal):
    from qkv_engine import views

    result = _scenario(n=6, causal=causal, seed=4)
    xs = np.linspace(-8.0, 8.0, 41)
    for i in range(result.n):
        for j in range(result.n):
            curve = views.softmax_curve(result, i, j, xs)
            np.testing.assert_allclose(curve, [brute_weight(result, i, j, x) for x in xs], rtol=1e-12, atol=1e-15)
    # at its own score, an open key's curve passes through the weight it has
    i, j = 3, 1
    assert views.softmax_curve(result, i, j, [result.scaled[i, j]])[0] == pytest.approx(result.weights[i, j])


def test_the_curve_holds_far_out_and_for_long_rows():
    """Scores in the hundreds (no overflow, the flat ends exactly 0 and 1 where softmax gives them) and a row of
    512 keys: the curve is the brute-force softmax weight at every score."""
    from qkv_engine import views

    for n, spread, xs in ((6, 30.0, np.linspace(-900.0, 900.0, 61)), (512, 1.0, np.linspace(-12.0, 12.0, 97))):
        result = _scenario(n=n, spread=spread, seed=9)
        for i, j in ((0, 1), (n - 1, n // 2)):
            curve = views.softmax_curve(result, i, j, xs)
            np.testing.assert_allclose(curve, [brute_weight(result, i, j, x) for x in xs], rtol=1e-12, atol=1e-15)
            assert np.all(np.diff(curve) >= 0) and np.all((curve >= 0) & (curve <= 1))
