"""What pictures of a real model's sizes show of a long vector: the largest products of one coordinate of
q, k or v (and the rest, and the bias), the largest entries of an embedding, and a diverging colour scale.

Checked against sums written out here with plain loops."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import compute, views
from qkv_engine.scenario import Scenario


def big_scenario(n=30, d_model=384, d_k=32, seed=7, cross=False) -> Scenario:
    rng = np.random.default_rng(seed)
    extra = {}
    if cross:
        extra = {"source_tokens": tuple(f"s{m}" for m in range(n // 2)),
                 "source_x": rng.normal(size=(n // 2, d_model))}
    return Scenario(tokens=tuple(f"t{m}" for m in range(n)), x=rng.normal(size=(n, d_model)),
                    w_q=rng.normal(size=(d_model, d_k)) / 20, w_k=rng.normal(size=(d_model, d_k)) / 20,
                    w_v=rng.normal(size=(d_model, d_k)) / 20, b_q=rng.normal(size=d_k),
                    b_k=rng.normal(size=d_k), b_v=rng.normal(size=d_k), **extra)


@pytest.mark.parametrize("which", ["q", "k", "v"])
def test_contributions_are_the_largest_products_the_rest_and_the_bias(which):
    s = big_scenario()
    r = compute(s)
    i, c = 11, 5
    grid = {"q": s.w_q, "k": s.w_k, "v": s.w_v}[which]
    bias = {"q": s.b_q, "k": s.b_k, "v": s.b_v}[which]
    products = [float(s.x[i][m]) * float(grid[m][c]) for m in range(s.d_model)]
    by_size = sorted(range(s.d_model), key=lambda m: -abs(products[m]))[:6]
    got = views.contributions(r, which, i, c, 6)
    assert got.rows.tolist() == sorted(by_size)
    np.testing.assert_allclose(got.x, [s.x[i][m] for m in sorted(by_size)])
    np.testing.assert_allclose(got.w, [grid[m][c] for m in sorted(by_size)])
    np.testing.assert_allclose(got.products, [products[m] for m in sorted(by_size)])
    assert got.rest_count == s.d_model - 6
    assert got.rest == pytest.approx(sum(products[m] for m in range(s.d_model) if m not in by_size), abs=1e-12)
    assert got.bias == float(bias[c]) != 0.0
    total = sum(products) + float(bias[c])
    assert got.value == pytest.approx(total, abs=1e-9)
    assert got.products.sum() + got.rest + got.bias == pytest.approx(got.value, abs=1e-9)


def test_contributions_of_keys_in_cross_attention_mix_the_source_token():
    s = big_scenario(cross=True)
    r = compute(s)
    got = views.contributions(r, "k", 3, 0, 4)
    products = [float(s.source_x[3][m]) * float(s.w_k[m][0]) for m in range(s.d_model)]
    assert got.products.sum() + got.rest + got.bias == pytest.approx(sum(products) + float(s.b_k[0]), abs=1e-9)


def test_a_short_sum_shows_every_product_and_leaves_nothing_out():
    s = Scenario(tokens=("a", "b"), x=[[1.0, -2.0, 0.5], [0.0, 1.0, 1.0]], w_q=[[1.0], [2.0], [4.0]],
                 w_k=[[1.0], [1.0], [1.0]], w_v=[[1.0], [1.0], [1.0]])
    got = views.contributions(compute(s), "q", 0, 0, 5)
    assert got.rows.tolist() == [0, 1, 2]
    np.testing.assert_allclose(got.products, [1.0, -4.0, 2.0])
    assert got.rest_count == 0 and got.rest == 0.0 and got.bias == 0.0
    assert got.value == pytest.approx(-1.0)


def test_largest_entries_are_ordered_by_size():
    values = [0.1, -3.0, 2.0, 0.0, -0.5, 2.5]
    order, left = views.largest_entries(values, 3)
    assert order.tolist() == [1, 5, 2] and left == 3
    order, left = views.largest_entries(values, 10)
    assert sorted(order.tolist()) == list(range(6)) and left == 0


def test_the_diverging_limit_leaves_the_few_largest_sizes_out():
    values = np.concatenate([np.linspace(-1.0, 1.0, 98), [50.0, -80.0]])  # two outliers among 100 numbers
    limit = views.diverging_limit(values, share=0.98)
    sizes = sorted(abs(v) for v in values)
    assert sizes[97] - 1e-12 <= limit <= sizes[98]  # 98 of the 100 sizes are at most the limit
    assert sum(abs(v) <= limit for v in values) == 98
    assert views.diverging_limit([[0.5, -2.0], [1.0, 0.0]], share=1.0) == 2.0
    assert views.diverging_limit(np.zeros((2, 3))) == 1.0
    assert views.diverging_limit([0.0] * 99 + [3.0]) == 3.0  # mostly zeros: the largest, not 0
    assert views.diverging_limit([np.nan, 2.0, -1.0], share=1.0) == 2.0


@pytest.mark.parametrize("shape", [(1,), (2,), (3, 1), (5, 3), (7, 11), (64, 64), (512, 512)])
def test_the_diverging_limit_is_numpys_quantile_of_the_finite_sizes_to_the_last_bit(shape):
    """The limit takes one partial sort instead of np.quantile's four; it must give np.quantile's number."""
    rng = np.random.default_rng(sum(shape))
    for trial in range(12):
        values = rng.normal(size=shape) * [1.0, 1e-300, 1e300, 3.0][trial % 4]
        if trial % 3 == 1:
            values.reshape(-1)[rng.integers(0, values.size)] = np.nan
        if trial % 5 == 2:
            values.reshape(-1)[rng.integers(0, values.size)] = -np.inf
        kept = values.copy()
        for share in (0.98, 0.5, 0.0, 1.0, 0.25, 0.999):
            sizes = np.abs(values[np.isfinite(values)])
            want = float(np.quantile(sizes, share)) if sizes.size else 1.0
            if sizes.size and want <= 0.0:
                want = float(sizes.max())
            want = want if want > 0.0 else 1.0
            assert views.diverging_limit(values, share) == want, (shape, trial, share)
        np.testing.assert_array_equal(values, kept)  # the numbers given are left as they were
