"""Rotary positions: the speeds transformers computes (tests/data/rope-frequencies.npz, written by the library),
the turn of pairs (i, i + d/2), what it does to dot products, and the Scenario option that carries it."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from qkv_engine import Scenario, ScenarioError, compute, session_format
from qkv_engine.errors import ModelError
from qkv_engine.models.rope_config import read_rope
from qkv_engine.rotary import angles, inverse_frequencies, rotate

from .model_files import DATA

LIBRARY = np.load(DATA / "rope-frequencies.npz")
CASES = ("default_new", "default_old", "linear_old", "llama3_old", "llama3_new")


@pytest.mark.parametrize("case", CASES)
def test_speeds_equal_the_librarys_for_both_config_layouts(case):
    config = json.loads(str(LIBRARY[case + "_config"]))
    d_head = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    rope = read_rope(config, Path("m"), d_head, config.get("max_position_embeddings", 2048))
    assert rope.frequencies.dtype == np.float32
    np.testing.assert_array_equal(rope.frequencies, LIBRARY[case + "_inv_freq"])


def test_default_speeds_follow_the_formula():
    f = inverse_frequencies(8, 10000.0)
    np.testing.assert_allclose(f, [1.0, 0.1, 0.01, 0.001], rtol=1e-6)


def test_llama3_scaling_keeps_fast_pairs_and_slows_slow_ones():
    config = json.loads(str(LIBRARY["llama3_old_config"]))
    plain = inverse_frequencies(64, 500000.0)
    scaled = read_rope(config, Path("m"), 64, 131072).frequencies
    wavelength = 2 * math.pi / plain
    fast, slow = wavelength < 8192 / 4, wavelength > 8192 / 1
    np.testing.assert_array_equal(scaled[fast], plain[fast])
    np.testing.assert_allclose(scaled[slow], plain[slow] / 32, rtol=1e-6)
    between = ~fast & ~slow
    assert between.any() and np.all(scaled[between] < plain[between]) and np.all(scaled[between] > plain[between] / 32)


def test_a_turn_moves_pair_i_with_pair_i_plus_half():
    x = np.array([[1.0, 2.0, 3.0, 4.0]])  # pairs (1, 3) and (2, 4)
    turned = rotate(x, np.array([[math.pi / 2, math.pi]]))
    np.testing.assert_allclose(turned, [[-3.0, -2.0, 1.0, -4.0]], atol=1e-6)


def test_a_turn_keeps_lengths_and_scores_depend_on_distance_only():
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal(8), rng.standard_normal(8)
    f = inverse_frequencies(8, 100.0)

    def score(m, n):
        return float(rotate(q[None], angles([m], f))[0] @ rotate(k[None], angles([n], f))[0])

    assert np.linalg.norm(rotate(q[None], angles([7], f))) == pytest.approx(np.linalg.norm(q), rel=1e-6)
    assert score(5, 2) == pytest.approx(score(13, 10), rel=1e-5)
    assert score(5, 2) != pytest.approx(score(5, 3), rel=1e-3)
    assert score(0, 0) == pytest.approx(float(q @ k), rel=1e-6)


def test_a_scenario_with_rotary_positions_turns_queries_and_keys():
    sc = Scenario.from_sentence("the cat sat on the mat", d_model=4, d_k=4, d_v=3, seed=1)
    plain = compute(sc)
    turned = compute(sc.with_options(rotary=True, rope_theta=100.0))
    np.testing.assert_array_equal(turned.q_unrotated, plain.q)
    np.testing.assert_array_equal(turned.k_unrotated, plain.k)
    np.testing.assert_array_equal(turned.v, plain.v)
    f = inverse_frequencies(4, 100.0)
    np.testing.assert_allclose(turned.q, rotate(plain.q, angles(range(6), f)), atol=1e-12)
    np.testing.assert_allclose(turned.scores, turned.q @ turned.k.T, atol=1e-12)
    np.testing.assert_allclose(turned.q_angles, np.outer(range(6), f), rtol=1e-6)
    assert not np.allclose(turned.weights, plain.weights)
    np.testing.assert_allclose(turned.q[0], plain.q[0], atol=1e-12)  # position 0 does not turn
    assert plain.q_unrotated is plain.q and not plain.q_angles.any()


def test_explicit_positions_and_speeds():
    sc = Scenario.from_sentence("a b c", d_model=4, d_k=2, d_v=2, seed=2)
    r = compute(sc.with_options(rotary=True, rope_frequencies=[0.5], positions=(3, 4, 5)))
    np.testing.assert_allclose(r.q_angles[:, 0], [1.5, 2.0, 2.5])
    same = compute(sc.with_options(rotary=True, rope_frequencies=[0.5]))
    np.testing.assert_allclose(r.weights, same.weights, atol=1e-9)  # only differences of position count


@pytest.mark.parametrize("options, fragment", [
    (dict(rotary=True, d_k=3), "d_k must be even"),
    (dict(rotary="yes"), "rotary"),
    (dict(rope_theta=1.0), "rope_theta"),
    (dict(rope_frequencies=[1.0, 2.0, 3.0]), "rope_frequencies"),
    (dict(rope_frequencies=[1.0, -2.0]), "positive"),
    (dict(positions=(0, 1)), "positions"),
])
def test_bad_rotary_options(options, fragment):
    d_k = options.pop("d_k", 4)
    sc = Scenario.from_sentence("a b c", d_model=4, d_k=d_k, d_v=2)
    with pytest.raises(ScenarioError, match=fragment):
        sc.with_options(**options)


def test_sessions_keep_rotary_positions_and_old_files_open_without_them():
    sc = Scenario.from_sentence("the cat sat", d_model=4, d_k=4, d_v=2, seed=3).with_options(
        rotary=True, rope_theta=500.0, rope_frequencies=[0.9, 0.1], positions=(2, 3, 4))
    back, _ = session_format.loads(session_format.dumps(sc))
    assert back == sc and back.rotary and back.positions == (2, 3, 4)
    np.testing.assert_array_equal(compute(back).weights, compute(sc).weights)
    doc = session_format.to_dict(Scenario.from_sentence("the cat", seed=3))
    for key in ("rotary", "rope_theta", "rope_frequencies", "positions"):
        del doc["scenario"][key]
    old, _ = session_format.from_dict(doc)
    assert not old.rotary and old.rope_frequencies is None
    doc["scenario"]["rotary"] = "on"
    with pytest.raises(ScenarioError, match="scenario.rotary"):
        session_format.from_dict(doc)


def test_retyping_the_sentence_keeps_rotary_on_and_counts_positions_again():
    sc = Scenario.from_sentence("a b c", d_model=4, d_k=2, d_v=2).with_options(rotary=True, positions=(5, 6, 7))
    longer = sc.with_text("a b c d")
    assert longer.rotary and longer.positions is None and longer.query_positions == (0, 1, 2, 3)


@pytest.mark.parametrize("params, fragment", [
    ({"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e4, "factor": 4.0}}, "'yarn'"),
    ({"rope_scaling": {"type": "dynamic", "factor": 2.0}}, "'dynamic'"),
    ({"rope_scaling": {"rope_type": "linear"}}, "factor"),
    ({"rope_parameters": {"rope_type": "llama3", "rope_theta": 1e4, "factor": 8.0, "low_freq_factor": 4.0,
                          "high_freq_factor": 1.0}}, "high_freq_factor"),
    ({"rope_theta": -5}, "rope_theta"),
    ({"partial_rotary_factor": 0.5}, "partial_rotary_factor"),
])
def test_rope_settings_this_app_cannot_run_are_refused_naming_them(params, fragment):
    with pytest.raises(ModelError, match=fragment) as err:
        read_rope(params, Path("m"), 8, 128)
    assert "\n" not in str(err.value)
