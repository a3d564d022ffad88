"""The multi-head view numbers: head blocks of C and the worked arithmetic of one cell of Y = C W^O,
checked against numpy written out here."""
from __future__ import annotations

import re

import numpy as np
import pytest

from qkv_engine import Scenario, ScenarioError, compute_heads
from qkv_engine.heads_view import head_columns, head_of_column, projection_cell


def scenario(heads=3, n=4, d_model=4, d_k=2, d_v=2, d_out=5, seed=1, w_o=True):
    rng = np.random.default_rng(seed)
    return Scenario(
        tokens=tuple(f"t{i}" for i in range(n)),
        x=rng.normal(size=(n, d_model)),
        w_q=rng.normal(size=(d_model, heads * d_k)),
        w_k=rng.normal(size=(d_model, heads * d_k)),
        w_v=rng.normal(size=(d_model, heads * d_v)),
        n_heads=heads,
        w_o=rng.normal(size=(heads * d_v, d_out)) if w_o else None,
    )


def numpy_concat(s: Scenario) -> np.ndarray:
    """Each head by hand from its column slices, then side by side."""
    outs = []
    for h in range(s.n_heads):
        q = s.x @ s.w_q[:, h * s.d_k:(h + 1) * s.d_k]
        k = s.x @ s.w_k[:, h * s.d_k:(h + 1) * s.d_k]
        v = s.x @ s.w_v[:, h * s.d_v:(h + 1) * s.d_v]
        z = q @ k.T / np.sqrt(s.d_k)
        e = np.exp(z - z.max(axis=1, keepdims=True))
        outs.append((e / e.sum(axis=1, keepdims=True)) @ v)
    return np.concatenate(outs, axis=1)


def test_head_columns_tile_the_concat():
    full = compute_heads(scenario(heads=3, d_v=2))
    assert head_columns(full) == ((0, 2), (2, 4), (4, 6))
    assert [head_of_column(full, r) for r in range(6)] == [0, 0, 1, 1, 2, 2]
    with pytest.raises(ScenarioError):
        head_of_column(full, 6)


@pytest.mark.parametrize("heads,d_v,d_out", [(1, 3, 2), (2, 2, 4), (3, 3, 1), (8, 1, 3)])
def test_projection_cell_value_and_terms_match_numpy(heads, d_v, d_out):
    s = scenario(heads=heads, d_v=d_v, d_out=d_out, seed=heads)
    full = compute_heads(s)
    y = numpy_concat(s) @ s.w_o
    for i in range(s.n):
        for c in range(d_out):
            ex = projection_cell(full, i, c)
            assert ex.value == pytest.approx(y[i, c])
            assert len(ex.terms) == heads * d_v
            assert sum(t.value for t in ex.terms) == pytest.approx(y[i, c])
            np.testing.assert_allclose([t.factors for t in ex.terms],
                                       np.stack([numpy_concat(s)[i], s.w_o[:, c]], axis=1))
            assert ex.symbol == f"y{c + 1}"
            assert ex.text.endswith(f"= {y[i, c]:.2f}".replace("-0.00", "0.00"))


def test_text_spells_out_the_products_and_short_sums_list_every_term():
    s = scenario(heads=2, d_v=1, d_out=1)
    full = compute_heads(s)
    ex = projection_cell(full, 1, 0, decimals=2)
    c0, c1 = full.concat[1]
    w0, w1 = s.w_o[:, 0]
    products = ex.text.split(" = ")[1]
    numbers = [float(v) for v in re.findall(r"-?\d+\.\d+", products)]
    np.testing.assert_allclose(numbers, [c0, w0, c1, w1], atol=0.0051)  # shown with 2 decimals
    assert ex.text.startswith("y1 = ") and ex.text.count(" = ") == 3  # products = sum = value
    assert ex.formula == "y1 = C[2,1]·W^O[1,1] + C[2,2]·W^O[2,1]"


def test_long_sums_are_shortened_in_text_but_not_in_terms():
    s = scenario(heads=8, d_v=3, d_out=2)
    ex = projection_cell(compute_heads(s), 0, 1)
    assert "more" in ex.text and len(ex.terms) == 24


def test_without_w_o_the_output_is_the_concat():
    s = scenario(heads=1, d_v=3, w_o=False)
    full = compute_heads(s)
    ex = projection_cell(full, 2, 1)
    assert ex.value == pytest.approx(numpy_concat(s)[2, 1])
    assert "no W^O" in ex.text


def test_out_of_range_is_refused():
    full = compute_heads(scenario())
    with pytest.raises(ScenarioError):
        projection_cell(full, 4, 0)
    with pytest.raises(ScenarioError):
        projection_cell(full, 0, 5)
