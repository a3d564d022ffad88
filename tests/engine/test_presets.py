"""The named scenarios a teacher can open."""
from __future__ import annotations

import re

import numpy as np
import pytest

from qkv_engine import Scenario, ScenarioError, compute, presets
from qkv_engine.randomness import token_embedding, weight_grid

NUMBER_WORDS = {
    w: i for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}


@pytest.mark.parametrize("name", presets.names())
def test_every_preset_loads_and_computes(name):
    s = presets.load(name)
    assert isinstance(s, Scenario) and s.n >= 1
    r = compute(s)
    assert np.all(np.isfinite(r.weights)) and np.all(np.isfinite(r.output))
    np.testing.assert_allclose(r.weights.sum(axis=1), 1.0, atol=1e-12)
    if s.text is not None:
        assert all(s.text[a:b] == t for t, (a, b) in zip(s.tokens, s.spans))
    assert presets.load(name) == s  # loading twice gives the same scenario


def test_names_are_unique_and_listed_in_order():
    names = presets.names()
    assert len(names) == len(set(names)) >= 3
    assert [p.name for p in presets.all_presets()] == names
    assert presets.DEFAULT in names
    for p in presets.all_presets():
        assert presets.get(p.name) is p
        assert p.title.strip() and p.description.strip()


def test_unknown_preset_is_refused_by_name():
    with pytest.raises(ScenarioError, match="no-such-lesson"):
        presets.get("no-such-lesson")
    with pytest.raises(ScenarioError, match="no-such-lesson"):
        presets.load("no-such-lesson")


def _drawn_from_the_seed(s: Scenario) -> bool:
    """True when every embedding and grid (every head's block, W^O, the source sentence's rows)
    is what the seeded generator gives."""
    def grid(kind, rows, cols):
        return np.hstack([weight_grid(kind if h == 0 else f"{kind}@{h + 1}", rows, cols, s.seed)
                          for h in range(s.n_heads)])

    rows = list(zip(s.tokens, s.x)) + (list(zip(s.source_tokens, s.source_x)) if s.is_cross else [])
    ok = (
        all(np.array_equal(row, token_embedding(t, s.d_model, s.seed)) for t, row in rows)
        and np.array_equal(s.w_q, grid("q", s.d_model, s.d_k))
        and np.array_equal(s.w_k, grid("k", s.d_model, s.d_k))
        and np.array_equal(s.w_v, grid("v", s.d_model, s.d_v))
    )
    if s.w_o is not None:
        blocks = [weight_grid("o" if h == 0 else f"o@{h + 1}", s.d_v, s.d_out, s.seed) for h in range(s.n_heads)]
        ok = ok and np.array_equal(s.w_o, np.vstack(blocks))
    return ok


@pytest.mark.parametrize("preset", presets.all_presets(), ids=lambda p: p.name)
def test_random_weights_flag_is_honest(preset):
    s = preset.build()
    if preset.random_weights:
        # Random grids come from a generator: either the seeded one the app
        # uses, or the document's numpy listing (np.random.seed(42), randn * 0.1).
        rng = np.random.RandomState(42)
        listing = [rng.randn(s.d_model, s.d_k) * 0.1, rng.randn(s.d_model, s.d_k) * 0.1,
                   rng.randn(s.d_model, s.d_v) * 0.1]
        from_listing = all(np.array_equal(a, b) for a, b in zip((s.w_q, s.w_k, s.w_v), listing))
        assert from_listing or _drawn_from_the_seed(s)
        assert "random" in preset.description.lower()
    else:
        # Hand-chosen numbers, not a generator's output.
        assert not _drawn_from_the_seed(s)
        assert np.array_equal(s.x, np.round(s.x, 2))
        q_k_v = compute(s)
        for a in (q_k_v.q, q_k_v.k, q_k_v.v):
            assert np.allclose(a, np.round(a, 2), atol=1e-12)  # vectors with two decimals, as the documents print
        assert "random" not in preset.description.lower()


def _classroom():
    return [p for p in presets.all_presets() if not p.name.startswith("seed-")]


def test_a_classroom_preset_has_a_pronoun():
    assert any("it" in p.build().tokens for p in _classroom())


def test_a_classroom_preset_repeats_a_word_with_one_embedding():
    found = False
    for p in _classroom():
        s = p.build()
        for t in set(s.tokens):
            rows = [i for i, u in enumerate(s.tokens) if u == t]
            if len(rows) > 1 and t.isalpha():
                found = True
                r = compute(s)
                for i in rows[1:]:
                    assert np.array_equal(s.x[i], s.x[rows[0]])
                    assert np.array_equal(r.q[i], r.q[rows[0]]) and np.array_equal(r.v[i], r.v[rows[0]])
    assert found


def test_a_classroom_preset_has_twelve_or_more_tokens():
    assert any(p.build().n >= 12 for p in _classroom())


@pytest.mark.parametrize("preset", presets.all_presets(), ids=lambda p: p.name)
def test_descriptions_state_sizes_truthfully(preset):
    s = preset.build()
    text = preset.description.lower()
    for word, noun in re.findall(r"\b(\w+) (tokens?)\b", text):
        if word in NUMBER_WORDS:
            assert NUMBER_WORDS[word] == s.n, f"{preset.name}: says '{word} {noun}' but has {s.n} tokens"
    for dim, value in re.findall(r"\b(d_model|d_k|d_v) =? ?(\d+)", text):
        assert getattr(s, dim) == int(value), f"{preset.name}: says {dim} {value}"
