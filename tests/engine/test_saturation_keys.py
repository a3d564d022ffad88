"""Flat ends of one key's weight curve, counted over the keys of a row (m of them, also in cross-attention)."""
import math

import numpy as np
import pytest

from qkv_engine import Scenario, compute, saturation


def scenario(n, m=None, seed=0, **options):
    rng = np.random.default_rng(seed)
    kw = dict(tokens=tuple(f"t{i}" for i in range(n)), x=rng.normal(0, 1, (n, 3)),
              w_q=rng.normal(0, 1, (3, 2)), w_k=rng.normal(0, 1, (3, 2)), w_v=rng.normal(0, 1, (3, 2)))
    if m is not None:
        kw.update(source_tokens=tuple(f"s{j}" for j in range(m)), source_x=rng.normal(0, 1, (m, 3)))
    return Scenario(**kw, **options)


def independent_log_s(s, i, j):
    """log of the sum of e^(scaled score) over the other allowed keys, from the inputs with numpy."""
    kx = s.source_x if s.source_x is not None else s.x
    z = (s.x @ s.w_q) @ (kx @ s.w_k).T / math.sqrt(s.d_k)
    others = [z[i, m] for m in range(z.shape[1]) if m != j and m not in s.padding]
    return math.log(sum(math.exp(v) for v in others)) if others else None


def test_self_attention_matches_the_independent_sum():
    s = scenario(5, seed=1)
    r = compute(s)
    for i in range(5):
        for j in range(5):
            lo, hi = saturation.flat_edges(r, i, j)
            root = math.sqrt(1 - saturation.FLAT_FRACTION)
            assert lo == pytest.approx(independent_log_s(s, i, j) + math.log((1 - root) / (1 + root)))
            assert hi == pytest.approx(independent_log_s(s, i, j) + math.log((1 + root) / (1 - root)))


@pytest.mark.parametrize("n,m", [(2, 6), (6, 3), (1, 9)])
def test_cross_attention_counts_every_source_key(n, m):
    s = scenario(n, m, seed=n * 10 + m)
    r = compute(s)
    frac = saturation.FLAT_FRACTION
    for i in range(n):
        for j in range(m):
            lo, hi = saturation.flat_edges(r, i, j)
            log_s = independent_log_s(s, i, j)
            for edge in (lo, hi):
                w = 1.0 / (1.0 + math.exp(log_s - edge))  # key j's weight if its score were the edge
                assert w * (1 - w) == pytest.approx(frac / 4)
            assert lo < hi


def test_only_key_left_has_no_flat_edges_and_padding_is_skipped():
    s = scenario(2, 4, seed=3, padding=(0, 1, 2))
    r = compute(s)
    assert saturation.flat_edges(r, 0, 3) is None
    s2 = scenario(2, 4, seed=3, padding=(1,))
    r2 = compute(s2)
    lo, _ = saturation.flat_edges(r2, 1, 0)
    root = math.sqrt(1 - saturation.FLAT_FRACTION)
    assert lo == pytest.approx(independent_log_s(s2, 1, 0) + math.log((1 - root) / (1 + root)))
    with pytest.raises(ValueError):
        saturation.flat_edges(r2, 0, 0, fraction=1.5)
