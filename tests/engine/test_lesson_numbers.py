"""Lesson numbers: placeholder filling, placeholder values from explain, exercises and answer checking."""
import numpy as np
import pytest

from qkv_engine import ScenarioError, compute, explain, presets
from qkv_engine.lesson_numbers import (
    EXERCISE_KINDS,
    check_answer,
    fill,
    make_exercise,
    names_in,
    pick_exercise,
    placeholder_values,
)


def test_fill_replaces_known_marks_unknown_and_keeps_literal_braces():
    out = fill("a {x} b {nope} c {{x}} d {Not_a_name} e", {"x": "1"})
    assert out == "a 1 b \u27e8unknown placeholder: nope\u27e9 c {x} d {Not_a_name} e"


def test_fill_never_rescans_inserted_values_and_escapes_them():
    out = fill("{a}{b}", {"a": "{b}", "b": "<i>"}, escape=lambda v: v.replace("<", "&lt;"))
    assert out == "{b}&lt;i>"


def test_names_in_lists_each_name_once():
    assert names_in("{a} {b} {a} {{c}}") == ["a", "b"]


def test_placeholder_values_are_explains_text_for_the_selected_pair():
    r = compute(presets.load("seed-the-cat-sat"))
    v = placeholder_values(r, 2, 1)
    assert v["token_i"] == "sat" and v["token_j"] == "cat"
    assert v["q1_worked"] == explain.projection(r, "q", 2, 0).text
    assert v["k2_worked"] == explain.projection(r, "k", 1, 1).text
    assert v["score_worked"] == explain.score(r, 2, 1).text
    assert v["weight_worked"] == explain.weight(r, 2, 1).text
    assert v["output_worked"].split("\n")[0] == explain.output(r, 2, 0).text
    # independent check of the numbers the text carries
    s = r.scenario
    q = s.x[2] @ s.w_q
    k = s.x[1] @ s.w_k
    assert v["score"] == f"{q @ k:.4f}"
    assert v["shape_kt"] == "2 × 3" and v["shape_scores"] == "3 × 3"


