"""New words in a designed example: the features of the word they replaced, or zeros, and a note."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import Scenario, ScenarioError, presets, session_format
from qkv_engine.new_words import describe, replaced_by
from qkv_engine.randomness import token_embedding


def designed() -> Scenario:
    return presets.load("designed-it")


def row_of(s: Scenario, token: str) -> np.ndarray:
    return s.x[s.tokens.index(token)]


def test_lining_up_finds_the_replaced_words():
    old = ("the", "animal", "was", "tired")
    assert replaced_by(old, ("the", "dog", "was", "tired")) == {1: 1}
    assert replaced_by(old, ("the", "big", "animal", "was", "tired")) == {}  # an insertion
    assert replaced_by(old, ("a", "cat", "was", "tired")) == {0: 0, 1: 1}
    assert replaced_by(old, ("the", "old", "cat", "was", "tired")) == {1: 1}  # 'old' replaced, 'cat' inserted


def test_a_word_typed_over_another_takes_its_features():
    s = designed()
    t = s.with_text(s.text.replace("animal", "dog"))
    assert t.tokens[1] == "dog"
    assert np.array_equal(t.x[1], row_of(s, "animal"))
    assert describe(s, t) == ("'dog' took the features of 'animal'",)


def test_an_inserted_word_gets_zeros_and_says_so():
    s = designed()
    t = s.with_text(s.text.replace("The animal", "The big animal"))
    assert t.tokens[1] == "big" and not np.any(t.x[1])
    assert np.array_equal(row_of(t, "animal"), row_of(s, "animal"))
    assert describe(s, t) == ("'big' is new: its features are 0; edit them in the table",)


def test_typing_letter_by_letter_keeps_the_features_and_names_the_first_word():
    s = designed()
    t = s
    for partial in ("d", "do", "dog"):
        t = t.with_text(s.text.replace("animal", partial))
    assert np.array_equal(row_of(t, "dog"), row_of(s, "animal"))
    assert describe(s, t) == ("'dog' took the features of 'animal'",)


def test_known_words_keep_their_own_rows_and_get_no_note():
    s = designed()
    t = s.with_text("it was the animal")
    for tok in t.tokens:
        assert np.array_equal(row_of(t, tok), row_of(s, tok))
    assert describe(s, t) == ()


def test_a_word_whose_row_was_edited_after_typing_gets_a_plain_note():
    s = designed()
    t = s.with_text(s.text.replace("animal", "dog")).with_cell("x", 1, 3, 0.5)
    assert describe(s, t) == ("'dog' is new: edit its features in the table",)


def test_random_scenarios_still_draw_seeded_rows():
    s = Scenario.from_sentence("the cat sat", seed=5)
    t = s.with_text("the dog sat")
    assert s.new_tokens == "random"
    assert np.array_equal(t.x[1], token_embedding("dog", s.d_model, 5))
    assert describe(s, t) == ("'dog' is new: it got random features (seed 5); edit them in the table",)


def test_designed_scenarios_grow_with_zeros_and_reseeding_makes_them_random():
    s = designed()
    big = s.with_dims(d_model=6, d_k=3, d_v=3)
    assert not np.any(big.x[:, 4:]) and not np.any(big.w_q[4:]) and not np.any(big.w_q[:, 2])
    assert not np.any(big.w_v[:, 2])
    two = s.with_heads(2)
    assert not np.any(two.w_q[:, 2:]) and not np.any(two.w_o)
    r = s.reseeded(4)
    assert r.new_tokens == "random"
    assert np.array_equal(r.with_text("a zebra").x[1], token_embedding("zebra", s.d_model, 4))


def test_the_source_sentence_follows_the_same_rule():
    s = designed().with_source("the animal sleeps")
    assert np.array_equal(s.source_x[1], row_of(designed(), "animal")) and not np.any(s.source_x[2])
    t = s.with_source("the horse sleeps")
    assert np.array_equal(t.source_x[1], s.source_x[1])
    assert describe(s, t) == ("'horse' took the features of 'animal'",)


def test_the_rule_is_validated_and_saved():
    with pytest.raises(ScenarioError, match="new_tokens"):
        designed().with_options(new_tokens="guess")
    back, _ = session_format.loads(session_format.dumps(designed()))
    assert back.new_tokens == "replaced-or-zero" and back == designed()
