"""The √d_k lab against sampling theory and independent, plain-Python computations."""
from __future__ import annotations

import math

import numpy as np
import pytest

from qkv_engine import ScenarioError
from qkv_engine.scaling_lab import MAX_DK, SWEEP_DKS, scaling_lab, softmax_rows

#: Sampling tolerance in standard errors. With a fixed seed the test cannot flake; 4 SE would be
#: exceeded by chance in well under 1 in 10,000 seeds, so a pass means the variance is right.
N_SE = 4.0


def py_softmax(xs):
    top = max(xs)
    e = [math.exp(x - top) for x in xs]
    total = sum(e)
    return [v / total for v in e]


def py_entropy_bits(ps):
    return -sum(p * math.log2(p) for p in ps if p > 0)


def finite_difference_jacobian(xs, h=1e-6):
    """J[a][b] = d softmax(x)_a / d x_b by central differences."""
    n = len(xs)
    cols = []
    for b in range(n):
        up = list(xs)
        down = list(xs)
        up[b] += h
        down[b] -= h
        pu, pd = py_softmax(up), py_softmax(down)
        cols.append([(pu[a] - pd[a]) / (2 * h) for a in range(n)])
    return [[cols[b][a] for b in range(n)] for a in range(n)]


@pytest.mark.parametrize("d_k", [1, 2, 7, 64, 300, 512])
@pytest.mark.parametrize("seed", [0, 12345])
def test_measured_variances_are_within_sampling_error_of_d_k_and_1(d_k, seed):
    lab = scaling_lab(d_k, samples=2000, seed=seed)
    # The standard error of a sample variance of n normal numbers is sigma^2 * sqrt(2 / (n - 1)).
    # (q·k is not normal for small d_k: its kurtosis is 3 + 6/d_k, so use the exact formula
    #  SE^2 = sigma^4 (kurt - 1 + 2/(n-1)) / n, which is larger.)
    n = lab.samples
    kurt = 3.0 + 6.0 / d_k
    se_raw = d_k * math.sqrt((kurt - 1.0 + 2.0 / (n - 1)) / n)
    assert lab.predicted_raw_variance == d_k and lab.predicted_scaled_variance == 1.0
    assert abs(lab.raw_variance - d_k) < N_SE * se_raw
    assert abs(lab.scaled_variance - 1.0) < N_SE * se_raw / d_k
    # and measured straight from the samples
    assert lab.raw_variance == pytest.approx(float(np.var(lab.raw, ddof=1)))
    np.testing.assert_allclose(lab.scaled, lab.raw / math.sqrt(d_k))


def test_variance_grows_like_d_k_not_by_chance():
    small, big = scaling_lab(4, seed=3), scaling_lab(256, seed=3)
    assert big.raw_variance / small.raw_variance == pytest.approx(64, rel=0.25)
    assert big.scaled_variance == pytest.approx(small.scaled_variance, rel=0.25)


def test_raw_scores_are_dot_products_of_unit_variance_vectors():
    lab = scaling_lab(512, samples=4000, seed=1)
    # The draws behind the lab: every component of q and k has mean 0 and variance 1.
    from qkv_engine.scaling_lab import _pool

    q, k = _pool(1, 4000)
    assert abs(q.mean()) < 0.01 and abs(k.var() - 1.0) < 0.01
    np.testing.assert_allclose(lab.raw[:5], [float(np.dot(q[s], k[s])) for s in range(5)])