def test_placeholder_values_are_worked_out_only_when_read(monkeypatch):
    """A step uses a few of the values: the others are not worked out (the pane is written at every edit)."""
    r = compute(presets.load("seed-the-cat-sat"))
    eager = {}
    for name in placeholder_values(r, 2, 1):
        eager[name] = placeholder_values(r, 2, 1)[name]
    want = explain.score(r, 2, 1).text
    calls = []
    for name in ("projection", "output", "score", "weight", "scaled", "norm", "cosine"):
        real = getattr(explain, name)
        monkeypatch.setattr(explain, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    v = placeholder_values(r, 2, 1)
    assert calls == [] and "score_worked" in v and "weight" in v
    assert v["score_worked"] == want and calls == ["score"]
    assert v["q_worked"].split("\n") == [v[f"q{c + 1}_worked"] for c in range(r.scenario.d_k)]
    assert calls.count("projection") == r.scenario.d_k  # each line once, kept
    v.update({"extra": "x"})
    assert v["extra"] == "x" and dict(v) == {**eager, "extra": "x"}


def test_placeholder_values_with_no_tokens_give_sizes_only():
    r = compute(presets.load("seed-cat").with_text(""))
    v = placeholder_values(r, 0, 0)
    assert v["n"] == "0" and "q1_worked" not in v


def test_check_answer_to_the_shown_precision():
    assert check_answer("0.05", 0.0471, 2)[0]
    assert check_answer("0.047", 0.0471, 2)[0]
    assert not check_answer("0.04", 0.0471, 2)[0]
    assert check_answer("\u22120.13", -0.13, 2)[0]  # typographic minus
    assert check_answer("-0,13", -0.13, 2)[0]  # decimal comma
    ok, msg = check_answer("abc", 1.0, 2)
    assert not ok and "not a number" in msg


@pytest.mark.parametrize("kind", EXERCISE_KINDS)
def test_exercises_hide_the_results_number_with_explains_arithmetic(kind):
    r = compute(presets.load("seed-the-cat-sat"))
    ex = make_exercise(r, kind, i=2, j=1, c=1)
    expected = {"q": r.q[2, 1], "score": r.scores[2, 1], "weight": r.weights[2, 1], "output": r.output[2, 1]}[kind]
    assert ex.value == pytest.approx(float(expected))
    assert ex.worked.endswith(explain.fixed(expected, 2 if kind in ("q", "output") else 4))
    assert check_answer(explain.fixed(ex.value, ex.decimals), ex.value, ex.decimals)[0]
    assert not check_answer(explain.fixed(ex.value + 0.1, ex.decimals), ex.value, ex.decimals)[0]


def test_seed_cat_query_exercise_matches_hand_arithmetic():
    r = compute(presets.load("seed-cat"))
    ex = make_exercise(r, "q", 0, 0, 0)
    hand = 0.5 * 0.1 + (-0.3) * 0.2 + 0.8 * (-0.3) + 0.2 * 0.6
    assert ex.value == pytest.approx(hand)
    assert check_answer("-0.13", ex.value, ex.decimals)[0]


def test_pick_exercise_is_repeatable_and_skips_masked_weights():
    s = presets.load("seed-the-cat-sat").with_options(causal=True)
    r = compute(s)
    for seed in range(20):
        ex = pick_exercise(r, "weight", seed)
        assert r.allowed[ex.i, ex.j]
        assert ex == pick_exercise(r, "weight", seed)
    with pytest.raises(ScenarioError):
        make_exercise(r, "weight", 0, 2)
    with pytest.raises(ScenarioError):
        make_exercise(r, "nonsense", 0, 0)
    np.testing.assert_equal(r.allowed[0, 2], False)


@pytest.mark.parametrize("source", ["le petit chat noir dort ici maintenant", "chat noir"])
def test_placeholder_values_in_cross_attention_take_the_key_from_the_source(source):
    # Keys and values come from the source sentence, which can be longer or shorter than the target.
    s = presets.load("translation").with_source(source)
    r = compute(s)
    n, m = s.n, s.n_keys
    i, j = n - 1, m - 1
    v = placeholder_values(r, i, j)
    assert v["token_i"] == s.tokens[i] and v["token_j"] == s.key_tokens[j]
    assert v["shape_k"] == f"{m} × {s.d_k}" and v["shape_kt"] == f"{s.d_k} × {m}"
    assert v["shape_v"] == f"{m} × {s.d_v}" and v["shape_scores"] == f"{n} × {m}"
    q = s.x[i] @ s.w_q
    k = s.source_x[j] @ s.w_k  # independently: the source token's embedding times W^K
    assert v["score"] == f"{q @ k:.4f}"
    assert v["k_worked"].split("\n")[0] == explain.projection(r, "k", j, 0).text
    assert v["x_j"].startswith("[") and f"{s.source_x[j][0]:.2f}" in v["x_j"]


def test_placeholder_values_with_an_empty_source_give_sizes_only():
    r = compute(presets.load("translation").with_source(""))
    v = placeholder_values(r, 0, 0)
    assert v["shape_k"] == f"0 × {r.scenario.d_k}" and "k_worked" not in v and "score" not in v


@pytest.mark.parametrize("kind", EXERCISE_KINDS)
def test_exercises_in_cross_attention_ask_about_source_keys(kind):
    s = presets.load("translation").with_source("le petit chat noir dort ici maintenant")
    r = compute(s)
    for seed in range(12):
        ex = pick_exercise(r, kind, seed)
        assert 0 <= ex.i < s.n and 0 <= ex.j < s.n_keys
    ex = make_exercise(r, "score", 1, 6)  # key 7 exists only in the source
    q, k = s.x[1] @ s.w_q, s.source_x[6] @ s.w_k
    assert ex.value == pytest.approx(float(q @ k))
    assert "'maintenant'" in ex.question
    out = make_exercise(r, "output", 0, 0, 0)
    assert "'maintenant'" in out.given  # the weights and values are labelled with the source's tokens
    with pytest.raises(ScenarioError, match="source sentence"):
        pick_exercise(compute(s.with_source("")), kind, 0)


@pytest.mark.parametrize("kind", EXERCISE_KINDS)
def test_hints_after_a_wrong_answer_never_give_the_number_away(kind):
    from qkv_engine.lesson_numbers import exercise_hint

    r = compute(presets.load("seed-the-cat-sat"))
    ex = make_exercise(r, kind, i=2, j=1, c=1)
    shown = [explain.fixed(ex.value, d) for d in range(1, 5)]
    hints = [exercise_hint(ex, ex.value + 0.5, tries) for tries in (1, 2, 3, 4)]
    for hint in hints:
        assert not any(number in hint for number in shown), hint
    assert "Hint" in hints[0] and "too high" in hints[1] and "Show answer" in hints[2]
    assert "too low" in exercise_hint(ex, ex.value - 0.5, 2)
