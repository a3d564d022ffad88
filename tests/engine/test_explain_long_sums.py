"""Long sums (a trained model's 384 products, 40 keys) show their largest terms and the rest as one number."""
import re

import numpy as np
import pytest

from qkv_engine import Scenario, compute, explain


def big(d_model=40, d_k=32, n=12, seed=3):
    rng = np.random.default_rng(seed)
    tokens = tuple(f"t{i}" for i in range(n))
    return Scenario(tokens=tokens, x=rng.normal(size=(n, d_model)), w_q=rng.normal(size=(d_model, d_k)),
                    w_k=rng.normal(size=(d_model, d_k)), w_v=rng.normal(size=(d_model, 4)),
                    b_q=rng.normal(size=d_k))


def test_largest_picks_the_biggest_in_size_and_sums_the_rest():
    values = [0.1, -5.0, 0.2, 3.0, -0.05, 0.3, 1.0, -2.0, 0.01, 0.02]
    keep, rest = explain.largest(values, 3)
    assert keep == [1, 3, 7]  # -5, 3, -2: in their order
    assert rest == pytest.approx(sum(values) - (-5.0 + 3.0 - 2.0))


def test_a_long_projection_names_its_largest_products_and_their_dials():
    r = compute(big())
    ex = explain.projection(r, "q", 2, 5)
    s = r.scenario
    products = s.x[2] * s.w_q[:, 5]
    top = sorted(np.argsort(-np.abs(products))[:explain.LARGEST_SHOWN])
    for d in top:
        assert f"[x{d + 1}]" in ex.text
    assert "(the other 35 terms)" in ex.text and " + b^Q6 = " in ex.text
    rest = products.sum() - products[top].sum()
    sign = "-" if rest < 0 else "+"
    assert f"{sign} {explain.fixed(abs(rest), 2)} (the other 35 terms)" in ex.text
    assert ex.text.endswith(" = " + explain.fixed(float(r.q[2, 5]), 2))
    assert len(ex.terms) == 41  # every product and the bias stay in the terms


def test_a_long_dot_product_shows_its_largest_q_k_pairs():
    r = compute(big())
    ex = explain.score(r, 4, 7)
    pairs = r.q[4] * r.k[7]
    top = sorted(np.argsort(-np.abs(pairs))[:explain.LARGEST_SHOWN])
    assert re.findall(r"\[d(\d+)\]", ex.text) == [str(d + 1) for d in top]
    assert "(the other 27 terms)" in ex.text
    assert ex.text.endswith(" = " + explain.fixed(float(r.scores[4, 7]), 4))


def test_the_softmax_of_many_keys_shows_the_largest_exponentials_and_the_rest():
    r = compute(big(n=30))
    ex = explain.weight(r, 0, 0)
    e = np.exp(r.scaled[0] - 0.0)
    top = sorted(np.argsort(-e)[:explain.LARGEST_SHOWN])
    rest = e.sum() - e[top].sum()
    assert f"{explain.fixed(rest, 4)} (the other 25 terms)" in ex.text
    for j in top:
        assert f"('t{j}')" in ex.text


def test_short_sums_are_written_in_full():
    r = compute(Scenario.from_sentence("the cat sat", d_model=4))
    assert "other" not in explain.projection(r, "q", 0, 0).text
    assert "other" not in explain.weight(r, 0, 0).text
