"""Compare A / B: the difference, its colour limit and the largest changes, checked with plain loops."""
from __future__ import annotations

import types

import numpy as np
import pytest

from qkv_engine import compute, presets
from qkv_engine.compare import CHANGE_TOLERANCE, MIN_LIMIT, compare


def fake(weights, tokens=None):
    """A stand-in result: only what compare() reads (weights and tokens)."""
    w = np.array(weights, dtype=float)
    toks = tuple(tokens) if tokens is not None else tuple(f"t{i}" for i in range(w.shape[0]))
    return types.SimpleNamespace(weights=w, tokens=toks)


def reference_changes(a, b, k):
    """Every changed cell with plain loops, sorted by -|d|, row, column; the first k."""
    rows = []
    for i in range(len(a)):
        for j in range(len(a[0])):
            d = float(b[i][j]) - float(a[i][j])
            if abs(d) > CHANGE_TOLERANCE:
                rows.append((-abs(d), i, j, float(a[i][j]), float(b[i][j]), d))
    rows.sort()
    return [(i, j, av, bv, d) for _neg, i, j, av, bv, d in rows[:k]]


def test_weight_edit_difference_limit_and_changes_match_loops():
    s = presets.load("seed-the-cat-sat")
    a = compute(s)
    b = compute(s.with_cell("w_q", 0, 1, float(s.w_q[0, 1]) + 0.9))
    c = compare(a, b, k=4)
    assert c.comparable and c.reason == "" and c.a_shape == c.b_shape == (3, 3)
    n = 3
    largest = 0.0
    for i in range(n):
        for j in range(n):
            d = float(b.weights[i, j]) - float(a.weights[i, j])
            assert c.difference[i, j] == d
            largest = max(largest, abs(d))
    assert c.largest == largest and largest > 0.01
    assert c.limit == max(largest, MIN_LIMIT)
    assert not c.difference.flags.writeable
    want = reference_changes(a.weights, b.weights, 4)
    got = [(ch.query, ch.key, ch.a, ch.b, ch.delta) for ch in c.changes]
    assert got == want
    for ch in c.changes:
        assert ch.query_token == s.tokens[ch.query] and ch.key_token == s.tokens[ch.key]
        assert ch.delta == ch.b - ch.a


def test_different_shapes_are_not_comparable_and_say_why():
    a = compute(presets.load("seed-the-cat-sat"))
    b = compute(presets.load("seed-the-cat-sat").with_text("The cat sat down"))
    c = compare(a, b)
    assert not c.comparable and c.difference is None and c.changes == ()
    assert c.a_shape == (3, 3) and c.b_shape == (4, 4)
    assert c.reason == ("A has 3 × 3 weights, B has 4 × 4: change the sentence back to the same number "
                        "of tokens to compare.")


def test_identical_results_have_no_changes_and_the_floor_limit():
    a = compute(presets.load("pronoun"))
    b = compute(presets.load("pronoun"))
    c = compare(a, b)
    assert c.comparable and c.largest == 0.0 and c.limit == MIN_LIMIT > 0
    assert c.changes == ()  # decided: only real changes are listed
    assert not np.any(c.difference)


def test_ties_are_broken_by_row_then_column():
    a = fake([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    b = fake([[0.4, 0.6, 0.0], [0.3, 0.2, 0.5], [0.1, 0.1, 0.8]])
    # |d| = 0.1 up to rounding at (0,0), (0,1), (1,0), (1,1): the loops decide the order of near-ties.
    c = compare(a, b, k=3)
    want = reference_changes(a.weights, b.weights, 3)
    assert [(ch.query, ch.key) for ch in c.changes] == [(i, j) for i, j, *_ in want]
    exact_a = fake([[0.0, 0.0], [0.0, 0.0]])
    exact_b = fake([[0.25, -0.25], [0.25, 0.5]])
    c = compare(exact_a, exact_b, k=3)
    assert [(ch.query, ch.key, ch.delta) for ch in c.changes] == [(1, 1, 0.5), (0, 0, 0.25), (0, 1, -0.25)]


def test_k_larger_than_the_grid_and_k_zero():
    a = fake([[1.0, 0.0], [0.5, 0.5]], tokens=["x", "y"])
    b = fake([[0.0, 1.0], [0.5, 0.5]], tokens=["x", "y"])
    c = compare(a, b, k=10)
    assert [(ch.query, ch.key, ch.delta) for ch in c.changes] == [(0, 0, -1.0), (0, 1, 1.0)]
    assert [(ch.query_token, ch.key_token) for ch in c.changes] == [("x", "x"), ("x", "y")]
    assert compare(a, b, k=0).changes == ()


def test_columns_use_key_tokens_when_a_result_has_them():
    a = fake([[0.5, 0.5, 0.0]], tokens=["q"])
    b = types.SimpleNamespace(weights=np.array([[0.2, 0.5, 0.3]]), tokens=("q",), key_tokens=("k1", "k2", "k3"))
    c = compare(a, b)
    assert c.comparable and [(ch.query_token, ch.key_token) for ch in c.changes] == [("q", "k1"), ("q", "k3")]
    a3 = fake([[0.5, 0.5]], tokens=["q"])
    c = compare(a3, b)
    assert not c.comparable and c.reason.startswith("A has 1 × 2 weights, B has 1 × 3")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_grids_against_loops(seed):
    rng = np.random.default_rng(seed)
    wa = rng.random((7, 7))
    wb = wa + np.where(rng.random((7, 7)) < 0.5, rng.normal(0, 0.2, size=(7, 7)), 0.0)
    c = compare(fake(wa), fake(wb), k=6)
    assert [(ch.query, ch.key, ch.a, ch.b, ch.delta) for ch in c.changes] == reference_changes(wa, wb, 6)
