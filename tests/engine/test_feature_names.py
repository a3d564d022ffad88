"""Named features and q/k/v columns: validation, fallbacks, resizing, worked arithmetic, files."""
from __future__ import annotations

import json

import numpy as np
import pytest

from qkv_engine import Scenario, ScenarioError, compute, explain, feature_names, session_format
from qkv_engine.lesson_numbers import make_exercise, placeholder_values


def named() -> Scenario:
    s = Scenario.from_sentence("the cat sat", d_model=4, d_k=2, d_v=3, seed=3)
    s = s.with_feature_name(0, "animate").with_feature_name(2, "noun")
    s = s.with_column_name("q", 0, "looks for animate").with_column_name("k", 0, "is animate")
    return s.with_column_name("v", 1, "carries noun")


# ----- on the Scenario --------------------------------------------------------------------------
def test_names_default_to_empty_one_per_column():
    s = Scenario.from_sentence("a b", d_model=3, d_k=2, d_v=4)
    assert s.feature_names == ("", "", "")
    assert s.q_names == s.k_names == ("", "") and s.v_names == ("",) * 4


def test_names_are_kept_trimmed_and_compared():
    s = named()
    assert s.feature_names == ("animate", "", "noun", "")
    assert s.q_names == ("looks for animate", "") and s.k_names == ("is animate", "")
    assert s.v_names == ("", "carries noun", "")
    assert s.with_feature_name(1, "  plural  ").feature_names[1] == "plural"
    assert s != s.with_feature_name(3, "verb")
    assert s == named()