def test_histograms_share_bins_and_count_every_score():
    lab = scaling_lab(100, samples=1500, seed=2)
    assert lab.edges.shape == (lab.raw_counts.size + 1,)
    assert lab.raw_counts.sum() == lab.samples == lab.scaled_counts.sum()
    # independent count of one bin
    lo, hi = lab.edges[10], lab.edges[11]
    assert lab.raw_counts[10] == sum(1 for v in lab.raw if lo <= v < hi)
    assert lab.scaled_counts[lab.scaled_counts.size // 2] == sum(
        1 for v in lab.scaled if lab.edges[lab.scaled_counts.size // 2] <= v < lab.edges[lab.scaled_counts.size // 2 + 1])


@pytest.mark.parametrize("d_k", [1, 16, 512])
def test_row_weights_entropy_and_max_weight_match_plain_python(d_k):
    lab = scaling_lab(d_k, seed=7, row_length=12)
    for row, divisor in ((lab.raw_row, 1.0), (lab.scaled_row, math.sqrt(d_k))):
        assert row.scores.size == 12
        np.testing.assert_allclose(row.scores, lab.raw_row.scores / divisor)
        ps = py_softmax(list(row.scores))
        np.testing.assert_allclose(row.weights, ps, atol=1e-12)
        assert row.max_weight == pytest.approx(max(ps))
        assert row.entropy == pytest.approx(py_entropy_bits(ps), abs=1e-9)
    # the row is query 1 against the first 12 keys: its first score is the first pair's score
    assert lab.raw_row.scores[0] == pytest.approx(lab.raw[0])


@pytest.mark.parametrize("d_k", [1, 4, 64, 512])
def test_largest_jacobian_entry_matches_finite_differences(d_k):
    lab = scaling_lab(d_k, seed=11, row_length=8)
    for row in (lab.raw_row, lab.scaled_row):
        fd = finite_difference_jacobian(list(row.scores))
        assert row.max_jacobian == pytest.approx(max(abs(v) for r in fd for v in r), abs=1e-6)


def test_scaling_keeps_softmax_soft_and_the_gradient_alive_at_large_d_k():
    lab = scaling_lab(512, seed=0)
    sw = lab.sweep
    assert list(sw.d_k) == list(SWEEP_DKS) and SWEEP_DKS[-1] == MAX_DK
    assert sw.raw_max_weight[-1] > 0.85 and sw.scaled_max_weight[-1] < 0.5
    assert sw.raw_max_jacobian[-1] < 0.1 < sw.scaled_max_jacobian[-1]
    assert sw.raw_entropy[-1] < 1.0 < sw.scaled_entropy[-1]
    # d_k = 1: dividing by 1 changes nothing
    assert sw.raw_max_weight[0] == sw.scaled_max_weight[0]


def test_sweep_point_is_the_mean_over_rows_computed_independently():
    lab = scaling_lab(3, samples=400, row_length=10, seed=5)
    from qkv_engine.scaling_lab import _pool

    q, k = _pool(5, 400)
    i = SWEEP_DKS.index(64)
    mw, ent, jac = [], [], []
    for r in range(40):
        scores = [float(np.dot(q[r, :64], k[r * 10 + j, :64])) / 8.0 for j in range(10)]
        ps = py_softmax(scores)
        mw.append(max(ps))
        ent.append(py_entropy_bits(ps))
        fd = finite_difference_jacobian(scores)
        jac.append(max(abs(v) for row in fd for v in row))
    assert lab.sweep.rows == 40
    assert lab.sweep.scaled_max_weight[i] == pytest.approx(sum(mw) / 40)
    assert lab.sweep.scaled_entropy[i] == pytest.approx(sum(ent) / 40)
    assert lab.sweep.scaled_max_jacobian[i] == pytest.approx(sum(jac) / 40, abs=1e-6)


def test_same_seed_same_numbers_other_seed_other_numbers():
    a, b = scaling_lab(64, seed=42), scaling_lab(64, seed=42)
    assert a.raw_variance == b.raw_variance and np.array_equal(a.raw, b.raw)
    assert a.raw_row.max_jacobian == b.raw_row.max_jacobian
    c = scaling_lab(64, seed=43)
    assert not np.array_equal(a.raw, c.raw)


def test_growing_d_k_adds_components_to_the_same_vectors():
    from qkv_engine.scaling_lab import _pool

    q, k = _pool(9, 500)
    a, b = scaling_lab(10, samples=500, seed=9), scaling_lab(11, samples=500, seed=9)
    np.testing.assert_allclose(b.raw - a.raw, q[:, 10] * k[:, 10])


def test_results_are_read_only():
    lab = scaling_lab(8)
    for arr in (lab.raw, lab.scaled, lab.edges, lab.raw_counts, lab.raw_row.weights, lab.sweep.raw_max_weight):
        with pytest.raises(ValueError):
            arr[0] = 1.0
    with pytest.raises(Exception):
        lab.d_k = 3


@pytest.mark.parametrize("kwargs, words", [
    (dict(d_k=0), "d_k: must be from 1 to 512, got 0"),
    (dict(d_k=513), "d_k: must be from 1 to 512, got 513"),
    (dict(d_k=-4), "d_k"),
    (dict(d_k=2.5), "d_k: expected a whole number"),
    (dict(d_k=True), "d_k: expected a whole number"),
    (dict(d_k=8, samples=1), "samples: must be from 2"),
    (dict(d_k=8, samples=100, row_length=1), "row_length"),
    (dict(d_k=8, seed=-1), "seed"),
])
def test_bad_arguments_raise_scenario_error_naming_the_field(kwargs, words):
    with pytest.raises(ScenarioError) as info:
        scaling_lab(**kwargs)
    assert words in str(info.value)


def test_softmax_rows_is_stable_for_huge_scores():
    p = softmax_rows([1000.0, 0.0, -1000.0])
    np.testing.assert_allclose(p, [1.0, 0.0, 0.0])
