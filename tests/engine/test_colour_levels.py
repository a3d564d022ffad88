"""Colour-scale levels, tiles and strongest keys, checked against plain loops written out here."""
from __future__ import annotations

import math

import numpy as np
import pytest

from qkv_engine import Scenario, compute
from qkv_engine.attention import MASK_BLOCKED, MASK_CAUSAL, MASK_OPEN, MASK_PADDING
from qkv_engine.mask_view import reasons_from_allowed
from qkv_engine.views import COLOUR_SCALES, colour_levels, most_attended, tile_grid


def random_weights(rng, *shape):
    e = rng.random(shape) ** 3
    return e / e.sum(axis=-1, keepdims=True)


def test_absolute_is_zero_to_one_whatever_the_weights():
    w = random_weights(np.random.default_rng(1), 11, 11)
    lv = colour_levels(w, "absolute")
    assert (lv.low, lv.high) == (0.0, 1.0)
    assert lv.largest == pytest.approx(max(max(r) for r in w.tolist()))


def test_auto_is_zero_to_the_largest_weight_shown():
    rng = np.random.default_rng(2)
    for n in (1, 3, 20, 69):
        w = random_weights(rng, n, n)
        top = max(max(row) for row in w.tolist())
        lv = colour_levels(w, "auto")
        assert lv.low == 0.0 and lv.high == pytest.approx(top) and lv.largest == pytest.approx(top)
    # NaN cells (the gaps between tiles) are not weights
    w = np.array([[0.2, np.nan], [0.05, 0.1]])
    assert colour_levels(w, "auto").high == pytest.approx(0.2)


def test_row_gives_each_row_its_own_largest_and_an_empty_row_zero_to_one():
    rng = np.random.default_rng(3)
    w = random_weights(rng, 7, 5)
    w[4] = 0.0  # a row whose keys are all masked
    lv = colour_levels(w, "row")
    high = np.broadcast_to(lv.high, w.shape)
    for i, row in enumerate(w.tolist()):
        want = max(row) if max(row) > 0 else 1.0
        assert all(h == pytest.approx(want) for h in high[i])


def test_a_stack_shares_one_scale_or_has_one_per_matrix():
    rng = np.random.default_rng(4)
    stack = random_weights(rng, 2, 3, 4, 4)
    shared = colour_levels(stack, "auto")
    assert shared.high == pytest.approx(float(stack.max()))
    each = colour_levels(stack, "auto", per_matrix=True)
    high = np.broadcast_to(each.high, stack.shape)
    for l in range(2):
        for h in range(3):
            top = max(max(r) for r in stack[l, h].tolist())
            assert np.allclose(high[l, h], top)
    rows = np.broadcast_to(colour_levels(stack, "row").high, stack.shape)
    assert np.allclose(rows[1, 2, 3], max(stack[1, 2, 3].tolist()))


def test_unknown_mode_is_refused():
    assert COLOUR_SCALES == ("absolute", "auto", "row")
    with pytest.raises(ValueError, match="colour scale"):
        colour_levels(np.ones((2, 2)), "log")


def test_levels_of_a_masked_result_ignore_nothing_but_nan():
    s = Scenario(tokens=("a", "b", "c"), x=np.eye(3), w_q=np.eye(3), w_k=np.eye(3), w_v=np.eye(3), causal=True)
    r = compute(s)
    lv = colour_levels(r.weights, "row")
    assert np.allclose(np.asarray(lv.high).ravel(), [max(row) for row in r.weights.tolist()])


def test_tiles_sit_where_their_layer_and_head_say_with_empty_gaps():
    rng = np.random.default_rng(5)
    L, H, n, m, gap = 3, 4, 5, 6, 2
    stack = rng.random((L, H, n, m))
    grid = tile_grid(stack, gap)
    assert grid.shape == (L * n + (L - 1) * gap, H * m + (H - 1) * gap)
    filled = np.zeros(grid.shape, dtype=bool)
    for l in range(L):
        for h in range(H):
            for i in range(n):
                for j in range(m):
                    r, c = l * (n + gap) + i, h * (m + gap) + j
                    assert grid[r, c] == stack[l, h, i, j]
                    filled[r, c] = True
    assert np.isnan(grid[~filled]).all()
    assert tile_grid(stack, 0, fill=0.0).shape == (L * n, H * m)


def test_most_attended_is_the_largest_weight_of_the_query_row():
    rng = np.random.default_rng(6)
    stack = random_weights(rng, 2, 3, 5, 5)
    j, w = most_attended(stack, 2)
    for l in range(2):
        for h in range(3):
            row = stack[l, h, 2].tolist()
            assert j[l, h] == row.index(max(row)) and math.isclose(w[l, h], max(row))


def test_reasons_from_allowed_agree_with_the_scenario_masks():
    rng = np.random.default_rng(8)
    for causal in (False, True):
        for padding in ((), (4,), (1, 5)):
            s = Scenario(tokens=tuple(f"t{i}" for i in range(6)), x=rng.normal(size=(6, 3)),
                         w_q=rng.normal(size=(3, 2)), w_k=rng.normal(size=(3, 2)), w_v=rng.normal(size=(3, 2)),
                         causal=causal, padding=padding)
            r = compute(s)
            assert np.array_equal(reasons_from_allowed(r.allowed), r.masked_by), (causal, padding)
    ok = np.ones((3, 3), dtype=bool)
    ok[1, 0] = False
    why = reasons_from_allowed(ok)
    assert why[1, 0] == MASK_BLOCKED and (why[ok] == MASK_OPEN).all()
    assert {MASK_CAUSAL, MASK_PADDING}.isdisjoint(set(why.ravel().tolist()))


def test_pooled_takes_the_largest_of_each_block():
    from qkv_engine.views import pooled

    a = np.arange(2 * 5 * 7, dtype=float).reshape(2, 5, 7)
    p = pooled(a, 3)
    assert p.shape == (2, 2, 3)
    for b in range(2):
        for i in range(2):
            for j in range(3):
                assert p[b, i, j] == a[b, 3 * i:3 * i + 3, 3 * j:3 * j + 3].max()
    assert pooled(a, 1) is not None and np.array_equal(pooled(a, 1), a)


def test_strongest_heads_are_the_largest_weights_of_one_pair():
    from qkv_engine.views import strongest_heads

    rng = np.random.default_rng(4)
    w = rng.uniform(size=(3, 4, 5, 5))
    best = strongest_heads(w, 2, 3, count=3)
    flat = sorted(((w[l, h, 2, 3], l, h) for l in range(3) for h in range(4)), reverse=True)[:3]
    assert [(l, h) for l, h, _ in best] == [(l, h) for _, l, h in flat]
    assert [v for _, _, v in best] == [v for v, _, _ in flat]


def test_pooled_keeps_the_stacks_type_and_pools_booleans_as_any():
    from qkv_engine.views import pooled

    a = np.random.default_rng(0).random((3, 10, 7)).astype(np.float32)
    p = pooled(a, 4)
    assert p.dtype == np.float32 and p.shape == (3, 3, 2)
    assert p[1, 2, 1] == a[1, 8:, 4:].max() and p[2, 0, 0] == a[2, :4, :4].max()
    mask = np.zeros((10, 7), bool)
    mask[9, 6] = True
    assert pooled(mask, 4).tolist() == [[False, False], [False, False], [False, True]]