@pytest.mark.parametrize("field, value, fragment", [
    ("feature_names", ("a", "b"), "expected 4 names"),
    ("feature_names", "abcd", "list of names"),
    ("feature_names", ("a", 1, "c", "d"), "list of names"),
    ("q_names", ("a", "b", "c"), "expected 2 names"),
    ("v_names", ("a", "line\nbreak", "c"), "v_names[1]"),
    ("k_names", ("x" * 41, ""), "at most 40"),
])
def test_bad_names_are_refused_naming_the_field(field, value, fragment):
    with pytest.raises(ScenarioError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        named().with_options(**{field: value})


def test_editing_a_name_refuses_columns_that_do_not_exist():
    with pytest.raises(ScenarioError, match="feature"):
        named().with_feature_name(4, "x")
    with pytest.raises(ScenarioError, match="q column"):
        named().with_column_name("q", 2, "x")
    with pytest.raises(ScenarioError, match="which"):
        named().with_column_name("o", 0, "x")
    with pytest.raises(ScenarioError, match="expected text"):
        named().with_feature_name(0, 3)
    with pytest.raises(ScenarioError, match="v column name: expected text"):
        named().with_column_name("v", 0, None)


def test_resizing_keeps_the_names_that_still_fit():
    s = named()
    small = s.with_dims(d_model=3, d_k=1, d_v=2)
    assert small.feature_names == ("animate", "", "noun")
    assert small.q_names == ("looks for animate",) and small.v_names == ("", "carries noun")
    big = small.with_dims(d_model=5, d_k=3)
    assert big.feature_names == ("animate", "", "noun", "", "")
    assert big.q_names == ("looks for animate", "", "") and big.k_names == ("is animate", "", "")


def test_heads_keep_their_column_names_and_each_head_gets_its_own():
    s = named().with_heads(2)
    assert s.q_names == ("looks for animate", "", "", "")
    assert s.v_names == ("", "carries noun", "", "", "", "")
    s = s.with_column_name("q", 2, "looks back")
    assert s.head(1).q_names == ("looks back", "") and s.head(0).q_names == ("looks for animate", "")
    assert compute(s, 1).scenario.q_names == ("looks back", "")
    assert s.with_heads(1).q_names == ("looks for animate", "")
    assert s.head(1).feature_names == s.feature_names


def test_reseeding_and_retyping_keep_the_names():
    s = named()
    assert s.reseeded(9).feature_names == s.feature_names
    assert s.with_text("a dog ran far").q_names == s.q_names


# ----- the shown names ---------------------------------------------------------------------------
def test_shown_names_fall_back_to_symbols():
    s = named()
    assert feature_names.header(s, "x", 0) == "x1 · animate"
    assert feature_names.header(s, "x", 1) == "x2"
    assert feature_names.plain(s, "x", 0) == "animate" and feature_names.plain(s, "x", 3) == "x4"
    assert feature_names.header_names(s, "q") == ["q1 · looks for animate", "q2"]
    assert feature_names.header_names(s, "out") == ["out1", "out2 · carries noun", "out3"]
    assert feature_names.header_names(s, "x") == ["x1 · animate", "x2", "x3 · noun", "x4"]


def test_several_heads_give_head_symbols_like_the_grid_headers():
    s = named().with_heads(2)
    assert feature_names.header_names(s, "q") == ["h1·q1 · looks for animate", "h1·q2", "h2·q1", "h2·q2"]
    assert feature_names.symbol(s, "x", 3) == "x4"
    with pytest.raises(ScenarioError):
        feature_names.symbol(s, "q", 4)
    with pytest.raises(ScenarioError, match="kind"):
        feature_names.names(s, "w")


# ----- worked arithmetic and lesson numbers ------------------------------------------------------
def test_the_worked_query_names_the_column_and_every_feature():
    s = named()
    r = compute(s)
    e = explain.projection(r, "q", 1, 0)
    x, w = s.x[1], s.w_q[:, 0]
    assert e.text.startswith("q1 · looks for animate = ")
    products = e.text.split(" = ")[1].split(" + ")
    assert [p.rsplit(" [", 1)[1].rstrip("]") for p in products] == ["animate", "x2", "noun", "x4"]
    assert products[0].startswith(explain._factor(x[0], 2, True) + explain._factor(w[0], 2, False))
    assert e.text.endswith(explain.fixed(float(x @ w), 2))
    assert e.symbol == "q1" and e.value == pytest.approx(float(x @ w))
    assert "x1 (animate)·W^Q[1,1]" in e.formula and "x2·W^Q[2,1]" in e.formula


def test_scores_and_outputs_name_their_columns():
    r = compute(named())
    sc = explain.score(r, 1, 0)
    assert "[" not in sc.text and sc.text.startswith("score = q·k = ")  # the numbers stay short
    assert sc.formula == "score = q·k = q1·k1 (looks for animate) + q2·k2"
    out = explain.output(r, 1, 1)
    assert out.text.startswith("out2 · carries noun = ") and out.symbol == "out2"


def test_without_names_the_worked_arithmetic_is_unchanged():
    s = Scenario.from_sentence("the cat sat", seed=3)
    r = compute(s)
    assert explain.projection(r, "q", 0, 0).text.startswith("q1 = ")
    assert "[" not in explain.projection(r, "q", 0, 0).text
    assert explain.score(r, 0, 1).formula == "score = q·k = q1·k1 + q2·k2"


def test_lesson_numbers_carry_the_names():
    s = named()
    r = compute(s)
    vals = placeholder_values(r, 1, 0)
    assert vals["feature_names"] == "x1 · animate, x2, x3 · noun, x4"
    row = s.x[1]
    assert vals["features_i"] == ", ".join(
        f"{n} {explain.trimmed(float(v), 2)}" for n, v in zip(("animate", "x2", "noun", "x4"), row))
    assert vals["q1_worked"].startswith("q1 · looks for animate = ")
    assert make_exercise(r, "q", 1, 0, 0).question.startswith("What is q1 · looks for animate,")


# ----- session files ------------------------------------------------------------------------------
def test_names_round_trip_through_a_session_file():
    s = named().with_heads(2).with_column_name("v", 4, "far")
    back, _ = session_format.loads(session_format.dumps(s))
    assert back == s and back.v_names[4] == "far" and back.feature_names[2] == "noun"


def test_a_version_2_file_opens_with_empty_names():
    doc = session_format.to_dict(named())
    doc["version"] = 2
    for key in ("feature_names", "q_names", "k_names", "v_names", "new_tokens"):
        del doc["scenario"][key]
    back, _ = session_format.from_dict(doc)
    assert back.feature_names == ("",) * 4 and back.q_names == ("", "") and back.new_tokens == "random"
    assert np.array_equal(back.x, named().x)


@pytest.mark.parametrize("key, value, fragment", [
    ("feature_names", "animate", "scenario.feature_names"),
    ("q_names", [1, 2], "scenario.q_names"),
    ("k_names", ["a"], "scenario.k_names"),
    ("new_tokens", "sometimes", "scenario.new_tokens"),
    ("new_tokens", 3, "scenario.new_tokens"),
])
def test_bad_names_in_a_file_are_refused_naming_the_field(key, value, fragment):
    doc = json.loads(session_format.dumps(named()))
    doc["scenario"][key] = value
    with pytest.raises(ScenarioError, match=fragment):
        session_format.from_dict(doc)
