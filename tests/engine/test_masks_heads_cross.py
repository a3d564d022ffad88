"""Masks (padding, blocked cells, all-masked rows), multi-head and cross-attention against the
loop-by-loop reference, plus the invariants: one head with W^O = identity is single-head attention,
and cross-attention of a sentence with itself is self-attention."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from qkv_engine import Scenario, ScenarioError, compute, compute_heads, explain, session_format
from qkv_engine.attention import MASK_BLOCKED, MASK_CAUSAL, MASK_OPEN, MASK_PADDING

from . import reference
from .test_reference import assert_matches


def random_inputs(rng, n, m=None, d_model=None, d_k=None, d_v=None, heads=1):
    d_model = d_model or int(rng.integers(1, 6))
    d_k = d_k or int(rng.integers(1, 5))
    d_v = d_v or int(rng.integers(1, 5))
    out = dict(
        tokens=tuple(f"t{i}" for i in range(n)),
        x=rng.normal(0.0, 1.0, (n, d_model)),
        w_q=rng.normal(0.0, 1.0, (d_model, heads * d_k)),
        w_k=rng.normal(0.0, 1.0, (d_model, heads * d_k)),
        w_v=rng.normal(0.0, 1.0, (d_model, heads * d_v)),
        n_heads=heads,
    )
    if m is not None:
        out.update(source_tokens=tuple(f"s{j}" for j in range(m)), source_x=rng.normal(0.0, 1.0, (m, d_model)))
    return out


def random_masks(rng, n, m):
    padding = tuple(int(j) for j in range(m) if rng.random() < 0.25)
    blocked = tuple((int(i), int(j)) for i in range(n) for j in range(m) if rng.random() < 0.2)
    return padding, blocked


def check_head(r, ref):
    for name in ("q", "k", "v", "scores", "scaled", "weights", "output"):
        assert_matches(getattr(r, name), getattr(ref, name), name)
    assert r.allowed.tolist() == ref.allowed


# ----- masks ----------------------------------------------------------------------------------
@pytest.mark.parametrize("causal,softmax_over", list(itertools.product((False, True), ("keys", "queries"))))
def test_padding_and_blocked_cells_match_reference(causal, softmax_over):
    rng = np.random.default_rng(7 + causal * 2 + (softmax_over == "queries"))
    for _ in range(25):
        n = int(rng.integers(1, 9))
        padding, blocked = random_masks(rng, n, n)
        s = Scenario(**random_inputs(rng, n), causal=causal, softmax_over=softmax_over,
                     padding=padding, blocked=blocked)
        check_head(compute(s), reference.attention_of(s))


def test_an_all_masked_row_gets_zero_weights_and_a_zero_output_not_nan():
    rng = np.random.default_rng(3)
    s = Scenario(**random_inputs(rng, 4, d_v=3), blocked=[(2, 0), (2, 1), (2, 2), (2, 3)])
    r = compute(s)
    assert np.all(np.isfinite(r.weights)) and np.all(np.isfinite(r.output))
    assert r.rows_without_keys.tolist() == [False, False, True, False]
    assert r.weights[2].tolist() == [0.0] * 4
    assert r.output[2].tolist() == [0.0] * 3
    # the other rows still sum to 1
    assert np.allclose(r.weights.sum(axis=1)[[0, 1, 3]], 1.0)
    text = explain.weight(r, 2, 1).text
    assert "every key of this row is masked" in text and "zero vector" in text


def test_padding_every_token_masks_every_row():
    s = Scenario.from_sentence("the cat sat").with_options(padding=(0, 1, 2))
    r = compute(s)
    assert r.rows_without_keys.all()
    assert not r.weights.any() and not r.output.any()


def test_each_row_renormalises_over_what_is_left():
    s = Scenario.from_sentence("one two three four", seed=4)
    free = compute(s)
    padded = compute(s.with_padding(1))
    # the remaining keys keep their ratios and again sum to 1
    for i in range(s.n):
        keep = [0, 2, 3]
        expected = free.weights[i, keep] / free.weights[i, keep].sum()
        assert np.allclose(padded.weights[i, keep], expected)
        assert padded.weights[i, 1] == 0.0
        assert np.isclose(padded.weights[i].sum(), 1.0)


def test_mask_reasons_name_the_first_reason():
    s = Scenario.from_sentence("a b c", causal=True).with_padding(2).with_blocked(1, 0)
    why = compute(s).masked_by
    assert why[0].tolist() == [MASK_OPEN, MASK_CAUSAL, MASK_CAUSAL]
    assert why[1].tolist() == [MASK_BLOCKED, MASK_OPEN, MASK_CAUSAL]
    assert why[2].tolist() == [MASK_OPEN, MASK_OPEN, MASK_PADDING]
    assert "padding" in explain.scaled(compute(s), 2, 2).text
    assert "blocked by hand" in explain.scaled(compute(s), 1, 0).text
    assert "later" in explain.scaled(compute(s), 0, 1).text


def test_toggling_padding_and_blocks_round_trips_and_checks_ranges():
    s = Scenario.from_sentence("a b c")
    assert s.with_padding(1).with_padding(1, False) == s
    assert s.with_blocked(0, 2).with_blocked(0, 2, False) == s
    assert s.with_padding(1).with_blocked(0, 0).without_masks() == s
    with pytest.raises(ScenarioError):
        s.with_padding(3)
    with pytest.raises(ScenarioError):
        s.with_blocked(0, 5)
    with pytest.raises(ScenarioError):
        Scenario(**{**_fields(s), "blocked": [(9, 0)]})


def _fields(s):
    return dict(tokens=s.tokens, x=s.x, w_q=s.w_q, w_k=s.w_k, w_v=s.w_v)


def test_retyping_the_sentence_keeps_masks_only_where_their_tokens_stay():
    s = Scenario.from_sentence("a b c d").with_padding(3).with_padding(1).with_blocked(3, 0).with_blocked(0, 1)
    shorter = s.with_text("a b")
    assert shorter.padding == (1,)
    assert shorter.blocked == ((0, 1),)
    changed = s.with_text("a x c d e")  # 'b' became 'x': its padding mark and the cell (0, 1) go
    assert changed.padding == (3,)
    assert changed.blocked == ((3, 0),)
    pads = Scenario.from_sentence("The cat sat PAD PAD").with_padding(3).with_padding(4)
    assert pads.with_text("The cat sat on PAD").padding == (4,)


# ----- multi-head -----------------------------------------------------------------------------
@pytest.mark.parametrize("heads", [1, 2, 3, 4])
def test_multi_head_matches_reference(heads):
    rng = np.random.default_rng(100 + heads)
    for _ in range(15):
        n = int(rng.integers(1, 8))
        inputs = random_inputs(rng, n, heads=heads)
        d_out = int(rng.integers(1, 6))
        w_o = rng.normal(0.0, 1.0, (inputs["w_v"].shape[1], d_out)) if rng.random() < 0.8 else None
        padding, blocked = random_masks(rng, n, n)
        s = Scenario(**inputs, w_o=w_o, causal=bool(rng.random() < 0.5), padding=padding, blocked=blocked)
        full = compute_heads(s)
        ref = reference.multi_head_of(s)
        assert full.n_heads == heads
        for h in range(heads):
            check_head(full.heads[h], ref.heads[h])
            assert full.heads[h].head == h and full.heads[h].n_heads == heads
            assert full.heads[h].scenario.n_heads == 1
        assert_matches(full.concat, ref.concat, "concat")
        assert_matches(full.projected, ref.projected, "projected")
        assert full.projected.shape == (n, s.d_out)


def test_one_head_with_identity_output_grid_is_single_head_attention():
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(1, 9))
        inputs = random_inputs(rng, n)
        single = Scenario(**inputs)
        with_o = Scenario(**inputs, w_o=np.eye(single.d_v))
        one = compute(single)
        full = compute_heads(with_o)
        assert np.allclose(full.projected, one.output, rtol=0, atol=1e-12)
        assert np.array_equal(full.heads[0].weights, one.weights)


def test_adding_heads_keeps_head_one_and_draws_w_o():
    s = Scenario.from_sentence("the cat sat", d_model=4, d_k=2, d_v=3, seed=5)
    three = s.with_heads(3)
    assert three.n_heads == 3 and three.d_k == 2 and three.d_v == 3
    assert three.w_q.shape == (4, 6) and three.w_v.shape == (4, 9) and three.w_o.shape == (9, 4)
    assert np.array_equal(three.head(0).w_q, s.w_q) and np.array_equal(three.head(0).w_v, s.w_v)
    assert not np.array_equal(three.head(1).w_q, s.w_q)  # a new head has its own grid
    assert np.array_equal(compute(three, 0).weights, compute(s).weights)
    back = three.with_heads(1)
    assert back == s
    # per-head d_k changes every head's block and keeps what fits
    wider = three.with_dims(d_k=3)
    assert wider.w_q.shape == (4, 9)
    for h in range(3):
        assert np.array_equal(wider.head(h).w_q[:, :2], three.head(h).w_q)
    with pytest.raises(ScenarioError):
        s.with_heads(9)
    with pytest.raises(ScenarioError):
        Scenario(tokens=("a",), x=np.ones((1, 2)), w_q=np.ones((2, 3)), w_k=np.ones((2, 3)), w_v=np.ones((2, 2)),
                 n_heads=2)


def test_reseeding_keeps_heads_and_source():
    s = Scenario.from_sentence("le chat", seed=1).with_heads(2).with_source("the cat")
    r = s.reseeded(9)
    assert r.n_heads == 2 and r.w_o.shape == s.w_o.shape and r.source_tokens == s.source_tokens
    assert not np.array_equal(r.w_q, s.w_q)


# ----- cross-attention ------------------------------------------------------------------------
def test_cross_attention_matches_reference():
    rng = np.random.default_rng(21)
    for _ in range(30):
        n, m = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        padding, blocked = random_masks(rng, n, m)
        s = Scenario(**random_inputs(rng, n, m), padding=padding, blocked=blocked,
                     causal=bool(rng.random() < 0.5), softmax_over=str(rng.choice(["keys", "queries"])))
        r = compute(s)
        assert r.weights.shape == (n, m) and r.k.shape == (m, s.d_k) and r.output.shape == (n, s.d_v)
        assert r.key_tokens == s.source_tokens and r.tokens == s.tokens
        check_head(r, reference.attention_of(s))


def test_cross_attention_of_a_sentence_with_itself_is_self_attention():
    for seed in range(5):
        s = Scenario.from_sentence("the cat sat on the mat", seed=seed, d_model=3, d_k=2, d_v=2)
        cross = s.with_source(s.text)
        assert cross.is_cross and cross.source_tokens == s.tokens
        assert np.array_equal(cross.source_x, s.x)
        a, b = compute(s), compute(cross)
        for name in ("q", "k", "v", "scores", "scaled", "weights", "output"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_cross_attention_shapes_and_back_to_self():
    s = Scenario.from_sentence("the black cat", seed=2).with_source("le chat noir dort")
    r = compute(s)
    assert r.weights.shape == (3, 4)
    assert np.allclose(r.weights.sum(axis=1), 1.0)
    assert "'dort'" in explain.score(r, 0, 3).about
    assert "'dort'" in explain.projection(r, "k", 3, 0).about
    back = s.with_padding(3).with_source(None)
    assert not back.is_cross and back.padding == () and compute(back).weights.shape == (3, 3)


def test_causal_does_not_apply_across_two_sentences():
    s = Scenario.from_sentence("a b c", causal=True).with_source("x y z")
    assert compute(s).allowed.all()


# ----- session files keep all of it ----------------------------------------------------------
def test_session_file_round_trip_of_masks_heads_and_source(tmp_path):
    s = (Scenario.from_sentence("the black cat", seed=3).with_heads(2).with_source("le chat noir")
         .with_padding(2).with_blocked(0, 1).with_cell("w_o", 1, 2, 0.75))
    path = tmp_path / "s.qkv.json"
    session_format.save_file(path, s, {"head": 1})
    back, view = session_format.load_file(path)
    assert back == s and view == {"head": 1}


def test_session_file_with_a_bad_mask_is_refused():
    s = Scenario.from_sentence("a b")
    doc = session_format.to_dict(s)
    doc["scenario"]["blocked"] = [[0, 7]]
    with pytest.raises(ScenarioError, match="blocked"):
        session_format.from_dict(doc)
    doc = session_format.to_dict(s)
    doc["scenario"]["n_heads"] = "two"
    with pytest.raises(ScenarioError, match="n_heads"):
        session_format.from_dict(doc)
