"""compute() against the loop-by-loop reference in reference.py, on many random scenarios."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from qkv_engine import Scenario, compute

from . import reference

RTOL = 1e-10
TEMPERATURES = (0.25, 1.0, 2.5, 7.0)
OPTIONS = list(itertools.product((True, False), (False, True), ("keys", "queries"), TEMPERATURES))
PER_OPTION = 12  # 4 x 2 x 2 x 4 option sets x 12 = 384 scenarios


def random_scenario(rng: np.random.Generator, scale, causal, softmax_over, temperature) -> Scenario:
    n = int(rng.integers(1, 13))
    d_model, d_k, d_v = (int(d) for d in rng.integers(1, 7, size=3))
    spread = float(rng.choice([0.1, 1.0, 3.0]))
    tokens = tuple(f"t{i}" for i in range(n))
    return Scenario(
        tokens=tokens,
        x=rng.normal(0.0, spread, (n, d_model)),
        w_q=rng.normal(0.0, 1.0, (d_model, d_k)),
        w_k=rng.normal(0.0, 1.0, (d_model, d_k)),
        w_v=rng.normal(0.0, 1.0, (d_model, d_v)),
        scale=scale,
        causal=causal,
        temperature=temperature,
        softmax_over=softmax_over,
    )


def assert_matches(actual: np.ndarray, expected, what: str) -> None:
    expected = np.array(expected, dtype=np.float64).reshape(actual.shape)
    finite = np.isfinite(expected)
    # Masked entries must match exactly (-inf); the rest to a relative tolerance,
    # measured against the largest magnitude in the array so that entries close
    # to zero after cancellation are not held to an impossible standard.
    assert np.array_equal(np.isfinite(actual), finite), f"{what}: masked entries differ"
    assert np.array_equal(actual[~finite], expected[~finite]), f"{what}: masked entries differ"
    size = max(1.0, float(np.max(np.abs(expected[finite]), initial=0.0)))
    np.testing.assert_allclose(actual[finite], expected[finite], rtol=RTOL, atol=RTOL * size, err_msg=what)


def check_against_reference(s: Scenario) -> None:
    r = compute(s)
    ref = reference.attention_of(s)
    n = s.n
    assert r.q.shape == (n, s.d_k) and r.k.shape == (n, s.d_k) and r.v.shape == (n, s.d_v)
    assert r.scores.shape == r.scaled.shape == r.weights.shape == r.allowed.shape == (n, n)
    assert r.output.shape == (n, s.d_v)
    for name in ("q", "k", "v", "scores", "scaled", "weights", "output"):
        assert_matches(getattr(r, name), getattr(ref, name), name)
    assert r.allowed.tolist() == ref.allowed
    assert math.isclose(r.divisor, ref.divisor, rel_tol=1e-15)
    # Masked weights are exactly zero, not merely tiny.
    assert np.all(r.weights[~r.allowed] == 0.0)


@pytest.mark.parametrize("scale,causal,softmax_over,temperature", OPTIONS)
def test_compute_matches_reference(scale, causal, softmax_over, temperature):
    seed = OPTIONS.index((scale, causal, softmax_over, temperature))
    rng = np.random.default_rng(1000 + seed)
    for _ in range(PER_OPTION):
        check_against_reference(random_scenario(rng, scale, causal, softmax_over, temperature))


@pytest.mark.parametrize("n", range(1, 13))
def test_every_sentence_length_matches_reference(n):
    rng = np.random.default_rng(n)
    s = Scenario(
        tokens=tuple("abcdefghijkl"[:n]),
        x=rng.normal(size=(n, 6)),
        w_q=rng.normal(size=(6, 6)),
        w_k=rng.normal(size=(6, 6)),
        w_v=rng.normal(size=(6, 1)),
        causal=bool(n % 2),
    )
    check_against_reference(s)


def test_sentence_scenarios_match_reference():
    for seed, text in enumerate(["The cat sat on the mat.", "it it it", "a", "Hello, world! How are you?"]):
        check_against_reference(Scenario.from_sentence(text, d_model=5, d_k=3, d_v=2, seed=seed))
        check_against_reference(Scenario.from_sentence(text, seed=seed, causal=True, softmax_over="queries"))


def test_reference_itself_on_a_hand_worked_case():
    # Two tokens, d_model = d_k = d_v = 2, identity grids: q = k = v = x.
    x = [[1.0, 0.0], [1.0, 1.0]]
    eye = [[1.0, 0.0], [0.0, 1.0]]
    ref = reference.attention(x, eye, eye, eye, scale=True, causal=False)
    # scores: [[1, 1], [1, 2]]; divided by sqrt(2).
    assert ref.scores == [[1.0, 1.0], [1.0, 2.0]]
    assert ref.scaled[1][1] == 2.0 / math.sqrt(2.0)
    # Row 0 has equal scores: half and half.
    assert ref.weights[0] == [0.5, 0.5]
    a = 1.0 / (1.0 + math.exp(1.0 / math.sqrt(2.0)))  # weight of row 1 on key 0
    assert math.isclose(ref.weights[1][0], a, rel_tol=1e-15)
    assert math.isclose(ref.output[1][1], (1.0 - a) * 1.0, rel_tol=1e-15)

    causal = reference.attention(x, eye, eye, eye, scale=False, causal=True)
    assert causal.scaled[0][1] == float("-inf")
    assert causal.weights[0] == [1.0, 0.0]

    columns = reference.attention(x, eye, eye, eye, scale=False, softmax_over="queries")
    for j in range(2):
        assert math.isclose(columns.weights[0][j] + columns.weights[1][j], 1.0, rel_tol=1e-15)


def test_compute_results_are_read_only():
    r = compute(Scenario.from_sentence("The cat sat", seed=4))
    for name in ("q", "k", "v", "scores", "scaled", "weights", "output", "allowed"):
        a = getattr(r, name)
        assert not a.flags.writeable, name
        with pytest.raises(ValueError):
            a[0, 0] = a[0, 0]
